"""One parameter declaration (:class:`Param`), its type (:class:`Type`) and its checks, ROS-free.

A :class:`Param` says everything about a node parameter once: name, type, default, range or
choices, units, description, whether it is read at start-up only, and the field of a
configuration dataclass it feeds (``config``). :mod:`robot_dynamics.ros.parameters` turns it into
a ``ParameterDescriptor`` and validates set requests with :meth:`Param.reason`;
:mod:`robot_dynamics.schema.derive` builds configuration dataclasses from it;
:mod:`robot_dynamics.schema.files` types the values of parameters files with its types and
:mod:`robot_dynamics.tools.params_file` checks and writes them through it.
"""

import enum
import math
import numbers
from dataclasses import dataclass
from typing import Callable, Optional


class Type(enum.IntEnum):
    """Parameter types; the values are ``rcl_interfaces/msg/ParameterType``'s."""

    BOOL = 1
    INTEGER = 2
    DOUBLE = 3
    STRING = 4
    BOOL_ARRAY = 6
    INTEGER_ARRAY = 7
    DOUBLE_ARRAY = 8
    STRING_ARRAY = 9


NUMBER_TYPES = (Type.DOUBLE, Type.INTEGER)
ARRAY_OF = {
    Type.BOOL: Type.BOOL_ARRAY,
    Type.INTEGER: Type.INTEGER_ARRAY,
    Type.DOUBLE: Type.DOUBLE_ARRAY,
    Type.STRING: Type.STRING_ARRAY,
}
"""The array type of each scalar type."""
ENTRY_TYPE = {array: scalar for scalar, array in ARRAY_OF.items()}
"""The entry type of each array type."""
ARRAY_TYPES = tuple(ENTRY_TYPE)
PYTHON_TYPES = {
    Type.BOOL: bool,
    Type.INTEGER: int,
    Type.DOUBLE: float,
    Type.STRING: str,
    **dict.fromkeys(ARRAY_TYPES, tuple),
}
"""The Python type of each parameter type in a configuration dataclass (arrays: tuples)."""
_NUMERIC = (Type.DOUBLE, Type.INTEGER, Type.DOUBLE_ARRAY, Type.INTEGER_ARRAY)
TYPE_NAMES = {
    Type.BOOL: "bool",
    Type.INTEGER: "integer",
    Type.DOUBLE: "double",
    Type.STRING: "string",
    Type.BOOL_ARRAY: "bool array",
    Type.INTEGER_ARRAY: "integer array",
    Type.DOUBLE_ARRAY: "double array",
    Type.STRING_ARRAY: "string array",
}
"""The name of each parameter type in messages."""
_WIDENED = {(Type.INTEGER, Type.DOUBLE), (Type.INTEGER_ARRAY, Type.DOUBLE_ARRAY)}


def as_declared_type(value, have, want):
    """A parameter value in its declared type where nothing is lost: an integer for a double
    (``observer_gain: 100``), integers for a double array (``[1, 1, -1]``) and an empty list
    for any array type (which ``rcl`` types as it likes). The one conversion of every path a
    value takes into a node: set requests, start-up values, parameters files read.

    Args:
        value: the value, of parameter type ``have``.
        have: its :class:`Type` (or the int of it).
        want: the declared :class:`Type`.

    Returns:
        the value in type ``want`` (``value`` itself when ``have == want``), or None when it has
        another type that does not convert.
    """
    if have == want:
        return value
    if (have, want) in _WIDENED:
        return float(value) if want == Type.DOUBLE else [float(v) for v in value]
    if have in ARRAY_TYPES and want in ARRAY_TYPES and len(value) == 0:
        return []
    return None


@dataclass(frozen=True)
class Param:
    """One node parameter.

    Attributes:
        name: as declared (dots nest it in a parameters file: ``payload.mass``).
        default: the value without an override.
        description: what it does, one or a few sentences (without the units).
        type: a :class:`Type`.
        units: of the value or of every entry, e.g. ``"s"``, ``"N m or N"``; "" = none.
        range: (low, high), inclusive, for a number or for every entry of a double array;
            required for numbers.
        low_open: True makes the lower bound of ``range`` exclusive.
        length: number of entries a double array must have, or a tuple of the numbers it may
            have (``(3, 0)``: three or none); None: any.
        choices: the values a string may take (None: any string).
        check: optional extra ``check(value) -> None or reason``.
        read_only: the value is read at start-up only.
        config: dotted path of the configuration dataclass field this parameter sets (e.g.
            ``"contact.torque_on"`` of the estimation pipeline's config, ``"brakes"`` of the
            simulated arm's options); None: none.

    Raises:
        ValueError: a number without a range; a default its own declaration refuses.
    """

    name: str
    default: object
    description: str
    type: Type
    units: str = ""
    range: Optional[tuple] = None
    low_open: bool = False
    length: Optional[object] = None
    choices: Optional[tuple] = None
    check: Optional[Callable] = None
    read_only: bool = False
    config: Optional[str] = None

    def __post_init__(self):
        object.__setattr__(self, "type", Type(self.type))
        if self.type in _NUMERIC and self.range is None:
            raise ValueError(f"parameter {self.name}: a number needs a range")
        reason = self.type_reason(self.default) or self.reason(self.default)
        if reason:
            raise ValueError(f"parameter {self.name}: default {self.default!r}: {reason}")

    def length_text(self, entries):
        """The entries an array may have, e.g. ``"3 entries"``, ``"3 values or none"``.

        Args:
            entries: the word for them.

        Returns:
            str: the text ('' without a length).
        """
        if self.length is None:
            return ""
        return " or ".join(f"{n} {entries}" if n else "none" for n in self._lengths())

    def _lengths(self):
        """The numbers of entries allowed, a tuple (None: any)."""
        return (self.length,) if isinstance(self.length, int) else self.length

    def constraints(self):
        """The range / length / choices as text (a descriptor's additional_constraints).

        Returns:
            str: the constraints, "; "-separated ("" without any).
        """
        parts = []
        if self.range is not None:
            low, high = self.range
            bracket = "(" if self.low_open else "["
            what = "each entry" if self.type in ARRAY_TYPES else "value"
            parts.append(f"{what} in {bracket}{low}, {high}]")
        if self.length is not None:
            parts.append(self.length_text("entries"))
        if self.choices is not None:
            parts.append("one of " + ", ".join(repr(c) for c in self.choices))
        return "; ".join(parts)

    def type_reason(self, value):
        """Why a value does not have this parameter's type, as a ROS parameter must have it
        (a double is a float, not an int; an array a list or tuple of those).

        Args:
            value: the candidate value (as read from a parameters file, or given in Python).

        Returns:
            str or None: None when the type is right, else why not (without the name).
        """
        if self.type in ARRAY_TYPES:
            if not isinstance(value, (list, tuple)):
                return f"must be a list, got {value!r}"
            entry = PYTHON_TYPES[ENTRY_TYPE[self.type]]
            for i, v in enumerate(value):
                if not _is(v, entry):
                    return f"entry {i} must be a {entry.__name__}, got {v!r}"
            return None
        expected = PYTHON_TYPES[self.type]
        if not _is(value, expected):
            return f"must be a {expected.__name__}, got {value!r}"
        return None

    @property
    def default_text(self):
        """The default as a parameters file writes it: ``true``, ``""``, ``[0.0, 0.0, -9.81]``
        (a double keeps its decimal point: rcl types ``50`` as an integer)."""
        value = self.default
        if self.type == Type.BOOL:
            return "true" if value else "false"
        if self.type in ARRAY_TYPES:
            entry = repr if self.type == Type.DOUBLE_ARRAY else str
            return "[" + ", ".join(entry(v) for v in value) + "]"
        if self.type == Type.STRING:
            return value if value else '""'
        return repr(value)

    def reason(self, value, labels=None):
        """Why a value of the right type is not acceptable (range, length, choices, check).

        Args:
            value: the candidate value.
            labels: optional names of the entries of an array, for the message (e.g.
                ``"joint 'j1'"``); default ``"entry i"``.

        Returns:
            str or None: None when ``value`` is acceptable, else why not (without the name).
        """
        if self.type in NUMBER_TYPES:
            reason = self._number_reason(value)
            if reason:
                return reason
        elif self.type in _NUMERIC:
            value = list(value)
            lengths = self._lengths()
            if lengths is not None and len(value) not in lengths:
                return f"needs {self.length_text('values')}, got {len(value)}"
            for i, v in enumerate(value):
                reason = self._number_reason(v)
                if reason:
                    label = labels[i] if labels is not None and i < len(labels) else f"entry {i}"
                    return f"{label}: {reason}"
        elif self.choices is not None and value not in self.choices:
            return f"must be one of {list(self.choices)}, got {value!r}"
        if self.check is not None:
            return self.check(value)
        return None

    def config_value(self, value):
        """``value`` as a configuration dataclass holds it (arrays as tuples).

        Args:
            value: a parameter value.

        Returns:
            the value (a tuple for arrays).
        """
        return tuple(value) if self.type in ARRAY_TYPES else value

    def _number_reason(self, v):
        if not isinstance(v, numbers.Real) or isinstance(v, bool):
            return f"must be a number, got {v!r}"
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


def _is(value, expected):
    if expected is float:
        return isinstance(value, float)
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, expected)


@dataclass(frozen=True)
class Section:
    """Parameters that belong together (a table of the documentation).

    Attributes:
        key: short name, e.g. ``"model"``.
        title: heading of its documentation table.
        params: its :class:`Param` entries, in declaration order.
    """

    key: str
    title: str
    params: tuple

    @property
    def names(self):
        """frozenset: the names of its parameters."""
        return frozenset(p.name for p in self.params)


@dataclass(frozen=True)
class NodeSchema:
    """Every parameter of one node, in sections.

    Attributes:
        node: the node's default name.
        sections: its :class:`Section` entries.

    Raises:
        ValueError: a name declared twice, or a name that is the dotted prefix of another
            (``friction`` beside ``friction.viscous``: a parameters file nests the second under
            the first, which cannot be a value and a mapping at once).
    """

    node: str
    sections: tuple

    def __post_init__(self):
        seen = set()
        for p in self.params:
            if p.name in seen:
                raise ValueError(f"{self.node}: parameter {p.name} declared twice")
            seen.add(p.name)
        for name in seen:
            parts = name.split(".")
            for k in range(1, len(parts)):
                prefix = ".".join(parts[:k])
                if prefix in seen:
                    raise ValueError(
                        f"{self.node}: parameter {prefix} is the prefix of parameter {name}"
                    )

    @property
    def params(self):
        """tuple: every :class:`Param`, in declaration order."""
        return tuple(p for s in self.sections for p in s.params)

    def __getitem__(self, name):
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"{self.node} has no parameter {name!r}")

    def usage(self, program):
        """The text of ``PROGRAM --help``: how to run the node and every parameter, by section.

        Args:
            program: the executable's name (``dynamics_node``).

        Returns:
            str: the text.
        """
        lines = [
            f"usage: {program} [--ros-args [-p NAME:=VALUE] [--params-file FILE] "
            "[-r FROM:=TO] ...]",
            "",
            f"ROS 2 node {self.node}; its parameters (name = default [units]: what it does; "
            f"at run time: ros2 param describe /{self.node} NAME):",
        ]
        for section in self.sections:
            lines += ["", f"{section.title}:"]
            for p in section.params:
                units = f" [{p.units}]" if p.units else ""
                lines.append(f"  {p.name} = {p.default_text}{units}: {p.description}")
        return "\n".join(lines)

    def section(self, key):
        """The section called ``key``.

        Args:
            key: a :attr:`Section.key`.

        Returns:
            Section: that section.

        Raises:
            KeyError: no such section.
        """
        for s in self.sections:
            if s.key == key:
                return s
        raise KeyError(f"{self.node} has no parameter section {key!r}")


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


def nonzero_entries(value):
    """Check for a double array of scales: no entry 0 (a scale of 0 erases what it scales).

    Args:
        value: the numbers.

    Returns:
        str or None: the reason (the entries that are 0), or None.
    """
    zero = [i for i, v in enumerate(value) if v == 0.0]
    if zero:
        return f"entries {zero} are 0; a scale must be nonzero (1: the effort as reported)"
    return None
