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

from rclpy.exceptions import (
    InvalidParameterTypeException,
    InvalidParameterValueException,
    ParameterUninitializedException,
)
from rclpy.parameter import Parameter
from rcl_interfaces.msg import (
    FloatingPointRange,
    IntegerRange,
    ParameterDescriptor,
    SetParametersResult,
)

from robot_dynamics.core.errors import ParametersFileError
from robot_dynamics.schema import Type, as_declared_type
from robot_dynamics.schema.files import (
    mistaken_name,
    node_name_matches,
    node_name_tokens,
    read_sections,
    sections_for,
)
from robot_dynamics.schema.param import TYPE_NAMES


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


class StartupParameterError(ValueError):
    """A start-up value (parameters file, ``-p name:=value``) the node refuses.

    Args:
        node: the node's fully qualified name.
        name: the parameter's name.
        value: the value given.
        reason: why it is refused (without the name).
        allowed: what the parameter takes, e.g. ``"a double; value in [0.0, 10000.0]"``.

    Attributes:
        node, name, value, reason, allowed: as given.
    """

    def __init__(self, node, name, value, reason, allowed):
        self.node, self.name, self.value = node, name, value
        self.reason, self.allowed = reason, allowed
        super().__init__(f"parameter {name} = {value!r}: {reason} (allowed: {allowed})")

    def line(self, source=""):
        """The one error line a process ends with.

        Args:
            source: where the value came from, e.g. ``"in /path/params.yaml"`` ("" = unknown).

        Returns:
            str: ``"parameter <name> = <value> <source>: <reason> (allowed: ...)"``.
        """
        where = f" {source}" if source else ""
        return (
            f"parameter {self.name} = {self.value!r}{where}: {self.reason} "
            f"(allowed: {self.allowed})"
        )


def _a(type_):
    """A parameter type's name with its article ("a double", "an integer")."""
    name = TYPE_NAMES[type_]
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def allowed(p):
    """What a parameter takes, in words.

    Args:
        p: the :class:`~robot_dynamics.schema.Param`.

    Returns:
        str: its type and constraints, e.g. ``"a double; value in [0.0, 10000.0]"``.
    """
    return "; ".join(filter(None, [_a(p.type), p.constraints()]))


def declare(node, params):
    """Declare every ``Param`` on ``node``, a start-up value (parameters file, command line)
    taken in the declared type where nothing is lost (:func:`as_declared_types`, as for a set
    request).

    Args:
        node: the node.
        params: the :class:`~robot_dynamics.schema.Param` declarations.

    Returns:
        dict: ``{name: value}`` as set (overrides applied).

    Raises:
        StartupParameterError: a start-up value is refused (wrong type, range, choices, check).
    """
    values = {}
    for p in params:
        d = descriptor(p)
        try:
            _declare(node, p, d)
        except (InvalidParameterTypeException, InvalidParameterValueException):
            given = _start_up_parameter(node, p.name)
            (value,) = as_declared_types([given], {p.name: p.type}.get)
            refused = _refusal(p, value)
            if refused:
                raise StartupParameterError(
                    node.get_fully_qualified_name(), p.name, given.value, refused, allowed(p)
                ) from None
            _declare(node, p, d, value)
        value = node.get_parameter(p.name).value
        reason = p.reason(value)
        if reason:
            raise StartupParameterError(
                node.get_fully_qualified_name(), p.name, value, reason, allowed(p)
            )
        values[p.name] = value
    return values


def _declare(node, p, d, start_up=None):
    """Declare ``p``: with the start-up value rclpy holds for it, or with ``start_up`` (a
    ``Parameter`` in the declared type) instead."""
    if isinstance(p.default, (list, tuple)) and len(p.default) == 0:
        # rclpy types an empty list as a byte array: declare by type, then set it empty
        # unless a start-up value gave it one.
        node.declare_parameter(p.name, Parameter.Type(p.type), d, start_up is not None)
        if start_up is not None:
            node.set_parameters([start_up])
        try:
            node.get_parameter(p.name).value
        except ParameterUninitializedException:
            node.set_parameters([Parameter(p.name, Parameter.Type(p.type), [])])
    elif start_up is None:
        node.declare_parameter(p.name, p.default, d)
    else:
        node.declare_parameter(p.name, start_up.value, d, True)


def _start_up_parameter(node, name):
    """The start-up value rclpy holds for ``name``, as the ``Parameter`` it came as (declared
    dynamically typed for the moment it takes to read it)."""
    node.declare_parameter(name, None, ParameterDescriptor(dynamic_typing=True))
    try:
        return node.get_parameter(name)
    finally:
        node.undeclare_parameter(name)


def _refusal(p, parameter):
    """Why ``p`` refuses the ``Parameter`` (None: it takes it)."""
    if parameter.type_.value != p.type:
        got = parameter.type_.value
        got = _a(got) if got in TYPE_NAMES else parameter.type_.name.lower()
        return f"must be {_a(p.type)}, got {got}"
    return p.reason(parameter.value)


def start_up_settings(args, node):
    """The parameter values the ROS arguments set for a node, in the order rcl applies them:
    each ``--params-file`` (its sections for the node) and each ``-p name:=value`` (global, or
    ``node:name:=value`` naming the node).

    Args:
        args: the process's command-line arguments (``sys.argv``).
        node: the node's fully qualified name (``/ns/name``).

    Yields:
        tuple: ``(name, source, own)``: the parameter's name, where it is set (``"in <file>"``
        or ``"on the command line (-p)"``) and whether the setting names the node alone (not a
        wildcard section, not a global ``-p``). A file that cannot be read or is not a
        parameters file sets nothing (rcl refuses it before the node starts).
    """
    target = node_name_tokens(node)
    in_ros, k = False, 0
    args = list(args or ())
    while k < len(args):
        arg = args[k]
        if arg == "--ros-args":
            in_ros = True
        elif arg == "--":
            in_ros = False
        elif in_ros and arg == "--params-file" and k + 1 < len(args):
            k += 1
            try:
                sections = read_sections(args[k])
            except ParametersFileError:
                sections = []
            for section in sections_for(sections, target):
                for entry in section.entries:
                    yield entry.name, f"in {args[k]}", not section.wildcard
        elif in_ros and arg in ("-p", "--param") and k + 1 < len(args):
            k += 1
            key = args[k].split(":=", 1)[0]
            prefix, _, name = key.rpartition(":")
            if not prefix or _matches(prefix, node):
                yield name, "on the command line (-p)", bool(prefix)
        k += 1


def start_up_source(args, node, name):
    """Where the start-up value of a parameter came from: the last ``--params-file`` that sets
    it for the node, or ``-p name:=value``, whichever comes last in the ROS arguments (as rcl
    applies them).

    Args:
        args: the process's command-line arguments (``sys.argv``).
        node: the node's fully qualified name (``/ns/name``).
        name: the parameter's name.

    Returns:
        str: ``"in <file>"``, ``"on the command line (-p)"`` or "" (not found; a file that
        cannot be read or is not a parameters file sets nothing).
    """
    source = ""
    for setting, where, _ in start_up_settings(args, node):
        if setting == name:
            source = where
    return source


def mistaken_start_up_parameters(args, node, declared):
    """The parameters the ROS arguments set for a node that it does not declare and that are the
    user's mistake (:func:`~robot_dynamics.schema.files.mistaken_name`: set for the node alone,
    or close to a declared name): rcl passes them on and rclpy ignores them.

    Args:
        args: the process's command-line arguments (``sys.argv``).
        node: the node's fully qualified name (``/ns/name``).
        declared: the names the node declares.

    Returns:
        list: ``(name, source, close declared names)``, each name once (its last setting).
    """
    declared = list(declared)  # in declaration order: the close names come out the same each run
    known = set(declared)
    found = {}
    for name, source, own in start_up_settings(args, node):
        if name in known:
            continue
        close = mistaken_name(name, declared, own)
        if close is not None:
            found[name] = (name, source, close)
    return list(found.values())


def warn_mistaken_start_up_parameters(node, args):
    """Log at WARN each parameter the ROS arguments set for ``node`` by mistake
    (:func:`mistaken_start_up_parameters`), naming where and the declared names it is close to.

    Args:
        node: the started ``rclpy`` node, its parameters declared.
        args: the process's command-line arguments (``sys.argv``).
    """
    declared = node.get_parameters_by_prefix("")
    fqn = node.get_fully_qualified_name()
    for name, source, close in mistaken_start_up_parameters(args, fqn, declared):
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        node.get_logger().warn(
            f"parameter {name!r} {source} is not a parameter of this node{hint} (ignored)"
        )


def _matches(key, node):
    """Whether a parameters file's node key (``/**``, ``/ns/name``, ``name``, with rcl's ``*``
    and ``**`` wildcards) names the node ``/ns/name``."""
    return node_name_matches(node_name_tokens(key), node_name_tokens(node))


def as_declared_types(parameters, declared_type):
    """A set request's (or start-up) parameters in their declared types where nothing is lost
    (:func:`~robot_dynamics.schema.as_declared_type`: an integer for a double, ``ros2 param set
    /node observer_gain 100``; integers for a double array, ``effort_scale "[1, 1, -1]"``; an
    empty list for any array, ``"[]"``, which the command line types as a bool array). Anything
    else is left as it came (rclpy refuses a wrong type).

    Args:
        parameters: ``rclpy.parameter.Parameter`` list.
        declared_type: ``f(name) -> Type`` of the declared parameter, or None.

    Returns:
        list: the parameters, converted where they were widened.
    """
    out = []
    for p in parameters:
        want = declared_type(p.name)
        if want is not None and p.type_.value != want:
            value = as_declared_type(p.value, p.type_.value, want)
            if value is not None:
                p = Parameter(p.name, Parameter.Type(int(want)), value)
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
