"""ROS 2 parameters files walked as rcl reads them (robot_dynamics.schema.files,
robot_dynamics.schema.rcl_scalars): node-name sections in file order with rcl's wildcards, dotted
names, scalars typed as rcl types them (one test compares with rcl's parser in this process: an
rclpy Context initialised with ``--params-file``), a file rcl refuses named with its line."""

import math

import pytest

from robot_dynamics.core.errors import ParametersFileError
from robot_dynamics.schema import Type
from robot_dynamics.schema.files import (
    UNSET,
    FileEntry,
    node_name_tokens,
    read_sections,
    sections_for,
)
from robot_dynamics.schema.rcl_scalars import scalar_value

SCALARS = [
    *"true True TRUE yes Yes YES y Y on On ON false no n N off OFF Off tRue YeS".split(),
    *"10 -10 +10 0 00 017 08 09.5 0x1f 0X1F -0x10 0x 1_000 0b101 12abc".split(),
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    *"1.0 1. -.5 .5 1e3 1E3 1e-3 -1.5e+2 1e400 1e-400 1e-310 2.5e-308".split(),
    *".inf -.inf +.inf .Inf .NAN .nan inf -inf Infinity nan NaN 0x1p3 0x1.8p1 0x.8".split(),
    *"~ null abc 1.0.0 1e e5 1:30".split(),
    "'5'",
    '"true"',
    "' 5'",
]


def write(tmp_path, text, name="params.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# ------------------------------------------------------------------ sections
def test_sections_are_read_in_file_order_with_dotted_names_types_and_lines(tmp_path):
    path = write(
        tmp_path,
        "/**:\n"
        "  ros__parameters:\n"
        "    observer_gain: 20\n"
        "    contact:\n"
        "      torque_on: []\n"
        "ns:\n"
        "  dynamics_node:\n"
        "    ros__parameters:\n"
        "      gravity: [0.0, 0.0, -9.81]\n"
        "      tip_link: 'tool'\n"
        "/other:\n"
        "  ros__parameters:\n"
        "    enabled: on\n",
    )
    sections = read_sections(path)
    assert [s.tokens for s in sections] == [("**",), ("ns", "dynamics_node"), ("other",)]
    assert [s.wildcard for s in sections] == [True, False, False]
    assert sections[0].entries == (
        FileEntry("observer_gain", Type.INTEGER, 20, 3),
        FileEntry("contact.torque_on", 0, UNSET, 5),
    )
    assert sections[1].entries == (
        FileEntry("gravity", Type.DOUBLE_ARRAY, [0.0, 0.0, -9.81], 9),
        FileEntry("tip_link", Type.STRING, "tool", 10),
    )
    assert sections[2].entries == (FileEntry("enabled", Type.BOOL, True, 13),)
    node = sections_for(sections, node_name_tokens("/ns/dynamics_node"))
    assert node == sections[:2]
    assert sections_for(sections, node_name_tokens("other")) == [sections[0], sections[2]]
    assert sections_for(sections, node_name_tokens("/ns/other")) == [sections[0]]


@pytest.mark.parametrize(
    "text, line, parameter, fragment",
    [
        ("other:\n  ros__parameters:\n    a: [1.0, x]\n", 3, "a", "one type"),
        ("/**:\n  ros__parameters:\n    a:\n", 3, "a", "no value"),
        ("/**:\n  ros__parameters: [1.0]\n", 2, "", "must be a mapping"),
        (
            "/**:\n  x:\n    ros__parameters: {}\n  y*:\n    ros__parameters: {}\n",
            4,
            "",
            "not a node",
        ),
    ],
)
def test_a_file_rcl_refuses_is_named_with_its_line(tmp_path, text, line, parameter, fragment):
    path = write(tmp_path, text)
    with pytest.raises(ParametersFileError) as info:
        read_sections(path)
    assert str(info.value).startswith(f"{path}, line {line}: ")
    assert fragment in str(info.value)
    assert (info.value.path, info.value.parameter) == (path, parameter)


def test_an_unreadable_file_is_refused(tmp_path):
    missing = str(tmp_path / "missing.yaml")
    with pytest.raises(ParametersFileError, match="cannot read parameters file") as info:
        read_sections(missing)
    assert info.value.path == missing


# ------------------------------------------------------------------ typing
def test_scalars_are_typed_as_rcl_types_them():
    assert scalar_value("true", False) == (1, True)
    assert scalar_value("Off", False) == (1, False)
    assert scalar_value("017", False) == (2, 15)
    assert scalar_value("0x1f", False) == (2, 31)
    assert scalar_value("08", False) == (3, 8.0)  # strtol stops at 8; strtod reads it
    assert scalar_value("9223372036854775808", False) == (3, 9223372036854775808.0)
    assert scalar_value("50", False) == (2, 50)
    assert scalar_value("50.0", False) == (3, 50.0)
    assert scalar_value("1e400", False) == (4, "1e400")  # ERANGE: a string
    assert scalar_value("1_000", False) == (4, "1_000")
    assert scalar_value("~", False) == (4, "~")
    assert scalar_value("true", True) == (4, "true")
    t, v = scalar_value("-.inf", False)
    assert t == 3 and v == -math.inf


@pytest.mark.ros
def test_scalar_typing_equals_rcl(tmp_path, rclpy_context):
    """Every scalar of SCALARS gets the type and value rcl's parser gives it."""
    from rclpy.context import Context
    from rclpy.node import Node

    lines = ["/**:", "  ros__parameters:"] + [f"    p{i}: {c}" for i, c in enumerate(SCALARS)]
    path = write(tmp_path, "\n".join(lines) + "\n")
    context = Context()
    context.init(args=["x", "--ros-args", "--params-file", path])
    try:
        node = Node("typing", context=context, automatically_declare_parameters_from_overrides=True)
        for i, case in enumerate(SCALARS):
            quoted = case[0] in "'\""
            ptype, value = scalar_value(case[1:-1] if quoted else case, quoted)
            expected = node.get_parameter(f"p{i}")
            assert ptype == expected.type_.value, case
            if isinstance(value, float) and math.isnan(value):
                assert math.isnan(expected.value), case
            else:
                assert value == expected.value, case
        node.destroy_node()
    finally:
        context.shutdown()
