"""The ``robot-dynamics`` command-line tool: every subcommand on the bundled URDFs, ``--json``
checked against the core, bad input -> non-zero exit with a message naming the culprit, and the
PNG plot of ``simulate``.

Most tests call ``cli.main(argv)`` in-process (fast); a few run the installed console script as a
user would, to check the real exit codes and streams.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.tools import cli
from robot_dynamics.tools.cli import simulate
from robot_dynamics.tools.bundled import BUNDLED, bundled_urdf_path
from robot_dynamics.tools.plotting import is_png, png_size
from tools_helpers import UR_SHAPE_URDF, erd_urdf_path

PANDA_HOME = list(BUNDLED["panda"].home)
PANDA_Q = [0.3, -0.5, 0.2, -2.0, 0.1, 1.4, -0.6]


def panda():
    return RobotModel.from_urdf_file(bundled_urdf_path("panda"), tip_link="tool")


def pendulum():
    return RobotModel.from_urdf_file(
        bundled_urdf_path("double_pendulum"), gravity=(0.0, -9.81, 0.0)
    )


def run_json(capsys, *argv):
    code = cli.main([*map(str, argv), "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    data = json.loads(out.out)
    assert data["ok"] is True
    return data


def run_fail(capsys, *argv):
    code = cli.main(list(map(str, argv)))
    out = capsys.readouterr()
    return code, out.err


# ------------------------------------------------------------------------------ info


def test_info_panda_json(capsys):
    data = run_json(capsys, "info", "panda")
    assert data["joint_names"] == [f"panda_joint{i}" for i in range(1, 8)]
    assert data["base_link"] == "panda_link0" and data["tip_link"] == "tool"
    assert data["fixed_joints"] == ["panda_joint8", "panda_hand_joint", "tool_joint"]
    assert data["mimic_joints"] == []
    # masses of franka_description / Gaz et al. 2019, plus the 0.73 kg hand
    assert data["link_masses"]["panda_link1"] == pytest.approx(4.970684)
    assert data["total_mass"] == pytest.approx(17.421901, abs=1e-6)
    model = panda()
    lower, upper = model.position_limits
    assert [j["lower"] for j in data["joints"]] == pytest.approx(list(lower))
    assert [j["effort_limit"] for j in data["joints"]] == pytest.approx(list(model.effort_limits))
    assert [j["damping"] for j in data["joints"]] == pytest.approx([0.003] * 7)


def test_info_human_lists_tree(capsys):
    assert cli.main(["info", "panda"]) == 0
    text = capsys.readouterr().out
    assert "total mass 17.422 kg" in text
    assert "panda_joint4 [revolute, q[3]] -> panda_link4 (3.588 kg)" in text
    assert "tool_joint [fixed] -> tool" in text


def test_info_pendulum_gets_bundled_gravity(capsys):
    data = run_json(capsys, "info", "double_pendulum")
    assert data["gravity"] == pytest.approx([0.0, -9.81, 0.0])
    assert data["total_mass"] == pytest.approx(20.0)
    # the gravity option overrides the bundled default
    data = run_json(capsys, "info", "double_pendulum", "--gravity", "0", "0", "-1")
    assert data["gravity"] == pytest.approx([0.0, 0.0, -1.0])


def _erd_panda():
    """example-robot-data's panda.urdf (gripper with a mimic finger joint), or skip."""
    return erd_urdf_path("panda_description", "urdf", "panda.urdf")


def test_info_reports_mimic_joints(capsys):
    data = run_json(capsys, "info", _erd_panda(), "--tip-link", "panda_hand_tcp")
    assert [m["name"] for m in data["mimic_joints"]] == ["panda_finger_joint2"]
    assert data["mimic_joints"][0]["joint"] == "panda_finger_joint1"
    assert "panda_finger_joint2" not in data["joint_names"]


# ------------------------------------------------------------------------------ numbers vs the core


def test_gravity_matches_core(capsys):
    data = run_json(capsys, "gravity", "panda", "--q", *PANDA_Q)
    np.testing.assert_allclose(
        data["gravity_torques"], panda().gravity_torques(np.array(PANDA_Q)), rtol=0, atol=1e-12
    )


def test_gravity_named_and_comma_forms(capsys):
    a = run_json(capsys, "gravity", "panda", "--q", ",".join(map(str, PANDA_Q)))
    b = run_json(
        capsys,
        "gravity",
        "panda",
        "--q",
        *[f"panda_joint{i + 1}={v}" for i, v in enumerate(PANDA_Q)],
    )
    np.testing.assert_allclose(a["gravity_torques"], b["gravity_torques"], atol=0)
    c = run_json(capsys, "gravity", "panda", "--q", "panda_joint4=-2.0")
    np.testing.assert_allclose(c["q"], [0, 0, 0, -2.0, 0, 0, 0])


def test_gravity_pendulum_closed_form(capsys):
    # reference section 3: g1 = (m1 r1 + m2 l1) g c1 + m2 r2 g c12, g2 = m2 r2 g c12
    q = np.array([0.4, -1.1])
    data = run_json(capsys, "gravity", "double_pendulum", "--q", *q)
    g, c1, c12 = 9.81, np.cos(q[0]), np.cos(q[0] + q[1])
    expected = [(10 * 0.5 + 10 * 1.0) * g * c1 + 10 * 0.5 * g * c12, 10 * 0.5 * g * c12]
    np.testing.assert_allclose(data["gravity_torques"], expected, rtol=1e-12)


def test_mass_matrix_matches_core(capsys):
    data = run_json(capsys, "mass-matrix", "panda", "--q", *PANDA_Q)
    m = panda().mass_matrix(np.array(PANDA_Q))
    np.testing.assert_allclose(data["mass_matrix"], m, atol=1e-12)
    np.testing.assert_allclose(data["eigenvalues"], np.linalg.eigvalsh(m), atol=1e-10)
    assert min(data["eigenvalues"]) > 0


@pytest.mark.parametrize(
    "frame,axes", [(None, "base"), ("panda_link5", "local"), ("tool", "local")]
)
def test_jacobian_matches_core(capsys, frame, axes):
    argv = ["jacobian", "panda", "--q", *PANDA_Q, "--axes", axes] + (
        ["--frame", frame] if frame else []
    )
    data = run_json(capsys, *argv)
    model = panda()
    j = model.jacobian(np.array(PANDA_Q), frame=frame, axes=axes)
    np.testing.assert_allclose(data["jacobian"], j, atol=1e-12)
    assert data["rows"] == ["vx", "vy", "vz", "wx", "wy", "wz"]
    assert data["frame"] == (frame or "tool")
    np.testing.assert_allclose(
        data["frame_pose"], model.frame_pose(np.array(PANDA_Q), frame=frame), atol=1e-12
    )


def test_wrench_recovers_a_known_push(capsys):
    """tau measured = M qdd + C qd + g - J^T f (the arm held still against f) -> f back."""
    model = panda()
    q = np.array(PANDA_Q)
    f = np.array([3.0, -2.0, -10.0, 0.4, -0.2, 1.0])
    tau = model.inverse_dynamics(q, np.zeros(7), np.zeros(7), f_ext=f)
    data = run_json(capsys, "wrench", "panda", "--q", *q, "--tau", *tau)
    np.testing.assert_allclose(data["wrench"], f, atol=1e-6)
    assert data["near_singular"] is False
    assert np.linalg.norm(data["torque_residual"]) < 1e-6
    # the same through --external with tau_ext = J^T f
    tau_ext = model.jacobian(q).T @ f
    data = run_json(capsys, "wrench", "panda", "--q", *q, "--tau", *tau_ext, "--external")
    np.testing.assert_allclose(data["wrench"], f, atol=1e-6)


def test_wrench_with_motion_and_local_axes(capsys):
    model = panda()
    q, qd, qdd = np.array(PANDA_Q), np.linspace(-0.5, 0.5, 7), np.linspace(1.0, -1.0, 7)
    f_local = np.array([1.0, 2.0, 3.0, 0.1, 0.2, 0.3])
    rot = model.frame_pose(q)[:3, :3]
    f_base = np.concatenate([rot @ f_local[:3], rot @ f_local[3:]])
    tau = model.inverse_dynamics(q, qd, qdd, f_ext=f_base)
    data = run_json(
        capsys,
        "wrench",
        "panda",
        "--q",
        *q,
        "--qd",
        *qd,
        "--qdd",
        *qdd,
        "--tau",
        *tau,
        "--axes",
        "local",
    )
    np.testing.assert_allclose(data["wrench"], f_local, atol=1e-6)


def test_wrench_pendulum_reports_unobservable_part(capsys):
    """2 joints cannot explain 6 wrench components: the result is the least-norm wrench."""
    data = run_json(
        capsys,
        "wrench",
        "double_pendulum",
        "--q",
        "0.3",
        "0.6",
        "--tau",
        "1.0",
        "2.0",
        "--external",
    )
    model = pendulum()
    j = model.jacobian(np.array([0.3, 0.6]))
    np.testing.assert_allclose(j.T @ np.array(data["wrench"]), [1.0, 2.0], atol=1e-6)
    assert len(data["singular_values"]) == 2


def test_simulate_json_matches_core(capsys):
    data = run_json(
        capsys,
        "simulate",
        "double_pendulum",
        "--duration",
        "1.0",
        "--sample-dt",
        "0.1",
        "--json-series",
    )
    ref = pendulum().simulate(np.zeros(2), np.zeros(2), 1.0, sample_dt=0.1)
    np.testing.assert_allclose(data["t"], ref.t, atol=1e-12)
    np.testing.assert_allclose(data["q"], ref.q, atol=1e-9)
    np.testing.assert_allclose(data["final_q"], ref.q[-1], atol=1e-9)
    assert data["q0"] == [0.0, 0.0]  # the bundled start: released from horizontal
    assert data["energy_max_abs_drift"] < 1e-4


def test_simulate_writes_png(tmp_path, capsys):
    out = tmp_path / "plots" / "pendulum.png"
    data = run_json(capsys, "simulate", "double_pendulum", "--duration", "10", "--plot", out)
    assert data["plot"] == str(out)
    assert out.is_file() and is_png(str(out))
    width, height = png_size(str(out))
    assert width >= 800 and height >= 500
    assert out.stat().st_size > 20_000  # a real figure, not an empty canvas
    # energy of the 10 s reference run is conserved by RK45 (rtol 1e-8)
    assert data["energy_max_rel_drift"] < 1e-5


def test_simulate_constant_torque_and_method(capsys):
    data = run_json(
        capsys,
        "simulate",
        "panda",
        "--duration",
        "0.2",
        "--method",
        "semi_implicit_euler",
        "--tau",
        "0",
        "1",
        "0",
        "0",
        "0",
        "0",
        "0",
        "--friction",
    )
    ref = panda().simulate(
        np.array(PANDA_HOME),
        np.zeros(7),
        0.2,
        tau=np.array([0, 1.0, 0, 0, 0, 0, 0]),
        method="semi_implicit_euler",
        sample_dt=0.01,
        friction=True,
    )
    np.testing.assert_allclose(data["final_q"], ref.q[-1], atol=1e-12)


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "argv,code,needle",
    [
        (
            ["gravity", "panda", "--q", "1", "2"],
            2,
            "--q: got 2 value(s), the model has 7 joint(s): panda_joint1",
        ),
        (["gravity", "panda", "--q", "panda_joint9=1"], 2, "unknown joint 'panda_joint9'"),
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
            "--duration must be a positive number",
        ),
        (
            ["simulate", "double_pendulum", "--method", "Euler"],
            2,
            "unknown integration method 'Euler'",
        ),
        (["bogus", "panda"], 2, "invalid choice: 'bogus'"),
        (["gravity", "/nonexistent/robot.urdf"], 3, "no such file"),
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
        "floating.urdf": (
            "<robot name='x'><link name='a'/><link name='b'><inertial><mass value='1'/>"
            "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link>"
            "<joint name='free' type='floating'><parent link='a'/><child link='b'/></joint>"
            "</robot>",
            "free",
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
    """The UR description's shape without tool0: two leaves end the last body (tcp, ft_frame);
    the error names both and the options."""
    urdf = tmp_path / "no_tool0.urdf"
    urdf.write_text(UR_SHAPE_URDF.replace('"tool0"', '"tcp"'))
    data = run_json(capsys, "info", urdf)
    assert data["tip_link"] is None
    for command in ("jacobian", "pose", "wrench --tau 0 0 0 0 0 0"):
        name, *options = command.split()
        code, err = run_fail(capsys, name, urdf, *options)
        assert code == 2, err
        for word in ("tcp", "ft_frame", "--frame", "--tip-link"):
            assert word in err, err
    data = run_json(capsys, "jacobian", urdf, "--tip-link", "tcp")
    assert data["frame"] == "tcp"


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
    floating = tmp_path / "floating.urdf"
    floating.write_text(
        "<robot name='x'><link name='a'/><link name='b'><inertial><mass value='1'/>"
        "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link>"
        "<joint name='free' type='floating'><parent link='a'/><child link='b'/></joint></robot>"
    )
    code, err = run_fail(capsys, "info", floating, "--base-link", "a")
    assert code == 3 and "free" in err


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
    assert "1 link inertia(s) loaded" in capsys.readouterr().err
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


# ------------------------------------------------------------------ inverse dynamics, pose


def test_inverse_dynamics_matches_core_and_its_terms_add_up(capsys):
    model = panda()
    q, qd, qdd = np.array(PANDA_Q), np.linspace(-0.5, 0.5, 7), np.linspace(1.0, -1.0, 7)
    f = np.array([1.0, -2.0, -10.0, 0.3, 0.0, 0.5])
    argv = ["inverse-dynamics", "panda", "--q", *q, "--qd", *qd, "--qdd", *qdd]
    data = run_json(capsys, *argv, "--f-ext", *f)
    np.testing.assert_allclose(data["tau"], model.inverse_dynamics(q, qd, qdd, f_ext=f), atol=1e-10)
    np.testing.assert_allclose(data["inertial"], model.mass_matrix(q) @ qdd, atol=1e-10)
    np.testing.assert_allclose(data["gravity_torques"], model.gravity_torques(q), atol=1e-12)
    np.testing.assert_allclose(data["external"], -model.jacobian(q).T @ f, atol=1e-10)
    total = (
        np.array(data["inertial"])
        + np.array(data["coriolis_centrifugal"])
        + np.array(data["gravity_torques"])
        + np.array(data["external"])
    )
    np.testing.assert_allclose(total, data["tau"], atol=1e-10)
    assert data["frame"] == "tool"
    # without --f-ext: no external term; the text names the terms
    assert cli.main([*map(str, argv)]) == 0
    text = capsys.readouterr().out
    assert "M qdd" in text and "C qd" in text and "-J^T f" not in text


def test_inverse_dynamics_pendulum_closed_form(capsys):
    """Reference section 3 at rest: tau = M(q) qdd + g(q) with D11 = m1 r1^2 + I1 + m2 (l1^2 +
    r2^2 + 2 l1 r2 c2) + I2 etc. (two 10 kg, 1 m rods; izz of the URDF)."""
    q, qdd = np.array([0.4, -1.1]), np.array([2.0, -1.0])
    data = run_json(capsys, "inverse-dynamics", "double_pendulum", "--q", *q, "--qdd", *qdd)
    m, length, r, i = 10.0, 1.0, 0.5, 0.8416666666666667
    c2 = np.cos(q[1])
    d11 = m * r**2 + i + m * (length**2 + r**2 + 2 * length * r * c2) + i
    d12 = m * (r**2 + length * r * c2) + i
    d22 = m * r**2 + i
    g, c1, c12 = 9.81, np.cos(q[0]), np.cos(q[0] + q[1])
    grav = np.array([(m * r + m * length) * g * c1 + m * r * g * c12, m * r * g * c12])
    expected = np.array([[d11, d12], [d12, d22]]) @ qdd + grav
    np.testing.assert_allclose(data["tau"], expected, rtol=1e-12)


def test_pose_matches_core(capsys):
    from scipy.spatial.transform import Rotation

    model = panda()
    q = np.array(PANDA_Q)
    data = run_json(capsys, "pose", "panda", "--q", *q, "--frame", "panda_link4", "tool")
    assert list(data["poses"]) == ["panda_link4", "tool"]
    for frame, pose in data["poses"].items():
        expected = model.frame_pose(q, frame=frame)
        np.testing.assert_allclose(pose["matrix"], expected, atol=1e-12)
        np.testing.assert_allclose(pose["position"], expected[:3, 3], atol=1e-12)
        rot = Rotation.from_quat(pose["quaternion_xyzw"]).as_matrix()
        np.testing.assert_allclose(rot, expected[:3, :3], atol=1e-12)
        rot = Rotation.from_euler("xyz", pose["rpy"]).as_matrix()
        np.testing.assert_allclose(rot, expected[:3, :3], atol=1e-12)
    data = run_json(capsys, "pose", "panda", "--q", *q)
    assert list(data["poses"]) == ["tool"]
    data = run_json(capsys, "pose", "panda", "--frame", "all")
    assert list(data["poses"]) == list(model.link_names)
    code, err = run_fail(capsys, "pose", "panda", "--frame", "nolink")
    assert code == 2 and "unknown frame 'nolink'" in err


# ------------------------------------------------------------ simulate: hold, limits, energy


def test_simulate_tau_gravity_holds_the_arm(capsys):
    q0 = [0.3, -0.5, 0.2, -2.0, 0.1, 1.4, -0.6]
    data = run_json(
        capsys, "simulate", "panda", "--q", *q0, "--tau", "gravity", "--duration", "2", "--friction"
    )
    assert data["tau"] == "gravity"
    np.testing.assert_allclose(data["final_q"], q0, atol=1e-9)
    np.testing.assert_allclose(data["final_qd"], 0.0, atol=1e-9)
    assert "warnings" not in data or not data["warnings"]
    # without it the same arm falls
    data = run_json(capsys, "simulate", "panda", "--q", *q0, "--duration", "0.5")
    assert np.max(np.abs(np.array(data["final_q"]) - q0)) > 0.1


def test_simulate_warns_when_a_joint_leaves_its_limits(capsys):
    data = run_json(capsys, "simulate", "panda", "--duration", "1", "--tau", "panda_joint4=20")
    warnings = [w for w in data["warnings"] if "left its limits" in w]
    assert any(w.startswith("panda_joint4 left its limits [-3.0718, -0.0698]") for w in warnings)
    assert cli.main(["simulate", "panda", "--duration", "1", "--tau", "panda_joint4=20"]) == 0
    assert "warning: panda_joint4 left its limits" in capsys.readouterr().err


def test_energy_balance_separates_work_friction_and_drift(capsys):
    """A driven pendulum with friction: E - E0 = work - friction loss, to RK45's accuracy; the
    drift reported is that residual, not the energy change."""
    data = run_json(
        capsys,
        "simulate",
        "double_pendulum",
        "--duration",
        "2",
        "--tau",
        "20",
        "5",
        "--friction",
        "--json-series",
        "--gravity",
        "0",
        "0",
        "-9.81",  # gravity normal to the plane: the potential stays constant
    )
    change = data["energy_final"] - data["energy_initial"]
    assert abs(data["work_by_torques"]) > 10.0
    assert change == pytest.approx(data["work_by_torques"] - data["friction_loss"], abs=1e-3)
    assert data["energy_max_abs_drift"] < 1e-3 < abs(change)
    model = pendulum().with_gravity((0.0, 0.0, -9.81))
    t, q, qd = (np.array(data[k]) for k in ("t", "q", "qd"))
    balance = simulate.energy_balance(model, t, q, qd, np.tile([20.0, 5.0], (len(t), 1)), True)
    np.testing.assert_allclose(balance["work"], data["work_by_torques_series"], atol=1e-12)


def test_energy_panel_labels():
    from robot_dynamics.tools import plotting

    fig, axes = plotting._figure(1)
    t = np.linspace(0.0, 1.0, 11)
    energy, work, loss = 2.0 * t + 5.0, 3.0 * t, t
    plotting._energy_panel(axes[0, 0], t, energy, work, loss)
    ax = axes[0, 0]
    labels = ax.get_legend_handles_labels()[1]
    assert labels == [
        "E - E0 (total energy change)",
        "work done by the torques",
        "- friction losses (dissipated)",
        "integrator drift (the rest)",
    ]
    np.testing.assert_allclose(ax.lines[3].get_ydata(), 0.0, atol=1e-12)  # 2t = 3t - t
    title = ax.get_title()
    assert "work done by the torques - friction losses + integrator drift" in title
    assert float(title.split("max |drift| = ")[1].split(" J")[0]) < 1e-12
