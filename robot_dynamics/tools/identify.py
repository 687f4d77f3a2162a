"""``robot-dynamics identify``: identify a robot's dynamic parameters from recorded joint states
and write an identified URDF.

    robot-dynamics identify NOMINAL.urdf DATA --out IDENTIFIED.urdf [--topic T] [--holdout F]
        [--plot PNG] [--json]

DATA is a ROS 2 bag (directory, .mcap or .db3) with sensor_msgs/JointState (positions and
efforts; velocities optional) or a CSV file (see :mod:`robot_dynamics.tools.identification_data`).
The last ``--holdout`` fraction of the data is kept out of the fit and used to compare the nominal
and the identified model.

The identified URDF is the input with, for every body the fit sees (a link moved by a movable
joint, with the links fixed to it merged in), the body's identified ``<inertial>`` written on the
body's own link (mass, centre of mass, full inertia tensor about it, link axes) and the
``<inertial>`` of the links fixed to it removed (their mass is in the body's), and every
actuated joint's ``<dynamics damping friction>`` set to the identified viscous and Coulomb
friction. Links fixed to the base and everything else (visuals, collisions, limits, comments)
are kept. Torque offsets are reported, not written (URDF has no place for them).
"""

from __future__ import annotations

import math
import time
import xml.etree.ElementTree as ET

import numpy as np

from robot_dynamics.core.friction import DEFAULT_VELOCITY_THRESHOLD
from robot_dynamics.core.identification import IdentificationError, identify
from robot_dynamics.core.regressor import ParameterLayout, parameters_to_inertia, regressor
from robot_dynamics.core.spatial import inertia_parameters


def _cli_error(message):
    from robot_dynamics.tools.cli import EXIT_USAGE, CLIError

    return CLIError(message, EXIT_USAGE)


# ------------------------------------------------------------------ URDF output
def _fmt(x):
    return f"{float(x):.9g}"


def identified_urdf(xml, model, layout, theta):
    """The URDF text ``xml`` with the identified inertials and joint friction of ``theta``
    (see the module docstring). Comments and every other element are kept."""
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    root = ET.fromstring(xml, parser=parser)
    links = {link.get("name"): link for link in root.findall("link")}
    joints = {joint.get("name"): joint for joint in root.findall("joint")}
    tree = model.tree
    bodies = theta[: layout.n_inertial].reshape(-1, 10)
    for b, link_name in enumerate(tree.body_link_names):
        link = links[link_name]
        mass, com, inertia = inertia_parameters(parameters_to_inertia(bodies[b]))
        index = 0
        for old in link.findall("inertial"):
            index = list(link).index(old)
            link.remove(old)
        inertial = ET.Element("inertial")
        inertial.text, inertial.tail = "\n      ", "\n    "
        ET.SubElement(inertial, "origin", xyz=" ".join(_fmt(c) for c in com), rpy="0 0 0")
        ET.SubElement(inertial, "mass", value=_fmt(mass))
        ET.SubElement(
            inertial,
            "inertia",
            ixx=_fmt(inertia[0, 0]),
            ixy=_fmt(inertia[0, 1]),
            ixz=_fmt(inertia[0, 2]),
            iyy=_fmt(inertia[1, 1]),
            iyz=_fmt(inertia[1, 2]),
            izz=_fmt(inertia[2, 2]),
        )
        for child in inertial:
            child.tail = "\n      "
        inertial[-1].tail = "\n    "
        link.insert(index, inertial)
    for name, info in tree.frames.items():
        if info.body >= 0 and name != tree.body_link_names[info.body] and name in links:
            for old in links[name].findall("inertial"):
                links[name].remove(old)
    groups = layout.groups
    for k, name in enumerate(model.joint_names):
        joint = joints[name]
        dyn = joint.find("dynamics")
        if dyn is None:
            dyn = ET.SubElement(joint, "dynamics")
        if "viscous" in groups:
            dyn.set("damping", _fmt(max(theta[layout.group_slice("viscous")][k], 0.0)))
        if "coulomb" in groups:
            dyn.set("friction", _fmt(max(theta[layout.group_slice("coulomb")][k], 0.0)))
    text = ET.tostring(root, encoding="unicode")
    start = xml.find("<robot")
    prolog = xml[:start] if start > 0 else '<?xml version="1.0"?>\n'  # declaration, comments
    return prolog + text + "\n"


# ------------------------------------------------------------------ command
def _rms(x):
    return np.sqrt(np.mean(np.asarray(x) ** 2, axis=0))


def add_identify_parser(sub, common):
    p = sub.add_parser(
        "identify",
        parents=[common],
        help="identify inertial parameters and friction from a recording; write a URDF",
    )
    p.add_argument("data", help="ROS 2 bag (directory, .mcap, .db3) or CSV file")
    p.add_argument("--out", required=True, metavar="URDF", help="identified URDF to write")
    p.add_argument("--topic", default="/joint_states", help="JointState topic of the bag")
    p.add_argument(
        "--holdout",
        type=float,
        default=0.2,
        help="fraction of the data (at its end) kept for validation (default 0.2; 0: none)",
    )
    p.add_argument("--plot", default=None, metavar="PNG", help="plot held-out torques to a PNG")
    p.add_argument(
        "--filter-window",
        type=float,
        default=0.05,
        help="Savitzky-Golay window for differentiation and smoothing [s] (default 0.05)",
    )
    p.add_argument(
        "--offset", action="store_true", help="also identify a constant torque offset per joint"
    )
    p.add_argument(
        "--velocity-threshold",
        type=float,
        default=DEFAULT_VELOCITY_THRESHOLD,
        help="v_eps of the Coulomb friction's smooth sign tanh(qd / v_eps) [rad/s]",
    )
    p.add_argument(
        "--max-condition",
        type=float,
        default=1e4,
        help="refuse data whose base regressor is worse conditioned (default 1e4)",
    )


def cmd_identify(args, model, path, xml, bundled, out):
    from robot_dynamics.tools.identification_data import load_joint_data

    if not 0.0 <= args.holdout < 0.9:
        raise _cli_error(f"--holdout must be in [0, 0.9), got {args.holdout}")
    start = time.perf_counter()
    try:
        data = load_joint_data(
            args.data, model.joint_names, topic=args.topic, filter_window=args.filter_window
        )
        train, test = data.split(args.holdout) if args.holdout > 0 else (data, data)
        layout = ParameterLayout.for_model(
            model, offset=args.offset, velocity_threshold=args.velocity_threshold
        )
        result = identify(
            model,
            train.q,
            train.qd,
            train.qdd,
            train.tau,
            layout=layout,
            max_condition=args.max_condition,
        )
    except IdentificationError as exc:
        raise _cli_error(f"{args.data}: {exc}") from None
    elapsed = time.perf_counter() - start
    Y = regressor(model, test.q, test.qd, test.qdd, layout)
    pred_nominal = Y @ result.theta_nominal
    pred = Y @ result.theta
    rms_nominal = _rms(test.tau - pred_nominal)
    rms_identified = _rms(test.tau - pred)
    text = identified_urdf(xml, model, layout, result.theta)
    with open(args.out, "w") as f:
        f.write(text)
    nominal_bodies = result.theta_nominal[: layout.n_inertial].reshape(-1, 10)
    bodies = result.body_parameters()
    validation = "held-out" if args.holdout > 0 else "training (no --holdout)"
    out.update(
        {
            "data": str(args.data),
            "out": args.out,
            "joint_names": list(model.joint_names),
            "samples_used": int(train.t.size),
            "validation_samples": int(test.t.size),
            "validation": validation,
            "samples_dropped": int(data.dropped),
            "rate": float(data.rate),
            "velocity_source": data.velocity_source,
            "extra_joints_ignored": list(data.extra_joints),
            "base_parameter_count": int(result.base.count),
            "parameter_count": int(layout.size),
            "condition_number": float(result.condition_number),
            "rms_nominal": rms_nominal.tolist(),
            "rms_identified": rms_identified.tolist(),
            "residual_sigma": result.joint_sigma.tolist(),
            "base_parameters": [
                {"name": name, "value": float(v), "std": float(s)}
                for name, v, s in zip(result.base.names, result.beta, result.beta_std)
            ],
            "bodies": [
                {
                    "link": link,
                    "mass_nominal": float(nominal_bodies[b, 0]),
                    "mass": float(bodies[b, 0]),
                    "com": (bodies[b, 1:4] / bodies[b, 0]).tolist(),
                }
                for b, link in enumerate(layout.body_links)
            ],
            "damping": result.group("viscous").tolist(),
            "friction": result.group("coulomb").tolist(),
            "offset": result.group("offset").tolist() if args.offset else None,
            "wall_time": elapsed,
        }
    )
    p = max(3, args.precision)
    width = max(len(n) for n in model.joint_names)
    rel = np.abs(result.beta_std) / np.maximum(np.abs(result.beta), 1e-12)
    worst = np.argsort(-rel)[:5]
    lines = [
        f"identified {path} from {args.data} in {elapsed:.2f} s",
        f"samples used: {train.t.size} at {data.rate:.1f} Hz ({data.dropped} dropped, "
        f"velocity {data.velocity_source}); validation: {test.t.size} {validation} samples",
        f"base parameters: {result.base.count} of {layout.size}; condition number "
        f"{result.condition_number:.4g}",
    ]
    if data.extra_joints:
        lines.append(f"ignored joints not in the model: {', '.join(data.extra_joints)}")
    lines.append(
        f"{'joint':<{width}}  {'rms nominal':>12}  {'rms identified':>14}  "
        f"{'damping':>10}  {'friction':>10}"
    )
    for k, name in enumerate(model.joint_names):
        lines.append(
            f"{name:<{width}}  {rms_nominal[k]:>12.{p}f}  {rms_identified[k]:>14.{p}f}  "
            f"{result.group('viscous')[k]:>10.{p}f}  {result.group('coulomb')[k]:>10.{p}f}"
        )
    lines.append("link masses [kg] nominal -> identified:")
    for b, link in enumerate(layout.body_links):
        lines.append(f"  {link}: {nominal_bodies[b, 0]:.{p}f} -> {bodies[b, 0]:.{p}f}")
    lines.append("least certain base parameters (value +- standard error):")
    for i in worst:
        lines.append(f"  {result.base.names[i]}: {result.beta[i]:.4g} +- {result.beta_std[i]:.2g}")
    lines.append(f"wrote {args.out}")
    if args.plot:
        _plot(args.plot, test.t, test.tau, pred_nominal, pred, model.joint_names)
        out["plot"] = args.plot
        lines.append(f"wrote {args.plot}")
    return lines


def _plot(png, t, measured, nominal, identified, names):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(names)
    cols = 2 if n > 3 else 1
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 2.2 * rows), squeeze=False)
    for k, name in enumerate(names):
        ax = axes[k % rows][k // rows]
        ax.plot(t, measured[:, k], "k", lw=1, label="measured")
        ax.plot(t, nominal[:, k], "tab:red", lw=1, label="nominal URDF")
        ax.plot(t, identified[:, k], "tab:blue", lw=1, label="identified")
        ax.set_ylabel(f"{name} [Nm]")
    axes[0][0].legend(loc="upper right", fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("t [s]")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def add_parsers(sub, common):
    """Register this module's subcommands on the CLI's subparsers."""
    add_identify_parser(sub, common)


COMMANDS = {"identify": cmd_identify}

__all__ = ["COMMANDS", "add_parsers", "cmd_identify", "identified_urdf"]
