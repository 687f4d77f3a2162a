"""Coriolis matrix consistent with the Christoffel symbols of M(q) (numpy products over the
kinematics pass), and the momentum terms the observer needs (a compiled pass).

Echeandia & Wensing (2021): with the body-level factorisation
``B_i = 1/2 (V_i x* I_i - I_i V_i x + (I_i V_i) x-bar)``, the matrix
``C = sum_i J_i^T (B_i J_i + I_i Jdot_i)`` equals the Christoffel-symbol C of the reference,
so ``Mdot - 2 C`` is skew-symmetric. Composite (subtree) sums of ``B_i`` and ``I_i`` give::

    j anc-or-self k:  C_jk = S_j . (B^C_k S_k + I^C_k Sdot_k)
    k strict anc j:   C_jk = (B^C_j^T S_j) . S_k + (I^C_j S_j) . Sdot_k
"""

import math

import numpy as np

from .crba import crba
from .jit import kernel
from .rnea import joint_forces, rnea_pass
from .spatial import cross_motion, dot, force_bar, motion_cross


def coriolis(tree, kin, qd, IC=None):
    """Coriolis matrix of all body joints.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., nb) body joint velocities [rad/s or m/s].
        IC: (..., nb, 6, 6) composite inertias if already computed, else None.

    Returns:
        ndarray: (..., nb, nb) C.
    """
    I, S = kin.I, kin.S
    if IC is None:
        IC = crba(tree, kin)[1]
    V = tree.ancestors @ (S * qd[..., None])
    crmV = motion_cross(V)
    IV = (I @ V[..., None])[..., 0]
    B = 0.5 * (-crmV.swapaxes(-1, -2) @ I - I @ crmV + force_bar(IV))
    BC = (tree.descendants @ B.reshape(B.shape[:-2] + (36,))).reshape(B.shape)
    Sdot = (crmV @ S[..., None])[..., 0]
    X1 = (BC @ S[..., None] + IC @ Sdot[..., None])[..., 0]
    upper = (S @ X1.swapaxes(-1, -2)) * tree.descendants
    Y1 = (BC.swapaxes(-1, -2) @ S[..., None])[..., 0]
    Y2 = (IC @ S[..., None])[..., 0]
    lower = (Y1 @ S.swapaxes(-1, -2) + Y2 @ Sdot.swapaxes(-1, -2)) * tree.strict_ancestors
    return upper + lower


def velocity_terms(tree, kin, qd):
    """RNEA at zero acceleration, keeping what the momentum terms need.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., nb) body joint velocities [rad/s or m/s].

    Returns:
        tuple: ``(h, V, IV)``: ``h = C qd + g`` of all body joints (..., nb) [N m or N], and for
        :func:`momentum_from_velocity_terms` the body velocities ``V`` and momenta ``I V``
        (..., nb, 6) each (base axes, about the base origin).
    """
    h, V, _, IV = rnea_pass(tree, kin, qd, None)
    return h, V, IV


@kernel
def momentum_kernel(parent, S, V, IV, momentum, CTqd):
    """``S_j . h_j`` and ``(V_j x S_j) . h_j`` with the subtree momenta ``h_j``, a configuration
    at a time.

    Args:
        parent: (nb,) parent body, -1 for the base (parents before children).
        S: (Bk, nb, 6) joint axes (Bk 1 or B).
        V, IV: (B, nb, 6) body velocities and momenta.
        momentum, CTqd: (B, nb) outputs: ``M qd`` and ``C^T qd`` of the body joints.
    """
    nb = V.shape[1]
    h = np.empty((nb, 6))
    Sdot = np.empty(6)
    for b in range(V.shape[0]):
        k = 0 if S.shape[0] == 1 else b
        h[:, :] = IV[b]
        joint_forces(parent, S[k], h, momentum[b])  # h becomes the subtree momenta
        for i in range(nb):
            cross_motion(V[b, i], S[k, i], Sdot)
            CTqd[b, i] = dot(Sdot, h[i])


def momentum_from_velocity_terms(tree, kin, V, IV):
    """``(M qd, C^T qd)`` of all body joints from :func:`velocity_terms`' ``V`` and ``I V``.

    With the subtree momenta ``h_j`` and ``Sdot_j = V_j x S_j``: ``S_j . h_j`` and
    ``Sdot_j . h_j`` (see :func:`momentum_terms`).

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        V: (..., nb, 6) body velocities, base axes about the base origin.
        IV: (..., nb, 6) body momenta, base axes about the base origin.

    Returns:
        tuple: ``(M qd, C^T qd)``, (..., nb) each.
    """
    batch, nb = V.shape[:-2], tree.nb
    S, _ = kin.rows(batch)
    momentum, CTqd = np.empty(batch + (nb,)), np.empty(batch + (nb,))
    size = math.prod(batch)
    momentum_kernel(
        tree.parent,
        S,
        V.reshape(size, nb, 6),
        IV.reshape(size, nb, 6),
        momentum.reshape(size, nb),
        CTqd.reshape(size, nb),
    )
    return momentum, CTqd


def momentum_terms(tree, kin, qd):
    """Generalised momentum ``p = M qd`` and ``C^T qd`` of all body joints, without forming M or C.

    With the subtree spatial momenta ``h_j = sum_{i in subtree(j)} I_i V_i``: ``p_j = S_j . h_j``
    and ``(C^T qd)_j = Sdot_j . h_j`` (the body factor B_i of the Christoffel C satisfies
    ``B_i^T V_i = 0``, leaving only the ``Jdot^T I V`` part). This is what the momentum observer
    needs, at the cost of one RNEA-like pass.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., nb) body joint velocities [rad/s or m/s].

    Returns:
        tuple: ``(p [kg m^2/s or kg m/s], C^T qd [N m or N])``, (..., nb) each.
    """
    _, V, IV = velocity_terms(tree, kin, qd)
    return momentum_from_velocity_terms(tree, kin, V, IV)
