"""Newest-wins hand-off of messages from a subscription callback to the task that serves them.

The dynamics node's joint_states callback only puts the message here and, when no serve is asked
for yet, schedules an executor task; the task takes what is pending and processes it. The task
runs after the events the executor already queued (rclpy's ``EventsExecutor`` queues one event
per message it has not yet served), whose messages replace the pending one of their stream. A
node that falls behind therefore works on the newest state and sheds the rest, counted, instead
of queueing: memory stays flat and the effort command is never computed from an old state.

A message is stale when a newer one of the same stream arrived before it was taken. The streams
are told apart by a key (the dynamics node uses the joint-name list: two drivers publishing
different joints on one topic are two streams, and neither sheds the other's messages).
"""

import threading
from collections import OrderedDict


class LatestMessages:
    """The newest message of each stream not yet taken, in arrival order; thread-safe.

    Attributes:
        shed: messages replaced by a newer one of their stream before they were taken.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._pending = OrderedDict()  # key -> the newest message of that stream not yet taken
        self._scheduled = False  # a serve of the pending messages is asked for
        self.shed = 0

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
            if self._pending.pop(key, None) is not None:
                self.shed += 1
            self._pending[key] = message
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
            The message, or None when nothing is pending.
        """
        with self._lock:
            if not self._pending:
                return None
            return self._pending.popitem(last=False)[1]


__all__ = ["LatestMessages"]
