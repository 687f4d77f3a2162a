"""What the estimate shows where nothing touches the arm, and the contact levels it supports.

Given a :class:`~robot_dynamics.tools.replay.Replay` and the stretches of the recording where
nothing touches the arm ("free": the whole recording, or time ranges):

- :func:`phantom_statistics`: RMS, 95th percentile and maximum of ``|f|`` and ``|n|`` of the
  estimated wrench and of each estimated component, and of each joint's external torque, over
  the free messages that have an estimate. RMS is ``sqrt(mean(x^2))`` (the bias included),
  p95 and max are of ``|x|``; ``mean`` is the signed mean (the bias alone).
- :func:`outlying_free_stretches`: where the free residual stands out from the rest of it
  (something touching the arm in what was taken as free motion).
- :func:`suggest_levels`: contact levels for the node's ``contact.*`` parameters, per joint on
  ``|tau_ext_j|`` and on ``|f|`` and ``|n|``. The node's detector switches on when some level
  is exceeded at every message for ``contact.min_duration`` and off when none is for as long.
  The highest level the free residual exceeded for that long (its "sustained peak": the
  largest, over the free messages, of the smallest value in the messages of the last
  ``min_duration``) is the level that would just have switched on in free motion; the levels
  are those peaks, scaled together so that the signals ORed as the detector ORs them stay
  below too, times ``margin``. The release levels come from the 95th percentile of the largest
  values over ``min_duration`` windows, the same way (at most the start levels).

The false-alarm rate of the suggested levels is not computed here: the caller replays the
recording through the node's pipeline with them (the detector as the node runs it) and counts
the contacts that start in the free stretches (:func:`false_alarms`).
"""

from __future__ import annotations

import numpy as np

from robot_dynamics.core.disturbance import outlying_stretches
from robot_dynamics.core.errors import InvalidInputError
from robot_dynamics.core.estimation import WRENCH_COMPONENTS
from robot_dynamics.core.runs import true_runs

#: Smallest suggested level [N m, N, N m] (levels must be > 0).
MIN_LEVEL = 1e-6
FORCE, MOMENT = WRENCH_COMPONENTS[:3], WRENCH_COMPONENTS[3:]


def parse_window(text):
    """A ``--free`` time range.

    Args:
        text: ``START:END`` seconds since the recording's first stamp; either may be empty
            (from the start, to the end).

    Returns:
        tuple: ``(start, end)`` floats (-inf / inf for an empty side).

    Raises:
        InvalidInputError: not two numbers, not finite, or start >= end.
    """
    start, sep, end = str(text).partition(":")
    if not sep:
        raise InvalidInputError(f"--free {text!r}: expected START:END in seconds (e.g. 0:12.5)")
    try:
        a = float(start) if start.strip() else -np.inf
        b = float(end) if end.strip() else np.inf
    except ValueError:
        raise InvalidInputError(f"--free {text!r}: START and END must be numbers") from None
    if np.isnan(a) or np.isnan(b) or a in (np.inf,) or b in (-np.inf,):
        raise InvalidInputError(f"--free {text!r}: START and END must be finite")
    if not a < b:
        raise InvalidInputError(f"--free {text!r}: START must be before END")
    return a, b


def free_mask(time, windows):
    """Which messages lie in the free time ranges.

    Args:
        time: (k,) seconds since the first stamp.
        windows: ``[(start, end), ...]`` [s] (inclusive); empty or None: the whole recording.

    Returns:
        ndarray: (k,) bool.
    """
    time = np.asarray(time, dtype=float)
    if not windows:
        return np.ones(time.shape, dtype=bool)
    mask = np.zeros(time.shape, dtype=bool)
    for start, end in windows:
        mask |= (time >= start) & (time <= end)
    return mask


def free_duration(time, windows):
    """Seconds of the recording covered by the free ranges.

    Args:
        time: (k,) seconds since the first stamp.
        windows: as :func:`free_mask`.

    Returns:
        float: the duration [s].
    """
    if not len(time):
        return 0.0
    first, last = float(np.min(time)), float(np.max(time))
    if not windows:
        return last - first
    edges = sorted((max(a, first), min(b, last)) for a, b in windows)
    total, reach = 0.0, -np.inf
    for a, b in edges:
        a = max(a, reach)
        if b > a:
            total += b - a
        reach = max(reach, b)
    return total


def statistics(values):
    """RMS, p95 and max of ``|x|``, and the signed mean.

    Args:
        values: (m,) samples.

    Returns:
        dict: ``rms``, ``p95``, ``max``, ``mean`` (floats; NaN without samples).
    """
    x = np.asarray(values, dtype=float)
    if not x.size:
        return dict.fromkeys(("rms", "p95", "max", "mean"), float("nan"))
    a = np.abs(x)
    return {
        "rms": float(np.sqrt(np.mean(x * x))),
        "p95": float(np.percentile(a, 95)),
        "max": float(a.max()),
        "mean": float(np.mean(x)),
    }


def _selected(replay, free):
    return np.asarray(free, dtype=bool) & replay.estimated


def phantom_statistics(replay, free):
    """Statistics of the estimate over the free messages (see the module docstring).

    Args:
        replay: the :class:`~robot_dynamics.tools.replay.Replay`.
        free: (k,) bool, the free messages.

    Returns:
        dict: ``samples`` (free messages with an estimate), ``joints`` (name -> statistics of
        tau_ext), and with a wrench ``force`` / ``moment`` (statistics of the magnitude, with
        ``components``: name -> statistics) for the estimated force and moment components.
    """
    sel = _selected(replay, free)
    out = {"samples": int(sel.sum()), "joints": {}}
    tau = replay.external_torques[sel]
    for j, name in enumerate(replay.joint_names):
        out["joints"][name] = statistics(tau[:, j])
    wrench = replay.wrench[sel]
    wrench = wrench[np.isfinite(wrench).all(axis=1)]
    for key, names in (("force", FORCE), ("moment", MOMENT)):
        estimated = [c for c in names if c in replay.wrench_components]
        if not estimated or not replay.wrench_frame:
            continue
        cols = [WRENCH_COMPONENTS.index(c) for c in names]
        stats = statistics(np.linalg.norm(wrench[:, cols], axis=1))
        stats["components"] = {
            c: statistics(wrench[:, WRENCH_COMPONENTS.index(c)]) for c in estimated
        }
        out[key] = stats
    return out


def outlying_free_stretches(replay, free, friction=None):
    """The stretches of the free messages whose external torques stand out from the rest of the
    free residual (:func:`~robot_dynamics.core.disturbance.outlying_stretches`: a moving joint's
    ``tau_ext`` beyond 8 robust standard deviations of its free values for 0.5 s or longer, a
    resting joint's by that much beyond its breakaway friction): something touched the arm
    there, or the model is wrong there. The levels suggested from such stretches are those of a
    contact. Joints whose effort is no measurement (``replay.constant_efforts``) are not judged.

    Args:
        replay: the :class:`~robot_dynamics.tools.replay.Replay`.
        free: (k,) bool, the free messages.
        friction: the model's :class:`~robot_dynamics.core.friction.FrictionModel` (its
            ``breakaway`` bounds what a joint at rest may hold), or None: joints at rest are not
            judged.

    Returns:
        list: ``(start, end, peak)`` per stretch in time order: seconds since the first stamp
        and (n,) each joint's largest ``tau_ext`` there in robust standard deviations.
    """
    sel = _selected(replay, free)
    if not sel.any():
        return []
    residual = np.where(sel[:, None], replay.external_torques, np.nan)
    unmeasured = {name for name, _ in replay.constant_efforts}
    for j, name in enumerate(replay.joint_names):
        if name in unmeasured:
            residual[sel, j] = 0.0
    t = replay.time
    band = None if friction is None else friction.breakaway
    runs = outlying_stretches(t, residual, replay.velocity, sel, band)
    return [(float(t[a]), float(t[b]), peak) for a, b, peak in runs]


def _segments(replay, free):
    """Index arrays of the runs of free estimated messages the detector sees in one go."""
    idx = np.flatnonzero(replay.estimated)
    if not idx.size:
        return []
    stamps = replay.stamp_ns[idx]
    breaks = np.flatnonzero(np.diff(stamps) < 0) + 1  # the detector restarts
    runs = []
    for part in np.split(np.arange(idx.size), breaks):
        # the runs of estimated messages inside the free ranges
        for a, b in zip(*true_runs(np.asarray(free, dtype=bool)[idx[part]])):
            runs.append(idx[part[a:b]])
    return runs


def _window_extremes(values, stamps, duration_ns):
    """Per message i with a full window: (min, max) of values over the messages j0..i, j0 the
    latest message with ``t_i - t_j0 >= duration``; values (m, c), stamps (m,) non-decreasing.

    Returns:
        tuple: ``(mins (w, c), maxs (w, c))`` over the w messages that have a full window.
    """
    m = len(stamps)
    start = np.searchsorted(stamps, stamps - duration_ns, side="right") - 1
    full = start >= 0
    if duration_ns <= 0:
        start = np.arange(m)
        full = np.ones(m, dtype=bool)
    ends = np.flatnonzero(full)
    if not ends.size:
        return np.zeros((0, values.shape[1])), np.zeros((0, values.shape[1]))
    starts = start[ends]
    # sparse tables of minima and maxima over power-of-two spans
    mins, maxs = [values], [values]
    span = 1
    longest = int((ends - starts).max()) + 1
    while 2 * span <= longest:
        lo, hi = mins[-1], maxs[-1]
        mins.append(np.minimum(lo[:-span], lo[span:]))
        maxs.append(np.maximum(hi[:-span], hi[span:]))
        span *= 2
    length = ends - starts + 1
    level = np.floor(np.log2(length)).astype(int)
    out_min = np.empty((ends.size, values.shape[1]))
    out_max = np.empty_like(out_min)
    for p in np.unique(level):
        rows = level == p
        a, b = starts[rows], ends[rows] - (1 << p) + 1
        out_min[rows] = np.minimum(mins[p][a], mins[p][b])
        out_max[rows] = np.maximum(maxs[p][a], maxs[p][b])
    return out_min, out_max


def _signals(replay):
    """(k, c) the detector's signals (each joint's |tau_ext|, |f|, |n|) and their names."""
    names = list(replay.joint_names)
    columns = [np.abs(replay.external_torques)]
    for key, comps in (("force", FORCE), ("moment", MOMENT)):
        if replay.wrench_frame and any(c in replay.wrench_components for c in comps):
            names.append(key)
            cols = [WRENCH_COMPONENTS.index(c) for c in comps]
            columns.append(np.linalg.norm(replay.wrench[:, cols], axis=1)[:, None])
    values = np.hstack(columns)
    return np.where(np.isfinite(values), values, 0.0), names  # no wrench: no level exceeded


def _windows(replay, free, values, min_duration):
    """Window minima and maxima of values (k, c) over the free runs (see _window_extremes)."""
    duration_ns = int(round(min_duration * 1e9))
    lows, highs = [], []
    for run in _segments(replay, free):
        lo, hi = _window_extremes(values[run], replay.stamp_ns[run], duration_ns)
        lows.append(lo)
        highs.append(hi)
    width = values.shape[1]
    return (
        np.vstack(lows) if lows else np.zeros((0, width)),
        np.vstack(highs) if highs else np.zeros((0, width)),
    )


def suggest_levels(replay, free, min_duration, margin=1.5):
    """Contact levels for the node's ``contact.*`` parameters.

    Per signal s (each joint's ``|tau_ext|``, ``|f|``, ``|n|``), over the free runs: the
    sustained peak ``P_s`` (the largest window minimum, window ``min_duration``) and ``H_s``,
    the 95th percentile of the window maxima. The detector ORs the signals, so the levels are
    scaled together: ``S``, the sustained peak of ``max_s |x_s| / P_s``, makes ``S P_s`` the
    per-signal levels that no combination of signals exceeded together for ``min_duration``
    in free motion; ``on_s = margin S P_s``. Likewise ``T``, the 95th percentile of the window
    maxima of ``max_s |x_s| / H_s``: ``off_s = min(on_s, margin T H_s)``, below which every
    signal falls together within about ``min_duration`` in 95 % of the free windows. Levels are
    at least :data:`MIN_LEVEL`.

    Args:
        replay: the :class:`~robot_dynamics.tools.replay.Replay`.
        free: (k,) bool, the free messages.
        min_duration: the detector's ``contact.min_duration`` [s].
        margin: factor over the free residual's levels, > 1.

    Returns:
        tuple: ``(levels, basis)``: ``levels`` parameter name -> value (``contact.torque_on``
        and ``contact.torque_off`` lists in model order, ``contact.force_on/off`` and
        ``contact.moment_on/off`` when that part of the wrench is estimated); ``basis``: signal
        name -> ``{"sustained_peak": P_s, "window_max_p95": H_s}``, and ``"scale"``: ``{"on": S,
        "off": T}``.

    Raises:
        InvalidInputError: margin <= 1, or no free run as long as ``min_duration``.
    """
    if not margin > 1.0 or not np.isfinite(margin):
        raise InvalidInputError(f"--margin must be a finite number > 1, got {margin}")
    values, names = _signals(replay)
    lo, hi = _windows(replay, free, values, min_duration)
    if not lo.shape[0]:
        raise InvalidInputError(
            "no stretch of free messages with estimates lasts contact.min_duration "
            f"({min_duration} s): no contact levels can be suggested"
        )
    peak = np.maximum(lo.max(axis=0), MIN_LEVEL)
    p95 = np.maximum(np.percentile(hi, 95, axis=0), MIN_LEVEL)
    lo_on, _ = _windows(replay, free, (values / peak).max(axis=1, keepdims=True), min_duration)
    _, hi_off = _windows(replay, free, (values / p95).max(axis=1, keepdims=True), min_duration)
    scale_on = float(lo_on.max())
    scale_off = float(np.percentile(hi_off, 95))
    on = np.maximum(margin * scale_on * peak, MIN_LEVEL)
    off = np.minimum(np.maximum(margin * scale_off * p95, MIN_LEVEL), on)
    n = len(replay.joint_names)
    levels = {
        "contact.torque_on": [float(v) for v in on[:n]],
        "contact.torque_off": [float(v) for v in off[:n]],
    }
    for c, name in enumerate(names[n:], start=n):
        levels[f"contact.{name}_on"] = float(on[c])
        levels[f"contact.{name}_off"] = float(off[c])
    basis = {
        name: {"sustained_peak": float(peak[c]), "window_max_p95": float(p95[c])}
        for c, name in enumerate(names)
    }
    basis["scale"] = {"on": scale_on, "off": scale_off}
    return levels, basis


def false_alarms(replay, free, duration):
    """Contacts the detector of a replay started in the free stretches.

    Args:
        replay: a :class:`~robot_dynamics.tools.replay.Replay` run with contact detection on.
        free: (k,) bool, the free messages.
        duration: free duration [s] (:func:`free_duration`).

    Returns:
        dict: ``count`` (contacts started in free messages), ``per_minute`` (per minute of free
        recording), ``time_in_contact`` (fraction of the free estimated messages in contact),
        ``elsewhere`` (contacts started outside the free stretches).
    """
    free = np.asarray(free, dtype=bool)
    onsets = replay.contact_onsets
    count = int((onsets & free).sum())
    sel = free & replay.estimated
    return {
        "count": count,
        "per_minute": count / (duration / 60.0) if duration > 0 else float("nan"),
        "time_in_contact": float((replay.in_contact[sel] == 1).mean()) if sel.any() else 0.0,
        "elsewhere": int((onsets & ~free).sum()),
    }


__all__ = [
    "MIN_LEVEL",
    "false_alarms",
    "free_duration",
    "free_mask",
    "outlying_free_stretches",
    "parse_window",
    "phantom_statistics",
    "statistics",
    "suggest_levels",
]
