"""Node parameters files: the ROS 2 ``--params-file`` YAML of the dynamics node, read as the node
reads it, and of both nodes of the package, written so that the node reads back what was
written.

Reading (:func:`read_parameters_file`) follows what ``rcl`` and ``rclpy`` do when a node starts
with ``--ros-args --params-file FILE``:

- Sections: a mapping whose keys, down to a ``ros__parameters`` key, spell a node's fully
  qualified name (``/**:``, ``dynamics_node:``, ``/dynamics_node:``, ``/ns/dynamics_node:``,
  ``ns: {dynamics_node: ...}``; ``*`` stands for one name token, ``**`` for any number). Every
  section that matches the node applies, in file order: a later value wins (within a section
  too). Sections of other nodes are parsed (a malformed one fails the file, as it fails
  ``rcl``) and otherwise ignored.
- Names: mappings below ``ros__parameters`` nest, their keys joined with dots
  (``contact: {torque_on: [...]}`` is ``contact.torque_on``).
- Types, as ``rcl`` gives them: a quoted scalar is a string; an unquoted one is a bool
  (``true``/``false``, ``yes``/``no``, ``on``/``off`` and their capitalised forms), else an
  integer (C ``strtol``: ``10``, ``0x1f``, ``017`` octal), else a double (``1.0``, ``1e-3``,
  ``.inf``), else a string (:mod:`robot_dynamics.schema.rcl_scalars`). A sequence takes the
  type of its entries, which must all have one type. An empty sequence leaves the parameter
  unset: the node then takes its declared empty default, or refuses to start when the default
  is not empty.
- Values are checked against the node's declarations
  (:data:`robot_dynamics.schema.DYNAMICS_NODE`): the declared type, an integer taken for a
  double as the node takes it (:func:`~robot_dynamics.schema.as_declared_type`), ranges,
  lengths, choices. A name the node does not declare is refused in a section that names the
  node (the node would ignore it, with a warning; there it is almost always a typo); in a
  wildcard section shared with other nodes only when it is close to a declared name (the others
  are those nodes' parameters): :func:`robot_dynamics.schema.files.mistaken_name`, the rule the
  node warns by. ``use_sim_time`` and the other parameters rclpy gives every node are accepted.

The file is walked into sections of typed entries by
:func:`robot_dynamics.schema.files.read_sections` (shared with the node, which reads it to say
where a start-up value was set); the values are checked here.

Every refusal is a :class:`~robot_dynamics.core.errors.ParametersFileError` naming the file, the
parameter and, where known, the line. The values are those the node would have: its declared
defaults with the file's values over them. The estimation pipeline's configuration and the model
come from them through the node's own functions
(:func:`~robot_dynamics.estimation.config.pipeline_config`,
:func:`~robot_dynamics.ros.dynamics_parameters.build_model`).

Writing (:func:`parameters_yaml`, for the dynamics node or the simulated arm: the node's
:class:`~robot_dynamics.schema.NodeSchema`) nests dotted names, writes doubles with a decimal
point or an exponent (so that ``rcl`` types them as doubles), strings quoted, ``# [units]`` after
each value that has units, and checks every value against the node's declarations first (the
parameters rclpy gives every node, ``use_sim_time`` and ``qos_overrides.*``, pass as they are).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from robot_dynamics.core.errors import ParametersFileError
from robot_dynamics.schema import DYNAMICS_NODE, Type, as_declared_type
from robot_dynamics.schema.files import (
    PARAMETERS_KEY,
    UNSET,
    close_names,
    is_ros_parameter,
    mistaken_name,
    node_name_tokens,
    read_sections,
    sections_for,
)
from robot_dynamics.schema.param import ARRAY_OF, ENTRY_TYPE, TYPE_NAMES

NODE_NAME = "dynamics_node"
"""The dynamics node's default name: the section a parameters file is read for."""

# the ROS parameter types of scalars read from a file
BOOL, INTEGER, DOUBLE, STRING = Type.BOOL, Type.INTEGER, Type.DOUBLE, Type.STRING


def _qualified(node_name):
    tokens = node_name_tokens(node_name)
    if not tokens:
        raise ValueError(f"node name {node_name!r} is empty")
    return tokens


def _specs(schema=DYNAMICS_NODE):
    return {p.name: p for p in schema.params}


def _declared_default_is_empty(spec):
    return isinstance(spec.default, (list, tuple)) and len(spec.default) == 0


def _check(spec, ptype, value, where):
    """The value as the node holds it, or ParametersFileError naming the parameter."""
    name = spec.name
    if value is UNSET:
        if _declared_default_is_empty(spec):
            return []
        raise ParametersFileError(
            f"{where}: parameter {name}: an empty list leaves it unset and the node refuses to "
            f"start (its default is {spec.default!r})",
            parameter=name,
        )
    converted = as_declared_type(value, ptype, spec.type)
    if converted is None:
        hint = " (quote it)" if spec.type == STRING else ""
        raise ParametersFileError(
            f"{where}: parameter {name} must be a {TYPE_NAMES.get(spec.type, spec.type)}, "
            f"got the {TYPE_NAMES.get(ptype, ptype)} {value!r}{hint}",
            parameter=name,
        )
    reason = spec.reason(converted)
    if reason:
        raise ParametersFileError(f"{where}: parameter {name}: {reason}", parameter=name)
    return list(converted) if isinstance(converted, (list, tuple)) else converted


def _unknown(name, specs, where, schema=DYNAMICS_NODE):
    close = close_names(name, specs)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    node = schema.node.replace("_", " ")
    return ParametersFileError(
        f"{where}: {name!r} is not a parameter of the {node}{hint}", parameter=name
    )


def _python_type(value):
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, float):
        return DOUBLE
    if isinstance(value, str):
        return STRING
    return None


def _type_of(value):
    """The parameter type of a Python value (lists: of their entries), None when it has none."""
    if isinstance(value, (list, tuple)):
        types = {_python_type(v) for v in value}
        if len(types) == 1 and None not in types:
            return ARRAY_OF[types.pop()]
        return None if value else 0
    return _python_type(value)


@dataclass(frozen=True)
class NodeParameters:
    """The parameter values a dynamics node would have.

    Attributes:
        values: every declared parameter name -> value (the defaults, with the file's values
            and any overrides over them); lists for arrays.
        given: the names a file or an override set.
        path: the file read ('' without one).
        node: the node's fully qualified name the file was read for.
        lines: name -> line of the file that set it (``file:line`` when read from several).
    """

    values: dict
    given: frozenset = frozenset()
    path: str = ""
    node: str = "/" + NODE_NAME
    lines: dict = field(default_factory=dict, compare=False, repr=False)

    def with_values(self, overrides, source="the command line"):
        """These values with ``overrides`` over them, checked as a file's values are.

        Args:
            overrides: parameter name -> value (Python bool, int, float, str or lists of one
                of them; ints are accepted for doubles, as a command line would write them).
            source: what the overrides come from, for messages.

        Returns:
            NodeParameters: the new values.

        Raises:
            ParametersFileError: an unknown name or a bad value, naming it and ``source``.
        """
        values = {**self.values, **_checked(overrides, DYNAMICS_NODE, source)}
        return NodeParameters(
            values, self.given | set(overrides), self.path, self.node, dict(self.lines)
        )

    def pipeline_config(self):
        """The estimation pipeline's configuration, translated as the node translates it.

        Returns:
            PipelineConfig: the config.
        """
        from robot_dynamics.estimation.config import pipeline_config

        return pipeline_config(self.values)

    def build_model(self, urdf_text):
        """The node's models of a URDF with these values (base and tip link, gravity, inertia
        policy, armature, payload).

        Args:
            urdf_text: URDF XML text.

        Returns:
            tuple: ``(parsed model, model with armature and payload)``.

        Raises:
            RobotDynamicsError: the URDF, or a model parameter (base_link, tip_link, gravity,
                ...) that no file set, cannot make a model.
            ParametersFileError: a value a file set (a tip_link the URDF lacks, say), or of the
                armature, friction or payload parameters, that does not fit the model (e.g. the
                armature's length), naming the file and the parameter.
        """
        from robot_dynamics.core.errors import RobotDynamicsError
        from robot_dynamics.ros import dynamics_parameters as DP

        try:
            return DP.build_model(urdf_text, self.values)
        except RobotDynamicsError as error:
            name = error.argument
            if name in self.lines:  # set by a file
                where = self.lines[name]  # a line of self.path, or "file:line" of several
                where = f"{self.path}:{where}" if isinstance(where, int) else where
                raise ParametersFileError(
                    f"parameter {name} in {where}: {error}", self.path, parameter=name
                ) from None
            if name not in DP.DERIVE_PARAMS:
                raise
            raise ParametersFileError(
                f"{self.source()}: {error}", self.path, parameter=name
            ) from None
        except ValueError as error:
            raise ParametersFileError(f"{self.source()}: {error}", self.path) from None

    def pipeline(self, model):
        """The node's estimation pipeline for a model with these values.

        Args:
            model: the :class:`~robot_dynamics.core.model.RobotModel` (from :meth:`build_model`).

        Returns:
            EstimationPipeline: the pipeline.

        Raises:
            ParametersFileError: a value that does not fit the model (lengths of per-joint
                vectors, wrench_frame, contact levels), naming the file and the field.
        """
        from robot_dynamics.core.errors import InvalidInputError
        from robot_dynamics.estimation import EstimationPipeline

        try:
            return EstimationPipeline(model, self.pipeline_config())
        except InvalidInputError as error:
            raise ParametersFileError(
                f"{self.source()}: the parameters do not fit the model: {error}", self.path
            ) from None

    def source(self):
        """What the values come from, for messages.

        Returns:
            str: the file, or "the default parameters".
        """
        return self.path or "the default parameters"


def _checked(values, schema, source):
    """``values`` as the node holds them (doubles as floats, arrays as lists), each checked
    against its declaration in ``schema``, or ParametersFileError naming it and ``source``.

    Values take their declared type through :func:`~robot_dynamics.schema.as_declared_type`
    (the node's conversion), a list entry by entry (Python writes ``[0, 0, -9.81]``)."""
    specs = _specs(schema)
    checked = {}
    for name, value in values.items():
        spec = specs.get(name)
        if spec is None:
            raise _unknown(name, specs, source, schema)
        value = list(value) if isinstance(value, (list, tuple)) else value
        if isinstance(value, list) and spec.type in ENTRY_TYPE:
            entry = ENTRY_TYPE[spec.type]
            entries = [as_declared_type(v, _python_type(v), entry) for v in value]
            value = value if None in entries else entries
        ptype = _type_of(value)
        if ptype == 0:
            ptype, value = spec.type, []
        checked[name] = _check(spec, ptype, value, source)
    return checked


def default_parameters():
    """The values of a dynamics node started without a parameters file.

    Returns:
        NodeParameters: the declared defaults.
    """
    return NodeParameters({name: _copy(spec.default) for name, spec in _specs().items()})


def _copy(value):
    return list(value) if isinstance(value, (list, tuple)) else value


def read_parameters_file(path, node=NODE_NAME):
    """The parameter values a dynamics node started with ``--params-file path`` would have.

    Args:
        path: the YAML file.
        node: the node's name, or fully qualified name (``/ns/name``).

    Returns:
        NodeParameters: the values.

    Raises:
        ParametersFileError: the file cannot be read, is not a parameters file, has no section
            for the node, or sets a parameter the node does not declare (in a section that names
            the node; in a wildcard section shared with other nodes only a name close to a
            declared one, a typo: the others are those nodes'; the parameters every rclpy node
            has are accepted) or a value it refuses (the message names the file, the parameter
            and the line).
    """
    path = str(path)
    sections = read_sections(path)
    target = _qualified(node)
    matching = sections_for(sections, target)
    if not matching:
        names = ", ".join("/" + "/".join(section.tokens) for section in sections)
        raise ParametersFileError(
            f"{path}: no section for node /{'/'.join(target)} (sections: {names}; '/**:' "
            "applies to every node)",
            path,
        )
    merged = {}  # name -> (entry, True when set by a section that names this node alone)
    for section in matching:
        for entry in section.entries:
            merged[entry.name] = (entry, not section.wildcard)
    specs = _specs()
    values = {name: _copy(spec.default) for name, spec in specs.items()}
    lines = {}
    for name, (entry, own) in list(merged.items()):
        where = f"{path}, line {entry.line}"
        spec = specs.get(name)
        if spec is None and mistaken_name(name, specs, own) is None:
            # rclpy's own parameters, or another node's in a section shared with it
            del merged[name]
            continue
        try:
            if spec is None:
                raise _unknown(name, specs, where)
            values[name] = _check(spec, entry.type, entry.value, where)
        except ParametersFileError as error:
            raise ParametersFileError(str(error), path, error.parameter) from None
        lines[name] = entry.line
    return NodeParameters(values, frozenset(merged), path, "/" + "/".join(target), lines)


def read_parameters_files(paths, node=NODE_NAME):
    """The values of a node started with several ``--params-file`` (a later file wins).

    Args:
        paths: the YAML files, in command-line order (empty: the defaults).
        node: the node's name, or fully qualified name.

    Returns:
        NodeParameters: the values (``path``: the files, comma-separated).

    Raises:
        ParametersFileError: see :func:`read_parameters_file`.
    """
    params = default_parameters()
    lines = {}
    for path in paths:
        read = read_parameters_file(path, node=node)
        params = params.with_values({name: read.values[name] for name in read.given}, path)
        lines.update({name: f"{path}:{line}" for name, line in read.lines.items()})
    return NodeParameters(
        params.values, params.given, ", ".join(str(p) for p in paths), params.node, lines
    )


# ------------------------------------------------------------------ writing
def _format_scalar(value, name):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ParametersFileError(f"parameter {name}: {value} is not finite", parameter=name)
        text = repr(value)
        return text if any(c in text for c in ".eE") else text + ".0"
    if isinstance(value, str):
        return json.dumps(value)
    raise ParametersFileError(
        f"parameter {name}: {type(value).__name__} is not a parameter value", parameter=name
    )


def _format(value, name):
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_format_scalar(v, name) for v in value) + "]"
    return _format_scalar(value, name)


def parameters_yaml(values, node="/**", comments=(), check=True, schema=DYNAMICS_NODE):
    """A parameters file for a node of the package that sets ``values``.

    Args:
        values: parameter name -> value (bool, int, float, str, or a list of one of them;
            numpy scalars and arrays are converted).
        node: the section's node name (``/**``: every node).
        comments: lines written as ``#`` comments at the top.
        check: check the names and values against the node's declarations (the parameters
            rclpy gives every node, ``use_sim_time`` and ``qos_overrides.*``, as they are).
        schema: the node's :class:`~robot_dynamics.schema.NodeSchema`
            (:data:`~robot_dynamics.schema.DYNAMICS_NODE`,
            :data:`~robot_dynamics.schema.ARM_SIMULATOR`).

    Returns:
        str: the YAML text, the parameters in declaration order (undeclared ones last), a
        ``# [units]`` comment after each value that has units; the node reads ``values`` back
        (:func:`read_parameters_file` reads a dynamics node's).

    Raises:
        ParametersFileError: an unknown name or a value the node refuses (with ``check``), a
            value that is not a parameter value.
    """
    specs = _specs(schema)
    order = {name: k for k, name in enumerate(specs)}
    names = sorted(values, key=lambda name: order.get(name, len(order)))
    plain = {name: _plain(values[name]) for name in names}
    if check:
        own = {name: v for name, v in plain.items() if not is_ros_parameter(name)}
        plain.update(_checked(own, schema, "the values to write"))
    tree = {}
    for name, value in plain.items():
        *parents, leaf = name.split(".")
        level = tree
        for part in parents:
            level = level.setdefault(part, {})
        level[leaf] = value
    lines = [f"# {line}" if line else "#" for line in comments]
    lines += [f"{node}:", f"  {PARAMETERS_KEY}:"]

    def emit(level, indent, prefix):
        for key, value in level.items():
            if isinstance(value, dict):
                lines.append(f"{' ' * indent}{key}:")
                emit(value, indent + 2, prefix + key + ".")
            else:
                line = f"{' ' * indent}{key}: {_format(value, prefix + key)}"
                spec = specs.get(prefix + key)
                lines.append(f"{line}  # [{spec.units}]" if spec and spec.units else line)

    emit(tree, 4, "")
    return "\n".join(lines) + "\n"


def _plain(value):
    import numpy as np

    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


__all__ = [
    "NODE_NAME",
    "NodeParameters",
    "ParametersFileError",
    "default_parameters",
    "parameters_yaml",
    "read_parameters_file",
    "read_parameters_files",
]
