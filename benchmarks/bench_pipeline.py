#!/usr/bin/env python3
"""Cost of the estimation pipeline per joint_states message against the same outputs computed
with Pinocchio plus numpy glue, measured in one run (interleaved, so both see the same load).

Per message, the dynamics node's pipeline (``EstimationPipeline.update``, default configuration:
gravity as the effort command, feed-forward C qd + g, momentum observer, wrench at the tip in the
tip's axes) turns (q, qd, tau) into: the gravity torques, the clamped effort command, the
feed-forward, the external joint torques of the momentum observer, and the tool wrench by a
pseudo-inverse of J^T. The Pinocchio side computes exactly these: computeGeneralizedGravity,
nonLinearEffects, crba (M qd), computeCoriolisMatrix (C^T qd), the frame Jacobian (LOCAL), the
observer's implicit update and ``numpy.linalg.lstsq`` of J^T, with the clamp and the finiteness
checks the node must make anyway. Their outputs are compared before timing (1e-9).

Robot: example-robot-data's Panda arm (7 DOF, panda_hand as the tip), a moving state (a new
configuration every message along a smooth trajectory, 1 kHz stamps). Times: per message, the
minimum and the median over ``--repeat`` rounds of ``--number`` messages, in µs.

``--period S`` paces the messages as a node receives them (one every S seconds, the process
sleeping in between) and times each call by the thread's CPU time: what a message costs when the
caches went cold between messages (a node at 1 kHz), rather than back to back in a tight loop.

Usage: python benchmarks/bench_pipeline.py [--number 2000] [--repeat 7] [--period 0.001]
Needs: numpy, pin, example-robot-data (test-only oracles), robot_dynamics on the path.
"""

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import numpy as np  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "test", "core"))

from robot_dynamics import RobotModel  # noqa: E402
from robot_dynamics.estimation import EstimationPipeline, PipelineConfig  # noqa: E402

import robot_urdfs  # noqa: E402  (test/core/robot_urdfs.py: the Panda arm URDF of example-robot-data)

try:
    import pinocchio as pin
except ImportError:  # pragma: no cover
    pin = None

TARGET = 2.5  # pipeline.update / Pinocchio + numpy, per message
GAIN = 50.0
TIP = "panda_hand"


def trajectory(model, count):
    """(count, n) q, qd and tau along a smooth motion, tau = the model's inverse dynamics."""
    t = np.arange(count) * 1e-3
    freq = np.linspace(0.2, 0.5, model.n)
    q = 0.3 * np.sin(2 * np.pi * freq * t[:, None]) + np.array(
        [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]
    )
    qd = 0.3 * 2 * np.pi * freq * np.cos(2 * np.pi * freq * t[:, None])
    qdd = -0.3 * (2 * np.pi * freq) ** 2 * np.sin(2 * np.pi * freq * t[:, None])
    tau = model.inverse_dynamics(q, qd, qdd)
    return q, qd, tau


class PinocchioPipeline:
    """The pipeline's outputs from Pinocchio calls and numpy glue (no policy beyond the node's
    own minimum: finiteness, clamp, observer restart on the first message)."""

    def __init__(self, xml, joint_names, limits):
        self.pm = pin.buildModelFromXML(xml)
        self.pd = self.pm.createData()
        self.fid = self.pm.getFrameId(TIP)
        perm = np.array([self.pm.joints[self.pm.getJointId(n)].idx_v for n in joint_names])
        assert np.array_equal(perm, np.arange(len(joint_names)))
        self.limits = limits
        self.p0 = self.integral = self.known = None
        self.last_t = None

    def update(self, t_ns, q, qd, tau):
        pm, pd = self.pm, self.pd
        if not (np.isfinite(q).all() and np.isfinite(qd).all() and np.isfinite(tau).all()):
            raise ValueError("not finite")
        g = pin.computeGeneralizedGravity(pm, pd, q).copy()
        command = np.clip(g, -self.limits, self.limits)
        ff = pin.nonLinearEffects(pm, pd, q, qd).copy()
        pin.crba(pm, pd, q)  # fills the upper triangle of pd.M: symmetrise
        M = np.triu(pd.M) + np.triu(pd.M, 1).T
        p = M @ qd
        CTqd = pin.computeCoriolisMatrix(pm, pd, q, qd).T @ qd
        J = pin.computeFrameJacobian(pm, pd, q, self.fid, pin.LOCAL)
        if self.p0 is None:
            residual = ff - tau
            self.p0 = p
            self.integral = -residual / GAIN
        else:
            dt = (t_ns - self.last_t) * 1e-9
            known = tau + CTqd - g
            mean = known if self.known is None else 0.5 * (known + self.known)
            self.known = known
            u = p - self.p0 - self.integral - mean * dt
            residual = GAIN * u / (1.0 + GAIN * dt)
            self.integral = self.integral + (mean + residual) * dt
        self.last_t = t_ns
        wrench = np.linalg.lstsq(J.T, residual, rcond=None)[0]
        if not (np.isfinite(residual).all() and np.isfinite(wrench).all()):
            raise ValueError("not finite")
        return g, command, ff, residual, wrench


def rounds(fn, count, number, repeat, period=0.0):
    """Per-call times [µs] of ``fn(i)`` over messages i, ``repeat`` rounds of ``number``.

    Back to back (``period`` 0): the wall time of each round over ``number``. Paced: one call
    every ``period`` s (sleeping until the next), each timed by the thread's CPU time.
    """
    times = []
    i = 0
    for _ in range(repeat):
        if not period:
            start = time.perf_counter()
            for _ in range(number):
                fn(i % count)
                i += 1
            times.append((time.perf_counter() - start) / number * 1e6)
            continue
        cpu = 0.0
        due = time.perf_counter()
        for _ in range(number):
            due += period
            start = time.thread_time()
            fn(i % count)
            cpu += time.thread_time() - start
            i += 1
            time.sleep(max(0.0, due - time.perf_counter()))
        times.append(cpu / number * 1e6)
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--number", type=int, default=2000, help="messages per round")
    parser.add_argument("--repeat", type=int, default=7, help="rounds (interleaved)")
    parser.add_argument(
        "--period",
        type=float,
        default=0.0,
        help="seconds between messages, timed by thread CPU (0: back to back)",
    )
    args = parser.parse_args(argv)
    if pin is None or not robot_urdfs.has_erd():
        print(
            "bench_pipeline: needs pin and example-robot-data (pip install -r "
            "requirements-test.txt); skipped"
        )
        return 0
    xml = robot_urdfs.urdf_xml("panda_arm")
    model = RobotModel.from_urdf_string(xml, tip_link=TIP)
    count = 4 * args.number
    Q, QD, TAU = trajectory(model, count)
    stamps = np.arange(count, dtype=np.int64) * 1_000_000

    pipeline = EstimationPipeline(model, PipelineConfig(observer_gain=GAIN))
    reference = PinocchioPipeline(xml, model.joint_names, np.asarray(model.effort_limits))

    # the same outputs (the first 50 messages) before timing
    for i in range(50):
        out = pipeline.update(int(stamps[i]), Q[i], QD[i], TAU[i])
        g, command, ff, residual, wrench = reference.update(int(stamps[i]), Q[i], QD[i], TAU[i])
        for name, ours, theirs in (
            ("gravity", out.gravity, g),
            ("command", out.command, command),
            ("feedforward", out.feedforward, ff),
            ("external torques", out.external_torques, residual),
            ("wrench", out.wrench, wrench),
        ):
            scale = max(1.0, float(np.max(np.abs(theirs))))
            err = float(np.max(np.abs(np.asarray(ours) - theirs))) / scale
            if err > 1e-9:
                print(f"bench_pipeline: {name} differs from Pinocchio's by {err:.3g} (message {i})")
                return 1

    offset = 50

    def ours(i):
        j = (i + offset) % count
        pipeline.update(int(stamps[j] + offset_ns[0]), Q[j], QD[j], TAU[j])

    def theirs(i):
        j = (i + offset) % count
        reference.update(int(stamps[j] + offset_ns[0]), Q[j], QD[j], TAU[j])

    # stamps keep increasing across wrap-arounds of the trajectory
    offset_ns = [0]
    ta, tb = [], []
    for _ in range(args.repeat):
        ta += rounds(ours, count, args.number, 1, args.period)
        tb += rounds(theirs, count, args.number, 1, args.period)
        offset_ns[0] += count * 1_000_000
    a_min, a_med = min(ta), statistics.median(ta)
    b_min, b_med = min(tb), statistics.median(tb)
    paced = f"one every {args.period * 1e3:g} ms" if args.period else "back to back"
    print(
        f"bench_pipeline: Panda arm, {args.repeat} x {args.number} messages ({paced}), "
        "µs per message"
    )
    print(f"{'':34s} {'min':>8s} {'median':>8s}")
    print(f"{'EstimationPipeline.update':34s} {a_min:8.1f} {a_med:8.1f}")
    print(f"{'Pinocchio + numpy (same outputs)':34s} {b_min:8.1f} {b_med:8.1f}")
    ratio = a_min / b_min
    verdict = "met" if ratio <= TARGET else "NOT met"
    print(
        f"ratio (min): {ratio:.2f}x   median: {a_med / b_med:.2f}x   target <= {TARGET}x: {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
