"""The reference a feed-forward follows: a trajectory point, validated once, expiring after a
timeout, with its inverse dynamics computed once."""

import numpy as np

from robot_dynamics.core.errors import InvalidInputError

from .config import ABSURD_POSITION

#: Joint accelerations of a reference beyond this [rad/s^2 or m/s^2] are refused.
ABSURD_ACCELERATION = 1.0e6


class Reference:
    """The latest trajectory point (model order) and its feed-forward torque.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        velocity_bound: (n,) |qd| [rad/s or m/s] beyond which a reference is refused.
        timeout_ns: a reference older than this [ns] expires (0: never).
        friction: callable ``friction(qd) -> (n,)`` friction torques to add to the
            feed-forward, or None.
        counters: the pipeline's counters (``reference_expired``, ``reference_refused``).
    """

    def __init__(self, model, velocity_bound, timeout_ns, friction, counters):
        self.model = model
        self.joint_names = tuple(model.joint_names)
        self.n = model.n
        self._bounds = (ABSURD_POSITION, velocity_bound, ABSURD_ACCELERATION)
        self._timeout_ns = timeout_ns
        self._friction = friction
        self._counters = counters
        self.point = None  # (q, qd, qdd, t_ns)
        self._feedforward = None  # (point, torques or None)

    def set(self, t_ns, q, qd=None, qdd=None):
        """Set the trajectory point the feed-forward follows.

        Args:
            t_ns: receive time [ns] on the clock of ``active``'s ``now_ns``.
            q: (n,) positions [rad or m].
            qd: (n,) velocities [rad/s or m/s] (None: zeros).
            qdd: (n,) accelerations [rad/s^2 or m/s^2] (None: zeros).

        Raises:
            InvalidInputError: a wrong shape, a non-finite or implausible value (named); counted
                in ``reference_refused``.
        """
        try:
            arrays = [
                self._checked(name, values, bound)
                for name, values, bound in zip(
                    ("positions", "velocities", "accelerations"), (q, qd, qdd), self._bounds
                )
            ]
        except InvalidInputError:
            self._counters["reference_refused"] += 1
            raise
        self.point = (arrays[0], arrays[1], arrays[2], int(t_ns))
        self._feedforward = None

    def _checked(self, name, values, bound):
        if values is None:
            return np.zeros(self.n)
        try:
            arr = np.array(values, dtype=float)
        except (TypeError, ValueError) as error:
            raise InvalidInputError(f"reference {name} are not numeric: {error}") from None
        if arr.shape != (self.n,):
            raise InvalidInputError(
                f"reference {name} have shape {arr.shape}, expected ({self.n},) in model "
                f"order {list(self.joint_names)}"
            )
        bad = ~(np.abs(arr) <= bound)
        if bad.any():
            j = int(np.argmax(bad))
            raise InvalidInputError(
                f"reference {name} of joint {self.joint_names[j]!r} is {arr[j]!r}: not "
                f"finite or beyond the plausible {np.broadcast_to(bound, (self.n,))[j]:.6g}"
            )
        return arr

    def clear(self):
        """Drop the reference: the feed-forward uses the measured state."""
        self.point = None
        self._feedforward = None

    def active(self, now_ns):
        """The point, or None when there is none or it expired (counted, then dropped).

        Args:
            now_ns: the current time [ns] on the clock of :meth:`set`'s ``t_ns``.

        Returns:
            tuple or None: ``(q, qd, qdd, t_ns)``.
        """
        point = self.point
        if point is None:
            return None
        if self._timeout_ns > 0 and now_ns - point[3] > self._timeout_ns:
            self._counters["reference_expired"] += 1
            self.clear()
            return None
        return point

    def feedforward(self, point):
        """``M qdd + C qd + g`` (+ friction) at ``point``, computed once per point.

        Args:
            point: the tuple :meth:`active` returned.

        Returns:
            ndarray: (n,) torques [N m or N] (a copy; not always finite: the caller judges).
        """
        cached = self._feedforward
        if cached is None or cached[0] is not point:
            q, qd, qdd, _ = point
            ff = self.model.inverse_dynamics(q, qd, qdd)
            if self._friction is not None:
                ff = ff + self._friction(qd)
            cached = self._feedforward = (point, ff)
        return cached[1].copy()


__all__ = ["ABSURD_ACCELERATION", "Reference"]
