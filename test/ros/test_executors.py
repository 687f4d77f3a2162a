"""robot_dynamics.ros.executors in one process over real DDS: the spin loop survives an
exception from a callback; the I/O node takes its topic names resolved (and remapped) by the
main node; every executor kind serves both nodes and stops in spin_node's order (spin threads
joined, executors shut down, nodes destroyed); the pool executor's shutdown waits for the
callbacks still running in its pool and joins its threads, and it hands every task over once.
(The surviving is checked for "split" and "multi_threaded" only: rclpy's EventsExecutor stops
serving a subscription whose callback raised, so on "split_events" the dynamics node's hot-path
callbacks catch everything themselves.)"""

import threading
import time

import pytest

rclpy = pytest.importorskip("rclpy")

from std_msgs.msg import Int32  # noqa: E402

from robot_dynamics.ros.executors import (  # noqa: E402
    EXECUTOR_KINDS,
    CallbackErrors,
    PoolExecutor,
    io_node,
    make_executors,
    spin_forever,
)


def _wait(predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.fixture
def context():
    context = rclpy.context.Context()
    rclpy.init(context=context)
    yield context
    if context.ok():
        rclpy.shutdown(context=context)


def _serve(context, unique_name, kind, bad):
    """Spin a main node (a timer) and its I/O node (a subscription whose callback raises on
    the values in ``bad``) with the executors of ``kind``; publish 0..7; returns (received,
    errors, timer ticks) once 8 - len(bad) values arrived and the timer ticked twice."""
    main = rclpy.create_node(
        "main_" + unique_name,
        context=context,
        cli_args=["--ros-args", "-r", "numbers:=renamed_" + unique_name],
    )
    hot = io_node(main)
    topic = main.resolve_topic_name("numbers")
    assert topic == "/renamed_" + unique_name  # the main node's remapping applies
    assert hot.get_name() == "main_" + unique_name + "_io"
    received, errors = [], CallbackErrors()

    def callback(msg):
        if msg.data in bad:
            raise RuntimeError(f"bad message {msg.data}")
        received.append(msg.data)

    hot.create_subscription(Int32, topic, callback, 100)
    timer_ticks = []
    main.create_timer(0.05, lambda: timer_ticks.append(1))
    executors = make_executors(kind, main, hot, context=context)
    halt = threading.Event()
    threads = [
        threading.Thread(
            target=spin_forever, args=(e, context, main.get_logger(), errors, halt), daemon=True
        )
        for e in executors
    ]
    for thread in threads:
        thread.start()
    pub = main.create_publisher(Int32, topic, 100)
    assert _wait(lambda: pub.get_subscription_count() >= 1)
    for i in range(8):
        pub.publish(Int32(data=i))
    assert _wait(lambda: len(received) == 8 - len(bad)), received
    assert all(thread.is_alive() for thread in threads)
    assert _wait(lambda: len(timer_ticks) >= 2)  # the main node is served too
    halt.set()  # the order of spin_node: threads joined, executors shut down, nodes destroyed
    for thread in threads:
        thread.join(timeout=10.0)
        assert not thread.is_alive()
    assert all(e.shutdown(timeout_sec=10.0) for e in executors)
    hot.destroy_node()
    main.destroy_node()
    return received, errors


@pytest.mark.parametrize("kind", [k for k in EXECUTOR_KINDS if "events" not in k])
def test_the_kind_serves_both_nodes_and_survives_a_callback_error(context, unique_name, kind):
    received, errors = _serve(context, unique_name, kind, bad={3})
    assert received == [0, 1, 2, 4, 5, 6, 7]
    assert errors.count >= 1 and "bad message 3" in errors.last  # (MultiThreadedExecutor: twice)


@pytest.mark.parametrize("kind", [k for k in EXECUTOR_KINDS if "events" in k])
def test_the_events_kinds_serve_both_nodes(context, unique_name, kind):
    received, errors = _serve(context, unique_name, kind, bad=set())
    assert received == list(range(8)) and errors.count == 0


def test_an_unknown_kind_is_refused(context, unique_name):
    main = rclpy.create_node("k_" + unique_name, context=context)
    with pytest.raises(ValueError, match="executor must be one of"):
        make_executors("magic", main)
    main.destroy_node()


def test_the_pool_executor_shuts_down_once_its_callbacks_returned(context, unique_name):
    node = rclpy.create_node("pool_" + unique_name, context=context)
    entered, release, returned = threading.Event(), threading.Event(), threading.Event()

    def callback():  # the first call blocks until released
        if not entered.is_set():
            entered.set()
            release.wait(timeout=60.0)
            returned.set()

    node.create_timer(0.01, callback)
    executor = PoolExecutor(2, context=context)
    executor.add_node(node)
    halt = threading.Event()
    thread = threading.Thread(
        target=spin_forever, args=(executor, context, node.get_logger(), None, halt)
    )
    thread.start()
    assert entered.wait(timeout=20.0)
    halt.set()
    thread.join(timeout=10.0)
    assert not thread.is_alive()
    assert not executor.shutdown(timeout_sec=0.1)  # the callback still runs in the pool
    assert not returned.is_set()
    release.set()
    assert executor.shutdown(timeout_sec=20.0)
    assert returned.is_set()
    assert not [t for t in threading.enumerate() if t.name.startswith("callbacks")]
    node.destroy_node()


def test_the_pool_executor_hands_a_task_over_once(context, unique_name):
    """rclpy yields a task handed to the pool again, until a thread starts it. With the pool's
    one thread held by a callback, a timer's next task waits in the pool for 0.5 s: it is
    handed over once, and runs once the thread is free. (Handed over at every wake-up, queued
    copies pile up in the pool, and the spin thread keeps the GIL from it.)"""
    from unittest import mock

    from rclpy.callback_groups import ReentrantCallbackGroup
    from rclpy.task import Task

    calls = {}
    run = Task.__call__

    def counted(task):
        calls[task] = calls.get(task, 0) + 1  # (kept: no other task takes its id)
        return run(task)

    node = rclpy.create_node("once_" + unique_name, context=context)
    entered, release = threading.Event(), threading.Event()
    ticks = []

    def callback():  # the first call holds the pool's thread until released
        ticks.append(time.monotonic())
        if not entered.is_set():
            entered.set()
            release.wait(timeout=60.0)

    node.create_timer(0.01, callback, callback_group=ReentrantCallbackGroup())
    executor = PoolExecutor(1, context=context)
    executor.add_node(node)
    halt = threading.Event()
    thread = threading.Thread(
        target=spin_forever, args=(executor, context, node.get_logger(), None, halt)
    )
    with mock.patch.object(Task, "__call__", counted):
        thread.start()
        try:
            assert entered.wait(timeout=20.0)
            time.sleep(0.5)  # the next tick's task waits in the pool, the spin loop goes on
            assert len(ticks) == 1
        finally:
            release.set()
            assert _wait(lambda: len(ticks) > 2)  # the waiting task ran, and the timer goes on
            halt.set()
            thread.join(timeout=10.0)
        assert executor.shutdown(timeout_sec=20.0)
    assert calls and max(calls.values()) == 1, sorted(calls.values())
    node.destroy_node()
