"""JointSampleBuffer: ring order, overwrite when full, windows by stamp, partial messages merged
by name (forward fill), None fields, bad arguments."""

import numpy as np
import pytest

from robot_dynamics.estimation.sample_buffer import JointSampleBuffer

MS = 1_000_000


def fill(buffer, count, start=0):
    for k in range(start, start + count):
        v = np.array([k, 10.0 * k])
        buffer.append(k * MS, v, v + 0.5, -v)


def test_keeps_samples_in_order_until_full():
    buffer = JointSampleBuffer(2, 5)
    assert len(buffer) == 0
    fill(buffer, 3)
    t, q, qd, tau = buffer.window()
    assert len(buffer) == 3
    np.testing.assert_allclose(t, [0.0, 1e-3, 2e-3])
    np.testing.assert_array_equal(q[:, 0], [0, 1, 2])
    np.testing.assert_array_equal(qd[:, 1], [0.5, 10.5, 20.5])
    np.testing.assert_array_equal(tau[:, 1], [0, -10, -20])


def test_overwrites_the_oldest_when_full():
    buffer = JointSampleBuffer(2, 4)
    fill(buffer, 11)
    t, q, _, _ = buffer.window()
    assert len(buffer) == 4
    np.testing.assert_array_equal(q[:, 0], [7, 8, 9, 10])
    np.testing.assert_allclose(t, [0.0, 1e-3, 2e-3, 3e-3])


def test_latest_efforts_in_arrival_order_across_the_wrap():
    buffer = JointSampleBuffer(2, 4)
    assert buffer.latest_efforts(3).shape == (0, 2)
    fill(buffer, 2)
    np.testing.assert_array_equal(buffer.latest_efforts(5)[:, 0], [0, -1])  # all there are
    fill(buffer, 9, start=2)  # 11 samples into 4 places
    latest = buffer.latest_efforts(3)
    np.testing.assert_array_equal(latest[:, 1], [-80, -90, -100])
    latest[:] = 0.0  # a copy
    np.testing.assert_array_equal(buffer.latest_efforts(1), [[-10, -100]])


def test_window_by_stamp_of_the_newest_sample():
    buffer = JointSampleBuffer(2, 100)
    fill(buffer, 50)
    t, q, _, _ = buffer.window(0.0105)  # the newest (49 ms) and 10 ms before it
    np.testing.assert_array_equal(q[:, 0], np.arange(39, 50))
    assert t[0] == 0.0 and t[-1] == pytest.approx(0.010)


def test_window_copies_do_not_change_with_later_samples():
    buffer = JointSampleBuffer(2, 3)
    fill(buffer, 3)
    _, q, _, _ = buffer.window()
    fill(buffer, 3, start=3)
    np.testing.assert_array_equal(q[:, 0], [0, 1, 2])


def test_stamps_out_of_order_are_sorted():
    buffer = JointSampleBuffer(1, 10)
    for k in (3, 1, 2):
        buffer.append(k * MS, [k], [0.0], [0.0])
    t, q, _, _ = buffer.window()
    np.testing.assert_array_equal(q[:, 0], [1, 2, 3])
    np.testing.assert_allclose(t, [0.0, 1e-3, 2e-3])


def test_partial_messages_are_merged_by_joint_and_none_fields_are_nan():
    buffer = JointSampleBuffer(3, 10)
    nan = np.nan
    buffer.append(1 * MS, [nan, 2.0, nan], None, [nan, 20.0, nan])
    buffer.append(2 * MS, [1.0, nan, nan], None, [10.0, nan, nan])
    buffer.append(3 * MS, [nan, nan, 3.0], None, [nan, nan, 30.0])
    buffer.append(4 * MS, [1.5, nan, nan], None, [15.0, nan, nan])
    _, q, qd, tau = buffer.window()
    np.testing.assert_array_equal(
        q, [[nan, 2.0, nan], [1.0, 2.0, nan], [1.0, 2.0, 3.0], [1.5, 2.0, 3.0]]
    )
    np.testing.assert_array_equal(tau[-1], [15.0, 20.0, 30.0])
    assert np.isnan(qd).all()


def test_clear_and_empty_window():
    buffer = JointSampleBuffer(2, 4)
    fill(buffer, 3)
    buffer.clear()
    t, q, qd, tau = buffer.window(1.0)
    assert len(buffer) == 0 and t.shape == (0,) and q.shape == (0, 2) and tau.shape == (0, 2)


def test_append_allocates_nothing_per_sample():
    # the storage is preallocated: appending rewrites the same arrays
    buffer = JointSampleBuffer(7, 8)
    storage = buffer._data
    fill7 = np.arange(7.0)
    for k in range(20):
        buffer.append(k, fill7, fill7, fill7)
    assert buffer._data is storage


@pytest.mark.parametrize("n, capacity, match", [(0, 10, "n must be"), (2, 1, "capacity must be")])
def test_bad_sizes_are_named(n, capacity, match):
    with pytest.raises(ValueError, match=match):
        JointSampleBuffer(n, capacity)


@pytest.mark.parametrize("seconds", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_window_is_named(seconds):
    buffer = JointSampleBuffer(2, 4)
    fill(buffer, 2)
    with pytest.raises(ValueError, match="sample window"):
        buffer.window(seconds)
