"""The demo's script, analysis and display on constructed data: plain pytest, no ROS, no DDS.

The analysis gets recordings whose answer is known: the applied wrench of the push script, an
"estimate" that follows it as a first-order lag (the momentum observer's response, time constant
1/gain), published as a force-torque sensor at the tip would (tip axes); a pendulum trajectory from
the core's integrator.
"""

import argparse
import io
import math

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.tools.bundled import BUNDLED, bundled_urdf_path
from robot_dynamics.tools.demo import analysis, display
from robot_dynamics.tools.demo.analysis import Recording
from robot_dynamics.tools.demo.script import phase_at, push_script

Q0 = np.array(BUNDLED["panda"].home)


@pytest.fixture(scope="module")
def panda():
    return RobotModel.from_urdf_file(bundled_urdf_path("panda"), tip_link="tool")


def to_frame(model, wrench_base_at_tip, frame, q):
    """By hand, the inverse of what the analysis does: a wrench in base axes about the tip
    origin as a sensor at ``frame`` reads it (frame axes, moment about the frame origin)."""
    pose = model.frame_pose(q, frame=frame)
    p_tip = model.frame_pose(q, frame="tool")[:3, 3]
    f, n_tip = wrench_base_at_tip[:3], wrench_base_at_tip[3:]
    n_frame = n_tip + np.cross(p_tip - pose[:3, 3], f)  # moment about the frame origin
    rot = pose[:3, :3]
    return np.concatenate([rot.T @ f, rot.T @ n_frame])


@pytest.mark.parametrize("frame", ["tool", "panda_link0", "panda_link5"])
def test_estimates_in_base_at_tip(panda, frame):
    rng = np.random.default_rng(3)
    q = Q0 + rng.normal(scale=0.3, size=(4, 7))
    w = rng.normal(size=(4, 6))
    reported = np.array([to_frame(panda, w[k], frame, q[k]) for k in range(4)])
    back = analysis.estimates_in_base_at_tip(panda, reported, frame, "tool", q)
    np.testing.assert_allclose(back, w, atol=1e-12)
    # one sample (no batch axis) too
    np.testing.assert_allclose(
        analysis.estimates_in_base_at_tip(panda, reported[0], frame, "tool", q[0]), w[0], atol=1e-12
    )


def test_align_seconds_rate():
    stamps_b = np.array([10, 20, 30])
    values = np.array([[1.0], [2.0], [3.0]])
    np.testing.assert_array_equal(
        analysis.align(np.array([5, 10, 25, 99]), stamps_b, values)[:, 0], [1.0, 1.0, 2.0, 3.0]
    )
    np.testing.assert_allclose(
        analysis.seconds([2_000_000_000, 2_500_000_000], 1_000_000_000), [1.0, 1.5]
    )
    assert analysis.rate(np.arange(0.0, 1.0, 0.004)) == pytest.approx(250.0)
    assert math.isnan(analysis.rate(np.array([0.0, 1.0])))


def test_sag_solves_the_impedance_equation(panda):
    stiffness = np.full(7, 200.0)
    sag = analysis.sag_without_gravity_compensation(panda, Q0, stiffness)
    # the fixed point: K (q0 - q) = g(q); recompute q by the same equation and compare the tool
    q = Q0.copy()
    for _ in range(200):
        q = Q0 - panda.gravity_torques(q) / stiffness
    np.testing.assert_allclose(stiffness * (Q0 - q), panda.gravity_torques(q), atol=1e-9)
    expected = np.linalg.norm(panda.frame_pose(q)[:3, 3] - panda.frame_pose(Q0)[:3, 3])
    assert sag == pytest.approx(expected, rel=1e-6) and sag > 1e-3


def push_recording(model, duration=6.0, rate=250.0, tau=0.02, t0_ns=5_000_000_000, gap=None):
    """A push run: the held pose, the script's applied wrench on the simulator's stamps, and a
    first-order-lag estimate (time constant tau) reported in the tip's axes."""
    script = push_script(duration, 10.0, 5.0, 1.0)
    dt = 1.0 / rate
    t = np.arange(-0.5, duration, dt)
    rec = Recording()
    est = np.zeros(6)
    for tk in t:
        stamp = t0_ns + int(round(tk * 1e9))
        applied = phase_at(script, tk).wrench if tk >= 0 else np.zeros(6)
        rec.js_stamp.append(stamp)
        rec.js_q.append(Q0.copy())
        rec.js_qd.append(np.zeros(7))
        rec.js_effort.append(np.zeros(7))
        rec.app_stamp.append(stamp)
        rec.app_wrench.append(applied)
        if gap is not None and gap[0] <= tk < gap[1]:
            continue  # the node got no CPU: no estimates
        est = applied + (est - applied) * math.exp(-dt / tau)
        rec.est_stamp.append(stamp)
        rec.est_wrench.append(to_frame(model, est, "tool", Q0))
    rec.est_frame = "tool"
    return rec, script, t0_ns


def test_analyse_push_on_a_known_response(panda):
    rec, script, t0_ns = push_recording(panda)
    s = analysis.analyse_push(
        rec, panda, Q0, np.full(7, 300.0), "tool", script, t0_ns, 0.5, 0.05, 0.5, 0.1
    )
    names = [p["phase"] for p in s["pushes"]]
    assert names == [
        "push 10 N down",
        "released",
        "push 5 N sideways + 1 N m twist",
        "released",
    ]
    # a first-order lag enters the band |err| <= max(5 % of the step, tolerance) after
    # tau ln(step / band); the samples are 4 ms apart and the one at the step has already decayed
    # by one sample
    expected = {
        0: 0.02 * math.log(10.0 / 0.5),
        1: 0.02 * math.log(10.0 / 0.5),
        2: max(0.02 * math.log(5.0 / 0.5), 0.02 * math.log(1.0 / 0.05)),
        3: max(0.02 * math.log(5.0 / 0.5), 0.02 * math.log(1.0 / 0.05)),
    }
    for k, push in enumerate(s["pushes"]):
        assert expected[k] - 0.004 - 1e-9 <= push["convergence_time_s"] <= expected[k], push
    # after convergence (and 0.3 s) the lag's error is e^-15 of the step: zero to print precision
    assert max(s["steady_error_max"]) < 1e-5
    assert s["pose_drift_hold_mm"] == 0.0 and s["deflection_under_push_max_mm"] == 0.0
    assert s["observer_restarts"] == 0
    assert s["rates_hz"]["estimates"] == pytest.approx(250.0)
    assert s["sag_without_gravity_compensation_mm"] > 0.0
    assert s["pushes_not_evaluated"] == []
    assert analysis.push_passed(s, 0.5, 0.05)
    assert not analysis.push_passed(s, 0.5, 1e-9)  # the tolerances count


def test_analyse_push_counts_observer_restarts(panda):
    # no estimates for 0.6 s in the middle of the first push: one restart, 0.1 s left out after it
    rec, script, t0_ns = push_recording(panda, gap=(2.5, 3.1))
    s = analysis.analyse_push(
        rec, panda, Q0, np.full(7, 300.0), "tool", script, t0_ns, 0.5, 0.05, 0.5, 0.1
    )
    assert s["observer_restarts"] == 1
    assert s["longest_estimate_gap_ms"] == pytest.approx(604.0, abs=0.5)
    assert s["pushes_not_evaluated"] == []


def test_a_push_without_estimates_is_reported_not_evaluated(panda):
    # no estimate while the sideways push is applied (3.5 s to 5 s): it cannot be checked, and
    # the summary says so instead of leaving it out
    rec, script, t0_ns = push_recording(panda, gap=(3.4, 5.1))
    s = analysis.analyse_push(
        rec, panda, Q0, np.full(7, 300.0), "tool", script, t0_ns, 0.5, 0.05, 0.5, 0.1
    )
    assert [p["phase"] for p in s["pushes"]] == ["push 10 N down", "released", "released"]
    assert s["pushes_not_evaluated"] == ["push 5 N sideways + 1 N m twist"]
    assert not analysis.push_passed(s, 0.5, 0.05)
    s.update(
        duration_s=6.0,
        setup_time_s=1.0,
        total_time_s=8.0,
        integration_rate_hz=1000.0,
        passed=False,
        plot="demo.png",
        summary_json="demo.json",
    )
    args = argparse.Namespace(force_tolerance=0.5, torque_tolerance=0.05, impedance_hz=2.0)
    out = io.StringIO()
    display.print_summary(s, "panda", False, args, out)
    text = out.getvalue()
    assert "push 5 N sideways + 1 N m twist" in text and "not evaluated" in text, text
    assert "result: FAIL" in text


def test_analyse_pendulum_on_the_cores_trajectory():
    model = RobotModel.from_urdf_file(
        bundled_urdf_path("double_pendulum"), gravity=(0.0, -9.81, 0.0)
    )
    q0 = np.zeros(2)
    ref = model.simulate(q0, np.zeros(2), 2.0, rtol=1e-10, atol=1e-12, sample_dt=0.004)
    t0_ns = 1_000_000_000
    rec = Recording()
    for tk, q, qd in zip(ref.t, ref.q, ref.qd):
        rec.js_stamp.append(t0_ns + int(round(tk * 1e9)))
        rec.js_q.append(q)
        rec.js_qd.append(qd)
        rec.js_effort.append(np.zeros(2))
        rec.est_stamp.append(rec.js_stamp[-1])
        rec.est_wrench.append(np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0]))
        rec.ext_stamp.append(rec.js_stamp[-1])
        rec.ext_tau.append(np.array([0.5, -0.25]))
    s = analysis.analyse_pendulum(rec, model, q0, t0_ns, compare_s=1.0)
    assert s["energy_drift_relative_to_max_kinetic"] < 1e-6
    assert s["max_joint_deviation_from_rk45_rad"] < 1e-6
    assert s["max_kinetic_energy_J"] > 100.0
    assert s["max_false_force_N"] == 0.0
    assert s["max_false_joint_torque_Nm"] == 0.5
    assert s["rms_false_joint_torque_Nm"] == pytest.approx(math.sqrt((0.25 + 0.0625) / 2))


def test_push_script_phases():
    script = push_script(6.0, 10.0, 5.0, 1.0)
    assert [(p.start, p.end) for p in script] == [
        (0.0, 1.0),
        (1.0, 2.5),
        (2.5, 3.5),
        (3.5, 5.0),
        (5.0, 6.0),
    ]
    assert [p.is_push for p in script] == [False, True, False, True, False]
    np.testing.assert_array_equal(script[3].wrench, [0, 5, 0, 0, 0, 1])
    assert phase_at(script, 1.2) is script[1] and phase_at(script, 99.0) is script[-1]


def test_display_lines_and_modes():
    lines, plain = display.push_lines(
        8.2, 12.0, "push", np.array([0, 5, 0, 0, 0, 1.0]), np.array([0, 4.9, 0, 0, 0, 1.0]), 7.5, 80
    )
    assert lines[1].split() == ["wrench", "fx", "[N]", "fy", "[N]", "fz", "[N]"] + [
        "tx[Nm]",
        "ty[Nm]",
        "tz[Nm]",
    ]
    assert lines[4].split()[:3] == ["error", "0.00", "-0.10"]
    assert "estimate 80 ms behind" in lines[0] and "tool 7.50 mm" in plain
    lines, plain = display.pendulum_lines(1.0, 10.0, np.zeros(2), np.ones(2), 1.0, 0.0, None)
    assert lines[-1].split()[:2] == ["estimated", "-"]
    assert display.fmt(float("nan")) == "n/a" and display.fmt(1.23456, ".2f") == "1.23"
    # plain output: one line per simulated second, at 0.5 s, 1.5 s, ...
    plain_view = display.Display(io.StringIO(), live=False)
    due = [t for t in np.arange(0.0, 3.0, 0.1) if plain_view.due(0.0, t)]
    np.testing.assert_allclose(due, [0.5, 1.5, 2.5])
    # terminal: redrawn in place (cursor up over the previous table)
    stream = io.StringIO()
    live = display.Display(stream, live=True)
    live.show(["a", "b"], "plain")
    live.show(["c", "d"], "plain")
    assert stream.getvalue() == "\x1b[2Ka\n\x1b[2Kb\n\x1b[2F\x1b[2Kc\n\x1b[2Kd\n"


def test_demo_settings_from_a_xacro_file_and_bad_options(tmp_path):
    """The demo resolves --urdf as the CLI does (xacro with --xacro-arg); no DDS needed."""
    from robot_dynamics.tools.demo import DemoError, build_parser, demo_settings

    xacro = tmp_path / "arm.urdf.xacro"
    xacro.write_text(
        """<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="arm">
  <xacro:arg name="mass" default="1.0"/>
  <link name="base"/>
  <link name="l1"><inertial><origin xyz="0.2 0 0"/><mass value="$(arg mass)"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <link name="tool"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="3"/></joint>
  <joint name="t" type="fixed"><parent link="l1"/><child link="tool"/>
    <origin xyz="0.4 0 0"/></joint>
</robot>"""
    )
    args = build_parser().parse_args(["--urdf", str(xacro), "--xacro-arg", "mass:=4.0"])
    setup, sim_params, node_params, duration, rate = demo_settings(args)
    assert setup.name == "arm.urdf.xacro" and setup.tip_link == "tool"
    assert setup.model.total_mass == pytest.approx(4.0)
    assert "xacro" not in node_params["robot_description"]
    assert node_params["wrench_frame"] == "tool" and sim_params["external_wrench_axes"] == "base"
    assert (duration, rate) == (12.0, 1000.0)
    with pytest.raises(DemoError, match="bundled robots are panda, double_pendulum") as info:
        demo_settings(build_parser().parse_args(["--robot", "nope"]))
    assert info.value.code == 2
    with pytest.raises(DemoError, match="is not of the form name:=value") as info:
        demo_settings(build_parser().parse_args(["--urdf", str(xacro), "--xacro-arg", "mass"]))
    assert info.value.code == 2


def test_demo_parameters_files_are_what_the_nodes_read(tmp_path):
    """The demo's two parameters files, written by the schema's writer: the dynamics node's file
    reads back as its values; the simulator's holds its values (the URDF text included); an
    option the node would refuse is a usage error naming the parameter."""
    import yaml

    from robot_dynamics.tools.demo import DemoError, build_parser, demo_settings
    from robot_dynamics.tools.demo.settings import write_parameter_files
    from robot_dynamics.tools.params_file import read_parameters_file

    args = build_parser().parse_args(["--robot", "panda", "--sim-time"])
    setup, sim_params, node_params, _, _ = demo_settings(args)
    paths = write_parameter_files(str(tmp_path), sim_params, node_params)
    assert set(paths) == {"arm_simulator", "dynamics_node"}
    read = read_parameters_file(paths["dynamics_node"])
    ros_own = {"use_sim_time"} | {n for n in node_params if n.startswith("qos_overrides.")}
    assert read.given == set(node_params) - ros_own
    for name in read.given:
        assert read.values[name] == node_params[name], name
    ((section, body),) = yaml.safe_load(open(paths["dynamics_node"])).items()
    assert section == "/**" and body["ros__parameters"]["use_sim_time"] is True
    assert body["ros__parameters"]["qos_overrides"]["/joint_states"]["subscription"] == {
        "reliability": "reliable",
        "depth": 200,
    }

    def flat(tree, prefix=""):
        for key, value in tree.items():
            if isinstance(value, dict):
                yield from flat(value, prefix + key + ".")
            else:
                yield prefix + key, value

    ((section, body),) = yaml.safe_load(open(paths["arm_simulator"])).items()
    assert section == "/**"
    assert dict(flat(body["ros__parameters"])) == sim_params
    assert "integration_rate: 1000.0  # [Hz]" in open(paths["arm_simulator"]).read()
    with pytest.raises(DemoError, match="dynamics_node: .*observer_gain: must be > 0") as info:
        write_parameter_files(str(tmp_path), sim_params, dict(node_params, observer_gain=-1.0))
    assert info.value.code == 2
    with pytest.raises(DemoError, match="arm_simulator: .*'publish_rat' is not a parameter of the"):
        write_parameter_files(str(tmp_path), dict(sim_params, publish_rat=1.0), node_params)


def test_schedule_gives_every_phase_its_full_length_as_applied():
    """The demo sees the simulator late (lag) and its messages take effect late (delay): each
    phase still lasts its length from when it was applied, and as_run() says when that was."""
    from robot_dynamics.tools.demo.script import Schedule

    script = push_script(12.0, 10.0, 5.0, 1.0)  # lengths 2, 3, 2, 3, 2
    schedule = Schedule(script)
    delay = 0.3  # a sent wrench is applied this much later (simulated time)
    applied = []  # (stamp, wrench) the simulator applied, as the monitor would record it
    current, pending, sent = np.zeros(6), None, []
    t = 0.0
    while not schedule.done and t < 60.0:
        # the simulator: apply what was sent `delay` ago
        while sent and sent[0][0] + delay <= t:
            pending = sent.pop(0)[1]
        if pending is not None:
            current = pending
        applied.append((t, current.copy()))
        seen = None
        if len(schedule.starts) <= schedule.index:
            seen = next(
                (
                    s
                    for s, w in applied
                    if s >= schedule.sent_at and np.allclose(w, schedule.phase.wrench)
                ),
                None,
            )
        phase = schedule.update(t, seen)
        if not schedule.done:
            sent.append((t, phase.wrench))
        t = round(t + 0.004, 6)
    run = schedule.as_run()
    assert [p.name for p in run] == [p.name for p in script]
    for nominal, actual in zip(script, run):
        assert actual.end - actual.start == pytest.approx(nominal.end - nominal.start)
    # each push began `delay` (+ one sample) after the previous phase ended, and the applied
    # record agrees with the as-run phases
    for previous, phase in zip(run, run[1:]):
        assert delay - 1e-9 <= phase.start - previous.end <= delay + 0.0081
    stamps = np.array([s for s, _ in applied])
    wrenches = np.array([w for _, w in applied])
    for phase in run:
        inside = (stamps >= phase.start) & (stamps < phase.end)
        assert np.allclose(wrenches[inside], phase.wrench), phase.name
    assert t >= run[-1].end
