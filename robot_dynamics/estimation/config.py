"""Configuration of the estimation pipeline: frozen dataclasses derived from the dynamics node's
parameter declarations (:data:`robot_dynamics.schema.DYNAMICS_NODE`, the parameters with a
``config`` field), validated against a model by :func:`validate_config`."""

from dataclasses import dataclass

import numpy as np

from robot_dynamics.core.errors import InvalidInputError
from robot_dynamics.core.estimation import resolve_wrench_components
from robot_dynamics.schema import DYNAMICS_NODE
from robot_dynamics.schema.derive import config_class, config_from_values, config_values
from robot_dynamics.schema.param import ARRAY_TYPES, NUMBER_TYPES

_PARAMS = DYNAMICS_NODE.params


def _contact_enabled(self):
    """True when some level (per-joint torque, force or moment) is set."""
    return bool(len(self.torque_on)) or self.force_on > 0.0 or self.moment_on > 0.0


ContactConfig = config_class(
    "ContactConfig",
    _PARAMS,
    'Contact detection (reference: "Contact detection"): thresholds with hysteresis. A contact '
    "starts when ``|tau_ext_j| > torque_on_j`` for some joint j (or a magnitude level is "
    "exceeded) for ``min_duration``.",
    __name__,
    prefix="contact.",
    namespace={"enabled": property(_contact_enabled)},
)

PipelineConfig = config_class(
    "PipelineConfig",
    _PARAMS,
    "Policy of :class:`~robot_dynamics.estimation.pipeline.EstimationPipeline`.",
    __name__,
    nested={"contact": ContactConfig},
)


def pipeline_config(values):
    """The :class:`PipelineConfig` of the dynamics node's parameter values.

    Args:
        values: ``{parameter name: value}`` with every parameter that has a config field.

    Returns:
        PipelineConfig: the config (arrays as tuples).
    """
    return config_from_values(PipelineConfig, _PARAMS, values)


def _number(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidInputError(f"{where} must be a number, got {value!r}", argument=where)
    return float(value)


def _check_fields(config, model, arrays):
    """Every field of ``config`` (numbers, choices; arrays when ``arrays``) against its
    declaration, per-joint arrays with joint names in the message."""
    labels = [f"joint {name!r}" for name in model.joint_names]
    for param, value in config_values(config, _PARAMS):
        where = param.config
        if (param.type in ARRAY_TYPES) != arrays:
            continue
        if param.type in NUMBER_TYPES:
            value = _number(value, where)
        per_joint = arrays and len(value) == model.n
        reason = param.reason(value, labels=labels if per_joint else None)
        if reason:
            raise InvalidInputError(f"{where}: {reason}", argument=where)


def _per_joint(values, name, model, default, positive=False):
    """The (n,) values of a per-joint field named ``name`` (its path in the config, which is
    also the node's parameter), ``default`` where empty."""
    if values is None or len(values) == 0:
        return np.full(model.n, default)
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be numbers, got {values!r}", argument=name) from None
    if arr.shape != (model.n,):
        raise InvalidInputError(
            f"{name} has {arr.size} values, the model has {model.n} joints "
            f"{list(model.joint_names)}",
            argument=name,
        )
    bad = np.isnan(arr) | (arr <= 0 if positive else ~np.isfinite(arr))
    if bad.any():
        k = int(np.argmax(bad))
        need = "> 0" if positive else "finite"
        raise InvalidInputError(
            f"{name} of joint {model.joint_names[k]!r} must be {need}, got {arr[k]}",
            argument=name,
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


#: Bounds where the URDF gives no limit: finite values beyond these are not a robot's, whatever
#: the robot.
ABSURD_EFFORT = 1.0e6
ABSURD_VELOCITY = 1.0e4
ABSURD_POSITION = 1.0e6


def _bound(limits, factor, absurd):
    """factor x the URDF limits (> 0; infinite: none), at most ``absurd``."""
    return np.minimum(factor * np.asarray(limits, dtype=float), absurd)


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
    if not isinstance(config.contact, ContactConfig):
        raise InvalidInputError(
            f"contact must be a ContactConfig, got {type(config.contact).__name__}"
        )
    _check_fields(config, model, arrays=False)
    if config.wrench_frame and config.wrench_frame not in model.link_names:
        raise InvalidInputError(
            f"wrench_frame {config.wrench_frame!r} is not a link of the model below "
            f"base link {model.base_link!r}; links: {list(model.link_names)}",
            argument="wrench_frame",
        )
    # the wrench acts at the model's tip (a tree without a tip: at wrench_frame, if given);
    # it is reported as a sensor at wrench_frame (default: the tip) reads it
    contact_frame = model.tip_link or config.wrench_frame or None
    frame = (config.wrench_frame or contact_frame) if contact_frame is not None else None
    try:
        moving = (
            model.n if contact_frame is None else int(model.tree.moving_joints(contact_frame).sum())
        )
        components = resolve_wrench_components(config.wrench_components or None, moving)
    except InvalidInputError as error:
        raise InvalidInputError(
            f"wrench_components: {error}", argument="wrench_components"
        ) from None
    contact = _resolve_contact(model, config.contact)
    scale = _per_joint(config.effort_scale, "effort_scale", model, 1.0)
    offset = _per_joint(config.effort_offset, "effort_offset", model, 0.0)
    effort_bound = _bound(model.effort_limits, config.effort_limit_factor, ABSURD_EFFORT)
    with np.errstate(divide="ignore", invalid="ignore"):
        # |scale * effort + offset| <= bound whenever |effort| <= (bound - |offset|) / |scale|
        raw = np.where(scale != 0, (effort_bound - np.abs(offset)) / np.abs(scale), np.inf)
    raw = np.where(np.abs(offset) <= effort_bound, raw, -1.0)
    _check_fields(config, model, arrays=True)
    return ResolvedConfig(
        contact_frame=contact_frame,
        wrench_frame=frame,
        wrench_components=components,
        effort_scale=scale,
        effort_offset=offset,
        effort_bound=effort_bound,
        effort_raw_bound=raw,
        velocity_bound=_bound(model.velocity_limits, config.velocity_limit_factor, ABSURD_VELOCITY),
        contact=contact,
    )


def _resolve_contact(model, contact):
    where = "contact"
    on = off = None
    if len(contact.torque_on):
        on = _per_joint(contact.torque_on, f"{where}.torque_on", model, 0.0, positive=True)
        if len(contact.torque_off):
            off = _per_joint(contact.torque_off, f"{where}.torque_off", model, 0.0, positive=True)
            above = off > on
            if above.any():
                k = int(np.argmax(above))
                raise InvalidInputError(
                    f"{where}.torque_off of joint {model.joint_names[k]!r} ({off[k]}) is above "
                    f"its torque_on ({on[k]})",
                    argument=f"{where}.torque_off",
                )
        else:
            off = on
    elif len(contact.torque_off):
        raise InvalidInputError(
            f"{where}.torque_off is given without {where}.torque_on: give both, or neither (no "
            "per-joint detection)",
            argument=f"{where}.torque_off",
        )
    levels = {}
    for name in ("force", "moment"):
        level_on = float(getattr(contact, f"{name}_on"))
        level_off = float(getattr(contact, f"{name}_off"))
        if level_on == 0.0 and level_off > 0.0:
            raise InvalidInputError(
                f"{where}.{name}_off is given without {where}.{name}_on: give both, or neither "
                f"(no {name} detection)",
                argument=f"{where}.{name}_off",
            )
        if level_off == 0.0:
            level_off = level_on
        if level_off > level_on:
            raise InvalidInputError(
                f"{where}.{name}_off ({level_off}) is above {where}.{name}_on ({level_on})",
                argument=f"{where}.{name}_off",
            )
        levels[name] = (level_on, level_off)
    duration = float(contact.min_duration)
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


__all__ = [
    "ContactConfig",
    "PipelineConfig",
    "ResolvedConfig",
    "pipeline_config",
    "validate_config",
]
