"""A node compiles the core's kernels while it loads its model: after ``compile_kernels``, the
messages of its pipeline (feed-forward, momentum observer, wrench, a reference, friction) compile
nothing more. Each run in a fresh interpreter, where nothing else has compiled them."""

import os
import subprocess
import sys

import pytest

import robot_urdfs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = """
import sys

import numba
import numpy as np

from robot_dynamics import RobotModel
from robot_dynamics.core.precompile import compile_kernels
from robot_dynamics.estimation import EstimationPipeline, PipelineConfig


def signatures():
    counts = {}
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("robot_dynamics"):
            for name, value in vars(module).items():
                if isinstance(value, numba.core.registry.CPUDispatcher):
                    counts[f"{module.__name__}.{name}"] = len(value.signatures)
    return counts


model = RobotModel.from_urdf_file(sys.argv[1])
compile_kernels(model.tree)
before = signatures()
config = PipelineConfig(friction_compensation=True, command_source=sys.argv[2])
pipeline = EstimationPipeline(model, config)
rng = np.random.default_rng(0)
n = model.n
for k in range(40):
    q, qd, tau = rng.uniform(-1.0, 1.0, size=(3, n))
    if k == 20:
        pipeline.set_reference(k * 1_000_000, q, qd, np.zeros(n))
    sample = pipeline.ingest(k * 1_000_000, q, qd * (k % 2), tau)
    if sample.ready:
        pipeline.command(sample, now_ns=k * 1_000_000)
        pipeline.estimate(sample)
after = signatures()
compiled = {name: count - before.get(name, 0) for name, count in after.items()}
compiled = {name: count for name, count in compiled.items() if count}
print(compiled)
sys.exit(1 if compiled else 0)
"""


@pytest.mark.parametrize("source", ["gravity", "feedforward"])
@pytest.mark.parametrize("urdf", [robot_urdfs.BUNDLED_PANDA_URDF, robot_urdfs.DOUBLE_PENDULUM_URDF])
def test_a_pipelines_messages_compile_nothing_after_compile_kernels(urdf, source):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, urdf, source],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, f"compiled on the hot path: {done.stdout}{done.stderr[-2000:]}"
