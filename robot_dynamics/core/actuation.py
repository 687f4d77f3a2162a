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


def end_stop_gains(model, q, frequency, damping_ratio, joints=None):
    """End-stop stiffness and damping for the joints against their stops at configuration q,
    such that the stiffest mode of those joints rings at ``frequency`` with ``damping_ratio``.

    A joint against its stop moves the rest of the arm, which stays free: it sees the inertia
    ``m_i = 1 / (M^-1)_ii`` (at most ``M_ii``). Joints against their stops together are coupled
    through ``(M^-1)_cc``: with ``k = w^2 m / mu`` and ``d = 2 zeta w m / mu``, where ``mu`` >= 1
    is the largest eigenvalue of ``(M^-1)_cc`` scaled to a unit diagonal (1 for a single joint),
    the stiffest mode has frequency ``w = 2 pi f`` and damping ratio ``zeta`` and every other
    mode is slower, so the step's stability is that of one joint (:func:`end_stop_stable`).

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        q: (n,) joint positions [rad or m].
        frequency: f [Hz].
        damping_ratio: zeta (dimensionless).
        joints: (n,) bool, the joints against their stops; None: every joint.

    Returns:
        tuple: ``(stiffness (n,) [N m/rad or N/m], damping (n,) [N m s/rad or N s/m])``, 0 for
        the joints not against a stop.
    """
    n = model.n
    c = np.ones(n, dtype=bool) if joints is None else np.asarray(joints, dtype=bool)
    stiffness, damping = np.zeros(n), np.zeros(n)
    if not c.any():
        return stiffness, damping
    minv = np.linalg.inv(model.mass_matrix(q))[np.ix_(c, c)]
    root = 1.0 / np.sqrt(np.diagonal(minv))
    mu = np.linalg.eigvalsh(root[:, None] * minv * root[None, :])[-1]
    omega = 2.0 * np.pi * float(frequency)
    inertia = root**2 / mu
    stiffness[c] = omega**2 * inertia
    damping[c] = 2.0 * float(damping_ratio) * omega * inertia
    return stiffness, damping


def end_stop_stable(frequency, damping_ratio, dt):
    """Whether semi-implicit Euler at step ``dt`` is stable for a joint against its end stop.

    The step maps ``(x, v)`` of ``x'' = -w^2 x - 2 zeta w x'`` through a matrix of determinant
    ``1 - 2 zeta a`` and trace ``2 - a^2 - 2 zeta a`` (``a = w dt``); both eigenvalues lie inside
    the unit circle while ``zeta a < 1`` and ``a^2 + 4 zeta a < 4`` (``a < 0.83`` at zeta = 1,
    ``a < 2`` undamped).

    Args:
        frequency: f [Hz] (:func:`end_stop_gains`).
        damping_ratio: zeta (dimensionless), >= 0.
        dt: integration step [s], > 0.

    Returns:
        bool: True when stable.
    """
    a = 2.0 * np.pi * float(frequency) * float(dt)
    zeta = float(damping_ratio)
    return bool(zeta * a < 1.0 and a * a + 4.0 * zeta * a < 4.0)


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
