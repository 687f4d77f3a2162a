"""The identify scenario's pieces that need no ROS: the "true" robot the simulator runs, the
excitation reference and its tracking command, the identification of the recording, and the
before/after error numbers. Plain numpy/scipy, unit-tested (test/tools/test_demo_identify.py).

The true robot differs from the nominal URDF the dynamics node gets as a real arm differs from
its CAD model: every moving body's mass (and with it its rotational inertia) scaled by 10-25 %
up or down, its centre of mass moved by 10-25 % of its distance from the body origin along each
axis, viscous and Coulomb friction on every joint (in proportion to its effort limit), and a
tool of ``tool_mass`` kg on the tip link that the nominal URDF does not have. It is written as
a URDF (the nominal one with the true inertials and ``<dynamics>``), so the simulator reads it
as any robot description.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Sequence

import numpy as np

from robot_dynamics.core.identification import identify, stacked_regressor
from robot_dynamics.core.regressor import (
    ParameterLayout,
    inertia_to_parameters,
    parameters_to_inertia,
)
from robot_dynamics.core.spatial import inertia_parameters, spatial_inertia
from robot_dynamics.tools.demo.analysis import Recording, align, estimates_of
from robot_dynamics.core.joint_data import JointSamples, prepare

#: relative perturbation range of masses and centres of mass
PERTURBATION = (0.10, 0.25)
#: friction of the true robot per joint, as fractions of the joint's effort limit: viscous
#: [N m s/rad per N m] and Coulomb (a Panda: 0.3-0.6 N m s/rad, 0.7-1.3 N m on the 87 N m joints).
#: Proportional to the limit, the light distal joints get small friction: a Coulomb friction of
#: smooth-sign threshold v_eps on a joint of inertia m chatters at step dt unless F < 2 m v_eps / dt
VISCOUS = (0.004, 0.007)
COULOMB = (0.008, 0.015)


@dataclass(frozen=True)
class TrueRobot:
    """The simulated "real" robot.

    Attributes:
        urdf: its URDF text.
        model: its RobotModel.
        theta: (p,) its parameters in ``layout`` (inertial per body, viscous, Coulomb).
        layout: the regressor layout of the nominal model (same bodies and joints).
        tool_mass: [kg] the tool on the tip link that the nominal URDF lacks.
    """

    urdf: str
    model: object
    theta: np.ndarray
    layout: ParameterLayout
    tool_mass: float


def true_robot(
    nominal_urdf: str, model, *, tool_mass: float = 1.5, tool_com=(0.0, 0.0, -0.03), seed=1
) -> TrueRobot:
    """The perturbed robot of the module docstring.

    Args:
        nominal_urdf: the nominal URDF text.
        model: its RobotModel (with a tip link).
        tool_mass: [kg] of the tool.
        tool_com: (3,) its centre of mass in the tip link's axes, from the tip origin [m] (a
            6 cm cube of uniform density).
        seed: random seed of the perturbation.

    Returns:
        TrueRobot: the perturbed robot.
    """
    from robot_dynamics import RobotModel
    from robot_dynamics.core.urdf_writer import identified_urdf

    rng = np.random.default_rng(seed)
    layout = ParameterLayout.for_model(model)
    theta = layout.nominal(model).copy()
    bodies = theta[: layout.n_inertial].reshape(-1, 10)

    def factor(size=None):
        return 1.0 + rng.choice([-1.0, 1.0], size) * rng.uniform(*PERTURBATION, size)

    for b in range(layout.nb):
        mass, com, inertia = inertia_parameters(parameters_to_inertia(bodies[b]))
        if mass <= 0.0:
            continue
        k = factor()
        bodies[b] = inertia_to_parameters(spatial_inertia(mass * k, com * factor(3), inertia * k))
    tip = model.tree.frames[model.tip_link]
    T = np.asarray(tip.T_body_frame, dtype=float)
    side = 0.06
    tool_inertia = tool_mass * side**2 / 6.0 * np.eye(3)  # a cube; isotropic: any axes
    com_body = T[:3, :3] @ np.asarray(tool_com, dtype=float) + T[:3, 3]
    bodies[tip.body] += inertia_to_parameters(spatial_inertia(tool_mass, com_body, tool_inertia))
    limits = np.asarray(model.effort_limits, dtype=float)
    limits = np.where(np.isfinite(limits), limits, 87.0)
    theta[layout.group_slice("viscous")] = limits * rng.uniform(*VISCOUS, model.n)
    theta[layout.group_slice("coulomb")] = limits * rng.uniform(*COULOMB, model.n)
    urdf = identified_urdf(nominal_urdf, model, layout, theta)
    true_model = RobotModel.from_urdf_string(
        urdf, base_link=model.base_link, tip_link=model.tip_link, gravity=tuple(model.gravity)
    )
    return TrueRobot(urdf, true_model, theta, layout, float(tool_mass))


# ------------------------------------------------------------------ excitation
def quintic(q_from: np.ndarray, q_to: np.ndarray, duration: float, t: float):
    """A rest-to-rest quintic from ``q_from`` to ``q_to``.

    Args:
        q_from: (n,) start [rad].
        q_to: (n,) end [rad].
        duration: length of the move [s].
        t: time [s] (clamped to ``[0, duration]``).

    Returns:
        tuple: ``(q [rad], qd [rad/s], qdd [rad/s^2])``, (n,) each, at ``t``.
    """
    s = min(max(t / duration, 0.0), 1.0)
    dq = np.asarray(q_to, dtype=float) - np.asarray(q_from, dtype=float)
    p = 10 * s**3 - 15 * s**4 + 6 * s**5
    dp = (30 * s**2 - 60 * s**3 + 30 * s**4) / duration if 0.0 < s < 1.0 else 0.0
    ddp = (60 * s - 180 * s**2 + 120 * s**3) / duration**2 if 0.0 < s < 1.0 else 0.0
    return q_from + p * dq, dp * dq, ddp * dq


class ExcitationReference:
    """The reference the demo tracks: a quintic from ``q0`` to the excitation's start, ``periods``
    periods of the Fourier excitation (which starts and ends at rest), a quintic back to ``q0``.

    Args:
        trajectory: :class:`~robot_dynamics.core.excitation.FourierTrajectory`.
        q0: (n,) the held pose [rad].
        periods: whole periods to run.
        move_time: each quintic [s].
    """

    def __init__(self, trajectory, q0: np.ndarray, periods: int, move_time: float):
        self.trajectory = trajectory
        self.q0 = np.asarray(q0, dtype=float)
        self.move_time = float(move_time)
        self.excite_time = float(periods) * float(trajectory.period)
        q_start, _, _ = trajectory.evaluate(np.zeros(1))
        self.q_start = q_start[0]
        self.duration = 2.0 * self.move_time + self.excite_time

    def __call__(self, t: float):
        """(q, qd, qdd) (n,) of the reference at ``t`` [s from its start]."""
        if t < self.move_time:
            return quintic(self.q0, self.q_start, self.move_time, t)
        t_e = t - self.move_time
        if t_e < self.excite_time:
            q, qd, qdd = self.trajectory.evaluate(np.array([t_e]))
            return q[0], qd[0], qdd[0]
        return quintic(self.q_start, self.q0, self.move_time, t_e - self.excite_time)


def impedance_feedforward(model, reference, stiffness, damping, q_hold) -> np.ndarray:
    """The torque command that makes a joint impedance around ``q_hold`` track ``reference``.

    The simulated drives add ``K (q_hold - q) - D qd`` to every command (the joint-impedance
    mode of a torque-controlled arm, computed at the drive rate: no loop delay). Commanding the
    nominal model's inverse dynamics and friction at the reference plus ``K (q_d - q_hold) +
    D qd_d`` makes the drives' total ``tau_model(ref) + K (q_d - q) + D (qd_d - qd)``: a joint
    PD around the reference whose feedback never waits for the network; the command itself is
    a function of time only.

    Args:
        model: the nominal RobotModel.
        reference: ``(q_d, qd_d, qdd_d)``, (n,) each [rad, rad/s, rad/s^2].
        stiffness: (n,) the drives' impedance stiffness K [N m/rad].
        damping: (n,) the drives' impedance damping D [N m s/rad].
        q_hold: (n,) the impedance setpoint [rad].

    Returns:
        ndarray: (n,) command [N m].
    """
    q_d, qd_d, qdd_d = reference
    tau = model.inverse_dynamics(q_d, qd_d, qdd_d) + model.friction_torques(qd_d)
    return tau + stiffness * (q_d - q_hold) + damping * qd_d


# ------------------------------------------------------------------ identification
@dataclass(frozen=True)
class IdentifiedRobot:
    """What :func:`identify_recording` found.

    Attributes:
        urdf: the identified URDF text.
        model: its RobotModel (with the friction model of ``parameters``).
        parameters: the dynamics node's parameters of what the URDF cannot carry (the friction
            model beyond viscous and Coulomb, the torque offsets as ``effort_offset``).
        report: JSON-ready numbers (samples, base parameters, condition number, per-joint torque
            RMS of the nominal and identified model on the held-out part, masses, friction model
            and offsets per joint).
    """

    urdf: str
    model: object
    parameters: Dict
    report: Dict


def identify_recording(
    nominal_urdf: str,
    model,
    t: np.ndarray,
    q: np.ndarray,
    qd: np.ndarray,
    effort: np.ndarray,
    *,
    holdout: float = 0.2,
    true: TrueRobot = None,
    rate: float = None,
) -> IdentifiedRobot:
    """Identify the robot from recorded joint states as ``robot-dynamics identify`` does: per
    joint the friction model and torque offset the held-out data support, the physically
    consistent fit, the identified URDF and the node's parameters.

    Args:
        nominal_urdf: nominal URDF text.
        model: its RobotModel.
        t: (N,) sample times [s].
        q: (N, n) joint positions [rad], model order.
        qd: (N, n) joint velocities [rad/s].
        effort: (N, n) the measured joint torques [N m].
        holdout: the last fraction of the samples is left out of the fit and used to compare.
        true: the simulated robot, when known: its masses and torque RMS go into the report.
        rate: resample to this rate [Hz] before the fit (default: the recording's).

    Returns:
        IdentifiedRobot: the identified robot and the report.

    Raises:
        IdentificationError: too few samples, data that do not excite the base parameters.
    """
    from robot_dynamics import RobotModel
    from robot_dynamics.core.friction import DEFAULT_VELOCITY_THRESHOLD
    from robot_dynamics.core.friction_identification import select_model
    from robot_dynamics.core.urdf_writer import identified_urdf
    from robot_dynamics.tools.identified_parameters import identified_parameters

    data = prepare(JointSamples(np.asarray(t, dtype=float), q, qd, effort), rate=rate)
    train, test = data.split(holdout)
    selection = select_model(model, train, test)
    layout = selection.layout
    result = identify(
        model, train.q, train.qd, train.qdd, train.tau, layout=layout, smooth=train.smoothed
    )
    urdf = identified_urdf(nominal_urdf, model, layout, result.theta)
    parameters = identified_parameters(result, model, DEFAULT_VELOCITY_THRESHOLD)
    identified = RobotModel.from_urdf_string(
        urdf, base_link=model.base_link, tip_link=model.tip_link, gravity=tuple(model.gravity)
    )
    identified = identified.with_friction(identified.friction.with_parameters(parameters))
    Y = stacked_regressor(model, test.q, test.qd, test.qdd, layout, smooth=test.smoothed)

    def rms(predicted):
        return np.sqrt(np.mean((test.tau - predicted) ** 2, axis=0)).tolist()

    masses = {
        "nominal": result.theta_nominal[: layout.n_inertial : 10].tolist(),
        "identified": result.theta[: layout.n_inertial : 10].tolist(),
    }
    report = {
        "samples_used": int(train.t.size),
        "samples_held_out": int(test.t.size),
        "rate_hz": float(data.rate),
        "base_parameter_count": int(result.base.count),
        "condition_number": float(result.condition_number),
        "bodies": list(layout.body_links),
        "masses_kg": masses,
        "torque_rms_nominal": rms(Y @ result.theta_nominal),
        "torque_rms_identified": rms(Y @ result.theta),
        "friction_model": list(selection.friction),
        "offset": result.group("offset").tolist(),
        "damping": result.group("viscous").tolist(),
        "friction": result.group("coulomb").tolist(),
    }
    if true is not None:
        masses["true"] = true.theta[: layout.n_inertial : 10].tolist()
        Y_true = stacked_regressor(
            model, test.q, test.qd, test.qdd, true.layout, smooth=test.smoothed
        )
        report["torque_rms_true"] = rms(Y_true @ true.theta)
        report["damping_true"] = true.theta[true.layout.group_slice("viscous")].tolist()
        report["friction_true"] = true.theta[true.layout.group_slice("coulomb")].tolist()
    return IdentifiedRobot(urdf, identified, parameters, report)


# ------------------------------------------------------------------ wrench errors
def steady_errors(
    rec: Recording, model, tip_link: str, start_ns: int, end_ns: int, settle: float = 0.5
) -> List[Dict]:
    """Per stretch of constant applied wrench in ``[start_ns, end_ns)``: the mean estimate after
    ``settle`` seconds (the observer's convergence) against the applied wrench.

    Args:
        rec: the recording.
        model: the RobotModel.
        tip_link: the pushed frame.
        start_ns: start of the round [ns].
        end_ns: end of the round [ns].
        settle: time left out at the start of each stretch [s].

    Returns:
        list: {"applied" (6,), "estimated" (6,) mean, "error" (6,), "force_error_N",
        "moment_error_Nm", "start_s", "end_s", "samples"} per stretch (base axes, moment about
        the tip origin; times relative to ``start_ns``); stretches shorter than ``settle`` + 0.2 s
        are left out.
    """
    est_ns = np.asarray(rec.est_stamp, dtype=np.int64).reshape(-1)
    app_ns = np.asarray(rec.app_stamp, dtype=np.int64).reshape(-1)
    if est_ns.size == 0 or app_ns.size == 0:
        return []
    order = np.argsort(app_ns, kind="stable")
    app_ns = app_ns[order]
    app = np.asarray(rec.app_wrench, dtype=float).reshape(-1, 6)[order]
    est = estimates_of(rec, model, tip_link)
    sel = (est_ns >= start_ns) & (est_ns < end_ns)
    est_ns, est = est_ns[sel], est[sel]
    if est_ns.size == 0:
        return []
    applied = align(est_ns, app_ns, app)
    t = (est_ns - start_ns) * 1e-9
    changes = np.flatnonzero(np.any(np.abs(np.diff(applied, axis=0)) > 1e-9, axis=1)) + 1
    bounds = [0] + changes.tolist() + [len(t)]
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        t0 = t[a]
        t1 = t[b] if b < len(t) else t[-1]
        if t1 - t0 < settle + 0.2:
            continue
        steady = slice(a + int(np.searchsorted(t[a:b], t0 + settle)), b)
        mean = est[steady].mean(axis=0)
        err = mean - applied[a]
        out.append(
            {
                "applied": applied[a].tolist(),
                "estimated": mean.tolist(),
                "error": err.tolist(),
                "force_error_N": float(np.linalg.norm(err[:3])),
                "moment_error_Nm": float(np.linalg.norm(err[3:])),
                "start_s": float(t0),
                "end_s": float(t1),
                "samples": int(len(est[steady])),
            }
        )
    return out


def phase_name(applied: Sequence[float]) -> str:
    """A short name of an applied wrench.

    Args:
        applied: (6,) wrench [N, N m].

    Returns:
        str: "at rest", or "push f=(...) N" with ", n=(...) N m" when there is a moment.
    """
    w = np.asarray(applied, dtype=float)
    if not np.any(np.abs(w) > 1e-9):
        return "at rest"
    f = ", ".join(f"{v:g}" for v in np.round(w[:3], 2))
    text = f"push f=({f}) N"
    if np.any(np.abs(w[3:]) > 1e-9):
        text += ", n=(" + ", ".join(f"{v:g}" for v in np.round(w[3:], 2)) + ") N m"
    return text


def compare(before: List[Dict], after: List[Dict]) -> List[Dict]:
    """Pair the stretches of the two push rounds by applied wrench (in order).

    Args:
        before: :func:`steady_errors` of the first round.
        after: :func:`steady_errors` of the second round.

    Returns:
        list: {"phase", "applied", "force_error_before_N", "force_error_after_N",
        "moment_error_before_Nm", "moment_error_after_Nm"} per pair.
    """
    rows, used = [], set()
    for b in before:
        for j, a in enumerate(after):
            if j not in used and np.allclose(a["applied"], b["applied"], atol=1e-6):
                used.add(j)
                rows.append(
                    {
                        "phase": phase_name(b["applied"]),
                        "applied": b["applied"],
                        "force_error_before_N": b["force_error_N"],
                        "force_error_after_N": a["force_error_N"],
                        "moment_error_before_Nm": b["moment_error_Nm"],
                        "moment_error_after_Nm": a["moment_error_Nm"],
                    }
                )
                break
    return rows


def improvement(rows: List[Dict]) -> float:
    """Mean force error after / before over the compared stretches.

    Args:
        rows: from :func:`compare`.

    Returns:
        float: the ratio (nan without any stretch).
    """
    if not rows:
        return math.nan
    before = np.mean([r["force_error_before_N"] for r in rows])
    after = np.mean([r["force_error_after_N"] for r in rows])
    return float(after / before) if before > 0 else math.nan
