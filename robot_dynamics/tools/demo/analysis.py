"""The demo's numbers, from what it recorded: plain numpy (no ROS), unit-tested on constructed data.

Stamps are integer nanoseconds on the joint-states clock; ``t0_ns`` is the start of the script.
Wrenches are ``[fx fy fz tx ty tz]`` (N, N m), the wrench the environment applies on the robot.
The recording holds the applied wrenches in base axes with the moment about the tip origin (the
simulator publishes them in the tip's axes, the monitor rotates them with the joint state of
their stamp); the dynamics node reports its estimates as a force-torque sensor at its
``header.frame_id`` would (that frame's axes, moment about its origin, ROS convention):
:func:`estimates_in_base_at_tip` brings them together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Sequence

import numpy as np

from robot_dynamics.core.estimation import WRENCH_COMPONENTS as AXES
from robot_dynamics.tools.demo.script import Phase


@dataclass
class Recording:
    """Everything the monitor received, stamps in ns (simulated time on the wall-clock axis).

    Attributes:
        js_stamp: joint-state stamps [ns].
        js_q: joint positions per joint state, (n,) each, model joint order [rad or m].
        js_qd: joint velocities per joint state, (n,) each [rad/s or m/s].
        js_effort: joint efforts per joint state, (n,) each [N m or N].
        app_stamp: stamps [ns] of the wrench the simulator applied.
        app_wrench: that wrench, (6,) each [N, N m] (base axes, about the tip origin).
        est_stamp: stamps [ns] of the dynamics node's estimates.
        est_wrench: the estimates as published, (6,) each [N, N m] (axes and moment point of the
            frame ``est_frame``).
        est_frame: the frame of the estimates.
        ext_stamp: stamps [ns] of the dynamics node's external joint torques (pendulum run).
        ext_tau: those torques, (n,) each [N m or N].
    """

    js_stamp: List[int] = field(default_factory=list)
    js_q: List[np.ndarray] = field(default_factory=list)
    js_qd: List[np.ndarray] = field(default_factory=list)
    js_effort: List[np.ndarray] = field(default_factory=list)
    app_stamp: List[int] = field(default_factory=list)
    app_wrench: List[np.ndarray] = field(default_factory=list)
    est_stamp: List[int] = field(default_factory=list)
    est_wrench: List[np.ndarray] = field(default_factory=list)
    est_frame: str = ""
    ext_stamp: List[int] = field(default_factory=list)
    ext_tau: List[np.ndarray] = field(default_factory=list)


def seconds(stamps: Sequence[int], t0_ns: int) -> np.ndarray:
    """Stamps as seconds after a start.

    Args:
        stamps: (k,) stamps [ns].
        t0_ns: the start [ns].

    Returns:
        ndarray: (k,) times [s].
    """
    return (np.asarray(stamps, dtype=np.int64).reshape(-1) - t0_ns) * 1e-9


def align(stamps_a: np.ndarray, stamps_b: np.ndarray, values_b: np.ndarray) -> np.ndarray:
    """``values_b`` at the last b-stamp <= each a-stamp (zero-order hold; the first b value
    before the first b-stamp).

    Args:
        stamps_a: (k,) stamps to sample at [ns].
        stamps_b: (m,) stamps of the values, sorted ascending [ns].
        values_b: (m, ...) values.

    Returns:
        ndarray: (k, ...) values held at the a-stamps.
    """
    i = np.searchsorted(stamps_b, stamps_a, side="right") - 1
    return values_b[np.clip(i, 0, len(stamps_b) - 1)]


def estimates_in_base_at_tip(
    model, wrench: np.ndarray, frame: str, tip_link: str, q: np.ndarray
) -> np.ndarray:
    """Wrenches reported at ``frame`` (its axes, moment about its origin) expressed in base axes
    with the moment about the origin of ``tip_link``.

    Args:
        model: the RobotModel.
        wrench: (..., 6) [f, n] in ``frame`` axes, moment about ``frame``'s origin.
        frame: a link of the model (the estimate's ``header.frame_id``).
        tip_link: the link whose origin the result's moment is about.
        q: (..., n) joint positions at the estimates' stamps.

    Returns:
        (..., 6) [f, n] in base axes, moment about the tip origin.
    """
    wrench = np.asarray(wrench, dtype=float)
    pose_f = np.asarray(model.frame_pose(q, frame=frame), dtype=float)
    p_tip = np.asarray(model.frame_pose(q, frame=tip_link), dtype=float)[..., :3, 3]
    rot = pose_f[..., :3, :3]
    f = np.einsum("...ij,...j->...i", rot, wrench[..., :3])
    n = np.einsum("...ij,...j->...i", rot, wrench[..., 3:])
    # moment about B = moment about A + (p_A - p_B) x f
    n_tip = n + np.cross(pose_f[..., :3, 3] - p_tip, f)
    return np.concatenate([f, n_tip], axis=-1)


def estimates_of(rec: Recording, model, tip_link: str) -> np.ndarray:
    """The recorded estimates in base axes about the tip origin (see
    :func:`estimates_in_base_at_tip`), each at the joint positions of its stamp.

    Args:
        rec: the :class:`Recording`.
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        tip_link: the tip frame.

    Returns:
        ndarray: (m, 6) wrenches [N, N m].
    """
    est = np.asarray(rec.est_wrench, dtype=float).reshape(-1, 6)
    if est.shape[0] == 0 or not rec.js_stamp:
        return est
    frame = rec.est_frame or tip_link
    js = np.asarray(rec.js_stamp, dtype=np.int64)
    q = align(np.asarray(rec.est_stamp, dtype=np.int64), js, np.asarray(rec.js_q, dtype=float))
    return estimates_in_base_at_tip(model, est, frame, tip_link, q)


def rate(t: np.ndarray) -> float:
    """Mean sample rate of the samples at t >= 0.

    Args:
        t: (k,) sample times [s].

    Returns:
        float: rate [Hz] (NaN for fewer than 3 samples).
    """
    t = t[t >= 0]
    return float((t.size - 1) / (t[-1] - t[0])) if t.size > 2 and t[-1] > t[0] else float("nan")


def sag_without_gravity_compensation(model, q0: np.ndarray, stiffness: np.ndarray) -> float:
    """Tool displacement of a joint impedance holding the arm at ``q0`` against gravity alone:
    K (q0 - q) = g(q), solved by fixed-point iteration.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        q0: (n,) held configuration [rad].
        stiffness: (n,) joint stiffness K [N m/rad].

    Returns:
        float: displacement of the tip [m].
    """
    q = np.array(q0, dtype=float)
    for _ in range(50):
        q = q0 - np.asarray(model.gravity_torques(q), dtype=float) / stiffness
    p0 = np.asarray(model.frame_pose(q0), dtype=float)[:3, 3]
    return float(np.linalg.norm(np.asarray(model.frame_pose(q), dtype=float)[:3, 3] - p0))


def convergence_time(ts: np.ndarray, inside: np.ndarray, onset: float, end: float) -> float:
    """Time from ``onset`` to the first sample from which ``inside`` stays true for 0.2 s (or
    until ``end``).

    Args:
        ts: (k,) sample times [s].
        inside: (k,) bool, the sample is within tolerance.
        onset: start time [s].
        end: end of the window [s].

    Returns:
        float: time [s]; NaN if never.
    """
    for a in np.flatnonzero(inside):
        window = (ts >= ts[a]) & (ts < min(ts[a] + 0.2, end))
        if np.all(inside[window]):
            return float(ts[a] - onset)
    return float("nan")


def analyse_push(
    rec: Recording,
    model,
    q0: np.ndarray,
    stiffness: np.ndarray,
    tip_link: str,
    script: List[Phase],
    t0_ns: int,
    force_tol: float,
    torque_tol: float,
    max_gap: float,
    recovery: float,
) -> Dict:
    """Summary numbers of a push run (see ``docs/demo.md``: "Reading the summary").

    Args:
        rec: the recording.
        model: the RobotModel.
        q0: (n,) held configuration [rad].
        stiffness: (n,) the simulated drives' joint impedance [N m/rad].
        tip_link: the pushed frame.
        script: the push script.
        t0_ns: its start [ns].
        force_tol: force tolerance [N] (lower bound of the convergence band).
        torque_tol: moment tolerance [N m] (lower bound of the convergence band).
        max_gap: the dynamics node's observer_max_dt [s].
        recovery: time excluded from the steady-state error after an observer restart [s].

    Returns:
        dict of JSON-ready numbers (errors per axis, pushes with their convergence times, pose
        drift, sag without gravity compensation, sample counts, rates).
    """
    js_t = seconds(rec.js_stamp, t0_ns)
    q = np.asarray(rec.js_q, dtype=float)
    app_t = seconds(rec.app_stamp, t0_ns)
    app = np.asarray(rec.app_wrench, dtype=float).reshape(-1, 6)
    est_t = seconds(rec.est_stamp, t0_ns)
    est = estimates_of(rec, model, tip_link)
    order = np.argsort(app_t, kind="stable")
    app_t, app = app_t[order], app[order]
    err = est - align(est_t, app_t, app)
    # The simulator stamps each applied wrench as the joint state it goes with, and the node each
    # estimate as its joint state: compare only estimates whose applied wrench was received
    # (a CPU-starved monitor can miss a stretch of both; the wrench there is unknown).
    app_ns = np.asarray(rec.app_stamp, dtype=np.int64).reshape(-1)[order]
    est_ns = np.asarray(rec.est_stamp, dtype=np.int64).reshape(-1)
    i = np.minimum(np.searchsorted(app_ns, est_ns), len(app_ns) - 1)
    known = app_ns[i] == est_ns
    period = float(np.median(np.diff(app_t))) if len(app_t) > 1 else 0.0

    # Observer restarts: the dynamics node restarts its observer after a joint_states gap longer
    # than observer_max_dt (messages it had no CPU for); the estimate then re-converges from 0.
    gaps = np.flatnonzero(np.diff(est_t) > max_gap)
    restarts = est_t[gaps + 1]
    recovering = np.zeros(len(est_t), dtype=bool)
    for t_r in restarts:
        recovering |= (est_t >= t_r) & (est_t < t_r + recovery)

    # Segments of constant applied wrench, from what the simulator really applied (its
    # ~/applied_wrench, same stamps as the estimates): a phase the demo process could not start on
    # time (a CPU stall) shows up as it really happened.
    changes = np.flatnonzero(np.any(np.abs(np.diff(app, axis=0)) > 1e-9, axis=1)) + 1
    starts = [0] + [int(c) for c in changes]
    # a change seen after a gap in the record happened at the earliest right after the gap began
    onsets = [
        (float(min(app_t[c], app_t[c - 1] + period)) if c > 0 else min(0.0, float(app_t[0])))
        for c in starts
    ]
    ends = onsets[1:] + [float(est_t[-1]) + 1e-9]
    pushes = []
    steady = np.zeros(len(est_t), dtype=bool)
    for k, c in enumerate(starts):
        onset, end = onsets[k], ends[k]
        wrench = app[c]
        sel = (est_t >= onset) & (est_t < end) & known
        if not np.any(sel):
            continue
        named = [ph for ph in script if np.allclose(ph.wrench, wrench)]
        name = (
            min(named, key=lambda ph: abs(ph.start - onset)).name
            if named
            else "wrench " + np.array2string(wrench, precision=2, suppress_small=True)
        )
        before = app[c - 1] if c > 0 else np.zeros(6)
        f_band = max(0.05 * float(np.linalg.norm(wrench[:3] - before[:3])), force_tol)
        t_band = max(0.05 * float(np.linalg.norm(wrench[3:] - before[3:])), torque_tol)
        inside = (np.linalg.norm(err[sel, :3], axis=1) <= f_band) & (
            np.linalg.norm(err[sel, 3:], axis=1) <= t_band
        )
        conv = convergence_time(est_t[sel], inside, onset, end)
        settled = onset + (conv if math.isfinite(conv) else end - onset)
        steady |= (est_t >= max(settled, onset + 0.3)) & (est_t < end) & known
        if c > 0:  # the first segment has no step (the estimate starts at 0 with nothing applied)
            pushes.append(
                {
                    "phase": name,
                    "onset_s": onset,
                    "applied": wrench.tolist(),
                    "convergence_time_s": conv,
                    "band_force_N": f_band,
                    "band_torque_Nm": t_band,
                }
            )
    steady &= ~recovering
    # a push of the script with no estimate received while it was applied (a CPU-starved node or
    # monitor, or a run cut short) was not checked: said, never passed over
    evaluated = {push["phase"] for push in pushes}
    not_evaluated = [ph.name for ph in script if ph.is_push and ph.name not in evaluated]

    e_steady = err[steady] if np.any(steady) else (err[known] if np.any(known) else err)
    rms = np.sqrt(np.mean(e_steady**2, axis=0))
    mx = np.max(np.abs(e_steady), axis=0)

    pose0 = np.asarray(model.frame_pose(q0), dtype=float)
    poses = np.asarray(model.frame_pose(q), dtype=float)
    disp = np.linalg.norm(poses[:, :3, 3] - pose0[:3, 3], axis=1)
    hold = script[0]
    in_hold = (js_t >= 0) & (js_t < hold.end)
    quiet = np.zeros(len(js_t), dtype=bool)
    for phase in script:
        if not phase.is_push:
            quiet |= (
                js_t >= phase.start + (0.0 if phase is hold else 0.75 * (phase.end - phase.start))
            ) & (js_t < phase.end)
    last = script[-1]
    final_sel = js_t >= last.end - 0.25 * (last.end - last.start)

    def mm(values, sel, reduce=np.max):
        return float(1e3 * reduce(values[sel])) if np.any(sel) else float("nan")

    return {
        "axes": list(AXES),
        "force_tolerance_N": force_tol,
        "torque_tolerance_Nm": torque_tol,
        "steady_error_rms": rms.tolist(),
        "steady_error_max": mx.tolist(),
        "pushes": pushes,
        "pushes_not_evaluated": not_evaluated,
        "pose_drift_hold_mm": mm(disp, in_hold),
        "pose_drift_quiet_max_mm": mm(disp, quiet),
        "pose_drift_final_mm": mm(disp, final_sel, np.mean),
        "deflection_under_push_max_mm": float(1e3 * np.max(disp)),
        "joint_drift_final_rad": float(np.max(np.abs(q[final_sel] - q0)))
        if np.any(final_sel)
        else float("nan"),
        "sag_without_gravity_compensation_mm": 1e3
        * sag_without_gravity_compensation(model, q0, stiffness),
        "samples": {
            "joint_states": int(len(js_t)),
            "estimates": int(len(est_t)),
            "applied": int(len(app_t)),
            "estimates_without_applied": int(np.sum(~known)),
        },
        "observer_restarts": int(len(restarts)),
        "longest_estimate_gap_ms": float(1e3 * np.max(np.diff(est_t))) if len(est_t) > 1 else 0.0,
        "recovery_excluded_s": recovery,
        "rates_hz": {"joint_states": rate(js_t), "estimates": rate(est_t)},
    }


def push_passed(summary: Dict, force_tol: float, torque_tol: float) -> bool:
    """The push run's verdict: every push of the script evaluated and converged, the steady-state
    error within the tolerances on every axis.

    Args:
        summary: :func:`analyse_push`'s result.
        force_tol: force tolerance per axis [N].
        torque_tol: moment tolerance per axis [N m].

    Returns:
        bool: passed.
    """
    mx = np.asarray(summary["steady_error_max"])
    return bool(
        np.all(mx[:3] <= force_tol)
        and np.all(mx[3:] <= torque_tol)
        and all(math.isfinite(p["convergence_time_s"]) for p in summary["pushes"])
        and not summary["pushes_not_evaluated"]
    )


def analyse_pendulum(rec: Recording, model, q0: np.ndarray, t0_ns: int, compare_s: float) -> Dict:
    """Summary numbers of the double-pendulum run: energy drift of the simulator's fixed step,
    agreement with the core's RK45 over the first ``compare_s`` seconds, and the external wrench
    and joint torques the estimator reports although nothing touches the pendulum.

    Args:
        rec: the recording.
        model: the RobotModel.
        q0: (n,) release configuration (at rest) [rad].
        t0_ns: the release [ns].
        compare_s: horizon of the RK45 comparison [s].

    Returns:
        dict of JSON-ready numbers.
    """
    js_t = seconds(rec.js_stamp, t0_ns)
    q, qd = np.asarray(rec.js_q, dtype=float), np.asarray(rec.js_qd, dtype=float)
    keep = js_t >= 0
    js_t, q, qd = js_t[keep], q[keep], qd[keep]
    energy = np.asarray(model.total_energy(q, qd), dtype=float)
    e0 = float(model.total_energy(q0, np.zeros(model.n)))
    ke_max = float(np.max(np.asarray(model.kinetic_energy(q, qd), dtype=float)))
    drift = float(np.max(np.abs(energy - e0)))
    # short-horizon agreement with the core's adaptive integrator (the motion is chaotic)
    horizon = min(compare_s, float(js_t[-1]))
    sel = js_t <= horizon
    # sampled on the joint states' period, so that the samples coincide with theirs (the
    # simulator's stamps are multiples of its step) and no interpolation error is measured
    period = float(np.median(np.diff(js_t[sel]))) if np.sum(sel) > 2 else None
    ref = model.simulate(
        q0, np.zeros(model.n), horizon, method="RK45", rtol=1e-10, atol=1e-12, sample_dt=period
    )
    q_ref = np.stack([np.interp(js_t[sel], ref.t, ref.q[:, j]) for j in range(model.n)], axis=1)
    est = np.asarray(rec.est_wrench, dtype=float).reshape(-1, 6)
    est_t = seconds(rec.est_stamp, t0_ns)
    est_sel = est_t >= 0.1  # after the observer's start-up transient
    ext = np.asarray(rec.ext_tau, dtype=float).reshape(-1, model.n)
    ext_t = seconds(rec.ext_stamp, t0_ns)
    ext_sel = ext_t >= 0.1
    g_max = float(np.max(np.abs(np.asarray(model.gravity_torques(q), dtype=float))))

    def worst(values, reduce=np.max):
        return float(reduce(values)) if values.size else float("nan")

    return {
        "energy_initial_J": e0,
        "energy_max_abs_drift_J": drift,
        "energy_drift_relative_to_max_kinetic": drift / max(ke_max, 1e-12),
        "max_kinetic_energy_J": ke_max,
        "agreement_horizon_s": horizon,
        "max_joint_deviation_from_rk45_rad": worst(np.abs(q[sel] - q_ref)),
        "max_false_force_N": worst(np.linalg.norm(est[est_sel, :3], axis=1)),
        "max_false_torque_Nm": worst(np.linalg.norm(est[est_sel, 3:], axis=1)),
        "max_false_joint_torque_Nm": worst(np.abs(ext[ext_sel])),
        "rms_false_joint_torque_Nm": float(np.sqrt(np.mean(ext[ext_sel] ** 2)))
        if np.any(ext_sel)
        else float("nan"),
        "max_gravity_torque_Nm": g_max,
        "max_speed_rad_s": float(np.max(np.abs(qd))),
        "samples": {"joint_states": int(len(js_t)), "estimates": int(np.sum(est_sel))},
        "rates_hz": {"joint_states": rate(js_t), "estimates": rate(est_t)},
    }
