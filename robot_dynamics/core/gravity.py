"""Generalised gravity g(q) (the torque that holds the arm still), vectorised.

With base-frame first moments ``h_i = m_i c_i`` and subtree sums ``H_j``, ``M_j``::

    revolute:  g_j = z_j . ((H_j - M_j p_j) x a),     a = -gravity
    prismatic: g_j = M_j z_j . a
"""


def generalized_gravity(tree, kin):
    """Generalised gravity g (the tree's gravity) for all body joints, from a kinematics workspace.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.

    Returns:
        ndarray: (..., nb) torques [N m or N].
    """
    T, zh = kin.T, kin.zh  # zh (..., nb, 3, 2): z_j, h_j (base axes)
    z = zh[..., 0]
    H = tree.descendants @ zh[..., 1]
    w = H - tree.subtree_mass[:, None] * T[..., :3, 3]
    u = w @ tree.neg_gravity_skew  # (w x a) with a = -gravity
    if tree.has_prismatic:
        prismatic = tree.prismatic
        u[..., prismatic, :] = tree.subtree_mass[prismatic, None] * (-tree.gravity)
    return (z * u).sum(axis=-1)
