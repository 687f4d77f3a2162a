"""``robot-dynamics identify`` and its data layer: ROS 2 bags written with ``rosbags`` read back
(directory, single .mcap, single .db3; partial and unordered messages merged by name; NaN
samples dropped and counted), CSV, and the identified URDF (loads in the core and in Pinocchio,
physically consistent, better than the nominal URDF on held-out data)."""

import json
import os
import re

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.identification import apply_parameters
from robot_dynamics.core.pseudo_inertia import is_physically_consistent
from robot_dynamics.core.regressor import ParameterLayout, regressor
from robot_dynamics.tools import cli
from robot_dynamics.tools.bundled import bundled_urdf_path
from robot_dynamics.core.joint_data import prepare
from robot_dynamics.core.rest import at_rest
from robot_dynamics.tools.identification_data import (
    DataError,
    read_bag,
    read_csv_rows,
    read_samples,
    write_bag,
)
from real_recordings import csv_text, record
from tools_helpers import perturbed_inertials


PENDULUM_G = (0.0, -9.81, 0.0)


def truth_of(model, rng):
    layout = ParameterLayout.for_model(model)
    theta = layout.nominal(model).copy()
    theta[: layout.n_inertial] = perturbed_inertials(model, rng)
    theta[layout.group_slice("viscous")] = rng.uniform(0.2, 1.0, model.n)
    theta[layout.group_slice("coulomb")] = rng.uniform(0.2, 1.0, model.n)
    return layout, theta


def trajectory(model, rng, duration, rate):
    lo, hi = model.position_limits
    lo = np.where(np.isfinite(lo), lo, -np.pi)
    hi = np.where(np.isfinite(hi), hi, np.pi)
    t = np.arange(0.0, duration, 1.0 / rate)
    T = t[:, None]
    q = np.zeros((t.size, model.n))
    qd, qdd = np.zeros_like(q), np.zeros_like(q)
    for h in range(1, 5):
        w = 2 * np.pi * 0.1 * h
        a = rng.normal(size=model.n) * 0.4 / h
        ph = rng.uniform(0, 2 * np.pi, model.n)
        q += a * np.sin(w * T + ph)
        qd += a * w * np.cos(w * T + ph)
        qdd -= a * w * w * np.sin(w * T + ph)
    s = np.minimum(0.35 * (hi - lo) / np.maximum(np.abs(q).max(axis=0), 1e-9), 1.0)
    return t, (lo + hi) / 2 + q * s, qd * s, qdd * s


def recording(model, rng, duration=30.0, rate=200.0, noise=0.0):
    layout, theta = truth_of(model, rng)
    t, q, qd, qdd = trajectory(model, rng, duration, rate)
    tau = regressor(model, q, qd, qdd, layout) @ theta
    return layout, theta, t, q, qd, qdd, tau + noise * rng.normal(size=tau.shape)


def full_messages(names, t, q, qd, tau):
    return [(t[i], names, q[i], qd[i], tau[i]) for i in range(len(t))]


# ------------------------------------------------------------------ data
@pytest.mark.parametrize(
    "storage, single_file", [("mcap", False), ("mcap", True), ("sqlite3", True)]
)
def test_bag_round_trip(tmp_path, rng, storage, single_file):
    names = ["a", "b", "c"]
    t = np.arange(200) * 0.01
    q = rng.normal(size=(200, 3))
    qd = rng.normal(size=(200, 3))
    tau = rng.normal(size=(200, 3))
    messages = []
    for i in range(200):
        if i % 2:  # two partial messages with the same stamp, joints in another order
            messages.append((t[i], ["c", "a"], q[i, [2, 0]], qd[i, [2, 0]], tau[i, [2, 0]]))
            messages.append(
                (t[i], ["b", "gripper"], [q[i, 1], 0.0], [qd[i, 1], 0.0], [tau[i, 1], 0])
            )
        else:
            messages.append((t[i], names, q[i], qd[i], tau[i]))
    # recorded last, stamped like sample 4: merged into it (its NaN effort drops the sample)
    messages.append((t[4], ["a"], [q[4, 0]], [qd[4, 0]], [np.nan]))
    bag = tmp_path / "bag"
    write_bag(bag, messages, storage=storage)
    path = bag
    if single_file:
        (path,) = [p for p in bag.iterdir() if p.suffix in (".mcap", ".db3")]
    samples = read_bag(str(path), names)
    assert samples.extra_joints == ("gripper",)
    np.testing.assert_allclose(samples.t, t, atol=1e-9)
    np.testing.assert_array_equal(samples.position, q)
    np.testing.assert_array_equal(samples.velocity, qd)
    expected_tau = tau.copy()
    expected_tau[4, 0] = np.nan
    np.testing.assert_array_equal(samples.effort, expected_tau)
    data = prepare(read_samples(str(path), names), filter_window=0.05)
    assert data.dropped == 1 and data.raw_samples == 200
    assert data.velocity_source == "message"


def test_velocity_and_acceleration_by_differentiation(tmp_path):
    names = ["j"]
    t = np.arange(0.0, 10.0, 0.002)
    w = 2 * np.pi * 0.5
    q, qd, qdd = np.sin(w * t), w * np.cos(w * t), -w * w * np.sin(w * t)
    messages = [(t[i], names, [q[i]], [], [1.0]) for i in range(t.size)]
    write_bag(tmp_path / "bag", messages)
    data = prepare(read_samples(str(tmp_path / "bag"), names))
    assert data.velocity_source == "differentiated" and data.dropped == 0
    inner = slice(50, -50)  # away from the ends of the filter
    np.testing.assert_allclose(data.qd[inner, 0], qd[inner], atol=1e-3 * w)
    np.testing.assert_allclose(data.qdd[inner, 0], qdd[inner], atol=1e-2 * w * w)


def test_at_rest_where_the_arm_holds_still(rng):
    # two joints hold, move together (a quintic over 1 s), hold; positions at 1 kHz with
    # encoder noise (1e-5 rad), or quantized to 16-bit counts of a noisy position held just
    # inside a count (it toggles to the next count now and then): at rest inside the holds,
    # never while a joint moves faster than 1 mrad/s
    t = np.arange(0.0, 4.0, 1e-3)
    s = np.clip(t - 1.5, 0.0, 1.0)
    path = 10 * s**3 - 15 * s**4 + 6 * s**5
    speed = np.abs(30 * s**2 - 60 * s**3 + 30 * s**4)
    count = 2 * np.pi / 2**16
    start = (np.array([3000, -10000]) + 0.5) * count - 2.8e-5  # 2.8 sigma inside a count
    amplitude = np.array([5000, -2000]) * count
    q = start + path[:, None] * amplitude
    noisy = q + 1e-5 * rng.normal(size=q.shape)
    quantized = np.round(noisy / count) * count
    window = 151
    holds = (t < 1.5 - 0.08) | (t > 2.5 + 0.08)  # half a window away from the move
    assert 0 < np.count_nonzero(np.diff(quantized[holds], axis=0)) < 0.01 * t.size  # toggles
    for positions in (noisy, quantized):
        rest = at_rest(positions, window)
        assert rest[holds].all()
        assert not rest[speed * np.abs(amplitude).max() > 1e-3].any()
    # a hold on its own (a stretch between gaps): the toggling count is at rest too
    assert at_rest(quantized[t < 1.4], window).all()
    # moving all along (a slow sine) is never at rest
    slow = 0.3 * np.sin(2 * np.pi * 0.2 * t)[:, None] + 1e-5 * rng.normal(size=(t.size, 1))
    assert not at_rest(slow, window).any()


def test_csv_input(tmp_path, rng):
    names = ["x", "y"]
    t = np.arange(100) * 0.01
    q = np.column_stack([np.sin(3 * t), np.cos(2 * t)]) + 1e-4 * rng.normal(size=(100, 2))
    tau = rng.normal(size=(100, 2))
    rows = ["time,x.position,y.position,x.effort,y.effort"]
    rows += [f"{t[i]},{q[i, 0]},{q[i, 1]},{tau[i, 0]},{tau[i, 1]}" for i in range(100)]
    rows[7] = rows[7].split(",", 1)[0] + ",nan,0,0,0"
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    data = prepare(read_samples(str(tmp_path / "d.csv"), names))
    assert data.dropped == 1 and data.velocity_source == "differentiated"
    with pytest.raises(DataError, match=r"joints \['z'\] are not in the recording"):
        prepare(read_samples(str(tmp_path / "d.csv"), ["x", "z"]))
    with pytest.raises(DataError, match=r"joints \['z', 'w'\] of the model are not in CSV"):
        prepare(read_samples(str(tmp_path / "d.csv"), ["z", "w"]))


def test_a_recording_with_a_prefix_or_a_misspelling_says_so(tmp_path, rng):
    """Columns of joints 'left_x', 'left_y' against a model of 'x', 'y' (a tf_prefix), and a
    model whose 'wrist_jiont' is misspelled against the CSV's 'wrist_joint': each refusal says
    how the recording names the model's joints, for a CSV, a bag, and the reader of the
    estimate command (every joint's position and effort)."""
    t = np.arange(50) * 0.01
    q, tau = rng.normal(size=(2, 50, 2))
    rows = ["time,left_x.position,left_y.position,left_x.effort,left_y.effort"]
    rows += [f"{t[i]},{q[i, 0]},{q[i, 1]},{tau[i, 0]},{tau[i, 1]}" for i in range(50)]
    (tmp_path / "p.csv").write_text("\n".join(rows) + "\n")
    prefix = "the data names 2 of them with the prefix 'left_' ('left_x' for 'x')"
    with pytest.raises(DataError, match=re.escape(prefix)):
        read_samples(str(tmp_path / "p.csv"), ["x", "y"])
    with pytest.raises(DataError, match=re.escape(prefix)):
        read_csv_rows(str(tmp_path / "p.csv"), ["x", "y"])
    messages = full_messages(["left_x", "left_y"], t, q, q, tau)
    write_bag(str(tmp_path / "bag"), messages)
    with pytest.raises(DataError, match=re.escape(prefix)):
        read_bag(str(tmp_path / "bag"), ["x", "y"])
    rows[0] = rows[0].replace("left_y", "wrist_joint").replace("left_x", "elbow_joint")
    (tmp_path / "m.csv").write_text("\n".join(rows) + "\n")
    with pytest.raises(DataError, match=re.escape("did you mean 'wrist_joint' for 'wrist_jiont'?")):
        read_csv_rows(str(tmp_path / "m.csv"), ["elbow_joint", "wrist_jiont"])


# ------------------------------------------------------------------ command
def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def panda_recording(tmp_path_factory):
    rng = np.random.default_rng(11)
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    layout, theta, t, q, qd, qdd, tau = recording(model, rng, duration=40.0, rate=100.0, noise=0.2)
    path = tmp_path_factory.mktemp("panda") / "panda_bag"
    write_bag(path, full_messages(model.joint_names, t, q, qd, tau))
    return model, layout, theta, path


def test_identify_writes_a_consistent_urdf(tmp_path, capsys, panda_recording):
    model, layout, theta, bag = panda_recording
    out = tmp_path / "results" / "identified.urdf"  # a directory identify creates
    plot = tmp_path / "id.png"
    code, stdout, err = run(
        capsys, "identify", bundled_urdf_path("panda"), bag, "--out", out, "--plot", plot, "--json"
    )
    assert code == 0, err
    report = json.loads(stdout)
    assert report["base_parameter_count"] == 57  # 43 inertial + 2 x 7 friction
    assert report["samples_used"] + report["validation_samples"] >= 3900
    assert report["samples_dropped"] == 0
    rms_nominal = np.array(report["rms_nominal"])
    rms_identified = np.array(report["rms_identified"])
    assert np.all(rms_identified < 0.3), rms_identified  # noise 0.2 (smoothed by the filter)
    assert rms_nominal.max() > 1.0 and np.all(rms_identified <= rms_nominal)
    assert all(np.isfinite(b["std"]) for b in report["base_parameters"])
    assert os.path.getsize(plot) > 1000
    # the written URDF: loads in the core, is consistent link by link, predicts the truth
    text = out.read_text()
    identified = RobotModel.from_urdf_string(text)
    assert identified.joint_names == model.joint_names
    ident_layout = ParameterLayout.for_model(identified)
    body = ident_layout.nominal(identified)[: layout.n_inertial].reshape(-1, 10)
    assert np.all(is_physically_consistent(body))
    # the rest of the URDF is kept (limits, comments); the hand is fixed to link 7: its
    # inertial moved into link 7's
    nominal_text = open(bundled_urdf_path("panda")).read()
    assert text.count("<limit") == nominal_text.count("<limit") == 7
    assert "Franka Hand (fingers omitted" in text and text.startswith(nominal_text[:200])
    hand = text[text.index('<link name="panda_hand"') :]
    assert "<inertial" not in hand[: hand.index("</link>")]
    true_model = apply_parameters(model, layout, theta)
    rng = np.random.default_rng(2)
    q = rng.uniform(-1, 1, (20, 7))
    qd, qdd = rng.normal(size=(2, 20, 7))
    err = identified.inverse_dynamics(q, qd, qdd) - true_model.inverse_dynamics(q, qd, qdd)
    assert np.abs(err).max() < 0.5
    # ... and in Pinocchio, with the same inverse dynamics
    pin = pytest.importorskip("pinocchio")
    pm = pin.buildModelFromXML(text)
    pdata = pm.createData()
    for i in range(3):
        tau_pin = pin.rnea(pm, pdata, q[i], qd[i], qdd[i])
        np.testing.assert_allclose(
            tau_pin, identified.inverse_dynamics(q[i], qd[i], qdd[i]), atol=1e-8
        )


def test_identify_errors(tmp_path, capsys, rng, panda_recording):
    _, _, _, bag = panda_recording
    urdf = bundled_urdf_path("double_pendulum")
    out = tmp_path / "x.urdf"
    code, _, err = run(capsys, "identify", "double_pendulum", bag, "--out", out)
    assert code == 2 and "joints ['joint1', 'joint2'] of the model are not in" in err
    assert "panda_joint1" in err
    code, _, err = run(capsys, "identify", "panda", bag, "--out", out, "--topic", "/js")
    assert code == 2 and "no topic '/js'" in err and "/joint_states" in err
    code, _, err = run(capsys, "identify", "panda", tmp_path / "nothing", "--out", out)
    assert code == 2 and "no such bag" in err
    model = RobotModel.from_urdf_file(urdf, gravity=PENDULUM_G)
    names = model.joint_names
    effort = 1.0 + 0.01 * rng.normal(size=(500, 2))  # a sensor's noise
    # too few samples
    short = tmp_path / "short"
    write_bag(short, [(i * 0.01, names, [0.1, 0.2], [0, 0], effort[i]) for i in range(6)])
    code, _, err = run(capsys, "identify", "double_pendulum", short, "--out", out)
    assert code == 2 and "too few samples" in err
    # the arm standing still: nothing excited
    still = tmp_path / "still"
    write_bag(still, [(i * 0.01, names, [0.1, 0.2], [0, 0], effort[i]) for i in range(500)])
    code, _, err = run(capsys, "identify", "double_pendulum", still, "--out", out)
    assert code == 2 and "does not excite" in err
    assert not out.exists()


def test_excite_writes_a_feasible_exciting_trajectory(tmp_path, capsys):
    yaml = pytest.importorskip("yaml")
    prefix = str(tmp_path / "excitation" / "exc")  # a directory excite creates
    code, stdout, err = run(
        capsys, "excite", "double_pendulum", "--duration", "25", "--period", "10",
        "--out", prefix, "--iterations", "5", "--max-acceleration", "4", "--json",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(stdout)
    assert report["duration"] == 30.0  # whole periods
    assert report["condition_number"] < 100
    msg = yaml.safe_load(open(prefix + ".yaml"))
    assert msg["joint_names"] == ["joint1", "joint2"]
    points = msg["points"]
    assert len(points) == 601 and points[0]["time_from_start"] == {"sec": 3, "nanosec": 0}
    assert points[0]["velocities"] == [0.0, 0.0] and points[0]["accelerations"] == [0.0, 0.0]
    table = np.loadtxt(prefix + ".csv", delimiter=",", skiprows=1)
    model = RobotModel.from_urdf_file(bundled_urdf_path("double_pendulum"), gravity=PENDULUM_G)
    lower, upper = model.position_limits
    q, qd, qdd = table[:, 1:3], table[:, 3:5], table[:, 5:7]
    margin = 0.1 * (upper - lower) - 1e-9
    assert np.all(q >= lower + margin) and np.all(q <= upper - margin)
    assert np.all(np.abs(qd) <= 0.9 * model.velocity_limits + 1e-9)
    assert np.all(np.abs(qdd) <= 0.9 * 4.0 + 1e-9)
    assert os.path.getsize(prefix + ".png") > 1000
    # the trajectory identifies the robot: a noise-free recording of it gives the truth back
    rng = np.random.default_rng(4)
    layout, theta = truth_of(model, rng)
    tau = regressor(model, q, qd, qdd, layout) @ theta
    write_bag(tmp_path / "bag", full_messages(model.joint_names, table[:, 0], q, qd, tau))
    code, stdout, err = run(
        capsys, "identify", "double_pendulum", tmp_path / "bag", "--out", tmp_path / "i.urdf",
        "--json",
    )  # fmt: skip
    assert code == 0, err
    assert max(json.loads(stdout)["rms_identified"]) < 1e-2


def test_identify_payload_from_static_poses(tmp_path, capsys):
    # four poses held 1.5 s each at 100 Hz, apart by gaps; the driver's velocities carry a
    # ripple (three components of 0.01 rad/s at 11-22 Hz per joint), the positions encoder
    # noise: the arm is found at rest, so the fit sees no velocity and no acceleration (the
    # ripple's would pass for excitation of the inertia and bend mass and COM)
    rng = np.random.default_rng(9)
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    com = np.array([0.0, 0.03, 0.05])
    truth = model.with_payload(2.0, com, frame="tool")
    poses = [
        [0.0, -0.3, 0.0, -2.0, 0.0, 1.6, 0.8],
        [0.5, 0.2, -0.3, -1.5, 1.2, 1.0, -0.5],
        [-0.4, 0.4, 0.6, -2.2, -1.0, 2.2, 1.5],
        [0.2, -0.6, 0.2, -1.0, 0.7, 0.5, -1.8],
    ]
    f = rng.uniform(11.0, 22.0, (3, 7))
    phase = rng.uniform(0.0, 2 * np.pi, (3, 7))
    messages, t = [], 0.0
    for pose in poses:
        for _ in range(150):  # 1.5 s per pose at 100 Hz, then the next pose after a gap
            tau = truth.gravity_torques(pose) + 0.05 * rng.normal(size=7)
            q = np.array(pose) + 1e-5 * rng.normal(size=7)
            ripple = 0.01 * np.sin(2 * np.pi * f * t + phase).sum(axis=0)
            messages.append((t, model.joint_names, q, ripple, tau))
            t += 0.01
        t += 2.0
    write_bag(tmp_path / "static", messages)
    code, stdout, err = run(
        capsys, "identify-payload", "panda", tmp_path / "static", "--frame", "tool", "--json"
    )
    assert code == 0, err
    report = json.loads(stdout)
    assert abs(report["mass"] - 2.0) < 0.01
    assert np.all(np.abs(np.array(report["com"]) - com) < 0.002), report["com"]
    assert report["inertia"] is None and "inertia: not determined" in report["undetermined"][0]
    assert max(report["residual_rms"]) < 0.05  # torque noise 0.05 N m, smoothed
    assert report["data_preparation"]["at_rest"] == 1.0
    assert report["warnings"] == []  # link-side torques at rest: nothing odd
    code, stdout, err = run(capsys, "identify-payload", "panda", tmp_path / "static")
    assert code == 0 and re.search(r"mass  (1\.99|2\.00?)\d* \+- ", stdout), stdout
    assert "note: inertia: not determined" in stdout
    code, _, err = run(capsys, "identify-payload", "panda", tmp_path / "static", "--frame", "x")
    assert code == 2 and "unknown frame 'x'" in err
    # one pose: the encoder noise is no change of pose, the COM along gravity stays unknown
    write_bag(tmp_path / "one", messages[:150])
    code, stdout, err = run(capsys, "identify-payload", "panda", tmp_path / "one", "--json")
    assert code == 0, err
    one = json.loads(stdout)
    assert abs(one["mass"] - 2.0) < 0.01 and None in one["com"], one["com"]
    assert any("centre of mass along" in note for note in one["undetermined"])


def test_identify_payload_converts_efforts_with_the_nodes_parameters_files(tmp_path, capsys):
    # a driver whose torques carry offsets (as identify finds them and writes effort_offset
    # beside the identified URDF): with that file the payload is the true one, without it
    # the offsets pass for load
    rng = np.random.default_rng(21)
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    com = np.array([0.02, -0.01, 0.06])
    truth = model.with_payload(1.5, com, frame="tool")
    offset = np.array([0.6, -1.1, 0.4, -0.25, 0.15, 0.2, -0.3])
    poses = [
        [0.0, -0.3, 0.0, -2.0, 0.0, 1.6, 0.8],
        [0.5, 0.2, -0.3, -1.5, 1.2, 1.0, -0.5],
        [-0.4, 0.4, 0.6, -2.2, -1.0, 2.2, 1.5],
        [0.2, -0.6, 0.2, -1.0, 0.7, 0.5, -1.8],
    ]
    messages, t = [], 0.0
    for pose in poses:
        for _ in range(150):
            tau = truth.gravity_torques(pose) + offset + 0.05 * rng.normal(size=7)
            q = np.array(pose) + 1e-5 * rng.normal(size=7)
            messages.append((t, model.joint_names, q, np.zeros(7), tau))
            t += 0.01
        t += 2.0
    write_bag(tmp_path / "static", messages)
    params = tmp_path / "identified.yaml"
    params.write_text(
        "/**:\n  ros__parameters:\n    effort_offset: " + str((-offset).tolist()) + "\n"
    )
    data = ["identify-payload", "panda", tmp_path / "static", "--json"]
    code, stdout, err = run(capsys, *data, "--params", params)
    assert code == 0, err
    report = json.loads(stdout)
    assert abs(report["mass"] - 1.5) < 0.01, report["mass"]
    assert np.all(np.abs(np.array(report["com"]) - com) < 0.001), report["com"]
    assert report["data_preparation"]["effort_offset"] == pytest.approx(-offset)
    code, stdout, err = run(capsys, *data)
    assert code == 0, err
    unconverted = json.loads(stdout)
    assert abs(unconverted["mass"] - 1.5) > 0.05, unconverted["mass"]  # the offsets as load
    # the command line's conversion wins over the file's
    code, stdout, err = run(capsys, *data, "--params", params, "--effort-offset", *["0"] * 7)
    assert code == 0, err
    assert json.loads(stdout)["data_preparation"]["effort_offset"] == [0.0] * 7
    bad = tmp_path / "bad.yaml"
    bad.write_text("/**:\n  ros__parameters:\n    effort_offset: [1.0, 2.0]\n")
    code, _, err = run(capsys, *data[:3], "--params", bad)
    assert code == 2 and "effort_offset" in err, err


def test_identify_payload_from_a_logged_recording_of_motor_currents(tmp_path, capsys):
    # a load on the Panda's tool, attached 3 s into the recording; the driver reports motor
    # currents (effort = (tau - offset) / scale per joint) and velocities with a ripple (three
    # components of 0.01 rad/s at 11-22 Hz per joint); joint 7 reports exactly 0; the
    # logger's stamps jitter about a 1 ms cycle with stalls, ~5 % repeats and ~8.5 ms gaps;
    # torque noise 0.05 N m per cycle, encoder noise 1e-5 rad
    rng = np.random.default_rng(5)
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    mass, com = 1.8, np.array([0.02, -0.015, 0.07])
    loaded = model.with_payload(mass, com, np.diag([0.004, 0.005, 0.003]), frame="tool")
    attached = 3.0

    def torques(t, q, qd, qdd):
        rigid = np.where(
            (t >= attached)[:, None],
            loaded.inverse_dynamics(q, qd, qdd),
            model.inverse_dynamics(q, qd, qdd),
        )
        return rigid + model.friction_torques(qd)

    scale = np.array([12.0, -10.0, 9.0, 8.0, -3.0, 2.5, 2.0])
    offset = rng.uniform(-0.4, 0.4, model.n)
    rec = record(model, rng, 20.0, ripple=0.01, encoder_noise=1e-5, effort_scale=scale,
                 effort_offset=offset, torques=torques)  # fmt: skip
    rec.effort[:, 6] = 0.0
    path = tmp_path / "payload.csv"
    path.write_text(csv_text(model.joint_names, rec))
    conversion = ["--effort-scale", *scale, "--effort-offset", *offset.tolist()]
    window = ["--time-window", "3.5", "100"]  # the loaded part
    code, stdout, err = run(
        capsys, "identify-payload", "panda", path, "--frame", "tool", *window, *conversion
    )
    assert code == 0, err
    lines = stdout.splitlines()
    # the data preparation's report, then the payload
    prefixes = [
        "payload on tool from ",
        f"recording: {len(rec.t)} samples, ",
        "stamps: intervals ",
        "gaps: ",
        "repeated samples (identical to the previous one): ",
        "filter window ",
        "smoothed samples: 1 in ",
        "arm at rest (velocity and acceleration 0): 0.0 % of the samples",
        "torque = effort_scale * effort + effort_offset: panda_joint1 12 e ",
        "not fitted (no measured torque): panda_joint7: effort exactly 0 in every sample",
        "mass  ",
    ]
    assert [line[: len(p)] for line, p in zip(lines, prefixes)] == prefixes, stdout
    assert abs(float(lines[10].split()[1]) - mass) < 0.01, lines[10]
    assert f"{int((rec.t < 3.5).sum())} outside the time window 3.5-100 s" in lines[1]
    assert "jitter about a 1 ms cycle" in lines[2]
    code, stdout, err = run(
        capsys, "identify-payload", "panda", path, *window, *conversion, "--json"
    )
    assert code == 0, err
    report = json.loads(stdout)
    # the noise (0.05 N m on ~16000 samples of 6 joints) allows errors far below these; what
    # is left of the ripple after the chosen window adds a few hundredths of a N m
    assert abs(report["mass"] - mass) < 0.01
    assert np.all(np.abs(np.array(report["com"]) - com) < 1e-3), report["com"]
    assert report["warnings"] == []  # currents converted, in motion: nothing odd
    assert report["residual_rms"][6] is None and max(report["residual_rms"][:6]) < 0.1
    prep = report["data_preparation"]
    assert prep["filter_window"] >= 0.1 and prep["at_rest"] == 0.0
    assert "chosen by the validation torque RMS" in lines[5]
    # a 0.05 s window passes the ripple into the accelerations: centimetres of COM error
    code, stdout, err = run(
        capsys, "identify-payload", "panda", path, *window, *conversion, "--json",
        "--filter-window", "0.05",
    )  # fmt: skip
    assert code == 0, err
    short = json.loads(stdout)
    assert np.abs(np.array(short["com"]) - com).max() > 0.01, short["com"]
    assert max(short["residual_rms"][:6]) > 1.0
    assert prep["effort_mask"] == [True] * 6 + [False]
    assert prep["stamps"]["uniform"] and prep["stamps"]["cycle"] == pytest.approx(1e-3)
    assert 0 < prep["repeated_samples"] <= rec.log.repeats and prep["stamps"]["gaps"] > 0
    assert prep["effort_scale"] == scale.tolist() and prep["time_window"] == [3.5, 100.0]
    # the efforts taken as torques, or the unloaded start kept: a wrong payload
    for options in (window, conversion):
        code, stdout, err = run(capsys, "identify-payload", "panda", path, *options, "--json")
        assert code == 0, err
        assert abs(json.loads(stdout)["mass"] - mass) > 0.1, options
    # bad option values are named
    for options, message in (
        (["--time-window", "5", "1"], "--time-window needs START < END, got [5.0, 1.0]"),
        (["--hold", "gripper=0.02"], "--hold: unknown joint 'gripper'"),
        (["--effort-scale", "1", "2"], "--effort-scale: got 2 value(s), the model has 7"),
        (["--ignore-effort", "wrist"], "unknown joint 'wrist' to ignore the effort of"),
        (
            ["--filter-window", "0"],
            "argument --filter-window: must be a finite number > 0, got '0'",
        ),
    ):
        code, _, err = run(capsys, "identify-payload", "panda", path, *options)
        assert code == 2 and message in err, (options, err)


def panda_with_coulomb_friction(tmp_path, friction):
    """The bundled Panda with ``friction`` [N m] of Coulomb friction on every joint (no damping):
    its URDF path and model."""
    text = open(bundled_urdf_path("panda")).read()
    text = text.replace(
        '<dynamics damping="0.003" friction="0.0"/>', f'<dynamics friction="{friction}"/>'
    )
    urdf = tmp_path / "panda_friction.urdf"
    urdf.write_text(text)
    model = RobotModel.from_urdf_file(str(urdf))
    assert np.all(np.asarray(model.friction.coulomb) == friction)
    return urdf, model


def test_identify_payload_warns_of_stiction_at_rest(tmp_path, capsys):
    # motor-side torques (joints with 1.5 N m of Coulomb friction, as the URDF says) in five
    # static poses: at rest each joint holds whatever stiction the approach left, anywhere in
    # +-1.5 N m, which the friction model (0 at rest) cannot remove; a named warning says so,
    # the payload is still reported
    rng = np.random.default_rng(17)
    urdf, model = panda_with_coulomb_friction(tmp_path, 1.5)
    truth = model.with_payload(1.5, np.array([0.01, -0.02, 0.06]), frame="tool")
    poses = rng.uniform(*model.position_limits, (5, 7)) * 0.6
    messages, t = [], 0.0
    for pose in poses:
        stiction = rng.uniform(-1.5, 1.5, 7)
        for _ in range(150):
            tau = truth.gravity_torques(pose) + stiction + 0.05 * rng.normal(size=7)
            messages.append((t, model.joint_names, pose + 1e-5 * rng.normal(size=7), 0 * tau, tau))
            t += 0.01
        t += 2.0
    write_bag(tmp_path / "static", messages)
    argv = ("identify-payload", str(urdf), tmp_path / "static", "--frame", "tool")
    code, stdout, err = run(capsys, *argv, "--json")
    assert code == 0, err
    report = json.loads(stdout)
    (warning,) = [w for w in report["warnings"] if w.startswith("payload-at-rest: ")]
    assert warning.startswith("payload-at-rest: 100 % of the samples are at or near rest")
    assert "(the model has joint friction on panda_joint1, panda_joint2, " in warning
    assert "Use link-side joint torques, or a recording in motion" in warning
    assert abs(report["mass"] - 1.5) > 5 * report["mass_std"]  # what the warning says
    # told not to subtract friction (link-side torques): no warning
    code, stdout, err = run(capsys, *argv, "--no-friction", "--json")
    assert code == 0 and json.loads(stdout)["warnings"] == [], err


def test_identify_payload_says_when_the_payload_is_not_physical(tmp_path, capsys):
    # the URDF carries a 1 kg tool on the Panda's tool frame that was off in the recording
    # (the robot moving, so the inertia is determined): the payload found is minus the tool,
    # negative mass and an inertia about its centre of mass that is negative definite; named
    # next to the numbers and in a warning
    rng = np.random.default_rng(23)
    text = open(bundled_urdf_path("panda")).read()
    tool = (
        '<link name="gripper"><inertial><origin xyz="0 0 0.05"/><mass value="1.0"/>'
        '<inertia ixx="0.004" ixy="0" ixz="0" iyy="0.005" iyz="0" izz="0.003"/></inertial>'
        '</link><joint name="gripper_mount" type="fixed"><parent link="tool"/>'
        '<child link="gripper"/></joint></robot>'
    )
    urdf = tmp_path / "panda_gripper.urdf"
    urdf.write_text(text.replace("</robot>", tool))
    bare = RobotModel.from_urdf_file(bundled_urdf_path("panda"))

    def torques(t, q, qd, qdd):
        return bare.inverse_dynamics(q, qd, qdd) + bare.friction_torques(qd)

    rec = record(bare, rng, 12.0, torques=torques, logged=False)
    path = tmp_path / "run.csv"
    path.write_text(csv_text(bare.joint_names, rec))
    code, stdout, err = run(
        capsys, "identify-payload", str(urdf), path, "--frame", "tool", "--json"
    )
    assert code == 0, err
    report = json.loads(stdout)
    assert abs(report["mass"] + 1.0) < 0.05 and np.all(np.linalg.eigvalsh(report["inertia"]) < 0)
    (warning,) = report["warnings"]
    assert warning.startswith(
        "payload-inconsistent: the payload on tool is not physically consistent: its mass "
    )
    assert "is not positive; its inertia about the centre of mass is not positive" in warning
    code, stdout, err = run(capsys, "identify-payload", str(urdf), path, "--frame", "tool")
    assert code == 0 and "warning: payload-inconsistent: " in err
    lines = stdout.splitlines()
    mass = next(line for line in lines if line.startswith("mass  "))
    inertia = next(line for line in lines if line.startswith("inertia about the centre"))
    for line in (mass, inertia):
        assert line.endswith("  (not physical: warning payload-inconsistent)"), line


def test_identify_payload_subtracts_friction_with_the_given_velocity_threshold(tmp_path, capsys):
    # joints with 1.5 N m of Coulomb friction whose smooth sign tanh(qd / v_eps) has v_eps =
    # 0.2 rad/s, a 1.2 kg load: the fit matches the torques only with that threshold; the
    # velocities carry a ripple (three components of 0.006 rad/s at 11-22 Hz per joint)
    rng = np.random.default_rng(11)
    urdf, model = panda_with_coulomb_friction(tmp_path, 1.5)
    mass, com = 1.2, np.array([0.0, 0.01, 0.05])
    loaded = model.with_payload(mass, com, np.diag([0.003, 0.003, 0.002]), frame="tool")

    def torques(t, q, qd, qdd):
        return loaded.inverse_dynamics(q, qd, qdd) + model.friction_torques(qd, 0.2)

    rec = record(model, rng, 12.0, ripple=0.006, encoder_noise=1e-5, torques=torques,
                 logged=False)  # fmt: skip
    path = tmp_path / "payload.csv"
    path.write_text(csv_text(model.joint_names, rec))
    fits = {}
    for threshold in ("0.2", "0.01"):
        code, stdout, err = run(
            capsys, "identify-payload", str(urdf), path, "--velocity-threshold", threshold, "--json"
        )
        assert code == 0, err
        fits[threshold] = json.loads(stdout)
    assert abs(fits["0.2"]["mass"] - mass) < 0.01
    assert np.all(np.abs(np.array(fits["0.2"]["com"]) - com) < 2e-3), fits["0.2"]["com"]
    assert max(fits["0.01"]["residual_rms"]) > 3 * max(fits["0.2"]["residual_rms"])
    code, _, err = run(capsys, "identify-payload", str(urdf), path, "--velocity-threshold", "-1")
    assert (
        code == 2 and "argument --velocity-threshold: must be a finite number >= 0, got '-1'" in err
    ), err


def test_bag_with_another_message_type_and_bad_holdout(tmp_path, capsys):
    from rosbags.rosbag2 import Writer
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS2_JAZZY)
    String = store.types["std_msgs/msg/String"]
    with Writer(tmp_path / "strings", version=9) as writer:
        conn = writer.add_connection("/joint_states", String.__msgtype__, typestore=store)
        writer.write(conn, 1, store.serialize_cdr(String(data="x"), String.__msgtype__))
    with pytest.raises(DataError, match="carries std_msgs/msg/String, not sensor_msgs"):
        read_bag(str(tmp_path / "strings"), ["joint1"])
    code, _, err = run(
        capsys, "identify", "double_pendulum", tmp_path / "strings", "--out", tmp_path / "o.urdf"
    )
    assert code == 2 and "std_msgs/msg/String" in err
    code, _, err = run(
        capsys, "identify", "double_pendulum", tmp_path / "strings", "--out", tmp_path / "o.urdf",
        "--holdout", "1.5",
    )  # fmt: skip
    assert (
        code == 2 and "argument --holdout: must be a finite number >= 0 and < 0.9, got '1.5'" in err
    )
    (tmp_path / "not_a_bag.txt").write_text("hello")
    code, _, err = run(
        capsys, "identify", "double_pendulum", tmp_path / "not_a_bag.txt", "--out", tmp_path / "o"
    )
    assert code == 2 and "cannot read bag" in err
