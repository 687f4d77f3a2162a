"""The estimation pipeline's tare and contact detection, with plain pytest: a tare removing a
constant offset (and failing without estimates or on a reset), contact on/off with hysteresis
and a minimum duration, the link in contact, and the contact onset during a simulated push.
"""

import numpy as np
import pytest

from pipeline_helpers import F_EXT, MS, Q, T0, feed, held_torques, pipe, sensor, simulate_push


# ------------------------------------------------------------------ tare and reset
def test_tare_removes_a_constant_offset(panda):
    """Model error shows as a constant residual; the tare averages it and subtracts it."""
    model_error = np.linspace(-1.0, 1.0, 7)  # N m the URDF does not explain
    rest = panda.gravity_torques(Q) + model_error
    p = pipe(panda, tare_duration=0.1)
    out = feed(p, Q, np.zeros(7), rest, count=10)
    assert np.abs(out.wrench).max() > 0.5  # biased before the tare
    assert p.tare_state() == "idle" and p.bias is None
    p.start_tare(T0 + 10 * MS)
    assert p.tare_state() == "collecting"
    out = feed(p, Q, np.zeros(7), rest, start=T0 + 10 * MS, count=102)
    assert p.tare_state() == "done"
    np.testing.assert_allclose(p.bias, -model_error, atol=1e-9)
    np.testing.assert_allclose(out.wrench, 0.0, atol=1e-9)
    # a push after the tare reads without the offset
    pushed = held_torques(panda, Q, F_EXT) + model_error
    out = feed(p, Q, np.zeros(7), pushed, start=T0 + 200 * MS, count=300)  # observer: 1/K
    np.testing.assert_allclose(out.wrench, sensor(panda, Q, F_EXT), atol=1e-6)
    assert p.status()["tare"] == "done"
    # reset_estimation clears the bias
    p.reset_estimation()
    assert p.bias is None and p.tare_state() == "idle"
    out = p.update(T0 + 600 * MS, Q, np.zeros(7), rest)
    assert np.abs(out.wrench).max() > 0.5
    assert p.status()["last_restart"] == "reset_estimation"


def test_tare_is_refused_without_estimates_fails_when_they_stop_and_reset_stops_it(panda):
    p = pipe(panda, tare_duration=0.2)  # longer than effort_timeout (0.1 s)
    refused = "failed: no external torque estimates to average: "
    p.start_tare(T0)
    assert p.tare_state() == refused + "no joint_states message yet"
    feed(p, Q, np.zeros(7), None, count=5)  # efforts never come
    p.start_tare(T0 + 5 * MS)
    assert p.tare_state().startswith(refused) and "no effort" in p.tare_state()
    # estimates, then the efforts stop during the tare: it fails after 3 tare_duration
    rest = panda.gravity_torques(Q)
    feed(p, Q, np.zeros(7), rest, start=T0 + 10 * MS, count=5)
    p.start_tare(T0 + 15 * MS)
    assert p.tare_state() == "collecting"
    feed(p, Q, np.zeros(7), None, start=T0 + 15 * MS, count=700)
    assert p.tare_state().startswith("failed: no external torque estimates for 0.6")
    assert "effort" in p.tare_state()
    feed(p, Q, np.zeros(7), rest, start=T0 + 800 * MS, count=5)
    p.start_tare(T0 + 805 * MS)
    p.update(T0 + 805 * MS, Q, np.zeros(7), rest)
    p.reset_estimation()
    assert p.tare_state() == "failed: reset during the tare" and p.bias is None


# ------------------------------------------------------------------ contact detection
def push_profile(level_ms):
    """[(duration_ms, force magnitude)] -> per-ms force magnitudes."""
    return [f for duration, f in level_ms for _ in range(duration)]


def test_contact_hysteresis_and_min_duration(panda):
    """A push along the tool z axis: on above 5 N for 20 ms, off below 2 N for 20 ms; a spike
    shorter than min_duration and a dip between the levels change nothing."""
    R = panda.frame_pose(Q)[:3, :3]
    p = pipe(
        panda,
        wrench_estimation="static",
        contact={"force_on": 5.0, "force_off": 2.0, "min_duration": 0.02},
    )
    profile = push_profile(
        [(50, 0.0), (10, 8.0), (40, 0.0), (60, 8.0), (40, 3.0), (30, 1.0), (20, 0.0)]
    )
    states = []
    for k, magnitude in enumerate(profile):
        f_ext = np.r_[R @ np.array([0.0, 0.0, magnitude]), 0, 0, 0]
        out = p.update(T0 + k * MS, Q, np.zeros(7), held_torques(panda, Q, f_ext))
        states.append(out.contact)
    on = np.array([s.in_contact for s in states])
    changed = [k for k, s in enumerate(states) if s.changed]
    # the 10 ms spike at 50..59 is too short; the push from 100 on switches at 120
    assert not on[:120].any()
    assert changed == [120, 220]  # below 2 N from 200 on
    assert on[120:220].all()  # 3 N (between the levels) holds the contact
    assert not on[220:].any()
    assert states[150].link == "tool" and states[150].force == pytest.approx(8.0, abs=1e-6)
    assert states[240].link == ""
    s = p.status()
    assert s["contacts"] == 1 and not s["in_contact"]


def test_contact_isolates_the_link(panda):
    """Per-joint torque levels: a push on link 4 shows residual on joints 1..4 only; the most
    distal joint above its level names panda_link4; a push on the tool names panda_link7 (the
    body of joint 7: the tool is fixed to it)."""
    levels = tuple([0.5] * 7)
    p = pipe(
        panda,
        wrench_estimation="static",
        contact={"torque_on": levels, "torque_off": tuple([0.2] * 7), "min_duration": 0.0},
    )
    axis4 = panda.frame_pose(Q, frame="panda_link4")[:3, 2]  # joint 4 turns about z4
    f_link4 = np.r_[0.0, 20.0, -10.0, 5.0 * axis4]
    tau = held_torques(panda, Q, f_link4, frame="panda_link4")
    assert abs(panda.jacobian(Q, frame="panda_link4")[:, 3] @ f_link4) > 1.0
    out = p.update(T0, Q, np.zeros(7), tau)
    assert out.contact.in_contact and out.contact.changed and out.contact.link == "panda_link4"
    np.testing.assert_allclose(out.external_torques[4:], 0.0, atol=1e-9)
    out = p.update(T0 + MS, Q, np.zeros(7), held_torques(panda, Q, F_EXT * 5))
    assert out.contact.in_contact and out.contact.link == "panda_link7"
    out = p.update(T0 + 2 * MS, Q, np.zeros(7), panda.gravity_torques(Q))
    assert not out.contact.in_contact and out.contact.changed and out.contact.link == ""
    # contact detection off: no state
    assert pipe(panda).update(T0, Q, np.zeros(7), tau).contact is None


def test_contact_link_holds_while_a_push_fades_and_follows_a_new_one(panda):
    """A push on link 4 fading out: once no joint is above its start level, the release levels
    hold the contact, and the proximal joints (longer lever arms) stay above them longest; the
    link stays panda_link4 until the contact ends. A strong push on link 2 during a contact
    moves the link there."""
    on, off = 0.5, 0.2
    p = pipe(
        panda,
        wrench_estimation="static",
        contact={"torque_on": (on,) * 7, "torque_off": (off,) * 7, "min_duration": 0.0},
    )
    axis4 = panda.frame_pose(Q, frame="panda_link4")[:3, 2]  # joint 4 turns about z4
    f_link4 = np.r_[0.0, 20.0, -10.0, 1.0 * axis4]
    unit = held_torques(panda, Q, f_link4, frame="panda_link4") - panda.gravity_torques(Q)
    tau4, tau_max = abs(unit[3]), np.abs(unit[:4]).max()
    # a proximal joint carries more of the push: above the release level when joint 4 is below
    assert off < 0.9 * off * tau_max / tau4 < on
    rest = panda.gravity_torques(Q)
    # scales: well above the start levels, then joint 4 below its release level while the
    # proximal joint is still above it, then nothing above any release level
    scales = [2.0 * on / tau4, 0.9 * on / tau_max, 0.9 * off / tau4, 0.9 * off / tau_max]
    links, in_contact = [], []
    for k, scale in enumerate(scales):
        out = p.update(T0 + k * MS, Q, np.zeros(7), rest + scale * unit)
        links.append(out.contact.link)
        in_contact.append(out.contact.in_contact)
    assert in_contact == [True, True, True, False]
    assert links == ["panda_link4", "panda_link4", "panda_link4", ""]
    # a contact moving to link 2 (above the start levels there, nothing beyond joint 2)
    axis2 = panda.frame_pose(Q, frame="panda_link2")[:3, 2]
    f_link2 = np.r_[0.0, 30.0, 10.0, 3.0 * axis2]
    tau2 = held_torques(panda, Q, f_link2, frame="panda_link2")
    out = p.update(T0 + 4 * MS, Q, np.zeros(7), rest + 2.0 * on / tau4 * unit)
    assert out.contact.in_contact and out.contact.link == "panda_link4"
    out = p.update(T0 + 5 * MS, Q, np.zeros(7), tau2)
    assert out.contact.in_contact and out.contact.link == "panda_link2"


def test_contact_during_a_simulated_push(arm3):
    """The observer on a simulated 3-DOF arm pushed from 0.2 s on: no contact before, one onset
    min_duration after the estimate crosses the level, held for the rest of the push."""
    q0 = np.array([0.3, -0.7, 1.1])
    f_ext = np.array([3.0, -4.0, 6.0, 0.0, 0.0, 0.0])  # |f| = 7.8 N
    p = pipe(arm3, observer_gain=100.0, contact={"force_on": 4.0, "force_off": 2.0})
    first_above = onset = None
    for t, q, qd, tau, pushed in simulate_push(arm3, q0, f_ext, "tool", 0.6):
        out = p.update(t, q, qd, tau)
        if not pushed:
            assert not out.contact.in_contact
        if first_above is None and out.contact.force > 4.0:
            first_above = t
        if out.contact.changed:
            assert onset is None, "one onset only"
            onset = t
            assert out.contact.in_contact and out.contact.link == "tool"
    assert first_above is not None and onset - first_above == 20 * MS  # min_duration 0.02 s
    assert out.contact.in_contact and p.status()["contacts"] == 1


def test_a_new_configuration_or_model_keeps_an_ongoing_contact(panda):
    """A steady 10 N push, in contact: a new contact level, minimum duration or observer gain, or
    a payload (a new model), neither releases the contact nor counts a new one; the new levels
    then decide the release."""
    R = panda.frame_pose(Q)[:3, :3]
    pushed = held_torques(panda, Q, np.r_[R @ np.array([0.0, 0.0, 10.0]), 0, 0, 0])
    contact = {"force_on": 3.0, "force_off": 1.5, "min_duration": 0.02}
    p = pipe(panda, contact=contact)
    out = feed(p, Q, np.zeros(7), pushed, count=60)
    assert out.contact.in_contact and out.contact.contacts == 1
    t = T0 + 60 * MS
    configs = [
        dict(contact={**contact, "force_on": 4.0}),
        dict(contact={**contact, "min_duration": 0.05}),
        dict(contact=contact, observer_gain=60.0),
    ]
    for fields in configs:
        p = p.with_config(pipe(panda, **fields).config)
        for _ in range(100):
            out = p.update(t, Q, np.zeros(7), pushed)
            t += MS
            assert out.contact.in_contact and not out.contact.changed, fields
            assert out.contact.contacts == 1 and out.contact.link == "tool"
    p = p.with_model(panda.with_payload(1e-3, [0.0, 0.0, 0.0], frame="tool"))
    out = feed(p, Q, np.zeros(7), pushed, start=t, count=100)
    assert out.contact.in_contact and out.contact.contacts == 1 and p.status()["contacts"] == 1
    # 2 N: above the release level of 1.5 N, the contact holds; 1 N releases it
    for force, held in ((2.0, True), (1.0, False)):
        tau = held_torques(panda, Q, np.r_[R @ np.array([0.0, 0.0, force]), 0, 0, 0])
        t += 100 * MS
        out = feed(p, Q, np.zeros(7), tau, start=t, count=100)
        assert out.contact.in_contact == held and out.contact.contacts == 1


def test_a_pause_ends_a_contact_and_estimates_find_it_again(panda):
    """A steady 10 N push, in contact; the driver stops sending efforts: once they are stale the
    estimation pauses and the contact ends (one change, no contact while paused); efforts back
    with the push still on: a new contact."""
    R = panda.frame_pose(Q)[:3, :3]
    pushed = held_torques(panda, Q, np.r_[R @ np.array([0.0, 0.0, 10.0]), 0, 0, 0])
    p = pipe(panda, contact={"force_on": 3.0, "force_off": 1.5})
    out = feed(p, Q, np.zeros(7), pushed, count=50)
    assert out.contact.in_contact and out.contact.contacts == 1
    states = [p.update(T0 + (50 + k) * MS, Q, np.zeros(7), None).contact for k in range(300)]
    ended = [k for k, s in enumerate(states) if s.changed]
    assert len(ended) == 1 and not states[ended[0]].in_contact
    assert not any(s.in_contact for s in states[ended[0] :])
    assert p.status()["last_pause"].startswith("stale effort")
    out = feed(p, Q, np.zeros(7), pushed, start=T0 + 350 * MS, count=50)
    assert out.contact.in_contact and out.contact.contacts == 2
