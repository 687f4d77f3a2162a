"""``robot-dynamics identify``'s model: per joint the friction model and the torque offset the
held-out data support, written as the identified URDF and, beside it, the dynamics node's
parameters file (offsets as effort_offset, the friction model beyond the URDF's), both read back
the way the node reads them. A 3-DOF arm recorded with torque offsets, asymmetric and Stribeck
friction, torque noise and a velocity ripple."""

import contextlib
import io
import json
import re

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.friction import FrictionModel
from robot_dynamics.core.identification import apply_parameters
from robot_dynamics.core.regressor import ParameterLayout, inertia_to_parameters
from robot_dynamics.core.spatial import inertia_parameters, spatial_inertia
from robot_dynamics.tools import cli
from robot_dynamics.tools.identification_data import write_bag
from robot_dynamics.tools.params_file import read_parameters_file
from tools_helpers import ARM3_URDF, run

# yaw: asymmetric; shoulder: viscous + Coulomb; elbow: asymmetric + Stribeck
FRICTION = FrictionModel(
    viscous=[0.3, 0.5, 0.2],
    coulomb=[0.6, 0.8, 0.4],
    asymmetry=[0.25, 0.0, -0.15],
    stribeck=[0.0, 0.0, 0.3],
    stribeck_velocity=[0.1, 0.1, 0.1],
)
OFFSET = np.array([0.15, -0.25, 0.2])  # of the measured torque
NOISE = 0.03  # [N m]


@pytest.fixture(scope="module")
def arm3_recording(tmp_path_factory):
    rng = np.random.default_rng(21)
    path = tmp_path_factory.mktemp("arm3")
    urdf = path / "arm3.urdf"
    urdf.write_text(ARM3_URDF)
    model = RobotModel.from_urdf_string(ARM3_URDF)
    layout = ParameterLayout.for_model(model, viscous=False, coulomb=False)
    bodies = []
    for b in range(model.tree.nb):
        m, c, inertia = inertia_parameters(model.tree.inertia[b])
        bodies.append(
            inertia_to_parameters(
                spatial_inertia(m * 1.15, c + rng.uniform(-0.02, 0.02, 3), inertia * 1.1)
            )
        )
    truth = apply_parameters(model, layout, np.concatenate(bodies)).with_friction(FRICTION)
    # 40 s at 500 Hz: 2 s at rest, four sines per joint faded in and out, 2 s at rest
    t = np.arange(0.0, 40.0, 0.002)
    env = np.clip((t - 2) / 3, 0, 1) * np.clip((38 - t) / 3, 0, 1)
    env = env**2 * (3 - 2 * env)
    q = sum(
        rng.normal(size=3)
        * 0.6
        / h
        * np.sin(2 * np.pi * 0.1 * h * t[:, None] + rng.uniform(0, 6, 3))
        for h in range(1, 5)
    )
    q = (q - q[0]) * env[:, None]
    qd = np.gradient(q, 0.002, axis=0)
    qdd = np.gradient(qd, 0.002, axis=0)
    tau = truth.inverse_dynamics(q, qd, qdd) + truth.friction_torques(qd) + OFFSET
    effort = tau + NOISE * rng.normal(size=tau.shape)
    velocity = qd + 0.005 * np.sin(2 * np.pi * 15 * t)[:, None]
    names = list(model.joint_names)
    bag = path / "bag"
    write_bag(bag, [(t[i], names, q[i], velocity[i], effort[i]) for i in range(t.size)])
    return model, truth, urdf, bag


@pytest.fixture(scope="module")
def identified(arm3_recording, tmp_path_factory):
    model, truth, urdf, bag = arm3_recording
    out = tmp_path_factory.mktemp("identified") / "arm3_identified.urdf"
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = cli.main([str(a) for a in ("identify", urdf, bag, "--out", out, "--json")])
    assert code == 0
    return out, json.loads(stdout.getvalue())


def test_identify_writes_the_urdf_and_the_node_parameters(arm3_recording, identified):
    model, truth, urdf, bag = arm3_recording
    out, report = identified
    tmp_path = out.parent
    assert report["friction_model"] == ["asymmetric", "viscous_coulomb", "stribeck"]
    assert report["offset_fitted"] == [True, True, True]
    np.testing.assert_allclose(report["offset"], OFFSET, atol=0.05)
    assert all(0 < s < 0.05 for s in report["offset_std"])
    np.testing.assert_allclose(report["asymmetry"], FRICTION.asymmetry, atol=0.05)
    np.testing.assert_allclose(report["friction"], FRICTION.coulomb, atol=0.05)
    assert report["stribeck"][:2] == [0.0, 0.0]  # exactly: no Stribeck column there
    assert abs(report["stribeck"][2] - 0.3) < 0.1
    # the evidence: held-out RMS of each friction model per joint, the choice the simplest
    evidence = report["friction_evidence"]
    assert evidence["asymmetric"][0] ** 2 < 0.9 * evidence["viscous_coulomb"][0] ** 2
    assert evidence["stribeck"][2] ** 2 < 0.9 * evidence["asymmetric"][2] ** 2
    assert np.all(np.array(report["rms_identified"]) < 0.5 * np.array(report["rms_nominal"]))
    # the parameters file beside the URDF, as the node reads it
    params_path = tmp_path / "arm3_identified.yaml"
    assert report["parameters_file"] == str(params_path)
    params = read_parameters_file(params_path)
    values = params.values
    assert values["friction_compensation"] is True
    assert values["friction_velocity_threshold"] == 0.01
    np.testing.assert_allclose(values["effort_offset"], -np.array(report["offset"]), atol=1e-9)
    np.testing.assert_allclose(values["friction.asymmetry"], report["asymmetry"], atol=1e-9)
    assert params.given >= {"effort_offset", "friction.asymmetry", "friction.stribeck"}
    text = params_path.read_text()
    assert text.startswith("# robot-dynamics identify") and "/**:" in text
    assert "per-joint lists in model order: yaw, shoulder, elbow" in text
    # the node's model of the written URDF and file: the identified friction model
    parsed, derived = params.build_model(out.read_text())
    friction = derived.friction
    np.testing.assert_allclose(friction.viscous, report["damping"], rtol=1e-8)
    np.testing.assert_allclose(friction.coulomb, report["friction"], rtol=1e-8)
    np.testing.assert_allclose(friction.asymmetry, report["asymmetry"], atol=1e-9)
    np.testing.assert_allclose(friction.stribeck, report["stribeck"], atol=1e-9)
    # ... whose torques, converted as the node converts the efforts, match the truth's
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.uniform(-1, 1, (3, 50, 3))
    effort = truth.inverse_dynamics(q, qd, qdd) + truth.friction_torques(qd) + OFFSET
    tau_node = effort + np.array(values["effort_offset"])
    predicted = derived.inverse_dynamics(q, qd, qdd) + derived.friction_torques(qd)
    assert np.abs(tau_node - predicted).max() < 0.25
    # honest numbers: no solver residue (1e-33) written as a value
    for name in (out, params_path):
        tiny = re.findall(r"[-+]?\d\.?\d*e-(?:1[5-9]|[2-9]\d|\d{3})", name.read_text())
        assert not tiny, (name, tiny[:5])


def test_identify_with_fixed_choices_and_the_printed_report(
    tmp_path, capsys, monkeypatch, arm3_recording
):
    model, truth, urdf, bag = arm3_recording
    out = tmp_path / "fixed.urdf"
    argv = ("identify", urdf, bag, "--out", out, "--friction-model", "viscous-coulomb")
    code, stdout, err = run(capsys, *argv, "--offset", "off", "--json")
    assert code == 0, err
    report = json.loads(stdout)
    assert report["friction_model"] == ["viscous_coulomb"] * 3
    assert report["offset_fitted"] == [False] * 3 and report["offset"] == [0.0] * 3
    values = read_parameters_file(tmp_path / "fixed.yaml").values
    assert values["effort_offset"] == [0.0] * 3 and values["friction.asymmetry"] == [0.0] * 3
    # the human report: the table of the evidence and the choice, the files written
    # (--out relative to the working directory: the launch command printed names both files by
    # absolute path, as the launch file looks a relative description_file up in its package)
    monkeypatch.chdir(tmp_path)
    code, stdout, err = run(capsys, "identify", urdf, bag, "--out", "fixed.urdf", "--offset")
    assert code == 0, err
    assert "friction model per joint (held-out torque RMS of each [N m]" in stdout
    assert re.search(r"yaw\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+asymmetric\s+\+0\.1\d+ \+- ", stdout)
    assert (
        "wrote fixed.yaml (ros2 launch robot_dynamics dynamics.launch.py "
        f"description_file:={tmp_path / 'fixed.urdf'} params_file:={tmp_path / 'fixed.yaml'})"
    ) in stdout
    # choosing needs held-out data
    code, _, err = run(capsys, "identify", urdf, bag, "--out", out, "--holdout", "0")
    assert code == 2 and "needs held-out data" in err
    code, stdout, err = run(
        capsys, "identify", urdf, bag, "--out", out, "--holdout", "0", "--friction-model",
        "asymmetric", "--offset", "on", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(stdout)["friction_model"] == ["asymmetric"] * 3
    # the recording's efforts given with an offset of their own: the node's effort_offset is
    # still the one that turns the recorded efforts into torques (the consistent fit starts
    # friction and offsets at their least-squares values: from the nominal ones its solver
    # stopped far from the optimum here)
    code, stdout, err = run(
        capsys, "identify", urdf, bag, "--out", out, "--effort-offset", "0.5", "0", "0",
        "--effort-scale", "1", "1", "1", "--friction-model", "asymmetric", "--offset", "on",
        "--json",
    )  # fmt: skip
    assert code == 0, err
    values = read_parameters_file(tmp_path / "fixed.yaml").values
    np.testing.assert_allclose(values["effort_offset"], -OFFSET, atol=0.05)
    assert values["effort_scale"] == [1.0, 1.0, 1.0]
    code, _, err = run(capsys, "identify", urdf, bag, "--out", out, "--stribeck-velocity", "0")
    assert code == 2 and "argument --stribeck-velocity: must be a finite number > 0, got '0'" in err


def test_commands_compute_with_the_parameters_file(capsys, arm3_recording, identified):
    """--params: the node's model (friction model) and conversions (effort offsets, friction
    compensation) in inverse-dynamics and wrench."""
    model, truth, urdf, bag = arm3_recording
    identified, _ = identified
    params = identified.with_suffix(".yaml")
    values = read_parameters_file(params).values
    node = read_parameters_file(params).build_model(identified.read_text())[1]
    q, qd, qdd = [0.3, -0.5, 0.8], [0.4, -0.3, 0.05], [0.5, 0.2, -0.4]
    code, stdout, err = run(
        capsys, "inverse-dynamics", identified, "--q", *q, "--qd", *qd, "--qdd", *qdd,
        "--params", params, "--json",
    )  # fmt: skip
    assert code == 0, err
    got = json.loads(stdout)
    friction = node.friction_torques(qd, values["friction_velocity_threshold"])
    assert np.abs(friction).min() > 0.2  # the identified friction model, asymmetric included
    np.testing.assert_allclose(got["friction"], friction, atol=1e-12)
    np.testing.assert_allclose(got["tau"], node.inverse_dynamics(q, qd, qdd) + friction, atol=1e-9)
    # nothing touches the arm: the measured efforts, converted and friction-compensated as the
    # node does, leave (almost) no external torque; without the file the offsets and friction
    # show as a phantom wrench
    effort = truth.inverse_dynamics(q, qd, qdd) + truth.friction_torques(qd) + OFFSET
    argv = ("wrench", identified, "--q", *q, "--qd", *qd, "--qdd", *qdd, "--tau", *effort)
    code, stdout, err = run(capsys, *argv, "--params", params, "--json")
    assert code == 0, err
    with_file = json.loads(stdout)
    code, stdout, err = run(capsys, *argv, "--json")
    assert code == 0, err
    without = json.loads(stdout)
    assert np.abs(with_file["tau_ext"]).max() < 0.15, with_file["tau_ext"]
    assert np.abs(without["tau_ext"]).max() > 0.5, without["tau_ext"]
    # a file the node would refuse is refused here too
    bad = params.parent / "bad.yaml"
    bad.write_text("/**:\n  ros__parameters:\n    friction.asymmetry: [5.0, 0.0, 0.0]\n")
    code, _, err = run(capsys, "gravity", identified, "--params", bad)
    assert code == 2 and "friction.asymmetry of joint 'yaw'" in err


def test_an_asymmetry_at_its_bound_stays_within_the_written_coulomb_level():
    """|asymmetry| = coulomb (a direction without Coulomb friction): the URDF's Coulomb level and
    the parameters file's asymmetry are written exactly, the two load together."""
    from types import SimpleNamespace

    from robot_dynamics.core.urdf_writer import identified_urdf
    from robot_dynamics.tools.identified_parameters import identified_parameters

    model = RobotModel.from_urdf_string(ARM3_URDF)
    coulomb = np.array([0.17525792020545372, 0.3, 1.0 / 3.0])
    friction = FrictionModel([0.1] * 3, coulomb, asymmetry=-coulomb)
    layout = ParameterLayout.for_model(model, asymmetry=True)
    theta = layout.nominal(model.with_friction(friction))
    result = SimpleNamespace(
        friction_model=lambda m: layout.friction_model(theta, m.friction),
        group=lambda name: layout.joint_values(theta, name),
        layout=layout,
        theta=theta,
    )
    values = identified_parameters(result, model, 0.01)
    urdf = RobotModel.from_urdf_string(identified_urdf(ARM3_URDF, model, layout, theta))
    both = urdf.with_friction(urdf.friction.with_parameters(values))
    np.testing.assert_array_equal(both.friction.asymmetry, -coulomb)
    np.testing.assert_array_equal(both.friction.coulomb, coulomb)
    assert np.all(np.abs(both.friction.asymmetry) <= both.friction.coulomb)
