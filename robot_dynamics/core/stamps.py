"""Logger stamps of recorded joint states: repeated samples and the robot's time base.

A robot samples its joints on a fixed cycle (1 ms for most arms); the stamps of a recording are
often the logging PC's, taken when a message arrived. They jitter around the cycle (intervals of
0.7-8.8 ms around 1 ms on a real arm, a late message followed by a burst of early ones), some
samples are the previous one again (the logger read the robot's state before it changed), and
some cycles never reach the log (gaps). The samples themselves are still one cycle apart.

- :func:`repeated_samples` finds samples identical to the previous one (runs of at most
  ``max_run`` copies: a longer run is a signal that does not change, not a logger repeat).
- :func:`time_base` finds the cycle and each sample's cycle number ``k_i`` (consecutive samples
  one cycle apart, gaps whole cycles). The cycle is where the stamps' phases gather
  (``|mean exp(2 pi i t / c)|`` largest, searched near the median interval over ever longer
  stretches): dropped samples, gaps and late stamps do not move it. Then each sample's cycle: a
  stamp is never earlier than its cycle plus the shortest latency, while a late one (the logger
  stalled) only lifts its own value; the cycle is refined by least squares over the stamps that
  are not late. It gives ``t_i = t_0 + cycle k_i`` when the stamps only jitter around that
  base; stamps scattered about it are kept as they are. :class:`StampReport` says what was found.
- :func:`robot_time` does both for a recording: repeats dropped (in recording order), the
  samples left out for other reasons dropped, the rest in stamp order on the time base. A repeat
  may stand in place of a cycle's own sample (the logger wrote the previous sample again and
  that cycle is lost): dropped, it leaves a gap, counted apart (``stale_gaps``) when the
  recording has as many repeats between its two samples as cycles are missing.
  Used by identify's data preparation (:func:`robot_dynamics.core.joint_data.clean`) and by the
  estimate replay (:mod:`robot_dynamics.tools.replay`).
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from .runs import true_runs

#: fewer stamps than this are used as they are
MIN_SAMPLES = 20
#: the cycle is searched within this fraction of the median interval
CYCLE_RANGE = 0.25
#: stamps used at most per stretch of the phase search (evenly spread over the stretch)
PHASE_SAMPLES = 4096
#: candidate cycles at most per step of the phase search
PHASE_GRID = 2048
#: stamps spanning more cycles than this are no robot's cycle (a day at 0.1 ms): kept as they are
MAX_CYCLES = 1e9


@dataclass(frozen=True)
class StampReport:
    """What the stamps of a recording show.

    Attributes:
        samples: stamps analysed (after repeated samples were dropped).
        interval_min: shortest stamp interval [s].
        interval_median: median stamp interval [s].
        interval_max: longest stamp interval [s].
        cycle: the cycle [s] of the time base (fitted, or given).
        uniform: the samples were put on the time base ``t_0 + cycle k_i``.
        jitter_rms: RMS of the stamps about the time base [s].
        jitter_max: largest ``|stamp - time base|`` [s].
        gaps: places where whole cycles are missing.
        missing_cycles: cycles missing in them.
        longest_gap: longest stamp interval across a gap [s] (0 without gaps).
        note: why the stamps were kept as they are ("" when ``uniform``).
        stalls: bursts of stamps more than half a cycle late and less than half a cycle apart
            (the logger stalled, then stamped what arrived meanwhile); a late stamp outside a
            burst is the latency's tail.
        late_samples: stamps more than half a cycle late.
        stale_gaps: of ``gaps``, those the recording fills with repeats of the previous sample
            (as many repeats between the two samples as cycles missing: the logger wrote a
            sample again in place of each missing cycle's own; :func:`robot_time` counts them).
        stale_cycles: cycles missing in them.
    """

    samples: int
    interval_min: float
    interval_median: float
    interval_max: float
    cycle: float
    uniform: bool
    jitter_rms: float
    jitter_max: float
    gaps: int
    missing_cycles: int
    longest_gap: float
    note: str = ""
    stalls: int = 0
    late_samples: int = 0
    stale_gaps: int = 0
    stale_cycles: int = 0


@dataclass(frozen=True, eq=False)
class Retiming:
    """Samples of a recording on the robot's time base (:func:`robot_time`).

    Attributes:
        repeat: (N,) bool, the logger repeats (dropped).
        index: (M,) int, the samples kept, in stamp order (indices into the recording).
        t: (M,) their times [s]: the robot's time base when ``report.uniform``, else the stamps.
        report: :class:`StampReport`, or None when the stamps were kept without analysis.
    """

    repeat: np.ndarray
    index: np.ndarray
    t: np.ndarray
    report: object


def repeated_samples(fields, max_run=2):
    """Samples identical to the previous one in every field (NaN equal to NaN).

    Args:
        fields: sequence of (N, k) arrays (positions, velocities, efforts); None entries are
            skipped.
        max_run: longest run of copies counted as repeats; a longer run of identical samples
            is kept whole (a signal standing still, not a logger repeat).

    Returns:
        ndarray: (N,) bool, True for a repeat of the sample before it.
    """
    arrays = [np.asarray(f, dtype=float) for f in fields if f is not None]
    if not arrays or len(arrays[0]) < 2:
        return np.zeros(len(arrays[0]) if arrays else 0, bool)
    same = np.ones(len(arrays[0]) - 1, bool)
    for a in arrays:
        prev, cur = a[:-1], a[1:]
        same &= np.all((cur == prev) | (np.isnan(cur) & np.isnan(prev)), axis=1)
    repeat = np.concatenate([[False], same])
    # runs of consecutive repeats longer than max_run are kept
    for s, e in zip(*true_runs(repeat)):
        if e - s > max_run:
            repeat[s:e] = False
    return repeat


def _phase_cycle(t, guess):
    """The cycle near ``guess`` [s] on which the phases of stamps ``t`` gather most.

    The mean resultant ``|mean exp(2 pi i t / c)|`` peaks at the robot's cycle whatever samples
    are missing; over a stretch of duration ``T`` its peak is ``c^2 / T`` wide. The search starts
    over the first 64 stamps within ``CYCLE_RANGE`` of ``guess`` and narrows on stretches four
    times longer, to the whole recording, on a grid of 1/32 of the peak's width (at most
    :data:`PHASE_GRID` candidates: a stretch far longer than its stamps' intervals is searched
    on a coarser grid).
    """
    t = t - t[0]
    c, half, n = guess, CYCLE_RANGE * guess, 64
    while True:
        n = min(n, len(t))
        stretch = t[np.unique(np.linspace(0, n - 1, min(n, PHASE_SAMPLES)).astype(int))]
        step = max(c * c / (32.0 * stretch[-1]), 2.0 * half / PHASE_GRID)
        grid = c + np.arange(-half, half + step, step)
        resultant = np.abs(np.exp(2j * np.pi * stretch[None, :] / grid[:, None]).mean(axis=1))
        c = float(grid[np.argmax(resultant)])
        if n == len(t):
            return c
        half, n = 64 * step, 4 * n


def _cycles(t, c):
    """Cycle numbers of stamps ``t`` on the cycle ``c``: a stamp is never earlier than its
    cycle plus the shortest latency, so the cycle offsets ``m_i = k_i - i`` are the largest
    nondecreasing sequence below ``floor((t_i - t_ref) / c) - i`` (a late stamp only lifts its
    own value), with ``t_ref`` a little below the earliest stamps' phase."""
    i = np.arange(len(t))
    phase = np.angle(np.mean(np.exp(2j * np.pi * (t - t[0]) / c))) * c / (2 * np.pi)
    e = t - c * np.round((t - t[0] - phase) / c)  # about the phase, within half a cycle
    ref = np.quantile(e, 0.01) - 0.1 * c
    m_raw = np.floor((t - ref) / c).astype(np.int64) - i
    m = np.minimum.accumulate(m_raw[::-1])[::-1]
    return i + m - m[0]


def time_base(t, cycle=None):
    """The robot's time base of sample stamps (see the module docstring).

    Args:
        t: (N,) stamps [s], increasing (repeated samples already dropped).
        cycle: the robot's cycle [s], or None to fit it.

    Returns:
        tuple: ``(times (N,) [s], StampReport)``; ``times`` is ``t`` itself when the stamps do
        not only jitter around a time base (the report's ``note`` says why).
    """
    t = np.asarray(t, dtype=float)
    N = len(t)
    d = np.diff(t) if N > 1 else np.zeros(1)
    intervals = (float(d.min()), float(np.median(d)), float(d.max())) if N > 1 else (0.0,) * 3
    c = float(cycle) if cycle else intervals[1]

    def keep(note):
        return t, StampReport(N, *intervals, c, False, 0.0, 0.0, 0, 0, 0.0, note)

    if N < MIN_SAMPLES:
        return keep(f"only {N} samples")
    if not c > 0:
        return keep("the stamps do not advance")
    if (t[-1] - t[0]) / c > MAX_CYCLES:
        return keep(
            f"the stamps span {t[-1] - t[0]:.6g} s, {(t[-1] - t[0]) / c:.3g} intervals of "
            f"{c * 1e3:.4g} ms: stamps of two clocks? (a wall-clock stamp among simulated ones)"
        )
    if cycle is None:
        c = _phase_cycle(t, c)
    for _ in range(2):  # each stamp's cycle, then the cycle by least squares without late ones
        k = _cycles(t, c)
        if cycle is None:
            e = t - c * k
            inside = np.abs(e - np.median(e)) < 0.5 * c
            c = float(np.polyfit(k[inside] - k.mean(), t[inside], 1)[0])
    where = np.flatnonzero(np.diff(k) > 1) + 1
    sizes = np.diff(k)[where - 1] - 1
    e = t - c * k
    base = float(np.median(e))
    e = e - base
    if np.median(np.abs(e)) > 0.25 * c:
        return keep(
            f"the stamps scatter {np.median(np.abs(e)) * 1e3:.3g} ms (median) about a "
            f"{c * 1e3:.4g} ms cycle"
        )
    gap_intervals = np.diff(t)[where - 1] if len(where) else np.zeros(0)
    late = e > 0.5 * c
    burst = late[:-1] & late[1:] & (np.diff(t) < 0.5 * c)
    report = StampReport(
        samples=N,
        interval_min=intervals[0],
        interval_median=intervals[1],
        interval_max=intervals[2],
        cycle=c,
        uniform=True,
        jitter_rms=float(np.sqrt(np.mean(e**2))),
        jitter_max=float(np.abs(e).max()),
        gaps=len(where),
        missing_cycles=int(sizes.sum()) if len(sizes) else 0,
        longest_gap=float(gap_intervals.max()) if len(gap_intervals) else 0.0,
        stalls=len(true_runs(burst)[0]),
        late_samples=int(np.count_nonzero(late)),
    )
    return base + c * k, report


def robot_time(t, fields, *, usable=None, cycle=None, keep_stamps=False):
    """A recording's samples on the robot's time base: the logger repeats
    (:func:`repeated_samples` of ``fields``, in recording order) and the samples not ``usable``
    dropped, the rest in stamp order (stable) through :func:`time_base`.

    Args:
        t: (N,) stamps [s], recording order.
        fields: sequence of (N, k) arrays compared for repeats (None entries skipped).
        usable: (N,) bool, False for samples left out for another reason, or None.
        cycle: the robot's cycle [s], or None to fit it.
        keep_stamps: keep the stamps as they are (no time base, no report).

    Returns:
        Retiming: the kept samples and their times.
    """
    t = np.asarray(t, dtype=float)
    repeat = repeated_samples(fields)
    keep = ~repeat if usable is None else ~repeat & np.asarray(usable, bool)
    index = np.flatnonzero(keep)
    times = t[index]
    if len(times) > 1 and not np.all(np.diff(times) > 0):
        order = np.argsort(times, kind="stable")
        index, times = index[order], times[order]
    if keep_stamps:
        return Retiming(repeat, index, times, None)
    times, report = time_base(times, cycle)
    if report.uniform and report.gaps:
        report = _with_stale_gaps(report, times, repeat, index)
    return Retiming(repeat, index, times, report)


def _with_stale_gaps(report, times, repeat, index):
    """``report`` with its gaps that the recording fills with repeats counted."""
    k = np.round((times - times[0]) / report.cycle).astype(np.int64)
    gap = np.flatnonzero(np.diff(k) > 1)
    missing = np.diff(k)[gap] - 1
    repeats_before = np.concatenate([[0], np.cumsum(repeat)])  # repeats in recording[:i]
    a, b = index[gap], index[gap + 1]
    between = repeats_before[np.maximum(a, b)] - repeats_before[np.minimum(a, b) + 1]
    stale = between >= missing
    return dataclasses.replace(
        report, stale_gaps=int(stale.sum()), stale_cycles=int(missing[stale].sum())
    )


__all__ = [
    "CYCLE_RANGE",
    "MAX_CYCLES",
    "Retiming",
    "StampReport",
    "repeated_samples",
    "robot_time",
    "time_base",
]
