"""The latest measured value of each joint and field, with the stamp it came with.

Partial messages (several drivers, joint_state_publisher) update only the joints they carry;
a non-finite velocity or effort (ros2_control's joint_state_broadcaster sends NaN for a joint
without that interface) leaves the previous value, which ages. Model order, shapes (n,).
"""

import numpy as np

#: Stamp of a value never received.
NEVER = np.iinfo(np.int64).min


_NONE = np.zeros(0, dtype=bool)  # "no joint" (any() is False)


class MergedJointState:
    """Per joint and field: the latest finite value and its stamp [ns].

    Args:
        joint_names: joint names, model order.

    Attributes:
        position: (n,) latest finite positions [rad or m] (0 until received), updated in place.
        velocity: (n,) latest finite velocities [rad/s or m/s] (0 until received).
        effort: (n,) latest finite efforts, as received (0 until received).
        position_stamp: (n,) int64 stamps [ns], :data:`NEVER` until received.
        velocity_stamp: (n,) int64 stamps [ns], :data:`NEVER` until received.
        effort_stamp: (n,) int64 stamps [ns], :data:`NEVER` until received.
    """

    FIELDS = ("position", "velocity", "effort")

    def __init__(self, joint_names):
        self.joint_names = tuple(joint_names)
        self.n = len(self.joint_names)
        self.values = np.zeros((3, self.n))
        self.stamps = np.full((3, self.n), NEVER, dtype=np.int64)
        self.position, self.velocity, self.effort = self.values
        self.position_stamp, self.velocity_stamp, self.effort_stamp = self.stamps

    def carry_over(self, other):
        """Take the values of the joints ``other`` (another model's state) also has.

        Args:
            other: a :class:`MergedJointState`; joints are matched by name.
        """
        index = {name: i for i, name in enumerate(other.joint_names)}
        for j, name in enumerate(self.joint_names):
            i = index.get(name)
            if i is not None:
                self.values[:, j] = other.values[:, i]
                self.stamps[:, j] = other.stamps[:, i]

    def merge(self, row, t_ns, values, present):
        """Store the finite values of the present joints in one field, with one stamp.

        Args:
            row: field row, 0 position, 1 velocity, 2 effort.
            t_ns: stamp [ns].
            values: (n,) values, model order.
            present: (n,) bool, the joints the message carries.

        Returns:
            ndarray: bool mask of present joints whose value was not finite (not stored): (n,), or
            empty when every joint was present and finite.
        """
        if present.all() and np.isfinite(values).all():  # a full, clean message
            self.values[row] = values
            self.stamps[row] = t_ns
            return _NONE
        finite = np.isfinite(values)
        take = finite & present
        np.copyto(self.values[row], values, where=take)
        self.stamps[row][take] = t_ns
        return present & ~finite

    def clamp_stamps(self, t_ns):
        """After a stamp went backwards (a clock reset): no value is from the future.

        Args:
            t_ns: the new stamp [ns]; later stamps are clamped to it.
        """
        np.minimum(self.stamps, t_ns, out=self.stamps)

    def missing(self, row):
        """Names of the joints never received in a field.

        Args:
            row: field row, 0 position, 1 velocity, 2 effort.

        Returns:
            list: joint names, model order.
        """
        return [self.joint_names[j] for j in np.flatnonzero(self.stamps[row] == NEVER)]

    def older_than(self, row, t_ns, timeout_ns):
        """Joints whose value in a field is missing or too old.

        Args:
            row: field row, 0 position, 1 velocity, 2 effort.
            t_ns: the current stamp [ns].
            timeout_ns: maximum age [ns]; 0: only missing ones.

        Returns:
            ndarray: (n,) bool mask.
        """
        stamps = self.stamps[row]
        if timeout_ns <= 0:
            return stamps == NEVER
        # NEVER is far below any stamp: t - NEVER overflows; compare stamps instead
        return stamps < t_ns - timeout_ns


__all__ = ["MergedJointState", "NEVER"]
