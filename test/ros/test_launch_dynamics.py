"""launch_pytest tests of launch/dynamics.launch.py (skipped where launch_pytest is missing).

launch, launch_ros and launch_pytest are not on PyPI: in the wheel environment this module is
skipped; with a ROS 2 install (apt, sourced /opt/ros/jazzy) it launches the file as a user would
and talks to the node over DDS. The domain comes from the environment (test/conftest.py).
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
from launch.actions import IncludeLaunchDescription  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from robot_dynamics import RobotModel  # noqa: E402
from robot_dynamics_interfaces.srv import GetMassMatrix  # noqa: E402

pytestmark = [pytest.mark.launch_test, pytest.mark.ros]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCH_FILE = os.path.join(REPO, "launch", "dynamics.launch.py")
PANDA_URDF = os.path.join(REPO, "urdf", "panda_arm.urdf")
PENDULUM_URDF = os.path.join(REPO, "urdf", "double_pendulum.urdf")
PENDULUM_CONFIG = os.path.join(REPO, "config", "double_pendulum.yaml")
NS_PENDULUM = "/rd_launch_" + uuid.uuid4().hex[:8]
NS_PANDA = "/rd_launch_" + uuid.uuid4().hex[:8]


def _include(**arguments):
    return IncludeLaunchDescription(
        PythonLaunchDescriptionSource(LAUNCH_FILE), launch_arguments=list(arguments.items())
    )


@launch_pytest.fixture
def pendulum_launch():
    return launch.LaunchDescription(
        [
            _include(urdf_file=PENDULUM_URDF, config_file=PENDULUM_CONFIG, namespace=NS_PENDULUM),
            launch_pytest.actions.ReadyToTest(),
        ]
    )


@launch_pytest.fixture
def panda_launch():
    # Defaults: the bundled Panda and config/panda_arm.yaml; tip overridden by argument.
    return launch.LaunchDescription(
        [
            _include(namespace=NS_PANDA, tip_link="panda_link8"),
            launch_pytest.actions.ReadyToTest(),
        ]
    )


def _gravity_from_launched_node(ns, names, q, timeout=60.0):
    """Publish joint states to <ns>/joint_states until <ns>/dynamics_node/gravity_torques
    answers; returns (names, efforts, jacobian_frame from ~/get_mass_matrix)."""
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node("launch_test_probe", context=context)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        got = []
        node.create_subscription(JointState, ns + "/dynamics_node/gravity_torques", got.append, 10)
        pub = node.create_publisher(JointState, ns + "/joint_states", 10)
        deadline = time.monotonic() + timeout
        while not got and time.monotonic() < deadline:
            msg = JointState(name=list(names), position=[float(v) for v in q])
            msg.header.stamp = node.get_clock().now().to_msg()
            pub.publish(msg)
            executor.spin_once(timeout_sec=0.05)
        assert got, f"no gravity torques from the launched node in {ns} within {timeout} s"
        client = node.create_client(GetMassMatrix, ns + "/dynamics_node/get_mass_matrix")
        assert client.wait_for_service(timeout_sec=timeout)
        future = client.call_async(GetMassMatrix.Request())
        executor.spin_until_future_complete(future, timeout_sec=timeout)
        assert future.done() and future.result().success
        return list(got[0].name), np.array(got[0].effort), future.result().jacobian_frame
    finally:
        rclpy.shutdown(context=context)


@pytest.mark.launch(fixture=pendulum_launch)
def test_launch_double_pendulum_with_config():
    model = RobotModel.from_urdf(PENDULUM_URDF, gravity=(0.0, -9.81, 0.0))  # as the config
    q = np.array([0.3, -0.5])
    names, effort, tip = _gravity_from_launched_node(NS_PENDULUM, model.joint_names, q)
    assert names == list(model.joint_names) and tip == "tip"
    np.testing.assert_allclose(effort, model.gravity_torques(q), rtol=0, atol=1e-9)


@pytest.mark.launch(fixture=panda_launch)
def test_launch_defaults_panda():
    model = RobotModel.from_urdf(PANDA_URDF)
    q = np.array([0.1, -0.3, 0.2, -1.8, 0.1, 1.5, 0.3])
    names, effort, tip = _gravity_from_launched_node(NS_PANDA, model.joint_names, q)
    assert names == list(model.joint_names)
    assert tip == "panda_link8"  # the tip_link argument overrides the config's "tool"
    np.testing.assert_allclose(effort, model.gravity_torques(q), rtol=0, atol=1e-9)
