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

from .jit import kernel

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
    """``X @ C`` for a stack X and one matrix C, as a single matrix product.

    Args:
        X: (..., k) stack of row vectors or matrices.
        C: (k, m) matrix.

    Returns:
        ndarray: (..., m) product.
    """
    if X.ndim <= 2:
        return X @ C
    k = X.shape[-1]
    return (X.reshape(-1, k) @ C).reshape(X.shape[:-1] + (C.shape[-1],))


def skew(p):
    """Cross-product matrices ``[p]x`` of vectors ``p``.

    Args:
        p: (..., 3) vectors.

    Returns:
        ndarray: (..., 3, 3) matrices with ``[p]x u = p x u``.
    """
    p = np.asarray(p, dtype=float)
    return right_mul(p, SKEW_BASIS).reshape(p.shape[:-1] + (3, 3))


def _linear_basis(matrix_of):
    """(6, 36) basis B of a 6x6 matrix that is linear in a 6-vector x:
    ``(x @ B).reshape(6, 6) == matrix_of(x[:3], x[3:])``."""
    return np.array([matrix_of(e[:3], e[3:]).ravel() for e in np.eye(6)])


def _motion_cross_matrix(v, w):
    """crm([v; w]) = [[[w]x, [v]x], [0, [w]x]]: the motion cross product ``[v; w] x M``."""
    return np.block([[skew(w), skew(v)], [np.zeros((3, 3)), skew(w)]])


def _force_bar_matrix(f, n):
    """Matrix B of ``[f; n]`` with ``B V = V x* [f; n]``: since
    ``crf(V) F = [w x f; w x n + v x f] = [-[f]x w; -[f]x v - [n]x w]``."""
    return np.block([[np.zeros((3, 3)), -skew(f)], [-skew(f), -skew(n)]])


MOTION_CROSS_BASIS = _linear_basis(_motion_cross_matrix)
FORCE_BAR_BASIS = _linear_basis(_force_bar_matrix)


def motion_cross(V):
    """Motion cross-product matrix ``crm(V)``: ``crm(V) M`` is the motion cross product ``V x M``.

    Args:
        V: (..., 6) motion vectors ``[v; w]``.

    Returns:
        ndarray: (..., 6, 6) ``crm(V)``.
    """
    return right_mul(V, MOTION_CROSS_BASIS).reshape(V.shape[:-1] + (6, 6))


def force_bar(F):
    """Matrix ``B`` with ``B V = V x* F`` (the force cross product).

    Args:
        F: (..., 6) force vectors ``[f; n]``.

    Returns:
        ndarray: (..., 6, 6) ``B``.
    """
    return right_mul(F, FORCE_BAR_BASIS).reshape(F.shape[:-1] + (6, 6))


@kernel
def cross_motion(V, X, out):
    """The motion cross product ``out = V x X = [w x x_v + v x x_w; w x x_w]`` of (6,) motion
    vectors ``V = [v; w]`` and ``X = [x_v; x_w]`` (compiled; ``out`` is not ``V`` or ``X``)."""
    v0, v1, v2, w0, w1, w2 = V[0], V[1], V[2], V[3], V[4], V[5]
    x0, x1, x2, y0, y1, y2 = X[0], X[1], X[2], X[3], X[4], X[5]
    out[0] = w1 * x2 - w2 * x1 + v1 * y2 - v2 * y1
    out[1] = w2 * x0 - w0 * x2 + v2 * y0 - v0 * y2
    out[2] = w0 * x1 - w1 * x0 + v0 * y1 - v1 * y0
    out[3] = w1 * y2 - w2 * y1
    out[4] = w2 * y0 - w0 * y2
    out[5] = w0 * y1 - w1 * y0


@kernel
def cross_force(V, F, out):
    """The force cross product ``out = V x* F = [w x f; w x n + v x f]`` of a (6,) motion vector
    ``V = [v; w]`` and a force ``F = [f; n]`` (compiled; ``out`` is not ``V`` or ``F``)."""
    v0, v1, v2, w0, w1, w2 = V[0], V[1], V[2], V[3], V[4], V[5]
    f0, f1, f2, n0, n1, n2 = F[0], F[1], F[2], F[3], F[4], F[5]
    out[0] = w1 * f2 - w2 * f1
    out[1] = w2 * f0 - w0 * f2
    out[2] = w0 * f1 - w1 * f0
    out[3] = w1 * n2 - w2 * n1 + v1 * f2 - v2 * f1
    out[4] = w2 * n0 - w0 * n2 + v2 * f0 - v0 * f2
    out[5] = w0 * n1 - w1 * n0 + v0 * f1 - v1 * f0


@kernel
def times(M, x, out):
    """``out = M x`` of a (6, 6) matrix and a (6,) vector (compiled)."""
    for r in range(6):
        acc = 0.0
        for c in range(6):
            acc += M[r, c] * x[c]
        out[r] = acc


@kernel
def dot(a, b):
    """``a . b`` of two (6,) vectors (compiled)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5]


def rpy_to_matrix(rpy):
    """URDF roll-pitch-yaw (fixed axes x, y, z) to a rotation matrix ``Rz(y) Ry(p) Rx(r)``.

    Args:
        rpy: (3,) roll, pitch, yaw [rad].

    Returns:
        ndarray: (3, 3) rotation matrix.
    """
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def homogeneous(R, p):
    """Homogeneous transform from a rotation and a translation.

    Args:
        R: (3, 3) rotation matrix.
        p: (3,) translation [m].

    Returns:
        ndarray: (4, 4) transform.
    """
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def spatial_inertia(mass, com, inertia_com):
    """Spatial inertia about the frame origin, ``[v; w]`` order.

    Args:
        mass: mass [kg].
        com: (3,) centre of mass [m], in frame axes.
        inertia_com: (3, 3) rotational inertia [kg m^2] about the COM, frame axes.

    Returns:
        ndarray: (6, 6) spatial inertia.
    """
    C = skew(com)
    out = np.zeros((6, 6))
    out[:3, :3] = mass * np.eye(3)
    out[:3, 3:] = -mass * C
    out[3:, :3] = mass * C
    out[3:, 3:] = np.asarray(inertia_com) - mass * C @ C
    return out


def inertia_parameters(I6):
    """Inverse of :func:`spatial_inertia`.

    Args:
        I6: (6, 6) spatial inertia about the frame origin, ``[v; w]`` order.

    Returns:
        tuple: ``(mass [kg], com (3,) [m], inertia about the COM (3, 3) [kg m^2])``, frame axes
        (com zero for a massless body).
    """
    mass = I6[0, 0]
    if mass <= 0.0:
        return 0.0, np.zeros(3), I6[3:, 3:].copy()
    C = I6[3:, :3] / mass
    com = np.array([C[2, 1], C[0, 2], C[1, 0]])
    return mass, com, I6[3:, 3:] + mass * C @ C


def force_transform(T):
    """Force transform ``[[R, 0], [[p]x R, R]]`` of homogeneous transforms ``T``: maps ``[f; n]``
    from the child frame to the parent (``X I X^T`` moves a spatial inertia).

    Args:
        T: (..., 4, 4) parent_T_child transforms [m].

    Returns:
        ndarray: (..., 6, 6) force transforms.
    """
    R = T[..., :3, :3]
    X = np.zeros(T.shape[:-2] + (6, 6))
    X[..., :3, :3] = R
    X[..., 3:, 3:] = R
    X[..., 3:, :3] = skew(T[..., :3, 3]) @ R
    return X


def wrench_in_frame(wrench, pose, point=None):
    """A wrench as a force-torque sensor at frame A reads it (the ROS ``WrenchStamped`` meaning:
    components in A's axes, moment about A's origin).

    Args:
        wrench: (..., 6) ``[f; n]`` [N, N m] in base axes, moment about ``point``.
        pose: (..., 4, 4) ``B_T_A``: rotation R and origin p of frame A in the base frame.
        point: (..., 3) [m] base-frame point the moment is taken about (default: the base
            origin).

    Returns:
        (..., 6) ``[f_A; n_A]`` with ``f_A = R^T f`` and ``n_A = R^T (n + (point - p) x f)``.
        Its inverse, a wrench in frame A moved to frame B, is ``force_transform(B_T_A) @ w``.
    """
    wrench = np.asarray(wrench, dtype=float)
    pose = np.asarray(pose, dtype=float)
    f, n = wrench[..., :3], wrench[..., 3:]
    R, p = pose[..., :3, :3], pose[..., :3, 3]
    lever = -p if point is None else np.asarray(point, dtype=float) - p
    RT = np.swapaxes(R, -1, -2)
    n_about_origin = n + np.cross(lever, f)
    return np.concatenate(
        [(RT @ f[..., None])[..., 0], (RT @ n_about_origin[..., None])[..., 0]], axis=-1
    )
