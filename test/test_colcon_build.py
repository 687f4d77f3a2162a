"""The README's build path for ROS 2 users really works:

    colcon build --base-paths <repo> <repo>/robot_dynamics_interfaces

run here against the wheel environment (colcon is on PyPI; the venv's bin/ on PATH plays the part
of a sourced /opt/ros/jazzy: cmake finds the ament packages under <venv>/share through it), in a
temporary workspace outside the repository. Then the overlay is sourced and used: the interfaces
and the package's share directory come from the workspace, and the console scripts sit in
lib/robot_dynamics where `ros2 run` looks.
"""

import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.ros]

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_BIN = os.path.dirname(sys.executable)


def _colcon_env():
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "_ROS_WHEELS_BOOTSTRAP_COMPLETE",
            "AMENT_PREFIX_PATH",
            "CMAKE_PREFIX_PATH",
            "COLCON_PREFIX_PATH",
            "PYTHONPATH",
        )
    }
    env["PATH"] = VENV_BIN + os.pathsep + env.get("PATH", "")
    return env


def test_colcon_build_of_both_packages(tmp_path):
    colcon = os.path.join(VENV_BIN, "colcon")
    assert os.path.exists(colcon), "colcon is not installed in the venv (requirements-ros.txt)"
    build = subprocess.run(
        [colcon, "build", "--base-paths", REPO, os.path.join(REPO, "robot_dynamics_interfaces")],
        cwd=tmp_path,
        env=_colcon_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, build.stdout[-6000:] + build.stderr[-6000:]
    assert "Finished <<< robot_dynamics_interfaces" in build.stdout
    assert "Finished <<< robot_dynamics " in build.stdout

    install = tmp_path / "install"
    scripts = install / "robot_dynamics" / "lib" / "robot_dynamics"
    for name in ("dynamics_node", "arm_simulator", "relay_node"):
        assert (scripts / name).is_file(), "%s missing from %s (setup.cfg script dir)" % (
            name,
            scripts,
        )
    assert (install / "robot_dynamics" / "share" / "robot_dynamics" / "package.xml").is_file()
    assert (
        install
        / "robot_dynamics_interfaces"
        / "share"
        / "robot_dynamics_interfaces"
        / "srv"
        / "GetMassMatrix.srv"
    ).is_file()

    # Source the overlay as a user would and use it.
    check = (
        "import robot_dynamics_interfaces\n"
        "from robot_dynamics_interfaces.srv import GetMassMatrix\n"
        "from ament_index_python.packages import get_package_share_directory as share\n"
        "import rclpy\n"
        'rclpy.init(); n = rclpy.create_node("colcon_check"); n.create_client(GetMassMatrix, "x")\n'
        "n.destroy_node(); rclpy.shutdown()\n"
        'print(robot_dynamics_interfaces.__file__); print(share("robot_dynamics"))\n'
    )
    run = subprocess.run(
        ["bash", "-c", '. install/setup.sh && exec "$0" -c "$1"', sys.executable, check],
        cwd=tmp_path,
        env=_colcon_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    module_file, share_dir = run.stdout.strip().splitlines()[-2:]
    assert module_file.startswith(str(install / "robot_dynamics_interfaces")), module_file
    assert share_dir == str(install / "robot_dynamics" / "share" / "robot_dynamics"), share_dir
