"""Pacing simulated time against the wall clock, without ROS.

:class:`Pacer` says when a sample of simulated time is due on a monotonic wall clock at a
real-time factor; the ``arm_simulator`` node waits that long, then integrates up to the sample
and publishes it. Simulated time is the arm's (integer nanoseconds); the pacing never changes
it, it only says when to reach it.
"""

from __future__ import annotations

import time
from typing import Callable, Tuple

NANO = 1_000_000_000


class Pacer:
    """When each sample of simulated time is due on the wall clock.

    The pacing is a line through an anchor ``(wall0, t0)``: simulated time ``t`` is due at wall
    time ``wall0 + (t - t0) / factor``. It is anchored where simulated time starts
    (:meth:`start`), and again:

    * at a change of the factor (:meth:`set_factor`): the simulated time the pacing has reached
      at that instant, ``t0 + (now - wall0) * factor``, goes on from now at the new factor (from
      as fast as possible: the arm's simulated time), so the change acts at once and the pacing
      neither jumps ahead nor falls behind;
    * when it falls more than ``max_lag`` behind (an overrun, :meth:`delay`): the late sample is
      due now, and the lost time is given up.

    Factor 0 runs as fast as possible (nothing is ever waited for) when ``fast`` is allowed
    (the simulator is the ROS clock); otherwise it paces at 1.

    Args:
        factor: simulated seconds per wall-clock second, >= 0.
        max_lag: how far behind [s] the pacing may fall before it gives the lag up.
        fast: whether factor 0 runs as fast as possible.
        clock: the monotonic wall clock [s] (default ``time.monotonic``).
    """

    def __init__(
        self,
        factor: float,
        max_lag: float,
        fast: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.max_lag = float(max_lag)
        self.overruns = 0
        self._fast = bool(fast)
        self._clock = clock
        self._factor = self._effective(factor)
        self._anchor: Tuple[float, int] | None = None  # (wall0 [s], t0 [ns])

    def _effective(self, factor: float) -> float:
        factor = float(factor)
        return 1.0 if factor <= 0.0 and not self._fast else factor

    @property
    def factor(self) -> float:
        """The factor the pacing runs at (0: as fast as possible)."""
        return self._factor

    def start(self, t_ns: int) -> None:
        """Anchor the pacing: simulated time ``t_ns`` is now.

        Args:
            t_ns: the arm's simulated time [ns].
        """
        self._anchor = (self._clock(), int(t_ns))

    def reached_ns(self, t_ns: int) -> int:
        """The simulated time [ns] the pacing has reached now (``t_ns`` before :meth:`start` or
        while running as fast as possible).

        Args:
            t_ns: the arm's simulated time [ns].
        """
        if self._anchor is None or self._factor == 0.0:
            return int(t_ns)
        wall0, t0 = self._anchor
        return t0 + int(round((self._clock() - wall0) * self._factor * NANO))

    def set_factor(self, factor: float, t_ns: int) -> None:
        """Run at ``factor`` from now on, re-anchored at the simulated time reached now.

        Args:
            factor: simulated seconds per wall-clock second, >= 0.
            t_ns: the arm's simulated time [ns] (where a pacing that ran as fast as possible
                goes on from).
        """
        if self._anchor is not None:
            reached = self.reached_ns(t_ns)
            self._anchor = (self._clock(), reached)
        self._factor = self._effective(factor)

    def delay(self, next_ns: int) -> Tuple[float, float]:
        """How long to wait before integrating up to the sample at ``next_ns`` (after
        :meth:`start`).

        Args:
            next_ns: the sample's simulated time [ns].

        Returns:
            tuple: ``(delay, lost)`` [s]: the time until the sample is due (0: now); and the lag
            given up when the pacing was more than ``max_lag`` behind (then the sample is due
            now and the pacing is anchored at it; ``overruns`` counts it), else 0.
        """
        if self._anchor is None:
            raise RuntimeError("Pacer.delay before Pacer.start")
        if self._factor == 0.0:
            return 0.0, 0.0
        wall0, t0 = self._anchor
        now = self._clock()
        delay = wall0 + (next_ns - t0) / NANO / self._factor - now
        if delay > 0.0:
            return delay, 0.0
        if -delay > self.max_lag:
            self.overruns += 1
            self._anchor = (now, int(next_ns))
            return 0.0, -delay
        return 0.0, 0.0


__all__ = ["Pacer"]
