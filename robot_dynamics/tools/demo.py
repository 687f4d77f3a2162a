"""``robot-dynamics-demo``: the whole product on a simulated arm, over real DDS, in ~20 s.

What it runs (three processes, talking over DDS as they would on a robot):

* ``arm_simulator`` (robot_dynamics.ros.arm_simulator): the bundled Franka Panda (or your URDF)
  integrated at 1 kHz, publishing ``/joint_states`` (effort = applied joint torque). Its drives
  hold the start pose with a soft joint impedance, on top of the torque command, as the joint-
  impedance mode of a torque-controlled arm does; without gravity compensation that impedance
  alone would let the arm sag (the summary says by how much).
* ``dynamics_node`` (robot_dynamics.ros.dynamics_node): computes the gravity torques from
  ``/joint_states`` and publishes them on ``~/effort_command``, remapped onto the simulator's
  ``~/commands`` (as onto a ros2_control JointGroupEffortController), and estimates the external
  wrench on the tool with the momentum observer (``~/external_wrench``).
* this process: pushes the tool through the simulator's ``~/external_wrench`` on a script
  (10 N down, release, 5 N sideways with a 1 Nm twist, release), shows live what was applied and
  what the dynamics node estimates, then prints a summary and writes a plot.

``--robot double_pendulum`` instead releases the planar double pendulum of the reference from
horizontal with zero torque: it swings chaotically; the summary reports energy conservation of
the simulator's fixed-step integrator and the (ideally zero) wrench the estimator reports.

Usage::

    robot-dynamics-demo                         # Panda, 12 s of pushes, plot out/demo.png
    robot-dynamics-demo --robot double_pendulum --duration 10
    robot-dynamics-demo --urdf my_arm.urdf --tip-link tool0
    python -m robot_dynamics.tools.demo --help

Set ROS_DOMAIN_ID (and ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST) to keep it to yourself;
``make demo`` does. Exit code 0 when the estimate met the stated tolerance (or, for the
pendulum, energy was conserved within it), 1 when not, 2 for bad arguments, 3 when the nodes did
not come up.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from robot_dynamics.core.actuation import end_stop_gains
from robot_dynamics.tools.processes import start_process_group, stop_process_group

AXES = ("fx", "fy", "fz", "tx", "ty", "tz")
NODE_OBSERVER_MAX_DT = 0.5  # the dynamics node's default observer_max_dt [s]
EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE, EXIT_STARTUP = 0, 1, 2, 3


# ----------------------------------------------------------------------------------- script


@dataclass
class Phase:
    """One step of the push script: from ``start`` to ``end`` [s after the start] apply ``wrench``
    [fx fy fz tx ty tz] (N, Nm; base axes, moment about the tip-frame origin)."""

    name: str
    start: float
    end: float
    wrench: np.ndarray

    @property
    def is_push(self) -> bool:
        return bool(np.any(self.wrench))


def push_script(duration: float, force: float, side_force: float, twist: float) -> List[Phase]:
    """The push sequence, scaled to ``duration``: hold, push down, release, push sideways with a
    twist about the vertical, release (proportions 2:3:2:3:2 of the 12 s default)."""
    unit = duration / 12.0
    marks = np.cumsum([0.0, 2.0, 3.0, 2.0, 3.0, 2.0]) * unit
    down = np.array([0.0, 0.0, -force, 0.0, 0.0, 0.0])
    side = np.array([0.0, side_force, 0.0, 0.0, 0.0, twist])
    names = [
        "hold (gravity compensation)",
        f"push {force:g} N down",
        "released",
        f"push {side_force:g} N sideways + {twist:g} Nm twist",
        "released",
    ]
    wrenches = [np.zeros(6), down, np.zeros(6), side, np.zeros(6)]
    return [
        Phase(n, float(marks[i]), float(marks[i + 1]), w)
        for i, (n, w) in enumerate(zip(names, wrenches))
    ]


def phase_at(script: Sequence[Phase], t: float) -> Phase:
    for phase in script:
        if t < phase.end:
            return phase
    return script[-1]


# ----------------------------------------------------------------------------------- robots


@dataclass
class RobotSetup:
    name: str
    urdf_path: str
    urdf: str
    model: object
    base_link: str
    tip_link: str
    gravity: Tuple[float, float, float]
    q0: np.ndarray
    pendulum: bool = False
    stiffness: Optional[np.ndarray] = None  # joint impedance of the simulated drives [Nm/rad]


def resolve_robot(args) -> RobotSetup:
    from robot_dynamics import RobotModel
    from robot_dynamics.core.errors import RobotDynamicsError
    from robot_dynamics.tools.bundled import BUNDLED, bundled_urdf_path

    if args.urdf:
        path = args.urdf
        if not os.path.isfile(path):
            raise DemoError(f"--urdf {path}: no such file", EXIT_USAGE)
        bundled = None
    else:
        if args.robot not in BUNDLED:
            raise DemoError(
                f"--robot {args.robot!r}: bundled robots are {', '.join(BUNDLED)}", EXIT_USAGE
            )
        bundled = BUNDLED[args.robot]
        path = bundled_urdf_path(bundled.name)
    with open(path, encoding="utf-8") as fh:
        urdf = fh.read()
    gravity = (
        tuple(args.gravity) if args.gravity else (bundled.gravity if bundled else (0.0, 0.0, -9.81))
    )
    base = args.base_link or (bundled.base_link if bundled else None)
    tip = args.tip_link or (bundled.tip_link if bundled else None)
    try:
        model = RobotModel.from_urdf(urdf, base_link=base, tip_link=tip, gravity=gravity)
    except RobotDynamicsError as exc:
        raise DemoError(f"URDF {path}: {exc}", EXIT_USAGE) from None
    if model.tip_link is None:
        raise DemoError(
            f"URDF {path}: several leaf links ({', '.join(model.leaf_links)}); "
            "choose one with --tip-link",
            EXIT_USAGE,
        )
    if args.q0:
        q0 = np.asarray(args.q0, dtype=float)
        if q0.shape != (model.n,):
            raise DemoError(
                f"--q0 has {q0.size} values, the model has {model.n} joints "
                f"({', '.join(model.joint_names)})",
                EXIT_USAGE,
            )
    elif bundled is not None:
        q0 = np.asarray(bundled.home, dtype=float)
    else:
        lower, upper = (np.asarray(v, dtype=float) for v in model.position_limits)
        q0 = np.clip(
            np.zeros(model.n),
            np.where(np.isfinite(lower), lower, -np.inf),
            np.where(np.isfinite(upper), upper, np.inf),
        )
    return RobotSetup(
        name=bundled.name if bundled else os.path.basename(path),
        urdf_path=path,
        urdf=urdf,
        model=model,
        base_link=model.base_link,
        tip_link=model.tip_link,
        gravity=tuple(float(g) for g in gravity),
        q0=q0,
        pendulum=bool(bundled is not None and bundled.name == "double_pendulum"),
    )


def joint_impedance(model, q0: np.ndarray, frequency_hz: float, zeta: float = 0.7):
    """Per-joint stiffness K_i = w^2 M_ii(q0) and damping D_i = 2 zeta w M_ii(q0) [Nm/rad, Nm s/rad]:
    each joint, alone, a mass-spring-damper of natural frequency ``frequency_hz``."""
    return end_stop_gains(model, q0, frequency_hz, zeta)  # the same rule as the core's end stops


# ----------------------------------------------------------------------------------- processes


class DemoError(Exception):
    def __init__(self, message: str, code: int = EXIT_STARTUP):
        super().__init__(message)
        self.code = code


def _yaml_params(node: str, params: Dict) -> str:
    """A ROS 2 parameter file; JSON scalars and lists are valid YAML (the URDF string included)."""
    # "/**": the process has one node, whatever its namespace (--namespace) and name
    lines = [f"/**:  # {node}", "  ros__parameters:"]
    for key, value in params.items():
        if isinstance(value, np.ndarray):
            value = value.tolist()
        if isinstance(value, (list, tuple)):
            value = [
                float(v)
                if isinstance(v, (float, np.floating, int)) and not isinstance(v, bool)
                else v
                for v in value
            ]
        lines.append(f"    {key}: {json.dumps(value)}")
    return "\n".join(lines) + "\n"


class Child:
    """A node process of the demo; output to a log file; stopped with SIGINT then SIGKILL."""

    def __init__(self, name: str, argv: List[str], log_path: str, env: Dict[str, str]):
        self.name = name
        self.log_path = log_path
        self._log = open(log_path, "wb")
        self.popen = start_process_group(argv, self._log, env=env)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def tail(self, lines: int = 15) -> str:
        try:
            with open(self.log_path, "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 5.0) -> Optional[int]:
        code = stop_process_group(self.popen, timeout)
        self._log.close()
        return code


# ----------------------------------------------------------------------------------- monitor


@dataclass
class Recording:
    """Everything the monitor received, stamps in ns (simulated time on the wall-clock axis)."""

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


class Monitor:
    """The demo's own rclpy node (private context, executor in a background thread)."""

    def __init__(self, namespace: str, joint_names: Sequence[str], external_torques: bool = False):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from geometry_msgs.msg import WrenchStamped
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Float64MultiArray

        self._rclpy = rclpy
        self.context = rclpy.context.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(
            "robot_dynamics_demo", namespace=namespace or None, context=self.context
        )
        self.lock = threading.Lock()
        self.rec = Recording()
        self.names = list(joint_names)
        self._index: Optional[List[int]] = None
        ns = (namespace or "").rstrip("/")
        self.wrench_pub = self.node.create_publisher(
            WrenchStamped, f"{ns}/arm_simulator/external_wrench", 10
        )
        self.command_pub = self.node.create_publisher(
            Float64MultiArray, f"{ns}/arm_simulator/commands", 10
        )
        self.node.create_subscription(JointState, f"{ns}/joint_states", self._on_js, 100)
        self.node.create_subscription(
            WrenchStamped, f"{ns}/arm_simulator/applied_wrench", self._on_applied, 100
        )
        self.node.create_subscription(
            WrenchStamped, f"{ns}/dynamics_node/external_wrench", self._on_est, 100
        )
        if external_torques:
            self.node.create_subscription(
                JointState, f"{ns}/dynamics_node/external_torques", self._on_ext, 100
            )
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        try:
            while self.context.ok():
                self.executor.spin_once(timeout_sec=0.05)
        except Exception:  # noqa: BLE001 - shutting down
            pass

    @staticmethod
    def _ns(stamp) -> int:
        return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)

    def _on_js(self, msg) -> None:
        if self._index is None:
            try:
                self._index = [list(msg.name).index(n) for n in self.names]
            except ValueError:
                return
        idx = self._index
        with self.lock:
            self.rec.js_stamp.append(self._ns(msg.header.stamp))
            self.rec.js_q.append(np.asarray(msg.position, dtype=float)[idx])
            self.rec.js_qd.append(np.asarray(msg.velocity, dtype=float)[idx])
            self.rec.js_effort.append(
                np.asarray(msg.effort, dtype=float)[idx] if len(msg.effort) else np.zeros(len(idx))
            )

    @staticmethod
    def _w(msg) -> np.ndarray:
        from robot_dynamics.ros.conversions import wrench_from_msg

        return wrench_from_msg(msg.wrench)

    def _on_applied(self, msg) -> None:
        with self.lock:
            self.rec.app_stamp.append(self._ns(msg.header.stamp))
            self.rec.app_wrench.append(self._w(msg))

    def _on_ext(self, msg) -> None:
        try:
            idx = [list(msg.name).index(n) for n in self.names]
        except ValueError:
            return
        with self.lock:
            self.rec.ext_stamp.append(self._ns(msg.header.stamp))
            self.rec.ext_tau.append(np.asarray(msg.effort, dtype=float)[idx])

    def _on_est(self, msg) -> None:
        with self.lock:
            self.rec.est_stamp.append(self._ns(msg.header.stamp))
            self.rec.est_wrench.append(self._w(msg))
            self.rec.est_frame = msg.header.frame_id

    def push(self, wrench: np.ndarray, frame: str) -> None:
        from geometry_msgs.msg import WrenchStamped

        from robot_dynamics.ros.conversions import wrench_to_msg

        msg = WrenchStamped()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.header.frame_id = frame
        wrench_to_msg(wrench, msg.wrench)
        self.wrench_pub.publish(msg)

    def command(self, values: Sequence[float]) -> None:
        from std_msgs.msg import Float64MultiArray

        self.command_pub.publish(Float64MultiArray(data=[float(v) for v in values]))

    def counts(self) -> Tuple[int, int, int]:
        with self.lock:
            return len(self.rec.js_stamp), len(self.rec.app_stamp), len(self.rec.est_stamp)

    def latest(self):
        with self.lock:
            r = self.rec
            return (
                r.js_stamp[-1] if r.js_stamp else None,
                r.js_q[-1] if r.js_q else None,
                r.js_qd[-1] if r.js_qd else None,
                r.js_effort[-1] if r.js_effort else None,
                r.est_stamp[-1] if r.est_stamp else None,
                r.est_wrench[-1] if r.est_wrench else None,
            )

    def applied_at(self, stamp: int) -> Optional[np.ndarray]:
        with self.lock:
            st = self.rec.app_stamp
            if not st:
                return None
            i = int(np.searchsorted(np.asarray(st[-400:]), stamp, side="right")) - 1
            return self.rec.app_wrench[-400:][max(i, 0)]

    def close(self) -> None:
        try:
            self.executor.shutdown(timeout_sec=1.0)
            self.node.destroy_node()
        finally:
            if self.context.ok():
                self._rclpy.shutdown(context=self.context)
        self._thread.join(timeout=2.0)


# ----------------------------------------------------------------------------------- display


class Display:
    """Live table: redrawn in place on a terminal, one plain line per simulated second otherwise."""

    def __init__(self, stream, live: Optional[bool], period: float = 0.25):
        self.stream = stream
        self.tty = stream.isatty() if live is None else live
        self.period = period
        self._last = -1e9
        self._last_second = 0
        self._height = 0

    def due(self, now: float, t_sim: float) -> bool:
        """Live: every ``period`` s of wall time. Plain: once per simulated second, at 0.5 s, 1.5 s,
        ... (between the script's phase boundaries, which fall on whole seconds by default)."""
        if self.tty:
            if now - self._last >= self.period:
                self._last = now
                return True
            return False
        if int(t_sim + 0.5) > self._last_second:
            self._last_second = int(t_sim + 0.5)
            return True
        return False

    def show(self, lines: List[str], plain: str) -> None:
        if self.tty:
            out = ""
            if self._height:
                out += f"\x1b[{self._height}F"
            out += "".join(f"\x1b[2K{line}\n" for line in lines)
            self.stream.write(out)
            self._height = len(lines)
        else:
            self.stream.write(plain + "\n")
        self.stream.flush()

    def done(self) -> None:
        self._height = 0


def _row(label: str, w: Optional[np.ndarray]) -> str:
    if w is None:
        return f"  {label:<10}" + "".join(f"{'-':>8}" for _ in AXES)
    return f"  {label:<10}" + "".join(f"{v:>8.2f}" for v in w)


# ----------------------------------------------------------------------------------- analysis


def _align(stamps_a: np.ndarray, stamps_b: np.ndarray, values_b: np.ndarray) -> np.ndarray:
    """values_b at the last b-stamp <= each a-stamp (zero-order hold)."""
    i = np.searchsorted(stamps_b, stamps_a, side="right") - 1
    return values_b[np.clip(i, 0, len(stamps_b) - 1)]


def analyse_push(
    rec: Recording,
    setup: RobotSetup,
    script: List[Phase],
    t0_ns: int,
    force_tol: float,
    torque_tol: float,
    max_gap: float,
    recovery: float,
) -> Dict:
    """Summary numbers of a push run (see the README: "Reading the summary").

    max_gap: the dynamics node's observer_max_dt [s]; recovery: time excluded from the
    steady-state error after an observer restart [s] (5 time constants)."""
    model = setup.model
    js_t = (np.asarray(rec.js_stamp, dtype=np.int64) - t0_ns) * 1e-9
    q = np.asarray(rec.js_q)
    app_t = (np.asarray(rec.app_stamp, dtype=np.int64) - t0_ns) * 1e-9
    app = np.asarray(rec.app_wrench)
    est_t = (np.asarray(rec.est_stamp, dtype=np.int64) - t0_ns) * 1e-9
    est = np.asarray(rec.est_wrench)
    order = np.argsort(app_t, kind="stable")
    app_t, app = app_t[order], app[order]
    applied_at_est = _align(est_t, app_t, app)
    err = est - applied_at_est

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
    onsets = [float(app_t[c]) if c > 0 else min(0.0, float(app_t[0])) for c in starts]
    ends = onsets[1:] + [float(est_t[-1]) + 1e-9]
    pushes = []
    steady = np.zeros(len(est_t), dtype=bool)
    for k, c in enumerate(starts):
        onset, end = onsets[k], ends[k]
        wrench = app[c]
        sel = (est_t >= onset) & (est_t < end)
        if not np.any(sel):
            continue
        named = [ph for ph in script if np.allclose(ph.wrench, wrench)]
        name = (
            min(named, key=lambda ph: abs(ph.start - onset)).name
            if named
            else "wrench " + np.array2string(wrench, precision=2, suppress_small=True)
        )
        f_band = max(
            0.05 * float(np.linalg.norm(wrench[:3] - (app[c - 1, :3] if c > 0 else 0))), force_tol
        )
        t_band = max(
            0.05 * float(np.linalg.norm(wrench[3:] - (app[c - 1, 3:] if c > 0 else 0))), torque_tol
        )
        ts = est_t[sel]
        inside = (np.linalg.norm(err[sel, :3], axis=1) <= f_band) & (
            np.linalg.norm(err[sel, 3:], axis=1) <= t_band
        )
        # convergence: the first sample from which the error stays inside the band for 0.2 s
        conv = float("nan")
        for a in np.flatnonzero(inside):
            window = (ts >= ts[a]) & (ts < min(ts[a] + 0.2, end))
            if np.all(inside[window]):
                conv = float(ts[a] - onset)
                break
        settled = onset + (conv if math.isfinite(conv) else end - onset)
        steady |= (est_t >= max(settled, onset + 0.3)) & (est_t < end)
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

    e_steady = err[steady] if np.any(steady) else err
    rms = np.sqrt(np.mean(e_steady**2, axis=0))
    mx = np.max(np.abs(e_steady), axis=0)

    pose0 = np.asarray(model.frame_pose(setup.q0), dtype=float)
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
    # sag of the joint impedance alone (no gravity compensation): K (q0 - q) = g(q), solved by
    # fixed-point iteration from q0
    stiff = setup.stiffness
    q_sag = setup.q0.copy()
    for _ in range(50):
        q_sag = setup.q0 - np.asarray(model.gravity_torques(q_sag), dtype=float) / stiff
    sag = float(
        np.linalg.norm(np.asarray(model.frame_pose(q_sag), dtype=float)[:3, 3] - pose0[:3, 3])
    )
    return {
        "axes": list(AXES),
        "force_tolerance_N": force_tol,
        "torque_tolerance_Nm": torque_tol,
        "steady_error_rms": rms.tolist(),
        "steady_error_max": mx.tolist(),
        "pushes": pushes,
        "pose_drift_hold_mm": float(1e3 * np.max(disp[in_hold]))
        if np.any(in_hold)
        else float("nan"),
        "pose_drift_quiet_max_mm": float(1e3 * np.max(disp[quiet]))
        if np.any(quiet)
        else float("nan"),
        "pose_drift_final_mm": float(1e3 * np.mean(disp[final_sel]))
        if np.any(final_sel)
        else float("nan"),
        "deflection_under_push_max_mm": float(1e3 * np.max(disp)),
        "joint_drift_final_rad": float(np.max(np.abs(q[final_sel] - setup.q0)))
        if np.any(final_sel)
        else float("nan"),
        "sag_without_gravity_compensation_mm": 1e3 * sag,
        "samples": {
            "joint_states": int(len(js_t)),
            "estimates": int(len(est_t)),
            "applied": int(len(app_t)),
        },
        "observer_restarts": int(len(restarts)),
        "longest_estimate_gap_ms": float(1e3 * np.max(np.diff(est_t))),
        "recovery_excluded_s": recovery,
        "rates_hz": {"joint_states": _rate(js_t), "estimates": _rate(est_t)},
    }


def _rate(t: np.ndarray) -> float:
    t = t[t >= 0]
    return float((t.size - 1) / (t[-1] - t[0])) if t.size > 2 and t[-1] > t[0] else float("nan")


def analyse_pendulum(rec: Recording, setup: RobotSetup, t0_ns: int, compare_s: float) -> Dict:
    model = setup.model
    js_t = (np.asarray(rec.js_stamp, dtype=np.int64) - t0_ns) * 1e-9
    q, qd = np.asarray(rec.js_q), np.asarray(rec.js_qd)
    keep = js_t >= 0
    js_t, q, qd = js_t[keep], q[keep], qd[keep]
    energy = np.asarray(model.total_energy(q, qd), dtype=float)
    e0 = float(model.total_energy(setup.q0, np.zeros(model.n)))
    ke_max = float(np.max(np.asarray(model.kinetic_energy(q, qd), dtype=float)))
    drift = float(np.max(np.abs(energy - e0)))
    # short-horizon agreement with the core's adaptive integrator (the motion is chaotic)
    horizon = min(compare_s, float(js_t[-1]))
    ref = model.simulate(
        setup.q0, np.zeros(model.n), horizon, method="RK45", rtol=1e-10, atol=1e-12, sample_dt=None
    )
    sel = js_t <= horizon
    q_ref = np.stack([np.interp(js_t[sel], ref.t, ref.q[:, j]) for j in range(model.n)], axis=1)
    est = np.asarray(rec.est_wrench) if rec.est_wrench else np.zeros((0, 6))
    est_t = (
        (np.asarray(rec.est_stamp, dtype=np.int64) - t0_ns) * 1e-9 if rec.est_stamp else np.zeros(0)
    )
    est_sel = est_t >= 0.1  # after the observer's start-up transient
    ext = np.asarray(rec.ext_tau) if rec.ext_tau else np.zeros((0, model.n))
    ext_t = (
        (np.asarray(rec.ext_stamp, dtype=np.int64) - t0_ns) * 1e-9 if rec.ext_stamp else np.zeros(0)
    )
    ext_sel = ext_t >= 0.1
    g_max = float(np.max(np.abs(np.asarray(model.gravity_torques(q), dtype=float))))
    return {
        "energy_initial_J": e0,
        "energy_max_abs_drift_J": drift,
        "energy_drift_relative_to_max_kinetic": drift / max(ke_max, 1e-12),
        "max_kinetic_energy_J": ke_max,
        "agreement_horizon_s": horizon,
        "max_joint_deviation_from_rk45_rad": float(np.max(np.abs(q[sel] - q_ref)))
        if np.any(sel)
        else float("nan"),
        "max_false_force_N": float(np.max(np.linalg.norm(est[est_sel, :3], axis=1)))
        if np.any(est_sel)
        else float("nan"),
        "max_false_torque_Nm": float(np.max(np.linalg.norm(est[est_sel, 3:], axis=1)))
        if np.any(est_sel)
        else float("nan"),
        "max_false_joint_torque_Nm": float(np.max(np.abs(ext[ext_sel])))
        if np.any(ext_sel)
        else float("nan"),
        "rms_false_joint_torque_Nm": float(np.sqrt(np.mean(ext[ext_sel] ** 2)))
        if np.any(ext_sel)
        else float("nan"),
        "max_gravity_torque_Nm": g_max,
        "max_speed_rad_s": float(np.max(np.abs(qd))),
        "samples": {"joint_states": int(len(js_t)), "estimates": int(np.sum(est_sel))},
        "rates_hz": {"joint_states": _rate(js_t), "estimates": _rate(est_t)},
    }


# ----------------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="robot-dynamics-demo",
        description="Simulated arm + dynamics node over DDS: gravity compensation holds the arm, "
        "scripted pushes on the tool, live applied-vs-estimated wrench, summary and plot.",
    )
    p.add_argument(
        "--robot", default="panda", help="bundled robot: panda (default) or double_pendulum"
    )
    p.add_argument("--urdf", default=None, help="your own URDF instead of a bundled robot")
    p.add_argument("--base-link", default=None, help="base frame (default: URDF root)")
    p.add_argument(
        "--tip-link", default=None, help="frame that is pushed and where the wrench is estimated"
    )
    p.add_argument("--gravity", nargs=3, type=float, default=None, metavar=("GX", "GY", "GZ"))
    p.add_argument("--q0", nargs="+", type=float, default=None, help="start configuration [rad]")
    p.add_argument(
        "--duration",
        type=float,
        default=None,
        help="length of the scripted part [s] (default 12 for pushes, 10 for the pendulum)",
    )
    p.add_argument("--force", type=float, default=10.0, help="downward push [N] (default 10)")
    p.add_argument(
        "--side-force", type=float, default=5.0, help="sideways (+y) push [N] (default 5)"
    )
    p.add_argument(
        "--twist",
        type=float,
        default=1.0,
        help="twist about +z with the side push [Nm] (default 1)",
    )
    p.add_argument(
        "--rate",
        type=float,
        default=None,
        help="simulator integration rate [Hz] (default 1000; 4000 for the pendulum)",
    )
    p.add_argument(
        "--publish-rate", type=float, default=250.0, help="joint_states rate [Hz] (default 250)"
    )
    p.add_argument(
        "--observer-gain",
        type=float,
        default=50.0,
        help="momentum observer gain [1/s] (default 50)",
    )
    p.add_argument(
        "--sim-time",
        action="store_true",
        help="the simulator publishes /clock (simulated time from 0) and the dynamics node "
        "runs with use_sim_time",
    )
    p.add_argument(
        "--observer-max-dt",
        type=float,
        default=None,
        help="dynamics_node's observer_max_dt: a longer gap between joint_states restarts the "
        "observer [s] (default: the node's, 0.5 s)",
    )
    p.add_argument(
        "--impedance-hz",
        type=float,
        default=5.0,
        help="natural frequency of the simulated drives' joint impedance [Hz] (default 5)",
    )
    p.add_argument(
        "--force-tolerance",
        type=float,
        default=0.5,
        help="pass if every steady-state force error is below this [N] (default 0.5)",
    )
    p.add_argument(
        "--torque-tolerance",
        type=float,
        default=0.05,
        help="pass if every steady-state torque error is below this [Nm] (default 0.05)",
    )
    p.add_argument(
        "--energy-tolerance",
        type=float,
        default=0.05,
        help="pendulum: pass if max |E - E0| / max kinetic energy is below this (default 0.05)",
    )
    p.add_argument(
        "--plot",
        default=os.path.join("out", "demo.png"),
        help="PNG to write (default out/demo.png)",
    )
    p.add_argument(
        "--summary-json",
        default=None,
        help="also write the summary as JSON here (default: next to the plot, .json)",
    )
    p.add_argument(
        "--save-recording",
        default=None,
        metavar="NPZ",
        help="save every received sample (stamps, q, qd, effort, applied and estimated wrench) "
        "to this .npz file",
    )
    p.add_argument(
        "--namespace", default="", help="ROS namespace of the three nodes (default: none)"
    )
    live = p.add_mutually_exclusive_group()
    live.add_argument(
        "--live",
        dest="live",
        action="store_true",
        default=None,
        help="redraw the table in place (default when stdout is a terminal)",
    )
    live.add_argument(
        "--no-live", dest="live", action="store_false", help="one plain line per second"
    )
    p.add_argument(
        "--attach",
        action="store_true",
        help="do not start the nodes: drive and watch an arm_simulator and a dynamics_node "
        "already running with the demo's parameters (launch/demo.launch.py does this)",
    )
    p.add_argument(
        "--startup-timeout", type=float, default=60.0, help="give up if the nodes are not up [s]"
    )
    return p


def _node_argv(
    module: str, name: str, params_file: str, namespace: str, remaps: Sequence[str]
) -> List[str]:
    argv = [
        sys.executable,
        "-m",
        module,
        "--ros-args",
        "-r",
        f"__node:={name}",
        "--params-file",
        params_file,
    ]
    if namespace:
        argv += ["-r", f"__ns:={namespace}"]
    for remap in remaps:
        argv += ["-r", remap]
    return argv


def _fmt(v, spec=".3f") -> str:
    return (
        "n/a" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format(v, spec)
    )


def demo_settings(args) -> Tuple[RobotSetup, Dict, Dict, float, float]:
    """Robot, parameters of arm_simulator and dynamics_node, scripted duration [s] and integration
    rate [Hz] for the demo options ``args`` (also used by launch/demo.launch.py)."""
    setup = resolve_robot(args)
    model = setup.model
    pendulum = setup.pendulum
    duration = args.duration if args.duration is not None else (10.0 if pendulum else 12.0)
    if not (math.isfinite(duration) and 0.5 <= duration <= 600):
        raise DemoError(f"--duration must be between 0.5 and 600 s, got {duration}", EXIT_USAGE)
    rate = args.rate if args.rate is not None else (4000.0 if pendulum else 1000.0)
    joints = list(model.joint_names)
    if pendulum:
        stiffness, damping = np.zeros(model.n), np.zeros(model.n)
    else:
        stiffness, damping = joint_impedance(model, setup.q0, args.impedance_hz)
    setup.stiffness = stiffness
    sim_params = {
        "robot_description": setup.urdf,
        "base_link": setup.base_link,
        "tip_link": setup.tip_link,
        "gravity": list(setup.gravity),
        "joints": joints,
        "initial_positions": setup.q0.tolist(),
        "integration_rate": float(rate),
        "publish_rate": float(args.publish_rate),
        "friction": not pendulum,
        "hold_until_first_command": True,
        "external_wrench_duration": 0.0,
        "external_wrench_timeout": 0.5,
        "external_wrench_axes": "base",
    }
    if not pendulum:
        sim_params["joint_impedance.stiffness"] = stiffness.tolist()
        sim_params["joint_impedance.damping"] = damping.tolist()
    node_params = {
        "robot_description": setup.urdf,
        "base_link": setup.base_link,
        "tip_link": setup.tip_link,
        "gravity": list(setup.gravity),
        "publish_effort_command": not pendulum,
        "effort_command_source": "gravity",
        "command_joints": joints,
        "wrench_estimation": "momentum_observer",
        "observer_gain": float(args.observer_gain),
        "wrench_frame": "base",
        "friction_compensation": not pendulum,
    }
    if args.observer_max_dt:
        node_params["observer_max_dt"] = float(args.observer_max_dt)
    if args.sim_time:
        # the simulator is the clock: it publishes /clock and stamps with simulated time
        sim_params["publish_clock"] = True
        node_params["use_sim_time"] = True
    # The node reads joint_states best-effort with a 10-message queue (sensor-data style, the
    # freshest state wins). In the demo every sample matters to the observer: ask for a reliable,
    # deeper queue through the node's QoS overrides, so a CPU stall delays messages instead of
    # dropping them.
    ns = args.namespace.strip("/")
    topic = ("/" + ns if ns else "") + "/joint_states"
    node_params[f"qos_overrides.{topic}.subscription.reliability"] = "reliable"
    node_params[f"qos_overrides.{topic}.subscription.depth"] = 200
    return setup, sim_params, node_params, duration, rate


def run(args, out=sys.stdout) -> Tuple[int, Dict]:
    t_start = time.monotonic()
    setup, sim_params, node_params, duration, rate = demo_settings(args)
    model = setup.model
    pendulum = setup.pendulum
    ns = args.namespace.rstrip("/")
    if ns and not ns.startswith("/"):
        ns = "/" + ns
    joints = list(model.joint_names)
    script = [] if pendulum else push_script(duration, args.force, args.side_force, args.twist)

    plot_path = args.plot
    out_dir = os.path.dirname(os.path.abspath(plot_path))
    os.makedirs(out_dir, exist_ok=True)
    log_dir = tempfile.mkdtemp(prefix="robot_dynamics_demo_")
    sim_file = os.path.join(log_dir, "arm_simulator.yaml")
    node_file = os.path.join(log_dir, "dynamics_node.yaml")
    with open(sim_file, "w") as fh:
        fh.write(_yaml_params("arm_simulator", sim_params))
    with open(node_file, "w") as fh:
        fh.write(_yaml_params("dynamics_node", node_params))
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("RCUTILS_COLORIZED_OUTPUT", "0")

    print(
        f"robot_dynamics demo: {setup.name} ({model.n} joints, tip {setup.tip_link}), "
        f"ROS_DOMAIN_ID={os.environ.get('ROS_DOMAIN_ID', '0')}, "
        f"discovery {os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE', 'SUBNET')}",
        file=out,
    )
    remap_cmd = (
        [] if pendulum else [f"{ns}/arm_simulator/commands:={ns}/dynamics_node/effort_command"]
    )
    if args.attach:
        print(
            f"  attaching to the running {ns}/arm_simulator and {ns}/dynamics_node ...",
            file=out,
            flush=True,
        )
        children = []
    else:
        print(
            f"  starting arm_simulator ({rate:g} Hz fixed step, joint_states {args.publish_rate:g} Hz) and "
            f"dynamics_node as separate processes (logs in {log_dir}) ...",
            file=out,
            flush=True,
        )
        children = [
            Child(
                "arm_simulator",
                _node_argv(
                    "robot_dynamics.ros.arm_simulator", "arm_simulator", sim_file, ns, remap_cmd
                ),
                os.path.join(log_dir, "arm_simulator.log"),
                env,
            ),
            Child(
                "dynamics_node",
                _node_argv("robot_dynamics.ros.dynamics_node", "dynamics_node", node_file, ns, []),
                os.path.join(log_dir, "dynamics_node.log"),
                env,
            ),
        ]
    monitor = None
    summary: Dict = {}
    try:
        monitor = Monitor(ns, joints, external_torques=pendulum)
        # ---- wait until both nodes are up and (push demo) the gravity torques flow
        deadline = time.monotonic() + args.startup_timeout
        while True:
            for child in children:
                if not child.alive():
                    raise DemoError(
                        f"{child.name} exited with code {child.popen.returncode}:\n{child.tail()}"
                    )
            n_js, _, n_est = monitor.counts()
            latest = monitor.latest()
            effort = latest[3]
            if n_js > 0 and n_est > 0:
                if pendulum:
                    break
                if effort is not None and np.any(np.abs(effort) > 1e-9):
                    break
            if time.monotonic() > deadline:
                raise DemoError(
                    f"nodes not up after {args.startup_timeout:g} s (joint_states {n_js}, estimates {n_est})\n"
                    + "\n".join(f"--- {c.name}:\n{c.tail()}" for c in children)
                )
            time.sleep(0.02)
        if pendulum:
            # release from the braked start pose (the first command opens the simulator's brakes)
            # and wait for the first stamp with motion
            while True:
                monitor.command(np.zeros(model.n))
                time.sleep(0.02)
                qd = monitor.latest()[2]
                if qd is not None and np.any(np.abs(qd) > 0):
                    break
            with monitor.lock:
                moving = [i for i, v in enumerate(monitor.rec.js_qd) if np.any(np.abs(v) > 0)]
                t0_ns = (
                    monitor.rec.js_stamp[moving[0] - 1]
                    if moving and moving[0] > 0
                    else monitor.rec.js_stamp[-1]
                )
        else:
            # The brakes held the arm until the first gravity command, and the observer saw their
            # torque as an external one: let that transient decay (about 5/gain) before the script.
            settle_deadline = time.monotonic() + 5.0
            while time.monotonic() < settle_deadline:
                est = monitor.latest()[5]
                if (
                    est is not None
                    and np.linalg.norm(est[:3]) < 0.1 * args.force_tolerance
                    and np.linalg.norm(est[3:]) < 0.1 * args.torque_tolerance
                ):
                    break
                time.sleep(0.02)
            t0_ns = monitor.latest()[0]
        setup_s = time.monotonic() - t_start
        print(
            f"  nodes up after {setup_s:.1f} s; {'releasing the pendulum' if pendulum else 'holding the pose'} "
            f"for {duration:g} s",
            file=out,
            flush=True,
        )

        cpu0 = time.process_time()
        display = Display(out, args.live)
        # The script runs on simulated time (the joint_states stamps), so a CPU-starved simulator
        # that falls behind the wall clock still gets every phase at its full length.
        wall0 = time.monotonic()
        wall_limit = 3.0 * duration + 30.0
        while True:
            now = time.monotonic()
            t = (monitor.latest()[0] - t0_ns) * 1e-9
            if t >= duration:
                break
            if now - wall0 > wall_limit:
                raise DemoError(
                    f"simulated time reached only {t:.2f} s of {duration:g} s after "
                    f"{now - wall0:.0f} s of wall time (is the machine overloaded?)"
                )
            for child in children:
                if not child.alive():
                    raise DemoError(
                        f"{child.name} exited with code {child.popen.returncode}:\n{child.tail()}"
                    )
            phase = None
            if not pendulum:
                # published at ~50 Hz while it applies; a zero wrench removes it at once
                phase = phase_at(script, t)
                monitor.push(phase.wrench, setup.tip_link)
            if display.due(now, t):
                _show(display, monitor, setup, t, duration, phase, t0_ns, pendulum)
            time.sleep(0.02)
        if not pendulum:
            monitor.push(np.zeros(6), setup.tip_link)
        display.done()
        demo_cpu = (time.process_time() - cpu0) / max(time.monotonic() - wall0, 1e-9)
        time.sleep(0.1)
    finally:
        for child in children:
            child.stop()
        if monitor is not None:
            monitor.close()

    rec = monitor.rec
    if not rec.js_stamp or not rec.est_stamp:
        raise DemoError("no data recorded")
    if pendulum:
        summary = analyse_pendulum(rec, setup, t0_ns, compare_s=1.0)
        ok = summary["energy_drift_relative_to_max_kinetic"] <= args.energy_tolerance
    else:
        summary = analyse_push(
            rec,
            setup,
            script,
            t0_ns,
            args.force_tolerance,
            args.torque_tolerance,
            max_gap=node_params.get("observer_max_dt", NODE_OBSERVER_MAX_DT),
            recovery=5.0 / args.observer_gain,
        )
        mx = np.asarray(summary["steady_error_max"])
        ok = bool(
            np.all(mx[:3] <= args.force_tolerance)
            and np.all(mx[3:] <= args.torque_tolerance)
            and all(math.isfinite(p["convergence_time_s"]) for p in summary["pushes"])
        )
    summary.update(
        {
            "robot": setup.name,
            "urdf": setup.urdf_path,
            "tip_link": setup.tip_link,
            "duration_s": duration,
            "integration_rate_hz": rate,
            "publish_rate_hz": args.publish_rate,
            "observer_gain": args.observer_gain,
            "setup_time_s": setup_s,
            "demo_process_cpu_fraction": demo_cpu,
            "total_time_s": time.monotonic() - t_start,
            "passed": ok,
            "plot": os.path.abspath(plot_path),
        }
    )
    _plot(rec, setup, t0_ns, plot_path, pendulum, duration)
    if args.save_recording:
        np.savez(
            args.save_recording,
            t0_ns=t0_ns,
            joint_names=np.array(setup.model.joint_names),
            js_stamp=np.asarray(rec.js_stamp),
            q=np.asarray(rec.js_q),
            qd=np.asarray(rec.js_qd),
            effort=np.asarray(rec.js_effort),
            applied_stamp=np.asarray(rec.app_stamp),
            applied=np.asarray(rec.app_wrench),
            estimated_stamp=np.asarray(rec.est_stamp),
            estimated=np.asarray(rec.est_wrench),
        )
    json_path = args.summary_json or os.path.splitext(plot_path)[0] + ".json"
    with open(json_path, "w") as fh:
        json.dump(summary, fh, indent=2)
    summary["summary_json"] = os.path.abspath(json_path)
    _print_summary(summary, setup, pendulum, args, out)
    return (EXIT_OK if ok else EXIT_CHECK_FAILED), summary


def _show(
    display: Display,
    monitor: Monitor,
    setup: RobotSetup,
    t: float,
    duration: float,
    phase: Optional[Phase],
    t0_ns: int,
    pendulum: bool,
) -> None:
    js_stamp, q, qd, effort, est_stamp, est = monitor.latest()
    model = setup.model
    if pendulum:
        energy = float(model.total_energy(q, qd)) if q is not None else float("nan")
        lines = [
            f"t = {t:5.1f} / {duration:g} s   double pendulum released from horizontal, zero torque",
            f"  q  [rad]    {np.array2string(q, precision=3, suppress_small=True) if q is not None else '-'}",
            f"  qd [rad/s]  {np.array2string(qd, precision=3, suppress_small=True) if qd is not None else '-'}",
            f"  energy {energy:9.4f} J (start {float(model.total_energy(setup.q0, np.zeros(model.n))):.4f} J)",
            _row("estimated", est) + "   (no contact: should stay ~0)",
        ]
        plain = (
            f"t={t:5.1f}s q={np.round(q, 3).tolist() if q is not None else '-'} E={energy:.4f} J "
            f"|f_est|={np.linalg.norm(est[:3]) if est is not None else float('nan'):.3f} N"
        )
        display.show(lines, plain)
        return
    applied = monitor.applied_at(est_stamp) if est_stamp is not None else None
    err = None if (applied is None or est is None) else est - applied
    pose0 = np.asarray(model.frame_pose(setup.q0), dtype=float)[:3, 3]
    disp = (
        1e3 * float(np.linalg.norm(np.asarray(model.frame_pose(q), dtype=float)[:3, 3] - pose0))
        if q is not None
        else float("nan")
    )
    header = f"  {'wrench':<10}" + "".join(
        f"{a + (' [N]' if a[0] == 'f' else '[Nm]'):>8}" for a in AXES
    )
    lag_ms = (
        1e3 * (js_stamp - est_stamp) * 1e-9
        if (js_stamp is not None and est_stamp is not None)
        else 0.0
    )
    behind = f"   (estimate {lag_ms:.0f} ms behind: node catching up)" if lag_ms > 50 else ""
    lines = [
        f"t = {t:5.1f} / {duration:g} s   {phase.name if phase else ''}{behind}",
        header,
        _row("applied", applied),
        _row("estimated", est),
        _row("error", err),
        f"  tool displacement from the held pose: {disp:6.2f} mm",
    ]
    plain = (
        f"t={t:5.1f}s {phase.name if phase else '':<36} applied={np.round(applied, 2).tolist() if applied is not None else '-'} "
        f"estimated={np.round(est, 2).tolist() if est is not None else '-'} tool {disp:.2f} mm{behind}"
    )
    display.show(lines, plain)


def _plot(
    rec: Recording, setup: RobotSetup, t0_ns: int, path: str, pendulum: bool, duration: float
) -> None:
    from robot_dynamics.tools.plotting import plot_trajectory, plot_wrench_demo

    js_t = (np.asarray(rec.js_stamp, dtype=np.int64) - t0_ns) * 1e-9
    est_t = (np.asarray(rec.est_stamp, dtype=np.int64) - t0_ns) * 1e-9
    app_t = (np.asarray(rec.app_stamp, dtype=np.int64) - t0_ns) * 1e-9
    keep_js = js_t >= 0
    keep_est = est_t >= 0
    model = setup.model
    if pendulum:
        q, qd = np.asarray(rec.js_q)[keep_js], np.asarray(rec.js_qd)[keep_js]
        energy = np.asarray(model.total_energy(q, qd), dtype=float)
        ext_t = (np.asarray(rec.ext_stamp, dtype=np.int64) - t0_ns) * 1e-9
        keep_ext = ext_t >= 0.1  # the brakes' torque, seen as external until 0.1 s, left out
        ext = np.asarray(rec.ext_tau).reshape(-1, model.n)[keep_ext]
        plot_trajectory(
            path,
            t=js_t[keep_js],
            q=q,
            qd=qd,
            energy=energy,
            joint_names=model.joint_names,
            title="double pendulum released from horizontal, zero torque (arm_simulator over DDS)",
            extra=(
                ext_t[keep_ext],
                ext,
                "estimated external\ntorque [Nm] (none)\nfrom 0.1 s",
                [f"{n}" for n in model.joint_names],
            ),
        )
    else:
        keep_app = app_t >= 0
        order = np.argsort(app_t[keep_app], kind="stable")
        plot_wrench_demo(
            path,
            t_wrench=app_t[keep_app][order],
            applied=np.asarray(rec.app_wrench)[keep_app][order],
            t_estimated=est_t[keep_est],
            estimated=np.asarray(rec.est_wrench)[keep_est],
            t_joints=js_t[keep_js],
            tau=np.asarray(rec.js_effort)[keep_js],
            joint_names=model.joint_names,
            title=f"{setup.name}: external wrench on {setup.tip_link}, applied vs estimated "
            f"(momentum observer, base axes)",
        )


def _print_summary(s: Dict, setup: RobotSetup, pendulum: bool, args, out) -> None:
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p("")
    p(
        f"summary ({setup.name}, {s['duration_s']:g} s scripted, set-up {s['setup_time_s']:.1f} s, "
        f"total {s['total_time_s']:.1f} s)"
    )
    rates = s["rates_hz"]
    p(
        f"  joint_states {_fmt(rates['joint_states'], '.0f')} Hz, wrench estimates {_fmt(rates['estimates'], '.0f')} Hz "
        f"over DDS; simulator step {1e3 / s['integration_rate_hz']:g} ms"
    )
    if pendulum:
        p(
            f"  energy: start {s['energy_initial_J']:.4f} J, max |E - E0| = {s['energy_max_abs_drift_J']:.4f} J "
            f"= {100 * s['energy_drift_relative_to_max_kinetic']:.3f} % of the largest kinetic energy "
            f"({s['max_kinetic_energy_J']:.1f} J); tolerance {100 * args.energy_tolerance:g} %"
        )
        p(
            f"  first {s['agreement_horizon_s']:g} s vs the core's RK45 (rtol 1e-10): max joint deviation "
            f"{_fmt(s['max_joint_deviation_from_rk45_rad'], '.2e')} rad"
        )
        p(
            f"  external joint torque reported without any contact (after 0.1 s): RMS "
            f"{_fmt(s['rms_false_joint_torque_Nm'])} Nm, max {_fmt(s['max_false_joint_torque_Nm'])} Nm "
            f"(gravity torques reach {s['max_gravity_torque_Nm']:.0f} Nm; speeds up to {s['max_speed_rad_s']:.1f} rad/s)"
        )
    else:
        p("  steady-state estimation error per axis, after convergence [N, Nm]:")
        p("    " + f"{'':<5}" + "".join(f"{a:>10}" for a in AXES))
        p("    " + f"{'RMS':<5}" + "".join(f"{v:>10.2g}" for v in s["steady_error_rms"]))
        p("    " + f"{'max':<5}" + "".join(f"{v:>10.2g}" for v in s["steady_error_max"]))
        if s["observer_restarts"]:
            p(
                f"    ({s['observer_restarts']} observer restart(s): the dynamics node skipped joint_states for up to "
                f"{s['longest_estimate_gap_ms']:.0f} ms (CPU busy); {1e3 * s['recovery_excluded_s']:.0f} ms after each "
                "are left out here)"
            )
        for push in s["pushes"]:
            w = np.asarray(push["applied"])
            what = (
                "release"
                if not np.any(w)
                else "push " + np.array2string(w, precision=2, suppress_small=True)
            )
            conv = push["convergence_time_s"]
            p(
                f"  {push['phase']:<34} converged in {_fmt(conv * 1e3 if math.isfinite(conv) else conv, '.0f')} ms "
                f"(to within {push['band_force_N']:.2g} N / {push['band_torque_Nm']:.2g} Nm)  [{what}]"
            )
        p(
            f"  held pose (tool position): drift while holding {s['pose_drift_hold_mm'] * 1e3:.3g} um, after "
            f"the releases {s['pose_drift_final_mm'] * 1e3:.3g} um; deflection under the pushes up to "
            f"{s['deflection_under_push_max_mm']:.1f} mm (joint impedance {args.impedance_hz:g} Hz)"
        )
        p(
            f"  without gravity compensation the same joint impedance would sag "
            f"{s['sag_without_gravity_compensation_mm']:.1f} mm"
        )
    p(
        f"  result: {'PASS' if s['passed'] else 'FAIL'}"
        + (
            ""
            if pendulum
            else f" (tolerance {args.force_tolerance:g} N / {args.torque_tolerance:g} Nm per axis)"
        )
    )
    p(f"  plot: {s['plot']}")
    p(f"  summary: {s['summary_json']}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``robot-dynamics-demo``."""
    args = build_parser().parse_args(argv)
    try:
        code, _ = run(args)
        return code
    except DemoError as exc:
        print(f"robot-dynamics-demo: error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("robot-dynamics-demo: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
