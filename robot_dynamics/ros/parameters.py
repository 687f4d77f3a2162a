"""Declared, typed, validated ROS parameters: the one way every node of the package does it.

A node's parameters are declared once, ROS-free, as :class:`~robot_dynamics.schema.Param`
entries of :mod:`robot_dynamics.schema` (name, type, default, range or choices, units,
description); :func:`declare` declares them with a ``ParameterDescriptor`` that documents the
units and range (``floating_point_range`` / ``integer_range`` for numbers,
``additional_constraints`` for the entries of arrays and for choices) and :func:`validate` checks
a batch of new values against the same entries in an ``add_on_set_parameters_callback``, so a
bad value is refused with a reason naming the parameter and the node keeps the old one. Every
number has a finite range: nothing that is not finite (or finite but absurd, such as a gravity
of 1e308) gets in.

Kept hand-written rather than ``generate_parameter_library_py``: that library generates code at
build time from YAML and is not on PyPI for the wheel environment this package runs in.
"""

from rclpy.exceptions import ParameterUninitializedException
from rclpy.parameter import Parameter
from rcl_interfaces.msg import (
    FloatingPointRange,
    IntegerRange,
    ParameterDescriptor,
    SetParametersResult,
)

from robot_dynamics.schema import Type


def descriptor(p):
    """The ``ParameterDescriptor`` of a :class:`~robot_dynamics.schema.Param` (type, units and
    description, range).

    Args:
        p: the declaration.

    Returns:
        rcl_interfaces.msg.ParameterDescriptor: the descriptor; its description starts with the
        units in brackets (``"[s] ..."``) when the parameter has units.
    """
    d = ParameterDescriptor(
        name=p.name,
        type=int(p.type),
        description=f"[{p.units}] {p.description}" if p.units else p.description,
        read_only=p.read_only,
        additional_constraints=p.constraints(),
    )
    if p.range is not None and p.type == Type.DOUBLE:
        d.floating_point_range = [
            FloatingPointRange(from_value=float(p.range[0]), to_value=float(p.range[1]), step=0.0)
        ]
    elif p.range is not None and p.type == Type.INTEGER:
        d.integer_range = [
            IntegerRange(from_value=int(p.range[0]), to_value=int(p.range[1]), step=0)
        ]
    return d


def declare(node, params):
    """Declare every ``Param`` on ``node``.

    Args:
        node: the node.
        params: the :class:`~robot_dynamics.schema.Param` declarations.

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


_WIDENED = {(Type.INTEGER, Type.DOUBLE), (Type.INTEGER_ARRAY, Type.DOUBLE_ARRAY)}
_ARRAYS = (Type.BOOL_ARRAY, Type.INTEGER_ARRAY, Type.DOUBLE_ARRAY, Type.STRING_ARRAY)


def as_declared_types(parameters, declared_type):
    """A set request's parameters in their declared types where nothing is lost: an integer for
    a double (``ros2 param set /node observer_gain 100``), integers for a double array
    (``effort_scale "[1, 1, -1]"``) and an empty list for any array (``"[]"``, which the command
    line types as a bool array). Anything else is left as it came (rclpy refuses a wrong type).

    Args:
        parameters: the ``rclpy.parameter.Parameter`` list of the request.
        declared_type: ``f(name) -> Type`` of the declared parameter, or None.

    Returns:
        list: the parameters, converted where they were widened.
    """
    out = []
    for p in parameters:
        want = declared_type(p.name)
        have = p.type_.value
        if want is not None and have != want:
            if (have, want) in _WIDENED:
                value = float(p.value) if want == Type.DOUBLE else [float(v) for v in p.value]
                p = Parameter(p.name, Parameter.Type(int(want)), value)
            elif have in _ARRAYS and want in _ARRAYS and len(p.value) == 0:
                p = Parameter(p.name, Parameter.Type(int(want)), [])
        out.append(p)
    return out


def accept_declared_types(node):
    """Convert the parameters of every set request on ``node`` with :func:`as_declared_types`
    (an rclpy pre-set callback; register it once per node: rclpy concatenates the lists that
    several such callbacks return).

    Args:
        node: the node, its parameters declared or to be declared.
    """
    types = {int(t) for t in Type}

    def declared_type(name):
        if not node.has_parameter(name):
            return None
        t = node.describe_parameter(name).type
        return Type(t) if t in types else None

    node.add_pre_set_parameters_callback(lambda ps: as_declared_types(ps, declared_type))


def validate(params_by_name, parameters, cross_check=None):
    """Validate a batch of ``rclpy.parameter.Parameter`` against their ``Param`` entries.

    Args:
        params_by_name: ``{name: Param}`` (:class:`~robot_dynamics.schema.Param`).
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
