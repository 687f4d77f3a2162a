"""Frame Jacobians, frame poses and the acceleration bias ``Jdot qd``."""

import numpy as np

from .spatial import motion_cross, skew


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
    nb = tree.nb
    if info.body < 0:
        return np.zeros(kin.T.shape[:-3] + (6, nb)), W_T_F
    z = kin.zh[..., 0]
    d = W_T_F[..., None, :3, 3] - kin.T[..., :3, 3]  # frame origin relative to joints
    z_x_d = (skew(z) @ d[..., None])[..., 0]  # revolute: v = z x d
    mask = tree.ancestors[info.body, :, None]  # (nb, 1): the joints that move the frame
    cols = np.concatenate([z_x_d, z], axis=-1) * mask
    if tree.has_prismatic:
        prismatic = tree.prismatic
        cols[..., prismatic, :3] = z[..., prismatic, :] * mask[prismatic]
        cols[..., prismatic, 3:] = 0.0
    J = cols.swapaxes(-1, -2)
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
