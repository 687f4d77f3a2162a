"""Helpers of the tools tests (a uniquely named module, as test/ros/node_test_helpers.py: test/,
test/core and test/ros each have a conftest.py, so `from conftest import ...` would be
ambiguous): example-robot-data's files, the core tests' small arms and perturbed inertials, and
for the ``robot-dynamics`` CLI tests the bundled models and ``cli.main`` run in-process."""

import json
import os
import sys

import pytest

from robot_dynamics import RobotModel
from robot_dynamics.tools import cli
from robot_dynamics.tools.bundled import BUNDLED, bundled_urdf_path

# example-robot-data is found the way the core tests find it (test/core/robot_urdfs.py); the small
# test arms are the core tests' (test/core/small_arms.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "core"))
from core_helpers import perturbed_inertials  # noqa: E402
from robot_urdfs import robots_dir  # noqa: E402
from small_arms import ARM3_URDF, UR_SHAPE_URDF  # noqa: E402

__all__ = [
    "ARM3_URDF",
    "PANDA_HOME",
    "PANDA_Q",
    "UR_SHAPE_URDF",
    "erd_urdf_path",
    "panda",
    "pendulum",
    "perturbed_inertials",
    "run",
    "run_fail",
    "run_json",
]

PANDA_HOME = list(BUNDLED["panda"].home)
PANDA_Q = [0.3, -0.5, 0.2, -2.0, 0.1, 1.4, -0.6]


def erd_urdf_path(*parts):
    """Path of a file under example-robot-data's robots/ (e.g. "ur_description", "urdf",
    "ur5_robot.urdf"), or skip the test when example-robot-data (test oracle) is not installed."""
    root = robots_dir()
    path = os.path.join(root, *parts) if root else None
    if path is None or not os.path.exists(path):
        pytest.skip("example-robot-data (test oracle) is not installed")
    return path


def panda():
    """The bundled Panda arm as the CLI builds it (tip link ``tool``)."""
    return RobotModel.from_urdf_file(bundled_urdf_path("panda"), tip_link="tool")


def pendulum():
    """The bundled double pendulum with its gravity (-y), as the CLI builds it."""
    return RobotModel.from_urdf_file(
        bundled_urdf_path("double_pendulum"), gravity=(0.0, -9.81, 0.0)
    )


def _not_json(constant):
    raise AssertionError(f"--json wrote {constant}, which strict JSON (RFC 8259) does not have")


def run_json(capsys, *argv):
    """``cli.main(argv + ["--json"])`` in-process: exit code 0 and ``"ok": true``; the parsed
    JSON output, strict (no NaN or Infinity)."""
    code = cli.main([*map(str, argv), "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    data = json.loads(out.out, parse_constant=_not_json)
    assert data["ok"] is True
    return data


def run(capsys, *argv):
    """``cli.main(argv)`` in-process: (exit code, stdout, stderr)."""
    code = cli.main(list(map(str, argv)))
    out = capsys.readouterr()
    return code, out.out, out.err


def run_fail(capsys, *argv):
    """``cli.main(argv)`` in-process: (exit code, stderr)."""
    code = cli.main(list(map(str, argv)))
    out = capsys.readouterr()
    return code, out.err
