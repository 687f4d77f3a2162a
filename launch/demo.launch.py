"""The robot_dynamics demo with a full ROS 2 install: the simulated arm, the dynamics node and
(optionally) the scripted pushes with the live table, summary and plot.

    ros2 launch robot_dynamics demo.launch.py                        # Panda, pushes, out/demo.png
    ros2 launch robot_dynamics demo.launch.py robot:=double_pendulum
    ros2 launch robot_dynamics demo.launch.py run_demo:=false    # only the two nodes: push by hand
    ros2 launch robot_dynamics demo.launch.py description_file:=/path/arm.urdf tip_link:=tool0
    ros2 launch robot_dynamics demo.launch.py description_file:=/path/arm.urdf.xacro \
        xacro_args:="prefix:=left_" tip_link:=left_tool0

It is the equivalent of ``make demo`` / ``robot-dynamics-demo``: the same parameters (computed by
``robot_dynamics.tools.demo.demo_settings``), with launch starting the nodes and the demo attaching
to them (``robot-dynamics-demo --attach``). The simulator's ``~/commands`` is remapped onto the
dynamics node's ``~/effort_command`` (gravity compensation holds the arm).

Arguments:
    robot        bundled robot: panda (default) or double_pendulum.
    description_file
                 your URDF or xacro file instead, a path or package://pkg/path (default: empty =
                 the bundled robot).
    xacro_args   xacro arguments of a .xacro description_file, "name:=value other:=value".
    tip_link     frame that is pushed / where the wrench is estimated (default: the robot's).
    duration     scripted seconds (default: 12 for the pushes, 10 for the pendulum).
    namespace    namespace of the nodes (default: none).
    run_demo     true (default): also run the pushes, live table, summary and plot;
                 false: start only arm_simulator and dynamics_node. Push the tool by hand with
                 ros2 topic pub -r 20 /arm_simulator/external_wrench geometry_msgs/msg/WrenchStamped
                 "{header: {frame_id: tool}, wrench: {force: {z: -10.0}}}"
                 and watch ros2 topic echo /dynamics_node/external_wrench.
    plot         PNG written by the demo (default out/demo.png in the working directory).
"""

import os
import shutil
import sys

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess, OpaqueFunction, Shutdown
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def _executable(name):
    """launch_ros arguments for a robot_dynamics executable: the ament one (colcon install), else
    the console script beside the running python (the wheel environment's venv) or on PATH."""
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_prefix

        try:
            prefix = get_package_prefix("robot_dynamics")
            if os.path.exists(os.path.join(prefix, "lib", "robot_dynamics", name)):
                return {"package": "robot_dynamics", "executable": name}
        except PackageNotFoundError:
            pass
    except ImportError:
        pass
    beside = os.path.join(os.path.dirname(sys.executable), name)  # the running venv's
    path = beside if os.path.exists(beside) else shutil.which(name)
    if path is None:
        raise RuntimeError(
            f"{name} not found: install robot_dynamics (colcon build, or make install)"
        )
    return {"executable": path}


def _actions(context):
    from robot_dynamics.tools.demo import build_parser, demo_settings

    value = lambda name: LaunchConfiguration(name).perform(context)  # noqa: E731
    argv = ["--robot", value("robot"), "--plot", value("plot")]
    if value("description_file"):
        argv += ["--urdf", value("description_file")]
        if value("xacro_args"):
            argv += ["--xacro-arg", value("xacro_args")]  # "a:=1 b:=2", as the CLI takes it
    if value("tip_link"):
        argv += ["--tip-link", value("tip_link")]
    if value("duration"):
        argv += ["--duration", value("duration")]
    namespace = value("namespace").strip("/")
    if namespace:
        argv += ["--namespace", "/" + namespace]
    args = build_parser().parse_args(argv)
    setup, sim_params, node_params, _, _ = demo_settings(args)
    ns = "/" + namespace if namespace else ""
    remaps = (
        []
        if setup.pendulum
        else [(ns + "/arm_simulator/commands", ns + "/dynamics_node/effort_command")]
    )
    actions = [
        Node(
            name="arm_simulator",
            namespace=namespace,
            parameters=[sim_params],
            remappings=remaps,
            output="screen",
            **_executable("arm_simulator"),
        ),
        Node(
            name="dynamics_node",
            namespace=namespace,
            parameters=[node_params],
            output="screen",
            **_executable("dynamics_node"),
        ),
    ]
    if value("run_demo").lower() in ("true", "1", "yes"):
        found = _executable("robot-dynamics-demo")
        demo = found["executable"]
        if "package" in found:  # the ament install: lib/robot_dynamics/robot-dynamics-demo
            from ament_index_python.packages import get_package_prefix

            demo = os.path.join(get_package_prefix("robot_dynamics"), "lib", "robot_dynamics", demo)
        actions.append(
            ExecuteProcess(
                cmd=[demo, "--attach", *argv],
                output="screen",
                on_exit=[Shutdown(reason="demo finished")],
            )
        )
    return actions


def generate_launch_description():
    return LaunchDescription(
        [
            DeclareLaunchArgument(
                "robot",
                default_value="panda",
                description="bundled robot: panda or double_pendulum",
            ),
            DeclareLaunchArgument(
                "description_file", default_value="", description="your URDF or xacro instead"
            ),
            DeclareLaunchArgument(
                "xacro_args", default_value="", description='xacro arguments "name:=value ..."'
            ),
            DeclareLaunchArgument(
                "tip_link", default_value="", description="pushed / estimated frame"
            ),
            DeclareLaunchArgument("duration", default_value="", description="scripted seconds"),
            DeclareLaunchArgument(
                "namespace", default_value="", description="namespace of the nodes"
            ),
            DeclareLaunchArgument(
                "run_demo",
                default_value="true",
                description="run the scripted pushes, summary and plot",
            ),
            DeclareLaunchArgument(
                "plot",
                default_value=os.path.join("out", "demo.png"),
                description="PNG written by the demo",
            ),
            OpaqueFunction(function=_actions),
        ]
    )
