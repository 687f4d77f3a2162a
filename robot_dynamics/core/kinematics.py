"""Forward kinematics over all bodies at once, and the world-frame quantities the dynamics
algorithms share.

Every body's transform comes from a few batched calls: one matrix product builds all joint
transforms ``T_parent_body(q)`` (each is linear in ``[1, sin q, 1 - cos q, q]``), and pointer
jumping over the parent array composes them in ``ceil(log2(depth))`` batched products.
"""

import numpy as np

from .spatial import skew
from .tree import PRISMATIC, REVOLUTE


def motion_basis(tree):
    """Constant arrays that make every joint transform a single matrix product.

    Revolute about unit axis a with ``K = [a]x``: ``R(q) = I + sin q K + (1 - cos q) K^2``, so
    ``T_parent_body(q) = [1, sin q, cos q] @ [T0 (I + K^2), T0 K, -T0 K^2]`` and
    ``[1, sin q, cos q] = sin(q * [0, 1, 1] + [pi/2, 0, pi/2])``. Prismatic: translation
    ``q a``, added as ``q * T0 P``.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.

    Returns:
        tuple: ``(basis (nb, 3, 16), prismatic_basis (nb, 16))``.
    """
    nb = tree.nb
    basis = np.zeros((nb, 3, 4, 4))
    prismatic = np.zeros((nb, 4, 4))
    for b in range(nb):
        T0 = tree.T_parent_joint[b]
        a = tree.axis[b]
        if tree.joint_type[b] == REVOLUTE:
            K = np.zeros((4, 4))
            K[:3, :3] = skew(a)
            basis[b, 0] = T0 + T0 @ K @ K
            basis[b, 1] = T0 @ K
            basis[b, 2] = -T0 @ K @ K
        else:
            basis[b, 0] = T0
            P = np.zeros((4, 4))
            P[:3, 3] = a
            prismatic[b] = T0 @ P
    return basis.reshape(nb, 3, 16), prismatic.reshape(nb, 16)


_SWAP_HALVES = np.array([3, 4, 5, 0, 1, 2])
_PHASE_SCALE = np.array([0.0, 1.0, 1.0])
_PHASE_SHIFT = np.array([np.pi / 2, 0.0, np.pi / 2])

#: batch size from which forward kinematics composes level by level (fewer flops) instead of
#: by pointer jumping (fewer numpy calls)
LEVEL_LOOP_BATCH = 16


def body_transforms(model, q_full):
    """Transforms of every body frame in the base frame.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        q_full: (..., nb) joint coordinates of all bodies [rad or m].

    Returns:
        ndarray: ``W_T_B`` (..., nb, 4, 4).
    """
    tree = model.tree
    nb = tree.nb
    batch = q_full.shape[:-1]
    coeffs = np.sin(q_full[..., None] * _PHASE_SCALE + _PHASE_SHIFT)[..., None, :]
    T = coeffs @ model._basis
    if model._has_prismatic:
        T += q_full[..., None, None] * model._prismatic_basis[:, None, :]
    T = T.reshape(batch + (nb, 4, 4))
    schedule = model._fk_levels if q_full.size >= LEVEL_LOOP_BATCH * nb else model._fk_jumps
    for bodies, parents in schedule:
        if isinstance(bodies, slice):
            # in place: numpy buffers the overlapping operands itself
            np.matmul(T[..., parents, :, :], T[..., bodies, :, :], out=T[..., bodies, :, :])
        else:
            T[..., bodies, :, :] = T[..., parents, :, :] @ T[..., bodies, :, :]
    return T


class Kinematics:
    """Per-call workspace: body poses, world joint axes and (lazily) world inertias.

    Attributes are in base-frame axes, about the base-frame origin.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        q_full: (..., nb) joint coordinates of all bodies [rad or m].

    Attributes:
        T: (..., nb, 4, 4) body poses ``W_T_B``.
        F: (..., nb, 6, 6) force transforms body -> base.
        S: (..., nb, 6) joint motion axes ``[v; w]`` (revolute ``[p x z; z]``, prismatic
            ``[z; 0]``).
        I: (..., nb, 6, 6) spatial inertias of the bodies.
    """

    __slots__ = ("model", "T", "_S", "_F", "_I", "_pX", "_zh")

    def __init__(self, model, q_full):
        self.model = model
        self.T = body_transforms(model, q_full)
        self._S = self._F = self._I = self._pX = self._zh = None

    @property
    def F(self):
        """(..., nb, 6, 6) force transforms ``[[R, 0], [[p]x R, R]]`` body -> base (the inverse
        transpose of the motion transform ``[[R, [p]x R], [0, R]]``)."""
        if self._F is None:
            T = self.T
            R = T[..., :3, :3]
            F = np.zeros(T.shape[:-2] + (6, 6))
            F[..., :3, :3] = R
            F[..., 3:, 3:] = R
            np.matmul(self.pX, R, out=F[..., 3:, :3])
            self._F = F
        return self._F

    @property
    def pX(self):
        """(..., nb, 3, 3) cross-product matrices of the body origins."""
        if self._pX is None:
            p = self.T[..., :3, 3]
            self._pX = skew(p)
        return self._pX

    @property
    def zh(self):
        """(..., nb, 3, 2): joint axes z_j and body first moments m_i c_i, base axes."""
        if self._zh is None:
            self._zh = self.T[..., :3, :] @ self.model._axis_first_moment
        return self._zh

    @property
    def S(self):
        """(..., nb, 6) joint motion axes ``S_j = [v; w]`` in base axes about the base origin:
        revolute ``[p_j x z_j; z_j]``, prismatic ``[z_j; 0]``.
        """
        if self._S is None:
            if self._F is not None:
                # F [a_w; a_v] = [R a_w; [p]x R a_w + R a_v] is S with its halves swapped
                S = (self._F @ self.model._S_body_swapped)[..., _SWAP_HALVES, 0]
            else:
                z = self.zh[..., 0]
                S = np.empty(z.shape[:-1] + (6,))
                S[..., 3:] = z
                S[..., :3] = (self.pX @ z[..., None])[..., 0]
                prismatic = self.model._prismatic
                if self.model._has_prismatic:
                    S[..., prismatic, :3] = z[..., prismatic, :]
                    S[..., prismatic, 3:] = 0.0
            self._S = S
        return self._S

    @property
    def I(self):  # noqa: E743 - the book's name for spatial inertia
        """(..., nb, 6, 6) body spatial inertias in base axes about the base origin
        (``F I_B F^T``).
        """
        if self._I is None:
            # I_W = X^-T I_B X^-1 = F I_B F^T
            F = self.F
            self._I = F @ self.model.tree.inertia @ F.swapaxes(-1, -2)
        return self._I


def swapped_body_axes(tree):
    """Joint axes in body coordinates with halves swapped, ``[w; v]``: revolute ``[a; 0]``,
    prismatic ``[0; a]`` (what the force transform maps to the swapped world axis).

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.

    Returns:
        ndarray: (nb, 6, 1) swapped axes.
    """
    S = np.zeros((tree.nb, 6, 1))
    for b in range(tree.nb):
        if tree.joint_type[b] == PRISMATIC:
            S[b, 3:, 0] = tree.axis[b]
        else:
            S[b, :3, 0] = tree.axis[b]
    return S


def fk_schedules(tree):
    """Index schedules for :func:`body_transforms`.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.

    Returns:
        tuple: ``(jumps, levels)``. ``jumps``: pointer jumping, a list of ``(bodies, targets)``;
        step k composes each listed body with the body 2^k levels up, so a chain of depth D takes
        ceil(log2 D) batched products. ``levels``: ``(bodies, parents)`` per tree depth >= 2, for
        composing level by level.
    """
    nb = tree.nb
    parent = np.asarray(tree.parent)
    depth = tree.ancestors.sum(axis=1).astype(int)  # ancestors-or-self
    jumps = []
    pointer = parent.copy()
    while np.any(pointer >= 0):
        has = np.nonzero(pointer >= 0)[0]
        jumps.append((has, pointer[has]))
        pointer = np.where(pointer >= 0, pointer[np.maximum(pointer, 0)], -1)
        pointer[parent < 0] = -1
    levels = []
    for d in range(2, int(depth.max()) + 1 if nb else 0):
        bodies = np.nonzero(depth == d)[0]
        levels.append((bodies, parent[bodies]))
    return (
        tuple((as_index(a), as_index(b)) for a, b in jumps),
        tuple((as_index(a), as_index(b)) for a, b in levels),
    )


def as_index(indices):
    """Cheapest index for a set of body indices.

    Args:
        indices: 1-D integer array.

    Returns:
        slice or ndarray: a slice for a run of consecutive indices (a view, cheaper than fancy
        indexing), else the index array itself.
    """
    indices = np.asarray(indices)
    if indices.size and np.all(np.diff(indices) == 1):
        return slice(int(indices[0]), int(indices[-1]) + 1)
    return indices
