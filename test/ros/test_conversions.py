"""JointStateMerger (robot_dynamics.ros.conversions): the fast path for full messages in model
order and the general path (partial, reordered, unknown joints) give the same state; a bad
message is rejected as a whole, naming the joint and field, and leaves the state unchanged."""

import math

import numpy as np
import pytest

pytest.importorskip("sensor_msgs")

from sensor_msgs.msg import JointState  # noqa: E402

from robot_dynamics.ros.conversions import JointStateError, JointStateMerger  # noqa: E402

NAMES = ("j1", "j2", "j3")


def _msg(names, position=(), velocity=(), effort=()):
    msg = JointState()
    msg.name = list(names)
    msg.position, msg.velocity, msg.effort = list(position), list(velocity), list(effort)
    return msg


def _state(merger):
    return merger.position.copy(), merger.velocity.copy(), merger.effort.copy()


def test_full_message_in_model_order():
    merger = JointStateMerger(NAMES)
    assert not merger.complete_position
    assert merger.merge(_msg(NAMES, [1, 2, 3], [4, 5, 6], [7, 8, 9])) == []
    assert merger.complete_position and merger.complete_velocity and merger.complete_effort
    np.testing.assert_array_equal(merger.position, [1, 2, 3])
    np.testing.assert_array_equal(merger.velocity, [4, 5, 6])
    np.testing.assert_array_equal(merger.effort, [7, 8, 9])
    # the same buffers are updated in place, message after message
    position = merger.position
    merger.merge(_msg(NAMES, [10, 20, 30], [0, 0, 0], [1, 1, 1]))
    assert position is merger.position
    np.testing.assert_array_equal(position, [10, 20, 30])


def test_fast_and_general_paths_agree():
    rng = np.random.default_rng(3)
    fast, general = JointStateMerger(NAMES), JointStateMerger(NAMES)
    for _ in range(20):
        p, v, e = rng.normal(size=(3, 3))
        fast.merge(_msg(NAMES, p, v, e))
        order = [2, 0, 1]  # reordered, plus an unknown joint: the general path
        unknown = general.merge(
            _msg(
                [NAMES[i] for i in order] + ["gripper"],
                list(p[order]) + [0.5],
                list(v[order]) + [0.0],
                list(e[order]) + [1.0],
            )
        )
        assert unknown == ["gripper"]
        for a, b in zip(_state(fast), _state(general)):
            np.testing.assert_array_equal(a, b)


def test_partial_messages_merge_by_name():
    merger = JointStateMerger(NAMES)
    merger.merge(_msg(["j2"], [2.0], [0.2]))
    assert not merger.complete_position and merger.missing("position") == ["j1", "j3"]
    merger.merge(_msg(["j3", "j1"], [3.0, 1.0]))
    assert merger.complete_position and not merger.complete_velocity
    np.testing.assert_array_equal(merger.position, [1, 2, 3])
    assert merger.missing("velocity") == ["j1", "j3"] and merger.missing("effort") == list(NAMES)


@pytest.mark.parametrize("field", ["position", "velocity", "effort"])
@pytest.mark.parametrize("value", [math.nan, math.inf])
@pytest.mark.parametrize("names", [NAMES, ("j3", "j2", "j1")], ids=["model order", "reordered"])
def test_a_non_finite_value_rejects_the_whole_message(field, value, names):
    merger = JointStateMerger(NAMES)
    merger.merge(_msg(NAMES, [1, 2, 3], [4, 5, 6], [7, 8, 9]))
    before = _state(merger)
    fields = {"position": [0.1, 0.2, 0.3], "velocity": [0.4, 0.5, 0.6], "effort": [0.7, 0.8, 0.9]}
    fields[field][1] = value  # the joint names[1]
    with pytest.raises(JointStateError, match=rf"{field} of joint '{names[1]}'"):
        merger.merge(_msg(names, **fields))
    for a, b in zip(before, _state(merger)):
        np.testing.assert_array_equal(a, b)


def test_a_length_mismatch_names_the_field():
    merger = JointStateMerger(NAMES)
    with pytest.raises(JointStateError, match="velocity has 2 values for 3 joint names"):
        merger.merge(_msg(NAMES, [1, 2, 3], [1, 2]))
    assert not merger.complete_position


# ------------------------------------------------------------------ JointStateWire
from rclpy.serialization import deserialize_message, serialize_message  # noqa: E402

from robot_dynamics.ros.conversions import JointStateWire  # noqa: E402

ARM = tuple(f"panda_joint{i}" for i in range(1, 8))


def _full(rng, names=ARM, frame_id="", sec=7, nanosec=123):
    msg = _msg(names, *rng.normal(size=(3, len(names))))
    msg.header.frame_id = frame_id
    msg.header.stamp.sec, msg.header.stamp.nanosec = sec, nanosec
    return msg


@pytest.mark.parametrize("frame_id", ["", "b", "base_link", "world_frame_id_x"])
def test_wire_reads_what_deserialization_reads(frame_id):
    rng = np.random.default_rng(5)
    wire = JointStateWire(ARM)
    first = serialize_message(_full(rng, frame_id=frame_id))
    assert wire.read(first) is None  # nothing learned yet
    wire.learn(first, deserialize_message(first, JointState))
    for k in range(20):
        msg = _full(rng, frame_id=frame_id, sec=100 + k, nanosec=10 * k)
        raw = serialize_message(msg)
        sec, nanosec, values = wire.read(raw)
        assert (sec, nanosec) == (100 + k, 10 * k)
        np.testing.assert_array_equal(values, [msg.position, msg.velocity, msg.effort])
    assert wire.enabled


@pytest.mark.parametrize(
    "change", ["reordered", "partial", "unknown joint", "no effort", "other names"]
)
def test_wire_learns_only_full_messages_of_the_model_joints_in_order(change):
    rng = np.random.default_rng(6)
    names = {
        "reordered": ARM[::-1],
        "partial": ARM[:6],
        "unknown joint": ARM + ("finger",),
        "no effort": ARM,
        "other names": tuple(n.upper() for n in ARM),
    }[change]
    msg = _full(rng, names=names)
    if change == "no effort":
        msg.effort = []
    raw = serialize_message(msg)
    wire = JointStateWire(ARM)
    wire.learn(raw, deserialize_message(raw, JointState))
    assert wire.read(raw) is None
    assert wire.enabled


@pytest.mark.parametrize("change", ["frame_id", "a name", "one field shorter"])
def test_wire_answers_none_when_the_layout_changes(change):
    rng = np.random.default_rng(7)
    wire = JointStateWire(ARM)
    raw = serialize_message(_full(rng, frame_id="base"))
    wire.learn(raw, deserialize_message(raw, JointState))
    msg = _full(rng, frame_id="base")
    if change == "frame_id":
        msg.header.frame_id = "tool"  # same length, other bytes
    elif change == "a name":
        msg.name = list(ARM[:6]) + ["panda_jointX"]
    else:
        msg.effort = list(msg.effort)[:6]
    assert wire.read(serialize_message(msg)) is None


def test_wire_turns_itself_off_when_the_bytes_disagree_with_the_message():
    rng = np.random.default_rng(8)
    wire = JointStateWire(ARM)
    raw = serialize_message(_full(rng))
    other = _full(rng)  # not what raw holds
    wire.learn(raw, other)
    assert not wire.enabled and wire.read(raw) is None
    wire.learn(raw, deserialize_message(raw, JointState))
    assert wire.read(raw) is None, "once off, it stays off"


def test_merge_values_refuses_non_finite_values():
    merger = JointStateMerger(NAMES)
    assert merger.merge_values(np.arange(9.0).reshape(3, 3))
    assert merger.complete_position and merger.complete_effort
    np.testing.assert_array_equal(merger.velocity, [3, 4, 5])
    bad = np.ones((3, 3))
    bad[2, 1] = math.nan
    assert not merger.merge_values(bad)
    np.testing.assert_array_equal(merger.effort, [6, 7, 8])


def test_wire_ignores_another_encapsulation():
    rng = np.random.default_rng(9)
    wire = JointStateWire(ARM)
    raw = serialize_message(_full(rng))
    wire.learn(raw, deserialize_message(raw, JointState))
    assert wire.read(raw) is not None
    big_endian = b"\x00\x00" + raw[2:]  # same bytes, announced as big-endian CDR
    assert wire.read(big_endian) is None


def test_carry_over_keeps_what_the_joints_of_both_models_received():
    old = JointStateMerger(("a", "j1", "j2"))
    old.merge(_msg(["a", "j1", "j2"], [1, 2, 3], [4, 5, 6]))  # no effort
    new = JointStateMerger(NAMES)  # j1 j2 j3
    new.carry_over(old)
    np.testing.assert_array_equal(new.position, [2, 3, 0])
    np.testing.assert_array_equal(new.velocity, [5, 6, 0])
    assert new.missing("position") == ["j3"] and new.missing("effort") == list(NAMES)
    assert not new.complete_position
