"""Message <-> numpy conversions for the ROS adapters (no dynamics here).

Every joint-space vector inside the package is ordered by ``model.joint_names``; messages carry
their own name order. The helpers below translate between the two, and :class:`JointStateMerger`
merges partial ``sensor_msgs/JointState`` messages (several drivers, joint_state_publisher) into
one full state, by joint name.

Units are the message units: positions in rad or m, velocities in rad/s or m/s, efforts in N m
or N, wrenches ``[fx fy fz tx ty tz]`` in N and N m.
"""

from array import array
import math
import struct

import numpy as np

from builtin_interfaces.msg import Duration
from std_msgs.msg import Float64MultiArray, MultiArrayDimension


class JointStateError(ValueError):
    """A joint-state message that cannot be used (non-finite values, inconsistent lengths).

    The message names the joint and the field.
    """


def to_array(values):
    """A float64 numpy array (any shape) as the ``array('d')`` that message sequence fields hold.

    Assigning an ``array('d')`` to a ``float64[]`` field skips rclpy's per-element conversion.
    """
    # tobytes() is C order whatever the strides; array('d', bytes) is one frombytes() copy
    return array("d", np.asarray(values, dtype=np.float64).tobytes())


def as_numpy(sequence):
    """A read-only float64 view (no copy) of a message ``float64[]`` field (``array('d')``)."""
    if isinstance(sequence, array) and sequence.typecode == "d":
        if len(sequence) == 0:
            return np.empty(0)
        return np.frombuffer(sequence, dtype=np.float64)
    return np.asarray(sequence, dtype=np.float64)


def stamp_to_seconds(stamp):
    """``builtin_interfaces/Time`` -> float seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def seconds_to_duration(seconds):
    """float seconds (>= 0) -> ``builtin_interfaces/Duration``."""
    sec = int(np.floor(seconds))
    nanosec = int(round((seconds - sec) * 1e9))
    if nanosec >= 1000000000:
        sec, nanosec = sec + 1, nanosec - 1000000000
    return Duration(sec=sec, nanosec=nanosec)


def duration_to_seconds(duration):
    """``builtin_interfaces/Duration`` -> float seconds."""
    return duration.sec + duration.nanosec * 1e-9


def matrix_to_multiarray(matrix, row_label="rows", col_label="cols"):
    """A 2-D numpy array -> ``std_msgs/Float64MultiArray``, row-major, layout filled."""
    matrix = np.asarray(matrix, dtype=np.float64)
    rows, cols = matrix.shape
    msg = Float64MultiArray()
    msg.layout.dim = [
        MultiArrayDimension(label=row_label, size=rows, stride=rows * cols),
        MultiArrayDimension(label=col_label, size=cols, stride=cols),
    ]
    msg.layout.data_offset = 0
    msg.data = to_array(matrix)
    return msg


def wrench_to_msg(wrench, msg):
    """Write ``[fx fy fz tx ty tz]`` into a ``geometry_msgs/Wrench`` in place; returns it."""
    f = msg.force
    t = msg.torque
    f.x, f.y, f.z, t.x, t.y, t.z = (float(v) for v in wrench)
    return msg


def wrench_from_msg(msg):
    """``geometry_msgs/Wrench`` -> (6,) ``[fx fy fz tx ty tz]``."""
    f, t = msg.force, msg.torque
    return np.array([f.x, f.y, f.z, t.x, t.y, t.z])


def name_index(names, joint_index, context):
    """Map message names onto model indices.

    Args:
        names: joint names of a message (any order, may hold unknown joints).
        joint_index: dict joint name -> model index.
        context: what the names belong to, for error messages.

    Returns:
        (msg_idx, model_idx, unknown): int arrays of equal length (positions in the message,
        positions in the model vector) and the list of names the model does not know.

    Raises:
        JointStateError: a joint name appears twice.
    """
    msg_idx, model_idx, unknown = [], [], []
    seen = set()
    for i, name in enumerate(names):
        if name in seen:
            raise JointStateError(f"{context}: joint {name!r} appears twice")
        seen.add(name)
        j = joint_index.get(name)
        if j is None:
            unknown.append(name)
        else:
            msg_idx.append(i)
            model_idx.append(j)
    return (np.array(msg_idx, dtype=np.intp), np.array(model_idx, dtype=np.intp), unknown)


def vector_in_model_order(names, values, joint_index, n, context, field, default=None):
    """A full (n,) model-order vector from a named message vector.

    Joints missing from ``names`` take ``default[j]`` (a (n,) array) or raise when ``default`` is
    None; unknown names are ignored. Raises :class:`JointStateError` naming the joint and field
    on a length mismatch or a non-finite value.
    """
    values = as_numpy(values)
    if len(values) != len(names):
        raise JointStateError(
            f"{context}: {field} has {len(values)} values for {len(names)} joint names"
        )
    msg_idx, model_idx, _ = name_index(names, joint_index, context)
    if default is None:
        if len(model_idx) != n:
            missing = sorted(set(joint_index) - {names[i] for i in msg_idx})
            raise JointStateError(f"{context}: {field} is missing joints {missing}")
        out = np.empty(n)
    else:
        out = np.array(default, dtype=np.float64, copy=True)
    sub = values[msg_idx]
    bad = ~np.isfinite(sub)
    if bad.any():
        name = names[int(msg_idx[np.argmax(bad)])]
        raise JointStateError(f"{context}: {field} of joint {name!r} is not finite")
    out[model_idx] = sub
    return out


class JointStateMerger:
    """Merges (partial) JointState messages into a full model-order state, by joint name.

    Holds the latest position, velocity and effort of every model joint and which of them have
    been received. Unknown joint names are ignored. A message with a non-finite value in any
    field of a known joint, or with a field whose length differs from the number of names, is
    rejected as a whole (nothing of it is merged).

    Attributes (shape (n,), model order, updated in place):
        position, velocity, effort: latest values (0 until received).
        has_position, has_velocity, has_effort: bool, received at least once.
    """

    __slots__ = (
        "joint_names",
        "n",
        "joint_index",
        "position",
        "velocity",
        "effort",
        "has_position",
        "has_velocity",
        "has_effort",
        "complete_position",
        "complete_velocity",
        "complete_effort",
        "_cache_names",
        "_cache",
        "_state",
    )

    def __init__(self, joint_names):
        self.joint_names = tuple(joint_names)
        self.n = len(self.joint_names)
        self.joint_index = {name: i for i, name in enumerate(self.joint_names)}
        # position, velocity, effort are the rows of one (3, n) array (a full message in model
        # order is stored with three row copies: merge's fast path)
        self._state = np.zeros((3, self.n))
        self.position, self.velocity, self.effort = self._state
        self.has_position = np.zeros(self.n, dtype=bool)
        self.has_velocity = np.zeros(self.n, dtype=bool)
        self.has_effort = np.zeros(self.n, dtype=bool)
        self.complete_position = self.n == 0
        self.complete_velocity = self.n == 0
        self.complete_effort = self.n == 0
        self._cache_names = None
        self._cache = None

    def _indices(self, names):
        # Drivers publish the same name list every time: one list comparison, no allocation.
        if names != self._cache_names:
            msg_idx, model_idx, unknown = name_index(names, self.joint_index, "joint_states")
            self._cache = (
                msg_idx,
                model_idx,
                unknown,
                len(msg_idx) == self.n
                and bool(np.all(msg_idx == model_idx))
                and len(names) == self.n,
            )
            self._cache_names = list(names)
        return self._cache

    def merge(self, msg):
        """Merge one ``sensor_msgs/JointState``; returns the list of unknown joint names.

        Raises:
            JointStateError: naming the joint and field; the state is left unchanged.
        """
        names = msg.name
        msg_idx, model_idx, unknown, identity = self._indices(names)
        count = len(names)
        position, velocity, effort = msg.position, msg.velocity, msg.effort
        if (
            identity
            and len(position) == count
            and len(velocity) == count
            and len(effort) == count
            and math.isfinite(sum(position) + sum(velocity) + sum(effort))
        ):
            # Fast path: every model joint, in model order, all three fields, all finite (what
            # drivers publish). Anything else, non-finite values included, takes the general
            # path, which names the culprit.
            state = self._state
            state[0] = position
            state[1] = velocity
            state[2] = effort
            self._mark_all_received()
            return unknown
        fields = []
        for field, values, target, have in (
            ("position", msg.position, self.position, self.has_position),
            ("velocity", msg.velocity, self.velocity, self.has_velocity),
            ("effort", msg.effort, self.effort, self.has_effort),
        ):
            length = len(values)
            if length == 0:
                continue
            if length != count:
                raise JointStateError(
                    f"joint_states: {field} has {length} values for {count} joint names"
                )
            data = as_numpy(values)
            sub = data if identity else data[msg_idx]
            if not np.isfinite(sub).all():
                bad = ~np.isfinite(sub)
                name = names[int(msg_idx[np.argmax(bad)])]
                raise JointStateError(
                    f"joint_states: {field} of joint {name!r} is {float(sub[np.argmax(bad)])}"
                )
            fields.append((sub, target, have))
        for sub, target, have in fields:
            if identity:
                target[:] = sub
            else:
                target[model_idx] = sub
            if not have.all():
                have[model_idx] = True
        self._update_complete()
        return unknown

    def _update_complete(self):
        self.complete_position = bool(self.has_position.all())
        self.complete_velocity = bool(self.has_velocity.all())
        self.complete_effort = bool(self.has_effort.all())

    def carry_over(self, other):
        """Take what ``other`` (the merger of a previous model) has received for the joints
        both have, by name."""
        rows = (
            (self.has_position, other.has_position),
            (self.has_velocity, other.has_velocity),
            (self.has_effort, other.has_effort),
        )
        for j, name in enumerate(self.joint_names):
            i = other.joint_index.get(name)
            if i is None:
                continue
            for r, (have, had) in enumerate(rows):
                if had[i]:
                    self._state[r, j] = other._state[r, i]
                    have[j] = True
        self._update_complete()

    def merge_values(self, values):
        """Merge a full state in model order: ``values`` (3, n) rows position, velocity,
        effort. Returns False, merging nothing, when a value is not finite (merge the message
        itself then: it raises naming the joint and field)."""
        if not math.isfinite(np.add.reduce(values, axis=None)):
            return False
        self._state[...] = values
        self._mark_all_received()
        return True

    def _mark_all_received(self):
        if not (self.complete_position and self.complete_velocity and self.complete_effort):
            self.has_position[:] = self.has_velocity[:] = self.has_effort[:] = True
            self.complete_position = self.complete_velocity = self.complete_effort = True

    def missing(self, field="position"):
        """Names of model joints for which ``field`` was never received."""
        have = getattr(self, "has_" + field)
        return [name for name, ok in zip(self.joint_names, have) if not ok]

    def snapshot(self):
        """Copies (position, velocity, effort) of the current state."""
        return self.position.copy(), self.velocity.copy(), self.effort.copy()


class JointStateWire:
    """Reads a serialized ``sensor_msgs/JointState`` (the bytes of a raw subscription) without
    building the message, when its layout is one it has learned.

    Drivers publish the same frame_id and joint names in every message; only the stamp and the
    numbers change. After a message has been deserialized the usual way, :meth:`learn` parses
    its bytes (XCDR1 little-endian, the ROS 2 default) and keeps the layout when the message
    holds positions, velocities and efforts of exactly ``joint_names``, in that order, and the
    parse reproduces the deserialized message bit for bit. :meth:`read` then answers for any
    message of the same layout (same length and encapsulation, same bytes from the frame_id up
    to the position count, same velocity and effort counts) with its stamp and a (3, n) view of
    its numbers; for
    anything else it answers None and the caller deserializes. Any mismatch in the check turns
    the reader off for good.
    """

    _CDR_LE = b"\x00\x01"  # encapsulation: plain CDR, little endian

    __slots__ = ("joint_names", "n", "enabled", "_key", "_data", "_counts")

    def __init__(self, joint_names):
        self.joint_names = tuple(joint_names)
        self.n = len(self.joint_names)
        self.enabled = self.n > 0
        self._key = None  # (length, bytes 12 .. end of the position count,
        #                            encapsulation bytes 0 .. 4)
        self._data = 0  # offset of the first position value
        self._counts = ()  # offsets of the velocity and effort counts

    def read(self, raw):
        """(sec, nanosec, values) for a message of the learned layout, values a read-only
        (3, n) float64 view of raw (rows position, velocity, effort); else None."""
        key = self._key
        if (
            key is None
            or len(raw) != key[0]
            or raw[12 : len(key[1]) + 12] != key[1]
            or raw[:4] != key[2]
        ):
            return None
        count = key[1][-4:]
        for offset in self._counts:
            if raw[offset : offset + 4] != count:
                return None
        n = self.n
        sec, nanosec = _STAMP.unpack_from(raw, 4)
        values = np.ndarray(
            (3, n), dtype="<f8", buffer=raw, offset=self._data, strides=(8 * n + 8, 8)
        )
        return sec, nanosec, values

    def learn(self, raw, msg):
        """Remember the layout of ``raw`` if ``msg`` (its deserialized form) qualifies."""
        if not self.enabled or tuple(msg.name) != self.joint_names:
            return
        layout = self._parse(raw)
        if layout is None:
            return
        data, counts, count_end = layout
        n = self.n
        values = np.ndarray((3, n), dtype="<f8", buffer=raw, offset=data, strides=(8 * n + 8, 8))
        expected = np.array([as_numpy(msg.position), as_numpy(msg.velocity), as_numpy(msg.effort)])
        stamp = msg.header.stamp
        if values.tobytes() != expected.tobytes() or _STAMP.unpack_from(raw, 4) != (
            stamp.sec,
            stamp.nanosec,
        ):
            self.enabled = False  # not the encoding this reader knows: never again
            self._key = None
            return
        self._key = (len(raw), bytes(raw[12:count_end]), bytes(raw[:4]))
        self._data, self._counts = data, counts

    def _parse(self, raw):
        """(offset of the position values, offsets of the velocity and effort counts, end of
        the position count) if raw is a full message of n joints in XCDR1 LE, else None."""
        n = self.n
        if len(raw) < 16 or raw[:2] != self._CDR_LE:
            return None

        def align(offset, to):  # CDR alignment is relative to the body (after 4 bytes)
            return 4 + (offset - 4 + to - 1) // to * to

        try:
            offset = 12  # after the stamp
            offset += 4 + _U32.unpack_from(raw, offset)[0]  # frame_id
            offset = align(offset, 4)
            if _U32.unpack_from(raw, offset)[0] != n:  # names
                return None
            offset += 4
            for _ in range(n):
                offset = align(offset, 4)
                offset += 4 + _U32.unpack_from(raw, offset)[0]
            offset = align(offset, 4)
            if _U32.unpack_from(raw, offset)[0] != n:  # position count
                return None
            count_end = offset + 4
            data = align(count_end, 8)
            counts = (data + 8 * n, data + 16 * n + 8)  # velocity, effort counts
            for c in counts:
                if _U32.unpack_from(raw, c)[0] != n:
                    return None
            if data + 24 * n + 16 > len(raw):
                return None
        except struct.error:
            return None
        return data, counts, count_end


_U32 = struct.Struct("<I")
_STAMP = struct.Struct("<iI")
