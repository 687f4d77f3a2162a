"""ROS 2 parameters files (the YAML of ``--params-file``) as ``rcl`` reads them, and their units
comments checked against the declarations.

Reading (:func:`read_sections`): the file is one YAML mapping whose keys, down to a
``ros__parameters`` key, spell a node's fully qualified name (``/**:``, ``dynamics_node:``,
``/ns/dynamics_node:``, ``ns: {dynamics_node: ...}``; ``*`` stands for one name token, ``**`` for
any number: :func:`node_name_matches`). Mappings below ``ros__parameters`` nest, their keys joined
with dots (``contact: {torque_on: [...]}`` is ``contact.torque_on``). Scalars are typed as ``rcl``
types them (:mod:`robot_dynamics.schema.rcl_scalars`); a sequence takes the type of its entries,
which must all have one type; an empty sequence is :data:`UNSET` (``rcl`` leaves the parameter
unset). A file ``rcl`` refuses (not YAML, a malformed section of any node, a list of two types) is
refused with a :class:`~robot_dynamics.core.errors.ParametersFileError` naming the file and the
line. The values are checked against a node's declarations by
:func:`robot_dynamics.tools.params_file.read_parameters_file`.

Units comments (:func:`comment_problems`): a parameter with units carries, on its line, a comment
that starts with them in brackets (``observer_gain: 50.0  # [1/s] ...``), as
:func:`robot_dynamics.tools.params_file.parameters_yaml` writes it.
"""

import difflib
import re
from dataclasses import dataclass

from robot_dynamics.core.errors import ParametersFileError

from .param import ARRAY_OF, TYPE_NAMES
from .rcl_scalars import scalar_value

PARAMETERS_KEY = "ros__parameters"
"""The key below a node name that holds the node's parameters."""

_NAME_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WILDCARDS = ("*", "**")


class _Unset:
    def __repr__(self):
        return "UNSET"


UNSET = _Unset()
"""The value of an empty sequence: ``rcl`` leaves the parameter unset."""


@dataclass(frozen=True)
class FileEntry:
    """One parameter value of a parameters file.

    Attributes:
        name: the dotted parameter name.
        type: its :class:`~robot_dynamics.schema.Type` as ``rcl`` types it (0 for :data:`UNSET`).
        value: bool, int, float or str, a list of one of them, or :data:`UNSET`.
        line: the file's line (1-based) the value starts on.
    """

    name: str
    type: int
    value: object
    line: int


@dataclass(frozen=True)
class NodeSection:
    """The parameters one node-name key of a file sets.

    Attributes:
        tokens: :func:`node_name_tokens` of the key (wildcards kept).
        entries: the :class:`FileEntry` values, in file order.
    """

    tokens: tuple
    entries: tuple

    @property
    def wildcard(self):
        """bool: the key has a wildcard (the section may be shared with other nodes)."""
        return any(token in _WILDCARDS for token in self.tokens)


def node_name_tokens(name):
    """The tokens of a node name or of a parameters file's node key (``/ns/name`` ->
    ``["ns", "name"]``; the wildcards ``*`` and ``**`` kept as tokens).

    Args:
        name: the name or key.

    Returns:
        list: its tokens.
    """
    return [token for token in name.split("/") if token]


def node_name_matches(pattern, target):
    """rcl's node name wildcards: ``*`` one token, ``**`` any number of tokens.

    Args:
        pattern: :func:`node_name_tokens` of a parameters file's node key.
        target: :func:`node_name_tokens` of a node's fully qualified name.

    Returns:
        bool: whether the key names the node.
    """
    if not pattern:
        return not target
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(node_name_matches(rest, target[k:]) for k in range(len(target) + 1))
    if not target:
        return False
    return (head == "*" or head == target[0]) and node_name_matches(rest, target[1:])


def sections_for(sections, target):
    """The sections of a file that apply to a node, in file order (a later value wins).

    Args:
        sections: :class:`NodeSection` list (:func:`read_sections`).
        target: :func:`node_name_tokens` of the node's fully qualified name.

    Returns:
        list: the :class:`NodeSection` entries whose key names the node.
    """
    return [section for section in sections if node_name_matches(section.tokens, target)]


#: Parameters every rclpy node declares itself (not a node's own declarations).
ROS_NODE_PARAMETERS = ("use_sim_time", "start_type_description_service")


def is_ros_parameter(name):
    """True for a parameter rclpy declares on every node (``use_sim_time``, QoS overrides)."""
    return name in ROS_NODE_PARAMETERS or name.startswith("qos_overrides.")


def close_names(name, declared):
    """Declared names close to ``name`` (a typo's candidates), at most three, closest first."""
    return difflib.get_close_matches(name, list(declared), n=3, cutoff=0.6)


def mistaken_name(name, declared, own):
    """Whether a parameter set for a node that does not declare it is the user's mistake.

    rclpy's own parameters never are; a name set for the node alone (a section or ``-p`` that
    names it) always is; a name in a wildcard section or a ``-p`` without a node name, shared with
    other nodes, only when it is close to a declared name (a typo; the others are those nodes').

    Args:
        name: the parameter's name.
        declared: the names the node declares.
        own: whether the setting names the node alone.

    Returns:
        list | None: the declared names close to ``name`` (possibly empty) when it is a mistake,
        else None.
    """
    if is_ros_parameter(name):
        return None
    close = close_names(name, declared)
    return close if own or close else None


def read_sections(path):
    """The node-name sections of a parameters file, as ``rcl`` reads them.

    Args:
        path: the YAML file.

    Returns:
        list: :class:`NodeSection` per ``ros__parameters`` key, in file order (at least one).

    Raises:
        ParametersFileError: the file cannot be read, is not YAML, is not a mapping of node names
            to ``ros__parameters``, has no ``ros__parameters`` section, or has a key or value
            ``rcl`` refuses (in any node's section); the message names the file and the line.
    """
    path = str(path)
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ParametersFileError(f"cannot read parameters file {path!r}: {error}", path) from None
    return _Reader(path, text).sections


class _Reader:
    """The composed YAML of one parameters file walked into sections of typed entries."""

    def __init__(self, path, text):
        import yaml

        self.path = path
        self.sections = []
        self._yaml = yaml
        try:
            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            documents = list(yaml.compose_all(text, Loader=loader))
        except yaml.YAMLError as error:
            raise ParametersFileError(f"{path}: not YAML: {error}", path) from None
        documents = [d for d in documents if d is not None]
        if len(documents) != 1 or not isinstance(documents[0], yaml.MappingNode):
            raise ParametersFileError(
                f"{path}: a parameters file is one YAML mapping of node names "
                f"(e.g. '/**:' or 'dynamics_node:') to '{PARAMETERS_KEY}:'",
                path,
            )
        self._walk(documents[0], ())
        if not self.sections:
            raise ParametersFileError(f"{path}: no '{PARAMETERS_KEY}' section", path)

    def _fail(self, message, node, parameter=""):
        return ParametersFileError(
            f"{self.path}, line {node.start_mark.line + 1}: {message}", self.path, parameter
        )

    def _key(self, key_node):
        if not isinstance(key_node, self._yaml.ScalarNode):
            raise self._fail("a key must be a name", key_node)
        return key_node.value

    def _walk(self, mapping, tokens):
        for key_node, value in mapping.value:
            key = self._key(key_node)
            if key == PARAMETERS_KEY:
                if not tokens:
                    raise self._fail(f"no node name before '{PARAMETERS_KEY}'", key_node)
                if not isinstance(value, self._yaml.MappingNode):
                    raise self._fail(f"'{PARAMETERS_KEY}' must be a mapping of names", value)
                entries = []
                self._parameters(value, "", entries)
                self.sections.append(NodeSection(tokens, tuple(entries)))
                continue
            new = node_name_tokens(key)
            bad = [t for t in new if t not in _WILDCARDS and not _NAME_TOKEN.fullmatch(t)]
            if bad or not new:
                raise self._fail(
                    f"{key!r} is not a node name (name tokens are letters, digits and '_', or "
                    "the wildcards '*' and '**')",
                    key_node,
                )
            if not isinstance(value, self._yaml.MappingNode):
                raise self._fail(
                    f"{key!r}: expected a node name with '{PARAMETERS_KEY}:' below it", value
                )
            self._walk(value, tokens + tuple(new))

    def _parameters(self, mapping, prefix, entries):
        yaml = self._yaml
        for key_node, value in mapping.value:
            name = prefix + self._key(key_node)
            if isinstance(value, yaml.MappingNode):
                self._parameters(value, name + ".", entries)
            elif isinstance(value, yaml.SequenceNode):
                entries.append(self._sequence(name, value))
            else:
                ptype, typed = self._scalar(name, value)
                entries.append(FileEntry(name, ptype, typed, value.start_mark.line + 1))

    def _scalar(self, name, node):
        if not isinstance(node, self._yaml.ScalarNode):
            raise self._fail(f"parameter {name}: not a value", node, name)
        quoted = node.style in ("'", '"')
        if not quoted and node.value == "":
            raise self._fail(f"parameter {name}: no value", node, name)
        return scalar_value(node.value, quoted)

    def _sequence(self, name, node):
        line = node.start_mark.line + 1
        if not node.value:
            return FileEntry(name, 0, UNSET, line)
        types, values = set(), []
        for item in node.value:
            if not isinstance(item, self._yaml.ScalarNode):
                raise self._fail(f"parameter {name}: a list of lists or mappings", item, name)
            ptype, value = self._scalar(name, item)
            if types and ptype not in types:
                raise self._fail(
                    f"parameter {name}: entries of one list must have one type ({value!r} is "
                    f"a {TYPE_NAMES[ptype]}, the first a {TYPE_NAMES[next(iter(types))]}; "
                    "write doubles as 1.0, not 1)",
                    item,
                    name,
                )
            types.add(ptype)
            values.append(value)
        return FileEntry(name, ARRAY_OF[types.pop()], values, line)


_KEY_LINE = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z_][A-Za-z0-9_.]*):(?P<rest>.*)$")
_UNITS = re.compile(r"^\[([^\]]+)\]")


def _split_comment(text):
    """(value, comment or None) of the rest of a YAML line (a '#' inside quotes is text)."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].strip(), text[i + 1 :].strip()
    return text.strip(), None


def comment_problems(schema, text, source="parameters file"):
    """Check the units comments of a parameters file's text.

    A parameter with units carries a comment that starts with them in brackets
    (``observer_gain: 50.0  # [1/s] ...``); a comment starting with ``[...]`` on a parameter
    without units (or with other units) is wrong.

    Args:
        schema: the :class:`~robot_dynamics.schema.param.NodeSchema`.
        text: the file's text.
        source: the file, for the messages.

    Returns:
        list: one message per problem, naming the line and the parameter; empty when right.
    """
    declared = {p.name: p for p in schema.params}
    problems = []
    groups = []  # (indent, name) of the open nested keys below ros__parameters
    inside = None  # the indent of the ros__parameters key
    for number, line in enumerate(text.splitlines(), 1):
        match = _KEY_LINE.match(line)
        if match is None:
            continue
        indent, key = len(match["indent"]), match["key"]
        value, comment = _split_comment(match["rest"])
        if key == PARAMETERS_KEY:
            inside, groups = indent, []
            continue
        if inside is not None and indent <= inside:
            inside = None  # a key beside ros__parameters, or the next node's
        if inside is None:
            continue
        groups = [(i, g) for i, g in groups if i < indent]
        name = ".".join([g for _, g in groups] + [key])
        if not value:
            groups.append((indent, key))
            continue
        param = declared.get(name)
        if param is None:
            continue  # value_problems names it
        claimed = _UNITS.match(comment or "")
        where = f"{source}:{number}: {name}"
        if param.units and (claimed is None or claimed[1] != param.units):
            problems.append(f"{where}: the comment must start with [{param.units}]")
        elif not param.units and claimed is not None:
            problems.append(f"{where}: has no units, the comment claims [{claimed[1]}]")
    return problems
