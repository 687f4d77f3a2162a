"""Generalised gravity g(q): the torques that hold the arm still, the RNEA at rest.

At rest every body's acceleration is the base's, ``a_0 = [-g; 0]``, so ``f_i = I_i a_0`` and
``g_j = S_j . sum_{i in subtree(j)} f_i``.
"""

import numpy as np

from .jit import kernel
from .rnea import joint_forces


@kernel
def gravity_kernel(parent, gravity, S, I, tau):
    """Generalised gravity, a configuration at a time.

    Args:
        parent: (nb,) parent body, -1 for the base (parents before children).
        gravity: (3,) gravity [m/s^2], base frame.
        S: (B, nb, 6) joint axes; I: (B, nb, 6, 6) spatial inertias.
        tau: (B, nb) output: g [N m or N].
    """
    nb = S.shape[1]
    f = np.empty((nb, 6))
    for b in range(S.shape[0]):
        for i in range(nb):  # I_i a_0 with a_0 = [-g; 0]: the first three columns of I_i
            for r in range(6):
                Ir = I[b, i, r]
                f[i, r] = -(Ir[0] * gravity[0] + Ir[1] * gravity[1] + Ir[2] * gravity[2])
        joint_forces(parent, S[b], f, tau[b])


def generalized_gravity(tree, kin):
    """Generalised gravity g (the tree's gravity) for all body joints, from a kinematics workspace.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.

    Returns:
        ndarray: (..., nb) torques [N m or N].
    """
    S, I = kin.rows(kin.batch)
    tau = np.empty(S.shape[:2])
    gravity_kernel(tree.parent, tree.gravity, S, I, tau)
    return tau.reshape(kin.batch + (tree.nb,))
