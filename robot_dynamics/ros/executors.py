"""An rclpy multi-threaded executor whose hot-path callbacks run inline.

rclpy's ``MultiThreadedExecutor`` hands every ready callback to a thread pool. That hand-off
costs more than the whole per-message work of a fast node (measured with
``benchmarks/bench_node.py``: a bare relay spun by it has about 1.4 x the median latency of the
same relay on a ``SingleThreadedExecutor``). :class:`HotPathExecutor` keeps the thread pool for
the slow callbacks (services that may run for seconds) and runs the callbacks of the given
*inline* callback groups directly in the spinning thread, as ``SingleThreadedExecutor`` does.
Callback-group semantics are unchanged: a mutually exclusive group never runs two callbacks at
once, whichever thread runs them; a long service in a pooled group never blocks the inline ones.
"""

from rclpy.exceptions import InvalidHandle
from rclpy.executors import (ConditionReachedException, ExternalShutdownException,
                             MultiThreadedExecutor, ShutdownException, TimeoutException)
from rclpy.subscription import Subscription


class HotPathExecutor(MultiThreadedExecutor):
    """MultiThreadedExecutor running the callbacks of ``inline_groups`` in the spin thread.

    After an inline subscription callback, up to ``drain`` more messages already queued on that
    subscription are taken and handled at once, without building a new wait set for each: a
    node that fell behind catches up instead of paying the executor's per-wake cost again.

    Args:
        inline_groups: callback groups whose callbacks run in the thread that spins.
        num_threads: worker threads for every other callback group.
        drain: most extra messages taken per inline subscription wake-up (0: none).
    """

    def __init__(self, inline_groups, num_threads=2, *, drain=10, context=None):
        super().__init__(num_threads=num_threads, context=context)
        self._inline_groups = list(inline_groups)
        self._drain = int(drain)

    def _spin_once_impl(self, timeout_sec=None, wait_condition=lambda: False):
        try:
            handler, entity, node = self.wait_for_ready_callbacks(
                timeout_sec, None, wait_condition)
        except (ExternalShutdownException, ShutdownException, TimeoutException,
                ConditionReachedException):
            return  # as MultiThreadedExecutor: spin() then checks the context
        group = getattr(entity, 'callback_group', None)
        if group is not None and any(group is g for g in self._inline_groups):
            handler()
            handler.result()  # raise any exception of the callback
            if self._drain and isinstance(entity, Subscription):
                self._drain_subscription(entity)
            return
        self._executor.submit(handler)
        self._futures.append(handler)
        for future in self._futures[:]:
            if future.done():
                self._futures.remove(future)
                future.result()

    def _drain_subscription(self, sub):
        # Only the spinning thread runs inline callbacks, so the group stays exclusive.
        message_only = sub._callback_type is Subscription.CallbackType.MessageOnly
        for _ in range(self._drain):
            try:
                with sub.handle:
                    taken = sub.handle.take_message(sub.msg_type, sub.raw)
            except InvalidHandle:
                return
            if taken is None:
                return
            if message_only:
                sub.callback(taken[0])
            else:
                sub.callback(*taken)


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
