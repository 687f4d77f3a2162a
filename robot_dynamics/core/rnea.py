"""Recursive Newton-Euler inverse dynamics, vectorised over bodies with ancestor masks.

With every quantity in base-frame axes about the base origin (Featherstone's RNEA in world
coordinates; motion vectors ``[v; w]`` and forces ``[f; n]``, linear part first, the reverse of
Featherstone's ``[w; v]``; ``x*`` the force cross product ``-(V x)^T``), the forward pass is a
masked sum over ancestors and the backward pass a masked sum over descendants::

    V_i = sum_{j anc i} S_j qd_j
    A_i = a_0 + sum_{j anc i} (S_j qdd_j + V_j x S_j qd_j)        a_0 = [-g; 0]
    f_i = I_i A_i + V_i x* I_i V_i
    tau_j = S_j . sum_{i desc j} f_i
"""

import numpy as np

from .spatial import motion_cross


def rnea(tree, kin, qd, qdd, f_ext=None):
    """Joint forces of all bodies' joints (RNEA), the tree's gravity included.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., nb) body joint velocities [rad/s, m/s].
        qdd: (..., nb) body joint accelerations [rad/s^2, m/s^2], or None: zero.
        f_ext: optional ``(body, F_W)``: a spatial force ``[f; n]`` (..., 6) [N, N m] about the
            base origin, base axes, that the environment applies to body ``body``.

    Returns:
        ndarray: tau_full (..., nb) [N m or N].
    """
    tau, _, _ = rnea_pass(tree, kin, qd, qdd)
    if f_ext is not None:
        body, F_W = f_ext
        if body >= 0:
            tau = tau - tree.ancestors[body] * np.einsum("...ji,...i->...j", kin.S, F_W)
    return tau


def body_motions(tree, kin, qd, qdd):
    """The RNEA's forward pass: every body's velocity and acceleration, gravity included as the
    base's acceleration (``tree.base_acceleration``).

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., nb) body joint velocities [rad/s, m/s].
        qdd: (..., nb) body joint accelerations [rad/s^2, m/s^2], or None: zero.

    Returns:
        tuple: ``(VA, crmV)``: ``VA`` (..., nb, 6, 2) the velocities ``V_i`` [m/s, rad/s] and
        accelerations ``A_i`` [m/s^2, rad/s^2] side by side (for one product with a matrix per
        body), and ``crm(V_i)`` (..., nb, 6, 6); base axes about the base origin.
    """
    kin.F  # first: S then comes from the force transforms
    S = kin.S
    anc = tree.ancestors
    Sqd = S * qd[..., None]
    Sqdd = None if qdd is None else S * qdd[..., None]
    shape = Sqd.shape
    if Sqdd is not None and Sqdd.shape != shape:
        shape = np.broadcast_shapes(shape, Sqdd.shape)
    VA = np.empty(shape + (2,))
    V, A = VA[..., 0], VA[..., 1]
    V[...] = anc @ Sqd  # sums over ancestors
    crmV = motion_cross(V)
    bias = (crmV @ Sqd[..., None])[..., 0]  # Sdot_j qd_j
    if Sqdd is not None:
        bias += Sqdd
    bias += tree.base_acceleration  # gravity, as the base's acceleration
    A[...] = anc @ bias
    return VA, crmV


def rnea_pass(tree, kin, qd, qdd):
    """RNEA (gravity included) without external force, also returning what the momentum terms reuse.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., nb) body joint velocities [rad/s, m/s].
        qdd: (..., nb) body joint accelerations [rad/s^2, m/s^2], or None: zero.

    Returns:
        tuple: ``(tau_full (..., nb) [N m or N], crmV, IV)`` with the body velocities' cross
        product matrices ``crm(V_i)`` (..., nb, 6, 6) and body momenta ``I_i V_i`` (..., nb, 6),
        base axes about the base origin.
    """
    VA, crmV = body_motions(tree, kin, qd, qdd)
    IVA = kin.inertia_times(VA)
    IV = IVA[..., :1]
    f = (IVA[..., 1:] - crmV.swapaxes(-1, -2) @ IV)[..., 0]
    tau = (kin.S * (tree.descendants @ f)).sum(axis=-1)  # sums over descendants
    return tau, crmV, IV[..., 0]


def world_wrench(point_W, wrench_W):
    """Spatial force about the base origin of a wrench ``[f; n]`` given about ``point_W``.

    Args:
        point_W: (..., 3) point [m], base frame.
        wrench_W: (..., 6) wrench [N, N m], base axes, moment about ``point_W``.

    Returns:
        ndarray: (..., 6) wrench [N, N m], base axes, moment about the base origin.
    """
    p = np.asarray(point_W, dtype=float)
    wrench_W = np.asarray(wrench_W, dtype=float)
    shape = np.broadcast_shapes(p.shape[:-1], wrench_W.shape[:-1]) + (6,)
    out = np.array(np.broadcast_to(wrench_W, shape))
    f = out[..., :3]
    out[..., 3] += p[..., 1] * f[..., 2] - p[..., 2] * f[..., 1]
    out[..., 4] += p[..., 2] * f[..., 0] - p[..., 0] * f[..., 2]
    out[..., 5] += p[..., 0] * f[..., 1] - p[..., 1] * f[..., 0]
    return out
