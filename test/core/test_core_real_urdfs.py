"""Every URDF of example-robot-data that Pinocchio loads loads by default, and its dynamics equal
Pinocchio's (1e-9 of the largest reference value).

The files are found through the installed example-robot-data package (robot_urdfs.robots_dir) and
parametrise the tests, TIAGo, PR2, Romeo, the Allegro hands, ANYmal+Kinova and B1+Z1 among
them (and Alex's psyonic hands, whose finger <mimic> elements name joints the file does not
have: those fingers load as independent joints, with warnings). Joints are mapped by name,
mimic joints reduced through q_full = G q + offset (oracles.PinOracle). Two random
configurations per file. Beside them, what other real descriptions do: unexpanded xacro files
refused saying so, a default XML namespace (Drake's) and a declared Latin-1 encoding loaded.
"""

import glob
import os
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")

import oracles  # noqa: E402
import robot_urdfs  # noqa: E402
import urdf_reader  # noqa: E402
from oracles import assert_close  # noqa: E402
from robot_dynamics import RobotModel  # noqa: E402
from robot_dynamics.core.errors import (  # noqa: E402
    InvalidURDFValueError,
    KinematicTreeError,
    SingularInertiaError,
    URDFError,
)
from robot_dynamics.core.inertia import INDEFINITE_BODY  # noqa: E402
from robot_dynamics.core.joint_warnings import FREE_JOINT_FIXED, MIMIC_TARGET_MISSING  # noqa: E402

TOL = 1e-9
N_CONF = 2

#: Real descriptions with odd inertias, mimics or joints that must load by default (with named
#: warnings); each must be among the files tested.
NAMED = (
    "tiago_description/robots/tiago.urdf",
    "pr2_description/urdf/pr2.urdf",
    "romeo_description/urdf/romeo_small.urdf",
    "allegro_hand_description/urdf/allegro_left_hand.urdf",
    "allegro_hand_description/urdf/allegro_right_hand.urdf",
    "anymal_b_simple_description/robots/anymal-kinova.urdf",
    "b1_description/urdf/b1-z1.urdf",
)


def _pinocchio_loads(path):
    try:
        pin.buildModelFromUrdf(path)
    except (ValueError, RuntimeError):
        return False
    return True


def _files():
    if not robot_urdfs.has_erd():
        return []
    root = robot_urdfs.robots_dir()
    paths = sorted(glob.glob(os.path.join(root, "**", "*.urdf"), recursive=True))
    return [os.path.relpath(p, root) for p in paths if _pinocchio_loads(p)]


FILES = _files()
pytestmark = pytest.mark.skipif(not FILES, reason="example-robot-data not installed")


def _path(rel):
    return os.path.join(robot_urdfs.robots_dir(), rel)


def test_the_odd_real_descriptions_are_among_the_files_tested():
    assert set(NAMED) <= set(FILES), sorted(set(NAMED) - set(FILES))
    assert len(FILES) >= 60


def test_mimics_of_joints_a_file_does_not_have_load_as_independent_joints():
    """alex_psyonic_hands: each finger's second joint mimics 'index_q1', ... (the file's joints
    are 'Left_index_q1', ...): loaded as independent joints, one warning each."""
    rel = "alex_description/urdf/alex_psyonic_hands.urdf"
    assert rel in FILES
    model = RobotModel.from_urdf_file(_path(rel))
    warned = {w.joint: w for w in model.joint_warnings}
    fingers = [
        f"{side}_{f}_q2" for side in ("Left", "Right") for f in ("index", "middle", "ring", "pinky")
    ]
    assert sorted(warned) == sorted(fingers)
    assert all(w.rule == MIMIC_TARGET_MISSING for w in warned.values())
    assert "'index_q1'" in warned["Left_index_q2"].message
    assert set(fingers) <= set(model.joint_names)


@pytest.mark.parametrize("rel", FILES)
def test_loads_by_default_and_equals_pinocchio(rel, rng):
    xml = open(_path(rel)).read()
    model = RobotModel.from_urdf_string(xml)
    links = {link.get("name") for link in ET.fromstring(xml).findall("link")}
    assert {warning.link for warning in model.inertia_warnings} <= links
    if model.n == 0:
        assert pin.buildModelFromXML(xml).nv == 0
        return
    P = oracles.PinOracle(xml, model.joint_names)
    q = urdf_reader.random_q(P.info, model.joint_names, rng, (N_CONF,))
    qd = rng.normal(size=q.shape)
    qdd = rng.normal(size=q.shape)
    frame = model.tip_link or model.leaf_links[-1]
    for i in range(N_CONF):
        assert_close(
            model.inverse_dynamics(q[i], qd[i], qdd[i]),
            P.rnea(q[i], qd[i], qdd[i]),
            TOL,
            f"{rel} inverse dynamics",
        )
        assert_close(model.gravity_torques(q[i]), P.gravity_torques(q[i]), TOL, f"{rel} gravity")
        assert_close(model.mass_matrix(q[i]), P.mass_matrix(q[i]), TOL, f"{rel} mass matrix")
        assert_close(
            model.jacobian(q[i], frame=frame), P.jacobian(q[i], frame), TOL, f"{rel} J {frame}"
        )


def test_inertia_warnings_are_what_strict_refuses():
    """strict_inertia refuses exactly the files that load with inertia warnings."""
    warned = 0
    for rel in FILES:
        model = RobotModel.from_urdf_file(_path(rel))
        if model.inertia_warnings:
            warned += 1
            with pytest.raises(InvalidURDFValueError, match="strict_inertia"):
                RobotModel.from_urdf_file(_path(rel), strict_inertia=True)
        else:
            RobotModel.from_urdf_file(_path(rel), strict_inertia=True)
    assert warned >= 10


def test_romeo_hips_load_with_exact_indefinite_body_warnings():
    """romeo_laas_small's thighs are indefinite (principal moments about -0.0027, 0.0395,
    0.054 kg m^2, 5 % negative) but move only by rotations about the hip point, where their
    inertia is positive definite: each loads with an exact indefinite_body warning (the
    comparison with Pinocchio is test_loads_by_default_and_equals_pinocchio); strict_inertia
    refuses them."""
    rel = "romeo_description/urdf/romeo_laas_small.urdf"
    assert rel in FILES
    path = _path(rel)
    model = RobotModel.from_urdf_file(path)
    bodies = [w for w in model.inertia_warnings if w.rule == INDEFINITE_BODY]
    assert [(w.link, w.joint, w.exact) for w in bodies] == [
        ("LHipPitch_link", "LHipPitch_joint", True),
        ("RHipPitch_link", "RHipPitch_joint", True),
    ]
    assert all(-0.0029 < w.moments[0] < -0.0027 for w in bodies)
    with pytest.raises(InvalidURDFValueError, match="strict_inertia") as ei:
        RobotModel.from_urdf_file(path, strict_inertia=True)
    assert "'LHipPitch_link'" in str(ei.value) and INDEFINITE_BODY in str(ei.value)


def test_romeo_grippers_make_m_singular_and_forward_dynamics_says_which():
    """romeo_laas_small's gripper joints move no mass (M has zero rows at them): forward
    dynamics by CRBA and by the articulated-body algorithm refuse with the joint's name
    (Pinocchio's M has the same zero row)."""
    rel = "romeo_description/urdf/romeo_laas_small.urdf"
    assert rel in FILES
    model = RobotModel.from_urdf_file(_path(rel))
    q = np.zeros(model.n)
    k = model.joint_index("l_gripper_joint")
    pin_M = oracles.PinOracle(open(_path(rel)).read(), model.joint_names).mass_matrix(q)
    assert model.mass_matrix(q)[k, k] == 0.0 and np.all(pin_M[k] == 0.0)
    for method in (model.forward_dynamics, model.aba):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(SingularInertiaError, match="'l_gripper_joint'"):
                method(q, q, q)


def test_a_floating_root_joint_loads_as_fixed_with_a_warning(rng):
    """g1's file with its commented floating base joint restored: it loads, the floating joint
    fixed at its origin, with a warning naming the joint and the base link that leaves it out;
    by default and with that base link, the model equals Pinocchio's fixed-base model of the
    file without the joint."""
    rel = "g1_description/urdf/g1_29dof_rev_1_0.urdf"
    assert rel in FILES
    xml = open(_path(rel)).read()
    floating = xml.replace('<!-- <link name="world"></link>', '<link name="world"></link>')
    floating = floating.replace("</joint> -->", "</joint>", 1)
    links = lambda text: len(ET.fromstring(text).findall("link"))  # noqa: E731
    assert 'type="floating"' in floating and links(floating) == links(xml) + 1
    by_default = RobotModel.from_urdf_string(floating)
    (warning,) = by_default.joint_warnings
    assert (warning.joint, warning.rule) == ("floating_base_joint", FREE_JOINT_FIXED)
    assert "base_link='pelvis'" in str(warning)
    at_pelvis = RobotModel.from_urdf_string(floating, base_link="pelvis")
    assert at_pelvis.joint_warnings == ()
    P = oracles.PinOracle(xml, at_pelvis.joint_names)
    q = urdf_reader.random_q(P.info, at_pelvis.joint_names, rng, ())
    qd, qdd = rng.normal(size=(2, at_pelvis.n))
    for model in (by_default, at_pelvis):
        assert model.joint_names == at_pelvis.joint_names
        assert_close(model.inverse_dynamics(q, qd, qdd), P.rnea(q, qd, qdd), TOL, "g1 ID")
        assert_close(model.mass_matrix(q), P.mass_matrix(q), TOL, "g1 M")
        frame = at_pelvis.tip_link or at_pelvis.leaf_links[-1]
        assert_close(model.jacobian(q, frame=frame), P.jacobian(q, frame), TOL, f"g1 J {frame}")


XACRO_FILES = sorted(
    os.path.relpath(p, robot_urdfs.robots_dir())
    for p in glob.glob(
        os.path.join(robot_urdfs.robots_dir() or "/nonexistent", "**", "*.xacro"), recursive=True
    )
)


@pytest.mark.parametrize("rel", XACRO_FILES)
def test_an_unexpanded_xacro_file_is_refused_saying_so(rel):
    """example-robot-data's xacro files (macros and includes, no links) are refused with the
    step that makes them URDF; ur3.urdf, expanded but empty, declares the xacro namespace
    without xacro elements and is refused for having no links only."""
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_file(_path(rel))
    assert "xacro elements" in str(ei.value) and "xacro robot.urdf.xacro" in str(ei.value)
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_file(_path("ur_description/urdf/ur3.urdf"))
    assert str(ei.value) == "the URDF has no links"


def test_a_xacro_substitution_left_in_a_number_says_so():
    """A description whose links are there but whose numbers still hold xacro arguments (sent
    unexpanded on the robot_description topic, say): the number is named, and the fix. A link
    or joint named by a substitution is named the same way."""
    xml = (
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="base"/>'
        '<link name="l1"><inertial><mass value="1"/>'
        '<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>'
        '<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>'
        '<origin xyz="0 0 ${height}"/><axis xyz="0 0 1"/>'
        '<limit effort="1" velocity="1" lower="-1" upper="1"/></joint></robot>'
    )
    with pytest.raises(InvalidURDFValueError) as ei:
        RobotModel.from_urdf_string(xml)
    message = str(ei.value)
    assert "'0 0 ${height}' is an unexpanded xacro substitution" in message, message
    assert "xacro robot.urdf.xacro > robot.urdf" in message
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(xml.replace('"j1"', '"$(arg prefix)j1"'))
    assert "unexpanded xacro file, with names such as '$(arg prefix)j1'" in str(ei.value)


def test_a_xacro_file_with_a_link_before_its_macros_is_refused_saying_so():
    """The official UR and Kinova xacro files start with a literal world link before their macro
    calls: read as URDF they would be a robot of one link and no joint. The xacro elements left
    are named, and the fix."""
    xml = (
        '<robot name="$(arg name)" xmlns:xacro="http://wiki.ros.org/xacro">'
        '<xacro:arg name="name" default="ur"/><link name="world"/>'
        '<xacro:include filename="$(find ur_description)/urdf/ur_macro.xacro"/>'
        '<xacro:ur_robot name="$(arg name)" parent="world"/></robot>'
    )
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(xml)
    assert "unexpanded xacro file, with xacro elements (arg, include, ur_robot)" in str(ei.value)


def test_a_default_namespace_and_a_declared_encoding_load_as_urdfdom_loads_them():
    """Drake's URDFs put the robot in a default namespace (urdfdom ignores it); older files
    declare ISO-8859-1 and carry a Latin-1 byte (an author's name, a degree sign): both load,
    the same model as the plain file. Latin-1 bytes without the declaration are refused as not
    UTF-8."""
    plain = robot_urdfs.urdf_xml("double_pendulum")
    assert plain.lstrip().startswith("<?xml") or "<robot" in plain
    body = plain[plain.index("<robot") :]
    spaced = body.replace("<robot ", '<robot xmlns="http://drake.mit.edu" ', 1)
    reference = RobotModel.from_urdf_string(body)
    q = np.array([0.3, -0.4])
    for text in (
        spaced,
        ('<?xml version="1.0" encoding="ISO-8859-1"?>\n<!-- 90\xb0 -->\n' + body).encode("latin-1"),
    ):
        model = RobotModel.from_urdf_string(text)
        assert model.joint_names == reference.joint_names
        assert_close(model.mass_matrix(q), reference.mass_matrix(q), 0, "M")
    with pytest.raises(URDFError, match="not text in its encoding"):
        RobotModel.from_urdf_string(("<!-- 90\xb0 -->" + body).encode("latin-1"))
