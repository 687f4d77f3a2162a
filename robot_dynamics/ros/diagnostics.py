"""The dynamics node's /diagnostics status: its counters and the pipeline's status() as key/value
pairs, and a level with the reasons.

Levels: ERROR without a model, when the effort command is on but not published (withheld: not finite
or not computable; joint_states refused or lacking positions; the reason is given), when outputs
were suppressed as non-finite, or when a callback raised; WARN when no joint_states came or they (or
~/reference messages) were refused or skipped since the last status, their stamps went backwards or
jumped beyond ``observer_max_dt`` (each restarts the observer) or came late (before their driver's
newest: dropped), more than :data:`SHED_WARN_FRACTION` of them were shed (those shed at start aside:
they are counted only, see ``LatestMessages``), efforts are stale, the estimation paused on every
message since the last status (positions missing, no or stale velocities or efforts: the pipeline's
``last_pause`` says which), the selected wrench problem is near-singular, or a joint's effort is no
measurement over the latest :data:`EFFORT_CHECK_MESSAGES` messages (one value in every message while
another joint's varies, such as a gripper's reporting 0:
:func:`~robot_dynamics.core.effort_measurement.constant_efforts`); OK otherwise. What lasts the
node logs as well (:data:`LOGGED`).
"""

import time
from dataclasses import dataclass
from typing import NamedTuple

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue

from robot_dynamics.core.effort_measurement import constant_efforts, constant_efforts_text
from robot_dynamics.core.inertia import inertia_warning_lines
from robot_dynamics.core.joint_warnings import joint_warning_lines

from .description import locked_joints_text


#: Fraction of a period's joint_states above which shed ones make the status WARN (and the node
#: log it): the node does not keep up. Below it, a message superseded by the next one of a burst
#: (a driver's jitter, a busy moment of the machine) is only counted.
SHED_WARN_FRACTION = 0.01

#: What the node logs of a status, by kind: (level, shortest interval between two lines [s]).
#: The rest is in /diagnostics only. A problem that lasts (the effort command withheld, the
#: estimation paused on every message, no joint_states) reaches the console as well: a user
#: without a diagnostics viewer sees why an output is missing.
LOGGED = {
    "withheld": ("error", 5.0),
    "shed": ("warning", 5.0),
    "paused": ("warning", 10.0),
    "no_joint_states": ("warning", 30.0),
    "no_effort": ("warning", 60.0),
}


class LogLine(NamedTuple):
    """A line the node logs of a status: at most once per its kind's period (:data:`LOGGED`)
    for one ``subject``; a new subject (another reason) is logged at once.

    Attributes:
        text: the line.
        subject: what it is about (the reason without counts), or "".
    """

    text: str
    subject: str = ""


#: Statuses in a row without joint_states from which the node logs it.
QUIET_STATUSES = 3

#: The latest messages whose efforts each status looks at for joints whose effort is no
#: measurement (2 s at 1 kHz), and the fewest it judges.
EFFORT_CHECK_MESSAGES = 2000
EFFORT_CHECK_MIN_MESSAGES = 100


@dataclass(frozen=True)
class NodeState:
    """What the dynamics node tells its diagnostics at one status: its own counters and settings
    (the pipeline's are in its ``status()``).

    Attributes:
        name: the node's fully qualified name.
        received: joint_states messages received (all, shed included).
        shed: joint_states superseded before they were served, of them ``shed_at_start`` while
            the node started.
        shed_at_start: see ``shed``.
        commands: effort commands published.
        command_error: why the effort command is not published ("" when it is).
        effort_command_on: the ``publish_effort_command`` parameter.
        payload_mass: the ``payload.mass`` parameter [kg].
        model_loads: models installed.
        model_source: where the model came from ("" before one).
        model_rejections: robot descriptions refused.
        last_model_error: why the last one was refused.
        callback_errors: callbacks that raised.
        last_callback_error: the last of them.
        unknown_joints: joint_states names the model does not have.
        joint_states_publishers: publishers on the joint_states topic (one per driver: two of
            the same joints interleave their states).
        joint_states_topic: the joint_states topic's resolved name.
    """

    name: str
    received: int = 0
    shed: int = 0
    shed_at_start: int = 0
    commands: int = 0
    command_error: str = ""
    effort_command_on: bool = False
    payload_mass: float = 0.0
    model_loads: int = 0
    model_source: str = ""
    model_rejections: int = 0
    last_model_error: str = ""
    callback_errors: int = 0
    last_callback_error: str = ""
    unknown_joints: tuple = ()
    joint_states_publishers: int = 0
    joint_states_topic: str = "joint_states"


def _text(value):
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


class DynamicsDiagnostics:
    """The dynamics node's /diagnostics: what changed since the previous status, and the
    processing rate.

    Attributes:
        to_log: what of the last status the node logs, kind (a key of :data:`LOGGED`) ->
            :class:`LogLine`.
    """

    def __init__(self):
        self._previous = {}
        self._rate_from = None  # (monotonic time [s], messages processed)
        self.to_log = {}
        self._quiet = 0  # statuses in a row without joint_states

    def status(self, node, active, pipeline, rate, efforts=None):
        """DiagnosticStatus of a DynamicsNode.

        Args:
            node: the node's :class:`NodeState`.
            active: its active model bundle or None.
            pipeline: the pipeline's status() dict ({} without a model).
            rate: joint_states processed per second since the previous status [Hz].
            efforts: ``(joint names, (k, n) efforts)`` of the latest messages processed, or None.

        Returns:
            diagnostic_msgs.msg.DiagnosticStatus: level, message and key/values.
        """
        refused = int(pipeline.get("refused", 0))
        withheld = int(pipeline.get("commands_withheld", 0))
        seen = {
            "received": node.received,
            "messages": int(pipeline.get("messages", 0)),
            "refused": refused,
            "paused": int(pipeline.get("estimation_paused", 0)),
            "reference_refused": int(pipeline.get("reference_refused", 0)),
            "nonfinite_outputs": int(pipeline.get("nonfinite_outputs", 0)),
            "skipped_messages": int(pipeline.get("skipped_messages", 0)),
            "stamps_backwards": int(pipeline.get("stamps_backwards", 0)),
            "stamps_late": int(pipeline.get("stamps_late", 0)),
            "stamp_jumps": int(pipeline.get("stamp_jumps", 0)),
            "shed": node.shed - node.shed_at_start,
            "callback_errors": node.callback_errors,
            "withheld": withheld,
        }
        grew = {k: v - self._previous.get(k, 0) for k, v in seen.items()}
        self._previous = seen
        errors, warnings = [], []
        to_log = self.to_log = {}
        constant = ()
        if efforts is not None and len(efforts[1]) >= EFFORT_CHECK_MIN_MESSAGES:
            constant = constant_efforts(efforts[0], efforts[1], "message")
        if active is None:
            errors.append("no robot model loaded")
        else:
            if node.effort_command_on and (grew["withheld"] or node.command_error):
                reason = node.command_error or (  # published again since: the last reason
                    f"{grew['withheld']} since the last status, the last: "
                    f"{pipeline.get('last_withheld', '')}"
                )
                errors.append(f"effort command withheld: {reason}")
                subject = node.command_error or pipeline.get("last_withheld", "")
                to_log["withheld"] = LogLine(errors[-1], subject)
            if grew["nonfinite_outputs"]:
                errors.append(
                    f"{grew['nonfinite_outputs']} non-finite outputs suppressed "
                    f"({pipeline.get('last_nonfinite_output', '')})"
                )
            if grew["callback_errors"]:
                errors.append(f"a callback raised: {node.last_callback_error}")
            self._quiet = 0 if grew["received"] else self._quiet + 1
            if self._quiet:
                warnings.append(
                    (
                        "no joint_states since the last status"
                        if node.received
                        else "no joint_states received yet"
                    )
                    + f" (topic {node.joint_states_topic}, "
                    f"{node.joint_states_publishers} publishers)"
                )
                if self._quiet >= QUIET_STATUSES:  # not a driver starting a moment later
                    to_log["no_joint_states"] = LogLine(warnings[-1])
            if grew["refused"]:
                warnings.append(f"{grew['refused']} joint_states messages refused")
            if grew["reference_refused"]:
                warnings.append(f"{grew['reference_refused']} ~/reference messages refused")
            if grew["shed"] > SHED_WARN_FRACTION * grew["received"]:
                warnings.append(
                    f"joint_states arriving faster than the node serves them: {grew['shed']} of "
                    f"{grew['received']} shed since the last status (a newer one came before "
                    "the node took them; the newest is processed)"
                )
                to_log["shed"] = LogLine(warnings[-1])
            if grew["skipped_messages"] > 0:  # a late message takes back the gap it was seen as
                warnings.append(f"{grew['skipped_messages']} joint_states skipped (stamp gaps)")
            if grew["stamps_backwards"]:
                warnings.append(
                    f"{grew['stamps_backwards']} joint_states stamps went backwards by more than "
                    "observer_max_dt (each restarts the observer)"
                )
            if grew["stamps_late"]:
                publishers = node.joint_states_publishers
                warnings.append(
                    f"{grew['stamps_late']} joint_states delivered late (stamped before their "
                    "driver's newest: dropped)"
                    + (
                        f"; {publishers} publishers on joint_states: do two of them publish "
                        "the same joints?"
                        if publishers > 1
                        else ""
                    )
                )
            if grew["stamp_jumps"]:
                warnings.append(
                    f"{grew['stamp_jumps']} joint_states stamp gaps longer than observer_max_dt "
                    "(a pause, a lost connection or a clock step; each restarts the observer)"
                )
            paused = LogLine(
                f"estimation paused: {pipeline.get('last_pause', '')}",
                pipeline.get("last_pause", ""),
            )
            if pipeline.get("stale_effort"):
                warnings.append(f"stale effort for {pipeline.get('stale_effort_joints', '')}")
                to_log["paused"] = paused
            elif grew["paused"] and grew["paused"] >= grew["messages"] - grew["refused"]:
                warnings.append(paused.text)
                to_log["paused"] = paused
            if pipeline.get("near_singular"):
                warnings.append("near a singularity")
            if constant:
                warnings.append(constant_efforts_text(constant, len(efforts[0])))
                to_log["no_effort"] = LogLine(warnings[-1])
        status = DiagnosticStatus()
        status.name = f"{node.name}: dynamics"
        status.hardware_id = active.model.base_link if active is not None else ""
        status.level = (
            DiagnosticStatus.ERROR
            if errors
            else DiagnosticStatus.WARN
            if warnings
            else DiagnosticStatus.OK
        )
        status.message = "; ".join(errors + warnings) or "ok"
        model = active.model if active is not None else None
        inertia_lines = inertia_warning_lines(model.inertia_warnings) if model else []
        joint_lines = joint_warning_lines(model.joint_warnings) if model else []
        values = {
            "model_loaded": active is not None,
            "model_source": node.model_source,
            "joints": " ".join(model.joint_names) if model is not None else "",
            "base_link": model.base_link if model is not None else "",
            "tip_link": (model.tip_link or "") if model is not None else "",
            "locked_joints": locked_joints_text(model) if model is not None else "",
            "model_loads": node.model_loads,
            "model_rejections": node.model_rejections,
            "last_error": node.last_model_error,
            "inertia_warnings": "; ".join(inertia_lines),
            "joint_warnings": "; ".join(joint_lines),
            "message_rate_hz": f"{rate:.1f}",
            "messages_received": node.received,
            "messages_shed": node.shed,
            "messages_shed_at_start": node.shed_at_start,
            "messages_processed": _processed(pipeline),
            "unknown_joints": " ".join(node.unknown_joints),
            "joint_states_publishers": node.joint_states_publishers,
            "no_effort_joints": " ".join(name for name, _ in constant),
            "effort_command": "on" if node.effort_command_on else "off",
            "effort_commands_published": node.commands,
            "effort_commands_withheld": withheld,
            "callback_errors": node.callback_errors,
            "last_callback_error": node.last_callback_error,
            "payload_mass": node.payload_mass,
        }
        for key, value in pipeline.items():
            values.setdefault(key, value)
        status.values = [KeyValue(key=k, value=_text(v)) for k, v in values.items()]
        return status

    def array(self, node, active, pipeline, stamp, efforts=None):
        """The DiagnosticArray of one period: the processing rate since the previous one and
        :meth:`status`.

        Args:
            node: the node's :class:`NodeState`.
            active: its active model bundle or None.
            pipeline: the pipeline's status() dict ({} without a model).
            stamp: ``builtin_interfaces/Time`` of the array (the node's clock).
            efforts: ``(joint names, (k, n) efforts)`` of the latest messages processed, or None.

        Returns:
            diagnostic_msgs.msg.DiagnosticArray: the array, stamped ``stamp``.
        """
        now = time.monotonic()
        processed = _processed(pipeline)
        start, before = self._rate_from or (now, processed)
        self._rate_from = (now, processed)
        rate = max(processed - before, 0) / (now - start) if now > start else 0.0
        array_msg = DiagnosticArray(status=[self.status(node, active, pipeline, rate, efforts)])
        array_msg.header.stamp = stamp
        return array_msg


def _processed(pipeline):
    """Messages the pipeline took: not refused, not of none of the model's joints, not late."""
    return int(pipeline.get("messages", 0)) - sum(
        int(pipeline.get(key, 0)) for key in ("refused", "without_model_joints", "stamps_late")
    )


__all__ = ["LOGGED", "DynamicsDiagnostics", "LogLine", "NodeState"]
