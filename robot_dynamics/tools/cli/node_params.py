"""The dynamics node's parameters files on the command line: ``--params FILE`` (repeatable, a
later file wins) and ``--node-name``, read as the node reads them
(:mod:`robot_dynamics.tools.params_file`). A command that takes them computes with the node's
model (armature, payload, the joint friction model ``friction.*``) and, where it applies, the
node's conversions (``effort_scale``/``effort_offset`` of measured efforts,
``friction_compensation``): ``robot-dynamics identify`` writes such a file beside the identified
URDF, and every command then computes what the node computes."""

from __future__ import annotations

import numpy as np

from robot_dynamics.tools.params_file import NODE_NAME, read_parameters_files


def add_params_option(p) -> None:
    """Add ``--params`` and ``--node-name`` to a command's parser.

    Args:
        p: the command's ``ArgumentParser``.
    """
    p.add_argument(
        "--params",
        action="append",
        default=None,
        metavar="YAML",
        help="the dynamics node's parameters file (as --ros-args --params-file; repeatable, a "
        "later file wins; e.g. the one identify writes beside its URDF); default: the node's "
        "defaults",
    )
    p.add_argument(
        "--node-name",
        default=NODE_NAME,
        help=f"node whose section of --params applies (default {NODE_NAME})",
    )


def node_parameters(args, model, params):
    """The node parameters of the command: the files' (or the defaults), the command line's
    model options over them, and where neither sets the base, tip or gravity, the robot's own
    defaults (a bundled robot's tip and gravity, the URDF's root; not the robot's gravity when a
    file sets another base: the node's default gravity follows the base).

    Args:
        args: the parsed command line.
        model: the model :func:`~robot_dynamics.tools.cli.loading.load_model` built from ROBOT.
        params: the NodeParameters of the files (:func:`read_parameters_files`).

    Returns:
        NodeParameters: the values.

    Raises:
        ParametersFileError: a bad value.
    """
    resolved = {
        "base_link": model.base_link,
        "tip_link": model.tip_link or "",
        "gravity": [float(g) for g in model.gravity],
    }
    given = {
        "base_link": args.base_link is not None,
        "tip_link": args.tip_link is not None,
        "gravity": args.gravity is not None,
    }
    overrides = {
        name: value for name, value in resolved.items() if given[name] or name not in params.given
    }
    file_base = not given["base_link"] and params.values["base_link"] not in ("", model.base_link)
    if file_base and not given["gravity"]:
        # the model's gravity is for its own base: the node's default follows the file's
        overrides.pop("gravity", None)
    if getattr(args, "balance_inertia", False):
        overrides["balance_inertia"] = True
    return params.with_values(overrides)


def node_model(run):
    """A command's invocation with the node's model, from the URDF and the ``--params`` files.

    Args:
        run: the command's :class:`~robot_dynamics.tools.cli.arguments.Invocation`.

    Returns:
        tuple: ``(Invocation with the node's model, NodeParameters)``; without ``--params``
        ``(run, None)``.

    Raises:
        ParametersFileError: a file the node would refuse, or values that do not fit the model
            (the model's or the estimation pipeline's, as the node checks them at start-up).
    """
    if not run.args.params:
        return run, None
    files = read_parameters_files(run.args.params, node=run.args.node_name)
    params = node_parameters(run.args, run.model, files)
    _, model = params.build_model(run.xml)
    params.pipeline(model)  # refuses what the node refuses at start-up (lengths, frames, levels)
    return run._replace(model=model), params


def by_joint(values, joints, joint_names, fill=None):
    """A per-joint list of ``joints`` (a node's, say) over ``joint_names``, matched by name.

    Args:
        values: one value per joint of ``joints``.
        joints: the joints ``values`` belong to, in order.
        joint_names: the joints to list, in order.
        fill: the value of a joint of ``joint_names`` not in ``joints``.

    Returns:
        list: one value per joint of ``joint_names``.
    """
    found = dict(zip(joints, values))
    return [found.get(name, fill) for name in joint_names]


def node_conversions(args, params, node, joint_names):
    """Fill the effort conversion and the friction's smooth sign of a command's ``args`` from
    the node's parameters where the command line gives none (``--effort-scale``,
    ``--effort-offset``, ``--velocity-threshold``): the torques the node computes.

    Args:
        args: the parsed command line (changed in place).
        params: the NodeParameters of ``--params``.
        node: the node's model (its joints name the files' per-joint lists).
        joint_names: the command's joints: the node's, or more (the joints the node locks
            get scale 1 and offset 0).

    Raises:
        InvalidInputError: an effort_scale or effort_offset of the wrong length.
    """
    from robot_dynamics.estimation.config import validate_config

    resolved = validate_config(node, params.pipeline_config())
    for name, values, fill in (
        ("effort_scale", resolved.effort_scale, 1.0),
        ("effort_offset", resolved.effort_offset, 0.0),
    ):
        if getattr(args, name) is None:
            spread = by_joint(values, node.joint_names, joint_names, fill)
            setattr(args, name, [repr(float(v)) for v in spread])
    if args.velocity_threshold is None:
        args.velocity_threshold = float(params.values["friction_velocity_threshold"])


def compensated_friction(params, model, qd):
    """The friction the node adds to its feed-forward and removes from measured torques.

    Args:
        params: the NodeParameters, or None (no file: no compensation).
        model: the node's model (its friction model).
        qd: (..., n) measured joint velocities [rad/s or m/s].

    Returns:
        ndarray: (..., n) friction torques [N m or N]; zeros without ``friction_compensation``
        and where the arm is at rest (``friction_rest_velocity``).
    """
    if params is None or not params.values["friction_compensation"]:
        return np.zeros(model.n)
    values = params.values
    friction = model.friction.torques(
        qd, values["friction_velocity_threshold"], values["friction_rest_velocity"]
    )
    return np.asarray(friction, dtype=float)


def effort_torques(params, model, effort):
    """Measured efforts converted as the node converts them: ``effort_scale * effort +
    effort_offset``.

    Args:
        params: the NodeParameters, or None (no file: the efforts are the torques).
        model: the node's model.
        effort: (n,) measured efforts.

    Returns:
        ndarray: (n,) joint torques [N m or N].

    Raises:
        InvalidInputError: an effort_scale or effort_offset of the wrong length.
    """
    effort = np.asarray(effort, dtype=float)
    if params is None:
        return effort
    from robot_dynamics.estimation.config import validate_config

    resolved = validate_config(model, params.pipeline_config())
    return resolved.effort_scale * effort + resolved.effort_offset


__all__ = [
    "add_params_option",
    "by_joint",
    "compensated_friction",
    "effort_torques",
    "node_conversions",
    "node_model",
    "node_parameters",
]
