"""Message <-> numpy helpers (robot_dynamics.ros.conversions): round trips and layouts."""

from array import array

import numpy as np
import pytest

pytest.importorskip("std_msgs")

from geometry_msgs.msg import Wrench  # noqa: E402

from robot_dynamics.ros.conversions import (  # noqa: E402
    as_numpy,
    duration_to_seconds,
    matrix_to_multiarray,
    seconds_to_duration,
    to_array,
    wrench_from_msg,
    wrench_to_msg,
)


def test_to_array_and_as_numpy_round_trip_without_loss():
    values = np.array([[1.5, -2.25e-300], [np.pi, 1e300]])
    data = to_array(values)
    assert isinstance(data, array) and data.typecode == "d"
    back = as_numpy(data)
    np.testing.assert_array_equal(back, values.ravel())  # C order, bit for bit
    assert not back.flags.owndata  # a view of the message's buffer, no copy
    assert as_numpy(array("d")).shape == (0,)


@pytest.mark.parametrize("seconds", [0.0, 0.5, 1.999999999, 2.0000000004, 12345.678901234])
def test_duration_round_trip_to_the_nanosecond(seconds):
    duration = seconds_to_duration(seconds)
    assert 0 <= duration.nanosec < 1_000_000_000
    assert abs(duration_to_seconds(duration) - seconds) <= 0.6e-9


def test_matrix_layout_is_row_major_with_labels():
    matrix = np.arange(6.0).reshape(2, 3)
    msg = matrix_to_multiarray(matrix, "rows", "cols")
    assert [(d.label, d.size, d.stride) for d in msg.layout.dim] == [
        ("rows", 2, 6),
        ("cols", 3, 3),
    ]
    np.testing.assert_array_equal(np.reshape(msg.data, (2, 3)), matrix)


def test_wrench_round_trip_force_first():
    wrench = np.array([1.0, -2.0, 3.0, 0.1, -0.2, 0.3])
    msg = wrench_to_msg(wrench, Wrench())
    assert (msg.force.x, msg.torque.z) == (1.0, 0.3)
    np.testing.assert_array_equal(wrench_from_msg(msg), wrench)


def test_joint_name_map_to_model_order_with_nan_for_absent_joints():
    from robot_dynamics.ros.conversions import JointNameMap

    names = JointNameMap(("j1", "j2", "j3"))
    present, unknown, (q, qd, tau) = names.fields(
        ["j3", "gripper", "j1"], (("position", [3.0, 9.0, 1.0]), ("velocity", []), ("e", [])), "t"
    )
    np.testing.assert_array_equal(present, [True, False, True])
    assert unknown == ["gripper"] and qd is None and tau is None
    np.testing.assert_array_equal(q[[0, 2]], [1.0, 3.0])
    assert np.isnan(q[1])
    with pytest.raises(ValueError, match="position has 1 values for 2 joint names"):
        names.fields(["j1", "j2"], (("position", [1.0]),), "t")
    with pytest.raises(ValueError, match="'j1' appears twice"):
        names.fields(["j1", "j1"], (("position", [1.0, 2.0]),), "t")
    # the model's own order: a copy of the message values; every joint named: present is None
    data = array("d", [1.0, 2.0, 3.0])
    present, _, (q,) = names.fields(["j1", "j2", "j3"], (("position", data),), "t")
    assert present is None
    present, _, (q2,) = names.fields(["j3", "j1", "j2"], (("position", data),), "t")
    assert present is None
    np.testing.assert_array_equal(q2, [2.0, 3.0, 1.0])
    _, _, (q,) = names.fields(["j1", "j2", "j3"], (("position", data),), "t")
    q[0] = 7.0
    assert data[0] == 1.0
