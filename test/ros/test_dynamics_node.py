"""The dynamics node as a user runs it: a separate process over real DDS.

Joint states are computed by the core (or Pinocchio) for a known external wrench; the node's
outputs and services are checked against the core. Every wait polls for a condition with a
generous timeout (a hang guard, never a speed requirement).
"""

import math
import time

import numpy as np
import pytest

from node_test_helpers import PANDA_URDF, PENDULUM_URDF, efforts, read, trajectory, wrench_array

from rclpy.duration import Duration
from rclpy.parameter import Parameter
from rclpy.qos import ReliabilityPolicy

from robot_dynamics import RobotModel
from robot_dynamics_interfaces.srv import (
    ComputeInverseDynamics,
    GetMassMatrix,
    SimulateForwardDynamics,
)

pytestmark = pytest.mark.ros

Q = np.array([0.1, -0.3, 0.2, -1.8, 0.1, 1.5, 0.3])
F_EXT = np.array([2.0, -3.0, 5.0, 0.2, -0.1, 0.3])  # on the tool, base axes, N and N m


def in_tip_frame(model, q, wrench):
    """A wrench [f; n] in base axes with its moment about the tip origin, as a force-torque
    sensor at the tip reads it (ROS semantics: tip axes, moment about the tip origin)."""
    R = model.frame_pose(q)[:3, :3]
    return np.concatenate([R.T @ wrench[:3], R.T @ wrench[3:]])


@pytest.fixture(scope="module")
def panda():
    return RobotModel.from_urdf_file(PANDA_URDF)


@pytest.fixture(scope="module")
def pendulum():
    return RobotModel.from_urdf_file(PENDULUM_URDF, gravity=(0.0, -9.81, 0.0))


def test_static_wrench_gravity_and_external_torques(dynamics_node, panda):
    names = list(panda.joint_names)
    J = panda.jacobian(Q)
    g = panda.gravity_torques(Q)
    tau = g - J.T @ F_EXT  # what the motors measure holding still under F_EXT
    node = dynamics_node(urdf=read(PANDA_URDF), wrench_estimation="static")
    node.wait_connected(("gravity_torques", "external_torques", "external_wrench"))
    order = names[::-1]  # any order on the wire
    perm = [names.index(n) for n in order]
    sent = []

    def make():
        msg = node.joint_state(order, Q[perm], np.zeros(7), tau[perm])
        sent.append((msg.header.stamp.sec, msg.header.stamp.nanosec))
        return msg

    # Default wrench_frame: the tip link, ROS semantics (tip axes, moment about the tip origin).
    wrench = node.publish_until(make, "external_wrench")
    assert wrench.header.frame_id == "tool"
    assert (wrench.header.stamp.sec, wrench.header.stamp.nanosec) in sent
    np.testing.assert_allclose(wrench_array(wrench), in_tip_frame(panda, Q, F_EXT), atol=1e-6)

    gravity = node.wait_for("gravity_torques")
    assert list(gravity.name) == names
    assert (gravity.header.stamp.sec, gravity.header.stamp.nanosec) in sent
    np.testing.assert_allclose(efforts(gravity, names), g, rtol=0, atol=1e-9)
    external = node.wait_for("external_torques")
    np.testing.assert_allclose(efforts(external, names), J.T @ F_EXT, rtol=0, atol=1e-9)

    # Runtime switch to the base link: base axes, moment about the BASE origin (transformed by
    # hand: n_base = n_tip_origin + p_tip x f). The old base-axes-about-the-tip mode is gone.
    result = node.set_parameters(wrench_frame="panda_link0")[0]
    assert result.successful, result.reason
    p = panda.frame_pose(Q)[:3, 3]
    expected = np.concatenate([F_EXT[:3], F_EXT[3:] + np.cross(p, F_EXT[:3])])
    wrench = node.publish_until(
        make, "external_wrench", lambda m: m.header.frame_id == "panda_link0"
    )
    np.testing.assert_allclose(wrench_array(wrench), expected, rtol=0, atol=1e-6)
    # A link in the middle of the chain: its axes, moment about its origin.
    result = node.set_parameters(wrench_frame="panda_link4")[0]
    assert result.successful, result.reason
    T = panda.frame_pose(Q, frame="panda_link4")
    R4, p4 = T[:3, :3], T[:3, 3]
    p_tip = panda.frame_pose(Q)[:3, 3]
    n4 = F_EXT[3:] + np.cross(p_tip - p4, F_EXT[:3])
    expected = np.concatenate([R4.T @ F_EXT[:3], R4.T @ n4])
    wrench = node.publish_until(
        make, "external_wrench", lambda m: m.header.frame_id == "panda_link4"
    )
    np.testing.assert_allclose(wrench_array(wrench), expected, rtol=0, atol=1e-6)
    bad = node.set_parameters(wrench_frame="no_such_link")[0]
    assert not bad.successful and "no_such_link" in bad.reason
    node.proc.assert_alive()


def test_momentum_observer_converges_on_moving_arm(dynamics_node, panda):
    pin = pytest.importorskip("pinocchio")
    pm = pin.buildModelFromUrdf(PANDA_URDF)
    pd = pm.createData()
    frame = pm.getFrameId("tool")
    pin_names = [pm.names[i] for i in range(1, pm.njoints)]
    names = list(panda.joint_names)
    to_pin = [names.index(n) for n in pin_names]  # model order -> pinocchio order

    def torques(q, qd, qdd):
        """Joint torques (model order) of the motion under F_EXT, by Pinocchio."""
        qp, qdp, qddp = q[to_pin], qd[to_pin], qdd[to_pin]
        tau = pin.rnea(pm, pd, qp, qdp, qddp)
        Jp = pin.computeFrameJacobian(pm, pd, qp, frame, pin.LOCAL_WORLD_ALIGNED)
        out = np.empty(7)
        out[to_pin] = tau - Jp.T @ F_EXT
        return out

    amp = np.array([0.2, 0.15, 0.2, 0.15, 0.3, 0.2, 0.3])
    w = 2 * np.pi * 0.25
    dt = 0.004

    def state(t):
        return Q + amp * np.sin(w * t), amp * w * np.cos(w * t), -amp * w * w * np.sin(w * t)

    node = dynamics_node(urdf=read(PANDA_URDF), observer_gain=100.0)
    assert node.get_parameter("wrench_estimation") == "momentum_observer"
    node.wait_connected(("external_wrench",))
    t0 = node._stamp_ns + 10**9

    def message(k, q, qd, tau):
        return node.joint_state(names, q, qd, tau, stamp_ns=t0 + int(round(k * dt * 1e9)))

    # Let the node see the start state (observer reset), then stream 2 s of motion with the
    # stamps 4 ms apart (the observer integrates over the stamps, not the arrival times).
    q, qd, qdd = state(0.0)
    node.publish_until(lambda: message(0, q, qd, torques(q, qd, qdd)), "gravity_torques")
    node.inbox["external_wrench"].clear()
    steps = int(2.0 / dt)
    for k in range(1, steps + 1):
        q, qd, qdd = state(k * dt)
        node.publish(message(k, q, qd, torques(q, qd, qdd)))
        node.t.spin_for(0.002)
    node.t.spin_for(0.5)
    late = [
        m
        for m in node.inbox["external_wrench"].messages
        if (m.header.stamp.sec * 10**9 + m.header.stamp.nanosec - t0) * 1e-9 >= 1.0
    ]
    assert len(late) >= 0.5 * (steps - int(1.0 / dt)), "too few wrench estimates"

    def expected(m):
        t = (m.header.stamp.sec * 10**9 + m.header.stamp.nanosec - t0) * 1e-9
        return in_tip_frame(panda, state(t)[0], F_EXT)

    errors = np.array([np.abs(wrench_array(m) - expected(m)).max() for m in late])
    # While moving, the observer lags the changing J^T f by ~1/K (first-order filter).
    assert errors.max() < 0.1, errors.max()

    # Held still at the last pose, it converges to the exact wrench.
    q_end = state(steps * dt)[0]
    tau_end = torques(q_end, np.zeros(7), np.zeros(7))
    counter = [steps]

    def still():
        counter[0] += 1
        return message(counter[0], q_end, np.zeros(7), tau_end)

    f_end = in_tip_frame(panda, q_end, F_EXT)
    wrench = node.publish_until(
        still,
        "external_wrench",
        lambda m: np.abs(wrench_array(m) - f_end).max() <= 1e-6,
        period=0.004,
    )
    np.testing.assert_allclose(wrench_array(wrench), f_end, rtol=0, atol=1e-6)


def test_feedforward_reference_and_effort_command(dynamics_node, panda):
    names = list(panda.joint_names)
    qd = np.linspace(-0.3, 0.3, 7)
    node = dynamics_node(urdf=read(PANDA_URDF))
    node.wait_connected(("feedforward_torques", "effort_command"))

    # No reference: the measured state with zero acceleration.
    make = lambda: node.joint_state(names, Q, qd)  # noqa: E731
    expected = panda.inverse_dynamics(Q, qd, np.zeros(7))
    ff = node.publish_until(make, "feedforward_torques")
    np.testing.assert_allclose(efforts(ff, names), expected, rtol=0, atol=1e-9)
    assert not node.inbox["effort_command"].messages, "effort_command must be off by default"

    # A reference (first point, any joint order) drives the feed-forward.
    q_ref = Q + 0.1
    qd_ref = np.full(7, 0.2)
    qdd_ref = np.linspace(1.0, -1.0, 7)
    order = names[3:] + names[:3]
    perm = [names.index(n) for n in order]
    ref = trajectory(
        order, [q_ref[perm], Q[perm]], [qd_ref[perm], qd_ref[perm]], [qdd_ref[perm], qdd_ref[perm]]
    )
    node.reference_pub.publish(ref)
    expected_ref = panda.inverse_dynamics(q_ref, qd_ref, qdd_ref)
    ff = node.publish_until(
        make,
        "feedforward_torques",
        lambda m: np.allclose(efforts(m, names), expected_ref, rtol=0, atol=1e-9),
    )

    # Effort command: on, feed-forward, in the controller's joint order, clamped to limits.
    command_joints = names[::-1]
    results = node.set_parameters(
        publish_effort_command=True,
        effort_command_source="feedforward",
        command_joints=command_joints,
        reference_timeout=0.0,
    )
    assert all(r.successful for r in results), [r.reason for r in results]
    node.reference_pub.publish(ref)
    cmd_expected = np.clip(expected_ref, -panda.effort_limits, panda.effort_limits)
    cmd_expected = cmd_expected[[names.index(n) for n in command_joints]]
    cmd = node.publish_until(
        make, "effort_command", lambda m: np.allclose(m.data, cmd_expected, rtol=0, atol=1e-9)
    )
    assert len(cmd.data) == 7 and not cmd.layout.dim  # a plain vector, command_joints order

    # Unknown command joint or unknown source: refused with a reason, old values kept.
    bad = node.set_parameters(command_joints=names[:6] + ["no_such_joint"])[0]
    assert not bad.successful and "no_such_joint" in bad.reason
    bad = node.set_parameters(effort_command_source="magic")[0]
    assert not bad.successful and "effort_command_source" in bad.reason
    assert list(node.get_parameter("command_joints")) == command_joints

    # Gravity source, and friction compensation added to the feed-forward.
    results = node.set_parameters(effort_command_source="gravity", friction_compensation=True)
    assert all(r.successful for r in results)
    g_expected = panda.gravity_torques(Q)[[names.index(n) for n in command_joints]]
    node.publish_until(
        make, "effort_command", lambda m: np.allclose(m.data, g_expected, rtol=0, atol=1e-9)
    )
    ff_fric = expected_ref + panda.friction_torques(qd_ref)
    node.reference_pub.publish(ref)
    node.publish_until(
        make,
        "feedforward_torques",
        lambda m: np.allclose(efforts(m, names), ff_fric, rtol=0, atol=1e-9),
    )

    # The friction model's parameters at run time: asymmetric Stribeck friction.
    friction = {
        "friction.coulomb": [1.0] * 7,
        "friction.asymmetry": [0.3, -0.3, 0.2, -0.2, 0.1, -0.1, 0.0],
        "friction.stribeck": [0.5] * 7,
        "friction.stribeck_velocity": [0.25] * 7,
    }
    results = node.set_parameters(**{k.replace(".", "__"): v for k, v in friction.items()})
    assert all(r.successful for r in results), [r.reason for r in results]
    rich = panda.with_friction(panda.friction.with_parameters(friction))
    ff_rich = expected_ref + rich.friction_torques(qd_ref)
    assert np.abs(ff_rich - ff_fric).max() > 0.1
    node.reference_pub.publish(ref)
    node.publish_until(
        make,
        "feedforward_torques",
        lambda m: np.allclose(efforts(m, names), ff_rich, rtol=0, atol=1e-9),
    )
    bad = node.set_parameters(friction__asymmetry=[2.0] * 7)[0]
    assert not bad.successful and "friction.asymmetry of joint 'panda_joint1'" in bad.reason
    bad = node.set_parameters(friction__viscous=[0.1, 0.2])[0]
    assert not bad.successful and "friction.viscous must have 7 values" in bad.reason
    node.proc.assert_alive()


def test_services_against_the_core(dynamics_node, panda):
    names = list(panda.joint_names)
    node = dynamics_node(
        urdf=read(PANDA_URDF), max_simulation_duration=5.0, max_simulation_samples=1000
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
        (panda.inverse_dynamics(Qs, QDs, QDDs) + panda.friction_torques(QDs))[:, perm],
        atol=1e-9,
    )
    req.trajectory.joint_names = order[:6] + ["gripper"]
    res = node.call("compute_inverse_dynamics", req)
    assert not res.success and order[6] in res.message

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


def test_payload_and_parameter_validation(dynamics_node, panda):
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF))
    node.wait_connected()
    make = lambda: node.joint_state(names, Q, np.zeros(7))  # noqa: E731
    node.publish_until(make, "gravity_torques")

    com = [0.01, 0.0, 0.05]
    inertia = [0.01, 0.0, 0.0, 0.02, 0.0, 0.03]
    results = node.set_parameters(payload__mass=2.5, payload__com=com, payload__inertia=inertia)
    assert all(r.successful for r in results), [r.reason for r in results]
    I_c = np.array([[0.01, 0, 0], [0, 0.02, 0], [0, 0, 0.03]])
    with_payload = panda.with_payload(2.5, np.array(com), inertia=I_c)
    expected = with_payload.gravity_torques(Q)
    assert np.abs(expected - panda.gravity_torques(Q)).max() > 1.0
    node.publish_until(
        make,
        "gravity_torques",
        lambda m: np.allclose(efforts(m, names), expected, rtol=0, atol=1e-9),
    )
    # the services use the changed model too
    res = node.call("get_mass_matrix", GetMassMatrix.Request())
    np.testing.assert_allclose(
        np.reshape(res.mass_matrix.data, (7, 7)), with_payload.mass_matrix(Q), atol=1e-10
    )

    # Refused with a reason naming the parameter; the old values stay.
    bad = node.set_parameters(payload__mass=-1.0)[0]
    assert not bad.successful and "payload.mass" in bad.reason
    bad = node.set_parameters(payload__com=[0.0, 0.1])[0]
    assert not bad.successful and "payload.com" in bad.reason
    bad = node.set_parameters(gravity=[0.0, 0.0, -9.81, 1.0])[0]
    assert not bad.successful and "gravity" in bad.reason
    bad = node.set_parameters(armature=[0.1, 0.1])[0]
    assert not bad.successful and "armature" in bad.reason
    bad = node.set_parameters(observer_gain=0.0)[0]
    assert not bad.successful and "observer_gain" in bad.reason
    bad = node.set_parameters(payload__frame="no_such_link")[0]
    assert not bad.successful and "no_such_link" in bad.reason
    bad = node.set_parameter_typed("payload.mass", Parameter.Type.STRING, "heavy")
    assert not bad.successful
    assert node.get_parameter("payload.mass") == 2.5
    assert list(node.get_parameter("payload.com")) == com

    # armature and gravity changes apply at runtime as well
    armature = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
    gravity = [0.0, -9.81, 0.0]
    results = node.set_parameters(armature=armature, gravity=gravity, payload__mass=0.0)
    assert all(r.successful for r in results), [r.reason for r in results]
    changed = panda.with_gravity(np.array(gravity))
    node.publish_until(
        make,
        "gravity_torques",
        lambda m: np.allclose(efforts(m, names), changed.gravity_torques(Q), rtol=0, atol=1e-9),
    )
    res = node.call("get_mass_matrix", GetMassMatrix.Request())
    np.testing.assert_allclose(
        np.reshape(res.mass_matrix.data, (7, 7)),
        panda.mass_matrix(Q) + np.diag(armature),
        atol=1e-10,
    )
    node.proc.assert_alive()


def test_robot_description_parameter_change_and_malformed_urdf(dynamics_node, panda, pendulum):
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF))
    node.wait_connected()
    node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7)), "gravity_torques")

    # A malformed URDF is refused, with the reason; the Panda model keeps working.
    bad = node.set_parameters(robot_description='<robot name="broken"><link name="a"/>')[0]
    assert not bad.successful and bad.reason
    bad = node.set_parameters(
        robot_description=read(PANDA_URDF).replace('panda_link3"/>', 'panda_link_missing"/>', 1)
    )[0]
    assert not bad.successful and bad.reason
    node.inbox["gravity_torques"].clear()
    msg = node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7)), "gravity_torques")
    np.testing.assert_allclose(efforts(msg, names), panda.gravity_torques(Q), atol=1e-9)
    status, values = node.diagnostics(lambda s, v: int(v["model_rejections"]) >= 2)
    assert values["model_loaded"] == "true" and values["last_error"]

    # A new valid description (and gravity) is loaded at runtime: the double pendulum.
    results = node.set_parameters(robot_description=read(PENDULUM_URDF), gravity=[0.0, -9.81, 0.0])
    assert all(r.successful for r in results), [r.reason for r in results]
    pn = list(pendulum.joint_names)
    qp = np.array([0.3, -0.5])
    msg = node.publish_until(
        lambda: node.joint_state(pn + names, np.concatenate([qp, Q])),
        "gravity_torques",
        lambda m: list(m.name) == pn,
    )
    np.testing.assert_allclose(efforts(msg, pn), pendulum.gravity_torques(qp), atol=1e-9)
    node.proc.assert_alive()


def test_robot_description_topic(dynamics_node, panda, pendulum):
    # Started without the parameter (and through python -m): waits for the topic.
    node = dynamics_node(wait_loaded=False, via_module=True)
    node.proc.wait_for_output("waiting for a URDF", timeout=60.0)
    status, values = node.diagnostics()
    assert values["model_loaded"] == "false" and status.level == status.ERROR
    assert node.t.spin_until(lambda: node.description_pub.get_subscription_count() >= 1, 60.0)

    from std_msgs.msg import String

    node.description_pub.publish(String(data=read(PENDULUM_URDF)))
    node.proc.wait_for_output(r"model loaded from topic robot_description", timeout=60.0)
    node.wait_connected()
    pn = list(pendulum.joint_names)
    qp = np.array([0.3, -0.5])
    flat = RobotModel.from_urdf_file(PENDULUM_URDF)  # node default gravity: -z
    msg = node.publish_until(lambda: node.joint_state(pn, qp), "gravity_torques")
    np.testing.assert_allclose(efforts(msg, pn), flat.gravity_torques(qp), atol=1e-9)

    # Malformed on the topic: logged, old model kept.
    node.description_pub.publish(String(data='<robot name="x"><joint name="j" type="revolute">'))
    node.proc.wait_for_output(r"topic robot_description rejected", timeout=60.0)
    status, values = node.diagnostics(lambda s, v: v["model_rejections"] == "1")
    assert values["model_loaded"] == "true" and values["joints"] == " ".join(pn)
    node.inbox["gravity_torques"].clear()
    node.publish_until(lambda: node.joint_state(pn, qp), "gravity_torques")

    # A new valid description replaces the model at runtime.
    node.description_pub.publish(String(data=read(PANDA_URDF)))
    names = list(panda.joint_names)
    msg = node.publish_until(
        lambda: node.joint_state(names, Q), "gravity_torques", lambda m: list(m.name) == names
    )
    np.testing.assert_allclose(efforts(msg, names), panda.gravity_torques(Q), atol=1e-9)


def test_partial_unordered_and_unknown_joints(dynamics_node, panda):
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF))
    node.wait_connected()
    # Two drivers: joints 4..7 (+ a gripper the model does not have), then 3, 1, 2.
    first = [names[6], "panda_finger_joint1", names[4], names[3], names[5]]
    first_q = [Q[6], 0.04, Q[4], Q[3], Q[5]]
    second = [names[2], names[0], names[1]]
    second_q = [Q[2], Q[0], Q[1]]
    for _ in range(3000):
        node.publish(node.joint_state(first, first_q))
        node.t.spin_for(0.02)
        if "waiting for positions of joints" in node.proc.output():
            break
    assert (
        "waiting for positions of joints ['panda_joint1', 'panda_joint2', 'panda_joint3']"
        in node.proc.output()
    )
    assert not node.inbox["gravity_torques"].messages, "published before all joints were known"

    msg = node.publish_until(lambda: node.joint_state(second, second_q), "gravity_torques")
    np.testing.assert_allclose(efforts(msg, names), panda.gravity_torques(Q), atol=1e-9)
    node.proc.wait_for_output(r"panda_finger_joint1", timeout=60.0)
    # A later partial message moves one joint only; the rest keep their merged values.
    q2 = Q.copy()
    q2[1] += 0.4
    msg = node.publish_until(
        lambda: node.joint_state([names[1]], [q2[1]]),
        "gravity_torques",
        lambda m: np.allclose(efforts(m, names), panda.gravity_torques(q2), atol=1e-9),
    )
    assert list(msg.name) == names


def test_nan_rejected_counted_and_node_alive(dynamics_node, panda):
    """A non-finite position refuses the whole message (counted, named); a NaN effort (what
    joint_state_broadcaster sends for a joint without an effort interface) stops only the
    estimation: gravity keeps flowing."""
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF), diagnostics_period=0.2)
    node.wait_connected(("gravity_torques", "external_wrench"))
    tau = panda.gravity_torques(Q)
    node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7), tau), "external_wrench")
    bad_position = Q.copy()
    bad_position[5] = math.inf
    node.inbox["gravity_torques"].clear()
    # Bad messages, paced, until the node has counted at least 10 (best effort could lose one).
    sent = 0
    values = {"rejected_messages": "0"}
    deadline = time.monotonic() + 60.0
    while int(values["rejected_messages"]) < 10:
        assert time.monotonic() < deadline, f"rejections not counted: {values}"
        for _ in range(5):
            node.publish(node.joint_state(names, bad_position, np.zeros(7), tau))
            sent += 1
            node.t.spin_for(0.02)
        status, values = node.diagnostics()
    node.t.spin_for(0.5)
    status, values = node.diagnostics()
    assert 10 <= int(values["rejected_messages"]) <= sent  # each counted once at most
    assert values["model_loaded"] == "true"
    assert names[5] in values["last_rejection"]
    assert not node.inbox["gravity_torques"].messages, "a refused message was used"
    node.proc.wait_for_output(r"joint_states message refused: .*inf", timeout=60.0)

    # NaN effort on one joint: gravity keeps flowing; that joint's last effort ages, and once
    # it is older than effort_timeout (0.1 s of stamps) no wrench is estimated (none from a
    # stale effort: no phantom wrench), with diagnostics WARN naming the joint.
    bad_effort = tau.copy()
    bad_effort[2] = math.nan
    q2 = Q + 0.05
    first = node._stamp_ns + 1_000_000
    node.inbox["external_wrench"].clear()
    node.inbox["gravity_torques"].clear()
    for _ in range(200):  # 200 stamps 1 ms apart: 0.2 s of stamps
        node.publish(node.joint_state(names, q2, np.zeros(7), bad_effort))
        node.t.spin_for(0.005)
    msg = node.publish_until(
        lambda: node.joint_state(names, q2, np.zeros(7), bad_effort),
        "gravity_torques",
        lambda m: np.allclose(efforts(m, names), panda.gravity_torques(q2), atol=1e-9),
    )
    assert len(node.inbox["gravity_torques"].messages) >= 50  # gravity kept flowing
    late = [
        m
        for m in node.inbox["external_wrench"].messages
        if m.header.stamp.sec * 10**9 + m.header.stamp.nanosec > first + 150_000_000
    ]
    assert not late, "a wrench was estimated from a stale effort"
    status, values = node.diagnostics(lambda s, v: v.get("stale_effort") == "true")
    assert status.level >= status.WARN and names[2] in values["stale_effort_joints"]
    # Still alive and correct with good messages.
    msg = node.publish_until(
        lambda: node.joint_state(names, Q, np.zeros(7), tau), "external_wrench"
    )
    assert np.all(np.isfinite(wrench_array(msg)))
    node.inbox["gravity_torques"].clear()
    msg = node.publish_until(
        lambda: node.joint_state(names, Q, np.zeros(7), tau), "gravity_torques"
    )
    np.testing.assert_allclose(efforts(msg, names), tau, atol=1e-9)
    status, values = node.diagnostics(lambda s, v: float(v["message_rate_hz"]) > 0.0)
    assert int(values["messages_processed"]) > 0
    node.proc.assert_alive()


def test_singularity_reported_in_diagnostics(dynamics_node, panda):
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF), diagnostics_period=0.2)
    node.wait_connected(("external_wrench",))
    q = np.zeros(7)  # stretched straight up: the tip Jacobian loses rank
    tau = panda.gravity_torques(q)
    msg = node.publish_until(
        lambda: node.joint_state(names, q, np.zeros(7), tau), "external_wrench"
    )
    assert np.all(np.isfinite(wrench_array(msg)))
    status, values = node.diagnostics(lambda s, v: v["near_singular"] == "true")
    assert status.level == status.WARN and "singular" in status.message
    assert float(values["min_singular_value"]) < 0.01
    assert int(values["singular_warnings"]) >= 1
    # Away from the singularity the warning clears.
    node.publish_until(
        lambda: node.joint_state(names, Q, np.zeros(7), panda.gravity_torques(Q)),
        "external_wrench",
        lambda m: True,
    )
    status, values = node.diagnostics(lambda s, v: v["near_singular"] == "false")
    assert float(values["min_singular_value"]) > 0.01


def test_static_estimator_with_differentiated_acceleration(dynamics_node, panda):
    """A constant-acceleration motion: the filtered finite difference of the measured velocity
    converges to the true acceleration, and the static estimate to the true wrench."""
    names = list(panda.joint_names)
    qd0 = np.linspace(-0.2, 0.2, 7)
    qdd = np.linspace(0.3, -0.3, 7)
    dt = 0.004

    def state(t):
        return Q + qd0 * t + 0.5 * qdd * t * t, qd0 + qdd * t

    node = dynamics_node(
        urdf=read(PANDA_URDF),
        wrench_estimation="static",
        static_acceleration="differentiated",
        acceleration_filter_time_constant=0.01,
    )
    node.wait_connected(("external_wrench",))
    t0 = node._stamp_ns + 10**9
    k = [0]

    def make():
        k[0] += 1
        t = k[0] * dt
        q, qd = state(t)
        tau = panda.inverse_dynamics(q, qd, qdd) - panda.jacobian(q).T @ F_EXT
        return node.joint_state(names, q, qd, tau, stamp_ns=t0 + k[0] * int(dt * 1e9))

    def error(m):  # against F_EXT as the tip frame reads it at the message's configuration
        step = round((m.header.stamp.sec * 10**9 + m.header.stamp.nanosec - t0) / (dt * 1e9))
        return np.abs(wrench_array(m) - in_tip_frame(panda, state(step * dt)[0], F_EXT)).max()

    wrench = node.publish_until(make, "external_wrench", lambda m: error(m) <= 1e-6, period=0.004)
    assert error(wrench) <= 1e-6
    # with zero acceleration assumed instead, the same motion gives a visibly wrong wrench
    assert node.set_parameters(static_acceleration="zero")[0].successful
    q, qd = state((k[0] + 1) * dt)
    M_qdd = panda.mass_matrix(q) @ qdd
    assert np.abs(M_qdd).max() > 0.05
    node.publish_until(make, "external_wrench", lambda m: error(m) > 1e-3)


def test_relay_node_relays(start_process, console_script, ros_node, unique_name):
    """The benchmark's baseline: JointState in, [stamp.sec, stamp.nanosec, *effort] out."""
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    ns = "/" + unique_name
    proc = start_process(
        console_script("relay_node") + ["--ros-args", "-r", "__ns:=" + ns], name="relay_node"
    )
    got = []
    sub = ros_node.node.create_subscription(
        Float64MultiArray, ns + "/relay_node/output", got.append, 10
    )
    pub = ros_node.node.create_publisher(JointState, ns + "/joint_states", 10)
    assert ros_node.spin_until(
        lambda: pub.get_subscription_count() >= 1 and sub.get_publisher_count() >= 1, 60.0
    )
    msg = JointState(name=["a", "b"], position=[1.0, 2.0], effort=[3.5, -4.25])
    msg.header.stamp.sec, msg.header.stamp.nanosec = 1234, 567890

    def relayed():
        pub.publish(msg)
        ros_node.spin_for(0.05)
        return bool(got)

    assert ros_node.spin_until(relayed, 60.0)
    assert list(got[0].data) == [1234.0, 567890.0, 3.5, -4.25]
    proc.assert_alive()


@pytest.mark.parametrize("executor", ["multi_threaded", "split", "events"])
def test_other_executor_kinds_serve_the_node(dynamics_node, panda, executor):
    """The benchmark's other threading models work end to end (the default, split_events, is
    used by every other test): gravity torques, a service, a refused message, and the node stays
    up."""
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF), executor=executor)
    node.wait_connected()
    assert node.get_parameter("executor") == executor
    node.publish(node.joint_state(names + names[:1], np.concatenate([Q, Q[:1]])))  # refused
    msg = node.publish_until(lambda: node.joint_state(names, Q), "gravity_torques")
    np.testing.assert_allclose(efforts(msg, names), panda.gravity_torques(Q), atol=1e-9)
    res = node.call("get_mass_matrix", GetMassMatrix.Request())
    assert res.success, res.message
    node.proc.assert_alive()


def test_an_overloaded_node_serves_the_newest_state_and_sheds_the_rest(
    dynamics_node, panda, unique_name
):
    """joint_states far faster than the node serves them: it processes the newest message,
    sheds the older ones (counted in /diagnostics), queues nothing (every message it received
    was processed or shed, and its outputs stop with the stream)."""
    names = list(panda.joint_names)
    # joint_states read reliably (the node's QoS overrides): a best-effort reader may lose the
    # burst's newest samples at the transport for good, and then the newest it served is older
    reliable = {f"/{unique_name}/joint_states": {"subscription": {"reliability": "reliable"}}}
    node = dynamics_node(urdf=read(PANDA_URDF), diagnostics_period=0.2, qos_overrides=reliable)
    node.wait_connected(outputs=("feedforward_torques",))
    node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7)), "feedforward_torques")
    count = 3000
    burst = [node.joint_state(names, Q + 1e-4 * k, np.zeros(7)) for k in range(count)]
    stamps = [m.header.stamp.sec * 10**9 + m.header.stamp.nanosec for m in burst]
    for msg in burst:  # as fast as this process publishes: many times the node's rate
        node.publish(msg)
    # every sample the publisher still holds (its newest) has reached the node's reader
    assert node.joint_pub.wait_for_all_acked(Duration(seconds=10))
    node.t.spin_for(1.0)
    inbox = node.inbox["feedforward_torques"]
    seen = len(inbox.messages)
    node.t.spin_for(1.0)
    assert len(inbox.messages) == seen  # nothing left to serve a second after the stream ended

    def accounted(status, values):
        received = int(values["messages_received"])
        shed = int(values["messages_shed"])
        return shed > 0 and received == int(values["messages_processed"]) + shed

    node.diagnostics(accounted)
    node.proc.wait_for_output(r"older ones shed", timeout=10.0)
    last = inbox.messages[-1].header.stamp
    # the last state served is among the newest (the middleware keeps the latest 10)
    assert last.sec * 10**9 + last.nanosec in stamps[-10:]
    node.proc.assert_alive()


def joint_states_reliability(node):
    (info,) = node.node.get_subscriptions_info_by_topic(node.ns + "/joint_states")
    return info.qos_profile.reliability


def test_joint_states_qos_follows_the_users_overrides(dynamics_node, unique_name):
    """ROS's QoS override parameters set how joint_states is read; a bad one stops the start and
    names the parameter."""
    default = dynamics_node(urdf=read(PENDULUM_URDF))
    default.wait_connected()
    assert joint_states_reliability(default) == ReliabilityPolicy.BEST_EFFORT
    default.proc.terminate()

    topic = f"/{unique_name}_1/joint_states"
    overrides = {topic: {"subscription": {"reliability": "reliable", "depth": 50}}}
    node = dynamics_node(urdf=read(PENDULUM_URDF), qos_overrides=overrides)
    node.wait_connected()
    assert joint_states_reliability(node) == ReliabilityPolicy.RELIABLE
    assert node.get_parameter(f"qos_overrides.{topic}.subscription.depth") == 50

    bad = {f"/{unique_name}_2/joint_states": {"subscription": {"reliability": "sometimes"}}}
    refused = dynamics_node(urdf=read(PENDULUM_URDF), wait_loaded=False, qos_overrides=bad)
    assert refused.proc.wait() != 0
    assert f"qos_overrides./{unique_name}_2/joint_states.subscription.reliability" in (
        refused.proc.output()
    )
    assert "'sometimes' is not one of" in refused.proc.output()
