"""LatestMessages, the newest-wins hand-off of the dynamics node's joint_states (plain pytest): a
message is served at once only when nothing is pending and the node was idle since its previous
serve; per stream the newest message waits, older ones are shed and counted (and the one taken
says how many it superseded), streams keep their arrival order and never shed each other,
shedding at start is counted apart, one serve is asked for at a time, and a producer and a slower
consumer in two threads lose nothing uncounted."""

import threading

from robot_dynamics.ros.latest_messages import BUSY_GAP_S, START_S, LatestMessages


def test_the_newest_message_of_a_stream_waits_and_the_older_are_shed():
    box = LatestMessages()
    for k in range(5):
        box.put("arm", k)
    assert box.take() == (4, 4)  # it superseded four
    assert box.shed == 4
    assert box.take() is None  # nothing pending
    box.put("arm", 5)
    assert box.take() == (5, 0)


def test_what_is_shed_before_and_just_after_the_first_message_taken_is_shed_at_start():
    now = [100.0]
    box = LatestMessages(clock=lambda: now[0])
    for k in range(30):  # queued before the executor started: delivered at once
        box.put("arm", k)
    assert box.take() == (29, 29)
    now[0] += 0.5 * START_S  # the first messages served, slower
    box.put("arm", 30)
    box.put("arm", 31)
    assert box.take() == (31, 1)
    assert box.shed == box.shed_at_start == 30
    now[0] += START_S  # serving as usual: shedding now is the node falling behind
    box.put("arm", 32)
    box.put("arm", 33)
    assert box.take() == (33, 1)
    assert box.shed == 31 and box.shed_at_start == 30


def test_streams_keep_arrival_order_and_do_not_shed_each_other():
    box = LatestMessages()
    box.put("arm", "a1")
    box.put("gripper", "g1")
    box.put("arm", "a2")  # sheds a1; arm's newest now arrived after g1
    assert box.shed == 1
    assert [box.take(), box.take()] == [("g1", 0), ("a2", 1)]
    assert box.shed == 1


def test_a_slow_consumer_sees_increasing_messages_and_every_message_is_taken_or_shed():
    box = LatestMessages()
    count = 20000
    taken = []
    done = threading.Event()

    def serve():  # as the node's task: take what is pending, slower than the producer
        while True:
            finished = done.is_set()  # read before taking: nothing is put after it is set
            item = box.take()
            if item is None:
                if finished:
                    return
                continue
            taken.append(item[0])
            sum(range(2000))

    consumer = threading.Thread(target=serve)
    consumer.start()
    for k in range(count):
        box.put("arm", k)
    done.set()
    consumer.join(timeout=30.0)
    assert not consumer.is_alive()
    assert taken == sorted(taken) and taken[-1] == count - 1  # the newest is always served
    assert len(taken) + box.shed == count and box.shed > 0


def test_one_serve_is_asked_for_until_it_starts_or_asking_failed():
    box = LatestMessages()
    assert box.put("arm", 1)  # ask for a serve
    assert not box.put("arm", 2) and not box.put("gripper", 3)  # one is asked for already
    box.unschedule()  # the serve starts: what comes now needs another
    assert box.take() == (2, 1)
    assert box.put("arm", 4)
    box.unschedule()  # asking for it failed: the next message asks again
    assert box.put("arm", 5)


def test_a_message_is_served_at_once_only_after_an_idle_gap_and_with_nothing_pending():
    now = [100.0]
    box = LatestMessages(clock=lambda: now[0])
    assert box.serve_at_once()  # the first message: nothing served before
    now[0] += 0.5 * BUSY_GAP_S
    box.served()
    now[0] += 0.5 * BUSY_GAP_S  # dispatched right after the serve: it waited in the queue
    assert not box.serve_at_once()
    assert box.put("arm", 1)  # handed over: a serve is asked for
    now[0] += 10 * BUSY_GAP_S  # idle since, but a message is pending: it goes first
    assert not box.serve_at_once()
    assert not box.put("arm", 2)
    box.unschedule()
    assert box.take() == (2, 1)
    box.served()
    assert not box.serve_at_once()  # the task's serve just ended
    now[0] += 2 * BUSY_GAP_S
    assert box.serve_at_once()
    assert box.shed == 1


def test_a_message_served_at_once_starts_the_start_period():
    now = [100.0]
    box = LatestMessages(clock=lambda: now[0])
    assert box.serve_at_once()
    box.served()
    now[0] += 2 * START_S  # past the start period begun by that serve
    box.put("arm", 1)
    box.put("arm", 2)
    assert box.take() == (2, 1)
    assert box.shed == 1 and box.shed_at_start == 0
