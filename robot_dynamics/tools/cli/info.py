"""``robot-dynamics info``: the tree, joints, masses, total mass, fixed/mimic joints and the
inertia warnings."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Dict, List, Sequence

from robot_dynamics.core.inertia import inertia_warning_lines
from robot_dynamics.core.joint_warnings import joint_warning_lines
from robot_dynamics.core.tree import no_tip_reason

from .arguments import Invocation
from .output import fmt_vec


def urdf_tree(xml: str) -> Dict:
    """Links, joints and masses read straight from the URDF XML (for ``info``).

    Args:
        xml: URDF XML text.

    Returns:
        dict: ``links`` (name -> mass [kg]) and ``joints`` (name, type, parent, child), in
        file order.
    """
    root = ET.fromstring(xml)
    links = {}
    for link in root.findall("link"):
        mass_el = link.find("inertial/mass")
        links[link.get("name")] = float(mass_el.get("value", "0")) if mass_el is not None else 0.0
    joints = [
        {
            "name": joint.get("name"),
            "type": joint.get("type"),
            "parent": joint.find("parent").get("link"),
            "child": joint.find("child").get("link"),
        }
        for joint in root.findall("joint")
    ]
    return {"robot": root.get("name"), "links": links, "joints": joints}


def _subtree_links(tree: Dict, base: str) -> List[str]:
    children: Dict[str, List[str]] = {}
    for joint in tree["joints"]:
        children.setdefault(joint["parent"], []).append(joint["child"])
    out, stack = [], [base]
    while stack:
        link = stack.pop()
        out.append(link)
        stack.extend(reversed(children.get(link, [])))
    return out


def _tree_lines(tree: Dict, base: str, actuated: Sequence[str], mimic: Dict) -> List[str]:
    by_parent: Dict[str, List[Dict]] = {}
    for joint in tree["joints"]:
        by_parent.setdefault(joint["parent"], []).append(joint)
    lines = [f"{base} ({tree['links'].get(base, 0.0):.3f} kg)"]

    def walk(link: str, prefix: str) -> None:
        kids = by_parent.get(link, [])
        for k, joint in enumerate(kids):
            last = k == len(kids) - 1
            tag = joint["type"]
            if joint["name"] in mimic:
                tag += f", mimics {mimic[joint['name']][0]}"
            elif joint["name"] in actuated:
                tag += f", q[{list(actuated).index(joint['name'])}]"
            child = joint["child"]
            lines.append(
                f"{prefix}{'`-' if last else '|-'} {joint['name']} [{tag}] -> "
                f"{child} ({tree['links'].get(child, 0.0):.3f} kg)"
            )
            walk(child, prefix + ("   " if last else "|  "))

    walk(base, "")
    return lines


def cmd_info(run: Invocation) -> List[str]:
    """Tree, joints, limits, masses, total mass, fixed and mimic joints, inertia warnings.

    Args:
        run: the :class:`~robot_dynamics.tools.cli.arguments.Invocation` (parsed arguments,
            model, description, ``out`` filled for ``--json``).

    Returns:
        list: the lines printed without ``--json``.
    """
    args, model, path, xml, bundled, out = run
    tree = urdf_tree(xml)
    below = _subtree_links(tree, model.base_link)
    below_set = set(below)
    total_mass = sum(tree["links"].get(link, 0.0) for link in below)
    lower, upper = model.position_limits
    joints = []
    for i, name in enumerate(model.joint_names):
        jx = next(j for j in tree["joints"] if j["name"] == name)
        joints.append(
            {
                "index": i,
                "name": name,
                "type": jx["type"],
                "parent": jx["parent"],
                "child": jx["child"],
                "lower": float(lower[i]),
                "upper": float(upper[i]),
                "velocity_limit": float(model.velocity_limits[i]),
                "effort_limit": float(model.effort_limits[i]),
                "damping": float(model.friction.viscous[i]),
                "friction": float(model.friction.coulomb[i]),
            }
        )
    in_tree = [
        j for j in tree["joints"] if j["child"] in below_set and j["child"] != model.base_link
    ]
    fixed = [j["name"] for j in in_tree if j["type"] == "fixed"]
    mimic = [
        {"name": name, "joint": driver, "multiplier": multiplier, "offset": offset}
        for name, (driver, multiplier, offset) in model.mimic_joints.items()
    ]
    out.update(
        {
            "robot": tree["robot"],
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
            "link_masses": {link: tree["links"].get(link, 0.0) for link in below},
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
        f"robot      {tree['robot']}  ({path})",
        f"base link  {model.base_link}    tip link  {model.tip_link}    leaves  "
        f"{', '.join(model.leaf_links)}",
        f"gravity    {fmt_vec(model.gravity, 3)} m/s^2 (base frame)",
        f"total mass {total_mass:.3f} kg ({len(below)} links at or below {model.base_link})",
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
        "  " + line
        for line in _tree_lines(tree, model.base_link, model.joint_names, model.mimic_joints)
    ]
    return lines


def add_parsers(sub, common) -> None:
    """Register this module's commands on the CLI's subparsers.

    Args:
        sub: the CLI's subparsers (``ArgumentParser.add_subparsers()``).
        common: the parent parser with the common options.
    """
    sub.add_parser(
        "info", parents=[common], help="tree, joints, masses, total mass, fixed/mimic joints"
    )


COMMANDS = {"info": cmd_info}
