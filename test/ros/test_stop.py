"""Stopping the node processes at any moment, over real DDS.

``dynamics_node`` (every executor kind in turn) and ``arm_simulator`` are started and stopped
many times at random moments (seeded plan): while starting (imports, rclpy, the first model
build), idle, under 1 kHz traffic (joint_states into the dynamics node; ~/commands into the
simulator, which publishes its joint_states at 1 kHz), and while new models are being built
from the robot_description topic (two descriptions, alternately, every 20 ms). The stop is
SIGINT, SIGTERM, or two signals in a row. Every run must end with exit code 0, with no
traceback and no fatal error in its output.

Each process is started as its console script starts it (the script's two lines, so that this
tree's entry point runs whatever the venv's scripts were generated from). Two runs go on at a
time. The moments are drawn as fractions of the phase they fall in (the start-up phase
measured on this machine), so the plan is the same everywhere and the waits are not speed
requirements. The start-up moments begin once the process catches SIGTERM (its console
script's first line installs the handlers; Linux's /proc/PID/status shows it): a signal before
that gets the system's default action, whatever the program.
"""

import collections
import os
import queue
import random
import signal
import sys
import threading
import time

import pytest
import yaml

from robot_dynamics.ros.executors import EXECUTOR_KINDS
from robot_dynamics.tools.bundled import bundled_urdf_path

pytestmark = [pytest.mark.ros, pytest.mark.slow]

rclpy = pytest.importorskip("rclpy")
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray, String  # noqa: E402

from robot_dynamics.ros.qos import joint_states_qos, robot_description_qos  # noqa: E402

SEED = 7
LANES = 2  # runs at a time
LOADED = r"model loaded from"
WAITING = r"waiting for a URDF on the robot_description topic"
PANDA_JOINTS = [f"panda_joint{i}" for i in range(1, 8)]


def read(path):
    with open(path) as fh:
        return fh.read()


PANDA = read(bundled_urdf_path("panda"))
PENDULUM = read(bundled_urdf_path("double_pendulum"))


def console_script(name):
    """argv that runs console script ``name`` of this tree (what setuptools generates)."""
    return [
        sys.executable,
        "-c",
        f"import sys; from robot_dynamics.ros.process import {name}; sys.exit({name}())",
    ]


def wait_until_signals_caught(pid, timeout=120.0):
    """Wait until process ``pid`` catches SIGINT and SIGTERM (``SigCgt`` in /proc/PID/status);
    at once where /proc is not there."""
    mask = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            with open(f"/proc/{pid}/status") as fh:
                caught = next(int(line.split()[1], 16) for line in fh if line.startswith("SigCgt:"))
        except (OSError, StopIteration):
            return
        if caught & mask == mask:
            return
        time.sleep(0.002)
    raise AssertionError(f"process {pid} did not install its signal handlers in {timeout} s")


class Feed:
    """Publishes from a thread of the test process, ``publish(k)`` every ``period`` seconds."""

    def __init__(self, publish, period):
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(publish, period), daemon=True)
        self._thread.start()

    def _run(self, publish, period):
        k, due = 0, time.monotonic()
        while not self._halt.is_set():
            publish(k)
            k += 1
            due += period
            time.sleep(max(0.0, due - time.monotonic()))

    def stop(self):
        self._halt.set()
        self._thread.join(timeout=10.0)


class Runs:
    """Runs a seeded plan of (node, moment, stop, fraction) over :data:`LANES` lanes."""

    def __init__(self, start_process, test_node, tmp_path, unique_name):
        self.start_process = start_process
        self.node = test_node.node
        self.tmp_path = tmp_path
        self.unique_name = unique_name
        self.lock = threading.Lock()  # the test node's publishers are made in several threads
        self.startup = []  # seconds from the process start to its model, observed
        self.failures = []
        self.done = collections.Counter()

    def publisher(self, msg_type, topic, qos):
        with self.lock:
            return self.node.create_publisher(msg_type, topic, qos)

    def destroy(self, publisher):
        with self.lock:
            self.node.destroy_publisher(publisher)

    def launch(self, script, i, params):
        """Start console script ``script`` as run ``i``, in a namespace of its own, with
        ``params`` in a parameters file; returns (process, namespace)."""
        ns = f"/{self.unique_name}_{i}"
        path = self.tmp_path / f"{script}_{i}.yaml"
        path.write_text(yaml.safe_dump({"/**": {"ros__parameters": params}}))
        argv = console_script(script) + [
            "--ros-args",
            "-r",
            "__ns:=" + ns,
            "--params-file",
            str(path),
        ]
        return self.start_process(argv, name=f"{script}_{i}"), ns

    def feed(self, cleanup, msg_type, topic, qos, period, publish):
        """Call ``publish(publisher, k)`` every ``period`` s on a new publisher of ``topic``;
        the feed is stopped and the publisher destroyed by ``cleanup``."""
        pub = self.publisher(msg_type, topic, qos)
        cleanup.append(lambda: self.destroy(pub))
        cleanup.insert(0, Feed(lambda k: publish(pub, k), period).stop)

    def swap_descriptions(self, cleanup, ns):
        """The Panda and the double pendulum on ``ns``/robot_description in turn, every 20 ms."""
        self.feed(
            cleanup,
            String,
            ns + "/robot_description",
            robot_description_qos(),
            0.02,
            lambda pub, k: pub.publish(String(data=(PANDA, PENDULUM)[k % 2])),
        )

    def startup_time(self):
        with self.lock:
            return sorted(self.startup)[len(self.startup) // 2] if self.startup else 3.0

    def run(self, plan, start):
        """Run every entry of ``plan`` with ``start(i, entry) -> (proc, ready, feeds)``."""
        todo = queue.SimpleQueue()
        for i, entry in enumerate(plan):
            todo.put((i, entry))

        def lane():
            while True:
                try:
                    i, entry = todo.get_nowait()
                except queue.Empty:
                    return
                self.one(i, entry, start)

        lanes = [threading.Thread(target=lane) for _ in range(LANES)]
        for thread in lanes:
            thread.start()
        for thread in lanes:
            thread.join()
        assert not self.failures, "\n\n".join(self.failures)
        assert sum(self.done.values()) == len(plan)

    def one(self, i, entry, start):
        moment, how, fraction = entry[-3:]
        t0 = time.monotonic()
        proc, ready, cleanup = start(i, entry)
        try:
            if moment == "starting":
                # before its handlers a signal gets the system's default action: from there on
                wait_until_signals_caught(proc.pid)
                first = time.monotonic() - t0
                delay = first + fraction * max(0.0, 1.2 * self.startup_time() - first)
                time.sleep(max(0.0, delay - (time.monotonic() - t0)))
            else:
                ready(t0)
                time.sleep(0.3 * fraction)
            first = signal.SIGTERM if how == "SIGTERM" else signal.SIGINT
            os.kill(proc.pid, first)
            if how == "twice":
                time.sleep(0.05 * fraction)
                if proc.is_alive():
                    os.kill(proc.pid, signal.SIGINT)
            try:
                code = proc.popen.wait(timeout=60.0)
            except Exception:  # noqa: BLE001 - reported below
                code = "still running after 60 s"
        finally:
            for undo in cleanup:
                undo()
        output = proc.output()
        bad = [text for text in ("Traceback", "Fatal Python error") if text in output]
        with self.lock:
            self.done[moment] += 1
            if code != 0 or bad:
                self.failures.append(f"run {i} {entry}: exit code {code} {bad}\n" + output[-3000:])


def _plan(rng, count, moments, variants):
    hows = ("SIGINT", "SIGINT", "SIGTERM", "twice")
    return [
        (variants[i % len(variants)], moments[i % len(moments)], rng.choice(hows), rng.random())
        for i in range(count)
    ]


def test_the_dynamics_node_stops_cleanly_at_any_moment(
    start_process, ros_node, tmp_path, unique_name
):
    runs = Runs(start_process, ros_node, tmp_path, unique_name)
    moments = ("starting", "idle", "joint_states", "loading")
    plan = _plan(random.Random(SEED), 32, moments, EXECUTOR_KINDS[::-1])

    def start(i, entry):
        kind, moment = entry[0], entry[1]
        params = {"executor": kind}
        if moment != "loading":
            params["robot_description"] = PANDA
        proc, ns = runs.launch("dynamics_node", i, params)
        cleanup = []

        def ready(t0):
            if moment == "loading":
                proc.wait_for_output(WAITING, timeout=120.0)
                runs.swap_descriptions(cleanup, ns)
            proc.wait_for_output(LOADED, timeout=120.0)
            if moment == "idle":
                with runs.lock:
                    runs.startup.append(time.monotonic() - t0)
            if moment == "joint_states":
                msg = JointState(name=PANDA_JOINTS, position=[0.1] * 7, velocity=[0.0] * 7)
                msg.effort = [1.0] * 7

                def publish(pub, k):
                    msg.header.stamp = runs.node.get_clock().now().to_msg()
                    pub.publish(msg)

                runs.feed(
                    cleanup, JointState, ns + "/joint_states", joint_states_qos(), 0.001, publish
                )
                time.sleep(0.3)  # (discovery)

        return proc, ready, cleanup

    runs.run(plan, start)
    assert runs.done == {moment: 8 for moment in moments}


def test_the_arm_simulator_stops_cleanly_at_any_moment(
    start_process, ros_node, tmp_path, unique_name
):
    runs = Runs(start_process, ros_node, tmp_path, unique_name)
    moments = ("starting", "idle", "commands", "loading")
    plan = _plan(random.Random(SEED + 1), 24, moments, ("arm_simulator",))

    def start(i, entry):
        moment = entry[1]
        params = {"publish_rate": 1000.0}
        if moment in ("starting", "commands"):
            params["robot_description"] = PANDA
        proc, ns = runs.launch("arm_simulator", i, params)
        cleanup = []

        def ready(t0):
            if moment == "idle":  # no model: the node waits for one
                proc.wait_for_output(WAITING, timeout=120.0)
                return
            if moment == "loading":
                proc.wait_for_output(WAITING, timeout=120.0)
                runs.swap_descriptions(cleanup, ns)
            proc.wait_for_output(LOADED, timeout=120.0)
            if moment == "commands":
                with runs.lock:
                    runs.startup.append(time.monotonic() - t0)
                msg = Float64MultiArray(data=[0.0] * 7)
                topic = ns + "/arm_simulator/commands"
                runs.feed(
                    cleanup, Float64MultiArray, topic, 10, 0.001, lambda pub, k: pub.publish(msg)
                )
                time.sleep(0.3)  # (discovery)

        return proc, ready, cleanup

    runs.run(plan, start)
    assert runs.done == {moment: 6 for moment in moments}


@pytest.mark.parametrize("module", ["dynamics_node", "arm_simulator"])
def test_python_m_handles_a_signal_from_before_its_imports(start_process, module, unique_name):
    """``python -m robot_dynamics.ros.<node>`` starts as the console script does: SIGINT and
    SIGTERM are caught before rclpy is imported, and a signal at that moment, one in the middle
    of the imports, ends the process with exit code 0 and no traceback."""
    proc = start_process(
        [
            sys.executable,
            "-m",
            f"robot_dynamics.ros.{module}",
            "--ros-args",
            "-r",
            f"__ns:=/{unique_name}",
        ],
        name=module,
    )
    wait_until_signals_caught(proc.pid)
    with open(f"/proc/{proc.pid}/maps") as fh:
        assert "rclpy" not in fh.read()  # the handlers came first
    os.kill(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=120.0) == 0, proc.output()
    assert "Traceback" not in proc.output(), proc.output()
