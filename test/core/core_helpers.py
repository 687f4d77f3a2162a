"""Helpers of the dynamics-core tests (a uniquely named module: test/, test/core and test/ros each
have a conftest.py, so `from conftest import ...` would be ambiguous)."""

import os

import numpy as np
import pytest

import robot_urdfs
import urdf_reader
from robot_dynamics.core.regressor import inertia_to_parameters
from robot_dynamics.core.spatial import inertia_parameters, spatial_inertia

_MODELS = {}


#: Every test robot: real arms of example-robot-data, the bundled ones, and the tree and
#: mixed-joint test models (parametrises the Pinocchio and regressor tests).
TEST_ROBOTS = [
    "ur5",
    "panda_arm",
    "panda_gripper",
    "baxter",
    "kinova",
    "xarm7",
    "z1",
    "so100",
    "double_pendulum",
    "mixed",
    "ytree",
    "bundled_panda",
]


def load_model(name, **overrides):
    """RobotModel of a named test robot (cached per set of keyword arguments)."""
    from robot_dynamics import RobotModel

    if not robot_urdfs.is_local(name) and not robot_urdfs.has_erd():
        pytest.skip("example-robot-data is not installed")
    if name == "bundled_panda" and not os.path.exists(robot_urdfs.BUNDLED_PANDA_URDF):
        pytest.skip("urdf/panda_arm.urdf is not in this checkout")
    kw = dict(robot_urdfs.model_kwargs(name))
    kw.update(overrides)
    key = (name, tuple(sorted((k, repr(v)) for k, v in kw.items())))
    if key not in _MODELS:
        _MODELS[key] = RobotModel.from_urdf_string(robot_urdfs.urdf_xml(name), **kw)
    return _MODELS[key]


def robot_params(names):
    """pytest params of robot names; example-robot-data robots skip when it is missing."""
    out = []
    for n in names:
        marks = (
            ()
            if robot_urdfs.is_local(n)
            else (
                pytest.mark.skipif(
                    not robot_urdfs.has_erd(), reason="example-robot-data not installed"
                ),
            )
        )
        out.append(pytest.param(n, id=n, marks=marks))
    return out


def random_state(model, name, rng, shape=()):
    """Random q within limits, qd, qdd ~ N(0, 1) of a test robot (arrays of shape (*shape, n))."""
    info = urdf_reader.parse_urdf(robot_urdfs.urdf_xml(name))
    q = urdf_reader.random_q(info, model.joint_names, rng, shape)
    qd = rng.normal(size=q.shape)
    qdd = rng.normal(size=q.shape)
    return q, qd, qdd


def perturbed_inertials(model, rng, scale=(0.8, 1.25), com=0.03, added_mass=0.1):
    """The inertial parameters of a "true" robot near ``model``, for identification tests: per
    body the mass and the rotational inertia scaled by factors drawn in ``scale`` and raised by
    ``added_mass`` [kg] and 1e-4 kg m^2 (no massless body), the COM moved by up to ``com`` [m]
    along each axis.

    Returns:
        ndarray: (10 nb,) in the regressor's order (the inertial columns of a ParameterLayout).
    """
    bodies = []
    for b in range(model.tree.nb):
        m, c, inertia = inertia_parameters(model.tree.inertia[b])
        bodies.append(
            inertia_to_parameters(
                spatial_inertia(
                    m * rng.uniform(*scale) + added_mass,
                    c + rng.uniform(-com, com, 3),
                    inertia * rng.uniform(*scale) + 1e-4 * np.eye(3),
                )
            )
        )
    return np.concatenate(bodies)
