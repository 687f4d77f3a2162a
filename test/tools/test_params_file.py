"""Node parameters files (robot_dynamics.tools.params_file): read as rcl and the dynamics node
read them (sections, wildcards, precedence, nesting, the node's declared types and ranges),
refused with a ParametersFileError naming the file and the parameter, written so that they read
back equal; the simulated arm's files written from its declarations. Two tests compare with
rclpy itself in this process (an rclpy Context initialised with ``--params-file``: rcl's parser,
the node's declarations); no messages are exchanged. The file's sections and rcl's typing of
its scalars: test/schema/test_files.py."""

import math

import numpy as np
import pytest

from robot_dynamics.core.errors import ParametersFileError
from robot_dynamics.estimation.config import pipeline_config
from robot_dynamics.schema import ARM_SIMULATOR, DYNAMICS_NODE, comment_problems
from robot_dynamics.tools.params_file import (
    NodeParameters,
    default_parameters,
    parameters_yaml,
    read_parameters_file,
)


def write(tmp_path, text, name="params.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def refused(path, parameter=None, *fragments, node="dynamics_node"):
    with pytest.raises(ParametersFileError) as info:
        read_parameters_file(path, node=node)
    message = str(info.value)
    assert path in message, message
    if parameter is not None:
        assert info.value.parameter == parameter
        assert parameter in message
    for fragment in fragments:
        assert fragment in message, message
    return message


# ------------------------------------------------------------------ sections and names
def test_sections_apply_in_file_order_with_wildcards_and_nesting(tmp_path):
    path = write(
        tmp_path,
        """# comment
/**:
  ros__parameters:
    observer_gain: 20.0
    contact:
      torque_on: [1.0, 2.0]
      force_on: 5.0
other_node:
  ros__parameters:
    observer_gain: 1.0
    not_ours: 3
dynamics_node:
  ros__parameters:
    observer_gain: 30.0
    contact.min_duration: 0.05
    wrench_components: [fx, fy, fz]
    tip_link: tool
/**/dynamics_node:
  ros__parameters:
    friction_compensation: yes
""",
    )
    params = read_parameters_file(path)
    defaults = default_parameters().values
    assert params.values["observer_gain"] == 30.0  # the later section wins
    assert params.values["contact.torque_on"] == [1.0, 2.0]
    assert params.values["contact.force_on"] == 5.0
    assert params.values["contact.min_duration"] == 0.05
    assert params.values["wrench_components"] == ["fx", "fy", "fz"]
    assert params.values["friction_compensation"] is True
    assert params.values["tip_link"] == "tool"
    given = {
        "observer_gain",
        "contact.torque_on",
        "contact.force_on",
        "contact.min_duration",
        "wrench_components",
        "friction_compensation",
        "tip_link",
    }
    assert params.given == given
    for name, value in defaults.items():
        if name not in given:
            assert params.values[name] == value, name
    assert params.node == "/dynamics_node"
    assert params.lines["observer_gain"] == 14
    # another node name: the sections that match it (here one with a name the node lacks)
    refused(path, "not_ours", "line 11", node="other_node")


def test_namespaces_and_single_token_wildcard(tmp_path):
    path = write(
        tmp_path,
        """ns:
  dynamics_node:
    ros__parameters:
      observer_gain: 11.0
/ns/*:
  ros__parameters:
    tare_duration: 2.0
/*:
  ros__parameters:
    wrench_damping: 0.5
""",
    )
    params = read_parameters_file(path, node="/ns/dynamics_node")
    assert params.values["observer_gain"] == 11.0
    assert params.values["tare_duration"] == 2.0
    assert params.values["wrench_damping"] == 0.05  # /* is one token: not /ns/dynamics_node
    top = read_parameters_file(path, node="dynamics_node")
    assert top.values["wrench_damping"] == 0.5 and top.values["observer_gain"] == 50.0
    refused(path, None, "no section for node /other", "/ns/dynamics_node", node="other/x/other")


def test_empty_list_takes_the_empty_default_or_is_refused(tmp_path):
    ok = write(tmp_path, "/**:\n  ros__parameters:\n    contact:\n      torque_on: []\n")
    assert read_parameters_file(ok).values["contact.torque_on"] == []
    assert read_parameters_file(write(tmp_path, "/**:\n  ros__parameters:\n    gravity: []\n"))
    bad = write(tmp_path, "/**:\n  ros__parameters:\n    payload:\n      com: []\n", "bad.yaml")
    refused(bad, "payload.com", "empty list", "refuses to start")


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize(
    "body, parameter, fragments",
    [
        ("observer_gain: fifty", "observer_gain", ("must be a double", "string 'fifty'")),
        ("effort_scale: [a, b]", "effort_scale", ("must be a double array", "string array")),
        ("gravity: [0, 0, -9.81]", "gravity", ("one type", "1.0, not 1")),
        ("observer_gain: -1.0", "observer_gain", ("must be > 0.0",)),
        ("observer_gain: .nan", "observer_gain", ("finite",)),
        ("gravity: [0.0, -9.81]", "gravity", ("needs 3 values",)),
        ("wrench_estimation: kalman", "wrench_estimation", ("must be one of",)),
        ("wrench_components: [fx, fx]", "wrench_components", ("appears twice",)),
        ("wrench_components: [fx, fw]", "wrench_components", ("not among",)),
        ("wrench_components: fx", "wrench_components", ("string array",)),
        ("tip_link: 5", "tip_link", ("must be a string", "quote it")),
        ("max_simulation_samples: 10.0", "max_simulation_samples", ("must be a integer",)),
        ("friction_compensation: 1", "friction_compensation", ("must be a bool",)),
        ("observer_gian: 20.0", "observer_gian", ("not a parameter", "did you mean observer_gain")),
        ("contact:\n      torque_onn: [1.0]", "contact.torque_onn", ("contact.torque_on",)),
        ("observer_gain:", "observer_gain", ("no value",)),
        ("gravity: [[0.0]]", "gravity", ("list of lists",)),
    ],
)
def test_bad_values_are_refused_naming_file_parameter_and_line(
    tmp_path, body, parameter, fragments
):
    path = write(tmp_path, f"/**:\n  ros__parameters:\n    {body}\n")
    message = refused(path, parameter, *fragments)
    assert f"line {3 + body.count(chr(10))}:" in message


def test_shared_sections_leave_other_nodes_parameters_and_rclpys_own_to_them(tmp_path):
    path = write(
        tmp_path,
        "/**:\n  ros__parameters:\n    use_sim_time: true\n    publish_frequency: 50.0\n"
        "    observer_gain: 20.0\n"
        "dynamics_node:\n  ros__parameters:\n    use_sim_time: true\n"
        "    qos_overrides:\n      /joint_states:\n        subscription:\n          depth: 5\n",
    )
    params = read_parameters_file(path)
    assert params.values["observer_gain"] == 20.0
    assert params.given == {"observer_gain"}
    # the node's own section: an undeclared name is a typo
    refused(
        write(
            tmp_path,
            "dynamics_node:\n  ros__parameters:\n    publish_frequency: 50.0\n",
            "own.yaml",
        ),
        "publish_frequency",
        "not a parameter",
    )


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("observer_gain: 20.0\n", "expected a node name"),
        ("/**: {}\n", "no 'ros__parameters' section"),
        ("- 1\n- 2\n", "one YAML mapping"),
        ("", "one YAML mapping"),
        ("/**:\n  ros__parameters: [1.0]\n", "must be a mapping"),
        ("/**:\n  observer_gain: 20.0\n", "expected a node name"),
        ("ros__parameters:\n  observer_gain: 20.0\n", "no node name before"),
        ("/dyn*:\n  ros__parameters:\n    observer_gain: 20.0\n", "not a node name"),
        ("/**:\n  ros__parameters:\n    a: [1.0\n", "not YAML"),
        ("other:\n  ros__parameters:\n    a: [1.0, x]\n", "one type"),  # any section: rcl fails
    ],
)
def test_malformed_files_are_refused(tmp_path, text, fragment):
    refused(write(tmp_path, text), None, fragment)


def test_the_cli_exit_code_of_a_bad_file_is_2(tmp_path):
    from robot_dynamics.tools.cli import EXIT_USAGE, exit_code_of

    with pytest.raises(ParametersFileError) as info:
        read_parameters_file(write(tmp_path, "/**:\n  ros__parameters:\n    gravity: 1.0\n"))
    assert exit_code_of(info.value) == EXIT_USAGE


def test_unreadable_file(tmp_path):
    refused(str(tmp_path / "missing.yaml"), None, "cannot read parameters file")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00bad")
    refused(str(binary), None, "cannot read parameters file")


def test_values_that_do_not_fit_the_model_name_the_file(tmp_path):
    from robot_dynamics.tools.robots import resolve_robot

    urdf = resolve_robot("panda", None).urdf
    path = write(
        tmp_path,
        "/**:\n  ros__parameters:\n    tip_link: tool\n    effort_scale: [1.0, 2.0]\n"
        "    armature: [0.1]\n",
    )
    params = read_parameters_file(path)
    match = r"parameter armature in .*params.yaml:5: armature has 1 values"
    with pytest.raises(ParametersFileError, match=match) as ei:
        params.build_model(urdf)
    assert ei.value.parameter == "armature"
    # a model parameter the file sets that the URDF cannot take: the file and line too
    typo = read_parameters_file(write(tmp_path, "/**:\n  ros__parameters:\n    tip_link: tol\n"))
    match = r"parameter tip_link in .*params.yaml:3: tip_link 'tol' is not a link below"
    with pytest.raises(ParametersFileError, match=match) as ei:
        typo.build_model(urdf)
    assert ei.value.parameter == "tip_link"
    params = params.with_values({"armature": []})
    parsed, model = params.build_model(urdf)
    with pytest.raises(ParametersFileError, match=r"params.yaml: .*effort_scale has 2 values"):
        params.pipeline(model)
    pipeline = params.with_values({"effort_scale": []}).pipeline(model)
    assert pipeline.config == pipeline_config(params.with_values({"effort_scale": []}).values)


def test_several_files_a_later_one_wins(tmp_path):
    from robot_dynamics.tools.params_file import read_parameters_files

    first = write(tmp_path, parameters_yaml({"observer_gain": 20.0, "tip_link": "tool"}), "a.yaml")
    second = write(tmp_path, parameters_yaml({"observer_gain": 30.0}), "b.yaml")
    params = read_parameters_files([first, second])
    assert params.values["observer_gain"] == 30.0 and params.values["tip_link"] == "tool"
    assert params.given == {"observer_gain", "tip_link"}
    assert params.lines["observer_gain"] == f"{second}:3"
    assert params.source() == f"{first}, {second}"
    assert read_parameters_files([]).values == default_parameters().values
    bad = write(tmp_path, "/**:\n  ros__parameters:\n    tip_link: 1\n", "c.yaml")
    refused(bad, "tip_link")
    with pytest.raises(ParametersFileError, match="c.yaml"):
        read_parameters_files([first, bad])


def test_overrides_are_checked_like_file_values():
    params = default_parameters().with_values({"observer_gain": 20, "gravity": [0, 0, -9.8]})
    assert params.values["observer_gain"] == 20.0 and params.values["gravity"] == [0, 0, -9.8]
    assert params.given == {"observer_gain", "gravity"}
    with pytest.raises(ParametersFileError, match="the command line: parameter tip_link"):
        default_parameters().with_values({"tip_link": 3})
    with pytest.raises(ParametersFileError, match="did you mean tip_link"):
        default_parameters().with_values({"tip_lnk": "tool"})


def test_overrides_take_their_type_through_the_nodes_conversion(monkeypatch):
    """Integers given for doubles (a scalar, every entry of a list, mixed lists as Python writes
    them) are converted by schema.as_declared_type, the conversion of the node itself."""
    from robot_dynamics.schema import Type, as_declared_type
    from robot_dynamics.tools import params_file

    calls = []

    def spy(value, have, want):
        calls.append((value, have, want))
        return as_declared_type(value, have, want)

    monkeypatch.setattr(params_file, "as_declared_type", spy)
    params = default_parameters().with_values(
        {"observer_gain": 20, "gravity": [0, 0, -9.8], "effort_scale": [1, -1]}
    )
    assert params.values["observer_gain"] == 20.0
    assert isinstance(params.values["observer_gain"], float)
    assert params.values["gravity"] == [0.0, 0.0, -9.8]
    assert params.values["effort_scale"] == [1.0, -1.0]
    entries = params.values["gravity"] + params.values["effort_scale"]
    assert all(isinstance(v, float) for v in entries)
    assert (20, Type.INTEGER, Type.DOUBLE) in calls
    assert [c for c in calls if c[0] == 0] == [(0, Type.INTEGER, Type.DOUBLE)] * 2
    assert (1, Type.INTEGER, Type.DOUBLE) in calls
    with pytest.raises(ParametersFileError, match="parameter gravity must be a double array"):
        default_parameters().with_values({"gravity": [0, True, -9.8]})


# ------------------------------------------------------------------ writing
def test_written_files_read_back_equal(tmp_path):
    import numpy as np

    values = {
        "observer_gain": 25,  # an int for a double: written as a double
        "gravity": np.array([0.0, 0.0, -9.80665]),
        "contact.torque_on": [1.5, 2.0, 1e-05, 3.0, 1.0, 1.0, 0.5],
        "contact.force_on": np.float64(4.25),
        "contact.min_duration": 0.02,
        "wrench_components": ["fx", "fy", "fz"],
        "tip_link": 'to"ol\n',
        "friction_compensation": np.bool_(True),
        "max_simulation_samples": np.int64(5000),
        "effort_offset": [],
    }
    text = parameters_yaml(values, comments=["contact levels", ""])
    assert text.startswith("# contact levels\n#\n/**:\n  ros__parameters:\n")
    assert "    contact:\n      torque_on: [1.5, 2.0, 1e-05" in text
    params = read_parameters_file(write(tmp_path, text))
    assert params.given == set(values)
    assert params.values["observer_gain"] == 25.0
    assert params.values["gravity"] == [0.0, 0.0, -9.80665]
    assert params.values["contact.torque_on"] == values["contact.torque_on"]
    assert params.values["contact.force_on"] == 4.25
    assert params.values["tip_link"] == 'to"ol\n'
    assert params.values["friction_compensation"] is True
    assert params.values["max_simulation_samples"] == 5000
    assert params.values["effort_offset"] == []
    for bad, fragment in [
        ({"observer_gain": -1.0}, "must be > 0.0"),
        ({"observer_gian": 1.0}, "not a parameter"),
        ({"contact.force_on": math.inf}, "finite"),
    ]:
        with pytest.raises(ParametersFileError, match=fragment):
            parameters_yaml(bad)


ARM_VALUES = {
    "joint_friction": True,
    "friction.asymmetry": [0.1, -0.2],
    "friction.stribeck_velocity": [0.05, 0.08],
    "joint_impedance.stiffness": [10, 20.5],  # an int for a double: written as a double
    "initial_positions": np.array([0.1, 0.2]),
    "external_wrench_axes": "base",
    "publish_clock": True,
    "use_sim_time": True,
    "qos_overrides./ns/joint_states.publisher.depth": 200,
}


def test_a_simulated_arm_file_is_written_from_its_declarations():
    """The arm_simulator's file: its declarations' order, units and checks, dotted names
    nested; rclpy's own parameters as they are."""
    text = parameters_yaml(ARM_VALUES, schema=ARM_SIMULATOR)
    assert "    initial_positions: [0.1, 0.2]  # [rad or m]\n" in text
    assert (
        "    joint_friction: true\n    friction:\n      asymmetry: [0.1, -0.2]  # [N m or N]\n"
        in text
    )
    assert "    joint_impedance:\n      stiffness: [10.0, 20.5]  # [N m/rad]\n" in text
    assert text.endswith(
        "    use_sim_time: true\n    qos_overrides:\n      /ns/joint_states:\n"
        "        publisher:\n          depth: 200\n"
    )
    assert comment_problems(ARM_SIMULATOR, text) == []
    bad = comment_problems(ARM_SIMULATOR, text.replace("[N m or N]", "[N]"))
    assert bad == ["parameters file:7: friction.asymmetry: the comment must start with [N m or N]"]
    with pytest.raises(ParametersFileError, match="'observer_gain' is not a parameter of the arm"):
        parameters_yaml({"observer_gain": 1.0}, schema=ARM_SIMULATOR)
    with pytest.raises(ParametersFileError, match="external_wrench_axes: must be one of"):
        parameters_yaml({"external_wrench_axes": "tool"}, schema=ARM_SIMULATOR)


@pytest.mark.ros
def test_a_simulated_arm_file_reads_in_rcl_as_written(tmp_path, rclpy_context):
    """rcl reads the arm_simulator's file as the values written (the nested names included)."""
    from rclpy.context import Context
    from rclpy.node import Node

    path = write(tmp_path, parameters_yaml(ARM_VALUES, schema=ARM_SIMULATOR))
    context = Context()
    context.init(args=["x", "--ros-args", "--params-file", path])
    try:
        node = Node(
            "arm_simulator", context=context, automatically_declare_parameters_from_overrides=True
        )
        for name, value in ARM_VALUES.items():
            got = node.get_parameter(name).value
            expected = value.tolist() if isinstance(value, np.ndarray) else value
            if isinstance(expected, list):
                assert list(got) == [float(v) for v in expected], name
                assert all(isinstance(v, float) for v in got), name
            else:
                assert got == expected and type(got) is type(expected), name
        node.destroy_node()
    finally:
        context.shutdown()


@pytest.mark.ros
def test_the_dynamics_node_reads_what_the_reader_reads(tmp_path):
    """A DynamicsNode started in this process with --params-file has exactly the reader's values
    for every declared parameter; a file the reader refuses makes the node refuse to start."""
    from rclpy.context import Context

    from robot_dynamics.ros.dynamics_node import DynamicsNode
    from robot_dynamics.ros.parameters import StartupParameterError

    text = parameters_yaml(
        {
            "observer_gain": 30.0,
            "contact.torque_on": [1.0, 2.0],
            "contact.force_on": 5.0,
            "wrench_components": ["fx", "fy"],
            "payload.com": [0.0, 0.01, 0.1],
        }
    )
    # integers for doubles: taken as the doubles they are, by both
    text += (
        "dynamics_node:\n  ros__parameters:\n    observer_gain: 40\n    tip_link: tip\n"
        "    effort_scale: [1, -1]\n"
    )
    good = write(tmp_path, text)
    bad = write(tmp_path, "/**:\n  ros__parameters:\n    observer_gain: -40.0\n", "bad.yaml")

    def start(path):
        context = Context()
        context.init(args=["x", "--ros-args", "--params-file", path])
        try:
            node = DynamicsNode(context=context)
            values = {p.name: node.get_parameter(p.name).value for p in DYNAMICS_NODE.params}
            node.destroy_node()
            return values
        finally:
            context.shutdown()

    expected = read_parameters_file(good).values
    got = start(good)
    assert got.keys() == expected.keys()
    for name, value in expected.items():
        assert (list(got[name]) if isinstance(value, list) else got[name]) == value, name
    assert expected["observer_gain"] == 40.0 and expected["tip_link"] == "tip"
    assert isinstance(got["observer_gain"], float) and list(got["effort_scale"]) == [1.0, -1.0]
    refused(bad, "observer_gain", "must be > 0.0")
    with pytest.raises(StartupParameterError, match="observer_gain = -40.0: must be > 0.0"):
        start(bad)


def test_default_parameters_are_the_declared_defaults():
    params = default_parameters()
    assert isinstance(params, NodeParameters) and params.given == frozenset()
    assert params.values == {p.name: p.default for p in DYNAMICS_NODE.params}
    assert params.pipeline_config() == pipeline_config(params.values)
    assert params.source() == "the default parameters"
