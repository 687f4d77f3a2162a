"""The dynamics node under bad input and load, as a process over real DDS: nothing a
message, a parameter or a request carries kills it, no non-finite value reaches
~/effort_command, every refusal is answered or counted, and it is correct again right after.
Non-finite positions refuse the whole message (counted, named); a NaN effort stops only the
estimation, and a stale effort gives no wrench.

The fuzz part is a bounded, seeded generator (deterministic, a few hundred cases against the
process); the pipeline's own fuzz tests (test/estimation) run many more cases without DDS.
"""

import math
import sys
import time

import numpy as np
import pytest

from node_test_helpers import (
    PANDA_URDF,
    Q,
    efforts,
    read,
    stamp_ns,
    trajectory,
    wrench_array,
)

from rcl_interfaces.msg import Parameter as ParameterMsg, ParameterValue
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile
from std_msgs.msg import Float64MultiArray, String

from robot_dynamics_interfaces.srv import (
    ComputeInverseDynamics,
    GetMassMatrix,
    SimulateForwardDynamics,
)

pytestmark = pytest.mark.ros

SPECIALS = [math.nan, math.inf, -math.inf, 1e308, -1e308, 1e200, 1e150, 5e-324, 0.0, -0.0]


def _alive_and_correct(node, panda, q=Q):
    """The node answers a valid message with exact gravity torques."""
    names = list(panda.joint_names)
    node.inbox["gravity_torques"].clear()
    expected = panda.gravity_torques(q)
    node.publish_until(
        lambda: node.joint_state(names, q, np.zeros(7), expected),
        "gravity_torques",
        lambda m: np.allclose(efforts(m, names), expected, rtol=0, atol=1e-9),
    )
    node.proc.assert_alive()


def test_hostile_descriptions_parameters_and_requests_leave_it_alive(dynamics_node, panda):
    names = list(panda.joint_names)
    node = dynamics_node(
        urdf=read(PANDA_URDF), diagnostics_period=0.2, max_simulation_wall_time=2.0
    )
    node.wait_connected()
    _alive_and_correct(node, panda)

    # A description that is not URDF text is refused, never read as a file.
    bad = node.set_parameters(robot_description="/proc/self/mem")[0]
    assert not bad.successful and "not URDF XML text" in bad.reason
    node.description_pub.publish(String(data="/proc/self/mem"))
    node.proc.wait_for_output(r"topic robot_description rejected: .*not URDF XML text", 60.0)

    # A SetParameters request whose ParameterValue.type is 200 raises inside rclpy's parameter
    # service: the spin loop logs and counts it, the node goes on (no answer to that call).
    raw = SetParameters.Request(
        parameters=[ParameterMsg(name="gravity", value=ParameterValue(type=200))]
    )
    future = node.clients["set_parameters"].call_async(raw)
    node.t.spin_until(future.done, 3.0)
    status, values = node.diagnostics(lambda s, v: int(v["callback_errors"]) >= 1)
    assert "ValueError" in values["last_callback_error"]
    node.proc.wait_for_output(r"a callback raised ValueError", 60.0)

    # Absurd values are refused by the parameters' ranges (nothing non-finite can follow).
    for name, value in (
        ("gravity", [1e308, 0.0, 0.0]),
        ("payload__com", [1e308, 0.0, 0.0]),
        ("payload__mass", math.inf),
        ("observer_gain", math.nan),
        ("effort_scale", [math.inf] * 7),
        ("contact__force_on", -1.0),
    ):
        result = node.set_parameters(**{name: value})[0]
        assert not result.successful and name.replace("__", ".") in result.reason, name
    assert list(node.get_parameter("gravity")) == []  # the default: the URDF root's down

    # Service requests with absurd numbers: success false with the reason, immediately.
    req = GetMassMatrix.Request()
    req.joint_state.name = names
    req.joint_state.position = [1e308] * 7
    res = node.call("get_mass_matrix", req)
    assert not res.success and names[0] in res.message
    req = ComputeInverseDynamics.Request()
    req.trajectory = trajectory(names, [Q], [np.full(7, 1e308)])
    res = node.call("compute_inverse_dynamics", req)
    assert not res.success and "velocities" in res.message
    simulate = SimulateForwardDynamics.Request
    cases = [
        (simulate(duration=1.0, sample_period=5e-324), "max_simulation_samples"),
        (simulate(duration=1.0, sample_period=1e-9), "max_simulation_samples"),
        (simulate(duration=1.0, integrator="semi_implicit_euler", fixed_step=5e-324), "fixed_step"),
        (simulate(duration=60.0, integrator="semi_implicit_euler", fixed_step=1e-9), "fixed_step"),
        (simulate(duration=1e308), "duration"),
        (simulate(duration=1.0, rtol=math.inf), "rtol"),
        (simulate(duration=1.0, rtol=math.nan), "rtol"),
        (simulate(duration=1.0, atol=-1.0), "atol"),
        (simulate(duration=1.0, rtol=1e-13, integrator="Radau"), "rtol"),
    ]
    for torque in (1e300, 1e200):
        req = simulate(duration=1.0, integrator="DOP853", torque_mode=simulate.TORQUE_CONSTANT)
        req.constant_torque = [torque] * 7
        cases.append((req, "constant_torque"))
    req = simulate(duration=1.0, apply_external_wrench=True)
    req.external_wrench.force.x = 1e308
    cases.append((req, "external_wrench"))
    for req, word in cases:
        t0 = time.monotonic()
        res = node.call("simulate", req)
        assert not res.success and word in res.message, (word, res.message)
        assert time.monotonic() - t0 < 30.0
    # Work bounded by wall time: a valid but heavy request ends with success false.
    res = node.call("simulate", simulate(duration=60.0, rtol=1e-12, integrator="Radau"))
    assert not res.success and "wall" in res.message, res.message
    _alive_and_correct(node, panda)


def test_a_burst_of_concurrent_service_calls_is_answered(dynamics_node, panda):
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF))
    node.wait_connected()
    _alive_and_correct(node, panda)
    qos = QoSProfile(depth=100)
    mm = node.node.create_client(GetMassMatrix, node.fq + "/get_mass_matrix", qos_profile=qos)
    inv = node.node.create_client(
        ComputeInverseDynamics, node.fq + "/compute_inverse_dynamics", qos_profile=qos
    )
    assert node.t.spin_until(lambda: mm.service_is_ready() and inv.service_is_ready(), 60.0)
    id_req = ComputeInverseDynamics.Request()
    id_req.trajectory = trajectory(names, [Q] * 20)
    futures = []
    for _ in range(40):
        futures.append(mm.call_async(GetMassMatrix.Request()))
        futures.append(inv.call_async(id_req))
    assert node.t.spin_until(lambda: all(f.done() for f in futures), 120.0), (
        f"{sum(f.done() for f in futures)} of 80 answered"
    )
    assert all(f.result().success for f in futures)
    node.proc.assert_alive()


def _fuzz_joint_state(node, rng, names):
    pool = names + ["gripper", "x" * 200, ""]
    count = int(rng.integers(0, 10))
    chosen = list(rng.choice(pool, size=count)) if count else []

    def values(n):
        out = []
        for _ in range(n):
            out.append(float(rng.choice(SPECIALS)) if rng.random() < 0.3 else rng.normal())
        return out

    lengths = [count if rng.random() < 0.8 else int(rng.integers(0, 10)) for _ in range(3)]
    fields = [values(k) if rng.random() < 0.85 else None for k in lengths]
    stamp = None if rng.random() < 0.8 else int(rng.choice([0, 1, 2**62]))
    return node.joint_state(chosen, *fields, stamp_ns=stamp)


def test_fuzzed_inputs_keep_the_node_alive_and_no_non_finite_command(dynamics_node, panda):
    """A seeded sample of joint_states, references, parameter values and service requests:
    the node stays alive, counts the refusals, never publishes a non-finite effort command,
    and is exact again for a valid message right after."""
    names = list(panda.joint_names)
    node = dynamics_node(
        urdf=read(PANDA_URDF),
        publish_effort_command=True,
        effort_command_source="feedforward",
        reference_timeout=0.0,
        diagnostics_period=0.2,
        max_simulation_wall_time=2.0,
    )
    node.wait_connected(("gravity_torques", "effort_command"))
    _alive_and_correct(node, panda)
    rng = np.random.default_rng(12)

    # joint_states (with velocities of 1e200, NaN efforts, unknown and repeated names...)
    for _ in range(300):
        node.publish(_fuzz_joint_state(node, rng, names))
        node.t.spin_for(0.002)
    # velocities and efforts beyond every bound, explicitly
    for field, value in (("velocity", 1e200), ("velocity", 1e308), ("effort", 1e200)):
        vectors = {"position": Q, "velocity": np.zeros(7), "effort": panda.gravity_torques(Q)}
        vectors[field] = vectors[field].copy()
        vectors[field][3] = value
        for _ in range(5):
            node.publish(node.joint_state(names, **vectors))
            node.t.spin_for(0.005)
    # references
    for _ in range(60):
        point = [Q + rng.normal(size=7) * 0.1, rng.normal(size=7), rng.normal(size=7)]
        k = int(rng.integers(0, 3))
        point[k] = point[k].copy()
        point[k][int(rng.integers(0, 7))] = float(rng.choice(SPECIALS))
        node.reference_pub.publish(trajectory(names, [point[0]], [point[1]], [point[2]]))
        node.t.spin_for(0.003)
    # parameter values of every kind, right and wrong
    for _ in range(30):
        name = str(
            rng.choice(
                [
                    "gravity",
                    "payload__mass",
                    "payload__com",
                    "observer_gain",
                    "wrench_frame",
                    "effort_scale",
                    "effort_timeout",
                    "wrench_components",
                    "friction_velocity_threshold",
                ]
            )
        )
        value = {
            "gravity": [float(rng.choice(SPECIALS + [9.81])) for _ in range(3)],
            "payload__mass": float(rng.choice(SPECIALS + [1.0])),
            "payload__com": [float(rng.choice(SPECIALS + [0.01])) for _ in range(3)],
            "observer_gain": float(rng.choice(SPECIALS + [40.0])),
            "wrench_frame": str(rng.choice(["", "panda_link3", "nope", "x" * 100])),
            "effort_scale": [float(rng.choice(SPECIALS + [1.0])) for _ in range(7)],
            "effort_timeout": float(rng.choice(SPECIALS + [0.2])),
            "wrench_components": [str(c) for c in rng.choice(["fx", "tz", "fq", "fx"], 2)],
            "friction_velocity_threshold": float(rng.choice(SPECIALS + [0.02])),
        }[name]
        node.set_parameters(**{name: value})
    # service requests
    for _ in range(12):
        req = GetMassMatrix.Request()
        req.joint_state.name = [str(n) for n in rng.choice(names + ["gripper"], 3)]
        req.joint_state.position = [float(rng.choice(SPECIALS + [0.3])) for _ in range(3)]
        node.call("get_mass_matrix", req)
        req = SimulateForwardDynamics.Request(
            duration=float(rng.choice(SPECIALS + [0.1])),
            sample_period=float(rng.choice(SPECIALS + [0.01])),
            rtol=float(rng.choice(SPECIALS + [1e-6])),
            integrator=str(rng.choice(["RK45", "DOP853", "Radau", "semi_implicit_euler", "?"])),
            fixed_step=float(rng.choice(SPECIALS + [1e-3])),
        )
        res = node.call("simulate", req)
        assert res.success or res.message
    node.proc.assert_alive()
    status, values = node.diagnostics()
    assert int(values["refused"]) > 0
    # correct again: whatever parameters were accepted, put back the defaults, then exact
    results = node.set_parameters(
        gravity=[0.0, 0.0, -9.81], payload__mass=0.0, observer_gain=50.0, wrench_frame=""
    )
    results.append(node.set_parameter_typed("effort_scale", Parameter.Type.DOUBLE_ARRAY, []))
    results.append(node.set_parameter_typed("wrench_components", Parameter.Type.STRING_ARRAY, []))
    assert all(r.successful for r in results), [r.reason for r in results]
    _alive_and_correct(node, panda)
    cmd = node.publish_until(
        lambda: node.joint_state(names, Q, np.zeros(7), panda.gravity_torques(Q)),
        "effort_command",
        lambda m: np.allclose(m.data, panda.gravity_torques(Q), atol=1e-9),
    )
    assert len(cmd.data) == 7
    commands = node.inbox["effort_command"].messages
    assert commands, "no effort command at all"
    assert all(np.isfinite(m.data).all() for m in commands), "a non-finite effort command"


def test_a_large_description_is_built_aside(dynamics_node, panda):
    """A valid ~5 MB URDF (the Panda with visual elements) is built while the old model keeps
    serving joint_states (before: the build held the joint_states path for seconds)."""
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF))
    node.wait_connected()
    _alive_and_correct(node, panda)
    visual = '<visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual>'
    big = read(PANDA_URDF).replace(
        '<link name="panda_link1">', '<link name="panda_link1">' + visual * 80000, 1
    )
    assert len(big) > 5_000_000
    request = SetParameters.Request()
    request.parameters = [Parameter("robot_description", value=big).to_parameter_msg()]
    client = node.clients["set_parameters"]
    future = client.call_async(request)
    inbox = node.inbox["gravity_torques"]
    served = 0
    deadline = time.monotonic() + 300.0
    while not future.done():
        assert time.monotonic() < deadline, "the description was not built"
        before = len(inbox.messages)
        node.publish(node.joint_state(names, Q, np.zeros(7)))
        node.t.spin_for(0.02)
        if not future.done():
            served += len(inbox.messages) > before
    assert future.result().results[0].successful, future.result().results[0].reason
    assert served >= 3, served
    _alive_and_correct(node, panda)


def test_no_command_when_the_command_cannot_be_finite(dynamics_node, panda):
    """With the command on and a feed-forward source but no velocity, nothing is published and
    diagnostics say why (ERROR); a valid message brings the command back."""
    names = list(panda.joint_names)
    node = dynamics_node(
        urdf=read(PANDA_URDF),
        publish_effort_command=True,
        effort_command_source="feedforward",
        diagnostics_period=0.2,
    )
    node.wait_connected(("gravity_torques", "effort_command"))
    node.publish_until(lambda: node.joint_state(names, Q), "gravity_torques")
    status, values = node.diagnostics(lambda s, v: s.level == s.ERROR)
    assert "effort command withheld" in status.message
    assert int(values["effort_commands_withheld"]) >= 1
    node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7)), "effort_command")
    assert all(
        np.isfinite(m.data).all()
        for m in node.inbox["effort_command"].messages
        if isinstance(m, Float64MultiArray)
    )


def test_refused_messages_stop_the_command_with_an_error_even_without_a_clock(dynamics_node, panda):
    """With the command on, joint_states that are refused (a NaN position in each) publish no
    command: the status says so at ERROR, naming the refusal, and it keeps coming under
    use_sim_time with no /clock (the status runs on the steady clock); a valid message brings
    the command back."""
    names = list(panda.joint_names)
    node = dynamics_node(
        urdf=read(PANDA_URDF),
        publish_effort_command=True,
        use_sim_time=True,
        diagnostics_period=0.2,
    )
    node.wait_connected(("gravity_torques", "effort_command"))
    node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7)), "effort_command")
    bad = Q.copy()
    bad[2] = math.nan
    status, values = node.diagnostics_while_publishing(
        lambda: node.joint_state(names, bad, np.zeros(7)),
        lambda s, v: s.level == s.ERROR,
    )
    assert (
        "effort command withheld: joint_states refused: position of joint 'panda_joint3' is not "
        "finite" in status.message
    ), status.message
    node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7)), "effort_command")
    node.proc.assert_alive()


def test_a_second_publisher_of_the_same_joints_never_moves_the_command(dynamics_node, panda):
    """A joint_state_publisher left beside the driver (every joint at 0, no velocity or effort,
    stamped now, every 20th message) on the same topic: its messages are refused naming the
    jump, which the node logs, and every effort command is the driver's gravity torques."""
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF), publish_effort_command=True, diagnostics_period=0.2)
    node.wait_connected(("gravity_torques", "effort_command"))
    expected = panda.gravity_torques(Q)

    def driver():
        return node.joint_state(names, Q, np.zeros(7), expected)

    node.publish_until(
        driver, "effort_command", lambda m: np.allclose(m.data, expected, rtol=0, atol=1e-9)
    )
    inbox = node.inbox["effort_command"]
    seen = len(inbox.messages)
    for k in range(300):
        node.publish(driver())
        if k % 20 == 10:
            node.publish(node.joint_state(names, np.zeros(7)))
        node.t.spin_for(0.002)
    _, values = node.diagnostics(lambda s, v: int(v.get("refused_position", 0)) >= 10)
    commands = inbox.messages[seen:]
    assert len(commands) > 100
    for msg in commands:
        np.testing.assert_allclose(msg.data, expected, rtol=0, atol=1e-9)
    log = node.proc.output()
    assert "joint_states message refused: position of joint 'panda_joint" in log, log
    assert "in a message without velocity or effort: is a joint_state_publisher" in log


def test_ever_new_unknown_joint_names_stay_bounded(dynamics_node, panda):
    """joint_states carrying a new unknown joint name each time: the node remembers (and
    reports) at most MAX_UNKNOWN_NAMES of them, and the model's joints are still served."""
    from robot_dynamics.ros.dynamics_node import MAX_UNKNOWN_NAMES

    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF), diagnostics_period=0.2)
    node.wait_connected()
    sent = [0]

    def stray():  # a new unknown name in each message
        sent[0] += 1
        extra = [f"stray_{sent[0]}"]
        return node.joint_state(names + extra, np.append(Q, 0.0), np.zeros(8), np.zeros(8))

    # at least three times as many names as it keeps, however many a loaded node loses
    status, values = node.diagnostics_while_publishing(
        stray,
        lambda s, v: (
            sent[0] >= 3 * MAX_UNKNOWN_NAMES
            and len(v["unknown_joints"].split()) >= MAX_UNKNOWN_NAMES
        ),
        period=0.005,
    )
    assert len(values["unknown_joints"].split()) == MAX_UNKNOWN_NAMES
    _alive_and_correct(node, panda)


FAILING_TAKE = """
import sys

from robot_dynamics.ros import dynamics_node, latest_messages

take = latest_messages.LatestMessages.take
failed = []


def failing_take(self):
    if not failed:
        failed.append(True)
        raise RuntimeError("injected failure outside the per-message guard")
    return take(self)


latest_messages.LatestMessages.take = failing_take
# every message through the hand-off, as when the node is behind
latest_messages.LatestMessages.serve_at_once = lambda self: False
sys.exit(dynamics_node.main())
"""


def test_a_failure_in_the_serving_task_is_counted_and_the_node_goes_on(
    dynamics_node, panda, tmp_path
):
    """An exception in the executor task that serves joint_states, outside the per-message
    guard (injected: every message goes through the hand-off, whose take raises once), is
    counted and the node goes on on the default executor (rclpy's EventsExecutor ends the
    process when a task raises)."""
    script = tmp_path / "failing_take.py"
    script.write_text(FAILING_TAKE)
    node = dynamics_node(
        urdf=read(PANDA_URDF), program=[sys.executable, str(script)], diagnostics_period=0.2
    )
    node.wait_connected()
    _alive_and_correct(node, panda)
    status, values = node.diagnostics(lambda s, v: int(v["callback_errors"]) >= 1)
    assert int(values["callback_errors"]) == 1
    assert "injected failure" in values["last_callback_error"]
    assert node.proc.terminate() == 0


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
    values = {"refused": "0"}
    deadline = time.monotonic() + 60.0
    while int(values["refused"]) < 10:
        assert time.monotonic() < deadline, f"rejections not counted: {values}"
        for _ in range(5):
            node.publish(node.joint_state(names, bad_position, np.zeros(7), tau))
            sent += 1
            node.t.spin_for(0.02)
        status, values = node.diagnostics()
    node.t.spin_for(0.5)
    status, values = node.diagnostics()
    assert 10 <= int(values["refused"]) <= sent  # each counted once at most
    assert values["model_loaded"] == "true"
    assert names[5] in values["last_refusal"]
    assert "rejected_messages" not in values and "last_rejection" not in values
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

    # gravity kept flowing: a few gravity torques of q2 stamped after the effort went stale
    flowing = []

    def gravity_after_stale(m):
        if stamp_ns(m) > first + 150_000_000 and np.allclose(
            efforts(m, names), panda.gravity_torques(q2), atol=1e-9
        ):
            flowing.append(m)
        return len(flowing) >= 3

    node.publish_until(
        lambda: node.joint_state(names, q2, np.zeros(7), bad_effort),
        "gravity_torques",
        gravity_after_stale,
    )
    late = [m for m in node.inbox["external_wrench"].messages if stamp_ns(m) > first + 150_000_000]
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
    # (while publishing: a status after the stream ended reports a rate of 0)
    status, values = node.diagnostics_while_publishing(
        lambda: node.joint_state(names, Q, np.zeros(7), tau),
        lambda s, v: float(v["message_rate_hz"]) > 0.0,
    )
    assert int(values["messages_processed"]) > 0
    node.proc.assert_alive()
