"""Joint samples for identification, made ready for the regressor, in two steps.

:func:`clean` takes the merged samples of a recording as real robots give them:

- a time window (seconds from the start) keeps part of it;
- joints the recording does not carry (a head, a gripper) are held at a stated position, at
  rest, and have no measured torque; joints it carries but does not move (a gripper standing
  open: positions that spread no more than their noise, while other joints move) and joints
  held by request are held too, at their median recorded or the stated position, their
  efforts kept (a static torque still tells of the links beyond);
- joints without a real effort (no effort at all, exactly 0, or one constant value in every
  sample) are detected: a per-joint ``effort_mask`` leaves them out of the fit's rows; their
  torque is NaN, never a measured 0;
- samples identical to the previous one (a logger repeat) are dropped, then samples with a NaN
  in a column that is used (position or velocity of a moving joint, effort of a measured one);
  every drop is counted under its reason and column (``effort[wrist_1] NaN in 5870``);
- the stamps are put on the robot's cycle when they only jitter around it
  (:mod:`robot_dynamics.core.stamps`);
- efforts become torques: ``tau = effort_scale * effort + effort_offset`` per joint (the dynamics
  node's parameters of the same names: drivers reporting motor current, or another sign).

:func:`smooth` then splits the data at gaps longer than a quarter of the filter window (shorter
ones are bridged by interpolation), resamples each stretch onto a uniform grid, differentiates the
velocity (when the samples have none) and the acceleration and smooths the efforts with one
zero-phase Savitzky-Golay filter (scipy), so that every signal sees the same (zero) delay, and
optionally keeps every k-th sample of the smoothed signals. With ``rest=True`` (payload
identification, whose static holds must carry no velocity or acceleration a driver's velocity
ripple or noise makes up) the samples where the arm is at rest
(:func:`~robot_dynamics.core.rest.at_rest`) get a velocity and acceleration of exactly 0, and
each hold its mean position. :func:`prepare` does both.

Used by ``robot-dynamics identify`` (:mod:`robot_dynamics.tools.identification_data` reads bags
and CSV files into :class:`JointSamples`; :mod:`robot_dynamics.core.filter_window` chooses the
window) and by the dynamics node's ``~/identify_payload``.
"""

from dataclasses import dataclass, replace

import numpy as np
from scipy.signal import savgol_filter

from .effort_measurement import effort_reason
from .identification import IdentificationError
from .locked_joints import default_positions
from .rest import (
    at_rest,
    does_not_move,
    hold_means,
    position_resolution,
    rest_velocity,
    velocity_noise,
)
from .stamps import robot_time


class DataError(IdentificationError):
    """The recording cannot be used: missing file or topic, unknown joints, bad CSV, too few
    usable samples (the message names the dropped columns and counts)."""


@dataclass(frozen=True, eq=False)
class JointSamples:
    """Merged raw samples, model joint order.

    Attributes:
        t: (N,) stamps [s].
        position: (N, n) positions [rad or m], NaN where a value is missing (a whole NaN column:
            a joint the recording does not carry).
        velocity: (N, n) velocities [rad/s or m/s], NaN where missing; None when no message had
            one.
        effort: (N, n) efforts as recorded (torque, force or motor current), NaN where missing.
        extra_joints: joints in the recording that the model does not have (ignored).
        joint_names: (n,) the model's joints, for messages (default ``joint 0``, ...).
        zero_stamps: messages stamped 0 among stamped ones, left out before merging (a
            driver's before its clock ran).
    """

    t: np.ndarray
    position: np.ndarray
    velocity: object
    effort: np.ndarray
    extra_joints: tuple = ()
    joint_names: tuple = ()
    zero_stamps: int = 0


@dataclass(frozen=True)
class DataReport:
    """What data preparation found and did.

    Attributes:
        joint_names: (n,) model joints.
        raw_samples: merged samples before anything was dropped.
        drops: ``(reason, count)`` pairs in the order applied, the reason a text with ``{n}``
            for the count (``"effort[wrist_1] NaN in {n}"``; a NaN in several columns of one
            sample counts under each column).
        dropped: samples dropped in all.
        stamps: :class:`~robot_dynamics.core.stamps.StampReport`, or None when not analysed.
        repeated: samples dropped as repeats of the previous one.
        effort_mask: (n,) True for the joints whose torque is fitted.
        unmeasured: ``(joint, reason)`` of the joints left out of the fit's rows.
        held: ``(joint, position)`` of the joints held still (not in the recording, still in
            it, or held by request).
        still: the held joints that the recording carries (still in it, or held by request).
        effort_scale: (n,) the scale applied to the efforts, or None.
        effort_offset: (n,) the offset applied to the efforts, or None.
        time_window: ``(start, end)`` [s] kept, or None for all.
        velocity_source: "message" or "differentiated".
        filter_window: Savitzky-Golay window used [s] (samples / grid rate); 0 before
            :func:`smooth`.
        window_samples: its length in samples of the grid.
        stride: every ``stride``-th smoothed sample is kept.
        bridged: gaps bridged by interpolation.
        stretches: uniformly sampled stretches the data was split into.
        window_choice: :class:`~robot_dynamics.core.filter_window.WindowChoice` when the window
            was chosen from the data, else None.
        at_rest: fraction of the samples in which the arm was found at rest (velocity and
            acceleration set to 0), or None when rest was not looked for.
        zero_stamps: messages stamped 0 among stamped ones, left out before merging.
        unfollowed_velocities: ``(j, velocity RMS, rate RMS, correlation)`` of the joints
            whose recorded velocities stay 0 or do not follow their positions
            (:func:`~robot_dynamics.core.recorded_motion.unfollowed_velocities`): the
            positions were differentiated instead.
        unwrapped: ``(joint, wraps)`` of the turning joints whose positions a driver wrapped
            by whole turns, unwrapped before anything is differentiated.
        rest_velocity: (n,) each joint's velocity noise while the arm was at rest
            (:func:`~robot_dynamics.core.rest.at_rest`, :func:`~robot_dynamics.core.rest.
            velocity_noise`) [rad/s or m/s], NaN for a joint without recorded velocities;
            None when the arm was never at rest or no velocity was recorded.
        rest_time: how long the arm was at rest [s].
    """

    joint_names: tuple
    raw_samples: int
    drops: tuple
    dropped: int
    stamps: object
    repeated: int
    effort_mask: tuple
    unmeasured: tuple
    held: tuple
    effort_scale: object
    effort_offset: object
    time_window: object
    velocity_source: str
    filter_window: float = 0.0
    window_samples: int = 0
    stride: int = 1
    bridged: int = 0
    stretches: int = 0
    window_choice: object = None
    at_rest: object = None
    still: tuple = ()
    zero_stamps: int = 0
    unfollowed_velocities: tuple = ()
    unwrapped: tuple = ()
    rest_velocity: object = None
    rest_time: float = 0.0

    @property
    def rest_level(self):
        """The nodes' ``friction_rest_velocity`` of this recording's velocity noise at rest
        (:func:`~robot_dynamics.core.rest.rest_velocity`) [rad/s or m/s], or None."""
        return rest_velocity(self.rest_velocity, self.rest_time)

    @property
    def not_recorded(self):
        """``(joint, position)`` of the held joints the recording does not carry."""
        return tuple((j, p) for j, p in self.held if j not in self.still)

    def drop_text(self):
        """The drops as text, e.g. ``5870 dropped: effort[wrist_1] NaN in 5870``.

        Returns:
            str: the text.
        """
        if not self.dropped:
            return "0 dropped"
        return f"{self.dropped} dropped: " + ", ".join(r.format(n=c) for r, c in self.drops if c)


@dataclass(frozen=True, eq=False)
class CleanData:
    """Samples after :func:`clean`, model joint order, on the robot's time base.

    Attributes:
        t: (N,) [s].
        position: (N, n) [rad or m]; held joints at their position.
        velocity: (N, n) [rad/s or m/s] (held joints 0), or None (to be differentiated).
        tau: (N, n) joint torques [N m or N]; NaN for the joints outside ``effort_mask``.
        effort_mask: (n,) bool, joints whose torque is measured.
        held: (n,) positions of the held joints, NaN for the moving ones.
        extra_joints: joints in the recording that the model does not have (ignored).
        report: :class:`DataReport`.
    """

    t: np.ndarray
    position: np.ndarray
    velocity: object
    tau: np.ndarray
    effort_mask: np.ndarray
    held: np.ndarray
    extra_joints: tuple
    report: DataReport


@dataclass(frozen=True, eq=False)
class JointData:
    """Identification data, model joint order, uniformly sampled per stretch.

    Attributes:
        t: (N,) [s].
        q: (N, n) joint positions [rad or m].
        qd: (N, n) joint velocities [rad/s or m/s].
        qdd: (N, n) joint accelerations [rad/s^2 or m/s^2].
        tau: (N, n) joint torques [N m or N], NaN for the joints outside ``effort_mask``.
        dropped: raw samples dropped.
        raw_samples: merged samples before dropping.
        velocity_source: "message" or "differentiated".
        extra_joints: joints in the recording that the model does not have (ignored).
        rate: sampling rate of the grid [Hz] (after keeping every ``stride``-th sample).
        effort_mask: (n,) bool, joints whose torque is measured (the fit's rows).
        held: (n,) positions of the joints held still [rad or m], NaN for the moving ones.
        report: :class:`DataReport`.
        window: the torque's Savitzky-Golay window on this grid [samples] (odd; 1: the torque
            is not smoothed).
        polyorder: its polynomial order.
        segments: start index of each uniformly sampled stretch (the first is 0).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    dropped: int
    raw_samples: int
    velocity_source: str
    extra_joints: tuple
    rate: float
    effort_mask: np.ndarray = None
    held: np.ndarray = None
    report: DataReport = None
    window: int = 1
    polyorder: int = 0
    segments: tuple = (0,)

    def smoothed(self, x):
        """``x`` through the filter that smoothed ``tau``, stretch by stretch, so that a quantity
        computed from the data (a regressor column with a step, as friction's at a velocity
        reversal) sees the same band as the measured torque.

        Args:
            x: (N, ...) samples of these data's time grid.

        Returns:
            ndarray: (N, ...) smoothed (``x`` itself when the window is 1).
        """
        x = np.asarray(x, dtype=float)
        if self.window <= 1:
            return x
        out = x.copy()
        bounds = list(self.segments) + [len(self.t)]
        for a, b in zip(bounds[:-1], bounds[1:]):
            if b - a >= self.window:  # (a piece of a stretch cut by a split may be shorter)
                out[a:b] = savgol_filter(x[a:b], self.window, self.polyorder, axis=0)
        return out

    def split(self, holdout):
        """Split off the end of the data for validation.

        Args:
            holdout: fraction of the samples held out, in [0, 1).

        Returns:
            tuple: ``(train, test)`` :class:`JointData`, the last ``holdout`` fraction in test.
        """
        n = len(self.t)
        k = int(round(n * (1.0 - holdout)))
        return self._take(0, k), self._take(k, n)

    def _take(self, a, b):
        s = slice(a, b)
        return replace(
            self,
            segments=tuple([0] + [k - a for k in self.segments if a < k < b]),
            t=self.t[s],
            q=self.q[s],
            qd=self.qd[s],
            qdd=self.qdd[s],
            tau=self.tau[s],
            dropped=0,
            raw_samples=len(self.t[s]),
        )


def _names(samples, n):
    names = tuple(samples.joint_names)
    return names if len(names) == n else tuple(f"joint {k}" for k in range(n))


def _per_joint(values, name, names):
    if values is None:
        return None
    x = np.asarray(values, dtype=float).reshape(-1)
    if x.shape != (len(names),) or not np.all(np.isfinite(x)):
        raise DataError(
            f"{name} must be {len(names)} finite numbers (model order: {list(names)}), "
            f"got {list(np.atleast_1d(values))}"
        )
    return x


def clean(
    samples,
    *,
    time_window=None,
    effort_scale=None,
    effort_offset=None,
    effort_mask=None,
    ignore_effort=(),
    hold=None,
    hold_joints=(),
    cycle=None,
    keep_stamps=False,
):
    """Clean merged samples (see the module docstring).

    Args:
        samples: :class:`JointSamples`.
        time_window: ``(start, end)`` [s] of the recording's time to keep, or None.
        effort_scale: (n,) ``tau = effort_scale * effort + effort_offset``, or None (1).
        effort_offset: (n,) [N m or N], or None (0).
        effort_mask: None (every joint's effort is used), "auto" (joints without a real effort
            detected and left out), or (n,) bool (True: measured).
        ignore_effort: joint names whose effort is left out as well.
        hold: (n,) positions [rad or m] for the joints the recording does not carry (NaN for
            the others), or None.
        hold_joints: names of joints held at ``hold`` even where the recording carries them.
        cycle: the robot's cycle [s], or None to fit it from the stamps.
        keep_stamps: use the stamps as they are (no time base).

    Returns:
        CleanData: the cleaned samples.

    Raises:
        DataError: a joint that is not carried and has no hold position, bad scale, offset or
            window, no joint with a measured effort, or fewer than 2 usable samples (naming the
            dropped columns and counts).
    """
    t = np.asarray(samples.t, dtype=float)
    position = np.array(samples.position, dtype=float)
    velocity = None if samples.velocity is None else np.array(samples.velocity, dtype=float)
    effort = np.array(samples.effort, dtype=float)
    N, n = position.shape
    names = _names(samples, n)
    scale = _per_joint(effort_scale, "effort_scale", names)
    offset = _per_joint(effort_offset, "effort_offset", names)
    drops = []
    keep = np.isfinite(t)
    drops.append(("{n} with a NaN time", int(np.count_nonzero(~keep))))
    if time_window is not None:
        start, end = (float(x) for x in time_window)
        if not start < end:
            raise DataError(f"the time window must have start < end, got {start:g}, {end:g}")
        inside = keep & (t >= start) & (t <= end)
        reason = f"{{n}} outside the time window {start:g}-{end:g} s"
        drops.append((reason, int(np.sum(keep & ~inside))))
        keep = inside
    t, position, effort = t[keep], position[keep], effort[keep]
    velocity = None if velocity is None else velocity[keep]

    # joints the recording does not carry: held still, no torque; joints it carries but does not
    # move, or held by request: held still, their torques kept
    carried = ~np.all(np.isnan(position), axis=0) if len(t) else np.ones(n, bool)
    hold = np.full(n, np.nan) if hold is None else np.asarray(hold, dtype=float)
    for name in hold_joints:
        if name not in names:
            raise DataError(f"unknown joint {name!r} to hold; joints: {names}")
    by_request = np.isin(names, hold_joints) & carried & np.isfinite(hold)
    still = carried & ~by_request & does_not_move(position)
    if not (carried & ~by_request & ~still).any():
        still[:] = False  # nothing moves: a recording that excites nothing, not a held joint
    held = np.full(n, np.nan)
    if not np.all(carried):
        missing = [names[k] for k in np.flatnonzero(~carried) if not np.isfinite(hold[k])]
        if missing:
            raise DataError(
                f"joints {missing} are not in the recording (no positions); give positions to "
                f"hold them at"
            )
        held[~carried] = hold[~carried]
        effort[:, ~carried] = np.nan
    held[by_request] = hold[by_request]
    for k in np.flatnonzero(still):
        held[k] = float(np.nanmedian(position[:, k]))
    fixed = np.isfinite(held)
    position[:, fixed] = held[fixed]
    if velocity is not None:
        velocity[:, fixed] = 0.0
    moving = ~fixed
    if velocity is not None and np.any(np.all(np.isnan(velocity[:, moving]), axis=0)):
        velocity = None  # a joint without any velocity: differentiate them all alike

    # joints without a real effort
    reasons = {}
    for k in np.flatnonzero(~carried):
        reasons[k] = f"not in the recording (held at {held[k]:g})"
    if isinstance(effort_mask, str):
        if effort_mask != "auto":
            raise DataError(f"effort_mask must be None, 'auto' or {n} booleans")
        for k in np.flatnonzero(carried):
            reason = effort_reason(effort[:, k])
            if reason:
                reasons[k] = reason
    elif effort_mask is not None:
        given = np.asarray(effort_mask, bool).reshape(-1)
        if given.shape != (n,):
            raise DataError(f"effort_mask must be {n} booleans, got shape {given.shape}")
        for k in np.flatnonzero(~given):
            reasons.setdefault(k, "left out (effort mask)")
    for name in ignore_effort:
        if name not in names:
            raise DataError(f"unknown joint {name!r} to ignore the effort of; joints: {names}")
        reasons.setdefault(names.index(name), "left out by request")
    mask = np.ones(n, bool)
    mask[list(reasons)] = False
    if not mask.any():
        raise DataError(
            "no joint has a measured effort: "
            + "; ".join(f"{names[k]}: {reasons[k]}" for k in sorted(reasons))
        )
    effort[:, ~mask] = np.nan

    # logger repeats, then NaN in the columns used; the rest on the robot's time base
    columns = [("position", position, moving), ("effort", effort, mask)]
    if velocity is not None:
        columns.insert(1, ("velocity", velocity, moving))
    nans = []
    usable = np.ones(len(t), bool)
    for field, values, used in columns:
        for k in np.flatnonzero(used):
            nan = ~np.isfinite(values[:, k])
            if nan.any():
                nans.append((f"{field}[{names[k]}] NaN in {{n}}", nan))
                usable &= ~nan
    timed = robot_time(
        t,
        [position[:, moving], None if velocity is None else velocity[:, moving], effort[:, mask]],
        usable=usable,
        cycle=cycle,
        keep_stamps=keep_stamps,
    )
    repeat = timed.repeat
    drops.append(("{n} repeated", int(np.count_nonzero(repeat))))
    for reason, nan in nans:
        count = int(np.count_nonzero(nan & ~repeat))
        if count:
            drops.append((reason, count))
    dropped = N - len(timed.index)
    report = DataReport(
        joint_names=names,
        raw_samples=N,
        drops=tuple(drops),
        dropped=dropped,
        stamps=timed.report,
        repeated=int(np.count_nonzero(repeat)),
        effort_mask=tuple(bool(m) for m in mask),
        unmeasured=tuple((names[k], reasons[k]) for k in sorted(reasons)),
        held=tuple((names[k], float(held[k])) for k in np.flatnonzero(fixed)),
        still=tuple(names[k] for k in np.flatnonzero(fixed & carried)),
        effort_scale=scale,
        effort_offset=offset,
        time_window=None if time_window is None else tuple(float(x) for x in time_window),
        velocity_source="message" if velocity is not None else "differentiated",
        zero_stamps=int(samples.zero_stamps),
    )
    idx = timed.index
    t, position, effort = timed.t, position[idx], effort[idx]
    velocity = None if velocity is None else velocity[idx]
    if len(t) < 2:
        raise DataError(f"too few samples: {len(t)} usable ({report.drop_text()})")
    if not np.ptp(t) > 0:
        raise DataError("the samples have no time spread (all stamps equal)")
    tau = effort
    if scale is not None:
        tau = tau * scale
    if offset is not None:
        tau = tau + offset
    return CleanData(
        t=t,
        position=position,
        velocity=velocity,
        tau=tau,
        effort_mask=mask,
        held=held,
        extra_joints=tuple(samples.extra_joints),
        report=report,
    )


def smooth(
    data,
    filter_window=0.05,
    polyorder=3,
    rate=None,
    gap_factor=5.0,
    samples_per_window=None,
    rest=False,
):
    """Uniformly sampled, differentiated and smoothed :class:`JointData` of cleaned samples.

    Args:
        data: :class:`CleanData`.
        filter_window: Savitzky-Golay window [s] for the differentiation and the smoothing.
        polyorder: its polynomial order.
        rate: resampling rate [Hz] (default: the robot's cycle when the stamps gave one, else
            the median sample interval).
        gap_factor: a jump longer than this many sample intervals and than a quarter of the
            filter window splits the data; a shorter one is bridged by interpolation.
        samples_per_window: keep every k-th smoothed sample so that about this many remain per
            window (the smoothed signals carry nothing faster), or None to keep all.
        rest: where the arm is at rest (:func:`~robot_dynamics.core.rest.at_rest`), velocity
            and acceleration 0 and the position the mean of the hold.

    Returns:
        JointData: the prepared data.

    Raises:
        DataError: no stretch longer than the filter window.
    """
    t = data.t
    stamps = data.report.stamps
    if rate:
        dt = 1.0 / rate
    elif stamps is not None and stamps.uniform:
        dt = stamps.cycle
    else:
        dt = float(np.median(np.diff(t)))
    window = max(polyorder + 2, int(round(filter_window / dt)) | 1)
    if window % 2 == 0:
        window += 1
    stride = max(1, window // samples_per_window) if samples_per_window else 1
    bridge = max(gap_factor * dt, 0.25 * filter_window)
    steps = np.diff(t)
    cuts = np.flatnonzero(steps > bridge) + 1
    bridged = int(np.count_nonzero((steps > 1.5 * dt) & (steps <= bridge)))
    q, v, tau = data.position, data.velocity, data.tau
    measured = np.asarray(data.effort_mask, bool)
    still = np.isfinite(data.held)
    out = {k: [] for k in ("t", "q", "qd", "qdd", "tau")}
    resolution = position_resolution(q)
    resting = 0
    rest_speeds = []  # the recorded velocities where the arm is at rest
    rest_samples = 0
    short = 0
    for seg in np.split(np.arange(len(t)), cuts):
        ts = t[seg]
        grid = np.arange(ts[0], ts[-1] + 0.5 * dt, dt)
        if len(grid) < window:
            short += len(seg)
            continue

        def resample(x):
            return np.column_stack([np.interp(grid, ts, x[seg, j]) for j in range(x.shape[1])])

        qs = resample(q)
        vs = None if v is None else resample(v)
        if vs is not None:
            qds = savgol_filter(vs, window, polyorder, axis=0)
        else:
            qds = savgol_filter(qs, window, polyorder, deriv=1, delta=dt, axis=0)
        qdds = savgol_filter(qds, window, polyorder, deriv=1, delta=dt, axis=0)
        qs[:, still], qds[:, still], qdds[:, still] = data.held[still], 0.0, 0.0
        still_arm = at_rest(qs, window, resolution)
        rest_samples += int(np.count_nonzero(still_arm))
        if vs is not None:  # the driver's velocity noise at rest
            rest_speeds.append(vs[still_arm])
        if rest:
            hold_means(qs, still_arm)
            qds[still_arm], qdds[still_arm] = 0.0, 0.0
            resting += int(np.count_nonzero(still_arm[::stride]))
        taus = np.full((len(grid), tau.shape[1]), np.nan)  # NaN where not measured
        taus[:, measured] = savgol_filter(resample(tau[:, measured]), window, polyorder, axis=0)
        keep = slice(None, None, stride)
        out["t"].append(grid[keep])
        out["q"].append(qs[keep])
        out["qd"].append(qds[keep])
        out["qdd"].append(qdds[keep])
        out["tau"].append(taus[keep])
    report = data.report
    if short:
        reason = f"{{n}} in stretches shorter than the filter window ({window} samples)"
        report = replace(report, drops=report.drops + ((reason, short),))
        report = replace(report, dropped=report.dropped + short)
    if not out["t"]:
        raise DataError(
            f"too few samples: no stretch of data longer than the filter window ({window} "
            f"samples of {dt * 1e3:.4g} ms; {report.drop_text()})"
        )
    report = replace(
        report,
        filter_window=window * dt,
        window_samples=window,
        stride=stride,
        bridged=bridged,
        stretches=len(out["t"]),
        at_rest=resting / sum(len(x) for x in out["t"]) if rest else None,
        rest_velocity=velocity_noise(np.concatenate(rest_speeds))
        if v is not None and rest_samples
        else None,
        rest_time=rest_samples * dt,
    )
    torque_window = max(polyorder + 2, (window // stride) | 1)  # the torque's filter, kept grid
    return JointData(
        t=np.concatenate(out["t"]),
        q=np.concatenate(out["q"]),
        qd=np.concatenate(out["qd"]),
        qdd=np.concatenate(out["qdd"]),
        tau=np.concatenate(out["tau"]),
        dropped=report.dropped,
        raw_samples=report.raw_samples,
        velocity_source=report.velocity_source,
        extra_joints=data.extra_joints,
        rate=1.0 / (dt * stride),
        effort_mask=data.effort_mask,
        held=data.held,
        report=report,
        window=torque_window,
        polyorder=polyorder,
        segments=tuple(np.cumsum([0] + [len(g) for g in out["t"][:-1]]).tolist()),
    )


def prepare(samples, filter_window=0.05, polyorder=3, rate=None, gap_factor=5.0, **options):
    """:func:`clean`, then :func:`smooth`.

    Args:
        samples: :class:`JointSamples`.
        filter_window: Savitzky-Golay window [s].
        polyorder: its polynomial order.
        rate: resampling rate [Hz] (default: from the stamps).
        gap_factor: see :func:`smooth`.
        **options: keyword arguments of :func:`clean`.

    Returns:
        JointData: the prepared data.

    Raises:
        DataError: see :func:`clean` and :func:`smooth`.
    """
    return smooth(clean(samples, **options), filter_window, polyorder, rate, gap_factor)


def default_hold(model):
    """Where a joint the recording does not carry is held: 0 (the URDF's zero) when it is
    within the joint's limits, else the middle of its range.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.

    Returns:
        tuple: ``(positions (n,) [rad or m], sources (n,) "URDF zero" or "mid-range")``.
    """
    positions, at_zero = default_positions(*model.position_limits)
    return positions, tuple("URDF zero" if z else "mid-range" for z in at_zero)


__all__ = [
    "CleanData",
    "DataError",
    "DataReport",
    "JointData",
    "JointSamples",
    "clean",
    "default_hold",
    "prepare",
    "smooth",
]
