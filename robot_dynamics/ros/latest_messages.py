"""Newest-wins hand-off of messages from a subscription callback to the task that serves them.

The dynamics node's joint_states callback serves a message at once when the node keeps up:
nothing is pending, and the callback did not start right after the previous serve ended (within
:data:`BUSY_GAP_S`; then the executor dispatched it from its queue: the message arrived while the
node was busy). Otherwise (the node is behind, or a message is pending that must be served first)
the callback puts the message here and, when no serve is asked for yet, schedules an executor
task; the task takes what is pending and processes it. The task runs after the events the
executor already queued (rclpy's ``EventsExecutor`` queues one event per message it has not yet
served), whose messages replace the pending one of their stream. A node that falls behind
therefore works on the newest state and sheds the rest, counted, instead of queueing: memory stays
flat and the effort command is never computed from an old state. A node that keeps up pays for no
task. Either way every message is served or shed, in arrival order; the gap decides only whether
it goes through the hand-off (a message dispatched after a longer gap is served at once even when
the node was behind; the next one, dispatched straight after it, is handed over).

A message is stale when a newer one of the same stream arrived before it was taken. The streams
are told apart by a key (the dynamics node uses the joint-name list: two drivers publishing
different joints on one topic are two streams, and neither sheds the other's messages). Each
message taken comes with the number of its stream's messages it superseded, so that the stamps
it follows tell the node's shedding from messages the driver lost.

Shedding at start is no overload: what a subscription queued before its executor started (a
driver already streaming while the node loaded its model) arrives at once, and the first messages
served cost more (cold caches, first calls). The messages shed before the first one is served or
within :data:`START_S` of it are counted apart; an overload outlasts them.
"""

import threading
import time
from collections import OrderedDict

#: Seconds after the first message served within which shed messages count as shed at start.
START_S = 1.0
#: A callback that starts within this time [s] of the end of the previous serve was dispatched
#: from the executor's queue (rclpy's ``EventsExecutor`` takes the next message in ~20-70 µs):
#: its message goes through the hand-off. A node that keeps up idles far longer between messages
#: (~0.5 ms at 1 kHz).
BUSY_GAP_S = 100e-6


class LatestMessages:
    """The newest message of each stream not yet taken, in arrival order; thread-safe.

    Args:
        clock: monotonic time [s] (``time.monotonic``; tests pass their own).

    Attributes:
        shed: messages replaced by a newer one of their stream before they were taken.
        shed_at_start: those of them shed before the first message was served or within
            :data:`START_S` of it.
    """

    def __init__(self, clock=time.monotonic):
        self._lock = threading.Lock()
        self._clock = clock
        # key -> (the newest message of that stream not yet taken, the messages it superseded)
        self._pending = OrderedDict()
        self._scheduled = False  # a serve of the pending messages is asked for
        self._start_ends = None  # when shedding stops counting as shed at start [s]
        self._idle_since = -float("inf")  # when the previous serve ended [s]
        self.shed = 0
        self.shed_at_start = 0

    def serve_at_once(self):
        """Whether the caller serves a message now rather than :meth:`put` it: nothing is pending
        (it would be served out of order) and the previous serve ended more than
        :data:`BUSY_GAP_S` ago. The caller calls :meth:`served` when it is done.

        Returns:
            bool: True when the caller serves it now (it supersedes nothing); False when it is
            to be :meth:`put`.
        """
        with self._lock:
            if self._pending or self._clock() - self._idle_since < BUSY_GAP_S:
                return False
            self._first_served()
            return True

    def served(self):
        """A serve ended (one at once, or a task's): the node is idle from now."""
        self._idle_since = self._clock()

    def _first_served(self):  # caller holds the lock
        if self._start_ends is None:
            self._start_ends = self._clock() + START_S

    def put(self, key, message):
        """Hand over a message; a message of the same stream still pending is shed.

        Args:
            key: hashable stream key (e.g. the message's joint names as a tuple).
            message: the message.

        Returns:
            bool: True when no serve was asked for since the last :meth:`unschedule`: the
            caller asks for one (an executor task that takes what is pending).
        """
        with self._lock:
            stale = self._pending.pop(key, None)
            superseded = 0
            if stale is not None:
                superseded = stale[1] + 1
                self.shed += 1
                if self._start_ends is None or self._clock() < self._start_ends:
                    self.shed_at_start += 1
            self._pending[key] = (message, superseded)
            schedule, self._scheduled = not self._scheduled, True
            return schedule

    def unschedule(self):
        """No serve is asked for any more (one starts taking, or asking for it failed): the next
        :meth:`put` returns True."""
        with self._lock:
            self._scheduled = False

    def take(self):
        """The pending message that arrived first (the newest of its stream), without waiting.

        Returns:
            tuple: ``(message, superseded)``, ``superseded`` the messages of its stream shed since
            the previous one taken; or None when nothing is pending.
        """
        with self._lock:
            if not self._pending:
                return None
            self._first_served()
            return self._pending.popitem(last=False)[1]


__all__ = ["LatestMessages"]
