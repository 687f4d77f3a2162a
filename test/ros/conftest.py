"""Fixtures for the dynamics-node tests: the node runs as a separate process over real DDS.

``dynamics_node(urdf=..., **parameters)`` starts ``dynamics_node`` (the venv console script) in a
namespace of its own with a parameters file, waits until it reports its model loaded (unless
``wait_loaded=False``) and returns a :class:`NodeClient` that talks to it from the test process:
publish joint states, wait for outputs, call services, set parameters, read /diagnostics.
The domain comes from the environment (test/conftest.py: ROS_DOMAIN_ID, LOCALHOST discovery).
``arm_simulator(urdf=..., **parameters)`` starts the simulator the same way and returns a
:class:`SimClient`. ``panda`` and ``pendulum`` are the bundled models (the pendulum with its
gravity, -y), built once per module. The core tests' helpers (small_arms.py) are put on sys.path.
"""

import os
import sys

import pytest
import yaml

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "core")
)

from node_test_helpers import PANDA_URDF, PENDULUM_URDF, NodeClient, SimClient

from robot_dynamics import RobotModel


@pytest.fixture(scope="module")
def panda():
    return RobotModel.from_urdf_file(PANDA_URDF)


@pytest.fixture(scope="module")
def pendulum():
    return RobotModel.from_urdf_file(PENDULUM_URDF, gravity=(0.0, -9.81, 0.0))


@pytest.fixture
def dynamics_node(start_process, console_script, python_module, ros_node, unique_name, tmp_path):
    """Factory: dynamics_node(urdf=xml or None, wait_loaded=True, via_module=False, program=None,
    **params) -> NodeClient. via_module starts ``python -m robot_dynamics.ros.dynamics_node``
    instead of the console script; program, an argv, starts that instead (its ROS arguments
    appended)."""
    started = []

    def _start(
        urdf=None,
        wait_loaded=True,
        node_name="dynamics_node",
        via_module=False,
        program=None,
        **params,
    ):
        if urdf is not None:
            params["robot_description"] = urdf
        ns = "/" + unique_name + ("_%d" % len(started) if started else "")
        path = tmp_path / ("params_%d.yaml" % len(started))
        with open(path, "w") as f:
            yaml.safe_dump({"/**": {"ros__parameters": params}}, f)
        if program is not None:
            argv = list(program)
        elif via_module:
            argv = python_module("robot_dynamics.ros.dynamics_node")
        else:
            argv = console_script("dynamics_node")
        proc = start_process(
            argv
            + [
                "--ros-args",
                "-r",
                "__ns:=" + ns,
                "-r",
                "__node:=" + node_name,
                "--params-file",
                str(path),
            ],
            name="dynamics_node%s" % ns.replace("/", "_"),
        )
        if wait_loaded:
            proc.wait_for_output(r"model loaded from", timeout=60.0)
        client = NodeClient(ros_node, proc, ns, node_name)
        started.append(client)
        return client

    yield _start


@pytest.fixture
def arm_simulator(start_process, python_module, ros_node, unique_name, tmp_path):
    """Factory: arm_simulator(urdf=xml or None, wait_loaded=True, **params) -> SimClient."""
    count = [0]

    def _start(urdf=None, wait_loaded=True, **params):
        if urdf is not None:
            params["robot_description"] = urdf
        ns = "/" + unique_name + ("_%d" % count[0] if count[0] else "")
        path = tmp_path / ("sim_params_%d.yaml" % count[0])
        count[0] += 1
        with open(path, "w") as fh:
            yaml.safe_dump({"/**": {"ros__parameters": params}}, fh)
        proc = start_process(
            python_module("robot_dynamics.ros.arm_simulator")
            + ["--ros-args", "-r", "__ns:=" + ns, "--params-file", str(path)],
            name="arm_simulator" + ns,
        )
        if wait_loaded:
            proc.wait_for_output(r"model loaded", timeout=60.0)
        return SimClient(ros_node, proc, ns)

    return _start
