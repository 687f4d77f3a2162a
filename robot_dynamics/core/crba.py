"""Composite-rigid-body algorithm for the joint-space inertia matrix, vectorised.

Composite inertias are subtree sums (one product with the descendant mask); then
``M_jk = S_j . (I^C_k S_k)`` for ``j`` an ancestor-or-self of ``k``, and symmetric.
"""


def composite_inertias(model, kin):
    """(..., nb, 6, 6): ``I^C_j = sum_{i in subtree(j)} I_i`` in base axes about the origin."""
    I = kin.I
    flat = I.reshape(I.shape[:-2] + (36,))
    return (model._anc_T @ flat).reshape(I.shape)


def crba(model, kin, IC=None):
    """Joint-space inertia of all body joints, (..., nb, nb) (no armature, no mimic map).

    Returns ``(M_full, IC)`` so that callers can reuse the composite inertias.
    """
    if IC is None:
        IC = composite_inertias(model, kin)
    S = kin.S
    FS = (IC @ S[..., None])[..., 0]
    P = S @ FS.swapaxes(-1, -2)  # P[j, k] = S_j . I^C_k S_k
    upper = P * model._anc_T  # keep j ancestor-or-self of k
    M = upper + (P * model._anc_T_strict).swapaxes(-1, -2)
    return M, IC
