"""``robot-dynamics identify --params``: the fit of the arm the dynamics node is configured for,
and a parameters file that launches that node with what the fit found.

With the node's parameters files (:mod:`~robot_dynamics.tools.cli.node_params`), ``identify``

- takes ``base_link``, ``tip_link`` and ``gravity`` from them (the command line's options over
  them);
- converts the recorded efforts as the node does (``effort_scale``, ``effort_offset``) and fits
  the Coulomb friction with the node's ``friction_velocity_threshold`` (each unless the command
  line gives it);
- holds the node's ``locked_joints`` where the node fixes them (``--hold`` over them);
- takes the node's ``armature`` and payload (``payload.*``) as known: their torques are
  removed from the recorded ones before the fit, so that the identified URDF describes the
  links alone and the written file keeps them (``--armature`` fits the armature instead);
- writes the files' other parameters into the parameters file beside the identified URDF, so
  that one file launches the node: all but what identify determines (the friction model,
  ``effort_scale``/``effort_offset``, ``friction_compensation``,
  ``friction_velocity_threshold``, ``locked_joints``, the armature when fitted) and
  ``robot_description`` (the identified URDF replaces it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from robot_dynamics.core.friction import FRICTION_PARAMETERS
from robot_dynamics.ros.dynamics_parameters import derive_model
from robot_dynamics.tools.params_file import read_parameters_files

from .node_params import by_joint, node_conversions, node_parameters

#: Parameters identify determines (or the identified URDF replaces): never carried over.
DETERMINED = frozenset(
    {
        "robot_description",
        "friction_compensation",
        "friction_velocity_threshold",
        *FRICTION_PARAMETERS,
        "effort_scale",
        "effort_offset",
        "locked_joints",
    }
)

#: Per-joint lists carried over (model order without the locked joints).
PER_JOINT = ("armature", "contact.torque_on", "contact.torque_off")

#: What each list-valued parameter of the node model is emptied to for identify's own model.
_UNDERIVED = {
    "locked_joints": [],
    "armature": [],
    "payload.mass": 0.0,
    **dict.fromkeys(FRICTION_PARAMETERS, []),
}


@dataclass(frozen=True)
class NodeSetup:
    """The dynamics node's configuration as identify uses it.

    Attributes:
        params: the :class:`~robot_dynamics.tools.params_file.NodeParameters` of the files with
            the command line's model options over them.
        node_joints: the node's joints (the model's but the locked ones), in order.
        known: the model with the node's armature (unless fitted) and payload on identify's
            model (every joint movable): its torques beyond identify's model are known.
        fit_armature: True when ``--armature`` fits the armature.
    """

    params: object
    node_joints: tuple
    known: object
    fit_armature: bool


def node_setup(run):
    """A command's invocation with the node's model options, conversions and locked joints
    (see the module docstring), and what the written file needs of the node.

    Args:
        run: the ``identify`` :class:`~robot_dynamics.tools.cli.arguments.Invocation` (with
            ``--params``).

    Returns:
        tuple: ``(Invocation, NodeSetup)``: the invocation's model with the files' base, tip
        and gravity (every joint movable); its ``args`` with ``effort_scale``,
        ``effort_offset``, ``velocity_threshold`` and ``hold`` filled where the command line
        gives none.

    Raises:
        ParametersFileError: a file the node would refuse, or values that do not fit the model
            (as the node checks them at start-up).
    """
    args = run.args
    files = read_parameters_files(args.params, node=args.node_name)
    params = node_parameters(args, run.model, files)
    _, node = params.build_model(run.xml)
    params.pipeline(node)  # refuses what the node refuses at start-up
    model, _ = params.with_values(_UNDERIVED).build_model(run.xml)
    node_conversions(args, params, node, model.joint_names)
    given = {token.partition("=")[0].strip() for token in args.hold or ()}
    locked = [f"{j}={float(p)!r}" for j, p in node.locked_joints if j not in given]
    if locked:
        args.hold = list(args.hold or ()) + locked
    overrides = {**_UNDERIVED, "payload.mass": params.values["payload.mass"]}
    if params.values["armature"] and not args.armature:
        armature = params.values["armature"]
        overrides["armature"] = by_joint(armature, node.joint_names, model.joint_names, 0.0)
    known = derive_model(model, {**params.values, **overrides})
    setup = NodeSetup(params, tuple(node.joint_names), known, bool(args.armature))
    return run._replace(model=model), setup


def known_torques(setup, model, data):
    """Remove the torques of the node's armature and payload from the recording's.

    Args:
        setup: the :class:`NodeSetup`.
        model: identify's model (the URDF's links alone).
        data: the prepared :class:`~robot_dynamics.core.joint_data.JointData`.

    Returns:
        JointData: ``data`` whose torques are the links' alone (smoothed as the torques are).
    """
    if setup.known is model:
        return data
    extra = setup.known.inverse_dynamics(data.q, data.qd, data.qdd)
    extra = extra - model.inverse_dynamics(data.q, data.qd, data.qdd)
    return replace(data, tau=data.tau - data.smoothed(extra))


def carried_values(setup, model, held):
    """The files' parameters the written file carries over (see the module docstring).

    Args:
        setup: the :class:`NodeSetup`.
        model: identify's model.
        held: ``((joint, position), ...)`` the written file locks.

    Returns:
        dict: parameter name -> value; per-joint lists in model order without ``held``.
    """
    params = setup.params
    skip = DETERMINED | ({"armature"} if setup.fit_armature else set())
    locked = {name for name, _ in held}
    joints = [name for name in model.joint_names if name not in locked]
    values = {}
    for name in sorted(params.given - skip):
        value = params.values[name]
        if name in PER_JOINT and value:
            value = by_joint(value, setup.node_joints, joints)
        values[name] = value
    return values


__all__ = ["DETERMINED", "NodeSetup", "carried_values", "known_torques", "node_setup"]
