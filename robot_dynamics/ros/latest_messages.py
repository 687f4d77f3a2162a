"""Newest-wins hand-off of messages from a subscription callback to the task that serves them.

The dynamics node's joint_states callback only puts the message here and, when no serve is asked
for yet, schedules an executor task; the task takes what is pending and processes it. The task
runs after the events the executor already queued (rclpy's ``EventsExecutor`` queues one event
per message it has not yet served), whose messages replace the pending one of their stream. A
node that falls behind therefore works on the newest state and sheds the rest, counted, instead
of queueing: memory stays flat and the effort command is never computed from an old state.

A message is stale when a newer one of the same stream arrived before it was taken. The streams
are told apart by a key (the dynamics node uses the joint-name list: two drivers publishing
different joints on one topic are two streams, and neither sheds the other's messages). Each
message taken comes with the number of its stream's messages it superseded, so that the stamps
it follows tell the node's shedding from messages the driver lost.

Shedding at start is no overload: what a subscription queued before its executor started (a
driver already streaming while the node loaded its model) arrives at once, and the first messages
served cost more (cold caches, first calls). The messages shed before the first one is taken or
within :data:`START_S` of it are counted apart; an overload outlasts them.
"""

import threading
import time
from collections import OrderedDict

#: Seconds after the first message taken within which shed messages count as shed at start.
START_S = 1.0


class LatestMessages:
    """The newest message of each stream not yet taken, in arrival order; thread-safe.

    Args:
        clock: monotonic time [s] (``time.monotonic``; tests pass their own).

    Attributes:
        shed: messages replaced by a newer one of their stream before they were taken.
        shed_at_start: those of them shed before the first message was taken or within
            :data:`START_S` of it.
    """

    def __init__(self, clock=time.monotonic):
        self._lock = threading.Lock()
        self._clock = clock
        # key -> (the newest message of that stream not yet taken, the messages it superseded)
        self._pending = OrderedDict()
        self._scheduled = False  # a serve of the pending messages is asked for
        self._start_ends = None  # when shedding stops counting as shed at start [s]
        self.shed = 0
        self.shed_at_start = 0

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
            if self._start_ends is None:
                self._start_ends = self._clock() + START_S
            return self._pending.popitem(last=False)[1]


__all__ = ["LatestMessages"]
