"""Smoke test: the wheel environment is real.

Two rclpy nodes in separate processes exchange a sensor_msgs/JointState over DDS and call a
robot_dynamics_interfaces service (a tiny GetMassMatrix server, test/helpers/smoke_peer.py);
the test process itself also calls that server. Plus: the venv needs no sourcing (imports and the
ament index work from a bare environment), and the package's installed files are where ROS looks.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.ros

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PEER = os.path.join(HERE, "helpers", "smoke_peer.py")
JOINTS = ["joint_a", "joint_b", "joint_c"]


def expected_mass_matrix(q):
    q = np.asarray(q, dtype=float)
    return np.eye(q.size) + 0.1 * np.outer(q, q) + np.diag(q**2)


def test_joint_state_and_service_between_two_processes(start_process, unique_name):
    ns = "/" + unique_name
    seed = int(unique_name[1:], 16) % 100000
    talker = start_process([sys.executable, PEER, "talker", ns, str(seed)], name="talker")
    talker.wait_for_output(r"READY", timeout=60.0)
    listener = start_process([sys.executable, PEER, "listener", ns], name="listener")
    assert listener.wait(timeout=90) == 0, listener.output()
    line = listener.wait_for_output(r"RESULT (.*)").group(1)
    result = json.loads(line)

    # The JointState crossed DDS intact.
    q_sent = np.random.default_rng(seed).uniform(-1.0, 1.0, len(JOINTS))
    assert result["received"]["name"] == JOINTS
    np.testing.assert_array_equal(result["received"]["position"], q_sent)
    np.testing.assert_array_equal(result["received"]["velocity"], 0.5 * q_sent)

    # The service answered from the request it got.
    assert result["success"] is True, result["message"]
    assert result["joint_names"] == JOINTS
    assert result["dims"] == [["rows", 3, 9], ["cols", 3, 3]]
    np.testing.assert_allclose(
        np.reshape(result["mass_matrix"], (3, 3)), expected_mass_matrix(q_sent), rtol=0, atol=1e-15
    )
    np.testing.assert_allclose(result["gravity_torques"], np.sin(q_sent), rtol=0, atol=1e-15)
    np.testing.assert_allclose(result["coriolis_torques"], 0.5 * q_sent**2, rtol=0, atol=1e-15)
    talker.assert_alive()


def test_service_call_from_test_process(start_process, ros_node, unique_name):
    from robot_dynamics_interfaces.srv import GetMassMatrix
    from sensor_msgs.msg import JointState

    ns = "/" + unique_name
    talker = start_process([sys.executable, PEER, "talker", ns, "7"], name="talker")
    talker.wait_for_output(r"READY", timeout=60.0)

    received = []
    ros_node.node.create_subscription(JointState, ns + "/joint_states", received.append, 10)
    assert ros_node.spin_until(lambda: received, timeout=30), "no JointState from the talker"
    assert list(received[0].name) == JOINTS

    client = ros_node.node.create_client(GetMassMatrix, ns + "/get_mass_matrix")
    q = np.array([0.3, -1.2, 2.0])
    request = GetMassMatrix.Request()
    request.joint_state.name = JOINTS
    request.joint_state.position = q.tolist()
    response = ros_node.call(client, request)
    assert response.success, response.message
    np.testing.assert_allclose(
        np.reshape(response.mass_matrix.data, (3, 3)), expected_mass_matrix(q), rtol=0, atol=1e-15
    )
    assert list(response.coriolis_torques) == [0.0, 0.0, 0.0]  # empty velocity = zero
    assert len(response.jacobian.data) == 6 * 3

    bad = GetMassMatrix.Request()
    bad.joint_state.name = ["nope"]
    bad.joint_state.position = [1.0]
    response = ros_node.call(client, bad)
    assert not response.success
    assert "nope" in response.message
    talker.assert_alive()


def _bare_env():
    """The environment of a user who just cloned and ran `make`: nothing ROS-related set."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "LD_LIBRARY_PATH",
            "_ROS_WHEELS_BOOTSTRAP_COMPLETE",
            "AMENT_PREFIX_PATH",
            "PYTHONPATH",
        )
    }
    return env


def test_venv_needs_no_sourcing():
    code = (
        "import os, sys\n"
        "from robot_dynamics_interfaces.srv import GetMassMatrix, SimulateForwardDynamics\n"
        "from ament_index_python.packages import get_package_share_directory as share\n"
        "import rclpy\n"
        "rclpy.init()\n"
        'node = rclpy.create_node("bare_env_check")\n'
        'node.create_client(GetMassMatrix, "x")\n'
        "node.destroy_node(); rclpy.shutdown()\n"
        'print(share("robot_dynamics")); print(share("robot_dynamics_interfaces"))\n'
        'print(os.environ["LD_LIBRARY_PATH"])\n'
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=_bare_env(),
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    share_rd, share_rdi, ld_path = out.stdout.strip().splitlines()[-3:]
    assert share_rd == os.path.join(sys.prefix, "share", "robot_dynamics")
    assert share_rdi == os.path.join(sys.prefix, "share", "robot_dynamics_interfaces")
    assert os.path.join(sys.prefix, "lib") in ld_path.split(os.pathsep)


def test_installed_share_matches_repository():
    """setup.py's data_files globs put every launch/config/urdf/rviz file where ROS looks."""
    from ament_index_python.packages import get_package_share_directory

    share = get_package_share_directory("robot_dynamics")
    assert os.path.isfile(os.path.join(share, "package.xml"))
    for sub, suffix in (
        ("launch", ".launch.py"),
        ("config", ".yaml"),
        ("urdf", ".urdf"),
        ("rviz", ".rviz"),
    ):
        src_dir = os.path.join(REPO, sub)
        # bundled robots travel with their licence notices (urdf/LICENSE.*)
        in_repo = (
            sorted(
                f
                for f in os.listdir(src_dir)
                if f.endswith(suffix) or (sub == "urdf" and f.startswith("LICENSE"))
            )
            if os.path.isdir(src_dir)
            else []
        )
        installed_dir = os.path.join(share, sub)
        installed = sorted(os.listdir(installed_dir)) if os.path.isdir(installed_dir) else []
        assert installed == in_repo, (
            "%s: installed %s but the repository has %s (run `make install`)"
            % (sub, installed, in_repo)
        )


def test_console_scripts_in_venv():
    """Every console_scripts entry point of setup.py is installed in the venv's bin/."""
    from importlib.metadata import distribution

    eps = [
        ep for ep in distribution("robot_dynamics").entry_points if ep.group == "console_scripts"
    ]
    names = sorted(ep.name for ep in eps)
    assert {
        "dynamics_node",
        "arm_simulator",
        "relay_node",
        "robot-dynamics",
        "robot-dynamics-demo",
    } <= set(names)
    for name in names:
        assert os.access(os.path.join(os.path.dirname(sys.executable), name), os.X_OK), name
