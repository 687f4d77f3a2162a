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
from robot_dynamics.core.friction import FRICTION_TERMS

from .arguments import parse_joint_vector
from .errors import CLIError


def add_data_options(p):
    """The options that say how to read the recording.

    Args:
        p: the subcommand's ``ArgumentParser``.
    """
    windows = " ".join(f"{w:g}" for w in CANDIDATE_WINDOWS)
    p.add_argument(
        "--filter-window",
        type=float,
        default=None,
        metavar="S",
        help="Savitzky-Golay window for differentiation and smoothing [s] (default: chosen "
        f"from the data among {windows} s, by the validation torque error of the fit)",
    )
    p.add_argument(
        "--time-window",
        type=float,
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
            f"dynamics node's parameter; n numbers in joint order, or name=value pairs; "
            f"default {default})",
        )
    p.add_argument(
        "--hold",
        nargs="+",
        default=None,
        metavar="JOINT=POS",
        help="position of a joint the recording does not carry [rad or m] (default: 0 when "
        "within its limits, else the middle of its range)",
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
        type=float,
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
        CLIError: a bad option value.
        IdentificationError: data that cannot be read or prepared.
    """
    from robot_dynamics.tools.identification_data import load_identification_data

    names = model.joint_names
    if args.filter_window is not None and not args.filter_window > 0:
        raise CLIError(f"--filter-window must be > 0, got {args.filter_window}")
    if args.cycle is not None and not args.cycle > 0:
        raise CLIError(f"--cycle must be > 0, got {args.cycle}")
    if args.time_window is not None and not args.time_window[0] < args.time_window[1]:
        raise CLIError(f"--time-window needs START < END, got {args.time_window}")
    scale = offset = None
    if args.effort_scale is not None:
        scale = parse_joint_vector(args.effort_scale, names, "--effort-scale", 1.0)
    if args.effort_offset is not None:
        offset = parse_joint_vector(args.effort_offset, names, "--effort-offset", 0.0)
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
    }
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
            "scores": [finite_or_none(s) for s in choice.scores],
            "rms": [[finite_or_none(v) for v in rms] for rms in choice.rms],
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
            "held still, not fitted (not in the recording): "
            + ", ".join(f"{j} at {pos:g} ({hold_sources.get(j, 'given')})" for j, pos in r.held)
        )
    return lines, info


def finite_or_none(x):
    """``float(x)``, or None for NaN or infinity (JSON has no NaN).

    Args:
        x: a number.

    Returns:
        float or None.
    """
    return float(x) if np.isfinite(x) else None


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
    body = {name: b for b, name in enumerate(tree.body_joint_names)}
    return [bool(tree.joint_type[body[name]] == PRISMATIC) for name in model.joint_names]


__all__ = [
    "add_data_options",
    "data_report",
    "finite_or_none",
    "load_data",
    "nominal_friction_note",
    "prismatic_joints",
]
