"""Coriolis matrix consistent with the Christoffel symbols of M(q), vectorised.

Echeandia & Wensing (2021): with the body-level factorisation
``B_i = 1/2 (V_i x* I_i - I_i V_i x + (I_i V_i) x-bar)``, the matrix
``C = sum_i J_i^T (B_i J_i + I_i Jdot_i)`` equals the Christoffel-symbol C of the reference,
so ``Mdot - 2 C`` is skew-symmetric. Composite (subtree) sums of ``B_i`` and ``I_i`` give::

    j anc-or-self k:  C_jk = S_j . (B^C_k S_k + I^C_k Sdot_k)
    k strict anc j:   C_jk = (B^C_j^T S_j) . S_k + (I^C_j S_j) . Sdot_k
"""

from .crba import composite_inertias
from .rnea import rnea_pass
from .spatial import force_bar, motion_cross


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
    anc = tree.ancestors
    I, S = kin.I, kin.S  # I first: S then comes from the force transforms
    if IC is None:
        IC = composite_inertias(tree, kin)
    V = anc @ (S * qd[..., None])
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
        tuple: ``(h, crmV, IV)``: ``h = C qd + g`` of all body joints (..., nb) [N m or N],
        and for :func:`momentum_from_velocity_terms` the body velocities' cross-product matrices
        ``crm(V)`` (..., nb, 6, 6) and body momenta ``I V`` (..., nb, 6) (base axes, about the
        base origin).
    """
    return rnea_pass(tree, kin, qd, None)


def momentum_from_velocity_terms(tree, kin, crmV, IV):
    """``(M qd, C^T qd)`` of all body joints from :func:`velocity_terms`' ``crm(V)`` and ``I V``.

    With the subtree momenta ``h_j`` and ``Sdot_j = V_j x S_j``: ``S_j . h_j`` and
    ``Sdot_j . h_j`` (see :func:`momentum_terms`).

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        crmV: (..., nb, 6, 6) body velocities' cross-product matrices.
        IV: (..., nb, 6) body momenta, base axes about the base origin.

    Returns:
        tuple: ``(M qd, C^T qd)``, (..., nb) each.
    """
    S = kin.S
    h_sub = tree.descendants @ IV
    Sdot = (crmV @ S[..., None])[..., 0]
    return (S * h_sub).sum(axis=-1), (Sdot * h_sub).sum(axis=-1)


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
    kin.F  # first: S then comes from the force transforms
    V = tree.ancestors @ (kin.S * qd[..., None])
    IV = kin.inertia_times(V[..., None])[..., 0]
    return momentum_from_velocity_terms(tree, kin, motion_cross(V), IV)
