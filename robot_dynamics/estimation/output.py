"""What the estimation pipeline makes of one joint_states message: the validated
:class:`Sample` its steps share, the :class:`PipelineOutput` the node publishes, the reasons a
message produces nothing and the counters of every event."""

from dataclasses import dataclass, field
import math

import numpy as np

from .contact import ContactState


#: The pipeline's counters (cumulative, carried over to a pipeline with a new model or config).
COUNTERS = (
    "messages",
    "without_model_joints",
    "refused",
    "refused_position",
    "refused_velocity",
    "refused_effort",
    "nonfinite_velocity",
    "nonfinite_effort",
    "estimation_paused",
    "observer_restarts",
    "stamps_backwards",
    "stamps_late",
    "stamps_repeated",
    "stamps_interleaved",
    "stamp_jumps",
    "stamp_gaps",
    "skipped_messages",
    "nonfinite_outputs",
    "singular_warnings",
    "reference_expired",
    "reference_refused",
    "commands_withheld",
)

#: Why a message that names none of the model's joints produces nothing.
WITHOUT_MODEL_JOINTS = "the message names none of the model's joints: ignored"

#: Why a message carrying fewer joints than the widest driver's (a gripper's) gives no estimate.
NARROW_MESSAGE = (
    "another driver's message, with fewer of the model's joints than the widest driver's: "
    "merged; the estimate steps at the widest driver's messages"
)

#: Why a message stamped before its driver's newest produces nothing.
LATE_MESSAGE = "stamped before its driver's newest message (delivered late): dropped"


@dataclass
class PipelineOutput:
    """What one message produced. Every array is (n,) in model order (wrench (6,)), finite,
    or None when it is not available for this message (the reason is given).

    Attributes:
        stamp_ns: the message stamp [ns], the stamp of every output.
        refused: the reason the message was refused as a whole (nothing else is set then).
        gravity: g(q) [N m or N]; None until every joint has a position.
        feedforward: ``M qdd_d + C qd_d + g`` at the reference, or ``C qd + g`` at the measured
            state without one (+ friction with friction_compensation); None without either.
        command: the effort command per ``command_source``, clamped to the URDF effort limits
            when ``clamp_effort_command``; None when unavailable or not finite.
        command_error: why command is None.
        external_torques: ``tau_ext`` minus the tare bias.
        wrench: ``[fx fy fz tx ty tz]`` in the wrench frame's axes, moment about its origin;
            components not estimated are 0.
        wrench_frame: the link of the wrench ('' without one).
        singular_values: of J_S (selected components), descending.
        min_singular_value: the smallest (nan without a wrench this message).
        near_singular: below ``singular_threshold``: the weakest directions are damped.
        estimation_paused: why external_torques/wrench are None for this message.
        missing_positions: joints that never had a position (nothing but this is set then).
        contact: :class:`ContactState` (None when contact detection is off).
        warnings: conditions the diagnostics should show as WARN (e.g. stale efforts).
    """

    stamp_ns: int
    refused: str | None = None
    gravity: np.ndarray | None = None
    feedforward: np.ndarray | None = None
    command: np.ndarray | None = None
    command_error: str | None = None
    external_torques: np.ndarray | None = None
    wrench: np.ndarray | None = None
    wrench_frame: str = ""
    singular_values: np.ndarray | None = None
    min_singular_value: float = math.nan
    near_singular: bool = False
    estimation_paused: str | None = None
    missing_positions: tuple = ()
    contact: ContactState | None = None
    warnings: tuple = ()


@dataclass
class Sample:
    """One message after :meth:`~robot_dynamics.estimation.pipeline.EstimationPipeline.ingest`:
    validated once, merged into the joint state, with the dynamics terms at its state computed
    once for the command and the estimation steps.

    Attributes:
        out: what the message has produced so far (refused, or waiting for positions, when
            ``ready`` is False).
        ready: True when the command and estimation steps can run.
        t_ns: the message stamp [ns].
        dt_ns: time since the previous message [ns]; None when the estimator must restart
            (first message, a gap, a stamp going backwards), 0 for a repeated stamp.
        q: (n,) joint positions [rad or m] (every joint known).
        qd: (n,) joint velocities [rad/s or m/s]; zeros when some velocity is stale.
        have_velocity: every joint has a recent velocity.
        stale_velocity: (n,) bool, the joints without a recent velocity (None when all are new).
        fresh_effort: every joint's effort came with this message.
        unmeasured: why the message's state is not measured whole (a joint whose position it
            carries without a finite velocity or effort: an empty field, NaN), or None; the
            estimation skips such a message.
        terms: the :class:`~robot_dynamics.core.model.StateTerms` at (q, qd).
        friction: (n,) joint friction torques [N m or N] at qd when compensated, else None.
        now_ns: the clock of the reference's expiry for this message [ns].
        feedforward_done: the feed-forward step has run (in the command step when the command
            is the feed-forward, else first thing in the estimation step).
        narrow: the message carries fewer joints than the widest driver's: no estimation step
            (the other joints' values are only held).
    """

    out: PipelineOutput
    ready: bool = False
    t_ns: int = 0
    dt_ns: int | None = None
    q: np.ndarray | None = None
    qd: np.ndarray | None = None
    have_velocity: bool = False
    stale_velocity: np.ndarray | None = None
    fresh_effort: bool = False
    unmeasured: str | None = None
    terms: object = None
    friction: np.ndarray | None = field(default=None)
    now_ns: int = 0
    feedforward_done: bool = False
    narrow: bool = False


__all__ = [
    "COUNTERS",
    "LATE_MESSAGE",
    "NARROW_MESSAGE",
    "PipelineOutput",
    "Sample",
    "WITHOUT_MODEL_JOINTS",
]
