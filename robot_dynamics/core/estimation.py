"""External wrench from joint torques (tau_ext = J^T f_ext) and the momentum observer."""

from dataclasses import dataclass

import math

import numpy as np

from .errors import InvalidInputError
from .friction import DEFAULT_VELOCITY_THRESHOLD, check_velocity_threshold


@dataclass(frozen=True)
class WrenchEstimate:
    """Result of :meth:`RobotModel.estimate_external_wrench`.

    wrench: (..., 6) ``[fx, fy, fz, tx, ty, tz]`` [N, N m], the wrench the environment applies to
        the frame, moment about the frame origin, axes as requested.
    singular_values: (..., k) singular values of J, k = min(6, n), descending.
    min_singular_value: (...) the smallest of them.
    near_singular: (...) bool, ``min_singular_value < singular_threshold``: the wrench
        components along the weakest directions are damped (biased toward zero).
    """

    wrench: np.ndarray
    singular_values: np.ndarray
    min_singular_value: np.ndarray
    near_singular: np.ndarray


def damped_pinv_solve(J, tau_ext, *, damping, singular_threshold):
    """Solve ``J^T f = tau_ext`` for f by a selectively damped SVD pseudo-inverse.

    J: (..., 6, n); tau_ext: (..., n). Singular values at or above ``singular_threshold`` are
    inverted exactly; below it a damping ``lambda^2 = damping^2 (1 - (s / threshold)^2)`` fades
    in (Nakamura & Hanafusa), which bounds the gain near a singularity.
    Returns ``(f (..., 6), singular values (..., k))``.
    """
    U, s, Vt = np.linalg.svd(J, full_matrices=False)  # J = U diag(s) Vt
    ratio = np.clip(s / singular_threshold, 0.0, 1.0)
    lam2 = damping**2 * (1.0 - ratio**2)
    gain = s / (s**2 + lam2 + np.finfo(float).tiny)
    # J^T = V diag(s) U^T, so f = U diag(gain) V^T tau
    coeff = (Vt @ tau_ext[..., None])[..., 0] * gain
    return (U @ coeff[..., None])[..., 0], s


class MomentumObserver:
    """Generalised momentum observer (De Luca & Mattone 2005): external joint torques without
    joint accelerations.

    With ``p = M(q) qd``::

        r(t) = K_O [p(t) - p(0) - integral(tau + C^T qd - g + r) dt]

    r converges to ``tau_ext`` (the joint torques of the external wrench, ``J^T f_ext``) with
    first-order dynamics of bandwidth ``K_O`` [1/s] per joint. The discrete update treats r
    implicitly (backward Euler), so it stays stable for any ``gain * dt``.

    model: the RobotModel. gain: scalar or (n,) [1/s]. friction: subtract the model's joint
    friction from the applied torque (use when the robot really has that friction).
    friction_velocity_threshold: ``v_eps`` [rad/s or m/s] of the friction's smooth sign
    (:func:`robot_dynamics.core.friction.smooth_sign`).
    """

    def __init__(
        self,
        model,
        gain=50.0,
        *,
        friction=False,
        friction_velocity_threshold=DEFAULT_VELOCITY_THRESHOLD,
    ):
        self.model = model
        try:
            self.gain = np.broadcast_to(np.asarray(gain, dtype=float), (model.n,)).copy()
        except ValueError:
            raise InvalidInputError(
                f"observer gain must be a scalar or {model.n} values "
                f"(joints {list(model.joint_names)}), got {gain!r}"
            ) from None
        if np.any(self.gain <= 0) or not np.all(np.isfinite(self.gain)):
            raise InvalidInputError(f"observer gain must be finite and > 0, got {gain!r}")
        self.friction = friction
        self.friction_velocity_threshold = check_velocity_threshold(
            friction_velocity_threshold, model.n
        )
        self._p0 = None
        self._integral = None
        self.residual = None

    def reset(self, q, qd, terms=None):
        """Start observing from state (q, qd) (..., n): the residual restarts at zero.

        terms: optional :class:`~robot_dynamics.core.model.StateTerms` already computed at
        (q, qd) (its momentum is used instead of a new pass).
        """
        if terms is None:
            self._p0, _, _ = self.model.momentum_terms(q, qd)
        else:
            self._p0 = terms.momentum.copy()
        self._integral = np.zeros_like(self._p0)
        self.residual = np.zeros_like(self._p0)

    @property
    def started(self):
        return self._p0 is not None

    def update(self, q, qd, tau, dt, terms=None):
        """Advance by dt [s] with the measured state and applied joint torque tau (..., n).

        Returns the estimated external joint torques r (..., n) [N m or N]. The first call
        after construction (or :meth:`reset`) initialises from (q, qd) and returns zeros.
        terms: optional :class:`~robot_dynamics.core.model.StateTerms` already computed at
        (q, qd) (its momentum, C^T qd and gravity are used instead of a new pass).
        """
        if self._p0 is None:
            self.reset(q, qd, terms)
            return self.residual.copy()
        if not (math.isfinite(dt) and dt > 0):
            raise InvalidInputError(f"observer time step dt must be finite and > 0, got {dt!r}")
        tau = self.model._check_vector(tau, "tau")
        if terms is None:
            p, CTqd, g = self.model.momentum_terms(q, qd)
        else:
            p, CTqd, g = terms.momentum, terms.coriolis_transpose_qd, terms.gravity
        if self.friction:
            tau = tau - self.model.friction_torques(qd, self.friction_velocity_threshold)
        # The residual enters its own integral implicitly (r at the end of the step), so the
        # update is stable and monotone for any gain * dt, e.g. after a gap in the samples:
        #   r_new = K (p - p0 - I_old - (tau + C^T qd - g + r_new) dt)
        known = tau + CTqd - g
        u = p - self._p0 - self._integral - known * dt
        self.residual = self.gain * u / (1.0 + self.gain * dt)
        self._integral = self._integral + (known + self.residual) * dt
        return self.residual.copy()
