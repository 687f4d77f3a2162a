"""Forward-dynamics simulation: scipy's solve_ivp integrators and a fixed-step semi-implicit
Euler integrator for real-time use.

Every input is validated before any work, and the work of one call is bounded: by fixed steps
(``max_steps``), output samples (``max_samples``), right-hand-side evaluations of the solve_ivp
methods (``max_rhs_evaluations``) and wall time (``max_wall_time``); exceeding a bound raises
:class:`~robot_dynamics.core.errors.SimulationLimitError` naming it. A caller that must end a
simulation early (a node stopping) passes ``stop``, asked at every step.
"""

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from . import dynamics as _dynamics
from .errors import InvalidInputError, SimulationError, SimulationLimitError
from .validation import all_finite, check_vector

IVP_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")
FIXED_STEP_METHODS = ("semi_implicit_euler",)
#: Methods that take a step from the state alone: stiff dynamics (a large joint damping or
#: friction against a light link) force them into tiny steps, or out of range.
EXPLICIT_METHODS = ("RK45", "RK23", "DOP853", "semi_implicit_euler")


def stiffness_hint(method):
    """What to try when a simulation with ``method`` stopped or diverged ("" for an implicit one).

    Args:
        method: the integration method.

    Returns:
        str: "; ..." naming the implicit methods (and a smaller fixed step), or "".
    """
    if method not in EXPLICIT_METHODS:
        return ""
    smaller = "a smaller fixed_step, or " if method in FIXED_STEP_METHODS else ""
    return (
        f"; {method} is explicit: {smaller}if joint damping or friction make the dynamics stiff, "
        "an implicit method (Radau, BDF) takes far fewer steps"
    )


#: Default bound on |tau| [N m or N] of every applied joint torque.
MAX_TORQUE = 1e6
#: Default bounds on the work of one call.
MAX_STEPS = 1_000_000
MAX_SAMPLES = 100_000
MAX_RHS_EVALUATIONS = 200_000
#: Smallest fixed_step and sample_dt [s]; tolerance floors.
MIN_STEP = 1e-6
MIN_RTOL = 1e-12
MIN_ATOL = 1e-15
#: The state (q, qd) must stay within this magnitude (the model's input bound).
MAX_STATE = 1e9


@dataclass(frozen=True)
class SimulationResult:
    """Sampled trajectory.

    Attributes:
        t: (k,) sample times [s].
        q: (k, n) joint positions [rad or m].
        qd: (k, n) joint velocities [rad/s or m/s].
        qdd: (k, n) joint accelerations [rad/s^2 or m/s^2].
        tau: (k, n) applied joint torque (without friction) [N m or N].
        energy: (k,) kinetic + potential energy [J].
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    energy: np.ndarray


def semi_implicit_euler_step(tree, q, qd, tau, dt, f_ext=None, frame=None):
    """One semi-implicit (symplectic) Euler step: ``qd += dt qdd(q, qd)``, then ``q += dt qd``.

    An unchecked entry point (see :mod:`robot_dynamics.core.dynamics`): the arguments are
    already validated (:meth:`RobotModel.step` validates and calls this).

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        q: (..., n) joint positions [rad or m].
        qd: (..., n) joint velocities [rad/s or m/s].
        tau: (..., n) joint torques [N m or N] (friction already subtracted).
        dt: step length [s].
        f_ext: (..., 6) wrench [N, N m] on ``frame``, base-frame axes, or None.
        frame: the link ``f_ext`` acts on (a link of the tree).

    Returns:
        tuple: ``(q, qd)`` after the step, (..., n) each.
    """
    qdd = _dynamics.forward_dynamics(tree, _dynamics.kinematics(tree, q), qd, tau, f_ext, frame)
    qd_new = qd + dt * qdd
    return q + dt * qd_new, qd_new


def torque_function(model, tau, max_torque=MAX_TORQUE):
    """Normalise a torque specification to a callable ``tau(t, q, qd) -> (n,)``.

    Constant and sampled torques are checked here: finite, ``|tau| <= max_torque``.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        tau: None (zero), a constant (n,) vector [N m or N], a ``(times (k,) [s], values (k, n))``
            tuple sampled on a time grid (linear in between, held outside), or a callable
            ``tau(t, q, qd)``.
        max_torque: bound on |tau| [N m or N].

    Returns:
        callable: ``tau(t, q, qd) -> (n,)``.

    Raises:
        InvalidInputError: wrong shapes, non-numeric, non-finite or out-of-bound values, times
            not finite or not strictly increasing.
    """
    n = model.n
    if tau is None:
        zero = np.zeros(n)
        return lambda t, q, qd: zero
    if callable(tau):
        return tau
    if isinstance(tau, tuple) and len(tau) == 2:
        try:
            times = np.asarray(tau[0], dtype=float)
            values = np.asarray(tau[1], dtype=float)
        except (TypeError, ValueError):
            raise InvalidInputError("sampled tau must be numeric (times, values)") from None
        if times.ndim != 1 or values.shape != (times.size, n) or times.size == 0:
            raise InvalidInputError(
                f"sampled tau must be (times (k,), values (k, {n})), got shapes "
                f"{times.shape} and {values.shape}"
            )
        if not np.all(np.isfinite(times)) or np.any(np.abs(times) > 1e9):
            raise InvalidInputError("sampled tau: times must be finite, |t| <= 1e9 s")
        if np.any(np.diff(times) <= 0):
            raise InvalidInputError("sampled tau: times must be strictly increasing")
        _check_torque(values, max_torque, "sampled tau")

        slopes = np.diff(values, axis=0) / np.diff(times)[:, None]
        last = times.size - 1

        def sampled(t, q, qd):
            # np.interp for all joints at once (same formula: held outside, linear inside)
            j = int(np.searchsorted(times, t, side="right")) - 1
            if j < 0:
                return values[0].copy()
            if j >= last:
                return values[-1].copy()
            return values[j] + slopes[j] * (t - times[j])

        return sampled
    constant = check_vector(tau, "tau", model.joint_names)
    if constant.ndim != 1:
        raise InvalidInputError(f"constant tau must have shape ({n},), got {constant.shape}")
    _check_torque(constant, max_torque, "tau")
    return lambda t, q, qd: constant


def _check_torque(values, max_torque, name, t=None):
    """Refuse torques that are not finite or beyond max_torque (one compiled check when they
    are all fine)."""
    flat = values.reshape(-1)
    if all_finite(flat, max_torque):
        return
    bad = ~np.isfinite(flat) | (np.abs(np.where(np.isfinite(flat), flat, 0.0)) > max_torque)
    if not np.any(bad):
        return
    value = float(flat[int(np.argmax(bad))])
    at = "" if t is None else f" at t = {t} s"
    if not math.isfinite(value):
        raise InvalidInputError(f"{name} has a NaN or infinite value{at}")
    raise InvalidInputError(f"{name} has {value:g}{at}, beyond max_torque = {max_torque:g}")


def _positive(value, name, low, high=math.inf):
    """A float in [low, high], or InvalidInputError naming it."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be a number, got {value!r}") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise InvalidInputError(
            f"{name} must be a finite number in [{low:g}, {high:g}], got {value}"
        )
    return value


def _count(value, name):
    if not (isinstance(value, (int, np.integer)) and value >= 1):
        raise InvalidInputError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def simulate(
    model,
    q0,
    qd0,
    duration,
    *,
    tau=None,
    f_ext=None,
    frame=None,
    method="RK45",
    rtol=1e-8,
    atol=1e-10,
    sample_dt=None,
    friction=False,
    fixed_step=1e-3,
    max_torque=MAX_TORQUE,
    max_steps=MAX_STEPS,
    max_samples=MAX_SAMPLES,
    max_rhs_evaluations=MAX_RHS_EVALUATIONS,
    max_wall_time=None,
    stop=None,
):
    """Integrate ``M qdd + C qd + g = tau + J^T f_ext - friction``; see RobotModel.simulate.

    Args:
        model: the RobotModel (at least one movable joint).
        q0: (n,) initial joint positions [rad or m], entries within the model's
            ``MAX_INPUT``.
        qd0: (n,) initial joint velocities [rad/s or m/s], the same bound.
        duration: s, finite and >= MIN_STEP.
        tau: None, constant (n,), sampled ``(times, values)`` or a callable; every applied
            torque finite with ``|tau| <= max_torque`` [N m or N].
        f_ext: constant (6,) wrench [N, N m] on ``frame``, base-frame axes, or None.
        frame: the link ``f_ext`` acts on (default: the tip).
        method: a solve_ivp method or ``"semi_implicit_euler"``.
        rtol: solve_ivp relative tolerance, ``MIN_RTOL <= rtol <= 1``.
        atol: solve_ivp absolute tolerance, ``MIN_ATOL <= atol <= 1e3``.
        sample_dt: output period [s] (>= MIN_STEP): samples at 0, sample_dt, 2 sample_dt, ...
            and at ``duration``; None: the integrator's steps.
        friction: include the model's joint friction.
        fixed_step: step [s] of the fixed-step method (>= MIN_STEP).
        max_torque: bound on every applied |tau| [N m or N].
        max_steps: bound on ``ceil(duration / fixed_step)`` (checked before integrating).
        max_samples: bound on the number of output samples (checked before integrating for
            sample_dt; solve_ivp's own steps are bounded by max_rhs_evaluations).
        max_rhs_evaluations: bound on right-hand-side (forward dynamics) evaluations.
        max_wall_time: bound on the wall time of the call [s], or None.
        stop: ``() -> bool`` asked at every step (e.g. ``threading.Event().is_set``): True ends
            the simulation with a SimulationError; or None.

    Returns:
        SimulationResult.

    Raises:
        InvalidInputError: an input out of its range (named), or a model without movable
            joints (nothing to integrate).
        SimulationLimitError: a work bound reached (named), before or during integration.
        SimulationError: the integrator failed, the state left the finite range, or ``stop``
            said to stop.
    """
    if model.n == 0:
        raise InvalidInputError(
            "simulate: the model has no movable joint below its base link, nothing to integrate"
        )
    q0 = check_vector(q0, "q0", model.joint_names)
    qd0 = check_vector(qd0, "qd0", model.joint_names)
    if q0.ndim != 1 or qd0.ndim != 1:
        raise InvalidInputError("simulate takes one initial state: q0 and qd0 of shape (n,)")
    duration = _positive(duration, "duration", MIN_STEP)
    if not isinstance(method, str) or method not in IVP_METHODS + FIXED_STEP_METHODS:
        raise InvalidInputError(
            f"unknown integration method {method!r}; use one of "
            f"{', '.join(IVP_METHODS + FIXED_STEP_METHODS)}"
        )
    max_torque = _positive(max_torque, "max_torque", 0.0, 1e12)
    max_steps = _count(max_steps, "max_steps")
    max_samples = _count(max_samples, "max_samples")
    max_rhs_evaluations = _count(max_rhs_evaluations, "max_rhs_evaluations")
    if max_wall_time is not None:
        max_wall_time = _positive(max_wall_time, "max_wall_time", 0.0, 1e9)
    if stop is not None and not callable(stop):
        raise InvalidInputError(f"stop must be a callable or None, got {stop!r}")
    rtol = _positive(rtol, "rtol", MIN_RTOL, 1.0)
    atol = _positive(atol, "atol", MIN_ATOL, 1e3)
    torque = torque_function(model, tau, max_torque)
    n = model.n
    if sample_dt is None:
        t_eval = None
    else:
        sample_dt = _positive(sample_dt, "sample_dt", MIN_STEP)
        ratio = duration / sample_dt  # may be inf: bounded before any integer conversion
        t_eval = np.arange(math.floor(min(ratio, max_samples) + 1e-9) + 1) * sample_dt
        if t_eval[-1] < duration - 1e-9 * sample_dt:  # the end falls between two samples
            t_eval = np.append(t_eval, duration)
        if t_eval.size > max_samples:
            count = t_eval.size if ratio < max_samples else ratio + 1
            raise SimulationLimitError(
                f"sample_dt = {sample_dt:g} s over {duration:g} s gives {count:.3g} samples, more "
                f"than max_samples = {max_samples}"
            )
        # the last sample may round past duration (duration / sample_dt just below an integer)
        t_eval = np.minimum(t_eval, duration)
    fext = None if f_ext is None else check_vector(f_ext, "f_ext", model.joint_names, size=6)
    if fext is not None and fext.ndim != 1:
        raise InvalidInputError(f"f_ext must be one wrench (6,), got shape {fext.shape}")
    if fext is not None:
        frame = model.resolve_frame(frame)
    tree = model.tree
    deadline = None if max_wall_time is None else time.monotonic() + max_wall_time

    def applied(t, q, qd):
        try:
            tau_t = np.asarray(torque(t, q, qd), dtype=float)
        except (TypeError, ValueError) as err:
            raise InvalidInputError(f"tau(t, q, qd) did not return numbers: {err}") from None
        if tau_t.shape != (n,):
            raise InvalidInputError(f"tau(t, q, qd) returned shape {tau_t.shape}, expected ({n},)")
        _check_torque(tau_t, max_torque, "tau(t, q, qd)", t)
        return tau_t

    def diverged(t):
        return SimulationError(
            f"the state left the range |q|, |qd| <= {MAX_STATE:g} at t = {t:.6g} s "
            f"(the dynamics diverged: too large a torque or too stiff for the step)"
            + stiffness_hint(method),
            t,
        )

    def check_state(t, *parts):
        """SimulationError when (q, qd) leave the finite range or ``stop`` says so; the
        wall-time bound."""
        if not all(all_finite(p, MAX_STATE) for p in parts):
            raise diverged(t)
        check_time(t)

    def check_time(t):
        """The wall-time bound, and ``stop``."""
        if deadline is not None and time.monotonic() > deadline:
            raise SimulationLimitError(
                f"simulation stopped at t = {t:.6g} s of {duration:g} s: max_wall_time = "
                f"{max_wall_time:g} s reached" + stiffness_hint(method),
                t,
            )
        if stop is not None and stop():
            raise SimulationError(
                f"simulation stopped at t = {t:.6g} s of {duration:g} s: the caller stopped it", t
            )

    if method in FIXED_STEP_METHODS:
        fixed_step = _positive(fixed_step, "fixed_step", MIN_STEP)
        ratio = duration / fixed_step  # may be inf: compared before any integer conversion
        if not ratio - 1e-9 <= max_steps:
            raise SimulationLimitError(
                f"fixed_step = {fixed_step:g} s over {duration:g} s takes {ratio:.3g} steps, more "
                f"than max_steps = {max_steps}"
            )
        steps = math.ceil(ratio - 1e-9)
        if sample_dt is None and steps + 1 > max_samples:
            raise SimulationLimitError(
                f"{steps + 1} output samples (one per fixed step; set sample_dt), more than "
                f"max_samples = {max_samples}"
            )
        ts = np.arange(steps + 1) * fixed_step
        ts[-1] = min(ts[-1], duration) if steps else 0.0
        qs = np.empty((steps + 1, n))
        qds = np.empty((steps + 1, n))
        q, qd = q0.copy(), qd0.copy()
        qs[0], qds[0] = q, qd
        for k in range(steps):
            dt = ts[k + 1] - ts[k]
            tau_k = applied(ts[k], q, qd)
            if friction:
                tau_k = tau_k - model.friction_torques(qd)
            q, qd = semi_implicit_euler_step(tree, q, qd, tau_k, dt, fext, frame)
            qs[k + 1], qds[k + 1] = q, qd
            check_state(ts[k + 1], q, qd)
        if t_eval is not None:
            # the first step at or after each sample time; each step once (sample_dt shorter
            # than fixed_step: every step)
            idx = np.unique(np.clip(np.searchsorted(ts, t_eval - 1e-12), 0, steps))
            ts, qs, qds = ts[idx], qs[idx], qds[idx]
        t, q_out, qd_out = ts, qs, qds
    else:
        evaluations = 0

        def rhs(t, y):
            nonlocal evaluations
            evaluations += 1
            if evaluations > max_rhs_evaluations:
                raise SimulationLimitError(
                    f"simulation stopped at t = {t:.6g} s of {duration:g} s: "
                    f"max_rhs_evaluations = {max_rhs_evaluations} reached (method {method}, "
                    f"rtol {rtol:g}, atol {atol:g})" + stiffness_hint(method),
                    t,
                )
            check_time(t)
            q, qd = y[:n], y[n:]
            if not all_finite(qd, MAX_STATE):
                # a trial state (a stage, a Newton iterate) with velocities beyond the range: no
                # derivative there, the integrator rejects the step and takes a smaller one. A
                # trial position beyond it is computed (a numerical Jacobian probes a joint the
                # dynamics do not depend on, a vertical axis, with ever larger steps); a state the
                # integrator accepts beyond the range ends the run (``left_range``).
                return np.full(2 * n, np.nan)
            tau_t = applied(t, q, qd)
            if friction:
                tau_t = tau_t - model.friction_torques(qd)
            kin = _dynamics.kinematics(tree, q)
            qdd = _dynamics.forward_dynamics(tree, kin, qd, tau_t, fext, frame)
            return np.concatenate([qd, qdd])

        def left_range(t, y):  # evaluated on accepted steps: crosses 0 beyond the range
            return MAX_STATE - np.max(np.abs(y))

        left_range.terminal = True
        with np.errstate(invalid="ignore"):  # the NaN derivative of a trial state
            sol = solve_ivp(
                rhs,
                (0.0, duration),
                np.concatenate([q0, qd0]),
                method=method,
                rtol=rtol,
                atol=atol,
                t_eval=t_eval,
                events=left_range,
            )
        if sol.status == 1:  # the range event ended it
            raise diverged(float(sol.t_events[0][0]))
        if not sol.success:
            raise SimulationError(
                f"integration with {method} failed: {sol.message}" + stiffness_hint(method),
                sol.t[-1],
            )
        if sol.t.size > max_samples:
            raise SimulationLimitError(
                f"{method} took {sol.t.size} steps, more output samples than max_samples = "
                f"{max_samples} (set sample_dt)"
            )
        t, q_out, qd_out = sol.t, sol.y[:n].T, sol.y[n:].T
        check_state(t[-1], sol.y.reshape(-1))
    taus = np.array([applied(ti, qi, qdi) for ti, qi, qdi in zip(t, q_out, qd_out)])
    tau_net = taus - model.friction_torques(qd_out) if friction else taus
    qdd = model.forward_dynamics(q_out, qd_out, tau_net, f_ext=fext, frame=frame)
    energy = model.total_energy(q_out, qd_out)
    return SimulationResult(t=t, q=q_out, qd=qd_out, qdd=qdd, tau=taus, energy=energy)
