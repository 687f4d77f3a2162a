"""The declarations as ROS parameters (robot_dynamics.ros.parameters): descriptors with units and
ranges, set requests validated against the same declarations (no DDS)."""

import math

import pytest

from rclpy.parameter import Parameter
from rcl_interfaces.msg import ParameterType

from robot_dynamics.ros.parameters import as_declared_types, descriptor, validate
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
    assert d.description.startswith("[Nm/rad] ") and d.additional_constraints.startswith("each")


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
