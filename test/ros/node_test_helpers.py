"""Test-process side of the dynamics-node tests: talk to the node over DDS.

Every wait is bounded by a generous timeout (a hang guard, not a speed requirement); waits poll
for a condition (discovery, matching, a received message) instead of sleeping fixed times.
"""

import os
import time

import numpy as np

from rclpy.parameter import Parameter
from rclpy.time import Time
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from rcl_interfaces.srv import GetParameters, SetParameters
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from robot_dynamics_interfaces.srv import (
    ComputeInverseDynamics,
    GetMassMatrix,
    SimulateForwardDynamics,
)

TIMEOUT = 60.0
NS_PER_S = 1_000_000_000
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PANDA_URDF = os.path.join(REPO, "urdf", "panda_arm.urdf")
PENDULUM_URDF = os.path.join(REPO, "urdf", "double_pendulum.urdf")
Q = np.array([0.1, -0.3, 0.2, -1.8, 0.1, 1.5, 0.3])  # a Panda configuration [rad]
F_EXT = np.array([2.0, -3.0, 5.0, 0.2, -0.1, 0.3])  # on the tool, base axes, N and N m


def read(path):
    with open(path) as f:
        return f.read()


class Inbox:
    """Messages received on one topic (all of them, in order)."""

    def __init__(self):
        self.messages = []

    def __call__(self, msg):
        self.messages.append(msg)

    @property
    def last(self):
        return self.messages[-1] if self.messages else None

    def clear(self):
        self.messages = []


class SimClient:
    """Talks to one arm_simulator process from the test's rclpy node."""

    def __init__(self, ros_node, proc, ns):
        self.ros = ros_node
        self.proc = proc
        self.ns = ns
        node = ros_node.node
        self.states = []  # (stamp_ns, names, q, qd, effort)
        self.applied = []  # (stamp_ns, frame_id, wrench)
        self.clock = []
        node.create_subscription(JointState, ns + "/joint_states", self._on_js, 1000)
        node.create_subscription(
            WrenchStamped, ns + "/arm_simulator/applied_wrench", self._on_applied, 1000
        )
        self.cmd_pub = node.create_publisher(Float64MultiArray, ns + "/arm_simulator/commands", 10)
        self.wrench_pub = node.create_publisher(
            WrenchStamped, ns + "/arm_simulator/external_wrench", 10
        )
        self.reset_client = node.create_client(Trigger, ns + "/arm_simulator/reset")
        self.param_client = node.create_client(SetParameters, ns + "/arm_simulator/set_parameters")

    def set_parameters(self, **values):
        """Set parameters at run time; returns the SetParametersResult list."""
        request = SetParameters.Request()
        request.parameters = [
            Parameter(name, value=value).to_parameter_msg() for name, value in values.items()
        ]
        return self.ros.call(self.param_client, request, 60.0).results

    def _on_js(self, msg):
        stamp = msg.header.stamp.sec * NS_PER_S + msg.header.stamp.nanosec
        self.states.append(
            (
                stamp,
                list(msg.name),
                np.array(msg.position),
                np.array(msg.velocity),
                np.array(msg.effort),
            )
        )

    def _on_applied(self, msg):
        stamp = msg.header.stamp.sec * NS_PER_S + msg.header.stamp.nanosec
        f, t = msg.wrench.force, msg.wrench.torque
        self.applied.append((stamp, msg.header.frame_id, np.array([f.x, f.y, f.z, t.x, t.y, t.z])))

    def wait_states(self, count=1, timeout=30.0):
        start = len(self.states)
        ok = self.ros.spin_until(lambda: len(self.states) >= start + count, timeout)
        assert ok, "no joint_states from arm_simulator:\n" + self.proc.output()

    def command(self, values):
        self.cmd_pub.publish(Float64MultiArray(data=[float(v) for v in values]))

    def push(self, wrench, frame):
        msg = WrenchStamped()
        msg.header.frame_id = frame
        (
            msg.wrench.force.x,
            msg.wrench.force.y,
            msg.wrench.force.z,
            msg.wrench.torque.x,
            msg.wrench.torque.y,
            msg.wrench.torque.z,
        ) = (float(v) for v in wrench)
        self.wrench_pub.publish(msg)

    def release(self, n, timeout=20.0):
        """Publish zero commands until the braked arm moves; return the release step index info."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.command(np.zeros(n))
            self.ros.spin_for(0.05)
            if any(np.any(s[3] != 0) for s in self.states[-5:]):
                return
        raise AssertionError("the arm never started moving:\n" + self.proc.output())

    def motion_since_release(self):
        """(stamps_ns, q, qd) of the messages from the last one at rest before the motion on."""
        moving = [i for i, s in enumerate(self.states) if np.any(s[3] != 0)]
        first = moving[0]
        assert first > 0, "the message at the release step was not received"
        sel = self.states[first - 1 :]
        stamps = np.array([s[0] for s in sel], dtype=np.int64)
        assert np.all(np.diff(stamps) > 0)
        return stamps, np.array([s[2] for s in sel]), np.array([s[3] for s in sel])


class NodeClient:
    """Endpoints of one dynamics node under test, from the test process."""

    OUTPUTS = {
        "gravity_torques": JointState,
        "feedforward_torques": JointState,
        "external_torques": JointState,
        "external_wrench": WrenchStamped,
        "effort_command": Float64MultiArray,
    }

    def __init__(self, test_node, proc, ns, node_name="dynamics_node"):
        self.t = test_node
        self.node = test_node.node
        self.proc = proc
        self.ns = ns
        self.fq = ns + "/" + node_name
        self.inbox = {}
        self._subs = {}
        for name, msg_type in self.OUTPUTS.items():
            self.inbox[name] = Inbox()
            self._subs[name] = self.node.create_subscription(
                msg_type, self.fq + "/" + name, self.inbox[name], 100
            )
        self.inbox["diagnostics"] = Inbox()
        self._subs["diagnostics"] = self.node.create_subscription(
            DiagnosticArray, "/diagnostics", self._on_diagnostics, 100
        )
        self.joint_pub = self.node.create_publisher(JointState, ns + "/joint_states", 100)
        self.reference_pub = self.node.create_publisher(JointTrajectory, self.fq + "/reference", 10)
        self.description_pub = self.node.create_publisher(
            String,
            ns + "/robot_description",
            QoSProfile(
                depth=1,
                reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.TRANSIENT_LOCAL,
            ),
        )
        self.clients = {
            "get_mass_matrix": self.node.create_client(GetMassMatrix, self.fq + "/get_mass_matrix"),
            "simulate": self.node.create_client(SimulateForwardDynamics, self.fq + "/simulate"),
            "compute_inverse_dynamics": self.node.create_client(
                ComputeInverseDynamics, self.fq + "/compute_inverse_dynamics"
            ),
            "set_parameters": self.node.create_client(SetParameters, self.fq + "/set_parameters"),
            "get_parameters": self.node.create_client(GetParameters, self.fq + "/get_parameters"),
        }
        self._stamp_ns = time.time_ns()

    # -------------------------------------------------------------- discovery
    def wait_connected(self, outputs=("gravity_torques",)):
        """Wait until the node subscribes to joint_states and publishes ``outputs``."""
        ok = self.t.spin_until(
            lambda: (
                self.joint_pub.get_subscription_count() >= 1
                and all(self._subs[o].get_publisher_count() >= 1 for o in outputs)
            ),
            TIMEOUT,
        )
        assert ok, "dynamics node not matched on joint_states/outputs"
        self.proc.assert_alive()

    def _on_diagnostics(self, msg):
        for status in msg.status:
            if status.name.startswith(self.fq + ":"):
                self.inbox["diagnostics"](status)

    # -------------------------------------------------------------- joint states
    def joint_state(self, names, position=None, velocity=None, effort=None, stamp_ns=None):
        msg = JointState()
        if stamp_ns is None:
            self._stamp_ns += 1000000
            stamp_ns = self._stamp_ns
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(int(stamp_ns), 1000000000)
        msg.name = list(names)
        for field, values in (("position", position), ("velocity", velocity), ("effort", effort)):
            if values is not None:
                setattr(msg, field, [float(v) for v in values])
        return msg

    def publish(self, msg):
        self.joint_pub.publish(msg)

    def publish_until(
        self, make_msg, output, predicate=lambda m: True, timeout=TIMEOUT, period=0.02
    ):
        """Publish make_msg() every ``period`` s until a message on ``output`` satisfies
        predicate; returns it (AssertionError on timeout)."""
        inbox = self.inbox[output]
        deadline = time.monotonic() + timeout
        seen = len(inbox.messages)
        while time.monotonic() < deadline:
            self.publish(make_msg())
            self.t.spin_for(period)
            for msg in inbox.messages[seen:]:
                if predicate(msg):
                    return msg
            seen = len(inbox.messages)
        self.proc.assert_alive()
        raise AssertionError(
            f"no matching message on {output} within {timeout} s ({len(inbox.messages)} received)"
        )

    def wait_for(self, output, predicate=lambda m: True, timeout=TIMEOUT):
        inbox = self.inbox[output]
        found = []

        def check():
            for msg in inbox.messages:
                if predicate(msg):
                    found.append(msg)
                    return True
            return False

        assert self.t.spin_until(check, timeout), f"no matching message on {output}"
        return found[0]

    # -------------------------------------------------------------- services / parameters
    def call(self, service, request, timeout=TIMEOUT):
        return self.t.call(self.clients[service], request, timeout)

    def set_parameters(self, **values):
        """Set parameters (``payload__mass=1.0`` for ``payload.mass``); returns the results."""
        request = SetParameters.Request()
        request.parameters = [
            Parameter(name.replace("__", "."), value=value).to_parameter_msg()
            for name, value in values.items()
        ]
        return self.call("set_parameters", request).results

    def set_parameter_typed(self, name, type_, value):
        request = SetParameters.Request()
        request.parameters = [Parameter(name, type_, value).to_parameter_msg()]
        return self.call("set_parameters", request).results[0]

    def get_parameter(self, name):
        request = GetParameters.Request(names=[name])
        value = self.call("get_parameters", request).values[0]
        return Parameter.from_parameter_msg(type("P", (), {"name": name, "value": value})()).value

    def diagnostics(self, predicate=lambda status, values: True, timeout=TIMEOUT):
        """The first diagnostics status of this node received from now on for which
        predicate(status, {key: value}) holds, as (status, {key: value})."""
        inbox = self.inbox["diagnostics"]
        inbox.clear()
        found = []

        def check():
            for status in inbox.messages:
                values = {kv.key: kv.value for kv in status.values}
                if predicate(status, values):
                    found.append((status, values))
                    return True
            return False

        assert self.t.spin_until(check, timeout), "no matching diagnostics status"
        return found[0]

    def diagnostics_while_publishing(self, make_msg, predicate, timeout=TIMEOUT, period=0.02):
        """Publish make_msg() every ``period`` s until a diagnostics status of this node
        satisfies predicate(status, {key: value}); returns (status, {key: value})
        (AssertionError with the last statuses seen on timeout)."""
        inbox = self.inbox["diagnostics"]
        inbox.clear()
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            self.publish(make_msg())
            self.t.spin_for(period)
            for status in inbox.messages:
                values = {kv.key: kv.value for kv in status.values}
                if predicate(status, values):
                    return status, values
                seen.append(status.message)
            inbox.clear()
        self.proc.assert_alive()
        raise AssertionError(f"no matching diagnostics status; the last: {seen[-3:]}")


def stamp_ns(msg):
    """The header stamp of a message [ns]."""
    return Time.from_msg(msg.header.stamp).nanoseconds


def efforts(msg, names):
    """Effort of a JointState output reordered to ``names``."""
    lookup = dict(zip(msg.name, msg.effort))
    return np.array([lookup[name] for name in names])


def wrench_array(msg):
    w = msg.wrench
    return np.array([w.force.x, w.force.y, w.force.z, w.torque.x, w.torque.y, w.torque.z])


def in_tip_frame(model, q, wrench):
    """A wrench [f; n] in base axes with its moment about the tip origin, as a force-torque
    sensor at the tip reads it (ROS semantics: tip axes, moment about the tip origin)."""
    R = model.frame_pose(q)[:3, :3]
    return np.concatenate([R.T @ wrench[:3], R.T @ wrench[3:]])


def trajectory(names, positions, velocities=None, accelerations=None, dt=0.01):
    traj = JointTrajectory()
    traj.joint_names = list(names)
    for i, q in enumerate(positions):
        point = JointTrajectoryPoint()
        point.positions = [float(v) for v in q]
        if velocities is not None:
            point.velocities = [float(v) for v in velocities[i]]
        if accelerations is not None:
            point.accelerations = [float(v) for v in accelerations[i]]
        t = i * dt
        point.time_from_start.sec = int(t)
        point.time_from_start.nanosec = int(round((t - int(t)) * 1e9))
        traj.points.append(point)
    return traj
