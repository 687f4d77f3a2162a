"""``robot-dynamics estimate``: the node's pipeline over recordings with known pushes and over free
motion (estimate_recordings.py: the core's simulation with a known wrench on the tool, measured
torques with offsets and noise, friction the model knows only in part, logger stamps with
jitter, repeats and gaps).

Stated tolerances:
- a push (10-15 N, ramped in over 50 ms) switches the contact on within 0.1 s of its start and
  off within 0.15 s of its end, with the suggested levels of a different, push-free recording
  (its fragment loaded after the node's file); nothing else switches it on;
- the force estimated over a push's steady part (from 0.4 s after its start to 0.1 s before its
  end) is within 0.75 N of the applied force (same axes, averaged over the same messages); the
  moment about the tool origin (the push has none) is below 0.5 N m on average;
- the phantom statistics the tool reports equal numpy's statistics of an estimate computed in
  the test with the pipeline fed directly (1e-9); the phantom force in free motion is below
  1.0 N RMS (the model misses the friction's asymmetric and Stribeck parts, the offsets are
  known to 0.01 N m);
- the suggested levels, loaded back from the written fragment, give on the recording exactly the
  false contacts the tool states (0 on the recording they come from).

A logging PC's stamps: test_estimate_stamps.py.
"""

import csv
import dataclasses
import json

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.estimation import EstimationPipeline
from robot_dynamics.estimation.config import pipeline_config
from robot_dynamics.ros import dynamics_parameters as DP
from robot_dynamics.tools.contact_levels import statistics
from robot_dynamics.tools.identification_data import JointStateMessage, write_bag
from robot_dynamics.tools.params_file import (
    default_parameters,
    parameters_yaml,
    read_parameters_file,
)
from robot_dynamics.tools.replay import replay

import estimate_recordings as ER
from tools_helpers import run

pytestmark = pytest.mark.slow

PUSHES = (
    ER.Push(3.0, 4.5, (0.0, 0.0, -15.0)),  # down on the tool
    ER.Push(6.5, 8.0, (0.0, 10.0, 0.0)),  # sideways
)
PUSH_FREE = ("0.5:2.8", "5:6.3", "8.5:")
ON_DELAY, OFF_DELAY = 0.1, 0.15  # [s]
FORCE_TOLERANCE = 0.75  # [N]


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows


def column(rows, name):
    return np.array([float(r[name]) if r[name] != "" else np.nan for r in rows])


@pytest.fixture(scope="module")
def pushed(arm):
    folder, _, _ = arm
    recording = ER.simulate(seed=11, duration=10.0, pushes=PUSHES)
    bag = folder / "pushed"
    write_bag(str(bag), recording.messages)
    return recording, str(bag)


@pytest.fixture(scope="module")
def free_run(arm):
    folder, _, _ = arm
    recording = ER.simulate(seed=12, duration=8.0)
    path = folder / "free.csv"
    ER.write_csv(str(path), recording, ER.JOINT_NAMES)
    return recording, str(path)


@pytest.fixture(scope="module")
def free_estimate(arm, free_run, tmp_path_factory):
    """The estimate of the free run (free: from 0.5 s), its JSON and its outputs."""
    _, urdf, params = arm
    _, data = free_run
    out = str(tmp_path_factory.mktemp("free_out") / "free")
    summary = ER.estimate_json(
        urdf, data, "--params", params, "--out", out, "--free", "0.5:", "--stamps", "recorded"
    )
    return summary, out


def _node_model(values):
    urdf = ER.estimator_urdf()
    return DP.build_model(urdf, values)[1]


def _messages(recording):
    """The recording's messages as the tool reads them back from its CSV (9 decimals of time)."""
    for t, names, q, qd, tau in recording.messages:
        stamp = int(np.rint(float(f"{t:.9f}") * 1e9))
        yield JointStateMessage(stamp, stamp, list(names), q, qd, tau)


def _onsets(r):
    return r.time[r.contact_onsets]


# ------------------------------------------------------------------ pushes
def test_pushes_are_found_with_their_force(arm, pushed, free_estimate, tmp_path, capsys):
    _, urdf, params = arm
    recording, bag = pushed
    _, free_out = free_estimate
    # the pushed recording, with the contact levels of the free run (another recording)
    out = str(tmp_path / "pushed")
    code, text, err = run(
        capsys, "estimate", urdf, bag, "--params", params, "--params", free_out + ".contact.yaml",
        "--out", out, *[a for w in PUSH_FREE for a in ("--free", w)],
    )  # fmt: skip
    assert code == 0, err
    assert "suggested contact levels" in text and "phantom estimate" in text
    rows = read_csv(out + ".csv")
    values = np.array([np.concatenate(m[2:]) for m in recording.messages])
    same = "".join("1" if s else "0" for s in np.all(values[1:] == values[:-1], axis=1))
    # on the cycle, repeats dropped: copies of the previous message in runs of at most 2
    repeats = sum(len(run) for run in same.split("0") if len(run) <= 2)
    assert len(rows) == len(recording.messages) - repeats
    t = column(rows, "time")
    contact = column(rows, "in_contact")  # the free run's levels, loaded with the parameters
    starts = np.flatnonzero(np.diff(np.concatenate(([0], contact))) == 1)
    ends = np.flatnonzero(np.diff(np.concatenate((contact, [0]))) == -1)
    assert len(starts) == len(PUSHES), t[starts]
    for push, a, b in zip(PUSHES, starts, ends):
        assert push.start <= t[a] <= push.start + ON_DELAY, (push, t[a])
        assert push.end <= t[b] <= push.end + OFF_DELAY, (push, t[b])
        steady = (t >= push.start + 0.4) & (t <= push.end - 0.1)
        estimated = np.column_stack([column(rows, f"wrench.{a}") for a in ("fx", "fy", "fz")])
        truth = np.array([np.interp(t[steady], recording.t, f) for f in recording.force_tool.T]).T
        error = np.nanmean(estimated[steady], axis=0) - truth.mean(axis=0)
        assert np.linalg.norm(error) <= FORCE_TOLERANCE, (push, error)
        assert np.nanmean(column(rows, "moment")[steady]) < 0.5
    # the pushes' own free stretches: the tool's suggestion also finds them
    suggested = column(rows, "in_contact_suggested")
    assert (np.diff(np.concatenate(([0], suggested))) == 1).sum() == len(PUSHES)
    with open(out + ".png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_pushes_taken_for_free_motion_are_named(arm, pushed, free_estimate, tmp_path):
    """The pushed recording replayed with all of it taken as free (no --free): the levels
    suggested from it would be the pushes'. A disturbance warning names each push (from within
    0.5 s of its start to within 0.3 s of its end) and the fix; with --free ranges that leave the
    pushes out, and on the push-free recording, none."""
    _, urdf, params = arm
    _, bag = pushed
    out = str(tmp_path / "pushed")
    summary = ER.estimate_json(urdf, bag, "--params", params, "--out", out)
    assert len(summary["disturbed"]) == len(PUSHES), summary["disturbed"]
    for push, (start, end) in zip(PUSHES, summary["disturbed"]):
        assert push.start <= start <= push.start + 0.5, (push, start)
        assert push.end - 0.3 <= end <= push.end + OFF_DELAY, (push, end)
    warnings = [w for w in summary["warnings"] if w.startswith("disturbance:")]
    assert len(warnings) == 1 and "give --free ranges" in warnings[0], summary["warnings"]
    free = [a for w in PUSH_FREE for a in ("--free", w)]
    summary = ER.estimate_json(urdf, bag, "--params", params, "--out", out, *free)
    assert summary["disturbed"] == [] and not summary.get("warnings")
    assert free_estimate[0]["disturbed"] == []


def test_wrench_frame_and_components_follow_the_parameters(arm, pushed, tmp_path):
    folder, urdf, _ = arm
    recording, bag = pushed
    params = tmp_path / "base.yaml"
    values = dict(
        ER.node_parameters(), wrench_frame="panda_link0", wrench_components=["fx", "fy", "fz"]
    )
    params.write_text(parameters_yaml(values))
    out = str(tmp_path / "base")
    summary = ER.estimate_json(
        urdf, bag, "--params", str(params), "--out", out, "--free", "0.5:2.8"
    )
    assert summary["wrench_frame"] == "panda_link0"
    assert summary["wrench_components"] == ["fx", "fy", "fz"]
    assert (
        "moment" not in summary["phantom"]
        and "contact.moment_on" not in summary["suggested"]["levels"]
    )
    rows = read_csv(out + ".csv")
    assert [k for k in rows[0] if k.startswith("wrench.")] == [
        "wrench.fx",
        "wrench.fy",
        "wrench.fz",
    ]
    assert "moment" not in rows[0]
    t = column(rows, "time")
    for push in PUSHES:
        steady = (t >= push.start + 0.4) & (t <= push.end - 0.1)
        estimated = np.nanmean(
            np.column_stack([column(rows, f"wrench.{a}")[steady] for a in ("fx", "fy", "fz")]),
            axis=0,
        )
        assert np.linalg.norm(estimated - np.array(push.force)) <= FORCE_TOLERANCE, estimated


def test_stamps_reach_the_pipeline_as_logged(free_run, free_estimate):
    recording, _ = free_run
    summary, _ = free_estimate
    stamps = np.array([m[0] for m in recording.messages])
    assert summary["messages"] == stamps.size
    steps = np.diff(stamps)
    assert summary["pipeline"]["stamps_repeated"] == int((steps == 0).sum()) > 0
    assert summary["pipeline"]["stamp_gaps"] >= int((steps > 5e-3).sum()) > 0
    assert summary["pipeline"]["stamps_backwards"] == 0
    assert summary["status"]["paused"] == summary["pipeline"]["stamps_repeated"]
    assert summary["status"]["refused"] == 0


# ------------------------------------------------------------------ free motion
def test_phantom_statistics_equal_numpy_of_an_independent_estimate(free_run, free_estimate):
    recording, _ = free_run
    summary, _ = free_estimate
    values = dict(default_parameters().values, **ER.node_parameters())
    model = _node_model(values)
    pipeline = EstimationPipeline(model, pipeline_config(values))
    stamps, tau, wrench = [], [], []
    for m in _messages(recording):
        out = pipeline.update(m.stamp_ns, m.position, m.velocity, m.effort)
        stamps.append(m.stamp_ns)
        tau.append(out.external_torques if out.external_torques is not None else np.full(7, np.nan))
        wrench.append(out.wrench if out.wrench is not None else np.full(6, np.nan))
    t = (np.array(stamps) - stamps[0]) * 1e-9
    tau, wrench = np.array(tau), np.array(wrench)
    sel = (t >= 0.5) & np.isfinite(tau).all(axis=1)
    phantom = summary["phantom"]
    assert phantom["samples"] == int(sel.sum())
    force = np.linalg.norm(wrench[sel, :3], axis=1)
    expected = {
        "rms": np.sqrt(np.mean(force**2)),
        "p95": np.percentile(force, 95),
        "max": force.max(),
        "mean": force.mean(),
    }
    for key, value in expected.items():
        assert phantom["force"][key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
    for c, axis in enumerate(("fx", "fy", "fz", "tx", "ty", "tz")):
        group = "force" if c < 3 else "moment"
        assert phantom[group]["components"][axis] == pytest.approx(statistics(wrench[sel, c]))
        assert phantom[group]["components"][axis]["rms"] == pytest.approx(
            np.sqrt(np.mean(wrench[sel, c] ** 2)), rel=1e-9
        )
    for j, name in enumerate(model.joint_names):
        assert phantom["joints"][name]["max"] == pytest.approx(np.abs(tau[sel, j]).max(), rel=1e-9)
    assert phantom["force"]["rms"] < 1.0


def test_suggested_levels_give_the_stated_false_alarm_rate(arm, free_run, free_estimate):
    _, _, params = arm
    recording, _ = free_run
    summary, out = free_estimate
    alarms = summary["suggested"]["false_alarms"]
    assert alarms["count"] == 0 and alarms["per_minute"] == 0.0 and alarms["time_in_contact"] == 0
    # the fragment, loaded after the node's file, read back through the parameters reader
    fragment = read_parameters_file(out + ".contact.yaml")
    assert fragment.given == set(summary["suggested"]["levels"])
    with open(out + ".contact.yaml") as f:  # its comment states the rate and the time in contact
        comment = " ".join(line[1:].strip() for line in f if line.startswith("#"))
    assert "0 false contact(s) in" in comment and "in contact 0.0 % of the free time" in comment
    loaded = read_parameters_file(params).with_values(
        {name: fragment.values[name] for name in fragment.given}
    )
    for name, value in summary["suggested"]["levels"].items():
        assert loaded.values[name] == value
    model = _node_model(loaded.values)
    result = replay(loaded.pipeline(model), _messages(recording))
    onsets = _onsets(result)
    assert ((onsets >= 0.5).sum()) == alarms["count"]
    # a stricter margin cannot have more false contacts; a margin of 1.01 is stated as it is
    tight = ER.estimate_json(
        arm[1], free_run[1], "--params", params, "--out", out + "_tight", "--free", "0.5:",
        "--margin", "1.01", "--stamps", "recorded",
    )  # fmt: skip
    loaded = read_parameters_file(params).with_values(tight["suggested"]["levels"])
    result = replay(loaded.pipeline(model), _messages(recording))
    assert (_onsets(result) >= 0.5).sum() == tight["suggested"]["false_alarms"]["count"]


@pytest.mark.ros
def test_the_node_loads_the_fragment_after_its_parameters(arm, free_estimate):
    """A DynamicsNode in this process, started with the node's file and the fragment."""
    from rclpy.context import Context

    from robot_dynamics.ros.dynamics_node import DynamicsNode

    _, _, params = arm
    summary, out = free_estimate
    context = Context()
    context.init(
        args=["x", "--ros-args", "--params-file", params, "--params-file", out + ".contact.yaml"]
    )
    try:
        node = DynamicsNode(context=context)
        for name, value in summary["suggested"]["levels"].items():
            got = node.get_parameter(name).value
            assert (list(got) if isinstance(value, list) else got) == value, name
        assert node.get_parameter("friction_compensation").value is True
        node.destroy_node()
    finally:
        context.shutdown()


# ------------------------------------------------------------------ readers
def test_bag_and_csv_of_one_recording_give_one_estimate(arm, free_run, free_estimate, tmp_path):
    _, urdf, params = arm
    recording, _ = free_run
    summary, out = free_estimate
    bag = tmp_path / "free_bag"
    write_bag(str(bag), [(float(f"{m[0]:.9f}"), *m[1:]) for m in recording.messages])
    again = ER.estimate_json(
        urdf, str(bag), "--params", params, "--out", str(tmp_path / "b"), "--free", "0.5:",
        "--stamps", "recorded",
    )  # fmt: skip
    assert again["phantom"] == summary["phantom"]
    assert again["suggested"]["levels"] == summary["suggested"]["levels"]
    a, b = read_csv(out + ".csv"), read_csv(str(tmp_path / "b.csv"))
    assert a == b


def test_velocities_a_driver_fills_with_zeros_are_named(arm, free_run, free_estimate, tmp_path):
    """The free run with the velocities of panda_joint2 and panda_joint5 published as 0 (a
    driver without their velocity state interface) while they move: a velocity-field warning
    names those two joints and the fix; with the measured velocities nothing is named."""
    _, urdf, params = arm
    recording, _ = free_run
    zeroed = [ER.JOINT_NAMES.index(j) for j in ("panda_joint2", "panda_joint5")]
    messages = []
    for t, names, q, qd, tau in recording.messages:
        qd = np.array(qd, dtype=float)
        qd[zeroed] = 0.0
        messages.append((t, names, q, qd, tau))
    path = tmp_path / "zeros.csv"
    ER.write_csv(str(path), dataclasses.replace(recording, messages=messages), ER.JOINT_NAMES)
    summary = ER.estimate_json(urdf, str(path), "--params", params, "--out", str(tmp_path / "z"))
    assert summary["unfollowed_velocities"] == ["panda_joint2", "panda_joint5"]
    (warning,) = [w for w in summary["warnings"] if w.startswith("velocity-field: ")]
    assert "panda_joint2 (velocity RMS 0 vs the rate of change's" in warning
    assert "panda_joint5 (velocity RMS 0 vs" in warning and "panda_joint1" not in warning
    assert "publish the joints' real velocities" in warning
    measured, _ = free_estimate
    assert measured["unfollowed_velocities"] == []
    assert not any(w.startswith("velocity-field") for w in measured["warnings"])


def test_replay_maps_names_and_stamps_as_the_node(tmp_path):
    """Partial messages merged by name, a repeated joint name refused, unknown joints reported
    (the times a recording's messages get: test_recording_files.py)."""
    model = RobotModel.from_urdf_string(ER.estimator_urdf(), base_link=ER.BASE, tip_link=ER.TIP)
    pipeline = EstimationPipeline(model)
    names = list(model.joint_names)
    q, zero = ER.HOME, np.zeros(7)
    tau = model.gravity_torques(q)
    finger = np.zeros(1)
    msgs = [
        JointStateMessage(0, 1_000_000, names[:4], q[:4], zero[:4], tau[:4]),
        JointStateMessage(
            0, 1_000_000, names[4:] + ["finger"], np.r_[q[4:], finger], np.zeros(4),
            np.r_[tau[4:], finger],
        ),
        JointStateMessage(2_000_000, 2_000_000, names, q, zero, tau),
        JointStateMessage(
            3_000_000, 3_000_000, names + [names[0]], np.r_[q, finger], np.zeros(8),
            np.r_[tau, finger],
        ),
        JointStateMessage(4_000_000, 4_000_000, names, q, zero, tau[:3]),  # wrong length
        JointStateMessage(5_000_000, 5_000_000, names[::-1], q[::-1], zero, tau[::-1]),
    ]  # fmt: skip
    result = replay(pipeline, msgs)
    assert list(result.stamp_ns) == [
        1_000_000,
        1_000_000,
        2_000_000,
        3_000_000,
        4_000_000,
        5_000_000,
    ]
    assert list(result.status) == [1, 1, 0, 2, 2, 0]  # waiting, same stamp, ok, refused x2, ok
    assert result.unknown_joints == ("finger",)
    # a joint the model locked is not unknown (as a mimic joint is not)
    locked = RobotModel.from_urdf_string(
        ER.estimator_urdf(), base_link=ER.BASE, tip_link=ER.TIP, locked_joints={names[6]: 0.0}
    )
    assert "finger" in replay(EstimationPipeline(locked), msgs).unknown_joints
    assert names[6] not in replay(EstimationPipeline(locked), msgs).unknown_joints
    assert any("appears twice" in reason for reason in result.refusals)
    assert any("effort has 3 values" in reason for reason in result.refusals)  # the first one
    np.testing.assert_allclose(result.external_torques[[2, 5]], 0.0, atol=1e-9)


# ------------------------------------------------------------------ errors
def test_errors_exit_codes_and_messages(arm, free_run, pushed, tmp_path, capsys):
    _, urdf, params = arm
    _, data = free_run
    out = str(tmp_path / "x")
    bad = tmp_path / "bad.yaml"
    bad.write_text("/**:\n  ros__parameters:\n    observer_gain: -50.0\n")
    code, _, err = run(capsys, "estimate", urdf, data, "--params", str(bad), "--out", out)
    assert code == 2 and str(bad) in err and "observer_gain" in err and "must be > 0.0" in err
    code, text, _ = run(
        capsys, "estimate", urdf, data, "--params", str(bad), "--out", out, "--json"
    )
    answer = json.loads(text)
    assert code == 2 and answer["ok"] is False and answer["exit_code"] == 2
    assert "observer_gain" in answer["error"]
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("/**:\n  ros__parameters:\n    contact:\n      force_onn: 2.0\n")
    code, _, err = run(capsys, "estimate", urdf, data, "--params", str(unknown), "--out", out)
    assert code == 2 and "contact.force_onn" in err and "did you mean contact.force_on" in err
    code, _, err = run(
        capsys, "estimate", urdf, data, "--params", str(tmp_path / "no.yaml"), "--out", out
    )
    assert code == 2 and "cannot read parameters file" in err
    code, _, err = run(capsys, "estimate", urdf, data, "--params", params, "--out", data[:-4])
    assert code == 2 and "would overwrite the input" in err
    short = tmp_path / "short.yaml"
    short.write_text(parameters_yaml({"tip_link": "tool", "effort_offset": [0.1, 0.2]}))
    code, _, err = run(capsys, "estimate", urdf, data, "--params", str(short), "--out", out)
    assert code == 2 and "effort_offset has 2 values" in err and str(short) in err
    novelocity = tmp_path / "novelocity.csv"
    lines = open(data).read().splitlines()
    header = lines[0].split(",")
    keep = [i for i, h in enumerate(header) if not h.endswith(".velocity")]
    novelocity.write_text("\n".join(",".join(r.split(",")[i] for i in keep) for r in lines[:50]))
    code, _, err = run(capsys, "estimate", urdf, str(novelocity), "--params", params, "--out", out)
    assert code == 2 and "velocity" in err
    for argv, fragment in [
        (["--free", "3"], "START:END"),
        (["--free", "5:2"], "START must be before END"),
        (["--free", "100:200"], "no message with an estimate in the --free ranges"),
        (["--margin", "1.0"], "argument --margin: must be a finite number > 1, got '1.0'"),
    ]:
        code, _, err = run(capsys, "estimate", urdf, data, "--params", params, "--out", out, *argv)
        assert code == 2 and fragment in err, (argv, err)
    for target, argv, fragment in [
        (pushed[1], ["--topic", "/other"], "has no topic '/other'; its topics: /joint_states"),
        (str(tmp_path / "missing"), [], "no such bag"),
    ]:
        code, _, err = run(
            capsys, "estimate", urdf, target, "--params", params, "--out", out, *argv
        )
        assert code == 2 and fragment in err, err


def _with_finger(folder, mass=None):
    """The arm's description with a prismatic finger on its tool (massless, or of ``mass`` kg)."""
    inertial = (
        ""
        if mass is None
        else f'<inertial><mass value="{mass}"/><origin xyz="0 0 0"/>'
        '<inertia ixx="1e-5" iyy="1e-5" izz="1e-5" ixy="0" ixz="0" iyz="0"/></inertial>'
    )
    path = folder / "gripper.urdf"
    path.write_text(
        ER.estimator_urdf().replace(
            "</robot>",
            f'<link name="finger">{inertial}</link><joint name="finger_joint" type="prismatic">'
            '<parent link="tool"/><child link="finger"/><axis xyz="0 1 0"/>'
            '<limit lower="0" upper="0.04" effort="20" velocity="0.2"/></joint></robot>',
        )
    )
    return path


def test_a_gripper_the_recording_lacks_is_locked_from_the_parameters_file(
    arm, free_run, free_estimate, tmp_path, capsys
):
    """The arm's description with a massless finger on its tool that the recording never
    carries: the arm's per-joint parameters do not fit the model; without them, the reader
    refuses the recording and says locked_joints would load the finger as fixed; with
    locked_joints in the parameters file, the estimate is the arm's own."""
    folder, _, _ = arm
    _, data = free_run
    gripper = _with_finger(tmp_path)
    values = ER.node_parameters()  # per-joint values of the arm's 7 joints
    params = tmp_path / "arm.yaml"
    params.write_text(parameters_yaml(values))
    out = str(tmp_path / "x")
    code, _, err = run(
        capsys, "estimate", str(gripper), data, "--params", str(params), "--out", out
    )
    assert code == 2 and "armature has 7 values, the model has 8 joints" in err, err
    params.write_text(parameters_yaml({"tip_link": values["tip_link"]}))
    code, _, err = run(
        capsys, "estimate", str(gripper), data, "--params", str(params), "--out", out
    )
    assert code == 2 and "lacks columns ['finger_joint.position', 'finger_joint.effort']" in err
    assert "the parameter locked_joints loads them as fixed joints" in err
    locked = tmp_path / "locked.yaml"
    locked.write_text(parameters_yaml({**values, "locked_joints": ["finger_joint=0.02"]}))
    summary = ER.estimate_json(
        str(gripper),
        data,
        "--params",
        str(locked),
        "--out",
        out,
        "--free",
        "0.5:",
        "--stamps",
        "recorded",
    )
    assert summary["phantom"] == free_estimate[0]["phantom"]


def test_a_joint_whose_effort_is_always_0_is_named_with_the_fix(
    arm, free_run, free_estimate, tmp_path, capsys
):
    """A finger the recording carries with an effort of exactly 0 in every message (a gripper
    driver that measures none) is named, with locked_joints as the fix; the arm's joints, whose
    efforts vary, are not; a recording of the arm alone names none."""
    _, data = free_run
    gripper = _with_finger(tmp_path, mass=0.1)
    rows = read_csv(data)
    recording = tmp_path / "with_finger.csv"
    with open(recording, "w", newline="") as f:
        fields = list(rows[0]) + [f"finger_joint.{x}" for x in ("position", "velocity", "effort")]
        writer = csv.DictWriter(f, fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "finger_joint.position": 0.02, "finger_joint.velocity": 0.0,
                             "finger_joint.effort": 0.0})  # fmt: skip
    params = tmp_path / "tip.yaml"
    params.write_text(parameters_yaml({"tip_link": ER.TIP}))
    out = str(tmp_path / "x")
    argv = [str(gripper), str(recording), "--params", str(params), "--out", out]
    summary = ER.estimate_json(*argv, "--free", "0.5:")
    assert summary["constant_efforts"] == {"finger_joint": "effort exactly 0 in every message"}
    code, text, _ = run(capsys, "estimate", *argv, "--free", "0.5:")
    assert code == 0
    assert "joints whose effort is no measurement (finger_joint: effort exactly 0" in text
    assert "load them as fixed with the locked_joints parameter" in text
    assert free_estimate[0]["constant_efforts"] == {}


def test_a_recording_in_which_no_effort_is_measured_is_refused(arm, free_run, tmp_path, capsys):
    """Every joint's effort exactly 0 in every message (a driver without its effort interface,
    an arm not powered): the external torques would be the model's torques, so no statistics and
    no contact levels are written; the error says why and what to record."""
    _, urdf, params = arm
    _, data = free_run
    rows = read_csv(data)
    recording = tmp_path / "no_effort.csv"
    with open(recording, "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: 0.0 if k.endswith(".effort") else v for k, v in row.items()})
    out = tmp_path / "x"
    code, _, err = run(
        capsys, "estimate", urdf, str(recording), "--params", params, "--out", str(out)
    )
    assert code == 2, err
    assert "no joint's effort is a measurement (effort exactly 0 in every message" in err
    assert "nothing to estimate" in err and "arm powered" in err
    assert not list(tmp_path.glob("x*"))


def _scaled_efforts(rows, path, scale):
    """The recording with each joint's effort times ``scale[joint]`` (a driver's unit)."""
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {
                    k: float(v) * scale.get(k[: -len(".effort")], 1.0) if k.endswith(".effort")
                    else v
                    for k, v in row.items()
                }
            )  # fmt: skip
    return str(path)


def test_no_wrench_without_a_tip_is_said_with_the_fix(arm, free_run, tmp_path):
    """A description whose chains end in two leaves on the last body (no tool0, no tool centre
    point): no tip, no wrench; a warning names the leaves and the fix (--tip-link), and the
    external joint torques are still estimated."""
    folder, _, params = arm
    _, data = free_run
    text = ER.estimator_urdf().replace(
        "</robot>",
        '  <link name="camera_mount"/>\n  <joint name="camera_joint" type="fixed">'
        '<parent link="panda_hand"/><child link="camera_mount"/></joint>\n</robot>',
    )
    urdf = folder / "two_leaves.urdf"
    urdf.write_text(text)
    file = tmp_path / "no_tip.yaml"
    values = {k: v for k, v in ER.node_parameters().items() if k != "tip_link"}
    file.write_text(parameters_yaml(values))
    summary = ER.estimate_json(str(urdf), data, "--params", str(file), "--out", str(tmp_path / "x"))
    (warning,) = [w for w in summary["warnings"] if w.startswith("no-wrench:")]
    assert "camera_mount" in warning and "give --tip-link LINK" in warning
    assert summary["wrench_frame"] == "" and summary["estimated"] > 0


def test_efforts_in_another_unit_than_the_models_are_warned_about(
    arm, free_run, free_estimate, tmp_path, capsys
):
    """A driver reporting twice the torque on every joint, replayed without the effort_scale
    that says so (the parameters file identify wrote left out), reads every force twice: a
    warning gives the scale, about x2, and the effort_scale to set; with it set, or on the
    recording as it is, no warning and every joint's ratio near 1. One joint ten times off (its
    current, not its torque) is named alone; one joint negated (wired backwards) is named as of
    the other sign, with the effort_scale that fixes it, and that effort_scale set, no
    warning."""
    _, urdf, params = arm
    _, data = free_run
    rows = read_csv(data)
    summary = free_estimate[0]
    assert not summary.get("warnings")
    assert np.allclose(summary["model_torque_ratio"], 1.0, atol=0.2)

    doubled = _scaled_efforts(rows, tmp_path / "doubled.csv", dict.fromkeys(ER.JOINT_NAMES, 2.0))
    out = str(tmp_path / "x")
    code, _, err = run(capsys, "estimate", urdf, doubled, "--params", params, "--out", out)
    assert code == 0
    ratios = np.array(
        ER.estimate_json(urdf, doubled, "--params", params, "--out", out)["model_torque_ratio"]
    )
    # the wrist's last joint, whose small torques friction hides, may not show it
    assert np.median(ratios) == pytest.approx(2.0, rel=0.1)
    assert np.count_nonzero(np.abs(np.log(ratios / 2)) < np.log(1.3)) >= 6
    assert f"are the model's times one scale, about x{np.median(ratios):.3g}" in err
    assert "Set effort_scale in a --params file: the drives' torque per unit of effort" in err
    assert "1 / the ratio, about 0.5" in err and err.count("warning: effort-scale") == 1

    scaled = tmp_path / "scaled.yaml"
    scaled.write_text(parameters_yaml({**ER.node_parameters(), "effort_scale": [0.5] * 7}))
    summary = ER.estimate_json(urdf, doubled, "--params", str(scaled), "--out", out)
    assert not summary.get("warnings")
    assert np.allclose(summary["model_torque_ratio"], 1.0, atol=0.2)

    current = _scaled_efforts(rows, tmp_path / "current.csv", {"panda_joint2": 10.0})
    code, _, err = run(capsys, "estimate", urdf, current, "--params", params, "--out", out)
    assert code == 0
    assert "the measured torques are not the model's in size: panda_joint2 x" in err
    assert "panda_joint1 x" not in err

    # panda_joint4 wired backwards: named as of the other sign (not out of size), with the
    # effort_scale that fixes it; that effort_scale set, no warning
    flipped = _scaled_efforts(rows, tmp_path / "flipped.csv", {"panda_joint4": -1.0})
    code, _, err = run(capsys, "estimate", urdf, flipped, "--params", params, "--out", out)
    assert code == 0 and err.count("warning: effort-scale") == 1, err
    assert "the measured torques of panda_joint4 x-1" in err, err
    assert "the model's with the other sign" in err and "not the model's in size" not in err
    assert "effort_scale: [1, 1, 1, -1, 1, 1, 1]" in err, err
    fixed = tmp_path / "fixed.yaml"
    fixed.write_text(
        parameters_yaml({**ER.node_parameters(), "effort_scale": [1.0, 1, 1, -1, 1, 1, 1]})
    )
    summary = ER.estimate_json(urdf, flipped, "--params", str(fixed), "--out", out)
    assert not summary.get("warnings")
    assert np.allclose(summary["model_torque_ratio"], 1.0, atol=0.2)
