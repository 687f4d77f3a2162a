"""Every compiled kernel run once on a tree, before a loop that must not wait for them."""

import numpy as np

from . import dynamics
from .errors import SingularInertiaError
from .estimation import damped_pinv_solve
from .validation import AXES, within, within_each


def compile_kernels(tree):
    """Run the compiled kernels once on the tree, at its zero configuration.

    The first call of a kernel after an install compiles it (a few seconds for all of them);
    later processes load it from Numba's cache (a fraction of a second). A node calls this
    while it loads its model, so that its first message does not pay for it.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
    """
    zero = np.zeros(tree.n)
    kin = dynamics.kinematics(tree, zero)
    dynamics.momentum_terms(tree, kin, zero)  # the RNEA's velocity pass, the momenta, gravity
    dynamics.mass_matrix(tree, kin)
    try:
        dynamics.forward_dynamics(tree, kin, zero, zero)
    except SingularInertiaError:  # a model for torques only (massless links): compiled anyway
        pass
    if tree.nb:  # a link the joints move: its Jacobian in either axes, the wrench solve
        for axes in AXES:
            J = dynamics.frame_jacobian(tree, kin, tree.body_link_names[-1], axes)
        damped_pinv_solve(J, zero, damping=0.1, singular_threshold=0.01)
    within(zero, 1.0)  # the bounds of a message's arrays
    within_each(zero, np.ones(tree.n))
