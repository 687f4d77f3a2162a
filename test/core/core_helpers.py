"""Helpers of the dynamics-core tests (a uniquely named module: test/, test/core and test/ros each
have a conftest.py, so `from conftest import ...` would be ambiguous)."""

import os

import pytest

import oracles

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

    if not oracles.is_local(name) and not oracles.has_erd():
        pytest.skip("example-robot-data is not installed")
    if name == "bundled_panda" and not os.path.exists(oracles.BUNDLED_PANDA_URDF):
        pytest.skip("urdf/panda_arm.urdf is not in this checkout")
    kw = dict(oracles.model_kwargs(name))
    kw.update(overrides)
    key = (name, tuple(sorted((k, repr(v)) for k, v in kw.items())))
    if key not in _MODELS:
        _MODELS[key] = RobotModel.from_urdf_string(oracles.urdf_xml(name), **kw)
    return _MODELS[key]


def robot_params(names):
    """pytest params of robot names; example-robot-data robots skip when it is missing."""
    out = []
    for n in names:
        marks = (
            ()
            if oracles.is_local(n)
            else (
                pytest.mark.skipif(
                    not oracles.has_erd(), reason="example-robot-data not installed"
                ),
            )
        )
        out.append(pytest.param(n, id=n, marks=marks))
    return out


def random_state(model, name, rng, shape=()):
    """Random q within limits, qd, qdd ~ N(0, 1) of a test robot (arrays of shape (*shape, n))."""
    info = oracles.parse_urdf(oracles.urdf_xml(name))
    q = oracles.random_q(info, model.joint_names, rng, shape)
    qd = rng.normal(size=q.shape)
    qdd = rng.normal(size=q.shape)
    return q, qd, qdd
