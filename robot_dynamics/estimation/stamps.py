"""The stamps of the joint_states stream: time since the previous message, gaps, repeats and
stamps going backwards.

Several drivers (streams: the messages carrying the same joints) interleave: a message of one
driver stamped a little before the newest message of another is merged without an observer step
(``stamps_interleaved``). A message stamped before its own driver's newest by at most
``max_dt_ns`` came late (reordered on its way, a logger's burst): its state has passed, it is
dropped (``stamps_late``); a stream's stamp going further back (a clock step, a restarted
driver) restarts the estimator.

Gaps (lost messages) are counted per stream, the messages carrying the same joints (one driver),
against the median of that stream's recent intervals: drivers publishing different joints
interleave their stamps, and a stream's first intervals (a burst at start-up) or a change of its
rate never leave the period estimate stuck. Messages the caller dropped itself (a node's shed
messages, ``superseded``) are no gaps. A gap longer than ``max_dt_ns`` (a pause, a lost
connection, a clock step) is a jump: counted as such, not as messages lost.
"""

LATE = -1
"""``dt_ns`` of a message stamped before its own driver's newest (by at most ``max_dt_ns``):
delivered late, its state already passed."""
WINDOW = 9
"""Recent intervals per stream whose median is the stream's period."""
MAX_STREAMS = 64
"""Streams followed at most (beyond, the table starts afresh)."""


class _Stream:
    """One driver's stamps: the previous one and the recent intervals [ns]."""

    __slots__ = ("last_ns", "intervals", "next")

    def __init__(self):
        self.last_ns = None
        self.intervals = []
        self.next = 0

    def period_ns(self):
        if not self.intervals:
            return None
        ordered = sorted(self.intervals)
        return ordered[len(ordered) // 2]

    def add(self, d):
        if len(self.intervals) < WINDOW:
            self.intervals.append(d)
        else:
            self.intervals[self.next] = d
            self.next = (self.next + 1) % WINDOW


class StampClock:
    """Follows the message stamps and each stream's period.

    Args:
        max_dt_ns: a longer gap [ns] restarts the estimator.
        counters: the pipeline's counters (``stamps_backwards``, ``stamps_late``,
            ``stamps_repeated``, ``stamps_interleaved``, ``stamp_gaps``, ``skipped_messages``,
            ``stamp_jumps``).

    Attributes:
        last_ns: the previous stamp [ns] (None before the first message).
    """

    def __init__(self, max_dt_ns, counters):
        self.max_dt_ns = max_dt_ns
        self._counters = counters
        self.last_ns = None
        self._last_stream = None  # the stream of the message that set last_ns
        self._streams = {}

    def take_over(self, old):
        """Continue from another clock's stamps (a new pipeline for the same stream).

        Args:
            old: the previous :class:`StampClock`.
        """
        self.last_ns, self._last_stream = old.last_ns, old._last_stream
        self._streams = old._streams

    def tick(self, t_ns, stream=None, superseded=0):
        """Take a new stamp.

        Args:
            t_ns: the message stamp [ns].
            stream: hashable key of the message's driver (its joints; None: all joints).
            superseded: messages of that driver dropped by the caller since its previous stamp
                (not gaps: the interval spans ``superseded + 1`` periods).

        Returns:
            tuple: ``(dt_ns, restart)``: the time since the previous stamp [ns] (None when the
            estimator must restart; 0 for a repeated stamp, and for another driver's stamp up to
            ``max_dt_ns`` older than the newest, which stays the newest; :data:`LATE` for a
            stamp up to ``max_dt_ns`` older than its own driver's newest: a message delivered
            late, to be dropped) and the reason to restart (None, or why: a stamp going back
            within a stream by more than ``max_dt_ns``, a gap beyond ``max_dt_ns``).
        """
        c = self._counters
        own = self._stream(stream)
        if own.last_ns is not None and 0 < own.last_ns - t_ns <= self.max_dt_ns:
            c["stamps_late"] += 1  # older than its driver's newest: a state already passed
            return LATE, None
        self._count_gaps(own, t_ns, superseded)
        last = self.last_ns
        if last is not None and t_ns < last and stream != self._last_stream:
            if last - t_ns <= self.max_dt_ns:  # another driver's message came late
                c["stamps_interleaved"] += 1
                return 0, None
        self.last_ns, self._last_stream = t_ns, stream
        if last is None:
            return None, None
        d = t_ns - last
        if d < 0:
            c["stamps_backwards"] += 1
            return None, f"stamp went backwards by {-d * 1e-9:.6g} s"
        if d == 0:
            c["stamps_repeated"] += 1
            return 0, None
        if d > self.max_dt_ns:
            return None, f"gap of {d * 1e-9:.6g} s between stamps"
        return d, None

    def _stream(self, key):
        """The :class:`_Stream` of a driver's key (a new one for a key not seen)."""
        s = self._streams.get(key)
        if s is None:
            if len(self._streams) >= MAX_STREAMS:
                self._streams = {}
            s = self._streams[key] = _Stream()
        return s

    def _count_gaps(self, s, t_ns, superseded):
        last = s.last_ns
        if last is not None and t_ns <= last:
            if t_ns < last:
                s.last_ns = t_ns  # the stream starts again from there
            return
        s.last_ns = t_ns
        if last is None:
            return
        d = t_ns - last
        if d > self.max_dt_ns:  # not a count of lost messages: the stream starts again
            self._counters["stamp_jumps"] += 1
            return
        period = s.period_ns()
        if period is not None and d > (1.5 + superseded) * period:
            self._counters["stamp_gaps"] += 1
            skipped = int(round(d / period)) - 1 - superseded
            self._counters["skipped_messages"] += max(skipped, 1)
        s.add(d // (superseded + 1))


__all__ = ["LATE", "StampClock"]
