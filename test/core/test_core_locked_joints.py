"""Locked joints (``RobotModel.from_urdf_string(locked_joints=...)``): the reduced model equals
the full model at the locked positions (every link pose, gravity, M, inverse dynamics) and
Pinocchio's ``buildReducedModel``; mimic joints are locked with their driver; the default
position; each refusal names the joint and the parameter."""

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.errors import InvalidInputError, KinematicTreeError
from robot_dynamics.core.joint_data import default_hold

import robot_urdfs
from core_helpers import load_model, random_state
from oracles import assert_close
from small_arms import UR_SHAPE_URDF

TOL = 1e-9

#: robot -> the joints locked (None: the default position) and every joint that gets locked
CASES = {
    "panda_gripper": ({"panda_finger_joint1": 0.03}, {"panda_finger_joint2": 0.03}),
    "baxter": (
        {"head_pan": 0.5, "r_gripper_l_finger_joint": 0.01, "l_gripper_l_finger_joint": None},
        {"r_gripper_r_finger_joint": -0.01, "l_gripper_r_finger_joint": 0.0},
    ),
    "so100": ({"gripper": 1.0}, {}),
    "z1": ({"jointGripper": None}, {}),
    "kinova": ({"j2s6s200_joint_4": 2.5}, {}),  # a continuous joint
    "mixed": ({"j3": 0.4}, {"j5": -0.7 * 0.4 + 0.2}),  # mid-chain, the driver of a mimic joint
}


def _locked(name):
    given, followers = CASES[name]
    full = load_model(name)
    index = {n: k for k, n in enumerate(full.joint_names)}
    defaults, _ = default_hold(full)
    positions = {j: defaults[index[j]] if p is None else p for j, p in given.items()}
    return full, load_model(name, locked_joints=given), positions, followers


@pytest.mark.parametrize("name", sorted(CASES))
def test_locked_model_is_the_full_model_at_the_locked_positions(name, rng):
    full, model, positions, followers = _locked(name)
    assert dict(model.locked_joints) == pytest.approx({**positions, **followers})
    assert not set(model.joint_names) & set(dict(model.locked_joints))
    kept = [full.joint_index(j) for j in model.joint_names]
    q, qd, qdd = random_state(full, name, rng, (3,))
    for j, p in positions.items():
        q[:, full.joint_index(j)] = p
        qd[:, full.joint_index(j)] = qdd[:, full.joint_index(j)] = 0.0
    qr, qdr, qddr = q[:, kept], qd[:, kept], qdd[:, kept]
    assert_close(model.gravity_torques(qr), full.gravity_torques(q)[:, kept], TOL, "g")
    assert_close(model.mass_matrix(qr), full.mass_matrix(q)[:, kept][:, :, kept], TOL, "M")
    assert_close(
        model.inverse_dynamics(qr, qdr, qddr),
        full.inverse_dynamics(q, qd, qdd)[:, kept],
        TOL,
        "ID",
    )
    assert model.link_names == full.link_names
    for link in full.link_names:
        assert_close(model.frame_pose(qr[0], link), full.frame_pose(q[0], link), TOL, link)


# Pinocchio cannot reduce SO-100: a link and a joint are both named "gripper"
@pytest.mark.parametrize("name", sorted(set(CASES) - {"so100"}))
def test_locked_model_equals_pinocchio_build_reduced_model(name, rng):
    pin = pytest.importorskip("pinocchio")
    full, model, positions, followers = _locked(name)
    pm = pin.buildModelFromXML(robot_urdfs.urdf_xml(name))  # mimic joints independent

    def pin_q(pmodel, values):
        out = pin.neutral(pmodel)
        for jid in range(1, pmodel.njoints):
            joint, value = pmodel.joints[jid], values.get(pmodel.names[jid])
            if value is None:
                continue
            if joint.nq == 1:
                out[joint.idx_q] = value
            else:  # continuous: cos, sin
                out[joint.idx_q : joint.idx_q + 2] = np.cos(value), np.sin(value)
        return out

    locked = {**positions, **followers}
    reduced = pin.buildReducedModel(pm, [pm.getJointId(j) for j in locked], pin_q(pm, locked))
    data = reduced.createData()
    names = [reduced.names[jid] for jid in range(1, reduced.njoints)]
    assert sorted(names) == sorted(model.joint_names)
    order = [model.joint_index(j) for j in names]  # pin's velocity order, in ours
    q, qd, qdd = random_state(full, name, rng, (3,))
    q, qd, qdd = (x[:, [full.joint_index(j) for j in model.joint_names]] for x in (q, qd, qdd))
    for i in range(3):
        pq = pin_q(reduced, dict(zip(model.joint_names, q[i])))
        tau = pin.rnea(reduced, data, pq, qd[i][order], qdd[i][order])
        assert_close(model.inverse_dynamics(q[i], qd[i], qdd[i])[order], tau, TOL, "rnea")
        M = pin.crba(reduced, data, pq)
        M = np.triu(M) + np.triu(M, 1).T
        assert_close(model.mass_matrix(q[i])[np.ix_(order, order)], M, TOL, "crba")


def test_default_position_is_zero_within_the_limits_else_mid_range():
    head, wrist_3 = UR_SHAPE_URDF.split('<joint name="wrist_3_joint"')
    xml = (
        head
        + '<joint name="wrist_3_joint"'
        + wrist_3.replace('lower="-6.28" upper="6.28"', 'lower="0.2" upper="0.6"', 1)
    )
    model = RobotModel.from_urdf_string(
        xml, locked_joints={"wrist_3_joint": None, "wrist_2_joint": None}
    )
    assert dict(model.locked_joints) == pytest.approx({"wrist_2_joint": 0.0, "wrist_3_joint": 0.4})


def test_derived_models_keep_the_locked_joints():
    model = load_model("panda_gripper", locked_joints={"panda_finger_joint1": 0.02})
    heavier = model.with_payload(1.0, np.zeros(3), frame="panda_hand")
    assert heavier.locked_joints == model.locked_joints
    assert heavier.joint_names == model.joint_names


@pytest.mark.parametrize(
    "locked, error, argument, words",
    [
        (
            {"panda_fingerjoint1": 0.0},
            KinematicTreeError,
            "locked_joints",
            ["'panda_fingerjoint1'", "not a joint", "did you mean 'panda_finger_joint1'"],
        ),
        (
            {"panda_hand_joint": 0.0},
            KinematicTreeError,
            "locked_joints",
            ["'panda_hand_joint'", "fixed joint"],
        ),
        (
            {"panda_finger_joint2": 0.0},
            KinematicTreeError,
            "locked_joints",
            ["'panda_finger_joint2'", "mimics 'panda_finger_joint1'", "lock 'panda_finger_joint1'"],
        ),
        (
            {"panda_finger_joint1": 0.05},
            InvalidInputError,
            "locked_joints",
            ["'panda_finger_joint1'", "0.05", "outside its limits", "[0, 0.04]"],
        ),
        (
            {"panda_finger_joint1": float("nan")},
            InvalidInputError,
            "locked_joints",
            ["'panda_finger_joint1'", "not finite"],
        ),
        (
            {"panda_finger_joint1": "open"},
            InvalidInputError,
            "locked_joints",
            ["'panda_finger_joint1'", "'open' is not a number"],
        ),
    ],
)
def test_a_joint_that_cannot_be_locked_is_refused_by_name(locked, error, argument, words):
    if not robot_urdfs.has_erd():
        pytest.skip("example-robot-data is not installed")
    xml = robot_urdfs.urdf_xml("panda_gripper")
    with pytest.raises(error) as info:
        RobotModel.from_urdf_string(xml, locked_joints=locked)
    assert info.value.argument == argument
    for word in words:
        assert word in str(info.value)


def test_a_locked_joint_above_the_base_link_is_refused():
    with pytest.raises(KinematicTreeError, match=r"\['shoulder_pan_joint'\].*base link") as info:
        RobotModel.from_urdf_string(
            UR_SHAPE_URDF,
            base_link="shoulder_link",
            locked_joints={"shoulder_pan_joint": 0.0},
        )
    assert info.value.argument == "locked_joints"


@pytest.mark.parametrize("name", ["panda_gripper", "mixed"])
def test_derived_joints_are_the_mimic_and_the_locked_joints(name):
    full, model, positions, followers = _locked(name)
    assert full.derived_joints == set(full.mimic_joints) and full.mimic_joints
    assert model.derived_joints == set(model.mimic_joints) | set(positions) | set(followers)
    assert not model.derived_joints & set(model.joint_names)
