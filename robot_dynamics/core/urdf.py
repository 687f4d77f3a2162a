"""Read a URDF into the plain-data :class:`~robot_dynamics.core.tree.KinematicTree`.

The XML is parsed with ``urdf_parser_py`` (``urdfdom_py`` in ROS). Real-world files sometimes
carry ``<transmission>``, ``<material>``, ``<visual>`` or vendor elements that urdf_parser_py
rejects although ROS tools accept them; dynamics needs none of those, so when the full parse
fails they are stripped, a :class:`URDFWarning` says what was dropped, and parsing continues.
"""

import contextlib
import io
import os
import warnings
import xml.etree.ElementTree as ET

import numpy as np

from .errors import KinematicTreeError, URDFError, UnsupportedJointError
from .spatial import homogeneous, rpy_to_matrix, spatial_inertia


class URDFWarning(UserWarning):
    """Something in the URDF was ignored or repaired; the model was built anyway."""


#: Joint children that dynamics reads; everything else in a joint is dropped on fallback.
_JOINT_KEEP = {
    "parent",
    "child",
    "origin",
    "axis",
    "limit",
    "dynamics",
    "mimic",
    "calibration",
    "safety_controller",
}


def read_urdf_text(source):
    """Return URDF XML text from an XML string, a path to a file, or a ``pathlib.Path``."""
    if isinstance(source, bytes):
        source = source.decode("utf-8")
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if not isinstance(source, str):
        raise URDFError(
            f"robot description must be URDF XML text or a file path, got {type(source).__name__}"
        )
    text = source.strip()
    if text.startswith("<"):
        return text
    if not text:
        raise URDFError("robot description is empty")
    if not os.path.isfile(text):
        raise URDFError(f"robot description is neither URDF XML nor an existing file: {text!r}")
    with open(text, encoding="utf-8") as handle:
        return handle.read()


def _parse_xml(text):
    try:
        root = ET.fromstring(text)
    except ET.ParseError as err:
        line, column = err.position
        raise URDFError(f"malformed URDF XML at line {line}, column {column}: {err}") from None
    if root.tag != "robot":
        raise URDFError(f"URDF root element must be <robot>, found <{root.tag}>")
    return root


def _check_names(root):
    for kind in ("link", "joint"):
        seen = set()
        for element in root.findall(kind):
            name = element.get("name")
            if not name:
                raise KinematicTreeError(f"a <{kind}> element has no name attribute")
            if name in seen:
                raise KinematicTreeError(f"duplicate {kind} name {name!r} in the URDF")
            seen.add(name)


def _strip_unused(root):
    """Drop every element dynamics does not read; return the tags dropped."""
    dropped = set()
    for child in list(root):
        if child.tag not in ("link", "joint"):
            dropped.add(child.tag)
            root.remove(child)
    for link in root.findall("link"):
        for child in list(link):
            if child.tag != "inertial":
                dropped.add(f"link/{child.tag}")
                link.remove(child)
    for joint in root.findall("joint"):
        for child in list(joint):
            if child.tag not in _JOINT_KEEP:
                dropped.add(f"joint/{child.tag}")
                joint.remove(child)
    return sorted(dropped)


def _urdf_parser_parse(text):
    """Parse with urdf_parser_py, collecting its complaints instead of printing them."""
    from urdf_parser_py import urdf as urdf_module
    from urdf_parser_py.xml_reflection import core as reflection

    complaints = []
    previous = reflection.on_error
    reflection.on_error = complaints.append
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            robot = urdf_module.URDF.from_xml_string(text)
    finally:
        reflection.on_error = previous
    return robot, complaints


def parse_urdf(source):
    """Parse URDF text or a file into a ``urdf_parser_py`` robot, tolerating unused elements.

    Raises :class:`URDFError` (malformed XML, a required dynamics attribute missing) or
    :class:`KinematicTreeError` (duplicate names). Warns with :class:`URDFWarning` when parts
    of the file that dynamics does not use had to be dropped.
    """
    text = read_urdf_text(source)
    root = _parse_xml(text)
    _check_names(root)
    try:
        robot, _ = _urdf_parser_parse(text)
        return robot
    except Exception as first_error:  # noqa: BLE001 - urdf_parser_py raises many kinds
        dropped = _strip_unused(root)
        try:
            robot, _ = _urdf_parser_parse(ET.tostring(root, encoding="unicode"))
        except Exception as err:  # noqa: BLE001
            raise URDFError(f"cannot read the URDF's links and joints: {err}") from None
        warnings.warn(
            f"urdf_parser_py rejected the full URDF ({first_error}); ignored elements that "
            f"dynamics does not use: {', '.join(dropped) or 'none'}",
            URDFWarning,
            stacklevel=3,
        )
        return robot


def _origin(element):
    if element is None or element.origin is None:
        return np.eye(4)
    xyz = element.origin.xyz if element.origin.xyz is not None else (0.0, 0.0, 0.0)
    rpy = element.origin.rpy if element.origin.rpy is not None else (0.0, 0.0, 0.0)
    return homogeneous(rpy_to_matrix(rpy), np.asarray(xyz, dtype=float))


def link_spatial_inertia(link):
    """Spatial inertia (6, 6) of a urdf_parser_py link about its link-frame origin, link axes."""
    inertial = link.inertial
    if inertial is None or inertial.mass is None:
        return np.zeros((6, 6))
    mass = float(inertial.mass)
    if not np.isfinite(mass) or mass < 0.0:
        raise URDFError(f"link {link.name!r}: inertial mass must be finite and >= 0, got {mass}")
    T = _origin(inertial)
    i = inertial.inertia
    if i is None:
        I_in = np.zeros((3, 3))
    else:
        I_in = np.array(
            [[i.ixx, i.ixy, i.ixz], [i.ixy, i.iyy, i.iyz], [i.ixz, i.iyz, i.izz]], dtype=float
        )
    if not np.all(np.isfinite(I_in)):
        raise URDFError(f"link {link.name!r}: inertia tensor has non-finite entries")
    R = T[:3, :3]
    return spatial_inertia(mass, T[:3, 3], R @ I_in @ R.T)


def joint_origin(joint):
    """4x4 placement of the joint frame in the parent link frame."""
    return _origin(joint)


def joint_axis(joint):
    """Unit joint axis (3,) in the joint frame; URDF's default is x."""
    axis = np.asarray(joint.axis if joint.axis is not None else (1.0, 0.0, 0.0), dtype=float)
    norm = np.linalg.norm(axis)
    if not np.isfinite(norm) or norm < 1e-12:
        raise URDFError(f"joint {joint.name!r}: axis {axis.tolist()} has zero length")
    return axis / norm


SUPPORTED_JOINTS = ("revolute", "continuous", "prismatic", "fixed")


def check_joint_type(joint):
    if joint.type in ("floating", "planar"):
        raise UnsupportedJointError(
            f"joint {joint.name!r} is of type {joint.type!r}: robot_dynamics models fixed-base "
            f"arms only (revolute, continuous, prismatic, fixed joints)"
        )
    if joint.type not in SUPPORTED_JOINTS:
        raise UnsupportedJointError(f"joint {joint.name!r} has unknown type {joint.type!r}")
