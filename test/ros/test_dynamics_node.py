"""The dynamics node's outputs as a user runs it: a separate process over real DDS.

Joint states are computed by the core (or Pinocchio) for a known external wrench: the wrench in
the tip, base and a middle link's frame, the momentum observer on a moving arm, the static
estimator with a differentiated acceleration, singularity diagnostics, feed-forward, reference
and effort command, and joint states from several drivers (partial, unordered, unknown joints).
Every wait polls for a condition with a generous timeout (a hang guard, never a speed
requirement).
"""

import re
import time

import numpy as np
import pytest
from builtin_interfaces.msg import Time
from rosgraph_msgs.msg import Clock

from node_test_helpers import (
    F_EXT,
    PANDA_URDF,
    Q,
    TIMEOUT,
    efforts,
    in_tip_frame,
    read,
    stamp_ns,
    trajectory,
    wrench_array,
)

pytestmark = pytest.mark.ros


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
    inbox = node.inbox["external_wrench"]
    inbox.clear()
    steps = int(2.0 / dt)
    for k in range(1, steps + 1):
        q, qd, qdd = state(k * dt)
        node.publish(message(k, q, qd, torques(q, qd, qdd)))
        node.t.spin_for(0.002)

    def seconds(m):  # the estimate's stamp, from the start of the motion [s]
        return (stamp_ns(m) - t0) * 1e-9

    # A loaded node serves fewer of the states (it sheds the older ones), never the newest: the
    # estimates follow the motion to its end, however many there are in between.
    end = (steps - 10) * dt
    assert node.t.spin_until(lambda: any(seconds(m) >= end for m in inbox.messages), TIMEOUT), (
        "no wrench estimate for the end of the motion"
    )
    late = [m for m in inbox.messages if seconds(m) >= 1.0]
    assert len(late) >= 5, "too few wrench estimates"

    def expected(m):
        return in_tip_frame(panda, state(seconds(m))[0], F_EXT)

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
    expected_ref = panda.inverse_dynamics(q_ref, qd_ref, qdd_ref)

    def with_reference():  # the reference again with each state: it expires after 0.5 s
        node.reference_pub.publish(ref)
        return make()

    ff = node.publish_until(
        with_reference,
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


def test_reference_ages_on_simulated_time(dynamics_node, panda):
    """Under use_sim_time a ~/reference ages on /clock's time: it outlives reference_timeout of
    wall time while the simulation stands still, and expires once simulated time passes it."""
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF), use_sim_time=True, reference_timeout=0.5)
    node.wait_connected(("feedforward_torques",))
    clock_pub = node.node.create_publisher(Clock, "/clock", 10)
    sim_ns = [1000 * 10**9]
    reference = []

    def make():
        sec, nanosec = divmod(sim_ns[0], 10**9)
        clock_pub.publish(Clock(clock=Time(sec=sec, nanosec=nanosec)))
        for msg in reference:
            node.reference_pub.publish(msg)
        return node.joint_state(names, Q, np.zeros(7))

    def close_to(expected):
        return lambda m: np.allclose(efforts(m, names), expected, rtol=0, atol=1e-9)

    free = panda.inverse_dynamics(Q, np.zeros(7), np.zeros(7))
    at_ref = panda.inverse_dynamics(Q + 0.1, np.zeros(7), np.zeros(7))

    # First the node's clock must follow /clock (its publisher is new: discovery takes a
    # moment): an unstamped state is answered with the simulated time. A reference received
    # before the first /clock is stamped 0 and expires as soon as the clock starts.
    def unstamped():
        make()
        return node.joint_state(names, Q, np.zeros(7), stamp_ns=0)

    node.publish_until(unstamped, "feedforward_torques", lambda m: stamp_ns(m) == sim_ns[0])
    node.proc.wait_for_output(r"joint_states without a stamp \(0\): stamped on arrival", 30.0)
    node.publish_until(make, "feedforward_torques", close_to(free))
    reference.append(trajectory(names, [Q + 0.1]))
    node.publish_until(make, "feedforward_torques", close_to(at_ref))
    reference.clear()
    inbox = node.inbox["feedforward_torques"]
    seen = len(inbox.messages)

    # The clock stands still for at least 4 x reference_timeout of wall time, and until a few
    # commands have arrived for states published after 2 x reference_timeout (a loaded machine
    # answers slowly; the outputs carry the stamps of the states they were computed from).
    late_ns = None  # the stamp of the first state published after 2 x reference_timeout

    def late():
        return [m for m in inbox.messages[seen:] if late_ns and stamp_ns(m) >= late_ns]

    start = time.monotonic()
    while time.monotonic() - start < 20.0:
        msg = make()
        if late_ns is None and time.monotonic() - start > 2 * 0.5:
            late_ns = stamp_ns(msg)
        node.publish(msg)
        node.t.spin_for(0.02)
        if time.monotonic() - start > 4 * 0.5 and len(late()) >= 3:
            break
    held = inbox.messages[seen:]
    assert len(late()) >= 3, "no commands for the states after 2 x reference_timeout"
    assert all(close_to(at_ref)(m) for m in held), "the reference expired on wall time"
    sim_ns[0] += 600_000_000  # simulated time passes the timeout
    node.publish_until(make, "feedforward_torques", close_to(free))


def test_joint_states_with_a_tf_prefix_are_named_in_the_warning(dynamics_node, panda):
    """A driver started with tf_prefix 'left_' beside a description without one: no joint of
    the model is found; the waiting warning says how the messages name them, and the node goes
    on (serving once the names match)."""
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF))
    node.wait_connected()
    prefixed = ["left_" + name for name in names]
    match = None
    for _ in range(3000):
        node.publish(node.joint_state(prefixed, Q))
        node.t.spin_for(0.02)
        match = re.search(r"waiting for positions of joints .*", node.proc.output())
        if match:
            break
    assert match, node.proc.output()
    assert (
        "the data names 7 of them with the prefix 'left_' ('left_panda_joint1' for "
        "'panda_joint1'): a tf_prefix only one side has?" in match.group(0)
    ), match.group(0)
    msg = node.publish_until(lambda: node.joint_state(names, Q), "gravity_torques")
    np.testing.assert_allclose(efforts(msg, names), panda.gravity_torques(Q), atol=1e-9)
    node.proc.assert_alive()


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
        step = round((stamp_ns(m) - t0) / (dt * 1e9))
        return np.abs(wrench_array(m) - in_tip_frame(panda, state(step * dt)[0], F_EXT)).max()

    wrench = node.publish_until(make, "external_wrench", lambda m: error(m) <= 1e-6, period=0.004)
    assert error(wrench) <= 1e-6
    # with zero acceleration assumed instead, the same motion gives a visibly wrong wrench
    assert node.set_parameters(static_acceleration="zero")[0].successful
    q, qd = state((k[0] + 1) * dt)
    M_qdd = panda.mass_matrix(q) @ qdd
    assert np.abs(M_qdd).max() > 0.05
    node.publish_until(make, "external_wrench", lambda m: error(m) > 1e-3)


def test_diagnostics_warn_while_the_estimation_is_paused(dynamics_node, panda):
    """No driver yet, a driver that leaves out a joint, the velocities or the efforts, a bad
    ~/reference, a driver that stopped: /diagnostics says WARN with the reason."""
    names = list(panda.joint_names)
    g = panda.gravity_torques(Q)
    node = dynamics_node(urdf=read(PANDA_URDF), diagnostics_period=0.2)
    node.wait_connected(("gravity_torques", "external_wrench"))
    status, _ = node.diagnostics()
    assert status.level == status.WARN and "no joint_states received yet" in status.message
    cases = (
        (names[:6], Q[:6], np.zeros(6), g[:6], "waiting for positions of joints ['panda_joint7']"),
        (names, Q, None, g, "no velocity for joints"),
        (names, Q, np.zeros(7), None, "stale effort for panda_joint1"),
    )
    for joints, q, qd, tau, reason in cases:
        status, _ = node.diagnostics_while_publishing(
            lambda: node.joint_state(joints, q, qd, tau), lambda s, v: reason in s.message
        )
        assert status.level == status.WARN, status.message
    assert "estimation paused" not in status.message  # the stale effort says it once
    # the console says it as well: a pause that lasts a whole status is logged, each reason
    for text in (
        "estimation paused: no velocity for joints",
        "estimation paused: stale effort for",
    ):
        deadline = time.monotonic() + 10.0
        while text not in node.proc.output() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert text in node.proc.output(), node.proc.output()
    node.inbox["external_wrench"].clear()
    status, _ = node.diagnostics_while_publishing(
        lambda: node.joint_state(names, Q, np.zeros(7), g), lambda s, v: s.level == s.OK
    )
    assert status.message == "ok"
    node.wait_for("external_wrench")  # another topic: it may come after the status
    bad = trajectory(names[:3], [Q[:3]])  # a reference must give every joint

    def with_bad_reference():
        node.reference_pub.publish(bad)
        return node.joint_state(names, Q, np.zeros(7), g)

    # (a loaded node may also report shed or skipped joint_states, or a period without any)
    status, values = node.diagnostics_while_publishing(
        with_bad_reference, lambda s, v: "~/reference messages refused" in s.message
    )
    assert status.level == status.WARN, status.message
    assert int(values["reference_refused"]) >= 1 and "reference_rejected" not in values
    # the driver stopped (the next status may still count the last messages)
    status, _ = node.diagnostics(lambda s, v: "no joint_states since the last status" in s.message)
    assert status.level == status.WARN, status.message


def test_diagnostics_name_a_joint_whose_effort_is_no_measurement(dynamics_node, panda):
    """A driver that reports effort 0 for one joint in every message while the others measure
    (a gripper's, say): /diagnostics says WARN, names the joint and the fix."""
    names = list(panda.joint_names)
    rng = np.random.default_rng(3)
    g = panda.gravity_torques(Q)
    node = dynamics_node(urdf=read(PANDA_URDF), diagnostics_period=0.2)
    node.wait_connected(("gravity_torques",))

    def one_joint_without_effort():
        effort = g + rng.normal(scale=0.01, size=7)
        effort[6] = 0.0
        return node.joint_state(names, Q, np.zeros(7), effort)

    status, values = node.diagnostics_while_publishing(
        one_joint_without_effort, lambda s, v: v.get("no_effort_joints")
    )
    assert status.level == status.WARN and values["no_effort_joints"] == "panda_joint7"
    assert "panda_joint7: effort exactly 0 in every message" in status.message
    assert "locked_joints" in status.message
