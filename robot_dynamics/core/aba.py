"""Articulated-body algorithm (Featherstone, RBDA table 7.1), forward dynamics in base-frame
coordinates.

Every spatial quantity is in base-frame axes about the base origin, motion vectors ``[v; w]`` and
forces ``[f; n]`` (linear part first: the reverse of Featherstone's ``[w; v]``), so no transform
is needed between a body and its parent::

    pass 1 (velocities, as the RNEA)  V_i = V_parent + S_i qd_i,  c_i = V_i x S_i qd_i,
                                      p_i = V_i x* I_i V_i - f_ext_i
    pass 2 (leaves to root)           U_i = IA_i S_i,  D_i = S_i . U_i + armature_i,
                                      u_i = tau_i - S_i . pA_i
                                      IA_parent += IA_i - U_i U_i^T / D_i
                                      pA_parent += pA_i + Ia_i c_i + U_i u_i / D_i
    pass 3 (root to leaves)           a'_i = a_parent + c_i  (a_0 = [-g; 0])
                                      qdd_i = (u_i - U_i . a'_i) / D_i,  a_i = a'_i + S_i qdd_i

``x*`` is the force cross product, ``-(V x)^T``. A parent is numbered before its children, so
the passes run over the body indices forwards and backwards.
"""

import math

import numpy as np

from .jit import kernel, rows
from .rnea import body_velocity
from .spatial import cross_force, dot, times


_NO_FORCE = np.zeros((1, 6))


@kernel
def aba_kernel(parent, base_acceleration, armature, S, I, qd, tau, body, F_ext, qdd):
    """The ABA's three passes, a configuration at a time.

    Args:
        parent: (nb,) parent body, -1 for the base (parents before children).
        base_acceleration: (nb, 6) ``a_0 = [-g; 0]`` on the rows of the bodies on the base.
        armature: (nb,) rotor inertias on the joints' own diagonal entries of M.
        S: (Bk, nb, 6) joint axes; I: (Bk, nb, 6, 6) spatial inertias (Bk 1 or B).
        qd, tau: (B, nb) body joint velocities and forces.
        body: the body ``F_ext`` acts on, -1 for none.
        F_ext: (B, 6) spatial force on ``body``, base axes about the base origin (not read
            when ``body`` is -1).
        qdd: (B, nb) output: joint accelerations (inf or nan where an articulated inertia is
            zero).
    """
    nb = qd.shape[1]
    V, c, pA, U, a = np.empty((5, nb, 6))
    IA = np.empty((nb, 6, 6))
    D, u = np.empty((2, nb))
    t = np.empty(6)
    for b in range(qd.shape[0]):
        k = 0 if S.shape[0] == 1 else b
        for i in range(nb):  # velocities, velocity-product accelerations, bias forces
            body_velocity(parent, S[k], qd[b], i, V, c[i])
            IA[i] = I[k, i]
            times(I[k, i], V[i], t)
            cross_force(V[i], t, pA[i])
        if body >= 0:
            for r in range(6):
                pA[body, r] -= F_ext[b, r]
        for i in range(nb - 1, -1, -1):  # articulated inertias, leaves to base
            Si = S[k, i]
            times(IA[i], Si, U[i])
            D[i] = dot(Si, U[i]) + armature[i]
            u[i] = tau[b, i] - dot(Si, pA[i])
            p = parent[i]
            if p >= 0:
                for r in range(6):
                    for col in range(6):
                        IA[i, r, col] -= U[i, r] * U[i, col] / D[i]
                times(IA[i], c[i], t)
                for r in range(6):
                    pA[p, r] += pA[i, r] + t[r] + U[i, r] * u[i] / D[i]
                    for col in range(6):
                        IA[p, r, col] += IA[i, r, col]
        for i in range(nb):  # accelerations, base to leaves
            p = parent[i]
            for r in range(6):
                t[r] = (a[p, r] if p >= 0 else base_acceleration[i, r]) + c[i, r]
            qdd[b, i] = (u[i] - dot(U[i], t)) / D[i]
            for r in range(6):
                a[i, r] = t[r] + S[k, i, r] * qdd[b, i]


def aba(tree, kin, qd, tau, f_ext, batch):
    """Joint accelerations of all body joints for an unconstrained tree (ABA), with gravity.

    Mimic joints are not handled here (``forward_dynamics`` solves the reduced system
    instead); the armature is the tree's, one per body (no mimic joint: bodies are joints).

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., nb) body joint velocities [rad/s or m/s].
        tau: (..., nb) body joint torques [N m or N].
        f_ext: ``(body, F_W)`` spatial force on a body, as in
            :func:`~robot_dynamics.core.rnea.rnea`, or None.
        batch: the batch shape of the result, that of ``kin``, ``qd``, ``tau`` and ``F_W``
            broadcast.

    Returns:
        ndarray: (..., nb) joint accelerations (inf or nan where an articulated inertia is
        zero).
    """
    nb = tree.nb
    S, I = kin.rows(batch)
    body, F_ext = (-1, _NO_FORCE) if f_ext is None else (f_ext[0], rows(f_ext[1], batch, (6,)))
    qdd = np.empty(batch + (nb,))
    aba_kernel(
        tree.parent,
        tree.base_acceleration,
        tree.armature,
        S,
        I,
        rows(qd, batch, (nb,)),
        rows(tau, batch, (nb,)),
        body,
        F_ext,
        qdd.reshape(math.prod(batch), nb),
    )
    return qdd
