"""Fixtures of the dynamics-core tests: test robots (local URDFs and example-robot-data),
models built once per session, and a seeded random generator."""
import os
import sys
import zlib

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracles  # noqa: E402

_MODELS = {}


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
        _MODELS[key] = RobotModel.from_urdf(oracles.urdf_xml(name), **kw)
    return _MODELS[key]


def robot_params(names):
    """pytest params of robot names; example-robot-data robots skip when it is missing."""
    out = []
    for n in names:
        marks = () if oracles.is_local(n) else (
            pytest.mark.skipif(not oracles.has_erd(), reason="example-robot-data not installed"),)
        out.append(pytest.param(n, id=n, marks=marks))
    return out


@pytest.fixture
def rng(request):
    # a seed per test, stable across runs: failures are reproducible
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def random_state(model, name, rng, shape=()):
    """Random q within limits, qd, qdd ~ N(0, 1) of a test robot (arrays of shape (*shape, n))."""
    info = oracles.parse_urdf(oracles.urdf_xml(name))
    q = oracles.random_q(info, model.joint_names, rng, shape)
    qd = rng.normal(size=q.shape)
    qdd = rng.normal(size=q.shape)
    return q, qd, qdd
