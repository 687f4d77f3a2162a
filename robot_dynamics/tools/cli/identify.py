"""``robot-dynamics identify``: identify a robot's dynamic parameters from recorded joint states
and write an identified URDF.

    robot-dynamics identify NOMINAL.urdf DATA --out IDENTIFIED.urdf [--topic T] [--holdout F]
        [--friction-model auto|viscous-coulomb|asymmetric|stribeck] [--offset auto|on|off]
        [--armature] [--plot PNG] [--json]

DATA is a ROS 2 bag (directory, .mcap or .db3) with sensor_msgs/JointState (positions and
efforts; velocities optional) or a CSV file (see :mod:`robot_dynamics.tools.identification_data`).
The last ``--holdout`` fraction of the data is kept out of the fit and used to compare the nominal
and the identified model.

Per joint it chooses the simplest friction model the held-out data support (viscous + Coulomb,
asymmetric, Stribeck) and whether a torque offset pays
(:mod:`robot_dynamics.core.friction_identification`; ``--friction-model`` and ``--offset`` fix
them), fits it (:func:`robot_dynamics.core.identification.identify`) and writes the identified
URDF (``--out``, :func:`robot_dynamics.core.urdf_writer.identified_urdf`) and beside it
``<stem>.yaml``, the dynamics node's parameters of what a URDF cannot carry (torque offsets as
``effort_offset``, the friction model, armature when fitted;
:mod:`robot_dynamics.tools.identified_parameters`).
"""

from __future__ import annotations

import math
import os
import time
from functools import partial
from typing import List

import numpy as np

from robot_dynamics.core.disturbance import disturbed_stretches
from robot_dynamics.core.effort_measurement import effort_scale_finding, model_torque_ratios
from robot_dynamics.core.filter_window import base_parameter_fit
from robot_dynamics.core.friction import DEFAULT_VELOCITY_THRESHOLD
from robot_dynamics.core.identification import IdentificationError, stacked_regressor
from robot_dynamics.core.regressor import ParameterLayout
from robot_dynamics.core.rest import MIN_REST_TIME
from robot_dynamics.tools.identified_parameters import parameters_path

from .arguments import Invocation, number, output_paths
from .errors import EXIT_USAGE, CLIError
from .identify_model import (
    add_model_options,
    add_velocity_threshold_option,
    fit_model,
    model_json,
    model_lines,
    write_outputs,
)
from .identify_node import known_torques, node_setup
from .node_params import add_params_option, node_conversions, node_model
from .identify_data import (
    add_data_options,
    data_report,
    disturbance_warnings,
    effort_scale_warnings,
    held_joint_warnings,
    load_data,
    nominal_friction_note,
    prismatic_joints,
    rest_velocity_text,
    velocity_warnings,
)


def _cli_error(message):
    return CLIError(message, EXIT_USAGE)


# ------------------------------------------------------------------ command
def _rms(x):
    return np.sqrt(np.mean(np.asarray(x) ** 2, axis=0))


def add_identify_parser(sub, common):
    """Register the ``identify`` subcommand (arguments: see
    :data:`~robot_dynamics.tools.cli.main.FAMILIES`)."""
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
        type=number(0, 0.9, below=True),
        default=0.2,
        help="fraction of the data (at its end) kept for validation (default 0.2; 0: none)",
    )
    p.add_argument("--plot", default=None, metavar="PNG", help="plot held-out torques to a PNG")
    add_data_options(p)
    add_model_options(p)
    p.set_defaults(velocity_threshold=None)  # given, else --params' or the default
    add_params_option(p)


def cmd_identify(run: Invocation) -> List[str]:
    """Identify inertial parameters, friction and offsets from a recording (``args.data``) and
    write the identified URDF (``--out``) and the node's parameters file beside it; optional
    plot of the held-out torques.

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        CLIError: data that cannot be read or identified.
    """
    node = None
    if run.args.params:
        run, node = node_setup(run)
    args, model, path, xml, bundled, out = run
    if args.velocity_threshold is None:
        args.velocity_threshold = DEFAULT_VELOCITY_THRESHOLD
    params_path = parameters_path(args.out)
    if os.path.abspath(params_path) == os.path.abspath(args.out):
        raise _cli_error(
            f"--out {args.out}: the node's parameters are written beside the URDF as "
            f"{os.path.basename(params_path)}, the same file; name the URDF .urdf"
        )
    inputs = [args.data, path]
    output_paths("--out", [args.out, params_path], inputs)
    if args.plot:
        output_paths("--plot", [args.plot], inputs + [args.out, params_path])
    start = time.perf_counter()
    layout = ParameterLayout.for_model(
        model, offset=True, velocity_threshold=args.velocity_threshold
    )  # the fit that chooses the filter window when it is not given
    try:
        data, hold_sources = load_data(
            args, model, partial(base_parameter_fit, model, layout), holdout=args.holdout
        )
        if node is not None:
            data = known_torques(node, model, data)
        train, test = data.split(args.holdout) if args.holdout > 0 else (data, None)
        selection, result = fit_model(args, model, train, test)
    except IdentificationError as exc:
        raise _cli_error(f"{args.data}: {exc}") from None
    elapsed = time.perf_counter() - start
    test = train if test is None else test
    layout = result.layout
    Y = stacked_regressor(model, test.q, test.qd, test.qdd, layout, smooth=test.smoothed)
    pred_nominal = Y @ result.theta_nominal
    pred = Y @ result.theta
    rms_nominal = _rms(test.tau - pred_nominal)
    rms_identified = _rms(test.tau - pred)
    scales = model_torque_ratios(
        test.tau, pred_nominal, test.qd, data.effort_mask, args.velocity_threshold
    )
    finding = effort_scale_finding(scales)
    warnings = out.setdefault("warnings", [])
    warnings += held_joint_warnings(model, data.report.held, hold_sources, data.extra_joints)
    warnings += velocity_warnings(model.joint_names, data.report.unfollowed_velocities)
    warnings += effort_scale_warnings(model.joint_names, finding, data.report.effort_scale)
    measured = np.flatnonzero(data.effort_mask)
    Y_all = stacked_regressor(model, data.q, data.qd, data.qdd, layout, smooth=data.smoothed)
    stretches = disturbed_stretches(
        data.t, Y_all[:, measured], data.tau[:, measured], data.qd[:, measured]
    )
    names = [model.joint_names[j] for j in measured]
    warnings += disturbance_warnings(names, data.t, stretches)
    params_text = write_outputs(
        args, model, xml, data, selection, result, params_path, warnings, node
    )
    nominal_bodies = result.theta_nominal[: layout.n_inertial].reshape(-1, 10)
    bodies = result.body_parameters()
    validation = "held-out" if args.holdout > 0 else "training (no --holdout)"
    out.update(
        {
            "data": str(args.data),
            "out": args.out,
            "parameters_file": params_path,
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
            "rms_nominal": [float(x) for x in rms_nominal],
            "rms_identified": [float(x) for x in rms_identified],
            "nominal_torque_ratio": [float(x) for x in finding.ratios],
            "residual_sigma": [float(x) for x in result.joint_sigma],
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
            **model_json(model, selection, result),
            "node_parameters": params_text,
            "wall_time": elapsed,
        }
    )
    data_lines, out["data_preparation"] = data_report(data, hold_sources)
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
    lines[1:1] = data_lines
    if data.report.rest_time < MIN_REST_TIME:
        lines.append(rest_velocity_text(data.report))
    gate = data.report.rest_level
    if gate is not None and node is not None and "friction_rest_velocity" in node.params.given:
        lines.append(
            f"friction_rest_velocity {gate:.3g} from the recording replaces the parameters "
            f"file's {node.params.values['friction_rest_velocity']:g}"
        )
    if data.extra_joints:
        lines.append(f"ignored joints not in the model: {', '.join(data.extra_joints)}")
    lines.append(nominal_friction_note(model))
    lines.append(f"{'joint':<{width}}  {'rms nominal':>12}  {'rms identified':>14}")
    for k, name in enumerate(model.joint_names):
        if not data.effort_mask[k]:
            lines.append(f"{name:<{width}}  {'no measured torque: not fitted':>30}")
            continue
        lines.append(f"{name:<{width}}  {rms_nominal[k]:>12.{p}f}  {rms_identified[k]:>14.{p}f}")
    lines += model_lines(model, selection, result, data.effort_mask, p)
    lines.append("link masses [kg] nominal -> identified:")
    for b, link in enumerate(layout.body_links):
        lines.append(f"  {link}: {nominal_bodies[b, 0]:.{p}f} -> {bodies[b, 0]:.{p}f}")
    lines.append("least certain base parameters (value +- standard error):")
    for i in worst:
        lines.append(f"  {result.base.names[i]}: {result.beta[i]:.4g} +- {result.beta_std[i]:.2g}")
    lines.append(f"wrote {args.out}")
    lines.append(
        f"wrote {params_path} (ros2 launch robot_dynamics dynamics.launch.py "
        f"description_file:={os.path.abspath(args.out)} "
        f"params_file:={os.path.abspath(params_path)})"
    )
    if args.plot:
        from robot_dynamics.tools.plotting import plot_identification

        plot_identification(
            args.plot,
            t=test.t,
            measured=test.tau,
            nominal=pred_nominal,
            identified=pred,
            joint_names=model.joint_names,
            prismatic=prismatic_joints(model),
        )
        out["plot"] = args.plot
        lines.append(f"wrote {args.plot}")
    return lines


# ------------------------------------------------------------------ excite
def add_excite_parser(sub, common):
    """Register the ``excite`` subcommand (arguments: see
    :data:`~robot_dynamics.tools.cli.main.FAMILIES`)."""
    p = sub.add_parser(
        "excite",
        parents=[common],
        help="optimised excitation trajectory (Fourier series) as JointTrajectory YAML, CSV, PNG",
    )
    p.add_argument("--out", required=True, metavar="PREFIX", help="writes PREFIX.yaml/.csv/.png")
    p.add_argument(
        "--duration",
        type=number(0, above=True),
        default=30.0,
        help="length [s], whole periods (default 30)",
    )
    p.add_argument(
        "--period", type=number(0, above=True), default=10.0, help="Fourier period [s] (default 10)"
    )
    p.add_argument(
        "--harmonics",
        type=number(1, integer=True),
        default=5,
        help="harmonics per joint (default 5)",
    )
    p.add_argument(
        "--max-acceleration",
        type=number(0, above=True),
        default=3.0,
        help="joint acceleration limit [rad/s^2] (default 3; URDF has none)",
    )
    p.add_argument(
        "--margin",
        type=number(0, 0.5, below=True),
        default=0.1,
        help="fraction of position range (each side) and of velocity/acceleration limits kept "
        "free (default 0.1)",
    )
    p.add_argument(
        "--rate",
        type=number(0, above=True),
        default=100.0,
        help="CSV sample rate [Hz] (default 100)",
    )
    p.add_argument(
        "--yaml-rate",
        type=number(0, above=True),
        default=20.0,
        help="trajectory points per second (default 20)",
    )
    p.add_argument(
        "--start-time",
        type=number(0),
        default=3.0,
        help="time_from_start of the first point [s]: the controller's move to the start "
        "(default 3)",
    )
    p.add_argument(
        "--iterations",
        type=number(1, integer=True),
        default=30,
        help="optimiser iterations (default 30)",
    )
    p.add_argument(
        "--seed", type=number(0, integer=True), default=0, help="random seed (default 0)"
    )
    add_params_option(p)


def trajectory_yaml(joint_names, t, q, qd, qdd):
    """``trajectory_msgs/msg/JointTrajectory`` as YAML (``ros2 topic pub --once --stdin TOPIC
    trajectory_msgs/msg/JointTrajectory < FILE``; a 30 s trajectory is longer than a shell
    argument may be).

    Args:
        joint_names: joint names, in order.
        t: (k,) time_from_start of each point [s].
        q: (k, n) positions [rad or m].
        qd: (k, n) velocities [rad/s or m/s].
        qdd: (k, n) accelerations [rad/s^2 or m/s^2].

    Returns:
        str: the YAML text.
    """

    def vec(x):
        return "[" + ", ".join(f"{v:.6f}" for v in np.round(x, 6) + 0.0) + "]"

    lines = ["joint_names: [" + ", ".join(joint_names) + "]", "points:"]
    for i, ti in enumerate(t):
        ns = int(round(ti * 1e9))
        lines += [
            f"- positions: {vec(q[i])}",
            f"  velocities: {vec(qd[i])}",
            f"  accelerations: {vec(qdd[i])}",
            f"  time_from_start: {{sec: {ns // 1_000_000_000}, nanosec: {ns % 1_000_000_000}}}",
        ]
    return "\n".join(lines) + "\n"


def cmd_excite(run: Invocation) -> List[str]:
    """Optimised excitation trajectory (Fourier series) written as JointTrajectory YAML, CSV
    and PNG (``--out PREFIX``).

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        CLIError: an input the optimiser refuses.
        ParametersFileError: a bad ``--params`` file.
    """
    run, _ = node_model(run)  # with --params: the node's joints (locked_joints left out)
    args, model, path, xml, bundled, out = run
    output_paths(
        "--out",
        [args.out + suffix for suffix in (".yaml", ".csv", ".png")],
        [path, *(args.params or [])],
    )
    from robot_dynamics.core.errors import InvalidInputError
    from robot_dynamics.core.excitation import optimize_excitation

    start = time.perf_counter()
    try:
        traj, condition = optimize_excitation(
            model,
            period=args.period,
            harmonics=args.harmonics,
            max_acceleration=args.max_acceleration,
            margin=args.margin,
            maxiter=args.iterations,
            seed=args.seed,
        )
    except InvalidInputError as exc:
        raise _cli_error(str(exc)) from None
    elapsed = time.perf_counter() - start
    cycles = max(1, math.ceil(args.duration / args.period - 1e-9))
    duration = cycles * args.period
    t = np.arange(0.0, duration + 0.5 / args.rate, 1.0 / args.rate)
    q, qd, qdd = traj.evaluate(t)
    names = list(model.joint_names)
    prefix = args.out
    header = ["time"] + [
        f"{j}.{f}" for f in ("position", "velocity", "acceleration") for j in names
    ]
    table = np.column_stack([t, q, qd, qdd])
    np.savetxt(prefix + ".csv", table, delimiter=",", header=",".join(header), comments="")
    ty = np.arange(0.0, duration + 0.5 / args.yaml_rate, 1.0 / args.yaml_rate)
    qy, qdy, qddy = traj.evaluate(ty)
    with open(prefix + ".yaml", "w") as f:
        f.write(trajectory_yaml(names, ty + args.start_time, qy, qdy, qddy))
    _plot_trajectory(prefix + ".png", t, q, qd, qdd, names)
    lower, upper = model.position_limits
    out.update(
        {
            "joint_names": names,
            "duration": duration,
            "period": args.period,
            "harmonics": args.harmonics,
            "condition_number": condition,
            "files": [prefix + ".yaml", prefix + ".csv", prefix + ".png"],
            "start_position": q[0].tolist(),
            "max_velocity": np.abs(qd).max(axis=0).tolist(),
            "max_acceleration": np.abs(qdd).max(axis=0).tolist(),
            "position_range": [q.min(axis=0).tolist(), q.max(axis=0).tolist()],
            "wall_time": elapsed,
        }
    )
    width = max(len(n) for n in names)
    lines = [
        f"excitation for {path}: {cycles} x {args.period:g} s, {args.harmonics} harmonics, "
        f"condition number {condition:.4g} (base regressor, columns normalised)",
        f"{'joint':<{width}}  {'min q':>8}  {'max q':>8}  {'max |qd|':>9}  {'max |qdd|':>9}",
    ]
    for k, name in enumerate(names):
        lines.append(
            f"{name:<{width}}  {q[:, k].min():>8.3f}  {q[:, k].max():>8.3f}  "
            f"{np.abs(qd[:, k]).max():>9.3f}  {np.abs(qdd[:, k]).max():>9.3f}"
        )
    lines += [
        f"starts at rest at q = {np.array2string(q[0], precision=3)}; the first trajectory point "
        f"is at {args.start_time:g} s",
        f"wrote {prefix}.yaml (ros2 topic pub --once --stdin <controller>/joint_trajectory "
        f"trajectory_msgs/msg/JointTrajectory < {prefix}.yaml), {prefix}.csv, {prefix}.png",
    ]
    return lines


def _plot_trajectory(png, t, q, qd, qdd, names):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(9, 7), sharex=True)
    for k, name in enumerate(names):
        axes[0].plot(t, q[:, k], lw=1, label=name)
        axes[1].plot(t, qd[:, k], lw=1)
        axes[2].plot(t, qdd[:, k], lw=1)
    axes[0].set_ylabel("q [rad]")
    axes[1].set_ylabel("qd [rad/s]")
    axes[2].set_ylabel("qdd [rad/s^2]")
    axes[2].set_xlabel("t [s]")
    axes[0].legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


# ------------------------------------------------------------------ identify-payload
def add_payload_parser(sub, common):
    """Register the ``identify-payload`` subcommand (arguments: see
    :data:`~robot_dynamics.tools.cli.main.FAMILIES`)."""
    p = sub.add_parser(
        "identify-payload",
        parents=[common],
        help="mass, centre of mass (and inertia when excited) of a load on a frame",
    )
    p.add_argument("data", help="ROS 2 bag (directory, .mcap, .db3) or CSV file")
    p.add_argument("--frame", default=None, help="link carrying the load (default: the tip)")
    p.add_argument("--topic", default="/joint_states", help="JointState topic of the bag")
    p.add_argument(
        "--no-friction", action="store_true", help="do not subtract the URDF joint friction"
    )
    add_velocity_threshold_option(p)
    p.set_defaults(velocity_threshold=None)  # given, else --params' or the default
    add_data_options(p)
    add_params_option(p)


def cmd_identify_payload(run: Invocation) -> List[str]:
    """Mass, centre of mass (and inertia when excited) of a load on ``--frame`` from a
    recording.

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        CLIError: a bad data option; data that cannot be read or used.
    """
    run, params = node_model(run)
    args, model, path, xml, bundled, out = run
    from robot_dynamics.core.payload import (
        identify_payload,
        payload_fit,
        payload_inconsistency,
        payload_warnings,
    )

    if params is not None:
        node_conversions(args, params, model, model.joint_names)
    elif args.velocity_threshold is None:
        args.velocity_threshold = DEFAULT_VELOCITY_THRESHOLD
    friction = not args.no_friction
    window_fit = partial(
        payload_fit,
        model,
        frame=args.frame,
        friction=friction,
        velocity_threshold=args.velocity_threshold,
    )
    try:
        data, hold_sources = load_data(args, model, window_fit, rest=True)
        est = identify_payload(
            model,
            data.q,
            data.qd,
            data.qdd,
            data.tau,
            frame=args.frame,
            friction=friction,
            velocity_threshold=args.velocity_threshold,
            effort_mask=data.effort_mask,
        )
    except IdentificationError as exc:
        raise _cli_error(f"{args.data}: {exc}") from None

    def listed(x):
        return [float(v) for v in np.ravel(x)]

    out.update(
        {
            "data": str(args.data),
            "frame": est.frame,
            "samples": est.samples,
            "samples_dropped": int(data.dropped),
            "mass": est.mass,
            "mass_std": est.mass_std,
            "com": listed(est.com),
            "com_std": listed(est.com_std),
            "inertia": None if est.inertia is None else np.asarray(est.inertia).tolist(),
            "inertia_std": None if est.inertia_std is None else listed(est.inertia_std),
            "undetermined": list(est.undetermined),
            "residual_rms": listed(est.residual_rms),
        }
    )
    data_lines, out["data_preparation"] = data_report(data, hold_sources)
    mass_bad, inertia_bad = payload_inconsistency(est)
    warnings = out.setdefault("warnings", [])
    warnings += held_joint_warnings(model, data.report.held, hold_sources, data.extra_joints)
    warnings += velocity_warnings(model.joint_names, data.report.unfollowed_velocities)
    scaled = data.report.effort_scale is not None and np.any(data.report.effort_scale != 1.0)
    warnings += payload_warnings(
        model,
        est,
        data.qd,
        effort_mask=data.effort_mask,
        velocity_threshold=args.velocity_threshold,
        friction=friction,
        scaled=bool(scaled),
    )

    def pm(v, e, unit, scale=1.0, decimals=4):
        if not np.isfinite(v):
            return "not determined"
        return f"{v * scale:.{decimals}f} +- {e * scale:.2g} {unit}"

    odd = "  (not physical: warning payload-inconsistent)"
    lines = [
        f"payload on {est.frame} from {est.samples} samples of {args.data} "
        f"({data.dropped} dropped)",
        *data_lines,
        f"mass  {pm(est.mass, est.mass_std, 'kg')}" + (odd if mass_bad else ""),
    ]
    for k, axis in enumerate("xyz"):
        lines.append(f"com {axis} {pm(est.com[k], est.com_std[k], 'mm', 1000.0, 2)}")
    if est.inertia is not None:
        lines.append(
            "inertia about the centre of mass [kg m^2], frame axes:" + (odd if inertia_bad else "")
        )
        lines += ["  " + np.array2string(row, precision=5) for row in est.inertia]
    lines += [f"note: {u}" for u in est.undetermined]
    lines.append("residual torque rms [N m]: " + np.array2string(est.residual_rms, precision=3))
    return lines


def add_parsers(sub, common):
    """Register this module's subcommands on the CLI's subparsers (arguments: see
    :data:`~robot_dynamics.tools.cli.main.FAMILIES`)."""
    add_identify_parser(sub, common)
    add_excite_parser(sub, common)
    add_payload_parser(sub, common)


COMMANDS = {
    "identify": cmd_identify,
    "excite": cmd_excite,
    "identify-payload": cmd_identify_payload,
}

__all__ = ["COMMANDS", "add_parsers", "cmd_identify"]
