"""Smooth-sign Coulomb friction (core/friction.py): the one definition the model, the momentum
observer, the estimation pipeline and the identification regressor share."""

import numpy as np
import pytest

from robot_dynamics.core import InvalidInputError, MomentumObserver
from robot_dynamics.core.friction import DEFAULT_VELOCITY_THRESHOLD, friction_torques, smooth_sign

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


def test_model_friction_and_module_function_agree(rng):
    m = load_model("mixed")
    m = m.with_friction(damping=np.full(m.n, 0.3), friction=np.full(m.n, 0.7))
    qd = rng.normal(scale=0.02, size=(5, m.n))
    expected = 0.3 * qd + 0.7 * np.tanh(qd / 0.004)
    np.testing.assert_allclose(m.friction_torques(qd, 0.004), expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        friction_torques(qd, m.damping, m.friction, 0.004), expected, rtol=0, atol=1e-15
    )
    with pytest.raises(InvalidInputError, match="velocity_threshold"):
        m.friction_torques(qd, velocity_threshold=[0.1, 0.2])


def test_observer_subtracts_friction_at_its_threshold(rng):
    """friction=True with v_eps is the observer fed ``tau - friction_torques(qd, v_eps)`` on an
    arm that really has that friction."""
    m = load_model("mixed")
    m = m.with_friction(damping=np.full(m.n, 0.1), friction=np.full(m.n, 2.0))
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
