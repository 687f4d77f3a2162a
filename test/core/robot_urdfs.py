"""The test robots of the core tests, by name: the repository's URDFs (the double pendulum, the
bundled Panda arm), two inline ones (``MIXED_URDF``: a chain of mixed joint types with fixed
links, rotated inertials and a mimic joint; ``YTREE_URDF``: a small tree) and example-robot-data's
arms, found where that package is installed.

Nothing here imports robot_dynamics.

- ``urdf_xml(name)``: the URDF text of a named robot; ``model_kwargs(name)``: the keyword
  arguments of ``RobotModel.from_urdf_string`` for it; ``default_frame(name)``: the link the
  Jacobian and wrench tests act on.
- ``robots_dir()``: example-robot-data's robots directory (None when it is not installed);
  ``has_erd()``, ``is_local(name)``.
"""

import functools
import glob
import os
import sys
import xml.etree.ElementTree as ET

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOUBLE_PENDULUM_URDF = os.path.join(REPO_ROOT, "urdf", "double_pendulum.urdf")
DP_GRAVITY = (0.0, -9.81, 0.0)
BUNDLED_PANDA_URDF = os.path.join(REPO_ROOT, "urdf", "panda_arm.urdf")  # the package's bundled arm


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

# the tree with a third joint on its right branch: six joints, three of which move left_l3
YTREE6_URDF = YTREE_URDF.replace(
    "</robot>",
    '<link name="right_l3"><inertial><mass value="0.5"/>'
    '<inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>'
    '</link><joint name="right_j3" type="revolute"><parent link="right_l2"/>'
    '<child link="right_l3"/><axis xyz="0 0 1"/>'
    '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>',
)

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
