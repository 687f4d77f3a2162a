"""Tests of launch/dynamics.launch.py (skipped without launch_pytest).

launch, launch_ros and launch_pytest are not on PyPI: in the wheel environment this module is
skipped; with a ROS 2 install (apt, sourced /opt/ros/jazzy) it launches the file as a user would
and talks to the node over DDS. The domain comes from the environment (test/conftest.py).

Launched (DDS): the bundled Panda with no params file (base and tip from the URDF) and a tip
override; the double pendulum through ``description_package`` + a relative ``description_file``
and a ``package://`` params file; a xacro file with an argument given through ``xacro_args``;
``use_robot_description_topic:=true``; the joint states and the effort command remapped onto a
controller's topics, two params files in order, ``balance_inertia``, another node name;
robot_state_publisher and RViz requested (skipped with a warning where they are not installed;
robot_state_publisher's topic checked where it is) with ``strict_inertia``.

In-process, no DDS: the parameter list (params files in order and checked as the node reads
them, overrides, boolean arguments), the refusal of undeclared command-line arguments (and
``ros2 launch`` itself, where ros2launch is installed), RViz's arguments and its config's topics,
the actions with robot_state_publisher / RViz present or missing.
"""

import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import uuid

import pytest

launch_pytest = pytest.importorskip("launch_pytest")
launch = pytest.importorskip("launch")
pytest.importorskip("launch_ros")

import numpy as np  # noqa: E402
import rclpy  # noqa: E402
import yaml  # noqa: E402
from launch.actions import IncludeLaunchDescription  # noqa: E402
from launch.launch_description_sources import (  # noqa: E402
    AnyLaunchDescriptionSource,
    PythonLaunchDescriptionSource,
)
from rcl_interfaces.srv import GetParameters  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray, String  # noqa: E402

from robot_dynamics import RobotModel  # noqa: E402
from robot_dynamics.core.errors import ParametersFileError  # noqa: E402
from robot_dynamics.tools.description import load_robot_description  # noqa: E402
from robot_dynamics_interfaces.srv import GetMassMatrix  # noqa: E402

pytestmark = [pytest.mark.launch_test, pytest.mark.ros]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCH_FILE = os.path.join(REPO, "launch", "dynamics.launch.py")
PANDA_URDF = os.path.join(REPO, "urdf", "panda_arm.urdf")
PENDULUM_URDF = os.path.join(REPO, "urdf", "double_pendulum.urdf")


def _load_launch_file():
    spec = importlib.util.spec_from_file_location("dynamics_launch", LAUNCH_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DL = _load_launch_file()


def _ns():
    return "/rd_launch_" + uuid.uuid4().hex[:8]


NS_PENDULUM, NS_PANDA, NS_PANDA_TIP, NS_XACRO, NS_TOPIC, NS_CONTROLLER, NS_RSP = (
    _ns() for _ in range(7)
)
CONTROLLER_NODE = "arm_dynamics"

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
TMP = tempfile.mkdtemp(prefix="rd_launch_")
XACRO_FILE = os.path.join(TMP, "arm.urdf.xacro")
# Two params files, applied in order: the second's gravity wins; together they turn the effort
# command on (gravity compensation, in the model's joint order).
PARAMS_1 = os.path.join(TMP, "arm.yaml")
PARAMS_2 = os.path.join(TMP, "arm override.yaml")  # a space in the name: quoted in params_file
BRINGUP_FILE = os.path.join(TMP, "bringup.launch.py")
for _path, _text in (
    (XACRO_FILE, ARM_XACRO),
    (
        PARAMS_1,
        "/**:\n  ros__parameters:\n    gravity: [0.0, 0.0, -9.81]\n"
        "    publish_effort_command: true\n    effort_command_source: gravity\n",
    ),
    (PARAMS_2, "/**:\n  ros__parameters:\n    gravity: [0.0, 0.0, -4.0]\n"),
    (  # a user's bringup file that would include dynamics.launch.py
        BRINGUP_FILE,
        "import launch\n\n\ndef generate_launch_description():\n"
        "    return launch.LaunchDescription([])\n",
    ),
):
    with open(_path, "w") as _f:
        _f.write(_text)


def _installed(package, executable):
    return DL._ament_executable(package, executable)


HAVE_RSP = _installed("robot_state_publisher", "robot_state_publisher")
HAVE_RVIZ = _installed("rviz2", "rviz2")


def _include(**arguments):
    return IncludeLaunchDescription(
        PythonLaunchDescriptionSource(LAUNCH_FILE), launch_arguments=list(arguments.items())
    )


def _fixture(**arguments):
    return launch.LaunchDescription([_include(**arguments), launch_pytest.actions.ReadyToTest()])


@launch_pytest.fixture
def pendulum_launch():
    # As config/double_pendulum.yaml says: a file of the description package's urdf/ folder
    # (description_package defaults to robot_dynamics) and the package's params file.
    return _fixture(
        description_file="double_pendulum.urdf",
        params_file="package://robot_dynamics/config/double_pendulum.yaml",
        namespace=NS_PENDULUM,
    )


@launch_pytest.fixture
def panda_launch():
    # Defaults: the bundled Panda, no params file: base and tip from the URDF (root and leaf).
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


@launch_pytest.fixture
def controller_launch():
    # A ros2_control-style set-up: joint states from a broadcaster's topic, the effort command
    # onto a controller's; two params files (the second overrides the first's gravity).
    return _fixture(
        description_file=XACRO_FILE,
        params_file=f"{PARAMS_1} '{PARAMS_2}'",
        joint_states_topic=NS_CONTROLLER + "/broadcaster/joint_states",
        effort_command_topic=NS_CONTROLLER + "/effort_controller/commands",
        balance_inertia="true",
        node_name=CONTROLLER_NODE,
        namespace=NS_CONTROLLER,
    )


@launch_pytest.fixture
def rsp_launch():
    # robot_state_publisher always requested; RViz only where it is missing (its skip is what
    # is tested; a window is not opened by the tests).
    return _fixture(
        description_file=XACRO_FILE,
        use_robot_state_publisher="true",
        use_rviz="false" if HAVE_RVIZ else "true",
        strict_inertia="true",  # the arm's inertias are consistent: it loads
        namespace=NS_RSP,
    )


class Probe:
    """A node in a private rclpy context that talks to a launched dynamics node."""

    def __init__(self):
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node("launch_test_probe", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def close(self):
        rclpy.shutdown(context=self.context)

    def subscribe(self, msg_type, topic, qos=10):
        got = []
        self.node.create_subscription(msg_type, topic, got.append, qos)
        return got

    def feed_until(self, joint_states_topic, names, q, done, timeout=60.0):
        """Publish joint states (names, q) until done() or the timeout."""
        pub = self.node.create_publisher(JointState, joint_states_topic, 10)
        deadline = time.monotonic() + timeout
        while not done() and time.monotonic() < deadline:
            msg = JointState(name=list(names), position=[float(v) for v in q])
            msg.header.stamp = self.node.get_clock().now().to_msg()
            pub.publish(msg)
            self.executor.spin_once(timeout_sec=0.05)
        return done()

    def call(self, srv_type, name, request, timeout=60.0):
        client = self.node.create_client(srv_type, name)
        assert client.wait_for_service(timeout_sec=timeout), f"no service {name}"
        future = client.call_async(request)
        self.executor.spin_until_future_complete(future, timeout_sec=timeout)
        assert future.done(), f"{name} did not answer"
        return future.result()


def _gravity_from_launched_node(
    ns, names, q, publish_description=None, node="dynamics_node", joint_states=None
):
    """Publish joint states to <ns>/joint_states (or ``joint_states``) until
    <ns>/<node>/gravity_torques answers; returns (names, efforts, jacobian_frame from
    ~/get_mass_matrix). With publish_description, first publishes that URDF on
    <ns>/robot_description (reliable, transient local: robot_state_publisher's QoS)."""
    probe = Probe()
    try:
        if publish_description is not None:
            qos = QoSProfile(
                depth=1,
                reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.TRANSIENT_LOCAL,
            )
            pub = probe.node.create_publisher(String, ns + "/robot_description", qos)
            pub.publish(String(data=publish_description))
        got = probe.subscribe(JointState, f"{ns}/{node}/gravity_torques")
        topic = joint_states or ns + "/joint_states"
        assert probe.feed_until(topic, names, q, lambda: got), (
            f"no gravity torques from the launched node in {ns}"
        )
        result = probe.call(GetMassMatrix, f"{ns}/{node}/get_mass_matrix", GetMassMatrix.Request())
        assert result.success
        return list(got[0].name), np.array(got[0].effort), result.jacobian_frame
    finally:
        probe.close()


# ---------------------------------------------------------------------- launched, over DDS


@pytest.mark.launch(fixture=pendulum_launch)
def test_launch_double_pendulum_with_its_params_file():
    model = RobotModel.from_urdf_file(PENDULUM_URDF, gravity=(0.0, -9.81, 0.0))  # as the config
    q = np.array([0.3, -0.5])
    names, effort, tip = _gravity_from_launched_node(NS_PENDULUM, model.joint_names, q)
    assert names == list(model.joint_names) and tip == "tip"
    np.testing.assert_allclose(effort, model.gravity_torques(q), rtol=0, atol=1e-9)


@pytest.mark.launch(fixture=panda_launch)
def test_launch_defaults_panda_without_params_file():
    model = RobotModel.from_urdf_file(PANDA_URDF)
    q = np.array([0.1, -0.3, 0.2, -1.8, 0.1, 1.5, 0.3])
    names, effort, tip = _gravity_from_launched_node(NS_PANDA, model.joint_names, q)
    assert names == list(model.joint_names)
    assert tip == "tool"  # the URDF's single leaf, no params file needed
    np.testing.assert_allclose(effort, model.gravity_torques(q), rtol=0, atol=1e-9)


@pytest.mark.launch(fixture=panda_tip_launch)
def test_launch_tip_link_argument():
    model = RobotModel.from_urdf_file(PANDA_URDF)
    q = np.array([0.1, -0.3, 0.2, -1.8, 0.1, 1.5, 0.3])
    _, _, tip = _gravity_from_launched_node(NS_PANDA_TIP, model.joint_names, q)
    assert tip == "panda_link8"


@pytest.mark.launch(fixture=xacro_launch)
def test_launch_xacro_with_arguments():
    model = RobotModel.from_urdf_string(load_robot_description(XACRO_FILE, "mass2:=3.0"))
    q = np.array([0.4, -0.7])
    names, effort, tip = _gravity_from_launched_node(NS_XACRO, model.joint_names, q)
    assert names == ["j1", "j2"] and tip == "tool"
    np.testing.assert_allclose(effort, model.gravity_torques(q), rtol=0, atol=1e-9)
    # the argument reached xacro: with the default mass2 (1 kg) joint 2's torque would differ
    default = RobotModel.from_urdf_string(load_robot_description(XACRO_FILE))
    assert abs(effort[1] - default.gravity_torques(q)[1]) > 1.0


@pytest.mark.launch(fixture=topic_launch)
def test_launch_with_the_robot_description_topic():
    # not the default description_file (the Panda): the node must take the topic's URDF
    urdf = load_robot_description(XACRO_FILE, "mass2:=2.5")
    model = RobotModel.from_urdf_string(urdf)
    q = np.array([0.3, -0.5])
    names, effort, tip = _gravity_from_launched_node(
        NS_TOPIC, model.joint_names, q, publish_description=urdf
    )
    assert names == ["j1", "j2"] and tip == "tool"
    np.testing.assert_allclose(effort, model.gravity_torques(q), rtol=0, atol=1e-9)
    assert np.all(np.abs(effort) > 0.1)


@pytest.mark.launch(fixture=controller_launch)
def test_launch_onto_controller_topics_with_two_params_files():
    model = RobotModel.from_urdf_string(
        load_robot_description(XACRO_FILE), gravity=(0.0, 0.0, -4.0)
    )
    q = np.array([0.4, -0.7])
    probe = Probe()
    try:
        node = f"{NS_CONTROLLER}/{CONTROLLER_NODE}"
        torques = probe.subscribe(JointState, node + "/gravity_torques")
        commands = probe.subscribe(Float64MultiArray, NS_CONTROLLER + "/effort_controller/commands")
        never = probe.subscribe(Float64MultiArray, node + "/effort_command")
        assert probe.feed_until(
            NS_CONTROLLER + "/broadcaster/joint_states",
            model.joint_names,
            q,
            lambda: torques and commands,
        ), "no gravity torques / effort command through the remapped topics"
        # the second params file's gravity (-4) over the first's (-9.81)
        np.testing.assert_allclose(torques[-1].effort, model.gravity_torques(q), atol=1e-9)
        np.testing.assert_allclose(commands[-1].data, model.gravity_torques(q), atol=1e-9)
        assert not never  # remapped: nothing on the node's own ~/effort_command
        request = GetParameters.Request(names=["balance_inertia", "publish_effort_command"])
        values = probe.call(GetParameters, node + "/get_parameters", request).values
        assert [v.bool_value for v in values] == [True, True]
    finally:
        probe.close()


@pytest.mark.launch(fixture=rsp_launch)
def test_launch_with_robot_state_publisher_and_rviz_requested():
    # Where robot_state_publisher / rviz2 are missing the launch goes on without them (a
    # warning each): the dynamics node works, strict_inertia set. Where robot_state_publisher
    # is installed it publishes the same description on the namespace's robot_description.
    model = RobotModel.from_urdf_string(load_robot_description(XACRO_FILE))
    q = np.array([0.2, 0.3])
    _, effort, _ = _gravity_from_launched_node(NS_RSP, model.joint_names, q)
    np.testing.assert_allclose(effort, model.gravity_torques(q), rtol=0, atol=1e-9)
    probe = Probe()
    try:
        request = GetParameters.Request(names=["strict_inertia", "balance_inertia"])
        values = probe.call(GetParameters, NS_RSP + "/dynamics_node/get_parameters", request)
        assert [v.bool_value for v in values.values] == [True, False]
        if not HAVE_RSP:
            return
        qos = QoSProfile(
            depth=1,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        got = probe.subscribe(String, NS_RSP + "/robot_description", qos)
        assert probe.feed_until(NS_RSP + "/joint_states", model.joint_names, q, lambda: got)
        assert RobotModel.from_urdf_string(got[0].data).joint_names == model.joint_names
    finally:
        probe.close()


# ------------------------------------------------------------- in-process, no DDS


def _context(argv=(), event_file=None, **arguments):
    """A launch context holding every argument (defaults + ``arguments``), the command line
    ``argv``, and, with event_file, the event of ros2 launch including that file."""
    context = launch.LaunchContext(argv=list(argv))
    for name, default, _ in DL.ARGUMENTS:
        context.launch_configurations[name] = arguments.pop(name, default)
    assert not arguments, f"not arguments of the launch file: {arguments}"
    if event_file is not None:
        include = IncludeLaunchDescription(AnyLaunchDescriptionSource(event_file))
        include.launch_description_source.get_launch_description(context)  # as executed
        event = launch.events.IncludeLaunchDescription(launch.LaunchDescription([include]))
        context.extend_locals({"event": event})
    return context


def test_node_parameters_files_in_order_then_overrides():
    context = _context(
        params_file=f"{PARAMS_1} '{PARAMS_2}'",
        base_link="base",
        tip_link="rod2",
        balance_inertia="True",
        strict_inertia="false",
        use_sim_time="true",
    )
    *files, overrides = DL.node_parameters(context, "<robot/>")
    assert files == [PARAMS_1, PARAMS_2]
    assert overrides == {
        "use_sim_time": True,
        "robot_description": "<robot/>",
        "base_link": "base",
        "tip_link": "rod2",
        "balance_inertia": True,
        "strict_inertia": False,
    }
    # empty arguments leave the params files' values alone; no description from the topic
    assert DL.node_parameters(_context(), None) == [{"use_sim_time": False}]


def test_node_parameters_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.yaml"):
        DL.node_parameters(_context(params_file=os.path.join(TMP, "missing.yaml")), None)
    # a params file the node would not read as meant stops the launch: a typo it would ignore,
    # a section for another node name
    typo = tmp_path / "typo.yaml"
    typo.write_text("/**:\n  ros__parameters:\n    tip_lnk: tool\n")
    with pytest.raises(ParametersFileError, match="tip_lnk") as info:
        DL.node_parameters(_context(params_file=str(typo)), None)
    assert "tip_link" in str(info.value)  # the close declared name
    other = tmp_path / "other.yaml"
    other.write_text("dynamics_node:\n  ros__parameters:\n    tip_link: tool\n")
    DL.node_parameters(_context(params_file=str(other)), None)  # its section: fine
    with pytest.raises(ParametersFileError, match="no section for node /arm/arm_dynamics"):
        DL.node_parameters(
            _context(params_file=str(other), namespace="/arm", node_name="arm_dynamics"), None
        )
    with pytest.raises(ValueError, match="balance_inertia:='maybe' is not true or false"):
        DL.node_parameters(_context(balance_inertia="maybe"), None)


def test_links_the_urdf_lacks_stop_the_launch(tmp_path):
    """A tip_link argument, or a params file's payload.frame or wrench_frame, naming a link the
    URDF lacks stops the launch (the node would run without a model); the bundled robot's own
    file with its URDF is fine."""
    urdf = load_robot_description(PANDA_URDF)
    panda_yaml = os.path.join(REPO, "config", "panda_arm.yaml")
    node = "/dynamics_node"
    DL.check_model(DL.node_parameters(_context(params_file=panda_yaml), urdf), urdf, node)
    with pytest.raises(Exception, match="nolink"):
        DL.check_model(DL.node_parameters(_context(tip_link="nolink"), urdf), urdf, node)
    for name, value in (("payload", "{frame: nolink}"), ("wrench_frame", "nolink")):
        bad = tmp_path / f"{name}.yaml"
        bad.write_text(f"/**:\n  ros__parameters:\n    {name}: {value}\n")
        with pytest.raises(ParametersFileError, match="nolink"):
            DL.check_model(DL.node_parameters(_context(params_file=str(bad)), urdf), urdf, node)
    # the Panda's file with the double pendulum's URDF: panda_link0 is not its link
    pendulum = load_robot_description(PENDULUM_URDF)
    with pytest.raises(ParametersFileError, match="panda_link0"):
        DL.check_model(
            DL.node_parameters(_context(params_file=panda_yaml), pendulum), pendulum, node
        )


def test_undeclared_command_line_argument_is_refused():
    argv = ["urdf_file:=/x.urdf", "config_file:=a.yaml", "tip_lnk:=tool", "namespace:=a"]
    with pytest.raises(ValueError) as info:
        DL.check_command_line(_context(argv, event_file=LAUNCH_FILE))
    text = str(info.value)
    for hint in (
        "urdf_file (did you mean description_file?)",
        "config_file (did you mean params_file?)",
        "tip_lnk (did you mean tip_link?)",
    ):
        assert hint in text
    assert "namespace (" not in text and "--show-args" in text
    # declared arguments only: fine
    DL.check_command_line(_context(["namespace:=a", "use_rviz:=true"], event_file=LAUNCH_FILE))
    # included from another launch file: the command line is that file's, not checked here
    DL.check_command_line(_context(argv, event_file=BRINGUP_FILE))
    DL.check_command_line(_context(argv))


def test_ros2_launch_refuses_an_undeclared_argument():
    pytest.importorskip("ros2launch")
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from ros2cli.cli import main; sys.exit(main())",
            "launch",
            LAUNCH_FILE,
            "urdf_file:=" + PENDULUM_URDF,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert "no argument urdf_file (did you mean description_file?)" in out.stdout + out.stderr


def test_rviz_settings_and_config():
    urdf = open(PANDA_URDF).read()
    settings = DL.rviz_settings(urdf, "dynamics_node")
    assert settings == {"arguments": ["-d", DL.RVIZ_CONFIG, "-f", "panda_link0"], "remappings": []}
    assert DL.rviz_settings(None, "arm")["remappings"] == [
        ("dynamics_node/external_wrench", "arm/external_wrench")
    ]
    assert "-f" not in DL.rviz_settings(None, "arm")["arguments"]
    # the config shows the robot model, TF and the wrench on the (relative) topics assumed above
    with open(DL.RVIZ_CONFIG) as f:
        displays = yaml.safe_load(f)["Visualization Manager"]["Displays"]
    by_class = {d["Class"].split("/")[-1]: d for d in displays}
    assert by_class["RobotModel"]["Description Topic"]["Value"] == "robot_description"
    assert by_class["Wrench"]["Topic"]["Value"] == "dynamics_node/external_wrench"
    assert by_class["TF"]["Enabled"] and by_class["Wrench"]["Enabled"]


@pytest.mark.parametrize("installed", [False, True])
def test_actions_with_and_without_rsp_and_rviz(monkeypatch, installed):
    real = DL._ament_executable
    monkeypatch.setattr(
        DL,
        "_ament_executable",
        lambda package, executable: (
            installed
            if package in ("robot_state_publisher", "rviz2")
            else real(package, executable)
        ),
    )
    context = _context(
        description_file=PENDULUM_URDF,
        use_robot_state_publisher="true",
        use_rviz="true",
        joint_states_topic="/joint_states",
    )
    actions = DL._actions(context)
    packages = [a.node_package for a in actions[1:]]
    assert packages == (["robot_state_publisher", "rviz2"] if installed else [])
