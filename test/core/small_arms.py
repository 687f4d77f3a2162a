"""Small test arms as URDF text (shared by the core and estimation tests)."""

# A 3-DOF arm: base yaw, shoulder and elbow pitch (a spatial arm, not planar).
ARM3_URDF = """<robot name="arm3">
  <link name="base"/>
  <link name="l1"><inertial><mass value="2.0"/><origin xyz="0 0 0.1"/>
    <inertia ixx="0.02" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l2"><inertial><mass value="1.5"/><origin xyz="0.2 0 0"/>
    <inertia ixx="0.005" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l3"><inertial><mass value="1.0"/><origin xyz="0.15 0 0"/>
    <inertia ixx="0.003" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool"/>
  <joint name="yaw" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="50" velocity="3"/></joint>
  <joint name="shoulder" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0 0 0.2" rpy="0.2 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="50" velocity="3"/></joint>
  <joint name="elbow" type="revolute"><parent link="l2"/><child link="l3"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="30" velocity="3"/></joint>
  <joint name="tool_joint" type="fixed"><parent link="l3"/><child link="tool"/>
    <origin xyz="0.3 0 0" rpy="0.3 -0.2 0.5"/></joint>
</robot>"""


def _ur_link(name, mass, com, inertia):
    return (
        f'  <link name="{name}"><inertial><mass value="{mass}"/><origin xyz="{com}"/>'
        f'<inertia ixx="{inertia[0]}" iyy="{inertia[1]}" izz="{inertia[2]}" ixy="0" ixz="0" '
        f'iyz="0"/></inertial></link>\n'
    )


def _ur_joint(name, parent, child, xyz, rpy, kind="revolute"):
    limit = (
        '<axis xyz="0 0 1"/><limit lower="-6.28" upper="6.28" effort="150" velocity="3.14"/>'
        if kind == "revolute"
        else ""
    )
    return (
        f'  <joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}" rpy="{rpy}"/>{limit}</joint>\n'
    )


# The link and frame structure of the official UR description (ur_description's
# ur.urdf.xacro, ur_type:=ur5e, kinematics and masses of the UR5e): its leaves are `base`
# (fixed to base_link), `tool0` (wrist_3_link -> flange -> tool0) and `ft_frame` (fixed to
# wrist_3_link).
UR_SHAPE_URDF = (
    '<robot name="ur5e">\n  <link name="base_link"/>\n'
    + _ur_link("base_link_inertia", 4.0, "0 0 0", (0.00443, 0.00443, 0.0072))
    + _ur_link("shoulder_link", 3.761, "0 0 0", (0.0102675, 0.0102675, 0.00666))
    + _ur_link("upper_arm_link", 8.058, "-0.2125 0 0.138", (0.1338, 0.1338, 0.0151))
    + _ur_link("forearm_link", 2.846, "-0.1961 0 0.007", (0.0312, 0.0312, 0.004095))
    + _ur_link("wrist_1_link", 1.37, "0 0 0", (0.0025599, 0.0025599, 0.0021942))
    + _ur_link("wrist_2_link", 1.3, "0 0 0", (0.0025599, 0.0025599, 0.0021942))
    + _ur_link("wrist_3_link", 0.365, "0 0 -0.0229", (0.000984, 0.000984, 0.000912))
    + '  <link name="base"/>\n  <link name="flange"/>\n  <link name="tool0"/>\n'
    + '  <link name="ft_frame"/>\n'
    + _ur_joint(
        "base_link-base_link_inertia",
        "base_link",
        "base_link_inertia",
        "0 0 0",
        "0 0 3.141592653589793",
        "fixed",
    )
    + _ur_joint("shoulder_pan_joint", "base_link_inertia", "shoulder_link", "0 0 0.1625", "0 0 0")
    + _ur_joint(
        "shoulder_lift_joint", "shoulder_link", "upper_arm_link", "0 0 0", "1.570796327 0 0"
    )
    + _ur_joint("elbow_joint", "upper_arm_link", "forearm_link", "-0.425 0 0", "0 0 0")
    + _ur_joint("wrist_1_joint", "forearm_link", "wrist_1_link", "-0.3922 0 0.1333", "0 0 0")
    + _ur_joint("wrist_2_joint", "wrist_1_link", "wrist_2_link", "0 -0.0997 0", "1.570796327 0 0")
    + _ur_joint(
        "wrist_3_joint",
        "wrist_2_link",
        "wrist_3_link",
        "0 0.0996 0",
        "1.570796326589793 3.141592653589793 3.141592653589793",
    )
    + _ur_joint(
        "base_link-base_fixed_joint", "base_link", "base", "0 0 0", "0 0 3.141592653589793", "fixed"
    )
    + _ur_joint(
        "wrist_3-flange",
        "wrist_3_link",
        "flange",
        "0 0 0",
        "0 -1.5707963267948966 -1.5707963267948966",
        "fixed",
    )
    + _ur_joint(
        "flange-tool0",
        "flange",
        "tool0",
        "0 0 0",
        "1.5707963267948966 0 1.5707963267948966",
        "fixed",
    )
    + _ur_joint(
        "wrist_3_link-ft_frame",
        "wrist_3_link",
        "ft_frame",
        "0 0 0",
        "3.141592653589793 0 0",
        "fixed",
    )
    + "</robot>"
)
