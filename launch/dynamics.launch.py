"""Launch the dynamics node for any arm: a URDF or xacro file of a description package, or
robot_state_publisher's topic; optionally robot_state_publisher and RViz beside it.

    ros2 launch robot_dynamics dynamics.launch.py                       # bundled Panda
    ros2 launch robot_dynamics dynamics.launch.py --show-args           # every argument
    ros2 launch robot_dynamics dynamics.launch.py description_file:=double_pendulum.urdf \\
        params_file:=package://robot_dynamics/config/double_pendulum.yaml
    ros2 launch robot_dynamics dynamics.launch.py description_package:=ur_description \\
        description_file:=ur.urdf.xacro xacro_args:="ur_type:=ur5e name:=ur" \\
        joint_states_topic:=/joint_states effort_command_topic:=/effort_controller/commands \\
        params_file:=/path/ur5e.yaml
    ros2 launch robot_dynamics dynamics.launch.py balance_inertia:=true \\
        description_file:=package://franka_description/robots/fer/fer.urdf.xacro
    ros2 launch robot_dynamics dynamics.launch.py description_file:=/path/arm_identified.urdf \\
        params_file:="/path/arm.yaml /path/arm_identified.yaml"
    ros2 launch robot_dynamics dynamics.launch.py use_robot_description_topic:=true

Arguments (``--show-args`` lists them with their defaults):
    description_package  ROS package of a relative description_file: the file is looked up in
                      its ``urdf/`` folder, as the UR and ros2_control launch files do (default
                      robot_dynamics, whose urdf/ has panda_arm.urdf and double_pendulum.urdf).
    description_file  URDF or xacro file (``.xacro``, expanded with ``xacro_args``): a name in
                      description_package's urdf/, an absolute path, or ``package://pkg/path``
                      (default panda_arm.urdf). Read into the node's ``robot_description``
                      parameter by ``robot_dynamics.tools.description.load_robot_description``,
                      the loader of the CLI and the demo.
    xacro_args        xacro arguments, ``"name:=value other:=value"`` (default: none).
    use_robot_description_topic
                      true: set no ``robot_description`` parameter; the node takes the URDF from
                      the ``robot_description`` topic (robot_state_publisher's, in the same
                      namespace) and rebuilds on every new one.
    params_file       parameters YAML file(s) of the node, separated by spaces (quoted as in a
                      shell), absolute, relative to the working directory, or ``package://``;
                      applied in order (a later file overrides an earlier one), then the
                      arguments below. Each is checked first as the node reads it: no section
                      for the node, a parameter it does not declare (a typo it would ignore) or
                      a value it refuses stops the launch, and so does a link the URDF lacks
                      (base_link, tip_link, payload.frame, wrench_frame) with the description
                      of description_file. Default: none (base = URDF root, tip = its single
                      leaf).
                      config/panda_arm.yaml and config/double_pendulum.yaml are the bundled
                      robots'.
    base_link, tip_link   override the parameter when not empty.
    balance_inertia, strict_inertia
                      ``true``/``false`` override the node parameter; empty (default): the
                      params file's value or the node's default.
    joint_states_topic    topic of the joint states (default ``joint_states``, in the namespace);
                      e.g. ``/joint_states`` of a ros2_control joint_state_broadcaster.
    effort_command_topic  where ``~/effort_command`` is published (default: there), e.g.
                      ``/effort_controller/commands`` of a ros2_control effort controller (with
                      ``publish_effort_command: true`` and ``command_joints`` in params_file).
    use_robot_state_publisher   also start robot_state_publisher with the same description and
                      joint states (TF for RViz) (default false).
    use_rviz          also start RViz with rviz/dynamics.rviz: the robot model, TF and the
                      estimated wrench (``~/external_wrench``) (default false).
                      robot_state_publisher and RViz are C++ packages of a ROS 2 install; where
                      one is missing it is skipped with a warning.
    namespace         namespace of the nodes (default: none).
    node_name         default dynamics_node.
    use_sim_time      default false.

A command-line argument that this file does not declare (``urdf_file:=``, ``config_file:=``)
stops the launch with the list of the arguments it has, instead of being ignored.

The rviz folder is found next to this file (the source tree or share/robot_dynamics). The
executable is the package's ``lib/robot_dynamics/dynamics_node`` when the package is installed
the ament way (colcon), else the ``dynamics_node`` console script of the running python's venv
(or on PATH), else ``python -m robot_dynamics.ros.dynamics_node``.
"""

import difflib
import os
import shlex
import shutil
import sys

import launch.logging
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = "robot_dynamics"
HERE = os.path.dirname(os.path.abspath(__file__))
SHARE = os.path.dirname(HERE)
RVIZ_CONFIG = os.path.join(SHARE, "rviz", "dynamics.rviz")
DEFAULT_NODE_NAME = "dynamics_node"
JOINT_STATES = "joint_states"
EFFORT_COMMAND = "~/effort_command"

ARGUMENTS = (
    ("description_package", PACKAGE, "ROS package whose urdf/ holds a relative description_file"),
    ("description_file", "panda_arm.urdf", "URDF or xacro: name in urdf/, path or package://"),
    ("xacro_args", "", 'xacro arguments "name:=value other:=value"'),
    ("use_robot_description_topic", "false", "take the URDF from the robot_description topic"),
    ("params_file", "", "parameters YAML file(s) of the node, space-separated, in order"),
    ("base_link", "", "base link override (empty: params file / URDF root)"),
    ("tip_link", "", "tip link override (empty: params file / single leaf)"),
    ("balance_inertia", "", "true/false override (empty: params file / node default)"),
    ("strict_inertia", "", "true/false override (empty: params file / node default)"),
    ("joint_states_topic", JOINT_STATES, "joint states topic the node subscribes to"),
    ("effort_command_topic", EFFORT_COMMAND, "topic of ~/effort_command (a controller's)"),
    ("use_robot_state_publisher", "false", "also start robot_state_publisher"),
    ("use_rviz", "false", "also start RViz: robot model, TF and the estimated wrench"),
    ("namespace", "", "namespace of the nodes"),
    ("node_name", DEFAULT_NODE_NAME, "name of the dynamics node"),
    ("use_sim_time", "false", "use /clock (e.g. from the arm simulator)"),
)
DECLARED = tuple(name for name, _, _ in ARGUMENTS)
# Names other launch files use for what these arguments are, for the "did you mean" hint.
OTHER_NAMES = {
    **dict.fromkeys(("urdf", "urdf_file", "urdf_path", "model", "robot_file"), "description_file"),
    **dict.fromkeys(("config", "config_file", "param_file", "params", "parameters"), "params_file"),
    **dict.fromkeys(("use_rsp", "robot_state_publisher"), "use_robot_state_publisher"),
    **dict.fromkeys(("rviz", "start_rviz", "launch_rviz"), "use_rviz"),
}


def _did_you_mean(name):
    close = difflib.get_close_matches(name, DECLARED, n=1, cutoff=0.8)
    hint = OTHER_NAMES.get(name) or (close[0] if close else None)
    return f"{name} (did you mean {hint}?)" if hint else name


_logger = launch.logging.get_logger("dynamics.launch.py")


def _flag(text, name, allow_empty=False):
    """A boolean launch argument: True/False, or None for empty when allowed.

    Raises:
        ValueError: any other text (naming the argument).
    """
    value = text.strip().lower()
    if allow_empty and not value:
        return None
    if value in ("true", "1", "yes", "on"):
        return True
    if value in ("false", "0", "no", "off"):
        return False
    raise ValueError(f"launch argument {name}:={text!r} is not true or false")


def check_command_line(context):
    """Stop the launch on a command-line argument this file does not declare.

    Only when this file is the one ``ros2 launch`` was given (the event being handled is the
    launch service's top-level include, and it includes this file, its location expanded by
    then): included from another launch file, the command line holds that file's arguments.

    Raises:
        ValueError: naming the unknown arguments, the closest declared ones, and all of them.
    """
    event = getattr(context.locals, "event", None)
    entities = getattr(getattr(event, "launch_description", None), "entities", None) or []
    here = os.path.realpath(__file__)
    top_level = any(
        isinstance(e, IncludeLaunchDescription)
        and os.path.realpath(e.launch_description_source.location) == here
        for e in entities
    )
    if not top_level:
        return
    given = [arg.partition(":=")[0] for arg in context.argv if ":=" in arg]
    unknown = [name for name in given if name not in DECLARED]
    if unknown:
        raise ValueError(
            f"dynamics.launch.py has no argument {', '.join(map(_did_you_mean, unknown))}; its "
            f"arguments: {', '.join(DECLARED)} "
            f"(ros2 launch {PACKAGE} dynamics.launch.py --show-args)"
        )


def params_files(text, node):
    """The parameters files of the ``params_file`` argument, in order, each checked as the node
    would read it (:func:`robot_dynamics.tools.params_file.read_parameters_file`).

    Args:
        text: the argument: paths separated by white space (quoted as in a shell).
        node: the dynamics node's fully qualified name (``/ns/name``).

    Returns:
        list of str: the files.

    Raises:
        FileNotFoundError: a file that does not exist (named).
        RobotDescriptionError: a ``package://`` path of an unknown package.
        ParametersFileError: a file with no section for ``node``, a parameter the node does not
            declare (a typo the node would ignore) or a value it refuses (file, parameter, line).
    """
    from robot_dynamics.tools.description import resolve_package_path
    from robot_dynamics.tools.params_file import read_parameters_file

    files = [resolve_package_path(item) for item in shlex.split(text)]
    for path in files:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"params_file {path!r} does not exist")
        read_parameters_file(path, node=node)
    return files


def node_parameters(context, urdf):
    """The node's parameter list (params files first, then the overrides).

    Args:
        context: the launch context (arguments).
        urdf: the URDF text for ``robot_description``, or None (the topic).

    Raises:
        FileNotFoundError: a params file does not exist.
        ParametersFileError: a params file the node would not read as meant (see
            :func:`params_files`).
        ValueError: a boolean argument that is not true/false.
    """
    value = lambda name: LaunchConfiguration(name).perform(context)  # noqa: E731
    overrides = {"use_sim_time": _flag(value("use_sim_time"), "use_sim_time")}
    if urdf is not None:
        overrides["robot_description"] = urdf
    for name in ("base_link", "tip_link"):
        if value(name):
            overrides[name] = value(name)
    for name in ("balance_inertia", "strict_inertia"):
        flag = _flag(value(name), name, allow_empty=True)
        if flag is not None:
            overrides[name] = flag
    node = qualified_name(value("namespace"), value("node_name"))
    return [*params_files(value("params_file"), node), overrides]


def qualified_name(namespace, name):
    """The dynamics node's fully qualified name (``/ns/name``) from the launch arguments."""
    return "/" + "/".join(filter(None, (*namespace.split("/"), name)))


def check_model(parameters, urdf, node):
    """Build the node's model and estimation configuration from ``parameters`` as the node
    would at start-up, so that a link the URDF lacks (``base_link``, ``tip_link``,
    ``payload.frame``, ``wrench_frame``, ...) stops the launch instead of leaving a node without a
    model.

    Args:
        parameters: :func:`node_parameters`' list (params files, then the overrides).
        urdf: the URDF text.
        node: the dynamics node's fully qualified name (``/ns/name``).

    Raises:
        ParametersFileError: a value a file set that does not fit the model (file, parameter).
        RobotDynamicsError: the URDF, a launch argument or a default that cannot make a model or
            its configuration (named).
    """
    from robot_dynamics.tools.params_file import read_parameters_files

    *files, overrides = parameters
    given = {k: v for k, v in overrides.items() if k not in ("use_sim_time", "robot_description")}
    values = read_parameters_files(files, node=node).with_values(given, "the launch arguments")
    values.pipeline(values.build_model(urdf)[1])


def _ament_executable(package, executable):
    """Whether ``ros2 run package executable`` would find it (ament index)."""
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_prefix
    except ImportError:
        return False
    try:
        prefix = get_package_prefix(package)
    except PackageNotFoundError:
        return False
    return os.access(os.path.join(prefix, "lib", package, executable), os.X_OK)


def _dynamics_node(**common):
    if _ament_executable(PACKAGE, "dynamics_node"):
        return Node(package=PACKAGE, executable="dynamics_node", **common)
    # Wheel environment: the console script next to this python, or on PATH, else python -m.
    beside = os.path.join(os.path.dirname(sys.executable), "dynamics_node")
    executable = beside if os.path.exists(beside) else shutil.which("dynamics_node")
    if executable is not None:
        return Node(executable=executable, **common)
    return Node(
        executable=sys.executable, arguments=["-m", "robot_dynamics.ros.dynamics_node"], **common
    )


def rviz_settings(urdf, node_name):
    """RViz's command-line arguments and remappings for rviz/dynamics.rviz.

    The config's topics are relative (``robot_description``, ``dynamics_node/external_wrench``):
    RViz runs in the namespace of the nodes; the wrench topic is remapped to ``node_name``'s.
    The fixed frame is the URDF root (the root of robot_state_publisher's TF tree).

    Args:
        urdf: URDF text, or None (the description comes from the topic: the config's frame).
        node_name: the dynamics node's name.

    Returns:
        dict: ``arguments`` and ``remappings`` of the rviz2 node.
    """
    from robot_dynamics.tools.description import urdf_root_link

    fixed = ["-f", urdf_root_link(urdf)] if urdf is not None else []
    wrench = f"{DEFAULT_NODE_NAME}/external_wrench"
    remaps = [(wrench, f"{node_name}/external_wrench")] if node_name != DEFAULT_NODE_NAME else []
    return {"arguments": ["-d", RVIZ_CONFIG, *fixed], "remappings": remaps}


def _missing(argument, package):
    _logger.warning(
        f"{argument}:=true but {package} is not installed (ros-jazzy-"
        f"{package.replace('_', '-')}, not on PyPI): not started"
    )


def _actions(context):
    from robot_dynamics.tools.description import load_robot_description

    check_command_line(context)
    value = lambda name: LaunchConfiguration(name).perform(context)  # noqa: E731
    from_topic = _flag(value("use_robot_description_topic"), "use_robot_description_topic")
    with_rsp = _flag(value("use_robot_state_publisher"), "use_robot_state_publisher")
    with_rviz = _flag(value("use_rviz"), "use_rviz")
    urdf = None
    if not from_topic or with_rsp:
        urdf = load_robot_description(
            value("description_file"),
            value("xacro_args"),
            description_package=value("description_package"),
        )
    namespace = value("namespace")
    node_name = value("node_name")
    sim_time = {"use_sim_time": _flag(value("use_sim_time"), "use_sim_time")}
    js = value("joint_states_topic")
    joint_states = [(JOINT_STATES, js)] if js != JOINT_STATES else []
    command = value("effort_command_topic")
    remaps = joint_states + ([(EFFORT_COMMAND, command)] if command != EFFORT_COMMAND else [])
    parameters = node_parameters(context, None if from_topic else urdf)
    if not from_topic:
        check_model(parameters, urdf, qualified_name(namespace, node_name))
    actions = [
        _dynamics_node(
            name=node_name,
            namespace=namespace,
            parameters=parameters,
            remappings=remaps,
            output="screen",
            emulate_tty=True,
        )
    ]
    if with_rsp and not _ament_executable("robot_state_publisher", "robot_state_publisher"):
        _missing("use_robot_state_publisher", "robot_state_publisher")
    elif with_rsp:
        actions.append(
            Node(
                package="robot_state_publisher",
                executable="robot_state_publisher",
                namespace=namespace,
                parameters=[{"robot_description": urdf, **sim_time}],
                remappings=joint_states,
                output="screen",
            )
        )
    if with_rviz and not _ament_executable("rviz2", "rviz2"):
        _missing("use_rviz", "rviz2")
    elif with_rviz:
        actions.append(
            Node(
                package="rviz2",
                executable="rviz2",
                namespace=namespace,
                parameters=[sim_time],
                output="screen",
                **rviz_settings(urdf, node_name),
            )
        )
    return actions


def generate_launch_description():
    return LaunchDescription(
        [
            *(
                DeclareLaunchArgument(name, default_value=default, description=text)
                for name, default, text in ARGUMENTS
            ),
            OpaqueFunction(function=_actions),
        ]
    )
