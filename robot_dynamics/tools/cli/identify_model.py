"""``robot-dynamics identify``'s model options and their report: the friction model per joint
(chosen on the held-out data or given), the torque offsets, armature; what the fit chose and the
evidence; the files written (the identified URDF,
:func:`robot_dynamics.core.urdf_writer.identified_urdf`, and the dynamics node's parameters file
beside it, :mod:`robot_dynamics.tools.identified_parameters`). See
:mod:`robot_dynamics.core.friction_identification`.
"""

from __future__ import annotations

import os

import numpy as np

from robot_dynamics.core.friction import DEFAULT_VELOCITY_THRESHOLD
from robot_dynamics.core.friction_identification import (
    AUTO,
    FRICTION_MODELS,
    STRIBECK_VELOCITIES,
    select_model,
)
from robot_dynamics.core.identification import identify
from robot_dynamics.core.urdf_writer import identified_urdf
from robot_dynamics.tools.identified_parameters import identified_parameters, parameters_file_text

from .arguments import number
from .identify_node import carried_values


def add_velocity_threshold_option(p):
    """``--velocity-threshold``: the Coulomb friction's smooth sign, as the dynamics node's
    ``friction_velocity_threshold``.

    Args:
        p: the subcommand's ``ArgumentParser``.
    """
    p.add_argument(
        "--velocity-threshold",
        type=number(0),
        default=DEFAULT_VELOCITY_THRESHOLD,
        help="v_eps of the Coulomb friction's smooth sign tanh(qd / v_eps) [rad/s] (the node's "
        f"friction_velocity_threshold; default: --params', else {DEFAULT_VELOCITY_THRESHOLD:g})",
    )


def add_model_options(p):
    """The ``identify`` options that say what to fit: friction model, offsets, armature.

    Args:
        p: the subcommand's ``ArgumentParser``.
    """
    models = [m.replace("_", "-") for m in FRICTION_MODELS]
    p.add_argument(
        "--friction-model",
        choices=[AUTO] + models,
        default=AUTO,
        help="friction model of every joint (default auto: per joint the simplest the "
        "held-out data support; viscous-coulomb < asymmetric < stribeck)",
    )
    p.add_argument(
        "--offset",
        nargs="?",
        choices=(AUTO, "on", "off"),
        const="on",
        default=AUTO,
        help="a constant torque offset per joint: auto (default: where the held-out data "
        "support it), on (every joint; --offset alone), off",
    )
    p.add_argument(
        "--stribeck-velocity",
        type=number(0, above=True),
        default=None,
        metavar="V",
        help="Stribeck velocity of every joint [rad/s] (default: fitted per joint from "
        + " ".join(f"{v:g}" for v in STRIBECK_VELOCITIES)
        + " and refined)",
    )
    p.add_argument(
        "--armature", action="store_true", help="also identify the armature (rotor inertia)"
    )
    add_velocity_threshold_option(p)
    p.add_argument(
        "--max-condition",
        type=number(1),
        default=1e4,
        help="refuse data whose base regressor is worse conditioned (default 1e4)",
    )


def fit_model(args, model, train, test):
    """Choose the friction model and offsets per joint and identify (``args``: the model
    options of :func:`add_model_options`).

    Args:
        args: the parsed command line (``argparse.Namespace``).
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel`.
        train: the training :class:`~robot_dynamics.core.joint_data.JointData`.
        test: the held-out one, or None.

    Returns:
        tuple: ``(ModelSelection, IdentificationResult)``.

    Raises:
        IdentificationError: data that cannot choose or identify the model.
    """
    selection = select_model(
        model,
        train,
        test,
        friction=args.friction_model.replace("-", "_"),
        offset={AUTO: AUTO, "on": True, "off": False}[args.offset],
        velocity_threshold=args.velocity_threshold,
        stribeck_velocities=STRIBECK_VELOCITIES
        if args.stribeck_velocity is None
        else (args.stribeck_velocity,),
        armature=args.armature,
        max_condition=args.max_condition,
    )
    result = identify(
        model,
        train.q,
        train.qd,
        train.qdd,
        train.tau,
        layout=selection.layout,
        max_condition=args.max_condition,
        effort_mask=train.effort_mask,
        held=train.held,
        smooth=train.smoothed,
    )
    return selection, result


def write_outputs(args, model, xml, data, selection, result, params_path, warnings=(), node=None):
    """Write the identified URDF (``args.out``) and the node's parameters file.

    Args:
        args: the parsed command line.
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel`.
        xml: the nominal URDF text.
        data: the prepared :class:`~robot_dynamics.core.joint_data.JointData` (its report has
            the effort scale and offset identify applied).
        selection: the :class:`~robot_dynamics.core.friction_identification.ModelSelection`.
        result: the :class:`~robot_dynamics.core.identification.IdentificationResult`.
        params_path: where the parameters file goes.
        warnings: the run's warnings, written as ``warning:`` comments at the file's top.
        node: the :class:`~robot_dynamics.tools.cli.identify_node.NodeSetup` of ``--params``,
            or None: the file then also carries the node's other parameters and locks its
            locked joints.

    Returns:
        str: the parameters file's text.
    """
    held = data.report.not_recorded
    if node is not None:  # the joints the node locks, also where the recording carries them
        listed = {name for name, _ in held}
        locked = set(model.joint_names) - set(node.node_joints)
        held += tuple((j, p) for j, p in data.report.held if j in locked and j not in listed)
    values = identified_parameters(
        result,
        model,
        args.velocity_threshold,
        effort_scale=data.report.effort_scale,
        effort_offset=data.report.effort_offset,
        held=held,
        rest_velocity=data.report.rest_level,
    )
    if node is not None:
        values = {**carried_values(node, model, held), **values}
    choices = ", ".join(
        f"{name} {kind.replace('_', '+')}{' + offset' if off else ''}"
        for name, kind, off in zip(model.joint_names, selection.friction, selection.offset)
    )
    comments = (
        f"identified from {args.data} with the URDF {os.path.basename(args.out)}",
        f"friction model per joint: {choices}",
        "effort_offset = the recording's offset - the fitted torque offset",
        *(f"warning: {w}" for w in warnings),
    )
    text = parameters_file_text(values, model, comments)
    with open(args.out, "w") as f:
        f.write(identified_urdf(xml, model, result.layout, result.theta))
    with open(params_path, "w") as f:
        f.write(text)
    return text


def model_json(model, selection, result):
    """The friction model, offsets and their evidence for ``--json``.

    Args:
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel`.
        selection: the :class:`~robot_dynamics.core.friction_identification.ModelSelection`.
        result: the :class:`~robot_dynamics.core.identification.IdentificationResult`.

    Returns:
        dict: JSON-ready entries.
    """
    friction = result.friction_model(model)

    def listed(x):
        return [float(v) for v in x]

    return {
        "friction_model": list(selection.friction),
        "friction_choice_held_out": bool(selection.held_out),
        "friction_evidence": {m: listed(selection.best_rms(m)) for m in FRICTION_MODELS},
        "candidates": [
            {"label": c.label, "rms": listed(c.rms), "physical": c.physical.tolist(),
             "error": c.error}
            for c in selection.candidates
        ],  # fmt: skip
        "damping": friction.viscous.tolist(),
        "friction": friction.coulomb.tolist(),
        "asymmetry": friction.asymmetry.tolist(),
        "stribeck": friction.stribeck.tolist(),
        "stribeck_velocity": friction.stribeck_velocity.tolist(),
        "offset_fitted": selection.offset.tolist(),
        "offset": result.group("offset").tolist(),
        "offset_std": listed(result.group_std("offset")),
        "armature": result.group("armature").tolist() if "armature" in result.layout.groups
        else None,
    }  # fmt: skip


def model_lines(model, selection, result, effort_mask, p):
    """The report's friction and offset table: per joint the held-out RMS of each friction
    model, the choice, the coefficients and the offset with its standard error.

    Args:
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel`.
        selection: the :class:`~robot_dynamics.core.friction_identification.ModelSelection`.
        result: the :class:`~robot_dynamics.core.identification.IdentificationResult`.
        effort_mask: (n,) bool, the joints with a measured torque.
        p: decimals.

    Returns:
        list: the lines.
    """
    width = max(len(n) for n in model.joint_names)
    friction = result.friction_model(model)
    offset, std = result.group("offset"), result.group_std("offset")
    where = "held-out" if selection.held_out else "training"
    evidence = {m: selection.best_rms(m) for m in FRICTION_MODELS}
    lines = [
        f"friction model per joint ({where} torque RMS of each [N m]; chosen: the simplest "
        "removing >= 10 % of the mean square) and torque offset:",
        f"{'joint':<{width}}  {'visc+Coul':>9}  {'+asymm':>9}  {'+Stribeck':>9}  "
        f"{'chosen':<15}  {'offset [N m]':>18}",
    ]
    for k, name in enumerate(model.joint_names):
        if not effort_mask[k]:
            continue
        rms = "  ".join(
            f"{evidence[m][k]:>9.{p}f}" if np.isfinite(evidence[m][k]) else f"{'-':>9}"
            for m in FRICTION_MODELS
        )
        off = f"{offset[k]:+.{p}f} +- {std[k]:.2g}" if selection.offset[k] else "none"
        lines.append(f"{name:<{width}}  {rms}  {selection.friction[k]:<15}  {off:>18}")
    for c in selection.candidates:
        if c.error:
            lines.append(f"  not identifiable: {c.label}: {c.error}")
    lines.append(
        f"{'joint':<{width}}  {'damping':>9}  {'coulomb':>9}  {'asymmetry':>9}  "
        f"{'stribeck':>9}  {'v_s [rad/s]':>11}"
    )
    for k, name in enumerate(model.joint_names):
        vs = f"{friction.stribeck_velocity[k]:>11.{p}f}" if friction.stribeck[k] else f"{'-':>11}"
        lines.append(
            f"{name:<{width}}  {friction.viscous[k]:>9.{p}f}  {friction.coulomb[k]:>9.{p}f}  "
            f"{friction.asymmetry[k]:>9.{p}f}  {friction.stribeck[k]:>9.{p}f}  {vs}"
        )
    if "armature" in result.layout.groups:
        armature = result.group("armature")
        lines.append("armature [kg m^2]: " + " ".join(f"{a:.{p}g}" for a in armature))
    return lines


__all__ = ["add_model_options", "fit_model", "model_json", "model_lines", "write_outputs"]
