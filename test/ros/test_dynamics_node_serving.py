"""How the dynamics node is served, the node a separate process over real DDS: every executor
kind end to end, an overloaded node serving the newest state and shedding the rest, a driver
already streaming when the node starts (its backlog is no overload), joint_states read as the
user's QoS overrides say, and the relay node (the benchmarks' baseline).

Every wait polls for a condition with a generous timeout (a hang guard, never a speed
requirement).
"""

import numpy as np
import pytest

from node_test_helpers import PANDA_URDF, PENDULUM_URDF, Q, TIMEOUT, efforts, read

from rclpy.duration import Duration
from rclpy.qos import ReliabilityPolicy

from robot_dynamics.ros.latest_messages import START_S
from robot_dynamics_interfaces.srv import GetMassMatrix

pytestmark = pytest.mark.ros


def test_relay_node_relays(start_process, console_script, ros_node, unique_name):
    """The benchmark's baseline: JointState in, [stamp.sec, stamp.nanosec, *effort] out."""
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    ns = "/" + unique_name
    proc = start_process(
        console_script("relay_node") + ["--ros-args", "-r", "__ns:=" + ns], name="relay_node"
    )
    got = []
    sub = ros_node.node.create_subscription(
        Float64MultiArray, ns + "/relay_node/output", got.append, 10
    )
    pub = ros_node.node.create_publisher(JointState, ns + "/joint_states", 10)
    assert ros_node.spin_until(
        lambda: pub.get_subscription_count() >= 1 and sub.get_publisher_count() >= 1, 60.0
    )
    msg = JointState(name=["a", "b"], position=[1.0, 2.0], effort=[3.5, -4.25])
    msg.header.stamp.sec, msg.header.stamp.nanosec = 1234, 567890

    def relayed():
        pub.publish(msg)
        ros_node.spin_for(0.05)
        return bool(got)

    assert ros_node.spin_until(relayed, 60.0)
    assert list(got[0].data) == [1234.0, 567890.0, 3.5, -4.25]
    proc.assert_alive()


@pytest.mark.parametrize("executor", ["multi_threaded", "split", "events"])
def test_other_executor_kinds_serve_the_node(dynamics_node, panda, executor):
    """The benchmark's other threading models work end to end (the default, split_events, is
    used by every other test): gravity torques, a service, a refused message, and the node stays
    up."""
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF), executor=executor)
    node.wait_connected()
    assert node.get_parameter("executor") == executor
    node.publish(node.joint_state(names + names[:1], np.concatenate([Q, Q[:1]])))  # refused
    msg = node.publish_until(lambda: node.joint_state(names, Q), "gravity_torques")
    np.testing.assert_allclose(efforts(msg, names), panda.gravity_torques(Q), atol=1e-9)
    res = node.call("get_mass_matrix", GetMassMatrix.Request())
    assert res.success, res.message
    node.proc.assert_alive()


def test_an_overloaded_node_serves_the_newest_state_and_sheds_the_rest(
    dynamics_node, panda, unique_name
):
    """joint_states far faster than the node serves them: it processes the newest message,
    sheds the older ones (counted in /diagnostics), queues nothing (every message it received
    was processed or shed, and its outputs stop with the stream)."""
    names = list(panda.joint_names)
    # joint_states read reliably (the node's QoS overrides): a best-effort reader may lose the
    # burst's newest samples at the transport for good, and then the newest it served is older
    reliable = {f"/{unique_name}/joint_states": {"subscription": {"reliability": "reliable"}}}
    node = dynamics_node(urdf=read(PANDA_URDF), diagnostics_period=0.2, qos_overrides=reliable)
    node.wait_connected(outputs=("feedforward_torques",))
    node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7)), "feedforward_torques")
    node.t.spin_for(START_S)  # past the start, whose shedding is counted apart
    count = 3000
    burst = [node.joint_state(names, Q + 1e-4 * k, np.zeros(7)) for k in range(count)]
    stamps = [m.header.stamp.sec * 10**9 + m.header.stamp.nanosec for m in burst]
    for msg in burst:  # as fast as this process publishes: many times the node's rate
        node.publish(msg)
    # every sample the publisher still holds (its newest) has reached the node's reader
    assert node.joint_pub.wait_for_all_acked(Duration(seconds=TIMEOUT))
    node.t.spin_for(1.0)
    inbox = node.inbox["feedforward_torques"]
    seen = len(inbox.messages)
    node.t.spin_for(1.0)
    assert len(inbox.messages) == seen  # nothing left to serve a second after the stream ended

    def accounted(status, values):
        received = int(values["messages_received"])
        shed = int(values["messages_shed"])
        return shed > 0 and received == int(values["messages_processed"]) + shed

    node.diagnostics(accounted)
    node.proc.wait_for_output(
        r"arriving faster than the node serves them: \d+ of \d+ shed", timeout=TIMEOUT
    )
    last = inbox.messages[-1].header.stamp
    # the last state served is among the newest (the middleware keeps the latest 10)
    assert last.sec * 10**9 + last.nanosec in stamps[-10:]
    node.proc.assert_alive()


def test_a_driver_streaming_before_the_node_starts_is_no_overload(dynamics_node, arm_simulator):
    """As a launch starts them: the arm simulator streams joint_states at 1 kHz before the node
    spins. What the node's subscription queued meanwhile arrives at once when it does; the newest
    is served, the rest are counted as shed at start, and the first status is no overload."""
    sim = arm_simulator(urdf=read(PANDA_URDF), publish_rate=1000.0)  # the node's namespace
    sim.wait_states(100)
    first = []

    def served(status, values):  # the first status once the node serves joint_states
        if int(values["messages_processed"]) > 0:
            first.append((status.message, values))
        return bool(first)

    node = dynamics_node(urdf=read(PANDA_URDF), diagnostics_period=1.0)
    node.diagnostics(served)
    message, values = first[0]
    assert "faster than the node serves them" not in message
    at_start = int(values["messages_shed_at_start"])
    assert at_start > 0  # the backlog, superseded by its newest message
    assert int(values["messages_shed"]) >= at_start
    node.proc.assert_alive()


def joint_states_reliability(node):
    (info,) = node.node.get_subscriptions_info_by_topic(node.ns + "/joint_states")
    return info.qos_profile.reliability


def test_joint_states_qos_follows_the_users_overrides(dynamics_node, unique_name):
    """ROS's QoS override parameters set how joint_states is read; a bad one stops the start and
    names the parameter."""
    default = dynamics_node(urdf=read(PENDULUM_URDF))
    default.wait_connected()
    assert joint_states_reliability(default) == ReliabilityPolicy.BEST_EFFORT
    default.proc.terminate()

    topic = f"/{unique_name}_1/joint_states"
    overrides = {topic: {"subscription": {"reliability": "reliable", "depth": 50}}}
    node = dynamics_node(urdf=read(PENDULUM_URDF), qos_overrides=overrides)
    node.wait_connected()
    assert joint_states_reliability(node) == ReliabilityPolicy.RELIABLE
    assert node.get_parameter(f"qos_overrides.{topic}.subscription.depth") == 50

    bad = {f"/{unique_name}_2/joint_states": {"subscription": {"reliability": "sometimes"}}}
    refused = dynamics_node(urdf=read(PENDULUM_URDF), wait_loaded=False, qos_overrides=bad)
    assert refused.proc.wait() != 0
    assert f"qos_overrides./{unique_name}_2/joint_states.subscription.reliability" in (
        refused.proc.output()
    )
    assert "'sometimes' is not one of" in refused.proc.output()
