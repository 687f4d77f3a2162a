"""Generalised gravity g(q) (the torque that holds the arm still), vectorised.

With base-frame first moments ``h_i = m_i c_i`` and subtree sums ``H_j``, ``M_j``::

    revolute:  g_j = z_j . ((H_j - M_j p_j) x a),     a = -gravity
    prismatic: g_j = M_j z_j . a
"""


def generalized_gravity(model, kin):
    """Generalised gravity g for all body joints, from a kinematics workspace.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.

    Returns:
        ndarray: (..., nb) torques [N m or N].
    """
    T, zh = kin.T, kin.zh  # zh (..., nb, 3, 2): z_j, h_j (base axes)
    z = zh[..., 0]
    H = model._anc_T @ zh[..., 1]
    w = H - model._subtree_mass[:, None] * T[..., :3, 3]
    u = w @ model._neg_gravity_skew  # (w x a) with a = -gravity
    if model._has_prismatic:
        u[..., model._prismatic, :] = model._subtree_mass[model._prismatic, None] * (-model.gravity)
    return (z * u).sum(axis=-1)
