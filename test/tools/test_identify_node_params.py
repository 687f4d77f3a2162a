"""``robot-dynamics identify --params``: a recording of an arm the dynamics node is configured
for (motor currents, a locked joint, rotor inertias and a tool given in the node's parameters
file) is fitted as the node sees the arm, and the written file launches that node.

Ground truth (test/tools/real_recordings.py): the bundled Panda with perturbed links, friction
and torque offsets, plus the node file's armature and 1.5 kg tool; its driver reports currents
(``effort_scale``) of six joints, the seventh locked at 0. The node built from the identified
URDF and the written file, as the node builds it, must reproduce the recorded efforts of a new
motion: the armature and tool are known (the file keeps them), so the fitted links must not
absorb them as well."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from robot_dynamics.tools.params_file import read_parameters_files
from real_recordings import csv_text, perturbed_truth, record, true_torques
from tools_helpers import panda, run

SCALE = [12.0, -10.0, 9.0, 8.0, -3.0, 2.5]  # torque per unit of the driver's current [N m]
ARMATURE = [0.25, 0.25, 0.2, 0.2, 0.1, 0.1]  # [kg m^2]
TOOL = (1.5, [0.02, 0.0, 0.06])  # [kg], [m] in the tool frame
MOVING = np.array([1, 1, 1, 1, 1, 1, 0], bool)
FIT = ("--friction-model", "asymmetric", "--offset", "on", "--filter-window", "0.15")

NODE_YAML = f"""/**:
  ros__parameters:
    locked_joints: ["panda_joint7=0.0"]
    effort_scale: {SCALE}
    armature: {ARMATURE}
    payload.mass: {TOOL[0]}
    payload.com: {TOOL[1]}
    observer_gain: 40.0
    contact.torque_on: [5.0, 5.0, 4.0, 4.0, 2.0, 2.0]
    friction.coulomb: [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    robot_description: "<robot name='a_description_the_identified_urdf_replaces'/>"
"""


@pytest.fixture(scope="module")
def arm():
    model = panda()
    layout, theta = perturbed_truth(model, np.random.default_rng(5))
    known = model.with_armature(np.array(ARMATURE + [0.0])).with_payload(*TOOL)

    def torques(t, q, qd, qdd):  # the links' (linear in their parameters) plus the known
        extra = known.inverse_dynamics(q, qd, qdd) - model.inverse_dynamics(q, qd, qdd)
        return true_torques(model, layout, theta, q, qd, qdd) + extra

    def recording(seed, duration, **options):
        return record(model, np.random.default_rng(seed), duration, moving=MOVING,
                      torques=torques, effort_scale=SCALE + [1.0], **options)  # fmt: skip

    return SimpleNamespace(model=model, known=known, recording=recording)


def six_joint_csv(path, model, rec):
    """The recording as the driver publishes it: the locked joint left out."""
    six = SimpleNamespace(
        t=rec.t,
        position=rec.position[:, :6],
        velocity=rec.velocity[:, :6],
        effort=rec.effort[:, :6],
    )
    path.write_text(csv_text(list(model.joint_names[:6]), six))


def identify_with_the_node_file(tmp_path):
    """``identify`` of ``r.csv`` with ``node.yaml`` (both in ``tmp_path``), the true friction
    model, JSON out; ``--out`` to add."""
    (tmp_path / "node.yaml").write_text(NODE_YAML)
    return (
        "identify",
        "panda",
        tmp_path / "r.csv",
        *FIT,
        "--json",
        "--params",
        tmp_path / "node.yaml",
    )


def test_the_written_file_launches_the_node_the_recording_was_made_with(tmp_path, capsys, arm):
    six_joint_csv(tmp_path / "r.csv", arm.model, arm.recording(6, 20.0))
    argv = identify_with_the_node_file(tmp_path)
    code, out, err = run(capsys, *argv, "--out", tmp_path / "id.urdf")
    assert code == 0, err
    report = json.loads(out)
    # the file's conversion, holds and model: no warning of another unit or a default hold
    assert report["warnings"] == [], report["warnings"]
    params = read_parameters_files([tmp_path / "id.yaml"])
    v = params.values
    assert v["locked_joints"] == ["panda_joint7=0.0"]
    assert v["effort_scale"] == SCALE and v["armature"] == ARMATURE
    assert (v["payload.mass"], v["payload.com"]) == (TOOL[0], TOOL[1])
    # carried over: the node's other parameters, per-joint lists in the node's order
    assert v["observer_gain"] == 40.0 and v["contact.torque_on"] == [5.0, 5.0, 4.0, 4.0, 2.0, 2.0]
    assert v["tip_link"] == "tool" and v["gravity"] == [0.0, 0.0, -9.81]
    # replaced: the description (by the identified URDF) and the friction (by the fit's)
    assert "robot_description" not in params.given and "friction.coulomb" not in params.given
    assert v["friction_compensation"] is True and len(v["friction.asymmetry"]) == 6
    # the node of the identified URDF and the file reproduces a new motion's currents: the
    # links carry neither the tool nor the rotor inertias twice
    _, node = params.build_model((tmp_path / "id.urdf").read_text())
    assert node.joint_names == arm.model.joint_names[:6]
    pipeline = params.pipeline(node)
    fresh = arm.recording(9, 10.0, logged=False, ripple=0.0, torque_noise=0.0)
    q, qd, qdd = (x[:, :6] for x in fresh.motion(fresh.true_t))
    friction = node.friction_torques(qd, v["friction_velocity_threshold"])
    residual = node.inverse_dynamics(q, qd, qdd) + friction
    residual -= pipeline.measured_torques(fresh.effort[:, :6])
    full = [*q.T, np.zeros(len(q))], [*qd.T, np.zeros(len(q))], [*qdd.T, np.zeros(len(q))]
    q7, qd7, qdd7 = (np.column_stack(x) for x in full)
    known = arm.known.inverse_dynamics(q7, qd7, qdd7) - arm.model.inverse_dynamics(q7, qd7, qdd7)
    known_rms = np.sqrt(np.mean(known[:, :6] ** 2, axis=0))
    assert known_rms.min() > 1.0, known_rms  # the tool and rotors matter on every joint
    rms = np.sqrt(np.mean(residual**2, axis=0))
    assert np.all(rms < 0.05), (rms, known_rms)


def test_the_command_line_over_the_file(tmp_path, capsys, arm):
    # --effort-scale over the file's; --hold over its locked position; --armature fits the
    # armature the file gives, which the written file then replaces
    six_joint_csv(tmp_path / "r.csv", arm.model, arm.recording(6, 20.0))
    argv = identify_with_the_node_file(tmp_path)
    code, out, err = run(capsys, *argv, "--out", tmp_path / "a.urdf", "--effort-scale", "1",
                         "--hold", "panda_joint7=0.5", "--armature")  # fmt: skip
    assert code == 0, err
    (warning,) = json.loads(out)["warnings"]
    assert warning.startswith("effort-scale: "), warning  # currents read as torques
    v = read_parameters_files([tmp_path / "a.yaml"]).values
    assert v["effort_scale"] == [1.0] * 6 and v["locked_joints"] == ["panda_joint7=0.5"]
    assert len(v["armature"]) == 6 and v["armature"] != ARMATURE
    assert v["observer_gain"] == 40.0


def test_a_file_the_node_would_refuse_is_named(tmp_path, capsys, arm):
    six_joint_csv(tmp_path / "r.csv", arm.model, arm.recording(6, 2.0))
    (tmp_path / "node.yaml").write_text(
        "/**:\n  ros__parameters:\n    locked_joints: [panda_joint7]\n    armature: [0.1, 0.2]\n"
    )
    code, out, err = run(capsys, "identify", "panda", tmp_path / "r.csv", "--params",
                         tmp_path / "node.yaml", "--out", tmp_path / "a.urdf")  # fmt: skip
    assert code != 0
    assert "armature" in err and "node.yaml" in err, err
    assert not (tmp_path / "a.urdf").exists()


def test_the_written_file_sets_the_rest_velocity_from_the_velocities_at_rest(tmp_path, capsys):
    # 3 s at rest before the excitation, the driver's ripple going on: the node's friction
    # compensation is to add nothing while every joint is below 1.25 times the velocity noise
    # at rest (99.5 % of the velocities there below it: a glitch of a few samples does not
    # count); a rest shorter than a second, or none, leaves it off
    model = panda()
    names = list(model.joint_names)
    argv = ("identify", "panda", tmp_path / "r.csv", *FIT, "--json")

    def identified(rec, name):
        (tmp_path / "r.csv").write_text(csv_text(names, rec))
        code, out, err = run(capsys, *argv, "--out", tmp_path / f"{name}.urdf")
        assert code == 0, err
        params = read_parameters_files([tmp_path / f"{name}.yaml"])
        return json.loads(out)["data_preparation"], params

    rec = record(model, np.random.default_rng(21), 20.0, rest=3.0, ripple=0.003)
    at_rest = rec.true_t < 2.5
    noise = np.quantile(np.abs(rec.velocity[at_rest]), 0.995, axis=0).max()
    assert 0.004 < noise < 0.01  # three 3 mrad/s components
    prepared, params = identified(rec, "a")
    assert 2.0 < prepared["rest_time"] <= 3.0, prepared["rest_time"]
    value = params.values["friction_rest_velocity"]
    assert value == pytest.approx(1.25 * noise, rel=0.1)
    assert max(prepared["rest_velocity"].values()) == pytest.approx(value / 1.25)
    # a driver's glitch at rest: five samples at 0.3 rad/s
    glitch = np.flatnonzero(at_rest)[[100, 700, 1300, 1900, 2400]]
    rec.velocity[glitch, 1] = 0.3
    _, params = identified(rec, "b")
    assert params.values["friction_rest_velocity"] == pytest.approx(value, rel=0.05)
    short = record(model, np.random.default_rng(21), 20.0, rest=0.4, ripple=0.003)
    prepared, params = identified(short, "c")
    assert prepared["rest_time"] < 1.0 and "friction_rest_velocity" not in params.given
    prepared, params = identified(record(model, np.random.default_rng(21), 20.0), "d")
    assert prepared["rest_velocity"] is None
    assert "friction_rest_velocity" not in params.given


def test_a_file_that_locks_no_joint(tmp_path, capsys):
    # the usual node file (no locked_joints): every joint fitted, the file's settings carried
    model = panda()
    (tmp_path / "r.csv").write_text(
        csv_text(list(model.joint_names), record(model, np.random.default_rng(4), 10.0))
    )
    (tmp_path / "node.yaml").write_text("/**:\n  ros__parameters:\n    observer_gain: 30.0\n")
    code, out, err = run(capsys, "identify", "panda", tmp_path / "r.csv", *FIT, "--params",
                         tmp_path / "node.yaml", "--out", tmp_path / "a.urdf")  # fmt: skip
    assert code == 0, err
    params = read_parameters_files([tmp_path / "a.yaml"])
    assert params.values["observer_gain"] == 30.0 and "locked_joints" not in params.given
    assert len(params.values["effort_offset"]) == 7
