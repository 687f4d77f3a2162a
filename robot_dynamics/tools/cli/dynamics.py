"""``robot-dynamics gravity | mass-matrix | jacobian | inverse-dynamics | pose | wrench``: the
dynamics and kinematics of one configuration."""

from __future__ import annotations

import warnings
from typing import List

import numpy as np

from robot_dynamics.core.estimation import WRENCH_COMPONENTS as WRENCH_AXES

from .arguments import (
    Invocation,
    add_joint_vector,
    number,
    parse_fixed_vector,
    parse_joint_vector,
)
from .errors import CLIError
from .loading import configuration, frame_option, no_tip_error
from .node_params import add_params_option, compensated_friction, effort_torques, node_model
from .output import fmt_matrix, fmt_vec, short_names

TWIST_AXES = ("vx", "vy", "vz", "wx", "wy", "wz")


def cmd_gravity(run: Invocation) -> List[str]:
    """Gravity torques g(q) [N m or N] at ``--q``.

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        CLIError: a bad ``--q``.
        ParametersFileError: a bad ``--params`` file.
    """
    run, _ = node_model(run)
    args, model, path, xml, bundled, out = run
    q = configuration(run)
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
    lines = [f"gravity torques g(q) [N m or N], gravity {fmt_vec(model.gravity, 3)} m/s^2:"]
    w = max(len(n) for n in model.joint_names)
    for name, qi, gi in zip(model.joint_names, q, g):
        lines.append(f"  {name:<{w}}  q = {qi: .{p}f}   g = {gi: .{p}f}")
    return lines


def cmd_mass_matrix(run: Invocation) -> List[str]:
    """Joint-space mass matrix M(q) [kg m^2] at ``--q`` and its eigenvalues.

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        CLIError: a bad ``--q``.
        ParametersFileError: a bad ``--params`` file.
    """
    run, _ = node_model(run)
    args, model, path, xml, bundled, out = run
    q = configuration(run)
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
    short = short_names(model.joint_names)
    lines = [f"mass matrix M(q) [kg m^2] at q = {fmt_vec(q, 4)}:"]
    lines += ["  " + line for line in fmt_matrix(m, short, short, args.precision)]
    lines.append(f"eigenvalues: {fmt_vec(eig, args.precision)}")
    return lines


def cmd_jacobian(run: Invocation) -> List[str]:
    """Jacobian (6, n) of ``--frame`` at ``--q`` (rows vx vy vz wx wy wz; ``--axes``).

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        CLIError: ``--frame`` is needed (the model has no tip link).
    """
    args, model, path, xml, bundled, out = run
    q = configuration(run)
    frame = frame_option(args, model)
    if frame is None and model.tip_link is None:
        raise no_tip_error(model)
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
    short = short_names(model.joint_names)
    lines = [
        f"Jacobian of {frame or model.tip_link} ({args.axes} axes; rows: linear velocity of the "
        "frame "
        f"origin, angular velocity) at q = {fmt_vec(q, 4)}:"
    ]
    lines += ["  " + line for line in fmt_matrix(jac, TWIST_AXES, short, args.precision)]
    lines.append(f"frame origin in {model.base_link}: {fmt_vec(pose[:3, 3], args.precision)} m")
    lines.append(f"singular values: {fmt_vec(sv, args.precision)}")
    return lines


def cmd_wrench(run: Invocation) -> List[str]:
    """External wrench on ``--frame`` from measured (or external) joint torques.

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        CLIError: no ``--tau``; a bad vector; ``--frame`` is needed (the model has no tip
            link).
        ParametersFileError: a bad ``--params`` file.
    """
    run, params = node_model(run)
    args, model, path, xml, bundled, out = run
    q = configuration(run)
    if args.tau is None:
        raise CLIError(
            "--tau is required: the measured joint torques (or, with --external, tau_ext)"
        )
    tau = parse_joint_vector(args.tau, model.joint_names, "--tau")
    qd = parse_joint_vector(args.qd, model.joint_names, "--qd")
    qdd = parse_joint_vector(args.qdd, model.joint_names, "--qdd")
    frame = frame_option(args, model)
    if frame is None and model.tip_link is None:
        raise no_tip_error(model)
    if args.external:
        tau_ext = tau
    else:
        # M qdd + C qd + g = tau - friction + J^T f_ext: J^T f_ext = M qdd + C qd + g - tau
        # + friction, tau converted as the node converts efforts (with --params)
        measured = effort_torques(params, model, tau) - compensated_friction(params, model, qd)
        tau_ext = np.asarray(model.inverse_dynamics(q, qd, qdd), dtype=float) - measured
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
        f"external joint torques J^T f: {fmt_vec(tau_ext, p)}",
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


def cmd_inverse_dynamics(run: Invocation) -> List[str]:
    """Joint torques of a motion, tau = M qdd + C qd + g (- J^T f_ext), and its terms.

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        CLIError: a bad vector; ``--frame`` needed with ``--f-ext`` on a tree without a tip.
        ParametersFileError: a bad ``--params`` file.
    """
    run, params = node_model(run)
    args, model, path, xml, bundled, out = run
    q = configuration(run)
    qd = parse_joint_vector(args.qd, model.joint_names, "--qd")
    qdd = parse_joint_vector(args.qdd, model.joint_names, "--qdd")
    f_ext = parse_fixed_vector(args.f_ext, 6, "--f-ext", WRENCH_AXES)
    frame = frame_option(args, model)
    if f_ext is not None and frame is None and model.tip_link is None:
        raise no_tip_error(model)
    friction = compensated_friction(params, model, qd)  # the node's feed-forward adds it
    tau = np.asarray(model.inverse_dynamics(q, qd, qdd, f_ext=f_ext, frame=frame), dtype=float)
    tau = tau + friction
    g = np.asarray(model.gravity_torques(q), dtype=float)
    h = np.asarray(model.nonlinear_effects(q, qd), dtype=float)
    free = np.asarray(model.inverse_dynamics(q, qd, qdd), dtype=float)  # without f_ext
    inertial = free - h  # M(q) qdd
    external = tau - friction - free  # -J^T f_ext (0 without --f-ext)
    with_friction = params is not None and params.values["friction_compensation"]
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
            "friction": friction.tolist() if with_friction else None,
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
        + (" + friction (friction_compensation of --params)" if with_friction else "")
        + " [N m or N]:",
        f"  {'joint':<{w}}  {'tau':>10}  {'M qdd':>10}  {'C qd':>10}  {'g':>10}"
        + (f"  {'-J^T f':>10}" if f_ext is not None else "")
        + (f"  {'friction':>10}" if with_friction else ""),
    ]
    for i, name in enumerate(model.joint_names):
        lines.append(
            f"  {name:<{w}}  {tau[i]:>10.{p}f}  {inertial[i]:>10.{p}f}  {h[i] - g[i]:>10.{p}f}"
            f"  {g[i]:>10.{p}f}"
            + (f"  {external[i]:>10.{p}f}" if f_ext is not None else "")
            + (f"  {friction[i]:>10.{p}f}" if with_friction else "")
        )
    return lines


def cmd_pose(run: Invocation) -> List[str]:
    """Forward kinematics: pose of each ``--frame`` (default: the tip; ``all``), base frame.

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        CLIError: an unknown frame; ``--frame`` is needed (the model has no tip link).
    """
    args, model, path, xml, bundled, out = run
    from scipy.spatial.transform import Rotation

    q = configuration(run)
    frames = list(args.frame) if args.frame else []
    if frames == ["all"]:
        frames = list(model.link_names)
    if not frames:
        if model.tip_link is None:
            raise no_tip_error(model)
        frames = [model.tip_link]
    for frame in frames:
        if frame not in model.link_names:
            raise CLIError(
                f"--frame: unknown frame {frame!r}; frames below {model.base_link}: "
                f"{', '.join(model.link_names)}"
            )
    poses = {}
    p = args.precision
    lines = [f"frame poses in {model.base_link} at q = {fmt_vec(q, 4)}:"]
    for frame in frames:
        pose = np.asarray(model.frame_pose(q, frame=frame), dtype=float)
        rot = Rotation.from_matrix(pose[:3, :3])
        quat = rot.as_quat()  # x y z w, as geometry_msgs/Quaternion
        with warnings.catch_warnings(record=True) as gimbal_lock:
            warnings.simplefilter("always")
            rpy = rot.as_euler("xyz")  # fixed axes x, then y, then z: URDF's rpy
        unique = not gimbal_lock  # at pitch +-90 deg scipy sets yaw to 0 (and warns)
        poses[frame] = {
            "position": pose[:3, 3].tolist(),
            "quaternion_xyzw": quat.tolist(),
            "rpy": rpy.tolist(),
            "rpy_unique": unique,
            "matrix": pose.tolist(),
        }
        lines += [
            f"  {frame}:",
            f"    position [m]        {fmt_vec(pose[:3, 3], p)}",
            f"    quaternion x y z w  {fmt_vec(quat, p)}",
            f"    rpy [rad]           {fmt_vec(rpy, p)}"
            + ("" if unique else "  (pitch +-90 deg: roll and yaw not unique, yaw given as 0)"),
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


def add_parsers(sub, common) -> None:
    """Register this module's commands on the CLI's subparsers (arguments: see
    :data:`~robot_dynamics.tools.cli.main.FAMILIES`)."""
    p = sub.add_parser("gravity", parents=[common], help="gravity torques g(q)")
    add_joint_vector(p, "--q", "joint positions [rad, m]")
    add_params_option(p)

    p = sub.add_parser("mass-matrix", parents=[common], help="joint-space mass matrix M(q)")
    add_joint_vector(p, "--q", "joint positions [rad, m]")
    add_params_option(p)

    p = sub.add_parser(
        "jacobian", parents=[common], help="Jacobian of a frame (rows vx vy vz wx wy wz)"
    )
    add_joint_vector(p, "--q", "joint positions [rad, m]")
    p.add_argument("--frame", default=None, help="link/frame name (default: the tip link)")
    p.add_argument(
        "--axes",
        choices=("base", "local"),
        default="base",
        help="express in base axes (default) or the frame's own axes",
    )

    p = sub.add_parser(
        "inverse-dynamics",
        parents=[common],
        help="joint torques tau = M qdd + C qd + g (- J^T f_ext) for a motion",
    )
    add_joint_vector(p, "--q", "joint positions [rad, m]")
    add_joint_vector(p, "--qd", "joint velocities")
    add_joint_vector(p, "--qdd", "joint accelerations")
    p.add_argument(
        "--f-ext",
        nargs=6,
        default=None,
        metavar=("FX", "FY", "FZ", "TX", "TY", "TZ"),
        help="wrench the environment applies on --frame [N, N m] (base axes, moment about the "
        "frame origin)",
    )
    p.add_argument("--frame", default=None, help="frame --f-ext acts on (default: the tip link)")
    add_params_option(p)

    p = sub.add_parser(
        "pose", parents=[common], help="forward kinematics: pose of frames in the base frame"
    )
    add_joint_vector(p, "--q", "joint positions [rad, m]")
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
    add_joint_vector(p, "--q", "joint positions [rad, m]")
    add_joint_vector(
        p,
        "--tau",
        "measured joint torques [N m] (with --params: the efforts, converted as the node converts "
        "them, and its friction compensation; with --external: the external joint torques)",
        default=None,
    )
    add_joint_vector(p, "--qd", "joint velocities")
    add_joint_vector(p, "--qdd", "joint accelerations")
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
        "--damping",
        type=number(0),
        default=1e-6,
        help="largest damping of the pseudo-inverse of J^T; it fades in as J's smallest singular "
        "value falls below 0.01 (near a singularity), exact above (default 1e-6)",
    )
    add_params_option(p)


COMMANDS = {
    "gravity": cmd_gravity,
    "mass-matrix": cmd_mass_matrix,
    "jacobian": cmd_jacobian,
    "inverse-dynamics": cmd_inverse_dynamics,
    "pose": cmd_pose,
    "wrench": cmd_wrench,
}
