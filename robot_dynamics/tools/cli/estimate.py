"""``robot-dynamics estimate``: the dynamics node's estimation pipeline over a recording, offline.

    robot-dynamics estimate ROBOT DATA --out PREFIX [--params P ...] [--topic T]
        [--free START:END ...] [--margin 1.5] [--stamps auto|recorded|cycle] [--node-name N]
        [--json]

DATA is a ROS 2 bag (directory, .mcap, .db3) with ``sensor_msgs/JointState`` or a CSV file in
identify's convention; it is replayed message by message through the node's own
:class:`~robot_dynamics.estimation.EstimationPipeline`, configured from the node parameters
files ``--params`` (repeatable, a later file wins) exactly as the node configures it
(:mod:`robot_dynamics.tools.params_file`; without one the node's defaults; the common options
``--base-link``, ``--tip-link``, ``--gravity``, ``--balance-inertia`` override the files', as
``-p`` would). The stamps are put on the robot's cycle when they only jitter about one
(``--stamps auto``, as identify does: repeats dropped, gaps kept), used as recorded
(``recorded``) or must be (``cycle``). See
:mod:`robot_dynamics.tools.replay` for how messages and stamps reach the pipeline and
:mod:`robot_dynamics.tools.contact_levels` for the statistics and the suggested levels.

Writes ``PREFIX.csv`` (one row per message: time since the first stamp [s], the stamp [ns],
status, each joint's external torque, the wrench in ``wrench_frame``'s axes, ``|f|``, ``|n|``,
whether it is free, the contact state and link with the node's parameters and with the suggested
levels; empty cells where there is no estimate), ``PREFIX.png`` and ``PREFIX.contact.yaml``: the
suggested ``contact.*`` levels as a node parameters file, loaded after the node's own file
(``--params-file arm.yaml --params-file PREFIX.contact.yaml``: the later file wins). The
false-alarm rate printed is that of the levels as written: the recording replayed again through
the pipeline with them, the contacts that start in the free stretches counted.
"""

from __future__ import annotations

import csv
import math
import os
import time
from typing import List

import numpy as np

from robot_dynamics.core.effort_measurement import (
    constant_efforts_text,
    effort_scale_finding,
    nothing_measured,
)
from robot_dynamics.core.errors import InvalidInputError
from robot_dynamics.core.estimation import WRENCH_COMPONENTS
from robot_dynamics.core.recorded_motion import (
    periodic_joints,
    unfollowed_velocities,
)
from robot_dynamics.core.tip import no_tip_reason
from robot_dynamics.estimation.joint_names import missing_joints_hint
from robot_dynamics.tools import contact_levels as CL
from robot_dynamics.tools.params_file import parameters_yaml, read_parameters_files

from .arguments import Invocation, number, output_paths
from .errors import EXIT_USAGE, CLIError
from .estimate_findings import (
    disturbance_warnings,
    effort_scale_warnings,
    recorded_rest_velocity,
    rest_velocity_warnings,
    torque_ratios,
    velocity_warnings,
)
from .node_params import add_params_option, node_parameters
from .output import (
    named_warning,
    stale_gaps_text,
    zero_stamps_text,
)

SIGNIFICANT = 3  # digits of the written levels


def add_parsers(sub, common):
    """Register the ``estimate`` subcommand (arguments: see
    :data:`~robot_dynamics.tools.cli.main.FAMILIES`)."""
    p = sub.add_parser(
        "estimate",
        parents=[common],
        help="the dynamics node's estimation pipeline over a recording (bag or CSV): external "
        "torques, wrench, contact, phantom statistics, suggested contact levels",
    )
    p.add_argument("data", metavar="DATA", help="ROS 2 bag (directory, .mcap, .db3) or .csv file")
    p.add_argument(
        "--out", required=True, metavar="PREFIX", help="writes PREFIX.csv/.png/.contact.yaml"
    )
    add_params_option(p)
    p.add_argument(
        "--topic", default="/joint_states", help="JointState topic of a bag (default /joint_states)"
    )
    p.add_argument(
        "--free",
        action="append",
        default=None,
        metavar="START:END",
        help="time range [s since the first stamp] where nothing touches the arm (repeatable; "
        "either side may be empty); default: the whole recording",
    )
    p.add_argument(
        "--stamps",
        choices=("auto", "recorded", "cycle"),
        default="auto",
        help="auto (default): when the stamps only jitter about the robot's cycle (a logging "
        "PC's), replay on that cycle, repeated samples dropped, gaps kept; recorded: the stamps "
        "as they are; cycle: on the cycle, or an error when the stamps have none",
    )
    p.add_argument(
        "--margin",
        type=number(1, above=True),
        default=1.5,
        help="suggested levels: this factor over the free residual's (default 1.5)",
    )


def _round_up(x, digits=SIGNIFICANT):
    if x <= 0 or not math.isfinite(x):
        return x
    scale = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return float(f"{math.ceil(x / scale - 1e-9) * scale:.{digits}g}")


def rounded_levels(levels):
    """Levels rounded up to SIGNIFICANT digits, release levels at most the start levels.

    Args:
        levels: parameter name -> value or list.

    Returns:
        dict: the rounded levels.
    """
    out = {}
    for name, value in levels.items():
        out[name] = [_round_up(v) for v in value] if isinstance(value, list) else _round_up(value)
    out["contact.torque_off"] = [
        min(a, b) for a, b in zip(out["contact.torque_off"], out["contact.torque_on"])
    ]
    for key in ("force", "moment"):
        if f"contact.{key}_off" in out:
            out[f"contact.{key}_off"] = min(out[f"contact.{key}_off"], out[f"contact.{key}_on"])
    return out


def cmd_estimate(run: Invocation) -> List[str]:
    """Replay DATA through the node's pipeline; write the CSV, plot and levels; summarise.

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        InvalidInputError: bad ``--free`` or ``--margin``, no estimate in the free ranges, no
            joint's effort a measurement (exactly 0 for every joint in every message).
        ParametersFileError: a bad parameters file.
        CLIError: an unreadable recording, or one without a velocity for a joint it gives
            positions (exit 2).
    """
    from robot_dynamics.core.joint_data import DataError
    from robot_dynamics.tools.replay import (
        STATUS_NAMES,
        no_velocity_text,
        recording_source,
        replay,
        stamp_handling,
    )

    args, model, path, xml, out = run.args, run.model, run.path, run.xml, run.out
    started = time.perf_counter()
    files = output_files(args)
    windows = [CL.parse_window(w) for w in args.free or []]
    from_files = read_parameters_files(args.params or [], node=args.node_name)
    params = node_parameters(args, model, from_files)
    _, node_model = params.build_model(xml)
    pipeline = params.pipeline(node_model)
    try:
        recorded = recording_source(args.data, node_model.joint_names, args.topic)
        stamps = stamp_handling(recorded(), node_model.joint_names, args.stamps)
        if stamps.no_velocity:
            data = str(args.data)
            label = f"CSV {data!r}" if data.lower().endswith(".csv") else f"bag {data!r}"
            n = len(node_model.joint_names)
            raise DataError(no_velocity_text(label, stamps.no_velocity, n))

        def source():
            return stamps.apply(recorded())

        first = replay(pipeline, source())
    except DataError as error:
        raise CLIError(str(error), EXIT_USAGE) from None
    t = first.time
    free = CL.free_mask(t, windows)
    if not (free & first.estimated).any():
        where = "in the --free ranges" if windows else "in the recording"
        hint = missing_joints_hint(
            first.missing_joints, first.unknown_joints, len(node_model.joint_names)
        )
        raise InvalidInputError(
            f"no message with an estimate {where} ({_pause_text(first)}); nothing to summarise"
            + (f"; {hint}" if hint else "")
        )
    if nothing_measured(first.constant_efforts, len(first.joint_names)):
        raise InvalidInputError(
            constant_efforts_text(first.constant_efforts, len(first.joint_names))
            + "; nothing to estimate: record with the driver's effort interface on and the arm "
            "powered"
        )
    warnings = out.setdefault("warnings", [])
    if node_model.tip_link is None:
        warnings.append(
            named_warning(
                "no-wrench",
                f"{no_tip_reason(node_model.tree)}: no wrench is estimated (the external joint "
                "torques are); give --tip-link LINK or tip_link in a --params file",
            )
        )
    finding = effort_scale_finding(
        torque_ratios(first, params.values["friction_velocity_threshold"])
    )
    scale_set = params.values["effort_scale"] if "effort_scale" in from_files.given else None
    warnings += effort_scale_warnings(first.joint_names, finding, scale_set)
    estimated = first.estimated
    unfollowed = unfollowed_velocities(
        first.time[estimated],
        first.position[estimated],
        first.velocity[estimated],
        periodic=periodic_joints(node_model),
    )
    warnings += velocity_warnings(first.joint_names, unfollowed)
    duration = CL.free_duration(t, windows)
    phantom = CL.phantom_statistics(first, free)
    disturbed = CL.outlying_free_stretches(first, free, node_model.friction)
    warnings += disturbance_warnings(first.joint_names, disturbed, bool(windows))
    rest_noise, rest_time = recorded_rest_velocity(first)
    warnings += rest_velocity_warnings(first.joint_names, rest_noise, rest_time, params.values)
    min_duration = float(params.values["contact.min_duration"])
    levels, basis = CL.suggest_levels(first, free, min_duration, margin=args.margin)
    levels = rounded_levels(levels)
    levels["contact.min_duration"] = min_duration
    checked = params.with_values(levels, source="the suggested levels")
    second = replay(checked.pipeline(node_model), source())
    alarms = CL.false_alarms(second, free, duration)

    write_csv(files[0], first, second, free)
    from robot_dynamics.tools.plotting import plot_estimate

    plot_estimate(
        files[1],
        t=t,
        external_torques=first.external_torques,
        wrench=first.wrench,
        components=first.wrench_components,
        frame=first.wrench_frame,
        free=free,
        contact=first.in_contact,
        suggested_contact=second.in_contact,
        levels=levels,
        joint_names=first.joint_names,
        title=f"{os.path.basename(str(args.data))}: the dynamics node's estimate ({path})",
    )
    with open(files[2], "w") as f:
        f.write(fragment_text(levels, args, params, alarms, duration, windows))

    counts = first.status_counts
    out.update(
        {
            "robot": path,
            "data": str(args.data),
            "parameters": params.source(),
            "parameters_set": sorted(from_files.given),
            "joint_names": list(first.joint_names),
            "wrench_frame": first.wrench_frame,
            "wrench_components": list(first.wrench_components),
            "messages": int(first.stamp_ns.size),
            "duration": float(t[-1]) if t.size else 0.0,
            "stamps": stamps.as_dict(),
            "estimated": int(first.estimated.sum()),
            "status": {name: int((first.status == k).sum()) for k, name in enumerate(STATUS_NAMES)},
            "pipeline": {
                key: counts[key]
                for key in (
                    "refused",
                    "estimation_paused",
                    "observer_restarts",
                    "stamps_backwards",
                    "stamps_repeated",
                    "stamp_gaps",
                    "skipped_messages",
                    "stamp_jumps",
                    "singular_warnings",
                )
            },
            "refusals": first.refusals,
            "pauses": first.pauses,
            "unknown_joints": list(first.unknown_joints),
            "constant_efforts": dict(first.constant_efforts),
            "model_torque_ratio": [float(x) for x in finding.ratios],
            "unfollowed_velocities": [first.joint_names[j] for j, *_ in unfollowed],
            "rest_time": rest_time,
            "rest_velocity": None
            if rest_noise is None
            else {j: float(v) for j, v in zip(first.joint_names, rest_noise)},
            "contacts": int(first.contact_onsets.sum()) if (first.in_contact >= 0).any() else None,
            "free": {
                "windows": [[a, b] for a, b in windows] or None,
                "duration": duration,
                "samples": phantom["samples"],
            },
            "phantom": phantom,
            "disturbed": [[start, end] for start, end, _ in disturbed],
            "suggested": {
                "margin": args.margin,
                "levels": levels,
                "basis": basis,
                "false_alarms": alarms,
            },
            "files": files,
            "seconds": time.perf_counter() - started,
        }
    )
    return summary_lines(out, args)


def output_files(args):
    """The files ``--out PREFIX`` names, none of them an input; their folder is created.

    Args:
        args: the parsed command line (out, data, params).

    Returns:
        list: ``[PREFIX.csv, PREFIX.png, PREFIX.contact.yaml]``.

    Raises:
        CLIError: an output would overwrite an input, or cannot be written there (exit 2).
    """
    files = [args.out + suffix for suffix in (".csv", ".png", ".contact.yaml")]
    return output_paths("--out", files, [str(args.data), *(args.params or [])])


def _pause_text(replay_):
    reasons = sorted(replay_.pauses.items(), key=lambda kv: -kv[1])[:2]
    refusals = sorted(replay_.refusals.items(), key=lambda kv: -kv[1])[:2]
    parts = [f"paused {n}: {r}" for r, n in reasons] + [f"refused {n}: {r}" for r, n in refusals]
    return "; ".join(parts) or "no message"


def fragment_text(levels, args, params, alarms, duration, windows):
    """The suggested levels as a node parameters file.

    Args:
        levels: parameter name -> value.
        args: the parsed command line (data, margin, out).
        params: the NodeParameters of the run.
        alarms: :func:`~robot_dynamics.tools.contact_levels.false_alarms` of the levels.
        duration: free duration [s].
        windows: the free ranges.

    Returns:
        str: the YAML text.
    """
    free = ", ".join(_window_text(w) for w in windows) if windows else "the whole recording"
    comments = [
        f"Contact levels suggested by robot-dynamics estimate from {args.data}",
        f"(free: {free}; margin {args.margin} over the free residual; parameters: "
        f"{params.source()}).",
        f"On that recording: {alarms['count']} false contact(s) in {duration:.1f} s free "
        f"({alarms['per_minute']:.2f} per minute, in contact "
        f"{100 * alarms['time_in_contact']:.1f} % of the free time), {alarms['elsewhere']} "
        "contact(s) outside the free time.",
        "Load after the node's parameters file (the later file wins):",
        "  --ros-args "
        + "".join(f"--params-file {p} " for p in args.params or ["PARAMS"])
        + f"--params-file {args.out}.contact.yaml",
    ]
    return parameters_yaml(levels, comments=comments)


def _window_text(window):
    a, b = window
    return f"{'' if math.isinf(a) else f'{a:g}'}:{'' if math.isinf(b) else f'{b:g}'} s"


def _fmt(x):
    return "" if not math.isfinite(x) else f"{x:.6g}"


def write_csv(path, first, second, free):
    """The per-message CSV (see the module docstring).

    Args:
        path: the file.
        first: the replay with the node's parameters.
        second: the replay with the suggested levels.
        free: (k,) bool.
    """
    from robot_dynamics.tools.replay import STATUS_NAMES

    names = first.joint_names
    estimated = set(first.wrench_components) if first.wrench_frame else set()
    axes = [a for a in WRENCH_COMPONENTS if a in estimated]
    header = (
        ["time", "stamp_ns", "status"]
        + [f"{j}.external_torque" for j in names]
        + [f"wrench.{a}" for a in axes]
        + (["force"] if any(a in estimated for a in WRENCH_COMPONENTS[:3]) else [])
        + (["moment"] if any(a in estimated for a in WRENCH_COMPONENTS[3:]) else [])
        + ["free", "in_contact", "contact_link", "in_contact_suggested", "contact_link_suggested"]
    )
    t = first.time
    cols = [WRENCH_COMPONENTS.index(a) for a in axes]
    force = np.linalg.norm(first.wrench[:, :3], axis=1)
    moment = np.linalg.norm(first.wrench[:, 3:], axis=1)
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for k in range(t.size):
            row = [f"{t[k]:.9f}", str(int(first.stamp_ns[k])), STATUS_NAMES[first.status[k]]]
            row += [_fmt(v) for v in first.external_torques[k]]
            row += [_fmt(first.wrench[k, c]) for c in cols]
            if "force" in header:
                row.append(_fmt(force[k]))
            if "moment" in header:
                row.append(_fmt(moment[k]))
            row.append("1" if free[k] else "0")
            for r in (first, second):
                state = int(r.in_contact[k])
                row += ["" if state < 0 else str(state), r.contact_link[k]]
            writer.writerow(row)


def _stats_row(label, s, unit=""):
    return f"  {label:<16} {s['rms']:>9.4g} {s['p95']:>9.4g} {s['max']:>9.4g} {s['mean']:>9.4g}" + (
        f"  {unit}" if unit else ""
    )


def _ms(x):
    return f"{x * 1e3:.3g} ms" if x >= 1e-7 else "0 ms"


def _stamp_lines(stamps):
    r = stamps["report"]
    intervals = (
        f"intervals {_ms(r['interval_min'])} to {_ms(r['interval_max'])} "
        f"(median {_ms(r['interval_median'])})"
    )
    if stamps["receive_times"]:
        intervals = "no message stamped, the times they were recorded: " + intervals
    before = [f"  {zero_stamps_text(stamps['zero_stamps'])}"] if stamps["zero_stamps"] else []
    if not r["uniform"]:
        return before + [f"  stamps: {intervals}; replayed as recorded: {stamps['note']}"]
    found = (
        f"  stamps: {intervals}: jitter about a {r['cycle'] * 1e3:.6g} ms cycle (RMS "
        f"{_ms(r['jitter_rms'])}, max {_ms(r['jitter_max'])}); {r['late_samples']} stamps more "
        f"than half a cycle late ({r['stalls']} logger stalls), {r['gaps']} gaps "
        f"({r['missing_cycles']} cycles missing), {stamps['repeated']} repeated samples"
    )
    lines = before + [found]
    if r["stale_gaps"]:
        lines.append(f"  {stale_gaps_text(r['stale_gaps'], r['stale_cycles'])}")
    if stamps["on_cycle"]:
        lines.append(
            f"  replayed on that cycle, {stamps['repeats_dropped']} repeats dropped, gaps kept "
            "(the robot's own timing, as a driver stamping its cycle gives the node; a node "
            "given these stamps as they are computes --stamps recorded)"
        )
    else:
        lines.append(f"  replayed as recorded (--stamps {stamps['mode']}): {stamps['note']}")
    return lines


def summary_lines(out, args):
    """The human summary of :func:`cmd_estimate`.

    Args:
        out: the filled JSON dict.
        args: the parsed command line.

    Returns:
        list: the lines.
    """
    p = out["pipeline"]
    status = out["status"]
    frame = out["wrench_frame"]
    lines = [
        f"estimate: {out['data']}: {out['messages']} messages"
        + (
            f" ({out['stamps']['repeats_dropped']} repeated samples dropped)"
            if out["stamps"]["repeats_dropped"]
            else ""
        )
        + f" over {out['duration']:.3f} s; "
        f"estimated {status['estimated']}, paused {status['paused']}, refused "
        f"{status['refused']}",
        *_stamp_lines(out["stamps"]),
        f"  pipeline: stamps {p['stamps_repeated']} repeated, {p['stamp_gaps']} gaps "
        f"({p['skipped_messages']} messages' worth), {p['stamp_jumps']} beyond "
        f"observer_max_dt, {p['stamps_backwards']} backwards; observer restarts "
        f"{p['observer_restarts']}",
        f"  parameters: {out['parameters']}"
        + (f" ({len(out['parameters_set'])} set)" if args.params else "")
        + (
            f"; wrench at {frame} ({frame} axes), components {' '.join(out['wrench_components'])}"
            if frame
            else "; no wrench (no tip link)"
        ),
    ]
    if p["singular_warnings"]:
        lines.append(
            f"  near a singularity in {p['singular_warnings']} messages: the wrench there is "
            "damped along its weakest directions, its phantom largest (the node warns there)"
        )
    for reason, count in sorted(out["pauses"].items(), key=lambda kv: -kv[1])[:3]:
        lines.append(f"  paused {count}: {reason}")
    for reason, count in sorted(out["refusals"].items(), key=lambda kv: -kv[1])[:3]:
        lines.append(f"  refused {count}: {reason}")
    if out["unknown_joints"]:
        lines.append(f"  joints the model does not have (ignored): {out['unknown_joints']}")
    if out["constant_efforts"]:
        constant = out["constant_efforts"].items()
        lines.append("  " + constant_efforts_text(constant, len(out["joint_names"])))
    if out["contacts"] is not None:
        lines.append(f"  contacts with the node's levels: {out['contacts']}")
    free = out["free"]
    where = (
        ", ".join(_window_text(w) for w in free["windows"])
        if free["windows"]
        else "the whole recording"
    )
    phantom = out["phantom"]
    lines += [
        "",
        f"phantom estimate where nothing touches the arm ({where}: {free['samples']} messages, "
        f"{free['duration']:.2f} s):",
        f"  {'':<16} {'rms':>9} {'p95':>9} {'max':>9} {'mean':>9}",
    ]
    for key, unit in (("force", "N"), ("moment", "N m")):
        if key in phantom:
            lines.append(_stats_row("|f|" if key == "force" else "|n|", phantom[key], unit))
            for c, s in phantom[key]["components"].items():
                lines.append(_stats_row(f"  {c}", s))
    for name, s in phantom["joints"].items():
        lines.append(_stats_row(name, s, "N m or N"))
    suggested = out["suggested"]
    levels = suggested["levels"]
    alarms = suggested["false_alarms"]
    lines += [
        "",
        f"suggested contact levels (margin {suggested['margin']} over the free residual; "
        f"contact.min_duration {levels['contact.min_duration']} s):",
        f"  {'':<16} {'on':>9} {'off':>9}",
    ]
    for j, name in enumerate(out["joint_names"]):
        lines.append(
            f"  {name:<16} {levels['contact.torque_on'][j]:>9.4g} "
            f"{levels['contact.torque_off'][j]:>9.4g}"
        )
    for key, unit in (("force", "N"), ("moment", "N m")):
        if f"contact.{key}_on" in levels:
            lines.append(
                f"  {('|f|' if key == 'force' else '|n|') + ' [' + unit + ']':<16} "
                f"{levels[f'contact.{key}_on']:>9.4g} "
                f"{levels[f'contact.{key}_off']:>9.4g}"
            )
    lines += [
        f"  on this recording: {alarms['count']} false contact(s) in {free['duration']:.1f} s "
        f"free ({alarms['per_minute']:.2f} per minute, in contact "
        f"{100 * alarms['time_in_contact']:.1f} % of the free time); {alarms['elsewhere']} "
        "contact(s) outside the free time",
        "",
        f"wrote {out['files'][0]} (per message), {out['files'][1]}, {out['files'][2]} "
        f"(--params-file) in {out['seconds']:.1f} s",
    ]
    return lines


COMMANDS = {"estimate": cmd_estimate}

__all__ = ["COMMANDS", "add_parsers", "cmd_estimate", "rounded_levels"]
