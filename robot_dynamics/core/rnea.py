"""Recursive Newton-Euler inverse dynamics (Featherstone, RBDA table 5.1) in base-frame
coordinates.

With every quantity in base-frame axes about the base origin (motion vectors ``[v; w]`` and
forces ``[f; n]``, linear part first, the reverse of Featherstone's ``[w; v]``; ``x*`` the force
cross product ``-(V x)^T``), no transform is needed between a body and its parent::

    forward, base to leaves   V_i = V_parent + S_i qd_i
                              A_i = A_parent + S_i qdd_i + V_i x S_i qd_i      A_0 = [-g; 0]
                              f_i = I_i A_i + V_i x* I_i V_i
    backward, leaves to base  tau_i = S_i . f_i,   f_parent += f_i
"""

import numpy as np

from .jit import batch_shape, kernel, rows
from .spatial import cross_force, cross_motion, dot, times


@kernel
def body_velocity(parent, S, qd, i, V, c):
    """The RNEA's velocity step for body ``i`` of one configuration: ``V_i = V_parent + S_i
    qd_i`` and the velocity-product acceleration ``c = V_i x S_i qd_i``.

    Args:
        parent: (nb,) parent body, -1 for the base (parents before children).
        S: (nb, 6) joint axes.
        qd: (nb,) body joint velocities.
        i: the body.
        V: (nb, 6) body velocities, filled for the bodies before ``i``; row ``i`` is written.
        c: (6,) output.
    """
    p = parent[i]
    for r in range(6):
        V[i, r] = S[i, r] * qd[i] + (V[p, r] if p >= 0 else 0.0)
    cross_motion(V[i], S[i], c)  # V_i x S_i qd_i = qd_i (V_i x S_i)
    for r in range(6):
        c[r] *= qd[i]


@kernel
def joint_forces(parent, S, f, tau):
    """The RNEA's backward pass for one configuration: ``tau_i = S_i . f_i`` from the leaves to
    the base, each body's force added to its parent's (``f`` accumulates in place).

    Args:
        parent: (nb,) parent body, -1 for the base (parents before children).
        S: (nb, 6) joint axes.
        f: (nb, 6) the bodies' own forces; on return, their subtrees' sums.
        tau: (nb,) output: joint forces.
    """
    for i in range(parent.shape[0] - 1, -1, -1):
        tau[i] = dot(S[i], f[i])
        p = parent[i]
        if p >= 0:
            for r in range(6):
                f[p, r] += f[i, r]


@kernel
def rnea_kernel(parent, base_acceleration, S, I, qd, qdd, tau, V, A, IV):
    """The RNEA's two passes, a configuration at a time.

    Args:
        parent: (nb,) parent body, -1 for the base (parents before children).
        base_acceleration: (nb, 6) ``a_0 = [-g; 0]`` on the rows of the bodies on the base.
        S: (Bk, nb, 6) joint axes; I: (Bk, nb, 6, 6) spatial inertias (Bk 1 or B).
        qd, qdd: (B, nb) body joint velocities and accelerations.
        tau: (B, nb) output: joint forces.
        V, A, IV: (B, nb, 6) outputs: body velocities, accelerations (gravity included) and
            momenta ``I_i V_i``.
    """
    nb = qd.shape[1]
    f = np.empty((nb, 6))
    t = np.empty(6)
    for b in range(qd.shape[0]):
        k = 0 if S.shape[0] == 1 else b
        Vb, Ab = V[b], A[b]
        for i in range(nb):
            body_velocity(parent, S[k], qd[b], i, Vb, t)
            p = parent[i]
            for r in range(6):
                a = Ab[p, r] if p >= 0 else base_acceleration[i, r]
                Ab[i, r] = a + S[k, i, r] * qdd[b, i] + t[r]
            times(I[k, i], Vb[i], IV[b, i])
            times(I[k, i], Ab[i], f[i])
            cross_force(Vb[i], IV[b, i], t)
            for r in range(6):
                f[i, r] += t[r]
        joint_forces(parent, S[k], f, tau[b])


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
    tau = rnea_pass(tree, kin, qd, qdd)[0]
    if f_ext is not None:
        body, F_W = f_ext
        if body >= 0:
            tau = tau - tree.ancestors[body] * np.einsum("...ji,...i->...j", kin.S, F_W)
    return tau


def rnea_pass(tree, kin, qd, qdd):
    """RNEA (gravity included) without external force, also returning the body motions.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., nb) body joint velocities [rad/s, m/s].
        qdd: (..., nb) body joint accelerations [rad/s^2, m/s^2], or None: zero.

    Returns:
        tuple: ``(tau_full, V, A, IV)``: joint forces (..., nb) [N m or N]; the bodies'
        velocities ``V_i`` [m/s, rad/s], accelerations ``A_i`` (gravity included as the base's
        acceleration ``[-g; 0]``) [m/s^2, rad/s^2] and momenta ``I_i V_i`` [N s, N m s], each
        (..., nb, 6), base axes about the base origin.
    """
    shapes = (kin.batch, qd.shape[:-1]) + (() if qdd is None else (qdd.shape[:-1],))
    batch = batch_shape(*shapes)
    nb = qd.shape[-1]
    qd = rows(qd, batch, (nb,))
    qdd = np.zeros(qd.shape) if qdd is None else rows(qdd, batch, (nb,))
    S, I = kin.rows(batch)
    tau = np.empty(qd.shape)
    V, A, IV = np.empty((3,) + qd.shape + (6,))
    rnea_kernel(tree.parent, tree.base_acceleration, S, I, qd, qdd, tau, V, A, IV)
    shape = batch + (nb, 6)
    return tau.reshape(batch + (nb,)), V.reshape(shape), A.reshape(shape), IV.reshape(shape)


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
