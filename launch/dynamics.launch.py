"""Launch the dynamics node for a URDF file.

    ros2 launch robot_dynamics dynamics.launch.py                       # bundled Panda arm
    ros2 launch robot_dynamics dynamics.launch.py \\
        urdf_file:=/path/arm.urdf config_file:=/path/arm.yaml tip_link:=tool0

Arguments:
    urdf_file    URDF read into the node's robot_description parameter
                 (default: the bundled urdf/panda_arm.urdf).
    config_file  parameters YAML (default: config/panda_arm.yaml; config/double_pendulum.yaml
                 for the bundled double pendulum). Applied before the arguments below.
    base_link    overrides base_link when not empty.
    tip_link     overrides tip_link when not empty.
    namespace    namespace of the node (default: none); topics are relative, so
                 joint_states resolves to <namespace>/joint_states.
    node_name    default dynamics_node.
    use_sim_time default false.

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
DEFAULT_URDF = os.path.join(SHARE, "urdf", "panda_arm.urdf")
DEFAULT_CONFIG = os.path.join(SHARE, "config", "panda_arm.yaml")


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


def _node(context):
    urdf_file = os.path.expanduser(LaunchConfiguration("urdf_file").perform(context))
    config_file = os.path.expanduser(LaunchConfiguration("config_file").perform(context))
    with open(urdf_file) as f:
        robot_description = f.read()
    parameters = []
    if config_file:
        if not os.path.exists(config_file):
            raise FileNotFoundError(f"config_file {config_file!r} does not exist")
        parameters.append(config_file)
    overrides = {
        "robot_description": robot_description,
        "use_sim_time": LaunchConfiguration("use_sim_time").perform(context).lower()
        in ("true", "1", "yes"),
    }
    for name in ("base_link", "tip_link"):
        value = LaunchConfiguration(name).perform(context)
        if value:
            overrides[name] = value
    parameters.append(overrides)
    common = dict(
        name=LaunchConfiguration("node_name").perform(context),
        namespace=LaunchConfiguration("namespace").perform(context),
        parameters=parameters,
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
                "urdf_file",
                default_value=DEFAULT_URDF,
                description="URDF file loaded into robot_description",
            ),
            DeclareLaunchArgument(
                "config_file",
                default_value=DEFAULT_CONFIG,
                description="parameters YAML of the dynamics node",
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
