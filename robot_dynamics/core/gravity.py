"""Generalised gravity g(q): the torques that hold the arm still, the RNEA at rest."""

import numpy as np

from .rnea import rnea_pass


def generalized_gravity(tree, kin):
    """Generalised gravity g (the tree's gravity) for all body joints, from a kinematics workspace.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.

    Returns:
        ndarray: (..., nb) torques [N m or N].
    """
    return rnea_pass(tree, kin, np.zeros(kin.batch + (tree.nb,)), None)[0]
