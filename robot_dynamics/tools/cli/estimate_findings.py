"""What ``robot-dynamics estimate`` finds in a replay beyond the estimate itself, each a named
warning (:data:`~robot_dynamics.tools.cli.output.WARNING_NAMES`): measured torques not the model's
in size or sign (``effort-scale``), velocities that are not the joints' (``velocity-field``),
stretches of the free time where something touched the arm (``disturbance``), and velocities at
rest beyond ``friction_rest_velocity`` while the friction is compensated (``velocity-noise``)."""

from __future__ import annotations

import numpy as np

from robot_dynamics.core.effort_measurement import model_torque_ratios, suggested_effort_scale
from robot_dynamics.core.rest import at_rest, rest_velocity, velocity_noise

from .output import (
    effort_scale_text,
    named_warning,
    scale_advice,
    stretches_text,
    velocity_field_warnings,
)

#: The window the arm must stand still over to be at rest in a replay [s].
REST_WINDOW = 0.2


def torque_ratios(replayed, velocity_threshold):
    """Per joint, the scale of the model's torques in the measured ones over the estimated
    messages (:func:`~robot_dynamics.core.effort_measurement.model_torque_ratios`; the model's
    torque is the measured one plus the external torque, ``tau_ext`` = model - measured).

    Args:
        replayed: the :class:`~robot_dynamics.tools.replay.Replay`.
        velocity_threshold: ``friction_velocity_threshold`` [rad/s or m/s].

    Returns:
        TorqueScales: the scales and the shares of the measured torques' variation they explain,
        each (n,), NaN where no effort is a measurement.
    """
    rows = np.all(np.isfinite(replayed.measured_torques), axis=1)
    rows &= np.all(np.isfinite(replayed.velocity), axis=1)
    constant = {name for name, _ in replayed.constant_efforts}
    measured = np.array([name not in constant for name in replayed.joint_names])
    tau = replayed.measured_torques[rows]
    model = tau + replayed.external_torques[rows]
    return model_torque_ratios(tau, model, replayed.velocity[rows], measured, velocity_threshold)


def effort_scale_warnings(names, finding, scale_set):
    """A warning when the measured torques are not the model's in size, or a joint's are of the
    other sign (:func:`~robot_dynamics.core.effort_measurement.effort_scale_finding`): the wrench
    scales with them.

    Args:
        names: joint names, model order.
        finding: the :class:`~robot_dynamics.core.effort_measurement.EffortScaleFinding` of
            :func:`torque_ratios`.
        scale_set: (n,) the ``effort_scale`` a parameters file set [torque per unit of effort],
            or None.

    Returns:
        list: none or one warning string, ``effort-scale: ...``.
    """
    if scale_set is not None and len(scale_set) != len(names):
        scale_set = np.ones(len(names))  # the node's default: an empty list
    flipped = finding.other_sign
    scale = ", ".join(f"{v:.4g}" for v in suggested_effort_scale(finding, scale_set))
    return effort_scale_text(
        names,
        finding,
        model="the model's",
        given="with the effort_scale given " if scale_set is not None else "",
        common_fix=lambda common: (
            ", or the parameters file identify wrote beside this URDF not given; the wrench "
            "and the contact levels scale with it. Set effort_scale in a --params file: "
            + scale_advice(common)
        ),
        size_fix=", or a model of another robot; the wrench is not meaningful. Set "
        "effort_scale per joint in a --params file: " + scale_advice(),
        sign_fix="; the wrench is not meaningful. Set a negative effort_scale for "
        f"{'it' if len(flipped) == 1 else 'them'} in a --params file (effort_scale: "
        f"[{scale}]), and identify again with it (--effort-scale) if this URDF was identified "
        "from such a recording",
    )


def velocity_warnings(names, unfollowed):
    """estimate's ``velocity-field`` warning (:func:`~robot_dynamics.tools.cli.output.
    velocity_field_warnings`): the node takes such velocities for the joints'."""
    return velocity_field_warnings(
        names,
        unfollowed,
        "The node takes them for the joints' velocities, so the external torques and the wrench "
        "carry the Coriolis, friction and momentum terms it misses (phantom forces): publish "
        "the joints' real velocities (the driver's velocity state interface)",
    )


def disturbance_warnings(names, stretches, windows_given):
    """A warning naming the stretches of the free time where the external torques stand out
    (:func:`~robot_dynamics.tools.contact_levels.outlying_free_stretches`), or none: the levels
    suggested from them are those of a contact.

    Args:
        names: joint names, model order.
        stretches: ``(start, end, peak)`` entries.
        windows_given: whether ``--free`` ranges were given (else the whole recording is free).

    Returns:
        list: none or one warning string, ``disturbance: ...``.
    """
    if not stretches:
        return []
    free = "in the --free ranges" if windows_given else "in the recording (all taken as free)"
    fix = "narrow the --free ranges" if windows_given else "give --free ranges"
    return [
        named_warning(
            "disturbance",
            f"external torques far beyond the rest of the free residual {free} at "
            f"{stretches_text(names, stretches)} (times its robust standard deviation): "
            "something touched the arm (a push, a cable, a collision), or the model is wrong "
            f"there. The suggested contact levels take them for free motion: {fix} where "
            "nothing touches the arm (--free START:END)",
        )
    ]


def recorded_rest_velocity(replayed):
    """Each joint's velocity noise while the arm stood still
    (:func:`~robot_dynamics.core.rest.at_rest` over :data:`REST_WINDOW`, the estimated messages;
    :func:`~robot_dynamics.core.rest.velocity_noise`).

    Args:
        replayed: the :class:`~robot_dynamics.tools.replay.Replay`.

    Returns:
        tuple: ``((n,) [rad/s or m/s] or None when the arm never stood still, seconds at rest)``.
    """
    rows = replayed.estimated
    if np.count_nonzero(rows) < 4:
        return None, 0.0
    t, q = replayed.time[rows], replayed.position[rows]
    interval = float(np.median(np.diff(t))) if t.size > 1 else 0.0
    window = max(3, int(round(REST_WINDOW / interval)) if interval > 0 else 3)
    still = at_rest(q, window)
    if not still.any():
        return None, 0.0
    return velocity_noise(replayed.velocity[rows][still]), float(still.sum() * interval)


def rest_velocity_warnings(names, noise, seconds, values):
    """A warning when the friction is compensated and the velocities at rest reach beyond
    ``friction_rest_velocity``: the smooth sign turns that noise into chatter of the feed-forward
    and phantom torque at rest, up to the joints' Coulomb level.

    Args:
        names: joint names, model order.
        noise: (n,) each joint's velocity noise at rest [rad/s or m/s] (NaN: none), or None.
        seconds: how long the arm was at rest [s].
        values: the node's parameter values.

    Returns:
        list: none or one warning string, ``velocity-noise: ...``.
    """
    if not values["friction_compensation"]:
        return []
    level = rest_velocity(noise, seconds)
    if level is None:
        return []
    configured = float(values["friction_rest_velocity"])
    j = int(np.nanargmax(noise))
    if noise[j] < configured:
        return []
    now = f"friction_rest_velocity {configured:g}" if configured else "friction_rest_velocity 0"
    return [
        named_warning(
            "velocity-noise",
            f"at rest ({seconds:.3g} s) the driver's velocities reach {noise[j]:.3g} (joint "
            f"{names[j]}), beyond {now}: the friction compensation turns that noise into "
            "chatter of the feed-forward and phantom torque at rest, up to the joints' Coulomb "
            f"level. Set friction_rest_velocity: {level:.3g} in a --params file (identify "
            "writes it from a recording with the arm at rest)",
        )
    ]
