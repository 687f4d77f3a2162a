"""The dynamics node's services: ~/get_mass_matrix, ~/compute_inverse_dynamics, ~/simulate, and
~/tare, ~/reset_estimation (std_srvs/Trigger over the estimation pipeline).

Every request is validated before any work starts (joint names known and unique, lengths, every
number finite and within plausible bounds, durations, sample periods, steps and tolerances
within the node's limits); the work is bounded (simulated duration, output samples, fixed steps,
right-hand-side evaluations and wall time, by the core's ``RobotModel.simulate`` limits); any
exception becomes ``success: false`` with the reason. The request queues are deep
(:data:`SERVICE_QUEUE_DEPTH`), so a burst of concurrent calls is answered, one by one.
"""

import functools
import math
from collections import Counter

import numpy as np

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.qos import QoSProfile, ReliabilityPolicy

from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from robot_dynamics.core.simulate import FIXED_STEP_METHODS, IVP_METHODS
from robot_dynamics_interfaces.srv import (
    ComputeInverseDynamics,
    GetMassMatrix,
    SimulateForwardDynamics,
)

from .conversions import (
    as_numpy,
    duration_to_seconds,
    matrix_to_multiarray,
    seconds_to_duration,
    to_array,
    wrench_from_msg,
)
from .throttled_log import ThrottledLog

SERVICE_QUEUE_DEPTH = 200
"""Requests each service keeps queued (a burst of concurrent calls is answered, not lost)."""
REFUSAL_LOG_PERIOD = 5.0
"""A refused request is logged at most once per this many seconds per service [s] (the caller
gets every reason in its response)."""

SIM_TORQUE_MODES = {
    SimulateForwardDynamics.Request.TORQUE_ZERO: "zero",
    SimulateForwardDynamics.Request.TORQUE_CONSTANT: "constant",
    SimulateForwardDynamics.Request.TORQUE_TRAJECTORY: "trajectory",
    SimulateForwardDynamics.Request.TORQUE_GRAVITY_COMPENSATION: "gravity_compensation",
}
SIM_INTEGRATORS = IVP_METHODS + FIXED_STEP_METHODS

# Plausibility bounds of request values (rad or m, rad/s or m/s, rad/s^2 or m/s^2, N or N m).
MAX_POSITION = 1.0e6
MAX_VELOCITY = 1.0e4
MAX_ACCELERATION = 1.0e6
MAX_FORCE = 1.0e6
MAX_TRAJECTORY_POINTS = 100_000
RTOL_RANGE = (1.0e-12, 1.0e-1)
ATOL_RANGE = (1.0e-15, 1.0)
MIN_FIXED_STEP = 1.0e-6


class RequestError(ValueError):
    """A service request that is refused before any work (the message names the field)."""


def _check(values, bound, what, names=None):
    """Raise RequestError unless every entry of ``values`` is finite with |v| <= bound; the
    message names the entry by its index, or by ``names`` (the joints of a vector)."""
    values = np.asarray(values, dtype=float)
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(values) <= bound)  # NaN and inf fail the comparison
    if bad.any():
        index = np.unravel_index(int(np.argmax(bad)), values.shape) if values.ndim else ()
        if names is not None:
            where = f" of joint {names[index[0]]!r}"
        else:
            where = f"{[int(i) for i in index]}" if index else ""
        raise RequestError(f"{what}{where} = {values[index]} is not finite or beyond +-{bound:g}")
    return values


def _listed(names, limit=10):
    """A list of names for a message, the first ``limit`` of a longer one and the count."""
    names = list(names)
    if len(names) <= limit:
        return str(names)
    return f"{names[:limit]} and {len(names) - limit} more"


def _not_joints(what, names, model):
    """The RequestError of names that are not the model's joints (its mimic and locked joints
    said to be such)."""
    derived = [name for name in names if name in model.derived_joints]
    hint = (
        f"; {_listed(derived)} follow the model's joints (mimic) or are held (locked_joints)"
        if derived
        else ""
    )
    return RequestError(
        f"{what}: {_listed(names)} not joints of the model {list(model.joint_names)}{hint}"
    )


def _vector(names, values, model, joint_index, what, bound, default=None):
    """(n,) model-order vector from named message values; joints not named take ``default``
    (required when None). Unknown or repeated names, length mismatches and non-finite or
    out-of-bound values raise RequestError naming them (``model``'s mimic and locked joints
    said to be such); ``joint_index`` is the model's joint name -> index."""
    n = len(joint_index)
    values = as_numpy(values)
    if len(values) != len(names):
        raise RequestError(f"{what} has {len(values)} values for {len(names)} joint names")
    out = np.full(n, np.nan) if default is None else np.array(default, dtype=float, copy=True)
    seen = set()
    for name, value in zip(names, values):
        if name in seen:
            raise RequestError(f"{what}: joint {name!r} appears twice")
        seen.add(name)
        j = joint_index.get(name)
        if j is None:
            raise _not_joints(what, [name], model)
        if not abs(value) <= bound:
            raise RequestError(
                f"{what} of joint {name!r} = {value} is not finite or beyond +-{bound:g}"
            )
        out[j] = value
    missing = [name for name, j in joint_index.items() if not np.isfinite(out[j])]
    if missing:
        raise RequestError(f"{what}: no value for joints {missing}")
    return out


def _answer(method):
    """Service wrapper: no model -> failure; any exception -> success false with the reason."""

    @functools.wraps(method)
    def handler(self, request, response):
        active = self._active()
        if active is None:
            response.success = False
            response.message = "no robot model loaded"
            return response
        try:
            return method(self, active.model, request, response)
        except Exception as error:  # noqa: BLE001 - a request must never end the node
            response.success = False
            response.message = f"{type(error).__name__}: {error}"
            name = method.__name__.lstrip("_")
            # the caller has the reason; a client that retries does not flood the log
            self._log(name, REFUSAL_LOG_PERIOD, "warning", f"{name}: {response.message}")
            return response

    return handler


class DynamicsServices:
    """Creates the three services on ``node``.

    Args:
        node: the rclpy node.
        active: () -> the node's active model bundle (``.model``) or None.
        values: () -> the node's current parameter values (max_simulation_* limits).
        measured: () -> (q, qd) latest measured state, (n,) model order, NaN where unknown.
        stopping: () -> True once the node is stopping: a running simulation then ends at its
            next step and answers ``success: false``.
    """

    def __init__(self, node, active, values, measured, stopping):
        self._active = active
        self._values = values
        self._measured = measured
        self._stopping = stopping
        self._log = ThrottledLog(node.get_logger())
        self._clock = node.get_clock()
        qos = QoSProfile(depth=SERVICE_QUEUE_DEPTH, reliability=ReliabilityPolicy.RELIABLE)
        queries = MutuallyExclusiveCallbackGroup()
        simulation = MutuallyExclusiveCallbackGroup()
        node.create_service(
            GetMassMatrix,
            "~/get_mass_matrix",
            self._mass_matrix,
            qos_profile=qos,
            callback_group=queries,
        )
        node.create_service(
            ComputeInverseDynamics,
            "~/compute_inverse_dynamics",
            self._inverse_dynamics,
            qos_profile=qos,
            callback_group=queries,
        )
        node.create_service(
            SimulateForwardDynamics,
            "~/simulate",
            self._simulate,
            qos_profile=qos,
            callback_group=simulation,
        )

    # ------------------------------------------------------------------ helpers
    def _state(self, model, joint_state, what):
        """(q, qd) of a request's joint_state: the latest measured state overridden by the
        joints the request names (velocity 0 where neither gives one)."""
        index = {name: j for j, name in enumerate(model.joint_names)}
        q0, qd0 = self._measured()
        if q0 is None or len(q0) != model.n:
            q0 = qd0 = np.full(model.n, np.nan)
        if len(joint_state.name) and not len(joint_state.position):
            raise RequestError(f"{what}: joint_state has names but no positions")
        q = _vector(
            joint_state.name,
            joint_state.position,
            model,
            index,
            f"{what} position",
            MAX_POSITION,
            default=q0,
        )
        qd_default = np.where(np.isfinite(qd0), qd0, 0.0)
        if len(joint_state.velocity):
            qd = _vector(
                joint_state.name,
                joint_state.velocity,
                model,
                index,
                f"{what} velocity",
                MAX_VELOCITY,
                default=qd_default,
            )
        else:
            for name in joint_state.name:  # the names are checked with the positions above
                qd_default[index[name]] = 0.0
            qd = qd_default
        return q, qd

    # ------------------------------------------------------------------ services
    @_answer
    def _mass_matrix(self, model, request, response):
        q, qd = self._state(model, request.joint_state, "get_mass_matrix")
        has_tip = model.tip_link is not None
        terms = model.state_terms(q, qd, jacobian=has_tip)  # g, C qd + g, J: one pass
        response.joint_names = list(model.joint_names)
        response.mass_matrix = matrix_to_multiarray(model.mass_matrix(q), "rows", "cols")
        response.gravity_torques = to_array(terms.gravity)
        response.coriolis_torques = to_array(terms.nonlinear_effects - terms.gravity)
        if has_tip:
            response.jacobian = matrix_to_multiarray(terms.jacobian, "rows", "cols")
            response.jacobian_frame = model.tip_link
            response.jacobian_base_frame = model.base_link
        response.success = True
        response.message = "ok"
        return response

    @_answer
    def _inverse_dynamics(self, model, request, response):
        response.trajectory = request.trajectory
        traj = request.trajectory
        what = "compute_inverse_dynamics"
        k, m = len(traj.points), len(traj.joint_names)
        if k == 0:
            raise RequestError(f"{what}: the trajectory has no points")
        if k > MAX_TRAJECTORY_POINTS:
            raise RequestError(f"{what}: {k} points, more than {MAX_TRAJECTORY_POINTS}")
        index = {name: j for j, name in enumerate(model.joint_names)}
        unknown = [name for name in traj.joint_names if name not in index]
        if unknown:
            raise _not_joints(what, unknown, model)
        if len(set(traj.joint_names)) != m:
            twice = sorted(name for name, k in Counter(traj.joint_names).items() if k > 1)
            raise RequestError(f"{what}: joints {_listed(twice)} appear twice in joint_names")
        missing = [name for name in model.joint_names if name not in traj.joint_names]
        if missing:
            raise RequestError(f"{what}: trajectory.joint_names lacks model joints {missing}")
        perm = np.array([index[name] for name in traj.joint_names], dtype=np.intp)
        arrays = {}
        for field, bound, required in (
            ("positions", MAX_POSITION, True),
            ("velocities", MAX_VELOCITY, False),
            ("accelerations", MAX_ACCELERATION, False),
        ):
            out = np.zeros((k, model.n))
            for i, point in enumerate(traj.points):
                values = as_numpy(getattr(point, field))
                if len(values) == 0 and not required:
                    continue
                if len(values) != m:
                    raise RequestError(
                        f"{what}: point {i} has {len(values)} {field} for {m} joint names"
                    )
                _check(values, bound, f"{what}: point {i} {field}", traj.joint_names)
                out[i, perm] = values
            arrays[field] = out
        Q, QD, QDD = arrays["positions"], arrays["velocities"], arrays["accelerations"]
        tau = model.inverse_dynamics(Q, QD, QDD)  # (k, n), one batched call
        if request.include_friction:
            # the node's friction model, as the feed-forward's friction_compensation adds it
            tau = tau + model.friction_torques(QD, self._values()["friction_velocity_threshold"])
        tau = tau[:, perm]
        if not np.isfinite(tau).all():
            raise RequestError(f"{what}: the torques are not finite")
        for i, point in enumerate(traj.points):
            point.effort = to_array(tau[i])
        response.trajectory = traj
        response.success = True
        response.message = "ok"
        return response

    def _simulation_inputs(self, model, request):
        """Validate a simulate request; returns the keyword arguments of RobotModel.simulate."""
        what = "simulate"
        limits = self._values()
        if model.n == 0:
            raise RequestError(f"{what}: the model has no movable joint")
        q0, qd0 = self._state(model, request.initial_state, what)
        duration = float(request.duration)
        max_duration = limits["max_simulation_duration"]
        if not (math.isfinite(duration) and duration > 0.0):
            raise RequestError(f"{what}: duration must be > 0 s, got {duration}")
        if duration > max_duration:
            raise RequestError(
                f"{what}: duration {duration} s exceeds max_simulation_duration {max_duration} s"
            )
        sample = float(request.sample_period) or limits["simulation_sample_period"]
        if not (math.isfinite(sample) and sample > 0.0):
            raise RequestError(f"{what}: sample_period must be >= 0 s, got {request.sample_period}")
        max_samples = limits["max_simulation_samples"]
        samples = duration / sample + 1.0  # float: 5e-324 gives inf, no OverflowError
        if not samples <= max_samples:
            raise RequestError(
                f"{what}: {samples:.6g} samples (duration {duration} s / sample_period "
                f"{sample} s) exceed max_simulation_samples {max_samples}"
            )
        method = request.integrator or "RK45"
        if method not in SIM_INTEGRATORS:
            raise RequestError(
                f"{what}: unknown integrator {method!r}; one of {list(SIM_INTEGRATORS)}"
            )
        fixed_step = float(request.fixed_step) or 1e-3
        rtol = float(request.rtol) or 1e-8
        atol = float(request.atol) or 1e-10
        max_steps = limits["max_simulation_steps"]
        if method in FIXED_STEP_METHODS:
            if not (math.isfinite(fixed_step) and MIN_FIXED_STEP <= fixed_step <= duration):
                raise RequestError(
                    f"{what}: fixed_step must be in [{MIN_FIXED_STEP:g}, duration] s, got "
                    f"{request.fixed_step}"
                )
            if not duration / fixed_step <= max_steps:
                raise RequestError(
                    f"{what}: {duration / fixed_step:.6g} steps (duration / fixed_step) exceed "
                    f"max_simulation_steps {max_steps}"
                )
        for name, value, (low, high) in (("rtol", rtol, RTOL_RANGE), ("atol", atol, ATOL_RANGE)):
            if not low <= value <= high:
                raise RequestError(f"{what}: {name} must be in [{low:g}, {high:g}], got {value}")
        torque_bound = limits["max_simulation_torque"]
        mode = SIM_TORQUE_MODES.get(request.torque_mode)
        if mode is None:
            raise RequestError(f"{what}: unknown torque_mode {request.torque_mode}")
        index = {name: j for j, name in enumerate(model.joint_names)}
        if mode == "zero":
            tau = None
        elif mode == "constant":
            names = list(request.torque_joint_names) or list(model.joint_names)
            tau = _vector(
                names,
                request.constant_torque,
                model,
                index,
                f"{what} constant_torque",
                torque_bound,
                default=np.zeros(model.n),
            )
        elif mode == "trajectory":
            tt = request.torque_trajectory
            if not tt.points:
                raise RequestError(f"{what}: torque_trajectory has no points")
            if len(tt.points) > MAX_TRAJECTORY_POINTS:
                raise RequestError(
                    f"{what}: torque_trajectory has more than {MAX_TRAJECTORY_POINTS} points"
                )
            times = np.array([duration_to_seconds(p.time_from_start) for p in tt.points])
            if np.any(np.diff(times) <= 0.0):
                raise RequestError(f"{what}: torque_trajectory times must increase")
            efforts = np.array(
                [
                    _vector(
                        tt.joint_names,
                        p.effort,
                        model,
                        index,
                        f"{what} torque_trajectory point {i} effort",
                        torque_bound,
                        default=np.zeros(model.n),
                    )
                    for i, p in enumerate(tt.points)
                ]
            )
            tau = (times, efforts)
        else:
            tau = _GravityCompensation(model)
        f_ext, frame = None, None
        if request.apply_external_wrench:
            f_ext = _check(
                wrench_from_msg(request.external_wrench), MAX_FORCE, f"{what}: external_wrench"
            )
            frame = request.external_wrench_frame or None
            if frame is None and model.tip_link is None:
                raise RequestError(
                    f"{what}: external_wrench_frame is empty and the model has no tip_link"
                )
            if frame is not None and frame not in model.link_names:
                raise RequestError(
                    f"{what}: external_wrench_frame {frame!r} is not a link of the model"
                )
        return dict(
            q0=q0,
            qd0=qd0,
            duration=duration,
            tau=tau,
            f_ext=f_ext,
            frame=frame,
            method=method,
            rtol=rtol,
            atol=atol,
            sample_dt=sample,
            friction=bool(request.include_friction),
            fixed_step=fixed_step,
            max_wall_time=limits["max_simulation_wall_time"],
            max_steps=max_steps,
            max_rhs_evaluations=limits["max_simulation_steps"],
            max_samples=max_samples,
            stop=self._stopping,
        )

    @_answer
    def _simulate(self, model, request, response):
        kwargs = self._simulation_inputs(model, request)
        result = model.simulate(**kwargs)
        if not (np.isfinite(result.q).all() and np.isfinite(result.qd).all()):
            raise RequestError("simulate: the simulated state left the finite range")
        traj = JointTrajectory()
        traj.header.stamp = self._clock.now().to_msg()
        traj.header.frame_id = model.base_link
        traj.joint_names = list(model.joint_names)
        points = []
        for i in range(len(result.t)):
            point = JointTrajectoryPoint()
            point.positions = to_array(result.q[i])
            point.velocities = to_array(result.qd[i])
            point.accelerations = to_array(result.qdd[i])
            point.effort = to_array(result.tau[i])
            point.time_from_start = seconds_to_duration(float(result.t[i]))
            points.append(point)
        traj.points = points
        response.trajectory = traj
        response.energy = to_array(result.energy)
        response.final_energy = float(result.energy[-1])
        response.success = True
        response.message = (
            f"ok: {len(points)} samples over {float(result.t[-1]):.6g} s with {kwargs['method']}"
        )
        return response


class _GravityCompensation:
    """Torque callable ``tau(t, q, qd) = g(q)`` for the simulate service."""

    def __init__(self, model):
        self._model = model

    def __call__(self, t, q, qd):
        return self._model.gravity_torques(q)


def trigger_services(node, with_pipeline, tare, reset, callback_group):
    """~/tare and ~/reset_estimation (``std_srvs/Trigger``) on ``node``.

    Args:
        node: the node that serves them.
        with_pipeline: ``with_pipeline(call)`` runs ``call(pipeline)`` under the node's
            pipeline lock and returns its result (None without a model).
        tare: ``tare(pipeline) -> tare state`` (starts a tare).
        reset: ``reset(pipeline) -> message``.
        callback_group: the services' callback group.
    """

    def on_tare(request, response):
        state = with_pipeline(tare)
        response.success = state is not None and not state.startswith("failed")
        if state is None:
            response.message = "no robot model loaded"
        elif not response.success:
            response.message = f"tare {state}"
        else:
            response.message = (
                f"tare {state}: averaging the external torques over tare_duration "
                "(valid near this pose, arm at rest and free)"
            )
        return response

    def on_reset(request, response):
        message = with_pipeline(reset)
        response.success = message is not None
        response.message = message or "no robot model loaded"
        return response

    node.create_service(Trigger, "~/tare", on_tare, callback_group=callback_group)
    node.create_service(Trigger, "~/reset_estimation", on_reset, callback_group=callback_group)
