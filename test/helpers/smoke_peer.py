"""Peer processes of test/test_smoke_dds.py (run as separate processes, never imported by pytest).

smoke_peer.py talker <ns> <seed>
    Node 'smoke_talker' in namespace <ns>: publishes sensor_msgs/JointState on joint_states
    (positions drawn from numpy's generator seeded with <seed>) every 50 ms and serves
    robot_dynamics_interfaces/GetMassMatrix on get_mass_matrix, answering from the REQUEST:
    M = I + 0.1 * outer(q, q) + diag(q**2) (row-major, layout filled), g = sin(q),
    C qd = q * qd, a 6 x n Jacobian of ones * q. Prints 'READY' once both are created.

smoke_peer.py listener <ns>
    Node 'smoke_listener' in namespace <ns>: waits for one JointState on joint_states, calls
    get_mass_matrix with it, prints one JSON line 'RESULT {...}' with the received state and
    the response, and exits 0 (1 on timeout; a call without an answer is sent again every
    RESEND_S).
"""

import json
import sys
import time

import numpy as np
import rclpy
from rclpy.node import Node
from robot_dynamics_interfaces.srv import GetMassMatrix
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, MultiArrayDimension

JOINTS = ["joint_a", "joint_b", "joint_c"]
RESEND_S = 10.0  # a service call without an answer is sent again after this long [s]


def mass_matrix_of(q):
    q = np.asarray(q, dtype=float)
    return np.eye(q.size) + 0.1 * np.outer(q, q) + np.diag(q**2)


def matrix_msg(matrix, labels=("rows", "cols")):
    msg = Float64MultiArray()
    rows, cols = matrix.shape
    msg.layout.dim = [
        MultiArrayDimension(label=labels[0], size=rows, stride=rows * cols),
        MultiArrayDimension(label=labels[1], size=cols, stride=cols),
    ]
    msg.data = matrix.ravel().tolist()
    return msg


class Talker(Node):
    def __init__(self, seed):
        super().__init__("smoke_talker")
        self.q = np.random.default_rng(seed).uniform(-1.0, 1.0, len(JOINTS))
        self.pub = self.create_publisher(JointState, "joint_states", 10)
        self.srv = self.create_service(GetMassMatrix, "get_mass_matrix", self.on_request)
        self.timer = self.create_timer(0.05, self.publish)

    def publish(self):
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.name = list(JOINTS)
        msg.position = self.q.tolist()
        msg.velocity = (0.5 * self.q).tolist()
        msg.effort = []
        self.pub.publish(msg)

    def on_request(self, request, response):
        state = request.joint_state
        if list(state.name) != JOINTS or len(state.position) != len(JOINTS):
            response.success = False
            response.message = "expected joints %s, got %s" % (JOINTS, list(state.name))
            return response
        q = np.array(state.position)
        qd = np.array(state.velocity) if len(state.velocity) else np.zeros_like(q)
        response.success = True
        response.message = "ok"
        response.joint_names = list(state.name)
        response.mass_matrix = matrix_msg(mass_matrix_of(q))
        response.gravity_torques = np.sin(q).tolist()
        response.coriolis_torques = (q * qd).tolist()
        response.jacobian_frame = "tool"
        response.jacobian_base_frame = "base"
        response.jacobian = matrix_msg(np.ones((6, q.size)) * q)
        return response


def run_talker(ns, seed):
    rclpy.init(args=["--ros-args", "-r", "__ns:=" + ns])
    node = Talker(seed)
    print("READY", flush=True)
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


def run_listener(ns, timeout=60.0):
    rclpy.init(args=["--ros-args", "-r", "__ns:=" + ns])
    node = Node("smoke_listener")
    received = []
    node.create_subscription(JointState, "joint_states", received.append, 10)
    client = node.create_client(GetMassMatrix, "get_mass_matrix")
    deadline = time.monotonic() + timeout
    code = 1
    try:
        while not received and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.1)
        if not received:
            print("ERROR no JointState received", flush=True)
            return 1
        if not client.wait_for_service(timeout_sec=max(0.0, deadline - time.monotonic())):
            print("ERROR service not available", flush=True)
            return 1
        state = received[0]
        request = GetMassMatrix.Request(joint_state=state)
        # Fast DDS can drop the response to a call made right after discovery (the client's
        # response reader not matched yet): the call is sent again every RESEND_S until one of
        # them is answered (the service answers from the request alone).
        futures, answered = [], None
        while answered is None and time.monotonic() < deadline:
            futures.append(client.call_async(request))
            resend = min(deadline, time.monotonic() + RESEND_S)
            while answered is None and time.monotonic() < resend:
                rclpy.spin_once(node, timeout_sec=0.1)
                answered = next((f for f in futures if f.done()), None)
        if answered is None:
            print("ERROR no service response", flush=True)
            return 1
        resp = answered.result()
        print(
            "RESULT "
            + json.dumps(
                {
                    "received": {
                        "name": list(state.name),
                        "position": list(state.position),
                        "velocity": list(state.velocity),
                    },
                    "success": resp.success,
                    "message": resp.message,
                    "joint_names": list(resp.joint_names),
                    "mass_matrix": list(resp.mass_matrix.data),
                    "dims": [[d.label, d.size, d.stride] for d in resp.mass_matrix.layout.dim],
                    "gravity_torques": list(resp.gravity_torques),
                    "coriolis_torques": list(resp.coriolis_torques),
                }
            ),
            flush=True,
        )
        code = 0
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return code


def main(argv):
    if len(argv) == 3 and argv[0] == "talker":
        run_talker(argv[1], int(argv[2]))
        return 0
    if len(argv) == 2 and argv[0] == "listener":
        return run_listener(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
