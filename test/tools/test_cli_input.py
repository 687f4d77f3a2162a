"""What the ``robot-dynamics`` command-line tool accepts and refuses: bad arguments and bad URDFs
(non-zero exit with a message naming the culprit, the JSON error object), exit codes from the
error types (bad arguments 2, bad descriptions 3), the limit warning, the tip of a robot with
several leaves, xacro files with ``--xacro-arg``, a URDF on stdin and with a byte-order mark,
inertia warnings with ``--strict-inertia`` and ``--balance-inertia``, fixed joints with a mimic
element.

Most tests call ``cli.main(argv)`` in-process (fast); a few run the installed console script
(and ``python -m``) as a user would, to check the real exit codes and streams.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from robot_dynamics.tools import cli
from robot_dynamics.tools.bundled import bundled_urdf_path
from tools_helpers import PANDA_HOME, UR_SHAPE_URDF, erd_urdf_path, pendulum, run_fail, run_json


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "argv,code,needle",
    [
        (
            ["gravity", "panda", "--q", "1", "2"],
            2,
            "--q: got 2 value(s), the model has 7 joint(s): panda_joint1",
        ),
        (["gravity", "panda", "--q", "1"], 2, "--q: got 1 value(s), the model has 7 joint(s)"),
        (["gravity", "panda", "--q", "panda_joint9=1"], 2, "unknown joint 'panda_joint9'"),
        (
            ["gravity", "panda", "--q", "panda_joint2=1", "panda_joint2=2"],
            2,
            "--q: joint 'panda_joint2' given twice",
        ),
        (
            ["gravity", "panda", "--q", "0", "0", "0", "nan", "0", "0", "0"],
            2,
            "'nan' (for panda_joint4) is not finite",
        ),
        (
            ["gravity", "panda", "--q", "0", "0", "x", "0", "0", "0", "0"],
            2,
            "'x' (for panda_joint3) is not a number",
        ),
        (["jacobian", "panda", "--frame", "nolink"], 2, "--frame: unknown frame 'nolink'"),
        (["gravity", "panda", "--tip-link", "nolink"], 2, "tip_link 'nolink'"),
        (["gravity", "panda", "--gravity", "0", "0"], 2, "--gravity"),
        (["wrench", "panda", "--q", *map(str, PANDA_HOME)], 2, "--tau is required"),
        (
            ["simulate", "double_pendulum", "--duration", "-1"],
            2,
            "argument --duration: must be a finite number > 0, got '-1'",
        ),
        (
            ["simulate", "double_pendulum", "--max-duration", "nan"],
            2,
            "argument --max-duration: must be a finite number > 0, got 'nan'",
        ),
        (
            ["simulate", "double_pendulum", "--duration", "1", "--sample-dt", "2"],
            2,
            "--sample-dt 2.0 s is beyond --duration 1.0 s",
        ),
        (
            ["wrench", "panda", "--tau", *["0"] * 7, "--damping", "nan"],
            2,
            "argument --damping: must be a finite number >= 0, got 'nan'",
        ),
        (
            ["wrench", "panda", "--tau", *["0"] * 7, "--damping", "-1"],
            2,
            "argument --damping: must be a finite number >= 0, got '-1'",
        ),
        (
            ["gravity", "panda", "--precision", "-1"],
            2,
            "argument --precision: must be an integer >= 0 and <= 17, got '-1'",
        ),
        (
            ["gravity", "panda", "--precision", "2.5"],
            2,
            "argument --precision: '2.5' is not an integer",
        ),
        (
            ["identify", "panda", "data.csv", "--out", "x.urdf", "--max-condition", "nan"],
            2,
            "argument --max-condition: must be a finite number >= 1, got 'nan'",
        ),
        (
            ["excite", "panda", "--out", "x", "--harmonics", "0"],
            2,
            "argument --harmonics: must be an integer >= 1, got '0'",
        ),
        (
            ["simulate", "double_pendulum", "--method", "Euler"],
            2,
            "unknown integration method 'Euler'",
        ),
        (["bogus", "panda"], 2, "invalid choice: 'bogus'"),
        (["gravity", "/nonexistent/robot.urdf"], 3, "no such file"),
        (["gravity", "/"], 3, "/: a directory, not a URDF or xacro file"),
    ],
)
def test_bad_arguments(capsys, argv, code, needle):
    got, err = run_fail(capsys, *argv)
    assert got == code, err
    assert needle in err


def test_bad_urdfs(tmp_path, capsys):
    cases = {
        "truncated.urdf": ("<robot name='x'><link name='a'/>", "malformed URDF XML"),
        "dangling.urdf": (
            "<robot name='x'><link name='a'/><joint name='j' type='revolute'><parent link='a'/>"
            "<child link='b'/><axis xyz='0 0 1'/><limit lower='-1' upper='1' effort='1' "
            "velocity='1'/></joint></robot>",
            "'j'",
        ),
        "spherical.urdf": (
            "<robot name='x'><link name='a'/><link name='b'><inertial><mass value='1'/>"
            "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link>"
            "<joint name='ball' type='spherical'><parent link='a'/><child link='b'/></joint>"
            "</robot>",
            "'ball' has unknown type 'spherical'",
        ),
    }
    for name, (text, needle) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        code, err = run_fail(capsys, "info", path)
        assert code == 3, (name, err)
        assert needle in err, (name, err)


def test_json_error_object(capsys):
    code = cli.main(["gravity", "panda", "--q", "1", "--json"])
    out = capsys.readouterr()
    assert code == 2
    data = json.loads(out.out)
    assert data["ok"] is False and data["exit_code"] == 2 and "--q" in data["error"]
    assert data["command"] == "gravity"
    # an error the parser finds names the command too
    code = cli.main(["identify", "panda", "recording.csv", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 2 and data["command"] == "identify" and "--out" in data["error"]


def test_limit_warning(capsys):
    data = run_json(capsys, "gravity", "panda", "--q", "0", "0", "0", "0.5", "0", "0", "0")
    assert any("panda_joint4 = 0.5 is outside its limits" in w for w in data["warnings"])


# ------------------------------------------------------------------------------ the console script


def _console(name):
    path = os.path.join(os.path.dirname(sys.executable), name)
    if not os.path.exists(path):
        pytest.skip(f"console script {name} not installed (make install)")
    return path


def test_console_script_exit_codes(tmp_path):
    exe = _console("robot-dynamics")
    ok = subprocess.run(
        [exe, "gravity", "panda", "--q", *map(str, PANDA_HOME), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["gravity_torques"][3] == pytest.approx(21.88, abs=0.01)
    bad = subprocess.run(
        [exe, "mass-matrix", "panda", "--q", "1", "2", "3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2
    assert "robot-dynamics: error: --q: got 3 value(s)" in bad.stderr
    assert bad.stdout == ""
    missing = subprocess.run(
        [exe, "info", str(tmp_path / "nope.urdf")], capture_output=True, text=True, timeout=120
    )
    assert missing.returncode == 3 and "no such file" in missing.stderr


def test_module_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "robot_dynamics.tools.cli", "info", "double_pendulum"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "actuated joints (2)" in out.stdout


def test_tool0_is_the_tip_of_a_multi_leaf_robot(capsys):
    """example-robot-data's UR5 (leaves ee_link, tool0, base): tool0 is the tip."""
    ur5 = erd_urdf_path("ur_description", "urdf", "ur5_robot.urdf")
    data = run_json(capsys, "info", ur5)
    assert data["tip_link"] == "tool0" and set(data["leaf_links"]) >= {"tool0", "ee_link"}
    q = ["0", "-1.2", "1.2", "-1.57", "-1.57", "0"]
    data = run_json(capsys, "jacobian", ur5, "--q", *q)
    assert data["frame"] == "tool0" and len(data["jacobian"]) == 6 and len(data["jacobian"][0]) == 6


def test_robot_without_a_tip_needs_a_frame(tmp_path, capsys):
    """The UR description's shape without tool0: two leaves end the last body (sensor_mount,
    ft_frame);
    the error names both and the options."""
    urdf = tmp_path / "no_tool0.urdf"
    urdf.write_text(UR_SHAPE_URDF.replace('"tool0"', '"sensor_mount"'))
    data = run_json(capsys, "info", urdf)
    assert data["tip_link"] is None
    for command in ("jacobian", "pose", "wrench --tau 0 0 0 0 0 0"):
        name, *options = command.split()
        code, err = run_fail(capsys, name, urdf, *options)
        assert code == 2, err
        for word in ("sensor_mount", "ft_frame", "--frame", "--tip-link"):
            assert word in err, err
    data = run_json(capsys, "jacobian", urdf, "--tip-link", "sensor_mount")
    assert data["frame"] == "sensor_mount"


# ------------------------------------------------------------------ robots: xacro, stdin


ARM_XACRO = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="arm">
  <xacro:arg name="mass" default="2.0"/>
  <xacro:property name="length" value="0.5"/>
  <link name="base"/>
  <link name="l1">
    <inertial><origin xyz="${length / 2} 0 0"/><mass value="$(arg mass)"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="3"/></joint>
</robot>
"""


def test_xacro_file_with_arguments(tmp_path, capsys):
    path = tmp_path / "arm.urdf.xacro"
    path.write_text(ARM_XACRO)
    data = run_json(capsys, "info", path)
    assert data["total_mass"] == pytest.approx(2.0) and data["joint_names"] == ["j1"]
    data = run_json(capsys, "gravity", path, "--xacro-arg", "mass:=3.5", "--q", "0")
    # the property sets the centre of mass 0.25 m out: |g| = m g 0.25
    assert abs(data["gravity_torques"][0]) == pytest.approx(3.5 * 9.81 * 0.25)
    code, err = run_fail(capsys, "info", path, "--xacro-arg", "mass=3.5")
    assert code == 2 and "'mass=3.5' is not of the form name:=value" in err
    code, err = run_fail(capsys, "info", "panda", "--xacro-arg", "mass:=3.5")
    assert code == 2 and "is not a .xacro file" in err
    broken = tmp_path / "nodefault.urdf.xacro"
    broken.write_text(ARM_XACRO.replace("$(arg mass)", "$(arg weight)"))
    code, err = run_fail(capsys, "info", broken)
    assert code == 3 and "xacro failed" in err and "weight" in err


def test_urdf_from_stdin_and_byte_order_mark(tmp_path):
    exe = _console("robot-dynamics")
    urdf = open(bundled_urdf_path("double_pendulum"), "rb").read()
    out = subprocess.run(
        [exe, "gravity", "-", "--q", "0.4", "-1.1", "--gravity", "0", "-9.81", "0", "--json"],
        input=b"\xef\xbb\xbf" + urdf,
        capture_output=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    np.testing.assert_allclose(
        json.loads(out.stdout)["gravity_torques"],
        pendulum().gravity_torques(np.array([0.4, -1.1])),
        rtol=1e-12,
    )
    bom = tmp_path / "bom.urdf"
    bom.write_bytes(b"\xef\xbb\xbf" + urdf)
    out = subprocess.run([exe, "info", str(bom)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "actuated joints (2)" in out.stdout


def test_exit_codes_follow_the_error_types(tmp_path, capsys):
    from robot_dynamics.core import errors

    assert cli.exit_code_of(errors.InvalidInputError("x")) == cli.EXIT_USAGE
    assert cli.exit_code_of(errors.UnknownFrameError("x")) == cli.EXIT_USAGE
    assert cli.exit_code_of(errors.AmbiguousTipError("x")) == cli.EXIT_USAGE
    assert cli.exit_code_of(errors.KinematicTreeError("x")) == cli.EXIT_BAD_URDF
    assert cli.exit_code_of(errors.SingularInertiaError("x")) == cli.EXIT_BAD_URDF
    assert cli.exit_code_of(RuntimeError("x")) == cli.EXIT_ERROR
    # a link name on the command line that the URDF lacks is the user's error (2) ...
    code, err = run_fail(capsys, "info", "panda", "--base-link", "nolink")
    assert code == 2 and "base_link 'nolink'" in err
    code, err = run_fail(capsys, "info", "panda", "--tip-link", "nolink")
    assert code == 2 and "tip_link 'nolink'" in err
    # ... a URDF that cannot be made into a model below an existing base is the URDF's (3)
    cycle = tmp_path / "mimic_cycle.urdf"
    joint = (
        "<joint name='{0}' type='revolute'><parent link='{1}'/><child link='{2}'/>"
        "<axis xyz='0 0 1'/><limit lower='-1' upper='1' effort='1' velocity='1'/>"
        "<mimic joint='{3}'/></joint>"
    )
    cycle.write_text(
        "<robot name='x'><link name='a'/><link name='b'/><link name='c'/>"
        + joint.format("j1", "a", "b", "j2")
        + joint.format("j2", "b", "c", "j1")
        + "</robot>"
    )
    code, err = run_fail(capsys, "info", cycle, "--base-link", "a")
    assert code == 3 and "cycle" in err


def test_a_mimic_of_a_missing_joint_is_a_warning(tmp_path, capsys):
    """A <mimic> naming a joint the URDF does not have: the joint is actuated; info lists the
    warning (text and --json), the other commands print it on stderr."""
    urdf = tmp_path / "mimic.urdf"
    urdf.write_text(
        "<robot name='x'><link name='a'/><link name='b'><inertial><mass value='1'/>"
        "<inertia ixx='0.01' ixy='0' ixz='0' iyy='0.01' iyz='0' izz='0.01'/></inertial></link>"
        "<joint name='j' type='revolute'><parent link='a'/><child link='b'/><axis xyz='1 0 0'/>"
        "<limit lower='-1' upper='1' effort='10' velocity='1'/><mimic joint='master'/></joint>"
        "</robot>"
    )
    data = run_json(capsys, "info", urdf)
    assert data["joint_names"] == ["j"] and data["mimic_joints"] == []
    (warning,) = data["joint_warnings"]
    assert (warning["joint"], warning["rule"]) == ("j", "mimic_target_missing")
    assert "'master'" in warning["message"]
    assert cli.main(["info", str(urdf)]) == 0
    assert "warning: joint 'j': <mimic> names 'master'" in capsys.readouterr().out
    assert cli.main(["gravity", str(urdf), "--q", "0.1"]) == 0
    assert "warning: joint 'j': <mimic> names 'master', which the URDF does not have" in (
        capsys.readouterr().err
    )


def test_a_floating_joint_loads_as_fixed_with_a_warning(tmp_path, capsys):
    """A floating joint between the root and the arm: the arm's joint is the model's, the
    floating joint fixed at its origin, with a warning naming it and the base link to set."""
    urdf = tmp_path / "floating.urdf"
    urdf.write_text(
        "<robot name='x'><link name='world'/><link name='a'/><link name='b'><inertial>"
        "<mass value='1'/><origin xyz='0.5 0 0'/>"
        "<inertia ixx='0.01' ixy='0' ixz='0' iyy='0.01' iyz='0' izz='0.01'/></inertial></link>"
        "<joint name='free' type='floating'><parent link='world'/><child link='a'/></joint>"
        "<joint name='j' type='revolute'><parent link='a'/><child link='b'/><axis xyz='0 1 0'/>"
        "<limit lower='-1' upper='1' effort='10' velocity='1'/></joint></robot>"
    )
    data = run_json(capsys, "info", urdf)
    assert data["joint_names"] == ["j"] and data["base_link"] == "world"
    (warning,) = data["joint_warnings"]
    assert (warning["joint"], warning["rule"]) == ("free", "free_joint_fixed")
    assert "base_link='a'" in warning["message"]
    assert cli.main(["gravity", str(urdf), "--q", "0", "--json"]) == 0
    captured = capsys.readouterr()
    assert "warning: joint 'free': a floating joint" in captured.err
    # 1 kg at 0.5 m from a horizontal axis: 4.905 N m
    assert json.loads(captured.out)["gravity_torques"] == pytest.approx([-4.905], abs=1e-12)


def test_no_limit_is_null_in_json_and_a_zero_limit_is_a_warning(tmp_path, capsys):
    """A continuous joint without <limit> and a revolute joint with effort and velocity 0 (as
    ROS-Industrial descriptions write): neither has limits; info's --json says null (strict
    JSON) and names the zero limit's joint in a warning, as the other commands do on stderr."""
    urdf = tmp_path / "limits.urdf"
    inertial = (
        "<inertial><mass value='1'/><origin xyz='0.1 0 0'/>"
        "<inertia ixx='0.01' ixy='0' ixz='0' iyy='0.01' iyz='0' izz='0.01'/></inertial>"
    )
    urdf.write_text(
        f"<robot name='x'><link name='a'/><link name='b'>{inertial}</link>"
        f"<link name='c'>{inertial}</link>"
        "<joint name='spin' type='continuous'><parent link='a'/><child link='b'/>"
        "<axis xyz='0 0 1'/></joint>"
        "<joint name='lift' type='revolute'><parent link='b'/><child link='c'/>"
        "<origin xyz='0.2 0 0'/><axis xyz='0 1 0'/>"
        "<limit lower='-1' upper='1' effort='0' velocity='0'/></joint></robot>"
    )
    data = run_json(capsys, "info", urdf)
    for joint in data["joints"]:
        assert joint["effort_limit"] is None and joint["velocity_limit"] is None, joint
    assert [j["lower"] for j in data["joints"]] == [None, -1.0]
    (warning,) = data["joint_warnings"]
    assert (warning["joint"], warning["rule"]) == ("lift", "zero_limit")
    assert warning["message"] == (
        '<limit effort="0" velocity="0">: loaded as no effort and no velocity limit'
    )
    assert cli.main(["gravity", str(urdf), "--q", "0", "0"]) == 0
    assert 'warning: joint \'lift\': <limit effort="0" velocity="0">' in capsys.readouterr().err


def test_inertia_warnings_strict_inertia_and_balance_inertia(tmp_path, capsys):
    """A moving link breaking the triangle inequality loads with a warning (listed by info,
    one line on stderr for the other commands); --strict-inertia refuses it on every command,
    --balance-inertia balances it."""
    placeholder = tmp_path / "placeholder.urdf"
    placeholder.write_text(
        "<robot name='x'><link name='a'/><link name='b'><inertial><mass value='1'/>"
        "<inertia ixx='0.001' ixy='0' ixz='0' iyy='0.001' iyz='0' izz='0.01'/></inertial></link>"
        "<joint name='j' type='revolute'><parent link='a'/><child link='b'/><axis xyz='0 0 1'/>"
        "<limit lower='-1' upper='1' effort='10' velocity='1'/></joint></robot>"
    )
    data = run_json(capsys, "info", placeholder)
    (warning,) = data["inertia_warnings"]
    assert (warning["link"], warning["rule"], warning["joint"]) == ("b", "triangle_inequality", "j")
    assert cli.main(["info", str(placeholder)]) == 0
    out = capsys.readouterr().out
    assert "inertia warnings (1;" in out and "link 'b' <inertia> violates the triangle" in out
    assert cli.main(["gravity", str(placeholder), "--q", "0.1"]) == 0
    assert "1 inertia warning(s) (triangle_inequality;" in capsys.readouterr().err
    commands = {
        "info": [],
        "gravity": [],
        "simulate": [],
        "wrench": ["--tau", "0"],
        "excite": ["--out", tmp_path / "excite.csv"],
        "identify": [tmp_path / "data.csv", "--out", tmp_path / "out.urdf"],
    }
    for command, options in commands.items():
        code, err = run_fail(capsys, command, placeholder, *options, "--strict-inertia")
        assert code == 3, (command, err)
        assert "'b'" in err and "triangle inequality" in err and "--balance-inertia" in err
    assert cli.main(["info", str(placeholder), "--balance-inertia", "--strict-inertia"]) == 0
    captured = capsys.readouterr()
    assert "balance_inertia: link 'b': inertia balanced" in captured.err
    assert "inertia warnings" not in captured.out


def test_info_lists_fixed_joints_with_a_mimic_element_as_fixed(capsys, tmp_path):
    """A <mimic> on a fixed joint (as TALOS's gripper has) does nothing: the joint is fixed."""
    urdf = tmp_path / "fixed_mimic.urdf"
    urdf.write_text(
        UR_SHAPE_URDF.replace(
            '<joint name="wrist_3_link-ft_frame" type="fixed">',
            '<joint name="wrist_3_link-ft_frame" type="fixed">'
            '<mimic joint="wrist_3_joint" multiplier="-1"/>',
        )
    )
    data = run_json(capsys, "info", urdf)
    assert "wrist_3_link-ft_frame" in data["fixed_joints"]
    assert data["mimic_joints"] == []
    assert cli.main(["info", str(urdf)]) == 0
    out = capsys.readouterr().out
    assert "mimic joints: none" in out and "mimics" not in out


def test_a_model_without_a_movable_joint(tmp_path, capsys):
    """A base link below every joint (or a URDF of one link): info and pose describe it; the
    commands that compute joint quantities refuse it, naming the base link (exit 2)."""
    one_link = tmp_path / "one_link.urdf"
    one_link.write_text("<robot name='x'><link name='a'/></robot>")
    assert run_json(capsys, "info", one_link)["joints"] == []
    assert "a" in run_json(capsys, "pose", one_link)["poses"]
    panda_hand = ["panda", "--base-link", "panda_hand"]
    for argv in (
        ["gravity", one_link],
        ["mass-matrix", *panda_hand],
        ["jacobian", *panda_hand],
        ["inverse-dynamics", *panda_hand],
        ["excite", *panda_hand, "--out", tmp_path / "x"],
    ):
        code, err = run_fail(capsys, *argv, "--json")
        assert code == 2, (argv, err)
        code, err = run_fail(capsys, *argv)
        assert code == 2 and "no movable joint below base link" in err, (argv, err)
        assert f"nothing for {argv[0]} to compute" in err


def test_outputs_are_checked_before_any_work(tmp_path, capsys):
    """A file to write that is a folder, below a file, an input or inside an input folder, or
    the identified URDF named as its own parameters file: exit 2 naming it, before the work,
    and nothing written."""
    csv = tmp_path / "rec.csv"
    csv.write_text("time\n0\n")
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(open(bundled_urdf_path("panda")).read())
    bag = tmp_path / "bag"
    bag.mkdir()
    (bag / "bag.db3").write_text("")
    afile = tmp_path / "afile"
    afile.write_text("")
    cases = [
        (["identify", "panda", csv, "--out", tmp_path / "id.yaml"], "the same file; name the URDF"),
        (["identify", "panda", csv, "--out", csv], f"would overwrite the input {csv}"),
        (["identify", urdf, csv, "--out", urdf], f"would overwrite the input {urdf}"),
        (["identify", "panda", bag, "--out", bag / "x.urdf"], f"would overwrite the input {bag}"),
        (["identify", "panda", csv, "--out", afile / "x.urdf"], f"{afile} is a file, not a folder"),
        (["identify", "panda", csv, "--out", tmp_path], "a folder, not a file name"),
        (["estimate", "panda", csv, "--out", afile / "e"], f"{afile} is a file, not a folder"),
        (["estimate", "panda", csv, "--out", tmp_path / "rec"], f"would overwrite the input {csv}"),
        (["excite", "panda", "--out", afile / "x"], f"{afile} is a file, not a folder"),
        (["simulate", "double_pendulum", "--plot", tmp_path], "--plot"),
    ]
    before = sorted(p.name for p in tmp_path.iterdir())
    for argv, needle in cases:
        code, err = run_fail(capsys, *argv)
        assert code == 2 and needle in err, (argv, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert csv.read_text() == "time\n0\n" and (bag / "bag.db3").read_text() == ""


def test_one_effort_scale_is_every_joint_s():
    """A driver's one scale (or offset) is given once for every joint; joint values (--q) are
    not (one number for seven joints is a mistake there)."""
    from robot_dynamics.tools.cli.arguments import CLIError, parse_joint_vector

    names = [f"j{k}" for k in range(7)]
    scale = parse_joint_vector(["0.5"], names, "--effort-scale", 1.0, every_joint=True)
    np.testing.assert_array_equal(scale, np.full(7, 0.5))
    with pytest.raises(CLIError, match="'x' \\(for every joint\\) is not a number"):
        parse_joint_vector(["x"], names, "--effort-scale", 1.0, every_joint=True)
    with pytest.raises(CLIError, match="got 1 value"):
        parse_joint_vector(["0.5"], names, "--q")


def test_every_named_warning_is_declared_and_documented():
    """The recording commands' warnings are ``<name>: ...`` with a name of WARNING_NAMES, each
    explained in docs/identification.md; no string of the tools or the core (which write them)
    starts with another hyphenated name (a warning written without the registry)."""
    import ast
    import os
    import re

    from robot_dynamics.tools.cli.output import WARNING_NAMES, named_warning

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "docs", "identification.md"), encoding="utf-8") as fh:
        docs = fh.read()
    assert [name for name in WARNING_NAMES if f"`{name}`" not in docs] == []
    with pytest.raises(KeyError):
        named_warning("no-such-warning", "text")
    programs = {"robot-dynamics", "robot-dynamics-demo"}
    found = set()
    writers = [os.path.join(root, "robot_dynamics", part) for part in ("tools", "core")]
    for folder, _, files in (entry for top in writers for entry in os.walk(top)):
        for name in files:
            if not name.endswith(".py"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    match = re.match(r"([a-z]+(?:-[a-z]+)+): ", node.value)
                    if match and match.group(1) not in programs:
                        found.add(match.group(1))
    assert found <= set(WARNING_NAMES), sorted(found - set(WARNING_NAMES))
