"""Reading robot descriptions (robot_dynamics.tools.description, robot_dynamics.tools.robots):
URDF files, xacro files with properties and arguments (one string or one pair per item),
standard input, a UTF-8 byte-order mark, ``package://`` paths and a description package's
``urdf/`` folder (through a throw-away ament prefix), the URDF root link, and a typed error for
each way it can go wrong. Plain pytest, no DDS."""

import io
import json
import os
import shutil

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.errors import InvalidInputError, URDFError
from robot_dynamics.tools.bundled import BUNDLED, bundled_urdf_path
from robot_dynamics.tools import cli
from robot_dynamics.tools.description import (
    RobotDescriptionError,
    XacroArgumentError,
    is_xacro,
    load_robot_description,
    parse_xacro_args,
    resolve_description_path,
    resolve_package_path,
    urdf_root_link,
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
    model = RobotModel.from_urdf_string(urdf_text)
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
    with pytest.raises(RobotDescriptionError, match="not text in its encoding"):
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
    # so does an installed copy (share/robot_dynamics/urdf, package://): same name, same bytes
    copy = tmp_path / "share" / "double_pendulum.urdf"
    copy.parent.mkdir()
    copy.write_bytes(open(bundled_urdf_path("double_pendulum"), "rb").read())
    assert resolve_robot(str(copy)).bundled is BUNDLED["double_pendulum"]
    edited = tmp_path / "double_pendulum.urdf"
    edited.write_text(copy.read_text().replace("</robot>", "<!-- mine --></robot>"))
    assert resolve_robot(str(edited)).bundled is None
    with pytest.raises(RobotDescriptionError, match="bundled robots: panda, double_pendulum"):
        resolve_robot("nope")
    xacro_source = resolve_robot(str(write_arm(tmp_path)), ["mass:=1"])
    assert xacro_source.bundled is None
    assert build_model(xacro_source, gravity=(0, 0, -1)).gravity.tolist() == [0, 0, -1]


# ------------------------------------------------------- xacro arguments: both forms, one parser


def test_xacro_args_one_string_or_one_pair_per_item():
    expected = {"a": "1", "b": "2", "c": "3"}
    assert parse_xacro_args("a:=1 b:=2 c:=3") == expected  # the launch file's xacro_args
    assert parse_xacro_args(["a:=1", "b:=2", "c:=3"]) == expected  # --xacro-arg, repeated
    assert parse_xacro_args(["a:=1 b:=2 c:=3"]) == expected  # --xacro-arg "a:=1 b:=2 c:=3"
    assert parse_xacro_args(["a:=1", "b:=2 c:=3"]) == expected  # both at once
    assert parse_xacro_args(["title:='two words'"]) == {"title": "two words"}
    assert parse_xacro_args(["a:=1", "a:=2"]) == {"a": "2"}  # the later one wins


def test_xacro_args_unquoted_space_and_unbalanced_quote():
    with pytest.raises(XacroArgumentError, match="a value with spaces is quoted") as info:
        parse_xacro_args(["title:=two words"])
    assert "'words'" in str(info.value)
    with pytest.raises(XacroArgumentError, match="No closing quotation"):
        parse_xacro_args('title:="two words')


def test_cli_xacro_arg_takes_both_forms(tmp_path, capsys):
    path = write_arm(tmp_path)
    results = []
    for argv in (["--xacro-arg", "mass:=3.5 unused:=1"], ["--xacro-arg", "mass:=3.5"] * 2):
        assert cli.main(["gravity", str(path), *argv, "--q", "0", "--json"]) == 0
        results.append(json.loads(capsys.readouterr().out)["gravity_torques"])
    assert results[0] == results[1]
    assert abs(results[0][0]) == pytest.approx(3.5 * 9.81 * 0.25)


# --------------------------------------------------------- package:// and description_package

PACKAGE = "rd_test_description"


@pytest.fixture
def ament_package(tmp_path, monkeypatch):
    """A ROS package rd_test_description in a throw-away ament prefix, first on
    AMENT_PREFIX_PATH: urdf/arm.urdf.xacro (+ base.xacro) and robots/pendulum.urdf. Returns its
    share directory."""
    prefix = tmp_path / "prefix"
    index = prefix / "share" / "ament_index" / "resource_index" / "packages"
    index.mkdir(parents=True)
    (index / PACKAGE).write_text("")
    share = prefix / "share" / PACKAGE
    (share / "urdf").mkdir(parents=True)
    write_arm(share / "urdf")
    (share / "robots").mkdir()
    shutil.copy(bundled_urdf_path("double_pendulum"), share / "robots" / "pendulum.urdf")
    rest = os.environ.get("AMENT_PREFIX_PATH", "")
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(prefix) + (os.pathsep + rest if rest else ""))
    return share


def test_package_url(ament_package):
    url = f"package://{PACKAGE}/urdf/arm.urdf.xacro"
    assert resolve_package_path(url) == str(ament_package / "urdf" / "arm.urdf.xacro")
    direct = load_robot_description(str(ament_package / "urdf" / "arm.urdf.xacro"), "mass:=3")
    assert load_robot_description(url, "mass:=3") == direct
    assert resolve_package_path("~/arm.urdf") == os.path.expanduser("~/arm.urdf")
    assert resolve_package_path("rel/arm.urdf") == "rel/arm.urdf"


@pytest.mark.parametrize(
    "url, message",
    [
        ("package://rd_no_such_package/urdf/a.urdf", "'rd_no_such_package' is not in the ament"),
        (f"package://{PACKAGE}", "not of the form package://<package>/<path>"),
        (f"package://{PACKAGE}/", "not of the form package://<package>/<path>"),
        ("package:///urdf/a.urdf", "not of the form package://<package>/<path>"),
    ],
)
def test_package_url_errors(ament_package, url, message):
    with pytest.raises(RobotDescriptionError, match=message):
        load_robot_description(url)


def test_description_package_relative_file(ament_package, tmp_path, monkeypatch):
    in_package = str(ament_package / "urdf" / "arm.urdf.xacro")
    assert resolve_description_path("arm.urdf.xacro", PACKAGE) == in_package
    assert load_robot_description(
        "arm.urdf.xacro", "mass:=3", description_package=PACKAGE
    ) == load_robot_description(in_package, "mass:=3")
    # absolute paths and package:// name their file themselves; no package: the working dir
    pendulum = bundled_urdf_path("double_pendulum")
    assert resolve_description_path(pendulum, PACKAGE) == pendulum
    url = f"package://{PACKAGE}/robots/pendulum.urdf"
    assert resolve_description_path(url, "robot_dynamics") == str(
        ament_package / "robots" / "pendulum.urdf"
    )
    assert resolve_description_path("arm.urdf.xacro", "") == "arm.urdf.xacro"
    assert resolve_description_path("-", PACKAGE) == "-"
    with pytest.raises(RobotDescriptionError, match="urdf/ folder of description_package") as info:
        resolve_description_path("pendulum.urdf", PACKAGE)
    assert "working directory" not in str(info.value)
    # a file of the working directory, given as a relative name: say how to give it
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "mine.urdf").write_text(open(pendulum).read())
    monkeypatch.chdir(workdir)
    with pytest.raises(RobotDescriptionError, match="give its absolute path") as info:
        load_robot_description("mine.urdf", description_package=PACKAGE)
    assert str(workdir / "mine.urdf") in str(info.value)
    with pytest.raises(RobotDescriptionError, match="'rd_no_such_package' is not in the ament"):
        resolve_description_path("arm.urdf", "rd_no_such_package")


def test_cli_takes_a_package_url(ament_package, capsys):
    url = f"package://{PACKAGE}/robots/pendulum.urdf"
    source = resolve_robot(url)
    assert source.path == str(ament_package / "robots" / "pendulum.urdf")
    assert source.urdf == open(bundled_urdf_path("double_pendulum")).read()
    assert cli.main(["info", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["joint_names"] == ["joint1", "joint2"]
    xacro_url = f"package://{PACKAGE}/urdf/arm.urdf.xacro"
    assert cli.main(["gravity", xacro_url, "--xacro-arg", "mass:=4", "--q", "0", "--json"]) == 0
    assert abs(json.loads(capsys.readouterr().out)["gravity_torques"][0]) == pytest.approx(
        4 * 9.81 / 4
    )


# -------------------------------------------------------------------------- URDF root link


def test_urdf_root_link(tmp_path):
    assert urdf_root_link(open(bundled_urdf_path("panda")).read()) == "panda_link0"
    assert urdf_root_link(load_robot_description(str(write_arm(tmp_path)))) == "base"
    two_roots = "<robot name='r'><link name='a'/><link name='b'/></robot>"
    with pytest.raises(RobotDescriptionError, match="2 root links \\(a, b\\)"):
        urdf_root_link(two_roots)
    with pytest.raises(RobotDescriptionError, match="malformed URDF XML"):
        urdf_root_link("<robot name='r'><link name='a'>")
    nan_mass = (
        "<robot name='r'><link name='a'><inertial><mass value='nan'/></inertial></link></robot>"
    )
    with pytest.raises(RobotDescriptionError, match="link 'a'.*mass"):
        urdf_root_link(nan_mass)
