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

    Attributes (model order, (n,), updated in place):
        position, velocity, effort: latest finite values (0 until received).
        position_stamp, velocity_stamp, effort_stamp: int64 stamps, :data:`NEVER` until
            received.
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
        """Take the values of the joints ``other`` (another model's state) also has."""
        index = {name: i for i, name in enumerate(other.joint_names)}
        for j, name in enumerate(self.joint_names):
            i = index.get(name)
            if i is not None:
                self.values[:, j] = other.values[:, i]
                self.stamps[:, j] = other.stamps[:, i]

    def merge(self, row, t_ns, values, present):
        """Store the finite ``values`` (n,) of the ``present`` (n,) bool joints in field row
        ``row`` (0 position, 1 velocity, 2 effort) with stamp ``t_ns``. Returns the bool mask
        of present joints whose value was not finite (not stored)."""
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
        """After a stamp went backwards (a clock reset): no value is from the future."""
        np.minimum(self.stamps, t_ns, out=self.stamps)

    def missing(self, row):
        """Names of the joints never received in field ``row``."""
        return [self.joint_names[j] for j in np.flatnonzero(self.stamps[row] == NEVER)]

    def older_than(self, row, t_ns, timeout_ns):
        """Bool mask of joints whose value in ``row`` is missing or older than ``timeout_ns``
        at ``t_ns`` (``timeout_ns`` 0: only missing ones)."""
        stamps = self.stamps[row]
        if timeout_ns <= 0:
            return stamps == NEVER
        # NEVER is far below any stamp: t - NEVER overflows; compare stamps instead
        return stamps < t_ns - timeout_ns


__all__ = ["MergedJointState", "NEVER"]
