"""The estimation pipeline on what real drivers send, with plain pytest: partial messages merged
per joint, lost messages counted per driver (two drivers interleaving, a burst at start-up),
drivers whose messages arrive a little out of stamp order, NaN efforts that keep gravity flowing
and pause the estimation, stale efforts that give no phantom wrench, effort scale and offset,
plausibility bounds refused with a named reason, and absurd samples after which the estimate is
correct again at once.
"""

import math

import numpy as np
import pytest

from pipeline_helpers import (
    F_EXT,
    MS,
    PANDA_URDF,
    Q,
    T0,
    feed,
    held_torques,
    moving_push,
    pipe,
    sensor,
)

from robot_dynamics import RobotModel
from robot_dynamics.estimation.output import NARROW_MESSAGE


# ------------------------------------------------------------------ partial messages, drivers
def test_partial_messages_merge_per_joint(panda):
    p = pipe(panda)
    first = np.zeros(7, dtype=bool)
    first[3:] = True
    out = p.update(T0, np.where(first, Q, math.nan), None, None, present=first)
    assert out.gravity is None and out.command is None
    assert out.missing_positions == ("panda_joint1", "panda_joint2", "panda_joint3")
    out = p.update(T0 + MS, np.where(~first, Q, math.nan), None, None, present=~first)
    np.testing.assert_allclose(out.gravity, panda.gravity_torques(Q), atol=1e-12)
    one = np.zeros(7, dtype=bool)
    one[1] = True
    q2 = Q.copy()
    q2[1] += 0.1  # within what the joint moves in 1 ms (farther is a jump: test_position_jumps)
    out = p.update(T0 + 2 * MS, np.where(one, q2, math.nan), None, None, present=one)
    np.testing.assert_allclose(out.gravity, panda.gravity_torques(q2), atol=1e-12)


def test_lost_messages_counted_per_driver(panda):
    """Two drivers at 1 kHz, 0.3 ms apart, each publishing its own joints: no gap while both
    keep their rate; three messages the first driver loses are three skipped messages."""
    p = pipe(panda)
    tau = held_torques(panda, Q, F_EXT)
    arm = np.arange(7) < 4
    lost = {40, 41, 42}
    for k in range(80):
        for present, offset in ((arm, 0), (~arm, 300_000)):
            if present is arm and k in lost:
                continue
            t = T0 + k * MS + offset
            p.update(t, np.where(present, Q, math.nan), np.zeros(7), tau, present=present)
    s = p.status()
    assert (s["stamp_gaps"], s["skipped_messages"]) == (1, 3)


def test_a_message_of_none_of_the_model_s_joints_is_ignored(panda):
    """A gripper's driver publishing only its fingers (which the model does not have) on its own
    clock, 1 s behind the arm's, at 50 Hz: its messages produce nothing and restart nothing; the
    arm's wrench is the push throughout."""
    p = pipe(panda)
    tau = held_torques(panda, Q, F_EXT)
    none = np.zeros(7, dtype=bool)
    for k in range(400):
        out = p.update(T0 + k * MS, Q, np.zeros(7), tau)
        if k % 20 == 10:
            late = p.update(T0 + k * MS - 10**9, np.full(7, math.nan), None, None, present=none)
            assert late.gravity is None and late.wrench is None and late.contact is None
            assert late.estimation_paused == "the message names none of the model's joints: ignored"
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)
    s = p.status()
    assert s["observer_restarts"] == 1 and s["stamps_backwards"] == 0
    assert s["without_model_joints"] == 20


FINGER = """
  <joint name="finger_joint" type="prismatic">
    <parent link="panda_hand"/>
    <child link="finger"/>
    <origin xyz="0 0 0.06"/>
    <axis xyz="0 1 0"/>
    <limit lower="0" upper="0.04" effort="20" velocity="0.2"/>
  </joint>
  <link name="finger">
    <inertial>
      <mass value="0.1"/>
      <inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
</robot>"""


def test_a_gripper_driver_s_messages_merge_without_an_estimate(panda):
    """The arm's driver at 500 Hz and a gripper's driver at 100 Hz (its finger a joint of the
    model) publishing the finger alone, 1 ms after the arm's messages, while a known wrench
    pushes the moving arm. A step at the gripper's messages would extrapolate the arm's held
    state (a phantom of K dt M qdd); they merge the finger and give no estimate, the arm's give
    the push (as with one driver at 500 Hz). When the arm's driver stops, the gripper's go on:
    no estimate either."""
    xml = open(PANDA_URDF).read().replace("</robot>", FINGER)
    model = RobotModel.from_urdf_string(xml, tip_link="tool")
    p = pipe(model)
    arm = np.arange(8) < 7
    t = np.arange(0, 1.5, 1e-3)
    freq = np.linspace(0.3, 0.6, 7)
    q = np.zeros((t.size, 8))
    qd, qdd = np.zeros_like(q), np.zeros_like(q)
    q[:, :7] = Q + 0.4 * np.sin(2 * np.pi * freq * t[:, None])
    qd[:, :7] = 0.4 * 2 * np.pi * freq * np.cos(2 * np.pi * freq * t[:, None])
    qdd[:, :7] = -0.4 * (2 * np.pi * freq) ** 2 * np.sin(2 * np.pi * freq * t[:, None])
    q[:, 7] = 0.02 + 0.01 * np.sin(2 * np.pi * t)
    qd[:, 7] = 0.02 * np.pi * np.cos(2 * np.pi * t)
    qdd[:, 7] = -0.04 * np.pi**2 * np.sin(2 * np.pi * t)
    J = model.jacobian(q, frame="tool")
    tau = model.inverse_dynamics(q, qd, qdd) - np.einsum("kji,j->ki", J, F_EXT)
    errors, gripper = [], 0
    for k in range(t.size):
        if k % 2 == 0 and k < 1200:  # the arm: every 2 ms, until 1.2 s
            out = p.update(T0 + k * MS, *(np.where(arm, x[k], math.nan) for x in (q, qd, tau)), arm)
            if k >= 300:
                errors.append(np.abs(out.wrench - sensor(model, q[k], F_EXT, "tool")).max())
        if k % 10 == 1:  # the gripper: every 10 ms
            out = p.update(
                T0 + k * MS, *(np.where(arm, math.nan, x[k]) for x in (q, qd, tau)), ~arm
            )
            assert out.external_torques is None and out.wrench is None
            assert out.estimation_paused == NARROW_MESSAGE and out.gravity is not None
            gripper += 1
    assert max(errors) < 0.15, max(errors)  # the observer's step at 500 Hz: ~0.1 N
    assert gripper == 150 and p.status()["observer_restarts"] == 1


def test_a_driver_slower_than_the_velocity_timeout_is_named_with_the_fix(panda):
    """The gripper's driver at 8 Hz (every 125 ms, slower than velocity_timeout 0.1 s): the arm's
    estimation pauses when the finger's velocity is stale, naming the joint, the timeout and
    the fix; the feed-forward command is withheld then, its reason kept in the status. With
    both timeouts beyond the gripper's period, every arm message is estimated."""
    xml = open(PANDA_URDF).read().replace("</robot>", FINGER)
    model = RobotModel.from_urdf_string(xml, tip_link="tool")
    arm = np.arange(8) < 7
    q = np.r_[Q, 0.02]
    tau = model.gravity_torques(q)
    for timeout, paused in ((0.1, True), (0.2, False)):
        p = pipe(
            model,
            velocity_timeout=timeout,
            effort_timeout=timeout,
            command_source="feedforward",
        )
        reasons = set()
        for k in range(1000):
            out = p.update(T0 + k * MS, *(np.where(arm, x, math.nan) for x in (q, 0 * q, tau)), arm)
            if k % 125 == 0:  # the gripper's, half a millisecond after the arm's
                stamp = T0 + k * MS + MS // 2
                p.update(stamp, *(np.where(arm, math.nan, x) for x in (q, 0 * q, tau)), ~arm)
            if k >= 125 and out.estimation_paused:
                reasons.add(out.estimation_paused)
        assert bool(reasons) == paused, reasons
        if paused:
            assert reasons == {
                "stale velocity for joints ['finger_joint'] (older than velocity_timeout 0.1 s: "
                "a driver that publishes less often needs a longer velocity_timeout and "
                "effort_timeout, or its joints locked with locked_joints)"
            }
            assert "recent velocity for joints ['finger_joint']" in p.status()["last_withheld"]


def test_interleaved_drivers_do_not_restart_the_observer(panda):
    """Two drivers at 1 kHz whose messages arrive a little out of stamp order (the second one
    stamped 0.2 ms before the first's latest): merged without restarts. A driver's own message
    stamped 12 ms before its newest came late: dropped, no restart; its stamp going back by
    more than observer_max_dt (a clock step) restarts."""
    p = pipe(panda)
    tau = held_torques(panda, Q, F_EXT)
    arm = np.arange(7) < 4
    for k in range(80):
        for present, offset in ((arm, 0), (~arm, -200_000)):
            t = T0 + k * MS + offset
            out = p.update(t, np.where(present, Q, math.nan), np.zeros(7), tau, present=present)
    s = p.status()
    assert s["observer_restarts"] == 1 and s["stamps_backwards"] == 0, s["last_restart"]
    assert s["stamps_interleaved"] == 80
    p.update(T0 + 81 * MS, np.where(arm, Q, math.nan), np.zeros(7), tau, present=arm)
    out = p.update(T0 + 81 * MS, np.where(~arm, Q, math.nan), np.zeros(7), tau, present=~arm)
    out = p.update(T0 + 82 * MS, np.where(arm, Q, math.nan), np.zeros(7), tau, present=arm)
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)
    late = p.update(T0 + 70 * MS, np.where(arm, Q, math.nan), np.zeros(7), tau, present=arm)
    assert late.gravity is None and late.wrench is None and "delivered late" in late.command_error
    s = p.status()
    assert (s["stamps_late"], s["stamps_backwards"], s["observer_restarts"]) == (1, 0, 1)
    p.update(T0 - 10**9, np.where(arm, Q, math.nan), np.zeros(7), tau, present=arm)
    assert p.status()["stamps_backwards"] == 1 and p.status()["observer_restarts"] == 2


def test_a_message_delivered_late_is_dropped_on_a_moving_arm(panda):
    """A moving arm pushed by a known wrench, its driver's messages now and then delivered
    5 ms late (a stamp before the newest): each is dropped and counted, the observer runs on,
    and every wrench published is the push (a restart from a late state would miss M qdd)."""
    p = pipe(panda, observer_gain=200.0)
    q, qd, tau = moving_push(panda, 1200)
    errors = []
    for k in range(len(q)):
        out = p.update(T0 + k * MS, q[k], qd[k], tau[k])
        if k >= 200 and k % 100 == 50:  # the message of 5 ms ago again, delivered late
            late = p.update(T0 + (k - 5) * MS, q[k - 5], qd[k - 5], tau[k - 5])
            assert late.wrench is None and late.feedforward is None
        if k >= 200:
            errors.append(np.abs(out.wrench - sensor(panda, q[k], F_EXT)).max())
    assert p.status()["stamps_late"] == 10 and p.status()["observer_restarts"] == 1
    assert max(errors) < 0.05, max(errors)


def test_a_driver_s_clock_stepping_back_restarts_after_three_late_messages(panda):
    """The driver's clock steps back by 0.3 s (less than observer_max_dt) while a known wrench
    pushes the moving arm: its next messages look late, but three in a row are its time now:
    two are dropped, the third restarts the observer (a stamp gone backwards) and every later
    message has gravity; from 0 on the moving arm the estimate converges to the push and never
    overshoots it (a step across the clock's jump took the momentum jump for a force)."""
    p = pipe(panda, observer_gain=200.0)
    q, qd, tau = moving_push(panda, 1200)
    step = 300 * MS
    push = np.linalg.norm(sensor(panda, q[0], F_EXT)[:3])
    for k in range(len(q)):
        out = p.update(T0 + k * MS - (step if k >= 600 else 0), q[k], qd[k], tau[k])
        if k in (600, 601):
            assert out.gravity is None and "delivered late" in out.command_error
            continue
        assert out.gravity is not None
        if k >= 200:
            truth = sensor(panda, q[k], F_EXT)
            assert np.linalg.norm(out.wrench[:3]) < push + 0.05, k
            if not 602 <= k < 652:  # 10 time constants after the restart
                assert np.abs(out.wrench - truth).max() < 0.05, k
    s = p.status()
    assert (s["stamps_late"], s["stamps_backwards"], s["observer_restarts"]) == (2, 1, 2)
    assert "a step of the driver's clock" in s["last_restart"]


@pytest.mark.parametrize("field", ["velocity", "effort"])
def test_a_message_without_velocities_or_efforts_is_skipped_on_a_moving_arm(panda, field):
    """A moving arm pushed by a known wrench whose driver sends now and then a message with an
    empty velocity or effort field, or NaN in it for one joint, for up to 60 ms (within the
    timeouts): the older values do not belong to the new positions, so such a message gives no
    estimate, the gravity torques and the command still flow, the observer is not restarted
    and spans it, and every wrench published is the push."""
    p = pipe(panda, observer_gain=200.0)
    q, qd, tau = moving_push(panda, 1500)
    errors, skipped = [], 0
    for k in range(len(q)):
        fields = {"velocity": qd[k], "effort": tau[k]}
        if 300 <= k < 360 or 700 <= k < 705:
            fields[field] = None
        elif k % 100 == 50:
            fields[field] = np.where(np.arange(7) == 3, math.nan, fields[field])
        out = p.update(T0 + k * MS, q[k], fields["velocity"], fields["effort"])
        assert out.gravity is not None and out.command is not None
        if fields[field] is None or not np.isfinite(fields[field]).all():
            assert out.wrench is None and out.external_torques is None
            joints = list(panda.joint_names) if fields[field] is None else ["panda_joint4"]
            assert out.estimation_paused == (
                f"no {field} for joints {joints} with their positions: this state is not estimated"
            )
            skipped += 1
        elif k >= 200:
            errors.append(np.abs(out.wrench - sensor(panda, q[k], F_EXT)).max())
    s = p.status()
    assert s["observer_restarts"] == 1 and skipped == 79, (s["last_restart"], skipped)
    assert max(errors) < 0.2, max(errors)


def test_messages_lost_or_refused_on_a_moving_arm_are_spanned(panda):
    """40 ms of a moving arm's messages lost (within observer_max_dt), and a message refused
    (an absurd velocity) every 100 ms: the observer's next step spans them, the known torques
    integrated as a ramp between the samples on either side, no restart (which would miss
    M qdd), and the wrench is the push right after them."""
    p = pipe(panda, observer_gain=200.0)
    q, qd, tau = moving_push(panda, 800)
    errors = []
    for k in range(len(q)):
        if 400 <= k < 440:
            continue
        if k % 100 == 30:
            absurd = np.where(np.arange(7) == 2, 1e6, qd[k])
            out = p.update(T0 + k * MS, q[k], absurd, tau[k])
            assert "velocity of joint 'panda_joint3'" in out.refused
            continue
        out = p.update(T0 + k * MS, q[k], qd[k], tau[k])
        if k >= 200:
            errors.append(np.abs(out.wrench - sensor(panda, q[k], F_EXT)).max())
    s = p.status()
    assert (s["observer_restarts"], s["refused_velocity"]) == (1, 7)
    assert max(errors) < 0.1, max(errors)


def test_stamps_jittering_around_the_cycle_are_no_lost_messages(panda):
    """A logging PC's stamps: 1 kHz with +-0.3 ms of jitter, nothing lost, a message delivered
    late now and then (its successor came first), a refused one: no skipped message. With
    +-0.1 ms of jitter, ten single messages lost are ten skipped messages."""
    rng = np.random.default_rng(7)
    tau = held_torques(panda, Q, F_EXT)
    p = pipe(panda)
    stamps = T0 + np.arange(3000) * MS + rng.integers(-300_000, 300_001, 3000)
    order = np.arange(3000)
    order[1000:1010], order[2000:2010] = order[1000:1010][::-1], order[2000:2010][::-1]
    for k in order:
        if k == 1500:
            assert p.update(int(stamps[k]), Q, np.full(7, 1e9), tau).refused
            continue
        p.update(int(stamps[k]), Q, np.zeros(7), tau)
    s = p.status()
    assert (s["skipped_messages"], s["stamp_gaps"], s["refused"]) == (0, 0, 1), s
    assert s["stamps_late"] == 18
    p = pipe(panda)
    stamps = T0 + np.arange(3000) * MS + rng.integers(-100_000, 100_001, 3000)
    for k in range(3000):
        if k % 250 != 100 or k < 500:
            p.update(int(stamps[k]), Q, np.zeros(7), tau)
    s = p.status()
    assert (s["skipped_messages"], s["stamp_gaps"]) == (10, 10)


def test_a_start_up_burst_leaves_no_gaps_behind(panda):
    """A driver's first messages 0.1 ms apart, then 1 kHz: after a few messages nothing more is
    counted as lost."""
    p = pipe(panda)
    tau = held_torques(panda, Q, F_EXT)
    stamps = [T0 + k * 100_000 for k in range(4)] + [T0 + k * MS for k in range(1, 200)]
    for k, t in enumerate(stamps):
        p.update(t, Q, np.zeros(7), tau)
        if k == 20:
            early = p.status()["skipped_messages"]
    s = p.status()
    assert s["skipped_messages"] == early and s["stamp_gaps"] <= 6


def test_messages_the_caller_shed_are_no_gaps_and_lost_ones_beyond_them_are(panda):
    """A node that sheds messages passes on how many it dropped (``superseded``): the interval
    they span is no gap and leaves the period estimate alone; messages lost beyond them are."""
    p = pipe(panda)
    tau = held_torques(panda, Q, F_EXT)
    k = 0
    for _ in range(20):
        k += 1
        p.ingest(T0 + k * MS, Q, np.zeros(7), tau)
    k += 4  # three shed by the node
    p.ingest(T0 + k * MS, Q, np.zeros(7), tau, superseded=3)
    for _ in range(20):  # the period is still 1 ms: a single lost message is seen
        k += 1
        p.ingest(T0 + k * MS, Q, np.zeros(7), tau)
    s = p.status()
    assert s["stamp_gaps"] == 0 and s["skipped_messages"] == 0
    k += 4  # one shed by the node, two lost on the way
    p.ingest(T0 + k * MS, Q, np.zeros(7), tau, superseded=1)
    s = p.status()
    assert s["stamp_gaps"] == 1 and s["skipped_messages"] == 2
    k += 2  # one lost, none shed
    p.ingest(T0 + k * MS, Q, np.zeros(7), tau)
    assert p.status()["skipped_messages"] == 3


def test_nan_effort_keeps_gravity_and_pauses_estimation(panda):
    """joint_state_broadcaster sends NaN effort for a joint without an effort interface: the
    gravity torques keep flowing, the estimation pauses with the reason counted, names the NaN
    (a driver starting up sends it too) and says that such a joint can be locked (not when no
    joint has an effort)."""
    tau = held_torques(panda, Q, F_EXT)
    tau[2] = math.nan
    p = pipe(panda)
    for k in range(20):
        out = p.update(T0 + k * MS, Q, np.zeros(7), tau)
        assert out.refused is None
        np.testing.assert_allclose(out.gravity, panda.gravity_torques(Q), atol=1e-12)
        assert out.wrench is None and "no effort for joints ['panda_joint3']" in (
            out.estimation_paused
        )
    assert "can be loaded as fixed with locked_joints" in out.estimation_paused
    assert "NaN or inf in every message so far: its effort interface not up yet?" in (
        out.estimation_paused
    )  # a driver starting up sends NaN too: the field's value is named
    s = p.status()
    assert s["nonfinite_effort"] == 20 and s["estimation_paused"] == 20
    assert not s["stale_effort"]  # never had one: not a warning
    # NaN velocity: gravity still, no feed-forward without a reference, estimation paused
    # no joint has an effort (a driver without any): no hint at locking
    out = pipe(panda).update(T0, Q, np.zeros(7), np.full(7, math.nan))
    assert "'panda_joint7'] (NaN or inf" in out.estimation_paused
    assert "locked_joints" not in out.estimation_paused
    qd = np.zeros(7)
    qd[4] = math.nan
    p = pipe(panda, velocity_timeout=0.0)
    out = p.update(T0, Q, qd, held_torques(panda, Q, F_EXT))
    assert out.gravity is not None and out.feedforward is None
    assert "no velocity for joints ['panda_joint5']" in out.estimation_paused
    assert p.status()["nonfinite_velocity"] == 1


def test_an_effort_that_turns_nan_is_said_to_when_it_is_stale(panda):
    """A joint's effort measured, then NaN in every message: once stale the pause says the last
    efforts were NaN; measured again, the reason is gone."""
    tau = held_torques(panda, Q, F_EXT)
    p = pipe(panda, effort_timeout=0.05)
    feed(p, Q, np.zeros(7), tau, count=10)
    nan = tau.copy()
    nan[2] = math.nan
    out = feed(p, Q, np.zeros(7), nan, start=T0 + 10 * MS, count=100)
    assert out.estimation_paused == (
        "stale effort for joints ['panda_joint3'] (older than effort_timeout 0.05 s; the last "
        "efforts of ['panda_joint3'] were NaN or inf)"
    )
    out = feed(p, Q, np.zeros(7), tau, start=T0 + 110 * MS, count=5)
    assert out.estimation_paused is None and out.wrench is not None


def test_stale_effort_gives_no_phantom_wrench(panda):
    """A driver stops filling effort; the arm moves to a new pose: no wrench from the old
    efforts, a warning, and estimates again as soon as efforts come back."""
    p = pipe(panda, effort_timeout=0.1)
    tau = panda.gravity_torques(Q)
    feed(p, Q, np.zeros(7), tau, count=20)
    q_new = Q + 0.3
    outs = [p.update(T0 + (20 + k) * MS, q_new, np.zeros(7), None) for k in range(300)]
    late = outs[150:]
    assert all(o.wrench is None and o.external_torques is None for o in late)
    assert all("stale effort" in o.estimation_paused and o.warnings for o in late)
    s = p.status()
    assert s["stale_effort"] and "panda_joint1" in s["stale_effort_joints"]
    # efforts again: an estimate at once, the warning clears
    out = p.update(T0 + 400 * MS, q_new, np.zeros(7), held_torques(panda, q_new, F_EXT))
    np.testing.assert_allclose(out.wrench, sensor(panda, q_new, F_EXT), atol=1e-6)
    assert not p.status()["stale_effort"] and not out.warnings
    # effort_timeout 0: no age limit for the efforts of joints another driver sent
    p = pipe(panda, effort_timeout=0.0, velocity_timeout=0.0, wrench_estimation="static")
    arm = np.arange(7) < 4
    p.update(T0, Q, np.zeros(7), tau, present=~arm)
    out = p.update(T0 + 10**10, Q, np.zeros(7), tau, present=arm)
    assert out.wrench is not None


def test_effort_scale_and_offset(panda):
    """A driver reporting the torque with the other sign and a constant offset (or a current):
    tau = scale * effort + offset recovers the wrench."""
    tau = held_torques(panda, Q, F_EXT)
    scale = np.array([-1.0, -1.0, -1.0, -1.0, 2.0, 0.5, -1.0])
    offset = np.linspace(-0.5, 0.5, 7)
    effort = (tau - offset) / scale
    p = pipe(panda, effort_scale=tuple(scale), effort_offset=tuple(offset))
    out = feed(p, Q, np.zeros(7), effort)
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)
    unscaled = feed(pipe(panda), Q, np.zeros(7), effort)
    assert np.abs(unscaled.wrench - sensor(panda, Q, F_EXT)).max() > 1.0


# ------------------------------------------------------------------ plausibility, restarts
def test_plausibility_bounds_refuse_with_named_reason(panda):
    p = pipe(panda)
    tau = panda.gravity_torques(Q)
    limits = panda.effort_limits
    bad = tau.copy()
    bad[1] = 11 * limits[1]
    out = p.update(T0, Q, np.zeros(7), bad)
    assert out.refused and "effort of joint 'panda_joint2'" in out.refused
    assert out.gravity is None and out.command is None
    vel = np.zeros(7)
    vel[6] = 11 * panda.velocity_limits[6]
    out = p.update(T0 + MS, Q, vel, tau)
    assert "velocity of joint 'panda_joint7'" in out.refused
    pos = Q.copy()
    pos[5] = math.inf
    assert "position of joint 'panda_joint6' is not finite" in p.update(T0, pos, None, None).refused
    pos[5] = math.nan
    assert "position of joint 'panda_joint6'" in p.update(T0, pos, None, None).refused
    out = p.update(T0, Q[:3], None, None)
    assert "position has shape (3,)" in out.refused
    out = p.update(math.nan, Q, None, None)
    assert out.refused and "stamp" in out.refused
    out = p.update(T0, Q, None, None, present=[True] * 3)
    assert "present has shape (3,)" in out.refused
    s = p.status()
    assert s["refused"] == 7 and s["refused_effort"] == 1 and s["refused_velocity"] == 1
    assert s["refused_position"] == 3 and "present" in s["last_refusal"]
    # a factor of 20 accepts the same effort
    out = pipe(panda, effort_limit_factor=20.0).update(T0, Q, np.zeros(7), bad)
    assert out.refused is None


@pytest.mark.parametrize("absurd", [1e308, 1e150, 1e200])
def test_absurd_velocity_then_correct_at_once(panda, absurd):
    """One absurd velocity in a 1 kHz stream: refused, counted, and the estimate is correct on
    the very next valid sample (the observer spans the refused message, no restart)."""
    tau = held_torques(panda, Q, F_EXT)
    expected = sensor(panda, Q, F_EXT)
    p = pipe(panda)
    feed(p, Q, np.zeros(7), tau, count=50)
    vel = np.zeros(7)
    vel[2] = absurd
    out = p.update(T0 + 50 * MS, Q, vel, tau)
    assert out.refused and "panda_joint3" in out.refused
    for k in range(51, 60):
        out = p.update(T0 + k * MS, Q, np.zeros(7), tau)
        np.testing.assert_allclose(out.wrench, expected, rtol=0, atol=1e-6)
    s = p.status()
    assert s["refused_velocity"] == 1 and s["observer_restarts"] == 1


def test_absurd_effort_does_not_corrupt_the_estimate(panda):
    """1e200 effort on one joint, once: refused; the next estimates are exact (was: 10 s)."""
    tau = held_torques(panda, Q, F_EXT)
    p = pipe(panda)
    feed(p, Q, np.zeros(7), tau, count=20)
    bad = tau.copy()
    bad[4] = 1e200
    assert p.update(T0 + 20 * MS, Q, np.zeros(7), bad).refused
    out = p.update(T0 + 21 * MS, Q, np.zeros(7), tau)
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)
