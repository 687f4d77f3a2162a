"""Whether a joint's efforts are a measurement: a joint whose driver reports one constant value
(a gripper's 0) while the arm's efforts vary is named, with the fix; an arm whose efforts are all
constant, or vary only by a simulation's arithmetic (a simulation at rest), names none, unless
they are all exactly 0."""

import numpy as np

from robot_dynamics.core.effort_measurement import (
    NO_EFFORT,
    constant_efforts,
    constant_efforts_text,
    effort_reason,
    nothing_measured,
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
