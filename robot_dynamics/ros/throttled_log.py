"""Log a kind of message at most once per period, for the nodes' hot paths.

rclpy's own ``throttle_duration_sec`` identifies the calling line on every call (frame inspection
and a file-system lookup, about 250 µs), also for the calls it then drops. A 1 kHz hot path that
meets the same problem on every message (a stream of refused messages, an arm resting near a
singularity, a callback that raises) would spend a quarter of a millisecond per message on a log
line it does not print. This gate costs one clock read.
"""

import time


class ThrottledLog:
    """Logs through ``logger``, each kind of message at most once per its period.

    Safe to call from several threads: at worst two threads both log a kind that was due.

    Args:
        logger: the node's logger (``node.get_logger()``).
        clock: monotonic clock [s] (for tests; default :func:`time.monotonic`).
    """

    def __init__(self, logger, clock=time.monotonic):
        self._logger = logger
        self._clock = clock
        self._last = {}  # kind -> clock of the last message logged

    def __call__(self, kind, period, level, message):
        """Log ``message`` unless a message of ``kind`` was logged less than ``period`` ago.

        Args:
            kind: the kind of message (one per call site or problem; any hashable value).
            period: shortest interval between two messages of this kind [s].
            level: "error", "warning" or "info".
            message: the text.

        Returns:
            bool: whether it was logged.

        Raises:
            ValueError: another level.
        """
        now = self._clock()
        last = self._last.get(kind)
        if last is not None and now - last < period:
            return False
        self._last[kind] = now
        # rclpy ties each calling line to one severity (and finds it on every call): one line each
        if level == "error":
            self._logger.error(message)
        elif level == "warning":
            self._logger.warning(message)
        elif level == "info":
            self._logger.info(message)
        else:
            raise ValueError(f"log level {level!r}: one of 'error', 'warning', 'info'")
        return True
