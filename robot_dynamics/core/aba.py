"""Articulated-body algorithm (Featherstone, RBDA table 7.1), forward dynamics in base-frame
coordinates.

Every spatial quantity is in base-frame axes about the base origin, motion vectors ``[v; w]`` and
forces ``[f; n]`` (linear part first: the reverse of Featherstone's ``[w; v]``), so no transform
is needed between a body and its parent. Bodies at the same depth are processed together, so
the two recursions run over tree depth, not over links::

    pass 1 (velocities, as the RNEA)  V_i = sum_{j anc i} S_j qd_j,  c_i = V_i x S_i qd_i,
                                      p_i = V_i x* I_i V_i - f_ext_i
    pass 2 (leaves to root)           U_i = IA_i S_i,  D_i = S_i . U_i,  u_i = tau_i - S_i . pA_i
                                      IA_parent += IA_i - U_i U_i^T / D_i
                                      pA_parent += pA_i + Ia_i c_i + U_i u_i / D_i
    pass 3 (root to leaves)           a'_i = a_parent + c_i  (a_0 = [-g; 0])
                                      qdd_i = (u_i - U_i . a'_i) / D_i,  a_i = a'_i + S_i qdd_i

``x*`` is the force cross product, ``-(V x)^T``. The velocities are a sum over ancestors (one
matrix product with the tree's ancestor mask), which is O(n^2) in flops but one numpy call.
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
    # the order of these two only changes the cost: with I formed, S comes from its force
    # transforms instead of a product of its own
    I, S = kin.I, kin.S
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
    for bodies, parents in tree.levels:
        # gravity as the base's acceleration a_0 = [-g; 0]
        a_parent = tree.base_acceleration[bodies] if parents is None else a[..., parents, :]
        ab = a_parent + c[..., bodies, :]
        qb = (u[..., bodies] - np.einsum("...i,...i->...", U[..., bodies, :], ab)) / D[..., bodies]
        qdd[..., bodies] = qb
        a[..., bodies, :] = ab + S[..., bodies, :] * qb[..., None]
    return qdd
