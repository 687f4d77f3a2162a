"""Newest-wins hand-off of messages from an executor's thread to a worker thread.

The dynamics node's joint_states callback only puts the message here; a worker thread of the
node takes and processes it. A node that falls behind (messages arriving faster than it serves
them) therefore works on the newest state and sheds the rest, counted, instead of queueing:
whatever the executor (rclpy's ``EventsExecutor`` queues one event per message it has not yet
served), memory stays flat and the effort command is never computed from an old state.

A message is stale when a newer one of the same stream arrived before the worker took it. The
streams are told apart by a key (the dynamics node uses the joint-name list: two drivers
publishing different joints on one topic are two streams, and neither sheds the other's
messages).
"""

import threading
from collections import OrderedDict


class LatestMessages:
    """The newest message of each stream not yet taken, in arrival order; thread-safe.

    Attributes:
        shed: messages replaced by a newer one of their stream before they were taken.
    """

    def __init__(self):
        self._cond = threading.Condition()
        self._pending = OrderedDict()  # key -> the newest message of that stream not yet taken
        self._closed = False
        self._scheduled = False  # a serve of the pending messages is asked for
        self.shed = 0

    def put(self, key, message):
        """Hand over a message; a message of the same stream still waiting is shed.

        Args:
            key: hashable stream key (e.g. the message's joint names as a tuple).
            message: the message.

        Returns:
            bool: True when no serve was asked for since the last :meth:`unschedule`: the
            caller asks for one (e.g. an executor task that takes what is pending).
        """
        with self._cond:
            if self._closed:
                return False
            if self._pending.pop(key, None) is not None:
                self.shed += 1
            self._pending[key] = message
            self._cond.notify()
            schedule, self._scheduled = not self._scheduled, True
            return schedule

    def unschedule(self):
        """No serve is asked for any more (one starts taking, or asking for it failed): the next
        :meth:`put` returns True."""
        with self._cond:
            self._scheduled = False

    def take(self, timeout=None):
        """The pending message that arrived first (the newest of its stream), waiting for one.

        Args:
            timeout: longest wait [s] (None: until a message comes or :meth:`close`).

        Returns:
            The message, or None when closed (or on timeout).
        """
        with self._cond:
            while not self._pending:
                if self._closed or not self._cond.wait(timeout):
                    return None
            return self._pending.popitem(last=False)[1]

    def close(self):
        """Drop what is pending and wake the worker: :meth:`take` returns None from now on."""
        with self._cond:
            self._closed = True
            self._pending.clear()
            self._cond.notify_all()


__all__ = ["LatestMessages"]
