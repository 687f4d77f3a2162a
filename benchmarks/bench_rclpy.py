#!/usr/bin/env python3
"""rclpy's own CPU per message on this machine: the floor under ``bench_node.py``'s numbers.

``bench_node.py`` compares the dynamics node's CPU per message with a bare relay's. Part of each
is rclpy and the middleware, whatever the node computes. This script measures that part: one
subject process at a time, fed the same 7-joint JointState stream at ``--rate`` and with a
subscriber on every output it publishes (reliable, as ``bench_node.py``'s measurer), and the
CPU time the subject's process spends per message it received:

  relay           robot_dynamics.ros.relay_node's RelayNode, as bench_node.py runs it
                  (SingleThreadedExecutor, one Float64MultiArray out per message)
  single          SingleThreadedExecutor, a callback that does nothing
  events          rclpy's EventsExecutor, a callback that does nothing
  events_task     EventsExecutor, a callback that schedules an executor task that does nothing
                  (the dynamics node's hand-over of joint_states)
  node_floor      EventsExecutor, the dynamics node's serving (at once while it keeps up, else
                  through the hand-over task) publishes what bench_node.py's dynamics node
                  publishes per message (a Float64MultiArray effort command, a JointState of
                  feed-forward torques, a WrenchStamped), reused messages, no math

``node_floor`` / ``relay`` is the ratio a dynamics node with no computation at all would have;
the table ends with the CPU per message left for the node's own work (conversions and the
estimation pipeline) within the 1.3 x target. Each subject spins with
``robot_dynamics.ros.executors.spin_forever``, the nodes' own loop.

Usage: python benchmarks/bench_rclpy.py [--duration 10] [--rate 1000] [--repeat 2]
       [--domain-id N]
Sets ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and ROS_DOMAIN_ID (default: $ROS_DOMAIN_ID, else 74).
"""

import argparse
import json
import os
import sys
import tempfile
import threading
import time

from robot_dynamics.tools.processes import start_process_group, stop_process_group

NS = "/rd_floor"
TOPIC = NS + "/joint_states"
OUTPUTS = {  # topic -> message type name; what the sink subscribes to
    NS + "/relay_node/output": "Float64MultiArray",
    NS + "/effort_command": "Float64MultiArray",
    NS + "/feedforward_torques": "JointState",
    NS + "/external_wrench": "WrenchStamped",
}
VARIANTS = ("relay", "single", "events", "events_task", "node_floor")
WARMUP_S = 2.0
TARGET = 1.3  # dynamics node CPU per message / relay's


def _types():
    from geometry_msgs.msg import WrenchStamped
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    return {
        "Float64MultiArray": Float64MultiArray,
        "JointState": JointState,
        "WrenchStamped": WrenchStamped,
    }


def _reliable():
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)


def run_publisher(args):
    """Publish a 7-joint JointState at --rate until killed."""
    from array import array

    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState

    rclpy.init()
    node = rclpy.create_node("floor_publisher", namespace=NS)
    pub = node.create_publisher(
        JointState, TOPIC, QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    )
    msg = JointState(name=[f"panda_joint{i}" for i in range(1, 8)])
    period = 1.0 / args.rate
    start = time.perf_counter()
    k = 0
    while True:
        k += 1
        delay = start + k * period - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        values = array("d", [0.001 * (k % 1000)] * 7)
        msg.position, msg.velocity, msg.effort = values, values, values
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(time.time_ns(), 1_000_000_000)
        pub.publish(msg)


def run_sink(args):
    """Subscribe (reliable) to every output a subject publishes; spin until killed."""
    import rclpy
    from rclpy.experimental import EventsExecutor

    rclpy.init()
    node = rclpy.create_node("floor_sink", namespace=NS)
    types = _types()
    for topic, type_name in OUTPUTS.items():
        node.create_subscription(types[type_name], topic, lambda msg: None, _reliable())
    executor = EventsExecutor()
    executor.add_node(node)
    while True:
        executor.spin_once(timeout_sec=0.1)


def _subject_node(variant):
    """The subject's node and the count of messages its callback saw (a one-element list)."""
    from array import array

    from rclpy.node import Node

    from robot_dynamics.ros.latest_messages import LatestMessages
    from robot_dynamics.ros.qos import joint_states_qos
    from robot_dynamics.ros.relay_node import RelayNode

    types = _types()
    seen = [0]
    if variant == "relay":

        class CountingRelay(RelayNode):
            def _on_joint_states(self, msg):
                seen[0] += 1
                super()._on_joint_states(msg)

        return CountingRelay(namespace=NS), seen
    node = Node("floor_subject", namespace=NS)
    if variant == "node_floor":
        command = types["Float64MultiArray"]()
        feedforward = types["JointState"](name=[f"panda_joint{i}" for i in range(1, 8)])
        wrench = types["WrenchStamped"]()
        wrench.header.frame_id = "panda_hand"
        outputs = [
            (node.create_publisher(types[OUTPUTS[topic]], topic, 10), message)
            for topic, message in (
                (NS + "/effort_command", command),
                (NS + "/feedforward_torques", feedforward),
                (NS + "/external_wrench", wrench),
            )
        ]
    latest = LatestMessages()  # the dynamics node's hand-over

    def publish(msg):
        command.data = array("d", msg.effort)
        feedforward.header.stamp = wrench.header.stamp = msg.header.stamp
        feedforward.effort = array("d", msg.effort)
        for publisher, message in outputs:
            publisher.publish(message)

    def publish_outputs():
        latest.unschedule()
        while (taken := latest.take()) is not None:
            publish(taken[0])
        latest.served()

    def callback(msg):
        seen[0] += 1
        if variant == "events_task":
            node.executor.create_task(lambda: None)
        elif variant == "node_floor":
            if latest.serve_at_once():
                publish(msg)
                latest.served()
            elif latest.put(tuple(msg.name), msg):
                node.executor.create_task(publish_outputs)

    node.create_subscription(types["JointState"], TOPIC, callback, joint_states_qos())
    return node, seen


def run_subject(args):
    """Spin one variant; print a JSON line: messages seen and process CPU per message."""
    import rclpy

    from robot_dynamics.ros.executors import make_executors, spin_forever

    rclpy.init()
    node, seen = _subject_node(args.variant)
    publishers = [p for p in node.publishers if p.topic_name in OUTPUTS]
    kind = "split" if args.variant in ("relay", "single") else "events"
    (executor,) = make_executors(kind, node)
    halt = threading.Event()
    thread = threading.Thread(
        target=spin_forever, args=(executor, node.context, node.get_logger(), None, halt)
    )
    thread.start()
    deadline = time.monotonic() + 60.0
    while seen[0] == 0 or any(p.get_subscription_count() < 1 for p in publishers):
        if time.monotonic() > deadline:
            print(json.dumps({"error": "no joint_states or no sink within 60 s"}), flush=True)
            os._exit(2)
        time.sleep(0.05)
    time.sleep(WARMUP_S)
    seen0, cpu0, wall0 = seen[0], time.process_time(), time.monotonic()
    time.sleep(args.duration)
    seen1, cpu1, wall1 = seen[0], time.process_time(), time.monotonic()
    received = seen1 - seen0
    print(
        json.dumps(
            {
                "variant": args.variant,
                "received": received,
                "rate": received / (wall1 - wall0),
                "cpu_us": (cpu1 - cpu0) / max(received, 1) * 1e6,
            }
        ),
        flush=True,
    )
    halt.set()
    executor.wake()
    thread.join()
    node.destroy_node()
    rclpy.try_shutdown()


def orchestrate(args):
    env = dict(os.environ)
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env["ROS_DOMAIN_ID"] = str(args.domain_id)
    env["PYTHONUNBUFFERED"] = "1"
    tmp = tempfile.mkdtemp(prefix="rd_bench_rclpy_")
    me = os.path.abspath(__file__)

    def start(role, *extra):
        log = open(os.path.join(tmp, f"{role}{'_'.join(extra)}.log"), "wb")
        argv = [sys.executable, me, "--role", role, "--rate", str(args.rate)]
        argv += ["--duration", str(args.duration), *extra]
        return start_process_group(argv, log, env=env)

    results = {variant: [] for variant in VARIANTS}
    background = [start("publish"), start("sink")]
    try:
        for _ in range(args.repeat):
            for variant in VARIANTS:
                proc = start("subject", "--variant", variant)
                proc.wait(timeout=WARMUP_S + args.duration + 90)
                with open(os.path.join(tmp, f"subject--variant_{variant}.log")) as f:
                    lines = [line for line in f if line.startswith("{")]
                row = json.loads(lines[-1]) if lines else {"error": "no result"}
                if "error" in row:
                    raise RuntimeError(f"{variant}: {row['error']} (logs in {tmp})")
                results[variant].append(row)
    finally:
        for proc in background:
            stop_process_group(proc, timeout=5.0)

    def cpu(variant):
        return min(row["cpu_us"] for row in results[variant])

    relay = cpu("relay")
    print()
    print(
        f"rclpy's CPU per message: 7-joint JointState at {args.rate:g} Hz, {args.duration:g} s "
        f"per subject, best of {args.repeat}, {os.cpu_count()} CPUs (ROS_DOMAIN_ID="
        f"{args.domain_id})"
    )
    header = f"{'subject':14s} {'received Hz':>11s} {'CPU us/msg':>10s} {'vs relay':>8s}"
    print(header)
    print("-" * len(header))
    for variant in VARIANTS:
        rate = min(row["rate"] for row in results[variant])
        print(f"{variant:14s} {rate:11.0f} {cpu(variant):10.1f} {cpu(variant) / relay:8.2f}")
    floor = cpu("node_floor")
    print(
        f"publishing the node's three outputs costs {floor - cpu('events_task'):.0f} us per "
        f"message, the relay's one {relay - cpu('single'):.0f} us; within {TARGET:g} x the "
        f"relay's CPU ({TARGET * relay:.0f} us) the dynamics node has "
        f"{TARGET * relay - floor:.0f} us per message for its own work"
    )
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per subject (10)")
    parser.add_argument("--rate", type=float, default=1000.0, help="publish rate, Hz (1000)")
    parser.add_argument("--repeat", type=int, default=2, help="rounds over the subjects (2)")
    parser.add_argument("--domain-id", type=int, default=int(os.environ.get("ROS_DOMAIN_ID") or 74))
    parser.add_argument(
        "--role",
        choices=("orchestrate", "publish", "sink", "subject"),
        default="orchestrate",
        help=argparse.SUPPRESS,
    )
    parser.add_argument("--variant", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    roles = {"publish": run_publisher, "sink": run_sink, "subject": run_subject}
    return roles.get(args.role, orchestrate)(args)


if __name__ == "__main__":
    sys.exit(main() or 0)
