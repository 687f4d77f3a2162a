"""Joint-level elements that the rigid-body model leaves out: a drive's joint impedance, end
stops at the position limits, and effort saturation. Pure functions on (n,) (or (..., n))
joint arrays, used by simulators."""

import numpy as np
import scipy.linalg


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


def impedance_step_gains(stiffness, damping, dt):
    """``dt^2 K + 2 dt D`` per joint: what a joint impedance weighs in the step's stability
    (:func:`impedance_stable`).

    Args:
        stiffness: (n,) K [N m/rad or N/m], >= 0.
        damping: (n,) D [N m s/rad or N s/m], >= 0.
        dt: integration step [s], > 0.

    Returns:
        ndarray: (n,) [kg m^2 or kg], compared with 4 times an inertia.
    """
    k = np.asarray(stiffness, dtype=float)
    return dt * dt * k + 2.0 * dt * np.asarray(damping, dtype=float)


def impedance_modes(mass_matrix, gains):
    """The modes of a joint impedance's step: ``G v = lam M v``, ``G = diag(gains)``.

    Args:
        mass_matrix: (n, n) M at the configuration, positive definite.
        gains: (n,) :func:`impedance_step_gains`.

    Returns:
        tuple: ``(lam (n,) ascending, modes (n, n))``, column j the mode of ``lam[j]``,
        ``v^T M v = 1``; the step is stable while every ``lam < 4``.
    """
    return scipy.linalg.eigh(np.diag(gains), np.asarray(mass_matrix, dtype=float))


def impedance_stable(mass_matrix, stiffness, damping, dt):
    """Whether semi-implicit Euler at step ``dt`` is stable for an arm held by a joint impedance.

    Linearised at a configuration (M there; gravity and velocity terms left out), the step
    ``v' = v - dt M^-1 (K x + D v)``, ``x' = x + dt v'`` is, with ``v_n = (x_n - x_{n-1}) / dt``,
    ``M (x_{n+1} - 2 x_n + x_{n-1}) + dt D (x_n - x_{n-1}) + dt^2 K x_n = 0``. A mode
    ``x_n = z^n u`` makes ``Q(z) = M (z-1)^2 + dt D (z-1) + dt^2 K z`` singular, and
    ``u^H Q(z) u = 0`` says that z is a root of one joint's step (:func:`end_stop_stable`) with
    ``m = u^H M u``, ``d = u^H D u``, ``k = u^H K u``: ``|z| <= 1`` while ``dt^2 k + 2 dt d < 4 m``.
    So the coupled step is stable when ``4 M - dt^2 K - 2 dt D`` (``= Q(-1)``) is positive
    definite, i.e. every ``lam < 4`` in ``(dt^2 K + 2 dt D) v = lam M v``. When it is not,
    ``Q(z)`` (symmetric for real z) is indefinite at ``z = -1`` and positive definite as
    ``z -> -inf``, so it is singular at a real ``z < -1``: a mode that flips sign every step and
    grows (an oscillation at the step's Nyquist rate, until the effort limits clip it). The test
    is exact for the coupled linearised step, whose matrix is
    ``[[I - dt^2 A, dt (I - dt B)], [-dt A, I - dt B]]`` with ``A = M^-1 K``, ``B = M^-1 D``.

    A joint with the others free sees ``m_i = 1 / (M^-1)_ii``: ``dt^2 k_i + 2 dt d_i >= 4 m_i``
    is unstable whatever the other joints' gains (``u = M^-1 e_i``); through the coupling
    smaller gains can be unstable too (down to ``4 m_i / mu``, ``mu`` as in
    :func:`end_stop_gains`).

    Args:
        mass_matrix: (n, n) M at the configuration, positive definite.
        stiffness: (n,) K [N m/rad or N/m], >= 0.
        damping: (n,) D [N m s/rad or N s/m], >= 0 (with any other damping the step treats the
            same way, such as viscous friction).
        dt: integration step [s], > 0.

    Returns:
        bool: True when stable.
    """
    gains = impedance_step_gains(stiffness, damping, dt)
    return bool(impedance_modes(mass_matrix, gains)[0][-1] < 4.0)


def impedance_max_step(mass_matrix, stiffness, damping):
    """The longest step at which :func:`impedance_stable` holds (``dt^2 K + 2 dt D`` grows with
    dt, so every shorter step is stable too).

    Args:
        mass_matrix: (n, n) M, positive definite.
        stiffness: (n,) K [N m/rad or N/m], >= 0.
        damping: (n,) D [N m s/rad or N s/m], >= 0.

    Returns:
        float: the step [s], bisected to 1e-9 relative on the stable side; inf without gains.
    """
    k = np.asarray(stiffness, dtype=float)
    d = np.asarray(damping, dtype=float)
    acting = (k > 0) | (d > 0)
    if not acting.any():
        return np.inf
    # dt^2 k + 2 dt d = 4 M_ii: that joint alone (u = e_i) is unstable there
    m = np.diagonal(np.asarray(mass_matrix, dtype=float))[acting]
    ka, da = k[acting], d[acting]
    hi = float(np.min(4.0 * m / (da + np.sqrt(da * da + 4.0 * ka * m))))
    lo = 0.0
    while hi - lo > 1e-9 * hi:
        mid = 0.5 * (lo + hi)
        if impedance_stable(mass_matrix, k, d, mid):
            lo = mid
        else:
            hi = mid
    return lo


def impedance_gain_scale(mass_matrix, fixed, scaled):
    """The factor c up to which ``fixed + c * scaled`` step gains stay stable.

    Args:
        mass_matrix: (n, n) M, positive definite.
        fixed: (n,) :func:`impedance_step_gains` that stay.
        scaled: (n,) :func:`impedance_step_gains` to scale, >= 0.

    Returns:
        float: c (stable for every smaller factor): inf when ``scaled`` never destabilises, 0
        when ``fixed`` alone is unstable.
    """
    m = np.asarray(mass_matrix, dtype=float)
    margin = 4.0 * m - np.diag(fixed)
    if np.linalg.eigvalsh(margin)[0] <= 0.0:
        return 0.0
    top = scipy.linalg.eigh(np.diag(scaled), margin, eigvals_only=True)[-1]
    return float(1.0 / top) if top > 0.0 else np.inf


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
