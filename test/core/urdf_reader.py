"""An independent URDF reader for the test oracles (xml.etree, nothing from robot_dynamics):
links with their inertials, joints with origin, unit axis, limits, dynamics and mimic element,
the tree's root, and helpers on the tree (subtree and leaves, mimic joints resolved to the
actuated ones, random configurations within the limits).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np


def _floats(s, default):
    if s is None:
        return np.array(default, dtype=float)
    return np.array([float(x) for x in s.split()], dtype=float)


def rpy_to_R(rpy):
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def axis_angle_R(axis, angle):
    k = np.asarray(axis, float)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * (K @ K)


def homog(R, p):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


@dataclass
class LinkInfo:
    name: str
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    R_inertial: np.ndarray = field(default_factory=lambda: np.eye(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))


@dataclass
class JointInfo:
    name: str
    type: str
    parent: str
    child: str
    T_origin: np.ndarray
    axis: np.ndarray
    lower: float = -np.pi
    upper: float = np.pi
    damping: float = 0.0
    friction: float = 0.0
    mimic: tuple | None = None  # (driver name, multiplier, offset)


@dataclass
class URDFInfo:
    links: dict
    joints: dict  # name -> JointInfo (document order)
    child_joints: dict  # link -> [JointInfo]
    parent_joint: dict  # link -> JointInfo
    root: str


def parse_urdf(xml):
    root = ET.fromstring(xml)
    links, joints = {}, {}
    for el in root.findall("link"):
        li = LinkInfo(el.get("name"))
        inertial = el.find("inertial")
        if inertial is not None:
            o = inertial.find("origin")
            li.com = _floats(o.get("xyz") if o is not None else None, [0, 0, 0])
            li.R_inertial = rpy_to_R(_floats(o.get("rpy") if o is not None else None, [0, 0, 0]))
            m = inertial.find("mass")
            li.mass = float(m.get("value")) if m is not None else 0.0
            i = inertial.find("inertia")
            if i is not None:
                g = lambda k: float(i.get(k, 0.0))  # noqa: E731
                li.inertia = np.array(
                    [
                        [g("ixx"), g("ixy"), g("ixz")],
                        [g("ixy"), g("iyy"), g("iyz")],
                        [g("ixz"), g("iyz"), g("izz")],
                    ]
                )
        links[li.name] = li
    for el in root.findall("joint"):
        o = el.find("origin")
        xyz = _floats(o.get("xyz") if o is not None else None, [0, 0, 0])
        rpy = _floats(o.get("rpy") if o is not None else None, [0, 0, 0])
        a = el.find("axis")
        axis = _floats(a.get("xyz") if a is not None else None, [1, 0, 0])
        if np.linalg.norm(axis) > 0:
            axis = axis / np.linalg.norm(axis)
        ji = JointInfo(
            el.get("name"),
            el.get("type"),
            el.find("parent").get("link"),
            el.find("child").get("link"),
            homog(rpy_to_R(rpy), xyz),
            axis,
        )
        lim = el.find("limit")
        if ji.type == "continuous":
            ji.lower, ji.upper = -np.pi, np.pi
        elif lim is not None:
            ji.lower = float(lim.get("lower", 0.0))
            ji.upper = float(lim.get("upper", 0.0))
        dyn = el.find("dynamics")
        if dyn is not None:
            ji.damping = float(dyn.get("damping", 0.0))
            ji.friction = float(dyn.get("friction", 0.0))
        mim = el.find("mimic")
        if mim is not None:
            ji.mimic = (
                mim.get("joint"),
                float(mim.get("multiplier", 1.0)),
                float(mim.get("offset", 0.0)),
            )
        joints[ji.name] = ji
    child_joints = {n: [] for n in links}
    parent_joint = {}
    for j in joints.values():
        child_joints[j.parent].append(j)
        parent_joint[j.child] = j
    roots = [n for n in links if n not in parent_joint]
    assert len(roots) == 1, roots
    return URDFInfo(links, joints, child_joints, parent_joint, roots[0])


def subtree_links(info, base):
    """Links below (and including) base, parents before children (DFS)."""
    out, stack = [], [base]
    while stack:
        ln = stack.pop()
        out.append(ln)
        for j in reversed(info.child_joints[ln]):
            stack.append(j.child)
    return out


def leaves(info, base):
    return sorted(ln for ln in subtree_links(info, base) if not info.child_joints[ln])


def mimic_resolve(info, name, actuated_index):
    """Joint `name` as an affine function of the actuated joints: ({index: coeff}, offset)."""
    if name in actuated_index:
        return {actuated_index[name]: 1.0}, 0.0
    j = info.joints[name]
    if j.mimic is None:
        raise KeyError(f"joint {name} is neither actuated nor a mimic joint")
    coeffs, off = mimic_resolve(info, j.mimic[0], actuated_index)
    m, o = j.mimic[1], j.mimic[2]
    return {k: m * v for k, v in coeffs.items()}, m * off + o


def random_q(info, joint_names, rng, shape=()):
    lo = np.array([max(info.joints[n].lower, -np.pi) for n in joint_names])
    hi = np.array([min(info.joints[n].upper, np.pi) for n in joint_names])
    bad = hi <= lo
    lo[bad], hi[bad] = -np.pi, np.pi
    return lo + (hi - lo) * rng.uniform(size=tuple(shape) + (len(joint_names),))
