"""Write parameters into URDF text, beside the reader (:mod:`robot_dynamics.core.urdf`): the
identified URDF of :func:`identified_urdf` reads back, with the reader, as a model whose bodies
have the given inertias and whose joints the given friction.

What is written, for parameters ``theta`` in a
:class:`~robot_dynamics.core.regressor.ParameterLayout` of the model built from the text:

- every body of the model (a link moved by a movable joint, with the links fixed to it merged
  in) gets its ``<inertial>`` on the body's own link, in the link frame as the reader reads it:
  ``<origin xyz>`` the centre of mass [m] and ``rpy="0 0 0"`` (the link's axes),
  ``<mass value>`` [kg], ``<inertia ixx ixy ixz iyy iyz izz>`` the rotational inertia about the
  centre of mass, link axes [kg m^2]; the ``<inertial>`` of the links fixed to a body is removed
  (their mass is in the body's);
- with viscous or Coulomb friction columns in the layout, every actuated joint's ``<dynamics
  damping friction>`` is set to the parameters' viscous [N m s/rad or N s/m] and Coulomb
  [N m or N] friction (a ``<dynamics>`` element is added where there is none).

Numbers are written in the shortest form that reads back as the same double, so the written
values are the given ones up to the conversion between inertias about the link origin and
about the centre of mass (about 1e-16 relative). An entry of a centre of mass or an inertia
tensor at most :data:`NEGLIGIBLE` of the largest entry (what a solver leaves of a zero) is
written as 0, and never ``-0``.

Only those elements change, in place (a new element indented as its neighbours); every other
character of the text is kept as it is: joints, limits, visuals, collisions, links fixed to the
base, elements and attributes the reader does not look at, comments, white space, the XML
declaration, namespace declarations. The ``<dynamics>`` tags the writer sets are written anew
(their other attributes kept, in their order).
"""

import re
from dataclasses import dataclass, field
from xml.parsers import expat

import numpy as np

from .errors import InvalidInputError, URDFError
from .regressor import parameters_to_inertia
from .spatial import inertia_parameters
from .urdf import MAX_LINKS, parse_urdf, urdf_text

#: Entries of a centre of mass or an inertia tensor at most this fraction of the largest entry
#: are written as 0.
NEGLIGIBLE = 1e-12


def identified_urdf(text, model, layout, theta):
    """The URDF text ``text`` with the inertials and joint friction of ``theta`` written in (see
    the module docstring).

    Args:
        text: the URDF XML text ``model`` was built from (str or UTF-8 bytes).
        model: the :class:`~robot_dynamics.core.model.RobotModel` built from it.
        layout: the :class:`~robot_dynamics.core.regressor.ParameterLayout` of ``theta``, made
            for ``model``.
        theta: (layout.size,) parameters: per body 10 inertial parameters about the body's
            link origin, link axes ``[m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]``
            [kg, kg m, kg m^2], then the layout's per-joint columns (friction [N m s/rad,
            N m]; torque offsets and armature, which a URDF does not carry, are not written).

    Returns:
        str: the new URDF XML text.

    Raises:
        InvalidInputError: ``layout`` made for another model; ``theta`` not of the layout's
            size, not finite or with a negative mass (naming the parameter); friction
            coefficients the friction model refuses (negative, an asymmetry beyond the Coulomb
            level).
        URDFError: ``text`` is not URDF XML, or not the model's (a link or joint of the model
            is missing from it, named).
        InvalidURDFValueError: a written value that the reader refuses (beyond the bounds of
            :mod:`robot_dynamics.core.urdf`), naming the link or joint and the field.
    """
    data = urdf_text(text).encode("utf-8")
    layout.check(model)
    theta = _checked_theta(theta, layout)
    root = _parse(data)
    links = {el.name: el for el in root.children if el.tag == "link"}
    joints = {el.name: el for el in root.children if el.tag == "joint"}
    tree = model.tree
    _require(links, tree.body_link_names, "link")
    doc = _Document(data, _indent_unit(data, root))
    bodies = theta[: layout.n_inertial].reshape(-1, 10)
    for link_name, parameters in zip(tree.body_link_names, bodies):
        mass, com, inertia = inertia_parameters(parameters_to_inertia(parameters))
        doc.put_inertial(links[link_name], mass, _clean(com), _clean(inertia))
    for name, info in tree.frames.items():
        if info.body >= 0 and name != tree.body_link_names[info.body] and name in links:
            for old in links[name].find_all("inertial"):
                doc.remove(old)
    if {"viscous", "coulomb"} & set(layout.groups):
        _require(joints, model.joint_names, "joint")
        friction = layout.friction_model(theta, model.friction)
        for k, name in enumerate(model.joint_names):
            values = {
                "damping": number_text(friction.viscous[k]),
                "friction": number_text(friction.coulomb[k]),
            }
            doc.set_attributes(joints[name], "dynamics", values)
    out = doc.edited() + "\n"
    parse_urdf(out, max_links=max(MAX_LINKS, len(links), len(joints)))  # reads back, or says why
    return out


def number_text(x):
    """A number as the writer writes it: the shortest text that reads back as the same double,
    never ``-0``.

    Args:
        x: the number.

    Returns:
        str: its text.
    """
    return repr(float(x) + 0.0)


def _checked_theta(theta, layout):
    try:
        theta = np.asarray(theta, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError(f"theta must be {layout.size} numbers, got {theta!r}") from None
    if theta.shape != (layout.size,):
        raise InvalidInputError(
            f"theta has shape {theta.shape}, the layout has {layout.size} parameters "
            f"({layout.nb} bodies x 10, then the per-joint columns of "
            f"{', '.join(layout.groups) or 'no group'})"
        )
    bad = np.flatnonzero(~np.isfinite(theta))
    if bad.size:
        raise InvalidInputError(f"theta: {layout.names[bad[0]]} is {theta[bad[0]]}")
    masses = theta[: layout.n_inertial : 10]
    bad = np.flatnonzero(masses < 0.0)
    if bad.size:
        raise InvalidInputError(
            f"theta: {layout.names[10 * bad[0]]} is {masses[bad[0]]} (a mass is >= 0 kg)"
        )
    return theta


def _require(elements, names, kind):
    missing = [name for name in names if name not in elements]
    if missing:
        raise URDFError(
            f"the URDF text has no {kind} {', '.join(map(repr, missing))} of the model: write "
            "into the URDF the model was built from"
        )


def _clean(values):
    values = np.asarray(values, dtype=float)
    scale = np.abs(values).max(initial=0.0)
    return np.where(np.abs(values) <= NEGLIGIBLE * scale, 0.0, values)


# ------------------------------------------------------------------ where the elements are
# a start tag from its '<': the name, the attributes (values may hold '>'), '/>' or '>'
_START_TAG = re.compile(rb"<[^\s/>]+(?:\s+[^\s=]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*(/?)>")


@dataclass
class _Element:
    """Where an element of the document is (byte offsets of its UTF-8 text).

    Attributes:
        tag: its name.
        attributes: ``(name, value)`` pairs in document order.
        start: offset of its ``<``.
        open_end: offset after its start tag's ``>``.
        empty: written ``<x .../>``.
        end: offset after its last ``>``.
        children: its child elements (of the root and of the root's children only).
    """

    tag: str
    attributes: list
    start: int
    open_end: int
    empty: bool
    end: int = -1
    children: list = field(default_factory=list)

    @property
    def name(self):
        """str: its ``name`` attribute (None without)."""
        return dict(self.attributes).get("name")

    def find_all(self, tag):
        """list: its children called ``tag``."""
        return [child for child in self.children if child.tag == tag]


def _parse(data):
    """The root element, its children and theirs (the ``<link>``'s ``<inertial>``)."""
    parser = expat.ParserCreate(encoding="utf-8")
    parser.ordered_attributes = True
    stack, top = [], []

    def start(tag, attributes):
        index = parser.CurrentByteIndex
        match = _START_TAG.match(data, index)
        pairs = list(zip(attributes[::2], attributes[1::2]))
        element = _Element(tag, pairs, index, match.end(), bool(match[1]))
        if not stack:
            top.append(element)
        elif len(stack) < 3:  # the root's children and theirs
            stack[-1].children.append(element)
        stack.append(element)

    def end(tag):
        element = stack.pop()
        index = parser.CurrentByteIndex
        element.end = element.open_end if element.empty else data.index(b">", index) + 1

    parser.StartElementHandler, parser.EndElementHandler = start, end
    try:
        parser.Parse(data, True)
    except expat.ExpatError as err:
        raise URDFError(
            f"malformed URDF XML at line {err.lineno}, column {err.offset}: "
            f"{expat.ErrorString(err.code)}"
        ) from None
    (root,) = top
    if root.tag != "robot":
        raise URDFError(f"URDF root element must be <robot>, found <{root.tag}>")
    return root


def _line_indent(data, offset):
    """The white space from the start of the line to ``offset``, None when something else is
    on the line before it."""
    begin = data.rfind(b"\n", 0, offset) + 1
    before = data[begin:offset]
    return before.decode() if not before.strip(b" \t") else None


def _indent_unit(data, root):
    """One level of indentation: the first link's child's less the link's (else two spaces)."""
    for link in root.children:
        if link.children:
            outer = _line_indent(data, link.start)
            inner = _line_indent(data, link.children[0].start)
            if (
                outer is not None
                and inner is not None
                and inner.startswith(outer)
                and inner != outer
            ):
                return inner[len(outer) :]
    return "  "


class _Document:
    """Edits of the text: (begin, end, replacement), applied at once by :meth:`edited`."""

    def __init__(self, data, unit):
        self.data, self.unit, self.edits = data, unit, []

    def edited(self):
        """str: the text with every edit."""
        pieces, done = [], 0
        for begin, end, text in sorted(self.edits, key=lambda edit: edit[:2]):
            pieces += [self.data[done:begin], text.encode("utf-8")]
            done = end
        pieces.append(self.data[done:])
        return b"".join(pieces).decode("utf-8")

    def remove(self, element):
        """Remove an element, with its line when it is alone on it."""
        begin, end = element.start, element.end
        indent = _line_indent(self.data, begin)
        after = len(self.data[end:]) - len(self.data[end:].lstrip(b" \t"))
        if indent is not None and self.data[end + after : end + after + 1] == b"\n":
            begin, end = begin - len(indent), end + after + 1
        self.edits.append((begin, end, ""))

    def put_inertial(self, link, mass, com, inertia):
        """The link's ``<inertial>`` in place of its first one (first in a link without one),
        the others removed."""

        def make(indent):
            parts = [
                f'<origin xyz="{" ".join(number_text(c) for c in com)}" rpy="0 0 0"/>',
                f'<mass value="{number_text(mass)}"/>',
                "<inertia "
                + " ".join(
                    f'{key}="{number_text(inertia[i, j])}"'
                    for key, (i, j) in zip(
                        ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"),
                        ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)),
                    )
                )
                + "/>",
            ]
            if indent is None:
                return "<inertial>" + "".join(parts) + "</inertial>"
            inner = "\n" + indent + self.unit
            return "<inertial>" + "".join(inner + p for p in parts) + "\n" + indent + "</inertial>"

        olds = link.find_all("inertial")
        for old in olds[1:]:
            self.remove(old)
        if olds:
            old = olds[0]
            self.edits.append((old.start, old.end, make(_line_indent(self.data, old.start))))
        else:
            self._insert(link, make, first=True)

    def set_attributes(self, parent, tag, values):
        """Set attributes of the parent's first child ``tag`` (a new last child without one)."""
        found = parent.find_all(tag)
        if not found:
            attributes = "".join(f" {key}={_quoted(value)}" for key, value in values.items())
            self._insert(parent, lambda indent: f"<{tag}{attributes}/>", first=False)
            return
        element = found[0]
        merged = dict(element.attributes)
        merged.update(values)
        attributes = "".join(f" {key}={_quoted(value)}" for key, value in merged.items())
        closing = "/>" if element.empty else ">"
        self.edits.append((element.start, element.open_end, f"<{tag}{attributes}{closing}"))

    def _insert(self, parent, make, first):
        """Put the element ``make(indent)`` makes first or last in ``parent``, on a line of its
        own when the parent's children are (``indent`` None: on the line it is on)."""
        data = self.data
        if parent.children:
            neighbour = parent.children[0] if first else parent.children[-1]
            indent = _line_indent(data, neighbour.start)
            at = parent.open_end if first else neighbour.end
            text = make(indent) if indent is None else "\n" + indent + make(indent)
            self.edits.append((at, at, text))
            return
        outer = _line_indent(data, parent.start)
        inner = None if outer is None else outer + self.unit
        text = make(inner) if inner is None else "\n" + inner + make(inner) + "\n" + outer
        if parent.empty:  # <link .../> becomes <link ...>...</link>
            tag = re.sub(rb"\s*/>\Z", b">", data[parent.start : parent.open_end]).decode("utf-8")
            self.edits.append((parent.start, parent.open_end, f"{tag}{text}</{parent.tag}>"))
            return
        if inner is not None and data[parent.open_end :].lstrip(b" \t").startswith(b"\n"):
            text = text[: -len("\n" + outer)]  # the closing tag is on a line of its own already
        self.edits.append((parent.open_end, parent.open_end, text))


def _quoted(value):
    escaped = (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace('"', "&quot;")
        .replace("\n", "&#10;")
        .replace("\t", "&#9;")
    )
    return f'"{escaped}"'


__all__ = ["NEGLIGIBLE", "identified_urdf", "number_text"]
