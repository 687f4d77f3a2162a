"""Forward kinematics over all bodies at once, and the world-frame quantities the dynamics
algorithms share.

Every body's transform comes from a few batched calls: one matrix product builds all joint
transforms ``T_parent_body(q)`` (each is linear in ``[1, sin q, cos q, q]``: the tree's
``motion_constant`` and ``motion_basis``), and pointer jumping over the parent array composes
them in ``ceil(log2(depth))`` batched products (the tree's ``fk_jumps``).
"""

import numpy as np

from .spatial import skew


_SWAP_HALVES = np.array([3, 4, 5, 0, 1, 2])
_SIN_COS_PHASE = np.array([0.0, np.pi / 2])  # sin(q + phase) = [sin q, cos q]

#: batch size from which forward kinematics composes level by level (fewer flops) instead of
#: by pointer jumping (fewer numpy calls)
LEVEL_LOOP_BATCH = 16


def body_transforms(tree, q_full):
    """Transforms of every body frame in the base frame.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        q_full: (..., nb) joint coordinates of all bodies [rad or m].

    Returns:
        ndarray: ``W_T_B`` (..., nb, 4, 4).
    """
    nb = tree.nb
    batch = q_full.shape[:-1]
    sin_cos = np.sin(q_full[..., None] + _SIN_COS_PHASE)[..., None, :]
    T = sin_cos @ tree.motion_basis + tree.motion_constant
    if tree.has_prismatic:
        T += q_full[..., None, None] * tree.prismatic_basis[:, None, :]
    T = T.reshape(batch + (nb, 4, 4))
    schedule = tree.fk_levels if q_full.size >= LEVEL_LOOP_BATCH * nb else tree.fk_jumps
    for bodies, parents in schedule:
        T[..., bodies, :, :] = T[..., parents, :, :] @ T[..., bodies, :, :]
    return T


class Kinematics:
    """Per-call workspace: body poses, world joint axes and (lazily) world inertias.

    Attributes are in base-frame axes, about the base-frame origin.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        q_full: (..., nb) joint coordinates of all bodies [rad or m].

    Attributes:
        tree: the tree.
        T: (..., nb, 4, 4) body poses ``W_T_B``.
        F: (..., nb, 6, 6) force transforms body -> base.
        S: (..., nb, 6) joint motion axes ``[v; w]`` (revolute ``[p x z; z]``, prismatic
            ``[z; 0]``).
        I: (..., nb, 6, 6) spatial inertias of the bodies.
    """

    __slots__ = ("tree", "T", "_S", "_F", "_I", "_pX", "_zh")

    def __init__(self, tree, q_full):
        self.tree = tree
        self.T = body_transforms(tree, q_full)
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
            self._zh = self.T[..., :3, :] @ self.tree.axis_first_moment
        return self._zh

    @property
    def S(self):
        """(..., nb, 6) joint motion axes ``S_j = [v; w]`` in base axes about the base origin:
        revolute ``[p_j x z_j; z_j]``, prismatic ``[z_j; 0]``.
        """
        if self._S is None:
            if self._F is not None:
                # F [a_w; a_v] = [R a_w; [p]x R a_w + R a_v] is S with its halves swapped
                S = (self._F @ self.tree.swapped_axes)[..., _SWAP_HALVES, 0]
            else:
                z = self.zh[..., 0]
                S = np.empty(z.shape[:-1] + (6,))
                S[..., 3:] = z
                S[..., :3] = (self.pX @ z[..., None])[..., 0]
                prismatic = self.tree.prismatic
                if self.tree.has_prismatic:
                    S[..., prismatic, :3] = z[..., prismatic, :]
                    S[..., prismatic, 3:] = 0.0
            self._S = S
        return self._S

    def inertia_times(self, X):
        """The bodies' spatial inertias times motion vectors, ``I_i X_i``: with :attr:`I` when
        it is already formed, else ``F (I_B (F^T X))`` (to body axes, the body's own inertia,
        back to base axes), fewer flops than forming it.

        Args:
            X: (..., nb, 6, k) motion vectors ``[v; w]`` [m/s, rad/s or m/s^2, rad/s^2], base
                axes about the base origin.

        Returns:
            ndarray: (..., nb, 6, k) spatial forces ``[f; n]`` [N s, N m s or N, N m], base
            axes about the base origin.
        """
        if self._I is not None:
            return self._I @ X
        F = self.F
        return F @ (self.tree.inertia @ (F.swapaxes(-1, -2) @ X))

    @property
    def I(self):  # noqa: E743 - the book's name for spatial inertia
        """(..., nb, 6, 6) body spatial inertias in base axes about the base origin
        (``F I_B F^T``).
        """
        if self._I is None:
            # I_W = X^-T I_B X^-1 = F I_B F^T
            F = self.F
            self._I = F @ self.tree.inertia @ F.swapaxes(-1, -2)
        return self._I
