"""The joint torque regressor: ``tau = Y theta`` against the core's inverse dynamics (RNEA) on
every test robot (mimic joints included), against Pinocchio's computeJointTorqueRegressor
(joints mapped by name), and its friction / offset / armature columns."""

import numpy as np
import pytest

import oracles
import robot_urdfs
from core_helpers import TEST_ROBOTS, load_model, random_state, robot_params
from oracles import assert_close
from robot_dynamics.core import InvalidInputError
from robot_dynamics.core.friction import FrictionModel
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
    P = oracles.PinOracle(robot_urdfs.urdf_xml(name), model.joint_names)
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


def rich_friction(n, rng, joint_names=()):
    """Asymmetric Stribeck friction with per-joint Stribeck velocities."""
    coulomb = rng.uniform(0.2, 1.0, n)
    return FrictionModel(
        viscous=rng.uniform(0.1, 1.0, n),
        coulomb=coulomb,
        asymmetry=coulomb * rng.uniform(-0.9, 0.9, n),
        stribeck=rng.uniform(0.1, 0.5, n),
        stribeck_velocity=rng.uniform(0.02, 0.2, n),
        joint_names=joint_names,
    )


@pytest.mark.parametrize("name", robot_params(["mixed", "panda_gripper"]))
def test_friction_offset_armature_columns(name, rng):
    base = load_model(name)
    n = base.n
    friction = rich_friction(n, rng)
    model = base.with_friction(friction).with_armature(rng.uniform(0.01, 0.1, n))
    layout = ParameterLayout.for_model(
        model,
        asymmetry=True,
        stribeck=True,
        offset=True,
        armature=True,
        velocity_threshold=0.05,
        stribeck_velocity=friction.stribeck_velocity,
    )
    assert layout.size == 10 * model.tree.nb + 6 * n
    assert len(layout.names) == layout.size and layout.names[-1].endswith(".armature")
    q, qd, qdd = random_state(model, name, rng, (5,))
    qd[0, 0] = 0.0  # the smooth sign is 0 at rest
    qd[1, :] = rng.normal(scale=0.05, size=n)  # near rest: Stribeck and the smooth sign act
    theta = layout.nominal(model)
    offset = rng.normal(size=n)
    theta[layout.group_slice("offset")] = offset
    expected = model.inverse_dynamics(q, qd, qdd) + model.friction_torques(qd, 0.05) + offset
    assert_close(regressor(model, q, qd, qdd, layout) @ theta, expected, 1e-10, name)
    # the friction model of the layout's parameters is the model's
    again = layout.friction_model(theta, FrictionModel.zeros(n))
    for field in ("viscous", "coulomb", "asymmetry", "stribeck", "stribeck_velocity"):
        assert_close(getattr(again, field), getattr(friction, field), 0, field)


def test_per_joint_groups(rng):
    model = load_model("mixed")
    n = model.n
    friction = rich_friction(n, rng, model.joint_names)
    on = np.arange(n) % 2 == 0  # asymmetry and Stribeck on every other joint
    model = model.with_friction(
        friction.replace(
            asymmetry=np.where(on, friction.asymmetry, 0.0),
            stribeck=np.where(on, friction.stribeck, 0.0),
        )
    )
    layout = ParameterLayout.for_model(
        model, asymmetry=on, stribeck=on, offset=~on, stribeck_velocity=friction.stribeck_velocity
    )
    k = int(on.sum())
    assert layout.size == 10 * model.tree.nb + 2 * n + 2 * k + (n - k)
    assert layout.joints("asymmetry") == tuple(np.flatnonzero(on))
    assert layout.joints("offset") == tuple(np.flatnonzero(~on))
    assert [x.split(".")[0] for x in layout.names if x.endswith(".stribeck")] == [
        model.joint_names[i] for i in np.flatnonzero(on)
    ]
    q, qd, qdd = random_state(model, "mixed", rng, (4,))
    qd[0] = rng.normal(scale=0.03, size=n)
    theta = layout.nominal(model)
    offset = rng.normal(size=n - k)
    theta[layout.group_slice("offset")] = offset
    expected = model.inverse_dynamics(q, qd, qdd) + model.friction_torques(qd)
    expected[..., ~on] += offset
    assert_close(regressor(model, q, qd, qdd, layout) @ theta, expected, 1e-10, "per joint")
    values = layout.joint_values(theta, "offset")
    assert np.all(values[on] == 0.0) and np.all(values[~on] == offset)
    with pytest.raises(InvalidInputError, match="asymmetry without Coulomb friction on \\['j1"):
        ParameterLayout.for_model(model, coulomb=~on, asymmetry=True)
    with pytest.raises(InvalidInputError, match="offset must be True, False or"):
        ParameterLayout.for_model(model, offset=[1, 0])
    with pytest.raises(InvalidInputError, match="stribeck_velocity must be > 0"):
        ParameterLayout.for_model(model, stribeck_velocity=0.0)


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
