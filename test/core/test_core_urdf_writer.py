"""The identified-URDF writer (``core/urdf_writer.py``) against the reader (``core/urdf.py``):

* round trip: random physically consistent inertias and friction written into a URDF read back,
  with the reader, as a model whose body inertias are the given ones to 1e-12 and whose joint
  friction is the given one exactly, on the local mixed chain (fixed links merged, rotated
  inertials, a mimic joint) and on example-robot-data URDFs;
* everything else unchanged: the text without its ``<inertial>`` and ``<dynamics>`` elements is
  the original's, character for character (comments, visuals, limits, namespace declarations);
  the element trees agree too;
* elements added where there are none (an empty link, a link without an inertial, a joint without
  ``<dynamics>``), indented as their neighbours; a layout without friction leaves ``<dynamics>``
  alone; solver residue written as 0;
* typed errors: a layout of another model, a theta of the wrong size or not finite, the text of
  another robot, parameters the reader would refuse.
"""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.errors import InvalidInputError, InvalidURDFValueError, URDFError
from robot_dynamics.core.regressor import (
    ParameterLayout,
    body_parameters,
    inertia_to_parameters,
)
from robot_dynamics.core.spatial import rpy_to_matrix, spatial_inertia
from robot_dynamics.core.urdf_writer import identified_urdf, number_text

import robot_urdfs


def random_theta(model, layout, rng):
    """Physically consistent random inertias (each body a rotated box of random mass) and
    friction in ``layout``."""
    theta = layout.nominal(model)
    for b in range(layout.nb):
        mass = rng.uniform(0.2, 5.0)
        second = rng.uniform(1e-4, 2e-2, 3)  # sum of m x^2 along each principal axis
        moments = np.array([second[1] + second[2], second[0] + second[2], second[0] + second[1]])
        R = rpy_to_matrix(rng.uniform(-np.pi, np.pi, 3))
        inertia = mass * R @ np.diag(moments) @ R.T
        I6 = spatial_inertia(mass, rng.uniform(-0.2, 0.2, 3), inertia)
        theta[10 * b : 10 * b + 10] = inertia_to_parameters(I6)
    for group in ("viscous", "coulomb"):
        if group in layout.groups:
            theta[layout.group_slice(group)] = rng.uniform(0.0, 2.0, len(layout.joints(group)))
    return theta


def assert_round_trip(written, model, layout, theta):
    """The reader's model of ``written`` has the bodies and friction of ``theta``."""
    read = RobotModel.from_urdf_string(written, **_model_kwargs(model))
    assert read.joint_names == model.joint_names
    assert read.tree.body_link_names == model.tree.body_link_names
    given = theta[: layout.n_inertial]
    scale = np.abs(given.reshape(-1, 10)).max(axis=1).repeat(10)
    np.testing.assert_allclose(body_parameters(read), given, rtol=1e-12, atol=1e-12 * scale.max())
    assert np.all(np.abs(body_parameters(read) - given) <= 1e-12 * scale)
    if "viscous" in layout.groups:
        np.testing.assert_array_equal(read.friction.viscous, layout.joint_values(theta, "viscous"))
        np.testing.assert_array_equal(read.friction.coulomb, layout.joint_values(theta, "coulomb"))
    return read


def _model_kwargs(model):
    return {"base_link": model.base_link, "tip_link": model.tip_link}


_INERTIAL = re.compile(r"[ \t]*<inertial\b.*?</inertial>", re.S)
_DYNAMICS = re.compile(r"[ \t]*<dynamics\b[^>]*?/>")


def without_written_elements(text, dynamics=True):
    """The text without ``<inertial>`` elements (and ``<dynamics .../>``) and the blank lines
    they leave."""
    text = _INERTIAL.sub("", text)
    if dynamics:
        text = _DYNAMICS.sub("", text)
    return "\n".join(line for line in text.splitlines() if line.strip())


def _canonical(element, skip):
    """(tag, attributes, text, children) of an element tree, comments included, without the
    elements ``skip(parent, child)`` names; white space around elements ignored."""
    tag = element.tag if isinstance(element.tag, str) else element.tag.__name__
    children = [_canonical(c, skip) for c in element if not skip(element, c)]
    return tag, dict(element.attrib), (element.text or "").strip(), children


def _tree(text):
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    return ET.fromstring(text, parser=parser)


def assert_rest_unchanged(original, written, model, text=True):
    """Everything but the inertials of moving links and the actuated joints' friction is kept
    (``text``: character for character; else as element trees)."""
    if text:
        assert without_written_elements(written) == without_written_elements(original.strip())
    moving = {name for name, info in model.tree.frames.items() if info.body >= 0}
    actuated = set(model.joint_names)

    def skip(parent, child):
        name = parent.get("name")
        return (parent.tag == "link" and name in moving and child.tag == "inertial") or (
            parent.tag == "joint" and name in actuated and child.tag == "dynamics"
        )

    assert _canonical(_tree(written), skip) == _canonical(_tree(original), skip)


def test_round_trip_on_the_mixed_chain(rng):
    xml = robot_urdfs.urdf_xml("mixed")
    model = RobotModel.from_urdf_string(xml)
    layout = ParameterLayout.for_model(model)
    theta = random_theta(model, layout, rng)
    written = identified_urdf(xml, model, layout, theta)
    read = assert_round_trip(written, model, layout, theta)
    assert_rest_unchanged(xml, written, model)
    # the fixed tool's inertial is in l6's body: removed from the tool's link
    tool = _tree(written).find("link[@name='tool']")
    assert tool.find("inertial") is None
    # the mimic joint keeps its <dynamics> (none) and its mimic
    assert _tree(written).find("joint[@name='j5']/dynamics") is None
    assert read.tree.G.shape == model.tree.G.shape
    np.testing.assert_array_equal(read.tree.G, model.tree.G)


ERD_ROBOTS = ("ur5", "panda_gripper", "kinova")


@pytest.mark.skipif(not robot_urdfs.has_erd(), reason="example-robot-data not installed")
@pytest.mark.parametrize("name", ERD_ROBOTS)
def test_round_trip_on_example_robot_data(name, rng):
    xml = robot_urdfs.urdf_xml(name)
    model = RobotModel.from_urdf_string(xml)
    layout = ParameterLayout.for_model(model, asymmetry=True, offset=True)
    theta = random_theta(model, layout, rng)
    written = identified_urdf(xml, model, layout, theta)
    assert_round_trip(written, model, layout, theta)
    assert_rest_unchanged(xml, written, model)
    assert written.count("<!--") == xml.count("<!--") > 0
    declaration = re.search(r"<robot\b[^>]*>", xml)[0]
    assert declaration in written  # xmlns:xacro and the root's layout kept


def test_the_nominal_parameters_read_back_as_the_model():
    xml = robot_urdfs.urdf_xml("bundled_panda")
    model = RobotModel.from_urdf_string(xml)
    layout = ParameterLayout.for_model(model)
    theta = layout.nominal(model)
    read = assert_round_trip(identified_urdf(xml, model, layout, theta), model, layout, theta)
    q = np.linspace(-1.0, 1.0, model.n)
    np.testing.assert_allclose(read.mass_matrix(q), model.mass_matrix(q), rtol=1e-12, atol=1e-14)


SPARSE_URDF = """<?xml version="1.0"?>
<!-- a chain written every which way -->
<robot name="sparse" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <link name="base"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/></joint>
  <link name="a"/>
  <joint name="j2" type="revolute">
    <parent link="a"/>
    <child link="b"/>
    <axis xyz="0 1 0"/>
    <dynamics/>
  </joint>
  <link name="b">
    <visual><geometry><box size="1 1 1"/></geometry></visual>
  </link>
  <joint name="j3" type="revolute">
    <parent link="b"/>
    <child link="c"/>
    <axis xyz="1 0 0"/>
    <dynamics friction="0.5" damping="0.25" x-vendor='a "quoted" value'/>
  </joint>
  <link name="c">
  </link>
</robot>
<!-- end -->
"""


def test_elements_added_where_there_are_none(rng):
    model = RobotModel.from_urdf_string(SPARSE_URDF)
    layout = ParameterLayout.for_model(model)
    theta = random_theta(model, layout, rng)
    written = identified_urdf(SPARSE_URDF, model, layout, theta)
    assert_round_trip(written, model, layout, theta)
    assert_rest_unchanged(SPARSE_URDF, written, model, text=False)  # <link name="a"/> opens
    assert written.endswith("</robot>\n<!-- end -->\n")
    lines = written.splitlines()
    # an empty link opens, its inertial one level in, on lines of their own
    a = lines.index('  <link name="a">')
    assert lines[a + 1] == "    <inertial>" and lines[a + 2].startswith("      <origin xyz=")
    assert lines[a + 5 : a + 7] == ["    </inertial>", "  </link>"]
    # a link with children: the inertial first, as its children are indented
    b = lines.index('  <link name="b">')
    assert lines[b + 1] == "    <inertial>" and lines[b + 5] == "    </inertial>"
    assert lines[b + 6] == '    <visual><geometry><box size="1 1 1"/></geometry></visual>'
    c = lines.index('  <link name="c">')
    assert lines[c + 1] == "    <inertial>"
    assert lines[c + 5 : c + 7] == ["    </inertial>", "  </link>"]
    # a joint written on one line gets its <dynamics> on that line, last; an empty <dynamics/>
    # its attributes
    viscous, coulomb = (layout.joint_values(theta, g) for g in ("viscous", "coulomb"))
    j1 = f'<dynamics damping="{number_text(viscous[0])}" friction="{number_text(coulomb[0])}"/>'
    assert lines[4].endswith(f'<axis xyz="0 0 1"/>{j1}</joint>')
    j2 = f'<dynamics damping="{number_text(viscous[1])}" friction="{number_text(coulomb[1])}"/>'
    assert "    " + j2 in lines
    j3 = _tree(written).find("joint[@name='j3']/dynamics")
    assert list(j3.attrib) == ["friction", "damping", "x-vendor"]
    assert j3.get("x-vendor") == 'a "quoted" value'


def test_a_layout_without_friction_leaves_the_joints_alone(rng):
    xml = robot_urdfs.urdf_xml("mixed")
    model = RobotModel.from_urdf_string(xml)
    layout = ParameterLayout.for_model(model, viscous=False, coulomb=False)
    theta = random_theta(model, layout, rng)
    written = identified_urdf(xml, model, layout, theta)
    assert_round_trip(written, model, layout, theta)
    assert without_written_elements(written, dynamics=False) == without_written_elements(
        xml, dynamics=False
    )


def test_solver_residue_is_written_as_zero():
    xml = robot_urdfs.urdf_xml("double_pendulum")
    model = RobotModel.from_urdf_string(xml, **robot_urdfs.model_kwargs("double_pendulum"))
    layout = ParameterLayout.for_model(model)
    theta = layout.nominal(model)
    residue = np.array([1e-33, -1e-30])
    I6 = spatial_inertia(2.0, np.array([0.5, 1e-17, -0.0]), np.diag([0.01, 0.2, 0.2]))
    I6[3, 4] = I6[4, 3] = residue[0]  # an off-diagonal inertia entry a solver left
    theta[:10] = inertia_to_parameters(I6)
    theta[layout.group_slice("coulomb")] = [-0.0, 0.0]
    written = identified_urdf(xml, model, layout, theta)
    link = _tree(written).find(f"link[@name='{model.tree.body_link_names[0]}']/inertial")
    assert link.find("origin").get("xyz") == "0.5 0.0 0.0"
    assert link.find("inertia").get("ixy") == "0.0"
    assert "-0.0" not in written and not re.search(r"e-(1[5-9]|[2-9]\d)", written)


def test_number_text_reads_back_exactly():
    for x in (0.1, 1.0 / 3.0, -2.5e-7, 6.02e23, np.float64(0.24999999999999997), -0.0):
        assert float(number_text(x)) == float(x)
    assert number_text(-0.0) == "0.0" and number_text(3) == "3.0"


def test_refusals_are_typed_and_named(rng):
    xml = robot_urdfs.urdf_xml("mixed")
    model = RobotModel.from_urdf_string(xml)
    layout = ParameterLayout.for_model(model)
    theta = random_theta(model, layout, rng)
    other = RobotModel.from_urdf_string(robot_urdfs.urdf_xml("double_pendulum"))
    with pytest.raises(InvalidInputError, match="layout was made for another model"):
        identified_urdf(xml, model, ParameterLayout.for_model(other), theta)
    with pytest.raises(InvalidInputError, match=f"the layout has {layout.size} parameters"):
        identified_urdf(xml, model, layout, theta[:-1])
    with pytest.raises(InvalidInputError, match=f"the layout has {layout.size} parameters"):
        identified_urdf(xml, model, layout, theta.reshape(1, -1))
    bad = theta.copy()
    bad[11] = np.nan
    with pytest.raises(InvalidInputError, match=r"theta: l2\.mcx is nan"):
        identified_urdf(xml, model, layout, bad)
    with pytest.raises(InvalidInputError, match="theta must be"):
        identified_urdf(xml, model, layout, ["a"] * layout.size)
    negative = theta.copy()
    negative[layout.group_slice("coulomb")][0] = -1.0
    with pytest.raises(InvalidInputError, match="coulomb"):
        identified_urdf(xml, model, layout, negative)
    # the text of another robot
    with pytest.raises(URDFError, match="no link 'l1', 'l2'"):
        identified_urdf(robot_urdfs.urdf_xml("double_pendulum"), model, layout, theta)
    with pytest.raises(URDFError, match="malformed URDF XML at line 1"):
        identified_urdf("<robot><link name='l1'></robot>", model, layout, theta)
    with pytest.raises(URDFError, match="not URDF XML text"):
        identified_urdf("mixed.urdf", model, layout, theta)
    negative = theta.copy()
    negative[10] = -1.0  # body 1 (l2)
    with pytest.raises(InvalidInputError, match=r"theta: l2\.m is -1\.0 \(a mass is >= 0 kg\)"):
        identified_urdf(xml, model, layout, negative)
    # parameters the reader refuses: named by link and field
    heavy = theta.copy()
    heavy[10:20] *= 1e7  # l2 beyond the reader's 1e6 kg
    with pytest.raises(InvalidURDFValueError, match=r"link 'l2' <mass value>: .* above the max"):
        identified_urdf(xml, model, layout, heavy)
