"""Positions farther than the joints move between two messages, with plain pytest: a second
publisher of the same joints (a joint_state_publisher's zeros beside the driver) is refused
whether it comes first or between the driver's messages, and the effort command never takes its
configuration; a jump that stays (a simulation reset) is taken after JUMP_RUN messages with the
observer restarted; stamp jitter, repeated samples, wraps by whole turns and gaps are no jumps.
"""

import re

import numpy as np
import pytest

from pipeline_helpers import F_EXT, MS, PANDA_URDF, Q, T0, held_torques, moving_push, pipe

from robot_dynamics import RobotModel

from robot_dynamics.estimation.position_jumps import JUMP_RUN, MAX_CREDIT_NS


def jsp_message(p, t_ns):
    """What a joint_state_publisher publishes: every joint at 0, no velocity, no effort."""
    return p.update(t_ns, np.zeros(7), None, None)


def test_a_second_publisher_of_the_same_joints_is_refused_and_changes_nothing(panda):
    """A driver at 1 kHz on a swinging, pushed arm, and a joint_state_publisher's zeros every
    100 ms on the same topic: each of its messages is refused naming the joint; every output at
    the driver's messages is the one without it."""
    q, qd, tau = moving_push(panda, 600)
    alone, beside = pipe(panda), pipe(panda)
    for k in range(600):
        t = T0 + k * MS
        if k % 100 == 50:
            out = jsp_message(beside, t - MS // 2)
            assert out.refused and out.command is None and out.wrench is None
            assert re.match(
                r"position of joint 'panda_joint\d' jumped by -?[\d.]+ rad", out.refused
            )
            assert "joint_state_publisher" in out.refused
        ours = beside.update(t, q[k], qd[k], tau[k])
        reference = alone.update(t, q[k], qd[k], tau[k])
        assert ours.refused is None, ours.refused
        for name in ("command", "gravity", "feedforward", "external_torques", "wrench"):
            np.testing.assert_array_equal(getattr(ours, name), getattr(reference, name), name)
    status = beside.status()
    assert status["refused"] == status["refused_position"] == 6
    assert status["skipped_messages"] == 0  # a refused message is no lost one


def test_the_driver_takes_over_from_another_publisher_at_once(panda):
    """The node's first message is a joint_state_publisher's (positions only): the driver's
    first measured message takes over at once, the estimation restarting; from then on the
    other publisher's messages are refused, even when they come between every two of the
    driver's (they never take the state back)."""
    p = pipe(panda)
    tau = held_torques(panda, Q, F_EXT)
    assert jsp_message(p, T0).refused is None  # nothing to compare it with: taken
    for k in range(1, 200):
        out = p.update(T0 + k * MS, Q, np.zeros(7), tau)
        assert out.refused is None, (k, out.refused)
        np.testing.assert_allclose(out.command, panda.gravity_torques(Q), atol=1e-12)
        other = jsp_message(p, T0 + k * MS + MS // 2)
        assert "in a message without velocity or effort" in other.refused
    assert p.status()["last_restart"].startswith("positions of joint")
    np.testing.assert_allclose(out.external_torques, panda.gravity_torques(Q) - tau, atol=1e-9)


def test_a_publisher_on_another_clock_gets_no_time_for_its_jumps(panda):
    """Stamps far ahead of the driver's (a publisher on the wall clock beside a driver on
    simulated time, measured messages of another configuration): the time between the stamps
    allows no motion, every one of its messages is refused and the driver's are taken."""
    p = pipe(panda)
    tau = held_torques(panda, Q, F_EXT)
    other = Q + 0.6
    for k in range(300):
        assert p.update(T0 + k * MS, Q, np.zeros(7), tau).refused is None
        if k % 10 == 5:
            wall = T0 + 10**12 + k * MS  # 1000 s ahead
            assert p.update(wall, other, np.zeros(7), tau).refused, k


def test_a_jump_that_stays_is_taken_and_the_estimate_starts_over(panda):
    """A simulation reset: the arm at rest under a push is put 0.5 rad further on every joint and
    stays there. JUMP_RUN - 1 messages are refused, then the new state is the arm's and the
    observer restarts from it: the push at once, no phantom from the jump."""
    p = pipe(panda)
    tau = held_torques(panda, Q, F_EXT)
    for k in range(200):
        p.update(T0 + k * MS, Q, np.zeros(7), tau)
    q_new = Q + 0.5
    tau_new = held_torques(panda, q_new, F_EXT)
    outs = [p.update(T0 + (200 + k) * MS, q_new, np.zeros(7), tau_new) for k in range(50)]
    assert [out.refused is not None for out in outs[:JUMP_RUN]] == [True] * (JUMP_RUN - 1) + [False]
    push = panda.gravity_torques(q_new) - tau_new  # tau_ext = J^T F_EXT at the new pose
    for out in outs[JUMP_RUN - 1 :]:
        assert out.refused is None
        np.testing.assert_allclose(out.gravity, panda.gravity_torques(q_new), atol=1e-12)
        np.testing.assert_allclose(out.external_torques, push, atol=1e-9)


@pytest.mark.parametrize("jitter", ["stamps", "repeats"])
def test_jitter_repeats_and_whole_turns_are_no_jumps(panda, rng, jitter):
    """Every joint at 0.9 x its velocity limit with velocity_limit_factor 1 (the tightest
    bound), stamped by a logging PC (jitter of +-0.45 ms around 1 ms, or each sample twice with
    one stamp), the last joint turning past pi and reported in (-pi, pi]: nothing refused."""
    p = pipe(panda, velocity_limit_factor=1.0)
    speed = 0.9 * np.asarray(panda.velocity_limits)
    direction = np.where(np.arange(7) % 2, 1.0, -1.0)
    count = 400
    t = np.arange(count) * 1e-3
    q = Q + direction * speed * (t[:, None] - 0.2)
    q[:, 6] = np.pi - 0.2 + speed[6] * t  # passes pi after ~77 ms
    q[:, 6] = (q[:, 6] + np.pi) % (2 * np.pi) - np.pi
    qd = np.broadcast_to(direction * speed, q.shape).copy()
    qd[:, 6] = speed[6]
    stamps = T0 + np.arange(count) * MS
    if jitter == "stamps":
        stamps = stamps + rng.integers(-450_000, 450_000, count)
    else:
        stamps = T0 + (np.arange(count) // 2) * 2 * MS  # two samples, one stamp
    for k in range(count):
        out = p.update(int(stamps[k]), q[k], qd[k], np.zeros(7))
        assert out.refused is None or "jumped" not in out.refused, (k, out.refused)
    assert p.status()["refused_position"] == 0


def test_a_gap_allows_the_motion_of_its_length_up_to_a_bound(panda):
    """A 1 kHz driver's messages lost for 80 ms while the arm moved half of what that allows:
    taken. After a gap beyond MAX_CREDIT_NS (another clock's stamps) the stamps allow no more
    than the shortest interval: a step that stays is refused JUMP_RUN - 1 times, then taken
    with the estimation restarted."""
    p = pipe(panda)
    bound = 10 * np.asarray(panda.velocity_limits)  # velocity_limit_factor 10
    for k in range(50):
        p.update(T0 + k * MS, Q, np.zeros(7), np.zeros(7))
    moved = Q + 0.5 * bound * 0.08
    resumed = T0 + 129 * MS
    assert p.update(resumed, moved, np.zeros(7), np.zeros(7)).refused is None
    later = resumed + 2 * MAX_CREDIT_NS
    restarts = p.status()["observer_restarts"]
    outs = [p.update(later + k * MS, moved + 1.0, np.zeros(7), np.zeros(7)) for k in range(3)]
    assert [out.refused is not None for out in outs] == [True] * (JUMP_RUN - 1) + [False]
    assert "position of joint 'panda_joint1' jumped by 1 rad in 2e+04 ms" in outs[0].refused
    assert p.status()["observer_restarts"] == restarts + 1


@pytest.mark.parametrize("rate", [1.0, 5.0])
def test_a_slow_driver_of_a_fast_arm_is_no_jump(panda, rate):
    """A driver at 1 or 5 Hz of an arm moving every joint at 0.95 x its velocity limit: each
    message moves it far, in the time its stream's stamps allow: nothing refused."""
    p = pipe(panda)
    speed = 0.95 * np.asarray(panda.velocity_limits)
    period = 1.0 / rate
    for k in range(12):
        t = k * period
        q = Q + speed * 0.3 * np.sin(t / 0.3)  # |qd| up to 0.95 x the limit
        qd = speed * np.cos(t / 0.3)
        out = p.update(T0 + int(round(t * 1e9)), q, qd, np.zeros(7))
        assert out.refused is None, (k, out.refused)


def test_a_joint_without_a_velocity_limit_is_checked_at_a_fallback_speed():
    """A URDF whose velocity limits are 0 (as CAD exporters write them): the joints are
    checked at FALLBACK_SPEED (pi rad/s), and a joint_state_publisher's zeros are refused."""
    text = open(PANDA_URDF).read()
    text = re.sub(r'velocity="[0-9.]+"', 'velocity="0"', text)
    model = RobotModel.from_urdf_string(text)
    p = pipe(model)
    tau = model.gravity_torques(Q)
    for k in range(50):
        assert p.update(T0 + k * MS, Q, np.zeros(7), tau).refused is None
        if k % 10 == 5:
            assert jsp_message(p, T0 + k * MS + MS // 2).refused


def test_a_reset_beside_a_gripper_at_the_arm_s_rate_restarts_the_estimate(panda):
    """A simulation reset (every joint 0.5 rad further, at rest, under a push) while a second
    driver publishes two of the joints at the arm's 100 Hz: the arm's messages are refused
    JUMP_RUN - 1 times at most, and the estimation restarts from the new state (the push at
    once, no phantom)."""
    p = pipe(panda)
    tau = held_torques(panda, Q, F_EXT)
    two = np.arange(7) >= 5  # the "gripper": the last two joints, a driver of their own
    for k in range(100):
        t = T0 + k * 10 * MS
        p.update(t, Q, np.zeros(7), tau)
        p.update(t + 3 * MS, np.where(two, Q, np.nan), np.zeros(7), tau, present=two)
    q_new = Q + 0.5
    tau_new = held_torques(panda, q_new, F_EXT)
    refused = 0
    for k in range(100, 130):
        t = T0 + k * 10 * MS
        out = p.update(t, q_new, np.zeros(7), tau_new)
        refused += out.refused is not None
        p.update(t + 3 * MS, np.where(two, q_new, np.nan), np.zeros(7), tau_new, present=two)
    assert refused <= JUMP_RUN - 1
    np.testing.assert_allclose(
        out.external_torques, panda.gravity_torques(q_new) - tau_new, atol=1e-9
    )
