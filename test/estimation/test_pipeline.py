"""The estimation pipeline (robot_dynamics.estimation) with plain pytest: every rule, on ground
truth constructed with the core (simulated pushes, inverse dynamics of known motions).

Efforts are what the motors measure: ``tau = M qdd + C qd + g - J^T f_ext`` (the core's
convention, ``f_ext`` applied by the environment on the robot, base axes, moment about the frame
origin); the pipeline reports ``f_ext`` as a force-torque sensor at ``wrench_frame`` reads it.
"""

import math
import os
from unittest import mock

import numpy as np
import pytest

from small_arms import ARM3_URDF

from robot_dynamics import RobotModel
from robot_dynamics.core import InvalidInputError, StateTerms
from robot_dynamics.core.actuation import end_stop_gains
from robot_dynamics.core.spatial import wrench_in_frame
from robot_dynamics.core.friction import FrictionModel
from robot_dynamics.estimation import (
    ContactConfig,
    EstimationPipeline,
    FilteredDifferentiator,
    PipelineConfig,
)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PANDA_URDF = os.path.join(REPO, "urdf", "panda_arm.urdf")
Q = np.array([0.1, -0.3, 0.2, -1.8, 0.1, 1.5, 0.3])
F_EXT = np.array([2.0, -3.0, 5.0, 0.2, -0.1, 0.3])  # on the tool, base axes, moment about it
MS = 1_000_000  # 1 ms in ns
T0 = 1_700_000_000 * 10**9  # a wall-clock-like stamp


@pytest.fixture(scope="module")
def panda():
    return RobotModel.from_urdf_file(PANDA_URDF)


@pytest.fixture(scope="module")
def arm3():
    return RobotModel.from_urdf_string(ARM3_URDF)


def sensor(model, q, f_ext, frame=None, at=None):
    """What a force-torque sensor at ``frame`` reads of f_ext applied at ``at`` (default tip)."""
    frame = frame or model.tip_link
    at = at or model.tip_link
    return wrench_in_frame(
        f_ext, model.frame_pose(q, frame=frame), point=model.frame_pose(q, frame=at)[:3, 3]
    )


def held_torques(model, q, f_ext, frame=None):
    """Measured joint torques holding still at q under f_ext (base axes, on ``frame``)."""
    return model.gravity_torques(q) - model.jacobian(q, frame=frame).T @ f_ext


def pipe(model, **config):
    contact = config.pop("contact", None)
    if contact is not None:
        config["contact"] = ContactConfig(**contact)
    return EstimationPipeline(model, PipelineConfig(**config))


def feed(p, q, qd, tau, start=T0, count=5, period=MS, **kw):
    out = None
    for k in range(count):
        out = p.update(start + k * period, q, qd, tau, **kw)
    return out


# ------------------------------------------------------------------ configuration
@pytest.mark.parametrize(
    "field,value,match",
    [
        ("wrench_estimation", "magic", "wrench_estimation"),
        ("static_acceleration", "guess", "static_acceleration"),
        ("command_source", "x", "command_source"),
        ("observer_gain", 0.0, "observer_gain"),
        ("observer_gain", math.nan, "observer_gain"),
        ("observer_max_dt", -1.0, "observer_max_dt"),
        ("friction_velocity_threshold", -0.1, "friction_velocity_threshold"),
        ("reference_timeout", math.inf, "reference_timeout"),
        ("effort_timeout", -1.0, "effort_timeout"),
        ("effort_limit_factor", 0.0, "effort_limit_factor"),
        ("tare_duration", 0.0, "tare_duration"),
        ("wrench_frame", "no_such_link", "no_such_link"),
        ("wrench_components", ("fx", "fq"), "fq"),
        ("effort_scale", (1.0, 2.0), "effort_scale has 2 values"),
        ("effort_offset", (0.0,) * 6 + (math.inf,), "panda_joint7"),
        ("contact", ContactConfig(torque_on=(1.0,) * 7, torque_off=(2.0,) * 7), "torque_off"),
        ("contact", ContactConfig(torque_on=(1.0,) * 6 + (0.0,)), "panda_joint7"),
        ("contact", ContactConfig(force_on=1.0, force_off=2.0), "force_off"),
        ("contact", ContactConfig(moment_off=1.0), "moment_off"),
        ("contact", ContactConfig(min_duration=-1.0), "min_duration"),
    ],
)
def test_config_refused_naming_the_field(panda, field, value, match):
    with pytest.raises(InvalidInputError, match=match):
        EstimationPipeline(panda, PipelineConfig(**{field: value}))


def test_default_components_and_frame(panda, arm3):
    p = pipe(panda)
    assert p.wrench_frame == "tool" and p.wrench_components == ("fx", "fy", "fz", "tx", "ty", "tz")
    p3 = pipe(arm3)
    assert p3.wrench_frame == "tool" and p3.wrench_components == ("fx", "fy", "fz")
    assert pipe(panda, wrench_components=("tz", "fx")).wrench_components == ("fx", "tz")
    assert pipe(panda, wrench_frame="panda_link4").wrench_frame == "panda_link4"
    status = p3.status()
    assert status["wrench_components"] == "fx fy fz" and status["wrench_frame"] == "tool"


# ------------------------------------------------------------------ static estimation, frames
@pytest.mark.parametrize("frame", ["tool", "panda_link0", "panda_link7"])
def test_static_wrench_in_any_frame(panda, frame):
    tau = held_torques(panda, Q, F_EXT)
    p = pipe(panda, wrench_estimation="static", wrench_frame=frame)
    out = p.update(T0, Q, np.zeros(7), tau)
    assert out.refused is None and out.estimation_paused is None
    np.testing.assert_allclose(out.gravity, panda.gravity_torques(Q), rtol=0, atol=1e-12)
    np.testing.assert_allclose(out.external_torques, panda.jacobian(Q).T @ F_EXT, rtol=0, atol=1e-9)
    assert out.wrench_frame == frame
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT, frame), rtol=0, atol=1e-7)
    assert isinstance(out.min_singular_value, float) and not out.near_singular


def test_force_only_on_a_three_dof_arm(arm3):
    """The issue's case: a pure 10 N push on a 3-DOF arm reads exactly as a force."""
    q = np.array([0.3, -0.7, 1.1])
    f_tool = np.array([0.0, 0.0, -10.0])  # tool axes
    R = arm3.frame_pose(q)[:3, :3]
    f_ext = np.r_[R @ f_tool, 0, 0, 0]
    p = pipe(arm3, wrench_estimation="static")
    out = p.update(T0, q, np.zeros(3), held_torques(arm3, q, f_ext))
    np.testing.assert_allclose(out.wrench, np.r_[f_tool, 0, 0, 0], rtol=0, atol=1e-9)
    assert out.singular_values.shape == (3,)


def test_singularity_reported(panda):
    q = np.zeros(7)  # stretched straight up
    p = pipe(panda, wrench_estimation="static")
    out = p.update(T0, q, np.zeros(7), panda.gravity_torques(q))
    assert np.all(np.isfinite(out.wrench)) and out.near_singular
    assert out.min_singular_value < 0.01
    status = p.status()
    assert status["near_singular"] and status["singular_warnings"] == 1
    out = p.update(T0 + MS, Q, np.zeros(7), panda.gravity_torques(Q))
    assert not out.near_singular and not p.status()["near_singular"]


# ------------------------------------------------------------------ momentum observer
def simulate_push(model, q0, f_ext, frame, seconds, dt=0.001, push_from=0.2):
    """A PD-held arm pushed by f_ext (base axes, on ``frame``) from ``push_from`` s on, by the
    core's semi-implicit Euler. Yields (t_ns, q, qd, tau_measured, pushed)."""
    kp, kd = end_stop_gains(model, q0, frequency=3.0, damping_ratio=1.0)  # stable at dt
    q, qd = q0.copy(), np.zeros(model.n)
    for k in range(int(round(seconds / dt))):
        pushed = k * dt >= push_from
        tau = model.gravity_torques(q) + kp * (q0 - q) - kd * qd
        yield T0 + k * MS, q, qd, tau, pushed
        q, qd = model.step(q, qd, tau, dt, f_ext=f_ext if pushed else None, frame=frame)


@pytest.mark.parametrize("robot", ["panda", "arm3"])
def test_observer_follows_a_simulated_push(robot, panda, arm3):
    model = {"panda": panda, "arm3": arm3}[robot]
    q0 = Q if robot == "panda" else np.array([0.3, -0.7, 1.1])
    frame = model.tip_link
    if robot == "panda":
        f_ext = F_EXT
    else:  # a point force at the tool: all the 3-DOF arm can tell
        f_ext = np.array([3.0, -4.0, 6.0, 0.0, 0.0, 0.0])
    p = pipe(model, observer_gain=100.0)
    outs = []
    for t, q, qd, tau, pushed in simulate_push(model, q0, f_ext, frame, 2.5):
        out = p.update(t, q, qd, tau)
        assert out.refused is None
        outs.append((out, q, pushed))
    before = [o for o, q, pushed in outs[50:150]]
    assert max(np.abs(o.wrench).max() for o in before) < 1e-3
    out, q, _ = outs[-1]
    expected = sensor(model, q, f_ext, frame)
    # settled at the end: the observer matches up to the integrators' O(dt) mismatch
    np.testing.assert_allclose(out.wrench, expected, rtol=0, atol=0.02 * np.abs(f_ext).max())
    np.testing.assert_allclose(
        out.external_torques, model.jacobian(q).T @ f_ext, rtol=0, atol=0.02 * np.abs(f_ext).max()
    )
    assert p.status()["observer_restarts"] == 1  # the first message only


def test_observer_on_a_known_motion_and_at_rest(panda):
    """Torques by inverse dynamics of a sine motion under F_EXT: the observer lags by ~1/K while
    moving and is exact when the arm is held."""
    amp = np.array([0.2, 0.15, 0.2, 0.15, 0.3, 0.2, 0.3])
    w = 2 * np.pi * 0.25
    dt_ns = 4 * MS

    def state(t):
        return Q + amp * np.sin(w * t), amp * w * np.cos(w * t), -amp * w * w * np.sin(w * t)

    p = pipe(panda, observer_gain=100.0)
    errors = []
    for k in range(500):
        q, qd, qdd = state(k * 0.004)
        tau = panda.inverse_dynamics(q, qd, qdd) - panda.jacobian(q).T @ F_EXT
        out = p.update(T0 + k * dt_ns, q, qd, tau)
        if k * 0.004 >= 1.0:
            errors.append(np.abs(out.wrench - sensor(panda, q, F_EXT)).max())
    assert max(errors) < 0.1
    q = state(500 * 0.004)[0]
    tau = held_torques(panda, q, F_EXT)
    out = feed(p, q, np.zeros(7), tau, start=T0 + 500 * dt_ns, count=400, period=dt_ns)
    np.testing.assert_allclose(out.wrench, sensor(panda, q, F_EXT), rtol=0, atol=1e-6)


def test_static_with_differentiated_acceleration(panda):
    qd0 = np.linspace(-0.2, 0.2, 7)
    qdd = np.linspace(0.3, -0.3, 7)
    dt = 0.004

    def run(static_acceleration):
        p = pipe(
            panda,
            wrench_estimation="static",
            static_acceleration=static_acceleration,
            acceleration_filter_time_constant=0.01,
        )
        for k in range(150):
            t = k * dt
            q, qd = Q + qd0 * t + 0.5 * qdd * t * t, qd0 + qdd * t
            tau = panda.inverse_dynamics(q, qd, qdd) - panda.jacobian(q).T @ F_EXT
            out = p.update(T0 + k * 4 * MS, q, qd, tau)
        return np.abs(out.wrench - sensor(panda, q, F_EXT)).max()

    assert run("differentiated") < 1e-6
    assert run("zero") > 1e-3


def test_differences_are_integer_nanoseconds(panda):
    """Stamps near 1.7e18 ns and near 0 with the same 1 ms steps give bitwise equal estimates
    (float seconds since the epoch resolve only ~2.4e-7 s)."""
    amp = np.linspace(0.1, 0.3, 7)
    results = []
    for start in (T0 + 123_456_789, 5 * MS):
        p = pipe(panda)
        for k in range(50):
            q, qd = Q + amp * np.sin(0.01 * k), amp * 10 * np.cos(0.01 * k)
            out = p.update(start + k * MS, q, qd, panda.gravity_torques(q))
        results.append(out.external_torques)
    np.testing.assert_array_equal(results[0], results[1])


# ------------------------------------------------------------------ stamps
def test_stamp_gaps_backwards_and_repeated(panda):
    tau = held_torques(panda, Q, F_EXT)
    p = pipe(panda, observer_max_dt=0.5)
    feed(p, Q, np.zeros(7), tau, count=10)
    s = p.status()
    assert s["observer_restarts"] == 1 and s["stamp_gaps"] == 0
    # three messages lost: a gap, counted with the skipped messages, no restart (< max dt)
    out = p.update(T0 + 13 * MS, Q, np.zeros(7), tau)
    s = p.status()
    assert s["stamp_gaps"] == 1 and s["skipped_messages"] == 3 and s["observer_restarts"] == 1
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)
    # a gap beyond observer_max_dt restarts; at rest the restart is right at once
    out = p.update(T0 + 2 * 10**9, Q, np.zeros(7), tau)
    s = p.status()
    assert s["observer_restarts"] == 2 and "gap of" in s["last_restart"]
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)
    # backwards: restart, counted
    out = p.update(T0 + 10**9, Q, np.zeros(7), tau)
    s = p.status()
    assert s["stamps_backwards"] == 1 and s["observer_restarts"] == 3
    assert "backwards" in s["last_restart"]
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)
    # the same stamp again (a second driver): no observer step, gravity still out
    out = p.update(T0 + 10**9, Q, np.zeros(7), tau)
    assert out.estimation_paused and "same stamp" in out.estimation_paused
    assert out.gravity is not None and p.status()["stamps_repeated"] == 1
    out = p.update(T0 + 10**9 + MS, Q, np.zeros(7), tau)
    assert out.wrench is not None and p.status()["observer_restarts"] == 3


# ------------------------------------------------------------------ feed-forward and command
def test_feedforward_reference_and_expiry(panda):
    qd = np.linspace(-0.3, 0.3, 7)
    p = pipe(panda, reference_timeout=0.5)
    out = p.update(T0, Q, qd, None)
    np.testing.assert_allclose(
        out.feedforward, panda.inverse_dynamics(Q, qd, np.zeros(7)), rtol=0, atol=1e-9
    )
    assert out.estimation_paused and "no effort" in out.estimation_paused
    q_ref, qd_ref, qdd_ref = Q + 0.1, np.full(7, 0.2), np.linspace(1.0, -1.0, 7)
    p.set_reference(T0, q_ref, qd_ref, qdd_ref)
    expected = panda.inverse_dynamics(q_ref, qd_ref, qdd_ref)
    calls = []
    real = RobotModel.inverse_dynamics

    def counting(self, *args, **kwargs):
        calls.append(1)
        return real(self, *args, **kwargs)

    with mock.patch.object(RobotModel, "inverse_dynamics", counting):
        for k in range(1, 6):
            out = p.update(T0 + k * MS, Q, qd, None)
            np.testing.assert_allclose(out.feedforward, expected, rtol=0, atol=1e-9)
    assert len(calls) == 1  # once per reference
    # expiry on the reference clock (now_ns), counted; the measured state takes over
    out = p.update(T0 + 6 * MS, Q, qd, None, now_ns=T0 + 600 * MS)
    np.testing.assert_allclose(
        out.feedforward, panda.inverse_dynamics(Q, qd, np.zeros(7)), rtol=0, atol=1e-9
    )
    assert p.status()["reference_expired"] == 1 and not p.status()["reference_active"]
    # timeout 0: never expires; clear_reference drops it
    p0 = pipe(panda, reference_timeout=0.0)
    p0.set_reference(T0, q_ref)
    out = p0.update(T0 + 10**12, Q, qd, None, now_ns=T0 + 10**12)
    np.testing.assert_allclose(
        out.feedforward, panda.inverse_dynamics(q_ref, np.zeros(7), np.zeros(7)), atol=1e-9
    )
    p0.clear_reference()
    out = p0.update(T0 + 10**12 + MS, Q, qd, None)
    np.testing.assert_allclose(out.feedforward, panda.inverse_dynamics(Q, qd, np.zeros(7)))


def test_reference_refused_naming_field_and_joint(panda):
    p = pipe(panda)
    bad = np.zeros(7)
    bad[3] = math.nan
    with pytest.raises(InvalidInputError, match="positions of joint 'panda_joint4'"):
        p.set_reference(T0, bad)
    with pytest.raises(InvalidInputError, match="velocities of joint 'panda_joint1'"):
        p.set_reference(T0, Q, np.r_[1e200, np.zeros(6)])
    with pytest.raises(InvalidInputError, match="accelerations have shape"):
        p.set_reference(T0, Q, None, np.zeros(3))
    assert not p.status()["reference_active"]


def test_friction_compensation_smooth_sign(panda):
    model = panda.with_friction(FrictionModel(np.full(7, 0.5), np.full(7, 1.5)))
    qd = np.linspace(-0.02, 0.02, 7)
    p = pipe(model, friction_compensation=True, friction_velocity_threshold=0.05)
    out = p.update(T0, Q, qd, None)
    smooth = 0.5 * qd + 1.5 * np.tanh(qd / 0.05)
    expected = model.inverse_dynamics(Q, qd, np.zeros(7)) + smooth
    np.testing.assert_allclose(out.feedforward, expected, rtol=0, atol=1e-9)
    p.set_reference(T0, Q, qd)
    out = p.update(T0 + MS, Q, qd, None)
    np.testing.assert_allclose(out.feedforward, expected, rtol=0, atol=1e-9)
    # the estimator removes the same friction from the measured torques: an arm moving slowly
    # with exactly that friction and no contact shows no external torque (static estimator)
    p = pipe(
        model,
        friction_compensation=True,
        friction_velocity_threshold=0.05,
        wrench_estimation="static",
    )
    tau = model.inverse_dynamics(Q, qd, np.zeros(7)) + smooth
    out = p.update(T0, Q, qd, tau)
    np.testing.assert_allclose(out.external_torques, 0.0, atol=1e-9)


def test_command_sources_clamping_and_the_command_before_the_estimation(panda):
    qd = np.linspace(-0.3, 0.3, 7)
    p = pipe(panda, command_source="feedforward")
    q_ref, qd_ref, qdd_ref = Q + 0.1, np.full(7, 0.2), np.linspace(300.0, -300.0, 7)
    p.set_reference(T0, q_ref, qd_ref, qdd_ref)
    sample = p.ingest(T0, Q, qd, np.zeros(7))
    out = p.command(sample)
    raw = panda.inverse_dynamics(q_ref, qd_ref, qdd_ref)
    limits = panda.effort_limits
    assert np.any(np.abs(raw) > limits)  # the clamp acts
    np.testing.assert_allclose(out.command, np.clip(raw, -limits, limits), rtol=0, atol=1e-9)
    assert out.external_torques is None  # the command is ready before the estimation
    assert p.estimate(sample) is out and out.external_torques is not None
    np.testing.assert_allclose(out.feedforward, raw, atol=1e-9)  # the feed-forward unclamped
    p = pipe(panda, command_source="feedforward", clamp_effort_command=False)
    p.set_reference(T0, q_ref, qd_ref, qdd_ref)
    np.testing.assert_allclose(p.update(T0, Q, qd, None).command, raw, atol=1e-9)
    p = pipe(panda)  # gravity
    out = p.update(T0, Q, None, None)
    np.testing.assert_allclose(out.command, panda.gravity_torques(Q), atol=1e-12)
    # a gravity command needs no velocity pass: the feed-forward comes with the estimation
    sample = p.ingest(T0 + MS, Q, qd, np.zeros(7))
    with mock.patch.object(
        StateTerms, "nonlinear_effects", property(lambda self: pytest.fail("velocity pass"))
    ):
        out = p.command(sample)
    np.testing.assert_allclose(out.command, panda.gravity_torques(Q), atol=1e-12)
    assert out.feedforward is None
    p.estimate(sample)
    np.testing.assert_allclose(out.feedforward, panda.nonlinear_effects(Q, qd), atol=1e-12)
    # feed-forward command without velocity or reference: none, with the reason
    p = pipe(panda, command_source="feedforward")
    out = p.update(T0, Q, None, None)
    assert out.command is None and "no recent velocity" in out.command_error
    assert out.gravity is not None and p.status()["commands_withheld"] == 1


def test_last_guard_withholds_non_finite_outputs(panda):
    """Whatever produces it, a non-finite value is never returned: command None + reason +
    counter."""
    nan_gravity = property(lambda self: np.full(7, math.nan))
    with mock.patch.object(StateTerms, "gravity", nan_gravity):
        p = pipe(panda)
        out = p.update(T0, Q, np.zeros(7), panda.gravity_torques(Q))
    assert out.gravity is None and out.command is None
    assert "not finite" in out.command_error
    s = p.status()
    assert s["nonfinite_outputs"] >= 1 and "gravity" in s["last_nonfinite_output"]
    nan_h = property(lambda self: np.full(7, math.inf))
    with mock.patch.object(StateTerms, "nonlinear_effects", nan_h):
        p = pipe(panda, command_source="feedforward")
        out = p.update(T0, Q, np.zeros(7), panda.gravity_torques(Q))
    assert out.feedforward is None and out.command is None and out.external_torques is None
    assert out.gravity is not None
    for value in (out.gravity,):
        assert np.all(np.isfinite(value))


# ------------------------------------------------------------------ partial messages, drivers
def test_partial_messages_merge_per_joint(panda):
    p = pipe(panda)
    first = np.zeros(7, dtype=bool)
    first[3:] = True
    out = p.update(T0, np.where(first, Q, math.nan), None, None, present=first)
    assert out.gravity is None and out.command is None
    assert out.missing_positions == ("panda_joint1", "panda_joint2", "panda_joint3")
    out = p.update(T0 + MS, np.where(~first, Q, math.nan), None, None, present=~first)
    np.testing.assert_allclose(out.gravity, panda.gravity_torques(Q), atol=1e-12)
    one = np.zeros(7, dtype=bool)
    one[1] = True
    q2 = Q.copy()
    q2[1] += 0.4
    out = p.update(T0 + 2 * MS, np.where(one, q2, math.nan), None, None, present=one)
    np.testing.assert_allclose(out.gravity, panda.gravity_torques(q2), atol=1e-12)


def test_nan_effort_keeps_gravity_and_pauses_estimation(panda):
    """joint_state_broadcaster sends NaN effort for a joint without an effort interface: the
    gravity torques keep flowing, the estimation pauses with the reason counted."""
    tau = held_torques(panda, Q, F_EXT)
    tau[2] = math.nan
    p = pipe(panda)
    for k in range(20):
        out = p.update(T0 + k * MS, Q, np.zeros(7), tau)
        assert out.refused is None
        np.testing.assert_allclose(out.gravity, panda.gravity_torques(Q), atol=1e-12)
        assert out.wrench is None and "no effort for joints ['panda_joint3']" in (
            out.estimation_paused
        )
    s = p.status()
    assert s["nonfinite_effort"] == 20 and s["estimation_paused"] == 20
    assert not s["stale_effort"]  # never had one: not a warning
    # NaN velocity: gravity still, no feed-forward without a reference, estimation paused
    qd = np.zeros(7)
    qd[4] = math.nan
    p = pipe(panda, velocity_timeout=0.0)
    out = p.update(T0, Q, qd, held_torques(panda, Q, F_EXT))
    assert out.gravity is not None and out.feedforward is None
    assert "no velocity for joints ['panda_joint5']" in out.estimation_paused
    assert p.status()["nonfinite_velocity"] == 1


def test_stale_effort_gives_no_phantom_wrench(panda):
    """A driver stops filling effort; the arm moves to a new pose: no wrench from the old
    efforts, a warning, and estimates again as soon as efforts come back."""
    p = pipe(panda, effort_timeout=0.1)
    tau = panda.gravity_torques(Q)
    feed(p, Q, np.zeros(7), tau, count=20)
    q_new = Q + 0.3
    outs = [p.update(T0 + (20 + k) * MS, q_new, np.zeros(7), None) for k in range(300)]
    late = outs[150:]
    assert all(o.wrench is None and o.external_torques is None for o in late)
    assert all("stale effort" in o.estimation_paused and o.warnings for o in late)
    s = p.status()
    assert s["stale_effort"] and "panda_joint1" in s["stale_effort_joints"]
    # efforts again: an estimate at once, the warning clears
    out = p.update(T0 + 400 * MS, q_new, np.zeros(7), held_torques(panda, q_new, F_EXT))
    np.testing.assert_allclose(out.wrench, sensor(panda, q_new, F_EXT), atol=1e-6)
    assert not p.status()["stale_effort"] and not out.warnings
    # effort_timeout 0: no age limit
    p = pipe(panda, effort_timeout=0.0, wrench_estimation="static")
    p.update(T0, Q, np.zeros(7), tau)
    out = p.update(T0 + 10**10, Q, np.zeros(7), None)
    assert out.wrench is not None


def test_effort_scale_and_offset(panda):
    """A driver reporting the torque with the other sign and a constant offset (or a current):
    tau = scale * effort + offset recovers the wrench."""
    tau = held_torques(panda, Q, F_EXT)
    scale = np.array([-1.0, -1.0, -1.0, -1.0, 2.0, 0.5, -1.0])
    offset = np.linspace(-0.5, 0.5, 7)
    effort = (tau - offset) / scale
    p = pipe(panda, effort_scale=tuple(scale), effort_offset=tuple(offset))
    out = feed(p, Q, np.zeros(7), effort)
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)
    unscaled = feed(pipe(panda), Q, np.zeros(7), effort)
    assert np.abs(unscaled.wrench - sensor(panda, Q, F_EXT)).max() > 1.0


# ------------------------------------------------------------------ plausibility, restarts
def test_plausibility_bounds_refuse_with_named_reason(panda):
    p = pipe(panda)
    tau = panda.gravity_torques(Q)
    limits = panda.effort_limits
    bad = tau.copy()
    bad[1] = 11 * limits[1]
    out = p.update(T0, Q, np.zeros(7), bad)
    assert out.refused and "effort of joint 'panda_joint2'" in out.refused
    assert out.gravity is None and out.command is None
    vel = np.zeros(7)
    vel[6] = 11 * panda.velocity_limits[6]
    out = p.update(T0 + MS, Q, vel, tau)
    assert "velocity of joint 'panda_joint7'" in out.refused
    pos = Q.copy()
    pos[5] = math.inf
    assert "position of joint 'panda_joint6' is not finite" in p.update(T0, pos, None, None).refused
    pos[5] = math.nan
    assert "position of joint 'panda_joint6'" in p.update(T0, pos, None, None).refused
    out = p.update(T0, Q[:3], None, None)
    assert "position has shape (3,)" in out.refused
    out = p.update(math.nan, Q, None, None)
    assert out.refused and "stamp" in out.refused
    out = p.update(T0, Q, None, None, present=[True] * 3)
    assert "present has shape (3,)" in out.refused
    s = p.status()
    assert s["refused"] == 7 and s["refused_effort"] == 1 and s["refused_velocity"] == 1
    assert s["refused_position"] == 3 and "present" in s["last_refusal"]
    # a factor of 20 accepts the same effort
    out = pipe(panda, effort_limit_factor=20.0).update(T0, Q, np.zeros(7), bad)
    assert out.refused is None


@pytest.mark.parametrize("absurd", [1e308, 1e150, 1e200])
def test_absurd_velocity_then_correct_at_once(panda, absurd):
    """One absurd velocity in a 1 kHz stream: refused, counted, and the estimate is correct on
    the very next valid sample (the observer restarts from the quasi-static estimate)."""
    tau = held_torques(panda, Q, F_EXT)
    expected = sensor(panda, Q, F_EXT)
    p = pipe(panda)
    feed(p, Q, np.zeros(7), tau, count=50)
    vel = np.zeros(7)
    vel[2] = absurd
    out = p.update(T0 + 50 * MS, Q, vel, tau)
    assert out.refused and "panda_joint3" in out.refused
    for k in range(51, 60):
        out = p.update(T0 + k * MS, Q, np.zeros(7), tau)
        np.testing.assert_allclose(out.wrench, expected, rtol=0, atol=1e-6)
    s = p.status()
    assert s["refused_velocity"] == 1 and s["observer_restarts"] == 2
    assert "refused" in s["last_restart"]


def test_absurd_effort_does_not_corrupt_the_estimate(panda):
    """1e200 effort on one joint, once: refused; the next estimates are exact (was: 10 s)."""
    tau = held_torques(panda, Q, F_EXT)
    p = pipe(panda)
    feed(p, Q, np.zeros(7), tau, count=20)
    bad = tau.copy()
    bad[4] = 1e200
    assert p.update(T0 + 20 * MS, Q, np.zeros(7), bad).refused
    out = p.update(T0 + 21 * MS, Q, np.zeros(7), tau)
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)


# ------------------------------------------------------------------ tare and reset
def test_tare_removes_a_constant_offset(panda):
    """Model error shows as a constant residual; the tare averages it and subtracts it."""
    model_error = np.linspace(-1.0, 1.0, 7)  # N m the URDF does not explain
    rest = panda.gravity_torques(Q) + model_error
    p = pipe(panda, tare_duration=0.1)
    out = feed(p, Q, np.zeros(7), rest, count=10)
    assert np.abs(out.wrench).max() > 0.5  # biased before the tare
    assert p.tare_state() == "idle" and p.bias is None
    p.start_tare(T0 + 10 * MS)
    assert p.tare_state() == "collecting"
    out = feed(p, Q, np.zeros(7), rest, start=T0 + 10 * MS, count=102)
    assert p.tare_state() == "done"
    np.testing.assert_allclose(p.bias, -model_error, atol=1e-9)
    np.testing.assert_allclose(out.wrench, 0.0, atol=1e-9)
    # a push after the tare reads without the offset
    pushed = held_torques(panda, Q, F_EXT) + model_error
    out = feed(p, Q, np.zeros(7), pushed, start=T0 + 200 * MS, count=300)  # observer: 1/K
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)
    assert p.status()["tare"] == "done"
    # reset_estimation clears the bias
    p.reset_estimation()
    assert p.bias is None and p.tare_state() == "idle"
    out = p.update(T0 + 600 * MS, Q, np.zeros(7), rest)
    assert np.abs(out.wrench).max() > 0.5
    assert p.status()["last_restart"] == "reset_estimation"


def test_tare_fails_without_estimates_and_reset_stops_it(panda):
    p = pipe(panda, tare_duration=0.05)
    p.start_tare(T0)
    for k in range(200):  # efforts never come
        p.update(T0 + k * MS, Q, np.zeros(7), None)
    assert p.tare_state().startswith("failed:") and "no effort" in p.tare_state()
    p.start_tare(T0 + 300 * MS)
    p.update(T0 + 300 * MS, Q, np.zeros(7), panda.gravity_torques(Q))
    p.reset_estimation()
    assert p.tare_state() == "failed: reset during the tare" and p.bias is None


# ------------------------------------------------------------------ contact detection
def push_profile(level_ms):
    """[(duration_ms, force magnitude)] -> per-ms force magnitudes."""
    return [f for duration, f in level_ms for _ in range(duration)]


def test_contact_hysteresis_and_min_duration(panda):
    """A push along the tool z axis: on above 5 N for 20 ms, off below 2 N for 20 ms; a spike
    shorter than min_duration and a dip between the levels change nothing."""
    R = panda.frame_pose(Q)[:3, :3]
    p = pipe(
        panda,
        wrench_estimation="static",
        contact={"force_on": 5.0, "force_off": 2.0, "min_duration": 0.02},
    )
    profile = push_profile(
        [(50, 0.0), (10, 8.0), (40, 0.0), (60, 8.0), (40, 3.0), (30, 1.0), (20, 0.0)]
    )
    states = []
    for k, magnitude in enumerate(profile):
        f_ext = np.r_[R @ np.array([0.0, 0.0, magnitude]), 0, 0, 0]
        out = p.update(T0 + k * MS, Q, np.zeros(7), held_torques(panda, Q, f_ext))
        states.append(out.contact)
    on = np.array([s.in_contact for s in states])
    changed = [k for k, s in enumerate(states) if s.changed]
    # the 10 ms spike at 50..59 is too short; the push from 100 on switches at 120
    assert not on[:120].any()
    assert changed == [120, 220]  # below 2 N from 200 on
    assert on[120:220].all()  # 3 N (between the levels) holds the contact
    assert not on[220:].any()
    assert states[150].link == "tool" and states[150].force == pytest.approx(8.0, abs=1e-6)
    assert states[240].link == ""
    s = p.status()
    assert s["contacts"] == 1 and not s["in_contact"]


def test_contact_isolates_the_link(panda):
    """Per-joint torque levels: a push on link 4 shows residual on joints 1..4 only; the most
    distal joint above its level names panda_link4; a push on the tool names panda_link7 (the
    body of joint 7: the tool is fixed to it)."""
    levels = tuple([0.5] * 7)
    p = pipe(
        panda,
        wrench_estimation="static",
        contact={"torque_on": levels, "torque_off": tuple([0.2] * 7), "min_duration": 0.0},
    )
    axis4 = panda.frame_pose(Q, frame="panda_link4")[:3, 2]  # joint 4 turns about z4
    f_link4 = np.r_[0.0, 20.0, -10.0, 5.0 * axis4]
    tau = held_torques(panda, Q, f_link4, frame="panda_link4")
    assert abs(panda.jacobian(Q, frame="panda_link4")[:, 3] @ f_link4) > 1.0
    out = p.update(T0, Q, np.zeros(7), tau)
    assert out.contact.in_contact and out.contact.changed and out.contact.link == "panda_link4"
    np.testing.assert_allclose(out.external_torques[4:], 0.0, atol=1e-9)
    out = p.update(T0 + MS, Q, np.zeros(7), held_torques(panda, Q, F_EXT * 5))
    assert out.contact.in_contact and out.contact.link == "panda_link7"
    out = p.update(T0 + 2 * MS, Q, np.zeros(7), panda.gravity_torques(Q))
    assert not out.contact.in_contact and out.contact.changed and out.contact.link == ""
    # contact detection off: no state
    assert pipe(panda).update(T0, Q, np.zeros(7), tau).contact is None


# ------------------------------------------------------------------ derived pipelines
def test_with_config_and_with_model_carry_the_state(panda, arm3):
    tau = held_torques(panda, Q, F_EXT)
    p = pipe(panda, wrench_estimation="static")
    p.update(T0, Q, np.zeros(7), tau)
    p.set_reference(T0, Q)
    p2 = p.with_config(PipelineConfig(wrench_estimation="static", wrench_frame="panda_link0"))
    assert p2.status()["messages"] == 1 and p2.status()["reference_active"]
    out = p2.update(T0 + MS, None, None, None)  # a message with nothing new
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT, "panda_link0"), atol=1e-7)
    p3 = p.with_model(panda.with_payload(1.0, [0, 0, 0.1]))
    assert not p3.status()["reference_active"]
    out = p3.update(T0 + 2 * MS, None, None, None)
    assert out.gravity is not None  # positions carried over by name
    p4 = p.with_model(arm3)
    assert p4.update(T0 + 3 * MS, None, None, None).missing_positions == (
        "yaw",
        "shoulder",
        "elbow",
    )


def test_filtered_differentiator_converges():
    d = FilteredDifferentiator(2, 0.01)
    for k in range(500):
        qdd = d.update(np.array([0.5, -1.0]) * k * 0.001, 0.001)
    np.testing.assert_allclose(qdd, [0.5, -1.0], rtol=1e-9)
    d.reset()
    assert not d.update(np.ones(2), 0.001).any()


def test_measured_state_and_with_model_config(panda, arm3):
    p = pipe(panda)
    present = np.array([True] * 3 + [False] * 4)
    p.update(T0, np.where(present, Q, math.nan), np.where(present, 0.5, math.nan), None, present)
    q, qd, effort = p.measured_state()
    np.testing.assert_array_equal(q[:3], Q[:3])
    assert np.isnan(q[3:]).all() and np.isnan(effort).all() and (qd[:3] == 0.5).all()
    q[:] = 0.0  # a copy
    assert p.measured_state()[0][0] == Q[0]
    p2 = p.with_model(panda.with_payload(1.0, [0, 0, 0.1]), PipelineConfig(effort_timeout=0.5))
    assert p2.config.effort_timeout == 0.5
    np.testing.assert_array_equal(p2.measured_state()[0][:3], Q[:3])
    with pytest.raises(InvalidInputError, match="effort_scale"):
        p.with_model(arm3, PipelineConfig(effort_scale=(1.0,) * 7))
    p.start_tare(T0)
    assert p.with_config(PipelineConfig()).tare_state().startswith("failed:")


def test_contact_during_a_simulated_push(arm3):
    """The observer on a simulated 3-DOF arm pushed from 0.2 s on: no contact before, one onset
    min_duration after the estimate crosses the level, held for the rest of the push."""
    q0 = np.array([0.3, -0.7, 1.1])
    f_ext = np.array([3.0, -4.0, 6.0, 0.0, 0.0, 0.0])  # |f| = 7.8 N
    p = pipe(arm3, observer_gain=100.0, contact={"force_on": 4.0, "force_off": 2.0})
    first_above = onset = None
    for t, q, qd, tau, pushed in simulate_push(arm3, q0, f_ext, "tool", 0.6):
        out = p.update(t, q, qd, tau)
        if not pushed:
            assert not out.contact.in_contact
        if first_above is None and out.contact.force > 4.0:
            first_above = t
        if out.contact.changed:
            assert onset is None, "one onset only"
            onset = t
            assert out.contact.in_contact and out.contact.link == "tool"
    assert first_above is not None and onset - first_above == 20 * MS  # min_duration 0.02 s
    assert out.contact.in_contact and p.status()["contacts"] == 1
