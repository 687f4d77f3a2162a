"""A recording replayed through the dynamics node's estimation pipeline, offline.

Each recorded JointState message goes to :meth:`EstimationPipeline.update
<robot_dynamics.estimation.EstimationPipeline.update>` as the dynamics node hands it over: in
recording order (the order the node would have received them, not sorted), names mapped to model
order by the node's :class:`~robot_dynamics.ros.conversions.JointNameMap` (joints a message
does not carry are absent, unknown names ignored, a repeated name or a field of the wrong length
refuses the message, through the pipeline's ``refuse`` as the node does), and the message's
``header.stamp`` as ``t_ns``, decided for the whole recording by :func:`stamp_handling`
(:func:`~robot_dynamics.tools.identification_data.recording_times`: the times the messages were
recorded when no message is stamped, as the node would take its clock; messages stamped 0 among
stamped ones, a driver's before its clock ran, left out and counted).
Jitter, repeated stamps, gaps and stamps going backwards reach the pipeline untouched: it
restarts, pauses and counts exactly as the node does.

A logging PC's stamps (jitter about the robot's cycle, repeated samples, a stalled logger
stamping a burst of samples microseconds apart) are not the robot's: :func:`stamp_handling`
finds them as identify does (:func:`robot_dynamics.core.stamps.robot_time`) and, when they
only jitter about a cycle, gives the main driver's messages the robot's time base: repeats
dropped, gaps kept as gaps (the pipeline counts them and restarts its observer after long ones,
as the node does); another driver's messages (a gripper's) keep their stamps.

Recordings: a ROS 2 bag (directory, .mcap, .db3; ``sensor_msgs/JointState`` on a topic), read
with :func:`~robot_dynamics.tools.identification_data.joint_state_messages`, or a CSV file in
identify's column convention (``time`` [s], ``<joint>.position``, ``<joint>.velocity``,
``<joint>.effort``), one message per row in file order, read with
:func:`~robot_dynamics.tools.identification_data.read_csv_rows`.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import asdict, dataclass
from dataclasses import replace as _replace

import numpy as np

from robot_dynamics.core.effort_measurement import constant_efforts
from robot_dynamics.core.joint_data import DataError
from robot_dynamics.core.stamps import robot_time
from robot_dynamics.tools.identification_data import (
    JointStateMessage,
    joint_state_messages,
    read_csv_rows,
    recording_times,
)

#: ``--stamps`` choices: the robot's cycle when the stamps only jitter about one, the stamps as
#: recorded, the robot's cycle or an error.
STAMP_MODES = ("auto", "recorded", "cycle")
#: stamps are integer nanoseconds: a time base within this of every stamp changes nothing [s]
STAMP_RESOLUTION = 1e-9

#: Per-message status of a replay.
ESTIMATED, PAUSED, REFUSED = 0, 1, 2
STATUS_NAMES = ("estimated", "paused", "refused")


def recording_source(path, joint_names, topic="/joint_states"):
    """A function giving the messages of a recording, again on every call.

    Args:
        path: a bag (directory, .mcap, .db3) or a .csv file.
        joint_names: the model's joints, in order (the CSV's columns).
        topic: the JointState topic of a bag.

    Returns:
        callable: ``() -> iterable of JointStateMessage``.

    Raises:
        DataError: a CSV without a velocity column for a joint (:func:`no_velocity_text`), or
            unreadable (see read_csv_rows); a bag's problems are raised when its messages are
            first read.
    """
    path = str(path)
    if not path.lower().endswith(".csv"):
        return lambda: joint_state_messages(path, topic)
    rows = read_csv_rows(path, joint_names)
    if rows.velocity is None:
        with open(path, newline="", encoding="utf-8-sig") as f:
            header = {h.strip() for h in next(csv.reader(f))}
        lacking = [j for j in joint_names if f"{j}.velocity" not in header]
        raise DataError(no_velocity_text(f"CSV {path!r}", lacking, len(joint_names)))
    finite = np.isfinite(rows.t)
    if not finite.all():
        raise DataError(f"CSV {path!r}: 'time' is empty or not a number in row {_first(finite)}")
    stamps = np.rint(rows.t * 1e9).astype(np.int64)
    names = list(joint_names)

    def messages():
        for k in range(len(stamps)):
            yield JointStateMessage(
                log_ns=int(stamps[k]),
                stamp_ns=int(stamps[k]),
                names=names,
                position=rows.position[k],
                velocity=rows.velocity[k],
                effort=rows.effort[k],
            )

    return messages


@dataclass(frozen=True, eq=False)
class StampHandling:
    """What a recording's stamps show and how the replay uses them.

    Attributes:
        mode: the ``--stamps`` choice (one of STAMP_MODES).
        on_cycle: the messages are replayed on the robot's time base.
        messages: messages in the recording.
        repeated: repeats of the previous message found (dropped when ``on_cycle``).
        report: :class:`~robot_dynamics.core.stamps.StampReport` of the stamps.
        note: why the stamps are used as recorded ("" when ``on_cycle``).
        index: (M,) the messages replayed (recording order), or None for all.
        stamp_ns: (M,) their stamps [ns], or None for the recorded ones.
        zero_stamps: messages stamped 0 among stamped ones, left out.
        receive_times: no message is stamped: the times they were recorded are used.
        no_velocity: the model's joints the recording gives positions but never a velocity.
    """

    mode: str
    on_cycle: bool
    messages: int
    repeated: int
    report: object
    note: str = ""
    index: object = None
    stamp_ns: object = None
    zero_stamps: int = 0
    receive_times: bool = False
    no_velocity: tuple = ()

    def apply(self, messages):
        """The messages as replayed: the messages stamped 0 among stamped ones left out, the
        receive times as stamps when no message is stamped; repeats left out and stamps on the
        cycle when ``on_cycle``, else the stamps as recorded.

        Args:
            messages: iterable of JointStateMessage, the same recording in the same order.

        Yields:
            JointStateMessage: the messages to replay.
        """
        if self.index is None:
            yield from messages
            return
        j = 0
        for i, message in enumerate(messages):
            if j < len(self.index) and i == self.index[j]:
                yield _replace(message, stamp_ns=int(self.stamp_ns[j]))
                j += 1

    def as_dict(self):
        """JSON-ready: mode, on_cycle, note, messages, repeated, dropped, the messages stamped
        0 left out, whether receive times are used, and the report."""
        return {
            "mode": self.mode,
            "on_cycle": self.on_cycle,
            "note": self.note,
            "messages": self.messages,
            "zero_stamps": self.zero_stamps,
            "receive_times": self.receive_times,
            "repeated": self.repeated,
            "repeats_dropped": self.repeated if self.on_cycle else 0,
            "report": asdict(self.report),
        }


def stamp_handling(messages, joint_names, mode="auto"):
    """Find the robot's cycle in a recording's stamps and decide how to replay them.

    The stamps are the ones the pipeline gets (``header.stamp``; the recording times when no
    message is stamped; messages stamped 0 among stamped ones are left out:
    :func:`~robot_dynamics.tools.identification_data.recording_times`).
    Repeats are messages whose model-order position, velocity and effort equal the previous
    one's (:func:`~robot_dynamics.core.stamps.repeated_samples`; a message the node would refuse
    never counts as one). ``auto`` puts the rest on the robot's cycle when the stamps only
    jitter about it (as identify does) and keeps them otherwise; ``cycle`` requires that. The
    cycle is the main driver's: the messages carrying the set of joint names most messages carry
    (in any order); another driver's (a gripper's, at its own rate) keep their stamps.

    Args:
        messages: iterable of JointStateMessage in recording order.
        joint_names: the model's joints.
        mode: one of STAMP_MODES.

    Returns:
        StampHandling: the decision, with the report.

    Raises:
        DataError: an unknown mode, no message, or ``cycle`` with stamps that do not jitter
            about a cycle (naming what they do).
    """
    from robot_dynamics.ros.conversions import JointNameMap

    if mode not in STAMP_MODES:
        raise DataError(f"stamps must be one of {STAMP_MODES}, got {mode!r}")
    joints = JointNameMap(list(joint_names))
    n = joints.n
    stamps, logs, rows, drivers = [], [], [], []
    for i, message in enumerate(messages):
        stamps.append(message.stamp_ns)
        logs.append(message.log_ns)
        drivers.append(frozenset(message.names))  # a driver may order its names differently
        row = np.full(3 * n + 1, np.nan)
        try:
            _, _, fields = message.model_order(joints)
        except ValueError:
            row[-1] = i  # refused: never a repeat
        else:
            row[-1] = -1.0
            for f, values in enumerate(fields):
                if values is not None:
                    row[f * n : (f + 1) * n] = values
        rows.append(row)
    if not stamps:
        raise DataError("the recording has no JointState message")
    rows = np.array(rows)
    values = rows[:, :-1].reshape(len(rows), 3, n)
    lacking = np.any(np.isfinite(values[:, 0]), axis=0) & ~np.any(np.isfinite(values[:, 1]), axis=0)
    no_velocity = tuple(name for name, no in zip(joint_names, lacking) if no)
    t_ns, stamped = recording_times(stamps, logs)
    zero = int(np.count_nonzero(~stamped))
    unstamped = not any(stamps)
    # the robot's cycle is the main driver's (the set of names most messages carry); another
    # driver's messages (a gripper's, at its own rate) keep their stamps
    main = Counter(d for d, k in zip(drivers, stamped) if k).most_common(1)[0][0]
    ours = np.flatnonzero([d == main and k for d, k in zip(drivers, stamped)])
    timed = robot_time((t_ns[ours] - t_ns[ours[0]]) * 1e-9, [rows[ours]])
    report = timed.report
    repeated = int(np.count_nonzero(timed.repeat))
    note = "" if report.uniform else report.note
    if not note and np.any(np.diff(timed.index) < 0):
        note = "the stamps go backwards in recording order"
    if mode == "cycle" and note:
        raise DataError(f"--stamps cycle: no robot cycle in the stamps: {note}")
    if mode == "recorded" or note:
        index = np.flatnonzero(stamped) if zero or unstamped else None
        return StampHandling(
            mode, False, len(t_ns), repeated, report, note or "as asked",
            index, None if index is None else t_ns[index], zero, unstamped, no_velocity,
        )  # fmt: skip
    kept = ours[timed.index]
    cycle_ns = t_ns[ours[0]] + np.rint(timed.t * 1e9).astype(np.int64)
    if report.jitter_max < STAMP_RESOLUTION:
        cycle_ns = t_ns[kept]  # already on the cycle
    others = np.setdiff1d(np.flatnonzero(stamped), ours)
    index = np.concatenate([kept, others])
    new_ns = np.concatenate([cycle_ns, t_ns[others]])
    order = np.argsort(index, kind="stable")
    index, new_ns = index[order], new_ns[order]
    if not repeated and not zero and not unstamped and np.array_equal(new_ns, t_ns):
        return StampHandling(mode, True, len(t_ns), 0, report, no_velocity=no_velocity)
    return StampHandling(
        mode, True, len(t_ns), repeated, report, "", index, new_ns, zero, unstamped, no_velocity
    )


def no_velocity_text(source, joints, n):
    """Why a recording without velocities cannot be estimated, and the fix.

    Args:
        source: the recording, for the message.
        joints: the model's joints it gives no velocity.
        n: the model's joints in all.

    Returns:
        str: the message.
    """
    which = "any joint" if len(joints) == n else f"joints {list(joints)}"
    return (
        f"{source} has no velocity for {which} (positions only): the dynamics node estimates "
        "with the measured velocities and does not differentiate the positions, so it cannot run "
        "on this driver; record the driver's velocities (its velocity state interface; in a "
        "CSV, <joint>.velocity columns); identify, which differentiates the positions, is not "
        "affected"
    )


def _first(mask):
    return int(np.argmin(mask)) + 2  # 1-based, after the header row


@dataclass
class Replay:
    """Per-message outputs of the pipeline over a recording (k messages), model order.

    Attributes:
        stamp_ns: (k,) the stamp the pipeline got [ns] (int64).
        status: (k,) ESTIMATED, PAUSED or REFUSED (int8).
        external_torques: (k, n) ``tau_ext`` [N m or N], NaN where not estimated.
        velocity: (k, n) the joint velocities estimated with [rad/s or m/s], NaN where not
            estimated.
        measured_torques: (k, n) the measured torques estimated with (``effort_scale * effort
            + effort_offset``, before friction compensation) [N m or N], NaN where not
            estimated: ``measured_torques + external_torques`` is the model's torque (its
            friction included).
        wrench: (k, 6) ``[fx fy fz tx ty tz]`` [N, N m] in the wrench frame's axes, moment about
            its origin (components not estimated are 0), NaN where none.
        in_contact: (k,) 1/0 the detector's state after the message, -1 with contact detection
            off (int8).
        contact_link: (k,) object array of the isolated link ('' when not in contact).
        contact_onsets: (k,) bool, a contact started with this message.
        status_counts: the pipeline's :meth:`status` after the last message.
        refusals: reason -> count of messages refused (by the name mapping or the pipeline),
            each kind of reason (the same text but for its numbers) under its first message.
        pauses: reason -> count of messages without an estimate (the same way).
        unknown_joints: joint names in the recording that the model does not have (its mimic
            and locked joints are not unknown).
        missing_joints: the model's joints the recording never gave a position.
        constant_efforts: ``(joint, reason)`` of the joints whose effort is no measurement (one
            value in every message while another joint's varies, such as a gripper's reporting 0:
            :func:`~robot_dynamics.core.effort_measurement.constant_efforts`): their external
            torque is the model's torque, no estimate.
        wrench_frame: the wrench's link ('' without one).
        wrench_components: the estimated components.
        joint_names: the model's joints.
        position: (k, n) the joint positions estimated with [rad or m], NaN where not
            estimated.
    """

    stamp_ns: np.ndarray
    status: np.ndarray
    external_torques: np.ndarray
    velocity: np.ndarray
    measured_torques: np.ndarray
    wrench: np.ndarray
    in_contact: np.ndarray
    contact_link: np.ndarray
    contact_onsets: np.ndarray
    status_counts: dict
    refusals: dict
    pauses: dict
    unknown_joints: tuple
    missing_joints: tuple
    constant_efforts: tuple
    wrench_frame: str
    wrench_components: tuple
    joint_names: tuple
    position: np.ndarray = None

    @property
    def time(self):
        """(k,) seconds since the first message's stamp."""
        if not len(self.stamp_ns):
            return np.zeros(0)
        return (self.stamp_ns - self.stamp_ns[0]) * 1e-9

    @property
    def estimated(self):
        """(k,) bool: the message has external torques."""
        return self.status == ESTIMATED


class _Growing:
    """Rows appended in blocks (a long recording's outputs without a Python list per row)."""

    def __init__(self, width, dtype, fill):
        self.width, self.dtype, self.fill = width, dtype, fill
        self.data = np.full((1024,) + width, fill, dtype=dtype)
        self.size = 0

    def row(self):
        if self.size == len(self.data):
            grown = np.full((2 * len(self.data),) + self.width, self.fill, dtype=self.dtype)
            grown[: self.size] = self.data
            self.data = grown
        self.size += 1
        return self.size - 1

    def array(self):
        return self.data[: self.size].copy()


def replay(pipeline, messages):
    """Run a pipeline over a recording's messages as the dynamics node would.

    Args:
        pipeline: a fresh :class:`~robot_dynamics.estimation.EstimationPipeline`.
        messages: iterable of :class:`~robot_dynamics.tools.identification_data.JointStateMessage`
            in recording order, their ``stamp_ns`` the times decided for the recording
            (:meth:`StampHandling.apply`).

    Returns:
        Replay: the per-message outputs.

    Raises:
        DataError: the recording has no message.
    """
    from robot_dynamics.ros.conversions import JointNameMap

    n = pipeline.n
    joints = JointNameMap(pipeline.joint_names, pipeline.model.derived_joints)
    stamps = _Growing((), np.int64, 0)
    status = _Growing((), np.int8, REFUSED)
    tau = _Growing((n,), float, np.nan)
    effort = _Growing((n,), float, np.nan)
    velocity = _Growing((n,), float, np.nan)
    position = _Growing((n,), float, np.nan)
    measured = _Growing((n,), float, np.nan)
    wrench = _Growing((6,), float, np.nan)
    contact = _Growing((), np.int8, -1)
    onset = _Growing((), bool, False)
    links = {}
    refusals, pauses, unknown = {}, {}, set()
    refusal_kinds, pause_kinds = {}, {}
    for message in messages:
        i = stamps.row()
        for grown in (status, tau, effort, velocity, position, measured, wrench, contact, onset):
            grown.row()
        t_ns = message.stamp_ns
        stamps.data[i] = t_ns
        try:
            present, extra, fields = message.model_order(joints)
        except ValueError as error:
            pipeline.refuse(t_ns, str(error))  # counted with the pipeline's refusals
            _count(refusals, refusal_kinds, str(error))
            continue
        unknown.update(extra)
        if fields[2] is not None:
            effort.data[i] = fields[2]
        out = pipeline.update(t_ns, *fields, present=present)
        if out.refused:
            _count(refusals, refusal_kinds, out.refused)
            continue
        if out.external_torques is None:
            status.data[i] = PAUSED
            _count(pauses, pause_kinds, out.estimation_paused)
        else:
            status.data[i] = ESTIMATED
            tau.data[i] = out.external_torques
            position.data[i], velocity.data[i], used = pipeline.measured_state()
            measured.data[i] = pipeline.measured_torques(used)
            if out.wrench is not None:
                wrench.data[i] = out.wrench
        if out.contact is not None:
            contact.data[i] = 1 if out.contact.in_contact else 0
            onset.data[i] = out.contact.changed and out.contact.in_contact
            if out.contact.link:
                links[i] = out.contact.link
    if stamps.size == 0:
        raise DataError("the recording has no JointState message")
    link = np.full(stamps.size, "", dtype=object)
    for i, name in links.items():
        link[i] = name
    return Replay(
        stamp_ns=stamps.array(),
        status=status.array(),
        external_torques=tau.array(),
        velocity=velocity.array(),
        measured_torques=measured.array(),
        wrench=wrench.array(),
        in_contact=contact.array(),
        contact_link=link,
        contact_onsets=onset.array(),
        status_counts=pipeline.status(),
        refusals=refusals,
        pauses=pauses,
        unknown_joints=tuple(sorted(unknown)),
        missing_joints=tuple(
            name
            for name, q in zip(pipeline.joint_names, pipeline.measured_state()[0])
            if np.isnan(q)
        ),
        constant_efforts=constant_efforts(pipeline.joint_names, effort.array(), "message"),
        wrench_frame=pipeline.wrench_frame or "",
        wrench_components=tuple(pipeline.wrench_components) if pipeline.wrench_frame else (),
        joint_names=tuple(pipeline.joint_names),
        position=position.array(),
    )


_NUMBER = re.compile(r"(?<![\w.])[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
MAX_REASONS = 20


def _count(counts, kinds, text):
    """Count a reason under the first message of its kind (the same text but for its numbers,
    which make every message's differ); at most MAX_REASONS kinds, the rest counted as 'other'.

    Args:
        counts: reason -> count, updated.
        kinds: the reason's text with its numbers replaced by '#' -> its first message, updated.
        text: the message's reason.
    """
    text = text or "no estimate"
    kind = _NUMBER.sub("#", text)
    key = kinds.get(kind)
    if key is None:
        key = kinds[kind] = text if len(kinds) < MAX_REASONS else "other"
    counts[key] = counts.get(key, 0) + 1


__all__ = [
    "ESTIMATED",
    "PAUSED",
    "REFUSED",
    "Replay",
    "STAMP_MODES",
    "STATUS_NAMES",
    "StampHandling",
    "recording_source",
    "replay",
    "no_velocity_text",
    "stamp_handling",
]
