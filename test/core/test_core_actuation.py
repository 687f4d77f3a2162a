"""Joint-level laws of robot_dynamics.core.actuation (drive impedance and its stability at the
step, end stops, saturation)."""

import numpy as np
import pytest

from robot_dynamics.core.actuation import (
    end_stop_gains,
    end_stop_stable,
    impedance_gain_scale,
    impedance_max_step,
    impedance_stable,
    impedance_step_gains,
    saturate,
)
from robot_dynamics.tools.bundled import BUNDLED
from core_helpers import load_model


def test_drive_and_stop_laws():
    """The drive impedance and end-stop laws the simulator adds to the rigid-body dynamics."""
    from robot_dynamics.core.actuation import impedance_torques, limit_stop_torques

    q = np.array([0.5, -1.2, 0.0, 3.5])
    qd = np.array([1.0, -2.0, 0.5, 0.0])
    np.testing.assert_allclose(
        impedance_torques(
            q, qd, setpoint=np.zeros(4), stiffness=np.full(4, 10.0), damping=np.full(4, 2.0)
        ),
        -10.0 * q - 2.0 * qd,
    )
    lower = np.array([-1.0, -1.0, -1.0, -np.inf])
    upper = np.array([0.4, 1.0, 1.0, np.inf])
    tau = limit_stop_torques(q, qd, lower, upper, 1000.0, 10.0)
    # joint 0 beyond upper and moving out: spring + damper; joint 1 beyond lower and moving out;
    # joint 2 inside: nothing; joint 3 continuous (infinite limits): nothing
    np.testing.assert_allclose(
        tau, [-1000.0 * 0.1 - 10.0 * 1.0, -1000.0 * (-0.2) - 10.0 * (-2.0), 0.0, 0.0]
    )
    # moving back inside: the damper does not pull against the spring
    tau_back = limit_stop_torques(q, -qd, lower, upper, 1000.0, 10.0)
    np.testing.assert_allclose(tau_back[:2], [-100.0, 200.0])


def test_one_joint_against_its_stop_rings_at_the_frequency_with_the_rest_free():
    model = load_model("double_pendulum")
    q = np.array([0.3, -0.7])
    omega = 2 * np.pi * 50.0
    for j in range(2):
        joints = np.arange(2) == j
        k, d = end_stop_gains(model, q, frequency=50.0, damping_ratio=0.7, joints=joints)
        m = 1.0 / np.linalg.inv(model.mass_matrix(q))[j, j]  # the other joint free
        assert m < model.mass_matrix(q)[j, j]
        np.testing.assert_allclose([k[j], d[j]], [omega**2 * m, 2 * 0.7 * omega * m])
        assert k[~joints] == 0.0 and d[~joints] == 0.0


@pytest.mark.parametrize("name", ["double_pendulum", "bundled_panda"])
def test_joints_against_their_stops_together_ring_at_most_at_the_frequency(name):
    model = load_model(name)
    q = np.random.default_rng(3).uniform(-1.0, 1.0, model.n)
    omega = 2 * np.pi * 80.0
    k, d = end_stop_gains(model, q, frequency=80.0, damping_ratio=1.0)
    # the modes of M qdd = -K q - D qd: the stiffest at omega, critically damped
    modes = np.linalg.eigvals(np.linalg.solve(model.mass_matrix(q), np.diag(k)))
    np.testing.assert_allclose(np.sqrt(modes.real.max()), omega, rtol=1e-9)
    np.testing.assert_allclose(d, 2 * k / omega)


@pytest.mark.parametrize(
    "frequency, zeta, dt, stable",
    [
        (100.0, 1.0, 1e-3, True),
        (100.0, 1.0, 1.4e-3, False),
        (250.0, 0.1, 1e-3, True),
        (330.0, 0.1, 1e-3, False),
    ],
)
def test_end_stop_stability_is_that_of_the_step_matrix(frequency, zeta, dt, stable):
    assert end_stop_stable(frequency, zeta, dt) is stable
    w = 2 * np.pi * frequency
    step = np.array(
        [
            [1.0 - (w * dt) ** 2, dt * (1.0 - 2 * zeta * w * dt)],
            [-w * w * dt, 1.0 - 2 * zeta * w * dt],
        ]
    )
    assert bool(np.abs(np.linalg.eigvals(step)).max() < 1.0) is stable


def _step_matrix(mass, stiffness, damping, dt):
    """Semi-implicit Euler's step on (x, v) of M x'' = -K x - D x' (v first, then x)."""
    n = len(stiffness)
    eye = np.eye(n)
    a = np.linalg.solve(mass, np.diag(stiffness))
    b = np.linalg.solve(mass, np.diag(damping))
    return np.block([[eye - dt * dt * a, dt * (eye - dt * b)], [-dt * a, eye - dt * b]])


def test_impedance_stability_is_that_of_the_coupled_step_matrix():
    """On the Panda, at configurations across its range, with gains on some joints only:
    stable 3 % below the longest stable step, and 3 % above it a real eigenvalue below -1 (a
    growing oscillation at the Nyquist rate)."""
    model = load_model("bundled_panda")
    lower, upper = (np.asarray(v) for v in model.position_limits)
    rng = np.random.default_rng(5)
    for _ in range(40):
        mass = model.mass_matrix(rng.uniform(lower, upper))
        stiffness = rng.uniform(0.0, 3000.0, 7) * (rng.random(7) < 0.8)
        damping = rng.uniform(0.0, 60.0, 7) * (rng.random(7) < 0.8)
        longest = impedance_max_step(mass, stiffness, damping)
        for dt, stable in ((0.97 * longest, True), (1.03 * longest, False)):
            assert impedance_stable(mass, stiffness, damping, dt) is stable
            z = np.linalg.eigvals(_step_matrix(mass, stiffness, damping, dt))
            assert bool(np.abs(z).max() <= 1.0 + 1e-9) is stable
            if not stable:
                assert np.any((np.abs(z.imag) < 1e-9) & (z.real < -1.0))
    assert impedance_max_step(mass, np.zeros(7), np.zeros(7)) == np.inf


def test_a_joint_alone_sees_its_inertia_with_the_others_free():
    """dt^2 k_i + 2 dt d_i >= 4 m_i, m_i = 1 / (M^-1)_ii, is unstable whatever the other
    joints' gains; below 4 m_i / mu for every joint (mu as in end_stop_gains) it is stable."""
    model = load_model("bundled_panda")
    mass = model.mass_matrix(np.array(BUNDLED["panda"].home))
    minv = np.linalg.inv(mass)
    m = 1.0 / np.diagonal(minv)
    root = np.sqrt(m)
    mu = np.linalg.eigvalsh(root[:, None] * minv * root[None, :])[-1]
    dt = 1e-3
    for j in range(7):
        damping = np.zeros(7)
        damping[j] = 1.001 * 2.0 * m[j] / dt  # 2 dt d = 4 m_j
        assert not impedance_stable(mass, np.zeros(7), damping, dt)
        # M_jj (the others held) would call it stable
        assert 2.0 * dt * damping[j] < 4.0 * mass[j, j]
    assert impedance_stable(mass, np.zeros(7), 0.999 * 2.0 * m / mu / dt, dt)


def test_the_gain_scale_is_the_edge_of_stability():
    model = load_model("bundled_panda")
    mass = model.mass_matrix(np.array(BUNDLED["panda"].home))
    dt, stiffness, damping = 1e-3, np.full(7, 2000.0), np.full(7, 40.0)
    fixed = impedance_step_gains(stiffness, 0.0, dt)
    scale = impedance_gain_scale(mass, fixed, impedance_step_gains(0.0, damping, dt))
    assert 0.0 < scale < 1.0
    assert impedance_stable(mass, stiffness, 0.999 * scale * damping, dt)
    assert not impedance_stable(mass, stiffness, 1.001 * scale * damping, dt)
    # a stiffness unstable without any damping: no damping helps
    assert impedance_gain_scale(mass, impedance_step_gains(np.full(7, 1e7), 0.0, dt), fixed) == 0.0


def test_saturate_at_finite_limits_only():
    tau = np.array([[5.0, -5.0, 5.0], [-1.0, 1.0, -7.0]])
    limits = np.array([2.0, 2.0, np.inf])
    np.testing.assert_allclose(saturate(tau, limits), [[2.0, -2.0, 5.0], [-1.0, 1.0, -7.0]])
