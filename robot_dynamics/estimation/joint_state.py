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
        nonfinite_effort: (n,) bool, the joints whose last effort came as NaN or inf, or None.
        widest: the most joints a message carried so far (the widest driver's: an arm's,
            beside a gripper's that carries its fingers alone).
    """

    FIELDS = ("position", "velocity", "effort")

    def __init__(self, joint_names):
        self.joint_names = tuple(joint_names)
        self.n = len(self.joint_names)
        self.values = np.zeros((3, self.n))
        self.stamps = np.full((3, self.n), NEVER, dtype=np.int64)
        self.position, self.velocity, self.effort = self.values
        self.position_stamp, self.velocity_stamp, self.effort_stamp = self.stamps
        self.nonfinite_effort = None  # (n,) bool: the joints whose last effort was NaN or inf
        self.widest = 0

    def take(self, t_ns, fields, present, clean):
        """Store a message's fields.

        Args:
            t_ns: its stamp [ns].
            fields: ``(position, velocity, effort)``, each (n,) or None (no such field).
            present: (n,) bool, the joints it carries.
            clean: it carries every joint, every value finite (stored as they are).

        Returns:
            tuple: ``(velocity, effort)`` counts of non-finite values of carried joints (not
            stored: the previous values age).
        """
        if clean:
            for row, values in enumerate(fields):
                if values is not None:
                    self.values[row] = values
                    self.stamps[row] = t_ns
            if fields[2] is not None:
                self.nonfinite_effort = None
            return 0, 0
        counts = [0, 0]
        for row, values in enumerate(fields):
            if values is None:
                continue
            bad = self.merge(row, t_ns, values, present)
            if row:
                counts[row - 1] = int(bad.sum())
            if row == 2:
                old = self.nonfinite_effort
                if bad.size == 0:
                    self.nonfinite_effort = None
                elif old is not None or bad.any():
                    self.nonfinite_effort = bad if old is None else bad | (old & ~present)
        return tuple(counts)

    def narrower(self, present):
        """Whether a message carries fewer joints than the widest message so far (another
        driver's, a gripper's: its values merge, and the arm's are only held); the widest is
        updated.

        Args:
            present: (n,) bool, the joints the message carries; None: all of them.

        Returns:
            bool: True for a narrower message.
        """
        width = self.n if present is None else int(np.count_nonzero(present))
        if width < self.widest:
            return True
        self.widest = width
        return False

    def carry_over(self, other):
        """Take the values of the joints ``other`` (another model's state) also has.

        Args:
            other: a :class:`MergedJointState`; joints are matched by name.
        """
        if other.joint_names == self.joint_names:
            self.widest = other.widest
        index = {name: i for i, name in enumerate(other.joint_names)}
        for j, name in enumerate(self.joint_names):
            i = index.get(name)
            if i is not None:
                self.values[:, j] = other.values[:, i]
                self.stamps[:, j] = other.stamps[:, i]

    def missing_effort(self, stale, timeout):
        """Why the efforts of some joints cannot be used.

        Args:
            stale: (n,) bool, the joints whose effort is older than ``timeout``.
            timeout: the effort timeout [s], for the reason.

        Returns:
            tuple: ``(stale names, reason)``: the stale joints' names, and why; no names (and
            the joints that never had an effort named in the reason) when some joint never
            had one.
        """
        names = self.joint_names
        never = self.effort_stamp == NEVER
        nonfinite = self.nonfinite_effort
        if never.any():
            notes = []
            if nonfinite is not None and (never & nonfinite).any():
                notes.append("NaN or inf in every message so far: its effort interface not up yet?")
            if not never.all():  # a gripper without an effort interface, say
                notes.append(
                    "a joint whose driver measures no effort, such as a gripper's, can be "
                    "loaded as fixed with locked_joints"
                )
            reason = f"no effort for joints {[names[j] for j in np.flatnonzero(never)]}"
            return (), reason + (f" ({'; '.join(notes)})" if notes else "")
        stale_names = [names[j] for j in np.flatnonzero(stale)]
        why = ""
        if nonfinite is not None and (stale & nonfinite).any():
            why = f"; the last efforts of {[names[j] for j in np.flatnonzero(stale & nonfinite)]}"
            why += " were NaN or inf"
        return stale_names, (
            f"stale effort for joints {stale_names} (older than effort_timeout {timeout} s{why})"
        )

    def missing_velocity(self, stale, timeout):
        """Why the velocities of some joints cannot be used.

        Args:
            stale: (n,) bool, the joints without a velocity newer than ``timeout``.
            timeout: the velocity timeout [s], for the reason.

        Returns:
            str: the reason, naming the joints (and, for stale ones, the timeout and the fix).
        """
        names = [self.joint_names[j] for j in np.flatnonzero(stale)]
        if (self.velocity_stamp[stale] == NEVER).any():
            return (
                f"no velocity for joints {names} (the estimation takes the measured velocities; "
                "it does not differentiate the positions)"
            )
        return (
            f"stale velocity for joints {names} (older than velocity_timeout {timeout} s: a "
            "driver that publishes less often needs a longer velocity_timeout and "
            "effort_timeout, or its joints locked with locked_joints)"
        )

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
