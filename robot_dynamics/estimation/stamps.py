"""The stamps of the joint_states stream: time since the previous message, gaps, repeats and
stamps going backwards."""


class StampClock:
    """Follows the message stamps and the stream's period.

    Args:
        max_dt_ns: a longer gap [ns] restarts the estimator.
        counters: the pipeline's counters (``stamps_backwards``, ``stamps_repeated``,
            ``stamp_gaps``, ``skipped_messages``).

    Attributes:
        last_ns: the previous stamp [ns] (None before the first message).
        period_ns: the stream's period estimate [ns] (None before two messages).
    """

    def __init__(self, max_dt_ns, counters):
        self.max_dt_ns = max_dt_ns
        self._counters = counters
        self.last_ns = None
        self.period_ns = None

    def tick(self, t_ns):
        """Take a new stamp.

        Args:
            t_ns: the message stamp [ns].

        Returns:
            tuple: ``(dt_ns, restart)``: the time since the previous stamp [ns] (None when the
            estimator must restart, 0 for a repeated stamp) and the reason to restart (None,
            or why: a stamp going backwards, a gap beyond ``max_dt_ns``).
        """
        c = self._counters
        last = self.last_ns
        self.last_ns = t_ns
        if last is None:
            return None, None
        d = t_ns - last
        if d < 0:
            c["stamps_backwards"] += 1
            return None, f"stamp went backwards by {-d * 1e-9:.6g} s"
        if d == 0:
            c["stamps_repeated"] += 1
            return 0, None
        period = self.period_ns
        if period is None:
            self.period_ns = d
        elif d > 1.5 * period:
            c["stamp_gaps"] += 1
            c["skipped_messages"] += max(int(round(d / period)) - 1, 1)
        else:
            self.period_ns = period + (d - period) // 20
        if d > self.max_dt_ns:
            return None, f"gap of {d * 1e-9:.6g} s between stamps"
        return d, None


__all__ = ["StampClock"]
