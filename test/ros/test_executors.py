"""SubscriptionThread / DedicatedThreadGroup (robot_dynamics.ros.executors), in one process over
real DDS: the thread serves its subscription, the node's executor never takes its messages,
a callback error is reported and the thread goes on, stop() ends it."""

import threading
import time

import pytest

rclpy = pytest.importorskip("rclpy")

from std_msgs.msg import Int32  # noqa: E402

from robot_dynamics.ros.executors import DedicatedThreadGroup, SubscriptionThread  # noqa: E402


def _wait(predicate, timeout=10.0, spin=None):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        if spin is not None:
            spin()
        else:
            time.sleep(0.01)
    return True


def test_the_thread_serves_the_subscription_and_the_executor_does_not(ros_node, unique_name):
    node = ros_node.node
    topic = "/" + unique_name + "/numbers"
    received, threads, errors = [], [], []
    stop_at = 7

    def callback(msg):
        threads.append(threading.current_thread().name)
        if msg.data == stop_at:
            raise RuntimeError(f"bad message {msg.data}")
        received.append(msg.data)

    sub = node.create_subscription(
        Int32, topic, callback, 100, callback_group=DedicatedThreadGroup()
    )
    server = SubscriptionThread(sub, on_error=errors.append, name="numbers")
    server.start(node.context)
    assert server.alive
    pub = node.create_publisher(Int32, topic, 100)
    assert _wait(lambda: pub.get_subscription_count() >= 1)
    for i in range(20):
        pub.publish(Int32(data=i))
    # The test node's executor spins meanwhile: it must leave this subscription alone.
    assert _wait(
        lambda: len(received) == 19, spin=lambda: ros_node.executor.spin_once(timeout_sec=0.01)
    ), received
    assert received == [i for i in range(20) if i != stop_at]
    assert set(threads) == {"numbers"}, "every message must be handled in the thread"
    assert len(errors) == 1 and "bad message 7" in str(errors[0])

    server.stop()
    assert not server.alive
    server.stop()  # idempotent
    pub.publish(Int32(data=100))
    ros_node.spin_for(0.3)
    assert 100 not in received


def test_a_subscription_outside_a_dedicated_group_is_refused(ros_node):
    sub = ros_node.node.create_subscription(Int32, "x", lambda msg: None, 1)
    with pytest.raises(ValueError, match="DedicatedThreadGroup"):
        SubscriptionThread(sub)


def test_the_thread_ends_when_the_context_shuts_down(unique_name):
    context = rclpy.context.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("ctx_" + unique_name, context=context)
    sub = node.create_subscription(
        Int32, "y", lambda msg: None, 1, callback_group=DedicatedThreadGroup()
    )
    server = SubscriptionThread(sub)
    server.start(context)
    assert server.alive
    rclpy.shutdown(context=context)
    assert _wait(lambda: not server.alive, timeout=5.0)
    node.destroy_node()
