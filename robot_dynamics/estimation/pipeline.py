"""The estimation pipeline: everything between a joint_states message and what the dynamics node
publishes, as plain numpy (no ROS).

One :class:`EstimationPipeline` per model and configuration. A message goes through three steps:
:meth:`~EstimationPipeline.ingest` validates its arrays (model order) once and merges them into
the joint state, with the dynamics terms at that state computed once (a
:class:`~robot_dynamics.estimation.output.Sample`); :meth:`~EstimationPipeline.command` makes
the gravity torques and the effort command (with only the terms the command needs);
:meth:`~EstimationPipeline.estimate` the feed-forward torques (unless the command was the
feed-forward), the external joint torques, the wrench a force-torque sensor at ``wrench_frame``
would read and the contact state. The node publishes the command between the last two;
:meth:`~EstimationPipeline.update` runs all three. Everything lands in one
:class:`~robot_dynamics.estimation.output.PipelineOutput`, with why anything is missing.
The policy lives here: which estimator, when the observer restarts (first message, stamp gaps and
stamps going backwards, estimation resuming after a pause; a refused message, one whose state is
not measured whole, or another driver's with fewer joints than the widest's, a gripper's, is
skipped and the next step spans it), what a partial or NaN-carrying message still allows, effort
scaling, plausibility bounds (positions that jumped farther than the joints move:
:mod:`~robot_dynamics.estimation.position_jumps`), reference expiry, tare and contact detection.
Every array it returns is finite.

Conventions as the core: joint vectors in ``model.joint_names`` order; wrenches
``[fx fy fz tx ty tz]`` applied by the environment on the robot, in the wrench frame's axes, moment
about its origin; ``tau_ext = J^T f_ext = (M qdd + C qd + g) - tau_measured``. Stamps and times
are integer nanoseconds (differences taken in integers: no float-seconds rounding).
"""

import math

import numpy as np

from robot_dynamics.core import dynamics
from robot_dynamics.core.errors import RobotDynamicsError
from robot_dynamics.core.estimation import external_wrench
from robot_dynamics.core.state_terms import StateTerms
from robot_dynamics.core.validation import all_finite

from .config import PipelineConfig, validate_config
from .contact import ContactDetector
from .external_torques import ExternalTorqueEstimator
from .joint_state import NEVER, MergedJointState
from .position_jumps import PositionJumps
from .output import (
    COUNTERS,
    LATE_MESSAGE,
    NARROW_MESSAGE,
    WITHOUT_MODEL_JOINTS,
    PipelineOutput,
    Sample,
)
from .reference import Reference
from .stamps import LATE, StampClock
from .tare import Tare
from .validation import MessageValidator, Refused

_FIELDS = ("position", "velocity", "effort")

#: What a step that should not fail on validated data may still raise: turned into a reason.
_STEP_ERRORS = (RobotDynamicsError, ValueError, FloatingPointError, np.linalg.LinAlgError)


def _names(joint_names, mask):
    return [joint_names[j] for j in np.flatnonzero(mask)]


class EstimationPipeline:
    """Estimation and feed-forward policy over a :class:`~robot_dynamics.core.RobotModel`.

    Args:
        model: the RobotModel (immutable; a new model means a new pipeline, see
            :meth:`with_model`).
        config: :class:`~robot_dynamics.estimation.config.PipelineConfig`.

    Attributes:
        counters: ``{name: count}`` of :data:`COUNTERS`, the one count of every event.

    Raises:
        InvalidInputError: a config field that is wrong for this model (named).
    """

    def __init__(self, model, config=None):
        config = PipelineConfig() if config is None else config
        resolved = validate_config(model, config)
        self.model = model
        self.config = config
        self.joint_names = tuple(model.joint_names)
        self.n = model.n
        self.wrench_frame = resolved.wrench_frame
        self.contact_frame = resolved.contact_frame
        self.wrench_components = resolved.wrench_components
        self._resolved = resolved
        self.counters = dict.fromkeys(COUNTERS, 0)
        self._text = {
            "last_refusal": "",
            "last_pause": "",
            "last_restart": "",
            "last_nonfinite_output": "",
            "last_withheld": "",
            "stale_effort_joints": "",
        }
        self._state = MergedJointState(self.joint_names)
        self._estimator = ExternalTorqueEstimator(model, config)
        self._effort_timeout_ns = int(round(config.effort_timeout * 1e9))
        self._velocity_timeout_ns = int(round(config.velocity_timeout * 1e9))
        self._clamp_limits = np.asarray(model.effort_limits, dtype=float)
        self._clamp_lower = -self._clamp_limits
        self._clamp = config.clamp_effort_command and bool(np.isfinite(self._clamp_limits).any())
        self._raw_effort = bool(
            np.all(resolved.effort_scale == 1.0) and np.all(resolved.effort_offset == 0.0)
        )
        self._friction_threshold = np.asarray(config.friction_velocity_threshold, dtype=float)
        friction = self._friction_torques if config.friction_compensation else None
        self._friction = friction
        self._reference = Reference(
            model,
            resolved.velocity_bound,
            int(round(config.reference_timeout * 1e9)),
            friction,
            self.counters,
        )
        self._tare = Tare(self.n, config.tare_duration)
        self._contact = (
            ContactDetector(model, resolved.contact, self.contact_frame)
            if resolved.contact.enabled
            else None
        )
        self._positions_complete = False
        self._zero = np.zeros(self.n)
        self._validator = MessageValidator(self.joint_names, resolved)
        self._all = self._validator.all_joints
        self._jumps = PositionJumps(model, config.velocity_limit_factor)
        self._clock = StampClock(int(round(config.observer_max_dt * 1e9)), self.counters)
        self._restart = "first message"  # reason the observer must (re)start, or None
        self._refused_since = 0  # messages refused since the latest one merged
        self._estimating = False  # the latest message gave external torques
        self._min_singular_value = math.nan
        self._near_singular = False
        self._stale_effort = False

    def _friction_torques(self, qd, rest_velocity=0.0):
        """Joint friction torques at ``qd`` (the model's friction, the configured threshold)."""
        return self.model.friction.torques(qd, self._friction_threshold, rest_velocity)

    # ------------------------------------------------------------------ derived pipelines
    def with_config(self, config):
        """A pipeline with a new config on the same model: merged joint values, counters, reference,
        tare bias and contact state carried over; the observer restarts from the latest
        estimate.

        Args:
            config: the new :class:`~robot_dynamics.estimation.config.PipelineConfig`.

        Returns:
            EstimationPipeline: the new pipeline.

        Raises:
            InvalidInputError: a config field that is wrong for this model (named).
        """
        new = EstimationPipeline(self.model, config)
        new._take_over(self, same_model=True)
        return new

    def with_model(self, model, config=None):
        """A pipeline for a new model: the values of the joints both models have, the counters and
        the contact state are carried over (and, with the same joints, the latest estimate the
        observer restarts from); reference and bias are cleared.

        Args:
            model: the new :class:`~robot_dynamics.core.model.RobotModel`.
            config: :class:`~robot_dynamics.estimation.config.PipelineConfig` (default: this one).

        Returns:
            EstimationPipeline: the new pipeline.

        Raises:
            InvalidInputError: the config does not fit the model (named field).
        """
        new = EstimationPipeline(model, self.config if config is None else config)
        new._take_over(self, same_model=False)
        return new

    def _take_over(self, old, same_model):
        self._state.carry_over(old._state)
        self.counters.update(old.counters)
        self._text = dict(old._text)
        self._clock.take_over(old._clock)
        self._restart = "new configuration" if same_model else "new model"
        self._estimating = old._estimating
        if self.joint_names == old.joint_names:  # the checks and the estimate go on
            self._jumps.carry_over(old._jumps)
            if old._estimating:  # (no dip to 0 on a moving arm)
                self._estimator.carry(old._estimator)
        if same_model:
            self._reference.point = old._reference.point
            self._tare.carry_over(old._tare)
        if self._contact is not None and old._contact is not None:
            self._contact.carry_over(old._contact)

    @property
    def detects_contact(self):
        """True when contact detection is on (some ``contact.*_on`` level set)."""
        return self._contact is not None

    def measured_state(self):
        """The latest merged measurement.

        Returns:
            tuple: ``(position, velocity, effort)`` copies (n,) in model order [rad or m, rad/s or
            m/s, effort as received, before effort_scale/effort_offset], NaN where a joint never had
            a value.
        """
        values = self._state.values.copy()
        values[self._state.stamps == NEVER] = np.nan
        return values[0], values[1], values[2]

    def measured_torques(self, effort):
        """Joint torques of efforts as received.

        Args:
            effort: (..., n) efforts in model order, as received.

        Returns:
            ndarray: (..., n) ``effort_scale * effort + effort_offset`` [N m or N].
        """
        r = self._resolved
        return effort if self._raw_effort else r.effort_scale * effort + r.effort_offset

    # ------------------------------------------------------------------ the hot path
    def update(self, t_ns, position, velocity, effort, present=None, now_ns=None):
        """Process one joint_states message: :meth:`ingest`, :meth:`command`, :meth:`estimate`.

        Args: see :meth:`ingest` and :meth:`command`.

        Returns:
            PipelineOutput: what the message produced.
        """
        sample = self.ingest(t_ns, position, velocity, effort, present)
        if sample.ready:
            self.command(sample, now_ns)
            self.estimate(sample)
        return sample.out

    def ingest(self, t_ns, position, velocity, effort, present=None, superseded=0):
        """Validate one joint_states message, merge it into the joint state and compute the
        dynamics terms at that state.

        Never raises for the content of the arrays: a message that cannot be used is refused with
        a reason (``sample.out.refused``).

        Args:
            t_ns: message stamp [ns] (int).
            position: (n,) positions [rad or m] in model order, or None (no such field).
            velocity: (n,) velocities [rad/s or m/s] in model order, or None.
            effort: (n,) efforts in model order (as received, before effort_scale/effort_offset), or
                None. Values of joints the message does not carry are ignored (see ``present``).
                For carried joints a non-finite velocity or effort means "no value for this joint in
                this message" (the old value ages); a non-finite position, or a finite value beyond
                the plausibility bounds, refuses the message.
            present: (n,) bool, the joints the message carries (None: all).
            superseded: messages of its driver (the same joints) the caller dropped since the
                previous one it passed (a node's shed messages: no stamp gap).

        Returns:
            Sample: the validated message (``ready`` False when it was refused, names none of the
            model's joints (ignored: not even its stamp is taken), or some joint has never had a
            position).
        """
        self.counters["messages"] += 1
        try:
            t_ns = int(np.int64(t_ns))  # int64 nanoseconds, as every stamp inside
        except (TypeError, ValueError, OverflowError) as error:
            return Sample(self._refuse(0, f"stamp is not an int64 number of ns: {error}"))
        try:
            present, arrays, clean = self._validator.checked(present, position, velocity, effort)
            jumped = self._jumps.check(t_ns, present, arrays, clean, self._state)
            self._restart = jumped or self._restart
        except Refused as refused:
            return Sample(self._refuse(t_ns, *refused.args))
        position, velocity, effort = arrays
        if present is not self._all and self._positions_complete and not present.any():
            # another driver's (a gripper's): its stamps, on its own clock, are not this arm's
            self.counters["without_model_joints"] += 1
            return self._nothing(t_ns, WITHOUT_MODEL_JOINTS)
        try:
            return self._merge(t_ns, position, velocity, effort, present, clean, superseded)
        except _STEP_ERRORS as error:  # not expected for checked inputs
            return Sample(self._refuse(t_ns, f"{type(error).__name__}: {error}"))

    def _nothing(self, t_ns, reason):
        """The Sample of a message that produces nothing, and why."""
        out = PipelineOutput(stamp_ns=t_ns, wrench_frame=self.wrench_frame or "")
        out.command_error = out.estimation_paused = reason
        return Sample(out)

    def refuse(self, t_ns, reason, field=None):
        """Refuse a message the caller could not even turn into arrays (e.g. a joint_states whose
        names and values do not match), counted with the pipeline's own refusals.

        Args:
            t_ns: its stamp [ns].
            reason: why, for the diagnostics.
            field: "position", "velocity" or "effort" when one field is to blame.

        Returns:
            PipelineOutput: the refusal.
        """
        self.counters["messages"] += 1
        return self._refuse(int(t_ns), reason, field)

    def _refuse(self, t_ns, reason, field=None):
        c = self.counters
        c["refused"] += 1
        self._refused_since += 1
        if field in _FIELDS:
            c[f"refused_{field}"] += 1
        self._text["last_refusal"] = reason
        return PipelineOutput(stamp_ns=t_ns, refused=reason, wrench_frame=self.wrench_frame or "")

    def _merge(self, t_ns, position, velocity, effort, present, clean, superseded):
        """The validated arrays into the joint state; the Sample at the merged state."""
        c = self.counters
        state = self._state
        previous = self._clock.last_ns
        stream = None if present is self._all or present.all() else present.tobytes()
        # refused messages since the previous one came, and are not lost: no gap
        dt_ns, restart = self._clock.tick(t_ns, stream, superseded + self._refused_since)
        self._refused_since = 0
        if dt_ns == LATE:
            return self._nothing(t_ns, LATE_MESSAGE)
        if restart is not None:
            self._restart = restart
            if t_ns < previous:  # back in time: no joint value is newer than the new stamp
                self._state.clamp_stamps(t_ns)
                if self._contact is not None:
                    self._contact.reset()
        full = clean and present is self._all  # the common case: one driver, clean values
        nonfinite = state.take(t_ns, (position, velocity, effort), present, full)
        if any(nonfinite):
            c["nonfinite_velocity"] += nonfinite[0]
            c["nonfinite_effort"] += nonfinite[1]
        sample = Sample(PipelineOutput(stamp_ns=t_ns, wrench_frame=self.wrench_frame or ""))
        sample.narrow = state.narrower(None if present is self._all else present)
        if not self._positions_complete:  # once complete, positions stay known
            missing = state.position_stamp == NEVER
            if missing.any():
                names = _names(self.joint_names, missing)
                sample.out.missing_positions = tuple(names)
                reason = f"waiting for positions of joints {names}"
                sample.out.command_error = reason
                self._pause(sample.out, reason)
                return sample
            self._positions_complete = True
        if full and velocity is not None:
            stale_velocity, have_velocity = None, True
        else:
            stale_velocity = state.older_than(1, t_ns, self._velocity_timeout_ns)
            have_velocity = not stale_velocity.any()
        q = state.position.copy()
        qd = state.velocity.copy() if have_velocity else self._zero
        frame = self.contact_frame
        sample.ready = True
        sample.t_ns, sample.dt_ns, sample.q, sample.qd = t_ns, dt_ns, q, qd
        sample.have_velocity, sample.stale_velocity = have_velocity, stale_velocity
        sample.fresh_effort = full and effort is not None
        if not (sample.fresh_effort and velocity is not None):
            sample.unmeasured = self._validator.unmeasured(present, position, velocity, effort)
        # validated once (checked, or merged from checked values): the core's unchecked entry
        # points from here on
        tree = self.model.tree
        sample.terms = StateTerms(tree, dynamics.kinematics(tree, q), qd, frame, "local")
        if self._friction is not None and have_velocity:
            sample.friction = self._friction(qd, self.config.friction_rest_velocity)
        return sample

    def command(self, sample, now_ns=None):
        """The gravity torques and the effort command of an ingested message (and the
        feed-forward when it is the command's source; else :meth:`estimate` makes it, after the
        command is out).

        Args:
            sample: the :class:`~robot_dynamics.estimation.output.Sample` of :meth:`ingest`
                (ready).
            now_ns: the clock of :meth:`set_reference`'s stamps, for reference expiry
                (default: the message stamp).

        Returns:
            PipelineOutput: ``sample.out`` with gravity and command (or command_error) set.
        """
        out = sample.out
        sample.now_ns = sample.t_ns if now_ns is None else int(now_ns)
        try:
            self._command_step(sample)
        except _STEP_ERRORS as error:  # not expected for validated data
            out.command = None
            self._withhold(out, f"{type(error).__name__}: {error}")
        return out

    def _command_step(self, sample):
        out = sample.out
        gravity = self._finite(sample.terms.gravity, "gravity")
        out.gravity = gravity
        if self.config.command_source == "gravity":
            source, error = gravity, "the gravity torques are not finite"
        else:
            source, error = self._feedforward_step(sample)
        if source is None:
            self._withhold(out, error)
        elif self._clamp:
            out.command = np.minimum(np.maximum(source, self._clamp_lower), self._clamp_limits)
        else:
            out.command = source.copy()

    def _feedforward_step(self, sample):
        """Set ``sample.out.feedforward``; returns it (None when unavailable) and why not."""
        sample.feedforward_done = True
        point = self._reference.active(sample.now_ns)
        if point is not None:
            ff = self._finite(self._reference.feedforward(point), "feed-forward at the reference")
            ff_error = None if ff is not None else "the feed-forward at the reference is not finite"
        elif sample.have_velocity:
            ff = sample.terms.nonlinear_effects
            if sample.friction is not None:
                ff = ff + sample.friction
            ff = self._finite(ff, "feed-forward")
            ff_error = None if ff is not None else "the feed-forward is not finite"
        else:
            ff = None
            ff_error = (
                "no feed-forward: no reference and no recent velocity for joints "
                f"{_names(self.joint_names, sample.stale_velocity)}"
            )
        sample.out.feedforward = ff
        return ff, ff_error

    def _withhold(self, out, reason):
        out.command_error = self._text["last_withheld"] = reason
        self.counters["commands_withheld"] += 1

    def withhold_command(self, reason):
        """Count an effort command the caller withheld at the actuator boundary.

        Args:
            reason: why, for the diagnostics.
        """
        self.counters["commands_withheld"] += 1
        self._text["last_nonfinite_output"] = self._text["last_withheld"] = reason

    def estimate(self, sample):
        """The feed-forward (unless :meth:`command` made it), the external joint torques, the
        wrench and the contact state of an ingested message.

        Args:
            sample: the :class:`~robot_dynamics.estimation.output.Sample` of :meth:`ingest`
                (ready; after :meth:`command`).

        Returns:
            PipelineOutput: ``sample.out`` with feedforward, external_torques, wrench and contact
            (or estimation_paused) set.
        """
        out = sample.out
        if not sample.feedforward_done:
            try:
                self._feedforward_step(sample)
            except _STEP_ERRORS as error:  # not expected for validated data
                out.feedforward = None
                self._text["last_nonfinite_output"] = f"feed-forward: {error}"
        try:
            self._estimate_step(sample)
        except _STEP_ERRORS as error:  # not expected for validated data
            out.external_torques = out.wrench = None
            self._restart = "an estimation error"
            self._pause(out, f"{type(error).__name__}: {error}")
        return out

    def _pause(self, out, reason, restart=True):
        out.estimation_paused = reason
        self._estimating = False
        self.counters["estimation_paused"] += 1
        self._text["last_pause"] = reason
        if restart and self._restart is None:
            # the observer integrates over time: after a pause it starts again
            self._restart = f"estimation resumed after a pause ({reason})"
        if self._contact is not None:
            # a pause the estimator starts over from ends a contact: none is followed meanwhile
            out.contact = self._contact.interrupted() if restart else self._contact.state()
        self._tare.tick(out.stamp_ns, None, self._text["last_pause"])

    def _estimate_step(self, sample):
        out, t_ns = sample.out, sample.t_ns
        if sample.narrow:  # a step would extrapolate the widest driver's held values
            out.estimation_paused = NARROW_MESSAGE
            if self._contact is not None:
                out.contact = self._contact.state()
            return
        if not sample.have_velocity:
            timeout = self.config.velocity_timeout
            self._pause(out, self._state.missing_velocity(sample.stale_velocity, timeout))
            return
        if not self._fresh_efforts(sample):
            return
        if sample.unmeasured is not None:  # its state is not measured whole: skipped
            self._pause(out, sample.unmeasured, restart=False)
            return
        if sample.dt_ns == 0:
            self._pause(
                out,
                "no time since the previous message (the same stamp, or another driver's older)",
                restart=False,
            )
            return
        tau_ext = self._external_torques(sample)
        if self._finite(tau_ext, "external torques") is None:
            self._restart = "non-finite external torques"
            self._pause(out, "the external torques are not finite")
            return
        self._estimating = True
        self._tare.tick(t_ns, tau_ext, self._text["last_pause"])
        if self._tare.bias is not None:
            tau_ext = tau_ext - self._tare.bias
        out.external_torques = tau_ext
        wrench = self._wrench(sample, tau_ext) if self.wrench_frame is not None else None
        if self._contact is not None:
            out.contact = self._contact.update(t_ns, tau_ext, wrench)

    def _fresh_efforts(self, sample):
        """True when every joint's effort is recent; else pauses (with the reason) and False."""
        if sample.fresh_effort:
            stale = None
        else:
            stale = self._state.older_than(2, sample.t_ns, self._effort_timeout_ns)
        if stale is None or not stale.any():
            self._stale_effort = False
            self._text["stale_effort_joints"] = ""
            return True
        stale_names, reason = self._state.missing_effort(stale, self.config.effort_timeout)
        self._stale_effort = bool(stale_names)
        self._text["stale_effort_joints"] = " ".join(stale_names)
        if stale_names:
            sample.out.warnings = sample.out.warnings + (reason,)
        self._pause(sample.out, reason)
        return False

    def _external_torques(self, sample):
        """tau_ext of the configured estimator (restarting it when due)."""
        tau = self.measured_torques(self._state.effort)
        if sample.friction is not None:
            tau = tau - sample.friction
        restarted = self._restart is not None or sample.dt_ns is None
        if not restarted:  # the step spans the messages since the latest estimate
            span = self._estimator.since(sample.t_ns)
            if span is None or span > self._clock.max_dt_ns:
                self._restart = "no estimate for longer than observer_max_dt"
                restarted = True
        if restarted:
            self.counters["observer_restarts"] += 1
            self._text["last_restart"] = self._restart or "restart"
            self._restart = None
        return self._estimator.estimate(sample, tau, restarted)

    def _wrench(self, sample, tau_ext):
        """The wrench at the wrench frame (set on ``sample.out``), or None when not finite."""
        out = sample.out
        est = external_wrench(
            self.model.tree,
            sample.q,
            tau_ext,
            self.contact_frame,
            self.wrench_frame,
            self.wrench_components,
            self.config.wrench_damping,
            self.config.singular_threshold,
            sample.terms.jacobian,
        )
        wrench = self._finite(est.wrench, "wrench")
        if wrench is None:
            return None
        out.wrench = wrench
        out.singular_values = est.singular_values
        out.min_singular_value = est.min_singular_value
        out.near_singular = est.near_singular
        self._min_singular_value = est.min_singular_value
        self._near_singular = est.near_singular
        if est.near_singular:
            self.counters["singular_warnings"] += 1
        return wrench

    def _finite(self, values, name):
        """values, or None (counted, reason kept) when any is not finite: the last guard."""
        if all_finite(values):
            return values
        self.counters["nonfinite_outputs"] += 1
        self._text["last_nonfinite_output"] = f"{name} not finite (withheld)"
        return None

    # ------------------------------------------------------------------ reference
    def set_reference(self, t_ns, q, qd=None, qdd=None):
        """Set the reference the feed-forward follows (a trajectory point, model order).

        Args:
            t_ns: receive time [ns] on the clock of ``update``'s ``now_ns``.
            q: (n,) positions [rad or m].
            qd: (n,) velocities [rad/s or m/s] (None: zeros).
            qdd: (n,) accelerations [rad/s^2 or m/s^2] (None: zeros).

        Raises:
            InvalidInputError: a wrong shape, a non-finite or implausible value (named); counted
                in ``reference_refused``.
        """
        self._reference.set(t_ns, q, qd, qdd)

    def clear_reference(self):
        """Drop the reference: the feed-forward uses the measured state."""
        self._reference.clear()

    @property
    def has_reference(self):
        """True while a reference is set (it may still expire at the next message)."""
        return self._reference.point is not None

    # ------------------------------------------------------------------ tare and reset
    def start_tare(self, t_ns):
        """Start averaging the external torques over ``tare_duration`` from a stamp.

        When done, that average (the bias) is subtracted from every later estimate. Valid near the
        pose of the tare (model error depends on the pose), with the arm at rest and free.

        A tare is refused (its state ``"failed: ..."``) when the latest message gave no
        estimate to average: none yet, or the estimation paused (the reason given).

        Args:
            t_ns: stamp [ns] from which messages count.
        """
        if not self._estimating:
            why = self._text["last_pause"] or "no joint_states message yet"
            self._tare.refuse(f"no external torque estimates to average: {why}")
            return
        self._tare.start(t_ns)

    def tare_state(self):
        """State of the tare.

        Returns:
            str: "idle" | "collecting" | "done" | "failed: <reason>".
        """
        return self._tare.state

    @property
    def unclamped_joints(self):
        """tuple: the joints whose effort command ``clamp_effort_command`` leaves unbounded
        (their URDF effort limit is 0 or missing; model order); empty when the clamp is off."""
        if not self.config.clamp_effort_command:
            return ()
        return tuple(_names(self.joint_names, ~np.isfinite(self._clamp_limits)))

    @property
    def bias(self):
        """(n,) tare bias subtracted from the external torques, or None."""
        return None if self._tare.bias is None else self._tare.bias.copy()

    def reset_estimation(self):
        """Restart the observer and the acceleration filter, clear the tare bias (and stop a
        tare in progress), the contact state and the contact count."""
        self._restart = "reset_estimation"
        self._estimator.reset()
        self._tare.abort("reset during the tare")
        if self._contact is not None:
            self._contact.reset()
            self._contact.contacts = 0

    # ------------------------------------------------------------------ diagnostics
    def status(self):
        """Counters, flags and last reasons, for diagnostics.

        Returns:
            dict: counters (cumulative ints), last reasons (str) and flags (stale_effort,
            near_singular, min_singular_value, contacts, in_contact, contact_link, tare,
            wrench_frame, wrench_components, reference_active).
        """
        out = dict(self.counters)
        out.update(self._text)
        contact = self._contact
        out.update(
            {
                "stale_effort": self._stale_effort,
                "near_singular": bool(self._near_singular),
                "min_singular_value": float(self._min_singular_value),
                "contacts": contact.contacts if contact is not None else 0,
                "in_contact": bool(contact is not None and contact.in_contact),
                "contact_link": contact.link if contact is not None else "",
                "tare": self._tare.state,
                "wrench_frame": self.wrench_frame or "",
                "wrench_components": " ".join(self.wrench_components),
                "reference_active": self.has_reference,
            }
        )
        return out


__all__ = ["COUNTERS", "EstimationPipeline"]
