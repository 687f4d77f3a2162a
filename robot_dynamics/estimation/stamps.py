"""The stamps of the joint_states stream: time since the previous message, gaps, repeats and
stamps going backwards.

Several drivers (streams: the messages carrying the same joints) interleave: a message of one
driver stamped a little before the newest message of another is merged without an observer step
(``stamps_interleaved``). A message stamped before its own driver's newest by at most
``max_dt_ns`` came late (reordered on its way, a logger's burst): its state has passed, it is
dropped (``stamps_late``); a stream's stamp going further back (a clock step, a restarted
driver) restarts the estimator, and so do :data:`LATE_RUN` late messages in a row (the driver's
clock stepped back by less than ``max_dt_ns``: its new stamps are its time now).

Gaps (lost messages) are counted per stream, the messages carrying the same joints (one driver),
against that stream's period (the running mean of its intervals): drivers publishing different
joints interleave their stamps, and the median of its recent intervals moves the period at once
when a burst at start-up ends or the rate changes, so it never stays stuck. An interval is a gap
when it exceeds the period by more than half a period and by more than 1.5 times the stream's
jitter (the largest deviation of its recent intervals from the period, fading over about a
thousand messages), up to 0.8 period: stamps from a logging PC, jittering around the robot's
cycle, are no lost messages. Messages the caller dropped itself (a node's shed messages, or
refused ones, ``superseded``) are no gaps, and a message delivered late takes back the gap it
left. A gap longer than ``max_dt_ns`` (a pause, a lost connection, a clock step) is a jump:
counted as such, not as messages lost.
"""

LATE = -1
"""``dt_ns`` of a message stamped before its own driver's newest (by at most ``max_dt_ns``):
delivered late, its state already passed."""
LATE_RUN = 3
"""Late messages in a row from one driver, each newer than the one before, that are a step back
of its clock, not late ones."""
WINDOW = 9
"""Recent intervals per stream whose median tells a change of rate."""
PERIOD_MESSAGES = 64
"""Intervals a stream's period is the running mean of (a rate change moves it at once, through
the median of its last :data:`WINDOW` intervals)."""
JITTER_FADE = 0.999
"""Per message, the factor a stream's jitter (its largest deviation from the period) fades by."""
MAX_STREAMS = 64
"""Streams followed at most (beyond, the table starts afresh)."""


class _Stream:
    """One driver's stamps: the previous one, its period and jitter [ns], its recent intervals
    (whose median follows a change of rate) and the messages its latest gap was counted as (a
    late message takes one back)."""

    __slots__ = (
        "last_ns",
        "intervals",
        "next",
        "period_ns",
        "jitter_ns",
        "missing",
        "late_run",
        "late_ns",
    )

    def __init__(self):
        self.last_ns = None
        self.intervals = []
        self.next = 0
        # the mean interval over about PERIOD_MESSAGES messages (None for the first WINDOW)
        self.period_ns = None
        self.jitter_ns = 0.0  # the largest recent deviation of an interval from the period
        self.missing = 0
        self.late_run = 0  # late messages in a row, each newer than the one before
        self.late_ns = 0  # the stamp of the latest late message

    def median_ns(self):
        ordered = sorted(self.intervals)
        return ordered[len(ordered) // 2]

    def tolerance_ns(self):
        """How much longer than the period an interval may be without a message lost: half a
        period, or 1.5 times the jitter, at most 0.8 period (a lost message's interval, about
        two periods, stays beyond it)."""
        period = self.period_ns
        return min(0.8 * period, max(0.5 * period, 1.5 * self.jitter_ns))

    def take(self, interval):
        """An interval [ns] that is no gap: into the period and the jitter."""
        period = self.period_ns
        self.jitter_ns = max(abs(interval - period), self.jitter_ns * JITTER_FADE)
        self.period_ns = period + (interval - period) / PERIOD_MESSAGES

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
            within a stream by more than ``max_dt_ns``, or :data:`LATE_RUN` late in a row, a gap
            beyond ``max_dt_ns``).
        """
        c = self._counters
        own = self._stream(stream)
        late = own.last_ns is not None and 0 < own.last_ns - t_ns <= self.max_dt_ns
        if late:  # a clock that stepped back ticks on from there; a reordered burst does not
            own.late_run = own.late_run + 1 if own.late_run and t_ns > own.late_ns else 1
            own.late_ns = t_ns
        else:
            own.late_run = 0
        if own.late_run >= LATE_RUN:  # the driver's clock stepped back: its time now
            own.late_run = 0
            c["stamps_backwards"] += 1
            step = own.last_ns - t_ns
            own.last_ns = self.last_ns = t_ns
            self._last_stream = stream
            return None, (
                f"stamps went back by {step * 1e-9:.6g} s in {LATE_RUN} messages in a row "
                "(a step of the driver's clock)"
            )
        if late:
            c["stamps_late"] += 1  # older than its driver's newest: a state already passed
            if own.missing:  # it was counted as lost
                own.missing -= 1
                c["skipped_messages"] -= 1
                if not own.missing:  # the whole gap came late
                    c["stamp_gaps"] -= 1
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
        spans = superseded + 1  # the intervals the caller's own drops account for
        s.add(d // spans)
        s.missing = 0
        if s.period_ns is None:  # known from a full window on
            if len(s.intervals) == WINDOW:
                s.period_ns = float(s.median_ns())
                s.jitter_ns = float(max(abs(i - s.period_ns) for i in s.intervals))
            return
        if d <= spans * s.period_ns + s.tolerance_ns():
            s.take(d / spans)
            return
        median = s.median_ns()
        if abs(median - s.period_ns) > 0.25 * s.period_ns:  # a burst ended, the rate changed
            s.period_ns, s.jitter_ns = float(median), 0.0
            if d <= spans * median * 1.5:
                return
        self._counters["stamp_gaps"] += 1
        s.missing = max(int(round(d / s.period_ns)) - spans, 1)
        self._counters["skipped_messages"] += s.missing


__all__ = ["LATE", "StampClock"]
