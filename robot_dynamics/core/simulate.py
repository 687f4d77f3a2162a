"""Forward-dynamics simulation: scipy's solve_ivp integrators and a fixed-step semi-implicit
Euler integrator for real-time use."""

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from .errors import InvalidInputError

IVP_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")
FIXED_STEP_METHODS = ("semi_implicit_euler",)


@dataclass(frozen=True)
class SimulationResult:
    """Sampled trajectory. t: (k,) s; q, qd, qdd, tau: (k, n); energy: (k,) J (kinetic +
    potential); tau is the applied joint torque (without friction)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    energy: np.ndarray


def torque_function(model, tau):
    """Normalise a torque specification to a callable ``tau(t, q, qd) -> (n,)``.

    tau: None (zero), a constant (n,) vector, a ``(times (k,), values (k, n))`` tuple sampled on
    a time grid (linear in between, held outside), or a callable ``tau(t, q, qd)``.
    """
    n = model.n
    if tau is None:
        zero = np.zeros(n)
        return lambda t, q, qd: zero
    if callable(tau):
        return tau
    if isinstance(tau, tuple) and len(tau) == 2:
        times = np.asarray(tau[0], dtype=float)
        values = np.asarray(tau[1], dtype=float)
        if times.ndim != 1 or values.shape != (times.size, n) or times.size == 0:
            raise InvalidInputError(
                f"sampled tau must be (times (k,), values (k, {n})), got shapes "
                f"{times.shape} and {values.shape}"
            )
        if np.any(np.diff(times) <= 0):
            raise InvalidInputError("sampled tau: times must be strictly increasing")
        if not np.all(np.isfinite(values)):
            raise InvalidInputError("sampled tau contains NaN or inf")

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
    constant = model._check_vector(tau, "tau")
    if constant.ndim != 1:
        raise InvalidInputError(f"constant tau must have shape ({n},), got {constant.shape}")
    return lambda t, q, qd: constant


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
):
    """Integrate ``M qdd + C qd + g = tau + J^T f_ext - friction``; see RobotModel.simulate."""
    q0 = model._check_vector(q0, "q0")
    qd0 = model._check_vector(qd0, "qd0")
    if q0.ndim != 1 or qd0.ndim != 1:
        raise InvalidInputError("simulate takes one initial state: q0 and qd0 of shape (n,)")
    duration = float(duration)
    if not np.isfinite(duration) or duration <= 0:
        raise InvalidInputError(f"duration must be a finite number > 0, got {duration}")
    if method not in IVP_METHODS + FIXED_STEP_METHODS:
        raise InvalidInputError(
            f"unknown integration method {method!r}; use one of "
            f"{', '.join(IVP_METHODS + FIXED_STEP_METHODS)}"
        )
    torque = torque_function(model, tau)
    n = model.n
    if sample_dt is None:
        t_eval = None
    else:
        sample_dt = float(sample_dt)
        if not sample_dt > 0:
            raise InvalidInputError(f"sample_dt must be > 0, got {sample_dt}")
        count = int(np.floor(duration / sample_dt + 1e-9)) + 1
        t_eval = np.arange(count) * sample_dt
    fext = None if f_ext is None else model._check_vector(f_ext, "f_ext", size=6)

    def applied(t, q, qd):
        tau_t = np.asarray(torque(t, q, qd), dtype=float)
        if tau_t.shape != (n,):
            raise InvalidInputError(f"tau(t, q, qd) returned shape {tau_t.shape}, expected ({n},)")
        if not math.isfinite(tau_t.sum()):
            raise InvalidInputError(f"tau(t, q, qd) returned a NaN or infinite value at t = {t}")
        return tau_t

    if method in FIXED_STEP_METHODS:
        fixed_step = float(fixed_step)
        if not fixed_step > 0:
            raise InvalidInputError(f"fixed_step must be > 0, got {fixed_step}")
        steps = int(np.ceil(duration / fixed_step - 1e-9))
        ts = np.arange(steps + 1) * fixed_step
        ts[-1] = min(ts[-1], duration) if steps else 0.0
        qs = np.empty((steps + 1, n))
        qds = np.empty((steps + 1, n))
        q, qd = q0.copy(), qd0.copy()
        qs[0], qds[0] = q, qd
        for k in range(steps):
            dt = ts[k + 1] - ts[k]
            q, qd = model._step(q, qd, applied(ts[k], q, qd), dt, fext, frame, friction)
            qs[k + 1], qds[k + 1] = q, qd
        if t_eval is not None:
            idx = np.clip(np.searchsorted(ts, t_eval - 1e-12), 0, steps)
            ts, qs, qds = ts[idx], qs[idx], qds[idx]
        t, q_out, qd_out = ts, qs, qds
    else:

        def rhs(t, y):
            q, qd = y[:n], y[n:]
            tau_t = applied(t, q, qd)
            if friction:
                tau_t = tau_t - model.friction_torques(qd)
            return np.concatenate(
                [qd, model._forward_dynamics(q, qd, tau_t, f_ext=fext, frame=frame)]
            )

        sol = solve_ivp(
            rhs,
            (0.0, duration),
            np.concatenate([q0, qd0]),
            method=method,
            rtol=rtol,
            atol=atol,
            t_eval=t_eval,
        )
        if not sol.success:
            raise RuntimeError(f"integration with {method} failed: {sol.message}")
        t, q_out, qd_out = sol.t, sol.y[:n].T, sol.y[n:].T
    taus = np.array([applied(ti, qi, qdi) for ti, qi, qdi in zip(t, q_out, qd_out)])
    tau_net = taus - model.friction_torques(qd_out) if friction else taus
    qdd = model.forward_dynamics(q_out, qd_out, tau_net, f_ext=fext, frame=frame)
    energy = model.total_energy(q_out, qd_out)
    return SimulationResult(t=t, q=q_out, qd=qd_out, qdd=qdd, tau=taus, energy=energy)
