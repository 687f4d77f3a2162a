"""What ``robot-dynamics estimate`` says about a recording beyond its numbers: a push on the arm
at rest named as a disturbance (judged beyond what the joints' friction may hold), the driver's
velocity noise at rest beyond ``friction_rest_velocity`` named with the level that removes its
phantom, and the messages near a singularity counted in the summary.
"""

import csv

import numpy as np
import pytest

from robot_dynamics.core.rest import MOVING_VELOCITY
from robot_dynamics.tools.params_file import parameters_yaml

import estimate_recordings as ER
from tools_helpers import run


def test_a_push_on_the_arm_at_rest_is_named_beyond_its_friction(arm, tmp_path):
    """The arm stands still for 3 s and is pushed with 10 N in the middle of it, the usual
    check of a recording. At rest a joint's residual is judged beyond what its friction may
    hold (the model's Coulomb, Stribeck and asymmetry), so the push is named; the same rest
    without the push is not."""
    folder, urdf, params = arm
    rest = (3.0, 6.0)
    push = ER.Push(4.0, 5.5, (0.0, 10.0, 0.0))
    for pushes in ((push,), ()):
        recording = ER.simulate(seed=14, duration=8.0, pushes=pushes, rests=(rest,))
        held = (recording.t > push.start + 0.3) & (recording.t < push.end - 0.1)
        speed = np.abs(np.diff(recording.q[held], axis=0)).max() / 1e-3
        assert speed < 0.5 * MOVING_VELOCITY  # at rest under the push (or none)
        path = tmp_path / f"rest_{len(pushes)}.csv"
        ER.write_csv(str(path), recording, ER.JOINT_NAMES)
        summary = ER.estimate_json(urdf, str(path), "--params", params, "--out", str(path))
        if not pushes:
            assert summary["disturbed"] == [], summary["disturbed"]
            continue
        [(start, end)] = summary["disturbed"]
        assert push.start <= start <= push.start + 0.5 and push.end - 0.3 <= end <= push.end + 0.2
        assert any(w.startswith("disturbance:") for w in summary["warnings"])


def test_messages_near_a_singularity_are_counted_in_the_summary(arm, tmp_path, capsys):
    """Every message near a singularity (singular_threshold above the arm's largest singular
    value): the summary says how many and what it does to the wrench, as the node warns."""
    _, urdf, _ = arm
    data = str(tmp_path / "free.csv")
    ER.write_csv(data, ER.simulate(seed=12, duration=3.0), ER.JOINT_NAMES)
    params = tmp_path / "singular.yaml"
    params.write_text(parameters_yaml(dict(ER.node_parameters(), singular_threshold=10.0)))
    argv = [urdf, data, "--params", str(params), "--out", str(tmp_path / "s")]
    code, text, _ = run(capsys, "estimate", *argv)
    assert code == 0
    text = " ".join(text.split())
    summary = ER.estimate_json(*argv)
    count = summary["pipeline"]["singular_warnings"]
    assert count == summary["status"]["estimated"] > 0
    assert f"near a singularity in {count} messages: the wrench there is damped" in text


def test_velocity_noise_at_rest_is_named_and_its_level_removes_the_phantom(tmp_path, monkeypatch):
    """A harmonic-drive arm (Coulomb friction 2-2.6 N m) whose driver reports a 9 mrad/s 15 Hz
    velocity ripple stands still for 3 s. With friction compensation and no
    friction_rest_velocity, the smooth sign turns the ripple at rest into up to 70 % of the
    Coulomb level: named, with the level to set. That level set, nothing is named, the phantom
    force at rest drops and in motion it stays the same."""
    monkeypatch.setattr(ER, "COULOMB", ER.COULOMB * 4)
    monkeypatch.setattr(ER, "STRIBECK", ER.STRIBECK * 4)
    monkeypatch.setattr(ER, "RIPPLE", 9e-3)
    recording = ER.simulate(seed=3, duration=8.0, rests=((2.0, 5.0),))
    data, urdf = tmp_path / "r.csv", tmp_path / "arm.urdf"
    ER.write_csv(str(data), recording, ER.JOINT_NAMES)
    urdf.write_text(ER.estimator_urdf())

    def estimate(name, **values):
        params = tmp_path / f"{name}.yaml"
        params.write_text(parameters_yaml({**ER.node_parameters(), **values}, node="/**"))
        out = str(tmp_path / name)
        summary = ER.estimate_json(str(urdf), str(data), "--params", str(params), "--out", out)
        with open(out + ".csv") as fh:
            rows = list(csv.DictReader(fh))
        t = np.array([float(r["time"]) for r in rows])
        force = np.array([float(r["force"] or "nan") for r in rows])
        rest, moving = (t > 2.5) & (t < 5.0), ((t > 0.5) & (t < 2.0)) | (t > 5.5)
        rms = [float(np.sqrt(np.nanmean(force[m] ** 2))) for m in (rest, moving)]
        return summary, rms

    summary, (rest, moving) = estimate("off")
    (warning,) = [w for w in summary["warnings"] if w.startswith("velocity-noise:")]
    noise = max(summary["rest_velocity"].values())
    assert 0.008 < noise < 0.013 and summary["rest_time"] > 2.0  # the ripple and its noise
    level = float(warning.split("Set friction_rest_velocity: ")[1].split(" ")[0])
    assert level == pytest.approx(1.25 * noise, rel=0.01), warning
    summary, (rest_gated, moving_gated) = estimate("set", friction_rest_velocity=level)
    assert not [w for w in summary["warnings"] if w.startswith("velocity-noise:")]
    assert rest_gated < 0.85 * rest, (rest_gated, rest)
    assert moving_gated == pytest.approx(moving, rel=0.02)
