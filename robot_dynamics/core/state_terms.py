"""The dynamics terms at one joint state, sharing one kinematics pass (cf. Pinocchio's
``computeAllTerms``); see :meth:`~robot_dynamics.core.model.RobotModel.state_terms`."""

from . import coriolis as _coriolis
from .dynamics import frame_jacobian, gravity_torques


class StateTerms:
    """Dynamics terms at one joint state; see :meth:`RobotModel.state_terms`.

    Each is computed on first access from the kinematics pass given here (nonlinear_effects,
    momentum and coriolis_transpose_qd share one pass over the body velocities), so a controller
    can publish the torque it needs before paying for the others.

    An unchecked entry point (see :mod:`robot_dynamics.core.dynamics`): the arguments are
    already validated.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: the :class:`~robot_dynamics.core.kinematics.Kinematics` pass at q.
        qd: (..., n) joint velocities [rad/s or m/s] (not copied here: not to be overwritten
            before the terms are read).
        frame: link of the Jacobian, or None.
        axes: "base" or "local".

    Attributes:
        frame: link of the Jacobian, or None.
        axes: "base" or "local", the axes of the Jacobian.
        gravity: (..., n) g(q) [N m or N].
        nonlinear_effects: (..., n) C qd + g [N m or N].
        momentum: (..., n) M qd [kg m^2/s or kg m/s].
        coriolis_transpose_qd: (..., n) C^T qd [N m or N].
        jacobian: (..., 6, n) of ``frame`` in ``axes`` (None without a frame).
    """

    __slots__ = (
        "frame",
        "axes",
        "_tree",
        "_kin",
        "_qd",
        "_jacobian",
        "_gravity",
        "_velocity",
        "_momentum",
    )

    def __init__(self, tree, kin, qd, frame, axes):
        self._tree, self._kin, self._qd = tree, kin, qd
        self.frame, self.axes = frame, axes
        self._jacobian = self._gravity = self._velocity = self._momentum = None

    def _velocity_terms(self):
        """(C qd + g, V, I V): the RNEA pass over the body velocities, on first use."""
        if self._velocity is None:
            tree = self._tree
            h, V, IV = _coriolis.velocity_terms(tree, self._kin, tree.body_rates(self._qd))
            self._velocity = (tree.reduce(h), V, IV)
        return self._velocity

    def _momentum_terms(self):
        """(M qd, C^T qd) from the velocity pass's subtree momenta, on first use."""
        if self._momentum is None:
            tree = self._tree
            _, V, IV = self._velocity_terms()
            p, CTqd = _coriolis.momentum_from_velocity_terms(tree, self._kin, V, IV)
            p, CTqd = tree.reduce(p), tree.reduce(CTqd)
            if tree.has_armature:
                p = p + tree.armature * self._qd
            self._momentum = (p, CTqd)
        return self._momentum

    @property
    def nonlinear_effects(self):
        """C(q, qd) qd + g(q) (..., n): the inverse dynamics at zero acceleration."""
        return self._velocity_terms()[0]

    @property
    def momentum(self):
        """Generalised momentum M qd (..., n)."""
        return self._momentum_terms()[0]

    @property
    def coriolis_transpose_qd(self):
        """C(q, qd)^T qd (..., n)."""
        return self._momentum_terms()[1]

    @property
    def gravity(self):
        """Generalised gravity g(q) (..., n)."""
        if self._gravity is None:
            self._gravity = gravity_torques(self._tree, self._kin)
        return self._gravity

    @property
    def jacobian(self):
        """(..., 6, n) Jacobian of ``frame`` in ``axes``, or None without a frame."""
        if self._jacobian is None and self.frame is not None:
            self._jacobian = frame_jacobian(self._tree, self._kin, self.frame, self.axes)
        return self._jacobian
