"""Test oracles for the dynamics core: robot list, an independent URDF reader, a Kane's-method
implementation and a Pinocchio wrapper that maps joints by name.

Nothing here imports robot_dynamics: every quantity is computed independently of the core.

- ``parse_urdf(xml)``: a small xml.etree URDF reader (links, inertials, joints, mimic).
- ``KaneOracle``: Kane's method (reference section 4) on the full tree, every body its own
  (fixed joints are not merged), mimic joints slaved through ``q_full = G q + offset``.
- ``PinOracle``: Pinocchio on the full tree (mimic joints left independent by pin's parser),
  reduced with the same ``G`` (``M_red = G^T M G``, ``tau_red = G^T tau``, ``J_red = J G``).
"""

from __future__ import annotations

import functools
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOUBLE_PENDULUM_URDF = os.path.join(REPO_ROOT, "urdf", "double_pendulum.urdf")
DP_GRAVITY = (0.0, -9.81, 0.0)
BUNDLED_PANDA_URDF = os.path.join(REPO_ROOT, "urdf", "panda_arm.urdf")  # the package's bundled arm


# --------------------------------------------------------------------------------------------
# example-robot-data
# --------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def robots_dir():
    """Directory holding example-robot-data's robots, or None when not installed."""
    candidates = []
    try:
        import importlib.metadata as md

        dist = md.distribution("example-robot-data")
        for f in dist.files or ():
            s = str(f)
            i = s.find("share/example-robot-data/robots/")
            if i >= 0:
                candidates.append(
                    os.path.join(str(dist.locate_file(s[:i])), "share/example-robot-data/robots")
                )
                break
    except Exception:  # noqa: BLE001 - package missing or unusual metadata
        pass
    try:  # some builds ship a python module with getModelPath
        import example_robot_data as erd  # type: ignore

        if hasattr(erd, "getModelPath"):
            candidates.append(
                os.path.join(
                    erd.getModelPath("ur_description/urdf/ur5_robot.urdf"),
                    "example-robot-data",
                    "robots",
                )
            )
    except Exception:  # noqa: BLE001
        pass
    for p in sys.path:
        candidates.append(os.path.join(p, "cmeel.prefix", "share", "example-robot-data", "robots"))
    candidates += glob.glob(
        os.path.join(
            sys.prefix,
            "lib",
            "python3*",
            "site-packages",
            "cmeel.prefix",
            "share",
            "example-robot-data",
            "robots",
        )
    )
    for c in candidates:
        if os.path.isdir(os.path.join(c, "ur_description")):
            return os.path.abspath(c)
    return None


def _strip_panda_fingers(xml):
    """The Panda arm (7 DOF): panda.urdf without its two finger joints and finger links.
    The hand stays (fixed joint, its mass counts)."""
    root = ET.fromstring(xml)
    drop_links = {"panda_leftfinger", "panda_rightfinger"}
    for el in list(root):
        if el.tag == "link" and el.get("name") in drop_links:
            root.remove(el)
        elif el.tag == "joint" and el.get("name") in ("panda_finger_joint1", "panda_finger_joint2"):
            root.remove(el)
    return ET.tostring(root, encoding="unicode")


# name -> (path relative to the robots dir, optional XML transform)
ERD_ROBOTS = {
    "ur5": ("ur_description/urdf/ur5_robot.urdf", None),
    "panda_arm": ("panda_description/urdf/panda.urdf", _strip_panda_fingers),
    "panda_gripper": ("panda_description/urdf/panda.urdf", None),  # finger_joint2 mimics joint1
    "baxter": ("baxter_description/urdf/baxter.urdf", None),  # tree, two mimic fingers
    "kinova": ("kinova_description/robots/kinova.urdf", None),  # continuous joints
    "xarm7": ("xarm_description/urdf/xarm7.urdf", None),
    "z1": ("z1_description/urdf/z1.urdf", None),
    "so100": ("so_arm_description/urdf/so100.urdf", None),
}

# a 6-DOF chain of mixed joint types with fixed links, non-unit axes, rotated inertials,
# off-diagonal inertia and a mimic joint (slaved, multiplier -0.7, offset 0.2)
MIXED_URDF = """<?xml version="1.0"?>
<robot name="mixed">
  <link name="world_base">
    <inertial><origin xyz="0 0 0.1"/><mass value="5.0"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
  <joint name="mount_joint" type="fixed">
    <parent link="world_base"/><child link="mount"/>
    <origin xyz="0.05 -0.02 0.3" rpy="0.1 -0.2 0.3"/>
  </joint>
  <link name="mount">
    <inertial><origin xyz="0.01 0.0 0.05"/><mass value="1.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.012" iyz="0" izz="0.008"/></inertial>
  </link>
  <joint name="j1" type="revolute">
    <parent link="mount"/><child link="l1"/>
    <origin xyz="0 0 0.1" rpy="0 0 0.4"/>
    <axis xyz="0 0 2"/>
    <limit lower="-2.5" upper="2.5" effort="100" velocity="3"/>
    <dynamics damping="0.5" friction="0.2"/>
  </joint>
  <link name="l1">
    <inertial><origin xyz="0.02 0.03 0.15" rpy="0.3 0.1 -0.2"/><mass value="3.0"/>
      <inertia ixx="0.05" ixy="0.002" ixz="-0.001" iyy="0.04" iyz="0.003" izz="0.02"/></inertial>
  </link>
  <joint name="j2" type="prismatic">
    <parent link="l1"/><child link="l2"/>
    <origin xyz="0.1 0 0.3" rpy="0.5 0 0"/>
    <axis xyz="1 1 0"/>
    <limit lower="-0.2" upper="0.3" effort="200" velocity="1"/>
    <dynamics damping="2.0"/>
  </joint>
  <link name="l2">
    <inertial><origin xyz="0.1 -0.02 0.01" rpy="0 0.4 0"/><mass value="2.0"/>
      <inertia ixx="0.02" ixy="0.001" ixz="0.0" iyy="0.03" iyz="-0.002" izz="0.025"/></inertial>
  </link>
  <joint name="j3" type="continuous">
    <parent link="l2"/><child link="l3"/>
    <origin xyz="0.2 0.05 0" rpy="0 0.3 0.1"/>
    <axis xyz="0 1 0"/>
    <dynamics friction="0.1"/>
  </joint>
  <link name="l3">
    <inertial><origin xyz="0.15 0 0.02" rpy="0.2 0.2 0.2"/><mass value="1.2"/>
      <inertia ixx="0.004" ixy="-0.0005" ixz="0.0002"
               iyy="0.01" iyz="0.0004" izz="0.011"/></inertial>
  </link>
  <joint name="j4" type="revolute">
    <parent link="l3"/><child link="l4"/>
    <origin xyz="0.3 0 0" rpy="-0.3 0 0"/>
    <axis xyz="0.6 0 0.8"/>
    <limit lower="-2.0" upper="2.0" effort="50" velocity="3"/>
  </joint>
  <link name="l4">
    <inertial><origin xyz="0.05 0.02 0.0"/><mass value="0.8"/>
      <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.003" iyz="0" izz="0.0025"/></inertial>
  </link>
  <joint name="j5" type="revolute">
    <parent link="l4"/><child link="l5"/>
    <origin xyz="0.1 0.0 0.02" rpy="0 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="20" velocity="3"/>
    <mimic joint="j3" multiplier="-0.7" offset="0.2"/>
  </joint>
  <link name="l5">
    <inertial><origin xyz="0.04 0.0 0.01" rpy="0.1 0 0"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0.0001" iyy="0.0012" iyz="0" izz="0.0009"/></inertial>
  </link>
  <joint name="j6" type="revolute">
    <parent link="l5"/><child link="l6"/>
    <origin xyz="0.08 0 0" rpy="0 1.5707963267948966 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="20" velocity="3"/>
  </joint>
  <link name="l6">
    <inertial><origin xyz="0 0 0.03"/><mass value="0.3"/>
      <inertia ixx="0.0004" ixy="0" ixz="0" iyy="0.0004" iyz="0" izz="0.0002"/></inertial>
  </link>
  <joint name="tool_joint" type="fixed">
    <parent link="l6"/><child link="tool"/>
    <origin xyz="0.0 0.01 0.1" rpy="0.2 0 -0.1"/>
  </joint>
  <link name="tool">
    <inertial><origin xyz="0 0 0.02"/><mass value="0.4"/>
      <inertia ixx="0.0005" ixy="0" ixz="0" iyy="0.0005" iyz="0" izz="0.0003"/></inertial>
  </link>
</robot>
"""

# a small tree: a torso joint and two branches (leaves: left_l3, right_l2)
YTREE_URDF = """<?xml version="1.0"?>
<robot name="ytree">
  <link name="base"/>
  <joint name="torso_joint" type="revolute">
    <parent link="base"/><child link="torso"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="100" velocity="2"/>
  </joint>
  <link name="torso">
    <inertial><origin xyz="0 0 0.2"/><mass value="10"/>
      <inertia ixx="0.5" ixy="0" ixz="0" iyy="0.5" iyz="0" izz="0.2"/></inertial>
  </link>
  <joint name="left_j1" type="revolute">
    <parent link="torso"/><child link="left_l1"/>
    <origin xyz="0 0.3 0.4" rpy="-1.0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="2"/>
  </joint>
  <link name="left_l1">
    <inertial><origin xyz="0.15 0 0"/><mass value="2"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial>
  </link>
  <joint name="left_j2" type="revolute">
    <parent link="left_l1"/><child link="left_l2"/>
    <origin xyz="0.3 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="100" velocity="2"/>
  </joint>
  <link name="left_l2">
    <inertial><origin xyz="0.1 0 0"/><mass value="1"/>
      <inertia ixx="0.005" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <joint name="left_fixed" type="fixed">
    <parent link="left_l2"/><child link="left_l3"/>
    <origin xyz="0.2 0 0"/>
  </joint>
  <link name="left_l3">
    <inertial><origin xyz="0.02 0 0"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="right_j1" type="revolute">
    <parent link="torso"/><child link="right_l1"/>
    <origin xyz="0 -0.3 0.4" rpy="1.0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="2"/>
  </joint>
  <link name="right_l1">
    <inertial><origin xyz="0.15 0 0"/><mass value="2"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial>
  </link>
  <joint name="right_j2" type="prismatic">
    <parent link="right_l1"/><child link="right_l2"/>
    <origin xyz="0.3 0 0"/><axis xyz="1 0 0"/>
    <limit lower="-0.1" upper="0.1" effort="100" velocity="2"/>
  </joint>
  <link name="right_l2">
    <inertial><origin xyz="0.05 0 0"/><mass value="1"/>
      <inertia ixx="0.005" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
</robot>
"""

LOCAL_ROBOTS = ("double_pendulum", "mixed", "ytree", "bundled_panda")


def is_local(name):
    return name in LOCAL_ROBOTS


def has_erd():
    return robots_dir() is not None


@functools.lru_cache(maxsize=None)
def urdf_xml(name):
    """URDF text of a named test robot (local or from example-robot-data)."""
    if name == "double_pendulum":
        with open(DOUBLE_PENDULUM_URDF) as f:
            return f.read()
    if name == "mixed":
        return MIXED_URDF
    if name == "ytree":
        return YTREE_URDF
    if name == "bundled_panda":
        with open(BUNDLED_PANDA_URDF) as f:
            return f.read()
    rel, transform = ERD_ROBOTS[name]
    d = robots_dir()
    if d is None:
        raise FileNotFoundError("example-robot-data is not installed")
    with open(os.path.join(d, rel)) as f:
        xml = f.read()
    return transform(xml) if transform else xml


def model_kwargs(name):
    """Keyword arguments of RobotModel.from_urdf_string for a test robot."""
    if name == "double_pendulum":
        return {"gravity": DP_GRAVITY}
    return {}


def default_frame(name):
    """A frame (link) on which Jacobian/wrench tests act, for each test robot."""
    return {
        "double_pendulum": "tip",
        "mixed": "tool",
        "bundled_panda": "tool",
        "ytree": "left_l3",
        "ur5": "tool0",
        "panda_arm": "panda_hand",
        "panda_gripper": "panda_hand",
        "baxter": "left_gripper",
        "kinova": "j2s6s200_end_effector",
        "xarm7": "link_eef",
        "z1": "link06",
        "so100": "gripper",
    }[name]


# --------------------------------------------------------------------------------------------
# Independent URDF reader
# --------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------
# Kane's method (reference section 4)
# --------------------------------------------------------------------------------------------
class KaneOracle:
    """Inverse dynamics by Kane's method on every body of the tree below ``base_link``.

    ``joint_names`` fixes the order of the generalised coordinates (the model's order); every
    other movable joint must be a mimic joint of them. Base frame = frame of ``base_link``.
    """

    def __init__(self, xml, joint_names, gravity=(0.0, 0.0, -9.81), base_link=None):
        self.info = parse_urdf(xml)
        self.base = base_link or self.info.root
        self.links = subtree_links(self.info, self.base)
        self.joint_names = list(joint_names)
        self.n = len(self.joint_names)
        self.gravity = np.asarray(gravity, float)
        idx = {n: i for i, n in enumerate(self.joint_names)}
        # movable joints below the base, full coordinates
        self.full = [
            self.info.parent_joint[ln]
            for ln in self.links[1:]
            if self.info.parent_joint[ln].type != "fixed"
        ]
        self.G = np.zeros((len(self.full), self.n))
        self.off = np.zeros(len(self.full))
        for a, j in enumerate(self.full):
            coeffs, o = mimic_resolve(self.info, j.name, idx)
            for k, c in coeffs.items():
                self.G[a, k] += c
            self.off[a] = o
        self.full_index = {j.name: a for a, j in enumerate(self.full)}

    def _kin(self, q, qd, qdd):
        q, qd, qdd = (np.asarray(x, float) for x in (q, qd, qdd))
        qf, qdf, qddf = self.G @ q + self.off, self.G @ qd, self.G @ qdd
        st = {
            self.base: dict(
                T=np.eye(4), w=np.zeros(3), wd=np.zeros(3), v=np.zeros(3), a=np.zeros(3), chain=[]
            )
        }
        for ln in self.links[1:]:
            j = self.info.parent_joint[ln]
            p = st[j.parent]
            Tj = p["T"] @ j.T_origin
            axis_w = Tj[:3, :3] @ j.axis
            oj = Tj[:3, 3]
            w, wd = p["w"].copy(), p["wd"].copy()
            r_extra = np.zeros(3)
            v_rel, a_rel = np.zeros(3), np.zeros(3)
            chain = list(p["chain"])
            if j.type in ("revolute", "continuous"):
                k = self.full_index[j.name]
                T = Tj @ homog(axis_angle_R(j.axis, qf[k]), np.zeros(3))
                w = p["w"] + axis_w * qdf[k]
                wd = p["wd"] + axis_w * qddf[k] + np.cross(p["w"], axis_w * qdf[k])
                chain.append(("R", k, axis_w, oj))
            elif j.type == "prismatic":
                k = self.full_index[j.name]
                T = Tj @ homog(np.eye(3), j.axis * qf[k])
                r_extra = axis_w * qf[k]
                v_rel = axis_w * qdf[k]
                a_rel = axis_w * qddf[k] + 2 * np.cross(p["w"], axis_w * qdf[k])
                chain.append(("P", k, axis_w, oj))
            elif j.type == "fixed":
                T = Tj
            else:
                raise ValueError(j.type)
            r = oj + r_extra - p["T"][:3, 3]
            v = p["v"] + np.cross(p["w"], r) + v_rel
            a = p["a"] + np.cross(p["wd"], r) + np.cross(p["w"], np.cross(p["w"], r)) + a_rel
            st[ln] = dict(T=T, w=w, wd=wd, v=v, a=a, chain=chain)
        return st

    def _jac_point(self, s, point):
        J = np.zeros((6, len(self.full)))
        for kind, k, ax, oj in s["chain"]:
            if kind == "R":
                J[:3, k] += np.cross(ax, point - oj)
                J[3:, k] += ax
            else:
                J[:3, k] += ax
        return J

    def inverse_dynamics(self, q, qd, qdd, f_ext=None, frame=None, gravity=True):
        st = self._kin(q, qd, qdd)
        g = self.gravity if gravity else np.zeros(3)
        tau_f = np.zeros(len(self.full))
        for ln in self.links:
            li = self.info.links[ln]
            if li.mass == 0.0 and not np.any(li.inertia):
                continue
            s = st[ln]
            R = s["T"][:3, :3]
            c = s["T"][:3, 3] + R @ li.com
            rc = c - s["T"][:3, 3]
            ac = s["a"] + np.cross(s["wd"], rc) + np.cross(s["w"], np.cross(s["w"], rc))
            Rl = R @ li.R_inertial
            Iw = Rl @ li.inertia @ Rl.T
            Jc = self._jac_point(s, c)  # partial velocities dvc/dqd, dw/dqd
            F = li.mass * (ac - g)
            Tq = Iw @ s["wd"] + np.cross(s["w"], Iw @ s["w"])
            tau_f += Jc[:3].T @ F + Jc[3:].T @ Tq
        tau = self.G.T @ tau_f
        if f_ext is not None:
            tau -= self.jacobian(q, frame).T @ np.asarray(f_ext, float)
        return tau

    def gravity_torques(self, q):
        z = np.zeros(self.n)
        return self.inverse_dynamics(q, z, z)

    def mass_matrix(self, q):
        z = np.zeros(self.n)
        return np.column_stack(
            [self.inverse_dynamics(q, z, e, gravity=False) for e in np.eye(self.n)]
        )

    def frame_pose(self, q, frame):
        z = np.zeros(self.n)
        return self._kin(q, z, z)[frame]["T"]

    def jacobian(self, q, frame):
        z = np.zeros(self.n)
        s = self._kin(q, z, z)[frame]
        return self._jac_point(s, s["T"][:3, 3]) @ self.G

    def kinetic_energy(self, q, qd):
        st = self._kin(q, qd, np.zeros(self.n))
        K = 0.0
        for ln in self.links:
            li = self.info.links[ln]
            s = st[ln]
            R = s["T"][:3, :3]
            rc = R @ li.com
            vc = s["v"] + np.cross(s["w"], rc)
            Rl = R @ li.R_inertial
            K += 0.5 * li.mass * vc @ vc + 0.5 * s["w"] @ (Rl @ li.inertia @ Rl.T) @ s["w"]
        return K

    def potential_energy(self, q):
        z = np.zeros(self.n)
        st = self._kin(q, z, z)
        P = 0.0
        for ln in self.links:
            li = self.info.links[ln]
            T = st[ln]["T"]
            P -= li.mass * self.gravity @ (T[:3, 3] + T[:3, :3] @ li.com)
        return P


# --------------------------------------------------------------------------------------------
# Pinocchio
# --------------------------------------------------------------------------------------------
class PinOracle:
    """Pinocchio on the full URDF tree (mimic joints as independent joints), reduced to the
    coordinates ``joint_names`` through ``q_full = G q + offset`` built from the URDF."""

    def __init__(self, xml, joint_names, gravity=None):
        import pinocchio as pin

        self.pin = pin
        self.xml = xml
        self.model = pin.buildModelFromXML(xml)
        if gravity is not None:
            self.model.gravity.linear = np.asarray(gravity, float)
        self.data = self.model.createData()
        self.info = parse_urdf(xml)
        self.joint_names = list(joint_names)
        self.n = len(self.joint_names)
        idx = {n: i for i, n in enumerate(self.joint_names)}
        m = self.model
        self.G = np.zeros((m.nv, self.n))
        self.off = np.zeros(m.nv)
        self.qslots = []  # (idx_q, idx_v, nq)
        for jid in range(1, m.njoints):
            name = m.names[jid]
            jm = m.joints[jid]
            assert jm.nv == 1, (name, jm.nv)
            coeffs, o = mimic_resolve(self.info, name, idx)
            for k, c in coeffs.items():
                self.G[jm.idx_v, k] += c
            self.off[jm.idx_v] = o
            self.qslots.append((jm.idx_q, jm.idx_v, jm.nq))
        self.has_mimic = not (
            self.G.shape[0] == self.n
            and np.allclose(self.G.T @ self.G, np.eye(self.n))
            and not np.any(self.off)
        )

    # coordinates
    def qp(self, q):
        th = self.G @ np.asarray(q, float) + self.off
        out = np.zeros(self.model.nq)
        for iq, iv, nq in self.qslots:
            if nq == 1:
                out[iq] = th[iv]
            else:
                out[iq], out[iq + 1] = np.cos(th[iv]), np.sin(th[iv])
        return out

    def vp(self, qd):
        return self.G @ np.asarray(qd, float)

    def rnea(self, q, qd, qdd):
        return self.G.T @ self.pin.rnea(
            self.model, self.data, self.qp(q), self.vp(qd), self.vp(qdd)
        )

    def gravity_torques(self, q):
        return self.G.T @ self.pin.computeGeneralizedGravity(self.model, self.data, self.qp(q))

    def mass_matrix_full(self, q):
        M = np.array(self.pin.crba(self.model, self.data, self.qp(q)))
        return np.triu(M) + np.triu(M, 1).T

    def mass_matrix(self, q):
        return self.G.T @ self.mass_matrix_full(q) @ self.G

    def coriolis_matrix(self, q, qd):
        C = self.pin.computeCoriolisMatrix(self.model, self.data, self.qp(q), self.vp(qd))
        return self.G.T @ np.array(C) @ self.G

    def nonlinear_effects(self, q, qd):
        return self.G.T @ self.pin.nonLinearEffects(self.model, self.data, self.qp(q), self.vp(qd))

    def forward_dynamics(self, q, qd, tau):
        if not self.has_mimic:  # G is a permutation: tau_full = G tau
            return self.G.T @ self.pin.aba(
                self.model, self.data, self.qp(q), self.vp(qd), self.G @ np.asarray(tau, float)
            )
        return np.linalg.solve(
            self.mass_matrix(q), np.asarray(tau, float) - self.nonlinear_effects(q, qd)
        )

    def dM_dq(self, q):
        """Exact dM_red/dq_l (n, n, n) [i, j, l] from pin's RNEA derivatives (zero gravity,
        zero velocity, qdd = e_k: dtau/dq = d(M e_k)/dq)."""
        pin = self.pin
        model0 = self.model.copy()
        model0.gravity.linear = np.zeros(3)
        data0 = model0.createData()
        qp = self.qp(q)
        nv = model0.nv
        dMf = np.zeros((nv, nv, nv))
        for k in range(nv):
            a = np.zeros(nv)
            a[k] = 1.0
            dtau_dq, _, _ = pin.computeRNEADerivatives(model0, data0, qp, np.zeros(nv), a)
            dMf[:, k, :] = np.array(dtau_dq)
        # reduce: dMred/dq_l = G^T (sum_a dMf[..., a] G[a, l]) G
        return np.einsum("ai,abc,bj,cl->ijl", self.G, dMf, self.G, self.G)

    def christoffel_coriolis(self, q, qd):
        return christoffel_from_dM(self.dM_dq(q), qd)

    def frame_id(self, frame):
        fid = self.model.getFrameId(frame, self.pin.FrameType.BODY)
        if fid >= self.model.nframes:
            fid = self.model.getFrameId(frame)
        if fid >= self.model.nframes:
            raise KeyError(frame)
        return fid

    def jacobian(self, q, frame):
        pin = self.pin
        J = pin.computeFrameJacobian(
            self.model, self.data, self.qp(q), self.frame_id(frame), pin.LOCAL_WORLD_ALIGNED
        )
        return np.array(J) @ self.G

    def frame_pose(self, q, frame):
        self.pin.framesForwardKinematics(self.model, self.data, self.qp(q))
        return np.array(self.data.oMf[self.frame_id(frame)].homogeneous)


def christoffel_from_dM(dM, qd):
    """C_kj = sum_i c_ijk qd_i, c_ijk = 1/2 (dM_kj/dq_i + dM_ki/dq_j - dM_ij/dq_k).

    dM[a, b, l] = dM_ab / dq_l."""
    qd = np.asarray(qd, float)
    # term1: sum_i dM_kj/dq_i qd_i ; term2: sum_i dM_ki/dq_j qd_i ; term3: sum_i dM_ij/dq_k qd_i
    t1 = np.einsum("kji,i->kj", dM, qd)
    t2 = np.einsum("kij,i->kj", dM, qd)
    t3 = np.einsum("ijk,i->kj", dM, qd)
    return 0.5 * (t1 + t2 - t3)


def fd_dM(mass_matrix, q, h=1e-5):
    """dM/dq_l by 4th-order central differences of a mass-matrix function (n, n, n)."""
    q = np.asarray(q, float)
    n = q.size
    out = np.zeros((n, n, n))
    for l in range(n):
        e = np.zeros(n)
        e[l] = h
        out[:, :, l] = (
            -mass_matrix(q + 2 * e)
            + 8 * mass_matrix(q + e)
            - 8 * mass_matrix(q - e)
            + mass_matrix(q - 2 * e)
        ) / (12 * h)
    return out


def max_err(a, b):
    return float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float)))) if np.size(a) else 0.0


def assert_close(actual, expected, rel=1e-9, what=""):
    """max |actual - expected| <= rel * max(1, max |expected|)."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    scale = max(1.0, float(np.max(np.abs(expected))) if expected.size else 1.0)
    err = max_err(actual, expected)
    assert err <= rel * scale, f"{what}: max abs error {err:.3e} > {rel:.1e} * {scale:.3g}"


def sanitize_name(s):
    return re.sub(r"[^A-Za-z0-9_]", "_", s)
