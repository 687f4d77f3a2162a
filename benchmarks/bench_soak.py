#!/usr/bin/env python3
"""Soak benchmark: the dynamics node fed at 1 kHz for N minutes, its memory (RSS) sampled.

Two processes over real DDS (this machine only): the dynamics node (7-DOF Panda, momentum
observer, feed-forward effort command on, the node's default executor) and this script, which
publishes sensor_msgs/JointState at --rate Hz (a smooth 10 s motion with the efforts of the model
plus a constant external wrench, repeated; header.stamp = send time), optionally ~/reference at
--reference-rate Hz, counts the node's ~/effort_command messages, and samples the node's resident
set size from /proc every --sample seconds. Reports RSS after the warm-up, at the end, the growth
(MB and MB per minute, from a least-squares line through the samples after the warm-up), and the
messages published and commands received. A measurement, not a test (exit code 0).

Usage: python benchmarks/bench_soak.py [--minutes 10] [--rate 1000] [--reference-rate 0]
       [--warmup 30] [--executor KIND] [--param NAME=VALUE ...] [--domain-id N]
       [--out samples.csv]

A --rate above what the node sustains shows how it behaves overloaded: its memory must stay flat
and, once the publisher stops, its commands must stop within moments (the drain time printed:
a node that queued what it could not serve goes on publishing commands for old states; rclpy's
EventsExecutor queues one event per message it has not yet served, and the node serves the
newest joint_states of each driver and sheds the rest).
"""

import argparse
import os
import sys
import tempfile
import threading
import time

import numpy as np

from robot_dynamics.tools.processes import start_process_group, stop_process_group

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(REPO, "urdf", "panda_arm.urdf")
NS = "/rd_soak"


def _rss_mb(pid):
    """Resident set size of a process [MB], from /proc/<pid>/status."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _stream(model, rate):
    """10 s of joint states (q, qd, tau) and the matching reference accelerations."""
    t = np.arange(int(10 * rate)) / rate
    q0 = np.array([0.0, -0.4, 0.0, -2.0, 0.0, 1.6, 0.8])
    amp = np.array([0.3, 0.2, 0.3, 0.2, 0.4, 0.3, 0.5])
    w = 2 * np.pi * 0.1  # one period in 10 s: the repeated stream is smooth
    q = q0 + amp * np.sin(w * t)[:, None]
    qd = amp * w * np.cos(w * t)[:, None]
    qdd = -amp * w * w * np.sin(w * t)[:, None]
    f_ext = np.array([0.0, 0.0, -10.0, 0.0, 0.0, 0.0])
    tau = model.inverse_dynamics(q, qd, qdd, f_ext=f_ext)
    return q, qd, qdd, tau


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--reference-rate", type=float, default=0.0)
    parser.add_argument(
        "--warmup", type=float, default=30.0, help="seconds before the growth is measured (30)"
    )
    parser.add_argument(
        "--executor",
        choices=("split_events", "split", "multi_threaded", "events"),
        help="the node's executor parameter (default: the node's default)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a node parameter (YAML value), repeatable",
    )
    parser.add_argument("--sample", type=float, default=10.0, help="RSS sample period [s]")
    parser.add_argument("--domain-id", type=int, default=int(os.environ.get("ROS_DOMAIN_ID") or 73))
    parser.add_argument("--out", help="write the RSS samples (t [s], RSS [MB]) to this CSV")
    args = parser.parse_args()

    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ["ROS_DOMAIN_ID"] = str(args.domain_id)
    import yaml

    tmp = tempfile.mkdtemp(prefix="rd_soak_")
    params = os.path.join(tmp, "dynamics.yaml")
    with open(URDF) as f, open(params, "w") as out:
        yaml.safe_dump(
            {
                "/**": {
                    "ros__parameters": {
                        "robot_description": f.read(),
                        "publish_effort_command": True,
                        "effort_command_source": "feedforward",
                        **({"executor": args.executor} if args.executor else {}),
                        **{
                            name: yaml.safe_load(value)
                            for name, _, value in (p.partition("=") for p in args.param)
                        },
                    }
                }
            },
            out,
        )
    log = open(os.path.join(tmp, "dynamics.log"), "wb")
    proc = start_process_group(
        [
            sys.executable,
            "-m",
            "robot_dynamics.ros.dynamics_node",
            "--ros-args",
            "-r",
            "__ns:=" + NS,
            "--params-file",
            params,
        ],
        log,
        env=dict(os.environ),
    )
    try:
        return _run(args, proc)
    finally:
        stop_process_group(proc, timeout=10.0)
        print(f"[bench_soak] node log: {log.name}")


def _run(args, proc):
    from array import array

    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

    from robot_dynamics import RobotModel

    model = RobotModel.from_urdf_file(URDF)
    q, qd, qdd, tau = _stream(model, args.rate)
    rows = [(array("d", q[i]), array("d", qd[i]), array("d", tau[i])) for i in range(len(q))]
    rclpy.init()
    node = rclpy.create_node("soak_publisher", namespace=NS)
    qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    pub = node.create_publisher(JointState, NS + "/joint_states", qos)
    ref_pub = node.create_publisher(JointTrajectory, NS + "/dynamics_node/reference", qos)
    commands = [0]
    counter = rclpy.create_node("soak_counter", namespace=NS)  # spun in a thread of its own
    counter.create_subscription(
        Float64MultiArray,
        NS + "/dynamics_node/effort_command",
        lambda msg: commands.__setitem__(0, commands[0] + 1),
        QoSProfile(depth=1000),
    )
    executor = SingleThreadedExecutor()
    executor.add_node(counter)
    threading.Thread(target=executor.spin, daemon=True).start()
    deadline = time.monotonic() + 90.0
    while pub.get_subscription_count() < 1:
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError("the dynamics node did not subscribe within 90 s")
        rclpy.spin_once(node, timeout_sec=0.1)
    msg = JointState(name=list(model.joint_names))
    ref = JointTrajectory(joint_names=list(model.joint_names), points=[JointTrajectoryPoint()])
    ref_every = int(round(args.rate / args.reference_rate)) if args.reference_rate > 0 else 0
    period = 1.0 / args.rate
    total = int(round((args.warmup + args.minutes * 60.0) * args.rate))
    samples = []
    next_sample = 0.0
    start = time.perf_counter()
    print(
        f"[bench_soak] publishing {args.rate:g} Hz for {args.warmup:g} s warm-up + "
        f"{args.minutes:g} min (ROS_DOMAIN_ID={args.domain_id})",
        flush=True,
    )
    for i in range(total):
        target = start + i * period
        delay = target - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        k = i % len(rows)
        msg.position, msg.velocity, msg.effort = rows[k]
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(time.time_ns(), 1_000_000_000)
        pub.publish(msg)
        if ref_every and i % ref_every == 0:
            point = ref.points[0]
            point.positions, point.velocities = rows[k][0], rows[k][1]
            point.accelerations = array("d", qdd[k])
            ref_pub.publish(ref)
        if i % 50 == 0:
            elapsed = time.perf_counter() - start
            if elapsed >= next_sample:
                if proc.poll() is not None:
                    raise RuntimeError("the dynamics node died")
                samples.append((elapsed, _rss_mb(proc.pid), commands[0], i + 1))
                next_sample += args.sample
    elapsed = time.perf_counter() - start
    # the drain: how long commands keep coming once the publisher stopped
    stopped = last_change = time.perf_counter()
    seen = commands[0]
    while time.perf_counter() - last_change < 1.0 and time.perf_counter() - stopped < 120.0:
        time.sleep(0.01)
        if commands[0] != seen:
            seen, last_change = commands[0], time.perf_counter()
    drain = last_change - stopped
    samples.append((elapsed, _rss_mb(proc.pid), commands[0], total))
    executor.shutdown(timeout_sec=2.0)
    counter.destroy_node()
    node.destroy_node()
    rclpy.shutdown()

    data = np.array(samples)
    if args.out:
        np.savetxt(args.out, data, delimiter=",", header="t_s,rss_mb,commands,published")
    after = data[data[:, 0] >= args.warmup]
    slope = np.polyfit(after[:, 0], after[:, 1], 1)[0] * 60.0 if len(after) >= 2 else np.nan
    published = total - int(args.warmup * args.rate)
    commands_run = int(data[-1, 2] - after[0, 2]) if len(after) else 0
    print()
    print(
        f"Soak: 7-DOF Panda, joint_states at {args.rate:g} Hz"
        + (f" + ~/reference at {args.reference_rate:g} Hz" if ref_every else "")
        + f" for {args.minutes:g} min after {args.warmup:g} s warm-up, achieved "
        f"{total / elapsed:.0f} Hz"
    )
    print(
        f"RSS of the dynamics node: {after[0, 1]:.1f} MB after the warm-up, "
        f"{data[-1, 1]:.1f} MB at the end: growth {data[-1, 1] - after[0, 1]:+.2f} MB "
        f"({slope:+.3f} MB/min by least squares over {len(after)} samples); "
        f"max {after[:, 1].max():.1f} MB"
    )
    print(
        f"~/effort_command received during the run: {commands_run} for about {published} "
        f"joint_states published ({commands_run / max(published, 1):.1%}); the last command "
        f"{drain * 1e3:.0f} ms after the last joint_states"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
