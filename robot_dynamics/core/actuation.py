"""Joint-level elements that the rigid-body model leaves out: a drive's joint impedance, end
stops at the position limits, and effort saturation. Pure functions on (n,) (or (..., n))
joint arrays, used by simulators."""

import numpy as np


def impedance_torques(q, qd, setpoint, stiffness, damping):
    """Joint impedance ``K (q_set - q) - D qd``.

    Args:
        q: (..., n) joint positions [rad or m].
        qd: (..., n) joint velocities [rad/s or m/s].
        setpoint: (..., n) position setpoints [rad or m].
        stiffness: K, scalar or per joint [N m/rad or N/m].
        damping: D, scalar or per joint [N m s/rad or N s/m].

    Returns:
        ndarray: (..., n) torques [N m or N].
    """
    return stiffness * (setpoint - q) - damping * qd


def limit_stop_torques(q, qd, lower, upper, stiffness, damping):
    """Spring-damper end stops: the torque pushing each joint back inside [lower, upper].

    Zero inside the limits. Beyond a limit: ``-k * penetration - d * qd``, the damping acting
    only while the joint moves further out (a stop never pulls the joint into itself). Infinite
    limits never act.

    Args:
        q: (..., n) joint positions [rad or m].
        qd: (..., n) joint velocities [rad/s or m/s].
        lower: (n,) lower limits [rad or m].
        upper: (n,) upper limits [rad or m].
        stiffness: scalar or per joint [N m/rad].
        damping: scalar or per joint [N m s/rad].

    Returns:
        ndarray: (..., n) torques [N m or N].
    """
    k = np.broadcast_to(np.asarray(stiffness, dtype=float), q.shape)
    d = np.broadcast_to(np.asarray(damping, dtype=float), q.shape)
    tau = np.zeros_like(q)
    above = q > upper
    below = q < lower
    tau[above] = -k[above] * (q[above] - upper[above]) - d[above] * np.maximum(qd[above], 0.0)
    tau[below] = -k[below] * (q[below] - lower[below]) - d[below] * np.minimum(qd[below], 0.0)
    return tau


def end_stop_gains(model, q, frequency, damping_ratio):
    """Per-joint end-stop stiffness and damping that make each joint, with the inertia it sees at
    configuration q (the diagonal of M(q)), ring at ``frequency`` with ``damping_ratio`` against
    its stop: ``k = (2 pi f)^2 M_ii``, ``d = 2 zeta (2 pi f) M_ii``.

    Scaling by inertia keeps stiff stops stable at a fixed integration step (choose
    ``frequency`` well below 1 / (2 pi dt)).

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        q: (..., n) joint positions [rad or m].
        frequency: f [Hz].
        damping_ratio: zeta (dimensionless).

    Returns:
        tuple: ``(stiffness (..., n) [N m/rad], damping (..., n) [N m s/rad])``.
    """
    inertia = np.diagonal(model.mass_matrix(q), axis1=-2, axis2=-1)
    omega = 2.0 * np.pi * float(frequency)
    return omega**2 * inertia, 2.0 * float(damping_ratio) * omega * inertia


def saturate(tau, limits):
    """Clip torques to the joints' effort limits.

    Args:
        tau: (..., n) torques [N m or N].
        limits: (n,) effort limits [N m or N], > 0; infinite: no limit (``model.effort_limits``).

    Returns:
        ndarray: (..., n) clipped torques.
    """
    limits = np.asarray(limits, dtype=float)
    return np.clip(tau, -limits, limits)
