"""Human and JSON output of the ``robot-dynamics`` commands."""

from __future__ import annotations

import json
import math
import os
import sys
from typing import Dict, List, Sequence

import numpy as np

from robot_dynamics.core.effort_measurement import SCALE_FACTOR, other_sign_text, unjudged_text
from robot_dynamics.core.recorded_motion import unfollowed_text


def stale_gaps_text(stale_gaps: int, stale_cycles: int) -> str:
    """The gaps a logger filled with repeats (:class:`~robot_dynamics.core.stamps.StampReport`'s
    ``stale_gaps``, ``stale_cycles``), for the stamp reports of ``identify`` and ``estimate``."""
    return (
        f"of the gaps, {stale_gaps} ({stale_cycles} cycles) are cycles the logger wrote as a "
        "repeat of the previous sample (their own samples lost)"
    )


def zero_stamps_text(count: int) -> str:
    """The messages stamped 0 among stamped ones, left out
    (:func:`~robot_dynamics.tools.identification_data.recording_times`), for the reports of
    ``identify`` and ``estimate``."""
    return (
        f"stamped 0 among stamped messages: {count} message(s), left out (a driver publishing "
        "before its clock ran, as a simulation before /clock arrives)"
    )


def stretches_text(names: Sequence[str], stretches, shown: int = 3) -> str:
    """Stretches of a recording where torques stand out, for the ``disturbance`` warnings of
    ``identify`` and ``estimate``: ``"6.06-9.01 s (joint_a x37, joint_b x12); ... and 2 more"``.

    Args:
        names: the names of the joints the peaks are of.
        stretches: ``(start, end, peak)`` entries: seconds from the recording's start and (m,)
            each joint's largest value there in robust standard deviations.
        shown: stretches named at most.
    """
    texts = []
    for start, end, peak in stretches[:shown]:
        worst = ", ".join(f"{names[j]} x{peak[j]:.0f}" for j in np.argsort(-peak)[:3])
        texts.append(f"{start:.2f}-{end:.2f} s ({worst})")
    more = f" and {len(stretches) - shown} more" if len(stretches) > shown else ""
    return "; ".join(texts) + more


#: The named warnings of the recording commands (``warning: <name>: ...`` on stderr, the strings
#: of ``--json``'s ``warnings``, ``# warning:`` lines atop a written parameters file), each
#: documented in docs/identification.md. The payload ones are written by
#: :mod:`robot_dynamics.core.payload`, which the service shares.
WARNING_NAMES = {
    "effort-scale": "the measured torques are not the model's in size or sign",
    "velocity-field": "recorded velocities stay 0 or do not follow the positions",
    "disturbance": "stretches something touched the arm in, or the model is wrong in",
    "velocity-noise": "velocities at rest beyond friction_rest_velocity, the friction compensated",
    "no-wrench": "no tip link: no wrench is estimated",
    "joint-still": "a joint does not move in the recording",
    "joint-not-recorded": "a model joint is not in the recording",
    "joint-names": "the recording names the model's joints otherwise",
    "payload-inconsistent": "the identified payload is not physically consistent",
    "payload-at-rest": "most samples at rest with motor-side efforts",
}


def named_warning(name: str, text: str) -> str:
    """A named warning's string, ``<name>: <text>``.

    Args:
        name: a key of :data:`WARNING_NAMES`.
        text: what is odd, what follows and the fix.

    Returns:
        str: the warning.

    Raises:
        KeyError: a name not in :data:`WARNING_NAMES` (declare and document it first).
    """
    WARNING_NAMES[name]
    return f"{name}: {text}"


def scale_advice(ratio=None):
    """Where the torque per unit of effort comes from, for the ``effort-scale`` warning's fix:
    the drives' constants, which the measured ratio only checks.

    Args:
        ratio: the common ratio of the measured to the model's torques, or None (per joint).

    Returns:
        str: the words.
    """
    about = "" if ratio is None else f", about {1.0 / ratio:.3g},"
    return (
        "the drives' torque per unit of effort (gear ratio x motor torque constant, from the "
        f"driver or its datasheet); 1 / the ratio{about} only checks it: the ratio is measured "
        "against the URDF's torques, off by the URDF's errors"
    )


def effort_scale_text(names, finding, *, model, given, common_fix, size_fix, sign_fix):
    """The ``effort-scale`` warning of identify and estimate, or none: a sentence each for a
    common scale, joints out of size and joints of the other sign
    (:func:`~robot_dynamics.core.effort_measurement.effort_scale_finding`), and the joints
    judged neither way; each command says what follows and the fix.

    Args:
        names: joint names, model order.
        finding: the :class:`~robot_dynamics.core.effort_measurement.EffortScaleFinding`.
        model: whose torques the measured ones were compared with ("the model's").
        given: "" or the words saying a scale was given, ending in a space.
        common_fix: (common scale) -> the rest of the common-scale sentence.
        size_fix: the rest of the out-of-size sentence.
        sign_fix: the rest of the other-sign sentence.

    Returns:
        list: none or one warning string, ``effort-scale: ...``.
    """
    if not finding.found:
        return []
    ratios, flipped = finding.ratios, set(finding.other_sign)
    sentences = []
    if finding.common is not None:
        joints = ", ".join(
            f"{names[k]} x{r:.3g}"
            for k, r in enumerate(ratios)
            if np.isfinite(r) and k not in flipped
        )
        sentences.append(
            f"the measured torques {given}are {model} times one scale, about "
            f"x{finding.common:.3g} ({joints}): a driver's unit (motor currents, twice the "
            f"torque?){common_fix(finding.common)}"
        )
    elif finding.bad:
        sentences.append(
            f"the measured torques {given}are not {model} in size: "
            + ", ".join(f"{names[k]} x{ratios[k]:.3g}" for k in finding.bad)
            + f" (least-squares scale of the measured on {model} torques, friction and offset "
            f"fitted alongside; expected within 1/{SCALE_FACTOR:g} to {SCALE_FACTOR:g}): "
            f"efforts in another unit (motor currents?){size_fix}"
        )
    if flipped:
        sentences.append(
            f"the measured torques of {other_sign_text(names, finding)} {given}are {model} "
            f"with the other sign ({model} torques negated fit them, friction and offset "
            "fitted alongside): an effort of the other sign, from a joint wired backwards or a "
            f"driver's sign convention{sign_fix}"
        )
    if finding.unjudged:
        sentences.append(unjudged_text(names, finding, model))
    return [named_warning("effort-scale", "; ".join(sentences))]


def velocity_field_warnings(names: Sequence[str], unfollowed, fix: str) -> List[str]:
    """A warning naming the joints whose recorded velocities stay 0 or do not follow their
    positions while they move, for ``identify`` and ``estimate``.

    Args:
        names: joint names, model order.
        unfollowed: entries of
            :func:`~robot_dynamics.core.recorded_motion.unfollowed_velocities`.
        fix: what the command did or the user does about it.

    Returns:
        list: none or one warning string, ``velocity-field: ...``.
    """
    if not unfollowed:
        return []
    return [named_warning("velocity-field", f"{unfollowed_text(names, unfollowed)} {fix}")]


def fmt_vec(values, precision: int) -> str:
    return "[" + ", ".join(f"{v: .{precision}f}" for v in np.asarray(values, dtype=float)) + "]"


def fmt_matrix(mat, row_labels, col_labels, precision: int) -> List[str]:
    mat = np.asarray(mat, dtype=float)
    width = max(precision + 7, max((len(c) for c in col_labels), default=0) + 1)
    label_w = max(len(r) for r in row_labels)
    lines = [" " * label_w + " " + "".join(f"{c:>{width}}" for c in col_labels)]
    for label, row in zip(row_labels, mat):
        lines.append(f"{label:<{label_w}} " + "".join(f"{v:>{width}.{precision}f}" for v in row))
    return lines


def short_names(names: Sequence[str]) -> List[str]:
    """Joint names shortened for column headers (common prefix dropped)."""
    names = list(names)
    if len(names) < 2:
        return names
    prefix = os.path.commonprefix(names)
    if prefix and all(len(n) > len(prefix) for n in names):
        return [n[len(prefix) :] if len(prefix) > 2 else n for n in names]
    return names


def _json_safe(value):
    """``value`` with every float that is not finite as None (JSON has no NaN or infinity: a
    missing limit, a statistic of no samples)."""
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def json_text(out: Dict) -> str:
    """The ``--json`` document of a command: ``out`` as strict JSON (RFC 8259), a number that is
    not finite written as ``null``; indented unless ``ROBOT_DYNAMICS_JSON_COMPACT`` is set.

    Args:
        out: the command's result (dicts, lists, strings, numbers, booleans, None).

    Returns:
        str: the JSON text.
    """
    indent = None if os.environ.get("ROBOT_DYNAMICS_JSON_COMPACT") else 2
    return json.dumps(_json_safe(out), indent=indent, allow_nan=False)


def fail(message: str, code: int, as_json: bool, out: Dict) -> int:
    print(f"robot-dynamics: error: {message}", file=sys.stderr)
    if as_json:
        print(
            json.dumps(
                {"ok": False, "command": out.get("command"), "error": message, "exit_code": code}
            )
        )
    return code
