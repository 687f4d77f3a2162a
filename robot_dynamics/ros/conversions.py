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

    Args:
        values: array-like of any shape (flattened in C order).

    Returns:
        array.array: ``array('d')`` of the values.
    """
    # tobytes() is C order whatever the strides; array('d', bytes) is one frombytes() copy
    return array("d", np.asarray(values, dtype=np.float64).tobytes())


def as_numpy(sequence):
    """A float64 view (no copy; do not write to it) of a message ``float64[]`` field.

    Args:
        sequence: the field (``array('d')``, or any sequence of numbers: then copied).

    Returns:
        ndarray: 1-D float64 array.
    """
    if isinstance(sequence, array) and sequence.typecode == "d":
        if len(sequence) == 0:
            return np.empty(0)
        return np.frombuffer(sequence, dtype=np.float64)
    return np.asarray(sequence, dtype=np.float64)


def seconds_to_duration(seconds):
    """Seconds to a ``builtin_interfaces/Duration`` (rclpy's Duration, to the ns).

    Args:
        seconds: float seconds, >= 0.

    Returns:
        builtin_interfaces.msg.Duration: the duration.
    """
    return RclpyDuration(nanoseconds=int(round(seconds * 1e9))).to_msg()


def duration_to_seconds(duration):
    """A ``builtin_interfaces/Duration`` in seconds.

    Args:
        duration: ``builtin_interfaces/Duration``.

    Returns:
        float: seconds.
    """
    return RclpyDuration.from_msg(duration).nanoseconds * 1e-9


def matrix_to_multiarray(matrix, row_label="rows", col_label="cols"):
    """A 2-D numpy array as a ``std_msgs/Float64MultiArray``, row-major, layout filled.

    Args:
        matrix: (rows, cols) array.
        row_label: label of the first dimension.
        col_label: label of the second dimension.

    Returns:
        std_msgs.msg.Float64MultiArray: the message.
    """
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
    """Write a wrench into a ``geometry_msgs/Wrench`` in place.

    Args:
        wrench: (6,) ``[fx fy fz tx ty tz]`` [N, N m].
        msg: the ``geometry_msgs/Wrench`` to fill.

    Returns:
        geometry_msgs.msg.Wrench: ``msg``.
    """
    f = msg.force
    t = msg.torque
    f.x, f.y, f.z, t.x, t.y, t.z = np.asarray(wrench, dtype=float).tolist()
    return msg


def wrench_from_msg(msg):
    """A ``geometry_msgs/Wrench`` as a vector.

    Args:
        msg: ``geometry_msgs/Wrench``.

    Returns:
        ndarray: (6,) ``[fx fy fz tx ty tz]`` [N, N m].
    """
    f, t = msg.force, msg.torque
    return np.array([f.x, f.y, f.z, t.x, t.y, t.z])


class JointNameMap:
    """Message joint names -> model order, for one model's ``joint_names``.

    Drivers publish the same name list every time: the mapping of the latest list is cached
    (one list comparison per message).

    Args:
        joint_names: the model's joints, in order.
        derived: names a message may carry that are neither the model's joints nor unknown:
            the URDF's mimic and locked joints (``RobotModel.derived_joints``), ignored.
    """

    def __init__(self, joint_names, derived=()):
        self.joint_names = tuple(joint_names)
        self.n = len(self.joint_names)
        self._index = {name: j for j, name in enumerate(self.joint_names)}
        self._derived = frozenset(derived)
        self._names = None
        self._layout = None

    def layout(self, names, context):
        """Where the joints of a message's name list go in model order.

        Args:
            names: the message's joint names.
            context: what the message is, for error messages.

        Returns:
            tuple: ``(present, message indices, model indices, identity, unknown names)``;
            ``present`` is the (n,) bool mask of the model joints the message names, or None when
            it names every one (the estimation pipeline's "all joints").

        Raises:
            ValueError: a joint name appears twice (named, with ``context``).
        """
        if names != self._names:
            msg_idx, model_idx, unknown = [], [], []
            for i, name in enumerate(names):
                j = self._index.get(name)
                if j is None:
                    if name not in self._derived:
                        unknown.append(name)
                elif j in model_idx:
                    raise ValueError(f"{context}: joint {name!r} appears twice")
                else:
                    msg_idx.append(i)
                    model_idx.append(j)
            present = np.zeros(self.n, dtype=bool)
            present[model_idx] = True
            if present.all():
                present = None
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
        """Model-order float arrays of message fields, NaN for joints the message does not name,
        None for an empty field.

        Args:
            names: the message's joint names.
            fields: ``((field name, values), ...)``, values in message order.
            context: what the message is, for error messages.

        Returns:
            tuple: ``(present, unknown names, [(n,) array or None per field])``, ``present`` the
            (n,) bool mask of the model joints the message names or None when it names every one.

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
