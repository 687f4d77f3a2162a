"""The joint torque regressor: ``tau = Y theta`` against the core's inverse dynamics (RNEA) on
every test robot (mimic joints included), against Pinocchio's computeJointTorqueRegressor
(joints mapped by name), and its friction / offset / armature columns."""

import numpy as np
import pytest

import oracles
from core_helpers import TEST_ROBOTS, load_model, random_state, robot_params
from oracles import assert_close
from robot_dynamics.core import InvalidInputError
from robot_dynamics.core.regressor import (
    ParameterLayout,
    body_parameters,
    inertia_to_parameters,
    joint_torque_regressor,
    parameters_to_inertia,
    regressor,
)

ROBOTS = TEST_ROBOTS


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_regressor_matches_inverse_dynamics(name, rng):
    model = load_model(name)
    q, qd, qdd = random_state(model, name, rng, (3, 2))
    Y = joint_torque_regressor(model, q, qd, qdd)
    assert Y.shape == (3, 2, model.n, 10 * model.tree.nb)
    theta = body_parameters(model)
    assert_close(Y @ theta, model.inverse_dynamics(q, qd, qdd), 1e-10, f"{name} Y theta")
    # one state (no batch) gives the same rows
    assert_close(joint_torque_regressor(model, q[1, 0], qd[1, 0], qdd[1, 0]), Y[1, 0], 1e-12)


@pytest.mark.parametrize("name", robot_params(["ur5", "panda_gripper", "mixed", "ytree"]))
def test_regressor_matches_pinocchio(name, rng):
    pin = pytest.importorskip("pinocchio")
    model = load_model(name)
    P = oracles.PinOracle(oracles.urdf_xml(name), model.joint_names)
    cols = []
    for joint in model.tree.body_joint_names:
        jid = P.model.getJointId(joint)
        cols += list(range(10 * (jid - 1), 10 * jid))
    for _ in range(3):
        q, qd, qdd = random_state(model, name, rng)
        Yp = pin.computeJointTorqueRegressor(P.model, P.data, P.qp(q), P.vp(qd), P.vp(qdd))
        expected = P.G.T @ np.asarray(Yp)[:, cols]
        assert_close(joint_torque_regressor(model, q, qd, qdd), expected, 1e-10, name)


def test_parameters_round_trip(rng):
    model = load_model("mixed")
    theta = inertia_to_parameters(model.tree.inertia)
    assert_close(parameters_to_inertia(theta), model.tree.inertia, 1e-15)
    x = rng.normal(size=(4, 10))
    assert_close(inertia_to_parameters(parameters_to_inertia(x)), x, 1e-15)


@pytest.mark.parametrize("name", robot_params(["mixed", "panda_gripper"]))
def test_friction_offset_armature_columns(name, rng):
    base = load_model(name)
    n = base.n
    model = base.with_friction(
        damping=rng.uniform(0.1, 1.0, n), friction=rng.uniform(0.1, 1.0, n)
    ).with_armature(rng.uniform(0.01, 0.1, n))
    layout = ParameterLayout.for_model(model, offset=True, armature=True, velocity_threshold=0.05)
    assert layout.size == 10 * model.tree.nb + 4 * n
    assert len(layout.names) == layout.size and layout.names[-1].endswith(".armature")
    q, qd, qdd = random_state(model, name, rng, (5,))
    qd[0, 0] = 0.0  # the smooth sign is 0 at rest
    theta = layout.nominal(model)
    offset = rng.normal(size=n)
    theta[layout.group_slice("offset")] = offset
    expected = model.inverse_dynamics(q, qd, qdd) + model.friction_torques(qd, 0.05) + offset
    assert_close(regressor(model, q, qd, qdd, layout) @ theta, expected, 1e-10, name)


def test_regressor_bad_input():
    model = load_model("mixed")
    other = load_model("ytree")
    layout = ParameterLayout.for_model(model)
    z = np.zeros(model.n)
    with pytest.raises(InvalidInputError, match="another model"):
        regressor(other, np.zeros(other.n), np.zeros(other.n), np.zeros(other.n), layout)
    with pytest.raises(InvalidInputError, match="qd has shape"):
        regressor(model, z, np.zeros(model.n + 1), z, layout)
    bad = z.copy()
    bad[2] = np.nan
    with pytest.raises(InvalidInputError, match="qdd has a NaN.*'j3'"):
        regressor(model, z, z, bad, layout)
    with pytest.raises(InvalidInputError, match="velocity_threshold"):
        ParameterLayout.for_model(model, velocity_threshold=-1.0)
    with pytest.raises(InvalidInputError, match="no 'offset' columns"):
        layout.group_slice("offset")
