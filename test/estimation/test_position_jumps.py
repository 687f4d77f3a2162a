"""Positions farther than the joints move between two messages, with plain pytest: a second
publisher of the same joints (a joint_state_publisher's zeros beside the driver) is refused
whether it comes first or between the driver's messages, and the effort command never takes its
configuration; a jump that stays (a simulation reset) is taken after JUMP_RUN messages with the
observer restarted; stamp jitter, repeated samples, wraps by whole turns and gaps are no jumps.
"""

import re

import numpy as np
import pytest

from pipeline_helpers import F_EXT, MS, Q, T0, held_torques, moving_push, pipe

from robot_dynamics.estimation.position_jumps import JUMP_RUN, MIN_JUMP_INTERVAL_NS


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


def test_the_driver_takes_over_from_a_first_message_of_another_publisher(panda):
    """The node's first message is a joint_state_publisher's: the driver's positions jump from
    it, the first JUMP_RUN - 1 of them are refused, then taken; from then on the other
    publisher's are refused."""
    p = pipe(panda)
    tau = held_torques(panda, Q, F_EXT)
    assert jsp_message(p, T0).refused is None  # nothing to compare it with: taken
    for k in range(1, 40):
        out = p.update(T0 + k * MS, Q, np.zeros(7), tau)
        assert (out.refused is not None) == (k < JUMP_RUN), (k, out.refused)
    np.testing.assert_allclose(out.gravity, panda.gravity_torques(Q), atol=1e-12)
    assert jsp_message(p, T0 + 40 * MS).refused is not None
    out = p.update(T0 + 41 * MS, Q, np.zeros(7), tau)
    np.testing.assert_allclose(out.command, panda.gravity_torques(Q), atol=1e-12)


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


def test_a_gap_allows_the_motion_of_its_length(panda):
    """Messages lost for 1 s while the arm moved 1 rad: the next one is taken; the same step
    within MIN_JUMP_INTERVAL_NS is refused."""
    p = pipe(panda)
    p.update(T0, Q, np.zeros(7), np.zeros(7))
    out = p.update(T0 + 10**9, Q + 1.0, np.zeros(7), np.zeros(7))
    assert out.refused is None
    out = p.update(T0 + 10**9 + MIN_JUMP_INTERVAL_NS // 2, Q, np.zeros(7), np.zeros(7))
    assert "position of joint 'panda_joint1' jumped by -1 rad in 5 ms" in out.refused
