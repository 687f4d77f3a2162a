"""Synthetic recordings that have what real ones have, from a known model: perturbed inertial
parameters, torque offsets, asymmetric Coulomb and viscous friction, a velocity signal with an
11-22 Hz ripple, torque-sensor noise, and a logging PC's stamps (jitter about a 1 ms cycle, the
logger stalling and catching up in a burst, ~5 % repeated samples, gaps of lost cycles). Every
number is drawn from a seeded generator.

Also a mobile manipulator's URDF: a prismatic torso, a 7-joint arm, a 2-joint head and a
two-finger gripper (a uniquely named module: test/, test/core and test/ros each have a
conftest.py)."""

from dataclasses import dataclass

import numpy as np

from robot_dynamics.core.identification import apply_parameters
from robot_dynamics.core.regressor import ParameterLayout
from tools_helpers import perturbed_inertials

CYCLE = 1e-3  # the robot's cycle [s]


def perturbed_truth(model, rng):
    """The true robot: masses and inertias x0.8-1.25, COMs moved by up to 3 cm; viscous and
    Coulomb friction, an asymmetry of up to half the Coulomb level and a torque offset per joint
    (x30 on prismatic joints, N instead of N m).

    Returns:
        tuple: ``(layout, theta)`` with viscous, Coulomb, asymmetry and offset columns.
    """
    layout = ParameterLayout.for_model(model, asymmetry=True, offset=True)
    theta = layout.nominal(model).copy()
    theta[: layout.n_inertial] = perturbed_inertials(model, rng)
    force = np.where(prismatic(model), 30.0, 1.0)
    coulomb = rng.uniform(0.3, 1.2, model.n) * force
    theta[layout.group_slice("viscous")] = rng.uniform(0.1, 0.6, model.n) * force
    theta[layout.group_slice("coulomb")] = coulomb
    theta[layout.group_slice("asymmetry")] = rng.uniform(-0.5, 0.5, model.n) * coulomb
    theta[layout.group_slice("offset")] = rng.uniform(-0.2, 0.2, model.n) * force
    return layout, theta


def true_torques(model, layout, theta, q, qd, qdd):
    """``regressor @ theta`` by inverse dynamics (much cheaper on long recordings): the true
    robot's rigid-body torques, friction and offsets.

    Returns:
        ndarray: (N, n) [N m or N].
    """
    true = apply_parameters(model, layout, theta)
    offset = layout.joint_values(theta, "offset")
    return true.inverse_dynamics(q, qd, qdd) + true.friction_torques(qd) + offset


def prismatic(model):
    from robot_dynamics.core.tree import PRISMATIC

    body = {name: b for b, name in enumerate(model.tree.body_joint_names)}
    return np.array([model.tree.joint_type[body[j]] == PRISMATIC for j in model.joint_names])


def excitation(model, rng, moving, period=10.0, harmonics=8):
    """A Fourier-series excitation of the ``moving`` joints (period 10 s, harmonics up to
    0.8 Hz) within 70 % of their ranges; the others at rest at the middle of their range.

    Returns:
        callable: ``t (N,) -> (q, qd, qdd)``, each (N, n).
    """
    lo, hi = model.position_limits
    lo = np.where(np.isfinite(lo), lo, -np.pi)
    hi = np.where(np.isfinite(hi), hi, np.pi)
    n = model.n
    a = rng.normal(size=(harmonics, n)) / np.arange(1, harmonics + 1)[:, None]
    phase = rng.uniform(0, 2 * np.pi, (harmonics, n))
    w = 2 * np.pi / period * np.arange(1, harmonics + 1)
    T = np.linspace(0, period, 2001)[:, None, None]
    peak = np.abs((a * np.sin(w[:, None] * T + phase)).sum(axis=1)).max(axis=0)
    scale = np.where(moving, 0.35 * (hi - lo) / np.maximum(peak, 1e-9), 0.0)
    scale = np.minimum(scale, 1.0 / np.maximum(peak, 1e-9))  # at most 1 rad or m

    def evaluate(t):
        arg = w[None, :, None] * np.asarray(t)[:, None, None] + phase[None]
        q = (lo + hi) / 2 + scale * (a * np.sin(arg)).sum(axis=1)
        qd = scale * (a * w[:, None] * np.cos(arg)).sum(axis=1)
        qdd = -scale * (a * (w**2)[:, None] * np.sin(arg)).sum(axis=1)
        return q, qd, qdd

    return evaluate


def resting_first(motion, rest, ramp=1.0):
    """``motion`` after ``rest`` seconds at rest at its start pose, into which it eases over
    ``ramp`` seconds (its time runs as ``s(t)``, ``s'`` rising smoothly from 0 to 1).

    Returns:
        callable: ``t (N,) -> (q, qd, qdd)``, each (N, n).
    """

    def evaluate(t):
        u = np.clip((np.asarray(t, dtype=float) - rest) / ramp, 0.0, None)
        inside = u < 1.0
        s = np.where(inside, ramp * (u**3 - u**4 / 2), ramp / 2 + ramp * (u - 1.0))
        rate = np.where(inside, 3 * u**2 - 2 * u**3, 1.0)
        curve = np.where(inside, (6 * u - 6 * u**2) / ramp, 0.0)
        q, dq, ddq = motion(s)  # derivatives in s
        qd = dq * rate[:, None]
        return q, qd, ddq * (rate**2)[:, None] + dq * curve[:, None]

    return evaluate


@dataclass
class Log:
    """A logged recording.

    Attributes:
        stamps: (R,) the logger's stamps [s].
        source: (R,) the robot cycle each record carries (a repeat carries its predecessor's).
        repeats: records that repeat the previous one.
        gaps: ``(first lost cycle, cycles lost)`` per gap.
        stalls: ``(record, stall [s])`` per logger stall.
    """

    stamps: np.ndarray
    source: np.ndarray
    repeats: int
    gaps: list
    stalls: list


def logger(cycles, rng, *, repeat_fraction=0.05, gap_every=3000, gap_cycles=(7, 9),
           stall_every=2300, stall=(2e-3, 7.8e-3), jitter=0.3e-3):  # fmt: skip
    """A logging PC's view of a robot sampling on a 1 ms cycle: stamps are the cycle's time plus
    a latency of 0-0.3 ms; every ~2.3 s the logger stalls for 2-7.8 ms and stamps what arrived
    meanwhile in a burst 20 us apart; every ~3 s 7-9 cycles never reach the log (a gap of
    ~8.5 ms); ~5 % of the records are a second copy of the previous one, stamped between it
    and the next. Stalls, gaps and repeats are kept apart so that each can be counted.

    Args:
        cycles: robot cycles of the recording.
        rng: numpy Generator.

    Returns:
        Log: the records.
    """
    keep = np.ones(cycles, bool)
    gaps = []
    pos = gap_every // 2
    while pos < cycles - 200:
        length = int(rng.integers(gap_cycles[0], gap_cycles[1] + 1))
        keep[pos : pos + length] = False
        gaps.append((pos, length))
        pos += gap_every + int(rng.integers(-300, 300))
    source = np.flatnonzero(keep)
    stamps = source * CYCLE + rng.uniform(0.0, jitter, source.size)
    near_gap = np.zeros(source.size, bool)
    for g, _ in gaps:
        r = np.searchsorted(source, g)
        near_gap[max(0, r - 60) : r + 60] = True
    stalls = []
    pos = stall_every // 3
    while pos < source.size - 100:
        if not near_gap[pos]:
            d = float(rng.uniform(*stall))
            end, j = stamps[pos] + d, pos
            while j < source.size and stamps[j] <= end + 2e-5 * (j - pos):
                stamps[j] = end + 2e-5 * (j - pos)
                j += 1
            stalls.append((pos, d))
        pos += stall_every + int(rng.integers(-200, 200))
    # repeats: a copy of record i - 1 stamped between i - 1 and i, never two in a row
    candidates = np.flatnonzero(rng.uniform(size=source.size) < repeat_fraction)
    candidates = candidates[(candidates > 0)]
    chosen = candidates[np.concatenate([[True], np.diff(candidates) > 1])]
    order = np.argsort(np.concatenate([np.arange(source.size), chosen - 0.5]), kind="stable")
    all_source = np.concatenate([source, source[chosen - 1]])[order]
    mid = stamps[chosen - 1] + 0.5 * (stamps[chosen] - stamps[chosen - 1])
    all_stamps = np.concatenate([stamps, mid])[order]
    return Log(all_stamps, all_source, int(chosen.size), gaps, stalls)


@dataclass
class Recording:
    """A synthetic recording of a robot.

    Attributes:
        t: (R,) logger stamps [s] (from 0).
        position, velocity, effort: (R, n) what the messages carry (model order; velocity with
            the ripple, effort as the driver reports it).
        true_t: (R,) the robot's time of each record [s].
        log: the :class:`Log`.
        truth: ``(layout, theta)`` of the true robot (None when ``record`` was given its
            torques).
        motion: ``t -> (q, qd, qdd)`` of the true motion.
    """

    t: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray
    true_t: np.ndarray
    log: Log
    truth: tuple
    motion: object


def record(model, rng, duration, *, moving=None, ripple=0.003, torque_noise=0.05,
           encoder_noise=1e-6, effort_scale=None, effort_offset=None, torques=None,
           logged=True, rest=0.0):  # fmt: skip
    """A recording of the perturbed robot running an excitation, as a real logger gives it.

    Args:
        model: the nominal RobotModel.
        rng: numpy Generator.
        duration: [s].
        moving: (n,) bool, the joints that move (default all).
        ripple: amplitude of each of three velocity ripple components (11-22 Hz) [rad/s].
        torque_noise: torque sensor noise [N m] (x30 on prismatic joints).
        encoder_noise: position noise [rad or m].
        effort_scale: (n,) the driver reports ``(tau - effort_offset) / effort_scale`` (a motor
            current), or None (1).
        effort_offset: (n,) see ``effort_scale`` [N m or N], or None (0).
        torques: the true torques ``(t (R,), q, qd, qdd) -> (R, n)`` [N m or N], or None: the
            perturbed robot's (``truth``).
        logged: the logger's stamps, repeats and gaps (False: every cycle, stamped exactly).
        rest: seconds at rest before the excitation (the driver's ripple goes on).

    Returns:
        Recording: the recording.
    """
    n = model.n
    moving = np.ones(n, bool) if moving is None else np.asarray(moving, bool)
    layout, theta = perturbed_truth(model, rng)
    motion = excitation(model, rng, moving)
    if rest:
        motion = resting_first(motion, rest)
    cycles = int(round(duration / CYCLE))
    if logged:
        log = logger(cycles, rng)
    else:
        log = Log(np.arange(cycles) * CYCLE, np.arange(cycles), 0, [], [])
    true_t = log.source * CYCLE
    q, qd, qdd = motion(true_t)
    if torques is None:
        tau = true_torques(model, layout, theta, q, qd, qdd)
    else:
        tau = torques(true_t, q, qd, qdd)
    force = np.where(prismatic(model), 30.0, 1.0)
    f = rng.uniform(11.0, 22.0, (3, n))
    phase = rng.uniform(0, 2 * np.pi, (3, n))
    wave = np.sin(2 * np.pi * f[None] * true_t[:, None, None] + phase[None])
    velocity = qd + ripple * moving * wave.sum(axis=1)
    # the same cycle twice carries the same values: noise drawn per cycle
    noise_q = encoder_noise * rng.normal(size=(cycles, n))
    noise_tau = torque_noise * force * rng.normal(size=(cycles, n))
    position = q + noise_q[log.source]
    effort = tau + noise_tau[log.source]
    if effort_offset is not None:
        effort = effort - np.asarray(effort_offset, dtype=float)
    if effort_scale is not None:
        effort = effort / np.asarray(effort_scale, dtype=float)
    stamps = log.stamps - log.stamps[0]
    truth = (layout, theta) if torques is None else None
    return Recording(stamps, position, velocity, effort, true_t, log, truth, motion)


def csv_text(names, rec, velocity=True):
    """The recording as CSV text (``time``, ``<joint>.position/.velocity/.effort``)."""
    cols = ["time"] + [f"{j}.position" for j in names] + [f"{j}.effort" for j in names]
    blocks = [rec.t[:, None], rec.position, rec.effort]
    if velocity:
        cols += [f"{j}.velocity" for j in names]
        blocks.append(rec.velocity)
    table = np.column_stack(blocks)
    lines = [",".join(cols)] + [",".join(repr(float(x)) for x in row) for row in table]
    return "\n".join(lines) + "\n"


def _inertial(mass, com, diag):
    return (
        f'<inertial><origin xyz="{com}"/><mass value="{mass}"/>'
        f'<inertia ixx="{diag[0]}" ixy="0" ixz="0" iyy="{diag[1]}" iyz="0" izz="{diag[2]}"/>'
        f"</inertial>"
    )


def _link(name, mass, com, diag):
    return f'<link name="{name}">{_inertial(mass, com, diag)}</link>'


def _joint(name, kind, parent, child, xyz, rpy, axis, lower, upper, dynamics=""):
    return (
        f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>'
        f'<limit lower="{lower}" upper="{upper}" effort="200" velocity="2"/>{dynamics}</joint>'
    )


def mobile_manipulator_urdf():
    """A mobile manipulator's URDF (base fixed): prismatic torso (0-0.35 m), a 7-joint arm on
    it, a 2-joint head on it, a two-finger gripper (0.001-0.04 m: held at mid-range) on the
    arm's last link; ``<dynamics>`` friction on the torso and the first arm joints.

    Returns:
        tuple: ``(urdf text, arm joints, head joints, gripper joints)``.
    """
    parts = ['<?xml version="1.0"?>', '<robot name="mobile_manipulator">', '<link name="base"/>']
    parts.append(_link("torso", 15.0, "0 0 0.3", (0.5, 0.5, 0.2)))
    parts.append(
        _joint(
            "torso_lift",
            "prismatic",
            "base",
            "torso",
            "0 0 0.6",
            "0 0 0",
            "0 0 1",
            0.0,
            0.35,
            '<dynamics damping="20" friction="15"/>',
        )  # fmt: skip
    )
    arm = [f"arm_{k}" for k in range(1, 8)]
    specs = [  # origin xyz, rpy, axis, lower, upper, mass, com, inertia diagonal
        ("0.15 0.0 0.5", "0 0 0", "0 0 1", -2.7, 2.7, 2.5, "0 0 0.08", (0.02, 0.02, 0.01)),
        ("0 0 0.12", "0 0 0", "0 1 0", -1.5, 1.5, 2.2, "0.15 0 0", (0.005, 0.03, 0.03)),
        ("0.3 0 0", "0 0 0", "1 0 0", -2.7, 2.7, 1.8, "0.05 0 0", (0.004, 0.006, 0.006)),
        ("0.1 0 0", "0 0 0", "0 1 0", -2.2, 2.2, 1.5, "0.12 0 0", (0.003, 0.015, 0.015)),
        ("0.25 0 0", "0 0 0", "1 0 0", -2.7, 2.7, 0.9, "0.04 0 0.01", (0.002, 0.002, 0.002)),
        ("0.08 0 0", "0 0 0", "0 1 0", -1.8, 1.8, 0.7, "0.03 0.01 0", (0.001, 0.001, 0.001)),
        ("0.06 0 0", "0 0 0", "1 0 0", -2.7, 2.7, 0.5, "0.05 0 0.01", (0.0008, 0.001, 0.001)),
    ]
    parent = "torso"
    for k, (xyz, rpy, axis, lo, hi, m, com, diag) in enumerate(specs):
        link = f"arm_link_{k + 1}"
        dyn = '<dynamics damping="0.5" friction="0.8"/>' if k < 3 else ""
        parts.append(_link(link, m, com, diag))
        parts.append(_joint(arm[k], "revolute", parent, link, xyz, rpy, axis, lo, hi, dyn))
        parent = link
    head = ["head_1", "head_2"]
    parts.append(_link("head_link_1", 0.6, "0 0 0.03", (0.001, 0.001, 0.001)))
    parts.append(_joint("head_1", "revolute", "torso", "head_link_1", "0 0 0.75", "0 0 0",
                        "0 0 1", -1.2, 1.2))  # fmt: skip
    parts.append(_link("head_link_2", 1.2, "0.03 0 0.05", (0.004, 0.004, 0.003)))
    parts.append(_joint("head_2", "revolute", "head_link_1", "head_link_2", "0 0 0.06",
                        "0 0 0", "0 1 0", -0.9, 0.7))  # fmt: skip
    gripper = ["gripper_left", "gripper_right"]
    for side, y in (("left", 1), ("right", -1)):
        link = f"finger_{side}"
        parts.append(_link(link, 0.1, f"0.03 {0.01 * y} 0", (1e-5, 1e-5, 1e-5)))
        parts.append(_joint(f"gripper_{side}", "prismatic", parent, link, "0.1 0 0", "0 0 0",
                            f"0 {y} 0", 0.001, 0.04))  # fmt: skip
    parts.append("</robot>")
    return "\n".join(parts), arm, head, gripper
