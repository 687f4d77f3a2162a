#!/usr/bin/env python3
"""Node benchmark: the dynamics node against a bare rclpy relay, side by side, in one run.

Four processes over real DDS (this machine only):
  publisher  publishes sensor_msgs/JointState of the 7-DOF Panda (urdf/panda_arm.urdf, moving
             along a smooth trajectory, efforts of the model plus a constant external wrench) at
             --rate Hz for --duration s; header.stamp = wall-clock send time.
  relay      robot_dynamics.ros.relay_node: JointState in, Float64MultiArray out, no math
             (the input stamp is copied into the output).
  dynamics   robot_dynamics.ros.dynamics_node: on every message gravity torques, feed-forward
             torques (+ ~/effort_command), momentum-observer external torques and wrench.
  measurer   subscribes to every output and records the DDS reception time of each sample
             minus the input stamp (it polls its readers every 3 ms: little CPU of its own).

Both nodes subscribe to the same joint_states topic. Latency of the dynamics node is reported
for ~/effort_command (the command path, and the relay's counterpart: JointState in,
Float64MultiArray out; the node publishes it first), ~/feedforward_torques (published next) and
~/external_wrench (the last output of each message: the whole processing). ~/effort_command
carries no stamp: each command is paired with the ~/feedforward_torques sample the node
published right after it (DDS source timestamps, before the next command and within
--pair-window), whose header stamp is the input's. Targets: dynamics median latency
<= 1.5 x relay's (judged on the command path), processed >= 99 % of the relay's. Prints a
table, the CPU each node spent per message it processed, and whether the machine was saturated
(then the counts measure CPU starvation); exit code 0 whatever the result (it is a measurement,
not a test); --check makes a missed target exit 1.

--executor picks the dynamics node's threading model (its ``executor`` parameter: split,
split_events, multi_threaded, events). --reference-rate R also streams ~/reference (the
trajectory's point, q qd qdd) at R Hz beside joint_states, as a trajectory controller does
(target: 1 kHz references + 1 kHz joint_states keep >= 99 % processed).

Usage: python benchmarks/bench_node.py [--duration 30] [--rate 1000] [--domain-id N]
       [--executor split_events] [--command-source feedforward] [--reference-rate 1000]
Sets ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and ROS_DOMAIN_ID (default: $ROS_DOMAIN_ID, else 73).
"""

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

from robot_dynamics.tools.processes import start_process_group, stop_process_group

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(REPO, "urdf", "panda_arm.urdf")
NS = "/rd_bench"
TOPIC = NS + "/joint_states"
RELAY_OUT = NS + "/relay_node/output"
DYN = NS + "/dynamics_node"
WARMUP_S = 2.0
TARGET = 1.5  # median ~/effort_command latency / relay's


def _log(text):
    print(f"[bench_node] {text}", flush=True)


# ----------------------------------------------------------------------------- publisher role
def run_publisher(args):
    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from builtin_interfaces.msg import Time

    from robot_dynamics import RobotModel

    model = RobotModel.from_urdf_file(URDF)
    n = model.n
    period = 1.0 / args.rate
    total = int(round((WARMUP_S + args.duration) * args.rate))
    # Precompute the whole stream (the publisher must not be the bottleneck).
    t = np.arange(total) * period
    q0 = np.array([0.0, -0.4, 0.0, -2.0, 0.0, 1.6, 0.8])
    amp = np.array([0.3, 0.2, 0.3, 0.2, 0.4, 0.3, 0.5])
    w = 2 * np.pi * 0.2
    q = q0 + amp * np.sin(w * t)[:, None]
    qd = amp * w * np.cos(w * t)[:, None]
    qdd = -amp * w * w * np.sin(w * t)[:, None]
    f_ext = np.array([0.0, 0.0, -10.0, 0.0, 0.0, 0.0])
    tau = np.empty((total, n))
    for start in range(0, total, 2000):
        sl = slice(start, start + 2000)
        tau[sl] = model.inverse_dynamics(q[sl], qd[sl], qdd[sl], f_ext=f_ext)

    rclpy.init()
    node = rclpy.create_node("bench_publisher", namespace=NS)
    qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    pub = node.create_publisher(JointState, TOPIC, qos)
    ref_pub = None
    if args.reference_rate > 0:
        from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

        ref_pub = node.create_publisher(JointTrajectory, DYN + "/reference", qos)
        ref_every = max(1, int(round(args.rate / args.reference_rate)))
        ref_msg = JointTrajectory(joint_names=list(model.joint_names))
        ref_point = JointTrajectoryPoint()
        ref_msg.points = [ref_point]
        references = 0
    deadline = time.monotonic() + 60.0
    while pub.get_subscription_count() < 2:
        if time.monotonic() > deadline:
            _log("publisher: the two nodes did not subscribe within 60 s")
            sys.exit(2)
        rclpy.spin_once(node, timeout_sec=0.05)
    msg = JointState()
    msg.name = list(model.joint_names)
    from array import array

    rows = [(array("d", q[i]), array("d", qd[i]), array("d", tau[i])) for i in range(total)]
    stamp = Time()
    start = time.perf_counter()
    warm = int(WARMUP_S * args.rate)
    run_start_ns = run_end_ns = 0
    for i in range(total):
        target = start + i * period
        delay = target - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        if i == warm:
            run_start_ns = time.time_ns()
        msg.position, msg.velocity, msg.effort = rows[i]
        now = time.time_ns()
        stamp.sec, stamp.nanosec = divmod(now, 1000000000)
        msg.header.stamp = stamp
        pub.publish(msg)
        if ref_pub is not None and i % ref_every == 0:
            ref_point.positions, ref_point.velocities = rows[i][0], rows[i][1]
            ref_point.accelerations = array("d", qdd[i])
            ref_pub.publish(ref_msg)
            references += i >= warm
    run_end_ns = time.time_ns()
    elapsed = time.perf_counter() - start
    with open(args.out, "w") as f:
        json.dump(
            {
                "run_start_ns": run_start_ns,
                "run_end_ns": run_end_ns,
                "published": total - warm,
                "references": references if ref_pub is not None else 0,
                "achieved_rate": total / elapsed,
                "cpu_seconds": time.process_time(),
            },
            f,
        )
    node.destroy_node()
    rclpy.shutdown()


# ----------------------------------------------------------------------------- measurer role
def run_measurer(args):
    """Records (input stamp, arrival time) of every output.

    The arrival time is the DDS reception timestamp of the sample at this reader
    (``received_timestamp``), so the measurer need not wake up for each message: it takes the
    queued samples every few milliseconds, which keeps its own CPU use (and its influence on the
    two nodes) small.
    """
    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from geometry_msgs.msg import WrenchStamped
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    rclpy.init()
    node = rclpy.create_node("bench_measurer", namespace=NS)
    qos = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    cap = int((WARMUP_S + args.duration) * args.rate * 1.2) + 1000

    def relay_stamp(msg):
        return int(msg.data[0]) * 1000000000 + int(msg.data[1])

    def header_stamp(msg):
        return msg.header.stamp.sec * 1000000000 + msg.header.stamp.nanosec

    streams = {
        "relay": (Float64MultiArray, RELAY_OUT, relay_stamp),
        "feedforward": (JointState, DYN + "/feedforward_torques", header_stamp),
        "wrench": (WrenchStamped, DYN + "/external_wrench", header_stamp),
        # the controller's side of ~/effort_command (no stamp in it: paired afterwards)
        "command": (Float64MultiArray, DYN + "/effort_command", lambda msg: 0),
    }
    subs, data = {}, {}
    for key, (msg_type, topic, stamp_of) in streams.items():
        subs[key] = node.create_subscription(msg_type, topic, lambda msg: None, qos)
        data[key] = (
            np.zeros(cap, dtype=np.int64),
            np.zeros(cap, dtype=np.int64),
            np.zeros(cap, dtype=np.int64),
            [0],
        )
    deadline = time.monotonic() + 60.0
    while any(sub.get_publisher_count() < 1 for sub in subs.values()):
        if time.monotonic() > deadline:
            _log("measurer: outputs not matched within 60 s")
            sys.exit(2)
        time.sleep(0.05)
    print("MEASURER READY", flush=True)

    def drain():
        for key, sub in subs.items():
            sent, arrived, source, count = data[key]
            stamp_of = streams[key][2]
            while True:
                with sub.handle:
                    taken = sub.handle.take_message(sub.msg_type, False)
                if taken is None:
                    break
                i = count[0]
                if i < cap:
                    sent[i] = stamp_of(taken[0])
                    arrived[i] = taken[1]["received_timestamp"]
                    source[i] = taken[1]["source_timestamp"]
                    count[0] = i + 1

    while not os.path.exists(args.stop):
        drain()
        time.sleep(0.003)
    drain()
    out = {}
    for key, (sent, arrived, source, count) in data.items():
        out[key + "_sent"] = sent[: count[0]]
        out[key + "_arrived"] = arrived[: count[0]]
        out[key + "_source"] = source[: count[0]]
    np.savez(args.out, **out)
    node.destroy_node()
    rclpy.shutdown()


# ----------------------------------------------------------------------------- orchestration
def _start(argv, log_path, env, cpu=None):
    log = open(log_path, "wb")
    preexec = None
    if cpu is not None:

        def preexec():
            os.sched_setaffinity(0, {cpu})

    return start_process_group(argv, log, env=env, preexec_fn=preexec)


def _wait_for(path_or_proc_check, timeout, what):
    deadline = time.monotonic() + timeout
    while not path_or_proc_check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _cpu_seconds(pid):
    """user + system CPU time of a process (and its threads) so far [s], from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def _stats(sent, arrived, start_ns, end_ns):
    keep = (sent >= start_ns) & (sent <= end_ns)
    lat = (arrived[keep] - sent[keep]) / 1000.0  # microseconds
    if lat.size == 0:
        return 0, float("nan"), float("nan"), float("nan")
    return int(lat.size), float(np.median(lat)), float(np.percentile(lat, 99)), float(lat.mean())


def _pair_commands(data, window_ns):
    """Input stamps of the ~/effort_command samples, from the ~/feedforward_torques sample the
    node published right after each: the first one with a source timestamp at or after the
    command's, before the next command's and within window_ns (the node publishes the command,
    finishes the estimation, then the feed-forward torques). Returns (stamps (k,) int64 ns, 0
    where unpaired; number unpaired)."""
    cmd_src = data["command_source"]
    ff_src, ff_sent = data["feedforward_source"], data["feedforward_sent"]
    stamps = np.zeros(cmd_src.shape, dtype=np.int64)
    if ff_src.size == 0 or cmd_src.size == 0:
        return stamps, int(cmd_src.size)
    order = np.argsort(ff_src, kind="stable")
    ff_src, ff_sent = ff_src[order], ff_sent[order]
    cmd_order = np.argsort(cmd_src, kind="stable")
    cmd_sorted = cmd_src[cmd_order]
    j = np.searchsorted(ff_src, cmd_sorted, side="left")
    ok = j < ff_src.size
    j = np.minimum(j, ff_src.size - 1)
    gap = ff_src[j] - cmd_sorted
    ok &= gap <= window_ns
    ok[:-1] &= ff_src[j[:-1]] < cmd_sorted[1:]  # not the sample of the next command
    paired = np.zeros(cmd_src.shape, dtype=np.int64)
    paired[ok] = ff_sent[j[ok]]
    stamps[cmd_order] = paired
    return stamps, int(np.count_nonzero(~ok))


def orchestrate(args):
    import yaml

    env = dict(os.environ)
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env["ROS_DOMAIN_ID"] = str(args.domain_id)
    env["PYTHONUNBUFFERED"] = "1"
    tmp = tempfile.mkdtemp(prefix="rd_bench_node_")
    params = os.path.join(tmp, "dynamics.yaml")
    with open(URDF) as f:
        urdf = f.read()
    with open(params, "w") as f:
        yaml.safe_dump(
            {
                "/**": {
                    "ros__parameters": {
                        "robot_description": urdf,
                        "wrench_estimation": "momentum_observer",
                        "observer_gain": 50.0,
                        "publish_effort_command": True,
                        "effort_command_source": args.command_source,
                        "diagnostics_period": 1.0,
                        "executor": args.executor,
                        "reference_timeout": 0.5,
                    }
                }
            },
            f,
        )
    py = sys.executable
    me = os.path.abspath(__file__)
    # --pin: the relay on one CPU, the dynamics node on another (same conditions for both),
    # publisher and measurer free to run anywhere.
    available = sorted(os.sched_getaffinity(0))
    cpus = available[:2] if args.pin and len(available) >= 2 else None
    stop = os.path.join(tmp, "stop")
    procs = {}
    try:
        procs["relay"] = _start(
            [
                py,
                "-m",
                "robot_dynamics.ros.relay_node",
                "--ros-args",
                "-r",
                "__ns:=" + NS,
                "-r",
                "joint_states:=" + TOPIC,
            ],
            os.path.join(tmp, "relay.log"),
            env,
            cpu=cpus[0] if cpus else None,
        )
        procs["dynamics"] = _start(
            [
                py,
                "-m",
                "robot_dynamics.ros.dynamics_node",
                "--ros-args",
                "-r",
                "__ns:=" + NS,
                "-r",
                "joint_states:=" + TOPIC,
                "--params-file",
                params,
            ],
            os.path.join(tmp, "dynamics.log"),
            env,
            cpu=cpus[1] if cpus else None,
        )
        measurer_log = os.path.join(tmp, "measurer.log")
        procs["measurer"] = _start(
            [
                py,
                me,
                "--role",
                "measure",
                "--duration",
                str(args.duration),
                "--rate",
                str(args.rate),
                "--out",
                os.path.join(tmp, "measure.npz"),
                "--stop",
                stop,
            ],
            measurer_log,
            env,
        )

        def measurer_ready():
            if procs["measurer"].poll() is not None:
                raise RuntimeError("measurer exited: " + open(measurer_log).read())
            return "MEASURER READY" in open(measurer_log).read()

        _wait_for(measurer_ready, 90, "the nodes and the measurer to connect")
        _log(
            f"nodes up; publishing {args.rate:g} Hz for {WARMUP_S:g} s warm-up + "
            f"{args.duration:g} s (ROS_DOMAIN_ID={args.domain_id})"
        )
        cpu_before = {k: _cpu_seconds(procs[k].pid) for k in ("relay", "dynamics", "measurer")}
        pub_out = os.path.join(tmp, "publisher.json")
        procs["publisher"] = _start(
            [
                py,
                me,
                "--role",
                "publish",
                "--duration",
                str(args.duration),
                "--rate",
                str(args.rate),
                "--reference-rate",
                str(args.reference_rate),
                "--out",
                pub_out,
            ],
            os.path.join(tmp, "publisher.log"),
            env,
        )
        code = procs["publisher"].wait(timeout=WARMUP_S + args.duration + 120)
        if code != 0:
            raise RuntimeError(
                "publisher failed: " + open(os.path.join(tmp, "publisher.log")).read()
            )
        cpu = {k: _cpu_seconds(procs[k].pid) - cpu_before[k] for k in cpu_before}
        time.sleep(1.0)  # drain
        for key in ("relay", "dynamics"):
            if procs[key].poll() is not None:
                raise RuntimeError(
                    f"{key} node died: " + open(os.path.join(tmp, key + ".log")).read()
                )
        open(stop, "w").close()
        procs["measurer"].wait(timeout=60)
        with open(pub_out) as f:
            pub = json.load(f)
        data = np.load(os.path.join(tmp, "measure.npz"))
    finally:
        for proc in procs.values():
            stop_process_group(proc, timeout=10.0)
    start_ns, end_ns = pub["run_start_ns"], pub["run_end_ns"]
    command_sent, unpaired = _pair_commands(data, int(args.pair_window * 1000))
    rows = {"command": _stats(command_sent, data["command_arrived"], start_ns, end_ns)}
    for key in ("relay", "feedforward", "wrench"):
        rows[key] = _stats(data[key + "_sent"], data[key + "_arrived"], start_ns, end_ns)
    relay_count, relay_median, relay_p99, _ = rows["relay"]
    published = pub["published"]
    print()
    print(
        f"Node benchmark: 7-DOF Panda, {args.rate:g} Hz for {args.duration:g} s "
        f"({published} messages published, achieved {pub['achieved_rate']:.0f} Hz), "
        f"{os.cpu_count()} CPUs, executor {args.executor}, effort command = "
        f"{args.command_source} torques, "
        + (
            f"~/reference at {args.reference_rate:g} Hz ({pub['references']} sent), "
            if args.reference_rate > 0
            else ""
        )
        + (
            f"relay pinned to CPU {cpus[0]}, dynamics node to CPU {cpus[1]}"
            if cpus
            else "no CPU pinning"
        )
    )
    header = (
        f"{'output':46s} {'processed':>9s} {'vs relay':>8s} {'median us':>10s} "
        f"{'p99 us':>9s} {'median/relay':>12s} {'p99/relay':>9s}"
    )
    print(header)
    print("-" * len(header))
    labels = {
        "relay": "relay_node ~/output (no math)",
        "command": "dynamics_node ~/effort_command (command path)",
        "feedforward": "dynamics_node ~/feedforward_torques",
        "wrench": "dynamics_node ~/external_wrench (all done)",
    }
    for key in ("relay", "command", "feedforward", "wrench"):
        count, median, p99, _ = rows[key]
        print(
            f"{labels[key]:46s} {count:9d} {count / max(relay_count, 1):8.1%} {median:10.1f} "
            f"{p99:9.1f} {median / relay_median:12.2f} {p99 / relay_p99:9.2f}"
        )
    total = WARMUP_S + args.duration
    cpu["publisher"] = pub.get("cpu_seconds", float("nan"))
    print(
        f"CPU used during the run (warm-up included, {total:g} s): relay {cpu['relay']:.1f} s "
        f"({cpu['relay'] / total:.0%} of a core), dynamics {cpu['dynamics']:.1f} s "
        f"({cpu['dynamics'] / total:.0%}), measurer {cpu['measurer']:.1f} s "
        f"({cpu['measurer'] / total:.0%}), publisher {cpu['publisher']:.1f} s "
        f"({cpu['publisher'] / total:.0%}); per published message: relay "
        f"{cpu['relay'] / (total * args.rate) * 1e6:.0f} us, dynamics "
        f"{cpu['dynamics'] / (total * args.rate) * 1e6:.0f} us"
    )
    # CPU per message each node processed (warm-up included on both sides): what a message
    # costs each, whatever the machine's load
    handled = {
        "relay": relay_count * total / args.duration,
        "dynamics": rows["wrench"][0] * total / args.duration,
    }
    per = {k: cpu[k] / max(handled[k], 1.0) * 1e6 for k in handled}
    print(
        f"CPU per processed message: relay {per['relay']:.0f} us, dynamics "
        f"{per['dynamics']:.0f} us ({per['dynamics'] / per['relay']:.2f} x the relay's); "
        f"the dynamics node alone on a free core would sustain ~{1e6 / per['dynamics']:.0f} Hz"
    )
    cores = len(os.sched_getaffinity(0))
    busy = sum(cpu.values()) / (cores * total)
    if busy > 0.85:
        print(
            f"the machine was saturated: the four processes used {busy:.0%} of its {cores} "
            f"CPUs, so the processed counts measure CPU starvation as much as the nodes"
        )
    if unpaired:
        print(
            f"{unpaired} ~/effort_command samples had no ~/feedforward_torques sample within "
            f"{args.pair_window:g} us (left out of its latency)"
        )
    ok_latency = rows["command"][1] <= TARGET * relay_median
    ok_latency_ff = rows["feedforward"][1] <= TARGET * relay_median
    ok_latency_all = rows["wrench"][1] <= TARGET * relay_median
    ok_count = (
        min(rows["command"][0], rows["feedforward"][0], rows["wrench"][0]) >= 0.99 * relay_count
    )
    print()
    print(
        f"target median latency <= 1.5 x relay: command path "
        f"{'MET' if ok_latency else 'MISSED'} ({rows['command'][1] / relay_median:.2f}x); "
        f"for information: feed-forward torques {'within' if ok_latency_ff else 'beyond'} "
        f"({rows['feedforward'][1] / relay_median:.2f}x), whole processing "
        f"{'within' if ok_latency_all else 'beyond'} ({rows['wrench'][1] / relay_median:.2f}x)"
    )
    print(f"target processed >= 99% of relay: {'MET' if ok_count else 'MISSED'}")
    if args.keep:
        _log(f"logs and raw data kept in {tmp}")
    return 0 if (ok_latency and ok_count) or not args.check else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds (30)")
    parser.add_argument("--rate", type=float, default=1000.0, help="publish rate, Hz (1000)")
    parser.add_argument("--domain-id", type=int, default=int(os.environ.get("ROS_DOMAIN_ID") or 73))
    parser.add_argument(
        "--pin", action="store_true", help="pin the relay and the dynamics node to one CPU each"
    )
    parser.add_argument(
        "--command-source",
        choices=("gravity", "feedforward"),
        default="gravity",
        help="the node's effort_command_source (gravity, its default)",
    )
    parser.add_argument(
        "--pair-window",
        type=float,
        default=20000.0,
        help="most microseconds between a command and its feed-forward sample (the estimation "
        "runs between them)",
    )
    parser.add_argument(
        "--executor",
        choices=("split", "split_events", "multi_threaded", "events"),
        default="split_events",
        help="the dynamics node's executor parameter (split_events, its default)",
    )
    parser.add_argument(
        "--reference-rate",
        type=float,
        default=0.0,
        help="also stream ~/reference at this rate [Hz] (0: none)",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--keep", action="store_true", help="keep the logs and raw data")
    parser.add_argument(
        "--role",
        choices=("orchestrate", "publish", "measure"),
        default="orchestrate",
        help=argparse.SUPPRESS,
    )
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--stop", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "publish":
        return run_publisher(args)
    if args.role == "measure":
        return run_measurer(args)
    return orchestrate(args)


if __name__ == "__main__":
    sys.exit(main() or 0)
