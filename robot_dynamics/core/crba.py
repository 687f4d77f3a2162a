"""Composite-rigid-body algorithm for the joint-space inertia matrix (Featherstone, RBDA table
6.2) in base-frame coordinates.

Composite inertias are subtree sums, accumulated from the leaves to the base; then, with
``F_k = I^C_k S_k``, ``M_jk = M_kj = S_j . F_k`` for ``j`` ``k`` itself or an ancestor of
``k``, and zero for bodies on different branches.
"""

import math

import numpy as np

from .jit import kernel
from .spatial import dot, times


@kernel
def crba_kernel(parent, S, I, M, IC):
    """Joint-space inertia and composite inertias, a configuration at a time.

    Args:
        parent: (nb,) parent body, -1 for the base (parents before children).
        S: (B, nb, 6) joint axes; I: (B, nb, 6, 6) spatial inertias.
        M: (B, nb, nb) output: joint-space inertia.
        IC: (B, nb, 6, 6) output: composite inertias.
    """
    nb = S.shape[1]
    F = np.empty(6)
    for b in range(S.shape[0]):
        ICb, Mb = IC[b], M[b]
        ICb[:, :, :] = I[b]
        for i in range(nb - 1, -1, -1):
            p = parent[i]
            if p >= 0:
                for r in range(6):
                    for c in range(6):
                        ICb[p, r, c] += ICb[i, r, c]
        Mb[:, :] = 0.0
        for k in range(nb):
            times(ICb[k], S[b, k], F)
            j = k
            while j >= 0:
                Mb[j, k] = Mb[k, j] = dot(S[b, j], F)
                j = parent[j]


def crba(tree, kin):
    """Joint-space inertia of all body joints (no armature, no mimic map).

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.

    Returns:
        tuple: ``(M_full (..., nb, nb) [kg m^2 / kg], IC)`` with the composite spatial
        inertias ``I^C_j = sum_{i in subtree(j)} I_i`` (..., nb, 6, 6), base axes about the
        base origin.
    """
    batch, nb = kin.batch, tree.nb
    S, I = kin.rows(batch)
    M, IC = np.empty(batch + (nb, nb)), np.empty(batch + (nb, 6, 6))
    size = math.prod(batch)
    crba_kernel(tree.parent, S, I, M.reshape(size, nb, nb), IC.reshape(size, nb, 6, 6))
    return M, IC
