"""The estimation pipeline: everything between a joint_states message and what the dynamics node
publishes, as plain numpy (no ROS).

One :class:`EstimationPipeline` per model and configuration. :meth:`EstimationPipeline.update`
takes one message's arrays in model order and returns a :class:`PipelineOutput`: gravity and
feed-forward torques, the effort command, the external joint torques and the wrench a
force-torque sensor at ``wrench_frame`` would read, contact state, and why anything is missing.
The policy lives here: which estimator, when the observer restarts (first message, stamp gaps and
stamps going backwards, refused or absurd samples, estimation resuming after a pause), what a
partial or NaN-carrying message still allows, effort scaling, plausibility bounds, reference
expiry, tare and contact detection. Every array it returns is finite.

Conventions as the core: joint vectors in ``model.joint_names`` order; wrenches
``[fx fy fz tx ty tz]`` applied by the environment on the robot, in the wrench frame's axes, moment
about its origin; ``tau_ext = J^T f_ext = (M qdd + C qd + g) - tau_measured``. Stamps and times
are integer nanoseconds (differences taken in integers: no float-seconds rounding).
"""

from dataclasses import dataclass
import math

import numpy as np

from robot_dynamics.core.errors import InvalidInputError, RobotDynamicsError
from robot_dynamics.core.estimation import MomentumObserver

from .config import ABSURD_POSITION, PipelineConfig, validate_config
from .contact import ContactDetector, ContactState
from .filters import FilteredDifferentiator
from .joint_state import NEVER, MergedJointState

#: Joint accelerations of a reference beyond this [rad/s^2 or m/s^2] are refused.
ABSURD_ACCELERATION = 1.0e6
_FIELDS = ("position", "velocity", "effort")


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


_COUNTERS = (
    "messages",
    "refused",
    "refused_position",
    "refused_velocity",
    "refused_effort",
    "nonfinite_velocity",
    "nonfinite_effort",
    "estimation_paused",
    "observer_restarts",
    "stamps_backwards",
    "stamps_repeated",
    "stamp_gaps",
    "skipped_messages",
    "nonfinite_outputs",
    "singular_warnings",
    "reference_expired",
    "commands_withheld",
)


def _names(joint_names, mask):
    return [joint_names[j] for j in np.flatnonzero(mask)]


class EstimationPipeline:
    """Estimation and feed-forward policy over a :class:`~robot_dynamics.core.RobotModel`.

    Args:
        model: the RobotModel (immutable; a new model means a new pipeline, see
            :meth:`with_model`).
        config: :class:`~robot_dynamics.estimation.config.PipelineConfig`.

    Raises:
        InvalidInputError: a config field that is wrong for this model (named).
    """

    def __init__(self, model, config=None):
        config = PipelineConfig() if config is None else config
        resolved = validate_config(model, config)
        self.model = model
        self.config = config
        self.joint_names = tuple(model.joint_names)
        self._names = self.joint_names
        self.n = model.n
        self.wrench_frame = resolved.wrench_frame
        self.contact_frame = resolved.contact_frame
        self.wrench_components = resolved.wrench_components
        self._resolved = resolved
        self._state = MergedJointState(self.joint_names)
        self._observer = MomentumObserver(model, gain=config.observer_gain)
        self._differentiator = FilteredDifferentiator(
            self.n, config.acceleration_filter_time_constant
        )
        self._static = config.wrench_estimation == "static"
        self._differentiated = config.static_acceleration == "differentiated"
        self._max_dt_ns = int(round(config.observer_max_dt * 1e9))
        self._effort_timeout_ns = int(round(config.effort_timeout * 1e9))
        self._velocity_timeout_ns = int(round(config.velocity_timeout * 1e9))
        self._reference_timeout_ns = int(round(config.reference_timeout * 1e9))
        self._tare_duration_ns = int(round(config.tare_duration * 1e9))
        self._effort_limits = np.asarray(model.effort_limits, dtype=float)
        self._clamp = config.clamp_effort_command and bool(
            np.any(np.isfinite(self._effort_limits) & (self._effort_limits > 0))
        )
        self._clamp_limits = np.where(
            np.isfinite(self._effort_limits) & (self._effort_limits > 0),
            self._effort_limits,
            np.inf,
        )
        self._clamp_lower = -self._clamp_limits
        self._raw_effort = bool(
            np.all(resolved.effort_scale == 1.0) and np.all(resolved.effort_offset == 0.0)
        )
        self._positions_complete = False
        self._zero = np.zeros(self.n)
        self._all = np.ones(self.n, dtype=bool)
        self._contact = (
            ContactDetector(model, resolved.contact, self.contact_frame)
            if resolved.contact.enabled
            else None
        )
        self._counters = dict.fromkeys(_COUNTERS, 0)
        self._text = {
            "last_refusal": "",
            "last_pause": "",
            "last_restart": "",
            "last_nonfinite_output": "",
            "stale_effort_joints": "",
        }
        self._last_t = None
        self._period_ns = None
        self._restart = "first message"  # reason the observer must (re)start, or None
        self._reference = None  # (q, qd, qdd, t_ns)
        self._reference_ff = None
        self._bias = None
        self._tare = None  # dict while collecting
        self._tare_state = "idle"
        self._min_singular_value = math.nan
        self._near_singular = False
        self._stale_effort = False

    # ------------------------------------------------------------------ derived pipelines
    def with_config(self, config):
        """A pipeline with a new config on the same model: merged joint values, counters, reference
        and tare bias carried over; the observer restarts.

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
        """A pipeline for a new model: the values of the joints both models have, and the counters,
        are carried over; reference and bias are cleared.

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

    def _take_over(self, old, same_model):
        self._state.carry_over(old._state)
        self._counters = dict(old._counters)
        self._text = dict(old._text)
        self._last_t = old._last_t
        self._period_ns = old._period_ns
        self._restart = "new configuration" if same_model else "new model"
        if same_model:
            self._reference = old._reference
            self._bias = old._bias
            self._tare_state = (
                old._tare_state if old._tare is None else "failed: the configuration changed"
            )
        if self._contact is not None and old._contact is not None:
            self._contact.contacts = old._contact.contacts

    # ------------------------------------------------------------------ inputs
    def _field(self, values, name):
        """(n,) float array of a field, or None; raises _Refused on a bad shape."""
        if values is None:
            return None
        try:
            arr = np.asarray(values, dtype=float)
        except (TypeError, ValueError) as error:
            raise _Refused(f"{name} is not numeric: {error}", name) from None
        if arr.shape != (self.n,):
            raise _Refused(
                f"{name} has shape {arr.shape}, expected ({self.n},) in model order "
                f"{list(self.joint_names)}",
                name,
            )
        return arr

    def _check_message(self, position, velocity, effort, present):
        """Refusal reason (str, field) of a message; None when it is acceptable, True when
        moreover every value it has is finite (no per-joint merge needed)."""
        names = self._names
        r = self._resolved
        # fast path: one comparison per field when every value is finite and within bounds
        # (NaN compares False and takes the detailed path)
        if (
            (position is None or (np.abs(position) <= ABSURD_POSITION).all())
            and (velocity is None or (np.abs(velocity) <= r.velocity_bound).all())
            and (effort is None or (np.abs(effort) <= r.effort_raw_bound).all())
        ):
            return True
        if position is not None:
            bad = present & ~(np.abs(position) <= ABSURD_POSITION)
            if bad.any():
                j = int(np.argmax(bad))
                what = "not finite" if not math.isfinite(position[j]) else "beyond 1e6"
                return f"position of joint {names[j]!r} is {what} ({position[j]!r})", "position"
        if velocity is not None:
            bad = (
                present & np.isfinite(velocity) & (np.abs(velocity) > self._resolved.velocity_bound)
            )
            if bad.any():
                j = int(np.argmax(bad))
                return (
                    f"velocity of joint {names[j]!r} is {velocity[j]:.6g}, beyond the plausible "
                    f"{self._resolved.velocity_bound[j]:.6g} (velocity_limit_factor x URDF "
                    f"limit)",
                    "velocity",
                )
        if effort is not None:
            with np.errstate(over="ignore", invalid="ignore"):
                tau = self._resolved.effort_scale * effort + self._resolved.effort_offset
            bad = present & np.isfinite(effort) & ~(np.abs(tau) <= self._resolved.effort_bound)
            if bad.any():
                j = int(np.argmax(bad))
                return (
                    f"effort of joint {names[j]!r} is {effort[j]:.6g} (scaled {tau[j]:.6g}), "
                    f"beyond the plausible {self._resolved.effort_bound[j]:.6g} "
                    f"(effort_limit_factor x URDF limit)",
                    "effort",
                )
        return None

    def _refuse(self, t_ns, reason, field=None):
        c = self._counters
        c["refused"] += 1
        if field in _FIELDS:
            c[f"refused_{field}"] += 1
        self._text["last_refusal"] = reason
        # whatever the sample did to the estimator's inputs, start it again on the next one
        self._restart = f"after a refused message ({reason})"
        return PipelineOutput(stamp_ns=t_ns, refused=reason, wrench_frame=self.wrench_frame or "")

    # ------------------------------------------------------------------ the hot path
    def update(self, t_ns, position, velocity, effort, present=None, now_ns=None, on_command=None):
        """Process one joint_states message.

        Never raises for the content of the arrays: a message that cannot be used is refused with
        a reason.

        Args:
            t_ns: message stamp [ns] (int).
            position: (n,) positions [rad or m] in model order, or None when the message has no such
                field.
            velocity: (n,) velocities [rad/s or m/s] in model order, or None.
            effort: (n,) efforts in model order (as received, before effort_scale/effort_offset), or
                None. Values of joints the message does not carry are ignored (see ``present``).
                For carried joints a non-finite velocity or effort means "no value for this joint in
                this message" (the old value ages); a non-finite position, or a finite value beyond
                the plausibility bounds, refuses the message.
            present: (n,) bool, the joints the message carries (None: all).
            now_ns: the clock of :meth:`set_reference`'s stamps, for reference expiry
                (default t_ns).
            on_command: optional callable, called with the effort command (n,) as soon as it is
                ready (before the estimation), when there is one.

        Returns:
            PipelineOutput: what the message produced.
        """
        c = self._counters
        c["messages"] += 1
        try:
            t_ns = int(t_ns)
            if present is None:
                present = self._all
            else:
                present = np.asarray(present, dtype=bool)
                if present.shape != (self.n,):
                    raise _Refused(f"present has shape {present.shape}, expected ({self.n},)")
            position = self._field(position, "position")
            velocity = self._field(velocity, "velocity")
            effort = self._field(effort, "effort")
        except _Refused as refused:
            return self._refuse(t_ns if isinstance(t_ns, int) else 0, *refused.args)
        except (TypeError, ValueError, OverflowError) as error:
            return self._refuse(0, f"stamp is not an integer number of ns: {error}")
        problem = self._check_message(position, velocity, effort, present)
        if problem is not None and problem is not True:
            return self._refuse(t_ns, *problem)
        full = problem is True and present is self._all  # every joint, every value finite
        try:
            return self._process(
                t_ns, position, velocity, effort, present, full, now_ns, on_command
            )
        except (RobotDynamicsError, ValueError, FloatingPointError, np.linalg.LinAlgError) as e:
            # not expected for checked inputs; one message must not stop the caller
            return self._refuse(t_ns, f"{type(e).__name__}: {e}")

    def _stamp(self, t_ns):
        """dt [ns] since the previous message (None: restart or repeated stamp)."""
        c = self._counters
        last = self._last_t
        self._last_t = t_ns
        if last is None:
            return None
        d = t_ns - last
        if d < 0:
            c["stamps_backwards"] += 1
            self._restart = f"stamp went backwards by {-d * 1e-9:.6g} s"
            self._state.clamp_stamps(t_ns)
            if self._contact is not None:
                self._contact.reset()
            return None
        if d == 0:
            c["stamps_repeated"] += 1
            return 0
        period = self._period_ns
        if period is None:
            self._period_ns = d
        elif d > 1.5 * period:
            c["stamp_gaps"] += 1
            c["skipped_messages"] += max(int(round(d / period)) - 1, 1)
        else:
            self._period_ns = period + (d - period) // 20
        if d > self._max_dt_ns:
            self._restart = f"gap of {d * 1e-9:.6g} s between stamps"
            return None
        return d

    def _process(self, t_ns, position, velocity, effort, present, full, now_ns, on_command):
        c = self._counters
        model = self.model
        state = self._state
        dt_ns = self._stamp(t_ns)
        if full:  # the common case: one driver, every joint, clean values
            for row, values in enumerate((position, velocity, effort)):
                if values is not None:
                    state.values[row] = values
                    state.stamps[row] = t_ns
        else:
            if position is not None:
                state.merge(0, t_ns, position, present)
            if velocity is not None:
                bad = state.merge(1, t_ns, velocity, present)
                if bad.any():
                    c["nonfinite_velocity"] += int(bad.sum())
            if effort is not None:
                bad = state.merge(2, t_ns, effort, present)
                if bad.any():
                    c["nonfinite_effort"] += int(bad.sum())
        out = PipelineOutput(stamp_ns=t_ns, wrench_frame=self.wrench_frame or "")
        if not self._positions_complete:  # once complete, positions stay known
            missing = state.position_stamp == NEVER
            if missing.any():
                names = _names(self.joint_names, missing)
                out.missing_positions = tuple(names)
                reason = f"waiting for positions of joints {names}"
                out.command_error = reason
                self._pause(out, reason)
                return out
            self._positions_complete = True
        q = state.position.copy()
        if full and velocity is not None:
            stale_velocity, have_velocity = None, True
        else:
            stale_velocity = state.older_than(1, t_ns, self._velocity_timeout_ns)
            have_velocity = not stale_velocity.any()
        qd = state.velocity.copy() if have_velocity else self._zero
        frame = self.contact_frame
        terms = model.state_terms(q, qd, frame=frame, axes="local", jacobian=frame is not None)
        friction = None
        if self.config.friction_compensation and have_velocity:
            friction = model.friction_torques(qd, self.config.friction_velocity_threshold)

        # the command path first: gravity (the command when it is the source), the
        # feed-forward (the command otherwise), then the estimation
        gravity = self._finite(terms.gravity, "gravity")
        out.gravity = gravity
        by_gravity = self.config.command_source == "gravity"
        if by_gravity:
            self._command(out, gravity, "the gravity torques are not finite", on_command)
        reference = self._active_reference(t_ns if now_ns is None else int(now_ns))
        if reference is not None:
            ff = self._reference_feedforward(reference)
            ff = None if ff is None else ff.copy()  # the cached array stays ours
            ff_error = None if ff is not None else "the feed-forward at the reference is not finite"
        elif have_velocity:
            ff = terms.nonlinear_effects
            if friction is not None:
                ff = ff + friction
            ff = self._finite(ff, "feed-forward")
            ff_error = None if ff is not None else "the feed-forward is not finite"
        else:
            ff = None
            ff_error = (
                "no feed-forward: no reference and no recent velocity for joints "
                f"{_names(self.joint_names, stale_velocity)}"
            )
        out.feedforward = ff
        if not by_gravity:
            self._command(out, ff, ff_error, on_command)

        # estimation
        fresh_effort = full and effort is not None
        self._estimate(
            out, t_ns, dt_ns, q, qd, terms, friction, have_velocity, stale_velocity, fresh_effort
        )
        return out

    def _command(self, out, source, error, on_command):
        """The effort command from ``source`` (clamped), handed to ``on_command`` at once."""
        if source is None:
            out.command_error = error
            self._counters["commands_withheld"] += 1
            return
        if self._clamp:
            command = np.minimum(np.maximum(source, self._clamp_lower), self._clamp_limits)
        else:
            command = source.copy()
        out.command = command
        if on_command is not None:
            on_command(command)

    def _pause(self, out, reason, restart=True):
        out.estimation_paused = reason
        self._counters["estimation_paused"] += 1
        self._text["last_pause"] = reason
        if restart and self._restart is None:
            # the observer integrates over time: after a pause it starts again
            self._restart = f"estimation resumed after a pause ({reason})"
        if self._contact is not None:
            out.contact = self._contact.state()
        self._tare_tick(out.stamp_ns, None)

    def _estimate(
        self, out, t_ns, dt_ns, q, qd, terms, friction, have_velocity, stale_velocity, fresh_effort
    ):
        state = self._state
        names = self.joint_names
        if not have_velocity:
            never = state.velocity_stamp == NEVER
            what = "no velocity" if never.any() else "stale velocity"
            self._pause(out, f"{what} for joints {_names(names, stale_velocity)}")
            return
        stale_effort = None if fresh_effort else state.older_than(2, t_ns, self._effort_timeout_ns)
        if stale_effort is not None and stale_effort.any():
            never = state.effort_stamp == NEVER
            if never.any():
                self._stale_effort = False
                self._text["stale_effort_joints"] = ""
                self._pause(out, f"no effort for joints {_names(names, never)}")
            else:
                stale = _names(names, stale_effort)
                self._stale_effort = True
                self._text["stale_effort_joints"] = " ".join(stale)
                reason = (
                    f"stale effort for joints {stale} (older than effort_timeout "
                    f"{self.config.effort_timeout} s)"
                )
                out.warnings = out.warnings + (reason,)
                self._pause(out, reason)
            return
        self._stale_effort = False
        self._text["stale_effort_joints"] = ""
        if dt_ns == 0:
            self._pause(out, "the same stamp as the previous message", restart=False)
            return
        r = self._resolved
        tau = state.effort if self._raw_effort else r.effort_scale * state.effort + r.effort_offset
        if friction is not None:
            tau = tau - friction
        dt = None if dt_ns is None else dt_ns * 1e-9
        if self._restart is not None or dt is None:
            self._counters["observer_restarts"] += 1
            self._text["last_restart"] = self._restart or "restart"
            self._restart = None
            self._differentiator.reset()
            restarted = True
        else:
            restarted = False
        if self._static:
            if self._differentiated:
                qdd = self._differentiator.update(qd, 0.0 if restarted else dt)
                tau_model = self.model.inverse_dynamics(q, qd, qdd)
            else:
                tau_model = terms.nonlinear_effects
            tau_ext = tau_model - tau
        elif restarted:
            # start from the quasi-static estimate (exact at rest): right at once
            tau_ext = terms.nonlinear_effects - tau
            self._observer.reset(q, qd, terms=terms, residual=tau_ext)
        else:
            tau_ext = self._observer.update(q, qd, tau, dt, terms=terms)
        if self._finite(tau_ext, "external torques") is None:
            self._restart = "non-finite external torques"
            self._pause(out, "the external torques are not finite")
            return
        self._tare_tick(t_ns, tau_ext)
        if self._bias is not None:
            tau_ext = tau_ext - self._bias
        out.external_torques = tau_ext
        wrench = None
        if self.wrench_frame is not None:
            est = self.model.estimate_external_wrench(
                q,
                tau_ext,
                frame=self.contact_frame,
                sensor_frame=self.wrench_frame,
                components=self.wrench_components,
                damping=self.config.wrench_damping,
                singular_threshold=self.config.singular_threshold,
                jacobian=terms.jacobian,
            )
            wrench = self._finite(est.wrench, "wrench")
            if wrench is not None:
                out.wrench = wrench
                out.singular_values = est.singular_values
                out.min_singular_value = est.min_singular_value
                out.near_singular = est.near_singular
                self._min_singular_value = est.min_singular_value
                self._near_singular = est.near_singular
                if est.near_singular:
                    self._counters["singular_warnings"] += 1
        if self._contact is not None:
            out.contact = self._contact.update(t_ns, tau_ext, wrench)

    def _finite(self, values, name):
        """values, or None (counted, reason kept) when any is not finite: the last guard."""
        if math.isfinite(np.add.reduce(values, axis=None)):
            return values
        if np.all(np.isfinite(values)):  # the sum overflowed, the values are finite
            return values
        self._counters["nonfinite_outputs"] += 1
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
            InvalidInputError: a wrong shape, a non-finite or implausible value (named).
        """
        arrays = []
        bounds = (ABSURD_POSITION, self._resolved.velocity_bound, ABSURD_ACCELERATION)
        for name, values, bound in zip(
            ("positions", "velocities", "accelerations"), (q, qd, qdd), bounds
        ):
            if values is None:
                arrays.append(self._zero.copy())
                continue
            try:
                arr = np.array(values, dtype=float)
            except (TypeError, ValueError) as error:
                raise InvalidInputError(f"reference {name} are not numeric: {error}") from None
            if arr.shape != (self.n,):
                raise InvalidInputError(
                    f"reference {name} have shape {arr.shape}, expected ({self.n},) in model "
                    f"order {list(self.joint_names)}"
                )
            bad = ~(np.abs(arr) <= bound)
            if bad.any():
                j = int(np.argmax(bad))
                raise InvalidInputError(
                    f"reference {name} of joint {self.joint_names[j]!r} is {arr[j]!r}: not "
                    f"finite or beyond the plausible {np.broadcast_to(bound, (self.n,))[j]:.6g}"
                )
            arrays.append(arr)
        self._reference = (arrays[0], arrays[1], arrays[2], int(t_ns))
        self._reference_ff = None

    def clear_reference(self):
        """Drop the reference: the feed-forward uses the measured state."""
        self._reference = None
        self._reference_ff = None

    def _active_reference(self, now_ns):
        reference = self._reference
        if reference is None:
            return None
        timeout = self._reference_timeout_ns
        if timeout > 0 and now_ns - reference[3] > timeout:
            self._counters["reference_expired"] += 1
            self._reference = None
            self._reference_ff = None
            return None
        return reference

    def _reference_feedforward(self, reference):
        """M qdd + C qd + g (+ friction) at the reference, once per reference."""
        cached = self._reference_ff
        if cached is not None and cached[0] is reference:
            return cached[1]
        q, qd, qdd, _ = reference
        ff = self.model.inverse_dynamics(q, qd, qdd)
        if self.config.friction_compensation:
            ff = ff + self.model.friction_torques(qd, self.config.friction_velocity_threshold)
        ff = self._finite(ff, "feed-forward at the reference")
        self._reference_ff = (reference, ff)
        return ff

    # ------------------------------------------------------------------ tare and reset
    def start_tare(self, t_ns):
        """Start averaging the external torques over ``tare_duration`` from a stamp.

        When done, that average (the bias) is subtracted from every later estimate. Valid near the
        pose of the tare (model error depends on the pose), with the arm at rest and free.

        Args:
            t_ns: stamp [ns] from which messages count.
        """
        self._tare = {"start": int(t_ns), "first": None, "sum": np.zeros(self.n), "count": 0}
        self._tare_state = "collecting"

    def tare_state(self):
        """State of the tare.

        Returns:
            str: "idle" | "collecting" | "done" | "failed: <reason>".
        """
        return self._tare_state

    @property
    def bias(self):
        """(n,) tare bias subtracted from the external torques, or None."""
        return None if self._bias is None else self._bias.copy()

    def _tare_tick(self, t_ns, tau_ext):
        tare = self._tare
        if tare is None or t_ns < tare["start"]:
            return
        if tau_ext is not None:
            if tare["first"] is None:
                tare["first"] = t_ns
            tare["sum"] += tau_ext
            tare["count"] += 1
            if t_ns - tare["first"] >= self._tare_duration_ns:
                self._bias = tare["sum"] / tare["count"]
                self._tare = None
                self._tare_state = "done"
                return
        if t_ns - tare["start"] > 3 * self._tare_duration_ns:
            self._tare = None
            pause = self._text["last_pause"] or "no estimates"
            self._tare_state = (
                f"failed: no external torque estimates for {3 * self.config.tare_duration} s "
                f"(last pause: {pause})"
            )

    def reset_estimation(self):
        """Restart the observer and the acceleration filter, clear the tare bias (and stop a
        tare in progress) and the contact state."""
        self._restart = "reset_estimation"
        self._differentiator.reset()
        self._bias = None
        if self._tare is not None:
            self._tare_state = "failed: reset during the tare"
        elif self._tare_state == "done":
            self._tare_state = "idle"
        self._tare = None
        if self._contact is not None:
            self._contact.reset()

    # ------------------------------------------------------------------ diagnostics
    def status(self):
        """Counters, flags and last reasons, for diagnostics.

        Returns:
            dict: counters (cumulative ints), last reasons (str) and flags (stale_effort,
            near_singular, min_singular_value, contacts, in_contact, contact_link, tare,
            wrench_frame, wrench_components, reference_active).
        """
        out = dict(self._counters)
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
                "tare": self._tare_state,
                "wrench_frame": self.wrench_frame or "",
                "wrench_components": " ".join(self.wrench_components),
                "reference_active": self._reference is not None,
            }
        )
        return out


class _Refused(Exception):
    """Internal: a message that is refused (args: reason, field)."""


__all__ = ["EstimationPipeline", "PipelineOutput"]
