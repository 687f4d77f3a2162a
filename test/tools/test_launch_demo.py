"""launch_pytest test of launch/demo.launch.py (skipped where launch_pytest is missing).

launch, launch_ros and launch_pytest are not on PyPI: in the wheel environment this module is
skipped (the same nodes and parameters are covered by test_demo.py, which runs
``robot-dynamics-demo``; the launch file only starts them through launch_ros). With a ROS 2 install
it launches the file with run_demo:=false, as a user pushing the arm by hand would, and checks over
DDS that gravity compensation holds the Panda and that a push on the tool is estimated.
"""

import os
import time
import uuid

import pytest

launch_pytest = pytest.importorskip("launch_pytest")
launch = pytest.importorskip("launch")
pytest.importorskip("launch_ros")

import numpy as np  # noqa: E402
import rclpy  # noqa: E402
from geometry_msgs.msg import WrenchStamped  # noqa: E402
from launch.actions import IncludeLaunchDescription  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from robot_dynamics.tools.bundled import BUNDLED, bundled_urdf_path  # noqa: E402
from robot_dynamics.tools.robots import build_model, resolve_robot  # noqa: E402

pytestmark = [pytest.mark.launch_test, pytest.mark.ros]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCH_FILE = os.path.join(REPO, "launch", "demo.launch.py")
NS = "rd_demo_" + uuid.uuid4().hex[:8]


@launch_pytest.fixture
def demo_nodes():
    return launch.LaunchDescription(
        [
            IncludeLaunchDescription(
                PythonLaunchDescriptionSource(LAUNCH_FILE),
                launch_arguments=[("namespace", NS), ("run_demo", "false")],
            ),
            launch_pytest.actions.ReadyToTest(),
        ]
    )


def _in_base(model, estimate, state):
    """An estimate (WrenchStamped at its frame_id) in base axes about the tool origin."""
    from robot_dynamics.tools.demo.analysis import estimates_in_base_at_tip
    from robot_dynamics.ros.conversions import wrench_from_msg

    q = np.array(state.position)[[list(state.name).index(n) for n in model.joint_names]]
    return estimates_in_base_at_tip(
        model, wrench_from_msg(estimate.wrench), estimate.header.frame_id, "tool", q
    )


@pytest.mark.launch(fixture=demo_nodes)
def test_launched_demo_holds_and_estimates_a_push():
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node("launch_demo_probe", context=context)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        states, estimates = [], []
        node.create_subscription(JointState, f"/{NS}/joint_states", states.append, 100)
        node.create_subscription(
            WrenchStamped, f"/{NS}/dynamics_node/external_wrench", estimates.append, 100
        )
        push = node.create_publisher(WrenchStamped, f"/{NS}/arm_simulator/external_wrench", 10)

        def spin_until(check, wrench=None, timeout=60.0):
            """Spin (pushing ``wrench`` N along the tool z, when given) until check() holds."""
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if wrench is not None:
                    msg = WrenchStamped()
                    msg.header.frame_id = "tool"
                    msg.wrench.force.z = float(wrench)
                    push.publish(msg)
                executor.spin_once(timeout_sec=0.02)
                if states and estimates and check():
                    return True
            return False

        model = build_model(resolve_robot(bundled_urdf_path("panda")))
        assert spin_until(lambda: True), "the launched nodes did not come up"
        home = np.array(BUNDLED["panda"].home)

        def held():
            return np.max(np.abs(np.array(states[-1].position) - home)) < 1e-3

        assert spin_until(held), f"not held at home: {states[-1].position}"

        # the estimate is what a sensor at the tool reads (tool axes): into base axes to compare
        def reads(wrench):
            return np.allclose(
                _in_base(model, estimates[-1], states[-1])[: len(wrench)], wrench, atol=0.5
            )

        assert spin_until(lambda: reads([0.0, 0.0, -10.0]), wrench=-10.0), "push not estimated"
        assert spin_until(lambda: reads([0.0] * 6), wrench=0.0), "release not estimated"
    finally:
        rclpy.shutdown(context=context)
