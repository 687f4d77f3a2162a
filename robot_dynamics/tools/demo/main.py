"""The demo's entry point: start the two nodes, run the script while the monitor records and the
display shows it, then analyse, plot and print the summary."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from robot_dynamics.tools.demo import analysis, display
from robot_dynamics.tools.demo.options import build_parser
from robot_dynamics.tools.demo.plots import plot_run
from robot_dynamics.tools.demo.script import Phase, Schedule, push_script
from robot_dynamics.tools.demo.settings import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    NODE_OBSERVER_MAX_DT,
    DemoError,
    RobotSetup,
    demo_settings,
    write_parameter_files,
)
from robot_dynamics.tools.processes import Child, node_argv


def _check_alive(children: Sequence[Child]) -> None:
    for child in children:
        if not child.alive():
            raise DemoError(
                f"{child.name} exited with code {child.popen.returncode}:\n{child.tail()}"
            )


def _estimate_in_base(setup: RobotSetup, latest) -> Optional[np.ndarray]:
    """The latest estimate in base axes about the tip origin (see analysis)."""
    est, frame, q_est = latest[5], latest[6], latest[7]
    if est is None or q_est is None:
        return None
    return analysis.estimates_in_base_at_tip(
        setup.model, est, frame or setup.tip_link, setup.tip_link, q_est
    )


def _show(
    view: display.Display,
    monitor,
    setup: RobotSetup,
    t: float,
    duration: float,
    phase: Optional[Phase],
) -> None:
    latest = monitor.latest()
    js_stamp, q, qd, _, est_stamp = latest[:5]
    model = setup.model
    if setup.pendulum:
        energy = float(model.total_energy(q, qd)) if q is not None else float("nan")
        energy0 = float(model.total_energy(setup.q0, np.zeros(model.n)))
        lines, plain = display.pendulum_lines(t, duration, q, qd, energy, energy0, latest[5])
    else:
        applied = monitor.applied_at(est_stamp) if est_stamp is not None else None
        pose0 = np.asarray(model.frame_pose(setup.q0), dtype=float)[:3, 3]
        disp = (
            1e3 * float(np.linalg.norm(np.asarray(model.frame_pose(q))[:3, 3] - pose0))
            if q is not None
            else float("nan")
        )
        lag_ms = 1e-6 * (js_stamp - est_stamp) if est_stamp is not None else 0.0
        lines, plain = display.push_lines(
            t,
            duration,
            phase.name if phase else "",
            applied,
            _estimate_in_base(setup, latest),
            disp,
            lag_ms,
        )
    view.show(lines, plain)


def run(args, out=sys.stdout) -> Tuple[int, Dict]:
    """Run the demo for the parsed options.

    Args:
        args: the parsed demo options.
        out: text stream for the live table and the summary.

    Returns:
        tuple: ``(exit code, summary dict)``.

    Raises:
        DemoError: bad options (code 2), nodes that do not come up or die, or no data (code 3).
    """
    t_start = time.monotonic()
    setup, sim_params, node_params, duration, rate = demo_settings(args)
    model = setup.model
    pendulum = setup.pendulum
    ns = args.namespace.rstrip("/")
    if ns and not ns.startswith("/"):
        ns = "/" + ns
    script = [] if pendulum else push_script(duration, args.force, args.side_force, args.twist)

    plot_path = args.plot
    os.makedirs(os.path.dirname(os.path.abspath(plot_path)), exist_ok=True)
    log_dir = tempfile.mkdtemp(prefix="robot_dynamics_demo_")
    files = write_parameter_files(log_dir, sim_params, node_params)
    sim_file, node_file = files["arm_simulator"], files["dynamics_node"]
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
            f"  starting arm_simulator ({rate:g} Hz fixed step, joint_states "
            f"{args.publish_rate:g} Hz) and dynamics_node as separate processes (logs in "
            f"{log_dir}) ...",
            file=out,
            flush=True,
        )
        sim_argv = node_argv(
            "robot_dynamics.ros.arm_simulator", "arm_simulator", sim_file, ns, remap_cmd
        )
        dyn_argv = node_argv("robot_dynamics.ros.dynamics_node", "dynamics_node", node_file, ns, [])
        children = [
            Child("arm_simulator", sim_argv, os.path.join(log_dir, "arm_simulator.log"), env),
            Child("dynamics_node", dyn_argv, os.path.join(log_dir, "dynamics_node.log"), env),
        ]
    monitor = None
    try:
        from robot_dynamics.tools.demo.monitor import Monitor

        monitor = Monitor(ns, model, external_torques=pendulum)
        # ---- wait until both nodes are up and (push demo) the gravity torques flow
        deadline = time.monotonic() + args.startup_timeout
        while True:
            _check_alive(children)
            n_js, _, n_est = monitor.counts()
            effort = monitor.latest()[3]
            if n_js > 0 and n_est > 0:
                if pendulum or (effort is not None and np.any(np.abs(effort) > 1e-9)):
                    break
            if time.monotonic() > deadline:
                raise DemoError(
                    f"nodes not up after {args.startup_timeout:g} s (joint_states {n_js}, "
                    f"estimates {n_est})\n"
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
                est = _estimate_in_base(setup, monitor.latest())
                if (
                    est is not None
                    and np.linalg.norm(est[:3]) < 0.1 * args.force_tolerance
                    and np.linalg.norm(est[3:]) < 0.1 * args.torque_tolerance
                ):
                    break
                time.sleep(0.02)
            t0_ns = monitor.latest()[0]
        setup_s = time.monotonic() - t_start
        what = "releasing the pendulum" if pendulum else "holding the pose"
        print(f"  nodes up after {setup_s:.1f} s; {what} for {duration:g} s", file=out, flush=True)

        cpu0 = time.process_time()
        view = display.Display(out, args.live)
        # The script runs on simulated time (the joint_states stamps), and each phase starts when
        # the previous one has been applied for its full length (Schedule): a CPU-starved
        # simulator, or a demo process that sees and sends things late, still gets every phase at
        # its full length.
        schedule = Schedule(script)
        wall0 = time.monotonic()
        wall_limit = 3.0 * duration + 30.0
        while True:
            now = time.monotonic()
            t = (monitor.latest()[0] - t0_ns) * 1e-9
            phase = None
            if pendulum:
                if t >= duration:
                    break
            else:
                seen = None
                if len(schedule.starts) <= schedule.index:
                    since = t0_ns + int(round(schedule.sent_at * 1e9))
                    stamp = monitor.first_applied(schedule.phase.wrench, since)
                    seen = None if stamp is None else (stamp - t0_ns) * 1e-9
                phase = schedule.update(t, seen)
                if schedule.done:
                    break
                # published at ~50 Hz while it applies; a zero wrench removes it at once
                monitor.push(phase.wrench, setup.tip_link)
            if now - wall0 > wall_limit:
                raise DemoError(
                    f"simulated time reached only {t:.2f} s of {duration:g} s after "
                    f"{now - wall0:.0f} s of wall time (is the machine overloaded?)"
                )
            _check_alive(children)
            if view.due(now, t):
                _show(view, monitor, setup, t, duration, phase)
            time.sleep(0.02)
        if not pendulum:
            script = schedule.as_run()
        if not pendulum:
            monitor.push(np.zeros(6), setup.tip_link)
        view.done()
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
    summary, ok = _analyse(rec, setup, script, t0_ns, node_params, args)
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
    plot_run(rec, setup, t0_ns, plot_path)
    if args.save_recording:
        _save_recording(args.save_recording, rec, setup, t0_ns)
    json_path = args.summary_json or os.path.splitext(plot_path)[0] + ".json"
    with open(json_path, "w") as fh:
        json.dump(summary, fh, indent=2)
    summary["summary_json"] = os.path.abspath(json_path)
    display.print_summary(summary, setup.name, pendulum, args, out)
    return (EXIT_OK if ok else EXIT_CHECK_FAILED), summary


def _analyse(rec, setup: RobotSetup, script, t0_ns: int, node_params: Dict, args):
    """(summary, passed) of the recorded run."""
    if setup.pendulum:
        summary = analysis.analyse_pendulum(rec, setup.model, setup.q0, t0_ns, compare_s=1.0)
        return summary, summary["energy_drift_relative_to_max_kinetic"] <= args.energy_tolerance
    summary = analysis.analyse_push(
        rec,
        setup.model,
        setup.q0,
        setup.stiffness,
        setup.tip_link,
        script,
        t0_ns,
        args.force_tolerance,
        args.torque_tolerance,
        max_gap=node_params.get("observer_max_dt", NODE_OBSERVER_MAX_DT),
        recovery=5.0 / args.observer_gain,
    )
    return summary, analysis.push_passed(summary, args.force_tolerance, args.torque_tolerance)


def _save_recording(path: str, rec, setup: RobotSetup, t0_ns: int) -> None:
    """Every received sample in an .npz; ``estimated`` in base axes about the tip origin (as
    ``applied``), ``estimated_raw`` as published at ``estimated_frame``."""
    np.savez(
        path,
        t0_ns=t0_ns,
        joint_names=np.array(setup.model.joint_names),
        js_stamp=np.asarray(rec.js_stamp),
        q=np.asarray(rec.js_q),
        qd=np.asarray(rec.js_qd),
        effort=np.asarray(rec.js_effort),
        applied_stamp=np.asarray(rec.app_stamp),
        applied=np.asarray(rec.app_wrench),
        estimated_stamp=np.asarray(rec.est_stamp),
        estimated=analysis.estimates_of(rec, setup.model, setup.tip_link),
        estimated_raw=np.asarray(rec.est_wrench),
        estimated_frame=np.array(rec.est_frame),
    )


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``robot-dynamics-demo``.

    Args:
        argv: command-line arguments (default: ``sys.argv[1:]``).

    Returns:
        int: the exit code.
    """
    args = build_parser().parse_args(argv)
    try:
        if args.scenario == "identify":
            from robot_dynamics.tools.demo.identify_scenario import run_identify

            code, _ = run_identify(args)
            return code
        code, _ = run(args)
        return code
    except DemoError as exc:
        print(f"robot-dynamics-demo: error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("robot-dynamics-demo: interrupted", file=sys.stderr)
        return 130
