# ruff: noqa: E402 - the imports come after the python -m start, which must precede them
"""A bare rclpy relay: ``joint_states`` (JointState) in, ``~/output`` (Float64MultiArray) out.

No math: the baseline of ``benchmarks/bench_node.py``. Each output carries the input's header
stamp as its first two values ``[stamp.sec, stamp.nanosec]`` followed by the input efforts, so a
measuring subscriber can compute the latency; a JointGroupEffortController would not use it.
The subscription has the same QoS as the dynamics node's (best effort, depth 10).
Console script ``relay_node``.
"""

if __name__ == "__main__":  # python -m: start as the console script does, SIGINT handled first
    from robot_dynamics.ros.process import relay_node as _console_script

    raise SystemExit(_console_script())


from array import array

from rclpy.node import Node

from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from .executors import make_executors, spin_node
from .qos import joint_states_qos


class RelayNode(Node):
    """Bare relay for the node benchmark: each joint_states message's stamp and efforts out on
    ``~/output`` (``std_msgs/Float64MultiArray``: sec, nanosec, efforts).

    Args:
        node_name: the node's name.
        **kwargs: passed to ``rclpy.node.Node``.
    """

    def __init__(self, node_name="relay_node", **kwargs):
        super().__init__(node_name, **kwargs)
        self._pub = self.create_publisher(Float64MultiArray, "~/output", 10)
        self._out = Float64MultiArray()
        self.create_subscription(
            JointState, "joint_states", self._on_joint_states, joint_states_qos()
        )

    def _on_joint_states(self, msg):
        data = array("d", (msg.header.stamp.sec, msg.header.stamp.nanosec))
        data.extend(msg.effort)
        self._out.data = data
        self._pub.publish(self._out)


def main(args=None):
    """Console script of the relay node.

    Args:
        args: command-line arguments for ``rclpy.init`` (default: ``sys.argv``).

    Returns:
        int: the exit code, 0.
    """
    return spin_node(RelayNode, lambda node: make_executors("split", node), args=args)
