"""Forward kinematics over all bodies, and the world-frame quantities the dynamics algorithms
share: each body's pose, joint axis and spatial inertia in base axes about the base origin.

One compiled pass (:func:`forward_kinematics_kernel`) walks the bodies from the base outwards
(a parent is numbered before its children), composing each joint's transform with its
parent's pose.
"""

import numpy as np

from .jit import kernel, rows
from .spatial import skew


@kernel
def joint_transform(T_parent_joint, axis, prismatic, q, L):
    """``L = T_parent_body(q)``: the joint's placement times its motion, a rotation by q about
    the axis (Rodrigues: ``cos q 1 + sin q [a]x + (1 - cos q) a a^T``) or a translation q along it.

    Args:
        T_parent_joint: (4, 4) the joint frame in the parent body frame at q = 0.
        axis: (3,) unit joint axis in the joint frame.
        prismatic: whether the joint is prismatic (else revolute).
        q: the joint coordinate [rad or m].
        L: (4, 4) output.
    """
    x, y, z = axis[0], axis[1], axis[2]
    if prismatic:
        R = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
        d = (x * q, y * q, z * q)
    else:
        s, c = np.sin(q), np.cos(q)
        v = 1.0 - c
        R = (
            (c + x * x * v, x * y * v - z * s, x * z * v + y * s),
            (y * x * v + z * s, c + y * y * v, y * z * v - x * s),
            (z * x * v - y * s, z * y * v + x * s, c + z * z * v),
        )
        d = (0.0, 0.0, 0.0)
    J = T_parent_joint
    for r in range(3):
        for c in range(3):
            L[r, c] = J[r, 0] * R[0][c] + J[r, 1] * R[1][c] + J[r, 2] * R[2][c]
        L[r, 3] = J[r, 0] * d[0] + J[r, 1] * d[1] + J[r, 2] * d[2] + J[r, 3]
    L[3, 0], L[3, 1], L[3, 2], L[3, 3] = 0.0, 0.0, 0.0, 1.0


@kernel
def compose(P, L, out):
    """``out = P L`` of two (4, 4) rigid transforms (``out`` is neither)."""
    for r in range(3):
        for c in range(4):
            out[r, c] = P[r, 0] * L[0, c] + P[r, 1] * L[1, c] + P[r, 2] * L[2, c]
        out[r, 3] += P[r, 3]
    out[3, 0], out[3, 1], out[3, 2], out[3, 3] = 0.0, 0.0, 0.0, 1.0


@kernel
def motion_axis(T, axis, prismatic, S):
    """The joint axis of a body at pose ``T``, in base axes about the base origin: revolute
    ``[o x z; z]``, prismatic ``[z; 0]`` with ``z = R axis`` and ``o`` the body origin.

    Args:
        T: (4, 4) the body's pose ``W_T_B``.
        axis: (3,) unit joint axis in the body frame.
        prismatic: whether the joint is prismatic.
        S: (6,) output.
    """
    o0, o1, o2 = T[0, 3], T[1, 3], T[2, 3]
    z0 = T[0, 0] * axis[0] + T[0, 1] * axis[1] + T[0, 2] * axis[2]
    z1 = T[1, 0] * axis[0] + T[1, 1] * axis[1] + T[1, 2] * axis[2]
    z2 = T[2, 0] * axis[0] + T[2, 1] * axis[1] + T[2, 2] * axis[2]
    if prismatic:
        S[0], S[1], S[2], S[3], S[4], S[5] = z0, z1, z2, 0.0, 0.0, 0.0
    else:
        S[0], S[1], S[2] = o1 * z2 - o2 * z1, o2 * z0 - o0 * z2, o0 * z1 - o1 * z0
        S[3], S[4], S[5] = z0, z1, z2


@kernel
def world_inertia(N, T, I):
    """A body's spatial inertia in base axes about the base origin, ``F N F^T`` formed from its
    mass m, first moment ``k = R (m c)`` and rotational inertia ``R I_B R^T`` about its origin o:
    ``[[m 1, -[h]x], [[h]x, I_O]]`` with ``h = m o + k`` and
    ``I_O = R I_B R^T + m (|o|^2 1 - o o^T) + 2 (o . k) 1 - k o^T - o k^T``.

    Args:
        N: (6, 6) the spatial inertia about the body origin, body axes.
        T: (4, 4) the body's pose ``W_T_B``.
        I: (6, 6) output.
    """
    m = N[0, 0]
    kb = (N[5, 1], N[3, 2], N[4, 0])  # m c, from the block m [c]x = N[3:, :3]
    o = (T[0, 3], T[1, 3], T[2, 3])
    k = (
        T[0, 0] * kb[0] + T[0, 1] * kb[1] + T[0, 2] * kb[2],
        T[1, 0] * kb[0] + T[1, 1] * kb[1] + T[1, 2] * kb[2],
        T[2, 0] * kb[0] + T[2, 1] * kb[1] + T[2, 2] * kb[2],
    )
    oo = o[0] * o[0] + o[1] * o[1] + o[2] * o[2]
    ok = o[0] * k[0] + o[1] * k[1] + o[2] * k[2]
    for r in range(3):
        for c in range(3):
            RIR = 0.0  # (R I_B R^T)[r, c]
            for u in range(3):
                RI = T[r, 0] * N[3, 3 + u] + T[r, 1] * N[4, 3 + u] + T[r, 2] * N[5, 3 + u]
                RIR += RI * T[c, u]
            I[3 + r, 3 + c] = RIR - m * o[r] * o[c] - k[r] * o[c] - o[r] * k[c]
            I[r, c] = m if r == c else 0.0
        I[3 + r, 3 + r] += m * oo + 2.0 * ok
    h0, h1, h2 = m * o[0] + k[0], m * o[1] + k[1], m * o[2] + k[2]
    I[3, 0], I[3, 1], I[3, 2] = 0.0, -h2, h1  # [h]x
    I[4, 0], I[4, 1], I[4, 2] = h2, 0.0, -h0
    I[5, 0], I[5, 1], I[5, 2] = -h1, h0, 0.0
    for r in range(3):
        for c in range(3):
            I[r, 3 + c] = -I[3 + r, c]  # -[h]x


@kernel
def forward_kinematics_kernel(q, T_parent_joint, axis, prismatic, parent, inertia, T, S, I):
    """Body poses, joint axes and spatial inertias in base axes about the base origin, from the
    base outwards.

    Args:
        q: (B, nb) body joint coordinates [rad or m].
        T_parent_joint: (nb, 4, 4) joint frames in their parent body frames at q = 0.
        axis: (nb, 3) unit joint axes in the joint frames.
        prismatic: (nb,) bool, prismatic joints (else revolute).
        parent: (nb,) parent body, -1 for the base; a parent comes before its children.
        inertia: (nb, 6, 6) spatial inertias about the body origins, body axes.
        T: (B, nb, 4, 4) output: body poses ``W_T_B`` [m].
        S: (B, nb, 6) output: joint motion axes ``[v; w]``.
        I: (B, nb, 6, 6) output: spatial inertias.
    """
    L = np.empty((4, 4))  # T_parent_body
    for b in range(q.shape[0]):
        for i in range(q.shape[1]):
            joint_transform(T_parent_joint[i], axis[i], prismatic[i], q[b, i], L)
            if parent[i] < 0:
                T[b, i] = L
            else:
                compose(T[b, parent[i]], L, T[b, i])
            motion_axis(T[b, i], axis[i], prismatic[i], S[b, i])
            world_inertia(inertia[i], T[b, i], I[b, i])


class Kinematics:
    """Per-call workspace: body poses, world joint axes and world inertias at q.

    Attributes are in base-frame axes, about the base-frame origin.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        q_full: (..., nb) joint coordinates of all bodies [rad or m].

    Attributes:
        tree: the tree.
        batch: the batch shape ``q_full.shape[:-1]``.
        T: (..., nb, 4, 4) body poses ``W_T_B``.
        S: (..., nb, 6) joint motion axes ``[v; w]`` (revolute ``[p x z; z]``, prismatic
            ``[z; 0]``).
        I: (..., nb, 6, 6) spatial inertias of the bodies.
        F: (..., nb, 6, 6) force transforms body -> base (formed on first use).
    """

    __slots__ = ("tree", "T", "S", "I", "batch", "_rows", "_F")

    def __init__(self, tree, q_full):
        self.tree = tree
        batch, nb = q_full.shape[:-1], q_full.shape[-1]
        q = rows(q_full, batch, (nb,))
        size = len(q)
        T = np.empty((size, nb, 4, 4))
        S = np.empty((size, nb, 6))
        I = np.empty((size, nb, 6, 6))  # noqa: E741 - the book's name for spatial inertia
        forward_kinematics_kernel(
            q, tree.T_parent_joint, tree.axis, tree.prismatic, tree.parent, tree.inertia, T, S, I
        )
        self.batch = batch
        self.T = T.reshape(batch + (nb, 4, 4))
        self.S = S.reshape(batch + (nb, 6))
        self.I = I.reshape(batch + (nb, 6, 6))
        self._rows = (S, I)
        self._F = None

    def rows(self, batch):
        """The joint axes and inertias as kernels read them, for a batch of joint vectors.

        Args:
            batch: the batch shape of the joint vectors (the pass's batch broadcast to it).

        Returns:
            tuple: ``S`` (Bk, nb, 6) and ``I`` (Bk, nb, 6, 6), C-contiguous, with Bk 1 (one
            configuration for the whole batch) or ``prod(batch)``.
        """
        if batch == self.batch or len(self._rows[0]) == 1:
            return self._rows
        nb = self.tree.nb
        return rows(self.S, batch, (nb, 6)), rows(self.I, batch, (nb, 6, 6))

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
            np.matmul(skew(T[..., :3, 3]), R, out=F[..., 3:, :3])
            self._F = F
        return self._F
