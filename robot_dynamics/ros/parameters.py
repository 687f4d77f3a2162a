"""Declared, typed, validated ROS parameters for the adapters.

A node lists its parameters as :class:`Param` entries (name, default, description, validator);
:func:`declare` declares them with a ``ParameterDescriptor`` (type, description, ranges) and
:func:`validate` checks a batch of new values in an ``add_on_set_parameters_callback``, so a bad
value is refused with a reason naming the parameter and the node keeps the old one.
"""

from dataclasses import dataclass
import math
from typing import Callable, Optional

from rclpy.exceptions import ParameterUninitializedException
from rclpy.parameter import Parameter
from rcl_interfaces.msg import (
    FloatingPointRange,
    IntegerRange,
    ParameterDescriptor,
    ParameterType,
    SetParametersResult,
)


@dataclass(frozen=True)
class Param:
    """One parameter: ``check(value) -> None or reason`` refuses a value with a reason."""

    name: str
    default: object
    description: str
    type: int
    check: Optional[Callable] = None
    read_only: bool = False
    float_range: Optional[tuple] = None  # (from, to) for the descriptor, inclusive
    int_range: Optional[tuple] = None
    additional_constraints: str = ""


def declare(node, params):
    """Declare every ``Param`` on ``node``; returns {name: value} as set (overrides applied)."""
    values = {}
    for p in params:
        descriptor = ParameterDescriptor(
            name=p.name,
            type=p.type,
            description=p.description,
            read_only=p.read_only,
            additional_constraints=p.additional_constraints,
        )
        if p.float_range is not None:
            descriptor.floating_point_range = [
                FloatingPointRange(
                    from_value=float(p.float_range[0]), to_value=float(p.float_range[1]), step=0.0
                )
            ]
        if p.int_range is not None:
            descriptor.integer_range = [
                IntegerRange(from_value=int(p.int_range[0]), to_value=int(p.int_range[1]), step=0)
            ]
        if isinstance(p.default, (list, tuple)) and len(p.default) == 0:
            # rclpy types an empty list as a byte array: declare by type, then set it empty
            # unless an override (command line, YAML) already gave it a value.
            node.declare_parameter(p.name, Parameter.Type(p.type), descriptor)
            try:
                node.get_parameter(p.name).value
            except ParameterUninitializedException:
                node.set_parameters([Parameter(p.name, Parameter.Type(p.type), [])])
        else:
            node.declare_parameter(p.name, p.default, descriptor)
        values[p.name] = node.get_parameter(p.name).value
    return values


def validate(params_by_name, parameters, cross_check=None):
    """Validate a batch of ``rclpy.parameter.Parameter`` against their ``Param`` entries.

    Args:
        params_by_name: {name: Param}.
        parameters: the batch being set.
        cross_check: optional ``f({name: new value}) -> None or reason`` for checks that need
            several values or the current model (e.g. vector lengths).

    Returns:
        ``SetParametersResult`` (successful, reason).
    """
    new = {}
    for parameter in parameters:
        spec = params_by_name.get(parameter.name)
        if spec is None:
            continue
        value = parameter.value
        if spec.check is not None:
            reason = spec.check(value)
            if reason:
                return SetParametersResult(successful=False, reason=f"{parameter.name}: {reason}")
        new[parameter.name] = value
    if cross_check is not None:
        reason = cross_check(new)
        if reason:
            return SetParametersResult(successful=False, reason=reason)
    return SetParametersResult(successful=True, reason="")


# Reusable checks. Each returns None when the value is fine, else a reason.


def finite_vector(length=None, nonnegative=False):
    def check(value):
        value = list(value)
        if length is not None and len(value) != length:
            return f"needs {length} values, got {len(value)}"
        for i, v in enumerate(value):
            if not math.isfinite(v):
                return f"entry {i} is not finite ({v})"
            if nonnegative and v < 0.0:
                return f"entry {i} is negative ({v})"
        return None

    return check


def finite_number(minimum=None, maximum=None, strict_minimum=False):
    def check(value):
        if not math.isfinite(value):
            return f"must be finite, got {value}"
        if minimum is not None:
            if strict_minimum and value <= minimum:
                return f"must be > {minimum}, got {value}"
            if not strict_minimum and value < minimum:
                return f"must be >= {minimum}, got {value}"
        if maximum is not None and value > maximum:
            return f"must be <= {maximum}, got {value}"
        return None

    return check


def positive_int(value):
    return None if value > 0 else f"must be > 0, got {value}"


def one_of(*choices):
    def check(value):
        return None if value in choices else f"must be one of {list(choices)}, got {value!r}"

    return check


def unique_strings(value):
    value = list(value)
    seen = set()
    for v in value:
        if v in seen:
            return f"{v!r} appears twice"
        seen.add(v)
    return None


DOUBLE = ParameterType.PARAMETER_DOUBLE
INTEGER = ParameterType.PARAMETER_INTEGER
BOOL = ParameterType.PARAMETER_BOOL
STRING = ParameterType.PARAMETER_STRING
DOUBLE_ARRAY = ParameterType.PARAMETER_DOUBLE_ARRAY
STRING_ARRAY = ParameterType.PARAMETER_STRING_ARRAY
