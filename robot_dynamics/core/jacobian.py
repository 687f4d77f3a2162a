"""Frame Jacobians, frame poses and the acceleration bias ``Jdot qd``."""

import math

import numpy as np

from .jit import kernel
from .spatial import motion_cross


def frame_pose(tree, T, frame):
    """Pose of link ``frame`` in the base frame, from body poses.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        T: (..., nb, 4, 4) body poses in the base frame.
        frame: link name (a key of ``tree.frames``).

    Returns:
        ndarray: (..., 4, 4) ``B_T_F`` [m].
    """
    info = tree.frames[frame]
    if info.body < 0:
        return np.broadcast_to(info.T_body_frame, T.shape[:-3] + (4, 4)).copy()
    return T[..., info.body, :, :] @ info.T_body_frame


@kernel
def point_jacobian_kernel(S, chain, p, J):
    """Jacobian of a point moved by the joints of ``chain``, a configuration at a time.

    Each joint's column is its axis moved to the point, ``[v + w x p; w]`` (revolute: ``z x (p -
    o)``, prismatic: ``z``), for the joints that move the point, zero for the others.

    Args:
        S: (B, nb, 6) joint axes ``[v; w]`` about the base origin.
        chain: (nb,) 1.0 for the joints that move the point, else 0.0.
        p: (B, 3) the point, base frame [m].
        J: (B, 6, nb) output.
    """
    for b in range(S.shape[0]):
        p0, p1, p2 = p[b, 0], p[b, 1], p[b, 2]
        for j in range(S.shape[1]):
            m = chain[j]
            v0, v1, v2, w0, w1, w2 = (
                S[b, j, 0],
                S[b, j, 1],
                S[b, j, 2],
                S[b, j, 3],
                S[b, j, 4],
                S[b, j, 5],
            )
            J[b, 0, j] = m * (v0 + w1 * p2 - w2 * p1)
            J[b, 1, j] = m * (v1 + w2 * p0 - w0 * p2)
            J[b, 2, j] = m * (v2 + w0 * p1 - w1 * p0)
            J[b, 3, j], J[b, 4, j], J[b, 5, j] = m * w0, m * w1, m * w2


def frame_jacobian_full(tree, kin, frame):
    """Jacobian over all body joints, rows ``[v; w]`` of the frame origin, base axes.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        frame: link name.

    Returns:
        tuple: ``(J_full (..., 6, nb), W_T_F (..., 4, 4))``.
    """
    info = tree.frames[frame]
    W_T_F = frame_pose(tree, kin.T, frame)
    batch, nb = kin.batch, tree.nb
    J = np.zeros(batch + (6, nb))
    if info.body >= 0:
        size = math.prod(batch)
        p = np.ascontiguousarray(W_T_F[..., :3, 3]).reshape(size, 3)
        S = kin.S.reshape(size, nb, 6)
        point_jacobian_kernel(S, tree.ancestors[info.body], p, J.reshape(size, 6, nb))
    return J, W_T_F


def to_local_axes(J, W_T_F):
    """Rotate a Jacobian or a 6-vector from base axes to the frame's axes.

    Args:
        J: (..., 6, k) Jacobian or (..., 6) vector ``[linear; angular]``, base axes.
        W_T_F: (..., 4, 4) pose of the frame in the base frame.

    Returns:
        ndarray: same shape as ``J``, in the frame's axes.
    """
    R = W_T_F[..., :3, :3]
    if J.ndim == W_T_F.ndim - 1:
        # the halves as rows: [v; w] -> [v^T; w^T] R = [(R^T v)^T; (R^T w)^T]
        return (J.reshape(J.shape[:-1] + (2, 3)) @ R).reshape(J.shape)
    # both halves [J_v; J_w] by one broadcast product: R^T J_v, R^T J_w
    Rt = W_T_F[..., None, :3, :3].swapaxes(-1, -2)
    return (Rt @ J.reshape(J.shape[:-2] + (2, 3, J.shape[-1]))).reshape(J.shape)


def frame_acceleration_bias(tree, kin, qd, frame):
    """Classical acceleration of the frame at zero joint acceleration, no gravity: ``Jdot qd``.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., nb) body joint velocities [rad/s or m/s].
        frame: link name.

    Returns:
        tuple: ``(bias (..., 6) [m/s^2; rad/s^2] in base axes, W_T_F (..., 4, 4))``.
    """
    info = tree.frames[frame]
    W_T_F = frame_pose(tree, kin.T, frame)
    if info.body < 0:
        return np.zeros(kin.T.shape[:-3] + (6,)), W_T_F
    S = kin.S
    mask = tree.ancestors[info.body]
    Sqd = S * (qd * mask)[..., None]
    V = Sqd.sum(axis=-2)
    # spatial accel of the body at qdd = 0: sum_j V_j x S_j qd_j with V_j the velocity of body j
    Vbodies = tree.ancestors @ Sqd
    A = np.einsum("...jab,...jb->...a", motion_cross(Vbodies), Sqd)
    p = W_T_F[..., :3, 3]
    v, w = V[..., :3], V[..., 3:]
    a, alpha = A[..., :3], A[..., 3:]
    v_p = v + np.cross(w, p)
    lin = a + np.cross(alpha, p) + np.cross(w, v_p)
    return np.concatenate([lin, alpha], axis=-1), W_T_F
