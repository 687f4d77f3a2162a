"""Wrench frames and component selection (reference sections 1, 3 and 6).

The estimate of RobotModel.estimate_external_wrench is what a force-torque sensor at the frame
reads: components in the frame's axes, moment about its origin. ``components`` selects the
columns solved for (``tau_ext = J_S^T f_S``), the others are 0.
"""

import os

import numpy as np
import pytest

import robot_urdfs
from core_helpers import load_model
from small_arms import ARM3_URDF

from robot_dynamics import RobotModel
from robot_dynamics.core import InvalidInputError
from robot_dynamics.core.estimation import WRENCH_COMPONENTS, resolve_wrench_components
from robot_dynamics.core.spatial import force_transform, homogeneous, rpy_to_matrix, wrench_in_frame

ARM3_Q = np.array([0.3, -0.7, 1.1])


def arm3():
    return RobotModel.from_urdf_string(ARM3_URDF)


def _random_pose(rng):
    return homogeneous(rpy_to_matrix(rng.uniform(-3, 3, 3)), rng.normal(size=3))


# ------------------------------------------------------------------ wrench_in_frame
def test_wrench_in_frame_identities(rng):
    w = rng.normal(size=6)
    # the base frame itself, moment already about its origin: unchanged
    np.testing.assert_allclose(wrench_in_frame(w, np.eye(4)), w, rtol=0, atol=1e-15)
    # a pure rotation rotates force and moment alike
    R = rpy_to_matrix([0.3, -1.2, 2.0])
    out = wrench_in_frame(w, homogeneous(R, np.zeros(3)))
    np.testing.assert_allclose(out, np.r_[R.T @ w[:3], R.T @ w[3:]], rtol=0, atol=1e-14)
    # a pure force through the frame origin has no moment there, whatever the frame's axes
    T = _random_pose(rng)
    f = np.r_[rng.normal(size=3), 0, 0, 0]
    out = wrench_in_frame(f, T, point=T[:3, 3])
    np.testing.assert_allclose(out[3:], 0.0, atol=1e-14)
    np.testing.assert_allclose(np.linalg.norm(out[:3]), np.linalg.norm(f[:3]), rtol=1e-14)
    # moving the moment's point along the force's line of action changes nothing
    p = rng.normal(size=3)
    np.testing.assert_allclose(
        wrench_in_frame(w, T, point=p),
        wrench_in_frame(w + np.r_[0, 0, 0, np.cross(2.5 * w[:3], w[:3])], T, point=p + 2.5 * w[:3]),
        rtol=0,
        atol=1e-12,
    )


def test_wrench_in_frame_round_trip_and_batch(rng):
    """force_transform(B_T_A) takes the sensor reading back to base axes about the base origin;
    a batch equals the single calls."""
    T = np.stack([_random_pose(rng) for _ in range(5)])
    w = rng.normal(size=(5, 6))
    points = rng.normal(size=(5, 3))
    out = wrench_in_frame(w, T, point=points)
    back = (force_transform(T) @ out[..., None])[..., 0]
    about_origin = np.concatenate([w[:, :3], w[:, 3:] + np.cross(points, w[:, :3])], axis=-1)
    np.testing.assert_allclose(back, about_origin, rtol=0, atol=1e-12)
    for k in range(5):
        np.testing.assert_allclose(
            wrench_in_frame(w[k], T[k], point=points[k]), out[k], rtol=0, atol=1e-14
        )


def test_wrench_in_frame_against_pinocchio(rng):
    pin = pytest.importorskip("pinocchio")
    T = _random_pose(rng)
    w = rng.normal(size=6)
    # pin: a force in the base frame (moment about the base origin) seen from frame A:
    # placement(A).actInv(force)
    expected = pin.SE3(T[:3, :3], T[:3, 3]).actInv(pin.Force(w[:3], w[3:])).vector
    np.testing.assert_allclose(wrench_in_frame(w, T), expected, rtol=0, atol=1e-12)


# ------------------------------------------------------------------ the sensor reading at any link
@pytest.mark.skipif(not robot_urdfs.has_erd(), reason="example-robot-data not installed")
@pytest.mark.parametrize("sensor", ["tool0", "base_link", "forearm_link", "wrist_2_link"])
def test_estimate_is_the_sensor_reading_at_any_link(sensor, rng):
    """A wrench applied at the tool (base axes, moment about the tool origin) as a sensor at
    any link reads it, by the hand transform of reference section 1 (UR5, all six)."""
    model = load_model("ur5")
    q = np.array([0.3, -1.1, 1.4, -0.9, 1.2, 0.4])
    f_tool = rng.normal(scale=5.0, size=6)
    tau_ext = model.jacobian(q, frame="tool0").T @ f_tool
    T_tool = model.frame_pose(q, frame="tool0")
    expected = wrench_in_frame(f_tool, model.frame_pose(q, frame=sensor), point=T_tool[:3, 3])
    est = model.estimate_external_wrench(q, tau_ext, frame="tool0", sensor_frame=sensor)
    np.testing.assert_allclose(est.wrench, expected, rtol=0, atol=1e-9)
    # the same with the Jacobian handed in (what the pipeline does)
    J = model.jacobian(q, frame="tool0", axes="local")
    est2 = model.estimate_external_wrench(
        q, tau_ext, frame="tool0", sensor_frame=sensor, jacobian=J
    )
    np.testing.assert_allclose(est2.wrench, expected, rtol=0, atol=1e-9)
    if sensor == "base_link":  # the base frame: moment about the base origin
        p = T_tool[:3, 3]
        np.testing.assert_allclose(
            est.wrench, np.r_[f_tool[:3], f_tool[3:] + np.cross(p, f_tool[:3])], atol=1e-9
        )


def test_force_only_reported_at_another_frame():
    """A point force at the tool of the 3-DOF arm, reported at its base: the force solve at the
    tool, then carried to the base origin (the moment there is p x f, not zero)."""
    model = RobotModel.from_urdf_string(ARM3_URDF)
    f = np.array([1.0, -2.0, -10.0, 0.0, 0.0, 0.0])  # base axes, through the tool origin
    tau_ext = model.jacobian(ARM3_Q).T @ f
    est = model.estimate_external_wrench(ARM3_Q, tau_ext, sensor_frame="base")
    p = model.frame_pose(ARM3_Q)[:3, 3]
    np.testing.assert_allclose(est.wrench, np.r_[f[:3], np.cross(p, f[:3])], atol=1e-9)
    assert est.components == ("fx", "fy", "fz")


def test_estimate_matches_pinocchio_local_frame(rng):
    pin = pytest.importorskip("pinocchio")
    model = load_model("bundled_panda")
    pm = pin.buildModelFromXML(robot_urdfs.urdf_xml("bundled_panda"))
    pd = pm.createData()
    names = list(model.joint_names)
    to_pin = [names.index(pm.names[i]) for i in range(1, pm.njoints)]
    q = rng.uniform(-1, 1, model.n)
    pin.computeJointJacobians(pm, pd, q[to_pin])
    pin.updateFramePlacements(pm, pd)
    fid = pm.getFrameId("tool")
    J_local = np.zeros((6, model.n))
    J_local[:, to_pin] = pin.getFrameJacobian(pm, pd, fid, pin.LOCAL)
    f = rng.normal(size=6)  # what the sensor at the tool reads
    est = model.estimate_external_wrench(q, J_local.T @ f, frame="tool")
    np.testing.assert_allclose(est.wrench, f, rtol=0, atol=1e-9)


# ------------------------------------------------------------------ components
def test_resolve_wrench_components():
    assert resolve_wrench_components(None, 7) == WRENCH_COMPONENTS
    assert resolve_wrench_components(None, 6) == WRENCH_COMPONENTS
    assert resolve_wrench_components(None, 5) == ("fx", "fy", "fz")
    assert resolve_wrench_components("tz, fx fy", 3) == ("fx", "fy", "tz")
    assert resolve_wrench_components(["fz", "tx"], 7) == ("fz", "tx")
    assert resolve_wrench_components(("fx", "fy", "fz"), 7) == ("fx", "fy", "fz")
    for bad, match in (
        ("fx fw", "fw"),
        ("fx fx", "repeated"),
        ("", "no wrench component"),
        (("fx", ["fy"]), "unknown"),
    ):
        with pytest.raises(InvalidInputError, match=match):
            resolve_wrench_components(bad, 7)
    with pytest.raises(InvalidInputError, match="fw"):
        arm3().estimate_external_wrench(ARM3_Q, np.zeros(3), components="fx fw")


def test_planar_two_link_force_closed_form():
    """Reference section 3: F in link 2's axes gives tau1 = l1 s2 fx + (l1 c2 + l2) fy,
    tau2 = l2 fy; the fx fy solve is exact; the default (force only) too."""
    model = load_model("double_pendulum")
    l1 = l2 = 1.0
    q = np.array([0.4, 0.9])
    fx, fy = 3.0, -2.0
    s2, c2 = np.sin(q[1]), np.cos(q[1])
    tau = np.array([l1 * s2 * fx + (l1 * c2 + l2) * fy, l2 * fy])
    est = model.estimate_external_wrench(q, tau, frame="tip", components="fx fy")
    np.testing.assert_allclose(est.wrench, [fx, fy, 0, 0, 0, 0], rtol=0, atol=1e-12)
    assert est.components == ("fx", "fy") and est.singular_values.shape == (2,)
    default = model.estimate_external_wrench(q, tau, frame="tip")
    assert default.components == ("fx", "fy", "fz")
    np.testing.assert_allclose(default.wrench, [fx, fy, 0, 0, 0, 0], rtol=0, atol=1e-12)
    # the full 6-D minimum-norm solve explains the torques but reads moments that are not there
    full = model.estimate_external_wrench(q, tau, frame="tip", components=WRENCH_COMPONENTS)
    J = model.jacobian(q, frame="tip", axes="local")
    np.testing.assert_allclose(J.T @ full.wrench, tau, rtol=0, atol=1e-12)
    assert abs(full.wrench[5]) > 0.1


def test_three_dof_arm_recovers_a_pure_force(rng):
    """A 10 N push on a 3-DOF arm. Force only: exact; 6-D minimum norm: not."""
    model = arm3()
    f = np.array([0.0, 0.0, -10.0])  # in the tool's axes, through the tool origin
    J = model.jacobian(ARM3_Q, frame="tool", axes="local")
    tau_ext = J[:3].T @ f
    est = model.estimate_external_wrench(ARM3_Q, tau_ext, frame="tool")
    assert est.components == ("fx", "fy", "fz")
    np.testing.assert_allclose(est.wrench, np.r_[f, 0, 0, 0], rtol=0, atol=1e-9)
    assert isinstance(est.min_singular_value, float) and est.min_singular_value > 0.01
    full = model.estimate_external_wrench(
        ARM3_Q, tau_ext, frame="tool", components="fx fy fz tx ty tz"
    )
    assert np.abs(full.wrench - np.r_[f, 0, 0, 0]).max() > 1.0
    # a batch of configurations and forces, singular values as arrays
    qb = ARM3_Q + rng.normal(scale=0.2, size=(4, 3))
    fb = rng.normal(scale=10.0, size=(4, 3))
    Jb = model.jacobian(qb, frame="tool", axes="local")
    tb = np.einsum("bki,bk->bi", Jb[:, :3], fb)
    eb = model.estimate_external_wrench(qb, tb, frame="tool")
    np.testing.assert_allclose(eb.wrench[:, :3], fb, rtol=0, atol=1e-8)
    np.testing.assert_array_equal(eb.wrench[:, 3:], 0.0)
    assert np.shape(eb.min_singular_value) == (4,) and np.shape(eb.near_singular) == (4,)


@pytest.mark.skipif(not robot_urdfs.has_erd(), reason="example-robot-data not installed")
def test_so101_recovers_a_force_at_the_gripper(rng):
    """SO-101 (5 arm joints + the jaw) from example-robot-data: a force on the gripper frame is
    recovered exactly with fx fy fz."""
    path = os.path.join(robot_urdfs.robots_dir(), "so_arm_description/urdf/so101.urdf")
    if not os.path.exists(path):
        pytest.skip("so101.urdf is not in this example-robot-data")
    model = RobotModel.from_urdf_file(path)
    frame = "gripper_frame_link"
    q = np.array([0.2, -0.5, 0.8, 0.4, -0.3, 0.1])[: model.n]
    f = rng.normal(scale=8.0, size=3)
    J = model.jacobian(q, frame=frame, axes="local")
    assert np.linalg.matrix_rank(J) == 5  # the jaw does not move the gripper frame
    assert model.n == 6 and model.tree.moving_joints(frame).sum() == 5
    est = model.estimate_external_wrench(q, J[:3].T @ f, frame=frame)
    assert est.components == ("fx", "fy", "fz")  # five joints move the frame
    np.testing.assert_allclose(est.wrench, np.r_[f, 0, 0, 0], rtol=0, atol=1e-9)


def test_on_a_tree_the_default_counts_the_joints_that_move_the_frame(rng):
    """A push on a branch of a six-joint tree moved by three joints: the default solves for the
    force (exact), not the six components a six-joint arm would get."""
    model = RobotModel.from_urdf_string(robot_urdfs.YTREE6_URDF)
    assert model.n == 6
    np.testing.assert_array_equal(
        model.tree.moving_joints("left_l3"),
        [n in ("torso_joint", "left_j1", "left_j2") for n in model.joint_names],
    )
    assert model.tree.moving_joints(model.base_link).sum() == 0
    q = rng.uniform(-0.8, 0.8, model.n)
    f = np.array([1.0, -3.0, -10.0])
    J = model.jacobian(q, frame="left_l3", axes="local")
    est = model.estimate_external_wrench(q, J[:3].T @ f, frame="left_l3")
    assert est.components == ("fx", "fy", "fz")
    np.testing.assert_allclose(est.wrench, np.r_[f, 0, 0, 0], rtol=0, atol=1e-9)


@pytest.mark.skipif(not robot_urdfs.has_erd(), reason="example-robot-data not installed")
@pytest.mark.parametrize("name,frame", [("ur5", "tool0"), ("panda_arm", "panda_hand")])
def test_six_and_seven_dof_recover_full_wrenches(name, frame, rng):
    model = load_model(name)
    q = rng.uniform(-1.0, 1.0, model.n)
    f = rng.normal(scale=5.0, size=6)
    J = model.jacobian(q, frame=frame, axes="local")
    est = model.estimate_external_wrench(q, J.T @ f, frame=frame)
    assert est.components == WRENCH_COMPONENTS
    np.testing.assert_allclose(est.wrench, f, rtol=0, atol=1e-8)
    # a selection on a redundant arm: the selected components alone
    est_f = model.estimate_external_wrench(q, J[:3].T @ f[:3], frame=frame, components="fx fy fz")
    np.testing.assert_allclose(est_f.wrench, np.r_[f[:3], 0, 0, 0], rtol=0, atol=1e-8)


def test_zero_singular_threshold_and_rank_deficient_selection():
    """singular_threshold 0 is the plain pseudo-inverse, finite even where J_S loses rank."""
    model = RobotModel.from_urdf_string(ARM3_URDF)
    J = model.jacobian(ARM3_Q, frame="tool", axes="local")
    f = np.array([1.0, 2.0, -3.0])
    est = model.estimate_external_wrench(
        ARM3_Q, J[:3].T @ f, components="fx fy fz", singular_threshold=0.0
    )
    np.testing.assert_allclose(est.wrench[:3], f, atol=1e-9)
    # six components from three joints: the minimum-norm solve explains the torques
    est6 = model.estimate_external_wrench(
        ARM3_Q, J[:3].T @ f, components="fx fy fz tx ty tz", singular_threshold=0.0
    )
    assert np.all(np.isfinite(est6.wrench)) and est6.singular_values.shape == (3,)
    np.testing.assert_allclose(J.T @ est6.wrench, J[:3].T @ f, atol=1e-9)
