"""arm_simulator as a separate process over real DDS, checked against the core.

* free fall with zero torque: every published state equals the core's ``simulate`` with the same
  fixed-step integrator (semi_implicit_euler, 1 ms) to 1e-9 rad, and stays within 0.01 rad of the
  core's RK45 (rtol 1e-10) for the first 0.3 s (the first-order error of a 1 ms step);
* energy without friction (double pendulum released from horizontal, 1 kHz fixed step, 3 s):
  max |E - E0| <= 2 % of the largest kinetic energy (the core's integrator gives 1.2 %), and
  equal to the core's own run to 1e-6 J;
* ``~/commands`` in another joint order (and a subset) land on the right joints; saturation at
  the URDF effort limits; wrong-length / NaN commands rejected while the node keeps running;
* external wrench: echoed on ``~/applied_wrench``, its effect equals the core's ``step`` with
  ``f_ext``; ``~/reset``; the URDF from the ``robot_description`` topic; ``/clock``;
* run-time changes: ``real_time_factor`` acts at once; unstable joint-impedance gains are
  refused; a model rebuild keeps released brakes released.
"""

import re
import time

import numpy as np
import pytest

from node_test_helpers import NS_PER_S

from robot_dynamics import RobotModel
from robot_dynamics.tools.bundled import BUNDLED, bundled_urdf_path

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy")
from rclpy.qos import DurabilityPolicy, QoSProfile  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

PANDA_HOME = np.array(BUNDLED["panda"].home)


def read(path):
    with open(path) as fh:
        return fh.read()


def panda_model(**kw):
    return RobotModel.from_urdf_string(read(bundled_urdf_path("panda")), **kw)


def pendulum_model():
    return RobotModel.from_urdf_string(
        read(bundled_urdf_path("double_pendulum")), gravity=(0.0, -9.81, 0.0)
    )


# ------------------------------------------------------------------------------------------ tests


def rebuilt_with_gravity(sim, gravity):
    """Set the simulator's gravity (a model rebuild); the stamp [ns] after which its messages
    come from the new model, as its log says."""
    result = sim.set_parameters(gravity=gravity)[0]
    assert result.successful, result.reason
    found = sim.proc.wait_for_output(
        r"model loaded from parameters \['gravity'\].*"
        r"applied to the messages stamped after (\d+)\.(\d{9}) s",
        timeout=60.0,
    )
    return int(found.group(1)) * NS_PER_S + int(found.group(2))


def test_free_fall_matches_core_simulate(arm_simulator, ros_node):
    """Zero torque from the Panda's home pose: the published trajectory is the core's."""
    sim = arm_simulator(
        read(bundled_urdf_path("panda")),
        initial_positions=PANDA_HOME.tolist(),
        position_limits=False,
        integration_rate=1000.0,
        publish_rate=250.0,
        publish_clock=True,
        hold_until_first_command=True,
        joint_friction=True,
    )
    sim.wait_states(5)
    # braked: nothing moves, effort 0, stamps are simulated time (publish_clock) in 4 ms steps
    for stamp, names, q, qd, effort in sim.states[-5:]:
        assert names == [f"panda_joint{i}" for i in range(1, 8)]
        np.testing.assert_array_equal(q, PANDA_HOME)
        assert not np.any(qd) and not np.any(effort)
    sim.release(7)
    ros_node.spin_until(
        lambda: (sim.states[-1][0] - sim.motion_since_release()[0][0]) >= 0.6 * NS_PER_S, 30
    )
    stamps, q, qd = sim.motion_since_release()
    steps = (stamps - stamps[0]) // 1_000_000  # 1 ms steps since the release
    assert np.all((stamps - stamps[0]) % 1_000_000 == 0)
    assert np.all(np.diff(steps) % 4 == 0)  # one message every 4 steps
    model = panda_model()
    duration = steps[-1] * 1e-3
    ref = model.simulate(
        PANDA_HOME,
        np.zeros(7),
        duration,
        method="semi_implicit_euler",
        fixed_step=1e-3,
        friction=True,
    )
    np.testing.assert_allclose(q, ref.q[steps], rtol=0, atol=1e-9)
    np.testing.assert_allclose(qd, ref.qd[steps], rtol=0, atol=1e-7)
    # against the adaptive integrator: the 1 ms first-order error over 0.3 s of free fall
    rk = model.simulate(
        PANDA_HOME,
        np.zeros(7),
        0.3,
        method="RK45",
        rtol=1e-10,
        atol=1e-12,
        friction=True,
        sample_dt=1e-3,
    )
    early = steps <= 300
    assert np.max(np.abs(q[early] - rk.q[steps[early]])) < 0.01
    assert np.max(np.abs(q[-1] - PANDA_HOME)) > 0.2  # it really fell


def test_energy_conserved_without_friction(arm_simulator, ros_node):
    """Double pendulum released from horizontal, no friction, zero torque, 1 kHz fixed step."""
    sim = arm_simulator(
        read(bundled_urdf_path("double_pendulum")),
        gravity=[0.0, -9.81, 0.0],
        position_limits=False,
        integration_rate=1000.0,
        publish_rate=250.0,
        publish_clock=True,
        hold_until_first_command=True,
        joint_friction=False,
    )
    sim.wait_states(3)
    sim.release(2)
    ros_node.spin_until(
        lambda: (sim.states[-1][0] - sim.motion_since_release()[0][0]) >= 3.0 * NS_PER_S, 60
    )
    stamps, q, qd = sim.motion_since_release()
    model = pendulum_model()
    energy = model.total_energy(q, qd)
    e0 = model.total_energy(np.zeros(2), np.zeros(2))
    ke_max = np.max(model.kinetic_energy(q, qd))
    assert ke_max > 100.0  # it swings (max about 197 J)
    drift = np.max(np.abs(energy - e0))
    assert drift <= 0.02 * ke_max, (
        f"energy drift {drift:.3f} J = {100 * drift / ke_max:.2f} % of {ke_max:.1f} J"
    )
    steps = (stamps - stamps[0]) // 1_000_000
    ref = model.simulate(
        np.zeros(2), np.zeros(2), steps[-1] * 1e-3, method="semi_implicit_euler", fixed_step=1e-3
    )
    np.testing.assert_allclose(energy, ref.energy[steps], rtol=0, atol=1e-6)


def test_commands_in_another_order_land_on_the_right_joints(arm_simulator, ros_node):
    joints = ["panda_joint7", "panda_joint1", "panda_joint4"]
    sim = arm_simulator(
        read(bundled_urdf_path("panda")),
        joints=joints,
        gravity=[0.0, 0.0, 0.0],
        initial_positions=PANDA_HOME.tolist(),
        joint_friction=False,
    )
    sim.wait_states(2)

    def effort_by_name():
        _, names, _, _, effort = sim.states[-1]
        return dict(zip(names, effort))

    def settled(expected):
        got = effort_by_name()
        return all(abs(got[k] - v) < 1e-12 for k, v in expected.items())

    expected = {
        "panda_joint7": 1.5,
        "panda_joint1": -2.0,
        "panda_joint4": 3.0,
        "panda_joint2": 0.0,
        "panda_joint3": 0.0,
        "panda_joint5": 0.0,
        "panda_joint6": 0.0,
    }
    assert ros_node.spin_until(lambda: sim.command([1.5, -2.0, 3.0]) or settled(expected), 20), (
        effort_by_name()
    )
    # saturation at the URDF effort limit (12 N m for joint 7, 87 N m for joint 1)
    sat = {"panda_joint7": 12.0, "panda_joint1": -87.0, "panda_joint4": 3.0}
    assert ros_node.spin_until(lambda: sim.command([100.0, -500.0, 3.0]) or settled(sat), 20), (
        effort_by_name()
    )
    # the torque acts on those joints: joint 7 accelerates positive, joint 1 negative
    _, _, q, qd, _ = sim.states[-1]
    assert qd[6] > 0 and qd[0] < 0
    # back to rest before the spinning arm gets fast (no friction, no gravity)
    assert ros_node.spin_until(
        lambda: sim.command([0.0, 0.0, 0.3]) or settled({"panda_joint4": 0.3}), 20
    )
    assert ros_node.call(sim.reset_client, Trigger.Request()).success  # clears the command
    assert ros_node.spin_until(
        lambda: sim.command([0.0, 0.0, 0.3]) or settled({"panda_joint4": 0.3}), 20
    )
    # a command of the wrong length, or with NaN, is rejected and counted; the node goes on
    sim.command([1.0, 2.0])
    sim.command([float("nan"), 0.0, 0.0])
    wrong_length = re.escape(
        "~/commands has 2 values, expected 3 (ordered by parameter joints: "
        "panda_joint7, panda_joint1, panda_joint4)"
    )
    sim.proc.wait_for_output(wrong_length, timeout=60.0)
    sim.proc.wait_for_output(r"NaN/inf for panda_joint7", timeout=60.0)
    sim.wait_states(500, timeout=60.0)  # a second of simulated time after the rejections
    sim.proc.assert_alive()
    assert settled({"panda_joint4": 0.3, "panda_joint7": 0.0})  # the last valid command holds


@pytest.mark.parametrize("axes", [None, "base"])
def test_external_wrench_matches_core_step(arm_simulator, ros_node, axes):
    """A wrench on the tool for 40 ms (external_wrench_duration) in zero gravity from rest: the
    published motion is the core's step with f_ext during exactly the steps ~/applied_wrench
    reports, then free motion. By default (external_wrench_axes: link) the message is in the
    tool's axes, as ROS reads a WrenchStamped; ~/applied_wrench reports the wrench in the tool's
    axes at each stamp's positions (what a sensor at the tool reads)."""
    f_msg = np.array([0.0, 8.0, -5.0, 0.0, 0.3, 0.0])
    model = panda_model(gravity=(0.0, 0.0, 0.0))
    axes_param = {} if axes is None else {"external_wrench_axes": axes}
    if axes is None:
        rot = model.frame_pose(PANDA_HOME, frame="tool")[:3, :3]
        f = np.concatenate([rot @ f_msg[:3], rot @ f_msg[3:]])
    else:
        f = f_msg
    sim = arm_simulator(
        read(bundled_urdf_path("panda")),
        gravity=[0.0, 0.0, 0.0],
        initial_positions=PANDA_HOME.tolist(),
        joint_friction=False,
        publish_clock=True,
        integration_rate=1000.0,
        publish_rate=500.0,
        external_wrench_duration=0.04,
        **axes_param,
    )
    sim.wait_states(3)
    assert ros_node.spin_until(lambda: sim.wrench_pub.get_subscription_count() > 0, 20)
    sim.push(f_msg, "tool")  # once: each message restarts the 40 ms
    assert ros_node.spin_until(lambda: any(np.any(a[2]) for a in sim.applied), 20)
    # until the wrench is long over, and the states of the replay below have arrived
    end_ns = next(s for s, _, w in sim.applied if np.any(w)) + 300 * 1_000_000
    assert ros_node.spin_until(
        lambda: sim.applied[-1][0] > end_ns and sim.states[-1][0] > end_ns, 60
    )
    on = [(s, w) for s, frame, w in sim.applied if np.any(w)]
    # 40 steps of 1 ms, starting at a publication (2 steps) boundary: 20 messages
    assert len(on) == 20 and on[-1][0] - on[0][0] == 38_000_000, [s for s, _ in on]
    assert all(frame == "tool" for _, frame, w in sim.applied if np.any(w))
    states = {s[0]: (s[2], s[3]) for s in sim.states}
    for stamp, w in on:  # the tool's axes at the state of the same stamp; the arm turns meanwhile
        rot = model.frame_pose(states[stamp][0], frame="tool")[:3, :3]
        np.testing.assert_allclose(np.concatenate([rot @ w[:3], rot @ w[3:]]), f, atol=1e-9)
    assert not np.allclose(on[0][1], on[-1][1], atol=1e-6)
    # replay with the core: states published at stamp k are after step k
    first_on = on[0][0]
    k0 = first_on - 2_000_000  # state before the first step with the wrench
    q, qd = states[k0]
    np.testing.assert_array_equal(q, PANDA_HOME)
    stamp = k0
    for k in range(300):
        stamp += 1_000_000
        w = f if k0 < stamp <= on[-1][0] else None
        q, qd = model.step(
            q, qd, np.zeros(7), 1e-3, f_ext=w, frame="tool" if w is not None else None
        )
        if stamp in states:
            np.testing.assert_allclose(states[stamp][0], q, atol=1e-9)
            np.testing.assert_allclose(states[stamp][1], qd, atol=1e-7)
    assert np.max(np.abs(q - PANDA_HOME)) > 1e-3


def test_reset_service_and_clock(arm_simulator, ros_node):
    clocks = []
    ros_node.node.create_subscription(
        Clock, "/clock", lambda m: clocks.append(m.clock.sec * NS_PER_S + m.clock.nanosec), 100
    )
    sim = arm_simulator(
        read(bundled_urdf_path("panda")), initial_positions=PANDA_HOME.tolist(), publish_clock=True
    )
    sim.wait_states(3)
    assert ros_node.spin_until(lambda: np.max(np.abs(sim.states[-1][2] - PANDA_HOME)) > 0.05, 20)
    result = ros_node.call(sim.reset_client, Trigger.Request())
    assert result.success, result.message
    # "reset to the initial configuration, applied to the messages stamped after 2.860000000 s
    # (simulated time keeps running)"
    found = re.search(r"applied to the messages stamped after (\d+)\.(\d{9}) s", result.message)
    reset_ns = int(found.group(1)) * NS_PER_S + int(found.group(2))
    assert ros_node.spin_until(lambda: sim.states[-1][0] > reset_ns, 20)
    # the reset acts on the messages stamped after the last one published before it
    after = next(i for i, st in enumerate(sim.states) if st[0] > reset_ns)
    # right after the reset the arm is back near home (one publication period of free fall)
    assert np.max(np.abs(sim.states[after][2] - PANDA_HOME)) < 1e-2
    before = max(i for i, st in enumerate(sim.states) if st[0] <= reset_ns)
    assert sim.states[before][0] == reset_ns
    assert np.max(np.abs(sim.states[before][2] - PANDA_HOME)) > 0.05  # it had fallen before
    # simulated time did not go backwards, and /clock was published with it
    stamps = [st[0] for st in sim.states]
    assert all(b > a for a, b in zip(stamps, stamps[1:]))
    # (the /clock subscription may match the simulator's publisher only after the reset: wait)
    assert ros_node.spin_until(lambda: clocks and max(clocks) >= sim.states[after][0], 20), (
        f"/clock: {len(clocks)} messages, last {max(clocks) if clocks else None}, state after "
        f"the reset at {sim.states[after][0]}"
    )
    assert all(b >= a for a, b in zip(clocks, clocks[1:])), "simulated time went backwards"


def test_robot_description_topic_and_bad_urdf(arm_simulator, ros_node):
    sim = arm_simulator(
        None, wait_loaded=False, initial_positions=[0.3, -0.2], gravity=[0.0, -9.81, 0.0]
    )
    sim.proc.wait_for_output(r"waiting for a URDF on the robot_description topic", timeout=60.0)
    qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    pub = ros_node.node.create_publisher(String, sim.ns + "/robot_description", qos)
    pub.publish(String(data="<robot name='broken'><link name='a'/>"))
    sim.proc.wait_for_output(r"topic robot_description rejected: URDFError", timeout=30.0)
    pub.publish(String(data=read(bundled_urdf_path("double_pendulum"))))
    sim.proc.wait_for_output(r"model loaded from topic robot_description: 2 joints", timeout=30.0)
    sim.wait_states(2)
    assert sim.states[-1][1] == ["joint1", "joint2"]
    sim.proc.assert_alive()


def test_bad_parameters_are_rejected_naming_them_until_fixed(arm_simulator):
    """A simulator parameter the model cannot take (an unknown joint; joint impedance gains the
    step cannot keep stable) is named as the fault, not the robot description; the node runs on
    without a model, and setting the parameter right loads it."""
    sim = arm_simulator(
        read(bundled_urdf_path("panda")),
        wait_loaded=False,
        initial_positions=[0.0, 1.0],
        joints=["panda_joint1", "nope"],
    )
    sim.proc.wait_for_output(
        r"parameter joints rejected: InvalidInputError: joints: unknown joint\(s\) nope.*"
        r"\(no model loaded\)",
        timeout=60.0,
    )
    assert "parameter robot_description rejected" not in sim.proc.output()
    sim.proc.assert_alive()

    sim = arm_simulator(
        read(bundled_urdf_path("panda")),
        wait_loaded=False,
        initial_positions=PANDA_HOME.tolist(),
        **{"joint_impedance.stiffness": [2000.0], "joint_impedance.damping": [40.0]},
    )
    sim.proc.wait_for_output(
        r"parameter joint_impedance rejected: InvalidInputError: joint_impedance: unstable "
        r"at integration_rate 1000 Hz .*\(no model loaded\)",
        timeout=60.0,
    )
    result = sim.set_parameters(**{"joint_impedance.damping": [10.0]})[0]
    assert result.successful, result.reason
    sim.proc.wait_for_output(r"model loaded from parameters \['joint_impedance.damping'\]", 30.0)
    sim.wait_states(2)
    sim.proc.assert_alive()


def test_position_limits_act_as_end_stops(arm_simulator, ros_node):
    """+3 N m on joint 7 (zero gravity) drives it into its upper limit 2.8973 rad; the stop
    (100 Hz against the joint's inertia, critically damped) holds it there, stable at 1 kHz,
    with a penetration of about tau/k (~1e-3 rad)."""
    sim = arm_simulator(
        read(bundled_urdf_path("panda")),
        gravity=[0.0, 0.0, 0.0],
        joints=["panda_joint7"],
        initial_positions=[0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 2.5],
        joint_friction=True,
        position_limits=True,
    )
    sim.wait_states(2)
    upper = 2.8973
    assert ros_node.spin_until(
        lambda: sim.command([3.0]) or sim.states[-1][2][6] > upper - 1e-3, 20
    )
    # a second of simulated time at the stop (a loaded simulator takes longer)
    reached_ns = sim.states[-1][0]
    assert ros_node.spin_until(lambda: sim.states[-1][0] >= reached_ns + NS_PER_S, 60)
    q7 = np.array([st[2][6] for st in sim.states[-100:]])
    assert np.all(q7 < upper + 5e-3) and np.all(q7 > upper - 1e-3), (q7.min(), q7.max())
    assert abs(sim.states[-1][3][6]) < 0.05


# ------------------------------------------------------------------------ run-time changes


def test_integration_rate_change_keeps_the_clock_monotonic(arm_simulator, ros_node):
    """Changing integration_rate at run time changes the step, never the clock (simulated time
    counts whole nanoseconds, not k * dt: a higher rate never makes it jump backwards). A rate
    at which the end stops would be unstable is refused while they are on."""
    sim = arm_simulator(read(bundled_urdf_path("double_pendulum")), publish_clock=True)
    sim.wait_states(50)
    result = sim.set_parameters(integration_rate=500.0)[0]
    assert not result.successful and "unstable at integration_rate 500 Hz" in result.reason
    assert sim.set_parameters(position_limits=False)[0].successful
    for rate in (4000.0, 500.0):
        result = sim.set_parameters(integration_rate=rate)[0]
        assert result.successful, result.reason
        sim.wait_states(50)
    stamps = np.array([st[0] for st in sim.states], dtype=np.int64)
    steps = np.diff(stamps)
    assert np.all(steps > 0), "simulated time went backwards"
    # joint_states every publish period (2 ms at 500 Hz, whatever the step): no jump
    assert steps.max() <= 20_000_000, steps.max()
    sim.proc.assert_alive()


def test_runtime_gravity_applies_to_a_urdf_from_the_topic(arm_simulator, ros_node):
    """A URDF that came from the topic is rebuilt when gravity changes (a change that
    reports success takes effect)."""
    start = [0.3, -0.2]
    # gravity in the plane of the pendulum's joints (about z): it swings
    sim = arm_simulator(None, wait_loaded=False, initial_positions=start, gravity=[0.0, -9.81, 0.0])
    qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    pub = ros_node.node.create_publisher(String, sim.ns + "/robot_description", qos)
    pub.publish(String(data=read(bundled_urdf_path("double_pendulum"))))
    sim.proc.wait_for_output(r"model loaded from topic robot_description", timeout=60.0)
    assert ros_node.spin_until(
        lambda: sim.states and np.max(np.abs(sim.states[-1][2] - start)) > 0.01, 60
    )
    boundary_ns = rebuilt_with_gravity(sim, [0.0, 0.0, 0.0])
    # weightless, reset to rest: from the change on, the pendulum stays at its initial
    # configuration (messages published before the change may arrive after it: by stamp)
    assert ros_node.spin_until(lambda: sum(st[0] > boundary_ns for st in sim.states) >= 100, 60)
    after = [st for st in sim.states if st[0] > boundary_ns]
    for st in after:
        np.testing.assert_allclose(st[2], start, atol=1e-9)


def test_clearing_the_parameter_switches_to_the_topic(arm_simulator, ros_node):
    """Started from the parameter, a topic description is ignored until the parameter is
    cleared; then the topic's latest description is used (the node is always subscribed)."""
    sim = arm_simulator(read(bundled_urdf_path("panda")))
    qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    pub = ros_node.node.create_publisher(String, sim.ns + "/robot_description", qos)
    pub.publish(String(data=read(bundled_urdf_path("double_pendulum"))))
    sim.proc.wait_for_output(r"robot_description topic ignored", timeout=60.0)
    result = sim.set_parameters(robot_description="")[0]
    assert result.successful, result.reason
    sim.proc.wait_for_output(r"model loaded from topic robot_description: 2 joints", timeout=60.0)
    assert ros_node.spin_until(lambda: sim.states and sim.states[-1][1] == ["joint1", "joint2"])


def test_a_path_as_description_is_refused_and_the_node_lives(arm_simulator, ros_node):
    """A description that is not URDF text is never read as a file (/proc/self/mem); a refused
    change is logged once, naming the parameter."""
    sim = arm_simulator(read(bundled_urdf_path("double_pendulum")))
    result = sim.set_parameters(robot_description="/proc/self/mem")[0]
    assert not result.successful and "not URDF XML text" in result.reason
    sim.proc.wait_for_output(r"parameter robot_description rejected: .*not URDF XML text", 60.0)
    result = sim.set_parameters(gravity=[0.0, 0.0, 1e9])[0]
    assert not result.successful and "gravity" in result.reason
    sim.proc.wait_for_output(r"WARN.*parameter change refused: .*gravity", 60.0)
    assert sim.proc.output().count("parameter change refused") == 1
    qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    pub = ros_node.node.create_publisher(String, sim.ns + "/robot_description", qos)
    pub.publish(String(data="/proc/self/mem"))
    sim.proc.wait_for_output(r"topic robot_description rejected: .*not URDF XML text", 60.0)
    count = len(sim.states)
    sim.wait_states(10)
    assert sim.states[-1][1] == ["joint1", "joint2"]
    assert len(sim.states) > count
    sim.proc.assert_alive()


def test_effort_noise_on_the_published_effort_only(arm_simulator, ros_node):
    """effort_noise: Gaussian noise of that standard deviation on the published effort; the
    physics keeps the exact torque (the braked arm stays put); a negative value is refused. Set to
    0 at run time, it is off in exactly the messages stamped after the one the simulator logs,
    which is stamped before the set-parameters response."""
    sim = arm_simulator(
        read(bundled_urdf_path("double_pendulum")),
        gravity=[0.0, -9.81, 0.0],
        publish_rate=500.0,
        hold_until_first_command=True,  # braked: the exact effort is 0
        effort_noise=0.5,
    )
    sim.wait_states(400, timeout=60.0)
    effort = np.array([s[4] for s in sim.states[-400:]])
    q = np.array([s[2] for s in sim.states[-400:]])
    assert np.all(np.isfinite(effort))
    assert 0.4 < effort.std() < 0.6, effort.std()
    assert abs(effort.mean()) < 0.1
    np.testing.assert_array_equal(q, np.broadcast_to(q[0], q.shape))  # not applied to the arm
    assert not sim.set_parameters(effort_noise=-1.0)[0].successful
    assert sim.set_parameters(effort_noise=0.0)[0].successful
    acknowledged_ns = time.time_ns()
    found = sim.proc.wait_for_output(
        r"set effort_noise: applied to the messages stamped after (\d+)\.(\d{9}) s"
    )
    boundary_ns = int(found.group(1)) * NS_PER_S + int(found.group(2))
    assert boundary_ns < acknowledged_ns
    # messages published before the change may arrive after the response: select by stamp
    assert ros_node.spin_until(lambda: sum(s[0] > boundary_ns for s in sim.states) >= 50, 30)
    before = [s for s in sim.states if s[0] <= boundary_ns]
    after = [s for s in sim.states if s[0] > boundary_ns]
    assert len(before) >= 400
    assert all(np.all(s[4] != 0.0) for s in before)
    assert all(np.all(s[4] == 0.0) for s in after), [s[0] - boundary_ns for s in after if any(s[4])]


def test_effort_noise_seed_repeats_the_noise_from_the_start_and_after_reset(
    arm_simulator, ros_node
):
    """Two simulators with the same effort_noise_seed publish the same noisy efforts at the same
    simulated stamps, another seed other noise; after ~/reset the noise starts again from the
    seed: the k-th message after the reset has the effort of the k-th message from the start."""
    params = dict(
        gravity=[0.0, -9.81, 0.0],
        # 100 Hz: three simulators' joint_states at once, a loaded test process takes them all
        publish_rate=100.0,
        publish_clock=True,  # stamps are simulated time from 0: the k-th message at k * 10 ms
        hold_until_first_command=True,  # braked: the exact effort is 0, the rest is noise
        effort_noise=0.5,
    )
    pendulum = read(bundled_urdf_path("double_pendulum"))
    first = arm_simulator(pendulum, effort_noise_seed=7, **params)
    same = arm_simulator(pendulum, effort_noise_seed=7, **params)
    other = arm_simulator(pendulum, effort_noise_seed=8, **params)
    period_ns = 10_000_000

    def by_index(sim, origin_ns=0):
        return {(s[0] - origin_ns) // period_ns: s[4] for s in sim.states if s[0] > origin_ns}

    def overlap(*sims):  # indices received from every one (each from its subscription's match)
        return set.intersection(*(set(by_index(sim)) for sim in sims))

    assert ros_node.spin_until(lambda: len(overlap(first, same, other)) >= 150, 60)
    a, b, c = by_index(first), by_index(same), by_index(other)
    common = sorted(set(a) & set(b) & set(c))
    assert len(common) >= 100
    for k in common:
        np.testing.assert_array_equal(a[k], b[k])
        assert not np.any(a[k] == c[k])

    result = ros_node.call(first.reset_client, Trigger.Request())
    assert result.success, result.message
    found = re.search(r"applied to the messages stamped after (\d+)\.(\d{9}) s", result.message)
    reset_ns = int(found.group(1)) * NS_PER_S + int(found.group(2))
    # until the messages after the reset reach the indices received from `same` (its first
    # ones were published before the test's subscription matched)
    end_ns = reset_ns + (min(b) + 150) * period_ns
    assert ros_node.spin_until(lambda: first.states[-1][0] > end_ns, 60)
    after = by_index(first, reset_ns)
    b = by_index(same)
    common = sorted(set(after) & set(b))
    assert len(common) >= 100
    for k in common:
        np.testing.assert_array_equal(after[k], b[k])


def test_a_real_time_factor_change_acts_at_once(arm_simulator, ros_node):
    """real_time_factor 0.5 at run time, after 3 s at 1: half speed at once (no wait of the 3 s
    already run); back to 1: full speed, no overrun, and the stamps lag the wall clock by the
    simulated time not run at half speed."""
    sim = arm_simulator(read(bundled_urdf_path("double_pendulum")), publish_rate=100.0)
    sim.wait_states(2)
    assert ros_node.spin_until(lambda: sim.states[-1][0] - sim.states[0][0] > 3 * NS_PER_S, 30)
    assert sim.set_parameters(real_time_factor=0.5)[0].successful
    half_from = time.time_ns()
    count = len(sim.states)
    ros_node.spin_for(2.0)
    assert len(sim.states) > count + 10, "no joint_states at half speed"
    span = (sim.states[-1][0] - sim.states[count][0]) / NS_PER_S
    assert 0.7 < span < 1.2, f"{span:.3f} s of simulated time in 2 s at half speed"
    assert sim.set_parameters(real_time_factor=1.0)[0].successful
    half_s = (time.time_ns() - half_from) / NS_PER_S
    count = len(sim.states)
    ros_node.spin_for(1.5)
    lag = (time.time_ns() - sim.states[-1][0]) / NS_PER_S
    span = (sim.states[-1][0] - sim.states[count][0]) / NS_PER_S
    assert 1.2 < span < 1.6, f"{span:.3f} s of simulated time in 1.5 s at full speed"
    assert abs(lag - 0.5 * half_s) < 0.3, (lag, half_s)
    assert "behind the wall clock" not in sim.proc.output()


def test_an_unstable_joint_impedance_is_refused(arm_simulator):
    """Joint impedance gains the 1 kHz step cannot keep stable are refused with the joint and
    what is stable; stable ones are taken."""
    sim = arm_simulator(read(bundled_urdf_path("panda")), initial_positions=PANDA_HOME.tolist())
    results = sim.set_parameters(
        **{"joint_impedance.stiffness": [2000.0], "joint_impedance.damping": [40.0]}
    )
    assert results[0].successful, results[0].reason
    assert not results[1].successful
    assert results[1].reason.startswith(
        "InvalidInputError: joint_impedance: unstable at integration_rate 1000 Hz at the initial "
        "positions: panda_joint7 with stiffness 2000 N m/rad and damping 40 N m s/rad"
    )
    assert "integration_rate 3110 Hz or more" in results[1].reason
    sim.proc.wait_for_output(r"WARN.*parameter change refused: .*joint_impedance: unstable")
    assert sim.set_parameters(**{"joint_impedance.damping": [10.0]})[0].successful
    sim.proc.assert_alive()


def test_a_model_rebuild_keeps_the_brakes_released(arm_simulator, ros_node):
    """Released by a command, the brakes stay released when a gravity change rebuilds the model:
    from the rebuild on the pendulum swings from its initial configuration, with no command."""
    start = [0.3, -0.2]
    sim = arm_simulator(
        read(bundled_urdf_path("double_pendulum")),
        gravity=[0.0, -9.81, 0.0],
        initial_positions=start,
        hold_until_first_command=True,
    )
    sim.wait_states(5)
    sim.release(2)
    ros_node.spin_for(0.3)  # the last zero commands arrive before the rebuild
    boundary_ns = rebuilt_with_gravity(sim, [0.0, -9.0, 0.0])
    assert ros_node.spin_until(lambda: sum(st[0] > boundary_ns for st in sim.states) >= 50, 60)
    after = [st for st in sim.states if st[0] > boundary_ns]
    assert np.max(np.abs(after[-1][2] - start)) > 1e-3  # swinging: not braked
    assert sim.proc.output().count("brakes released") == 1
