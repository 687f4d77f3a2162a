"""What the recording readers of identify and estimate refuse, and what they take: a time that
goes back by more than a logger's reordering (two recordings in one), times that are not
seconds, a column twice, positions in degrees, velocities that are not the positions' rate of
change (a time in milliseconds, velocities in deg/s), stamps of two clocks, positions without
velocities for estimate; a spreadsheet's byte-order mark, a logger's small reordering, a
simulation's stamps from 0, velocities in some messages only, velocities a driver leaves at 0
(differentiated instead, named), positions wrapped by whole turns (unwrapped, named) and joint
names in a new order in every message are taken."""

import dataclasses
import json

import estimate_recordings as ER
import numpy as np
import pytest
from real_recordings import csv_text, logger, record

from robot_dynamics import RobotModel
from robot_dynamics.core.joint_data import DataError, clean, smooth
from robot_dynamics.core.recorded_motion import (
    periodic_joints,
    unfollowed_velocities,
    unwrap_positions,
)
from robot_dynamics.core.stamps import _phase_cycle, time_base
from robot_dynamics.tools.bundled import bundled_urdf_path
from robot_dynamics.tools.cli import main as cli_main
from robot_dynamics.tools.cli.identify_data import data_report
from robot_dynamics.tools.identification_data import (
    MAX_BACKWARDS,
    JointStateMessage,
    check_units,
    check_velocity_units,
    joint_state_messages,
    merge_messages,
    read_bag,
    read_csv,
    read_csv_rows,
    velocity_ratio,
    write_bag,
)
from robot_dynamics.tools.replay import stamp_handling

NAMES = ("j1", "j2")
FIT = ("--friction-model", "asymmetric", "--offset", "on")  # the true robot's (no search)


def _csv(path, t, bom=False, header=None):
    """A CSV of two joints at times ``t`` [s] (positions moving, efforts constant)."""
    header = header or ["time", "j1.position", "j2.position", "j1.effort", "j2.effort"]
    rows = [",".join(header)]
    rows += [f"{float(ti)!r},{0.1 * k},{-0.1 * k},1.0,2.0" for k, ti in enumerate(t)]
    path.write_text(("\ufeff" if bom else "") + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_time_going_back_more_than_a_reordering_is_two_recordings(tmp_path):
    t = np.arange(40) * 0.01
    t[25:] -= 1.0  # a logger restarted at row 27 (the header is row 1)
    with pytest.raises(DataError) as ei:
        read_csv(_csv(tmp_path / "restart.csv", t), NAMES)
    message = str(ei.value)
    assert "the time goes back by 0.99 s at row 27 (from 0.24 to -0.75 s)" in message
    assert "two recordings in one" in message
    # a logger's reordering (a message a few ms late) is sorted
    t = np.arange(40) * 0.01
    t[10], t[11] = t[11], t[10]
    samples = read_csv(_csv(tmp_path / "reordered.csv", t), NAMES)
    assert np.all(np.diff(samples.t) > 0.0)
    # the same for a bag's messages, in recording order
    seconds = np.r_[np.arange(10) * 0.01, 0.09 - 2 * MAX_BACKWARDS]  # the 11th goes back
    messages = [(int(s * 1e9), list(NAMES), np.zeros(2), np.zeros(2), np.ones(2)) for s in seconds]
    with pytest.raises(DataError, match="the time goes back by 1 s at message 11"):
        merge_messages(messages, NAMES, source="topic '/joint_states'")


def test_times_that_are_not_seconds_and_a_column_twice_are_refused(tmp_path):
    ns = 1.7e18 + np.arange(30) * 1e6  # nanoseconds since 1970
    with pytest.raises(DataError, match="'time' reaches 1.7e\\+18, beyond 1e\\+10 s: .*1e9"):
        read_csv_rows(_csv(tmp_path / "ns.csv", ns), NAMES, complete=False)
    header = ["time", "j1.position", "j2.position", "j1.effort", "j1.effort"]
    with pytest.raises(DataError, match=r"has the columns \['j1.effort'\] more than once"):
        read_csv_rows(_csv(tmp_path / "twice.csv", np.arange(30) * 0.01, header=header), NAMES)


def test_a_byte_order_mark_is_read_past(tmp_path):
    """Spreadsheets write UTF-8 with a byte-order mark before the 'time' header."""
    samples = read_csv(_csv(tmp_path / "excel.csv", np.arange(30) * 0.01, bom=True), NAMES)
    assert len(samples.t) == 30 and samples.t[-1] == pytest.approx(0.29)


def test_positions_in_degrees_are_refused(tmp_path, capsys):
    """A Panda recording with its positions in degrees: identify refuses it, naming the joint
    whose positions lie furthest beyond its limits; the same recording in rad is read."""
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    names = list(model.joint_names)
    t = np.arange(200) * 0.01
    q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]) + 0.3 * np.sin(t)[:, None]
    header = ["time"] + [f"{j}.position" for j in names] + [f"{j}.effort" for j in names]
    for label, positions in (("rad", q), ("deg", np.degrees(q))):
        rows = [",".join(header)] + [
            ",".join(repr(float(v)) for v in np.r_[t[k], positions[k], np.ones(7)])
            for k in range(len(t))
        ]
        (tmp_path / f"{label}.csv").write_text("\n".join(rows) + "\n")
    check_units(model, q)
    code = cli_main(
        ["identify", "panda", str(tmp_path / "deg.csv"), "--out", str(tmp_path / "x.urdf")]
    )
    err = capsys.readouterr().err
    assert code == 2 and f"joint 'panda_joint4' reaches {np.degrees(q[:, 3]).min():.6g}," in err, (
        err
    )
    assert (
        "beyond its limits [-3.0718, -0.0698] by more than twice their range: positions in degrees?"
        in err
    )
    assert not (tmp_path / "x.urdf").exists()


def _moving_panda_csv(path, t, q, qd):
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    names = list(model.joint_names)
    header = ["time"] + [f"{j}.{f}" for f in ("position", "velocity", "effort") for j in names]
    rows = [",".join(header)] + [
        ",".join(repr(float(v)) for v in np.r_[t[k], q[k], qd[k], np.ones(7)])
        for k in range(len(t))
    ]
    path.write_text("\n".join(rows) + "\n")
    return path, names


@pytest.mark.parametrize(
    "case, expected",
    [
        ("seconds", None),
        ("velocity in 1 row of 5", None),
        ("milliseconds", "times the positions' rate of change .*: the time in milliseconds\\?"),
        ("deg/s", "57.3 times the positions' rate of change .*: velocities in deg/s\\?"),
    ],
)
def test_velocities_must_be_the_positions_rate_of_change(tmp_path, capsys, case, expected):
    """A 1 kHz Panda recording with jittering stamps and noisy, quantised values: in seconds and
    rad/s it is read, also with velocities in only 1 row of 5 (a driver publishing them at a
    fifth of the rate; the rows without one count for nothing); with its time column in
    milliseconds, or its velocities in deg/s, every other check passes (the positions are
    within the limits), so it is refused by comparing the velocities with d position / d time,
    naming the likely unit."""
    rng = np.random.default_rng(3)
    t = np.arange(3000) * 1e-3 + rng.uniform(-2e-4, 2e-4, 3000)
    freq = np.linspace(0.2, 0.5, 7)
    q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
    q = q0 + 0.4 * np.sin(2 * np.pi * freq * t[:, None])
    qd = 0.4 * 2 * np.pi * freq * np.cos(2 * np.pi * freq * t[:, None])
    q = np.round(q / 2e-5) * 2e-5
    qd = qd + rng.normal(0.0, 0.003, qd.shape)
    if case == "milliseconds":
        t = t * 1e3
    elif case == "deg/s":
        qd = np.degrees(qd)
    elif case == "velocity in 1 row of 5":
        qd[np.arange(len(t)) % 5 != 0] = np.nan
    path, names = _moving_panda_csv(tmp_path / "rec.csv", t, q, qd)
    samples = read_csv(path, names)
    if expected is None:
        check_velocity_units(samples)
        ratios = velocity_ratio(samples.t, samples.position, samples.velocity)
        np.testing.assert_allclose(ratios, 1.0, rtol=0.02)
    else:
        with pytest.raises(DataError, match=expected):
            check_velocity_units(samples)
        out = tmp_path / "x.urdf"
        assert cli_main(["identify", "panda", str(path), "--out", str(out)]) == 2
        assert "times the positions' rate of change" in capsys.readouterr().err
        assert not out.exists()


def _sim_messages(stamps):
    """Two joints swinging at 1 and 0.7 Hz, one JointState message per stamp [s]."""
    t = np.asarray(stamps, dtype=float)
    q = np.column_stack([np.sin(2 * np.pi * t), np.cos(1.4 * np.pi * t)])
    tau = np.column_stack([np.cos(2 * np.pi * t), 2.0 + np.sin(1.4 * np.pi * t)])
    return [(float(s), list(NAMES), q[k], [], tau[k]) for k, s in enumerate(stamps)]


@pytest.mark.parametrize("before_clock, start", [(0, 0.0), (1, 3.0), (5, 3.0)])
def test_a_simulations_stamps_from_0_are_used_as_they_are(tmp_path, before_clock, start):
    """A bag of simulated time at a 2 ms cycle recorded on a wall clock (receive times 1.75e9 s
    on): the stamps are used, from exactly 0, or from 3 s after 1 or 5 messages stamped 0
    (published before /clock arrived): those are left out and counted; a bag in which no
    message is stamped takes its receive times."""
    cycle, wall = 2e-3, 1.75e9
    stamps = np.r_[np.zeros(before_clock), start + np.arange(2000) * cycle]
    received = wall + np.arange(stamps.size) * cycle + 2e-4
    write_bag(str(tmp_path / "sim"), _sim_messages(stamps), received=received)
    samples = read_bag(str(tmp_path / "sim"), NAMES)
    assert samples.zero_stamps == before_clock
    kept = stamps[before_clock:]
    assert samples.t.size == kept.size
    np.testing.assert_allclose(samples.t, kept - kept[0], atol=1e-9)
    data = smooth(clean(samples), filter_window=0.05)
    assert data.report.zero_stamps == before_clock and data.report.stamps.uniform
    lines, info = data_report(data, {})
    assert info["zero_stamps"] == before_clock
    line = f"stamped 0 among stamped messages: {before_clock} message(s), left out"
    assert (line in lines[1]) == (before_clock > 0), lines
    # the same messages at the cycle, read by estimate's replay: no stamp from the wall clock
    messages = list(joint_state_messages(str(tmp_path / "sim")))
    found = stamp_handling(messages, NAMES)
    assert found.zero_stamps == before_clock and not found.receive_times
    assert found.on_cycle and found.report.cycle == pytest.approx(cycle)
    replayed = list(found.apply(messages))
    assert [m.stamp_ns for m in replayed] == [int(round(s * 1e9)) for s in kept]
    # no message stamped: the receive times
    write_bag(str(tmp_path / "unstamped"), _sim_messages(0.0 * stamps), received=received)
    samples = read_bag(str(tmp_path / "unstamped"), NAMES)
    assert samples.zero_stamps == 0 and samples.t.size == stamps.size
    np.testing.assert_allclose(samples.t, received - received[0], atol=1e-6)
    messages = list(joint_state_messages(str(tmp_path / "unstamped")))
    found = stamp_handling(messages, NAMES)
    assert found.receive_times and found.zero_stamps == 0 and found.on_cycle
    replayed = [m.stamp_ns for m in found.apply(messages)]
    np.testing.assert_allclose(np.array(replayed) * 1e-9, received, rtol=0, atol=1e-6)


def test_stamps_spanning_decades_are_kept_with_the_reason():
    """A wall-clock stamp 55 years after simulated ones at 2 ms: the cycle search is bounded
    (the peak of a 1.75e9 s stretch would need a grid of 2.7e10 cycles) and the stamps are
    kept as they are, saying why."""
    t = np.r_[np.arange(5000) * 2e-3, 1.75e9]
    times, report = time_base(t)
    assert not report.uniform and np.array_equal(times, t)
    assert "the stamps span 1.75e+09 s" in report.note and "stamps of two clocks?" in report.note
    # the search itself, on a stretch of 64 stamps 1.75e9 s long, stays within its grid
    assert 0.0015 < _phase_cycle(np.r_[np.arange(63) * 2e-3, 1.75e9], 2e-3) < 0.0025


def test_velocities_that_stay_0_are_named_and_the_positions_differentiated(tmp_path, capsys):
    """A 20 s Panda recording (real_recordings.record: a velocity ripple, noise, a logger's
    stamps) whose driver publishes velocities of 0 while every joint moves: identify names every
    joint in a velocity-field warning and fits with the positions differentiated, to the same
    torques as from the recording without velocity columns; with the measured velocities
    nothing is named. The check names a joint whose velocity stays 0 and one of the wrong sign,
    none of the others, and none for a joint whose positions wrap at pi."""
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    names = list(model.joint_names)
    rec = record(model, np.random.default_rng(8), 20.0)
    periodic = periodic_joints(model)
    velocity = rec.velocity.copy()
    velocity[:, 2] = 0.0
    velocity[:, 4] *= -1.0
    position = rec.position.copy()
    position[:, 6] = np.angle(np.exp(1j * (position[:, 6] + 3.0)))  # wraps at pi
    assert np.count_nonzero(np.abs(np.diff(position[:, 6])) > np.pi) > 0
    found = {
        j: c for j, _, _, c in unfollowed_velocities(rec.t, position, velocity, periodic=periodic)
    }
    assert set(found) == {2, 4} and np.isnan(found[2]) and found[4] < -0.9, found
    assert unfollowed_velocities(rec.t, rec.position, rec.velocity, periodic=periodic) == []
    argv = ("identify", "panda", *FIT, "--filter-window", "0.15", "--json")
    reports = {}
    for label, text in (
        ("zeros", csv_text(names, dataclasses.replace(rec, velocity=0.0 * rec.velocity))),
        ("none", csv_text(names, rec, velocity=False)),
        ("measured", csv_text(names, rec)),
    ):
        (tmp_path / f"{label}.csv").write_text(text)
        code = cli_main([*argv[:2], str(tmp_path / f"{label}.csv"), *argv[2:],
                         "--out", str(tmp_path / f"{label}.urdf")])  # fmt: skip
        out = capsys.readouterr()
        assert code == 0, out.err
        reports[label] = json.loads(out.out)
    zeros = reports["zeros"]
    (warning,) = zeros["warnings"]
    assert warning.startswith("velocity-field: the recorded velocities stay 0 or do not follow")
    assert all(f"{j} (velocity RMS 0 vs the rate of change's" in warning for j in names), warning
    assert "identify differentiated the positions instead" in warning
    assert zeros["data_preparation"]["unfollowed_velocities"] == names
    assert zeros["velocity_source"] == reports["none"]["velocity_source"] == "differentiated"
    np.testing.assert_allclose(zeros["rms_identified"], reports["none"]["rms_identified"])
    measured = reports["measured"]
    assert measured["warnings"] == [] and measured["velocity_source"] == "message"
    assert measured["data_preparation"]["unfollowed_velocities"] == []


def test_a_driver_naming_its_joints_in_a_new_order_each_message_is_one_driver():
    """A logging PC's stamps about a 1 ms cycle (real_recordings.logger: jitter, stalls, ~5 %
    repeats, gaps) on messages of three joints named in a new order in every message: estimate's
    stamp analysis takes them for one driver and finds the cycle, repeats and gaps it finds with
    the names in order."""
    rng = np.random.default_rng(4)
    log = logger(6000, rng)
    stamps = np.rint((1.0 + log.stamps - log.stamps[0]) * 1e9).astype(np.int64)
    t = log.source * 1e-3
    values = np.column_stack([np.sin(t), np.cos(2 * t), 0.5 * t])
    names = np.array(["a", "b", "c"])
    ordered, shuffled = [], []
    for s, v in zip(stamps, values):
        ordered.append(JointStateMessage(int(s), int(s), list(names), v, v, v))
        k = rng.permutation(3)
        shuffled.append(JointStateMessage(int(s), int(s), list(names[k]), v[k], v[k], v[k]))
    found = {label: stamp_handling(m, names) for label, m in (("o", ordered), ("s", shuffled))}
    assert found["o"].on_cycle and found["o"].report.cycle == pytest.approx(1e-3, rel=1e-6)
    assert found["o"].repeated == log.repeats and found["o"].report.gaps == len(log.gaps)
    assert found["s"].on_cycle and found["s"].report == found["o"].report
    assert found["s"].repeated == log.repeats
    np.testing.assert_array_equal(found["s"].stamp_ns, found["o"].stamp_ns)


def test_positions_a_driver_wraps_by_whole_turns_are_unwrapped(tmp_path, capsys):
    """A 20 s Panda recording without velocities whose driver reports panda_joint1 a turn
    higher wherever it is below its median (a wrap each time it crosses it): identify names the
    joint and its wraps and fits the same torques as from the positions as they are; a
    prismatic joint's step beyond pi is no wrap."""
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    names = list(model.joint_names)
    rec = record(model, np.random.default_rng(9), 20.0)
    q = rec.position[:, 0]
    wrapped = rec.position.copy()
    wrapped[:, 0] = q + 2 * np.pi * (q < np.median(q))
    wraps = int(np.count_nonzero(np.abs(np.diff(wrapped[:, 0])) > np.pi))
    assert wraps >= 2
    argv = ("identify", "panda", *FIT, "--filter-window", "0.15", "--json")
    reports = {}
    for label, recording in (
        ("wrapped", dataclasses.replace(rec, position=wrapped)),
        ("as they are", rec),
    ):
        path = tmp_path / f"{label}.csv"
        path.write_text(csv_text(names, recording, velocity=False))
        code = cli_main([*argv[:2], str(path), *argv[2:], "--out", str(tmp_path / "x.urdf")])
        out = capsys.readouterr()
        assert code == 0, out.err
        reports[label] = json.loads(out.out)
    assert reports["wrapped"]["data_preparation"]["unwrapped"] == {"panda_joint1": wraps}
    assert reports["as they are"]["data_preparation"]["unwrapped"] == {}
    np.testing.assert_allclose(
        reports["wrapped"]["rms_identified"], reports["as they are"]["rms_identified"], rtol=1e-6
    )
    # a prismatic joint's positions are left as they are
    steps = np.array([[0.0, 0.0], [4.0, 4.0], [4.1, 4.1]])
    unwrapped, counts = unwrap_positions(steps, np.array([False, True]))
    np.testing.assert_array_equal(unwrapped[:, 0], steps[:, 0])
    np.testing.assert_allclose(unwrapped[:, 1], [0.0, 4.0 - 2 * np.pi, 4.1 - 2 * np.pi])
    assert list(counts) == [0, 1]


def test_estimate_on_positions_only_names_the_cause_and_the_fix(arm, tmp_path, capsys):
    """Half a second of the estimate tests' arm (estimate_recordings.simulate) recorded without
    velocities, as a CSV without velocity columns, a bag whose messages carry none and a bag of
    NaN velocities, and as a CSV without panda_joint3's column: estimate refuses, naming every
    joint ('any joint') or the one, that the node needs measured velocities, and the fix."""
    _, urdf, params = arm
    recording = ER.simulate(seed=5, duration=0.5)
    names = ER.JOINT_NAMES

    def csv_without(lacking):
        header = ["time"] + [f"{j}.{f}" for f in ("position", "velocity", "effort") for j in names]
        keep = [k for k, h in enumerate(header) if h.rsplit(".", 1)[0] not in lacking
                or not h.endswith(".velocity")]  # fmt: skip
        rows = [",".join(header[k] for k in keep)]
        for t, _, q, qd, tau in recording.messages:
            values = [f"{t:.9f}"] + [repr(float(v)) for v in (*q, *qd, *tau)]
            rows.append(",".join(values[k] for k in keep))
        path = tmp_path / f"without_{len(lacking)}.csv"
        path.write_text("\n".join(rows) + "\n")
        return str(path)

    def bag(label, velocity):
        messages = [(t, n, q, velocity(qd), tau) for t, n, q, qd, tau in recording.messages]
        write_bag(str(tmp_path / label), messages)
        return str(tmp_path / label)

    cases = [
        (csv_without(names), "CSV", "any joint"),
        (bag("none", lambda qd: []), "bag", "any joint"),
        (bag("nan", lambda qd: np.full(len(qd), np.nan)), "bag", "any joint"),
        (csv_without(["panda_joint3"]), "CSV", "joints ['panda_joint3']"),
    ]
    for data, kind, which in cases:
        code = cli_main(["estimate", urdf, data, "--params", params, "--out", str(tmp_path / "o")])
        err = capsys.readouterr().err
        assert code == 2, err
        assert f"{kind} {data!r} has no velocity for {which} (positions only): the dynamics " in err
        assert "node estimates with the measured velocities and does not differentiate" in err
        assert "record the driver's velocities (its velocity state interface" in err
