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
def point_jacobian_kernel(S, chain, T, local, J):
    """Jacobian of a frame's origin moved by the joints of ``chain``, a configuration at a time.

    Each joint's column is its axis moved to the origin ``p``, ``[v + w x p; w]`` (revolute:
    ``z x (p - o)``, prismatic: ``z``), for the joints that move the frame, zero for the others;
    in the frame's own axes (``R^T`` on each half) when ``local``.

    Args:
        S: (B, nb, 6) joint axes ``[v; w]`` about the base origin.
        chain: (nb,) 1.0 for the joints that move the frame, else 0.0.
        T: (B, 4, 4) the frame's pose in the base frame [m].
        local: whether the rows are in the frame's axes (else base axes).
        J: (B, 6, nb) output.
    """
    c = np.empty(6)
    for b in range(S.shape[0]):
        R = T[b]
        p0, p1, p2 = R[0, 3], R[1, 3], R[2, 3]
        for j in range(S.shape[1]):
            m = chain[j]
            v0, v1, v2 = S[b, j, 0], S[b, j, 1], S[b, j, 2]
            w0, w1, w2 = S[b, j, 3], S[b, j, 4], S[b, j, 5]
            c[0] = m * (v0 + w1 * p2 - w2 * p1)
            c[1] = m * (v1 + w2 * p0 - w0 * p2)
            c[2] = m * (v2 + w0 * p1 - w1 * p0)
            c[3], c[4], c[5] = m * w0, m * w1, m * w2
            for h in range(0, 6, 3):
                for r in range(3):
                    if local:  # R^T c
                        J[b, h + r, j] = R[0, r] * c[h] + R[1, r] * c[h + 1] + R[2, r] * c[h + 2]
                    else:
                        J[b, h + r, j] = c[h + r]


def frame_jacobian_full(tree, kin, frame, local=False):
    """Jacobian over all body joints, rows ``[v; w]`` of the frame origin.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        frame: link name.
        local: rows in the frame's own axes (else base axes).

    Returns:
        tuple: ``(J_full (..., 6, nb), W_T_F (..., 4, 4))``.
    """
    info = tree.frames[frame]
    W_T_F = frame_pose(tree, kin.T, frame)
    batch, nb = kin.batch, tree.nb
    J = np.zeros(batch + (6, nb))
    if info.body >= 0:
        size = math.prod(batch)
        S, _ = kin.rows(batch)
        T = W_T_F.reshape(size, 4, 4)
        point_jacobian_kernel(S, tree.ancestors[info.body], T, local, J.reshape(size, 6, nb))
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
