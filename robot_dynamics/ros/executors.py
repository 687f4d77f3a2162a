"""Executors and threads for the 1 kHz hot path of the nodes.

rclpy's executors are written in Python and rebuild a wait set over every entity of the node
(its services, the six parameter services, timers, guard conditions) on each wake-up; at 1 kHz
that costs more than the whole per-message work of a fast node. Two remedies, both measured with
``benchmarks/bench_node.py``:

- :class:`SubscriptionThread` serves one subscription (the dynamics node's joint_states) in a
  thread of its own, waiting on that subscription alone; its callback group
  (:class:`DedicatedThreadGroup`) keeps every executor away from it. Per message this costs about
  half what a ``SingleThreadedExecutor`` costs a bare relay.
- :class:`HotPathExecutor` is a ``MultiThreadedExecutor`` whose given callback groups run inline
  in the spinning thread, as ``SingleThreadedExecutor`` does: rclpy's thread-pool hand-off costs a
  relay about 1.4 x the median latency of a ``SingleThreadedExecutor``. Slow callbacks (services
  that may run for seconds) keep the pool, so they never block the inline ones.
"""

import threading

from rclpy.callback_groups import CallbackGroup
from rclpy.exceptions import InvalidHandle
from rclpy.executors import (
    ConditionReachedException,
    ExternalShutdownException,
    MultiThreadedExecutor,
    ShutdownException,
    TimeoutException,
)
from rclpy.guard_condition import GuardCondition
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.subscription import Subscription


class HotPathExecutor(MultiThreadedExecutor):
    """MultiThreadedExecutor running the callbacks of ``inline_groups`` in the spin thread.

    Args:
        inline_groups: callback groups whose callbacks run in the thread that spins.
        num_threads: worker threads for every other callback group.
    """

    def __init__(self, inline_groups, num_threads=2, *, context=None):
        super().__init__(num_threads=num_threads, context=context)
        self._inline_groups = list(inline_groups)

    def _spin_once_impl(self, timeout_sec=None, wait_condition=lambda: False):
        try:
            handler, entity, node = self.wait_for_ready_callbacks(timeout_sec, None, wait_condition)
        except (
            ExternalShutdownException,
            ShutdownException,
            TimeoutException,
            ConditionReachedException,
        ):
            return  # as MultiThreadedExecutor: spin() then checks the context
        group = getattr(entity, "callback_group", None)
        if group is not None and any(group is g for g in self._inline_groups):
            handler()
            handler.result()  # raise any exception of the callback
            return
        self._executor.submit(handler)
        self._futures.append(handler)
        for future in self._futures[:]:
            if future.done():
                self._futures.remove(future)
                future.result()


class DedicatedThreadGroup(CallbackGroup):
    """A callback group that no executor runs: its subscription is served by a
    :class:`SubscriptionThread`. Executors leave entities they cannot execute out of their
    wait sets, so the subscription costs the node's executor nothing."""

    def can_execute(self, entity):
        return False

    def beginning_execution(self, entity):
        return False

    def ending_execution(self, entity):
        pass


class SubscriptionThread:
    """Serves one subscription in a thread of its own, with a wait set of its own.

    rclpy's executors rebuild a wait set over every entity of every node on each wake-up (the
    node's services, parameter services, timers, guard conditions): at 1 kHz that Python work
    costs more than the whole message handling of a fast node. This thread waits on the one
    subscription (and a guard condition that stops it), then takes and handles every queued
    message: a bare relay served this way uses about half the CPU per message of one spun by
    ``SingleThreadedExecutor`` (measured with ``benchmarks/bench_node.py``'s set-up).

    The subscription must be in a :class:`DedicatedThreadGroup`, so that no executor takes its
    messages too. The callback runs in this thread: guard state it shares with other callbacks
    with a lock. An exception escaping the callback is passed to ``on_error`` (the thread goes
    on with the next message); without ``on_error`` it is re-raised and ends the thread.

    Args:
        subscription: an rclpy Subscription whose callback group is a DedicatedThreadGroup.
        on_error: optional (exception) -> None.
        name: thread name.
    """

    def __init__(self, subscription, *, on_error=None, name=None):
        if not isinstance(subscription.callback_group, DedicatedThreadGroup):
            raise ValueError(
                f"subscription {subscription.topic_name!r} must be created with "
                "callback_group=DedicatedThreadGroup()"
            )
        self._sub = subscription
        self._on_error = on_error
        self._context = None
        self._stopping = False
        self._wake = None
        self._thread = threading.Thread(
            target=self._run, daemon=True, name=name or f"sub {subscription.topic_name}"
        )

    def start(self, context):
        """Start serving; ``context`` is the node's rclpy Context."""
        self._context = context
        self._wake = GuardCondition(None, None, context=context)
        context.on_shutdown(self.stop)
        self._thread.start()

    def stop(self, timeout=5.0):
        """Stop the thread (idempotent; returns once it has ended, or after timeout s)."""
        self._stopping = True
        wake = self._wake
        if wake is not None:
            try:
                wake.trigger()
            except (InvalidHandle, RuntimeError):
                pass  # context already shut down: the wait ends by itself
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        if wake is not None and not self._thread.is_alive():
            self._wake = None
            try:
                wake.destroy()
            except (InvalidHandle, RuntimeError):
                pass

    @property
    def alive(self):
        return self._thread.is_alive()

    def _run(self):
        sub, context, wake = self._sub, self._context, self._wake
        msg_type, raw = sub.msg_type, sub.raw
        message_only = sub._callback_type is Subscription.CallbackType.MessageOnly
        callback = sub.callback
        try:
            with context.handle:
                wait_set = _rclpy.WaitSet(1, 1, 0, 0, 0, 0, context.handle)
        except (InvalidHandle, RuntimeError):
            return
        while not self._stopping:
            try:
                with sub.handle, wake.handle, context.handle:
                    wait_set.clear_entities()
                    wait_set.add_subscription(sub.handle)
                    wait_set.add_guard_condition(wake.handle)
                    wait_set.wait(-1)
            except (InvalidHandle, RuntimeError):
                return  # subscription destroyed or context shut down
            while not self._stopping:
                try:
                    with sub.handle:
                        taken = sub.handle.take_message(msg_type, raw)
                except (InvalidHandle, RuntimeError):
                    return
                if taken is None:
                    break
                try:
                    if message_only:
                        callback(taken[0])
                    else:
                        callback(*taken)
                except Exception as error:  # noqa: BLE001 - one bad message must not end it
                    if self._on_error is None:
                        raise
                    self._on_error(error)


def spin_node(make_node, make_executor, args=None, before_spin=None):
    """Console-script main loop shared by the nodes: init rclpy, build the node and its
    executor, spin until Ctrl-C or an external shutdown, then clean up. Returns 0.

    make_node: () -> Node. make_executor: (node) -> Executor. before_spin: optional (node) ->
    None, called once everything is built (e.g. to freeze the start-up heap).
    """
    import rclpy

    rclpy.init(args=args)
    node = None
    try:
        node = make_node()
        executor = make_executor(node)
        executor.add_node(node)
        if before_spin is not None:
            before_spin(node)
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if node is not None:
            node.destroy_node()
        if rclpy.ok():
            rclpy.try_shutdown()
    return 0
