"""Data preparation for real logs, on synthetic recordings from a known model that have what
real ones have (test/tools/real_recordings.py): the robot's cycle found under a logger's jitter,
stalls, repeats and gaps; the filter window chosen from the data against the fixed short one;
joints without a real effort left out of the fit's rows, joints not recorded held still,
efforts given as motor currents, drop messages that name columns and counts."""

import json
import os
import re
import sys

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.base_parameters import base_parameters
from robot_dynamics.core.filter_window import base_parameter_fit, choose_filter_window
from robot_dynamics.core.identification import (
    identify,
    stacked_regressor,
    weighted_least_squares,
)
from robot_dynamics.core.joint_data import DataError, JointSamples, clean, smooth
from robot_dynamics.core.rest import does_not_move
from robot_dynamics.core.regressor import ParameterLayout
from robot_dynamics.core.stamps import repeated_samples, robot_time, time_base
from robot_dynamics.tools.bundled import bundled_urdf_path
from robot_dynamics.tools.cli.identify_data import held_joint_warnings
from robot_dynamics.tools.identification_data import write_bag
from robot_dynamics.tools.params_file import read_parameters_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real_recordings import (  # noqa: E402
    CYCLE,
    csv_text,
    logger,
    mobile_manipulator_urdf,
    perturbed_truth,
    record,
    true_torques,
)
from tools_helpers import run  # noqa: E402


# ------------------------------------------------------------------ stamps
def test_time_base_under_jitter_stalls_repeats_and_gaps(rng):
    log = logger(40000, rng)
    values = rng.normal(size=(40000, 3))[log.source]  # a repeat carries its cycle's values
    repeat = repeated_samples([values])
    assert repeat.sum() == log.repeats > 0.04 * len(log.stamps)
    stamps, source = log.stamps[~repeat], log.source[~repeat]
    d = np.diff(stamps)
    assert d.max() > 8e-3 and d.min() < 1e-4  # a stall's long interval and its burst
    t, report = time_base(stamps)
    assert report.uniform and report.note == ""
    assert report.cycle == pytest.approx(CYCLE, rel=1e-6)
    assert report.gaps == len(log.gaps) > 5
    assert report.missing_cycles == sum(length for _, length in log.gaps)
    lost = max(length for _, length in log.gaps)
    assert (lost + 0.5) * CYCLE < report.longest_gap < (lost + 1.5) * CYCLE
    assert report.jitter_max > max(d for _, d in log.stalls) - 0.5e-3
    assert 0.05e-3 < report.jitter_rms < 1e-3
    # every sample at its cycle: the time base is the robot's clock up to a constant
    err = t - source * CYCLE
    assert np.ptp(err) < 5e-6
    # the same with the cycle given
    t2, report2 = time_base(stamps, cycle=CYCLE)
    assert report2.cycle == CYCLE and np.ptp(t2 - source * CYCLE) < 1e-9


def _stale_cycles(rng, cycles, pattern):
    """Cycles whose record carries the previous cycle's values: ~5 % at random (never two in
    a row), or every 25th."""
    if pattern == "every 25th":
        stale = np.arange(25, cycles - 1, 25)
    else:
        stale = np.flatnonzero(rng.uniform(size=cycles) < 0.05)
        stale = stale[(stale > 0) & (stale < cycles - 1)]
        stale = stale[np.concatenate([[True], np.diff(stale) > 1])]
    return stale


LATENCIES = {
    "uniform 0-0.3 ms": lambda rng, n: rng.uniform(0, 0.3e-3, n),
    "0.2 ms + half-normal 0.25 ms": lambda rng, n: 0.2e-3 + np.abs(rng.normal(0, 0.25e-3, n)),
}


@pytest.mark.parametrize(
    "cycles, latency, pattern, lost",
    [
        (5000, "uniform 0-0.3 ms", "random", 0),
        (20000, "0.2 ms + half-normal 0.25 ms", "random", 4),
        (20000, "0.2 ms + half-normal 0.25 ms", "every 25th", 0),
    ],
)
def test_time_base_when_a_repeat_replaces_a_sample(rng, cycles, latency, pattern, lost):
    # the logger read the robot's state before it changed: the record of cycle k carries cycle
    # k - 1's values, so cycle k is lost; after the repeat is dropped a one-cycle gap remains.
    # With ~4 % of them the stamps left are ~1/0.96 cycles apart on average: the cycle must
    # still be the robot's; so with a few longer gaps (20-50 cycles never logged)
    values = rng.normal(size=(cycles, 2))
    logged = np.ones(cycles, bool)
    for start in rng.choice(np.arange(cycles // 5, cycles - 100), lost, replace=False):
        logged[start : start + rng.integers(20, 51)] = False
    source = np.arange(cycles)
    stale = _stale_cycles(rng, cycles, pattern)
    stale = stale[logged[stale] & logged[stale - 1]]
    source[stale] -= 1
    stamps = np.arange(cycles) * CYCLE + LATENCIES[latency](rng, cycles)
    stamps, source = stamps[logged], source[logged]
    repeat = repeated_samples([values[source]])
    assert repeat.sum() == stale.size
    t, report = time_base(stamps[~repeat])
    assert report.uniform and report.cycle == pytest.approx(CYCLE, rel=1e-5)
    # the latency's tail is late stamps, but no logger stall (a burst of late stamps)
    assert report.stalls == 0 and (report.late_samples > 50) == (cycles == 20000)
    # every sample at its cycle, but for one stamped more than a cycle late beside a missing
    # cycle: the stamps cannot tell it from the next cycle's sample
    wrong = np.round((t - t[0]) / CYCLE) - (source[~repeat] - source[0])
    late = stamps[~repeat] - source[~repeat] * CYCLE
    assert np.all(np.abs(wrong) <= 1) and np.all(late[wrong != 0] > CYCLE)
    assert np.count_nonzero(wrong) < 5
    step = np.diff(source[~repeat])
    assert report.gaps == np.count_nonzero(step > 1) >= stale.size + (lost > 0)
    assert report.missing_cycles == np.sum(step - 1) == stale.size + np.count_nonzero(~logged)
    # robot_time knows the repeats: the gaps the logger filled with repeats are told apart
    # (but where a sample more than a cycle late was put into the gap)
    timed = robot_time(stamps, [values[source]])
    assert timed.report.stale_gaps == timed.report.stale_cycles
    assert stale.size - np.count_nonzero(wrong) <= timed.report.stale_gaps <= stale.size
    assert timed.report.gaps == report.gaps
    if cycles == 5000:
        # a repeat stamped beside its original (a second copy) leaves no gap to count
        extra = np.insert(values, 100, values[99], axis=0)
        extra_stamps = np.insert(np.arange(cycles) * CYCLE, 100, 99.5 * CYCLE)
        timed = robot_time(extra_stamps, [extra])
        assert timed.report.gaps == timed.report.stale_gaps == 0
        assert np.ptp(t - source[~repeat] * CYCLE) < 2e-5  # the cycle from 5 s of 0.3 ms jitter


def test_stamps_that_are_not_a_fixed_cycle_are_kept(rng):
    # a publisher without a fixed rate: intervals 0.5-1.5 ms, stamped right: used as they are
    stamps = np.cumsum(rng.uniform(0.5e-3, 1.5e-3, 3000))
    t, report = time_base(stamps)
    assert not report.uniform and np.array_equal(t, stamps) and report.note
    # exactly uniform stamps are their own time base
    exact = np.arange(500) * 0.01
    t, report = time_base(exact)
    assert report.uniform and report.gaps == 0 and report.jitter_max < 1e-12
    assert np.allclose(t, exact, atol=1e-12)


def test_repeated_samples_and_still_signals():
    x = np.array([[1.0], [1.0], [2.0], [2.0], [2.0], [3.0], [4.0], [4.0], [4.0], [4.0], [5.0]])
    # runs of one or two copies are repeats; a longer run is a signal standing still
    assert repeated_samples([x]).tolist() == [
        False, True, False, True, True, False, False, False, False, False, False,
    ]  # fmt: skip
    nan = np.array([[np.nan, 1.0], [np.nan, 1.0], [np.nan, 2.0]])
    assert repeated_samples([nan, None]).tolist() == [False, True, False]


# ------------------------------------------------------------------ masks, holds, drops
def _samples(names, t, position, effort, velocity=None):
    return JointSamples(t, position, velocity, effort, joint_names=tuple(names))


def test_masks_held_joints_scale_offset_and_drop_messages(rng):
    names = ["a", "b", "wrist", "head"]
    N = 400
    t = np.arange(N) * 0.01
    q = np.column_stack([np.sin(t), np.cos(t), 0.5 * np.sin(2 * t), np.full(N, np.nan)])
    effort = rng.normal(size=(N, 4))
    effort[:, 2] = 0.0  # a joint that reports exactly 0
    effort[::7, 2] = np.nan  # ... and sometimes nothing
    effort[:, 3] = np.nan
    effort[[10, 20, 30], 1] = np.nan
    hold = np.array([np.nan, np.nan, np.nan, 0.25])
    data = clean(
        _samples(names, t, q, effort),
        effort_mask="auto",
        hold=hold,
        effort_scale=[2.0, -3.0, 1.0, 1.0],
        effort_offset=[0.5, 0.0, 0.0, 0.0],
    )
    r = data.report
    assert r.effort_mask == (True, True, False, False)
    assert dict(r.unmeasured) == {
        "wrist": "effort exactly 0 in every sample",
        "head": "not in the recording (held at 0.25)",
    }
    assert r.held == (("head", 0.25),)
    # a NaN in the masked wrist column drops nothing; the measured joint b's do
    assert r.dropped == 3 and r.drop_text() == "3 dropped: effort[b] NaN in 3"
    keep = np.setdiff1d(np.arange(N), [10, 20, 30])
    np.testing.assert_allclose(data.tau[:, 0], 2.0 * effort[keep, 0] + 0.5)
    np.testing.assert_allclose(data.tau[:, 1], -3.0 * effort[keep, 1])
    assert np.isnan(data.tau[:, 2:]).all() and np.all(data.position[:, 3] == 0.25)
    prepared = smooth(data, 0.1)
    assert np.all(prepared.qd[:, 3] == 0.0) and np.isnan(prepared.tau[:, 2]).all()
    assert prepared.report.filter_window == pytest.approx(0.11)
    # one NaN effort in every sample of the measured joints: nothing left, and the message says
    # which columns took what
    bad = effort.copy()
    bad[::2, 0] = np.nan
    bad[1::2, 1] = np.nan
    with pytest.raises(DataError) as info:
        clean(_samples(names, t, q, bad), effort_mask="auto", hold=hold)
    assert str(info.value) == (
        "too few samples: 0 usable (400 dropped: effort[a] NaN in 200, effort[b] NaN in 203)"
    )
    # without the mask, the wrist's NaN drops its samples (the columns named)
    data = clean(_samples(names[:3], t, q[:, :3], effort[:, :3]))
    assert data.report.drop_text() == "61 dropped: effort[b] NaN in 3, effort[wrist] NaN in 58"
    # a time window, and joints left out by request
    data = clean(
        _samples(names, t, q, effort),
        effort_mask="auto",
        hold=hold,
        ignore_effort=("a",),
        time_window=(1.0, 2.5),
    )
    assert data.report.effort_mask == (False, True, False, False)
    assert data.report.drop_text() == "249 dropped: 249 outside the time window 1-2.5 s"
    assert data.t[0] == pytest.approx(1.0) and data.t[-1] == pytest.approx(2.5)
    # what cannot be used is refused, naming it
    with pytest.raises(DataError, match=r"joints \['head'\] are not in the recording"):
        clean(_samples(names, t, q, effort), effort_mask="auto")
    with pytest.raises(DataError, match="no joint has a measured effort: a: left out by req"):
        clean(_samples(names[:1], t, q[:, :1], effort[:, :1]), ignore_effort=("a",))
    with pytest.raises(DataError, match=r"effort_scale must be 4 finite numbers"):
        clean(_samples(names, t, q, effort), hold=hold, effort_scale=[1.0, np.nan, 1.0, 1.0])


# ------------------------------------------------------------------ the filter window
def test_filter_window_chosen_from_the_data_beats_the_short_one(rng):
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    rec = record(model, rng, 30.0)
    names = model.joint_names
    data = clean(_samples(names, rec.t, rec.position, rec.effort, rec.velocity), effort_mask="auto")
    report = data.report
    assert report.repeated == rec.log.repeats and report.stamps.uniform
    assert report.stamps.gaps == len(rec.log.gaps) and report.stamps.stale_gaps == 0
    # the cleaned time base is the robot's clock: recover the offset of the logger's clock
    kept = rec.true_t[~repeated_samples([rec.position, rec.velocity, rec.effort])]
    offset = float(np.median(data.t - kept))
    assert np.ptp(data.t - kept) < 5e-6
    layout = ParameterLayout.for_model(model, offset=True)
    choice = choose_filter_window(
        data, base_parameter_fit(model, layout, data), samples_per_window=20
    )
    scores = np.array(choice.scores)
    assert choice.window == choice.candidates[int(np.nanargmin(scores))]
    assert choice.window >= 0.1
    short = choice.candidates.index(pytest.approx(0.051, abs=1e-3))
    assert scores[short] > 2 * scores.min()

    # independently: the base parameters fitted with each candidate, judged on the true torques
    # of the held-out part (the recording's last 20 %, never seen by the choice)
    base = base_parameters(model, layout)

    def thinned(window):  # at most ~4000 training samples, as the choice fits
        train, test = smooth(data, window, samples_per_window=20).split(0.2)
        step = max(1, len(train.t) // 4000)
        return train.q[::step], train.qd[::step], train.qdd[::step], train.tau[::step], test

    def truth_error(window):
        q, qd, qdd, tau, test = thinned(window)
        Y = stacked_regressor(model, q, qd, qdd, layout, base.independent)
        beta = weighted_least_squares(Y, tau, base).beta
        q, qd, qdd = rec.motion(test.t - offset)
        true = true_torques(model, *rec.truth, q, qd, qdd)
        Yt = stacked_regressor(model, test.q, test.qd, test.qdd, layout, base.independent)
        return np.sqrt(np.mean((Yt @ beta - true) ** 2, axis=0))

    errors = {w: truth_error(w) for w in choice.candidates}
    geo = {w: float(np.exp(np.mean(np.log(e)))) for w, e in errors.items()}
    assert geo[choice.window] <= 1.1 * min(geo.values()), geo
    assert geo[choice.window] < 0.5 * geo[choice.candidates[short]], geo
    # the whole fit (physically consistent parameters): with the chosen window the true
    # torques of the big joints, where the ripple's spurious torque is, are matched far better
    fits = {}
    for w in (choice.window, 0.05):
        q, qd, qdd, tau, test = thinned(w)
        result = identify(model, q, qd, qdd, tau, layout=layout, base=base)
        q, qd, qdd = rec.motion(test.t - offset)
        true = true_torques(model, *rec.truth, q, qd, qdd)
        pred = result.torques(model, test.q, test.qd, test.qdd)
        fits[w] = np.sqrt(np.mean((pred - true) ** 2, axis=0))
    assert np.all(fits[choice.window][:4] < 0.2 * fits[0.05][:4]), fits
    assert fits[0.05][:4].min() > 0.3  # N m: what the ripple puts into a 0.05 s fit
    assert fits[choice.window].max() < 0.1, fits


# ------------------------------------------------------------------ the command
FIT = ("--friction-model", "asymmetric", "--offset", "on")  # the true robot's (no search)


def test_identify_a_logged_arm_csv_window_chosen_and_fixed(tmp_path, capsys, rng):
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    rec = record(model, rng, 30.0)
    path = tmp_path / "run.csv"
    path.write_text(csv_text(model.joint_names, rec))
    code, text, err = run(capsys, "identify", "panda", path, "--out", tmp_path / "a.urdf", *FIT)
    assert code == 0, err
    lines = text.splitlines()
    drop_line = f"recording: {len(rec.t)} samples, {rec.log.repeats} dropped: "
    assert lines[1] == drop_line + f"{rec.log.repeats} repeated"
    assert lines[2].startswith("stamps: intervals 0.02 ms to ")
    assert "jitter about a 1 ms cycle" in lines[2] and "samples put on that cycle" in lines[2]
    missing = sum(length for _, length in rec.log.gaps)
    assert lines[3].startswith(f"gaps: {len(rec.log.gaps)} ({missing} cycles missing, longest ")
    assert lines[3].endswith(f"; {len(rec.log.gaps)} bridged, 1 stretch")
    window = next(line for line in lines if line.startswith("filter window"))
    assert "chosen by the validation torque RMS" in window and "0.051 s: " in window
    chosen = float(window.split()[2])
    assert chosen >= 0.1
    assert "nominal: the URDF's inertials and its <dynamics damping friction> on" in text
    # the fixed short window: the held-out torques are predicted far worse
    code, out, err = run(
        capsys, "identify", "panda", path, "--out", tmp_path / "b.urdf", *FIT,
        "--filter-window", "0.05", "--json",
    )  # fmt: skip
    assert code == 0, err
    fixed = json.loads(out)
    prep = fixed["data_preparation"]
    assert prep["filter_window"] == pytest.approx(0.051) and "window_choice" not in prep
    assert prep["stamps"]["uniform"] and prep["stamps"]["gaps"] == len(rec.log.gaps)
    assert prep["repeated_samples"] == rec.log.repeats
    header = lines.index(next(line for line in lines if "rms identified" in line))
    rms_chosen = np.array([float(line.split()[2]) for line in lines[header + 1 : header + 8]])
    rms_fixed = np.array(fixed["rms_identified"])
    assert np.all(rms_chosen[:4] < 0.5 * rms_fixed[:4]), (rms_chosen, rms_fixed)


def test_identify_names_the_stretch_where_something_pushed_the_arm(tmp_path, capsys, rng):
    # 15 N down on the tool from 8 to 11 s of 20 s (a hand, a cable): the fit takes it for the
    # arm's dynamics, so identify names the stretch (within 0.3 s) and the fix; the same
    # recording without the push names none
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    names = list(model.joint_names)
    layout, theta = perturbed_truth(model, np.random.default_rng(3))
    force = np.array([0.0, 0.0, -15.0, 0.0, 0.0, 0.0])

    def pushed(t, q, qd, qdd):
        tau = true_torques(model, layout, theta, q, qd, qdd)
        on = (t >= 8.0) & (t < 11.0)
        return tau + on[:, None] * np.einsum("rki,k->ri", model.jacobian(q), force)

    argv = ("identify", "panda", tmp_path / "r.csv", *FIT, "--filter-window", "0.15", "--json")

    def disturbances(torques):
        rec = record(model, np.random.default_rng(4), 20.0, torques=torques)
        (tmp_path / "r.csv").write_text(csv_text(names, rec))
        code, out, err = run(capsys, *argv, "--out", tmp_path / "a.urdf")
        assert code == 0, err
        return [w for w in json.loads(out)["warnings"] if w.startswith("disturbance:")]

    (warning,) = disturbances(pushed)
    stretches = re.findall(r"(-?[0-9.]+)-([0-9.]+) s \(", warning)
    assert len(stretches) == 1, warning
    start, end = map(float, stretches[0])
    assert abs(start - 8.0) < 0.3 and abs(end - 11.0) < 0.3, warning
    assert "--time-window" in warning and "a push, a cable" in warning
    assert disturbances(None) == []


def test_identify_a_mobile_manipulator_recording(tmp_path, capsys, rng):
    # prismatic torso + 7-joint arm recorded; head and gripper in the URDF only; efforts are
    # motor currents (reduction x torque constant, with signs); the wrist reports exactly 0
    # (and sometimes nothing); a few NaN efforts on a measured joint; the first second is the
    # robot homing (junk efforts), cut with --time-window
    urdf, arm, head, gripper = mobile_manipulator_urdf()
    (tmp_path / "mm.urdf").write_text(urdf)
    model = RobotModel.from_urdf_string(urdf)
    names = list(model.joint_names)
    recorded = ["torso_lift"] + arm
    idx = [names.index(j) for j in recorded]
    scale = np.ones(model.n)
    scale[idx] = [-150.0, 12.0, -10.0, 9.0, -8.0, 3.0, -2.5, 2.0]
    rec = record(model, rng, 30.0, moving=np.isin(names, recorded), effort_scale=scale)
    effort = rec.effort.copy()
    for j in arm[4:]:
        effort[:, names.index(j)] = 0.0
    effort[::50, names.index("arm_5")] = np.nan
    nan_rows = [5000, 9000, 20000]
    effort[nan_rows, names.index("arm_2")] = np.nan
    early = rec.t < 1.0
    effort[early] *= 20.0
    bag = tmp_path / "bag"
    write_bag(
        bag,
        [
            (rec.t[i], recorded, rec.position[i, idx], rec.velocity[i, idx], effort[i, idx])
            for i in range(len(rec.t))
        ],
    )
    head_2 = (model.position_limits[0] + model.position_limits[1])[names.index("head_2")] / 2
    code, out, err = run(
        capsys, "identify", tmp_path / "mm.urdf", bag, "--out", tmp_path / "id.urdf",
        *FIT, "--time-window", "1", "100", "--hold", f"head_2={head_2}",
        "--effort-scale", *[f"{j}={scale[names.index(j)]}" for j in recorded], "--json",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    prep = report["data_preparation"]
    assert prep["held"] == [
        {"joint": "gripper_left", "position": 0.0205, "source": "mid-range"},
        {"joint": "gripper_right", "position": 0.0205, "source": "mid-range"},
        {"joint": "head_1", "position": 0.0, "source": "URDF zero"},
        {"joint": "head_2", "position": pytest.approx(head_2), "source": "given"},
    ]
    # a named warning for each held joint whose position is a default (head_2's is given)
    not_recorded = {
        w.split()[1]: w for w in report["warnings"] if w.startswith("joint-not-recorded: ")
    }
    assert set(not_recorded) == {"gripper_left", "gripper_right", "head_1"}, report["warnings"]
    assert len(report["warnings"]) == 3  # the converted currents are the model's torques
    assert (
        "joint-not-recorded: head_1 is not in the recording and was held at 0 (URDF zero): if it "
        "moved, the identification of the links it carries (head_link_1, head_link_2) is not "
        "meaningful; record head_1, or give the position it stood at with --hold head_1=POS"
    ) == not_recorded["head_1"]
    assert "held at 0.0205 (mid-range)" in not_recorded["gripper_left"]
    assert "the links it carries (finger_left)" in not_recorded["gripper_left"]
    unmeasured = {u["joint"]: u["reason"] for u in prep["unmeasured"]}
    assert {j: unmeasured[j] for j in arm[4:]} == dict.fromkeys(
        arm[4:], "effort exactly 0 in every sample"
    )
    assert set(unmeasured) == set(arm[4:] + head + gripper)
    assert prep["effort_mask"] == [j in recorded[:5] for j in names]
    drops = {d["reason"] for d in prep["drops"]}
    assert f"{int(early.sum())} outside the time window 1-100 s" in drops
    assert "effort[arm_2] NaN in 3" in drops and not any("arm_5" in d for d in drops)
    assert prep["effort_scale"][names.index("torso_lift")] == -150.0
    assert prep["stamps"]["uniform"] and prep["stamps"]["cycle"] == pytest.approx(CYCLE)
    # the measured joints' held-out torques; nothing claimed for the others
    rms_nominal, rms_identified = report["rms_nominal"], report["rms_identified"]
    for k, j in enumerate(names):
        if j in recorded[:5]:
            assert rms_identified[k] < rms_nominal[k] / 1.5, (j, rms_nominal, rms_identified)
        else:
            assert rms_identified[k] is None and report["residual_sigma"][k] is None
    # the identified URDF predicts what a URDF can hold of the true robot (rigid bodies,
    # viscous and Coulomb friction) on the measured joints, held joints held
    identified = RobotModel.from_urdf_string((tmp_path / "id.urdf").read_text())
    t = np.linspace(3.0, 13.0, 200)
    q, qd, qdd = rec.motion(t)
    q[:, names.index("head_1")] = 0.0
    q[:, [names.index(j) for j in gripper]] = 0.0205
    layout, theta = rec.truth
    urdf_part = theta.copy()
    urdf_part[layout.group_slice("asymmetry")] = urdf_part[layout.group_slice("offset")] = 0.0
    true = true_torques(model, layout, urdf_part, q, qd, qdd)
    measured = [names.index(j) for j in recorded[:5]]

    def error(m):
        tau = m.inverse_dynamics(q, qd, qdd) + m.friction_torques(qd)
        return np.sqrt(np.mean((tau - true)[:, measured] ** 2, axis=0))

    assert np.all(error(identified) < 0.25 * error(model)), (error(identified), error(model))
    # the node's parameters file locks the joints the recording lacks where they were held: with
    # the identified URDF, the node's model has the recorded joints and the identified friction
    params = read_parameters_file(tmp_path / "id.yaml")
    assert list(params.values["locked_joints"]) == [
        "gripper_left=0.0205",
        "gripper_right=0.0205",
        "head_1=0.0",
        f"head_2={float(head_2)!r}",
    ]
    _, node_model = params.build_model((tmp_path / "id.urdf").read_text())
    kept = [j for j in names if j in recorded]
    assert list(node_model.joint_names) == kept
    assert len(params.values["effort_offset"]) == len(kept)
    k = [names.index(j) for j in kept]
    assert node_model.friction.asymmetry == pytest.approx(np.array(report["asymmetry"])[k])
    assert (
        "per-joint lists in model order: " + ", ".join(kept) in (tmp_path / "id.yaml").read_text()
    )


def test_a_gripper_the_recording_carries_without_moving_is_held_where_it_stood(
    tmp_path, capsys, rng
):
    # the arm recorded with its gripper: the fingers stand open at 0.03 m in every message and
    # report an effort of exactly 0 (as grippers without a force interface do), the left one in
    # the arm's messages, the right one from a second driver at 50 Hz; head not recorded
    urdf, arm, head, gripper = mobile_manipulator_urdf()
    (tmp_path / "mm.urdf").write_text(urdf)
    model = RobotModel.from_urdf_string(urdf)
    names = list(model.joint_names)
    recorded = ["torso_lift"] + arm
    idx = [names.index(j) for j in recorded]
    rec = record(model, rng, 30.0, moving=np.isin(names, recorded))
    messages = []
    for i in range(len(rec.t)):
        messages.append(
            (rec.t[i], recorded + [gripper[0]], [*rec.position[i, idx], 0.03],
             [*rec.velocity[i, idx], 0.0], [*rec.effort[i, idx], 0.0])
        )  # fmt: skip
        if i % 20 == 0:
            messages.append((rec.t[i] + 2e-4, [gripper[1]], [0.03], [0.0], [0.0]))
    bag = tmp_path / "bag"
    write_bag(bag, messages)
    code, out, err = run(
        capsys, "identify", tmp_path / "mm.urdf", bag, "--out", tmp_path / "id.urdf", *FIT,
        "--json",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    held = {h["joint"]: (h["position"], h["source"]) for h in report["data_preparation"]["held"]}
    assert held == {
        gripper[0]: (pytest.approx(0.03), "still in the recording"),
        gripper[1]: (pytest.approx(0.03), "still in the recording"),
        "head_1": (0.0, "URDF zero"),
        "head_2": (0.0, "URDF zero"),
    }, held
    still = [w for w in report["warnings"] if w.startswith("joint-still: ")]
    assert (
        len(still) == 2
        and (
            f"joint-still: {gripper[0]} does not move in the recording: held at 0.03 where it stood"
        )
        in still[0]
    ), report["warnings"]
    # the node receives the fingers' positions: only the joints the recording lacks are locked
    params = read_parameters_file(tmp_path / "id.yaml")
    assert sorted(j.split("=")[0] for j in params.values["locked_joints"]) == head
    # the same with --hold for a finger the recording carries: held where it is told
    code, out, err = run(
        capsys, "identify", tmp_path / "mm.urdf", bag, "--out", tmp_path / "id2.urdf", *FIT,
        "--hold", f"{gripper[0]}=0.01", "--json",
    )  # fmt: skip
    assert code == 0, err
    held = {h["joint"]: h for h in json.loads(out)["data_preparation"]["held"]}
    assert held[gripper[0]]["position"] == pytest.approx(0.01)
    assert held[gripper[0]]["source"] == "given"


def test_does_not_move_tells_a_still_joint_from_a_slow_or_noisy_one(rng):
    t = np.linspace(0.0, 10.0, 10001)
    noise = 1e-5 * rng.standard_normal((t.size, 4))
    position = np.column_stack(
        [np.full(t.size, 0.03), 0.3 + noise[:, 1], 0.3 + 0.05 * np.sin(0.2 * t) + noise[:, 2],
         0.3 + 1e-3 * t]
    )  # fmt: skip
    position[::7, 0] = np.nan  # another driver's messages
    np.testing.assert_array_equal(does_not_move(position), [True, True, False, False])


@pytest.mark.parametrize("n, prismatic", [(7, ()), (8, (0,)), (3, (2,))])
def test_identify_plot_panels_and_units(tmp_path, n, prismatic):
    from robot_dynamics.tools.plotting import identification_figure, is_png, plot_identification

    names = [f"j{k}" for k in range(n)]
    t = np.linspace(0.0, 1.0, 50)
    tau = np.sin(t)[:, None] * np.arange(1, n + 1)
    measured = tau.copy()
    measured[:, n - 1] = np.nan  # a joint without a measured torque
    flags = [k in prismatic for k in range(n)]
    panels = dict(t=t, measured=measured, nominal=tau, identified=tau, joint_names=names,
                  prismatic=flags)  # fmt: skip
    fig = identification_figure(**panels)
    assert len(fig.axes) == n  # no empty panel
    axes = {ax.get_ylabel(): ax for ax in fig.axes}
    assert sorted(axes) == sorted(f"j{k} [{'N' if flags[k] else 'N m'}]" for k in range(n))
    unmeasured = next(ax for label, ax in axes.items() if label.startswith(f"j{n - 1} "))
    assert unmeasured.get_title() == "no measured torque: not fitted"
    assert len(unmeasured.lines) == 2
    assert all(len(ax.lines) == 3 for ax in axes.values() if ax is not unmeasured)
    assert sum(ax.get_xlabel() == "t [s]" for ax in fig.axes) == (2 if n > 3 else 1)
    assert is_png(plot_identification(str(tmp_path / "p.png"), **panels))


def test_held_joints_the_recording_names_otherwise_get_a_joint_names_warning():
    """The head recorded as 'robot_head_1', 'robot_head_2' (a prefix), the gripper not at all:
    each held joint keeps its joint-not-recorded warning, one joint-names warning says how the
    recording names the head; without such names, none."""
    urdf, _, head, gripper = mobile_manipulator_urdf()
    model = RobotModel.from_urdf_string(urdf)
    held = [(j, 0.0) for j in head + gripper]
    sources = dict.fromkeys(head + gripper, "URDF zero")
    warnings = held_joint_warnings(model, held, sources, ("robot_head_1", "robot_head_2"))
    assert [w.split(":")[0] for w in warnings] == ["joint-not-recorded"] * 4 + ["joint-names"]
    assert warnings[-1] == (
        "joint-names: the recording lacks joints the model has; the data names 2 of them with "
        "the prefix 'robot_' ('robot_head_1' for 'head_1'): a tf_prefix only one side has?"
    )
    assert held_joint_warnings(model, held, sources, ("camera_tilt",)) == warnings[:4]
    assert held_joint_warnings(model, held, dict.fromkeys(head + gripper, "given"), head) == []


def test_a_recording_carrying_a_mimic_joint_lists_only_the_joints_the_urdf_lacks(tmp_path, rng):
    # the double pendulum with a finger that mimics its elbow, recorded as ros2_control
    # publishes it (the mimic joint among the others), beside a camera joint the URDF lacks
    from robot_dynamics.tools.identification_data import load_identification_data

    with open(bundled_urdf_path("double_pendulum")) as f:
        urdf = f.read().replace(
            "</robot>",
            '<link name="finger"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" '
            'izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link><joint name="finger_joint" '
            'type="prismatic"><parent link="link2"/><child link="finger"/><axis xyz="1 0 0"/>'
            '<limit lower="0" upper="0.05" effort="10" velocity="1"/>'
            '<mimic joint="joint2" multiplier="0.01"/></joint></robot>',
        )
    model = RobotModel.from_urdf_string(urdf)
    assert model.derived_joints == {"finger_joint"}
    rec = record(model, rng, 5.0)
    text = csv_text(list(model.joint_names), rec).splitlines()
    text = [text[0] + ",finger_joint.position,camera.position"] + [
        row + f",{0.01 * float(row.split(',')[2]):.6g},0.3" for row in text[1:]
    ]
    path = tmp_path / "with_mimic.csv"
    path.write_text("\n".join(text) + "\n")
    data, _ = load_identification_data(str(path), model, filter_window=0.1)
    assert data.extra_joints == ("camera",)
