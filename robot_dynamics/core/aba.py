"""Articulated-body algorithm (Featherstone), O(n) forward dynamics in base-frame coordinates.

Bodies at the same depth are processed together, so the loops run over tree depth, not over
links. In world coordinates no transforms are needed between a body and its parent.
"""

import numpy as np

from .spatial import motion_cross


def aba(tree, kin, qd, tau, f_ext=None):
    """Joint accelerations of all body joints for an unconstrained tree (ABA), with gravity.

    Mimic joints are not handled here (``forward_dynamics`` solves the reduced system
    instead).

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., nb) body joint velocities [rad/s or m/s], the batch shape of the result
            (``kin``'s broadcast to it).
        tau: (..., nb) body joint torques [N m or N], qd's shape.
        f_ext: optional ``(body, F_W)`` spatial force on a body, as in
            :func:`~robot_dynamics.core.rnea.rnea`.

    Returns:
        ndarray: (..., nb) joint accelerations [rad/s^2 or m/s^2].
    """
    I, S = kin.I, kin.S  # I first: S then comes from the force transforms
    Sqd = S * qd[..., None]
    V = tree.ancestors @ Sqd
    crmV = motion_cross(V)
    c = (crmV @ Sqd[..., None])[..., 0]  # Sdot qd, velocity-product accel
    batch = qd.shape[:-1]  # the kinematics may be one configuration for a batch of qd, tau
    IA = np.broadcast_to(I, batch + I.shape[-3:]).copy()
    pA = -(crmV.swapaxes(-1, -2) @ (I @ V[..., None]))[..., 0]  # V x* I V
    if f_ext is not None and f_ext[0] >= 0:
        pA[..., f_ext[0], :] -= f_ext[1]
    U = np.empty(qd.shape + (6,))
    D = np.empty(qd.shape)
    u = np.empty(qd.shape)
    for bodies, parents in reversed(tree.levels):
        Sb = S[..., bodies, :]
        Ub = (IA[..., bodies, :, :] @ Sb[..., None])[..., 0]
        Db = np.einsum("...i,...i->...", Sb, Ub)
        ub = tau[..., bodies] - np.einsum("...i,...i->...", Sb, pA[..., bodies, :])
        U[..., bodies, :], D[..., bodies], u[..., bodies] = Ub, Db, ub
        if parents is not None:
            Ia = IA[..., bodies, :, :] - Ub[..., :, None] * Ub[..., None, :] / Db[..., None, None]
            pa = (
                pA[..., bodies, :]
                + (Ia @ c[..., bodies, :, None])[..., 0]
                + Ub * (ub / Db)[..., None]
            )
            IA[..., parents, :, :] += Ia  # parents unique within a level
            pA[..., parents, :] += pa
    a = np.zeros(qd.shape + (6,))
    qdd = np.empty(qd.shape)
    a_base = np.zeros(6)
    a_base[:3] = -tree.gravity
    for bodies, parents in tree.levels:
        ab = (a_base if parents is None else a[..., parents, :]) + c[..., bodies, :]
        qb = (u[..., bodies] - np.einsum("...i,...i->...", U[..., bodies, :], ab)) / D[..., bodies]
        qdd[..., bodies] = qb
        a[..., bodies, :] = ab + S[..., bodies, :] * qb[..., None]
    return qdd
