"""Plain configuration of the estimation pipeline (frozen dataclasses, validated against a
model by :func:`validate_config`)."""

import math
from dataclasses import dataclass, field

import numpy as np

from robot_dynamics.core.errors import InvalidInputError
from robot_dynamics.core.estimation import resolve_wrench_components

ESTIMATORS = ("momentum_observer", "static")
STATIC_ACCELERATIONS = ("zero", "differentiated")
COMMAND_SOURCES = ("gravity", "feedforward")


@dataclass(frozen=True)
class ContactConfig:
    """Contact detection (reference: "Contact detection"): thresholds with hysteresis.

    Attributes:
        torque_on: per joint, model order [N m or N], > 0 (inf: the joint never triggers);
            () = no per-joint detection. A contact starts when ``|tau_ext_j| > torque_on_j``
            for some joint j (or a magnitude level below is exceeded) for ``min_duration``.
        torque_off: release levels, ``<= torque_on``; () = the same as torque_on.
        force_on: level on ``|f|`` of the estimated wrench [N]; 0 = not used.
        force_off: release level on ``|f|`` [N]; 0 with force_on > 0: the same as force_on.
        moment_on: level on ``|n|`` of the estimated wrench [N m]; 0 = not used.
        moment_off: release level on ``|n|`` [N m]; 0 with moment_on > 0: the same as
            moment_on.
        min_duration: [s] >= 0, how long a switch condition must hold before the state
            switches (both ways).
    """

    torque_on: tuple = ()
    torque_off: tuple = ()
    force_on: float = 0.0
    force_off: float = 0.0
    moment_on: float = 0.0
    moment_off: float = 0.0
    min_duration: float = 0.02

    @property
    def enabled(self):
        """True when some level (per-joint torque, force or moment) is set."""
        return bool(len(self.torque_on)) or self.force_on > 0.0 or self.moment_on > 0.0


@dataclass(frozen=True)
class PipelineConfig:
    """Policy of :class:`~robot_dynamics.estimation.pipeline.EstimationPipeline`.

    Attributes:
        wrench_estimation: "momentum_observer" (no acceleration needed) or "static"
            (``tau_ext = M qdd + C qd + g - tau`` with qdd per static_acceleration).
        observer_gain: momentum observer gain K_O [1/s], > 0.
        static_acceleration: "zero" (quasi-static) or "differentiated" (measured velocity
            differentiated and low-pass filtered with acceleration_filter_time_constant [s]).
        observer_max_dt: [s] > 0; a longer gap between stamps (or a stamp going backwards)
            restarts the observer and the differentiator.
        friction_compensation: add the URDF friction to the feed-forward and remove it from the
            measured torques, Coulomb part through ``tanh(qd / friction_velocity_threshold)``.
        wrench_frame: link whose force-torque-sensor reading is estimated (axes of that link,
            moment about its origin); "" = the model's tip link.
        wrench_components: subset of ``fx fy fz tx ty tz`` (frame axes) solved for, the others
            reported as 0; () = all six when the arm has >= 6 joints, else the force only.
        wrench_damping: largest damping of the damped pseudo-inverse of J_S^T, >= 0.
        singular_threshold: singular value of J_S below which that damping fades in, >= 0.
        reference_timeout: [s] >= 0; an older reference is ignored (0 = never expires).
        effort_timeout: [s] >= 0; a joint's effort older than this is not used (0 = no
            limit).
        velocity_timeout: [s] >= 0; a joint's velocity older than this is not used (0 = no
            limit).
        effort_scale: per joint (model order): ``tau = scale * effort + offset`` (drivers
            reporting current or another sign); () = 1.
        effort_offset: per joint (model order) [N m or N], the offset above; () = 0.
        effort_limit_factor: > 0 (inf = off); a message with ``|tau|`` beyond factor x the
            URDF effort limit is refused.
        velocity_limit_factor: > 0 (inf = off); a message with ``|qd|`` beyond factor x the
            URDF velocity limit is refused.
        tare_duration: [s] > 0, averaging window of a tare.
        contact: :class:`ContactConfig`.
        command_source: "gravity" or "feedforward".
        clamp_effort_command: clamp the command to the URDF effort limits.
    """

    wrench_estimation: str = "momentum_observer"
    observer_gain: float = 50.0
    static_acceleration: str = "zero"
    acceleration_filter_time_constant: float = 0.01
    observer_max_dt: float = 0.5
    friction_compensation: bool = False
    friction_velocity_threshold: float = 0.01
    wrench_frame: str = ""
    wrench_components: tuple = ()
    wrench_damping: float = 0.05
    singular_threshold: float = 0.01
    reference_timeout: float = 0.5
    effort_timeout: float = 0.1
    velocity_timeout: float = 0.1
    effort_scale: tuple = ()
    effort_offset: tuple = ()
    effort_limit_factor: float = 10.0
    velocity_limit_factor: float = 10.0
    tare_duration: float = 1.0
    contact: ContactConfig = field(default_factory=ContactConfig)
    command_source: str = "gravity"
    clamp_effort_command: bool = True


def _number(config, name, minimum=0.0, strict=False, allow_inf=False, where="config"):
    value = getattr(config, name)
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{where}.{name} must be a number, got {value!r}") from None
    ok = (allow_inf or math.isfinite(value)) and not math.isnan(value)
    ok = ok and (value > minimum if strict else value >= minimum)
    if not ok:
        bound = f"> {minimum}" if strict else f">= {minimum}"
        inf = " (or inf)" if allow_inf else ", finite"
        raise InvalidInputError(f"{where}.{name} must be {bound}{inf}, got {value!r}")
    return value


def _choice(config, name, choices):
    value = getattr(config, name)
    if value not in choices:
        raise InvalidInputError(f"config.{name} must be one of {list(choices)}, got {value!r}")
    return value


def _per_joint(values, name, model, default, positive=False, where="config"):
    if values is None or len(values) == 0:
        return np.full(model.n, default)
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{where}.{name} must be numbers, got {values!r}") from None
    if arr.shape != (model.n,):
        raise InvalidInputError(
            f"{where}.{name} has {arr.size} values, the model has {model.n} joints "
            f"{list(model.joint_names)}"
        )
    bad = np.isnan(arr) | (arr <= 0 if positive else ~np.isfinite(arr))
    if bad.any():
        k = int(np.argmax(bad))
        need = "> 0 (or inf)" if positive else "finite"
        raise InvalidInputError(
            f"{where}.{name} of joint {model.joint_names[k]!r} must be {need}, got {arr[k]}"
        )
    return arr


@dataclass(frozen=True)
class ResolvedContact:
    """ContactConfig as arrays for one model (see :func:`validate_config`).

    Attributes:
        enabled: contact detection is on.
        torque_on: (n,) per-joint start levels [N m or N], or None: no per-joint detection.
        torque_off: (n,) per-joint release levels [N m or N], or None.
        force_on: start level on ``|f|`` [N] (0: not used).
        force_off: release level on ``|f|`` [N].
        moment_on: start level on ``|n|`` [N m] (0: not used).
        moment_off: release level on ``|n|`` [N m].
        min_duration_ns: minimum duration of a switch condition [ns].
    """

    enabled: bool
    torque_on: np.ndarray | None
    torque_off: np.ndarray | None
    force_on: float
    force_off: float
    moment_on: float
    moment_off: float
    min_duration_ns: int


@dataclass(frozen=True)
class ResolvedConfig:
    """The numbers of a validated config for one model.

    Attributes:
        contact_frame: the link the external wrench acts on (None: no wrench).
        wrench_frame: the link whose sensor-like reading is estimated (None: no wrench).
        wrench_components: the estimated components, e.g. ``("fx", "fy", "fz")``.
        effort_scale: (n,) factor from measured effort to joint torque.
        effort_offset: (n,) offset [N m or N] of that conversion.
        effort_bound: (n,) |tau| [N m or N] above this refuses a message.
        effort_raw_bound: (n,) |effort| at or below this is within effort_bound.
        velocity_bound: (n,) |qd| [rad/s or m/s] above this refuses a message.
        contact: :class:`ResolvedContact`.
    """

    contact_frame: str | None  # the link the external wrench acts on (None: no wrench)
    wrench_frame: str | None
    wrench_components: tuple
    effort_scale: np.ndarray
    effort_offset: np.ndarray
    effort_bound: np.ndarray  # (n,) |tau| above this refuses a message
    effort_raw_bound: np.ndarray  # (n,) |effort| at or below this is within effort_bound
    velocity_bound: np.ndarray  # (n,)
    contact: ResolvedContact


#: Bounds where the URDF gives no limit (or the factor is inf): finite values beyond these are
#: not a robot's, whatever the robot.
ABSURD_EFFORT = 1.0e6
ABSURD_VELOCITY = 1.0e4
ABSURD_POSITION = 1.0e6


def _bound(limits, factor, absurd):
    limits = np.asarray(limits, dtype=float)
    known = np.isfinite(limits) & (limits > 0)
    return np.where(known, np.minimum(factor * np.where(known, limits, 1.0), absurd), absurd)


def validate_config(model, config):
    """Check ``config`` against ``model``.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        config: a :class:`PipelineConfig`.

    Returns:
        ResolvedConfig: the config's numbers for this model.

    Raises:
        InvalidInputError: naming the field (and the joint or link) that is wrong.
    """
    if not isinstance(config, PipelineConfig):
        raise InvalidInputError(f"config must be a PipelineConfig, got {type(config).__name__}")
    _choice(config, "wrench_estimation", ESTIMATORS)
    _choice(config, "static_acceleration", STATIC_ACCELERATIONS)
    _choice(config, "command_source", COMMAND_SOURCES)
    _number(config, "observer_gain", strict=True)
    _number(config, "acceleration_filter_time_constant")
    _number(config, "observer_max_dt", strict=True)
    _number(config, "friction_velocity_threshold")
    _number(config, "wrench_damping")
    _number(config, "singular_threshold")
    _number(config, "reference_timeout")
    _number(config, "effort_timeout")
    _number(config, "velocity_timeout")
    effort_factor = _number(config, "effort_limit_factor", strict=True, allow_inf=True)
    velocity_factor = _number(config, "velocity_limit_factor", strict=True, allow_inf=True)
    _number(config, "tare_duration", strict=True)
    if config.wrench_frame and config.wrench_frame not in model.link_names:
        raise InvalidInputError(
            f"config.wrench_frame {config.wrench_frame!r} is not a link of the model below "
            f"base link {model.base_link!r}; links: {list(model.link_names)}"
        )
    # the wrench acts at the model's tip (a tree without a tip: at wrench_frame, if given);
    # it is reported as a sensor at wrench_frame (default: the tip) reads it
    contact_frame = model.tip_link or config.wrench_frame or None
    frame = (config.wrench_frame or contact_frame) if contact_frame is not None else None
    try:
        components = resolve_wrench_components(config.wrench_components or None, model.n)
    except InvalidInputError as error:
        raise InvalidInputError(f"config.wrench_components: {error}") from None
    contact = _resolve_contact(model, config.contact)
    scale = _per_joint(config.effort_scale, "effort_scale", model, 1.0)
    offset = _per_joint(config.effort_offset, "effort_offset", model, 0.0)
    effort_bound = _bound(model.effort_limits, effort_factor, ABSURD_EFFORT)
    with np.errstate(divide="ignore", invalid="ignore"):
        # |scale * effort + offset| <= bound whenever |effort| <= (bound - |offset|) / |scale|
        raw = np.where(scale != 0, (effort_bound - np.abs(offset)) / np.abs(scale), np.inf)
    raw = np.where(np.abs(offset) <= effort_bound, raw, -1.0)
    return ResolvedConfig(
        contact_frame=contact_frame,
        wrench_frame=frame,
        wrench_components=components,
        effort_scale=scale,
        effort_offset=offset,
        effort_bound=effort_bound,
        effort_raw_bound=raw,
        velocity_bound=_bound(model.velocity_limits, velocity_factor, ABSURD_VELOCITY),
        contact=contact,
    )


def _resolve_contact(model, contact):
    where = "config.contact"
    if not isinstance(contact, ContactConfig):
        raise InvalidInputError(f"{where} must be a ContactConfig, got {type(contact).__name__}")
    on = off = None
    if len(contact.torque_on):
        on = _per_joint(contact.torque_on, "torque_on", model, 0.0, positive=True, where=where)
        if len(contact.torque_off):
            off = _per_joint(
                contact.torque_off, "torque_off", model, 0.0, positive=True, where=where
            )
            above = off > on
            if above.any():
                k = int(np.argmax(above))
                raise InvalidInputError(
                    f"{where}.torque_off of joint {model.joint_names[k]!r} ({off[k]}) is above "
                    f"its torque_on ({on[k]})"
                )
        else:
            off = on
    elif len(contact.torque_off):
        raise InvalidInputError(f"{where}.torque_off is given without torque_on")
    levels = {}
    for name in ("force", "moment"):
        level_on = _number(contact, f"{name}_on", where=where)
        level_off = _number(contact, f"{name}_off", where=where)
        if level_on == 0.0 and level_off > 0.0:
            raise InvalidInputError(f"{where}.{name}_off is given without {name}_on")
        if level_off == 0.0:
            level_off = level_on
        if level_off > level_on:
            raise InvalidInputError(
                f"{where}.{name}_off ({level_off}) is above {name}_on ({level_on})"
            )
        levels[name] = (level_on, level_off)
    duration = _number(contact, "min_duration", where=where)
    return ResolvedContact(
        enabled=contact.enabled,
        torque_on=on,
        torque_off=off,
        force_on=levels["force"][0],
        force_off=levels["force"][1],
        moment_on=levels["moment"][0],
        moment_off=levels["moment"][1],
        min_duration_ns=int(round(duration * 1e9)),
    )


__all__ = ["ContactConfig", "PipelineConfig", "ResolvedConfig", "validate_config"]
