"""Phantom statistics and suggested contact levels (robot_dynamics.tools.contact_levels) on
constructed replays: the window extremes against a brute-force loop, the suggested levels
against the node's own ContactDetector run over the same signals (never switched on by the free
data they come from, switched on by a level above them), the free ranges."""

import math

import numpy as np
import pytest

from robot_dynamics.core.errors import InvalidInputError
from robot_dynamics.tools import contact_levels as CL
from robot_dynamics.tools.replay import ESTIMATED, PAUSED, Replay


def make_replay(stamps, tau, wrench=None, status=None, components=("fx", "fy", "fz")):
    k, n = tau.shape
    return Replay(
        stamp_ns=np.asarray(stamps, dtype=np.int64),
        status=np.full(k, ESTIMATED, np.int8) if status is None else np.asarray(status, np.int8),
        external_torques=tau,
        velocity=np.full((k, n), np.nan),
        measured_torques=np.full((k, n), np.nan),
        wrench=np.zeros((k, 6)) if wrench is None else wrench,
        in_contact=np.full(k, -1, np.int8),
        contact_link=np.full(k, "", dtype=object),
        contact_onsets=np.zeros(k, bool),
        status_counts={},
        refusals={},
        pauses={},
        unknown_joints=(),
        missing_joints=(),
        constant_efforts=(),
        wrench_frame="tool",
        wrench_components=components,
        joint_names=tuple(f"j{i}" for i in range(n)),
    )


def jittered_stamps(rng, k, period=1_000_000):
    return np.cumsum(rng.integers(period - 300_000, period + 300_000, k)).astype(np.int64)


def test_window_extremes_equal_a_brute_force_loop(rng):
    stamps = jittered_stamps(rng, 400)
    values = rng.normal(size=(400, 3))
    for duration in (0, 1_000_000, 5_500_000, 40_000_000):
        lo, hi = CL._window_extremes(values, stamps, duration)
        expected_lo, expected_hi = [], []
        for i in range(400):
            starts = [j for j in range(i + 1) if stamps[i] - stamps[j] >= duration]
            if not starts:
                continue
            j0 = max(starts)
            expected_lo.append(values[j0 : i + 1].min(axis=0))
            expected_hi.append(values[j0 : i + 1].max(axis=0))
        np.testing.assert_array_equal(lo, np.array(expected_lo))
        np.testing.assert_array_equal(hi, np.array(expected_hi))


def detector_onsets(replay, levels, min_duration):
    """The node's ContactDetector over the replay's free estimates, with the levels."""
    from robot_dynamics.estimation.config import ContactConfig, _resolve_contact
    from robot_dynamics.estimation.contact import ContactDetector

    class Model:  # what the detector reads of a model: the joints and their tree depths
        n = len(replay.joint_names)
        joint_names = replay.joint_names

        class tree:  # a serial chain
            body_of_joint = {name: b for b, name in enumerate(replay.joint_names)}
            body_link_names = tuple(f"l{i}" for i in range(len(replay.joint_names)))
            depth = np.arange(1, len(replay.joint_names) + 1)

    config = ContactConfig(
        torque_on=tuple(levels["contact.torque_on"]),
        torque_off=tuple(levels["contact.torque_off"]),
        force_on=levels.get("contact.force_on", 0.0),
        force_off=levels.get("contact.force_off", 0.0),
        min_duration=min_duration,
    )
    detector = ContactDetector(Model, _resolve_contact(Model, config), "tool")
    onsets = 0
    for i in np.flatnonzero(replay.estimated):
        state = detector.update(
            int(replay.stamp_ns[i]), replay.external_torques[i], replay.wrench[i]
        )
        onsets += state.changed and state.in_contact
    return onsets


def test_suggested_levels_never_switch_on_in_the_free_data_and_are_tight(rng):
    k = 3000
    stamps = jittered_stamps(rng, k)
    # correlated noise, a slow drift and single-sample spikes (they must not matter)
    tau = np.cumsum(rng.normal(size=(k, 3)), axis=0) * 0.01
    tau = tau - tau.mean(axis=0) + 0.05 * rng.normal(size=(k, 3))
    tau[rng.integers(0, k, 10), 1] += 5.0
    wrench = np.zeros((k, 6))
    wrench[:, :3] = 0.3 * rng.normal(size=(k, 3))
    replay = make_replay(stamps, tau, wrench)
    free = np.ones(k, bool)
    for min_duration in (0.0, 0.005, 0.02):
        levels, basis = CL.suggest_levels(replay, free, min_duration, margin=1.5)
        assert detector_onsets(replay, levels, min_duration) == 0
        assert basis["scale"]["on"] >= 1.0
        for j in range(3):
            assert levels["contact.torque_off"][j] <= levels["contact.torque_on"][j]
        # the unscaled per-signal peaks, as levels on their own: each signal reaches its own
        peaks = {
            "contact.torque_on": [basis[f"j{j}"]["sustained_peak"] * 0.999 for j in range(3)],
            "contact.torque_off": [basis[f"j{j}"]["sustained_peak"] * 0.999 for j in range(3)],
        }
        assert detector_onsets(replay, peaks, min_duration) >= 1
    # a spike shorter than min_duration does not raise the level
    levels, _ = CL.suggest_levels(replay, free, 0.02, margin=1.5)
    assert levels["contact.torque_on"][1] < 5.0


def test_runs_are_cut_at_the_free_ranges_and_pauses_do_not_break_them(rng):
    k = 1000
    stamps = np.arange(k, dtype=np.int64) * 1_000_000
    tau = np.full((k, 1), 0.1)
    tau[400:600] = 3.0  # a contact, outside the free ranges
    status = np.full(k, ESTIMATED)
    status[100:105] = PAUSED  # no estimate: the detector keeps its run
    replay = make_replay(stamps, tau, status=status, components=())
    replay.wrench_frame = ""
    time = replay.time
    free = CL.free_mask(time, [(0.0, 0.39), (0.61, math.inf)])
    levels, basis = CL.suggest_levels(replay, free, 0.02, margin=1.5)
    assert basis["j0"]["sustained_peak"] == pytest.approx(0.1)
    assert levels["contact.torque_on"][0] == pytest.approx(0.15)
    assert "contact.force_on" not in levels
    stats = CL.phantom_statistics(replay, free)
    assert stats["samples"] == int(free.sum()) - 5
    assert stats["joints"]["j0"]["max"] == pytest.approx(0.1)
    assert "force" not in stats and "moment" not in stats


def test_free_ranges():
    assert CL.parse_window("1.5:3") == (1.5, 3.0)
    assert CL.parse_window(":3") == (-math.inf, 3.0)
    assert CL.parse_window("2:") == (2.0, math.inf)
    for text, fragment in [
        ("3", "START:END"),
        ("a:3", "numbers"),
        ("3:1", "before"),
        ("nan:1", "finite"),
        ("inf:", "finite"),
    ]:
        with pytest.raises(InvalidInputError, match=fragment):
            CL.parse_window(text)
    t = np.linspace(0.0, 10.0, 101)
    assert CL.free_mask(t, []).all()
    mask = CL.free_mask(t, [(1.0, 2.0), (5.0, math.inf)])
    assert mask.sum() == 11 + 51
    assert CL.free_duration(t, []) == 10.0
    assert CL.free_duration(t, [(1.0, 2.0), (1.5, 3.0), (9.0, math.inf), (-5, 0.5)]) == 3.5


def test_statistics_and_margin():
    s = CL.statistics(np.array([3.0, -4.0]))
    assert s == {"rms": math.sqrt(12.5), "p95": pytest.approx(3.95), "max": 4.0, "mean": -0.5}
    assert all(math.isnan(v) for v in CL.statistics(np.zeros(0)).values())
    replay = make_replay(np.arange(10) * 1_000_000, np.zeros((10, 1)))
    with pytest.raises(InvalidInputError, match="--margin"):
        CL.suggest_levels(replay, np.ones(10, bool), 0.0, margin=1.0)
    with pytest.raises(InvalidInputError, match="lasts contact.min_duration"):
        CL.suggest_levels(replay, np.ones(10, bool), 1.0)
    levels, _ = CL.suggest_levels(replay, np.ones(10, bool), 0.0)
    assert levels["contact.torque_on"] == [CL.MIN_LEVEL]
