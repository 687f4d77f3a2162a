"""The estimation pipeline's outputs for control, with plain pytest: feed-forward torques from
the measured state or a reference (and its expiry), references refused naming the field and
joint, friction compensation through the smooth sign (none at rest), the effort command's sources
and clamping,
and the last guard that withholds non-finite outputs.
"""

import math
import re
from unittest import mock

import numpy as np
import pytest

from pipeline_helpers import MS, PANDA_URDF, Q, T0, pipe

from robot_dynamics import RobotModel
from robot_dynamics.core import InvalidInputError, StateTerms
from robot_dynamics.core.friction import FrictionModel


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
    assert p0.has_reference
    p0.clear_reference()
    assert not p0.has_reference
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


def test_friction_compensation_at_rest(panda):
    # the arm at rest, its driver's velocities a +-9 mrad/s ripple: with friction_rest_velocity
    # above the ripple, the feed-forward and the estimate have no friction (friction at rest is
    # static), where the smooth sign would chatter by most of the Coulomb level; as soon as one
    # joint moves, the whole model on every joint
    model = panda.with_friction(FrictionModel(np.full(7, 0.5), np.full(7, 2.0)))
    options = dict(
        friction_compensation=True, wrench_estimation="static", command_source="feedforward"
    )
    gated, plain = pipe(model, friction_rest_velocity=0.012, **options), pipe(model, **options)
    rng = np.random.default_rng(3)
    tau = model.gravity_torques(Q)  # held still: gravity, nothing static in friction
    for k in range(20):
        qd = 0.009 * np.sin(2 * np.pi * 15.0 * k * MS + rng.uniform(0, 6.3, 7))
        nle = model.inverse_dynamics(Q, qd, np.zeros(7))
        out = gated.update(T0 + k * MS, Q, qd, tau)
        np.testing.assert_allclose(out.feedforward, nle, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(out.command, out.feedforward)
        np.testing.assert_allclose(out.external_torques, nle - tau, rtol=0, atol=1e-12)
        chatter = plain.update(T0 + k * MS, Q, qd, tau).feedforward - nle
        np.testing.assert_allclose(chatter, model.friction_torques(qd, 0.01), atol=1e-12)
    assert np.abs(chatter).max() > 0.5
    qd[2] = 0.05  # one joint moves
    out = gated.update(T0 + 20 * MS, Q, qd, tau)
    friction = model.friction_torques(qd, 0.01)
    np.testing.assert_allclose(
        out.feedforward, model.inverse_dynamics(Q, qd, np.zeros(7)) + friction, atol=1e-12
    )
    # a reference's velocities are no measurement: its feed-forward has the friction
    gated.set_reference(T0, Q, np.full(7, 0.005))
    out = gated.update(T0 + 21 * MS, Q, np.zeros(7), tau)
    expected = model.inverse_dynamics(Q, np.full(7, 0.005), np.zeros(7))
    np.testing.assert_allclose(
        out.feedforward, expected + model.friction_torques(np.full(7, 0.005), 0.01), atol=1e-12
    )


def test_command_clamp_at_the_limit_and_without_one():
    """A command at its joint's limit passes as it is; beyond it, the limit; a joint whose URDF
    effort limit is 0 or missing is not clamped (and its efforts not bounded): the pipeline
    names those joints."""
    with open(PANDA_URDF) as f:
        text = f.read()
    text = text.replace('effort="87.0" velocity="2.175"/>', 'effort="0" velocity="2.175"/>', 1)
    text = re.sub(r'(<joint name="panda_joint2".*?)<limit [^>]*/>', r"\1", text, 1, re.S)
    model = RobotModel.from_urdf_string(text)
    limits = model.effort_limits
    assert limits[0] == limits[1] == np.inf and np.isfinite(limits[2:]).all()
    assert [(w.joint, w.rule) for w in model.joint_warnings] == [
        ("panda_joint1", "zero_limit"),
        ("panda_joint2", "missing_limit"),
    ]
    q_ref, qd_ref = Q + 0.1, np.full(7, 0.2)
    qdd_ref = np.linspace(300.0, -300.0, 7)
    raw = model.inverse_dynamics(q_ref, qd_ref, qdd_ref)
    assert np.all(np.abs(raw[:2]) > 87.0) and np.any(np.abs(raw[2:]) > limits[2:])
    p = pipe(model, command_source="feedforward")
    assert p.unclamped_joints == ("panda_joint1", "panda_joint2")
    assert pipe(model, clamp_effort_command=False).unclamped_joints == ()
    p.set_reference(T0, q_ref, qd_ref, qdd_ref)
    effort = np.r_[1e4, -1e4, np.zeros(5)]  # far beyond 10 x 87 N m, on the unbounded joints
    out = p.update(T0, Q, np.zeros(7), effort)
    assert not out.refused
    np.testing.assert_array_equal(out.command[:2], raw[:2])
    np.testing.assert_array_equal(out.command[2:], np.clip(raw[2:], -limits[2:], limits[2:]))
    # exactly at the limits: the values as they are
    at_limit = RobotModel.from_urdf_string(text).inverse_dynamics(Q, np.zeros(7), np.zeros(7))
    edge = text
    for name, value in zip(model.joint_names[2:], at_limit[2:]):
        edge = re.sub(
            rf'(<joint name="{name}".*?<limit [^>]*effort=")[^"]*"',
            rf'\g<1>{abs(float(value))!r}"',
            edge,
            1,
            re.S,
        )
    p = pipe(RobotModel.from_urdf_string(edge))
    out = p.update(T0, Q, None, None)
    np.testing.assert_allclose(out.command, at_limit, rtol=0, atol=1e-12)


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
