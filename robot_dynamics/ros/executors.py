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

from rclpy.executors import (ConditionReachedException, ExternalShutdownException,
                             MultiThreadedExecutor, ShutdownException, TimeoutException)


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
            handler, entity, node = self.wait_for_ready_callbacks(
                timeout_sec, None, wait_condition)
        except (ExternalShutdownException, ShutdownException, TimeoutException,
                ConditionReachedException):
            return  # as MultiThreadedExecutor: spin() then checks the context
        group = getattr(entity, 'callback_group', None)
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
