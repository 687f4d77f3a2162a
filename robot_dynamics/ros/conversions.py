"""Message <-> numpy conversions for the ROS adapters (no dynamics here).

Every joint-space vector inside the package is ordered by ``model.joint_names``; messages carry
their own name order (the dynamics node maps names to model order; merging partial messages is
the estimation pipeline's business, :mod:`robot_dynamics.estimation`).

Units are the message units: positions in rad or m, velocities in rad/s or m/s, efforts in N m
or N, wrenches ``[fx fy fz tx ty tz]`` in N and N m.
"""

from array import array
import numpy as np

from builtin_interfaces.msg import Duration
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
