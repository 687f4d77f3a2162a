"""``robot-dynamics-demo --scenario identify``: the identification workflow on a simulated arm
that differs from its URDF (``make demo DEMO_ARGS="--scenario identify"``).

1. The simulator runs the "true" robot of :func:`~robot_dynamics.tools.demo.identify_analysis.
   true_robot` (its URDF written to the demo's log directory; masses and centres of mass off by
   10-25 %, friction on every joint, a tool the URDF does not have, torque noise); the dynamics
   node gets the nominal URDF. The tool is pushed (the push script of the default demo): the
   estimate at rest and under the pushes shows what the model errors cost.
2. An excitation trajectory (``robot-dynamics excite``'s core,
   :func:`~robot_dynamics.core.excitation.optimize_excitation`, optimised in a worker process
   while step 1 runs) is tracked: the demo switches the dynamics node's effort command off and
   a tracker process of its own commands the torques (the nominal inverse dynamics at the
   reference plus the offset that makes the drives' joint impedance act around the reference),
   from the held pose to the excitation, ``--excitation-periods`` periods of it (default 2), and
   back. The joint states are recorded.
3. The recording is identified as ``robot-dynamics identify`` does (Savitzky-Golay
   differentiation, base parameters, physically consistent fit, identified URDF), the identified
   URDF is loaded into the running dynamics node (its ``robot_description`` parameter, over
   DDS), the effort command and impedance come back, and the same pushes are estimated again.

The summary prints the steady-state wrench errors before and after per phase and the
identification report; the plot shows both push rounds. Exit 0 when the mean force error after
identification is at most half the one before.
"""

from __future__ import annotations

import concurrent.futures
import json
import math
import multiprocessing
import os
import sys
import tempfile
import time
from typing import Dict, List, Tuple

import numpy as np

from robot_dynamics.tools.demo import analysis, display
from robot_dynamics.tools.demo import identify_analysis as IA
from robot_dynamics.tools.demo.script import Schedule, push_script
from robot_dynamics.tools.demo.tracker import save_reference
from robot_dynamics.tools.processes import Child, node_argv
from robot_dynamics.tools.demo.settings import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    DemoError,
    demo_settings,
    write_parameter_files,
)

EXCITATION_PERIOD = 8.0  # [s]
MOVE_TIME = 2.0  # [s] from the held pose to the excitation's start, and back
SETTLE = 1.5  # [s of simulated time] after a model or command change, before the pushes
PASS_RATIO = 0.5  # mean force error after / before must be at most this
IDENTIFICATION_RATE = 100.0  # [Hz] the recording is resampled to this for the fit


def excitation_worker(urdf: str, base_link: str, tip_link: str, gravity, seed: int):
    """A short excitation optimisation (one start, a few L-BFGS-B iterations) in a worker process.

    Args:
        urdf: URDF text of the nominal robot.
        base_link: its base link.
        tip_link: its tip link.
        gravity: (3,) gravity [m/s^2] in the base frame.
        seed: random seed of the optimiser's start.

    Returns:
        tuple: ``(FourierTrajectory, condition number, seconds taken)``.
    """
    from robot_dynamics import RobotModel
    from robot_dynamics.core.excitation import optimize_excitation

    os.nice(10)  # the nodes first: this runs beside them on a small machine
    start = time.perf_counter()
    model = RobotModel.from_urdf_string(
        urdf, base_link=base_link, tip_link=tip_link, gravity=gravity
    )
    traj, condition = optimize_excitation(
        model,
        period=EXCITATION_PERIOD,
        harmonics=5,
        max_acceleration=2.0,
        margin=0.15,
        samples=48,
        starts=1,
        maxiter=4,
        seed=seed,
    )
    return traj, float(condition), time.perf_counter() - start


class _Run:
    """The running scenario: nodes, monitor, display (one object so the phases stay short)."""

    def __init__(self, args, setup, monitor, children, view, ns, out):
        self.args, self.setup, self.monitor = args, setup, monitor
        self.children, self.view, self.ns, self.out = children, view, ns, out
        self.model = setup.model
        self._clients = {}  # AsyncParameterClient per node

    def alive(self):
        for child in self.children:
            if not child.alive():
                raise DemoError(
                    f"{child.name} exited with code {child.popen.returncode}:\n{child.tail()}"
                )

    def now_ns(self) -> int:
        return int(self.monitor.latest()[0])

    def wait_sim(self, seconds: float, what: str, wall_limit: float = 60.0) -> None:
        """Wait ``seconds`` of simulated time (joint_states stamps)."""
        start, wall0 = self.now_ns(), time.monotonic()
        while (self.now_ns() - start) * 1e-9 < seconds:
            self.alive()
            if time.monotonic() - wall0 > wall_limit:
                raise DemoError(f"{what}: simulated time does not advance (overloaded machine?)")
            time.sleep(0.02)

    def settle(self, what: str, max_s: float = 6.0, window: float = 0.5, tol: float = 0.2):
        """Wait (simulated time, at most ``max_s``) until the wrench estimate's force changed by
        less than ``tol`` [N] over the last ``window`` seconds (the observer converged, the arm
        back at rest after a model or command change)."""
        start, wall0 = self.now_ns(), time.monotonic()
        while (self.now_ns() - start) * 1e-9 < max_s:
            self.alive()
            with self.monitor.lock:
                stamps = np.asarray(self.monitor.rec.est_stamp[-500:], dtype=np.int64)
                forces = np.asarray(self.monitor.rec.est_wrench[-500:], dtype=float)
            if len(stamps) > 10 and (stamps[-1] - start) * 1e-9 > window:
                recent = forces[stamps >= stamps[-1] - int(window * 1e9), :3]
                if np.ptp(recent, axis=0).max() < tol:
                    return
            if time.monotonic() - wall0 > 10.0 * max_s + 30.0:
                raise DemoError(f"{what}: simulated time does not advance (overloaded machine?)")
            time.sleep(0.05)

    def set_parameters(self, node: str, values: Dict) -> None:
        """Set parameters of ``node`` (``arm_simulator`` or ``dynamics_node``) over DDS."""
        from rclpy.parameter import Parameter
        from rclpy.parameter_client import AsyncParameterClient

        client = self._clients.get(node)
        if client is None:
            client = AsyncParameterClient(self.monitor.node, f"{self.ns}/{node}")
            self._clients[node] = client
        if not client.wait_for_services(timeout_sec=30.0):
            raise DemoError(f"{node}: parameter services not available")
        params = []
        for name, value in values.items():
            if isinstance(value, list):
                value = [float(v) for v in value]
                params.append(Parameter(name, Parameter.Type.DOUBLE_ARRAY, value))
            else:
                params.append(Parameter(name, value=value))
        future = client.set_parameters(params)
        deadline = time.monotonic() + 60.0
        while not future.done():
            if time.monotonic() > deadline:
                raise DemoError(f"{node}: no answer setting {sorted(values)}")
            time.sleep(0.01)
        for name, result in zip(values, future.result().results):
            if not result.successful:
                raise DemoError(f"{node} refused {name}: {result.reason}")

    # ------------------------------------------------------------------ pushes
    def pushes(self, label: str, duration: float) -> Tuple[int, int]:
        """Run the push script; returns its (start, end) stamps [ns]."""
        args, setup, monitor = self.args, self.setup, self.monitor
        script = push_script(duration, args.force, args.side_force, args.twist)
        self.view = display.Display(self.out, self.args.live)
        t0_ns = self.now_ns()
        schedule = Schedule(script)
        wall0 = time.monotonic()
        while True:
            t = (self.now_ns() - t0_ns) * 1e-9
            seen = None
            if len(schedule.starts) <= schedule.index:
                since = t0_ns + int(round(schedule.sent_at * 1e9))
                stamp = monitor.first_applied(schedule.phase.wrench, since)
                seen = None if stamp is None else (stamp - t0_ns) * 1e-9
            phase = schedule.update(t, seen)
            if schedule.done:
                break
            monitor.push(phase.wrench, setup.tip_link)
            if time.monotonic() - wall0 > 3.0 * duration + 30.0:
                raise DemoError(f"{label}: simulated time reached only {t:.2f} s of {duration:g} s")
            self.alive()
            now = time.monotonic()
            if self.view.due(now, t):
                self._show(f"{label}: {phase.name}", t, duration)
            time.sleep(0.02)
        monitor.push(np.zeros(6), setup.tip_link)
        self.view.done()
        return t0_ns, self.now_ns()

    def _show(self, title: str, t: float, duration: float) -> None:
        latest = self.monitor.latest()
        js_stamp, q, est_stamp = latest[0], latest[1], latest[4]
        model, tip = self.model, self.setup.tip_link
        estimate = None
        if latest[5] is not None and latest[7] is not None:
            estimate = analysis.estimates_in_base_at_tip(
                model, latest[5], latest[6] or tip, tip, latest[7]
            )
        applied = self.monitor.applied_at(est_stamp) if est_stamp is not None else None
        pose0 = np.asarray(model.frame_pose(self.setup.q0), dtype=float)[:3, 3]
        disp = (
            1e3 * float(np.linalg.norm(np.asarray(model.frame_pose(q))[:3, 3] - pose0))
            if q is not None
            else float("nan")
        )
        lag_ms = 1e-6 * (js_stamp - est_stamp) if est_stamp is not None else 0.0
        lines, plain = display.push_lines(t, duration, title, applied, estimate, disp, lag_ms)
        self.view.show(lines, plain)

    # ------------------------------------------------------------------ excitation
    def excite(self, reference, traj, nominal_params: Dict, log_dir: str, env) -> Tuple:
        """Track ``reference`` with the tracker process (:mod:`~robot_dynamics.tools.demo.
        tracker`); returns its (start, end) stamps [ns] and the largest tracking error [rad]
        seen. The dynamics node's command is off meanwhile; the simulated drives' joint impedance
        does the feedback (see :func:`~robot_dynamics.tools.demo.identify_analysis.
        impedance_feedforward`)."""
        monitor, setup = self.monitor, self.setup
        path = os.path.join(log_dir, "tracker.npz")
        save_reference(
            path,
            setup,
            traj,
            self.args.excitation_periods,
            MOVE_TIME,
            nominal_params["joint_impedance.stiffness"],
            nominal_params["joint_impedance.damping"],
        )
        # the simulator's ~/commands are remapped onto the dynamics node's ~/effort_command
        topic = f"{self.ns}/dynamics_node/effort_command"
        argv = [sys.executable, "-m", "robot_dynamics.tools.demo.tracker", path, self.ns, topic]
        tracker = Child("tracker", argv, os.path.join(log_dir, "tracker.log"), env)
        self.children.append(tracker)
        try:
            t0_ns = self._tracker_start(tracker)
            self.set_parameters("dynamics_node", {"publish_effort_command": False})
            self.view = display.Display(self.out, self.args.live)
            wall0 = time.monotonic()
            worst = 0.0
            while True:
                latest = monitor.latest()
                t = (latest[0] - t0_ns) * 1e-9
                if t >= reference.duration:
                    break
                err = float(np.max(np.abs(reference(max(t, 0.0))[0] - latest[1])))
                worst = max(worst, err) if t >= 0 else worst
                self.alive()
                now = time.monotonic()
                if now - wall0 > 4.0 * reference.duration + 30.0:
                    raise DemoError(f"excitation: simulated time reached only {t:.1f} s")
                if self.view.due(now, t):
                    part = (
                        "to the start"
                        if t < reference.move_time
                        else "back"
                        if t >= reference.move_time + reference.excite_time
                        else "exciting"
                    )
                    line = (
                        f"t = {t:5.1f} / {reference.duration:g} s   excitation ({part}): "
                        f"tracking error {err:.3f} rad (max {worst:.3f})"
                    )
                    self.view.show([line], line)
                time.sleep(0.02)
            end_ns = int(latest[0])
            self.view.done()
            # hand back: the node's command first, then the tracker stops
            self.set_parameters("dynamics_node", {"publish_effort_command": True})
        finally:
            self.children.remove(tracker)
            tracker.stop()
        return t0_ns, end_ns, worst

    def _tracker_start(self, tracker, timeout: float = 60.0) -> int:
        """The stamp [ns] the tracker's reference starts at (from its log)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.alive()
            for line in tracker.tail(50).splitlines():
                if line.startswith("tracker t0_ns="):
                    return int(line.split("=", 1)[1])
            time.sleep(0.05)
        raise DemoError(f"the tracker did not start within {timeout:g} s:\n{tracker.tail()}")


def _recorded(monitor, start_ns: int, end_ns: int):
    """(t [s], q, qd, effort) of the joint states the monitor received in [start_ns, end_ns]."""
    with monitor.lock:
        rec = monitor.rec
        k = min(len(rec.js_stamp), len(rec.js_q), len(rec.js_qd), len(rec.js_effort))
        stamps = np.asarray(rec.js_stamp[:k], dtype=np.int64)
        q, qd, effort = (
            np.asarray(x[:k], dtype=float) for x in (rec.js_q, rec.js_qd, rec.js_effort)
        )
    sel = (stamps >= start_ns) & (stamps <= end_ns)
    return (stamps[sel] - start_ns) * 1e-9, q[sel], qd[sel], effort[sel]


def plot_rounds(path: str, rec, model, tip_link: str, rounds, title: str) -> str:
    """PNG: applied vs estimated wrench (base axes, moment about the tip origin) of each push
    round side by side (columns), force and moment components (rows).

    Args:
        path: PNG to write.
        rec: the recording.
        model: the RobotModel.
        tip_link: the pushed frame.
        rounds: ``(label, start_ns, end_ns)`` per round.
        title: figure title.

    Returns:
        str: the path written.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    est_ns = np.asarray(rec.est_stamp, dtype=np.int64)
    est = analysis.estimates_of(rec, model, tip_link)
    app_ns = np.asarray(rec.app_stamp, dtype=np.int64)
    order = np.argsort(app_ns, kind="stable")
    app_ns, app = app_ns[order], np.asarray(rec.app_wrench, dtype=float).reshape(-1, 6)[order]
    fig = Figure(figsize=(13, 7.5), dpi=100)
    FigureCanvasAgg(fig)
    axes = fig.subplots(2, len(rounds), squeeze=False, sharey="row")
    colors = ("tab:red", "tab:green", "tab:blue")
    for c, (label, start, end) in enumerate(rounds):
        se = (est_ns >= start) & (est_ns <= end)
        sa = (app_ns >= start) & (app_ns <= end)
        for r, (cols, unit) in enumerate((((0, 1, 2), "N"), ((3, 4, 5), "N m"))):
            ax = axes[r, c]
            for k, i in enumerate(cols):
                name = analysis.AXES[i]
                ax.plot(
                    (app_ns[sa] - start) * 1e-9,
                    app[sa, i],
                    color=colors[k],
                    lw=2.0,
                    alpha=0.4,
                    label=f"{name} applied",
                )
                ax.plot(
                    (est_ns[se] - start) * 1e-9,
                    est[se, i],
                    color=colors[k],
                    lw=1.0,
                    ls="--",
                    label=f"{name} estimated",
                )
            ax.grid(True, alpha=0.3)
            ax.set_ylabel(f"{'force' if r == 0 else 'moment'} [{unit}]")
            if r == 0:
                ax.set_title(label, fontsize=10)
            else:
                ax.set_xlabel("time in the round [s]")
            if c == len(rounds) - 1:
                ax.legend(fontsize=7, loc="upper right", ncol=2)
    fig.suptitle(title, fontsize=10)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return path


def summary_lines(summary: Dict) -> List[str]:
    """The printed summary of an identify run.

    Args:
        summary: the run's summary dict.

    Returns:
        list: the lines.
    """
    rep = summary["identification"]
    lines = [
        "",
        f"identify scenario: {summary['robot']} simulated with masses and COMs off by 10-25 %, "
        f"friction on every joint, a {summary['tool_mass_kg']:g} kg tool not in the URDF, "
        f"torque noise {summary['torque_noise_Nm']:g} N m",
        f"excitation: {summary['excitation']['periods']} x {EXCITATION_PERIOD:g} s (condition "
        f"number {summary['excitation']['condition_number']:.3g}, optimised in "
        f"{summary['excitation']['optimisation_s']:.1f} s), tracking error max "
        f"{summary['excitation']['tracking_error_max_rad']:.3f} rad",
        f"identified from {rep['samples_used']} samples at {rep['rate_hz']:.0f} Hz in "
        f"{summary['identification_s']:.1f} s: {rep['base_parameter_count']} base parameters, "
        f"condition number {rep['condition_number']:.3g}",
        "  held-out torque RMS per joint [N m]:",
        "    nominal URDF    " + " ".join(f"{v:6.3f}" for v in rep["torque_rms_nominal"]),
        "    identified URDF " + " ".join(f"{v:6.3f}" for v in rep["torque_rms_identified"]),
    ]
    if "torque_rms_true" in rep:
        lines.append("    true robot      " + " ".join(f"{v:6.3f}" for v in rep["torque_rms_true"]))
    lines += [
        "steady-state wrench error (mean estimate after 0.5 s minus applied; base axes, moment "
        "about the tip):",
        f"  {'phase':<44} {'|f err| before':>14} {'after':>8} {'|n err| before':>15} {'after':>8}",
    ]
    for row in summary["comparison"]:
        lines.append(
            f"  {row['phase']:<44} {row['force_error_before_N']:>12.2f} N "
            f"{row['force_error_after_N']:>6.2f} N {row['moment_error_before_Nm']:>12.3f} N m "
            f"{row['moment_error_after_Nm']:>5.3f} N m"
        )
    ratio = summary["force_error_ratio"]
    verdict = "PASS" if summary["passed"] else "FAIL"
    lines += [
        f"{verdict}: mean force error after / before = {ratio:.3f} (pass: <= {PASS_RATIO:g}); "
        f"total {summary['total_time_s']:.0f} s",
        f"identified URDF: {summary['identified_urdf']}",
        f"true robot URDF: {summary['true_urdf']}",
        f"plot: {summary['plot']}; summary: {summary['summary_json']}",
    ]
    return lines


def run_identify(args, out=sys.stdout) -> Tuple[int, Dict]:
    """Run the identify scenario for the parsed demo options.

    Args:
        args: the parsed demo options.
        out: text stream for the live table and the summary.

    Returns:
        tuple: ``(exit code, summary dict)``.

    Raises:
        DemoError: bad options (code 2); nodes that do not come up, die, stall or refuse a
            parameter (code 3).
    """
    t_start = time.monotonic()
    if args.attach:
        raise DemoError("--scenario identify starts its own nodes (no --attach)", EXIT_USAGE)
    if args.duration is None:
        args.duration = 8.0
    if not 1 <= args.excitation_periods <= 20:
        raise DemoError(
            f"--excitation-periods must be between 1 and 20, got {args.excitation_periods}",
            EXIT_USAGE,
        )
    setup, sim_params, node_params, duration, _ = demo_settings(args)
    if setup.pendulum:
        raise DemoError("--scenario identify needs an arm, not the pendulum", EXIT_USAGE)
    model = setup.model
    ns = args.namespace.rstrip("/")
    if ns and not ns.startswith("/"):
        ns = "/" + ns
    true = IA.true_robot(setup.urdf, model, tool_mass=args.tool_mass, seed=args.seed)
    log_dir = tempfile.mkdtemp(prefix="robot_dynamics_demo_identify_")
    true_path = os.path.join(log_dir, "true_robot.urdf")
    with open(true_path, "w") as fh:
        fh.write(true.urdf)
    sim_params = dict(sim_params, robot_description=true.urdf, joint_friction=True)
    sim_params["effort_noise"] = float(args.torque_noise)
    sim_params["effort_noise_seed"] = int(args.seed)
    node_params = dict(node_params, friction_compensation=True)
    files = write_parameter_files(log_dir, sim_params, node_params)
    plot_path = args.plot
    if plot_path == os.path.join("out", "demo.png"):
        plot_path = os.path.join("out", "demo_identify.png")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.setdefault("RCUTILS_COLORIZED_OUTPUT", "0")
    print(
        f"robot_dynamics demo, identify scenario: {setup.name} ({model.n} joints, tip "
        f"{setup.tip_link}); the simulator runs a perturbed robot with a {args.tool_mass:g} kg "
        f"tool ({true_path}), the dynamics node the nominal URDF",
        file=out,
        flush=True,
    )
    # the excitation is optimised in a worker process while the nodes start and the first
    # pushes run (a clean process: spawned before any rclpy context exists here)
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn")
    )
    future = pool.submit(
        excitation_worker,
        setup.urdf,
        setup.base_link,
        setup.tip_link,
        tuple(setup.gravity),
        args.seed,
    )
    remap = [f"{ns}/arm_simulator/commands:={ns}/dynamics_node/effort_command"]
    children = [
        Child(
            "arm_simulator",
            node_argv(
                "robot_dynamics.ros.arm_simulator",
                "arm_simulator",
                files["arm_simulator"],
                ns,
                remap,
            ),
            os.path.join(log_dir, "arm_simulator.log"),
            env,
        ),
        Child(
            "dynamics_node",
            node_argv(
                "robot_dynamics.ros.dynamics_node", "dynamics_node", files["dynamics_node"], ns, []
            ),
            os.path.join(log_dir, "dynamics_node.log"),
            env,
        ),
    ]
    monitor = None
    summary: Dict = {}
    try:
        from robot_dynamics.tools.demo.monitor import Monitor

        monitor = Monitor(ns, model)
        view = display.Display(out, args.live)
        run = _Run(args, setup, monitor, children, view, ns, out)
        deadline = time.monotonic() + args.startup_timeout
        while True:
            run.alive()
            n_js, _, n_est = monitor.counts()
            effort = monitor.latest()[3]
            if n_js > 0 and n_est > 0 and effort is not None and np.any(np.abs(effort) > 1e-9):
                break
            if time.monotonic() > deadline:
                raise DemoError(f"nodes not up after {args.startup_timeout:g} s")
            time.sleep(0.02)
        run.wait_sim(SETTLE, "start-up")
        run.settle("start-up")
        print(
            f"  nodes up after {time.monotonic() - t_start:.1f} s (logs in {log_dir})",
            file=out,
            flush=True,
        )
        print("1/3 pushes with the nominal URDF", file=out, flush=True)
        before = run.pushes("nominal URDF", duration)
        traj, condition, opt_s = future.result(timeout=600)
        reference = IA.ExcitationReference(traj, setup.q0, args.excitation_periods, MOVE_TIME)
        print(
            f"2/3 excitation: {reference.duration:g} s tracked through the drives' joint impedance "
            f"(condition number {condition:.3g})",
            file=out,
            flush=True,
        )
        exc_start, exc_end, worst = run.excite(reference, traj, sim_params, log_dir, env)
        t, q, qd, effort = _recorded(monitor, exc_start, exc_end)
        t_id = time.monotonic()
        identified = IA.identify_recording(
            setup.urdf, model, t, q, qd, effort, true=true, rate=IDENTIFICATION_RATE
        )
        id_s = time.monotonic() - t_id
        id_path = os.path.join(log_dir, "identified.urdf")
        with open(id_path, "w") as fh:
            fh.write(identified.urdf)
        rep = identified.report
        print(
            f"   identified in {id_s:.1f} s; held-out torque RMS (mean over joints) nominal "
            f"{np.mean(rep['torque_rms_nominal']):.3f} N m -> identified "
            f"{np.mean(rep['torque_rms_identified']):.3f} N m; loading it into dynamics_node",
            file=out,
            flush=True,
        )
        run.set_parameters(
            "dynamics_node", {"robot_description": identified.urdf, **identified.parameters}
        )
        run.wait_sim(SETTLE, "after loading the identified URDF")
        run.settle("after loading the identified URDF")
        print("3/3 the same pushes with the identified URDF", file=out, flush=True)
        after = run.pushes("identified URDF", duration)
        monitor.push(np.zeros(6), setup.tip_link)
        time.sleep(0.1)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        for child in children:
            child.stop()
        if monitor is not None:
            monitor.close()

    rec = monitor.rec
    errors_before = IA.steady_errors(rec, model, setup.tip_link, *before)
    errors_after = IA.steady_errors(rec, model, setup.tip_link, *after)
    rows = IA.compare(errors_before, errors_after)
    ratio = IA.improvement(rows)
    passed = bool(math.isfinite(ratio) and ratio <= PASS_RATIO)
    plot_rounds(
        plot_path,
        rec,
        model,
        setup.tip_link,
        [("nominal URDF", *before), ("identified URDF", *after)],
        f"{setup.name}: wrench on {setup.tip_link}, applied vs estimated, before and after "
        f"identification (true robot: perturbed + {args.tool_mass:g} kg tool)",
    )
    json_path = args.summary_json or os.path.splitext(plot_path)[0] + ".json"
    summary.update(
        {
            "robot": setup.name,
            "scenario": "identify",
            "tool_mass_kg": float(args.tool_mass),
            "torque_noise_Nm": float(args.torque_noise),
            "seed": int(args.seed),
            "excitation": {
                "periods": int(args.excitation_periods),
                "period_s": EXCITATION_PERIOD,
                "condition_number": condition,
                "optimisation_s": opt_s,
                "tracking_error_max_rad": worst,
            },
            "identification": identified.report,
            "identification_s": id_s,
            "errors_before": errors_before,
            "errors_after": errors_after,
            "comparison": rows,
            "force_error_ratio": ratio,
            "passed": passed,
            "true_urdf": true_path,
            "identified_urdf": id_path,
            "plot": os.path.abspath(plot_path),
            "summary_json": os.path.abspath(json_path),
            "total_time_s": time.monotonic() - t_start,
        }
    )
    with open(json_path, "w") as fh:
        json.dump(summary, fh, indent=2)
    print("\n".join(summary_lines(summary)), file=out, flush=True)
    return (EXIT_OK if passed else EXIT_CHECK_FAILED), summary
