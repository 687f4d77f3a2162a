"""The data options of ``robot-dynamics identify`` and ``identify-payload`` and their report: how
the recording is read (filter window chosen from the data or given, time window, effort scale and
offset, joints held or left out of the fit, the robot's cycle) and what data preparation found
(drops by column, stamps, repeats, gaps, the window choice, masks, held joints); see
:mod:`robot_dynamics.core.joint_data` and :mod:`robot_dynamics.tools.identification_data`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from robot_dynamics.core.filter_window import CANDIDATE_WINDOWS
from robot_dynamics.core.effort_measurement import (
    suggested_effort_scale,
)
from robot_dynamics.core.friction import FRICTION_TERMS
from robot_dynamics.core.rest import MIN_REST_TIME
from robot_dynamics.estimation.joint_names import renamed_joints
from robot_dynamics.tools.identification_data import STILL_SOURCE

from .arguments import number, parse_joint_vector
from .errors import CLIError
from .output import (
    effort_scale_text,
    named_warning,
    scale_advice,
    stale_gaps_text,
    stretches_text,
    velocity_field_warnings,
    zero_stamps_text,
)


def add_data_options(p):
    """The options that say how to read the recording.

    Args:
        p: the subcommand's ``ArgumentParser``.
    """
    windows = " ".join(f"{w:g}" for w in CANDIDATE_WINDOWS)
    p.add_argument(
        "--filter-window",
        type=number(0, above=True),
        default=None,
        metavar="S",
        help="Savitzky-Golay window for differentiation and smoothing [s] (default: chosen "
        f"from the data among {windows} s, by the validation torque error of the fit)",
    )
    p.add_argument(
        "--time-window",
        type=number(0),
        nargs=2,
        default=None,
        metavar=("START", "END"),
        help="use only this part of the recording [s from its start]",
    )
    for flag, what, default in (
        ("--effort-scale", "scale", "1"),
        ("--effort-offset", "offset [N m or N]", "0"),
    ):
        p.add_argument(
            flag,
            nargs="+",
            default=None,
            metavar="V",
            help=f"per joint: tau = effort_scale * effort + effort_offset, the {what} (the "
            f"dynamics node's parameter; n numbers in joint order, one for every joint, or "
            f"name=value pairs; default {default})",
        )
    p.add_argument(
        "--hold",
        nargs="+",
        default=None,
        metavar="JOINT=POS",
        help="hold a joint still at this position [rad or m], also one the recording carries "
        "(default for a joint the recording lacks: 0 when within its limits, else the middle "
        "of its range; one it carries without moving it is held where it stood)",
    )
    p.add_argument(
        "--ignore-effort",
        nargs="+",
        default=(),
        metavar="JOINT",
        help="leave these joints' efforts out of the fit (joints with no effort, or exactly 0 "
        "or constant, are left out anyway)",
    )
    p.add_argument(
        "--cycle",
        type=number(0, above=True),
        default=None,
        metavar="S",
        help="the robot's sample cycle [s] (default: fitted from the stamps)",
    )
    p.add_argument(
        "--keep-stamps",
        action="store_true",
        help="use the stamps as recorded (default: the robot's cycle when they only jitter "
        "around it)",
    )


def load_data(args, model, window_fit, *, holdout=0.0, rest=False):
    """The recording of ``args.data`` prepared as the data options say.

    Args:
        args: the parsed command line (``argparse.Namespace``).
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel`.
        window_fit: ``window_fit(CleanData) -> fit``, the fit that chooses the filter window
            when ``--filter-window`` is not given
            (:func:`~robot_dynamics.core.filter_window.choose_filter_window`).
        holdout: the recording's last fraction, kept out of that choice.
        rest: velocity and acceleration 0 where the arm is at rest.

    Returns:
        tuple: ``(JointData, hold_sources)`` of
        :func:`~robot_dynamics.tools.identification_data.load_identification_data`.

    Raises:
        CLIError: a bad ``--time-window``, ``--hold`` or effort conversion.
        IdentificationError: data that cannot be read or prepared.
    """
    from robot_dynamics.tools.identification_data import load_identification_data

    names = model.joint_names
    if args.time_window is not None and not args.time_window[0] < args.time_window[1]:
        raise CLIError(f"--time-window needs START < END, got {args.time_window}")
    scale = offset = None
    if args.effort_scale is not None:
        scale = parse_joint_vector(args.effort_scale, names, "--effort-scale", 1.0, True)
    if args.effort_offset is not None:
        offset = parse_joint_vector(args.effort_offset, names, "--effort-offset", 0.0, True)
    hold = {}
    if args.hold is not None:
        if not all("=" in tok for tok in args.hold):
            raise CLIError(f"--hold takes JOINT=POSITION pairs, got {args.hold}")
        values = parse_joint_vector(args.hold, names, "--hold", math.nan)
        hold = {name: float(v) for name, v in zip(names, values) if np.isfinite(v)}
    return load_identification_data(
        args.data,
        model,
        window_fit,
        topic=args.topic,
        filter_window=args.filter_window,
        holdout=holdout,
        rest=rest,
        hold=hold,
        time_window=args.time_window,
        effort_scale=scale,
        effort_offset=offset,
        ignore_effort=tuple(args.ignore_effort),
        cycle=args.cycle,
        keep_stamps=args.keep_stamps,
    )


def _ms(x):
    return f"{x * 1e3:.3g} ms" if x >= 1e-7 else "0 ms"


def rest_velocity_text(report):
    """The driver's velocity noise at rest, and the ``friction_rest_velocity`` it gives.

    Args:
        report: the :class:`~robot_dynamics.core.joint_data.DataReport`.

    Returns:
        str: one line.
    """
    seconds = report.rest_time
    if seconds < MIN_REST_TIME:
        return (
            f"velocities at rest: the arm stands still {seconds:.3g} s; {MIN_REST_TIME:g} s "
            "or more would set friction_rest_velocity"
        )
    noise = report.rest_velocity
    if noise is None:
        return "velocities at rest: none recorded; friction_rest_velocity not set"
    j = int(np.nanargmax(noise))
    found = (
        f"velocities at rest ({seconds:.3g} s): noise up to {noise[j]:.3g} "
        f"(joint {report.joint_names[j]})"
    )
    gate = report.rest_level
    if gate is None:
        return found + ": motion, not noise; friction_rest_velocity not set"
    return (
        found + f": friction_rest_velocity {gate:.3g} (no friction compensation while every "
        "joint is below it)"
    )


def data_report(data, hold_sources):
    """What data preparation found and did, as text lines and as a JSON-ready dict.

    Args:
        data: the :class:`~robot_dynamics.core.joint_data.JointData`.
        hold_sources: joint -> where its hold position comes from.

    Returns:
        tuple: ``(lines, dict)``.
    """
    r = data.report
    lines = [f"recording: {r.raw_samples} samples, {r.drop_text()}"]
    info = {
        "raw_samples": r.raw_samples,
        "drops": [{"reason": reason.format(n=c), "count": c} for reason, c in r.drops if c],
        "repeated_samples": r.repeated,
        "time_window": list(r.time_window) if r.time_window else None,
        "zero_stamps": r.zero_stamps,
        "unfollowed_velocities": [r.joint_names[j] for j, *_ in r.unfollowed_velocities],
        "unwrapped": dict(r.unwrapped),
        "rest_time": r.rest_time,
        "rest_velocity": None
        if r.rest_velocity is None
        else {j: float(v) for j, v in zip(r.joint_names, r.rest_velocity) if np.isfinite(v)},
    }
    if r.unwrapped:
        lines.append(
            "positions wrapped by whole turns (a driver reporting angles in (-pi, pi]), unwrapped "
            "before differentiating: "
            + ", ".join(f"{joint} ({wraps} wraps)" for joint, wraps in r.unwrapped)
        )
    if r.zero_stamps:
        lines.append(zero_stamps_text(r.zero_stamps))
    st = r.stamps
    split = f"{r.stretches} stretch" + ("es" if r.stretches != 1 else "")
    if st is not None:
        intervals = (
            f"intervals {_ms(st.interval_min)} to {_ms(st.interval_max)} "
            f"(median {_ms(st.interval_median)})"
        )
        if st.uniform:
            lines.append(
                f"stamps: {intervals}: jitter about a {st.cycle * 1e3:.6g} ms cycle "
                f"(RMS {_ms(st.jitter_rms)}, max {_ms(st.jitter_max)}); samples put on that cycle"
            )
            lines.append(
                f"gaps: {st.gaps} ({st.missing_cycles} cycles missing"
                + (f", longest {_ms(st.longest_gap)}" if st.gaps else "")
                + f"); {r.bridged} bridged, {split}"
            )
            if st.stale_gaps:
                lines.append(f"  {stale_gaps_text(st.stale_gaps, st.stale_cycles)}")
        else:
            lines.append(f"stamps: {intervals}, used as recorded: {st.note}; {split}")
        info["stamps"] = dataclasses.asdict(st)
    else:
        lines.append(f"stamps: used as recorded (--keep-stamps); {split}")
    info["gaps_bridged"] = r.bridged
    info["stretches"] = r.stretches
    if r.repeated:
        lines.append(
            f"repeated samples (identical to the previous one): {r.repeated} "
            f"({100.0 * r.repeated / max(r.raw_samples, 1):.1f} %), dropped"
        )
    choice = r.window_choice
    window = f"filter window {r.filter_window:.4g} s ({r.window_samples} samples)"
    if choice is not None:
        scores = ", ".join(
            f"{w:.3g} s: {s:.4g}" if np.isfinite(s) else f"{w:.3g} s: -"
            for w, s in zip(choice.candidates, choice.scores)
        )
        lines.append(
            f"{window}, chosen by the validation torque RMS (geometric mean over joints, on "
            f"the last {100 * choice.validation:.0f} % of the training data): {scores}"
        )
        info["window_choice"] = {
            "candidates": list(choice.candidates),
            "scores": [float(s) for s in choice.scores],
            "rms": [[float(v) for v in rms] for rms in choice.rms],
            "notes": list(choice.notes),
        }
    else:
        lines.append(f"{window}, fixed (--filter-window)")
    info["filter_window"] = r.filter_window
    info["stride"] = r.stride
    if r.stride > 1:
        lines.append(f"smoothed samples: 1 in {r.stride} kept ({data.rate:.4g} Hz)")
    info["at_rest"] = r.at_rest
    if r.at_rest is not None:
        lines.append(
            f"arm at rest (velocity and acceleration 0): {100.0 * r.at_rest:.1f} % of the samples"
        )
    names = r.joint_names
    if r.effort_scale is not None or r.effort_offset is not None:
        scale = np.ones(len(names)) if r.effort_scale is None else r.effort_scale
        offset = np.zeros(len(names)) if r.effort_offset is None else r.effort_offset
        lines.append(
            "torque = effort_scale * effort + effort_offset: "
            + ", ".join(
                f"{n} {a:g} e {'-' if b < 0 else '+'} {abs(b):g}"
                for n, a, b, m in zip(names, scale, offset, r.effort_mask)
                if m
            )
        )
        info["effort_scale"] = scale.tolist()
        info["effort_offset"] = offset.tolist()
    held = {j for j, _ in r.held}
    by_reason = {}
    for joint, reason in r.unmeasured:
        if joint not in held:
            by_reason.setdefault(reason, []).append(joint)
    for reason, joints in by_reason.items():
        lines.append(f"not fitted (no measured torque): {', '.join(joints)}: {reason}")
    info["effort_mask"] = list(r.effort_mask)
    info["unmeasured"] = [{"joint": j, "reason": why} for j, why in r.unmeasured]
    info["held"] = [
        {"joint": j, "position": pos, "source": hold_sources.get(j, "given")} for j, pos in r.held
    ]
    if r.held:
        lines.append(
            "held still: "
            + ", ".join(
                f"{j} at {pos:g} ({hold_sources.get(j, 'given')}"
                + (")" if j in r.still else ", not in the recording)")
                for j, pos in r.held
            )
        )
    if r.rest_time >= MIN_REST_TIME:
        lines.append(rest_velocity_text(r))
    return lines, info


def held_joint_warnings(model, held, hold_sources, unknown=()):
    """A warning per joint the recording does not carry whose hold position is a default (not
    ``--hold``): if it moved, the links it carries were fitted in the wrong pose; one per joint
    the recording carries without moving it (held where it stood); and one more when the
    recording's other joint names look like theirs (a prefix, a misspelling).

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        held: ``(joint, position)`` of the held joints (``JointData.report.held``).
        hold_sources: joint -> where its hold position comes from ("given" for ``--hold``).
        unknown: the recording's joints the model does not have (``JointData.extra_joints``).

    Returns:
        list: warning strings, ``joint-not-recorded: ...``, ``joint-still: ...`` and
        ``joint-names: ...``.
    """
    tree = model.tree
    warnings, warned = [], False
    for joint, pos in held:
        source = hold_sources.get(joint, "given")
        if source == "given":
            continue
        carried = np.flatnonzero(tree.ancestors[:, tree.body_of_joint[joint]])
        links = ", ".join(tree.body_link_names[b] for b in carried)
        if source == STILL_SOURCE:
            warnings.append(
                named_warning(
                    "joint-still",
                    f"{joint} does not move in the recording: held at {pos:g} where it stood, "
                    f"the links it carries ({links}) fitted as if fixed there; to identify "
                    f"them, move {joint} in the recording",
                )
            )
            continue
        warned = True
        warnings.append(
            named_warning(
                "joint-not-recorded",
                f"{joint} is not in the recording and was held at {pos:g} ({source}): if it "
                f"moved, the identification of the links it carries ({links}) is not "
                f"meaningful; record {joint}, or give the position it stood at with --hold "
                f"{joint}=POS",
            )
        )
    lacking = [joint for joint, _ in held if hold_sources.get(joint, "given") != STILL_SOURCE]
    hint = renamed_joints(lacking, unknown) if warned else ""
    if hint:
        warnings.append(
            named_warning("joint-names", f"the recording lacks joints the model has; {hint}")
        )
    return warnings


def velocity_warnings(names, unfollowed):
    """identify's ``velocity-field`` warning (:func:`~robot_dynamics.tools.cli.output.
    velocity_field_warnings`): the positions were differentiated instead."""
    return velocity_field_warnings(
        names,
        unfollowed,
        "identify differentiated the positions instead (all joints alike); the dynamics node "
        "estimates with the recorded velocities: publish the joints' real velocities before "
        "running it",
    )


def effort_scale_warnings(names, finding, scale_given):
    """A warning when the measured torques are far from the nominal model's in size, or a joint's
    are of the other sign (:func:`~robot_dynamics.core.effort_measurement.effort_scale_finding`):
    a driver reporting twice the torque would otherwise double every mass, and the wrench,
    without a word; a joint wired backwards spoils every joint's fit.

    Args:
        names: joint names, model order.
        finding: the :class:`~robot_dynamics.core.effort_measurement.EffortScaleFinding` of the
            nominal model's torques.
        scale_given: (n,) the ``--effort-scale`` given (or a parameters file's) [torque per unit
            of effort], or None.

    Returns:
        list: none or one warning string, ``effort-scale: ...``.
    """
    flipped = finding.other_sign
    per_joint = (
        "one per joint, negative for " + ", ".join(names[k] for k in flipped)
        if flipped
        else "one value for every joint, or one per joint"
    )
    scale = " ".join(f"{v:.4g}" for v in suggested_effort_scale(finding, scale_given))
    return effort_scale_text(
        names,
        finding,
        model="the nominal model's",
        given="with the given --effort-scale " if scale_given is not None else "",
        common_fix=lambda common: (
            " rather than the URDF's masses, whose errors differ joint by joint. The "
            "identified masses, and the node's wrench, scale with it. Give the torque per unit "
            f"of effort with --effort-scale ({per_joint}; the node's effort_scale): "
            + scale_advice(common)
        ),
        size_fix=". The identified masses scale with them. Give the torque per unit of effort "
        "with --effort-scale (the node's effort_scale): " + scale_advice(),
        sign_fix=", which the fit cannot follow: it spoils every joint's parameters and the "
        "node's wrench. Give a negative --effort-scale for "
        f"{'it' if len(flipped) == 1 else 'them'}: --effort-scale {scale} (the node's "
        "effort_scale)",
    )


def disturbance_warnings(names, t, stretches):
    """A warning naming the stretches of :func:`~robot_dynamics.core.disturbance.
    disturbed_stretches`, or none.

    Args:
        names: the names of the joints the stretches' peaks are of.
        t: (N,) sample times [s from the recording's start].
        stretches: ``(first, last, peak)`` entries.

    Returns:
        list: none or one warning string, ``disturbance: ...``.
    """
    if not stretches:
        return []
    timed = [(t[first], t[last], peak) for first, last, peak in stretches]
    return [
        named_warning(
            "disturbance",
            "torques the arm's own dynamics cannot explain at "
            f"{stretches_text(names, timed)} (times the robust standard deviation of a fit on "
            "the rest of the recording): something touched the arm or pulled on it (a push, a "
            "cable, a collision)? The fit takes those torques for the arm's dynamics: record "
            "without them, or identify from an undisturbed stretch (--time-window START END)",
        )
    ]


def nominal_friction_note(model):
    """Whether the nominal model's torques include the URDF's ``<dynamics>`` friction.

    Args:
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel`.

    Returns:
        str: a line for the report.
    """
    friction = model.friction
    nonzero = np.zeros(model.n, bool)
    for term in FRICTION_TERMS:
        values = getattr(friction, term)
        if values is not None:
            nonzero |= np.asarray(values) != 0.0
    with_friction = [name for name, on in zip(model.joint_names, nonzero) if on]
    if not with_friction:
        return "nominal: the URDF's inertials; it has no <dynamics> friction"
    return "nominal: the URDF's inertials and its <dynamics damping friction> on " + ", ".join(
        with_friction
    )


def prismatic_joints(model):
    """Which actuated joints are prismatic (their efforts are forces, N).

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.

    Returns:
        list: n booleans, model order.
    """
    from robot_dynamics.core.tree import PRISMATIC

    tree = model.tree
    body = tree.body_of_joint
    return [bool(tree.joint_type[body[name]] == PRISMATIC) for name in model.joint_names]


__all__ = [
    "add_data_options",
    "data_report",
    "rest_velocity_text",
    "effort_scale_warnings",
    "disturbance_warnings",
    "held_joint_warnings",
    "load_data",
    "nominal_friction_note",
    "prismatic_joints",
    "velocity_warnings",
]
