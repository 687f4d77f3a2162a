"""Helpers of the tools tests (a uniquely named module, as test/ros/node_test_helpers.py: test/,
test/core and test/ros each have a conftest.py, so `from conftest import ...` would be
ambiguous)."""

import os
import sys

import pytest

# example-robot-data is found the way the core tests find it (test/core/robot_urdfs.py); the small
# test arms are the core tests' (test/core/small_arms.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "core"))
from core_helpers import perturbed_inertials  # noqa: E402
from robot_urdfs import robots_dir  # noqa: E402
from small_arms import ARM3_URDF, UR_SHAPE_URDF  # noqa: E402

__all__ = ["ARM3_URDF", "UR_SHAPE_URDF", "erd_urdf_path", "perturbed_inertials"]


def erd_urdf_path(*parts):
    """Path of a file under example-robot-data's robots/ (e.g. "ur_description", "urdf",
    "ur5_robot.urdf"), or skip the test when example-robot-data (test oracle) is not installed."""
    root = robots_dir()
    path = os.path.join(root, *parts) if root else None
    if path is None or not os.path.exists(path):
        pytest.skip("example-robot-data (test oracle) is not installed")
    return path
