"""Joint friction: a per-joint model richer than viscous plus Coulomb, through one smooth sign.

Per joint, with ``s = smooth_sign(qd, v_eps)`` (:func:`smooth_sign`):

    tau_f(qd) = viscous qd + (coulomb + stribeck exp(-(qd / stribeck_velocity)^2)) s
                + asymmetry |s|

- ``viscous`` [N m s/rad or N s/m] and ``coulomb`` [N m or N]: the URDF's ``<dynamics damping
  friction>``;
- ``asymmetry`` [N m or N]: the friction curve is not odd. Moving forward the Coulomb level is
  ``coulomb + asymmetry``, backward ``coulomb - asymmetry`` (the Fc+ / Fc- of geared and
  harmonic-drive joints). It vanishes at rest, which tells it from a torque sensor's offset;
  ``|asymmetry| <= coulomb`` keeps friction dissipative in both directions;
- ``stribeck`` [N m or N] >= 0: breakaway friction above the Coulomb level near rest (the static
  level is ``coulomb + stribeck``), decaying with the Stribeck velocity ``stribeck_velocity``
  [rad/s or m/s] > 0.

Every term is linear in its coefficient (given ``v_eps`` and the Stribeck velocity):
:func:`friction_basis` gives the functions, which both :meth:`FrictionModel.torques` and the
identification regressor's columns use. ``smooth_sign(v, v_eps) = tanh(v / v_eps)``: the sign of
the velocity away from rest, a straight line of slope ``1 / v_eps`` through zero. The
discontinuous ``sign(qd)`` makes feed-forward torques and friction-compensated estimates chatter
when a measured velocity jitters around zero, and stalls integrators; ``v_eps = 0`` gives the
exact sign all the same.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from .errors import InvalidInputError

#: Default ``v_eps`` [rad/s or m/s] of :func:`smooth_sign`: at 0.01 rad/s the Coulomb torque
#: has 76 % of its value, at 0.03 rad/s 99.5 %.
DEFAULT_VELOCITY_THRESHOLD = 0.01
#: Default Stribeck velocity [rad/s or m/s] (used where the Stribeck level is 0).
DEFAULT_STRIBECK_VELOCITY = 0.1
#: Bound on every friction coefficient [N m, N m s/rad or N, N s/m].
MAX_FRICTION_COEFFICIENT = 1e6
#: Bound on the Stribeck velocity [rad/s or m/s].
MAX_STRIBECK_VELOCITY = 1e4
#: The coefficients of :class:`FrictionModel`, in the order of the regressor's columns.
FRICTION_TERMS = ("viscous", "coulomb", "asymmetry", "stribeck")
#: Every per-joint field of :class:`FrictionModel`.
FRICTION_FIELDS = FRICTION_TERMS + ("stribeck_velocity",)
#: The nodes' parameters of the friction model: ``friction.<field>``, per joint in model order,
#: ``[]`` = the model's own (the URDF's viscous and Coulomb friction, no asymmetry, no Stribeck).
FRICTION_PARAMETERS = tuple(f"friction.{field}" for field in FRICTION_FIELDS)


def check_velocity_threshold(velocity_threshold, n=None, name="velocity_threshold"):
    """Validate a smooth-sign velocity threshold.

    Args:
        velocity_threshold: scalar or (n,) per joint [rad/s or m/s], finite and >= 0.
        n: expected number of joints, or None for any.
        name: the argument's name, for the messages.

    Returns:
        ndarray: the threshold as a float array (0-d or (n,)).

    Raises:
        InvalidInputError: a negative, NaN or infinite value, or the wrong number of values.
    """
    try:
        eps = np.asarray(velocity_threshold, dtype=float)
    except (TypeError, ValueError) as err:
        raise InvalidInputError(f"{name} must be numeric: {err}") from None
    if eps.ndim > 1 or (eps.ndim == 1 and n is not None and eps.shape != (n,)):
        raise InvalidInputError(f"{name} must be a scalar or {n} values, got shape {eps.shape}")
    if not np.all(np.isfinite(eps)) or np.any(eps < 0):
        raise InvalidInputError(f"{name} must be finite and >= 0, got {velocity_threshold!r}")
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


def friction_basis(term, qd, velocity_threshold, stribeck_velocity=DEFAULT_STRIBECK_VELOCITY):
    """The function of the velocity that multiplies one friction coefficient.

    Args:
        term: one of :data:`FRICTION_TERMS`: ``"viscous"`` (``qd``), ``"coulomb"`` (``s``),
            ``"asymmetry"`` (``|s|``) or ``"stribeck"`` (``exp(-(qd / v_s)^2) s``), with
            ``s = smooth_sign(qd, velocity_threshold)``.
        qd: (..., n) joint velocities [rad/s or m/s].
        velocity_threshold: ``v_eps`` of the smooth sign, scalar or (n,), >= 0 (checked by the
            caller, see :func:`check_velocity_threshold`).
        stribeck_velocity: Stribeck velocity ``v_s`` [rad/s or m/s], scalar or (n,), > 0.

    Returns:
        ndarray: (..., n), dimensionless except ``"viscous"`` [rad/s or m/s].

    Raises:
        InvalidInputError: an unknown term.
    """
    if term not in FRICTION_TERMS:
        raise InvalidInputError(f"unknown friction term {term!r}; terms: {list(FRICTION_TERMS)}")
    qd = np.asarray(qd, dtype=float)
    s = None if term == "viscous" else smooth_sign(qd, velocity_threshold)
    return _basis(term, qd, s, stribeck_velocity)


def _basis(term, qd, s, stribeck_velocity):
    """friction_basis with the smooth sign ``s`` of ``qd`` already computed."""
    if term == "viscous":
        return qd
    if term == "coulomb":
        return s
    if term == "asymmetry":
        return np.abs(s)
    return np.exp(-((qd / np.asarray(stribeck_velocity, dtype=float)) ** 2)) * s


def _joint(names, k):
    return f"joint {names[k]!r}" if names else f"joint {k}"


@dataclass(frozen=True, eq=False)
class FrictionModel:
    """Per-joint friction coefficients (see the module docstring for the model), validated once
    at construction; the arrays are read-only.

    Attributes:
        viscous: (n,) viscous coefficients [N m s/rad or N s/m], >= 0.
        coulomb: (n,) Coulomb levels [N m or N], >= 0.
        asymmetry: (n,) half the difference of the forward and backward Coulomb levels
            [N m or N], ``|asymmetry| <= coulomb``; None: zeros.
        stribeck: (n,) breakaway friction above the Coulomb level at rest [N m or N], >= 0;
            None: zeros.
        stribeck_velocity: (n,) Stribeck velocities [rad/s or m/s], > 0; None:
            :data:`DEFAULT_STRIBECK_VELOCITY`.
        joint_names: (n,) names used in error messages, or () for joint indices.

    Raises:
        InvalidInputError: a coefficient of the wrong shape, not finite, out of its range or
            beyond :data:`MAX_FRICTION_COEFFICIENT` (the message names the field and joint; the
            error's ``argument`` is the nodes' parameter ``friction.<field>``).
    """

    viscous: np.ndarray
    coulomb: np.ndarray
    asymmetry: np.ndarray = None
    stribeck: np.ndarray = None
    stribeck_velocity: np.ndarray = None
    joint_names: tuple = ()

    def __post_init__(self):
        names = tuple(self.joint_names)
        object.__setattr__(self, "joint_names", names)
        n = np.size(self.viscous) if not names else len(names)
        defaults = {"asymmetry": 0.0, "stribeck": 0.0, "stribeck_velocity": None}
        for field in FRICTION_FIELDS:
            value = getattr(self, field)
            if value is None:
                default = defaults[field]
                value = DEFAULT_STRIBECK_VELOCITY if default is None else default
                value = np.full(n, value)
            try:
                arr = np.array(value, dtype=float)
            except (TypeError, ValueError):
                raise InvalidInputError(
                    f"friction.{field} must be numbers, got {value!r}", argument=f"friction.{field}"
                ) from None
            if arr.shape != (n,):
                raise InvalidInputError(
                    f"friction.{field} must have {n} values (one per joint"
                    + (f": {list(names)}" if names else "")
                    + f"), got shape {arr.shape}",
                    argument=f"friction.{field}",
                )
            low, high = (
                (0.0, MAX_STRIBECK_VELOCITY)
                if field == "stribeck_velocity"
                else (-MAX_FRICTION_COEFFICIENT, MAX_FRICTION_COEFFICIENT)
            )
            if field in ("viscous", "coulomb", "stribeck"):
                low = 0.0
            bad = ~np.isfinite(arr) | (arr < low) | (arr > high)
            if field == "stribeck_velocity":
                bad |= arr <= 0.0
            if bad.any():
                k = int(np.argmax(bad))
                what = "> 0" if field == "stribeck_velocity" else f">= {low:g}"
                raise InvalidInputError(
                    f"friction.{field} of {_joint(names, k)} must be finite, {what} and "
                    f"<= {high:g}, got {arr[k]}",
                    argument=f"friction.{field}",
                )
            arr.setflags(write=False)
            object.__setattr__(self, field, arr)
        over = np.abs(self.asymmetry) > self.coulomb
        if over.any():
            k = int(np.argmax(over))
            raise InvalidInputError(
                f"friction.asymmetry of {_joint(names, k)} ({self.asymmetry[k]}) exceeds its "
                f"Coulomb level ({self.coulomb[k]}): one direction would push, not brake",
                argument="friction.asymmetry",
            )

    @classmethod
    def zeros(cls, n, joint_names=()):
        """No friction on ``n`` joints.

        Args:
            n: number of joints.
            joint_names: (n,) names for error messages, or ().

        Returns:
            FrictionModel: zero coefficients.
        """
        return cls(np.zeros(n), np.zeros(n), joint_names=joint_names)

    @property
    def n(self):
        """Number of joints."""
        return self.viscous.shape[0]

    @property
    def breakaway(self):
        """(n,) the largest torque the friction holds at rest, either way [N m or N]:
        ``coulomb + |asymmetry| + stribeck``."""
        return self.coulomb + np.abs(self.asymmetry) + self.stribeck

    def replace(self, **changes):
        """A new model with some fields replaced (validated again).

        Args:
            **changes: field name -> (n,) values (see the attributes).

        Returns:
            FrictionModel: the new model.

        Raises:
            InvalidInputError: see the class.
        """
        return dataclasses.replace(self, **changes)

    def with_parameters(self, values):
        """This model with the nodes' ``friction.*`` parameters over it.

        Args:
            values: parameter name -> value; of :data:`FRICTION_PARAMETERS` (others are ignored,
                missing ones keep this model's values), each ``[]`` (keep this model's values)
                or n numbers, model order.

        Returns:
            FrictionModel: the new model.

        Raises:
            InvalidInputError: a value of the wrong length or out of its range, an asymmetry
                beyond the Coulomb level (naming the parameter and the joint).
        """
        changes = {}
        for field, name in zip(FRICTION_FIELDS, FRICTION_PARAMETERS):
            value = values.get(name)
            if value is not None and len(value):
                changes[field] = value
        return self.replace(**changes) if changes else self

    def torques(self, qd, velocity_threshold=DEFAULT_VELOCITY_THRESHOLD, rest_velocity=0.0):
        """Friction torques at joint velocities ``qd``.

        Args:
            qd: (..., n) joint velocities [rad/s or m/s].
            velocity_threshold: ``v_eps`` of :func:`smooth_sign`, scalar or (n,), >= 0.
            rest_velocity: scalar or (n,), >= 0 [rad/s or m/s]: where every joint's ``|qd|``
                is below it (per configuration), the arm is at rest and the friction is 0.
                Friction at rest is static, anywhere within the breakaway level, and measured
                velocities that small are a driver's noise, which the smooth sign would turn
                into chatter. 0: off.

        Returns:
            ndarray: (..., n) friction torques [N m or N], opposing the motion when subtracted
            from the applied torque.

        Raises:
            InvalidInputError: a bad velocity_threshold or rest_velocity; qd whose last axis
                is not n.
        """
        qd = np.asarray(qd, dtype=float)
        if qd.ndim == 0 or qd.shape[-1] != self.n:
            raise InvalidInputError(
                f"friction torques: qd must have shape (..., {self.n}), got {qd.shape}"
            )
        eps = check_velocity_threshold(velocity_threshold, self.n)
        if np.any(rest_velocity):
            rest = check_velocity_threshold(rest_velocity, self.n, "rest_velocity")
            qd = np.where(np.all(np.abs(qd) < rest, axis=-1, keepdims=True), 0.0, qd)
        s = smooth_sign(qd, eps)
        out = self.viscous * qd
        for term in FRICTION_TERMS[1:]:
            coefficient = getattr(self, term)
            if np.any(coefficient):
                out = out + coefficient * _basis(term, qd, s, self.stribeck_velocity)
        return out

    def terms(self):
        """Which terms each joint uses.

        Returns:
            tuple: per joint a tuple of the nonzero :data:`FRICTION_TERMS`.
        """
        values = np.stack([getattr(self, t) for t in FRICTION_TERMS])
        return tuple(
            tuple(t for t, v in zip(FRICTION_TERMS, values[:, k]) if v != 0.0)
            for k in range(self.n)
        )


__all__ = [
    "DEFAULT_STRIBECK_VELOCITY",
    "DEFAULT_VELOCITY_THRESHOLD",
    "FRICTION_FIELDS",
    "FRICTION_PARAMETERS",
    "FRICTION_TERMS",
    "FrictionModel",
    "MAX_FRICTION_COEFFICIENT",
    "MAX_STRIBECK_VELOCITY",
    "check_velocity_threshold",
    "friction_basis",
    "smooth_sign",
]
