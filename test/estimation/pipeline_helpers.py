"""Helpers of the estimation-pipeline tests (a uniquely named module): the Panda configuration
and wrench the tests share, what a force-torque sensor reads of a wrench, the torques that hold
an arm still under it, a pipeline from keyword arguments, a few messages fed at 1 kHz, and a
PD-held arm pushed by a known wrench (simulated by the core), and a moving arm pushed by one.

Efforts are what the motors measure: ``tau = M qdd + C qd + g - J^T f_ext`` (the core's
convention, ``f_ext`` applied by the environment on the robot, base axes, moment about the frame
origin).
"""

import os

import numpy as np

from robot_dynamics.core.spatial import wrench_in_frame
from robot_dynamics.estimation import ContactConfig, EstimationPipeline, PipelineConfig

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PANDA_URDF = os.path.join(REPO, "urdf", "panda_arm.urdf")
Q = np.array([0.1, -0.3, 0.2, -1.8, 0.1, 1.5, 0.3])
F_EXT = np.array([2.0, -3.0, 5.0, 0.2, -0.1, 0.3])  # on the tool, base axes, moment about it
MS = 1_000_000  # 1 ms in ns
T0 = 1_700_000_000 * 10**9  # a wall-clock-like stamp


def sensor(model, q, f_ext, frame=None, at=None):
    """What a force-torque sensor at ``frame`` reads of f_ext applied at ``at`` (default tip)."""
    frame = frame or model.tip_link
    at = at or model.tip_link
    return wrench_in_frame(
        f_ext, model.frame_pose(q, frame=frame), point=model.frame_pose(q, frame=at)[:3, 3]
    )


def held_torques(model, q, f_ext, frame=None):
    """Measured joint torques holding still at q under f_ext (base axes, on ``frame``)."""
    return model.gravity_torques(q) - model.jacobian(q, frame=frame).T @ f_ext


def pipe(model, **config):
    """An EstimationPipeline of ``model`` with ``PipelineConfig(**config)`` (``contact`` given as a
    dict of ContactConfig fields)."""
    contact = config.pop("contact", None)
    if contact is not None:
        config["contact"] = ContactConfig(**contact)
    return EstimationPipeline(model, PipelineConfig(**config))


def feed(p, q, qd, tau, start=T0, count=5, period=MS, **kw):
    """``count`` messages of one state, stamped ``period`` ns apart from ``start`` [ns]; the
    pipeline's last output."""
    out = None
    for k in range(count):
        out = p.update(start + k * period, q, qd, tau, **kw)
    return out


def simulate_push(model, q0, f_ext, frame, seconds, dt=0.001, push_from=0.2):
    """A PD-held arm pushed by f_ext (base axes, on ``frame``) from ``push_from`` s on, by the
    core's semi-implicit Euler. Yields (t_ns, q, qd, tau_measured, pushed)."""
    # each joint a critically damped 3 Hz spring with the inertia it has alone: stable at dt
    inertia = np.diagonal(model.mass_matrix(q0))
    omega = 2 * np.pi * 3.0
    kp, kd = omega**2 * inertia, 2 * omega * inertia
    q, qd = q0.copy(), np.zeros(model.n)
    for k in range(int(round(seconds / dt))):
        pushed = k * dt >= push_from
        tau = model.gravity_torques(q) + kp * (q0 - q) - kd * qd
        yield T0 + k * MS, q, qd, tau, pushed
        q, qd = model.step(q, qd, tau, dt, f_ext=f_ext if pushed else None, frame=frame)


def moving_push(model, count, f_ext=F_EXT):
    """``count`` messages at 1 kHz of an arm swinging about Q (each joint 0.4 rad at 0.3 to
    0.6 Hz), the efforts its motors measure under ``f_ext`` on the tip: (q, qd, tau), each
    (count, n)."""
    t = np.arange(count) * 1e-3
    freq = np.linspace(0.3, 0.6, model.n)
    q = Q + 0.4 * np.sin(2 * np.pi * freq * t[:, None])
    qd = 0.4 * 2 * np.pi * freq * np.cos(2 * np.pi * freq * t[:, None])
    qdd = -0.4 * (2 * np.pi * freq) ** 2 * np.sin(2 * np.pi * freq * t[:, None])
    J = model.jacobian(q)
    return q, qd, model.inverse_dynamics(q, qd, qdd) - np.einsum("kji,j->ki", J, f_ext)
