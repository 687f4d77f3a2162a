"""Reading robot descriptions (robot_dynamics.tools.description, robot_dynamics.tools.robots):
URDF files, xacro files with properties and arguments, standard input, a UTF-8 byte-order mark,
and a typed error for each way it can go wrong. Plain pytest, no ROS."""

import io

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.errors import InvalidInputError, URDFError
from robot_dynamics.tools.bundled import BUNDLED, bundled_urdf_path
from robot_dynamics.tools.description import (
    RobotDescriptionError,
    XacroArgumentError,
    is_xacro,
    load_robot_description,
    parse_xacro_args,
)
from robot_dynamics.tools.robots import build_model, resolve_robot

# A one-joint arm: a xacro property (the link length) and a xacro argument (the mass).
ARM_XACRO = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="arm">
  <xacro:arg name="mass" default="2.0"/>
  <xacro:property name="length" value="0.5"/>
  <xacro:include filename="base.xacro"/>
  <link name="l1">
    <inertial><origin xyz="${length / 2} 0 0"/><mass value="$(arg mass)"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="3"/></joint>
</robot>
"""
BASE_XACRO = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="base"/></robot>
"""


def write_arm(folder, name="arm.urdf.xacro", text=ARM_XACRO, bom=False):
    (folder / "base.xacro").write_text(BASE_XACRO)
    path = folder / name
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def gravity_torque(urdf_text, q=0.0):
    # rotation about +y with the mass on +x: g = m g (length / 2) cos(q) about -y ... the sign is
    # the model's business; the magnitude m g l/2 is what the xacro parameters set.
    model = RobotModel.from_urdf(urdf_text)
    return float(model.gravity_torques(np.array([q]))[0])


def test_xacro_property_include_and_argument(tmp_path):
    path = write_arm(tmp_path)
    default = load_robot_description(str(path))
    assert "xacro" not in default and '<link name="base"/>' in default  # include expanded
    assert abs(gravity_torque(default)) == pytest.approx(2.0 * 9.81 * 0.25)
    heavier = load_robot_description(str(path), ["mass:=3.5"])
    assert abs(gravity_torque(heavier)) == pytest.approx(3.5 * 9.81 * 0.25)
    # the same as one string (the launch file's xacro_args) and as a mapping
    assert load_robot_description(str(path), "mass:=3.5") == heavier
    assert load_robot_description(str(path), {"mass": "3.5"}) == heavier


def test_byte_order_mark_is_dropped(tmp_path):
    urdf = open(bundled_urdf_path("double_pendulum"), encoding="utf-8").read()
    path = tmp_path / "bom.urdf"
    path.write_bytes(b"\xef\xbb\xbf" + urdf.encode("utf-8"))
    text = load_robot_description(str(path))
    assert text == urdf and not text.startswith("\ufeff")
    xacro_path = write_arm(tmp_path, "bom.urdf.xacro", bom=True)
    assert abs(gravity_torque(load_robot_description(str(xacro_path)))) > 0


def test_standard_input():
    urdf = open(bundled_urdf_path("double_pendulum"), encoding="utf-8").read()
    stream = io.BytesIO(b"\xef\xbb\xbf" + urdf.encode("utf-8"))
    assert load_robot_description("-", stdin=stream) == urdf
    source = resolve_robot("-", stdin=io.BytesIO(urdf.encode("utf-8")))
    assert source.path is None and source.label == "<stdin>" and source.bundled is None


def test_parse_xacro_args():
    assert parse_xacro_args(None) == {}
    assert parse_xacro_args('a:=1 name:="two words" empty:=') == {
        "a": "1",
        "name": "two words",
        "empty": "",
    }
    assert parse_xacro_args(["x:=a:=b"]) == {"x": "a:=b"}
    assert is_xacro("arm.urdf.xacro") and is_xacro("ARM.XACRO") and not is_xacro("arm.urdf")


@pytest.mark.parametrize("bad", ["mass=3", ":=3", "mass"])
def test_xacro_argument_error(tmp_path, bad):
    path = write_arm(tmp_path)
    with pytest.raises(XacroArgumentError, match="is not of the form name:=value") as info:
        load_robot_description(str(path), [bad])
    assert repr(bad) in str(info.value)
    assert isinstance(info.value, InvalidInputError)


def test_xacro_arguments_for_a_plain_urdf_or_stdin():
    with pytest.raises(XacroArgumentError, match="is not a .xacro file"):
        load_robot_description(bundled_urdf_path("panda"), ["a:=1"])
    with pytest.raises(XacroArgumentError, match="standard input"):
        load_robot_description("-", ["a:=1"], stdin=io.BytesIO(b"<robot/>"))


def test_robot_description_errors(tmp_path):
    with pytest.raises(RobotDescriptionError, match="no such file"):
        load_robot_description(str(tmp_path / "missing.urdf"))
    latin1 = tmp_path / "latin1.urdf"
    latin1.write_bytes("<robot name='bras'><link name='épaule'/></robot>".encode("latin-1"))
    with pytest.raises(RobotDescriptionError, match="not UTF-8"):
        load_robot_description(str(latin1))
    with pytest.raises(RobotDescriptionError, match="empty"):
        load_robot_description("-", stdin=io.BytesIO(b"  \n"))
    # xacro's own error (an argument that is not declared), naming the file and the argument
    undeclared = write_arm(
        tmp_path, "undeclared.urdf.xacro", ARM_XACRO.replace("arg mass)", "arg w)")
    )
    with pytest.raises(RobotDescriptionError, match="undeclared.urdf.xacro: xacro failed") as info:
        load_robot_description(str(undeclared))
    assert str(info.value).endswith("Undefined substitution argument w")
    broken = tmp_path / "broken.urdf.xacro"
    broken.write_text("<robot name='x'><link name='a'>")
    with pytest.raises(RobotDescriptionError, match="broken.urdf.xacro: malformed XML"):
        load_robot_description(str(broken))
    assert issubclass(RobotDescriptionError, URDFError)


def test_resolve_robot_bundled_file_and_unknown(tmp_path):
    source = resolve_robot("double_pendulum")
    assert source.bundled is BUNDLED["double_pendulum"] and source.label == "double_pendulum"
    # the bundled file given by path gets the bundled settings too (the pendulum's gravity)
    by_path = resolve_robot(bundled_urdf_path("double_pendulum"))
    assert by_path.bundled is BUNDLED["double_pendulum"]
    model = build_model(by_path)
    np.testing.assert_allclose(model.gravity, [0.0, -9.81, 0.0])
    assert model.tip_link == "tip"
    with pytest.raises(RobotDescriptionError, match="bundled robots: panda, double_pendulum"):
        resolve_robot("nope")
    xacro_source = resolve_robot(str(write_arm(tmp_path)), ["mass:=1"])
    assert xacro_source.bundled is None
    assert build_model(xacro_source, gravity=(0, 0, -1)).gravity.tolist() == [0, 0, -1]
