"""The dynamics node's services as a user calls them, the node a separate process over real DDS:
``get_mass_matrix``, ``compute_inverse_dynamics`` and ``simulate`` checked against the core
(requests in any joint order, unknown joints and bad requests refused with a message), and a
long simulation answered while joint_states keep being served.

Every wait polls for a condition with a generous timeout (a hang guard, never a speed
requirement).
"""

import math
import signal
import time

import numpy as np
import pytest

from core_helpers import load_model
from node_test_helpers import PANDA_URDF, Q, read, trajectory

from robot_dynamics import RobotModel
from robot_dynamics.ros import services

from robot_dynamics_interfaces.srv import (
    ComputeInverseDynamics,
    GetMassMatrix,
    SimulateForwardDynamics,
)

pytestmark = pytest.mark.ros


def test_services_against_the_core(dynamics_node, panda):
    names = list(panda.joint_names)
    node = dynamics_node(
        urdf=read(PANDA_URDF),
        max_simulation_duration=5.0,
        max_simulation_samples=1000,
        friction_velocity_threshold=0.5,
    )
    node.wait_connected()
    qd = np.linspace(0.5, -0.5, 7)
    node.publish_until(lambda: node.joint_state(names, Q, qd), "gravity_torques")

    # get_mass_matrix at the latest measured state (empty request) ...
    res = node.call("get_mass_matrix", GetMassMatrix.Request())
    assert res.success, res.message
    assert list(res.joint_names) == names
    assert [d.size for d in res.mass_matrix.layout.dim] == [7, 7]
    np.testing.assert_allclose(
        np.reshape(res.mass_matrix.data, (7, 7)), panda.mass_matrix(Q), rtol=0, atol=1e-10
    )
    np.testing.assert_allclose(res.gravity_torques, panda.gravity_torques(Q), atol=1e-10)
    np.testing.assert_allclose(
        res.coriolis_torques, panda.nonlinear_effects(Q, qd) - panda.gravity_torques(Q), atol=1e-10
    )
    assert (res.jacobian_frame, res.jacobian_base_frame) == ("tool", "panda_link0")
    np.testing.assert_allclose(np.reshape(res.jacobian.data, (6, 7)), panda.jacobian(Q), atol=1e-10)
    # ... at a requested state, any order; an unknown joint is refused, naming it.
    q2 = Q[::-1].copy()
    req = GetMassMatrix.Request()
    req.joint_state.name = names[::-1] + ["gripper"]
    req.joint_state.position = [float(v) for v in q2[::-1]] + [0.5]
    res = node.call("get_mass_matrix", req)
    assert not res.success and "gripper" in res.message, res.message
    req.joint_state.name = names[::-1]
    req.joint_state.position = [float(v) for v in q2[::-1]]
    res = node.call("get_mass_matrix", req)
    assert res.success, res.message
    np.testing.assert_allclose(
        np.reshape(res.mass_matrix.data, (7, 7)), panda.mass_matrix(q2), atol=1e-10
    )
    np.testing.assert_allclose(res.coriolis_torques, np.zeros(7), atol=1e-10)
    req.joint_state.position[2] = math.nan
    res = node.call("get_mass_matrix", req)
    assert not res.success and names[4] in res.message
    for _ in range(20):  # a client that retries: every answer says why, the log not every time
        assert not node.call("get_mass_matrix", req).success
    assert node.proc.output().count("mass_matrix: RequestError") <= 3, node.proc.output()
    # Velocities for only some joints: the others take the latest measured values (qd).
    req = GetMassMatrix.Request()
    req.joint_state.name = [names[0], names[3]]
    req.joint_state.position = [float(Q[0]), float(Q[3])]
    req.joint_state.velocity = [0.0, 0.0]
    res = node.call("get_mass_matrix", req)
    assert res.success, res.message
    qd_mixed = qd.copy()
    qd_mixed[[0, 3]] = 0.0
    np.testing.assert_allclose(
        res.coriolis_torques,
        panda.nonlinear_effects(Q, qd_mixed) - panda.gravity_torques(Q),
        atol=1e-10,
    )

    # compute_inverse_dynamics: a whole trajectory, in the request's joint order.
    rng = np.random.default_rng(3)
    k = 50
    Qs = Q + 0.3 * rng.standard_normal((k, 7))
    QDs = rng.standard_normal((k, 7))
    QDDs = rng.standard_normal((k, 7))
    order = [names[i] for i in (6, 0, 5, 1, 4, 2, 3)]
    perm = [names.index(n) for n in order]
    req = ComputeInverseDynamics.Request()
    req.trajectory = trajectory(order, Qs[:, perm], QDs[:, perm], QDDs[:, perm])
    res = node.call("compute_inverse_dynamics", req)
    assert res.success, res.message
    assert list(res.trajectory.joint_names) == order and len(res.trajectory.points) == k
    got = np.array([p.effort for p in res.trajectory.points])
    np.testing.assert_allclose(got, panda.inverse_dynamics(Qs, QDs, QDDs)[:, perm], atol=1e-9)
    req.include_friction = True
    res = node.call("compute_inverse_dynamics", req)
    got = np.array([p.effort for p in res.trajectory.points])
    np.testing.assert_allclose(
        got,
        # the node's friction model with its friction_velocity_threshold
        (panda.inverse_dynamics(Qs, QDs, QDDs) + panda.friction_torques(QDs, 0.5))[:, perm],
        atol=1e-9,
    )
    req.trajectory.joint_names = order[:6] + ["gripper"]
    res = node.call("compute_inverse_dynamics", req)
    assert not res.success and order[6] in res.message
    req.trajectory.joint_names = order[:6] + [order[0]]
    res = node.call("compute_inverse_dynamics", req)
    assert not res.success and f"joints [{order[0]!r}] appear twice" in res.message, res.message
    req.trajectory.joint_names = order + [f"camera_{i}" for i in range(100_000)]
    res = node.call("compute_inverse_dynamics", req)
    assert not res.success and "and 99990 more" in res.message and len(res.message) < 1000
    # a value that is not finite is refused naming the point, the field and the joint
    req.trajectory.joint_names = order
    req.trajectory.points[7].velocities[2] = math.inf
    res = node.call("compute_inverse_dynamics", req)
    assert not res.success
    assert f"point 7 velocities of joint {order[2]!r} = inf is not finite" in res.message

    # simulate from a given state with gravity compensation and an external wrench.
    req = SimulateForwardDynamics.Request()
    req.initial_state.name = names
    req.initial_state.position = [float(v) for v in Q]
    req.initial_state.velocity = [0.0] * 7
    req.duration = 0.5
    req.sample_period = 0.05
    req.torque_mode = SimulateForwardDynamics.Request.TORQUE_GRAVITY_COMPENSATION
    req.apply_external_wrench = True
    req.external_wrench.force.z = -5.0
    res = node.call("simulate", req)
    assert res.success, res.message
    ref = panda.simulate(
        Q,
        np.zeros(7),
        0.5,
        tau=lambda t, q, qd: panda.gravity_torques(q),
        f_ext=np.array([0, 0, -5.0, 0, 0, 0]),
        sample_dt=0.05,
    )
    assert list(res.trajectory.joint_names) == names
    assert len(res.trajectory.points) == len(ref.t) == 11
    got_q = np.array([p.positions for p in res.trajectory.points])
    np.testing.assert_allclose(got_q, ref.q, atol=1e-7)
    np.testing.assert_allclose(res.energy, ref.energy, atol=1e-6)
    assert res.final_energy == pytest.approx(ref.energy[-1], abs=1e-6)
    p = res.trajectory.points[-1]
    assert p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 == pytest.approx(0.5)

    # constant torque in a given joint order, semi-implicit Euler
    req = SimulateForwardDynamics.Request()
    req.duration = 0.2
    req.sample_period = 0.1
    req.torque_mode = SimulateForwardDynamics.Request.TORQUE_CONSTANT
    req.torque_joint_names = names[::-1]
    tau_c = np.linspace(1.0, 7.0, 7)
    req.constant_torque = [float(v) for v in tau_c[::-1]]
    req.integrator = "semi_implicit_euler"
    res = node.call("simulate", req)
    assert res.success, res.message
    ref = panda.simulate(Q, qd, 0.2, tau=tau_c, method="semi_implicit_euler", sample_dt=0.1)
    np.testing.assert_allclose(
        np.array([p.positions for p in res.trajectory.points]), ref.q, atol=1e-9
    )

    # bounds and bad requests: clear messages, node alive
    for duration, sample, word in (
        (6.0, 0.0, "max_simulation_duration"),
        (2.0, 0.001, "max_simulation_samples"),
        (-1.0, 0.0, "duration"),
    ):
        req = SimulateForwardDynamics.Request(duration=duration, sample_period=sample)
        res = node.call("simulate", req)
        assert not res.success and word in res.message, res.message
    req = SimulateForwardDynamics.Request(duration=0.1, integrator="magic")
    res = node.call("simulate", req)
    assert not res.success and "magic" in res.message
    req = SimulateForwardDynamics.Request(duration=0.1, apply_external_wrench=True)
    req.external_wrench.torque.y = float("nan")
    res = node.call("simulate", req)
    assert not res.success and "external_wrench[4] = nan" in res.message, res.message
    node.proc.assert_alive()


def test_simulation_does_not_block_joint_states(dynamics_node, panda):
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF), max_simulation_wall_time=300.0)
    node.wait_connected()
    make = lambda: node.joint_state(names, Q, np.zeros(7))  # noqa: E731
    node.publish_until(make, "gravity_torques")
    # A deliberately long simulation (100 000 fixed steps) ...
    req = SimulateForwardDynamics.Request(
        duration=5.0, sample_period=0.01, integrator="semi_implicit_euler", fixed_step=5e-5
    )
    client = node.clients["simulate"]
    assert node.t.spin_until(client.service_is_ready, 60.0)
    future = client.call_async(req)
    inbox = node.inbox["gravity_torques"]
    processed_while_running = 0
    deadline = time.monotonic() + 300.0
    while not future.done():
        assert time.monotonic() < deadline, "simulate did not answer"
        before = len(inbox.messages)
        node.publish(make())
        node.t.spin_for(0.02)
        if not future.done():
            processed_while_running += len(inbox.messages) > before
        node.proc.assert_alive()
    res = future.result()
    assert res.success, res.message
    assert len(res.trajectory.points) == 501
    # ... while joint_states kept being processed (callback groups + multi-threaded executor).
    assert processed_while_running >= 5, processed_while_running


def test_a_signal_during_a_long_simulation_stops_the_node_cleanly(dynamics_node, panda):
    """SIGINT while ~/simulate integrates for far longer than the stop may take: the simulation
    ends at its next step and answers success false, and the node exits with code 0."""
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF), max_simulation_wall_time=300.0)
    node.wait_connected()
    node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7)), "gravity_torques")
    req = SimulateForwardDynamics.Request(
        duration=5.0, sample_period=0.01, integrator="semi_implicit_euler", fixed_step=1e-5
    )  # 500 000 fixed steps: minutes
    client = node.clients["simulate"]
    assert node.t.spin_until(client.service_is_ready, 60.0)
    future = client.call_async(req)
    node.t.spin_for(1.5)  # the simulation runs
    assert not future.done()
    node.proc.popen.send_signal(signal.SIGINT)
    node.t.spin_until(future.done, 10.0)
    assert node.proc.wait(timeout=15.0) == 0, node.proc.output()
    assert "still running" not in node.proc.output()
    if future.done():  # answered before the node left the graph
        res = future.result()
        assert not res.success and "the caller stopped it" in res.message, res.message


def test_a_mimic_or_locked_joint_in_a_request_is_said_to_be_one():
    """A request naming the gripper's mimic finger, or a locked joint: refused, saying what the
    joint is (joint_states may carry them; a request's values would be ignored)."""
    gripper = load_model("panda_gripper")
    locked = RobotModel.from_urdf_file(PANDA_URDF, locked_joints={"panda_joint7": 0.0})
    for model, name in ((gripper, "panda_finger_joint2"), (locked, "panda_joint7")):
        message = str(services._not_joints("get_mass_matrix position", [name], model))
        assert f"[{name!r}] not joints of the model" in message
        assert "follow the model's joints (mimic) or are held (locked_joints)" in message
    message = str(services._not_joints("x", ["camera"], locked))
    assert "camera" in message and "mimic" not in message
