"""Whether a joint's efforts are a measurement: a joint whose driver reports one constant value
(a gripper's 0) while the arm's efforts vary is named, with the fix; an arm whose efforts are all
constant, or vary only by a simulation's arithmetic (a simulation at rest), names none, unless
they are all exactly 0.

Whether they are in the model's unit and sign, on torques built from a nominal model's with
ground truth (masses 10-30 % off, what the model misses, friction, offsets, noise): one scale on
every joint, a joint of the other sign where the nominal torques explain less than half of its
torque, and no finding where the nominal model misses most of a joint's torque."""

import numpy as np
import pytest

from robot_dynamics.core.effort_measurement import (
    NO_EFFORT,
    SCALE_MIN_R2,
    constant_efforts,
    constant_efforts_text,
    effort_reason,
    effort_scale_finding,
    model_torque_ratios,
    nothing_measured,
    suggested_effort_scale,
    unjudged_text,
)

NAMES = ("shoulder", "elbow", "finger")


def _efforts(rng, k=200):
    """k samples: the arm's two efforts vary (noise), the finger's column to be set."""
    effort = np.zeros((k, 3))
    effort[:, :2] = [12.0, -3.0] + rng.normal(scale=0.05, size=(k, 2))
    return effort


def test_a_constant_effort_beside_varying_ones_is_named(rng):
    effort = _efforts(rng)
    assert constant_efforts(NAMES, effort) == (("finger", "effort exactly 0 in every sample"),)
    effort[:, 2] = 0.25
    effort[::7, 2] = np.nan  # messages that do not carry it
    assert constant_efforts(NAMES, effort, "message") == (
        ("finger", "effort constant (0.25) in every message"),
    )


def test_varying_efforts_and_missing_ones_name_none(rng):
    effort = _efforts(rng)
    effort[:, 2] = rng.normal(size=len(effort))
    assert constant_efforts(NAMES, effort) == ()
    effort[:, 2] = np.nan  # no effort at all: the estimation pauses for it, not this
    assert effort_reason(effort[:, 2]) == NO_EFFORT
    assert constant_efforts(NAMES, effort) == ()


def test_all_constant_names_none_unless_all_are_exactly_0():
    at_rest = np.tile([12.0, -3.0, 0.0], (200, 1))  # a simulated arm holding still
    assert constant_efforts(NAMES, at_rest) == ()
    zeros = np.zeros((200, 3))  # a driver that reports no effort at all
    assert [name for name, _ in constant_efforts(NAMES, zeros)] == list(NAMES)
    assert nothing_measured(constant_efforts(NAMES, zeros), 3)
    finger = _efforts(np.random.default_rng(1))
    assert not nothing_measured(constant_efforts(NAMES, finger), 3)


def test_an_arm_held_still_in_a_simulation_names_none(rng):
    """Efforts constant on some joints and varying by the simulation's arithmetic (1e-6 N m)
    on others: nothing is measured to vary, no joint is named; a varying measurement (noise of
    1e-3 N m) names the constant ones."""
    held = np.tile([12.0, -3.0, 0.5], (200, 1))
    held[:, 1] += 1e-6 * np.sin(np.arange(200))
    assert constant_efforts(NAMES, held) == ()
    held[:, 1] += rng.normal(scale=1e-3, size=200)
    assert [name for name, _ in constant_efforts(NAMES, held)] == ["shoulder", "finger"]


def test_the_text_names_each_joint_and_the_fix():
    text = constant_efforts_text([("finger", "effort exactly 0 in every message")], 3)
    assert "finger: effort exactly 0 in every message" in text
    assert "locked_joints" in text
    # every joint: no joint to lock, the driver measures nothing (or the arm is off)
    zero = "effort exactly 0 in every message"
    text = constant_efforts_text([(name, zero) for name in NAMES], 3)
    assert text.startswith(f"no joint's effort is a measurement ({zero}, for every joint)")
    assert "not powered" in text and "locked_joints" not in text


ARM = ("shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3")
V_EPS = 0.01  # [rad/s]


def _waves(t, freqs, rng, n):
    """(len(t), n) sums of unit sinusoids at ``freqs`` [Hz] with random phases, RMS 1 (whole
    periods over t: waves at different frequencies are orthogonal)."""
    phase = rng.uniform(0.0, 2.0 * np.pi, (len(freqs), n))
    wave = np.sin(
        2.0 * np.pi * np.asarray(freqs)[:, None, None] * t[None, :, None] + phase[:, None]
    )
    return wave.sum(axis=0) * np.sqrt(2.0 / len(freqs))


def _arm_torques(
    rng, error=(1.2, 0.85, 1.25, 1.1, 0.9, -2.0), missed=(0.1, 0.1, 0.1, 1.2, 1.2, 3.0)
):
    """A recording of a 6-joint arm against its nominal model, 20 s at 100 Hz.

    Per joint: the nominal torque ``g`` (RMS of a UR5's: 5, 40, 9, 0.7, 0.8, 0.05 N m), the
    true torque ``error g + m`` (``m`` what the model misses, a payload, RMS ``missed`` times
    g's, orthogonal to it) plus viscous and Coulomb friction, an offset and 0.05 N m of noise.
    The default: masses 10-30 % off, the wrists' torques mostly missed (the nominal torques
    explain less than half of them), wrist_3's nominal torque tiny and the measured one
    anti-correlated with it by chance (twice its size, 29 % of the variation).

    Returns:
        tuple: ``(qd, nominal, tau)``, each (2000, 6) [rad/s, N m, N m].
    """
    n = len(ARM)
    t = np.arange(2000) / 100.0
    size = np.array([5.0, 40.0, 9.0, 0.7, 0.8, 0.05])
    qd = 1.5 * _waves(t, [0.1], rng, n)  # friction's harmonics: odd multiples of 0.1 Hz
    nominal = size * _waves(t, [0.35, 0.55, 0.85], rng, n)
    missed = np.asarray(missed) * size * _waves(t, [0.45, 0.75, 1.15], rng, n)
    friction = rng.uniform(0.3, 2.0, n) * qd + rng.uniform(0.5, 3.0, n) * np.tanh(qd / V_EPS)
    offset = rng.uniform(-2.0, 2.0, n)
    tau = np.asarray(error) * nominal + missed + friction + offset
    return qd, nominal, tau + rng.normal(scale=0.05, size=tau.shape)


def _finding(qd, nominal, tau):
    scales = model_torque_ratios(tau, nominal, qd, np.ones(len(ARM), bool), V_EPS)
    return scales, effort_scale_finding(scales)


def test_an_effort_of_the_other_sign_is_named_where_its_size_is_not_judged(rng):
    """wrist_2's nominal torques explain about a third of its torque (a payload the URDF
    lacks): too little to judge its size, but its effort negated is named as of the other
    sign; as measured, nothing is found (the wrists are not judged)."""
    qd, nominal, tau = _arm_torques(rng)
    scales, clean = _finding(qd, nominal, tau)
    assert not clean.found and clean.unjudged == [3, 4, 5], clean
    assert np.isnan(clean.ratios[3:]).all()
    tau[:, 4] = -tau[:, 4]
    scales, finding = _finding(qd, nominal, tau)
    assert scales.share[4] < SCALE_MIN_R2, scales
    assert finding.found and finding.other_sign == [4], finding
    assert finding.common is None and finding.bad == [] and finding.unjudged == [3, 5]
    assert finding.ratios[4] == pytest.approx(-0.9, rel=0.1)
    np.testing.assert_array_equal(suggested_effort_scale(finding), [1, 1, 1, 1, -1, 1])


def test_a_model_that_misses_most_of_a_joints_torque_judges_neither_sign(rng):
    """wrist_3's measured torque anti-correlated with a nominal torque a fifth of its size
    (29 % of the variation): the nominal negated fits no better than by chance, no finding;
    its effort negated is none either."""
    qd, nominal, tau = _arm_torques(rng)
    scales, finding = _finding(qd, nominal, tau)
    assert scales.ratio[5] < 0 and 0.2 < scales.share[5] < SCALE_MIN_R2, scales
    assert not finding.found and 5 in finding.unjudged
    tau[:, 5] = -tau[:, 5]
    assert not _finding(qd, nominal, tau)[1].found


def test_currents_with_one_joint_of_the_other_sign_name_it_and_the_joints_not_judged(rng):
    """Motor currents (torque per unit 12.6 on the big joints, 9.3 on the wrists, -9.3 on
    wrist_2, wired backwards): one scale, from the big joints; wrist_2 of the other sign; the
    suggested scales negative for it alone; wrist_1 and wrist_3 not judged, and said so."""
    qd, nominal, tau = _arm_torques(rng)
    per_unit = np.array([12.6, 12.6, 12.6, 9.3, -9.3, 9.3])
    scales, finding = _finding(qd, nominal, tau / per_unit)
    assert finding.common == pytest.approx(1.2 / 12.6, rel=0.1), finding
    assert finding.other_sign == [4] and finding.unjudged == [3, 5] and finding.bad == []
    suggested = suggested_effort_scale(finding)
    np.testing.assert_allclose(suggested, np.sign(per_unit) / finding.common)
    np.testing.assert_allclose(
        suggested_effort_scale(finding, np.full(6, 2.0)), 2.0 * suggested, rtol=1e-12
    )
    text = unjudged_text(ARM, finding, "the nominal model's")
    assert text.startswith("not judged: wrist_1, wrist_3 (the nominal model's torques")
    assert "neither their scale nor their sign" in text


def test_a_negative_scale_judged_in_size_is_of_the_other_sign_and_out_of_size_too(rng):
    """shoulder_lift negated: of the other sign, not out of size; its current (x-1/10): both,
    the suggested scale 1 / its ratio."""
    qd, nominal, tau = _arm_torques(rng)
    tau[:, 1] = -tau[:, 1]
    finding = _finding(qd, nominal, tau)[1]
    assert finding.other_sign == [1] and finding.bad == [] and finding.common is None
    assert finding.ratios[1] == pytest.approx(-0.85, rel=0.05)
    tau[:, 1] /= 10.0
    finding = _finding(qd, nominal, tau)[1]
    assert finding.other_sign == [1] and finding.bad == [1]
    assert suggested_effort_scale(finding)[1] == pytest.approx(1.0 / finding.ratios[1])
    assert suggested_effort_scale(finding)[1] == pytest.approx(-1.0 / 0.085, rel=0.05)
