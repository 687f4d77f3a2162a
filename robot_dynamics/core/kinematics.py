"""Forward kinematics over all bodies at once, and the world-frame quantities the dynamics
algorithms share.

Every body's transform comes from a few batched calls: one matrix product builds all joint
transforms ``T_parent_body(q)`` (each is linear in ``[1, sin q, 1 - cos q, q]``), and pointer
jumping over the parent array composes them in ``ceil(log2(depth))`` batched products.
"""

import numpy as np

from .spatial import SKEW_BASIS, skew
from .tree import PRISMATIC, REVOLUTE


def motion_basis(tree):
    """(nb, 4, 16): ``[1, sin q, 1 - cos q, q] @ basis`` is the flattened ``T_parent_body(q)``.

    Revolute about unit axis a with ``K = [a]x``: ``R(q) = I + sin q K + (1 - cos q) K^2``;
    prismatic: translation ``q a``.
    """
    nb = tree.nb
    basis = np.zeros((nb, 4, 4, 4))
    for b in range(nb):
        T0 = tree.T_parent_joint[b]
        a = tree.axis[b]
        basis[b, 0] = T0
        if tree.joint_type[b] == REVOLUTE:
            K = np.zeros((4, 4))
            K[:3, :3] = skew(a)
            basis[b, 1] = T0 @ K
            basis[b, 2] = T0 @ K @ K
        else:
            P = np.zeros((4, 4))
            P[:3, 3] = a
            basis[b, 3] = T0 @ P
    return basis.reshape(nb, 4, 16)


def body_transforms(tree, basis, q_full):
    """Transforms of every body frame in the base frame.

    q_full: (..., nb) joint coordinates of all bodies (rad or m).
    Returns ``W_T_B`` (..., nb, 4, 4).
    """
    nb = tree.nb
    batch = q_full.shape[:-1]
    coeffs = np.empty(batch + (nb, 1, 4))
    coeffs[..., 0, 0] = 1.0
    np.sin(q_full, out=coeffs[..., 0, 1])
    np.cos(q_full, out=coeffs[..., 0, 2])
    np.subtract(1.0, coeffs[..., 0, 2], out=coeffs[..., 0, 2])
    coeffs[..., 0, 3] = q_full
    local = (coeffs @ basis).reshape(batch + (nb, 4, 4))
    if not tree.jumps:
        return local
    T = np.empty(batch + (nb + 1, 4, 4))
    T[..., nb, :, :] = np.eye(4)
    T[..., :nb, :, :] = local
    for jump in tree.jumps:
        T[..., :nb, :, :] = T[..., jump, :, :] @ T[..., :nb, :, :]
    return T[..., :nb, :, :]


class Kinematics:
    """Per-call workspace: body poses, world joint axes and (lazily) world inertias.

    Attributes (base-frame axes, about the base-frame origin):
      T: (..., nb, 4, 4) body poses ``W_T_B``.
      X: (..., nb, 6, 6) motion transforms ``[[R, [p]x R], [0, R]]`` body -> base.
      S: (..., nb, 6) joint motion axes ``[v; w]`` (revolute ``[p x z; z]``, prismatic ``[z; 0]``).
      I: (..., nb, 6, 6) spatial inertias of the bodies.
    """

    __slots__ = ("model", "T", "_S", "_X", "_I")

    def __init__(self, model, q_full):
        self.model = model
        self.T = body_transforms(model.tree, model._basis, q_full)
        self._S = None
        self._X = None
        self._I = None

    @property
    def X(self):
        if self._X is None:
            T = self.T
            R = T[..., :3, :3]
            X = np.zeros(T.shape[:-2] + (6, 6))
            X[..., :3, :3] = R
            X[..., 3:, 3:] = R
            X[..., :3, 3:] = (T[..., :3, 3] @ SKEW_BASIS).reshape(T.shape[:-2] + (3, 3)) @ R
            self._X = X
        return self._X

    @property
    def S(self):
        if self._S is None:
            self._S = (self.X @ self.model._S_body)[..., 0]
        return self._S

    @property
    def I(self):  # noqa: E743 - the book's name for spatial inertia
        if self._I is None:
            # I_W = X^-T I_B X^-1, and X^-1 is X with each 3x3 block transposed in place
            shape = self.X.shape
            Xinv = self.X.reshape(shape[:-2] + (2, 3, 2, 3)).swapaxes(-1, -3).reshape(shape)
            self._I = np.swapaxes(Xinv, -1, -2) @ self.model.tree.inertia @ Xinv
        return self._I


def body_axes(tree):
    """(nb, 6, 1) joint motion axes in body coordinates: ``[a; 0]`` prismatic, ``[0; a]``
    revolute."""
    S_body = np.zeros((tree.nb, 6, 1))
    for b in range(tree.nb):
        if tree.joint_type[b] == PRISMATIC:
            S_body[b, :3, 0] = tree.axis[b]
        else:
            S_body[b, 3:, 0] = tree.axis[b]
    return S_body
