"""~/identify_payload over DDS: a Panda holding a known payload in four static poses (torques from
the core's ``model.with_payload``, with noise; positions with encoder noise, velocities with a
driver's ripple) -> mass within 1 %, COM within 5 mm, no inertia made up; apply=true
sets the payload.* parameters and the node's gravity torques then include the payload. Errors
(no joint states, a centre of mass not determined, a mass that is not positive, a bad window or
frame, a stream that stopped longer ago than the window) -> success false naming the reason.
Motor-side torques at rest (joint friction in the model, stiction held in each pose):
identified, with the named warning payload-at-rest in the message."""

import time

import numpy as np
import pytest

from node_test_helpers import PANDA_URDF, TIMEOUT, efforts, read, stamp_ns

from robot_dynamics_interfaces.srv import IdentifyPayload

pytestmark = pytest.mark.ros

MASS = 1.3
COM = np.array([0.03, -0.02, 0.07])
POSES = np.array(
    [
        [0.0, -0.3, 0.0, -2.0, 0.0, 1.7, 0.8],
        [0.5, 0.2, -0.3, -1.6, 0.9, 1.2, -0.4],
        [-0.4, -0.6, 0.4, -2.3, -1.2, 2.2, 1.5],
        [0.2, 0.4, 0.1, -1.2, 1.6, 0.6, 0.0],
    ]
)
SAMPLES_PER_POSE = 120
PERIOD_NS = 2_000_000  # 500 Hz within a pose
NOISE = 0.02  # [N m] torque noise
RIPPLE = 0.01  # [rad/s] per component, three per joint at 11-22 Hz


def publish_pose(node, names, q, tau_true, start_ns, rng):
    """Publish one pose's states, each once the node has served the one before: every state
    is served (none shed), however slowly a loaded node answers."""
    f = rng.uniform(11.0, 22.0, (3, len(q)))
    phase = rng.uniform(0.0, 2 * np.pi, (3, len(q)))
    served = node.inbox["gravity_torques"]
    for k in range(SAMPLES_PER_POSE):
        t_ns = start_ns + k * PERIOD_NS
        tau = tau_true + rng.normal(0.0, NOISE, tau_true.shape)
        position = q + rng.normal(0.0, 1e-5, len(q))
        velocity = RIPPLE * np.sin(2 * np.pi * f * t_ns * 1e-9 + phase).sum(axis=0)
        node.publish(node.joint_state(names, position, velocity, tau, t_ns))
        assert node.t.spin_until(
            lambda: served.last is not None and stamp_ns(served.last) >= t_ns, TIMEOUT
        ), f"the state stamped {t_ns} was not served"


def identify(node, client, window=0.0, frame="", apply=False):
    request = IdentifyPayload.Request(window=window, frame=frame, apply=apply)
    return node.t.call(client, request, TIMEOUT)


def payload_node(dynamics_node, unique_name, urdf, names):
    """A dynamics node on ``urdf`` (static wrench estimation, joint_states read reliably: no
    state lost on the way), its ~/identify_payload client and the stamp [ns] to publish the
    first pose at."""
    reliable = {f"/{unique_name}/joint_states": {"subscription": {"reliability": "reliable"}}}
    node = dynamics_node(urdf=urdf, wrench_estimation="static", qos_overrides=reliable)
    node.wait_connected(("gravity_torques",))
    client = node.node.create_client(IdentifyPayload, node.fq + "/identify_payload")
    start = node.joint_state(names, POSES[0]).header.stamp.sec * 1_000_000_000
    return node, client, start


def test_identify_payload_from_four_static_poses_and_apply(dynamics_node, panda, unique_name):
    names = list(panda.joint_names)
    truth = panda.with_payload(MASS, COM)
    rng = np.random.default_rng(7)
    node, client, start = payload_node(dynamics_node, unique_name, read(PANDA_URDF), names)

    empty = identify(node, client)
    assert not empty.success and "no joint states" in empty.message

    publish_pose(node, names, POSES[0], truth.gravity_torques(POSES[0]), start, rng)
    one = identify(node, client)
    assert not one.success, one.message
    assert "not determined" in one.message, one.message

    for i in range(1, len(POSES)):  # a second apart: the node's window is 10 s
        publish_pose(node, names, POSES[i], truth.gravity_torques(POSES[i]), start + i * 10**9, rng)
    time.sleep(1.0)  # the stream stops: a window of 0.5 s holds no state of the arm as it is
    stale = identify(node, client, window=0.5)
    assert not stale.success and "no joint states in the last 0.5 s" in stale.message
    bad_window = identify(node, client, window=-1.0)
    assert not bad_window.success and "window" in bad_window.message
    bad_frame = identify(node, client, frame="no_such_link")
    assert not bad_frame.success and "no_such_link" in bad_frame.message

    result = identify(node, client)
    assert result.success, result.message
    assert "warning" not in result.message  # link-side torques, no joint friction
    assert result.frame == "tool"
    assert abs(result.mass - MASS) < 0.01 * MASS, result.mass
    com = np.array([result.com.x, result.com.y, result.com.z])
    assert np.linalg.norm(com - COM) < 0.005, com
    assert list(result.com_determined) == [True, True, True]
    assert 0.0 < result.mass_std < 0.01 * MASS
    assert not result.inertia_determined  # static poses: inertia is not seen
    assert any("inertia" in note for note in result.undetermined)
    assert list(result.joint_names) == names
    assert max(result.residual_rms) < 5 * NOISE
    assert not result.applied
    assert node.get_parameter("payload.mass") == 0.0

    applied = identify(node, client, apply=True)
    assert applied.success and applied.applied, applied.message
    assert node.get_parameter("payload.mass") == pytest.approx(applied.mass)
    np.testing.assert_allclose(
        node.get_parameter("payload.com"), [applied.com.x, applied.com.y, applied.com.z]
    )
    np.testing.assert_array_equal(node.get_parameter("payload.inertia"), [0.0] * 6)

    # the rebuilt model's gravity torques include the payload
    q = POSES[1]
    expected = truth.gravity_torques(q)
    gravity = node.publish_until(
        lambda: node.joint_state(names, q, np.zeros(7), expected),
        "gravity_torques",
        lambda m: np.allclose(efforts(m, names), expected, atol=0.05),
    )
    assert np.abs(efforts(gravity, names) - panda.gravity_torques(q)).max() > 0.5


def test_a_mass_that_is_not_positive_is_no_payload(dynamics_node, panda, unique_name):
    """Torques that fit a load of -1.3 kg exactly (the arm held up by more than its weight): the
    fit determines mass and COM, but no payload is identified and nothing is applied."""
    names = list(panda.joint_names)
    heavier = panda.with_payload(MASS, COM)
    rng = np.random.default_rng(11)
    node, client, start = payload_node(dynamics_node, unique_name, read(PANDA_URDF), names)
    for i, q in enumerate(POSES):
        lighter = 2.0 * panda.gravity_torques(q) - heavier.gravity_torques(q)
        publish_pose(node, names, q, lighter, start + i * 10**9, rng)
    assert not identify(node, client).success
    result = identify(node, client, apply=True)
    assert not result.success and not result.applied, result.message
    assert "not positive" in result.message and "'tool'" in result.message, result.message
    assert result.mass == pytest.approx(-MASS, rel=0.01)
    assert node.get_parameter("payload.mass") == 0.0


def test_a_static_fit_on_motor_side_torques_warns_of_stiction(dynamics_node, panda, unique_name):
    """A model with 1.5 N m of joint friction (motor-side torques) and four static poses, each
    holding its own stiction within +-1.5 N m: the friction model (0 at rest) cannot remove it;
    the answer is still a payload, with the warning payload-at-rest in the message."""
    names = list(panda.joint_names)
    urdf = read(PANDA_URDF).replace(
        '<dynamics damping="0.003" friction="0.0"/>', '<dynamics friction="1.5"/>'
    )
    assert 'friction="1.5"' in urdf
    truth = panda.with_payload(MASS, COM)
    rng = np.random.default_rng(5)
    node, client, start = payload_node(dynamics_node, unique_name, urdf, names)
    for i, q in enumerate(POSES):
        stiction = rng.uniform(-1.5, 1.5, len(q))
        publish_pose(node, names, q, truth.gravity_torques(q) + stiction, start + i * 10**9, rng)
    result = identify(node, client)
    assert result.success, result.message
    assert "; warning payload-at-rest: 100 % of the samples are at or near rest" in result.message
    assert "the model has joint friction on panda_joint1, " in result.message
