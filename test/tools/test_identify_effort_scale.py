"""``robot-dynamics identify``'s effort-scale warning on synthetic recordings of the bundled
Panda with ground truth (test/tools/real_recordings.py: a perturbed robot with friction and
offsets, logger stamps): motor currents with signs on every joint, a driver reporting twice the
torque, a joint's effort of the other sign under a cable's spring the URDF lacks (the nominal
torques explain less than half of that joint's torque), in torques and in currents; the
scales that fix each, given, and the recordings as measured, give no warning."""

import json
import re

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.tools.bundled import bundled_urdf_path
from real_recordings import csv_text, perturbed_truth, record, true_torques
from tools_helpers import run

FIT = ("--friction-model", "asymmetric", "--offset", "on")  # the true robot's (no search)


def test_identify_warns_of_efforts_in_another_unit(tmp_path, capsys, rng):
    # the driver reports motor currents (effort = (tau - offset) / scale, with signs) of the
    # perturbed robot with friction and torque offsets; identify is not told (no
    # --effort-scale): a named warning gives the joints and the ratio, the run goes on; the
    # same recording with its conversion, and the torques themselves, do not warn
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    names = list(model.joint_names)
    scale = np.array([12.0, -10.0, 9.0, 8.0, -3.0, 2.5, 2.0])
    rec = record(model, rng, 20.0, effort_scale=scale)
    path = tmp_path / "currents.csv"
    path.write_text(csv_text(names, rec))
    argv = ("identify", "panda", path, *FIT, "--filter-window", "0.15", "--json")
    code, out, err = run(capsys, *argv, "--out", tmp_path / "a.urdf")
    assert code == 0, err
    report = json.loads(out)
    (warning,) = report["warnings"]
    assert warning.startswith("effort-scale: the measured torques are not the nominal model's")
    assert "--effort-scale" in warning and "motor currents" in warning
    # panda_joint2's -10 (and joint 5's -3 where judged): named as of the other sign, with the
    # scales to give, negative for them
    size, _, sign = warning.partition("; the measured torques of ")
    assert sign.startswith("panda_joint2 x-") and "with the other sign" in sign, warning
    suggested = np.array(warning.split("--effort-scale ")[-1].split(" (")[0].split(), float)
    assert suggested[1] == pytest.approx(scale[1], rel=0.3), warning
    ratios = np.array([np.nan if r is None else r for r in report["nominal_torque_ratio"]])
    judged = np.isfinite(ratios)
    assert judged[:4].all(), ratios
    np.testing.assert_allclose(ratios[:4], 1.0 / scale[:4], rtol=0.3)
    assert np.all(np.sign(ratios[judged]) == np.sign(scale[judged])), ratios
    assert np.all(np.sign(suggested[judged]) == np.sign(scale[judged])), warning
    for k in range(4):  # judged in size: named there where outside 1/3 to 3 in magnitude
        named = f"{names[k]} x{ratios[k]:.3g}" in size
        assert named == (not 1 / 3 <= abs(ratios[k]) <= 3), (names[k], ratios[k], warning)
    assert (tmp_path / "a.yaml").read_text().count("# warning: effort-scale: ") == 1
    # the conversion given: friction, offsets and the URDF's errors stay within the bounds
    code, out, err = run(capsys, *argv, "--out", tmp_path / "b.urdf", "--effort-scale", *scale)
    assert code == 0, err
    report = json.loads(out)
    assert report["warnings"] == [] and "warning" not in (tmp_path / "b.yaml").read_text()
    ratios = np.array([np.nan if r is None else r for r in report["nominal_torque_ratio"]])
    assert np.isfinite(ratios[:4]).all() and np.nanmax(np.abs(np.log(ratios))) < np.log(1.5)
    path.write_text(csv_text(names, record(model, rng, 20.0)))
    code, out, err = run(capsys, *argv, "--out", tmp_path / "c.urdf")
    assert code == 0 and json.loads(out)["warnings"] == [], err
    # a driver reporting twice the torque on every joint: within 1/3 to 3, but one scale
    path.write_text(csv_text(names, record(model, rng, 20.0, effort_scale=np.full(7, 0.5))))
    code, out, err = run(capsys, *argv, "--out", tmp_path / "e.urdf")
    assert code == 0, err
    (warning,) = json.loads(out)["warnings"]
    assert warning.startswith("effort-scale: the measured torques are the nominal model's times ")
    assert "one scale, about x2" in warning, warning
    suggested = float(re.search(r"1 / the ratio, about ([0-9.]+), only checks", warning).group(1))
    assert "gear ratio x motor torque constant, from the driver or its datasheet" in warning
    assert suggested == pytest.approx(0.5, rel=0.2), warning  # the URDF's own errors beside
    # the scale given once, for every joint: no warning
    code, out, err = run(capsys, *argv, "--out", tmp_path / "f.urdf", "--effort-scale", "0.5")
    assert code == 0 and json.loads(out)["warnings"] == [], err
    # a wrong scale given (N m read as mN m): the same warning, saying a scale was given
    code, out, err = run(capsys, *argv[:-1], "--out", tmp_path / "d.urdf", "--effort-scale",
                         *["1000"] * 7)  # fmt: skip
    assert code == 0, err
    assert "warning: effort-scale: the measured torques with the given --effort-scale " in err


def test_identify_names_a_joint_whose_effort_has_the_other_sign(tmp_path, capsys):
    # a cable's spring on panda_joint6 the URDF lacks (1.45 times the nominal torque's RMS
    # there): the nominal torques explain less than half of that joint's torque, too little to
    # judge its size. Its driver reports the effort negated (wired backwards): identify names
    # it as of the other sign, with the --effort-scale that fixes it; that scale given, or the
    # effort as measured, no warning. Motor currents with that joint's negative: one scale,
    # the joint named, the suggested scales negative for it alone, the joints not judged named
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    names = list(model.joint_names)
    layout, theta = perturbed_truth(model, np.random.default_rng(112))
    cable = names.index("panda_joint6")

    def with_spring(t, q, qd, qdd):
        tau = true_torques(model, layout, theta, q, qd, qdd)
        nominal = model.inverse_dynamics(q, qd, qdd)[:, cable]
        stretch = q[:, cable] - q[:, cable].mean()
        return tau + np.outer(stretch, np.eye(7)[cable]) * 1.45 * nominal.std() / stretch.std()

    path = tmp_path / "r.csv"
    argv = ("identify", "panda", path, *FIT, "--filter-window", "0.15", "--json")

    def identified(effort_scale, *options):
        rec = record(model, np.random.default_rng(12), 20.0, torques=with_spring,
                     effort_scale=effort_scale)  # fmt: skip
        path.write_text(csv_text(names, rec))
        code, out, err = run(capsys, *argv, "--out", tmp_path / "a.urdf", *options)
        assert code == 0, err
        report = json.loads(out)
        warnings = [w for w in report["warnings"] if w.startswith("effort-scale:")]
        return warnings, np.array(
            [np.nan if r is None else r for r in report["nominal_torque_ratio"]]
        )

    negated = np.where(np.arange(7) == cable, -1.0, 1.0)
    (warning,), ratios = identified(negated)
    assert warning.startswith("effort-scale: the measured torques of panda_joint6 x-"), warning
    assert "with the other sign" in warning and "wired backwards" in warning, warning
    assert "--effort-scale 1 1 1 1 1 -1 1 (the node's effort_scale)" in warning, warning
    assert ratios[cable] == pytest.approx(-0.8, rel=0.25)
    fix = ["--effort-scale", "panda_joint6=-1"]
    warnings, ratios = identified(negated, *fix)
    assert warnings == [] and not ratios[cable] < 0, warnings
    assert identified(None)[0] == []
    # currents: torque per unit 12 on the first four joints, 9 on the wrist's, -9 on the cable's
    per_unit = np.array([12.0, 12.0, 12.0, 12.0, 9.0, -9.0, 9.0])
    (warning,), ratios = identified(per_unit)
    common = float(re.search(r"one scale, about x([0-9.]+)", warning).group(1))
    assert common == pytest.approx(1.0 / 12.0, rel=0.2), warning
    assert "the measured torques of panda_joint6 x-" in warning, warning
    suggested = np.array(warning.split("--effort-scale ")[-1].split(" (")[0].split(), float)
    np.testing.assert_allclose(suggested, np.sign(per_unit) / common, rtol=1e-3)
    unjudged = [names[k] for k in np.flatnonzero(np.isnan(ratios))]
    assert unjudged, ratios  # the wrist's last joint, whose small torques the model misses
    assert f"not judged: {', '.join(unjudged)} (the nominal model's torques" in warning
    assert "covers neither their scale nor their sign" in warning
