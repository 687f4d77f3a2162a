"""URDF features: fixed joints merged (their mass counts, their frames stay addressable),
non-unit axes, prismatic and continuous joints, base_link re-rooting, tip_link defaults,
payload, armature, friction from <dynamics>, and files that urdf_parser_py rejects
(visuals, transmissions: never read)."""

import logging
import pathlib
import re
import warnings

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.errors import AmbiguousTipError, KinematicTreeError
from robot_dynamics.core.joint_warnings import (
    FAR_FROM_BASE_RULE,
    FREE_JOINT_FIXED,
    GRAVITY_JOINT_ABOVE,
    MIMIC_TARGET_FIXED,
    MIMIC_TARGET_MISSING,
    MIMIC_TARGET_OUTSIDE,
)

import oracles
import robot_urdfs
from core_helpers import load_model, random_state
from oracles import assert_close
from robot_urdfs import DP_GRAVITY
from robot_dynamics.core.friction import FrictionModel
from small_arms import UR_SHAPE_URDF

DP_XML = robot_urdfs.urdf_xml("double_pendulum")


def dp_model(xml=DP_XML, **kw):
    kw.setdefault("gravity", DP_GRAVITY)
    return RobotModel.from_urdf_string(xml, **kw)


def _same_dynamics(a, b, rng, n_conf=3, what=""):
    assert tuple(a.joint_names) == tuple(b.joint_names)
    q = rng.uniform(-2, 2, size=(n_conf, a.n))
    qd, qdd = rng.normal(size=(2, n_conf, a.n))
    assert_close(a.mass_matrix(q), b.mass_matrix(q), 1e-12, f"{what} M")
    assert_close(a.gravity_torques(q), b.gravity_torques(q), 1e-12, f"{what} g")
    assert_close(
        a.inverse_dynamics(q, qd, qdd), b.inverse_dynamics(q, qd, qdd), 1e-12, f"{what} tau"
    )


# rod 2 of the double pendulum cut in two 0.5 m halves joined by a fixed joint: same dynamics
_HALF_IZ = 5.0 * (0.5**2 + 0.1**2) / 12.0
_HALF_IX = 5.0 * (0.1**2 + 0.1**2) / 12.0
SPLIT_LINK2 = f"""
  <link name="link2">
    <inertial><origin xyz="0.25 0 0"/><mass value="5.0"/>
      <inertia ixx="{_HALF_IX!r}" ixy="0" ixz="0"
               iyy="{_HALF_IZ!r}" iyz="0" izz="{_HALF_IZ!r}"/></inertial>
  </link>
  <joint name="split_joint" type="fixed">
    <parent link="link2"/><child link="link2b"/><origin xyz="0.5 0 0" rpy="0 0 0"/>
  </joint>
  <link name="link2b">
    <inertial><origin xyz="0.25 0 0"/><mass value="5.0"/>
      <inertia ixx="{_HALF_IX!r}" ixy="0" ixz="0"
               iyy="{_HALF_IZ!r}" iyz="0" izz="{_HALF_IZ!r}"/></inertial>
  </link>
"""


def _replace_link(xml, name, new):
    start = xml.index(f'<link name="{name}">')
    end = xml.index("</link>", start) + len("</link>")
    return xml[:start] + new + xml[end:]


def test_fixed_joint_merged_mass_counts(rng):
    split = _replace_link(DP_XML, "link2", SPLIT_LINK2)
    split = split.replace(
        '<parent link="link2"/>\n    <child link="tip"/>\n    <origin xyz="1.0 0 0"',
        '<parent link="link2b"/>\n    <child link="tip"/>\n    <origin xyz="0.5 0 0"',
    )
    a, b = dp_model(), dp_model(split)
    _same_dynamics(a, b, rng, what="rod 2 split by a fixed joint")
    q = rng.uniform(-2, 2, size=2)
    assert "link2b" in b.link_names and "tip" in b.link_names
    assert_close(b.frame_pose(q, frame="tip"), a.frame_pose(q, frame="tip"), 1e-12, "tip pose")
    # the fixed frame in the middle of rod 2: its pose and Jacobian are those of a point at 0.5 m
    T = b.frame_pose(q, frame="link2b")
    T2 = a.frame_pose(q, frame="link2")
    assert_close(T[:3, 3], T2[:3, 3] + 0.5 * T2[:3, 0], 1e-12, "link2b origin")
    J = b.jacobian(q, frame="link2b")
    s1, s12, c1, c12 = np.sin(q[0]), np.sin(q.sum()), np.cos(q[0]), np.cos(q.sum())
    assert_close(
        J[:2], [[-s1 - 0.5 * s12, -0.5 * s12], [c1 + 0.5 * c12, 0.5 * c12]], 1e-12, "J of link2b"
    )


def test_massless_fixed_tip_frame_addressable(rng):
    a = dp_model()
    q = rng.uniform(-2, 2, size=(4, 2))
    for f in ("tip", "link2", "link1"):
        assert a.frame_pose(q, frame=f).shape == (4, 4, 4)
        assert a.jacobian(q, frame=f).shape == (4, 6, 2)


def test_non_unit_axes_normalised(rng):
    scaled = DP_XML.replace('<axis xyz="0 0 1"/>', '<axis xyz="0 0 5"/>', 1)
    assert scaled != DP_XML
    _same_dynamics(dp_model(), dp_model(scaled), rng, what="axis (0 0 5)")
    flipped = DP_XML.replace('<axis xyz="0 0 1"/>', '<axis xyz="0 0 -0.5"/>', 1)
    b = dp_model(flipped)
    q = rng.uniform(-2, 2, size=2)
    qm = q * np.array([-1.0, 1.0])
    # joint 1 about -z: q1 -> -q1, torque 1 -> -torque 1
    assert_close(
        b.gravity_torques(qm) * np.array([-1.0, 1.0]),
        dp_model().gravity_torques(q),
        1e-12,
        "axis (0 0 -0.5)",
    )


SLIDER = """<?xml version="1.0"?>
<robot name="slider">
  <link name="base"/>
  <joint name="lift" type="prismatic">
    <parent link="base"/><child link="carriage"/>
    <origin xyz="0 0 0.2"/><axis xyz="0 3 4"/>
    <limit lower="-0.5" upper="0.5" effort="100" velocity="1"/>
  </joint>
  <link name="carriage">
    <inertial><origin xyz="0.1 0 0"/><mass value="2.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <joint name="spin" type="continuous">
    <parent link="carriage"/><child link="arm"/>
    <origin xyz="0 0 0.1"/><axis xyz="1 0 0"/>
  </joint>
  <link name="arm">
    <inertial><origin xyz="0 0.2 0"/><mass value="1.0"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.02"/></inertial>
  </link>
</robot>
"""


def test_prismatic_joint():
    m = RobotModel.from_urdf_string(SLIDER)
    assert tuple(m.joint_names) == ("lift", "spin")
    # the prismatic axis (0, 0.6, 0.8): gravity load on it is total mass * 9.81 * 0.8
    g = m.gravity_torques(np.array([0.1, 0.3]))
    assert_close(g[0], 3.5 * 9.81 * 0.8, 1e-12, "prismatic gravity")
    M = m.mass_matrix(np.array([0.1, 0.3]))
    assert_close(M[0, 0], 3.5, 1e-12, "prismatic M00 = total mass")
    T = m.frame_pose(np.array([0.1, 0.0]), frame="carriage")
    assert_close(T[:3, 3], [0, 0.06, 0.2 + 0.08], 1e-12, "carriage position")
    assert_close(
        m.jacobian(np.array([0.1, 0.0]), frame="carriage")[:, 0],
        [0, 0.6, 0.8, 0, 0, 0],
        1e-12,
        "prismatic Jacobian column",
    )


def test_continuous_joint_periodic(rng):
    m = RobotModel.from_urdf_string(SLIDER)
    q = np.array([0.1, 0.7])
    qd, qdd = rng.normal(size=(2, 2))
    for k in (1, -3):
        qk = q + np.array([0.0, 2 * np.pi * k])
        assert_close(
            m.inverse_dynamics(qk, qd, qdd),
            m.inverse_dynamics(q, qd, qdd),
            1e-9,
            "continuous joint beyond +-pi",
        )
    kane = oracles.KaneOracle(SLIDER, m.joint_names)
    qk = np.array([0.1, 7.0])
    assert_close(
        m.inverse_dynamics(qk, qd, qdd), kane.inverse_dynamics(qk, qd, qdd), 1e-9, "slider vs Kane"
    )


def test_limits_from_urdf():
    m = load_model("mixed")
    lo, hi = m.position_limits
    i1 = list(m.joint_names).index("j1")
    i2 = list(m.joint_names).index("j2")
    assert (lo[i1], hi[i1]) == (-2.5, 2.5)
    assert (lo[i2], hi[i2]) == (-0.2, 0.3)
    assert m.velocity_limits[i1] == 3 and m.effort_limits[i2] == 200


def test_base_link_rerooting():
    a = dp_model(base_link="link1")
    assert a.base_link == "link1"
    assert tuple(a.joint_names) == ("joint2",)
    assert a.tip_link == "tip"
    q = np.array([0.4])
    assert_close(
        a.frame_pose(q, frame="tip")[:3, 3],
        [1 + np.cos(0.4), np.sin(0.4), 0],
        1e-12,
        "tip in link1",
    )
    # gravity is given in the new base frame: (0, -9.81, 0) in link 1's axes
    assert_close(a.gravity_torques(q), [10 * 9.81 * 0.5 * np.cos(0.4)], 1e-12, "g rooted at link1")
    assert "link1" not in a.leaf_links


def test_tip_link_default_and_explicit():
    assert dp_model().tip_link == "tip"
    assert load_model("mixed").tip_link == "tool"
    assert set(dp_model().leaf_links) == {"tip"}
    m = dp_model(tip_link="link2")
    assert m.tip_link == "link2"
    q = np.array([0.3, -0.2])
    assert_close(m.jacobian(q), m.jacobian(q, frame="link2"), 0, "tip_link as default frame")


def test_tree_with_chains_of_equal_length_has_no_default_tip():
    t = load_model("ytree")
    assert t.tip_link is None
    assert set(t.leaf_links) == {"left_l3", "right_l2"}
    assert set(t.tree.tip_candidates) == {"left_l3", "right_l2"}
    t2 = RobotModel.from_urdf_string(robot_urdfs.YTREE_URDF, tip_link="right_l2")
    assert t2.tip_link == "right_l2"
    q = np.zeros(t2.n)
    assert_close(t2.jacobian(q), t.jacobian(q, frame="right_l2"), 0, "explicit tip in a tree")
    # the tree's dynamics cover every actuated joint, whatever the tip
    assert t2.n == t.n == 5


def test_tool0_is_the_tip_of_the_official_ur_description_shape(rng):
    """Leaves ft_frame, tool0 and base: tool0, the ROS-Industrial flange frame, is the tip."""
    model = RobotModel.from_urdf_string(UR_SHAPE_URDF)
    assert set(model.leaf_links) == {"ft_frame", "tool0", "base"}
    assert model.tip_link == "tool0"
    q = rng.uniform(-2, 2, model.n)
    assert_close(model.jacobian(q), model.jacobian(q, frame="tool0"), 0, "tool0 as the tip")
    pin = pytest.importorskip("pinocchio")
    reference = oracles.PinOracle(UR_SHAPE_URDF, model.joint_names)
    assert_close(model.gravity_torques(q), reference.gravity_torques(q), 1e-9, "UR shape g")
    assert_close(model.jacobian(q), reference.jacobian(q, "tool0"), 1e-9, "UR shape J tool0")
    assert pin.buildModelFromXML(UR_SHAPE_URDF).nv == 6


def test_a_prefixed_tool0_is_the_tip():
    """The UR shape with a tf_prefix (every link and joint named left_...): left_tool0 is the
    tip; a second ..tool0 that a joint moves makes it ambiguous again. Two arms on one stand
    (left_ and right_): no tip, but with the right arm's joints locked (a recording of the left
    arm alone), left_tool0, the one some joint moves."""

    def prefixed(prefix):
        text = UR_SHAPE_URDF.replace('name="ur5e"', "")
        return re.sub(r'(name|link)="', rf'\1="{prefix}', text)

    model = RobotModel.from_urdf_string(prefixed("left_"))
    assert model.tip_link == "left_tool0"
    two = prefixed("left_").replace(
        "</robot>",
        '  <link name="right_tool0"/>\n'
        '  <joint name="j" type="fixed"><parent link="left_shoulder_link"/>'
        '<child link="right_tool0"/></joint>\n</robot>',
    )
    assert RobotModel.from_urdf_string(two).tip_link is None
    body = "".join(
        prefixed(p).split(">", 1)[1].rsplit("</robot>", 1)[0] for p in ("left_", "right_")
    )
    stand = "".join(
        f'  <joint name="{p}mount" type="fixed"><parent link="stand"/>'
        f'<child link="{p}base_link"/><origin xyz="0 {y} 0"/></joint>\n'
        for p, y in (("left_", 0.5), ("right_", -0.5))
    )
    dual = f'<robot name="dual">\n  <link name="stand"/>\n{body}{stand}</robot>'
    model = RobotModel.from_urdf_string(dual)
    assert model.tip_link is None and model.n == 12
    right = {name: 0.0 for name in model.joint_names if name.startswith("right_")}
    assert RobotModel.from_urdf_string(dual, locked_joints=right).tip_link == "left_tool0"


def test_without_tool0_two_leaves_on_the_last_body_are_ambiguous():
    model = RobotModel.from_urdf_string(UR_SHAPE_URDF.replace('"tool0"', '"sensor_mount"'))
    assert model.tip_link is None
    assert set(model.tree.tip_candidates) == {"sensor_mount", "ft_frame"}
    with pytest.raises(AmbiguousTipError) as ei:
        model.jacobian(np.zeros(model.n))
    assert "sensor_mount" in str(ei.value) and "ft_frame" in str(ei.value)
    assert "tip_link" in str(ei.value)
    # the single leaf of the last body, when ft_frame is gone
    no_ft = UR_SHAPE_URDF.replace('"tool0"', '"sensor_mount"').replace(
        '<link name="ft_frame"/>', ""
    )
    no_ft = no_ft[: no_ft.index('  <joint name="wrist_3_link-ft_frame"')] + "</robot>"
    assert RobotModel.from_urdf_string(no_ft).tip_link == "sensor_mount"


@pytest.mark.parametrize(
    "tcp",
    [
        "tcp",
        "ur_tcp",
        "arm_tcp_link",
        "tool_frame",
        "arm_tool_frame",
        "j2_end_effector",
        "end_effector_link",  # Kinova Gen3's flange, the tip with a gripper (no tool_frame)
    ],
)
def test_without_tool0_the_one_tool_centre_point_is_the_tip(tcp):
    """A link named as a tool centre point (or so followed by _link) is the tip when tool0 is
    not there; two are ambiguous again; tool0 comes first."""
    model = RobotModel.from_urdf_string(UR_SHAPE_URDF.replace('"tool0"', f'"{tcp}"'))
    assert model.tip_link == tcp
    two = UR_SHAPE_URDF.replace('"tool0"', f'"{tcp}"').replace('"ft_frame"', '"other_tcp"')
    if "tcp" in tcp:
        assert RobotModel.from_urdf_string(two).tip_link is None
    with_tool0 = UR_SHAPE_URDF.replace('"ft_frame"', f'"{tcp}"')
    assert RobotModel.from_urdf_string(with_tool0).tip_link == "tool0"


def test_leaf_ending_the_longest_chain_is_the_tip():
    """A tree whose left branch has one more moving body: its leaf is the tip; tool0 anywhere
    in the model takes precedence."""
    longer = robot_urdfs.YTREE6_URDF
    assert RobotModel.from_urdf_string(longer).tip_link == "right_l3"
    with_tool0 = longer.replace('"left_l3"', '"tool0"')
    assert RobotModel.from_urdf_string(with_tool0).tip_link == "tool0"


def test_mimic_joints_count_in_the_chain_length():
    """The Panda's fingers (finger_joint2 mimics finger_joint1) end chains of equal length: the
    tip is the hand's tool centre point between them."""
    panda = load_model("panda_gripper")
    assert set(panda.tree.tip_candidates) == {"panda_leftfinger", "panda_rightfinger"}
    assert panda.tip_link == "panda_hand_tcp"


_MIMIC = '<mimic joint="j3" multiplier="-0.7" offset="0.2"/>'
_NO_MIMIC = robot_urdfs.MIXED_URDF.replace(_MIMIC, "")


@pytest.mark.parametrize(
    "target, base_link, rule",
    [
        ("j3_typo", None, MIMIC_TARGET_MISSING),
        ("tool_joint", None, MIMIC_TARGET_FIXED),
        ("j3", "l3", MIMIC_TARGET_OUTSIDE),
    ],
)
def test_a_mimic_of_no_movable_joint_loads_as_an_independent_joint(target, base_link, rule, rng):
    """A <mimic> naming a joint the URDF lacks, a fixed joint, or a joint above the base link
    loads (as Pinocchio's default parser loads it): its joint is actuated, with a warning that
    names both joints and the rule; the dynamics are those of the URDF without the <mimic>."""
    xml = robot_urdfs.MIXED_URDF.replace(_MIMIC, _MIMIC.replace('"j3"', f'"{target}"'))
    g = (0.0, 0.0, -9.81)  # in the base frame (l3 moves: the root's down would be named)
    model = RobotModel.from_urdf_string(xml, base_link=base_link, gravity=g)
    assert "j5" in model.joint_names and model.mimic_joints == {}
    (warning,) = model.joint_warnings
    assert (warning.joint, warning.rule) == ("j5", rule)
    assert "'j5'" in str(warning) and f"'{target}'" in str(warning) and rule in str(warning)
    reference = RobotModel.from_urdf_string(_NO_MIMIC, base_link=base_link, gravity=g)
    assert reference.joint_warnings == ()
    _same_dynamics(model, reference, rng, what=rule)


def test_a_mimic_of_an_independent_mimic_joint_follows_it():
    """j6 mimics j5, whose own <mimic> names no joint: j5 is actuated and j6 follows it."""
    xml = robot_urdfs.MIXED_URDF.replace(_MIMIC, _MIMIC.replace('"j3"', '"gone"')).replace(
        '<limit lower="-3" upper="3" effort="20" velocity="3"/>\n  </joint>\n  <link name="l6">',
        '<limit lower="-3" upper="3" effort="20" velocity="3"/>\n'
        '    <mimic joint="j5" multiplier="2.0" offset="-0.1"/>\n  </joint>\n  <link name="l6">',
    )
    model = RobotModel.from_urdf_string(xml)
    assert [w.joint for w in model.joint_warnings] == ["j5"]
    assert model.mimic_joints == {"j6": ("j5", 2.0, -0.1)}
    assert model.joint_names == ("j1", "j2", "j3", "j4", "j5")


def test_a_mimic_of_a_mimic_joint_composes_both(rng):
    """j6 mimics j5, which mimics j3: j6 = 2 j5 - 0.1 = 2 (-0.7 j3 + 0.2) - 0.1 = -1.4 j3 + 0.3,
    and every link is where the URDF without mimics puts it with j5 and j6 so set."""
    xml = robot_urdfs.MIXED_URDF.replace(
        '<limit lower="-3" upper="3" effort="20" velocity="3"/>\n  </joint>\n  <link name="l6">',
        '<limit lower="-3" upper="3" effort="20" velocity="3"/>\n'
        '    <mimic joint="j5" multiplier="2.0" offset="-0.1"/>\n  </joint>\n  <link name="l6">',
    )
    model = RobotModel.from_urdf_string(xml)
    assert model.joint_names == ("j1", "j2", "j3", "j4")
    driver, multiplier, offset = model.mimic_joints["j6"]
    assert driver == "j3" and multiplier == pytest.approx(-1.4) and offset == pytest.approx(0.3)
    free = RobotModel.from_urdf_string(_NO_MIMIC)
    assert free.joint_names == ("j1", "j2", "j3", "j4", "j5", "j6")
    for q in random_state(model, "mixed", rng, shape=(5,))[0]:
        q_free = np.append(q, [-0.7 * q[2] + 0.2, -1.4 * q[2] + 0.3])
        for link in ("l5", "l6", "tool"):
            assert_close(model.frame_pose(q, link), free.frame_pose(q_free, link), 1e-12, link)


@pytest.mark.parametrize("jtype", ["floating", "planar"])
def test_a_free_joint_loads_as_a_fixed_joint_with_a_warning(jtype, rng):
    """The mixed robot's mount joint (between its base and the arm, with an origin) as a
    floating or planar joint: the model is the fixed-base one (the joint fixed at its origin),
    with a warning naming the joint, its type and the base link that leaves it out."""
    fixed = '<joint name="mount_joint" type="fixed">'
    assert fixed in robot_urdfs.MIXED_URDF
    xml = robot_urdfs.MIXED_URDF.replace(fixed, fixed.replace("fixed", jtype))
    model = RobotModel.from_urdf_string(xml)
    (warning,) = model.joint_warnings
    assert (warning.joint, warning.rule) == ("mount_joint", FREE_JOINT_FIXED)
    assert jtype in str(warning) and "base_link='mount'" in str(warning)
    _same_dynamics(model, load_model("mixed"), rng, what=jtype)
    q = random_state(model, "mixed", rng)[0]
    assert_close(model.jacobian(q), load_model("mixed").jacobian(q), 1e-12, f"{jtype} J")
    assert RobotModel.from_urdf_string(xml, base_link="mount").joint_warnings == ()
    # deeper in the tree (a payload under the tool) it is a loose body, not a floating base
    tool = '<joint name="tool_joint" type="fixed">'
    deep = robot_urdfs.MIXED_URDF.replace(tool, tool.replace("fixed", jtype))
    (warning,) = RobotModel.from_urdf_string(deep).joint_warnings
    assert warning.joint == "tool_joint" and "carried as if fixed there" in str(warning)
    assert "base_link=" not in str(warning)


def test_mimic_joints_that_form_a_cycle_are_refused():
    xml = robot_urdfs.MIXED_URDF.replace(_MIMIC, _MIMIC.replace('"j3"', '"j6"')).replace(
        '<limit lower="-3" upper="3" effort="20" velocity="3"/>\n  </joint>\n  <link name="l6">',
        '<limit lower="-3" upper="3" effort="20" velocity="3"/>\n'
        '    <mimic joint="j5"/>\n  </joint>\n  <link name="l6">',
    )
    with pytest.raises(KinematicTreeError, match="cycle"):
        RobotModel.from_urdf_string(xml)


def test_with_payload_point_mass_equals_urdf(rng):
    """A point mass at the tip-frame origin = the tip link's URDF given that mass."""
    base = dp_model()
    heavy_tip = DP_XML.replace(
        '<link name="tip"/>',
        '<link name="tip"><inertial><origin xyz="0 0 0"/>'
        '<mass value="2.0"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/>'
        "</inertial></link>",
    )
    _same_dynamics(
        base.with_payload(2.0, (0.0, 0.0, 0.0)), dp_model(heavy_tip), rng, what="payload 2 kg"
    )
    _same_dynamics(
        base.with_payload(2.0, (0.0, 0.0, 0.0), frame="tip"),
        dp_model(heavy_tip),
        rng,
        what="payload on frame tip",
    )
    # the original model is unchanged
    _same_dynamics(base, dp_model(), rng, what="original after with_payload")


def test_with_payload_rigid_body_equals_urdf(rng):
    """A payload with COM offset and inertia (frame axes, about its COM) on the mixed robot's
    tool."""
    com = (0.03, -0.02, 0.05)
    I = np.array([[0.004, 0.0003, -0.0002], [0.0003, 0.005, 0.0001], [-0.0002, 0.0001, 0.003]])
    m = load_model("mixed").with_payload(0.9, com, inertia=I)
    child = (
        f'<joint name="payload_joint" type="fixed"><parent link="tool"/><child link="payload"/>'
        f'<origin xyz="{com[0]} {com[1]} {com[2]}"/></joint><link name="payload"><inertial>'
        f'<mass value="0.9"/><inertia ixx="{I[0, 0]}" ixy="{I[0, 1]}" ixz="{I[0, 2]}" '
        f'iyy="{I[1, 1]}" '
        f'iyz="{I[1, 2]}" izz="{I[2, 2]}"/></inertial></link></robot>'
    )
    ref = RobotModel.from_urdf_string(robot_urdfs.MIXED_URDF.replace("</robot>", child))
    _same_dynamics(m, ref, rng, what="payload with inertia")
    q = random_state(m, "mixed", rng)[0]
    assert_close(m.jacobian(q), ref.jacobian(q, frame="tool"), 1e-12, "tip stays the tool")


def test_armature(rng):
    arm = np.array([0.1, 0.25])
    a = dp_model()
    b = a.with_armature(arm)
    c = dp_model(armature=arm)
    q, qd, qdd = rng.normal(size=(3, 4, 2))
    assert_close(
        b.mass_matrix(q) - a.mass_matrix(q),
        np.broadcast_to(np.diag(arm), (4, 2, 2)),
        1e-12,
        "armature on M's diagonal",
    )
    assert_close(
        c.mass_matrix(q), b.mass_matrix(q), 1e-12, "from_urdf_string(armature=) = with_armature"
    )
    assert_close(
        b.inverse_dynamics(q, qd, qdd) - a.inverse_dynamics(q, qd, qdd),
        arm * qdd,
        1e-12,
        "armature in inverse dynamics",
    )
    assert_close(
        b.forward_dynamics(q, qd, b.inverse_dynamics(q, qd, qdd)), qdd, 1e-10, "FD with armature"
    )


def test_friction_from_urdf_dynamics(rng):
    m = load_model("mixed")
    names = list(m.joint_names)
    damping = {"j1": 0.5, "j2": 2.0}
    friction = {"j1": 0.2, "j3": 0.1}
    d = np.array([damping.get(n, 0.0) for n in names])
    f = np.array([friction.get(n, 0.0) for n in names])
    assert_close(m.friction.viscous, d, 0, "damping")
    assert_close(m.friction.coulomb, f, 0, "friction")
    qd = rng.normal(size=(3, m.n))
    smooth = d * qd + f * np.tanh(qd / 0.01)  # the default smooth sign, v_eps = 0.01
    assert_close(m.friction_torques(qd), smooth, 1e-14, "friction torques")
    exact = d * qd + f * np.sign(qd)
    assert_close(m.friction_torques(qd, velocity_threshold=0.0), exact, 1e-14, "sign")
    m2 = m.with_friction(FrictionModel(np.ones(m.n), np.zeros(m.n)))
    assert_close(m2.friction_torques(qd), qd, 1e-14, "with_friction override")
    assert_close(m.friction_torques(qd), smooth, 1e-14, "original unchanged")


def test_gravity_override(rng):
    a = dp_model()
    b = a.with_gravity((0.0, 0.0, -9.81))
    assert_close(b.gravity, [0, 0, -9.81], 0, "gravity")
    q = rng.normal(size=(3, 2))
    assert_close(b.gravity_torques(q), np.zeros((3, 2)), 1e-12, "gravity normal to the plane")
    assert_close(
        dp_model(gravity=(0, -19.62, 0)).gravity_torques(q), 2 * a.gravity_torques(q), 1e-12, "2 g"
    )


MOUNT_RPY = (-0.7, 0.3, 0.2)


def _mounted_panda(joint_type="fixed"):
    """The Panda on a tilted mount below a ``world`` root (one arm of a multi-arm description,
    or an arm hung on a wall), the mount joint of ``joint_type``."""
    limit = '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
    mount = (
        f'<link name="world"/><joint name="mount" type="{joint_type}"><parent link="world"/>'
        '<child link="panda_link0"/><origin xyz="0.1 0.2 0.5" '
        f'rpy="{" ".join(map(str, MOUNT_RPY))}"/>{limit if joint_type != "fixed" else ""}'
        "</joint>"
    )
    xml = robot_urdfs.urdf_xml("bundled_panda")
    return re.sub(r"(<robot[^>]*>)", lambda m: m.group(1) + mount, xml, count=1)


def test_default_gravity_is_the_roots_down_as_the_base_sees_it(rng):
    """Without a gravity, a model based on a link the URDF tilts takes the root's down in that
    link's axes: one arm of the description has the whole description's gravity torques (the
    mass matrix never depended on it). A given gravity is taken as given; a joint above the base
    that turns it is named (gravity's direction is that of the joint at 0)."""
    from scipy.spatial.transform import Rotation

    xml = _mounted_panda()
    whole = RobotModel.from_urdf_string(xml)
    arm = RobotModel.from_urdf_string(xml, base_link="panda_link0")
    assert_close(whole.gravity, [0, 0, -9.81], 0, "the root's gravity")
    rotation = Rotation.from_euler("xyz", MOUNT_RPY).as_matrix()  # URDF rpy: extrinsic x, y, z
    assert_close(arm.gravity, rotation.T @ [0, 0, -9.81], 1e-15, "the root's down in the base")
    q = rng.uniform(-1, 1, size=(5, 7))
    assert_close(arm.gravity_torques(q), whole.gravity_torques(q), 1e-12, "g of one arm")
    assert_close(arm.mass_matrix(q), whole.mass_matrix(q), 1e-12, "M of one arm")
    assert not arm.joint_warnings
    given = RobotModel.from_urdf_string(xml, base_link="panda_link0", gravity=(0, 0, -9.81))
    assert_close(given.gravity, [0, 0, -9.81], 0, "given gravity")

    turned = RobotModel.from_urdf_string(_mounted_panda("revolute"), base_link="panda_link0")
    assert [(w.joint, w.rule) for w in turned.joint_warnings] == [("mount", GRAVITY_JOINT_ABOVE)]
    assert "with it at 0" in str(turned.joint_warnings[0])
    assert_close(turned.gravity, arm.gravity, 1e-15, "the mount at 0")
    slid = RobotModel.from_urdf_string(_mounted_panda("prismatic"), base_link="panda_link0")
    assert not slid.joint_warnings  # a slide does not turn the base
    assert not RobotModel.from_urdf_string(
        _mounted_panda("revolute"), base_link="panda_link0", gravity=(0, 0, -9.81)
    ).joint_warnings


def test_a_description_in_millimetres_is_named():
    """The Panda with every length in millimetres (its gravity torques 1000 times too large)
    loads as given with a warning naming the joint that moves the farthest frame and the unit;
    in metres, none."""
    xml = robot_urdfs.urdf_xml("bundled_panda")
    mm = re.sub(
        r'xyz="([^"]*)"',
        lambda m: 'xyz="' + " ".join(str(1000 * float(v)) for v in m.group(1).split()) + '"',
        xml,
    )
    model = RobotModel.from_urdf_string(mm)
    far = [w for w in model.joint_warnings if w.rule == FAR_FROM_BASE_RULE]
    assert len(far) == 1 and far[0].joint in model.joint_names, model.joint_warnings
    assert "m from base link 'panda_link0'" in str(far[0]) and "millimetres" in str(far[0])
    assert not RobotModel.from_urdf_string(xml).joint_warnings


ODD_URDFS = {
    "material_rgb3": (
        '<link name="link2">',
        '<link name="link2"><visual><geometry><box size="1 0.1 0.1"/>'
        '</geometry><material name="red"><color rgba="1 0 0"/></material></visual>',
    ),
    "transmission_odd": (
        "</robot>",
        '<transmission name="t1"><type>transmission_interface/SimpleTransmission'
        '</type><joint name="joint1"><hardwareInterface>EffortJointInterface</hardwareInterface>'
        '</joint><actuator name="m1"><mechanicalReduction>abc</mechanicalReduction></actuator>'
        "</transmission></robot>",
    ),
    "visual_capsule": (
        '<link name="link2">',
        '<link name="link2"><visual><geometry><capsule radius="0.1" '
        'length="1"/></geometry></visual>',
    ),
    "box_two_values": ('<box size="1.0 0.1 0.1"/>', '<box size="1.0 0.1"/>'),
    "material_bad_rgba": (
        '<link name="base_link"/>',
        '<material name="blue"><color rgba="0 0 1 oops"/></material><link name="base_link"/>',
    ),
    "transmission_unnamed": ("</robot>", "<transmission><type>x</type></transmission></robot>"),
}


@pytest.mark.parametrize("case", sorted(ODD_URDFS))
def test_urdf_parser_py_rejects_but_we_load(case, rng, caplog):
    """The core reads only links' inertials and joints: elements urdf_parser_py rejects
    (visuals, materials, transmissions) are never parsed, so they load silently."""
    old, new = ODD_URDFS[case]
    xml = DP_XML.replace(old, new, 1)
    assert xml != DP_XML
    try:  # the premise: urdf_parser_py itself rejects this file
        from urdf_parser_py.urdf import URDF

        with pytest.raises(Exception):
            URDF.from_xml_string(xml)
    except ImportError:
        pass
    caplog.set_level(logging.WARNING)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = dp_model(xml)
    warned = [str(x.message) for x in w] + [
        r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING
    ]
    assert not warned, f"elements dynamics does not read should not matter: {warned}"
    _same_dynamics(m, dp_model(), rng, what=case)


def test_urdf_from_path_or_string(rng):
    a = RobotModel.from_urdf_file(robot_urdfs.DOUBLE_PENDULUM_URDF, gravity=DP_GRAVITY)
    b = RobotModel.from_urdf_string(DP_XML, gravity=DP_GRAVITY)
    _same_dynamics(a, b, rng, what="path vs XML string")
    c = RobotModel.from_urdf_file(
        pathlib.Path(robot_urdfs.DOUBLE_PENDULUM_URDF), gravity=DP_GRAVITY
    )
    d = RobotModel.from_urdf_string(DP_XML.encode("utf-8"), gravity=DP_GRAVITY)
    _same_dynamics(c, d, rng, what="pathlib.Path vs UTF-8 bytes")
