"""How the nodes spin: rclpy executors through their public API only, and a spin loop that
survives an exception from any callback.

rclpy lets a node belong to one executor. The dynamics node therefore has two: the node users
see (its parameters, services, robot_description, diagnostics) and an I/O node
``<name>_io`` (created with :func:`io_node`) that holds the hot path: the joint_states and
~/reference subscriptions and the output publishers, on topic names resolved by the main node
(so its remappings apply). :func:`make_executors` builds one of three threading models for the
pair, chosen by the node's read-only ``executor`` parameter (measured with
``benchmarks/bench_node.py``; ``docs/benchmarks.md`` gives the table):

- ``"split"`` (default): a ``SingleThreadedExecutor`` for the I/O node in the main thread and a
  ``MultiThreadedExecutor`` for the main node in a second thread. The hot path runs inline (no
  thread-pool hand-off) and never waits for a service, a parameter change or a model build.
  Overloaded (messages arriving faster than the node serves them), it takes what the
  subscription's queue holds and the rest is dropped there: memory stays flat.
- ``"split_events"``: as ``split``, with rclpy's ``EventsExecutor`` (C++, no wait-set rebuild
  per wake-up: ~15-25 % less CPU per message) for the I/O node. It queues one event per message
  the middleware delivered and serves them in turn, so a node that cannot keep up piles up
  events without bound (measured: +8.5 MB/min with joint_states at twice the rate the node
  sustains; ``benchmarks/bench_soak.py --rate``): only for a machine with headroom. It also
  stops serving a subscription whose callback raised, so the I/O node's callbacks catch
  everything themselves (the dynamics node's do); the main node, whose parameter service can
  raise inside rclpy, stays on the ``MultiThreadedExecutor`` and its surviving spin loop.
- ``"multi_threaded"``: one ``MultiThreadedExecutor`` for both nodes.
- ``"events"``: one ``rclpy.experimental.EventsExecutor`` for both nodes, in one thread: every
  callback, a long ``~/simulate`` or a model build included, runs in turn with the hot path.
"""

import threading

import rclpy
from rclpy.executors import (
    ExternalShutdownException,
    MultiThreadedExecutor,
    ShutdownException,
    SingleThreadedExecutor,
)

from robot_dynamics.schema import EXECUTOR_KINDS


def io_node(node, suffix="_io"):
    """A second node beside ``node`` for its hot path: same namespace, name + ``suffix``, no
    parameter services, not affected by the process's global ROS arguments (a ``__node:=``
    remap would give both the same name). Create its topics with names resolved by ``node``
    (``node.resolve_topic_name(name)``), so that ``node``'s remappings apply.

    Args:
        node: the main node.
        suffix: appended to the main node's name.

    Returns:
        rclpy.node.Node: the new node, in the same context.
    """
    from rclpy.node import Node

    return Node(
        node.get_name() + suffix,
        namespace=node.get_namespace(),
        context=node.context,
        use_global_arguments=False,
        start_parameter_services=False,
    )


class CallbackErrors:
    """Counts exceptions that escaped a callback (read by diagnostics); thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self.count = 0
        self.last = ""

    def record(self, error):
        """Count an exception that escaped a callback and keep its text.

        Args:
            error: the exception.
        """
        with self._lock:
            self.count += 1
            self.last = f"{type(error).__name__}: {error}"


def spin_forever(executor, context, logger, errors=None):
    """Spin ``executor`` until ``context`` shuts down.

    An exception escaping a callback (a malformed ``SetParameters`` request raises inside
    rclpy's parameter service, for one) is logged, counted in ``errors`` and the loop goes on:
    no message, request or parameter ends the node.

    Args:
        executor: the executor.
        context: the rclpy context.
        logger: where errors are logged.
        errors: optional :class:`CallbackErrors`.
    """
    while rclpy.ok(context=context):
        try:
            executor.spin_once(timeout_sec=0.5)
        except (ExternalShutdownException, ShutdownException):
            return
        except Exception as error:  # noqa: BLE001 - the node must outlive any callback
            if not rclpy.ok(context=context):
                return
            if errors is not None:
                errors.record(error)
            logger.error(
                f"a callback raised {type(error).__name__}: {error} (ignored; the node goes on)",
                throttle_duration_sec=1.0,
            )


def make_executors(kind, main_node, hot_node=None, context=None):
    """Executors for ``main_node`` and its hot-path ``hot_node`` (nodes added).

    Args:
        kind: one of ``EXECUTOR_KINDS``.
        main_node: the node with the parameters and services.
        hot_node: the hot-path node, or None.
        context: the rclpy context.

    Returns:
        tuple: ``(main, background)``: ``main`` is spun in the main thread, ``background`` (or
        None) in a thread of its own.

    Raises:
        ValueError: an unknown ``kind``.
    """
    nodes = [main_node] if hot_node is None else [hot_node, main_node]
    if kind in ("split", "split_events") and hot_node is not None:
        if kind == "split":
            main = SingleThreadedExecutor(context=context)
        else:
            from rclpy.experimental import EventsExecutor

            main = EventsExecutor(context=context)
        main.add_node(hot_node)
        background = MultiThreadedExecutor(num_threads=3, context=context)
        background.add_node(main_node)
        return main, background
    if kind in ("split", "split_events"):
        executor = SingleThreadedExecutor(context=context)
    elif kind == "multi_threaded":
        executor = MultiThreadedExecutor(num_threads=4, context=context)
    elif kind == "events":
        from rclpy.experimental import EventsExecutor

        executor = EventsExecutor(context=context)
    else:
        raise ValueError(f"executor must be one of {list(EXECUTOR_KINDS)}, got {kind!r}")
    for node in nodes:
        executor.add_node(node)
    return executor, None


def spin_node(make_node, make_node_executors, args=None, before_spin=None):
    """Console-script main loop shared by the nodes: init rclpy, build the node and its
    executors, spin until Ctrl-C or an external shutdown, then clean up.

    Args:
        make_node: () -> Node.
        make_node_executors: (node) -> (main executor, background executor or None), with
            the node(s) added.
        args: command-line arguments for ``rclpy.init``.
        before_spin: optional (node) -> None, called once everything is built.

    Returns:
        int: 0.
    """
    rclpy.init(args=args)
    node = None
    background = background_thread = None
    try:
        node = make_node()
        context = node.context
        errors = getattr(node, "callback_errors", None)
        main, background = make_node_executors(node)
        if background is not None:
            background_thread = threading.Thread(
                target=spin_forever,
                args=(background, context, node.get_logger(), errors),
                name="executor",
                daemon=True,
            )
            background_thread.start()
        if before_spin is not None:
            before_spin(node)
        spin_forever(main, context, node.get_logger(), errors)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if background is not None:
            background.shutdown(timeout_sec=5.0)
        if background_thread is not None:
            background_thread.join(timeout=5.0)
        if node is not None:
            node.destroy_node()
        if rclpy.ok():
            rclpy.try_shutdown()
    return 0
