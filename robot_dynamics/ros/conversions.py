"""Message <-> numpy conversions for the ROS adapters (no dynamics here).

Every joint-space vector inside the package is ordered by ``model.joint_names``; messages carry
their own name order (the dynamics node maps names to model order; merging partial messages is
the estimation pipeline's business, :mod:`robot_dynamics.estimation`).

Units are the message units: positions in rad or m, velocities in rad/s or m/s, efforts in N m
or N, wrenches ``[fx fy fz tx ty tz]`` in N and N m.
"""

from array import array
import numpy as np

from rclpy.duration import Duration as RclpyDuration
from std_msgs.msg import Float64MultiArray, MultiArrayDimension


def to_array(values):
    """A float64 numpy array (any shape) as the ``array('d')`` that message sequence fields hold.

    Assigning an ``array('d')`` to a ``float64[]`` field skips rclpy's per-element conversion.
    """
    # tobytes() is C order whatever the strides; array('d', bytes) is one frombytes() copy
    return array("d", np.asarray(values, dtype=np.float64).tobytes())


def as_numpy(sequence):
    """A float64 view (no copy; do not write to it) of a message ``float64[]`` field (``array('d')``)."""
    if isinstance(sequence, array) and sequence.typecode == "d":
        if len(sequence) == 0:
            return np.empty(0)
        return np.frombuffer(sequence, dtype=np.float64)
    return np.asarray(sequence, dtype=np.float64)


def seconds_to_duration(seconds):
    """float seconds (>= 0) -> ``builtin_interfaces/Duration`` (rclpy's Duration, to the ns)."""
    return RclpyDuration(nanoseconds=int(round(seconds * 1e9))).to_msg()


def duration_to_seconds(duration):
    """``builtin_interfaces/Duration`` -> float seconds."""
    return RclpyDuration.from_msg(duration).nanoseconds * 1e-9


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


class JointNameMap:
    """Message joint names -> model order, for one model's ``joint_names``.

    Drivers publish the same name list every time: the mapping of the latest list is cached
    (one list comparison per message).
    """

    def __init__(self, joint_names):
        self.joint_names = tuple(joint_names)
        self.n = len(self.joint_names)
        self._index = {name: j for j, name in enumerate(self.joint_names)}
        self._names = None
        self._layout = None

    def layout(self, names, context):
        """(present (n,) bool, message indices, model indices, identity, unknown names).

        Raises:
            ValueError: a joint name appears twice (named, with ``context``).
        """
        if names != self._names:
            msg_idx, model_idx, unknown = [], [], []
            for i, name in enumerate(names):
                j = self._index.get(name)
                if j is None:
                    unknown.append(name)
                elif j in model_idx:
                    raise ValueError(f"{context}: joint {name!r} appears twice")
                else:
                    msg_idx.append(i)
                    model_idx.append(j)
            present = np.zeros(self.n, dtype=bool)
            present[model_idx] = True
            identity = list(names) == list(self.joint_names)
            self._layout = (
                present,
                np.array(msg_idx, dtype=np.intp),
                np.array(model_idx, dtype=np.intp),
                identity,
                unknown,
            )
            self._names = list(names)
        return self._layout

    def fields(self, names, fields, context):
        """Model-order (n,) float arrays of message fields ``((field name, values), ...)``, NaN
        for joints the message does not name, None for an empty field.

        Returns:
            (present (n,) bool, unknown names, [array or None per field]).

        Raises:
            ValueError: a repeated name, or a field whose length differs from the names'.
        """
        present, msg_idx, model_idx, identity, unknown = self.layout(names, context)
        count = len(names)
        out = []
        for field, values in fields:
            if len(values) == 0:
                out.append(None)
                continue
            if len(values) != count:
                raise ValueError(
                    f"{context}: {field} has {len(values)} values for {count} joint names"
                )
            data = as_numpy(values)
            if identity:
                out.append(data.copy())
            else:
                full = np.full(self.n, np.nan)
                full[model_idx] = data[msg_idx]
                out.append(full)
        return present, unknown, out
