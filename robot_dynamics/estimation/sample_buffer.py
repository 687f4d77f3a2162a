"""A bounded ring buffer of recent joint states (stamp, position, velocity, effort), model order.

Fed from the joint_states hot path: :meth:`JointSampleBuffer.append` copies three (n,) arrays
into preallocated storage (no Python object per sample, no allocation); the oldest sample is
overwritten when the buffer is full. :meth:`JointSampleBuffer.window` copies out the samples of
the last ``seconds`` (by stamp) for work off the hot path, such as payload identification.
Not thread-safe: the caller serialises ``append`` and ``window`` (the dynamics node does both
under its pipeline lock).
"""

import numpy as np

_POSITION, _VELOCITY, _EFFORT = range(3)


class JointSampleBuffer:
    """The latest ``capacity`` joint-state samples of ``n`` joints.

    Args:
        n: number of joints (model order).
        capacity: samples kept (>= 2); e.g. 20 000 keeps 20 s of a 1 kHz stream.

    Raises:
        ValueError: n < 1 or capacity < 2.
    """

    __slots__ = ("n", "capacity", "_t", "_data", "_next", "_count")

    def __init__(self, n, capacity):
        n, capacity = int(n), int(capacity)
        if n < 1:
            raise ValueError(f"sample buffer: n must be >= 1, got {n}")
        if capacity < 2:
            raise ValueError(f"sample buffer: capacity must be >= 2, got {capacity}")
        self.n = n
        self.capacity = capacity
        self._t = np.zeros(capacity, dtype=np.int64)
        self._data = np.full((capacity, 3, n), np.nan)
        self._next = 0
        self._count = 0

    def __len__(self):
        return self._count

    def clear(self):
        """Forget every sample."""
        self._next = 0
        self._count = 0

    def append(self, t_ns, position, velocity, effort):
        """Store one sample (overwrites the oldest when full).

        Args:
            t_ns: stamp [ns] (int).
            position: (n,) positions [rad or m] in model order, NaN for joints the message
                does not carry, or None for a field the message does not have (stored as NaN).
            velocity: (n,) velocities [rad/s or m/s], the same way.
            effort: (n,) efforts, the same way.
        """
        i = self._next
        self._t[i] = t_ns
        row = self._data[i]
        if position is None:
            row[_POSITION] = np.nan
        else:
            row[_POSITION] = position
        if velocity is None:
            row[_VELOCITY] = np.nan
        else:
            row[_VELOCITY] = velocity
        if effort is None:
            row[_EFFORT] = np.nan
        else:
            row[_EFFORT] = effort
        i += 1
        self._next = 0 if i == self.capacity else i
        if self._count < self.capacity:
            self._count += 1

    def latest_efforts(self, count):
        """A copy of the efforts of the latest ``count`` samples (fewer when fewer are kept), in
        the order they were appended: a cheap look at what a driver reports, for work off the hot
        path (no sorting by stamp, no filling of the NaN of joints a sample does not carry).

        Args:
            count: most samples to copy (>= 0).

        Returns:
            ndarray: (k, n) efforts as received, k = min(count, len(self)).
        """
        k = min(int(count), self._count)
        order = (self._next - k + np.arange(k)) % self.capacity
        return self._data[order, _EFFORT]

    def window(self, seconds=None):
        """Copies of the samples stamped within ``seconds`` of the newest one, in stamp order.

        Joints a sample does not carry (NaN) take the joint's previous value in the window
        (partial messages merged by name, as the pipeline does); values before a joint's first
        one in the window stay NaN.

        Args:
            seconds: length of the window [s] (> 0); None: every sample kept.

        Returns:
            (t (N,) [s] relative to the first sample of the window (float), position, velocity,
            effort (N, n)); N = 0 when the buffer is empty.

        Raises:
            ValueError: seconds not > 0 (or not finite).
        """
        if seconds is not None and not (np.isfinite(seconds) and seconds > 0):
            raise ValueError(f"sample window must be a finite number of seconds > 0, got {seconds}")
        count = self._count
        start = (self._next - count) % self.capacity
        order = (start + np.arange(count)) % self.capacity
        t = self._t[order]
        data = self._data[order]
        if count:
            # stamps out of order (a publisher restarted, two sources): sort, stable
            by_stamp = np.argsort(t, kind="stable")
            t, data = t[by_stamp], data[by_stamp]
            if seconds is not None:
                keep = t >= t[-1] - int(round(seconds * 1e9))
                t, data = t[keep], data[keep]
            data = _forward_fill(data)
        seconds_rel = (t - t[0]).astype(float) * 1e-9 if count else np.zeros(0)
        return (
            seconds_rel,
            data[:, _POSITION].copy(),
            data[:, _VELOCITY].copy(),
            data[:, _EFFORT].copy(),
        )


def _forward_fill(data):
    """NaN entries of (N, ...) take the latest finite value before them along axis 0."""
    finite = np.isfinite(data)
    index = np.where(finite, np.arange(len(data)).reshape((-1,) + (1,) * (data.ndim - 1)), 0)
    np.maximum.accumulate(index, axis=0, out=index)
    filled = np.take_along_axis(data, index, axis=0)
    # before a value's first finite sample, index 0 points at a NaN (or at itself): keep NaN
    seen = np.logical_or.accumulate(finite, axis=0)
    return np.where(seen, filled, np.nan)


__all__ = ["JointSampleBuffer"]
