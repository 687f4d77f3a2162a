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
