"""Composite-rigid-body algorithm for the joint-space inertia matrix, vectorised.

Composite inertias are subtree sums (one product with the descendant mask); then
``M_jk = S_j . (I^C_k S_k)`` for ``j`` an ancestor-or-self of ``k``, and symmetric.
"""


def composite_inertias(tree, kin):
    """Composite inertias ``I^C_j = sum_{i in subtree(j)} I_i``, base axes about the origin.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.

    Returns:
        ndarray: (..., nb, 6, 6) composite spatial inertias.
    """
    I = kin.I
    flat = I.reshape(I.shape[:-2] + (36,))
    return (tree.descendants @ flat).reshape(I.shape)


def crba(tree, kin, IC=None):
    """Joint-space inertia of all body joints (no armature, no mimic map).

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        IC: (..., nb, 6, 6) composite inertias if already computed, else None.

    Returns:
        tuple: ``(M_full (..., nb, nb) [kg m^2 / kg], IC)`` so that callers can reuse the
        composite inertias.
    """
    if IC is None:
        IC = composite_inertias(tree, kin)
    S = kin.S
    FS = (IC @ S[..., None])[..., 0]
    P = S @ FS.swapaxes(-1, -2)  # P[j, k] = S_j . I^C_k S_k
    upper = P * tree.descendants  # keep j ancestor-or-self of k
    M = upper + (P * tree.strict_descendants).swapaxes(-1, -2)
    return M, IC
