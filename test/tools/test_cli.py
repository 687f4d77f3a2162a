"""The ``robot-dynamics`` command-line tool's numbers: ``info``, ``gravity``, ``mass-matrix``,
``jacobian``, ``wrench``, ``inverse-dynamics`` and ``pose`` on the bundled URDFs, ``--json``
checked against the core and the reference's closed forms.

The tests call ``cli.main(argv)`` in-process (tools_helpers.run_json, run_fail).
"""

import numpy as np
import pytest

from robot_dynamics.tools import cli
from robot_dynamics.tools.bundled import bundled_urdf_path
from robot_dynamics.tools.params_file import parameters_yaml, read_parameters_files
from tools_helpers import PANDA_Q, erd_urdf_path, panda, pendulum, run_fail, run_json


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


def test_info_with_the_node_parameters_lists_the_locked_joints(capsys, tmp_path):
    """The Panda with its gripper and a node parameters file that locks the finger: info shows
    the node's model (seven joints, the fingers locked at 1 cm); excite moves only those seven."""
    params = tmp_path / "locked.yaml"
    params.write_text(parameters_yaml({"locked_joints": ["panda_finger_joint1=0.01"]}))
    data = run_json(capsys, "info", _erd_panda(), "--params", str(params))
    assert data["joint_names"] == [f"panda_joint{i}" for i in range(1, 8)]
    assert data["locked_joints"] == [
        {"name": "panda_finger_joint1", "position": 0.01},
        {"name": "panda_finger_joint2", "position": 0.01},
    ]
    assert data["mimic_joints"] == []
    assert cli.main(["info", _erd_panda(), "--params", str(params)]) == 0
    text = capsys.readouterr().out
    assert "locked joints (fixed there by locked_joints): panda_finger_joint1 at 0.01" in text
    assert "panda_finger_joint1 [prismatic, locked at 0.01] -> panda_leftfinger" in text
    out = tmp_path / "excite"
    data = run_json(
        capsys, "excite", _erd_panda(), "--params", str(params), "--out", str(out),
        "--duration", "10", "--iterations", "2",
    )  # fmt: skip
    assert data["joint_names"] == [f"panda_joint{i}" for i in range(1, 8)]
    assert (
        (tmp_path / "excite.yaml")
        .read_text()
        .startswith("joint_names: [" + ", ".join(f"panda_joint{i}" for i in range(1, 8)) + "]")
    )


def test_a_parameters_file_base_gets_the_nodes_gravity(capsys, tmp_path):
    """A Panda on a wall (world -> panda_link0 rolled 90 degrees) and a parameters file whose
    base_link is panda_link0: the commands compute with the node's gravity for that base (9.81
    down the root's z as panda_link0 sees it), not the one of the URDF's root; --gravity and a
    file's gravity still win."""
    with open(bundled_urdf_path("panda")) as fh:
        text = fh.read()
    wall = (
        '<link name="world"/><joint name="wall" type="fixed"><parent link="world"/>'
        '<child link="panda_link0"/><origin xyz="0 0 1" rpy="1.5707963267948966 0 0"/></joint>'
    )
    head, sep, tail = text.partition('<link name="panda_link0">')
    urdf = tmp_path / "wall.urdf"
    urdf.write_text(head + wall + sep + tail)
    params = tmp_path / "wall.yaml"
    params.write_text(parameters_yaml({"base_link": "panda_link0", "tip_link": "tool"}))
    node = read_parameters_files([params]).build_model(urdf.read_text())[1]
    assert node.gravity == pytest.approx([0.0, -9.81, 0.0], abs=1e-12)
    data = run_json(capsys, "info", urdf, "--params", params)
    assert data["base_link"] == "panda_link0"
    assert data["gravity"] == pytest.approx(node.gravity, abs=1e-12)
    data = run_json(capsys, "info", urdf, "--params", params, "--gravity", "0", "0", "-1")
    assert data["gravity"] == pytest.approx([0.0, 0.0, -1.0])
    params.write_text(parameters_yaml({"base_link": "panda_link0", "gravity": [1.0, 0.0, 0.0]}))
    assert run_json(capsys, "info", urdf, "--params", params)["gravity"] == [1.0, 0.0, 0.0]


def test_info_with_the_node_parameters_adds_the_payload_and_armature(capsys, tmp_path):
    """A parameters file with a payload and rotor inertias: the total mass is the node's model's
    (links and payload), the payload and the armature are listed."""
    params = tmp_path / "loaded.yaml"
    armature = [0.1, 0.1, 0.1, 0.05, 0.02, 0.02, 0.02]
    params.write_text(
        parameters_yaml(
            {"payload.mass": 2.0, "payload.com": [0.0, 0.0, 0.05], "armature": armature}
        )
    )
    data = run_json(capsys, "info", "panda", "--params", str(params))
    assert data["payload"] == {
        "mass": 2.0,
        "frame": "tool",
        "com": [0.0, 0.0, 0.05],
        "inertia": [0.0] * 6,
    }
    assert data["total_mass"] == pytest.approx(17.421901 + 2.0, abs=1e-6)
    model = panda().with_payload(2.0, [0.0, 0.0, 0.05])
    tree = model.tree
    assert data["total_mass"] == pytest.approx(
        tree.inertia[:, 0, 0].sum() + tree.base_inertia[0, 0]
    )
    assert [j["armature"] for j in data["joints"]] == pytest.approx(armature)
    assert cli.main(["info", "panda", "--params", str(params)]) == 0
    text = capsys.readouterr().out
    assert "total mass 19.422 kg (11 links at or below panda_link0: 17.422 kg" in text
    assert "; payload 2.000 kg on tool)" in text
    assert "armature [kg m^2 or kg] (on M's diagonal): panda_joint1 0.1, panda_joint2 0.1" in text
    # without a payload or armature: neither is listed
    data = run_json(capsys, "info", "panda")
    assert data["payload"] is None and {j["armature"] for j in data["joints"]} == {0.0}
    assert cli.main(["info", "panda"]) == 0
    assert "armature" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "values, named",
    [
        ({"effort_scale": [1.0, 2.0]}, "effort_scale has 2 values, the model has 7 joints"),
        ({"wrench_frame": "no_such_link"}, "no_such_link"),
    ],
)
@pytest.mark.parametrize("command", [["info"], ["gravity", "--q", *["0"] * 7]])
def test_a_parameters_file_the_node_refuses_is_refused(capsys, tmp_path, values, named, command):
    """A parameters file the node would refuse at start-up (a per-joint vector of the wrong
    length, a frame the model lacks) is refused by every command that reads one, naming the
    file and the field, as estimate refuses it."""
    params = tmp_path / "node.yaml"
    params.write_text(parameters_yaml(values))
    code = cli.main([command[0], "panda", *command[1:], "--params", str(params)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "node.yaml: the parameters do not fit the model" in err and named in err


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


def test_pose_at_pitch_90_degrees_says_its_rpy_is_not_unique(tmp_path, capsys):
    """A link pitched by 90 deg (a joint about y at q = pi/2): its rpy still gives the rotation
    and is marked not unique; no library warning reaches the user."""
    import warnings

    from scipy.spatial.transform import Rotation

    from robot_dynamics import RobotModel

    urdf = tmp_path / "pitch.urdf"
    urdf.write_text(
        "<robot name='x'><link name='a'/><link name='b'><inertial><mass value='1'/>"
        "<inertia ixx='0.01' ixy='0' ixz='0' iyy='0.01' iyz='0' izz='0.01'/></inertial></link>"
        "<joint name='pitch' type='continuous'><parent link='a'/><child link='b'/>"
        "<axis xyz='0 1 0'/></joint></robot>"
    )
    model = RobotModel.from_urdf_file(str(urdf))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning escaping would fail the command
        for q, unique in ((np.pi / 2, False), (0.3, True)):
            (pose,) = run_json(capsys, "pose", urdf, "--q", q, "--frame", "b")["poses"].values()
            assert pose["rpy_unique"] is unique
            rot = Rotation.from_euler("xyz", pose["rpy"]).as_matrix()
            np.testing.assert_allclose(rot, model.frame_pose([q], frame="b")[:3, :3], atol=1e-12)
            assert cli.main(["pose", str(urdf), "--q", str(q), "--frame", "b"]) == 0
            text = capsys.readouterr().out
            assert ("roll and yaw not unique, yaw given as 0" in text) is not unique
