"""A node process: its console scripts and how SIGINT and SIGTERM ask it to stop.

Standard library only, so that a console script installs its signal handling before numpy,
scipy or rclpy are imported: a signal that arrives while the process is still starting is
recorded like any other.

SIGINT and SIGTERM **ask** the process to stop: the handler records the request and returns. It
never raises into the code it interrupts, and the nodes run without rclpy's own signal handlers
(``rclpy.init(signal_handler_options=NO)``): those shut the context down from a thread of
rclpy's while the node's threads still use it, and trigger executors' guard conditions that the
main thread may be destroying at that moment (SIGSEGV). The main thread then stops everything
in one order (:func:`robot_dynamics.ros.executors.spin_node`). A second signal while the
process is still starting (imports, node construction, the first model build) interrupts the
start-up with ``KeyboardInterrupt``, which ``spin_node`` catches; once the nodes spin, further
signals change nothing: the stop is under way and every wait in it is bounded. Once stopped,
the process ignores them on its way out.
"""

import importlib
import queue
import signal

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """The process's stop request, set by SIGINT and SIGTERM (:meth:`install`) or by
    :meth:`request`. Thread-safe; the signal handler runs in the main thread (Python's rule).

    Attributes:
        signals: the signal numbers received, in order.
        interrupted: whether a second signal interrupted the start-up.
    """

    def __init__(self):
        self.signals = []
        self.interrupted = False
        self._requested = False
        self._starting = True
        self._wakeup = queue.SimpleQueue()  # put() is reentrant: safe in a signal handler

    def install(self):
        """Handle SIGINT and SIGTERM from now on (call from the main thread)."""
        for signum in STOP_SIGNALS:
            signal.signal(signum, self._on_signal)

    def _on_signal(self, signum, frame):
        self.signals.append(signum)
        self.request()
        if self._starting and len(self.signals) == 2:
            self.interrupted = True
            raise KeyboardInterrupt(f"{signal.Signals(signum).name} while starting")

    @property
    def requested(self):
        """bool: whether the process was asked to stop."""
        return self._requested

    def request(self):
        """Ask the process to stop (what a signal does)."""
        self._requested = True
        self._wakeup.put(True)

    def running(self):
        """The start-up is over: from now on a second signal does not interrupt anything."""
        self._starting = False

    def stopped(self):
        """The process has stopped and only exits now: further signals are ignored (the
        interpreter's exit would give them their default action back, and a signal a moment
        later would then kill the process)."""
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)

    def wait(self, timeout):
        """Wait until the process is asked to stop (a signal interrupts the wait at once).

        Args:
            timeout: longest wait [s].

        Returns:
            bool: whether the process was asked to stop.
        """
        if not self._requested:
            try:
                self._wakeup.get(timeout=timeout)
            except queue.Empty:
                pass
        return self._requested


_STOP = None


def stop_request():
    """The process's :class:`StopRequest`, its signal handlers installed on the first call
    (which must come from the main thread).

    Returns:
        StopRequest: the same object on every call.
    """
    global _STOP
    if _STOP is None:
        _STOP = StopRequest()
        _STOP.install()
    return _STOP


def _run(module):
    """Install the signal handling, then import ``module`` of this package and run its
    ``main()``; a start-up interrupted by a second signal ends with exit code 0."""
    stop = stop_request()
    try:
        return importlib.import_module(f"{__package__}.{module}").main()
    except BaseException:
        if stop.interrupted:  # (an import interrupted may raise something else)
            return 0
        raise
    finally:
        stop.stopped()


def dynamics_node():
    """Console script ``dynamics_node`` (:mod:`robot_dynamics.ros.dynamics_node`).

    Returns:
        int: the exit code.
    """
    return _run("dynamics_node")


def arm_simulator():
    """Console script ``arm_simulator`` (:mod:`robot_dynamics.ros.arm_simulator`).

    Returns:
        int: the exit code.
    """
    return _run("arm_simulator")


def relay_node():
    """Console script ``relay_node`` (:mod:`robot_dynamics.ros.relay_node`).

    Returns:
        int: the exit code.
    """
    return _run("relay_node")
