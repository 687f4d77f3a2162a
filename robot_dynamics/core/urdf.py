"""Read a URDF into plain, validated data: the links' inertias and the joints.

The XML is read with :mod:`xml.etree.ElementTree` and only what dynamics uses is looked at
(``<link>/<inertial>`` and ``<joint>`` with its ``origin``, ``axis``, ``limit``, ``dynamics`` and
``mimic``); ``<visual>``, ``<collision>``, ``<transmission>``, ``<gazebo>`` and vendor elements
are never parsed, so they cannot stop a model from loading. Reading has no global state and no
side effect (no error hooks, no redirected streams): it is safe from any thread.

Every number is validated here, once, when the model is built; a value that no physical robot
has raises :class:`~robot_dynamics.core.errors.InvalidURDFValueError` naming the link or joint
and the field:

- every number finite (joint and inertial origins ``xyz``/``rpy``, axes, masses, inertias,
  limits, dynamics, mimic coefficients);
- lengths (``origin xyz`` of joints and inertials) at most :data:`MAX_LENGTH` m in magnitude;
- masses in ``[0, MAX_MASS]`` kg; inertia entries at most :data:`MAX_INERTIA` kg m^2 in
  magnitude. Physical consistency (positive semi-definite, triangle inequality) is judged on
  what the dynamics uses, by :mod:`robot_dynamics.core.inertia`: a moving body whose composite
  inertia is indefinite and makes M(q) indefinite is refused; a link tensor that is not
  consistent on its own, or an indefinite body that leaves M(q) positive, loads with a warning
  (``strict_inertia`` refuses it); ``balance_inertia=True``
  replaces each such tensor by a balanced one, as MuJoCo's ``balanceinertia`` does, and lists
  every change in :attr:`RobotDescription.adjustments`;
- joint axes of movable joints of non-zero length (fixed joints may have any finite axis);
- ``<limit>``: ``effort`` and ``velocity`` required, finite and >= 0; ``lower``/``upper`` finite
  (URDF default 0);
- ``<dynamics>`` damping and friction at most :data:`MAX_FRICTION`;
- ``<mimic>`` multiplier and offset at most :data:`MAX_MIMIC` in magnitude.

What is not physical in a joint's element but leaves the rigid-body numbers meaningful loads
otherwise, with a :class:`~robot_dynamics.core.joint_warnings.JointWarning` (in
:attr:`RobotDescription.joint_warnings`; the model's joints' in ``RobotModel.joint_warnings``)
saying what the model does instead: a negative damping or friction loads as 0
(``negative_damping``, ``negative_friction``); a revolute or prismatic ``<limit>`` with
``lower > upper`` loads without position limits (``inverted_limits``); an ``effort`` or
``velocity`` of 0 (what CAD exporters and ROS-Industrial descriptions write when the limit is not
known) loads as no such limit (``zero_limit``); a revolute or prismatic joint without the
``<limit>`` the URDF requires loads without limits (``missing_limit``).

These bounds keep every product the algorithms form finite for joint inputs within
``robot_dynamics.core.validation.MAX_INPUT``. The document may have at most ``max_links`` links
and joints (:data:`MAX_LINKS` by default; :class:`~robot_dynamics.core.errors.ModelTooLargeError`
beyond), checked right after the XML parse, so reading and refusing take time and memory linear
in the size of the text.
"""

import codecs
import math
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from .errors import (
    InvalidURDFValueError,
    KinematicTreeError,
    ModelTooLargeError,
    UnsupportedJointError,
    URDFError,
)
from .inertia import (
    INERTIA_ATOL,
    INERTIA_RTOL,
    INERTIA_WITHOUT_MASS,
    LARGE_INERTIA,
    MAX_GYRATION_RADIUS,
    POINT_MASS,
    balanced_inertia,
    inertia_inconsistency,
    link_rule,
)
from .spatial import homogeneous, rpy_to_matrix, spatial_inertia
from .joint_warnings import (
    INVERTED_LIMITS,
    MISSING_LIMIT,
    NEGATIVE_DAMPING,
    NEGATIVE_FRICTION,
    ZERO_LIMIT,
    JointWarning,
)
from .tree import FREE_JOINTS

#: Default bound on the number of links (and of joints) of a URDF document.
MAX_LINKS = 1000
#: |x| bound of lengths [m]: joint and inertial origins.
MAX_LENGTH = 1e3
#: Upper bound of a link mass [kg].
MAX_MASS = 1e6
#: |x| bound of inertia tensor entries [kg m^2].
MAX_INERTIA = 1e6
#: Upper bound of <dynamics> damping [N m s/rad, N s/m] and friction [N m, N].
MAX_FRICTION = 1e6
#: |x| bound of <mimic> multiplier and offset.
MAX_MIMIC = 1e3

SUPPORTED_JOINTS = ("revolute", "continuous", "prismatic", "fixed")


@dataclass(frozen=True, eq=False)
class LinkData:
    """A link as dynamics reads it.

    Attributes:
        name: link name.
        inertia: (6, 6) spatial inertia about the link-frame origin, link axes.
    """

    name: str
    inertia: np.ndarray


@dataclass(frozen=True, eq=False)
class JointData:
    """A joint as dynamics reads it.

    Attributes:
        name: joint name.
        type: "revolute", "continuous", "prismatic" or "fixed"; "floating" or "planar" (only
            their links and origin read: a model refuses them below its base link).
        parent: parent link name.
        child: child link name.
        origin: (4, 4) joint frame in the parent link frame [m].
        axis: (3,) unit axis in the joint frame (movable joints; fixed joints keep the file's
            finite axis).
        lower: lower position limit [rad or m] (-inf without ``<limit>`` and for continuous
            joints).
        upper: upper position limit [rad or m] (inf without ``<limit>`` and for continuous
            joints).
        velocity: velocity limit [rad/s or m/s], inf without ``<limit>``.
        effort: effort limit [N m or N], inf without ``<limit>``.
        damping: viscous friction [N m s/rad or N s/m].
        friction: Coulomb friction [N m or N].
        mimic: ``(driver joint, multiplier, offset)`` or None.
    """

    name: str
    type: str
    parent: str
    child: str
    origin: np.ndarray
    axis: np.ndarray
    lower: float
    upper: float
    velocity: float
    effort: float
    damping: float
    friction: float
    mimic: tuple = None


@dataclass(frozen=True, eq=False)
class RobotDescription:
    """The links and joints of a URDF document, in file order, every number validated.

    Attributes:
        name: robot name.
        links: tuple of :class:`LinkData`.
        joints: tuple of :class:`JointData`.
        adjustments: one message per inertia changed by ``balance_inertia`` (link, before,
            after); empty otherwise.
        inconsistent_inertias: ``(link name, (3, 3) rotational inertia about its centre of
            mass)`` of every link tensor, as the file gives it, that is not physically
            consistent on its own (:func:`~robot_dynamics.core.inertia.link_rule`; judged with
            the tree by :func:`~robot_dynamics.core.inertia.check_inertias`); empty with
            ``balance_inertia``.
        joint_warnings: :class:`~robot_dynamics.core.joint_warnings.JointWarning` of every
            joint loaded otherwise than its element says (a negative damping or friction,
            ``lower > upper``, an effort or velocity limit of 0), in file order.
        inertial_notes: ``(link name, rule, detail)`` of every ``<inertial>`` that a rigid
            body cannot quite be (no ``<inertia>``, inertia without mass, an inertia metres
            across for its mass: :data:`~robot_dynamics.core.inertia.POINT_MASS` and the
            others), in file order (judged with the tree by
            :func:`~robot_dynamics.core.inertia.check_inertias`).
    """

    name: str
    links: tuple
    joints: tuple
    adjustments: tuple = ()
    inconsistent_inertias: tuple = ()
    joint_warnings: tuple = ()
    inertial_notes: tuple = ()


def read_urdf_file(path):
    """The text of a URDF file.

    Args:
        path: the file (str or ``os.PathLike``).

    Returns:
        str: the file's text (UTF-8, or the encoding its XML declaration names).

    Raises:
        URDFError: not a path, no such file, unreadable, not in its encoding (names the path).
    """
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise URDFError(f"a URDF file path must be a str or a path, got {type(path).__name__}")
    if "\x00" in path or not os.path.isfile(path):
        raise URDFError(f"no URDF file {path!r}")
    try:
        with open(path, "rb") as handle:
            return decode_xml(handle.read())
    except (OSError, UnicodeDecodeError, LookupError) as err:
        raise URDFError(f"cannot read the URDF file {path!r}: {err}") from None


_DECLARED_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def decode_xml(data):
    """Bytes of XML as text, in the encoding its declaration names (``<?xml version="1.0"
    encoding="ISO-8859-1"?>``, as urdfdom and Pinocchio read it), else UTF-8; a UTF-8
    byte-order mark dropped.

    Args:
        data: the bytes.

    Returns:
        str: the text.

    Raises:
        UnicodeDecodeError: not text in that encoding.
        LookupError: an encoding Python does not know.
    """
    declared = _DECLARED_ENCODING.match(data.removeprefix(codecs.BOM_UTF8))
    encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    if codecs.lookup(encoding).name == "utf-8":
        encoding = "utf-8-sig"
    return data.decode(encoding)


def urdf_text(text):
    """URDF XML text, checked to be text that starts as XML.

    Args:
        text: URDF XML (str, or bytes: UTF-8 or the encoding the XML declaration names).

    Returns:
        str: the text without surrounding white space.

    Raises:
        URDFError: another type, not in its encoding, empty, or not starting with ``<`` (a file
            path given as text, say).
    """
    if isinstance(text, bytes):
        try:
            text = decode_xml(text)
        except (UnicodeDecodeError, LookupError) as err:
            raise URDFError(f"robot description is not text in its encoding: {err}") from None
    if not isinstance(text, str):
        raise URDFError(f"robot description must be URDF XML text, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise URDFError("robot description is empty")
    if not text.startswith("<"):
        raise URDFError(
            f"robot description is not URDF XML text (it does not start with '<'; a file is "
            f"read with RobotModel.from_urdf_file): {text[:60]!r}"
        )
    return text


def _local(tag):
    """An element's name without its namespace (``{http://drake.mit.edu}robot`` -> ``robot``)."""
    return tag.rpartition("}")[2]


def _parse_xml(text, max_links):
    """The ``<robot>`` element; refuses more than max_links links or joints while parsing, so
    an oversized document costs no more than max_links elements of it. A default namespace
    (``<robot xmlns="http://drake.mit.edu">``, which urdfdom ignores) is taken off the names of
    the elements in it."""
    parser = ET.XMLPullParser(events=("start", "end"))
    counts = {"link": 0, "joint": 0}
    depth = 0
    root, namespace = None, ""
    try:
        for begin in range(0, len(text), _CHUNK):
            parser.feed(text[begin : begin + _CHUNK])
            for event, element in parser.read_events():
                if event == "end":
                    depth -= 1
                    continue
                depth += 1
                if depth == 1:
                    if _local(element.tag) != "robot":
                        raise URDFError(f"URDF root element must be <robot>, found <{element.tag}>")
                    root = element
                    namespace = element.tag[: -len("robot")]
                if namespace and element.tag.startswith(namespace):
                    element.tag = element.tag[len(namespace) :]
                if depth == 2 and element.tag in counts:
                    counts[element.tag] += 1
                    if counts[element.tag] > max_links:
                        raise ModelTooLargeError(
                            f"the URDF has more than max_links = {max_links} "
                            f"{element.tag}s; raise max_links to load it"
                        )
        parser.close()
    except ET.ParseError as err:
        line, column = err.position
        raise URDFError(f"malformed URDF XML at line {line}, column {column}: {err}") from None
    return root


_CHUNK = 1 << 16


def _check_names(elements, kind):
    seen = set()
    for element in elements:
        name = element.get("name")
        if not name:
            raise KinematicTreeError(f"a <{kind}> element has no name attribute")
        if name in seen:
            raise KinematicTreeError(f"duplicate {kind} name {name!r} in the URDF")
        seen.add(name)


# ------------------------------------------------------------------------------ numbers
def _bad(owner, field, problem):
    return InvalidURDFValueError(f"{owner} {field}: {problem}")


def _floats(element, attribute, owner, field, size, default=None):
    """``size`` finite floats from a space-separated attribute (or ``default`` when absent)."""
    raw = None if element is None else element.get(attribute)
    if raw is None:
        if default is None:
            raise URDFError(f"{owner} {field}: required attribute is missing")
        return list(default)
    try:
        values = [float(x) for x in raw.split()]
    except ValueError:
        if "$(" in raw or "${" in raw:  # a xacro argument or property left in
            raise _bad(
                owner,
                field,
                f"{raw!r} is an unexpanded xacro substitution: expand the description with the "
                "xacro tool first (xacro robot.urdf.xacro > robot.urdf)",
            ) from None
        raise _bad(owner, field, f"{raw!r} is not a list of numbers") from None
    if len(values) != size:
        raise _bad(owner, field, f"{raw!r} has {len(values)} values, expected {size}")
    if not all(map(math.isfinite, values)):
        raise _bad(owner, field, f"{raw!r} is not finite")
    return values


def _float(element, attribute, owner, field, default=None, low=None, high=None):
    value = _floats(element, attribute, owner, field, 1, default=default)[0]
    if low is not None and value < low:
        raise _bad(owner, field, f"{value} is below the minimum {low}")
    if high is not None and value > high:
        raise _bad(owner, field, f"{value} is above the maximum {high:g}")
    return value


def _origin(element, owner):
    """4x4 placement from an ``<origin xyz rpy>`` child of element (identity when absent)."""
    origin = None if element is None else element.find("origin")
    if origin is None:
        return np.eye(4)
    xyz = _floats(origin, "xyz", owner, "<origin xyz>", 3, default=(0.0, 0.0, 0.0))
    rpy = _floats(origin, "rpy", owner, "<origin rpy>", 3, default=(0.0, 0.0, 0.0))
    if max(map(abs, xyz)) > MAX_LENGTH:
        raise _bad(owner, "<origin xyz>", f"{xyz} is beyond {MAX_LENGTH:g} m")
    return homogeneous(rpy_to_matrix(rpy), np.array(xyz))


def check_inertia_tensor(I, owner, field="<inertia>", physical=True):
    """Refuse an inertia tensor that is not finite, symmetric-bounded, positive semi-definite or
    that violates the triangle inequality (the link rule of
    :func:`~robot_dynamics.core.inertia.inertia_inconsistency`).

    Args:
        I: (3, 3) rotational inertia [kg m^2].
        owner: name of the link (or "payload") for the message.
        field: name of the field for the message.
        physical: also check positive semi-definiteness and the triangle inequality.

    Returns:
        ndarray: the tensor as a (3, 3) float array.

    Raises:
        InvalidURDFValueError: names ``owner`` and ``field`` and the violated rule.
    """
    I = np.asarray(I, dtype=float)
    if I.shape != (3, 3) or not np.all(np.isfinite(I)):
        raise _bad(owner, field, "must be a finite (3, 3) matrix")
    if np.max(np.abs(I)) > MAX_INERTIA:
        raise _bad(
            owner,
            field,
            f"entries beyond {MAX_INERTIA:g} kg m^2 (lengths in millimetres, or g mm^2 or kg "
            "mm^2 exported as kg m^2?)",
        )
    if np.max(np.abs(I - I.T)) > _inertia_tolerance(I):
        raise _bad(owner, field, "is not symmetric")
    problem = inertia_inconsistency(I) if physical else None
    if problem is not None:
        raise _bad(owner, field, problem)
    return I


def _inertia_tolerance(I):
    return INERTIA_RTOL * abs(float(np.trace(I))) + INERTIA_ATOL


def _link(element, balance, adjustments, inconsistent, notes):
    """The link's data; an inertia tensor that breaks the link rule is balanced (``balance``,
    noted in ``adjustments``) or appended to ``inconsistent`` as ``(name, tensor)``; what a
    rigid body cannot quite be is appended to ``notes`` (:func:`_inertial_notes`)."""
    name = element.get("name")
    owner = f"link {name!r}"
    inertial = element.find("inertial")
    if inertial is None:
        return LinkData(name, np.zeros((6, 6)))
    mass = _float(inertial.find("mass"), "value", owner, "<mass value>", low=0.0, high=MAX_MASS)
    T = _origin(inertial, f"{owner} <inertial>")
    i = inertial.find("inertia")
    if i is None:
        I_in = np.zeros((3, 3))
        if mass > 0.0:
            notes.append(
                (name, POINT_MASS, f"has no <inertia>: loaded as a point mass of {mass:g} kg "
                 "(urdfdom refuses such a link)")
            )  # fmt: skip
    else:
        v = {k: _float(i, k, owner, f"<inertia {k}>") for k in _INERTIA_KEYS}
        I_in = np.array(
            [
                [v["ixx"], v["ixy"], v["ixz"]],
                [v["ixy"], v["iyy"], v["iyz"]],
                [v["ixz"], v["iyz"], v["izz"]],
            ]
        )
        check_inertia_tensor(I_in, owner, physical=False)
        if link_rule(I_in) is not None:
            if balance:
                before = np.linalg.eigvalsh(I_in)
                I_in = balanced_inertia(I_in)
                adjustments.append(
                    f"{owner}: inertia balanced, principal moments "
                    f"{np.array2string(before, precision=4)} -> "
                    f"{np.array2string(np.linalg.eigvalsh(I_in), precision=4)} kg m^2"
                )
            else:
                inconsistent.append((name, I_in))
        notes.extend(_inertial_notes(name, mass, I_in))
    R = T[:3, :3]
    return LinkData(name, spatial_inertia(mass, T[:3, 3], R @ I_in @ R.T))


_INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def _inertial_notes(name, mass, I):
    """``(name, rule, detail)`` of a rotational inertia without mass, or one so large for its
    mass (radius of gyration over ``MAX_GYRATION_RADIUS``) that units are the likely cause."""
    largest = float(np.max(np.abs(np.linalg.eigvalsh(I))))
    if largest == 0.0:
        return []
    if mass == 0.0:
        return [
            (
                name,
                INERTIA_WITHOUT_MASS,
                f"has mass 0 but a rotational inertia of "
                f"{largest:.3g} kg m^2: loaded as given (no mass distribution has it)",
            )
        ]
    radius = math.sqrt(largest / mass)
    if radius <= MAX_GYRATION_RADIUS:
        return []
    return [(name, LARGE_INERTIA, f"has {largest:.3g} kg m^2 for {mass:g} kg: the inertia of "
             f"a body {2 * radius:.3g} m across; kg cm^2 or kg mm^2 exported as kg m^2, or a "
             "placeholder? loaded as given")]  # fmt: skip


def _link_name(joint, role, owner):
    element = joint.find(role)
    name = None if element is None else element.get("link")
    if not name:
        raise URDFError(f"{owner} has no <{role} link=...>")
    return name


def _joint(element, warnings):
    name = element.get("name")
    owner = f"joint {name!r}"
    jtype = element.get("type")
    if jtype not in SUPPORTED_JOINTS + FREE_JOINTS:
        raise UnsupportedJointError(f"joint {name!r} has unknown type {jtype!r}")
    parent = _link_name(element, "parent", owner)
    child = _link_name(element, "child", owner)
    origin = _origin(element, owner)
    if jtype in FREE_JOINTS:  # build_tree loads it as a fixed joint at its origin
        inf, axis = math.inf, np.array([1.0, 0.0, 0.0])
        return JointData(name, jtype, parent, child, origin, axis, -inf, inf, inf, inf, 0.0, 0.0)
    axis = np.array(
        _floats(element.find("axis"), "xyz", owner, "<axis xyz>", 3, default=(1.0, 0.0, 0.0))
    )
    if jtype != "fixed":
        scale = float(np.max(np.abs(axis)))
        if scale == 0.0 or not np.isfinite(np.linalg.norm(axis / scale)):
            raise _bad(owner, "<axis xyz>", f"{axis.tolist()} has zero length")
        axis = axis / scale
        axis = axis / np.linalg.norm(axis)
    lower, upper, velocity, effort = -math.inf, math.inf, math.inf, math.inf
    limit = element.find("limit")
    if limit is None and jtype in ("revolute", "prismatic"):
        warnings.append(
            JointWarning(
                name,
                MISSING_LIMIT,
                f"a {jtype} joint without <limit> (required; urdfdom and robot_state_publisher "
                "refuse it): loaded without position, velocity or effort limits",
            )
        )
    if limit is not None:
        effort = _float(limit, "effort", owner, "<limit effort>", low=0.0)
        velocity = _float(limit, "velocity", owner, "<limit velocity>", low=0.0)
        if jtype != "fixed" and 0.0 in (effort, velocity):
            warnings.append(_zero_limit(name, effort, velocity))
            effort, velocity = (math.inf if x == 0.0 else x for x in (effort, velocity))
        lo = _float(limit, "lower", owner, "<limit lower>", default=(0.0,))
        hi = _float(limit, "upper", owner, "<limit upper>", default=(0.0,))
        if jtype in ("revolute", "prismatic"):
            if lo > hi:
                warnings.append(
                    JointWarning(
                        name,
                        INVERTED_LIMITS,
                        f"<limit> lower {lo:g} > upper {hi:g}: loaded without position limits",
                    )
                )
            else:
                lower, upper = lo, hi
    damping = friction = 0.0
    dynamics = element.find("dynamics")
    if dynamics is not None:
        damping, friction = (
            _friction_coefficient(dynamics, field, name, rule, warnings)
            for field, rule in (("damping", NEGATIVE_DAMPING), ("friction", NEGATIVE_FRICTION))
        )
    mimic = None
    mimic_element = element.find("mimic")
    if mimic_element is not None and jtype != "fixed":
        driver = mimic_element.get("joint")
        if not driver:
            raise URDFError(f"{owner} <mimic> has no joint attribute")
        multiplier = _float(
            mimic_element, "multiplier", owner, "<mimic multiplier>", (1.0,), -MAX_MIMIC, MAX_MIMIC
        )
        offset = _float(
            mimic_element, "offset", owner, "<mimic offset>", (0.0,), -MAX_MIMIC, MAX_MIMIC
        )
        mimic = (driver, multiplier, offset)
    return JointData(
        name=name,
        type=jtype,
        parent=parent,
        child=child,
        origin=origin,
        axis=axis,
        lower=lower,
        upper=upper,
        velocity=velocity,
        effort=effort,
        damping=damping,
        friction=friction,
        mimic=mimic,
    )


def _zero_limit(name, effort, velocity):
    """The :class:`~robot_dynamics.core.joint_warnings.JointWarning` of a ``<limit>`` with an
    effort or velocity of 0: no joint that moves has it, so it is loaded as no such limit."""
    fields = [field for field, value in (("effort", effort), ("velocity", velocity)) if value == 0]
    said = " ".join(f'{field}="0"' for field in fields)
    instead = " and no ".join(fields)
    return JointWarning(name, ZERO_LIMIT, f"<limit {said}>: loaded as no {instead} limit")


def _friction_coefficient(dynamics, field, name, rule, warnings):
    """A ``<dynamics>`` coefficient of joint ``name``: at most :data:`MAX_FRICTION` in magnitude;
    a negative one is 0, with a :class:`~robot_dynamics.core.joint_warnings.JointWarning`."""
    owner = f"joint {name!r}"
    value = _float(
        dynamics, field, owner, f"<dynamics {field}>", (0.0,), -MAX_FRICTION, MAX_FRICTION
    )
    if value >= 0.0:
        return value
    warnings.append(
        JointWarning(name, rule, f"<dynamics {field}> {value:g} is negative: loaded as 0")
    )
    return 0.0


def _xacro_elements(root):
    """Sorted local names of the elements in a xacro namespace (a URI ending in ``xacro``:
    ``http://www.ros.org/wiki/xacro``, ``http://wiki.ros.org/xacro``)."""
    names = set()
    for element in root.iter():
        namespace, _, local = element.tag[1:].partition("}")
        if element.tag.startswith("{") and namespace.rstrip("/").endswith("xacro"):
            names.add(local)
    return sorted(names)


def _refuse_xacro(root, elements):
    """KinematicTreeError for an unexpanded xacro file: elements in a xacro namespace (the xacro
    tool leaves none), or a link or joint named by a substitution (``$(arg prefix)``, ``${}``)."""
    xacro = _xacro_elements(root)
    named = [e.get("name", "") for e in elements if re.search(r"\$[({]", e.get("name", ""))]
    if not xacro and not named:
        return
    what = f"xacro elements ({', '.join(xacro)})" if xacro else f"names such as {named[0]!r}"
    raise KinematicTreeError(
        f"the URDF is an unexpanded xacro file, with {what}: expand it with the xacro tool "
        "first (xacro robot.urdf.xacro name:=value > robot.urdf; the launch files and the CLI "
        "take .xacro files and their arguments)"
    )


def parse_urdf(text, max_links=MAX_LINKS, balance_inertia=False):
    """Read URDF text into a :class:`RobotDescription`, validating every number.

    Args:
        text: URDF XML text (str, or UTF-8 bytes; :func:`read_urdf_file` reads a file).
        max_links: the largest number of links (and of joints) accepted.
        balance_inertia: replace link inertias that are not positive semi-definite or violate
            the triangle inequality by :func:`~robot_dynamics.core.inertia.balanced_inertia`
            (each change listed in ``adjustments``) instead of listing them in
            ``inconsistent_inertias``.

    Returns:
        RobotDescription: links and joints in file order.

    Raises:
        URDFError: not XML text, malformed XML, not a ``<robot>``, a required attribute
            missing.
        ModelTooLargeError: more than ``max_links`` links or joints.
        KinematicTreeError: duplicate or missing names; an unexpanded xacro file (xacro
            elements, or a link or joint named by a substitution).
        UnsupportedJointError: unknown joint types (floating and planar joints are read;
            ``build_tree`` loads them as fixed joints, with a warning).
        InvalidURDFValueError: a number outside its valid range (see the module doc).
    """
    if not (isinstance(max_links, int) and max_links >= 1):
        raise URDFError(f"max_links must be an integer >= 1, got {max_links!r}")
    root = _parse_xml(urdf_text(text), max_links)
    links = root.findall("link")
    joints = root.findall("joint")
    _refuse_xacro(root, links + joints)
    _check_names(links, "link")
    _check_names(joints, "joint")
    adjustments, inconsistent, joint_warnings, notes = [], [], [], []
    return RobotDescription(
        name=root.get("name", ""),
        links=tuple(
            _link(link, balance_inertia, adjustments, inconsistent, notes) for link in links
        ),
        joints=tuple(_joint(joint, joint_warnings) for joint in joints),
        adjustments=tuple(adjustments),
        inconsistent_inertias=tuple(inconsistent),
        joint_warnings=tuple(joint_warnings),
        inertial_notes=tuple(notes),
    )
