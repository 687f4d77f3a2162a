"""Choosing the friction model and the torque offsets per joint (core/friction_identification.py)
and identifying them, on a synthetic recording of a perturbed Panda made as a real one is: a 1 kHz
logger with stamp jitter, 5 % repeated samples and 8 ms gaps, torque noise, a 15 Hz ripple on the
measured velocity, torque offsets, and per joint a different friction: viscous + Coulomb,
asymmetric, asymmetric + Stribeck, symmetric Stribeck."""

import numpy as np
import pytest

from core_helpers import load_model, perturbed_inertials
from robot_dynamics.core import InvalidInputError
from robot_dynamics.core.friction import FrictionModel
from robot_dynamics.core.friction_identification import (
    FRICTION_MODELS,
    select_model,
)
from robot_dynamics.core.identification import (
    IdentificationError,
    apply_parameters,
    correlation_time,
    identify,
)
from robot_dynamics.core.joint_data import JointData, JointSamples, prepare
from robot_dynamics.core.regressor import ParameterLayout

# the truth, per joint of the Panda
VISCOUS = np.array([0.5, 0.6, 0.4, 0.5, 0.2, 0.2, 0.1])
COULOMB = np.array([0.8, 1.0, 0.7, 0.8, 0.4, 0.4, 0.3])
ASYMMETRY = np.array([0.0, 0.0, 0.3, -0.3, 0.15, 0.0, 0.0])
STRIBECK = np.array([0.0, 0.0, 0.0, 0.0, 0.3, 0.3, 0.0])
STRIBECK_VELOCITY = np.array([0.1, 0.1, 0.1, 0.1, 0.08, 0.15, 0.1])
OFFSET = np.array([-0.17, -0.2, 0.1, 0.0, 0.0, 0.07, 0.0])
EXPECTED = (
    "viscous_coulomb",
    "viscous_coulomb",
    "asymmetric",
    "asymmetric",
    "stribeck",  # asymmetric + Stribeck
    "stribeck",  # symmetric Stribeck: the Stribeck model (its asymmetry comes out ~0)
    "viscous_coulomb",
)
NOISE = 0.05  # [N m] torque noise of each 1 kHz sample
RIPPLE = 0.01  # [rad/s] amplitude of the 15 Hz ripple on the measured velocity


def perturbed(model, rng):
    layout = ParameterLayout.for_model(model, viscous=False, coulomb=False)
    inertials = perturbed_inertials(model, rng, scale=(0.85, 1.2), com=0.02, added_mass=0.05)
    friction = FrictionModel(VISCOUS, COULOMB, ASYMMETRY, STRIBECK, STRIBECK_VELOCITY)
    return apply_parameters(model, layout, inertials).with_friction(friction)


def recording(model, truth, rng, duration=40.0):
    """A 1 kHz run: 2 s at rest, a sum of four sines per joint faded in and out, 2 s at rest;
    logged with jitter, repeats and gaps."""
    n = model.n
    t = np.arange(0.0, duration, 0.001)
    env = np.clip((t - 2.0) / 3.0, 0, 1) * np.clip((duration - 2.0 - t) / 3.0, 0, 1)
    env = env**2 * (3 - 2 * env)
    q = np.zeros((t.size, n))
    for h in range(1, 5):
        q += (
            rng.normal(size=n)
            * 0.25
            / h
            * np.sin(2 * np.pi * 0.1 * h * t[:, None] + rng.uniform(0, 6.3, n))
        )
    q -= q[0]
    lo, hi = model.position_limits
    q = (lo + hi) / 2 + 0.3 * (hi - lo) / np.abs(q).max(axis=0) * q * env[:, None]
    qd = np.gradient(q, 0.001, axis=0)
    qdd = np.gradient(qd, 0.001, axis=0)
    tau = truth.inverse_dynamics(q, qd, qdd) + truth.friction_torques(qd) + OFFSET
    tau = tau + NOISE * rng.normal(size=tau.shape)
    qd_measured = (
        qd + RIPPLE * np.sin(2 * np.pi * 15.0 * t)[:, None] + 0.002 * rng.normal(size=qd.shape)
    )
    keep = np.ones(t.size, bool)
    for start in rng.choice(t.size - 20, size=int(duration / 2), replace=False):
        keep[start : start + 8] = False  # 8 ms gaps, one every 2 s
    source = np.arange(t.size)
    repeated = rng.random(t.size) < 0.05  # the logger read the same cycle twice
    source[repeated] = np.maximum(source[repeated] - 1, 0)
    stamps = t + np.abs(rng.normal(0.0005, 0.0003, t.size))  # logging PC's stamps
    samples = JointSamples(
        stamps[keep], q[source][keep], qd_measured[source][keep], tau[source][keep]
    )
    return prepare(samples, filter_window=0.2, rate=100.0)


@pytest.fixture(scope="module")
def panda_run():
    rng = np.random.default_rng(5)
    model = load_model("bundled_panda")
    truth = perturbed(model, rng)
    data = recording(model, truth, rng)
    train, test = data.split(0.25)
    selection = select_model(model, train, test)
    result = identify(
        model, train.q, train.qd, train.qdd, train.tau, layout=selection.layout,
        smooth=train.smoothed,
    )  # fmt: skip
    return model, truth, train, test, selection, result


def test_the_simplest_supported_model_is_chosen_per_joint(panda_run):
    model, truth, train, test, selection, result = panda_run
    assert selection.friction == EXPECTED
    assert selection.held_out
    # an offset where the truth has one (the shoulder's, joint 2, trades with the gravity
    # parameters when the arm rests at one pose only: on some runs the held-out data cannot
    # tell it); elsewhere it is not chosen or comes out ~0 (the next test)
    assert np.all(selection.offset[[0, 2, 5]])
    # the evidence: every chosen richer model removed >= 10 % of the held-out mean square
    plain = selection.best_rms("viscous_coulomb")
    asymmetric = selection.best_rms("asymmetric")
    for k, chosen in enumerate(selection.friction):
        if chosen == "asymmetric":
            assert asymmetric[k] ** 2 < 0.9 * plain[k] ** 2
        if chosen == "stribeck":
            assert selection.best_rms("stribeck")[k] ** 2 < 0.9 * min(plain[k], asymmetric[k]) ** 2
    labels = [c.label for c in selection.candidates]
    assert labels[:3] == ["viscous_coulomb", "viscous_coulomb + offsets", "asymmetric + offsets"]
    assert all(not c.error for c in selection.candidates)


def test_the_fit_recovers_offsets_and_friction(panda_run):
    model, truth, train, test, selection, result = panda_run
    friction = result.friction_model(model)
    # tolerances: 0.05 N m on the levels (the torque noise of one sample), 0.05 N m s/rad
    np.testing.assert_allclose(friction.viscous, VISCOUS, atol=0.05)
    np.testing.assert_allclose(friction.coulomb, COULOMB, atol=0.05)
    np.testing.assert_allclose(friction.asymmetry, ASYMMETRY, atol=0.05)
    # Stribeck: the level to 0.1 N m, its velocity to a factor 1.5 where it exists
    np.testing.assert_allclose(friction.stribeck, STRIBECK, atol=0.1)
    on = STRIBECK > 0
    ratio = friction.stribeck_velocity[on] / STRIBECK_VELOCITY[on]
    assert np.all((ratio > 1 / 1.5) & (ratio < 1.5)), friction.stribeck_velocity
    # at the bound exactly 0: no Stribeck where the model has none
    assert np.all(friction.stribeck[~on] == 0.0)
    # offsets: within 3 standard errors (honest ones: the residuals' correlation counted) or
    # 0.05 N m. The shoulder's (joint 2) trades with the gravity parameters when the arm rests
    # at one pose only: its standard error says so (~0.15 N m), the others' are < 0.03 N m
    offset, std = result.group("offset"), result.group_std("offset")
    chosen = selection.offset
    assert np.all(np.abs(offset - OFFSET)[chosen] <= np.maximum(0.05, 3 * std[chosen]))
    assert np.all(std[chosen] < 0.2) and np.all(offset[~chosen] == 0.0)
    assert np.sum(std[chosen] < 0.03) >= 4
    # the friction curves over the velocities of the run, forward and backward
    v = np.concatenate([-np.geomspace(1.0, 0.02, 50), np.geomspace(0.02, 1.0, 50)])[:, None]
    error = friction.torques(v * np.ones(model.n)) - truth.friction.torques(v * np.ones(model.n))
    assert np.abs(error).max() < 0.1, np.abs(error).max(axis=0)


def test_the_identified_model_predicts_the_held_out_torques(panda_run):
    model, truth, train, test, selection, result = panda_run
    identified = result.apply(model)
    predicted = (
        identified.inverse_dynamics(test.q, test.qd, test.qdd)
        + test.smoothed(identified.friction_torques(test.qd))
        + result.group("offset")
    )
    rms = np.sqrt(np.mean((test.tau - predicted) ** 2, axis=0))
    plain = selection.candidates[0].rms  # viscous + Coulomb, no offsets
    assert np.all(rms < plain), (rms, plain)
    assert np.all(rms < 0.2), rms


def _joint_data(q, qd, qdd, tau):
    return JointData(np.arange(len(q)) * 0.01, q, qd, qdd, tau, 0, len(q), "message", (), 100.0)


def test_fixed_choices_and_data_that_cannot_tell_asymmetry_from_an_offset(rng):
    model = load_model("mixed")
    n = model.n
    t = np.arange(0.0, 20.0, 0.01)[:, None]
    w = 2 * np.pi * 0.2 * np.arange(1, n + 1)
    # always moving forward: smooth_sign(qd) = 1, the Coulomb, asymmetry and offset columns are
    # one
    q = 0.5 * t + 0.1 * np.sin(w * t)
    qd = 0.5 + 0.1 * w * np.cos(w * t)
    qdd = -0.1 * w**2 * np.sin(w * t)
    truth = model.with_friction(FrictionModel(np.full(n, 0.2), np.full(n, 0.5)))
    tau = (
        truth.inverse_dynamics(q, qd, qdd)
        + truth.friction_torques(qd)
        + 0.01 * rng.normal(size=q.shape)
    )
    data = _joint_data(q, qd, qdd, tau)
    train, test = data.split(0.3)
    selection = select_model(model, train, test)
    asymmetric = [c for c in selection.candidates if "asymmetric" in c.friction]
    assert asymmetric and all("condition number" in c.error for c in asymmetric)
    assert selection.friction == ("viscous_coulomb",) * n and not selection.offset.any()
    fixed = select_model(model, train, None, friction="viscous_coulomb", offset=False)
    assert not fixed.held_out and fixed.layout.groups == ("viscous", "coulomb")
    with pytest.raises(IdentificationError, match="needs held-out data"):
        select_model(model, train, None)
    with pytest.raises(InvalidInputError, match="friction model must be"):
        select_model(model, train, test, friction="sticky")
    with pytest.raises(InvalidInputError, match="offset must be"):
        select_model(model, train, test, offset="yes")
    with pytest.raises(InvalidInputError, match="stribeck_velocities"):
        select_model(model, train, test, stribeck_velocities=[0.1, -1.0])
    assert FRICTION_MODELS == ("viscous_coulomb", "asymmetric", "stribeck")


def test_correlation_time_of_white_and_smoothed_residuals(rng):
    white = rng.normal(size=(20000, 2))
    assert correlation_time(white) == pytest.approx(1.0, abs=0.15)
    # a moving average of 9 samples: an independent sample every 9
    kernel = np.ones(9) / 9
    smooth = np.column_stack([np.convolve(white[:, k], kernel, "same") for k in range(2)])
    assert correlation_time(smooth) == pytest.approx(9.0, rel=0.15)
