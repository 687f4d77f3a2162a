"""Declared, typed, validated ROS parameters: the one way every node of the package does it.

A node lists its parameters as :class:`Param` entries (name, default, description, type, range,
extra check); :func:`declare` declares them with a ``ParameterDescriptor`` that documents the
range (``floating_point_range`` / ``integer_range`` for numbers, ``additional_constraints`` for
the entries of arrays and for choices) and :func:`validate` checks a batch of new values against
the same entries in an ``add_on_set_parameters_callback``, so a bad value is refused with a
reason naming the parameter and the node keeps the old one. Every number has a finite range:
nothing that is not finite (or finite but absurd, such as a gravity of 1e308) gets in.

Kept hand-written rather than ``generate_parameter_library_py``: that library generates code at
build time from YAML and is not on PyPI for the wheel environment this package runs in.
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

DOUBLE = ParameterType.PARAMETER_DOUBLE
INTEGER = ParameterType.PARAMETER_INTEGER
BOOL = ParameterType.PARAMETER_BOOL
STRING = ParameterType.PARAMETER_STRING
DOUBLE_ARRAY = ParameterType.PARAMETER_DOUBLE_ARRAY
STRING_ARRAY = ParameterType.PARAMETER_STRING_ARRAY
_NUMBER_TYPES = (DOUBLE, INTEGER)
_ARRAY_TYPES = (DOUBLE_ARRAY,)


@dataclass(frozen=True)
class Param:
    """One parameter.

    Attributes:
        name: as declared.
        default: as declared.
        description: as declared.
        type: a ``ParameterType`` constant.
        range: (low, high), inclusive, for a number or for every entry of a double array;
            required for numbers.
        low_open: True makes the lower bound of ``range`` exclusive.
        length: number of entries a double array must have (None: any).
        choices: the values a string may take (None: any string).
        check: optional extra ``check(value) -> None or reason``.
        read_only: the value is read at start-up only.

    Raises:
        ValueError: a number without a range.
    """

    name: str
    default: object
    description: str
    type: int
    range: Optional[tuple] = None
    low_open: bool = False
    length: Optional[int] = None
    choices: Optional[tuple] = None
    check: Optional[Callable] = None
    read_only: bool = False

    def __post_init__(self):
        if self.type in _NUMBER_TYPES + _ARRAY_TYPES and self.range is None:
            raise ValueError(f"parameter {self.name}: a number needs a range")

    def constraints(self):
        """The range / length / choices as text (the descriptor's additional_constraints).

        Returns:
            str: the constraints, "; "-separated ("" without any).
        """
        parts = []
        if self.range is not None:
            low, high = self.range
            bracket = "(" if self.low_open else "["
            what = "each entry" if self.type in _ARRAY_TYPES else "value"
            parts.append(f"{what} in {bracket}{low}, {high}]")
        if self.length is not None:
            parts.append(f"{self.length} entries")
        if self.choices is not None:
            parts.append("one of " + ", ".join(repr(c) for c in self.choices))
        return "; ".join(parts)

    def reason(self, value):
        """Why a value is not acceptable.

        Args:
            value: the candidate value.

        Returns:
            str or None: None when ``value`` is acceptable, else why not (without the name).
        """
        if self.type in _NUMBER_TYPES:
            reason = self._number_reason(value)
            if reason:
                return reason
        elif self.type in _ARRAY_TYPES:
            value = list(value)
            if self.length is not None and len(value) != self.length:
                return f"needs {self.length} values, got {len(value)}"
            for i, v in enumerate(value):
                reason = self._number_reason(v)
                if reason:
                    return f"entry {i}: {reason}"
        elif self.choices is not None and value not in self.choices:
            return f"must be one of {list(self.choices)}, got {value!r}"
        if self.check is not None:
            return self.check(value)
        return None

    def _number_reason(self, v):
        low, high = self.range
        if not math.isfinite(v):
            return f"must be finite, got {v}"
        if self.low_open and not v > low:
            return f"must be > {low}, got {v}"
        if not self.low_open and not v >= low:
            return f"must be >= {low}, got {v}"
        if not v <= high:
            return f"must be <= {high}, got {v}"
        return None


def descriptor(p):
    """The ``ParameterDescriptor`` of a :class:`Param` (type, description, range).

    Args:
        p: the :class:`Param`.

    Returns:
        rcl_interfaces.msg.ParameterDescriptor: the descriptor.
    """
    d = ParameterDescriptor(
        name=p.name,
        type=p.type,
        description=p.description,
        read_only=p.read_only,
        additional_constraints=p.constraints(),
    )
    if p.range is not None and p.type == DOUBLE:
        d.floating_point_range = [
            FloatingPointRange(from_value=float(p.range[0]), to_value=float(p.range[1]), step=0.0)
        ]
    elif p.range is not None and p.type == INTEGER:
        d.integer_range = [
            IntegerRange(from_value=int(p.range[0]), to_value=int(p.range[1]), step=0)
        ]
    return d


def declare(node, params):
    """Declare every ``Param`` on ``node``.

    Args:
        node: the node.
        params: the :class:`Param` list.

    Returns:
        dict: ``{name: value}`` as set (overrides applied).

    Raises:
        ValueError: a start-up value (command line, parameters file) is refused, naming the
            parameter and why.
    """
    values = {}
    for p in params:
        d = descriptor(p)
        if isinstance(p.default, (list, tuple)) and len(p.default) == 0:
            # rclpy types an empty list as a byte array: declare by type, then set it empty
            # unless an override (command line, YAML) already gave it a value.
            node.declare_parameter(p.name, Parameter.Type(p.type), d)
            try:
                node.get_parameter(p.name).value
            except ParameterUninitializedException:
                node.set_parameters([Parameter(p.name, Parameter.Type(p.type), [])])
        else:
            node.declare_parameter(p.name, p.default, d)
        value = node.get_parameter(p.name).value
        reason = p.reason(value)
        if reason:
            raise ValueError(f"parameter {p.name}: {reason}")
        values[p.name] = value
    return values


def validate(params_by_name, parameters, cross_check=None):
    """Validate a batch of ``rclpy.parameter.Parameter`` against their ``Param`` entries.

    Args:
        params_by_name: {name: Param}.
        parameters: the batch being set.
        cross_check: optional ``f({name: new value}) -> None or reason`` for checks that need
            several values or the current model (e.g. vector lengths).

    Returns:
        ``SetParametersResult`` (successful, reason naming the parameter).
    """
    new = {}
    for parameter in parameters:
        spec = params_by_name.get(parameter.name)
        if spec is None:
            continue
        value = parameter.value
        if spec.type != parameter.type_.value:
            return SetParametersResult(
                successful=False,
                reason=f"{parameter.name}: wrong type {parameter.type_.name}",
            )
        reason = spec.reason(value)
        if reason:
            return SetParametersResult(successful=False, reason=f"{parameter.name}: {reason}")
        new[parameter.name] = value
    if cross_check is not None:
        reason = cross_check(new)
        if reason:
            return SetParametersResult(successful=False, reason=reason)
    return SetParametersResult(successful=True, reason="")


def unique_strings(value):
    """Check for a string array: no entry twice.

    Args:
        value: the strings.

    Returns:
        str or None: the reason (the repeated entry), or None.
    """
    seen = set()
    for v in value:
        if v in seen:
            return f"{v!r} appears twice"
        seen.add(v)
    return None
