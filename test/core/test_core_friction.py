"""Joint friction (core/friction.py): the smooth sign and the per-joint friction model
(viscous, Coulomb, asymmetry, Stribeck), the one definition the model, the momentum observer,
the estimation pipeline and the identification regressor share."""

import numpy as np
import pytest

from robot_dynamics.core import InvalidInputError, MomentumObserver
from robot_dynamics.core.friction import (
    DEFAULT_STRIBECK_VELOCITY,
    DEFAULT_VELOCITY_THRESHOLD,
    FRICTION_TERMS,
    FrictionModel,
    friction_basis,
    smooth_sign,
)

from core_helpers import load_model


def test_smooth_sign_is_tanh_and_exact_sign_at_zero_threshold(rng):
    v = rng.normal(scale=0.05, size=(4, 3))
    np.testing.assert_allclose(smooth_sign(v, 0.02), np.tanh(v / 0.02), rtol=0, atol=0)
    np.testing.assert_array_equal(smooth_sign(v, 0.0), np.sign(v))
    assert smooth_sign(0.0, 0.01) == 0.0
    # odd, bounded, saturates far from zero, slope 1 / v_eps at zero
    np.testing.assert_array_equal(smooth_sign(-v, 0.02), -smooth_sign(v, 0.02))
    assert smooth_sign(1e308, 0.01) == 1.0 and smooth_sign(-np.inf, 0.01) == -1.0
    h = 1e-7
    assert smooth_sign(h, 0.01) / h == pytest.approx(100.0, rel=1e-9)
    assert DEFAULT_VELOCITY_THRESHOLD == 0.01


def test_smooth_sign_per_joint_thresholds_mix_zero_and_positive():
    v = np.array([[0.01, -0.01, 0.02], [-1.0, 0.0, 1e-3]])
    eps = np.array([0.01, 0.0, 0.02])
    expected = np.stack([np.tanh(v[:, 0] / 0.01), np.sign(v[:, 1]), np.tanh(v[:, 2] / 0.02)], -1)
    np.testing.assert_array_equal(smooth_sign(v, eps), expected)


@pytest.mark.parametrize("bad", [-0.1, np.nan, np.inf, [[0.1]], "x"])
def test_smooth_sign_refuses_bad_thresholds(bad):
    with pytest.raises(InvalidInputError, match="velocity_threshold"):
        smooth_sign(np.ones(3), bad)


def test_model_friction_is_its_friction_model(rng):
    m = load_model("mixed")
    m = m.with_friction(FrictionModel(np.full(m.n, 0.3), np.full(m.n, 0.7)))
    qd = rng.normal(scale=0.02, size=(5, m.n))
    expected = 0.3 * qd + 0.7 * np.tanh(qd / 0.004)
    np.testing.assert_allclose(m.friction_torques(qd, 0.004), expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(m.friction.torques(qd, 0.004), expected, rtol=0, atol=1e-15)
    assert m.friction.joint_names == m.joint_names
    with pytest.raises(InvalidInputError, match="velocity_threshold"):
        m.friction_torques(qd, velocity_threshold=[0.1, 0.2])


def test_asymmetric_stribeck_friction_closed_form(rng):
    n = 3
    viscous = np.array([0.2, 0.0, 1.0])
    coulomb = np.array([1.0, 2.0, 0.5])
    asymmetry = np.array([0.3, -2.0, 0.0])
    stribeck = np.array([0.5, 0.0, 0.25])
    vs = np.array([0.05, 0.1, 0.2])
    f = FrictionModel(viscous, coulomb, asymmetry, stribeck, vs)
    eps = 0.01
    qd = rng.normal(scale=0.1, size=(4, 2, n))  # any batch shape
    s = np.tanh(qd / eps)
    expected = (
        viscous * qd + (coulomb + stribeck * np.exp(-((qd / vs) ** 2))) * s + asymmetry * np.abs(s)
    )
    np.testing.assert_allclose(f.torques(qd, eps), expected, rtol=0, atol=1e-14)
    # the sum of the basis functions times the coefficients (the regressor's columns)
    by_terms = sum(getattr(f, term) * friction_basis(term, qd, eps, vs) for term in FRICTION_TERMS)
    np.testing.assert_allclose(by_terms, expected, rtol=0, atol=1e-14)
    # levels: forward coulomb + asymmetry, backward coulomb - asymmetry (far from rest); at rest
    # 0; just off rest (v_eps << |qd| << v_s) the static level coulomb + stribeck (+- asymmetry)
    fast = f.torques(np.full(n, 10.0), eps) - viscous * 10.0
    np.testing.assert_allclose(fast, coulomb + asymmetry, rtol=0, atol=1e-12)
    slow = -f.torques(np.full(n, -10.0), eps) - viscous * 10.0
    np.testing.assert_allclose(slow, coulomb - asymmetry, rtol=0, atol=1e-12)
    assert np.all(f.torques(np.zeros(n), eps) == 0.0)
    near = f.torques(np.full(n, 1e-4), 1e-7) - viscous * 1e-4
    np.testing.assert_allclose(near, coulomb + stribeck + asymmetry, rtol=1e-5)
    # the breakaway level: the larger of the two just off rest
    back = -f.torques(np.full(n, -1e-4), 1e-7) - viscous * 1e-4
    np.testing.assert_allclose(f.breakaway, np.maximum(near, back), rtol=1e-5)
    # friction brakes in both directions: qd tau_f >= 0 (|asymmetry| <= coulomb)
    v = np.linspace(-3, 3, 2001)[:, None] * np.ones(n)
    assert np.all(v * f.torques(v, eps) >= 0.0)
    assert f.terms() == (
        ("viscous", "coulomb", "asymmetry", "stribeck"),
        ("coulomb", "asymmetry"),
        ("viscous", "coulomb", "stribeck"),
    )


def test_friction_model_defaults_and_immutability():
    f = FrictionModel([0.1, 0.2], [1.0, 0.0])
    assert f.n == 2 and np.all(f.asymmetry == 0) and np.all(f.stribeck == 0)
    assert np.all(f.stribeck_velocity == DEFAULT_STRIBECK_VELOCITY)
    with pytest.raises(ValueError):
        f.viscous[0] = 3.0
    g = f.replace(asymmetry=[0.5, 0.0])
    assert g.asymmetry[0] == 0.5 and f.asymmetry[0] == 0.0
    assert np.all(FrictionModel.zeros(4).torques(np.ones(4)) == 0.0)


@pytest.mark.parametrize(
    "changes, match",
    [
        ({"viscous": [-0.1, 0.0]}, "friction.viscous of joint 'a' must be finite, >= 0"),
        ({"coulomb": [0.0, np.nan]}, "friction.coulomb of joint 'b'"),
        ({"stribeck": [0.0, -1.0]}, "friction.stribeck of joint 'b'"),
        (
            {"stribeck_velocity": [0.0, 0.1]},
            "friction.stribeck_velocity of joint 'a' must be finite, > 0",
        ),
        ({"viscous": [2e6, 0.0]}, "<= 1e\\+06"),
        (
            {"asymmetry": [0.0, 1.5]},
            "friction.asymmetry of joint 'b' \\(1.5\\) exceeds its Coulomb",
        ),
        ({"coulomb": [1.0, 1.0, 1.0]}, "friction.coulomb must have 2 values .*'a', 'b'"),
        ({"viscous": "x"}, "friction.viscous must be numbers"),
    ],
)
def test_friction_model_refuses_bad_coefficients(changes, match):
    good = dict(viscous=[0.1, 0.1], coulomb=[1.0, 1.0], joint_names=("a", "b"))
    with pytest.raises(InvalidInputError, match=match):
        FrictionModel(**{**good, **changes})
    with pytest.raises(InvalidInputError, match="qd must have shape"):
        FrictionModel(**good).torques(np.zeros(3))
    with pytest.raises(InvalidInputError, match="unknown friction term"):
        friction_basis("sticky", np.zeros(2), 0.01)


def test_observer_subtracts_friction_at_its_threshold(rng):
    """friction=True with v_eps is the observer fed ``tau - friction_torques(qd, v_eps)`` on an
    arm that really has that friction."""
    m = load_model("mixed")
    m = m.with_friction(
        FrictionModel(np.full(m.n, 0.1), np.full(m.n, 2.0), asymmetry=np.full(m.n, 0.5))
    )
    eps = 0.05
    with_f = MomentumObserver(m, gain=100.0, friction=True, friction_velocity_threshold=eps)
    plain = MomentumObserver(m, gain=100.0)
    q, qd = rng.normal(size=m.n), np.linspace(-0.02, 0.03, m.n)
    tau = m.gravity_torques(q)
    dt = 2e-4
    for obs in (with_f, plain):
        obs.update(q, qd, tau, dt)
    for _ in range(1000):  # semi-implicit Euler of the true dynamics, friction included
        qd = qd + dt * m.forward_dynamics(q, qd, tau - m.friction_torques(qd, eps))
        q = q + dt * qd
        r = with_f.update(q, qd, tau, dt)
        r_plain = plain.update(q, qd, tau - m.friction_torques(qd, eps), dt)
    np.testing.assert_allclose(r, r_plain, rtol=0, atol=1e-12)
    with pytest.raises(InvalidInputError, match="velocity_threshold"):
        MomentumObserver(m, friction=True, friction_velocity_threshold=-1.0)


def test_friction_parameters_override_the_urdf():
    m = load_model("mixed")
    n = m.n
    base = m.friction
    values = {
        "friction.viscous": [],
        "friction.coulomb": [1.0] * n,
        "friction.asymmetry": [0.25] * n,
        "friction.stribeck": [],
        "friction.stribeck_velocity": [0.05] * n,
        "observer_gain": 50.0,  # not a friction parameter: ignored
    }
    f = base.with_parameters(values)
    assert np.all(f.viscous == base.viscous) and np.all(f.coulomb == 1.0)
    assert np.all(f.asymmetry == 0.25) and np.all(f.stribeck == 0.0)
    assert np.all(f.stribeck_velocity == 0.05) and f.joint_names == m.joint_names
    assert base.with_parameters({}) is base
    with pytest.raises(InvalidInputError, match="friction.coulomb must have 5 values"):
        base.with_parameters({"friction.coulomb": [1.0]})
    with pytest.raises(InvalidInputError, match="friction.asymmetry of joint 'j1'"):
        base.with_parameters({"friction.asymmetry": [0.5] * n})


def test_friction_at_rest_is_zero_below_the_rest_velocity():
    # every joint below rest_velocity: the arm at rest, no friction (static, within its
    # breakaway level); one joint above: the whole model, on every joint; per configuration
    # of a batch; per-joint levels; 0: off
    model = FrictionModel(
        np.full(3, 0.4), np.full(3, 2.0), asymmetry=np.full(3, 0.5), stribeck=np.full(3, 1.0)
    )
    ripple = np.array([0.009, -0.008, 0.007])
    moving = np.array([0.009, -0.008, 0.05])
    qd = np.stack([ripple, moving, -ripple])
    full = model.torques(qd, 0.01)
    assert np.all(np.abs(full[0]) > 1.0)  # the smooth sign turns the ripple into ~2 N m
    gated = model.torques(qd, 0.01, rest_velocity=0.012)
    np.testing.assert_array_equal(gated[[0, 2]], 0.0)
    np.testing.assert_array_equal(gated[1], full[1])
    np.testing.assert_array_equal(model.torques(qd, 0.01, rest_velocity=0.0), full)
    per_joint = model.torques(qd, 0.01, rest_velocity=[0.012, 0.012, 0.006])
    np.testing.assert_array_equal(per_joint, full)  # joint 3 beyond its own level: not at rest
    np.testing.assert_array_equal(model.torques(ripple, 0.01, 0.01), 0.0)  # a single one
    for bad in (-0.1, np.nan, [0.01, 0.01]):
        with pytest.raises(InvalidInputError, match="rest_velocity"):
            model.torques(qd, 0.01, rest_velocity=bad)
