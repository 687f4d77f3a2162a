"""Property-based fuzzing of the estimation pipeline (hypothesis): joint_states-like arrays with
NaN, inf, 1e308, 1e150, huge and missing fields, partial messages and stamps in any order.

Properties: ``update`` never raises; a message is either refused (with a reason) or every array
it returns is finite; and when every accepted value was a true one, the estimate is exact on
the first valid message after the fuzzed ones (refused or absurd samples restart the observer).
"""

import math
import os

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pipeline_helpers import F_EXT, MS, PANDA_URDF, Q, T0  # noqa: E402

from robot_dynamics import RobotModel  # noqa: E402
from robot_dynamics.core.spatial import wrench_in_frame  # noqa: E402
from robot_dynamics.estimation import ContactConfig, EstimationPipeline, PipelineConfig  # noqa: E402

PANDA = RobotModel.from_urdf_file(PANDA_URDF)
N = PANDA.n
TAU = PANDA.gravity_torques(Q) - PANDA.jacobian(Q).T @ F_EXT
EXPECTED = wrench_in_frame(F_EXT, PANDA.frame_pose(Q), point=PANDA.frame_pose(Q)[:3, 3])

ABSURD = [math.nan, math.inf, -math.inf, 1e308, -1e308, 1e150, -1e200, 1e20]  # refused/ignored
TINY = [5e-324, -0.0]  # plausible values (wrong ones: only in the wild messages)
SETTINGS = settings(
    max_examples=int(os.environ.get("PIPELINE_FUZZ_EXAMPLES", "60")),
    derandomize="PIPELINE_FUZZ_EXAMPLES" not in os.environ,  # CI: the same cases every run
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CONFIGS = [
    PipelineConfig(),
    PipelineConfig(wrench_estimation="static"),
    PipelineConfig(wrench_estimation="static", static_acceleration="differentiated"),
    PipelineConfig(
        command_source="feedforward",
        friction_compensation=True,
        contact=ContactConfig(torque_on=(1.0,) * N, force_on=5.0, min_duration=0.0),
        effort_scale=(-1.0,) * N,
        wrench_frame="panda_link0",
    ),
]

# one field of a message: None (absent), or per joint a true value, an absurd one or anything
any_float = st.floats(allow_nan=True, allow_infinity=True, width=64)


def field(true_values, wild):
    """None (absent), or per joint j either true_values[j] or a bad (wild: any) value."""
    bad = st.sampled_from(ABSURD + TINY) | any_float if wild else st.sampled_from(ABSURD)
    choices = st.lists(st.none() | bad, min_size=N, max_size=N)  # None: the true value
    return st.none() | choices.map(
        lambda values: np.array(
            [true_values[j] if v is None else v for j, v in enumerate(values)], dtype=float
        )
    )


def message(wild):
    return st.tuples(
        st.integers(min_value=-2 * 10**9, max_value=2 * 10**9),  # stamp step [ns]
        field(Q, wild),
        field(np.zeros(N), wild),
        field(TAU, wild),
        st.none() | st.lists(st.booleans(), min_size=N, max_size=N).map(np.array),
    )


def check_output(out):
    if out.refused is not None:
        assert isinstance(out.refused, str) and out.refused
        assert out.gravity is None and out.command is None and out.wrench is None
        return
    for name in ("gravity", "feedforward", "command", "external_torques", "wrench"):
        value = getattr(out, name)
        assert value is None or np.all(np.isfinite(value)), (name, value)
    if out.command is None:
        assert out.command_error


def run(pipeline, messages, t):
    """Feed the messages, stamped ``step`` after each other from ``t``; the newest stamp."""
    newest = t
    for step, position, velocity, effort, present in messages:
        t += step
        newest = max(newest, t)
        out = pipeline.update(t, position, velocity, effort, present=present)
        check_output(out)
    return newest


@SETTINGS
@given(
    config=st.sampled_from(CONFIGS),
    messages=st.lists(message(wild=True), min_size=1, max_size=25),
)
def test_never_raises_and_never_returns_non_finite(config, messages):
    pipeline = EstimationPipeline(PANDA, config)
    pipeline.update(T0, Q, np.zeros(N), TAU)
    run(pipeline, messages, T0)
    status = pipeline.status()
    assert status["messages"] == len(messages) + 1
    assert all(v >= 0 for k, v in status.items() if isinstance(v, int))


@SETTINGS
@given(
    config=st.sampled_from(CONFIGS[:2]),
    messages=st.lists(message(wild=False), min_size=1, max_size=25),
)
def test_exact_again_right_after_bad_samples(config, messages):
    """Every accepted value is a true one (or a field left out): refused and absurd samples
    leave no trace, the first valid message after them gives the exact wrench."""
    pipeline = EstimationPipeline(PANDA, config)
    t = T0
    for k in range(3):
        pipeline.update(t + k * MS, Q, np.zeros(N), TAU)
    t = run(pipeline, messages, t + 2 * MS)
    t += MS  # a valid message after the newest stamp
    out = pipeline.update(t, Q, np.zeros(N), TAU)
    assert out.refused is None
    assert out.wrench is not None, out.estimation_paused
    np.testing.assert_allclose(out.wrench, EXPECTED, rtol=0, atol=1e-6)
