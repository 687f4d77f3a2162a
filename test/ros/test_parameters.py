"""The declarations as ROS parameters (robot_dynamics.ros.parameters): descriptors with units and
ranges, set requests validated against the same declarations (no DDS)."""

import math

import pytest

from rclpy.parameter import Parameter
from rcl_interfaces.msg import ParameterType

from robot_dynamics.ros.parameters import (
    StartupParameterError,
    allowed,
    as_declared_types,
    descriptor,
    mistaken_start_up_parameters,
    start_up_source,
    validate,
)
from robot_dynamics.schema import ARM_SIMULATOR, DYNAMICS_NODE, SCHEMAS, Type

pytestmark = pytest.mark.ros


def test_types_are_rcl_parameter_types():
    for t in Type:
        assert t == getattr(ParameterType, f"PARAMETER_{t.name}")


def test_descriptor_has_units_range_and_choices():
    d = descriptor(DYNAMICS_NODE["observer_gain"])
    assert d.type == ParameterType.PARAMETER_DOUBLE and not d.read_only
    assert d.description.startswith("[1/s] Momentum observer gain")
    assert (d.floating_point_range[0].from_value, d.floating_point_range[0].to_value) == (
        0.0,
        1.0e4,
    )
    assert d.additional_constraints == "value in (0.0, 10000.0]"
    d = descriptor(DYNAMICS_NODE["executor"])
    assert d.read_only and "one of 'split', 'split_events'" in d.additional_constraints
    d = descriptor(DYNAMICS_NODE["max_simulation_samples"])
    assert d.description == "Most output samples of ~/simulate."  # no units
    assert (d.integer_range[0].from_value, d.integer_range[0].to_value) == (1, 10_000_000)
    d = descriptor(ARM_SIMULATOR["joint_impedance.stiffness"])
    assert d.description.startswith("[N m/rad] ") and d.additional_constraints.startswith("each")


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: s.node)
def test_every_declaration_makes_a_descriptor(schema):
    for p in schema.params:
        assert descriptor(p).type == int(p.type)


def test_validate_refuses_type_range_and_names_the_parameter():
    specs = {p.name: p for p in DYNAMICS_NODE.params}
    ok = validate(specs, [Parameter("observer_gain", Parameter.Type.DOUBLE, 20.0)])
    assert ok.successful
    bad = validate(specs, [Parameter("observer_gain", Parameter.Type.DOUBLE, math.inf)])
    assert not bad.successful and bad.reason == "observer_gain: must be finite, got inf"
    bad = validate(specs, [Parameter("observer_gain", Parameter.Type.STRING, "x")])
    assert not bad.successful and bad.reason == "observer_gain: wrong type STRING"
    bad = validate(
        specs, [Parameter("wrench_components", Parameter.Type.STRING_ARRAY, ["fx", "fq"])]
    )
    assert not bad.successful and "fq" in bad.reason


def test_as_declared_types_widens_without_loss_only():
    declared = {"gain": Type.DOUBLE, "scale": Type.DOUBLE_ARRAY, "names": Type.STRING_ARRAY}
    sent = [
        Parameter("gain", Parameter.Type.INTEGER, 100),
        Parameter("scale", Parameter.Type.INTEGER_ARRAY, [1, -1]),
        Parameter("names", Parameter.Type.BOOL_ARRAY, []),
        Parameter("other", Parameter.Type.INTEGER, 3),  # not declared: as it came
    ]
    gain, scale, names, other = as_declared_types(sent, declared.get)
    assert gain.type_ == Parameter.Type.DOUBLE and gain.value == 100.0
    assert scale.type_ == Parameter.Type.DOUBLE_ARRAY and list(scale.value) == [1.0, -1.0]
    assert names.type_ == Parameter.Type.STRING_ARRAY and list(names.value) == []
    assert other.type_ == Parameter.Type.INTEGER and other.value == 3
    for kept in (
        Parameter("gain", Parameter.Type.STRING, "100"),  # a wrong type stays wrong
        Parameter("names", Parameter.Type.BOOL_ARRAY, [True]),  # a non-empty array too
        Parameter("scale", Parameter.Type.DOUBLE, 1.0),
    ):
        (out,) = as_declared_types([kept], declared.get)
        assert out.type_ == kept.type_ and out.value == kept.value


def test_a_start_up_source_is_the_last_file_or_p_that_sets_it_for_the_node(tmp_path):
    both = tmp_path / "both.yaml"
    both.write_text("/**:\n  ros__parameters:\n    observer_gain: 1.0\n")
    other = tmp_path / "other.yaml"
    other.write_text(
        "/other_node:\n  ros__parameters:\n    observer_gain: 2.0\n"
        "arm:\n  dynamics_node:\n    ros__parameters:\n      contact:\n        force_on: 3.0\n"
    )
    node = "/arm/dynamics_node"
    args = ["dynamics_node", "--ros-args", "--params-file", str(both)]
    assert start_up_source(args, node, "observer_gain") == f"in {both}"
    # a section for another node does not count; the later of a file and -p does
    args += ["--params-file", str(other), "-p", "tip_link:=tool0"]
    assert start_up_source(args, node, "observer_gain") == f"in {both}"
    assert start_up_source(args, node, "contact.force_on") == f"in {other}"
    assert start_up_source(args, node, "tip_link") == "on the command line (-p)"
    args += ["--params-file", str(both)]
    assert start_up_source(args, node, "observer_gain") == f"in {both}"
    assert start_up_source(args + ["-p", "observer_gain:=3"], node, "observer_gain") == (
        "on the command line (-p)"
    )
    # only ROS arguments count; a name nobody sets has no source
    assert start_up_source(["x", "-p", "tip_link:=a"], node, "tip_link") == ""
    assert start_up_source(args, node, "base_link") == ""
    # a file that cannot be read or is not a parameters file sets nothing
    broken = tmp_path / "broken.yaml"
    broken.write_text("/**:\n  ros__parameters:\n    observer_gain: [1.0\n")
    for path in (broken, tmp_path / "missing.yaml"):
        later = args + ["--params-file", str(path)]
        assert start_up_source(later, node, "observer_gain") == f"in {both}"


def test_mistaken_start_up_parameters_are_typos_and_names_set_for_the_node_alone(tmp_path):
    """A name the node does not declare is a mistake when a section or -p names the node alone,
    or when it is close to a declared name; another node's name in a shared section or a global
    -p, and rclpy's own parameters, are not; each name once, with its last source."""
    shared = tmp_path / "shared.yaml"
    shared.write_text(
        "/**:\n  ros__parameters:\n    observer_gian: 1.0\n    camera_fps: 30\n"
        "    use_sim_time: true\n    qos_overrides./tf.publisher.depth: 10\n"
        "arm:\n  dynamics_node:\n    ros__parameters:\n      foo: 1\n      observer_gain: 2.0\n"
        "/other_node:\n  ros__parameters:\n    bar: 1\n"
    )
    node = "/arm/dynamics_node"
    declared = ("observer_gain", "observer_max_dt", "tip_link", "use_sim_time")
    args = ["x", "--ros-args", "--params-file", str(shared)]
    args += ["-p", "tip_lnk:=tool0", "-p", "exposure:=3", "-p", "/arm/dynamics_node:baz:=1"]
    found = mistaken_start_up_parameters(args, node, declared)
    assert found == [
        ("observer_gian", f"in {shared}", ["observer_gain", "observer_max_dt"]),
        ("foo", f"in {shared}", []),
        ("tip_lnk", "on the command line (-p)", ["tip_link"]),
        ("baz", "on the command line (-p)", []),
    ]
    assert mistaken_start_up_parameters(args, "/other_ns/other_node", declared) == [
        ("observer_gian", f"in {shared}", ["observer_gain", "observer_max_dt"]),
        ("tip_lnk", "on the command line (-p)", ["tip_link"]),
    ]
    assert mistaken_start_up_parameters(["x", "-p", "foo:=1"], node, declared) == []


def test_a_start_up_error_line_names_parameter_value_allowed_and_source():
    p = DYNAMICS_NODE["observer_gain"]
    error = StartupParameterError("/dynamics_node", p.name, "abc", "must be a double", allowed(p))
    assert error.line("in /p.yaml") == (
        "parameter observer_gain = 'abc' in /p.yaml: must be a double "
        "(allowed: a double; value in (0.0, 10000.0])"
    )
    assert allowed(ARM_SIMULATOR["joint_friction"]) == "a bool"
    assert allowed(DYNAMICS_NODE["wrench_estimation"]).startswith("a string; one of ")
