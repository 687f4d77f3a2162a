"""The simulator's pacing against the wall clock (``Pacer``), on a fake clock, without DDS.

``run`` drives a pacer as the ``arm_simulator`` node's loop does: wait until the next sample is
due, then integrate up to it and publish it (here: record its wall time and simulated time).

* a run-time change of the factor acts at once, from the simulated time reached at the change:
  no wait of the time already run, no overrun when it changes back; stamps then lag the wall
  clock by the simulated time not run at the lower factor, and by no more;
* from as fast as possible to a factor, the pacing goes on from the arm's simulated time;
* factor 0 paces at 1 unless the simulator is the clock;
* falling more than ``max_lag`` behind gives the lag up once (an overrun) and paces on from there.
"""

import pytest

from robot_dynamics.simulation import Pacer

NANO = 1_000_000_000
PERIOD = 2_000_000  # a sample every 2 ms of simulated time


class FakeClock:
    def __init__(self, now=100.0):
        self.now = now

    def __call__(self):
        return self.now


def run(pacer, clock, t_ns, until, cost=0.0):
    """Publish samples every PERIOD of simulated time until the wall clock reaches ``until`` (a
    sample due then included); ``cost`` [s] of wall time per sample. Returns
    ``(t_ns, [(wall, t_ns, lost), ...])``."""
    published = []
    while True:
        delay, lost = pacer.delay(t_ns + PERIOD)
        if delay > 0.0:
            if clock.now + delay > until + 1e-6:  # (float sums of the delays)
                clock.now = until
                return t_ns, published
            clock.now += delay
            continue
        if clock.now > until + 1e-6:  # as fast as possible: the samples cost the time
            return t_ns, published
        t_ns += PERIOD
        clock.now += cost
        published.append((clock.now, t_ns, lost))


def test_a_new_factor_acts_at_once_from_the_simulated_time_reached():
    clock = FakeClock()
    pacer = Pacer(1.0, max_lag=0.25, clock=clock)
    origin = clock.now  # stamps: the wall time of simulated time 0 + simulated time
    pacer.start(0)
    t_ns, published = run(pacer, clock, 0, origin + 10.0)
    assert t_ns == 10 * NANO
    pacer.set_factor(0.5, t_ns)
    t_ns, published = run(pacer, clock, t_ns, origin + 12.0)
    # at half speed from the change on: the first sample 4 ms later, 1 s simulated in 2 s
    assert published[0][0] == pytest.approx(origin + 10.004)
    assert t_ns == 11 * NANO
    pacer.set_factor(1.0, t_ns)
    t_ns, published = run(pacer, clock, t_ns, origin + 15.0)
    assert published[0][0] == pytest.approx(origin + 12.002)
    assert t_ns == 14 * NANO
    # the stamps lag the wall clock by the second not run at half speed, and by no more
    for wall, stamp_ns, lost in published:
        assert lost == 0.0
        assert wall - (origin + stamp_ns / NANO) == pytest.approx(1.0)
    assert pacer.overruns == 0


def test_a_change_between_two_samples_keeps_the_simulated_time_reached():
    """A change 1.5 ms after a sample (due 2 ms after it at factor 1): 0.5 ms of simulated time
    are left to it, at factor 0.25 2 ms of wall time."""
    clock = FakeClock()
    pacer = Pacer(1.0, max_lag=0.25, clock=clock)
    pacer.start(0)
    t_ns, _ = run(pacer, clock, 0, clock.now + 0.0015)
    pacer.set_factor(0.25, t_ns)
    assert pacer.delay(t_ns + PERIOD)[0] == pytest.approx(0.002)


def test_from_as_fast_as_possible_the_pacing_goes_on_from_the_arm():
    clock = FakeClock()
    pacer = Pacer(0.0, max_lag=0.25, fast=True, clock=clock)
    pacer.start(0)
    t_ns, published = run(pacer, clock, 0, clock.now + 1.0, cost=1e-4)
    assert t_ns > 19 * NANO  # about 20 s simulated in 1 s
    pacer.set_factor(1.0, t_ns)
    assert pacer.delay(t_ns + PERIOD) == (pytest.approx(0.002), 0.0)


def test_factor_zero_paces_at_one_unless_the_simulator_is_the_clock():
    clock = FakeClock()
    pacer = Pacer(0.0, max_lag=0.25, clock=clock)
    assert pacer.factor == 1.0
    pacer.start(0)
    assert pacer.delay(PERIOD) == (pytest.approx(0.002), 0.0)


def test_falling_behind_gives_the_lag_up_once():
    clock = FakeClock()
    pacer = Pacer(1.0, max_lag=0.25, clock=clock)
    pacer.start(0)
    clock.now += 0.2  # behind, within max_lag: catching up
    assert pacer.delay(PERIOD) == (0.0, 0.0)
    clock.now += 0.3
    delay, lost = pacer.delay(PERIOD)
    assert delay == 0.0 and lost == pytest.approx(0.498)
    assert pacer.overruns == 1
    # paced from the late sample on
    assert pacer.delay(2 * PERIOD) == (pytest.approx(0.002), 0.0)
