"""Fixtures of the estimation-pipeline tests (plain pytest, no ROS). The core tests' helpers
(robot_urdfs.py, small_arms.py, ...) are put on sys.path."""

import os
import sys
import zlib

import numpy as np
import pytest

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "core")
)


@pytest.fixture
def rng(request):
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
