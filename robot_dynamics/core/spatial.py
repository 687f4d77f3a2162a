"""Spatial-algebra helpers shared by the algorithms.

Conventions (the same as Pinocchio's):

- motion vectors (twists, joint axes, accelerations) are ``[v; w]``: linear velocity of the
  body-fixed point at the frame origin, then angular velocity;
- force vectors (wrenches) are ``[f; n]``: force, then moment about the frame origin;
- a spatial inertia about a frame origin, in ``[v; w]`` / ``[f; n]`` order, is
  ``[[m 1, -m [c]x], [m [c]x, I_c - m [c]x^2]]`` with ``c`` the centre of mass.

The world-frame algorithms express every spatial quantity in base-frame axes about the
base-frame origin, so no per-link coordinate transforms are needed between links.
"""

import numpy as np

#: ``(p @ SKEW_BASIS).reshape(..., 3, 3)`` is the cross-product matrix ``[p]x`` of ``p``.
SKEW_BASIS = np.zeros((3, 9))
# [p]x = [[0, -z, y], [z, 0, -x], [-y, x, 0]]: entry (row, col) -> row * 3 + col
SKEW_BASIS[0, 1 * 3 + 2] = -1.0
SKEW_BASIS[0, 2 * 3 + 1] = 1.0
SKEW_BASIS[1, 0 * 3 + 2] = 1.0
SKEW_BASIS[1, 2 * 3 + 0] = -1.0
SKEW_BASIS[2, 0 * 3 + 1] = -1.0
SKEW_BASIS[2, 1 * 3 + 0] = 1.0


def right_mul(X, C):
    """``X @ C`` for a stack X (..., k) and one matrix C (k, m), as a single matrix product."""
    if X.ndim <= 2:
        return X @ C
    k = X.shape[-1]
    return (X.reshape(-1, k) @ C).reshape(X.shape[:-1] + (C.shape[-1],))


def skew(p):
    """Cross-product matrices ``[p]x``, shape ``(..., 3, 3)``, of vectors ``p`` ``(..., 3)``."""
    p = np.asarray(p, dtype=float)
    return right_mul(p, SKEW_BASIS).reshape(p.shape[:-1] + (3, 3))


def _motion_cross_basis():
    """``(V @ basis).reshape(6, 6)`` is ``crm(V)``, the motion cross-product matrix of ``V``."""
    basis = np.zeros((6, 6, 6))
    for k in range(6):
        e = np.zeros(6)
        e[k] = 1.0
        v, w = e[:3], e[3:]
        m = np.zeros((6, 6))
        m[:3, :3] = skew(w)
        m[:3, 3:] = skew(v)
        m[3:, 3:] = skew(w)
        basis[k] = m
    return basis.reshape(6, 36)


def _force_bar_basis():
    """``(F @ basis).reshape(6, 6)`` is the matrix ``F x-bar`` with ``(F x-bar) V = crf(V) F``."""
    basis = np.zeros((6, 6, 6))
    for k in range(6):
        e = np.zeros(6)
        e[k] = 1.0
        f, n = e[:3], e[3:]
        # crf(V) F = [w x f; w x n + v x f] = [-[f]x w; -[f]x v - [n]x w]
        m = np.zeros((6, 6))
        m[:3, 3:] = -skew(f)
        m[3:, :3] = -skew(f)
        m[3:, 3:] = -skew(n)
        basis[k] = m
    return basis.reshape(6, 36)


MOTION_CROSS_BASIS = _motion_cross_basis()
FORCE_BAR_BASIS = _force_bar_basis()


def motion_cross(V):
    """``crm(V)`` ``(..., 6, 6)``: ``crm(V) M`` is the motion cross product ``V x M``."""
    return right_mul(V, MOTION_CROSS_BASIS).reshape(V.shape[:-1] + (6, 6))


def force_bar(F):
    """``(..., 6, 6)`` matrix ``B`` with ``B V = V x* F`` (the force cross product)."""
    return right_mul(F, FORCE_BAR_BASIS).reshape(F.shape[:-1] + (6, 6))


def rpy_to_matrix(rpy):
    """URDF roll-pitch-yaw (fixed axes x, y, z) to a rotation matrix ``Rz(y) Ry(p) Rx(r)``."""
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def homogeneous(R, p):
    """4x4 homogeneous transform from a rotation ``R`` (3, 3) and a translation ``p`` (3,)."""
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def spatial_inertia(mass, com, inertia_com):
    """6x6 spatial inertia about the frame origin, ``[v; w]`` order.

    mass: kg; com: (3,) m, in frame axes; inertia_com: (3, 3) kg m^2 about the COM, frame axes.
    """
    C = skew(com)
    out = np.zeros((6, 6))
    out[:3, :3] = mass * np.eye(3)
    out[:3, 3:] = -mass * C
    out[3:, :3] = mass * C
    out[3:, 3:] = np.asarray(inertia_com) - mass * C @ C
    return out


def inertia_parameters(I6):
    """Inverse of :func:`spatial_inertia`: ``(mass, com (3,), inertia about COM (3, 3))``."""
    mass = I6[0, 0]
    if mass <= 0.0:
        return 0.0, np.zeros(3), I6[3:, 3:].copy()
    C = I6[3:, :3] / mass
    com = np.array([C[2, 1], C[0, 2], C[1, 0]])
    return mass, com, I6[3:, 3:] + mass * C @ C


def motion_transform(T):
    """6x6 motion transform ``[[R, [p]x R], [0, R]]`` of the homogeneous transforms ``T``."""
    R = T[..., :3, :3]
    X = np.zeros(T.shape[:-2] + (6, 6))
    X[..., :3, :3] = R
    X[..., 3:, 3:] = R
    X[..., :3, 3:] = skew(T[..., :3, 3]) @ R
    return X
