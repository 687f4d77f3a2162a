"""Start-up parameter values of both nodes as a user gives them (``--params-file``, ``-p``), the
nodes run as processes over DDS: an integer for a double, integers for a double array and an
empty list for any array are taken in the declared type, as ``ros2 param set`` takes them; a
value the node refuses ends the process with exit code 1 and one error line naming the
parameter, the value, what it takes and where the value came from, without a traceback; a
parameter the node does not declare, set for it by mistake, is a WARN naming it, where it is set
and the declared names it is close to."""

import pytest
import yaml

from robot_dynamics.tools.bundled import bundled_urdf_path

from node_test_helpers import read

rclpy = pytest.importorskip("rclpy")
from rcl_interfaces.msg import ParameterType  # noqa: E402
from rcl_interfaces.srv import GetParameters  # noqa: E402

PENDULUM = read(bundled_urdf_path("double_pendulum"))


def _params_file(tmp_path, values, name="params.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"/**": {"ros__parameters": values}}))
    return str(path)


def _start(start_process, console_script, script, ns, path, *more):
    argv = console_script(script) + ["--ros-args", "-r", f"__ns:={ns}", "--params-file", path]
    return start_process(argv + list(more), name=script)


@pytest.mark.parametrize(
    "script, in_file, on_command_line, expected",
    [
        (
            "dynamics_node",
            {"observer_gain": 100, "effort_scale": [1, -1]},
            ["-p", "friction_velocity_threshold:=1", "-p", "wrench_components:=[]"],
            {
                "observer_gain": (ParameterType.PARAMETER_DOUBLE, 100.0),
                "effort_scale": (ParameterType.PARAMETER_DOUBLE_ARRAY, [1.0, -1.0]),
                "friction_velocity_threshold": (ParameterType.PARAMETER_DOUBLE, 1.0),
                "wrench_components": (ParameterType.PARAMETER_STRING_ARRAY, []),
            },
        ),
        (
            "arm_simulator",
            {"integration_rate": 500, "friction": {"viscous": [1, 2]}},
            ["-p", "max_lag:=1", "-p", "joints:=[]"],
            {
                "integration_rate": (ParameterType.PARAMETER_DOUBLE, 500.0),
                "friction.viscous": (ParameterType.PARAMETER_DOUBLE_ARRAY, [1.0, 2.0]),
                "max_lag": (ParameterType.PARAMETER_DOUBLE, 1.0),
                "joints": (ParameterType.PARAMETER_STRING_ARRAY, []),
            },
        ),
    ],
)
def test_integers_for_doubles_and_empty_lists_are_taken_in_the_declared_type(
    script,
    in_file,
    on_command_line,
    expected,
    start_process,
    console_script,
    ros_node,
    unique_name,
    tmp_path,
):
    ns = "/" + unique_name
    path = _params_file(tmp_path, {"robot_description": PENDULUM, **in_file})
    proc = _start(start_process, console_script, script, ns, path, *on_command_line)
    proc.wait_for_output(r"model loaded", timeout=60.0)
    client = ros_node.node.create_client(GetParameters, f"{ns}/{script}/get_parameters")
    names = list(expected)
    values = ros_node.call(client, GetParameters.Request(names=names)).values
    for name, value in zip(names, values):
        ptype, want = expected[name]
        got = value.double_value if ptype == ParameterType.PARAMETER_DOUBLE else None
        if ptype == ParameterType.PARAMETER_DOUBLE_ARRAY:
            got = list(value.double_array_value)
        elif ptype == ParameterType.PARAMETER_STRING_ARRAY:
            got = list(value.string_array_value)
        assert (value.type, got) == (ptype, want), name
    proc.assert_alive()


@pytest.mark.parametrize(
    "script, in_file, on_command_line, line",
    [
        (
            "dynamics_node",
            {"observer_gain": -5.0},
            [],
            "parameter observer_gain = -5.0 in {path}: must be > 0.0, got -5.0 "
            "(allowed: a double; value in (0.0, 10000.0])",
        ),
        (
            "dynamics_node",
            {},
            ["-p", "executor:=fast"],
            "parameter executor = 'fast' on the command line (-p): must be one of ['split', "
            "'split_events', 'multi_threaded', 'events'], got 'fast' (allowed: a string; one of "
            "'split', 'split_events', 'multi_threaded', 'events')",
        ),
        (
            "arm_simulator",
            {"max_lag": "long"},
            [],
            "parameter max_lag = 'long' in {path}: must be a double, got a string "
            "(allowed: a double; value in [0.0, 60.0])",
        ),
        (
            "arm_simulator",
            {"max_lag": 0.5},
            ["-p", "effort_noise_seed:=1.5"],
            "parameter effort_noise_seed = 1.5 on the command line (-p): must be an integer, "
            "got a double (allowed: an integer; value in [-1, 2147483647])",
        ),
    ],
)
def test_a_refused_start_up_value_ends_the_process_with_one_error_line(
    script, in_file, on_command_line, line, start_process, console_script, unique_name, tmp_path
):
    path = _params_file(tmp_path, in_file)
    proc = _start(start_process, console_script, script, "/" + unique_name, path, *on_command_line)
    assert proc.wait(60.0) == 1, proc.output()
    output = proc.output()
    errors = [text for text in output.splitlines() if "[ERROR]" in text]
    assert len(errors) == 1 and errors[0].endswith(line.format(path=path)), output
    assert "Traceback" not in output, output


@pytest.mark.parametrize(
    "program, make_arguments, fragments",
    [
        (
            ("module", "robot_dynamics.ros.dynamics_node"),
            lambda tmp_path: ["-p", "gravity:=[0,0,-9.81]"],
            ("parameter override rule: '-p gravity:=[0,0,-9.81]'", "same type"),
        ),
        (
            ("script", "dynamics_node"),
            lambda tmp_path: ["--params-file", _text_file(tmp_path, "a: [b\n")],
            ("params file: '--params-file ", "bad.yaml'"),
        ),
        (
            ("script", "arm_simulator"),
            lambda tmp_path: ["-p", "max_lag:=[1, 2.5]"],
            ("parameter override rule: '-p max_lag:=[1, 2.5]'", "same type"),
        ),
    ],
)
def test_refused_ros_arguments_end_the_process_with_one_error_line(
    program, make_arguments, fragments, start_process, console_script, python_module, tmp_path
):
    """Arguments rclpy.init refuses (a list of integers and doubles, a parameters file that is
    not YAML), given as a user gives them: exit code 1 and one error line naming the argument."""
    kind, name = program
    argv = python_module(name) if kind == "module" else console_script(name)
    proc = start_process(argv + ["--ros-args"] + make_arguments(tmp_path), name="refused")
    assert proc.wait(60.0) == 1, proc.output()
    output = proc.output()
    lines = [text for text in output.splitlines() if text.strip()]
    assert len(lines) == 1 and "[ERROR]" in lines[0] and "cannot start" in lines[0], output
    assert all(fragment in lines[0] for fragment in fragments), output
    assert "Traceback" not in output and ", at /" not in output, output


def _text_file(tmp_path, text, name="bad.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("script", ["dynamics_node", "arm_simulator"])
def test_a_mistaken_start_up_parameter_is_a_warning(
    script, start_process, console_script, unique_name, tmp_path
):
    """A typo in a shared section and in -p, and an unknown name in a section for the node
    alone: one WARN each, naming the parameter, where it is set and the close names; the node
    starts with the rest."""
    path = _params_file(
        tmp_path, {"robot_description": PENDULUM, "tip_lnk": "tip", "camera_fps": 30}
    )
    own = tmp_path / "own.yaml"
    own.write_text(
        yaml.safe_dump({f"/{unique_name}/{script}": {"ros__parameters": {"frobnicate": 1}}})
    )
    proc = _start(
        start_process,
        console_script,
        script,
        "/" + unique_name,
        path,
        "--params-file",
        str(own),
        "-p",
        "base_lnk:=world",
    )
    proc.wait_for_output(r"model loaded from parameter robot_description", timeout=60.0)
    lines = [
        proc.wait_for_output(pattern, timeout=30.0).group(0)
        for pattern in (
            r"WARN.*parameter 'tip_lnk' in .*params\.yaml is not a parameter of this node; "
            r"did you mean tip_link\b.*\(ignored\)",
            r"WARN.*parameter 'frobnicate' in .*own\.yaml is not a parameter of this node "
            r"\(ignored\)",
            r"WARN.*parameter 'base_lnk' on the command line \(-p\) is not a parameter of this "
            r"node; did you mean base_link\b",
        )
    ]
    assert len(lines) == 3
    assert "camera_fps" not in proc.output()
    proc.assert_alive()


@pytest.mark.parametrize("script, flag", [("dynamics_node", "--help"), ("arm_simulator", "-h")])
def test_help_prints_the_parameters_and_starts_nothing(console_script, script, flag):
    """``dynamics_node --help`` (also with ROS arguments after it) prints how to run the node and
    every declared parameter with its default, and exits 0 without starting a node."""
    import subprocess

    from robot_dynamics.schema import SCHEMAS

    schema = next(s for s in SCHEMAS if s.node == script)
    argv = console_script(script) + [flag, "--ros-args", "-p", "observer_gain:=5.0"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: {script} [--ros-args"), done.stdout[:200]
    for p in schema.params:
        assert f"\n  {p.name} = {p.default_text}" in done.stdout, p.name
    assert "model loaded" not in done.stdout + done.stderr
