"""Fixtures of the estimation-pipeline tests (plain pytest, no ROS): a seeded ``rng`` per test,
the bundled Panda arm (``panda``) and a 3-DOF arm (``arm3``). The core tests' helpers
(small_arms.py among them) are put on sys.path; the pipeline tests' own helpers are in
pipeline_helpers.py."""

import os
import sys
import zlib

import numpy as np
import pytest

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "core")
)

from pipeline_helpers import PANDA_URDF  # noqa: E402
from small_arms import ARM3_URDF  # noqa: E402

from robot_dynamics import RobotModel  # noqa: E402


@pytest.fixture
def rng(request):
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture(scope="module")
def panda():
    return RobotModel.from_urdf_file(PANDA_URDF)


@pytest.fixture(scope="module")
def arm3():
    return RobotModel.from_urdf_string(ARM3_URDF)
