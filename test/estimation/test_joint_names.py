"""The hints for joint names that data and a model spell differently, or that data lacks."""

from robot_dynamics.estimation.joint_names import missing_joints_hint, renamed_joints

UR = [
    "shoulder_pan_joint",
    "shoulder_lift_joint",
    "elbow_joint",
    "wrist_1_joint",
    "wrist_2_joint",
    "wrist_3_joint",
]


def test_a_prefix_the_data_adds_is_named_once():
    """joint_states of a driver started with tf_prefix 'left_' against a description without."""
    hint = renamed_joints(UR, ["left_" + name for name in UR])
    assert hint == (
        "the data names 6 of them with the prefix 'left_' ('left_shoulder_pan_joint' for "
        "'shoulder_pan_joint'): a tf_prefix only one side has?"
    )


def test_a_prefix_the_data_drops_is_named_once():
    """A description expanded with a prefix, data recorded without it."""
    hint = renamed_joints(["ur_" + name for name in UR], UR)
    assert hint.startswith("the data names 6 of them without the prefix 'ur_' ")
    assert "('shoulder_pan_joint' for 'ur_shoulder_pan_joint')" in hint


def test_misspellings_are_named_beside_the_prefix():
    """Five joints prefixed, one misspelled as well: the prefix for five, the close name for
    the sixth."""
    found = ["left_" + name for name in UR[:5]] + ["left_wrist_3_jiont"]
    hint = renamed_joints(UR, found)
    assert hint.startswith("the data names 5 of them with the prefix 'left_' ")
    assert hint.endswith("did you mean 'left_wrist_3_jiont' for 'wrist_3_joint'?")


def test_a_misspelled_joint_alone():
    hint = renamed_joints(["elbow_joint"], ["elbow_jiont", "gripper_joint"])
    assert hint == "did you mean 'elbow_jiont' for 'elbow_joint'?"


def test_the_prefixes_of_two_arms_are_both_named():
    """Data of two arms ('left_', 'right_') against one arm's description."""
    found = ["right_" + name for name in UR] + ["left_" + name for name in UR]
    hint = renamed_joints(UR, found)
    assert hint == (
        "the data names 6 of them with the prefixes 'left_' and 'right_' "
        "('left_shoulder_pan_joint' for 'shoulder_pan_joint'): a tf_prefix only one side has?"
    )


def test_unrelated_names_give_no_hint():
    assert renamed_joints(UR, ["joint_a1", "joint_a2", "finger"]) == ""
    assert renamed_joints(UR, []) == ""
    assert renamed_joints([], ["left_elbow_joint"]) == ""


def test_many_misspellings_are_cut_at_five():
    missing = [f"joint_{i}_pitch" for i in range(7)]
    found = [f"joint_{i}_ptich" for i in range(7)]
    hint = renamed_joints(missing, found)
    assert hint.count(" for ") == 5 and hint.endswith(" and 2 more?")


def test_joints_the_data_never_carries_beside_the_others_are_pointed_to_locked_joints():
    lock = "the parameter locked_joints loads them as fixed joints"
    assert lock in missing_joints_hint(["finger_joint"], [], 7)
    assert lock in missing_joints_hint(["finger_joint"], ["joint_a1"], 7)  # nothing alike
    assert missing_joints_hint(UR, [], 6) == ""  # none carried: not a gripper
    assert missing_joints_hint([], [], 6) == ""
    renamed = missing_joints_hint(["elbow_joint"], ["elbow_jiont"], 6)
    assert renamed == renamed_joints(["elbow_joint"], ["elbow_jiont"]) and lock not in renamed
