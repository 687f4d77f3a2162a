"""Signal helpers of the estimation pipeline (no dynamics here)."""

import numpy as np


class FilteredDifferentiator:
    """Joint acceleration from measured velocities: finite difference + first-order low-pass.

    ``qdd_k = qdd_{k-1} + a (  (qd_k - qd_{k-1}) / dt - qdd_{k-1} )`` with
    ``a = dt / (time_constant + dt)``; ``time_constant = 0`` gives the raw difference.
    Updated in place, no allocation per call.

    Args:
        n: number of joints.
        time_constant: low-pass time constant [s], >= 0.

    Attributes:
        acceleration: (n,) the latest filtered acceleration [rad/s^2 or m/s^2].
    """

    __slots__ = ("time_constant", "acceleration", "_previous", "_primed", "_scratch")

    def __init__(self, n, time_constant):
        self.time_constant = float(time_constant)
        self.acceleration = np.zeros(n)
        self._previous = np.zeros(n)
        self._scratch = np.zeros(n)
        self._primed = False

    def reset(self):
        """Forget the previous sample: the next update primes and returns zeros."""
        self.acceleration[:] = 0.0
        self._primed = False

    def update(self, velocity, dt):
        """Feed one velocity sample taken ``dt`` seconds after the previous one.

        The first sample (after construction or :meth:`reset`), or one with ``dt <= 0``, primes the
        filter and gives zeros.

        Args:
            velocity: (n,) joint velocities [rad/s or m/s].
            dt: time since the previous sample [s].

        Returns:
            ndarray: (n,) filtered acceleration qdd [rad/s^2 or m/s^2] (the ``acceleration``
            buffer itself, updated in place).
        """
        if not self._primed or not dt > 0.0:
            self._previous[:] = velocity
            self.acceleration[:] = 0.0
            self._primed = True
            return self.acceleration
        a = dt / (self.time_constant + dt)
        np.subtract(velocity, self._previous, out=self._scratch)
        self._scratch *= 1.0 / dt
        self._scratch -= self.acceleration
        self._scratch *= a
        self.acceleration += self._scratch
        self._previous[:] = velocity
        return self.acceleration


__all__ = ["FilteredDifferentiator"]
