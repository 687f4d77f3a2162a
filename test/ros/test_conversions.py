"""JointStateMerger (robot_dynamics.ros.conversions): the fast path for full messages in model
order and the general path (partial, reordered, unknown joints) give the same state; a bad
message is rejected as a whole, naming the joint and field, and leaves the state unchanged."""
import math

import numpy as np
import pytest

pytest.importorskip('sensor_msgs')

from sensor_msgs.msg import JointState  # noqa: E402

from robot_dynamics.ros.conversions import JointStateError, JointStateMerger  # noqa: E402

NAMES = ('j1', 'j2', 'j3')


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
        order = [2, 0, 1]          # reordered, plus an unknown joint: the general path
        unknown = general.merge(_msg([NAMES[i] for i in order] + ['gripper'],
                                     list(p[order]) + [0.5], list(v[order]) + [0.0],
                                     list(e[order]) + [1.0]))
        assert unknown == ['gripper']
        for a, b in zip(_state(fast), _state(general)):
            np.testing.assert_array_equal(a, b)


def test_partial_messages_merge_by_name():
    merger = JointStateMerger(NAMES)
    merger.merge(_msg(['j2'], [2.0], [0.2]))
    assert not merger.complete_position and merger.missing('position') == ['j1', 'j3']
    merger.merge(_msg(['j3', 'j1'], [3.0, 1.0]))
    assert merger.complete_position and not merger.complete_velocity
    np.testing.assert_array_equal(merger.position, [1, 2, 3])
    assert merger.missing('velocity') == ['j1', 'j3'] and merger.missing('effort') == list(NAMES)


@pytest.mark.parametrize('field', ['position', 'velocity', 'effort'])
@pytest.mark.parametrize('value', [math.nan, math.inf])
@pytest.mark.parametrize('names', [NAMES, ('j3', 'j2', 'j1')], ids=['model order', 'reordered'])
def test_a_non_finite_value_rejects_the_whole_message(field, value, names):
    merger = JointStateMerger(NAMES)
    merger.merge(_msg(NAMES, [1, 2, 3], [4, 5, 6], [7, 8, 9]))
    before = _state(merger)
    fields = {'position': [0.1, 0.2, 0.3], 'velocity': [0.4, 0.5, 0.6],
              'effort': [0.7, 0.8, 0.9]}
    fields[field][1] = value          # the joint names[1]
    with pytest.raises(JointStateError, match=rf"{field} of joint '{names[1]}'"):
        merger.merge(_msg(names, **fields))
    for a, b in zip(before, _state(merger)):
        np.testing.assert_array_equal(a, b)


def test_a_length_mismatch_names_the_field():
    merger = JointStateMerger(NAMES)
    with pytest.raises(JointStateError, match='velocity has 2 values for 3 joint names'):
        merger.merge(_msg(NAMES, [1, 2, 3], [1, 2]))
    assert not merger.complete_position
