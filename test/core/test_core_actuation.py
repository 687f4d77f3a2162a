"""Joint-level laws of robot_dynamics.core.actuation (drive impedance, end stops, saturation)."""

import numpy as np

from robot_dynamics.core.actuation import end_stop_gains, saturate
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


def test_end_stop_gains_scale_with_joint_inertia():
    model = load_model("double_pendulum")
    q = np.array([0.3, -0.7])
    k, d = end_stop_gains(model, q, frequency=50.0, damping_ratio=0.7)
    m_ii = np.diag(model.mass_matrix(q))
    omega = 2 * np.pi * 50.0
    np.testing.assert_allclose(k, omega**2 * m_ii)
    np.testing.assert_allclose(d, 2 * 0.7 * omega * m_ii)
    # each joint alone against its stop rings at 50 Hz: sqrt(k / m) = omega
    np.testing.assert_allclose(np.sqrt(k / m_ii), omega)


def test_saturate_at_finite_limits_only():
    tau = np.array([[5.0, -5.0, 5.0], [-1.0, 1.0, -7.0]])
    limits = np.array([2.0, 2.0, np.inf])
    np.testing.assert_allclose(saturate(tau, limits), [[2.0, -2.0, 5.0], [-1.0, 1.0, -7.0]])
