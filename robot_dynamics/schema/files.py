"""The units comments of a ROS 2 parameters file, checked against the declarations.

A parameter with units carries, on its line, a comment that starts with them in brackets
(``observer_gain: 50.0  # [1/s] ...``), as :func:`robot_dynamics.tools.params_file.parameters_yaml`
writes it. Files are read (and their values checked) by
:func:`robot_dynamics.tools.params_file.read_parameters_file`.
"""

import re


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
        if key == "ros__parameters":
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
