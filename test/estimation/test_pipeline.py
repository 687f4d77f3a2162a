"""The estimation pipeline (robot_dynamics.estimation) with plain pytest: its configuration
checks, the wrench by the static estimator (in any frame, force-only on a 3-DOF arm, near a
singularity) and by the momentum observer (simulated pushes, known motions, the differentiated
acceleration), sample stamps, and the pipelines derived with another config or model; on ground
truth constructed with the core.

Efforts are what the motors measure: ``tau = M qdd + C qd + g - J^T f_ext`` (the core's
convention, ``f_ext`` applied by the environment on the robot, base axes, moment about the frame
origin); the pipeline reports ``f_ext`` as a force-torque sensor at ``wrench_frame`` reads it.
"""

import math

import numpy as np
import pytest

import robot_urdfs
from pipeline_helpers import F_EXT, MS, Q, T0, feed, held_torques, pipe, sensor, simulate_push

from robot_dynamics import RobotModel
from robot_dynamics.core import InvalidInputError
from robot_dynamics.estimation import (
    ContactConfig,
    EstimationPipeline,
    FilteredDifferentiator,
    PipelineConfig,
)


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
        ("effort_scale", (1.0,) * 6 + (0.0,), r"^effort_scale: entries \[6\] are 0; a scale must"),
        ("effort_offset", (0.0,) * 6 + (math.inf,), "panda_joint7"),
        ("contact", ContactConfig(torque_on=(1.0,) * 7, torque_off=(2.0,) * 7), "torque_off"),
        ("contact", ContactConfig(torque_on=(1.0,) * 6 + (0.0,)), "panda_joint7"),
        ("contact", ContactConfig(force_on=1.0, force_off=2.0), "force_off"),
        (
            "contact",
            ContactConfig(torque_off=(1.0,) * 7),
            "^contact.torque_off is given without contact.torque_on: give both, or neither",
        ),
        (
            "effort_offset",
            (0.0,) * 6 + (math.nan,),
            "^effort_offset of joint 'panda_joint7' must be",
        ),
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
    # a six-joint tree whose tip three joints move: the force, as on a three-joint arm
    tree = RobotModel.from_urdf_string(robot_urdfs.YTREE6_URDF, tip_link="left_l3")
    assert tree.n == 6 and pipe(tree).wrench_components == ("fx", "fy", "fz")


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
    """A pure 10 N push on a 3-DOF arm reads exactly as a force."""
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
    for k in range(3):  # put there 1 s later: a jump that stays, taken at its third message
        out = p.update(T0 + 10**9 + k * MS, Q, np.zeros(7), panda.gravity_torques(Q))
    assert not out.near_singular and not p.status()["near_singular"]


# ------------------------------------------------------------------ momentum observer
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
    # a gap beyond observer_max_dt restarts; at rest the restart is right at once. It is a jump
    # (a pause, a clock step), not a count of lost messages
    out = p.update(T0 + 2 * 10**9, Q, np.zeros(7), tau)
    s = p.status()
    assert s["observer_restarts"] == 2 and "gap of" in s["last_restart"]
    assert s["stamp_jumps"] == 1 and (s["stamp_gaps"], s["skipped_messages"]) == (1, 3)
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
    # the clock steps an hour ahead: one jump, no message counted lost
    for k in range(10):
        p.update(T0 + 10**9 + (k + 2) * MS, Q, np.zeros(7), tau)
    out = p.update(T0 + 3601 * 10**9, Q, np.zeros(7), tau)
    s = p.status()
    assert s["stamp_jumps"] == 2 and (s["stamp_gaps"], s["skipped_messages"]) == (1, 3)
    assert s["observer_restarts"] == 4 and out.wrench is not None


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


def test_a_new_configuration_on_a_moving_arm_reports_no_phantom(panda):
    """Nothing touches an accelerating arm while its configuration changes (another observer
    gain, then contact levels): the estimate goes on from where it was, never the quasi-static
    restart's -M qdd (several N m); a new model with the same joints likewise."""
    p = pipe(panda, observer_gain=50.0)
    w = np.linspace(2.0, 3.5, 7)
    worst = 0.0
    for k in range(900):
        t = 0.4 + k * 1e-3
        q, qd, qdd = Q + 0.5 * np.sin(w * t), 0.5 * w * np.cos(w * t), -0.5 * w * w * np.sin(w * t)
        if k == 300:
            p = p.with_config(PipelineConfig(observer_gain=80.0))
        elif k == 600:
            p = p.with_model(panda.with_payload(0.0, [0.0, 0.0, 0.0]), p.config)
        out = p.update(T0 + k * MS, q, qd, panda.inverse_dynamics(q, qd, qdd))
        worst = max(worst, float(np.max(np.abs(out.external_torques))))
        if k == 300:
            assert np.max(np.abs(panda.mass_matrix(q) @ qdd)) > 2.0  # the phantom avoided
    assert p.status()["observer_restarts"] == 3
    assert worst < 0.05, worst


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
