"""The dynamics node's /diagnostics policy (plain pytest, a stand-in for the node): shed
joint_states make the status WARN, and the node log it, only when more than SHED_WARN_FRACTION of
a period's messages were shed (the node does not keep up); one superseded by the next of a burst,
and the backlog shed at start, are counted only. A joint whose effort is no measurement over the
latest messages makes it WARN, with the fix the node logs."""

from types import SimpleNamespace

import numpy as np

from diagnostic_msgs.msg import DiagnosticStatus

from robot_dynamics.ros.diagnostics import (
    EFFORT_CHECK_MIN_MESSAGES,
    SHED_WARN_FRACTION,
    DynamicsDiagnostics,
)
from robot_dynamics.ros.executors import CallbackErrors


def stand_in(model):
    """The attributes of a DynamicsNode the diagnostics read, with a model loaded."""
    node = SimpleNamespace(
        _count={"received": 0, "commands": 0, "model_loads": 1},
        _latest=SimpleNamespace(shed=0, shed_at_start=0),
        callback_errors=CallbackErrors(),
        _values={"publish_effort_command": False, "payload.mass": 0.0},
        _command_error="",
        _description=SimpleNamespace(source="parameter", rejections=0, last_error=""),
        _unknown=set(),
        get_fully_qualified_name=lambda: "/dynamics_node",
    )
    return node, SimpleNamespace(model=model)


def period(diagnostics, node, active, received, shed, at_start=0, efforts=None):
    """One diagnostics period in which ``received`` joint_states came and ``shed`` were shed,
    ``at_start`` of them at start; ``efforts``: the latest messages' (names, efforts)."""
    node._count["received"] += received
    node._latest.shed += shed
    node._latest.shed_at_start += at_start
    processed = node._count["received"] - node._latest.shed
    return diagnostics.status(node, active, {"messages": processed}, rate=1000.0, efforts=efforts)


def values(status):
    return {kv.key: kv.value for kv in status.values}


def test_a_few_shed_messages_are_counted_only_a_node_that_does_not_keep_up_warns(panda):
    diagnostics = DynamicsDiagnostics()
    node, active = stand_in(panda)
    # a burst superseded a few of 1000 (within the fraction): counted, the status stays OK
    few = int(SHED_WARN_FRACTION * 1000)
    status = period(diagnostics, node, active, 1000, few)
    assert status.level == DiagnosticStatus.OK, status.message
    assert values(status)["messages_shed"] == str(few)
    assert diagnostics.overload == ""
    # a tenth of the next period's messages shed: WARN, and the text the node logs
    status = period(diagnostics, node, active, 1000, 100)
    assert status.level == DiagnosticStatus.WARN
    assert diagnostics.overload in status.message
    assert "100 of 1000 shed since the last status" in diagnostics.overload
    assert values(status)["messages_shed"] == str(few + 100)
    # keeping up again: OK, nothing to log
    status = period(diagnostics, node, active, 1000, 0)
    assert status.level == DiagnosticStatus.OK and diagnostics.overload == ""


def test_the_backlog_shed_at_start_is_counted_only(panda):
    diagnostics = DynamicsDiagnostics()
    node, active = stand_in(panda)
    # a driver streamed before the node started: 36 of the first period's 250 shed at start
    status = period(diagnostics, node, active, 250, 36, at_start=36)
    assert status.level == DiagnosticStatus.OK, status.message
    assert values(status)["messages_shed"] == values(status)["messages_shed_at_start"] == "36"
    # shed later, beyond the fraction: the node does not keep up
    status = period(diagnostics, node, active, 250, 10)
    assert status.level == DiagnosticStatus.WARN
    assert "10 of 250 shed since the last status" in diagnostics.overload
    assert values(status)["messages_shed"] == "46"


def test_a_joint_whose_effort_is_no_measurement_warns_with_the_fix(panda):
    rng = np.random.default_rng(7)
    diagnostics = DynamicsDiagnostics()
    node, active = stand_in(panda)
    names = panda.joint_names
    effort = panda.gravity_torques(np.zeros(7)) + rng.normal(scale=0.02, size=(500, 7))
    status = period(diagnostics, node, active, 1000, 0, efforts=(names, effort))
    assert status.level == DiagnosticStatus.OK, status.message
    assert values(status)["no_effort_joints"] == "" and diagnostics.no_effort == ""
    effort[:, 6] = 0.0  # the last joint's driver reports 0
    status = period(diagnostics, node, active, 1000, 0, efforts=(names, effort))
    assert status.level == DiagnosticStatus.WARN
    assert values(status)["no_effort_joints"] == "panda_joint7"
    assert "panda_joint7: effort exactly 0 in every message" in diagnostics.no_effort
    assert "locked_joints" in diagnostics.no_effort and diagnostics.no_effort in status.message
    # every joint 0: the driver measures nothing, or the arm is off (nothing to lock)
    status = period(diagnostics, node, active, 1000, 0, efforts=(names, 0.0 * effort))
    assert status.level == DiagnosticStatus.WARN and "not powered" in diagnostics.no_effort
    assert values(status)["no_effort_joints"] == " ".join(names)
    # too few messages to judge
    few = effort[: EFFORT_CHECK_MIN_MESSAGES - 1]
    status = period(diagnostics, node, active, 1000, 0, efforts=(names, few))
    assert status.level == DiagnosticStatus.OK and diagnostics.no_effort == ""
