"""How the nodes spin and stop: rclpy executors through their public API only, a spin loop that
survives an exception from any callback, and one order to stop in.

rclpy lets a node belong to one executor. The dynamics node therefore has two: the node users
see (its parameters, services, robot_description, diagnostics) and an I/O node
``<name>_io`` (created with :func:`io_node`) that holds the hot path: the joint_states and
~/reference subscriptions and the output publishers, on topic names resolved by the main node
(so its remappings apply). :func:`make_executors` builds one of three threading models for the
pair, chosen by the node's read-only ``executor`` parameter (measured with
``benchmarks/bench_node.py``; ``docs/benchmarks.md`` gives the table). Each executor spins in a
thread of its own; the main thread waits for the stop request (:mod:`robot_dynamics.ros.process`).

- ``"split_events"`` (default): rclpy's ``EventsExecutor`` (C++, no wait-set rebuild per
  wake-up: less CPU per message than the single-threaded executor) for the I/O node and a
  :class:`PoolExecutor` (three threads) for the main node. The hot path never waits for a
  service, a parameter change or a model build. rclpy's ``EventsExecutor`` queues one event per
  message the middleware delivered and serves them in turn; the dynamics node's joint_states
  callback serves a message at once while the node keeps up, and otherwise hands it over
  (:class:`~robot_dynamics.ros.latest_messages.LatestMessages`) to a task that runs after the
  events already queued, so the queue never outgrows the node: overloaded, the task processes
  the newest message and sheds the others, counted.
  The ``EventsExecutor`` also stops serving a subscription whose callback raised, and ends the
  process (SIGSEGV) when a task raises, so the I/O node's callbacks and tasks catch everything
  themselves (the dynamics node's do); the main node, whose
  parameter service can raise inside rclpy, stays on the :class:`PoolExecutor` and its
  surviving spin loop.
- ``"split"``: as ``split_events``, with a ``SingleThreadedExecutor`` for the I/O node.
- ``"multi_threaded"``: one :class:`PoolExecutor` (four threads) for both nodes.
- ``"events"``: one ``rclpy.experimental.EventsExecutor`` for both nodes, in one thread: every
  callback, a long ``~/simulate`` or a model build included, runs in turn with the hot path.

:func:`spin_node` stops every kind in the same order: the spin loops are told to stop and
their threads joined; the executors shut down (a :class:`PoolExecutor` once the callbacks still
running in its pool have returned, its threads joined); the nodes are destroyed (a node's own
threads, such as the arm simulator's physics, stopped and joined by its ``destroy_node``
first); then the context is shut down.
"""

import concurrent.futures
import os
import re
import sys
import threading
import time

import rclpy
from rclpy.executors import (
    ConditionReachedException,
    Executor,
    ExternalShutdownException,
    ShutdownException,
    SingleThreadedExecutor,
    TimeoutException,
)
from rclpy.signals import SignalHandlerOptions
from rclpy.utilities import remove_ros_args

from robot_dynamics.schema import EXECUTOR_KINDS

from .throttled_log import ThrottledLog

SPIN_TIMEOUT_S = 0.1
"""Longest wait of one spin of a spin loop: a loop told to stop ends within this time."""
STOP_TIMEOUT_S = 4.0
"""Longest wait, when stopping, for the spin threads and for callbacks still running."""


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


def _never():
    return False


class PoolExecutor(Executor):
    """A multi-threaded executor whose callbacks run in a pool it owns (rclpy's
    ``MultiThreadedExecutor``, with a :meth:`shutdown` that waits for them): ``spin_once``
    hands each ready callback to one of ``num_threads`` threads; :meth:`shutdown` returns True
    once every callback handed over has returned, and then joins the threads. (rclpy 7.1's
    ``MultiThreadedExecutor.shutdown`` returns while callbacks still run in its pool and leaves
    its threads to the interpreter's exit.)

    rclpy's ``wait_for_ready_callbacks`` yields a task again, without waiting, for as long as
    it has not started: a task handed to the pool but still queued comes straight back. Handing
    it over again and spinning on would keep the GIL from the pool's threads (rclpy 7.1's
    ``MultiThreadedExecutor`` does so and burns a core: every ``/clock`` message of simulated
    time, hundreds per second, starved the dynamics node's hot path for up to a second). So
    ``spin_once`` hands a task over once and waits for the pool to start it.

    Args:
        num_threads: threads of the pool.
        context: the rclpy context.
    """

    def __init__(self, num_threads, *, context=None):
        super().__init__(context=context)
        self._pool = concurrent.futures.ThreadPoolExecutor(
            num_threads, thread_name_prefix="callbacks"
        )
        self._lock = threading.Lock()
        # rclpy task -> (pool future, event set when a thread starts it), until it returns
        self._handed = {}

    @staticmethod
    def _run(task, started):
        started.set()
        task()

    def _spin_once(self, timeout_sec, condition=_never):
        try:
            handler, _, _ = self.wait_for_ready_callbacks(timeout_sec, None, condition)
        except (
            ExternalShutdownException,
            ShutdownException,
            TimeoutException,
            ConditionReachedException,
        ):
            return
        with self._lock:
            handed = self._handed.get(handler)
            if handed is None:
                started = threading.Event()
                handed = self._handed[handler] = (
                    self._pool.submit(self._run, handler, started),
                    started,
                )
            finished = [task for task, (future, _) in self._handed.items() if future.done()]
            for task in finished:
                del self._handed[task]
        handed[1].wait(SPIN_TIMEOUT_S)  # the pool takes it before rclpy yields anything else
        for task in finished:
            task.result()  # raises what the callback raised

    def spin_once(self, timeout_sec=None):
        """Wait up to ``timeout_sec`` for a ready callback and hand it to the pool.

        Args:
            timeout_sec: longest wait [s] (None: forever).
        """
        self._spin_once(timeout_sec)

    def spin_once_until_future_complete(self, future, timeout_sec=None):
        """As :meth:`spin_once`, returning early when ``future`` completes.

        Args:
            future: an rclpy future.
            timeout_sec: longest wait [s] (None: forever).
        """
        future.add_done_callback(lambda _: self.wake())
        self._spin_once(timeout_sec, future.done)

    def shutdown(self, timeout_sec=None):
        """Stop handing out callbacks, wait for those still running, then join the threads.
        Call it again after a False to wait on.

        Args:
            timeout_sec: longest wait [s] (None: forever).

        Returns:
            bool: True once every callback handed to the pool has returned.
        """
        stopped = super().shutdown(timeout_sec=timeout_sec)
        with self._lock:
            futures = [future for future, _ in self._handed.values()]
        _, running = concurrent.futures.wait(futures, timeout=timeout_sec)
        if running:
            return False
        self._pool.shutdown(wait=True)
        return stopped


def spin_forever(executor, context, logger, errors=None, halt=None):
    """Spin ``executor`` until ``halt`` is set or ``context`` shuts down.

    An exception escaping a callback (a malformed ``SetParameters`` request raises inside
    rclpy's parameter service, for one) is logged, counted in ``errors`` and the loop goes on:
    no message, request or parameter ends the node.

    Args:
        executor: the executor.
        context: the rclpy context.
        logger: where errors are logged.
        errors: optional :class:`CallbackErrors`.
        halt: optional ``threading.Event`` that ends the loop (within :data:`SPIN_TIMEOUT_S`,
            at once for an ``EventsExecutor`` woken with ``wake()``).
    """

    def going():
        return not (halt is not None and halt.is_set()) and context.ok()

    log = ThrottledLog(logger)
    while going():
        try:
            executor.spin_once(timeout_sec=SPIN_TIMEOUT_S)
        except (ExternalShutdownException, ShutdownException):
            return
        except Exception as error:  # noqa: BLE001 - the node must outlive any callback
            if not going():
                return
            if errors is not None:
                errors.record(error)
            log(
                "callback_error",
                1.0,
                "error",
                f"a callback raised {type(error).__name__}: {error} (ignored; the node goes on)",
            )


def make_executors(kind, main_node, hot_node=None, context=None):
    """Executors for ``main_node`` and its hot-path ``hot_node`` (nodes added).

    Args:
        kind: one of ``EXECUTOR_KINDS``.
        main_node: the node with the parameters and services.
        hot_node: the hot-path node, or None.
        context: the rclpy context.

    Returns:
        tuple: the executors, one or two, each to be spun in a thread of its own.

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
        background = PoolExecutor(3, context=context)
        background.add_node(main_node)
        return main, background
    if kind in ("split", "split_events"):
        executor = SingleThreadedExecutor(context=context)
    elif kind == "multi_threaded":
        executor = PoolExecutor(4, context=context)
    elif kind == "events":
        from rclpy.experimental import EventsExecutor

        executor = EventsExecutor(context=context)
    else:
        raise ValueError(f"executor must be one of {list(EXECUTOR_KINDS)}, got {kind!r}")
    for node in nodes:
        executor.add_node(node)
    return (executor,)


def spin_node(make_node, make_node_executors, args=None, before_spin=None, schema=None):
    """Main loop of a node process: init rclpy (without its signal handlers), build the node
    and its executors, spin each executor in a thread of its own until SIGINT or SIGTERM
    (:func:`robot_dynamics.ros.process.stop_request`), then stop in one order: spin threads
    stopped and joined, executors shut down with their callbacks finished, the node destroyed,
    the context shut down. A signal during the start-up stops the process as soon as the step
    it interrupts is done (a second one interrupts the start-up at once).

    A node with a ``stopping`` attribute (a ``threading.Event``) has it set when the stop begins,
    so that its long callbacks (a simulation service) end at their next step. Should a spin
    thread or a callback still run :data:`STOP_TIMEOUT_S` after the stop began, the process ends
    at once with exit code 1, without destroying the nodes under it.

    Args:
        make_node: () -> Node.
        make_node_executors: (node) -> tuple of executors with the node(s) added.
        args: command-line arguments for ``rclpy.init``.
        before_spin: optional (node) -> None, called once everything is built.
        schema: the node's :class:`~robot_dynamics.schema.param.NodeSchema`: ``-h`` or
            ``--help`` (outside ``--ros-args``, which rclpy must accept) prints its usage and
            exits 0 instead of building the node.

    A start-up parameter value the node refuses
    (:class:`~robot_dynamics.ros.parameters.StartupParameterError`) ends the process with one
    error line naming the parameter, the value, what it takes and where the value came from;
    ROS arguments ``rclpy.init`` refuses (a malformed ``-p`` value, a parameters file that is not
    YAML) with one error line giving ``rcl``'s reason, which names the argument.

    Returns:
        int: 0, or 1 for refused ROS arguments or a refused start-up parameter value.
    """
    from .parameters import (
        StartupParameterError,
        start_up_source,
        warn_mistaken_start_up_parameters,
    )
    from .process import stop_request

    stop = stop_request()
    node, executors, threads, halt = None, (), [], threading.Event()
    try:
        if not stop.requested:  # (else a signal came during the imports: nothing to start)
            refused = _init(args)
            if refused:
                program = (sys.argv if args is None else args or [""])[0]
                name = os.path.splitext(os.path.basename(program))[0] or "rclpy"
                rclpy.logging.get_logger(name).error(refused)
                return 1
            argv = (sys.argv if args is None else args) or [""]
            if schema is not None and {"-h", "--help"} & set(remove_ros_args(argv)[1:]):
                program = os.path.splitext(os.path.basename(argv[0]))[0] or schema.node
                print(schema.usage(program))
                return 0  # (the finally shuts the context down)
        if not stop.requested:
            try:
                node = make_node()
            except StartupParameterError as error:
                source = start_up_source(sys.argv if args is None else args, error.node, error.name)
                logger = rclpy.logging.get_logger(error.node.strip("/").replace("/", "."))
                logger.error(error.line(source))
                return 1
            warn_mistaken_start_up_parameters(node, sys.argv if args is None else args)
        if not stop.requested:
            executors = tuple(make_node_executors(node))
            if before_spin is not None:
                before_spin(node)
            errors = getattr(node, "callback_errors", None)
            threads = [
                threading.Thread(
                    target=spin_forever,
                    args=(executor, node.context, node.get_logger(), errors, halt),
                    name=f"spin-{i}",
                    daemon=True,
                )
                for i, executor in enumerate(executors)
            ]
            stop.running()  # from here on a second signal interrupts nothing
            for thread in threads:
                thread.start()
            while not stop.wait(0.5):
                if not node.context.ok() or not all(t.is_alive() for t in threads):
                    break
    except KeyboardInterrupt:  # a second signal while starting
        pass
    finally:
        stop.running()
        _stop(node, executors, threads, halt)
        stop.stopped()
    return 0


def _init(args):
    """``rclpy.init`` with ``args``; None, or the one line of why it refused them.

    ``rcl`` logs a line of its own ("Failed to parse global arguments") before it refuses: its
    ``rcl`` logger is held at FATAL while it parses, so that the returned line is the only one.

    Args:
        args: command-line arguments (None: ``sys.argv``).

    Returns:
        str or None: e.g. ``cannot start: failed to initialize rcl: Couldn't parse parameter
        override rule: '-p gravity:=[0,0,-9.81]'. Error: ...``, without rcl's source locations.
    """
    fatal = rclpy.logging.LoggingSeverity.FATAL
    rclpy.logging.set_logger_level("rcl", fatal)
    try:
        rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    except Exception as error:  # rclpy raises its RCLError, a RuntimeError, for refused arguments
        text = re.sub(r"\s*, at \S+:\d+", "", str(error))
        return "cannot start: " + " ".join(text.split())
    if rclpy.logging.get_logger_effective_level("rcl") == fatal:  # (no --log-level rcl:=...)
        rclpy.logging.set_logger_level("rcl", rclpy.logging.LoggingSeverity.UNSET)
    return None


def _stop(node, executors, threads, halt):
    """Stop the spin threads, shut the executors down, destroy the node, shut rclpy down."""
    stopping = getattr(node, "stopping", None)
    if stopping is not None:
        stopping.set()
    halt.set()
    for executor in executors:
        executor.wake()
    deadline = time.monotonic() + STOP_TIMEOUT_S

    def wait(done):
        while not done():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    stopped = wait(lambda: not any(thread.is_alive() for thread in threads)) and all(
        wait(lambda executor=executor: executor.shutdown(timeout_sec=0.05))
        for executor in executors
    )
    if not stopped:
        if node is not None:
            node.get_logger().error(
                f"threads or callbacks still running {STOP_TIMEOUT_S} s after the stop request: "
                "exiting without destroying the node"
            )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
    if node is not None:
        node.destroy_node()
    rclpy.try_shutdown()
