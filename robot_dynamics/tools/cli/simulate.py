"""``robot-dynamics simulate``: forward simulation with constant torques or gravity compensation,
its energy balance and joint-limit excursions."""

from __future__ import annotations

import math
import os
import time
from typing import Dict, List

import numpy as np

from robot_dynamics.core.errors import SimulationError

from .arguments import (
    Invocation,
    add_joint_vector,
    number,
    output_paths,
    parse_joint_vector,
    split_tokens,
)
from .errors import CLIError
from .node_params import add_params_option, node_model
from .output import fmt_vec


def energy_balance(model, t, q, qd, tau, friction: bool) -> Dict[str, np.ndarray]:
    """Where the energy of a simulated run went, sample by sample.

    ``E(t) - E0 = W_tau(t) - W_friction(t) + drift(t)``: the work of the applied joint torques, the
    energy friction dissipated, and what is left, the integrator's error (plus the quadrature
    error of the two integrals, Simpson's rule on the samples).

    Args:
        model: the RobotModel simulated.
        t: (k,) sample times [s].
        q: (k, n) joint positions [rad or m].
        qd: (k, n) joint velocities [rad/s or m/s].
        tau: (k, n) applied joint torques [N m or N] (without friction), or None for zero.
        friction: whether the run included joint friction.

    Returns:
        dict of (k,) arrays [J]: ``energy`` (kinetic + potential), ``change`` (E - E0),
        ``work`` (W_tau), ``friction_loss`` (W_friction >= 0), ``drift`` (the rest).
    """
    from scipy.integrate import cumulative_simpson

    energy = np.asarray(model.total_energy(q, qd), dtype=float)
    power_tau = np.zeros(len(t)) if tau is None else np.einsum("ki,ki->k", qd, tau)
    power_fric = (
        np.einsum("ki,ki->k", qd, np.asarray(model.friction_torques(qd), dtype=float))
        if friction
        else np.zeros(len(t))
    )

    def integral(power):
        if len(t) < 3:
            return np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(t))])
        return cumulative_simpson(power, x=t, initial=0.0)

    work, loss = integral(power_tau), integral(power_fric)
    change = energy - energy[0]
    return {
        "energy": energy,
        "change": change,
        "work": work,
        "friction_loss": loss,
        "drift": change - work + loss,
    }


def limit_excursions(model, t: np.ndarray, q: np.ndarray) -> List[str]:
    """One warning per joint whose position left its URDF limits during a run (the simulation
    does not enforce them): when it first left, and how far it went.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        t: (k,) sample times [s].
        q: (k, n) joint positions [rad or m].

    Returns:
        list: warning strings.
    """
    lower, upper = (np.asarray(v, dtype=float) for v in model.position_limits)
    warnings = []
    for i, name in enumerate(model.joint_names):
        lo, hi = lower[i], upper[i]
        if not (math.isfinite(lo) and math.isfinite(hi)):
            continue
        outside = (q[:, i] < lo - 1e-9) | (q[:, i] > hi + 1e-9)
        if np.any(outside):
            k = int(np.flatnonzero(outside)[0])
            warnings.append(
                f"{name} left its limits [{lo:g}, {hi:g}] at t = {t[k]:.3f} s "
                f"(range reached [{np.min(q[:, i]):.4g}, {np.max(q[:, i]):.4g}]; the simulation "
                "does not enforce joint limits)"
            )
    return warnings


def cmd_simulate(run: Invocation) -> List[str]:
    """Forward simulation with constant torques or gravity compensation (``--tau gravity``):
    final state, energy balance, joint-limit warnings, optional plot.

    Arguments and result: see :data:`~robot_dynamics.tools.cli.arguments.Command`.

    Raises:
        CLIError: ``--duration`` beyond ``--max-duration``, ``--sample-dt`` beyond ``--duration``;
            a simulation refused, stopped at a limit or diverged.
        ParametersFileError: a bad ``--params`` file.
    """
    run, _ = node_model(run)
    args, model, path, xml, bundled, out = run
    if args.plot:
        output_paths("--plot", [args.plot], [path, *(args.params or [])])
    if bundled is not None and args.q is None:
        q0 = np.array(bundled.home, dtype=float)
    else:
        q0 = parse_joint_vector(args.q, model.joint_names, "--q")
    qd0 = parse_joint_vector(args.qd, model.joint_names, "--qd")
    hold = args.tau is not None and split_tokens(args.tau) == ["gravity"]
    tau = None if hold else parse_joint_vector(args.tau, model.joint_names, "--tau")
    if args.duration > args.max_duration:
        raise CLIError(
            f"--duration {args.duration} s is beyond --max-duration {args.max_duration} s"
        )
    if args.sample_dt > args.duration:
        raise CLIError(f"--sample-dt {args.sample_dt} s is beyond --duration {args.duration} s")
    if hold:
        # gravity compensation: tau = g(q) at the current q (the arm at rest stays at rest)
        tau_arg = lambda t, q, qd: model.gravity_torques(q)  # noqa: E731
    else:
        tau_arg = None if not np.any(tau) else tau
    start = time.perf_counter()
    try:
        res = model.simulate(
            q0,
            qd0,
            args.duration,
            tau=tau_arg,
            method=args.method,
            rtol=args.rtol,
            atol=args.atol,
            sample_dt=args.sample_dt,
            friction=args.friction,
            fixed_step=args.fixed_step,
        )
    except SimulationError as error:  # with what to try, when it stopped mid-way
        raise CLIError(str(error)) from None
    elapsed = time.perf_counter() - start
    t = np.asarray(res.t, dtype=float)
    q = np.asarray(res.q, dtype=float)
    qd = np.asarray(res.qd, dtype=float)
    tau_series = np.asarray(res.tau, dtype=float) if res.tau is not None else None
    if tau_series is not None and not np.any(tau_series):
        tau_series = None
    out.setdefault("warnings", []).extend(limit_excursions(model, t, q))
    balance = energy_balance(model, t, q, qd, tau_series, args.friction)
    energy = balance["energy"]
    drift = float(np.max(np.abs(balance["drift"])))
    # relative to the largest kinetic energy of the run (E0 is often 0 by the potential's datum)
    scale = max(
        float(np.max(np.asarray(model.kinetic_energy(q, qd), dtype=float))),
        abs(float(energy[0])),
        1e-12,
    )
    out.update(
        {
            "joint_names": list(model.joint_names),
            "method": args.method,
            "duration": args.duration,
            "friction": bool(args.friction),
            "wall_time": elapsed,
            "samples": int(t.size),
            "q0": q0.tolist(),
            "qd0": qd0.tolist(),
            "tau": "gravity" if hold else tau.tolist(),
            "final_q": q[-1].tolist(),
            "final_qd": qd[-1].tolist(),
            "energy_initial": float(energy[0]),
            "energy_final": float(energy[-1]),
            "work_by_torques": float(balance["work"][-1]),
            "friction_loss": float(balance["friction_loss"][-1]),
            # |E - E0 - W_tau + W_friction|: the integrator's error, not the physics
            "energy_max_abs_drift": drift,
            "energy_max_rel_drift": drift / scale,
        }
    )
    if args.json_series:
        out.update(
            {
                "t": t.tolist(),
                "q": q.tolist(),
                "qd": qd.tolist(),
                "energy": energy.tolist(),
                "work_by_torques_series": balance["work"].tolist(),
                "friction_loss_series": balance["friction_loss"].tolist(),
            }
        )
    p = args.precision
    if hold:
        torque_text = "gravity torques g(q) (holding the arm)"
    else:
        torque_text = "constant torques" if np.any(tau) else "zero torque"
    # the samples' spacing: a fixed step longer than --sample-dt sets it
    spacing = float(np.median(np.diff(t))) if t.size > 1 else args.sample_dt
    lines = [
        f"simulated {args.duration:g} s with {args.method} (rtol {args.rtol:g}, atol {args.atol:g}"
        f"{', friction' if args.friction else ', no friction'}; {torque_text}) in {elapsed:.2f} s "
        f"wall time, {t.size} samples every {spacing:g} s",
        f"  start q  = {fmt_vec(q0, p)}",
        f"  final q  = {fmt_vec(q[-1], p)}",
        f"  final qd = {fmt_vec(qd[-1], p)}",
        f"  energy   E0 = {energy[0]:.6f} J, E_end = {energy[-1]:.6f} J; work done by the torques "
        f"{balance['work'][-1]:.6f} J, lost to friction {balance['friction_loss'][-1]:.6f} J",
        f"  integrator drift max |E - E0 - W_tau + W_friction| = {drift:.3g} J "
        f"({100.0 * drift / scale:.2g} % of the largest kinetic energy)",
    ]
    if args.plot:
        from robot_dynamics.tools.plotting import plot_trajectory

        plot_trajectory(
            args.plot,
            t=t,
            q=q,
            qd=qd,
            energy=energy,
            work=balance["work"] if tau_series is not None else None,
            friction_loss=balance["friction_loss"] if args.friction else None,
            tau=tau_series,
            joint_names=model.joint_names,
            title=f"{os.path.basename(path)}: {args.duration:g} s, {args.method}",
        )
        out["plot"] = os.path.abspath(args.plot)
        lines.append(f"plot written to {args.plot}")
    return lines


def add_parsers(sub, common) -> None:
    """Register this module's commands on the CLI's subparsers (arguments: see
    :data:`~robot_dynamics.tools.cli.main.FAMILIES`)."""
    p = sub.add_parser(
        "simulate",
        parents=[common],
        help="forward simulation with constant torques or gravity compensation",
    )
    add_joint_vector(
        p, "--q", "initial joint positions", default="zeros, or a bundled robot's home pose"
    )
    add_joint_vector(p, "--qd", "initial joint velocities")
    p.add_argument(
        "--tau",
        nargs="+",
        default=None,
        metavar="V",
        help="applied joint torques [N m]: n constant numbers in joint order or name=value pairs "
        "(default zeros), or 'gravity' for g(q) at every instant (gravity compensation: the arm "
        "holds its pose)",
    )
    p.add_argument(
        "--duration",
        type=number(0, above=True),
        default=10.0,
        help="simulated time [s] (default 10)",
    )
    p.add_argument(
        "--max-duration",
        type=number(0, above=True),
        default=600.0,
        help="refuse longer simulations (default 600 s)",
    )
    p.add_argument(
        "--sample-dt",
        type=number(0, above=True),
        default=0.01,
        help="output sample period [s] (default 0.01)",
    )
    p.add_argument(
        "--method",
        default="RK45",
        help="integrator: any scipy solve_ivp method (RK45, DOP853, Radau, BDF, LSODA, ...) "
        "or semi_implicit_euler (default RK45)",
    )
    p.add_argument(
        "--rtol", type=number(0, above=True), default=1e-8, help="relative tolerance (default 1e-8)"
    )
    p.add_argument(
        "--atol",
        type=number(0, above=True),
        default=1e-10,
        help="absolute tolerance (default 1e-10)",
    )
    p.add_argument(
        "--fixed-step",
        type=number(0, above=True),
        default=1e-3,
        help="step of semi_implicit_euler [s] (default 1e-3)",
    )
    p.add_argument(
        "--friction",
        action="store_true",
        help="include the joint friction (the URDF's damping and friction, or --params' model)",
    )
    add_params_option(p)
    p.add_argument(
        "--plot", default=None, metavar="PNG", help="write a plot of q, qd and energy to this PNG"
    )
    p.add_argument(
        "--json-series", action="store_true", help="with --json, include the sampled trajectory"
    )


COMMANDS = {"simulate": cmd_simulate}
