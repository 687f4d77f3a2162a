"""launch_pytest tests of launch/dynamics.launch.py (skipped where launch_pytest is missing).

launch, launch_ros and launch_pytest are not on PyPI: in the wheel environment this module is
skipped; with a ROS 2 install (apt, sourced /opt/ros/jazzy) it launches the file as a user would
and talks to the node over DDS. The domain comes from the environment (test/conftest.py).

Covered: the bundled Panda with no config (base and tip from the URDF) and a tip override; the
double pendulum with its config; a xacro file with a property and an argument given through
``xacro_args`` (the node's gravity torques are those of the expanded URDF); and
``use_robot_description_topic:=true`` (the URDF comes from the topic, as robot_state_publisher
publishes it).
"""

import os
import tempfile
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
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

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
NS_PANDA_TIP = "/rd_launch_" + uuid.uuid4().hex[:8]
NS_XACRO = "/rd_launch_" + uuid.uuid4().hex[:8]
NS_TOPIC = "/rd_launch_" + uuid.uuid4().hex[:8]

# Two links: a xacro property (the length) and an argument (the second link's mass).
ARM_XACRO = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="xacro_arm">
  <xacro:arg name="mass2" default="1.0"/>
  <xacro:property name="length" value="0.4"/>
  <xacro:macro name="rod" params="name mass">
    <link name="${name}">
      <inertial><origin xyz="${length / 2} 0 0"/><mass value="${mass}"/>
        <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    </link>
  </xacro:macro>
  <link name="base"/>
  <xacro:rod name="rod1" mass="2.0"/>
  <xacro:rod name="rod2" mass="$(arg mass2)"/>
  <link name="tool"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="rod1"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="100" velocity="3"/></joint>
  <joint name="j2" type="revolute"><parent link="rod1"/><child link="rod2"/>
    <origin xyz="${length} 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="3"/></joint>
  <joint name="tool_joint" type="fixed"><parent link="rod2"/><child link="tool"/>
    <origin xyz="${length} 0 0"/></joint>
</robot>
"""
XACRO_DIR = tempfile.mkdtemp(prefix="rd_launch_xacro_")
XACRO_FILE = os.path.join(XACRO_DIR, "arm.urdf.xacro")
with open(XACRO_FILE, "w") as _f:
    _f.write(ARM_XACRO)


def _include(**arguments):
    return IncludeLaunchDescription(
        PythonLaunchDescriptionSource(LAUNCH_FILE), launch_arguments=list(arguments.items())
    )


def _fixture(**arguments):
    return launch.LaunchDescription([_include(**arguments), launch_pytest.actions.ReadyToTest()])


@launch_pytest.fixture
def pendulum_launch():
    return _fixture(
        description_file=PENDULUM_URDF, config_file=PENDULUM_CONFIG, namespace=NS_PENDULUM
    )


@launch_pytest.fixture
def panda_launch():
    # Defaults: the bundled Panda, no config: base and tip from the URDF (its root and leaf).
    return _fixture(namespace=NS_PANDA)


@launch_pytest.fixture
def panda_tip_launch():
    return _fixture(namespace=NS_PANDA_TIP, tip_link="panda_link8")


@launch_pytest.fixture
def xacro_launch():
    return _fixture(description_file=XACRO_FILE, xacro_args="mass2:=3.0", namespace=NS_XACRO)


@launch_pytest.fixture
def topic_launch():
    return _fixture(use_robot_description_topic="true", namespace=NS_TOPIC)


def _gravity_from_launched_node(ns, names, q, timeout=60.0, publish_description=None):
    """Publish joint states to <ns>/joint_states until <ns>/dynamics_node/gravity_torques
    answers; returns (names, efforts, jacobian_frame from ~/get_mass_matrix). With
    publish_description, first publishes that URDF on <ns>/robot_description (reliable,
    transient local: robot_state_publisher's QoS)."""
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node("launch_test_probe", context=context)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        if publish_description is not None:
            qos = QoSProfile(
                depth=1,
                reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.TRANSIENT_LOCAL,
            )
            description_pub = node.create_publisher(String, ns + "/robot_description", qos)
            description_pub.publish(String(data=publish_description))
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
def test_launch_defaults_panda_without_config():
    model = RobotModel.from_urdf(PANDA_URDF)
    q = np.array([0.1, -0.3, 0.2, -1.8, 0.1, 1.5, 0.3])
    names, effort, tip = _gravity_from_launched_node(NS_PANDA, model.joint_names, q)
    assert names == list(model.joint_names)
    assert tip == "tool"  # the URDF's single leaf, no config needed
    np.testing.assert_allclose(effort, model.gravity_torques(q), rtol=0, atol=1e-9)


@pytest.mark.launch(fixture=panda_tip_launch)
def test_launch_tip_link_argument():
    model = RobotModel.from_urdf(PANDA_URDF)
    q = np.array([0.1, -0.3, 0.2, -1.8, 0.1, 1.5, 0.3])
    _, _, tip = _gravity_from_launched_node(NS_PANDA_TIP, model.joint_names, q)
    assert tip == "panda_link8"


@pytest.mark.launch(fixture=xacro_launch)
def test_launch_xacro_with_arguments():
    from robot_dynamics.tools.description import load_robot_description

    model = RobotModel.from_urdf(load_robot_description(XACRO_FILE, "mass2:=3.0"))
    q = np.array([0.4, -0.7])
    names, effort, tip = _gravity_from_launched_node(NS_XACRO, model.joint_names, q)
    assert names == ["j1", "j2"] and tip == "tool"
    np.testing.assert_allclose(effort, model.gravity_torques(q), rtol=0, atol=1e-9)
    # the argument reached xacro: with the default mass2 (1 kg) joint 2's torque would differ
    default = RobotModel.from_urdf(load_robot_description(XACRO_FILE))
    assert abs(effort[1] - default.gravity_torques(q)[1]) > 1.0


@pytest.mark.launch(fixture=topic_launch)
def test_launch_with_the_robot_description_topic():
    from robot_dynamics.tools.description import load_robot_description

    # not the default description_file (the Panda): the node must take the topic's URDF
    urdf = load_robot_description(XACRO_FILE, "mass2:=2.5")
    model = RobotModel.from_urdf(urdf)
    q = np.array([0.3, -0.5])
    names, effort, tip = _gravity_from_launched_node(
        NS_TOPIC, model.joint_names, q, publish_description=urdf
    )
    assert names == ["j1", "j2"] and tip == "tool"
    np.testing.assert_allclose(effort, model.gravity_torques(q), rtol=0, atol=1e-9)
    assert np.all(np.abs(effort) > 0.1)
