"""Launch the dynamics node for any arm: a URDF, a xacro file, or robot_state_publisher's topic.

    ros2 launch robot_dynamics dynamics.launch.py                       # bundled Panda arm
    ros2 launch robot_dynamics dynamics.launch.py description_file:=/path/arm.urdf
    ros2 launch robot_dynamics dynamics.launch.py \\
        description_file:=/path/arm.urdf.xacro xacro_args:="prefix:=left_ use_gripper:=false" \\
        tip_link:=left_tool0 config_file:=/path/arm.yaml
    ros2 launch robot_dynamics dynamics.launch.py use_robot_description_topic:=true

Arguments:
    description_file  URDF, or xacro file (``.xacro``, expanded with ``xacro_args``), read into
                      the node's ``robot_description`` parameter (default: the bundled
                      urdf/panda_arm.urdf). Read by
                      ``robot_dynamics.tools.description.load_robot_description``, as the CLI
                      and the demo read their ``--urdf``.
    xacro_args        xacro arguments, ``"name:=value other:=value"`` (default: none).
    use_robot_description_topic
                      true: set no ``robot_description`` parameter; the node takes the URDF from
                      the ``robot_description`` topic (robot_state_publisher's, in the same
                      namespace) and rebuilds on every new one. description_file is not read.
    config_file       parameters YAML (default: none, every parameter at the node's default:
                      base link = the URDF root, tip link = its single leaf). Applied before the
                      arguments below. config/panda_arm.yaml and config/double_pendulum.yaml are
                      the bundled robots' files.
    base_link         overrides base_link when not empty.
    tip_link          overrides tip_link when not empty (needed for a tree with several leaves).
    namespace         namespace of the node (default: none); topics are relative, so
                      joint_states resolves to <namespace>/joint_states.
    node_name         default dynamics_node.
    use_sim_time      default false.

The URDF, config and launch folders are found next to this file, which works both in the
source tree and in the installed share/robot_dynamics. The executable is the package's
``lib/robot_dynamics/dynamics_node`` when the package is installed the ament way (colcon), else
the ``dynamics_node`` console script of the running python's venv (or on PATH), else
``python -m robot_dynamics.ros.dynamics_node``.
"""

import os
import shutil
import sys

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

HERE = os.path.dirname(os.path.abspath(__file__))
SHARE = os.path.dirname(HERE)
DEFAULT_DESCRIPTION = os.path.join(SHARE, "urdf", "panda_arm.urdf")


def _true(text):
    return text.strip().lower() in ("true", "1", "yes", "on")


def _ament_executable():
    """True when ros2 run / launch_ros can find lib/robot_dynamics/dynamics_node."""
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_prefix
    except ImportError:
        return False
    try:
        prefix = get_package_prefix("robot_dynamics")
    except PackageNotFoundError:
        return False
    return os.path.exists(os.path.join(prefix, "lib", "robot_dynamics", "dynamics_node"))


def node_parameters(context):
    """The node's parameter list (config file first, then the overrides) for the launch
    arguments of ``context``.

    Raises:
        FileNotFoundError: config_file does not exist.
        RobotDescriptionError, XacroArgumentError: description_file cannot be read or expanded.
    """
    from robot_dynamics.tools.description import load_robot_description

    value = lambda name: LaunchConfiguration(name).perform(context)  # noqa: E731
    parameters = []
    config_file = os.path.expanduser(value("config_file"))
    if config_file:
        if not os.path.exists(config_file):
            raise FileNotFoundError(f"config_file {config_file!r} does not exist")
        parameters.append(config_file)
    overrides = {"use_sim_time": _true(value("use_sim_time"))}
    if not _true(value("use_robot_description_topic")):
        overrides["robot_description"] = load_robot_description(
            value("description_file"), value("xacro_args")
        )
    for name in ("base_link", "tip_link"):
        if value(name):
            overrides[name] = value(name)
    parameters.append(overrides)
    return parameters


def _node(context):
    common = dict(
        name=LaunchConfiguration("node_name").perform(context),
        namespace=LaunchConfiguration("namespace").perform(context),
        parameters=node_parameters(context),
        output="screen",
        emulate_tty=True,
    )
    if _ament_executable():
        return [Node(package="robot_dynamics", executable="dynamics_node", **common)]
    # Wheel environment: the console script next to this python, or on PATH, else python -m.
    beside = os.path.join(os.path.dirname(sys.executable), "dynamics_node")
    executable = beside if os.path.exists(beside) else shutil.which("dynamics_node")
    if executable is not None:
        return [Node(executable=executable, **common)]
    return [
        Node(
            executable=sys.executable,
            arguments=["-m", "robot_dynamics.ros.dynamics_node"],
            **common,
        )
    ]


def generate_launch_description():
    return LaunchDescription(
        [
            DeclareLaunchArgument(
                "description_file",
                default_value=DEFAULT_DESCRIPTION,
                description="URDF or xacro file loaded into robot_description",
            ),
            DeclareLaunchArgument(
                "xacro_args",
                default_value="",
                description='xacro arguments, "name:=value other:=value"',
            ),
            DeclareLaunchArgument(
                "use_robot_description_topic",
                default_value="false",
                description="take the URDF from the robot_description topic instead",
            ),
            DeclareLaunchArgument(
                "config_file",
                default_value="",
                description="parameters YAML of the dynamics node (default: none)",
            ),
            DeclareLaunchArgument(
                "base_link",
                default_value="",
                description="base link override (empty: config/URDF root)",
            ),
            DeclareLaunchArgument(
                "tip_link",
                default_value="",
                description="tip link override (empty: config/single leaf)",
            ),
            DeclareLaunchArgument(
                "namespace", default_value="", description="namespace of the node"
            ),
            DeclareLaunchArgument(
                "node_name", default_value="dynamics_node", description="name of the node"
            ),
            DeclareLaunchArgument(
                "use_sim_time",
                default_value="false",
                description="use /clock (e.g. from the arm simulator)",
            ),
            OpaqueFunction(function=_node),
        ]
    )
