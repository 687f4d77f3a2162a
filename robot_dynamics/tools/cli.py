"""``robot-dynamics``: the dynamics of a URDF from the command line, no ROS needed.

Each subcommand takes a robot: a URDF file, a xacro file (``arm.urdf.xacro``, expanded with
``--xacro-arg name:=value``, repeatable), ``-`` for a URDF on standard input, or the name of a
bundled robot (``panda``, ``double_pendulum``)::

    robot-dynamics info ROBOT                       tree, joints, masses, total mass, fixed/mimic
    robot-dynamics gravity ROBOT --q ...            g(q): joint torques that hold the arm [Nm]
    robot-dynamics mass-matrix ROBOT --q ...        M(q) [kg m^2]
    robot-dynamics jacobian ROBOT --q ... --frame F J(q) of frame F, rows [vx vy vz wx wy wz]
    robot-dynamics pose ROBOT --q ... --frame F     forward kinematics of frames (or 'all')
    robot-dynamics inverse-dynamics ROBOT --q --qd --qdd [--f-ext ...]   tau and its terms
    robot-dynamics simulate ROBOT --duration 10 [--tau gravity] --plot out.png   simulation
    robot-dynamics wrench ROBOT --q ... --tau ...   external wrench on the tip from joint torques

Joint vectors (``--q``, ``--qd``, ``--qdd``, ``--tau``) are given in the model's joint order
(``info`` lists it) as numbers separated by spaces or commas, or as ``name=value`` pairs (joints
not named are 0). Common options: ``--base-link``, ``--tip-link``, ``--gravity GX GY GZ``,
``--json`` (one JSON object on stdout, for programs).

Exit codes (from the error's type, see :func:`exit_code_of`): 0 success; 2 bad command-line
argument (wrong vector length, unknown joint or frame, non-finite number, bad xacro argument);
3 the robot description cannot be read or turned into a model; 1 any other error.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional, Sequence

import numpy as np

from robot_dynamics.core.estimation import WRENCH_COMPONENTS as WRENCH_AXES
from robot_dynamics.tools import identify as _identify

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_BAD_URDF = 3

TWIST_AXES = ("vx", "vy", "vz", "wx", "wy", "wz")


class CLIError(Exception):
    """An error to report to the user with an exit code.

    Args:
        message: what went wrong, for the user.
        code: the process exit code (default ``EXIT_USAGE``, 2).
    """

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


# ----------------------------------------------------------------------------------- parsing


def _split_tokens(values: Sequence[str]) -> List[str]:
    tokens: List[str] = []
    for value in values:
        tokens.extend(tok for tok in value.replace(",", " ").split() if tok)
    return tokens


def parse_joint_vector(
    values: Optional[Sequence[str]], joint_names: Sequence[str], option: str, default: float = 0.0
) -> np.ndarray:
    """Parse ``--q``-style values into a float array in ``joint_names`` order.

    Accepts n numbers (separated by spaces or commas), or ``name=value`` pairs (unnamed joints
    get ``default``).

    Args:
        values: the option's strings, or None when the option was not given.
        joint_names: the model's joint names, in order.
        option: the option's name, for messages.
        default: value of joints not named.

    Returns:
        ndarray: (n,) values.

    Raises:
        CLIError: wrong count, unknown joint name, not a number, NaN or infinity.
    """
    n = len(joint_names)
    if values is None:
        return np.full(n, default, dtype=float)
    tokens = _split_tokens(values)
    if not tokens:
        raise CLIError(f"{option}: no values given; expected {n} ({', '.join(joint_names)})")
    out = np.full(n, default, dtype=float)
    if any("=" in tok for tok in tokens):
        index = {name: i for i, name in enumerate(joint_names)}
        for tok in tokens:
            if "=" not in tok:
                raise CLIError(
                    f"{option}: mix of 'name=value' and plain values ({tok!r}); use one form"
                )
            name, _, text = tok.partition("=")
            if name not in index:
                raise CLIError(
                    f"{option}: unknown joint {name!r}; the model's joints are: "
                    f"{', '.join(joint_names)}"
                )
            out[index[name]] = _to_float(text, option, name)
        return out
    if len(tokens) != n:
        raise CLIError(
            f"{option}: got {len(tokens)} value(s), the model has {n} joint(s): "
            f"{', '.join(joint_names)}"
        )
    for i, tok in enumerate(tokens):
        out[i] = _to_float(tok, option, joint_names[i])
    return out


def _to_float(text: str, option: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CLIError(f"{option}: {text!r} (for {what}) is not a number") from None
    if not math.isfinite(value):
        raise CLIError(f"{option}: {text!r} (for {what}) is not finite")
    return value


def parse_fixed_vector(
    values: Optional[Sequence[str]], size: int, option: str, labels: Sequence[str]
):
    """Parse a fixed-size vector option (gravity: 3, wrench: 6).

    Args:
        values: the option's strings, or None when the option was not given.
        size: expected number of values.
        option: the option's name, for messages.
        labels: a label per value (e.g. ``gx gy gz``), for messages.

    Returns:
        ndarray or None: (size,) values, or None without the option.

    Raises:
        CLIError: wrong count, not a number, NaN or infinity.
    """
    if values is None:
        return None
    tokens = _split_tokens(values)
    if len(tokens) != size:
        raise CLIError(
            f"{option}: got {len(tokens)} value(s), expected {size} ({' '.join(labels)})"
        )
    return np.array([_to_float(tok, option, label) for tok, label in zip(tokens, labels)])


# ----------------------------------------------------------------------------------- model


def load_model(args):
    """Read the robot of ``args.urdf`` (bundled name, URDF or xacro file, ``-`` for stdin) and
    build its model with the common options.

    Args:
        args: the parsed command line (``urdf``, ``xacro_arg``, ``base_link``, ``tip_link``,
            ``gravity``).

    Returns:
        tuple: ``(model, label, urdf_text, bundled robot or None)``.

    Raises:
        CLIError: exit 3 when the description cannot be read or made into a model; exit 2 when a
            command-line value is wrong (xacro argument, --gravity, --base-link, --tip-link).
    """
    from robot_dynamics import RobotModel
    from robot_dynamics.core.errors import InvalidInputError, RobotDynamicsError, URDFError
    from robot_dynamics.tools.robots import defaults, resolve_robot

    try:
        source = resolve_robot(args.urdf, args.xacro_arg)
    except InvalidInputError as exc:  # XacroArgumentError
        raise CLIError(str(exc), EXIT_USAGE) from None
    except URDFError as exc:  # RobotDescriptionError: missing, unreadable, xacro failed
        raise CLIError(f"URDF {exc}", EXIT_BAD_URDF) from None
    gravity = parse_fixed_vector(args.gravity, 3, "--gravity", ("gx", "gy", "gz"))
    base, tip, grav = defaults(source, args.base_link, args.tip_link, gravity)
    label = source.path or source.label
    # Two stages, so that the exit code follows from which input was wrong: first the URDF below
    # the base (its errors are the URDF's, unless --base-link names no link of it), then the tip.
    try:
        model = RobotModel.from_urdf(
            source.urdf,
            base_link=base,
            gravity=grav,
            balance_inertia=getattr(args, "balance_inertia", False),
        )
    except URDFError as exc:
        bad_base = args.base_link is not None and args.base_link not in urdf_link_names(source.urdf)
        raise CLIError(f"URDF {label}: {exc}", EXIT_USAGE if bad_base else EXIT_BAD_URDF) from None
    except RobotDynamicsError as exc:  # gravity
        raise CLIError(f"URDF {label}: {exc}", EXIT_USAGE) from None
    if tip is not None:
        try:
            adjustments = model.inertia_adjustments
            model = RobotModel(model.tree, tip_link=tip, gravity=grav)
            model.inertia_adjustments = adjustments
        except RobotDynamicsError as exc:
            raise CLIError(f"URDF {label}: {exc}", EXIT_USAGE) from None
    for note in model.inertia_adjustments:
        print(f"robot-dynamics: balance_inertia: {note}", file=sys.stderr)
    return model, label, source.urdf, source.bundled


def urdf_link_names(xml: str) -> List[str]:
    """Names of the <link> elements of a URDF.

    Args:
        xml: URDF XML text.

    Returns:
        list: link names (empty when the XML cannot be parsed).
    """
    try:
        return [link.get("name") for link in ET.fromstring(xml).findall("link")]
    except ET.ParseError:
        return []


def _frame(args, model) -> Optional[str]:
    frame = getattr(args, "frame", None)
    if frame is None:
        return None
    if frame not in model.link_names and frame != model.base_link:
        raise CLIError(
            f"--frame: unknown frame {frame!r}; frames below {model.base_link}: "
            f"{', '.join(model.link_names)}"
        )
    return frame


def _check_limits(model, q: np.ndarray, warnings: List[str]) -> None:
    lower, upper = model.position_limits
    for i, name in enumerate(model.joint_names):
        lo, hi = float(lower[i]), float(upper[i])
        if math.isfinite(lo) and math.isfinite(hi) and not (lo - 1e-12 <= q[i] <= hi + 1e-12):
            warnings.append(f"{name} = {q[i]:g} is outside its limits [{lo:g}, {hi:g}]")


# ----------------------------------------------------------------------------------- URDF tree


def urdf_tree(xml: str) -> Dict:
    """Links, joints and masses read straight from the URDF XML (for ``info``).

    Args:
        xml: URDF XML text.

    Returns:
        dict: ``links`` (name -> mass [kg]) and ``joints`` (name, type, parent, child, mimic),
        in file order.
    """
    root = ET.fromstring(xml)
    links = {}
    for link in root.findall("link"):
        mass_el = link.find("inertial/mass")
        links[link.get("name")] = float(mass_el.get("value", "0")) if mass_el is not None else 0.0
    joints = []
    for joint in root.findall("joint"):
        mimic = joint.find("mimic")
        joints.append(
            {
                "name": joint.get("name"),
                "type": joint.get("type"),
                "parent": joint.find("parent").get("link"),
                "child": joint.find("child").get("link"),
                "mimic": None
                if mimic is None
                else {
                    "joint": mimic.get("joint"),
                    "multiplier": float(mimic.get("multiplier", "1")),
                    "offset": float(mimic.get("offset", "0")),
                },
            }
        )
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


def _tree_lines(tree: Dict, base: str, actuated: Sequence[str]) -> List[str]:
    by_parent: Dict[str, List[Dict]] = {}
    for joint in tree["joints"]:
        by_parent.setdefault(joint["parent"], []).append(joint)
    lines = [f"{base} ({tree['links'].get(base, 0.0):.3f} kg)"]

    def walk(link: str, prefix: str) -> None:
        kids = by_parent.get(link, [])
        for k, joint in enumerate(kids):
            last = k == len(kids) - 1
            tag = joint["type"]
            if joint["mimic"]:
                tag += f", mimics {joint['mimic']['joint']}"
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


# ----------------------------------------------------------------------------------- formatting


def _fmt_vec(values, precision: int) -> str:
    return "[" + ", ".join(f"{v: .{precision}f}" for v in np.asarray(values, dtype=float)) + "]"


def _fmt_matrix(mat, row_labels, col_labels, precision: int) -> List[str]:
    mat = np.asarray(mat, dtype=float)
    width = max(precision + 7, max((len(c) for c in col_labels), default=0) + 1)
    label_w = max(len(r) for r in row_labels)
    lines = [" " * label_w + " " + "".join(f"{c:>{width}}" for c in col_labels)]
    for label, row in zip(row_labels, mat):
        lines.append(f"{label:<{label_w}} " + "".join(f"{v:>{width}.{precision}f}" for v in row))
    return lines


def _short(names: Sequence[str]) -> List[str]:
    """Joint names shortened for column headers (common prefix dropped)."""
    names = list(names)
    if len(names) < 2:
        return names
    prefix = os.path.commonprefix(names)
    if prefix and all(len(n) > len(prefix) for n in names):
        return [n[len(prefix) :] if len(prefix) > 2 else n for n in names]
    return names


# ----------------------------------------------------------------------------------- commands


def cmd_info(args, model, path, xml, bundled, out: Dict) -> List[str]:
    """Tree, joints, limits, masses, total mass, fixed and mimic joints of the model.

    Args:
        args: the parsed command line (``argparse.Namespace``).
        model: the :class:`~robot_dynamics.core.model.RobotModel` built by :func:`load_model`.
        path: label of the robot description (file path, bundled name or ``-``).
        xml: the URDF XML text.
        bundled: the bundled robot, or None.
        out: dict filled with the command's results for ``--json``.

    Returns:
        list: the lines printed without ``--json``.
    """
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
    mimic = [{"name": j["name"], **j["mimic"]} for j in in_tree if j["mimic"] is not None]
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
        }
    )
    p = args.precision
    lines = [
        f"robot      {tree['robot']}  ({path})",
        f"base link  {model.base_link}    tip link  {model.tip_link}    leaves  "
        f"{', '.join(model.leaf_links)}",
        f"gravity    {_fmt_vec(model.gravity, 3)} m/s^2 (base frame)",
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
    lines += ["", "tree (joint [type] -> link (mass)):"] + [
        "  " + line for line in _tree_lines(tree, model.base_link, model.joint_names)
    ]
    return lines


def cmd_gravity(args, model, path, xml, bundled, out: Dict) -> List[str]:
    """Gravity torques g(q) [Nm or N] at ``--q``.

    Args:
        args: the parsed command line (``argparse.Namespace``).
        model: the :class:`~robot_dynamics.core.model.RobotModel` built by :func:`load_model`.
        path: label of the robot description (file path, bundled name or ``-``).
        xml: the URDF XML text.
        bundled: the bundled robot, or None.
        out: dict filled with the command's results for ``--json``.

    Returns:
        list: the lines printed without ``--json``.

    Raises:
        CLIError: a bad ``--q``.
    """
    q = parse_joint_vector(args.q, model.joint_names, "--q")
    _check_limits(model, q, out.setdefault("warnings", []))
    g = np.asarray(model.gravity_torques(q), dtype=float)
    out.update(
        {
            "joint_names": list(model.joint_names),
            "q": q.tolist(),
            "gravity_torques": g.tolist(),
            "gravity": [float(x) for x in model.gravity],
        }
    )
    p = args.precision
    lines = [f"gravity torques g(q) [Nm or N], gravity {_fmt_vec(model.gravity, 3)} m/s^2:"]
    w = max(len(n) for n in model.joint_names)
    for name, qi, gi in zip(model.joint_names, q, g):
        lines.append(f"  {name:<{w}}  q = {qi: .{p}f}   g = {gi: .{p}f}")
    return lines


def cmd_mass_matrix(args, model, path, xml, bundled, out: Dict) -> List[str]:
    """Joint-space mass matrix M(q) [kg m^2] at ``--q`` and its eigenvalues.

    Args:
        args: the parsed command line (``argparse.Namespace``).
        model: the :class:`~robot_dynamics.core.model.RobotModel` built by :func:`load_model`.
        path: label of the robot description (file path, bundled name or ``-``).
        xml: the URDF XML text.
        bundled: the bundled robot, or None.
        out: dict filled with the command's results for ``--json``.

    Returns:
        list: the lines printed without ``--json``.

    Raises:
        CLIError: a bad ``--q``.
    """
    q = parse_joint_vector(args.q, model.joint_names, "--q")
    _check_limits(model, q, out.setdefault("warnings", []))
    m = np.asarray(model.mass_matrix(q), dtype=float)
    eig = np.linalg.eigvalsh(0.5 * (m + m.T))
    out.update(
        {
            "joint_names": list(model.joint_names),
            "q": q.tolist(),
            "mass_matrix": m.tolist(),
            "eigenvalues": eig.tolist(),
        }
    )
    short = _short(model.joint_names)
    lines = [f"mass matrix M(q) [kg m^2] at q = {_fmt_vec(q, 4)}:"]
    lines += ["  " + line for line in _fmt_matrix(m, short, short, args.precision)]
    lines.append(f"eigenvalues: {_fmt_vec(eig, args.precision)}")
    return lines


def cmd_jacobian(args, model, path, xml, bundled, out: Dict) -> List[str]:
    """Jacobian (6, n) of ``--frame`` at ``--q`` (rows vx vy vz wx wy wz; ``--axes``).

    Args:
        args: the parsed command line (``argparse.Namespace``).
        model: the :class:`~robot_dynamics.core.model.RobotModel` built by :func:`load_model`.
        path: label of the robot description (file path, bundled name or ``-``).
        xml: the URDF XML text.
        bundled: the bundled robot, or None.
        out: dict filled with the command's results for ``--json``.

    Returns:
        list: the lines printed without ``--json``.

    Raises:
        CLIError: ``--frame`` is needed (the model has several leaves and no ``--tip-link``).
    """
    q = parse_joint_vector(args.q, model.joint_names, "--q")
    _check_limits(model, q, out.setdefault("warnings", []))
    frame = _frame(args, model)
    if frame is None and model.tip_link is None:
        raise CLIError(
            f"--frame is needed: the model has several leaves ({', '.join(model.leaf_links)}) "
            "and no --tip-link"
        )
    jac = np.asarray(model.jacobian(q, frame=frame, axes=args.axes), dtype=float)
    pose = np.asarray(model.frame_pose(q, frame=frame), dtype=float)
    sv = np.linalg.svd(jac, compute_uv=False)
    out.update(
        {
            "joint_names": list(model.joint_names),
            "q": q.tolist(),
            "frame": frame or model.tip_link,
            "axes": args.axes,
            "rows": list(TWIST_AXES),
            "jacobian": jac.tolist(),
            "frame_pose": pose.tolist(),
            "singular_values": sv.tolist(),
        }
    )
    short = _short(model.joint_names)
    lines = [
        f"Jacobian of {frame or model.tip_link} ({args.axes} axes; rows: linear velocity of the "
        "frame "
        f"origin, angular velocity) at q = {_fmt_vec(q, 4)}:"
    ]
    lines += ["  " + line for line in _fmt_matrix(jac, TWIST_AXES, short, args.precision)]
    lines.append(f"frame origin in {model.base_link}: {_fmt_vec(pose[:3, 3], args.precision)} m")
    lines.append(f"singular values: {_fmt_vec(sv, args.precision)}")
    return lines


def cmd_wrench(args, model, path, xml, bundled, out: Dict) -> List[str]:
    """External wrench on ``--frame`` from measured (or external) joint torques.

    Args:
        args: the parsed command line (``argparse.Namespace``).
        model: the :class:`~robot_dynamics.core.model.RobotModel` built by :func:`load_model`.
        path: label of the robot description (file path, bundled name or ``-``).
        xml: the URDF XML text.
        bundled: the bundled robot, or None.
        out: dict filled with the command's results for ``--json``.

    Returns:
        list: the lines printed without ``--json``.

    Raises:
        CLIError: no ``--tau``; a bad vector; ``--frame`` is needed (the model has several
            leaves and no ``--tip-link``).
    """
    q = parse_joint_vector(args.q, model.joint_names, "--q")
    _check_limits(model, q, out.setdefault("warnings", []))
    if args.tau is None:
        raise CLIError(
            "--tau is required: the measured joint torques (or, with --external, tau_ext)"
        )
    tau = parse_joint_vector(args.tau, model.joint_names, "--tau")
    qd = parse_joint_vector(args.qd, model.joint_names, "--qd")
    qdd = parse_joint_vector(args.qdd, model.joint_names, "--qdd")
    frame = _frame(args, model)
    if frame is None and model.tip_link is None:
        raise CLIError(
            f"--frame is needed: the model has several leaves ({', '.join(model.leaf_links)}) "
            "and no --tip-link"
        )
    if args.external:
        tau_ext = tau
    else:
        # M qdd + C qd + g = tau + J^T f_ext  =>  J^T f_ext = (M qdd + C qd + g) - tau
        tau_ext = np.asarray(model.inverse_dynamics(q, qd, qdd), dtype=float) - tau
    jac = np.asarray(model.jacobian(q, frame=frame, axes=args.axes), dtype=float)
    # the estimate is what a force-torque sensor at the frame reads (its axes, moment about its
    # origin); --axes base rotates it into the base axes (moment still about the frame origin)
    est = model.estimate_external_wrench(q, tau_ext, frame=frame, damping=args.damping)
    wrench = np.asarray(est.wrench, dtype=float)
    if args.axes == "base":
        R = model.frame_pose(q, frame=frame)[:3, :3]
        wrench = np.concatenate([R @ wrench[:3], R @ wrench[3:]])
    residual = tau_ext - jac.T @ wrench
    out.update(
        {
            "joint_names": list(model.joint_names),
            "q": q.tolist(),
            "qd": qd.tolist(),
            "qdd": qdd.tolist(),
            "tau": tau.tolist(),
            "tau_ext": tau_ext.tolist(),
            "frame": frame or model.tip_link,
            "axes": args.axes,
            "wrench_labels": list(WRENCH_AXES),
            "wrench": wrench.tolist(),
            "singular_values": np.asarray(est.singular_values, dtype=float).tolist(),
            "min_singular_value": float(est.min_singular_value),
            "near_singular": bool(est.near_singular),
            "torque_residual": residual.tolist(),
        }
    )
    p = args.precision
    lines = [
        f"external wrench on {frame or model.tip_link} (applied by the environment on the robot; "
        f"{args.axes} axes, moment about the frame origin):",
        "  " + "  ".join(f"{lab} = {v: .{p}f}" for lab, v in zip(WRENCH_AXES, wrench)),
        f"external joint torques J^T f: {_fmt_vec(tau_ext, p)}",
        f"unexplained torque |tau_ext - J^T f| = {np.linalg.norm(residual):.3g} "
        f"(non-zero when tau_ext is outside the range of J^T)",
        f"smallest singular value of J: {float(est.min_singular_value):.4g}"
        + (
            "  ** near a singularity: some wrench directions are not observable **"
            if est.near_singular
            else ""
        ),
    ]
    return lines


def energy_balance(model, t, q, qd, tau, friction: bool) -> Dict[str, np.ndarray]:
    """Where the energy of a simulated run went, sample by sample.

    ``E(t) - E0 = W_tau(t) - W_friction(t) + drift(t)``: the work of the applied joint torques, the
    energy friction dissipated, and what is left, the integrator's error (plus the quadrature
    error of the two integrals, Simpson's rule on the samples).

    Args:
        model: the RobotModel simulated.
        t: (k,) sample times [s].
        q: (k, n) joint positions [rad or m].
        qd: (k, n) joint velocities [rad/s or m/s].
        tau: (k, n) applied joint torques [Nm or N] (without friction), or None for zero.
        friction: whether the run included joint friction.

    Returns:
        dict of (k,) arrays [J]: ``energy`` (kinetic + potential), ``change`` (E - E0),
        ``work`` (W_tau), ``friction_loss`` (W_friction >= 0), ``drift`` (the rest).
    """
    from scipy.integrate import cumulative_simpson

    energy = np.asarray(model.total_energy(q, qd), dtype=float)
    power_tau = np.zeros(len(t)) if tau is None else np.einsum("ki,ki->k", qd, tau)
    power_fric = (
        np.einsum("ki,ki->k", qd, np.asarray(model.friction_torques(qd), dtype=float))
        if friction
        else np.zeros(len(t))
    )

    def integral(power):
        if len(t) < 3:
            return np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(t))])
        return cumulative_simpson(power, x=t, initial=0.0)

    work, loss = integral(power_tau), integral(power_fric)
    change = energy - energy[0]
    return {
        "energy": energy,
        "change": change,
        "work": work,
        "friction_loss": loss,
        "drift": change - work + loss,
    }


def limit_excursions(model, t: np.ndarray, q: np.ndarray) -> List[str]:
    """One warning per joint whose position left its URDF limits during a run (the simulation
    does not enforce them): when it first left, and how far it went.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        t: (k,) sample times [s].
        q: (k, n) joint positions [rad or m].

    Returns:
        list: warning strings.
    """
    lower, upper = (np.asarray(v, dtype=float) for v in model.position_limits)
    warnings = []
    for i, name in enumerate(model.joint_names):
        lo, hi = lower[i], upper[i]
        if not (math.isfinite(lo) and math.isfinite(hi)):
            continue
        outside = (q[:, i] < lo - 1e-9) | (q[:, i] > hi + 1e-9)
        if np.any(outside):
            k = int(np.flatnonzero(outside)[0])
            warnings.append(
                f"{name} left its limits [{lo:g}, {hi:g}] at t = {t[k]:.3f} s "
                f"(range reached [{np.min(q[:, i]):.4g}, {np.max(q[:, i]):.4g}]; the simulation "
                "does not enforce joint limits)"
            )
    return warnings


def cmd_simulate(args, model, path, xml, bundled, out: Dict) -> List[str]:
    """Forward simulation with constant torques or gravity compensation (``--tau gravity``):
    final state, energy balance, joint-limit warnings, optional plot.

    Args:
        args: the parsed command line (``argparse.Namespace``).
        model: the :class:`~robot_dynamics.core.model.RobotModel` built by :func:`load_model`.
        path: label of the robot description (file path, bundled name or ``-``).
        xml: the URDF XML text.
        bundled: the bundled robot, or None.
        out: dict filled with the command's results for ``--json``.

    Returns:
        list: the lines printed without ``--json``.

    Raises:
        CLIError: a bad ``--duration`` (not > 0, beyond ``--max-duration``) or ``--sample-dt``.
    """
    if bundled is not None and args.q is None:
        q0 = np.array(bundled.home, dtype=float)
    else:
        q0 = parse_joint_vector(args.q, model.joint_names, "--q")
    qd0 = parse_joint_vector(args.qd, model.joint_names, "--qd")
    hold = args.tau is not None and _split_tokens(args.tau) == ["gravity"]
    tau = None if hold else parse_joint_vector(args.tau, model.joint_names, "--tau")
    if not (args.duration > 0 and math.isfinite(args.duration)):
        raise CLIError(f"--duration must be a positive number of seconds, got {args.duration}")
    if args.duration > args.max_duration:
        raise CLIError(
            f"--duration {args.duration} s is beyond --max-duration {args.max_duration} s"
        )
    if not (args.sample_dt > 0 and args.sample_dt <= args.duration):
        raise CLIError(f"--sample-dt must be in (0, duration], got {args.sample_dt}")
    if hold:
        # gravity compensation: tau = g(q) at the current q (the arm at rest stays at rest)
        tau_arg = lambda t, q, qd: model.gravity_torques(q)  # noqa: E731
    else:
        tau_arg = None if not np.any(tau) else tau
    start = time.perf_counter()
    res = model.simulate(
        q0,
        qd0,
        args.duration,
        tau=tau_arg,
        method=args.method,
        rtol=args.rtol,
        atol=args.atol,
        sample_dt=args.sample_dt,
        friction=args.friction,
        fixed_step=args.fixed_step,
    )
    elapsed = time.perf_counter() - start
    t = np.asarray(res.t, dtype=float)
    q = np.asarray(res.q, dtype=float)
    qd = np.asarray(res.qd, dtype=float)
    tau_series = np.asarray(res.tau, dtype=float) if res.tau is not None else None
    if tau_series is not None and not np.any(tau_series):
        tau_series = None
    out.setdefault("warnings", []).extend(limit_excursions(model, t, q))
    balance = energy_balance(model, t, q, qd, tau_series, args.friction)
    energy = balance["energy"]
    drift = float(np.max(np.abs(balance["drift"])))
    # relative to the largest kinetic energy of the run (E0 is often 0 by the potential's datum)
    scale = max(
        float(np.max(np.asarray(model.kinetic_energy(q, qd), dtype=float))),
        abs(float(energy[0])),
        1e-12,
    )
    out.update(
        {
            "joint_names": list(model.joint_names),
            "method": args.method,
            "duration": args.duration,
            "friction": bool(args.friction),
            "wall_time": elapsed,
            "samples": int(t.size),
            "q0": q0.tolist(),
            "qd0": qd0.tolist(),
            "tau": "gravity" if hold else tau.tolist(),
            "final_q": q[-1].tolist(),
            "final_qd": qd[-1].tolist(),
            "energy_initial": float(energy[0]),
            "energy_final": float(energy[-1]),
            "work_by_torques": float(balance["work"][-1]),
            "friction_loss": float(balance["friction_loss"][-1]),
            # |E - E0 - W_tau + W_friction|: the integrator's error, not the physics
            "energy_max_abs_drift": drift,
            "energy_max_rel_drift": drift / scale,
        }
    )
    if args.json_series:
        out.update(
            {
                "t": t.tolist(),
                "q": q.tolist(),
                "qd": qd.tolist(),
                "energy": energy.tolist(),
                "work_by_torques_series": balance["work"].tolist(),
                "friction_loss_series": balance["friction_loss"].tolist(),
            }
        )
    p = args.precision
    if hold:
        torque_text = "gravity torques g(q) (holding the arm)"
    else:
        torque_text = "constant torques" if np.any(tau) else "zero torque"
    lines = [
        f"simulated {args.duration:g} s with {args.method} (rtol {args.rtol:g}, atol {args.atol:g}"
        f"{', friction' if args.friction else ', no friction'}; {torque_text}) in {elapsed:.2f} s "
        f"wall time, {t.size} samples every {args.sample_dt:g} s",
        f"  start q  = {_fmt_vec(q0, p)}",
        f"  final q  = {_fmt_vec(q[-1], p)}",
        f"  final qd = {_fmt_vec(qd[-1], p)}",
        f"  energy   E0 = {energy[0]:.6f} J, E_end = {energy[-1]:.6f} J; work done by the torques "
        f"{balance['work'][-1]:.6f} J, lost to friction {balance['friction_loss'][-1]:.6f} J",
        f"  integrator drift max |E - E0 - W_tau + W_friction| = {drift:.3g} J "
        f"({100.0 * drift / scale:.2g} % of the largest kinetic energy)",
    ]
    if args.plot:
        from robot_dynamics.tools.plotting import plot_trajectory

        plot_trajectory(
            args.plot,
            t=t,
            q=q,
            qd=qd,
            energy=energy,
            work=balance["work"] if tau_series is not None else None,
            friction_loss=balance["friction_loss"] if args.friction else None,
            tau=tau_series,
            joint_names=model.joint_names,
            title=f"{os.path.basename(path)}: {args.duration:g} s, {args.method}",
        )
        out["plot"] = os.path.abspath(args.plot)
        lines.append(f"plot written to {args.plot}")
    return lines


def cmd_inverse_dynamics(args, model, path, xml, bundled, out: Dict) -> List[str]:
    """Joint torques of a motion, tau = M qdd + C qd + g (- J^T f_ext), and its terms.

    Args:
        args: the parsed command line (``argparse.Namespace``).
        model: the :class:`~robot_dynamics.core.model.RobotModel` built by :func:`load_model`.
        path: label of the robot description (file path, bundled name or ``-``).
        xml: the URDF XML text.
        bundled: the bundled robot, or None.
        out: dict filled with the command's results for ``--json``.

    Returns:
        list: the lines printed without ``--json``.

    Raises:
        CLIError: a bad vector; ``--frame`` needed with ``--f-ext`` on a tree without a tip.
    """
    q = parse_joint_vector(args.q, model.joint_names, "--q")
    _check_limits(model, q, out.setdefault("warnings", []))
    qd = parse_joint_vector(args.qd, model.joint_names, "--qd")
    qdd = parse_joint_vector(args.qdd, model.joint_names, "--qdd")
    f_ext = parse_fixed_vector(args.f_ext, 6, "--f-ext", WRENCH_AXES)
    frame = _frame(args, model)
    if f_ext is not None and frame is None and model.tip_link is None:
        raise CLIError(
            "--frame is needed with --f-ext: the model has several leaves "
            f"({', '.join(model.leaf_links)}) and no --tip-link"
        )
    tau = np.asarray(model.inverse_dynamics(q, qd, qdd, f_ext=f_ext, frame=frame), dtype=float)
    g = np.asarray(model.gravity_torques(q), dtype=float)
    h = np.asarray(model.nonlinear_effects(q, qd), dtype=float)
    free = np.asarray(model.inverse_dynamics(q, qd, qdd), dtype=float)  # without f_ext
    inertial = free - h  # M(q) qdd
    external = tau - free  # -J^T f_ext (0 without --f-ext)
    out.update(
        {
            "joint_names": list(model.joint_names),
            "q": q.tolist(),
            "qd": qd.tolist(),
            "qdd": qdd.tolist(),
            "f_ext": None if f_ext is None else f_ext.tolist(),
            "frame": (frame or model.tip_link) if f_ext is not None else None,
            "tau": tau.tolist(),
            "inertial": inertial.tolist(),
            "coriolis_centrifugal": (h - g).tolist(),
            "gravity_torques": g.tolist(),
            "external": external.tolist(),
        }
    )
    p = args.precision
    w = max(len(n) for n in model.joint_names)
    lines = [
        "inverse dynamics tau = M(q) qdd + C(q, qd) qd + g(q)"
        + (
            f" - J^T f_ext (f_ext on {frame or model.tip_link}, base axes, moment about its origin)"
            if f_ext is not None
            else ""
        )
        + " [Nm or N]:",
        f"  {'joint':<{w}}  {'tau':>10}  {'M qdd':>10}  {'C qd':>10}  {'g':>10}"
        + (f"  {'-J^T f':>10}" if f_ext is not None else ""),
    ]
    for i, name in enumerate(model.joint_names):
        lines.append(
            f"  {name:<{w}}  {tau[i]:>10.{p}f}  {inertial[i]:>10.{p}f}  {h[i] - g[i]:>10.{p}f}"
            f"  {g[i]:>10.{p}f}" + (f"  {external[i]:>10.{p}f}" if f_ext is not None else "")
        )
    return lines


def cmd_pose(args, model, path, xml, bundled, out: Dict) -> List[str]:
    """Forward kinematics: pose of each ``--frame`` (default: the tip; ``all``), base frame.

    Args:
        args: the parsed command line (``argparse.Namespace``).
        model: the :class:`~robot_dynamics.core.model.RobotModel` built by :func:`load_model`.
        path: label of the robot description (file path, bundled name or ``-``).
        xml: the URDF XML text.
        bundled: the bundled robot, or None.
        out: dict filled with the command's results for ``--json``.

    Returns:
        list: the lines printed without ``--json``.

    Raises:
        CLIError: an unknown frame; ``--frame`` is needed (the model has several leaves and no
            ``--tip-link``).
    """
    from scipy.spatial.transform import Rotation

    q = parse_joint_vector(args.q, model.joint_names, "--q")
    _check_limits(model, q, out.setdefault("warnings", []))
    frames = list(args.frame) if args.frame else []
    if frames == ["all"]:
        frames = list(model.link_names)
    if not frames:
        if model.tip_link is None:
            raise CLIError(
                f"--frame is needed: the model has several leaves ({', '.join(model.leaf_links)}) "
                "and no --tip-link"
            )
        frames = [model.tip_link]
    for frame in frames:
        if frame not in model.link_names:
            raise CLIError(
                f"--frame: unknown frame {frame!r}; frames below {model.base_link}: "
                f"{', '.join(model.link_names)}"
            )
    poses = {}
    p = args.precision
    lines = [f"frame poses in {model.base_link} at q = {_fmt_vec(q, 4)}:"]
    for frame in frames:
        pose = np.asarray(model.frame_pose(q, frame=frame), dtype=float)
        rot = Rotation.from_matrix(pose[:3, :3])
        quat = rot.as_quat()  # x y z w, as geometry_msgs/Quaternion
        rpy = rot.as_euler("xyz")  # fixed axes x, then y, then z: URDF's rpy
        poses[frame] = {
            "position": pose[:3, 3].tolist(),
            "quaternion_xyzw": quat.tolist(),
            "rpy": rpy.tolist(),
            "matrix": pose.tolist(),
        }
        lines += [
            f"  {frame}:",
            f"    position [m]        {_fmt_vec(pose[:3, 3], p)}",
            f"    quaternion x y z w  {_fmt_vec(quat, p)}",
            f"    rpy [rad]           {_fmt_vec(rpy, p)}",
        ]
    out.update(
        {
            "joint_names": list(model.joint_names),
            "q": q.tolist(),
            "base_link": model.base_link,
            "poses": poses,
        }
    )
    return lines


# Each command takes (args: the parsed options, model: the RobotModel, path: the description's
# file or label, xml: its URDF text, bundled: the BundledRobot or None, out: the dict printed with
# --json, filled in) and returns the lines of human output. Bad input raises CLIError or a typed
# error of core/errors.py (exit codes: exit_code_of).
COMMANDS = {
    "info": cmd_info,
    "gravity": cmd_gravity,
    "mass-matrix": cmd_mass_matrix,
    "jacobian": cmd_jacobian,
    "simulate": cmd_simulate,
    "wrench": cmd_wrench,
    "inverse-dynamics": cmd_inverse_dynamics,
    "pose": cmd_pose,
}
COMMANDS.update(_identify.COMMANDS)  # identify, excite, identify-payload (tools/identify.py)


# ----------------------------------------------------------------------------------- argparse


class _Parser(argparse.ArgumentParser):
    """argparse that raises CLIError instead of exiting, so --json can report usage errors too."""

    def error(self, message):  # noqa: D401
        raise CLIError(f"{message} (see: {self.prog} --help)", EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    """The ``robot-dynamics`` argument parser with every subcommand.

    Returns:
        argparse.ArgumentParser: the parser.
    """
    common = _Parser(add_help=False)
    common.add_argument(
        "urdf",
        help="URDF or xacro file (.xacro: expanded with --xacro-arg), - for a URDF on standard "
        "input, or a bundled robot: panda, double_pendulum",
    )
    common.add_argument(
        "--xacro-arg",
        action="append",
        default=None,
        metavar="NAME:=VALUE",
        help="argument of a .xacro file (repeat for several)",
    )
    common.add_argument("--base-link", default=None, help="base frame (default: the URDF root)")
    common.add_argument(
        "--balance-inertia",
        action="store_true",
        help="load link inertias that are not positive semi-definite or violate the triangle "
        "inequality balanced (each change reported on stderr) instead of refusing the URDF",
    )
    common.add_argument("--tip-link", default=None, help="tip frame (default: the only leaf)")
    common.add_argument(
        "--gravity",
        nargs=3,
        metavar=("GX", "GY", "GZ"),
        default=None,
        help="gravity in the base frame [m/s^2] (default 0 0 -9.81; the bundled double "
        "pendulum: 0 -9.81 0)",
    )
    common.add_argument("--json", action="store_true", help="print one JSON object (for programs)")
    common.add_argument(
        "--precision", type=int, default=4, help="decimals in human output (default 4)"
    )

    def joint_vec(p, flag, text):
        p.add_argument(
            flag,
            nargs="+",
            default=None,
            metavar="V",
            help=text + " (n numbers in joint order, or name=value pairs; default zeros)",
        )

    parser = _Parser(
        prog="robot-dynamics",
        description="Rigid-body dynamics of a URDF: gravity torques, mass matrix, Jacobian, "
        "simulation "
        "and external-wrench estimation. No ROS needed.",
        epilog="Exit codes: 0 ok, 1 unexpected error, 2 bad argument, 3 bad or unreadable URDF.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    sub.add_parser(
        "info", parents=[common], help="tree, joints, masses, total mass, fixed/mimic joints"
    )

    p = sub.add_parser("gravity", parents=[common], help="gravity torques g(q)")
    joint_vec(p, "--q", "joint positions [rad, m]")

    p = sub.add_parser("mass-matrix", parents=[common], help="joint-space mass matrix M(q)")
    joint_vec(p, "--q", "joint positions [rad, m]")

    p = sub.add_parser(
        "jacobian", parents=[common], help="Jacobian of a frame (rows vx vy vz wx wy wz)"
    )
    joint_vec(p, "--q", "joint positions [rad, m]")
    p.add_argument("--frame", default=None, help="link/frame name (default: the tip link)")
    p.add_argument(
        "--axes",
        choices=("base", "local"),
        default="base",
        help="express in base axes (default) or the frame's own axes",
    )

    p = sub.add_parser(
        "simulate",
        parents=[common],
        help="forward simulation with constant torques or gravity compensation",
    )
    joint_vec(p, "--q", "initial joint positions (default: zeros, or a bundled robot's home pose)")
    joint_vec(p, "--qd", "initial joint velocities")
    p.add_argument(
        "--tau",
        nargs="+",
        default=None,
        metavar="V",
        help="applied joint torques [Nm]: n constant numbers in joint order or name=value pairs "
        "(default zeros), or 'gravity' for g(q) at every instant (gravity compensation: the arm "
        "holds its pose)",
    )
    p.add_argument("--duration", type=float, default=10.0, help="simulated time [s] (default 10)")
    p.add_argument(
        "--max-duration",
        type=float,
        default=600.0,
        help="refuse longer simulations (default 600 s)",
    )
    p.add_argument(
        "--sample-dt", type=float, default=0.01, help="output sample period [s] (default 0.01)"
    )
    p.add_argument(
        "--method",
        default="RK45",
        help="integrator: any scipy solve_ivp method (RK45, DOP853, Radau, BDF, LSODA, ...) "
        "or semi_implicit_euler (default RK45)",
    )
    p.add_argument("--rtol", type=float, default=1e-8, help="relative tolerance (default 1e-8)")
    p.add_argument("--atol", type=float, default=1e-10, help="absolute tolerance (default 1e-10)")
    p.add_argument(
        "--fixed-step",
        type=float,
        default=1e-3,
        help="step of semi_implicit_euler [s] (default 1e-3)",
    )
    p.add_argument("--friction", action="store_true", help="include URDF damping and friction")
    p.add_argument(
        "--plot", default=None, metavar="PNG", help="write a plot of q, qd and energy to this PNG"
    )
    p.add_argument(
        "--json-series", action="store_true", help="with --json, include the sampled trajectory"
    )

    p = sub.add_parser(
        "inverse-dynamics",
        parents=[common],
        help="joint torques tau = M qdd + C qd + g (- J^T f_ext) for a motion",
    )
    joint_vec(p, "--q", "joint positions [rad, m]")
    joint_vec(p, "--qd", "joint velocities")
    joint_vec(p, "--qdd", "joint accelerations")
    p.add_argument(
        "--f-ext",
        nargs=6,
        default=None,
        metavar=("FX", "FY", "FZ", "TX", "TY", "TZ"),
        help="wrench the environment applies on --frame [N, Nm] (base axes, moment about the "
        "frame origin)",
    )
    p.add_argument("--frame", default=None, help="frame --f-ext acts on (default: the tip link)")

    p = sub.add_parser(
        "pose", parents=[common], help="forward kinematics: pose of frames in the base frame"
    )
    joint_vec(p, "--q", "joint positions [rad, m]")
    p.add_argument(
        "--frame",
        nargs="+",
        default=None,
        help="link/frame names, or 'all' (default: the tip link)",
    )

    p = sub.add_parser(
        "wrench",
        parents=[common],
        help="external wrench on the tip from joint torques (damped pinv of J^T)",
    )
    joint_vec(p, "--q", "joint positions [rad, m]")
    joint_vec(
        p, "--tau", "measured joint torques [Nm] (with --external: the external joint torques)"
    )
    joint_vec(p, "--qd", "joint velocities (default zeros)")
    joint_vec(p, "--qdd", "joint accelerations (default zeros)")
    p.add_argument(
        "--external",
        action="store_true",
        help="--tau already is tau_ext = J^T f_ext (skip subtracting M qdd + C qd + g)",
    )
    p.add_argument("--frame", default=None, help="frame the wrench acts on (default: the tip link)")
    p.add_argument(
        "--axes",
        choices=("base", "local"),
        default="base",
        help="axes of the result (default base)",
    )
    p.add_argument(
        "--damping", type=float, default=1e-6, help="pseudo-inverse damping (default 1e-6)"
    )
    _identify.add_parsers(sub, common)
    return parser


def _wants_json(argv: Sequence[str]) -> bool:
    return "--json" in argv


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``robot-dynamics`` console script.

    Args:
        argv: command-line arguments (default: ``sys.argv[1:]``).

    Returns:
        int: the exit code.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = _wants_json(argv)
    out: Dict = {}
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help
            return int(exc.code or 0)
        out["command"] = args.command
        model, path, xml, bundled = load_model(args)
        lines = COMMANDS[args.command](args, model, path, xml, bundled, out)
    except CLIError as exc:
        return _fail(str(exc), exc.code, as_json, out)
    except Exception as exc:  # noqa: BLE001 - last resort: say what happened, non-zero exit
        code = exit_code_of(exc)
        prefix = "unexpected " if code == EXIT_ERROR else ""
        return _fail(f"{prefix}{type(exc).__name__}: {exc}", code, as_json, out)
    warnings = out.get("warnings") or []
    try:
        if as_json:
            out["ok"] = True
            print(
                json.dumps(out, indent=None if os.environ.get("ROBOT_DYNAMICS_JSON_COMPACT") else 2)
            )
        else:
            for warning in warnings:
                print(f"warning: {warning}", file=sys.stderr)
            print("\n".join(lines))
        sys.stdout.flush()
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return EXIT_OK


def exit_code_of(exc: BaseException) -> int:
    """The exit code of an error raised by a command, from its type (core/errors.py).

    * bad input to a computation (InvalidInputError: a vector, a method, a gravity; an unknown
      frame; a tip needed where the model has several leaves; a node parameters file the node
      would refuse, ParametersFileError) -> 2;
    * a model the URDF cannot make (URDFError and subclasses; a singular inertia matrix) -> 3;
    * anything else -> 1.

    Args:
        exc: the exception.

    Returns:
        int: the exit code (a CLIError's own code).
    """
    from robot_dynamics.core.errors import (
        AmbiguousTipError,
        InvalidInputError,
        ParametersFileError,
        SingularInertiaError,
        UnknownFrameError,
        URDFError,
    )

    if isinstance(exc, CLIError):
        return exc.code
    if isinstance(
        exc, (InvalidInputError, UnknownFrameError, AmbiguousTipError, ParametersFileError)
    ):
        return EXIT_USAGE
    if isinstance(exc, (URDFError, SingularInertiaError)):
        return EXIT_BAD_URDF
    return EXIT_ERROR


def _fail(message: str, code: int, as_json: bool, out: Dict) -> int:
    print(f"robot-dynamics: error: {message}", file=sys.stderr)
    if as_json:
        print(
            json.dumps(
                {"ok": False, "command": out.get("command"), "error": message, "exit_code": code}
            )
        )
    return code


if __name__ == "__main__":
    sys.exit(main())
