"""Tare: the average external joint torques over a while at rest, subtracted from later
estimates (the model error at that pose)."""

import numpy as np


class Tare:
    """Averages the external torques from a stamp on, for ``duration`` of estimates.

    Args:
        n: number of joints.
        duration: averaging time [s].
    """

    def __init__(self, n, duration):
        self.n = n
        self.duration = duration
        self.duration_ns = int(round(duration * 1e9))
        self.state = "idle"  # "idle" | "collecting" | "done" | "failed: <reason>"
        self.bias = None  # (n,) or None
        self._collect = None  # dict while collecting

    def start(self, t_ns):
        """Start averaging from a stamp on.

        Args:
            t_ns: stamp [ns] from which messages count.
        """
        self._collect = {"start": int(t_ns), "first": None, "sum": np.zeros(self.n), "count": 0}
        self.state = "collecting"

    def refuse(self, reason):
        """A tare asked for that cannot start: its state says why; a bias in use is kept.

        Args:
            reason: why, for the state ("failed: <reason>").
        """
        self._collect = None
        self.state = f"failed: {reason}"

    @property
    def collecting(self):
        """True while a tare is in progress."""
        return self._collect is not None

    def tick(self, t_ns, tau_ext, last_pause):
        """Take one message's estimate (None while the estimation pauses).

        Args:
            t_ns: the message stamp [ns].
            tau_ext: (n,) external torques before the bias [N m or N], or None.
            last_pause: why the estimation last paused (for a failure's reason).
        """
        tare = self._collect
        if tare is None or t_ns < tare["start"]:
            return
        if tau_ext is not None:
            if tare["first"] is None:
                tare["first"] = t_ns
            tare["sum"] += tau_ext
            tare["count"] += 1
            if t_ns - tare["first"] >= self.duration_ns:
                self.bias = tare["sum"] / tare["count"]
                self._collect = None
                self.state = "done"
                return
        if t_ns - tare["start"] > 3 * self.duration_ns:
            self._collect = None
            self.state = (
                f"failed: no external torque estimates for {3 * self.duration} s "
                f"(last pause: {last_pause or 'no estimates'})"
            )

    def abort(self, reason):
        """Stop a tare in progress (its state says why) and forget the bias.

        Args:
            reason: why, for the state ("failed: <reason>").
        """
        self.bias = None
        if self._collect is not None:
            self.state = f"failed: {reason}"
        elif self.state == "done":
            self.state = "idle"
        self._collect = None

    def carry_over(self, old):
        """Take over ``old``'s bias and state (same model, new configuration: a tare in progress
        fails).

        Args:
            old: the previous pipeline's :class:`Tare`.
        """
        self.bias = old.bias
        self.state = old.state if old._collect is None else "failed: the configuration changed"


__all__ = ["Tare"]
