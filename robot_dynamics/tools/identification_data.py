"""Recorded joint data for identification: ROS 2 bags (read with the PyPI ``rosbags`` library,
no ROS installation needed) and CSV files, turned into uniformly sampled ``q, qd, qdd, tau``.

- Bags: a rosbag2 directory, or a single ``.mcap`` or ``.db3`` file; ``sensor_msgs/JointState``
  on a selectable topic (default ``/joint_states``). Messages are merged by joint name in stamp
  order (``header.stamp``, decided per recording by :func:`recording_times`: the bag's receive
  times when every stamp is 0; messages stamped 0 among stamped ones are left out and counted):
  a message may carry a subset of the joints in any order, messages with the same stamp form
  one sample, and a joint keeps its last value for at most ``max_age`` seconds.
- CSV: a header row with ``time`` [s] and per joint ``<joint>.position`` and optionally
  ``<joint>.effort`` and ``<joint>.velocity``.

Model joints the recording does not carry (no positions at all: a head, a gripper) are held at a
position; joints without a real effort are left out of the fit's rows; logger repeats, NaN and
missing fields are dropped and counted by column; the stamps are put on the robot's cycle when
they only jitter around it; the rest is split at long gaps, resampled and filtered
(:mod:`robot_dynamics.core.joint_data`, shared with the node's ``~/identify_payload``), with the
filter window chosen from the data unless given (:mod:`robot_dynamics.core.filter_window`).
"""

import collections
import csv
import math
import os
from dataclasses import dataclass, replace

import numpy as np
from robot_dynamics.core.filter_window import smooth_with_window
from robot_dynamics.core.joint_data import (
    DataError,
    JointData,
    JointSamples,
    clean,
    default_hold,
)
from robot_dynamics.core.recorded_motion import (
    VELOCITY_RATIO_LIMIT,
    periodic_joints,
    unfollowed_velocities,
    unwrap_positions,
    velocity_ratio,
)
from robot_dynamics.estimation.joint_names import missing_joints_hint, renamed_joints


# ------------------------------------------------------------------ readers
def read_bag(path, joint_names, topic="/joint_states", max_age=0.05):
    """Merged :class:`JointSamples` of a bag's JointState messages on ``topic``.

    Args:
        path: bag directory, .mcap or .db3 file.
        joint_names: the model's joints, in order.
        topic: the JointState topic.
        max_age: a joint keeps its last value for at most this long [s].

    Returns:
        JointSamples: the merged samples (``zero_stamps``: the messages stamped 0 among
        stamped ones, left out).

    Raises:
        DataError: the path does not exist or is not a bag, the topic is missing or of another
            type, or none of the model's joints is in the messages.
    """
    messages = list(joint_state_messages(path, topic))
    times, kept = recording_times([m.stamp_ns for m in messages], [m.log_ns for m in messages])
    merged = merge_messages(
        [
            (int(t), m.names, m.position, m.velocity, m.effort)
            for t, m, k in zip(times, messages, kept)
            if k
        ],
        joint_names,
        max_age=max_age,
        source=f"topic {topic!r}",
    )
    return replace(merged, zero_stamps=int(np.count_nonzero(~kept)))


def recording_times(stamp_ns, log_ns):
    """The times of a recording's messages, decided for the whole recording: the header
    stamps; the bag's receive times when every stamp is 0 (a driver that does not stamp).
    Messages stamped 0 among stamped ones are a driver's before its clock ran (a simulation
    publishing before ``/clock`` arrives): they are left out, never given a receive time on
    another clock. One message stamped 0 that comes first and is followed within two of the
    recording's median intervals is the clock's own start (simulated time from 0): kept.

    Args:
        stamp_ns: (k,) ``header.stamp`` [ns], recording order.
        log_ns: (k,) the bag's receive times [ns].

    Returns:
        tuple: ``(times (k,) [ns] int64, kept (k,) bool)``; ``kept`` False for the messages
        left out.
    """
    stamps = np.asarray(stamp_ns, dtype=np.int64).reshape(-1)
    if not stamps.any():
        return np.asarray(log_ns, dtype=np.int64).reshape(-1), np.ones(stamps.size, bool)
    kept = stamps != 0
    if np.count_nonzero(~kept) == 1 and not kept[0] and stamps.size > 2:
        median = np.median(np.diff(np.sort(stamps[1:])))
        kept[0] = stamps[1] <= 2 * median
    return stamps, kept


@dataclass(frozen=True)
class JointStateMessage:
    """One sensor_msgs/JointState message of a bag.

    Attributes:
        log_ns: the bag's recording time [ns].
        stamp_ns: ``header.stamp`` [ns] (0: not stamped; :func:`recording_times` decides a
            recording's times).
        names: joint names, message order.
        position: (k,) positions [rad or m] (empty when the message has none).
        velocity: (k,) velocities (empty when the message has none).
        effort: (k,) efforts (empty when the message has none).
    """

    log_ns: int
    stamp_ns: int
    names: list
    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray

    def model_order(self, joints):
        """The message's fields in a model's joint order.

        Args:
            joints: the model's :class:`~robot_dynamics.ros.conversions.JointNameMap`.

        Returns:
            tuple: ``(present, unknown names, (position, velocity, effort))`` as
            ``JointNameMap.fields`` gives them.

        Raises:
            ValueError: a repeated name, or a field whose length differs from the names'.
        """
        fields = (("position", self.position), ("velocity", self.velocity))
        return joints.fields(self.names, fields + (("effort", self.effort),), "joint_states")


def joint_state_messages(path, topic="/joint_states"):
    """The JointState messages of a bag on ``topic``, in recording order, read as they are
    iterated (a long bag is never held in memory).

    Args:
        path: bag directory, .mcap or .db3 file.
        topic: the JointState topic.

    Yields:
        JointStateMessage: the messages.

    Raises:
        DataError: the path does not exist or is not a bag, the topic is missing or of another
            type (on the first iteration).
    """
    from rosbags.highlevel import AnyReader, AnyReaderError
    from rosbags.typesys import Stores, get_typestore

    if not os.path.exists(path):
        raise DataError(f"no such bag: {path!r}")
    try:
        reader = AnyReader([_path(path)], default_typestore=get_typestore(Stores.ROS2_JAZZY))
        reader.open()
    except (AnyReaderError, OSError, ValueError) as err:
        raise DataError(f"cannot read bag {path!r}: {err}") from None
    try:
        connections = [c for c in reader.connections if c.topic == topic]
        if not connections:
            topics = sorted({f"{c.topic} ({c.msgtype})" for c in reader.connections})
            raise DataError(
                f"bag {path!r} has no topic {topic!r}; its topics: {', '.join(topics) or 'none'}"
            )
        bad = [c.msgtype for c in connections if c.msgtype != "sensor_msgs/msg/JointState"]
        if bad:
            raise DataError(f"topic {topic!r} carries {bad[0]}, not sensor_msgs/msg/JointState")
        for connection, timestamp, raw in reader.messages(connections=connections):
            msg = reader.deserialize(raw, connection.msgtype)
            yield JointStateMessage(
                log_ns=int(timestamp),
                stamp_ns=msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec,
                names=list(msg.name),
                position=np.asarray(msg.position, dtype=float),
                velocity=np.asarray(msg.velocity, dtype=float),
                effort=np.asarray(msg.effort, dtype=float),
            )
    finally:
        reader.close()


def _path(path):
    from pathlib import Path

    return Path(path)


def merge_messages(messages, joint_names, max_age=0.05, source="the recording"):
    """Merge JointState-like messages by joint name into :class:`JointSamples` (see the module
    docstring).

    Args:
        messages: iterable of ``(stamp_ns, names, position, velocity, effort)``.
        joint_names: the model's joints, in order.
        max_age: a joint keeps its last value for at most this long [s].
        source: what the messages come from, for messages.

    Returns:
        JointSamples: the merged samples (NaN columns for the joints the messages never carry).

    Raises:
        DataError: none of the model's joints is in the messages.
    """
    index = {name: k for k, name in enumerate(joint_names)}
    n = len(joint_names)
    messages = list(messages)
    stamps = np.array([m[0] for m in messages], dtype=float) * 1e-9
    check_time_order(stamps, source, "message", first=1)
    messages = sorted(messages, key=lambda m: m[0])
    seen, extra = set(), set()
    for _, names, *_ in messages:
        seen.update(names)
    extra = tuple(sorted(seen - set(index)))
    _check_some_joints(joint_names, seen, source)
    has_velocity = any(len(m[3]) for m in messages)
    last = np.full((3, n), np.nan)
    last_t = np.full(n, -np.inf)
    times, rows = [], []
    max_age_ns = max_age * 1e9

    def emit(stamp):
        fresh = (stamp - last_t) <= max_age_ns
        row = np.where(fresh, last, np.nan)
        times.append(stamp)
        rows.append(row)

    current = None
    for stamp, names, pos, vel, eff in messages:
        if current is not None and stamp != current:
            emit(current)
        current = stamp
        for i, name in enumerate(names):
            k = index.get(name)
            if k is None:
                continue
            last[0, k] = pos[i] if i < len(pos) else np.nan
            last[1, k] = vel[i] if i < len(vel) else np.nan
            last[2, k] = eff[i] if i < len(eff) else np.nan
            last_t[k] = stamp
    if current is not None:
        emit(current)
    data = np.array(rows).reshape(-1, 3, n)
    return JointSamples(
        t=(np.array(times, dtype=np.int64) - (times[0] if times else 0)) * 1e-9,
        position=data[:, 0],
        velocity=data[:, 1] if has_velocity else None,
        effort=data[:, 2],
        extra_joints=extra,
        joint_names=tuple(joint_names),
    )


def _check_some_joints(joint_names, seen, source):
    if not any(name in seen for name in joint_names):
        hint = renamed_joints(joint_names, seen)
        raise DataError(
            f"joints {list(joint_names)} of the model are not in {source} (it has "
            f"{sorted(seen) or 'no joints'}); " + (hint if hint else "is it the right robot?")
        )


#: A step back in time [s] longer than this in recording order is no reordering of a logger's
#: messages but two recordings in one (a logger or driver restarted, files concatenated).
MAX_BACKWARDS = 0.5
#: Times beyond this [s] (some 300 years) are not seconds.
MAX_TIME = 1e10


def check_units(model, position):
    """Refuse positions that lie far beyond a joint's limits, as positions written in degrees do
    (57 times their value): beyond them by more than twice the range (and 2 rad or m), which no
    URDF whose limits are merely too tight explains. A joint without limits, or with a range of
    0, is not judged.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        position: (N, n) recorded positions, model order, NaN where none.

    Raises:
        DataError: naming the joint, its furthest position and its limits.
    """
    lower, upper = (np.asarray(v, dtype=float) for v in model.position_limits)
    span = upper - lower
    span = np.where(np.isfinite(span) & (span > 0.0), span, np.inf)
    high = np.nanmax(position, axis=0, initial=-np.inf)
    low = np.nanmin(position, axis=0, initial=np.inf)
    beyond = np.fmax(high - upper, lower - low)
    far = beyond > np.maximum(2.0 * span, 2.0)
    if far.any():
        j = int(np.argmax(np.where(far, beyond, -np.inf)))
        reach = high[j] if high[j] - upper[j] >= lower[j] - low[j] else low[j]
        raise DataError(
            f"joint {model.joint_names[j]!r} reaches {reach:.6g}, beyond its limits "
            f"[{lower[j]:.6g}, {upper[j]:.6g}] by more than twice their range: positions in "
            "degrees? (the recording must be in rad and m)"
        )


def check_velocity_units(samples, periodic=None):
    """Refuse a recording whose velocities are not its positions' rate of change: a time column
    in milliseconds (velocities 1000 times it) or velocities in deg/s (57 times) give a
    nonsense model with every check passed.

    Args:
        samples: the :class:`~robot_dynamics.core.joint_data.JointSamples` (no velocities:
            nothing to check).
        periodic: (n,) bool, the joints whose positions may be wrapped by whole turns
            (:func:`~robot_dynamics.core.recorded_motion.periodic_joints`), or None.

    Raises:
        DataError: naming the scale found and the likely cause.
    """
    if samples.velocity is None:
        return
    ratios = velocity_ratio(samples.t, samples.position, samples.velocity, periodic=periodic)
    known = ratios[np.isfinite(ratios)]
    if known.size == 0:
        return
    ratio = float(np.median(known))
    if 1.0 / VELOCITY_RATIO_LIMIT <= ratio <= VELOCITY_RATIO_LIMIT:
        return
    if 300.0 <= ratio <= 3000.0:
        hint = "the time in milliseconds? (the recording must be in seconds)"
    elif 30.0 <= ratio <= 120.0:
        hint = "velocities in deg/s? (the recording must be in rad/s and m/s)"
    else:
        hint = "time not in seconds, or velocities not in rad/s and m/s?"
    moving = [
        f"{samples.joint_names[j]} x{ratios[j]:.3g}" if samples.joint_names else f"x{ratios[j]:.3g}"
        for j in np.flatnonzero(np.isfinite(ratios))
    ]
    raise DataError(
        f"the recorded velocities are {ratio:.3g} times the positions' rate of change "
        f"(d position / d time: {', '.join(moving[:7])}): {hint}"
    )


def check_time_order(t, source, item, first=0):
    """Refuse times that no sorting makes one recording: a step back longer than
    :data:`MAX_BACKWARDS` (shorter ones, a logger's reordering, are sorted).

    Args:
        t: (k,) times [s] in recording order (NaN ignored).
        source: the recording, for messages.
        item: what one time belongs to ("row", "message").
        first: the number of the first item.

    Raises:
        DataError: naming where the time goes back, and by how much.
    """
    t = np.asarray(t, dtype=float)
    finite = np.flatnonzero(np.isfinite(t))
    if finite.size < 2:
        return
    steps = np.diff(t[finite])
    k = int(np.argmin(steps))
    if steps[k] < -MAX_BACKWARDS:
        raise DataError(
            f"{source}: the time goes back by {-steps[k]:.6g} s at {item} {finite[k + 1] + first} "
            f"(from {t[finite[k]]:.6g} to {t[finite[k + 1]]:.6g} s): two recordings in one (a "
            "logger or driver restarted)? identify one part at a time"
        )


def read_csv(path, joint_names):
    """:class:`JointSamples` of a CSV file (see the module docstring), in time order.

    Args:
        path: the CSV file.
        joint_names: the model's joints, in order.

    Returns:
        JointSamples: the samples; NaN columns for a joint without position or effort columns,
        velocity None when no joint has a velocity column.

    Raises:
        DataError: unreadable, no data rows, no 'time' column, or no position column of any of
            the model's joints.
    """
    rows = read_csv_rows(path, joint_names, complete=False)
    check_time_order(rows.t, f"CSV {path!r}", "row", first=2)
    order = np.argsort(rows.t, kind="stable")
    t = rows.t[order]
    return JointSamples(
        t=t - (t[0] if len(t) and np.isfinite(t[0]) else 0.0),
        position=rows.position[order],
        velocity=rows.velocity[order] if rows.velocity is not None else None,
        effort=rows.effort[order],
        extra_joints=rows.extra_joints,
        joint_names=rows.joint_names,
    )


def read_csv_rows(path, joint_names, complete=True):
    """The rows of a CSV file (see the module docstring) in file order, times as written.

    Args:
        path: the CSV file.
        joint_names: the model's joints, in order.
        complete: every joint must have its position and effort columns; False: a joint
            without a column gets NaN there (a joint the recording does not carry, or without
            an effort).

    Returns:
        JointSamples: ``t`` (k,) the 'time' column [s] as written, file order; position, effort
        (k, n); velocity (k, n), or None when a joint (``complete``) or every joint has no
        velocity column; cells that are empty or not numbers are NaN.

    Raises:
        DataError: unreadable, no data rows, no 'time' column, a column twice, times beyond
            :data:`MAX_TIME` (not seconds), or missing joint columns (with ``complete=False``:
            no position column of any of the model's joints).
    """
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:  # (a spreadsheet's BOM)
            rows = list(csv.reader(f))
    except OSError as err:
        raise DataError(f"cannot read CSV {path!r}: {err}") from None
    if len(rows) < 2:
        raise DataError(f"CSV {path!r} has no data rows")
    header = [h.strip() for h in rows[0]]
    col = {h: i for i, h in enumerate(header)}
    twice = sorted(h for h, k in collections.Counter(header).items() if k > 1)
    if twice:
        raise DataError(f"CSV {path!r} has the columns {twice} more than once")
    if "time" not in col:
        raise DataError(f"CSV {path!r} has no 'time' column (header: {header})")
    known = {h.rsplit(".", 1)[0] for h in header if "." in h}
    if complete:
        missing = [
            f"{j}.{field}"
            for j in joint_names
            for field in ("position", "effort")
            if f"{j}.{field}" not in col
        ]
        if missing:
            absent = [j for j in joint_names if f"{j}.position" not in col]
            hint = missing_joints_hint(absent, sorted(known - set(joint_names)), len(joint_names))
            raise DataError(
                f"CSV {path!r} lacks columns {missing[:4]}{' ...' if len(missing) > 4 else ''} "
                f"(its joints: {sorted(known)})" + (f"; {hint}" if hint else "")
            )
    else:
        positions = {h.rsplit(".", 1)[0] for h in header if h.endswith(".position")}
        _check_some_joints(joint_names, positions, f"CSV {path!r} (no '<joint>.position' columns)")

    def number(text):
        try:
            return float(text)
        except ValueError:
            return math.nan

    table = np.array(
        [[number(r[i]) if i < len(r) else math.nan for i in range(len(header))] for r in rows[1:]]
    )
    t = table[:, col["time"]]
    if np.nanmax(np.abs(t), initial=0.0) > MAX_TIME:
        raise DataError(
            f"CSV {path!r}: 'time' reaches {np.nanmax(np.abs(t)):.6g}, beyond {MAX_TIME:g} s: the "
            "time column is in seconds (nanoseconds? divide them by 1e9)"
        )
    with_velocity = [f"{j}.velocity" in col for j in joint_names]
    has_velocity = all(with_velocity) if complete else any(with_velocity)

    def block(field):
        nan = np.full(len(table), math.nan)
        return np.column_stack(
            [table[:, col[f"{j}.{field}"]] if f"{j}.{field}" in col else nan for j in joint_names]
        )

    return JointSamples(
        t=t,
        position=block("position"),
        velocity=block("velocity") if has_velocity else None,
        effort=block("effort"),
        extra_joints=tuple(sorted(known - set(joint_names))),
        joint_names=tuple(joint_names),
    )


# ------------------------------------------------------------------ processing
def read_samples(path, joint_names, topic="/joint_states"):
    """:class:`JointSamples` of a bag (directory, .mcap, .db3) or a .csv file.

    Args:
        path: the recording.
        joint_names: the model's joints, in order.
        topic: the JointState topic of a bag.

    Returns:
        JointSamples: the merged samples.

    Raises:
        DataError: see :func:`read_bag` and :func:`read_csv`.
    """
    if str(path).lower().endswith(".csv"):
        return read_csv(path, joint_names)
    return read_bag(path, joint_names, topic=topic)


#: smoothed samples kept per filter window (every k-th: the smoothed signals carry nothing
#: faster, and the fit's cost grows with the samples)
SAMPLES_PER_WINDOW = 20


#: where a held joint's position comes from when the recording carries it without moving it
STILL_SOURCE = "still in the recording"


def load_identification_data(
    path,
    model,
    window_fit=None,
    *,
    topic="/joint_states",
    filter_window=None,
    holdout=0.2,
    hold=None,
    rest=False,
    **options,
):
    """Identification data of a recording: cleaned, the filter window chosen from the data
    (unless given), smoothed.

    Args:
        path: the recording (bag or CSV).
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel`.
        window_fit: ``window_fit(CleanData) -> fit``, the fit that chooses the window
            (:func:`~robot_dynamics.core.filter_window.choose_filter_window`; None when
            ``filter_window`` is given).
        topic: the JointState topic of a bag.
        filter_window: Savitzky-Golay window [s], or None to choose it.
        holdout: the last fraction of the data that validates the final fit (kept out of the
            choice).
        hold: joint name -> position [rad or m] of joints to hold still: where the recording
            does not carry them, and where it does (default for the joints it lacks:
            :func:`~robot_dynamics.core.joint_data.default_hold`; joints it carries without
            moving them are held where they stood).
        rest: velocity and acceleration 0 where the arm is at rest
            (:func:`~robot_dynamics.core.joint_data.smooth`).
        **options: keyword arguments of :func:`robot_dynamics.core.joint_data.clean`
            (``time_window``, ``effort_scale``, ``effort_offset``, ``ignore_effort``,
            ``cycle``, ``keep_stamps``).

    Returns:
        tuple: ``(JointData, hold_sources)``: the data (its ``report.window_choice`` set when
        the window was chosen; velocities differentiated from the positions, and
        ``report.unfollowed_velocities`` naming the joints, when recorded velocities stay 0 or
        do not follow the positions of a joint that moves; turning joints' positions wrapped by
        whole turns unwrapped, ``report.unwrapped`` naming them) and, per held joint, where its
        position comes from ("given", "URDF zero", "mid-range", :data:`STILL_SOURCE`).

    Raises:
        DataError: an unknown joint to hold, and see :func:`read_samples`,
            :func:`~robot_dynamics.core.joint_data.clean` and
            :func:`~robot_dynamics.core.filter_window.smooth_with_window`.
    """
    names = list(model.joint_names)
    positions, sources = default_hold(model)
    sources = list(sources)
    for name, value in (hold or {}).items():
        if name not in names:
            raise DataError(f"unknown joint {name!r} to hold; joints: {names}")
        positions[names.index(name)] = float(value)
        sources[names.index(name)] = "given"
    samples = read_samples(path, names, topic)
    check_units(model, samples.position)
    periodic = periodic_joints(model)
    check_velocity_units(samples, periodic)
    unfollowed = ()
    if samples.velocity is not None:
        unfollowed = tuple(
            unfollowed_velocities(samples.t, samples.position, samples.velocity, periodic=periodic)
        )
        if unfollowed:  # zeros from a driver without velocities: the positions differentiated
            samples = replace(samples, velocity=None)
    position, wraps = unwrap_positions(samples.position, periodic)
    samples = replace(samples, position=position)
    # the model's mimic and locked joints are in the URDF: not joints it lacks
    derived = model.derived_joints
    samples = replace(
        samples, extra_joints=tuple(j for j in samples.extra_joints if j not in derived)
    )
    given = tuple(hold or {})
    cleaned = clean(samples, effort_mask="auto", hold=positions, hold_joints=given, **options)
    if filter_window is None and window_fit is None:
        raise ValueError("choosing the filter window needs the fit that judges it")
    data = smooth_with_window(
        cleaned,
        None if filter_window is not None else window_fit(cleaned),
        filter_window,
        holdout=holdout,
        samples_per_window=SAMPLES_PER_WINDOW,
        rest=rest,
    )
    unwrapped = tuple((names[j], int(wraps[j])) for j in np.flatnonzero(wraps))
    report = replace(data.report, unfollowed_velocities=unfollowed, unwrapped=unwrapped)
    data = replace(data, report=report)
    held = {
        name: STILL_SOURCE
        if name in report.still and name not in given
        else sources[names.index(name)]
        for name, _ in report.held
    }
    return data, held


def write_bag(path, messages, topic="/joint_states", storage="mcap", received=None):
    """Write JointState messages to a new bag (for tests, demos and offline recordings).

    Args:
        path: bag directory to create.
        messages: iterable of ``(t [s], names, position, velocity, effort)``, ``t`` the header
            stamp; velocity or effort may be empty.
        topic: topic name.
        storage: "mcap" or "sqlite3".
        received: (k,) the bag's receive time of each message [s] (a recorder's clock), or
            None for the stamps.
    """
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS2_JAZZY)
    JointState = store.types["sensor_msgs/msg/JointState"]
    Header = store.types["std_msgs/msg/Header"]
    Time = store.types["builtin_interfaces/msg/Time"]
    plugin = StoragePlugin.MCAP if storage == "mcap" else StoragePlugin.SQLITE3
    with Writer(path, version=9, storage_plugin=plugin) as writer:
        conn = writer.add_connection(topic, JointState.__msgtype__, typestore=store)
        for k, (t, names, position, velocity, effort) in enumerate(messages):
            ns = int(round(float(t) * 1e9))
            log_ns = ns if received is None else int(round(float(received[k]) * 1e9))
            stamp = Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)
            msg = JointState(
                header=Header(stamp=stamp, frame_id=""),
                name=list(names),
                position=np.asarray(position, dtype=float),
                velocity=np.asarray(velocity, dtype=float),
                effort=np.asarray(effort, dtype=float),
            )
            writer.write(conn, log_ns, store.serialize_cdr(msg, JointState.__msgtype__))


__all__ = [
    "DataError",
    "JointData",
    "JointSamples",
    "SAMPLES_PER_WINDOW",
    "STILL_SOURCE",
    "load_identification_data",
    "merge_messages",
    "JointStateMessage",
    "joint_state_messages",
    "read_bag",
    "read_csv",
    "read_csv_rows",
    "read_samples",
    "recording_times",
    "write_bag",
]
