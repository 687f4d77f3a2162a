"""``robot-dynamics info``: the tree, joints, masses, total mass, fixed, mimic and locked joints
and the inertia warnings; read with the URDF reader of the core, with ``--params`` for the
dynamics node's model (its locked joints, friction, armature and payload)."""

from __future__ import annotations

from typing import Dict, List

from robot_dynamics.core.inertia import inertia_warning_lines
from robot_dynamics.core.joint_warnings import joint_warning_lines
from robot_dynamics.core.tip import no_tip_reason
from robot_dynamics.core.urdf import parse_urdf

from .arguments import Invocation
from .node_params import add_params_option, node_model
from .output import fmt_vec


def _tree_lines(robot, mass: Dict, model) -> List[str]:
    base, actuated, mimic = model.base_link, model.joint_names, model.mimic_joints
    locked = dict(model.locked_joints)
    by_parent: Dict[str, List] = {}
    for joint in robot.joints:
        by_parent.setdefault(joint.parent, []).append(joint)
    lines = [f"{base} ({mass[base]:.3f} kg)"]

    def walk(link: str, prefix: str) -> None:
        kids = by_parent.get(link, [])
        for k, joint in enumerate(kids):
            last = k == len(kids) - 1
            tag = joint.type
            if joint.name in locked:
                tag += f", locked at {locked[joint.name]:g}"
            elif joint.name in mimic:
                tag += f", mimics {mimic[joint.name][0]}"
            elif joint.name in actuated:
                tag += f", q[{list(actuated).index(joint.name)}]"
            lines.append(
                f"{prefix}{'`-' if last else '|-'} {joint.name} [{tag}] -> "
                f"{joint.child} ({mass[joint.child]:.3f} kg)"
            )
            walk(joint.child, prefix + ("   " if last else "|  "))

    walk(base, "")
    return lines


def _payload(params, model):
    """The ``payload.*`` of the node's parameters files as info reports it, or None (no file, or
    no payload)."""
    if params is None or params.values["payload.mass"] <= 0.0:
        return None
    values = params.values
    return {
        "mass": float(values["payload.mass"]),
        "frame": values["payload.frame"] or model.tip_link,
        "com": [float(c) for c in values["payload.com"]],
        "inertia": [float(c) for c in values["payload.inertia"]],
    }


def cmd_info(run: Invocation) -> List[str]:
    """Tree, joints, limits, masses, total mass, fixed, mimic and locked joints, armature,
    payload, inertia and joint warnings.

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        ParametersFileError: a bad ``--params`` file.
    """
    run, params = node_model(run)  # with --params: the node's model (locked joints, payload, ...)
    args, model, path, xml, bundled, out = run
    payload = _payload(params, model)
    robot = parse_urdf(xml)  # the text the model was read from: the masses as the file gives them
    mass = {link.name: float(link.inertia[0, 0]) for link in robot.links}
    urdf_joints = {joint.name: joint for joint in robot.joints}
    below = model.link_names  # the links at and below the base, depth first
    below_set = set(below)
    links_mass = sum(mass[link] for link in below)
    total_mass = links_mass + (payload["mass"] if payload else 0.0)
    lower, upper = model.position_limits
    joints = []
    for i, name in enumerate(model.joint_names):
        jx = urdf_joints[name]
        joints.append(
            {
                "index": i,
                "name": name,
                "type": jx.type,
                "parent": jx.parent,
                "child": jx.child,
                "lower": float(lower[i]),
                "upper": float(upper[i]),
                "velocity_limit": float(model.velocity_limits[i]),
                "effort_limit": float(model.effort_limits[i]),
                "damping": float(model.friction.viscous[i]),
                "friction": float(model.friction.coulomb[i]),
                "armature": float(model.armature[i]),
            }
        )
    in_tree = [j for j in robot.joints if j.child in below_set and j.child != model.base_link]
    fixed = [j.name for j in in_tree if j.type == "fixed"]
    mimic = [
        {"name": name, "joint": driver, "multiplier": multiplier, "offset": offset}
        for name, (driver, multiplier, offset) in model.mimic_joints.items()
    ]
    out.update(
        {
            "robot": robot.name,
            "urdf": path,
            "base_link": model.base_link,
            "tip_link": model.tip_link,
            "leaf_links": list(model.leaf_links),
            "gravity": [float(g) for g in model.gravity],
            "n": int(model.n),
            "joint_names": list(model.joint_names),
            "joints": joints,
            "fixed_joints": fixed,
            "mimic_joints": mimic,
            "locked_joints": [
                {"name": name, "position": position} for name, position in model.locked_joints
            ],
            "link_masses": {link: mass[link] for link in below},
            "payload": payload,
            "total_mass": total_mass,
            "joint_warnings": [
                {"joint": w.joint, "rule": w.rule, "message": w.message}
                for w in model.joint_warnings
            ],
            "inertia_warnings": [
                {
                    "link": w.link,
                    "rule": w.rule,
                    "moments": list(w.moments),
                    "joint": w.joint,
                    "exact": w.exact,
                    "message": str(w),
                }
                for w in model.inertia_warnings
            ],
        }
    )
    p = args.precision
    lines = [
        f"robot      {robot.name}  ({path})",
        f"base link  {model.base_link}    tip link  {model.tip_link}    leaves  "
        f"{', '.join(model.leaf_links)}",
        f"gravity    {fmt_vec(model.gravity, 3)} m/s^2 (base frame)",
        f"total mass {total_mass:.3f} kg ({len(below)} links at or below {model.base_link}"
        + (
            f": {links_mass:.3f} kg; payload {payload['mass']:.3f} kg on {payload['frame']})"
            if payload
            else ")"
        ),
        "",
        f"actuated joints ({model.n}), the order of every joint vector:",
        f"  {'#':>2} {'name':<20} {'type':<10} {'lower':>8} {'upper':>8} {'vel':>7} {'effort':>8} "
        f"{'damping':>8} {'friction':>8}",
    ]
    for j in joints:
        lines.append(
            f"  {j['index']:>2} {j['name']:<20} {j['type']:<10} {j['lower']:>8.{p}f} "
            f"{j['upper']:>8.{p}f} {j['velocity_limit']:>7.3g} {j['effort_limit']:>8.4g} "
            f"{j['damping']:>8.4g} {j['friction']:>8.4g}"
        )
    lines.append(
        f"fixed joints ({len(fixed)}): {', '.join(fixed) if fixed else 'none'} "
        "(merged into their parent)"
    )
    if mimic:
        lines.append(
            "mimic joints: "
            + ", ".join(
                f"{m['name']} = {m['multiplier']:g} * {m['joint']} + {m['offset']:g}" for m in mimic
            )
        )
    else:
        lines.append("mimic joints: none")
    if model.locked_joints:
        lines.append(
            "locked joints (fixed there by locked_joints): "
            + ", ".join(f"{name} at {position:g}" for name, position in model.locked_joints)
        )
    if model.armature.any():
        lines.append(
            "armature [kg m^2 or kg] (on M's diagonal): "
            + ", ".join(f"{j['name']} {j['armature']:g}" for j in joints)
        )
    lines += [f"warning: {line}" for line in joint_warning_lines(model.joint_warnings)]
    if model.tip_link is None:
        lines.append(f"{no_tip_reason(model.tree)}; name one with --tip-link")
    if model.inertia_warnings:
        lines += [
            "",
            f"inertia warnings ({len(model.inertia_warnings)}; loaded as given, "
            "--strict-inertia refuses them, --balance-inertia balances the inconsistent tensors):",
        ] + [f"  {line}" for line in inertia_warning_lines(model.inertia_warnings)]
    lines += ["", "tree (joint [type] -> link (mass)):"] + [
        "  " + line for line in _tree_lines(robot, mass, model)
    ]
    return lines


def add_parsers(sub, common) -> None:
    """Register this module's commands on the CLI's subparsers (arguments: see
    :data:`~robot_dynamics.tools.cli.main.FAMILIES`)."""
    p = sub.add_parser(
        "info", parents=[common], help="tree, joints, masses, total mass, fixed/mimic joints"
    )
    add_params_option(p)


COMMANDS = {"info": cmd_info}
