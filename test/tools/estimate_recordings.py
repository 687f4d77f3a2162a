"""Synthetic recordings of a pushed arm for the ``estimate`` tests (a uniquely named helper
module, as tools_helpers.py).

The bundled Panda with 0.1 kg m^2 of armature per joint tracks a slow reference (sums of
``a (1 - cos(w t))^2``, from rest) under a joint PD controller with inverse-dynamics
feed-forward, simulated with the core's ``RobotModel.step`` (semi-implicit Euler, 1 kHz) with
a known wrench ``f_ext`` applied on the tool over known time windows (ramped in and out over
50 ms, as a hand pushes). The joints
have friction the node's model has only in part: viscous plus Coulomb (in the estimator's URDF),
an asymmetric Coulomb part and a Stribeck bump (not). The recording has what real ones have:
the measured efforts are the motor torques plus per-joint offsets and noise, the velocities
carry a 15 Hz ripple and noise, the positions encoder noise; the logging PC's stamps jitter
around the 1 ms cycle, about 5 % of the samples repeat the previous one's values under a new
stamp, a few are logged twice with the same stamp, and every two seconds or so ~8.5 ms of
samples are missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np

from robot_dynamics import RobotModel
from robot_dynamics.tools.robots import resolve_robot

TIP = "tool"
BASE = "panda_link0"
HOME = np.array((0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785))
ARMATURE = 0.1  # kg m^2 per joint
OFFSETS = np.array((-0.17, -0.20, 0.10, -0.12, -0.02, 0.07, 0.0))  # N m, in the efforts
VISCOUS = np.array((0.6, 0.6, 0.5, 0.5, 0.3, 0.3, 0.2))  # N m s / rad
COULOMB = np.array((0.5, 0.5, 0.45, 0.4, 0.25, 0.25, 0.2))  # N m, symmetric part
ASYMMETRY = np.array((0.1, 0.12, 0.08, 0.1, 0.05, 0.05, 0.04))  # N m more when qd > 0
STRIBECK = np.array((0.15, 0.15, 0.12, 0.12, 0.06, 0.06, 0.05))  # N m more near rest
STRIBECK_VELOCITY = 0.05  # rad/s
SMOOTH = 0.01  # rad/s: the Coulomb sign is tanh(qd / SMOOTH) (the node's default threshold)
EFFORT_NOISE = 0.02  # N m
VELOCITY_NOISE = 1e-3  # rad/s
RIPPLE = 4e-3  # rad/s at 15 Hz
ENCODER_NOISE = 1e-5  # rad
KP, KD = 300.0, 20.0  # N m / rad, N m s / rad


@dataclass(frozen=True)
class Push:
    """A wrench on the tool: force [N] in base axes at the tool origin, from start to end [s]."""

    start: float
    end: float
    force: tuple
    ramp: float = 0.05

    def scale(self, t):
        up = np.clip((t - self.start) / self.ramp, 0.0, 1.0)
        down = np.clip((self.end - t) / self.ramp, 0.0, 1.0)
        return np.minimum(up, down)


@dataclass
class Recording:
    """A logged run.

    Attributes:
        messages: ``(t [s], names, position, velocity, effort)`` in logging order.
        t: (k,) true sample times [s] of the simulation (1 kHz).
        force: (k, 3) true push force [N], base axes.
        force_tool: (k, 3) the same in the tool's axes.
        q: (k, n) true positions.
        pushes: the pushes.
    """

    messages: list
    t: np.ndarray
    force: np.ndarray
    force_tool: np.ndarray
    q: np.ndarray
    pushes: tuple = field(default_factory=tuple)


def plant_friction(qd):
    """The joints' true friction torque [N m] at velocities qd (n,)."""
    sign = np.tanh(qd / SMOOTH)
    stribeck = STRIBECK * np.exp(-((qd / STRIBECK_VELOCITY) ** 2))
    return VISCOUS * qd + (COULOMB + stribeck) * sign + ASYMMETRY * 0.5 * (1.0 + sign)


def estimator_urdf():
    """The Panda URDF as the estimator knows it: exact inertias, the friction's viscous and
    symmetric Coulomb part (the asymmetric part averaged in) in ``<dynamics>``."""
    text = resolve_robot("panda", None).urdf
    model = RobotModel.from_urdf_string(text, base_link=BASE, tip_link=TIP)
    for j, name in enumerate(model.joint_names):
        pattern = re.compile(rf'(<joint name="{name}".*?)<dynamics [^>]*/>', re.S)
        damping, friction = VISCOUS[j], COULOMB[j] + 0.5 * ASYMMETRY[j]
        text, count = pattern.subn(
            rf'\1<dynamics damping="{damping}" friction="{friction}"/>', text, count=1
        )
        assert count == 1, name
    return text


def node_parameters(offsets_error=0.01, seed=0):
    """The node parameters a user would run this arm with (identified offsets, armature,
    friction compensation)."""
    rng = np.random.default_rng(seed)
    return {
        "base_link": BASE,
        "tip_link": TIP,
        "armature": [ARMATURE] * 7,
        "friction_compensation": True,
        "friction_velocity_threshold": SMOOTH,
        "effort_offset": [float(v) for v in -(OFFSETS + offsets_error * rng.normal(size=7))],
    }


def simulate(seed, duration, pushes=(), rate=1000.0, logged=True, rests=()):
    """Simulate and log a run (see the module docstring).

    Args:
        seed: random seed (trajectory, noise, logger).
        duration: [s].
        pushes: :class:`Push` entries.
        rate: simulation and control rate [Hz].
        logged: the logger's stamps, repeats and gaps (False: every sample, stamped exactly on
            the cycle).
        rests: ``(start, end)`` windows [s] in which the reference stands still (its time does
            not pass), so the arm comes to rest.

    Returns:
        Recording: the logged run and its truth.
    """
    rng = np.random.default_rng(seed)
    text = resolve_robot("panda", None).urdf
    plant = RobotModel.from_urdf_string(text, base_link=BASE, tip_link=TIP).with_armature(
        np.full(7, ARMATURE)
    )
    n = plant.n
    dt = 1.0 / rate
    steps = int(round(duration * rate))
    t_all = np.arange(steps) * dt
    # the reference: sums of a (1 - cos(w t))^2, starting at HOME at rest (qd = qdd = 0)
    amp = rng.uniform(0.02, 0.06, (3, n)) * rng.choice((-1.0, 1.0), (3, n))
    freq = rng.uniform(0.15, 0.6, (3, n)) * 2 * np.pi
    warped, moving = t_all.copy(), np.ones(steps)
    for start, end in rests:
        warped -= np.clip(t_all - start, 0.0, end - start)
        moving[(t_all >= start) & (t_all < end)] = 0.0
    T = warped[:, None, None]
    c, s_ = np.cos(freq * T), np.sin(freq * T)
    qr = HOME + (amp * (1 - c) ** 2).sum(axis=1)
    qdr = (2 * amp * freq * (1 - c) * s_).sum(axis=1) * moving[:, None]
    qddr = (2 * amp * freq**2 * (s_**2 + (1 - c) * c)).sum(axis=1) * moving[:, None]
    feedforward = plant.inverse_dynamics(qr, qdr, qddr)
    force = np.zeros((steps, 3))
    for push in pushes:
        force += push.scale(t_all)[:, None] * np.asarray(push.force, dtype=float)
    q, qd = qr[0].copy(), qdr[0].copy()
    Q, QD, TAU = np.empty((steps, n)), np.empty((steps, n)), np.empty((steps, n))
    for k in range(steps):
        tau = (
            feedforward[k]
            + KP * (qr[k] - q)
            + KD * (qdr[k] - qd)
            + VISCOUS * qd
            + (COULOMB + 0.5 * ASYMMETRY) * np.tanh(qd / SMOOTH)
        )
        Q[k], QD[k], TAU[k] = q, qd, tau
        wrench = np.concatenate((force[k], np.zeros(3))) if force[k].any() else None
        q, qd = plant.step(q, qd, tau - plant_friction(qd), dt, f_ext=wrench)
    rotation = plant.frame_pose(Q, TIP)[:, :3, :3]
    force_tool = np.einsum("kji,kj->ki", rotation, force)
    # the sensors
    position = Q + ENCODER_NOISE * rng.normal(size=Q.shape)
    ripple = RIPPLE * np.sin(2 * np.pi * 15.0 * t_all[:, None] + rng.uniform(0, 6.3, n))
    velocity = QD + ripple + VELOCITY_NOISE * rng.normal(size=QD.shape)
    effort = TAU + OFFSETS + EFFORT_NOISE * rng.normal(size=TAU.shape)
    # the logger
    names = list(plant.joint_names)
    if not logged:
        messages = [
            (t_all[k] + 1.0, names, position[k], velocity[k], effort[k]) for k in range(steps)
        ]
        return Recording(messages, t_all, force, force_tool, Q, tuple(pushes))
    keep = np.ones(steps, dtype=bool)
    k = int(rng.integers(500, 2500))
    while k < steps - 10:
        keep[k : k + 8] = False  # ~8.5 ms between two stamps
        k += int(rng.integers(1500, 2500))
    messages = []
    previous = None
    for k in np.flatnonzero(keep):
        stamp = t_all[k] + rng.uniform(-0.15e-3, 0.15e-3) + 1.0  # logger clock starts at 1 s
        values = (position[k], velocity[k], effort[k])
        if previous is not None and rng.random() < 0.05:
            values = previous  # the robot's sample had not changed yet
        messages.append((stamp, names, *values))
        if rng.random() < 0.005:
            messages.append((stamp, names, *values))  # logged twice
        previous = values
    return Recording(messages, t_all, force, force_tool, Q, tuple(pushes))


def logging_pc(recording, rng):
    """The exactly stamped recording (``simulate(..., logged=False)``) as a logging PC gives it
    (real_recordings.logger: jitter, stalls stamping a burst 20 us apart, repeats, gaps).

    Returns:
        tuple: ``(Recording, Log)``.
    """
    from real_recordings import logger

    log = logger(len(recording.messages), rng)
    messages = [(1.0 + s, *recording.messages[k][1:]) for s, k in zip(log.stamps, log.source)]
    return replace(recording, messages=messages), log


def write_csv(path, recording, names):
    """The recording as a CSV in identify's convention (time, <joint>.position/velocity/effort)."""
    header = ["time"] + [f"{j}.{f}" for f in ("position", "velocity", "effort") for j in names]
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for t, _, q, qd, tau in recording.messages:
            f.write(",".join([f"{t:.9f}"] + [repr(float(v)) for v in (*q, *qd, *tau)]) + "\n")


#: the arm's joints (estimator_urdf), in model order
JOINT_NAMES = [f"panda_joint{k}" for k in range(1, 8)]


def estimate_json(*argv):
    """``robot-dynamics estimate ARGV --json``: its summary (the command must succeed)."""
    import contextlib
    import io
    import json

    from robot_dynamics.tools import cli

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = cli.main(["estimate", *argv, "--json"])
    summary = json.loads(buffer.getvalue())
    assert code == 0, summary
    return summary
