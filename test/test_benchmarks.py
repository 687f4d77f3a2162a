"""Every benchmark script runs end to end on tiny sizes: exit code 0 and its result line. A smoke
test of the scripts (they import the package's internals and start its nodes), never of the
numbers they print: those are measurements, read from the scripts' own runs."""

import importlib.util
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# example-robot-data is found the way the core tests find it (test/core/robot_urdfs.py)
sys.path.insert(0, os.path.join(REPO, "test", "core"))
import robot_urdfs  # noqa: E402

pytestmark = pytest.mark.slow

NEEDS_ORACLES = "needs pin and example-robot-data"

# script, tiny arguments, a line of its result, what it needs
SCRIPTS = [
    ("bench_core.py", ["--quick"], "summary:", "oracles"),
    ("bench_pipeline.py", ["--number", "50", "--repeat", "1"], "ratio (min):", "oracles"),
    ("bench_identification.py", ["--quick"], "double pendulum", "oracles"),
    ("bench_node.py", ["--duration", "2"], "CPU per processed message", "ros"),
    (
        "bench_rclpy.py",
        ["--duration", "1", "--repeat", "1"],
        "publishing the node's three outputs",
        "ros",
    ),
    (
        "bench_soak.py",
        ["--minutes", "0.05", "--warmup", "2", "--sample", "0.5"],
        "~/effort_command received during the run",
        "ros",
    ),
]


def _missing_oracles():
    return importlib.util.find_spec("pinocchio") is None or not robot_urdfs.has_erd()


@pytest.mark.parametrize(
    "script, arguments, result, needs",
    [pytest.param(*case, marks=[pytest.mark.ros] if case[3] == "ros" else []) for case in SCRIPTS],
    ids=[case[0] for case in SCRIPTS],
)
def test_the_benchmark_script_runs(script, arguments, result, needs):
    if needs == "oracles" and _missing_oracles():
        pytest.skip(NEEDS_ORACLES)
    done = subprocess.run(  # as `make bench` runs it: the venv's python, the package installed
        [sys.executable, os.path.join(REPO, "benchmarks", script), *arguments],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert result in output, output[-3000:]
