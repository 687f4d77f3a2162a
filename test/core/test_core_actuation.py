"""Joint-level laws of robot_dynamics.core.actuation (drive impedance, end stops, saturation)."""

import numpy as np
import pytest

from robot_dynamics.core.actuation import end_stop_gains, end_stop_stable, saturate
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


def test_saturate_at_finite_limits_only():
    tau = np.array([[5.0, -5.0, 5.0], [-1.0, 1.0, -7.0]])
    limits = np.array([2.0, 2.0, np.inf])
    np.testing.assert_allclose(saturate(tau, limits), [[2.0, -2.0, 5.0], [-1.0, 1.0, -7.0]])
