"""Data preparation for real logs, on synthetic recordings from a known model that have what
real ones have (test/tools/real_recordings.py): the robot's cycle found under a logger's jitter,
stalls, repeats and gaps; the filter window chosen from the data against the fixed short one;
joints without a real effort left out of the fit's rows, joints not recorded held still,
efforts given as motor currents, drop messages that name columns and counts."""

import os
import sys
import zlib

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.base_parameters import base_parameters
from robot_dynamics.core.filter_window import choose_filter_window
from robot_dynamics.core.identification import (
    identify,
    stacked_regressor,
    weighted_least_squares,
)
from robot_dynamics.core.joint_data import DataError, JointSamples, clean, smooth
from robot_dynamics.core.regressor import ParameterLayout
from robot_dynamics.core.stamps import repeated_samples, time_base
from robot_dynamics.tools.bundled import bundled_urdf_path
from robot_dynamics.tools.cli import main as cli_main

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real_recordings import (  # noqa: E402
    CYCLE,
    logger,
    record,
    true_torques,
)


@pytest.fixture
def rng(request):
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def run(capsys, *argv):
    code = cli_main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


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


def test_time_base_when_a_repeat_replaces_a_sample(rng):
    # the logger read the robot's state before it changed: the record of cycle k carries cycle
    # k - 1's values, so cycle k is lost; after the repeat is dropped a one-cycle gap remains
    cycles = 5000
    values = rng.normal(size=(cycles, 2))
    source = np.arange(cycles)
    stale = np.flatnonzero(rng.uniform(size=cycles) < 0.05)
    stale = stale[(stale > 0) & (stale < cycles - 1)]
    stale = stale[np.concatenate([[True], np.diff(stale) > 1])]
    source[stale] -= 1
    stamps = np.arange(cycles) * CYCLE + rng.uniform(0, 0.3e-3, cycles)
    repeat = repeated_samples([values[source]])
    assert repeat.sum() == stale.size
    t, report = time_base(stamps[~repeat])
    assert report.uniform and report.gaps == report.missing_cycles == stale.size
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
    model = RobotModel.from_urdf(bundled_urdf_path("panda"))
    rec = record(model, rng, 30.0)
    names = model.joint_names
    data = clean(_samples(names, rec.t, rec.position, rec.effort, rec.velocity), effort_mask="auto")
    report = data.report
    assert report.repeated == rec.log.repeats and report.stamps.uniform
    assert report.stamps.gaps == len(rec.log.gaps)
    # the cleaned time base is the robot's clock: recover the offset of the logger's clock
    kept = rec.true_t[~repeated_samples([rec.position, rec.velocity, rec.effort])]
    offset = float(np.median(data.t - kept))
    assert np.ptp(data.t - kept) < 5e-6
    layout = ParameterLayout.for_model(model, offset=True)
    choice = choose_filter_window(model, data, layout, samples_per_window=20)
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
