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
def forward_kinematics_kernel(q, T_parent_joint, axis, prismatic, parent, inertia, T, S, I):
    """Body poses, joint axes and spatial inertias in base axes about the base origin.

    Args:
        q: (B, nb) body joint coordinates [rad or m].
        T_parent_joint: (nb, 4, 4) joint frames in their parent body frames at q = 0.
        axis: (nb, 3) unit joint axes in the joint frames.
        prismatic: (nb,) bool, prismatic joints (else revolute).
        parent: (nb,) parent body, -1 for the base; a parent comes before its children.
        inertia: (nb, 6, 6) spatial inertias about the body origins, body axes.
        T: (B, nb, 4, 4) output: body poses ``W_T_B`` [m].
        S: (B, nb, 6) output: joint motion axes ``[v; w]``: revolute ``[p x z; z]``, prismatic
            ``[z; 0]``.
        I: (B, nb, 6, 6) output: spatial inertias ``[[m 1, -[h]x], [[h]x, I_O]]`` with the
            first moment ``h = m c`` and the rotational inertia ``I_O`` about the base origin.
    """
    R = np.empty((3, 3))  # joint rotation
    L = np.empty((4, 4))  # T_parent_body
    for b in range(q.shape[0]):
        for i in range(q.shape[1]):
            x, y, z = axis[i, 0], axis[i, 1], axis[i, 2]
            qi = q[b, i]
            if prismatic[i]:
                for r in range(3):
                    for c in range(3):
                        R[r, c] = 1.0 if r == c else 0.0
                d0, d1, d2 = x * qi, y * qi, z * qi
            else:  # Rodrigues: cos q 1 + sin q [a]x + (1 - cos q) a a^T
                s, c = np.sin(qi), np.cos(qi)
                v = 1.0 - c
                R[0, 0], R[0, 1], R[0, 2] = c + x * x * v, x * y * v - z * s, x * z * v + y * s
                R[1, 0], R[1, 1], R[1, 2] = y * x * v + z * s, c + y * y * v, y * z * v - x * s
                R[2, 0], R[2, 1], R[2, 2] = z * x * v - y * s, z * y * v + x * s, c + z * z * v
                d0 = d1 = d2 = 0.0
            J = T_parent_joint[i]
            for r in range(3):
                for c in range(3):
                    L[r, c] = J[r, 0] * R[0, c] + J[r, 1] * R[1, c] + J[r, 2] * R[2, c]
                L[r, 3] = J[r, 0] * d0 + J[r, 1] * d1 + J[r, 2] * d2 + J[r, 3]
            Ti = T[b, i]
            p = parent[i]
            if p < 0:
                Ti[:3, :] = L[:3, :]
            else:
                P = T[b, p]
                for r in range(3):
                    for c in range(4):
                        Ti[r, c] = P[r, 0] * L[0, c] + P[r, 1] * L[1, c] + P[r, 2] * L[2, c]
                    Ti[r, 3] += P[r, 3]
            Ti[3, 0], Ti[3, 1], Ti[3, 2], Ti[3, 3] = 0.0, 0.0, 0.0, 1.0
            # joint axis in base axes
            o0, o1, o2 = Ti[0, 3], Ti[1, 3], Ti[2, 3]
            z0 = Ti[0, 0] * x + Ti[0, 1] * y + Ti[0, 2] * z
            z1 = Ti[1, 0] * x + Ti[1, 1] * y + Ti[1, 2] * z
            z2 = Ti[2, 0] * x + Ti[2, 1] * y + Ti[2, 2] * z
            Si = S[b, i]
            if prismatic[i]:
                Si[0], Si[1], Si[2], Si[3], Si[4], Si[5] = z0, z1, z2, 0.0, 0.0, 0.0
            else:
                Si[0], Si[1], Si[2] = o1 * z2 - o2 * z1, o2 * z0 - o0 * z2, o0 * z1 - o1 * z0
                Si[3], Si[4], Si[5] = z0, z1, z2
            # inertia: the body's (mass m, first moment k = R (m c_B), rotational inertia
            # R I_B R^T about its origin o) moved to the base origin:
            # I_O = R I_B R^T + m (|o|^2 1 - o o^T) + 2 (o . k) 1 - k o^T - o k^T
            N = inertia[i]
            m = N[0, 0]
            kb0, kb1, kb2 = N[5, 1], N[3, 2], N[4, 0]  # m [c]x = N[3:, :3]
            k0 = Ti[0, 0] * kb0 + Ti[0, 1] * kb1 + Ti[0, 2] * kb2
            k1 = Ti[1, 0] * kb0 + Ti[1, 1] * kb1 + Ti[1, 2] * kb2
            k2 = Ti[2, 0] * kb0 + Ti[2, 1] * kb1 + Ti[2, 2] * kb2
            Ii = I[b, i]
            for r in range(3):
                for c in range(3):
                    acc = 0.0
                    for u in range(3):
                        row = (
                            Ti[r, 0] * N[3, 3 + u] + Ti[r, 1] * N[4, 3 + u] + Ti[r, 2] * N[5, 3 + u]
                        )
                        acc += row * Ti[c, u]
                    Ii[3 + r, 3 + c] = acc
            oo = o0 * o0 + o1 * o1 + o2 * o2
            ok = o0 * k0 + o1 * k1 + o2 * k2
            o = (o0, o1, o2)
            k = (k0, k1, k2)
            for r in range(3):
                for c in range(3):
                    Ii[3 + r, 3 + c] -= m * o[r] * o[c] + k[r] * o[c] + o[r] * k[c]
                Ii[3 + r, 3 + r] += m * oo + 2.0 * ok
            h0, h1, h2 = m * o0 + k0, m * o1 + k1, m * o2 + k2
            for r in range(3):
                for c in range(3):
                    Ii[r, c] = m if r == c else 0.0
            # [h]x below, -[h]x to the right
            Ii[3, 0], Ii[3, 1], Ii[3, 2] = 0.0, -h2, h1
            Ii[4, 0], Ii[4, 1], Ii[4, 2] = h2, 0.0, -h0
            Ii[5, 0], Ii[5, 1], Ii[5, 2] = -h1, h0, 0.0
            for r in range(3):
                for c in range(3):
                    Ii[r, 3 + c] = -Ii[3 + r, c]


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
