"""Joint friction: viscous plus Coulomb, the Coulomb part through a smooth sign.

``tau_f = damping * qd + coulomb * smooth_sign(qd, v_eps)`` with
``smooth_sign(v, v_eps) = tanh(v / v_eps)``: the sign of the velocity away from rest, a straight
line of slope ``1 / v_eps`` through zero. The discontinuous ``sign(qd)`` makes feed-forward
torques and friction-compensated estimates chatter when a measured velocity jitters around
zero, and stalls integrators; ``v_eps = 0`` gives the exact sign all the same. The model's
:meth:`~robot_dynamics.core.model.RobotModel.friction_torques`, the momentum observer, the
estimation pipeline's feed-forward and the identification regressor's Coulomb columns all use
:func:`smooth_sign`, so they agree on what Coulomb friction is.
"""

import numpy as np

from .errors import InvalidInputError

#: Default ``v_eps`` [rad/s or m/s] of :func:`smooth_sign`: at 0.01 rad/s the Coulomb torque
#: has 76 % of its value, at 0.03 rad/s 99.5 %.
DEFAULT_VELOCITY_THRESHOLD = 0.01


def check_velocity_threshold(velocity_threshold, n=None):
    """Validate a smooth-sign velocity threshold.

    Args:
        velocity_threshold: scalar or (n,) per joint [rad/s or m/s], finite and >= 0.
        n: expected number of joints, or None for any.

    Returns:
        ndarray: the threshold as a float array (0-d or (n,)).

    Raises:
        InvalidInputError: a negative, NaN or infinite value, or the wrong number of values.
    """
    try:
        eps = np.asarray(velocity_threshold, dtype=float)
    except (TypeError, ValueError) as err:
        raise InvalidInputError(f"velocity_threshold must be numeric: {err}") from None
    if eps.ndim > 1 or (eps.ndim == 1 and n is not None and eps.shape != (n,)):
        raise InvalidInputError(
            f"velocity_threshold must be a scalar or {n} values, got shape {eps.shape}"
        )
    if not np.all(np.isfinite(eps)) or np.any(eps < 0):
        raise InvalidInputError(
            f"velocity_threshold must be finite and >= 0, got {velocity_threshold!r}"
        )
    return eps


def smooth_sign(velocity, velocity_threshold=DEFAULT_VELOCITY_THRESHOLD):
    """``tanh(velocity / velocity_threshold)``, elementwise; ``np.sign`` where the threshold is 0.

    Args:
        velocity: (...,) or (..., n) joint velocities [rad/s or m/s].
        velocity_threshold: ``v_eps`` [rad/s or m/s], >= 0: a scalar, or (n,) per joint
            (broadcast against the last axis of ``velocity``).

    Returns:
        Array of ``velocity``'s shape with values in [-1, 1]; exactly 0 at zero velocity.

    Raises:
        InvalidInputError: a negative or non-finite threshold.
    """
    v = np.asarray(velocity, dtype=float)
    eps = check_velocity_threshold(velocity_threshold)
    if eps.ndim == 0 and eps == 0.0:
        return np.sign(v)
    with np.errstate(over="ignore"):  # v / eps beyond the float range: tanh(+-inf) = +-1
        if eps.ndim == 0 or np.all(eps > 0.0):
            return np.tanh(v / eps)
        positive = eps > 0.0
        return np.where(positive, np.tanh(v / np.where(positive, eps, 1.0)), np.sign(v))


def friction_torques(qd, damping, coulomb, velocity_threshold=DEFAULT_VELOCITY_THRESHOLD):
    """Joint friction torques ``damping * qd + coulomb * smooth_sign(qd, velocity_threshold)``.

    Args:
        qd: (..., n) joint velocities [rad/s or m/s].
        damping: (n,) viscous coefficients [N m s/rad or N s/m].
        coulomb: (n,) Coulomb friction [N m or N].
        velocity_threshold: ``v_eps`` of :func:`smooth_sign`, scalar or (n,).

    Returns:
        (..., n) friction torques [N m or N], opposing the motion when subtracted from the
        applied torque.
    """
    qd = np.asarray(qd, dtype=float)
    eps = check_velocity_threshold(velocity_threshold, qd.shape[-1] if qd.ndim else None)
    return damping * qd + coulomb * smooth_sign(qd, eps)


__all__ = [
    "DEFAULT_VELOCITY_THRESHOLD",
    "check_velocity_threshold",
    "friction_torques",
    "smooth_sign",
]
