"""The main-job demo, shortened, run as a user runs it (``python -m robot_dynamics.tools.demo``):
three processes over real DDS (arm_simulator, dynamics_node, the demo's monitor).

Stated tolerances (the same the demo's PASS line uses):
* the pushes (10 N down; 5 N sideways + 1 N m twist) are recovered, after convergence, to within
  0.5 N per force axis and 0.05 N m per torque axis; each converges within 0.5 s;
* the held pose (tool position) drifts less than 0.5 mm while holding and after the releases.
* double pendulum: energy drift of the 4 kHz fixed step below 2 % of the largest kinetic energy.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from robot_dynamics.tools.plotting import is_png, png_size
from tools_helpers import UR_SHAPE_URDF, erd_urdf_path

pytestmark = [pytest.mark.ros, pytest.mark.slow]
pytest.importorskip("rclpy")


def run_demo(tmp_path, unique_name, *extra, timeout=180):
    plot = tmp_path / "demo.png"
    argv = [
        sys.executable,
        "-m",
        "robot_dynamics.tools.demo",
        "--no-live",
        "--plot",
        str(plot),
        "--namespace",
        "/" + unique_name,
        *extra,
    ]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=str(tmp_path))
    summary_path = tmp_path / "demo.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else None
    return out, plot, summary


def test_demo_push_recovered_and_pose_held(tmp_path, unique_name):
    out, plot, s = run_demo(tmp_path, unique_name, "--duration", "4")
    assert out.returncode == 0, out.stdout + out.stderr
    assert s is not None and s["passed"] is True, out.stdout
    # what the user sees: the live lines and the summary
    assert "push 10 N down" in out.stdout and "summary (panda" in out.stdout
    assert "result: PASS" in out.stdout
    err_max = np.asarray(s["steady_error_max"])
    assert np.all(err_max[:3] <= 0.5), s
    assert np.all(err_max[3:] <= 0.05), s
    # push down, release, push sideways + twist, release (a release the demo process could not
    # start on time, CPU-starved, merges into the next push: the segments are what was applied)
    names = [push["phase"] for push in s["pushes"]]
    assert "push 10 N down" in names and "push 5 N sideways + 1 N m twist" in names, names
    assert names[-1] == "released"
    for push in s["pushes"]:
        assert 0.0 <= push["convergence_time_s"] <= 0.5, push
    assert s["pose_drift_hold_mm"] < 0.5 and s["pose_drift_final_mm"] < 0.5, s
    # the pushes really moved the compliant arm, and gravity compensation is what holds it
    assert s["deflection_under_push_max_mm"] > 1.0
    assert s["sag_without_gravity_compensation_mm"] > 5.0
    assert s["samples"]["estimates"] > 200 and s["samples"]["joint_states"] > 500
    assert is_png(str(plot))
    width, height = png_size(str(plot))
    assert width >= 800 and height >= 600
    assert os.path.getsize(plot) > 30_000


def test_demo_double_pendulum_energy(tmp_path, unique_name):
    out, plot, s = run_demo(tmp_path, unique_name, "--robot", "double_pendulum", "--duration", "2")
    assert out.returncode == 0, out.stdout + out.stderr
    assert s["max_kinetic_energy_J"] > 100.0  # it swings
    assert s["energy_drift_relative_to_max_kinetic"] < 0.02, s
    assert s["max_joint_deviation_from_rk45_rad"] < 0.01, s
    assert "energy: start" in out.stdout
    assert is_png(str(plot))


def test_demo_bad_arguments(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "robot_dynamics.tools.demo", "--robot", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(tmp_path),
    )
    assert out.returncode == 2 and "bundled robots are panda, double_pendulum" in out.stderr
    out = subprocess.run(
        [sys.executable, "-m", "robot_dynamics.tools.demo", "--urdf", str(tmp_path / "x.urdf")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(tmp_path),
    )
    assert out.returncode == 2 and "no such file" in out.stderr


def test_demo_in_simulated_time(tmp_path, unique_name):
    """--sim-time: arm_simulator publishes /clock and stamps simulated time from 0, the dynamics
    node runs with use_sim_time; the pushes are recovered all the same."""
    out, plot, s = run_demo(tmp_path, unique_name, "--sim-time", "--duration", "3")
    assert out.returncode == 0, out.stdout + out.stderr
    assert s["passed"] is True, out.stdout
    names = [push["phase"] for push in s["pushes"]]
    assert "push 10 N down" in names and "push 5 N sideways + 1 N m twist" in names, names


def test_demo_on_a_user_urdf(tmp_path, unique_name):
    """--urdf: a UR5 (example-robot-data, leaves ee_link, tool0, base) runs on tool0; a tree
    where no tip can be chosen needs --tip-link, and the message names the candidates."""
    no_tool0 = tmp_path / "no_tool0.urdf"
    no_tool0.write_text(UR_SHAPE_URDF.replace('"tool0"', '"sensor_mount"'))
    out = subprocess.run(
        [sys.executable, "-m", "robot_dynamics.tools.demo", "--urdf", str(no_tool0), "--no-live"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(tmp_path),
    )
    assert out.returncode == 2 and "--tip-link" in out.stderr, out.stderr
    assert "sensor_mount" in out.stderr and "ft_frame" in out.stderr
    ur5 = erd_urdf_path("ur_description", "urdf", "ur5_robot.urdf")
    out, plot, s = run_demo(
        tmp_path,
        unique_name,
        "--urdf",
        ur5,
        "--q0",
        "0",
        "-1.2",
        "1.2",
        "-1.57",
        "-1.57",
        "0",
        "--duration",
        "3",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert s["robot"] == "ur5_robot.urdf" and s["tip_link"] == "tool0" and s["passed"] is True
    assert is_png(str(plot))


def test_the_monitor_records_applied_wrenches_in_base_axes_in_stamp_order(unique_name):
    """~/applied_wrench comes in the tool's axes; the monitor rotates each sample into base axes
    with the joint state of its stamp, also when the wrench arrives before its state, and keeps
    the samples in stamp order."""
    from builtin_interfaces.msg import Time
    from geometry_msgs.msg import WrenchStamped
    from sensor_msgs.msg import JointState

    from robot_dynamics import RobotModel
    from robot_dynamics.ros.conversions import wrench_to_msg
    from robot_dynamics.tools.bundled import BUNDLED, bundled_urdf_path
    from robot_dynamics.tools.demo.monitor import Monitor

    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"), tip_link="tool")
    home = np.array(BUNDLED["panda"].home)
    monitor = Monitor("/" + unique_name, model)
    try:
        w_base = np.array([1.0, -2.0, -10.0, 0.1, 0.2, -0.3])

        def stamp(k):
            return Time(sec=1, nanosec=1_000_000 * k)

        def state(k, q):
            msg = JointState(name=list(model.joint_names), position=list(q), velocity=[0.0] * 7)
            msg.header.stamp = stamp(k)
            return msg

        def applied(k, q):
            rot = model.frame_pose(q, frame="tool")[:3, :3]
            msg = WrenchStamped()
            msg.header.stamp, msg.header.frame_id = stamp(k), "tool"
            wrench_to_msg(np.concatenate([rot.T @ w_base[:3], rot.T @ w_base[3:]]), msg.wrench)
            return msg

        poses = [home + 0.1 * k for k in range(3)]
        monitor._on_js(state(0, poses[0]))
        monitor._on_applied(applied(0, poses[0]))  # in order
        monitor._on_applied(applied(2, poses[2]))  # before its state, and before stamp 1's
        assert monitor.rec.app_stamp == [1_000_000_000]
        monitor._on_js(state(1, poses[1]))
        monitor._on_applied(applied(1, poses[1]))
        monitor._on_js(state(2, poses[2]))
        assert monitor.rec.app_stamp == [1_000_000_000, 1_001_000_000, 1_002_000_000]
        for wrench in monitor.rec.app_wrench:
            np.testing.assert_allclose(wrench, w_base, atol=1e-12)
    finally:
        monitor.close()
