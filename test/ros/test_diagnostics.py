"""The dynamics node's /diagnostics policy (plain pytest, the node's state as data): shed
joint_states make the status WARN, and the node log it, only when more than SHED_WARN_FRACTION of
a period's messages were shed (the node does not keep up); one superseded by the next of a burst,
and the backlog shed at start, are counted only. A joint whose effort is no measurement over the
latest messages makes it WARN, with the fix the node logs."""

from dataclasses import replace
from types import SimpleNamespace

import numpy as np

from diagnostic_msgs.msg import DiagnosticStatus

from robot_dynamics.ros.diagnostics import (
    EFFORT_CHECK_MIN_MESSAGES,
    LOGGED,
    QUIET_STATUSES,
    SHED_WARN_FRACTION,
    DynamicsDiagnostics,
    NodeState,
)


def loaded(model):
    """A node's state and its active bundle with ``model`` loaded."""
    return NodeState(name="/dynamics_node", model_loads=1), SimpleNamespace(model=model)


def period(diagnostics, node, active, received, shed, at_start=0, efforts=None):
    """One diagnostics period in which ``received`` joint_states came and ``shed`` were shed,
    ``at_start`` of them at start; ``efforts``: the latest messages' (names, efforts). Returns
    the status and the node's state after it."""
    node = replace(
        node,
        received=node.received + received,
        shed=node.shed + shed,
        shed_at_start=node.shed_at_start + at_start,
    )
    processed = node.received - node.shed
    pipeline = {"messages": processed}
    return diagnostics.status(node, active, pipeline, rate=1000.0, efforts=efforts), node


def values(status):
    return {kv.key: kv.value for kv in status.values}


def test_a_few_shed_messages_are_counted_only_a_node_that_does_not_keep_up_warns(panda):
    diagnostics = DynamicsDiagnostics()
    node, active = loaded(panda)
    # a burst superseded a few of 1000 (within the fraction): counted, the status stays OK
    few = int(SHED_WARN_FRACTION * 1000)
    status, node = period(diagnostics, node, active, 1000, few)
    assert status.level == DiagnosticStatus.OK, status.message
    assert values(status)["messages_shed"] == str(few)
    assert "shed" not in diagnostics.to_log
    # a tenth of the next period's messages shed: WARN, and the text the node logs
    status, node = period(diagnostics, node, active, 1000, 100)
    assert status.level == DiagnosticStatus.WARN
    assert diagnostics.to_log["shed"].text in status.message
    assert "100 of 1000 shed since the last status" in diagnostics.to_log["shed"].text
    assert values(status)["messages_shed"] == str(few + 100)
    # keeping up again: OK, nothing to log
    status, node = period(diagnostics, node, active, 1000, 0)
    assert status.level == DiagnosticStatus.OK and "shed" not in diagnostics.to_log


def test_the_backlog_shed_at_start_is_counted_only(panda):
    diagnostics = DynamicsDiagnostics()
    node, active = loaded(panda)
    # a driver streamed before the node started: 36 of the first period's 250 shed at start
    status, node = period(diagnostics, node, active, 250, 36, at_start=36)
    assert status.level == DiagnosticStatus.OK, status.message
    assert values(status)["messages_shed"] == values(status)["messages_shed_at_start"] == "36"
    # shed later, beyond the fraction: the node does not keep up
    status, node = period(diagnostics, node, active, 250, 10)
    assert status.level == DiagnosticStatus.WARN
    assert "10 of 250 shed since the last status" in diagnostics.to_log["shed"].text
    assert values(status)["messages_shed"] == "46"


def test_a_joint_whose_effort_is_no_measurement_warns_with_the_fix(panda):
    rng = np.random.default_rng(7)
    diagnostics = DynamicsDiagnostics()
    node, active = loaded(panda)
    names = panda.joint_names
    effort = panda.gravity_torques(np.zeros(7)) + rng.normal(scale=0.02, size=(500, 7))
    status, node = period(diagnostics, node, active, 1000, 0, efforts=(names, effort))
    assert status.level == DiagnosticStatus.OK, status.message
    assert values(status)["no_effort_joints"] == "" and "no_effort" not in diagnostics.to_log
    effort[:, 6] = 0.0  # the last joint's driver reports 0
    status, node = period(diagnostics, node, active, 1000, 0, efforts=(names, effort))
    assert status.level == DiagnosticStatus.WARN
    assert values(status)["no_effort_joints"] == "panda_joint7"
    assert "panda_joint7: effort exactly 0 in every message" in diagnostics.to_log["no_effort"].text
    assert (
        "locked_joints" in diagnostics.to_log["no_effort"].text
        and diagnostics.to_log["no_effort"].text in status.message
    )
    # every joint 0: the driver measures nothing, or the arm is off (nothing to lock)
    status, node = period(diagnostics, node, active, 1000, 0, efforts=(names, 0.0 * effort))
    assert (
        status.level == DiagnosticStatus.WARN
        and "not powered" in diagnostics.to_log["no_effort"].text
    )
    assert values(status)["no_effort_joints"] == " ".join(names)
    # too few messages to judge
    few = effort[: EFFORT_CHECK_MIN_MESSAGES - 1]
    status, node = period(diagnostics, node, active, 1000, 0, efforts=(names, few))
    assert status.level == DiagnosticStatus.OK and "no_effort" not in diagnostics.to_log


def test_errors_name_what_is_wrong(panda):
    diagnostics = DynamicsDiagnostics()
    status = diagnostics.status(NodeState(name="/n"), None, {}, rate=0.0)
    assert status.level == DiagnosticStatus.ERROR and status.message == "no robot model loaded"
    assert values(status)["model_loaded"] == "false"
    node, active = loaded(panda)
    node = replace(node, effort_command_on=True, command_error="waiting for positions")
    status, node = period(diagnostics, node, active, 1000, 0)
    assert status.level == DiagnosticStatus.ERROR
    assert "effort command withheld: waiting for positions" in status.message
    node = replace(node, command_error="", callback_errors=1, last_callback_error="KeyError: 'x'")
    status, node = period(diagnostics, node, active, 1000, 0)
    assert status.level == DiagnosticStatus.ERROR
    assert status.message == "a callback raised: KeyError: 'x'"
    # counted once: the next period is OK again
    status, node = period(diagnostics, node, active, 1000, 0)
    assert status.level == DiagnosticStatus.OK, status.message
    assert values(status)["callback_errors"] == "1"


def test_commands_withheld_and_published_again_keep_their_reason(panda):
    """Some effort commands of a period withheld, the latest published: the ERROR gives how
    many and the last reason (the node's own reason is empty again)."""
    diagnostics = DynamicsDiagnostics()
    node, active = loaded(panda)
    node = replace(node, effort_command_on=True, received=1000)
    reason = "no feed-forward: no reference and no recent velocity for joints ['finger']"
    pipeline = {"messages": 1000, "commands_withheld": 190, "last_withheld": reason}
    status = diagnostics.status(node, active, pipeline, rate=1000.0)
    assert status.level == DiagnosticStatus.ERROR
    assert f"effort command withheld: 190 since the last status, the last: {reason}" in (
        status.message
    )


def test_lasting_problems_are_logged_as_well(panda):
    """What leaves an output missing for a whole period reaches the node's log too (a user
    without a diagnostics viewer): the estimation paused on every message, the effort command
    withheld, no joint_states for QUIET_STATUSES statuses in a row (not a driver starting a
    moment after the node). A pause on some of a period's messages is counted only."""
    diagnostics = DynamicsDiagnostics()
    node, active = loaded(panda)
    node = replace(node, joint_states_topic="/arm/joint_states", joint_states_publishers=1)
    reason = "no velocity for joints ['panda_joint1']"
    pipeline = {"messages": 0, "estimation_paused": 0, "last_pause": reason}

    def status(received, paused, **changes):
        nonlocal node
        node = replace(node, received=node.received + received, **changes)
        pipeline["messages"] += received
        pipeline["estimation_paused"] += paused
        return diagnostics.status(node, active, dict(pipeline), rate=100.0)

    warned = status(100, 100)
    assert warned.level == DiagnosticStatus.WARN
    assert diagnostics.to_log == {"paused": (f"estimation paused: {reason}", reason)}
    assert diagnostics.to_log["paused"].text in warned.message
    assert status(100, 3).level == DiagnosticStatus.OK and diagnostics.to_log == {}
    node = replace(node, effort_command_on=True)
    errored = status(100, 0, command_error="no command")
    assert errored.level == DiagnosticStatus.ERROR
    assert diagnostics.to_log == {"withheld": ("effort command withheld: no command", "no command")}
    node = replace(node, effort_command_on=False)
    for count in range(1, QUIET_STATUSES + 1):
        quiet = status(0, 0)
        text = "no joint_states since the last status (topic /arm/joint_states, 1 publishers)"
        assert text in quiet.message
        logged = {"no_joint_states": (text, "")} if count == QUIET_STATUSES else {}
        assert diagnostics.to_log == logged
    assert status(100, 0).level == DiagnosticStatus.OK and diagnostics.to_log == {}
    assert status(0, 0).level == DiagnosticStatus.WARN and diagnostics.to_log == {}
    assert set(LOGGED) >= {"paused", "withheld", "no_joint_states", "shed", "no_effort"}


def test_stamps_going_backwards_or_jumping_warn(panda):
    """Stamps that go backwards, or jump beyond observer_max_dt, restart the observer on each,
    and messages delivered late are dropped: WARN while they do, OK once they stop."""
    diagnostics = DynamicsDiagnostics()
    node, active = loaded(panda)
    counts = {"messages": 0, "stamps_backwards": 0, "stamps_late": 0, "stamp_jumps": 0}
    counts["skipped_messages"] = 0

    def status(received, **grew):
        nonlocal node
        node = replace(node, received=node.received + received)
        counts["messages"] += received
        for key, value in grew.items():
            counts[key] += value
        return diagnostics.status(node, active, dict(counts), rate=100.0)

    assert status(100).level == DiagnosticStatus.OK
    # messages counted as lost that came late after all are taken back: no negative count
    status(100, skipped_messages=5)
    taken_back = status(100, skipped_messages=-5, stamps_late=5)
    assert "skipped" not in taken_back.message and "-5" not in taken_back.message
    warned = status(100, stamps_backwards=100)
    assert warned.level == DiagnosticStatus.WARN
    assert (
        "100 joint_states stamps went backwards by more than observer_max_dt (each restarts the "
        "observer)" in warned.message
    )
    warned = status(100, stamps_late=3)
    assert warned.level == DiagnosticStatus.WARN
    assert "3 joint_states delivered late (stamped before their driver's newest: dropped)" in (
        warned.message
    )
    # two publishers of the same joints (a stray driver, a bag played beside the robot) show
    # as late messages: the status says so
    node = replace(node, joint_states_publishers=2)
    warned = status(100, stamps_late=90)
    assert "90 joint_states delivered late" in warned.message
    assert "2 publishers on joint_states: do two of them publish the same joints?" in (
        warned.message
    )
    node = replace(node, joint_states_publishers=1)
    warned = status(100, stamp_jumps=1)
    assert warned.level == DiagnosticStatus.WARN
    assert "1 joint_states stamp gaps longer than observer_max_dt" in warned.message
    assert "clock step" in warned.message
    assert status(100).level == DiagnosticStatus.OK
