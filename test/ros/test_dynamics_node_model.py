"""The dynamics node's model over DDS: inertia warnings and strict_inertia, a description
refused at start-up built again by a later parameter (a model parameter, or the one at fault),
refusals naming the parameter at fault, what ``model_loads`` counts, the tip link of a
description with several leaves; payload, gravity and armature changed at run time (the
services use the changed model), and descriptions by parameter and by topic (a malformed one
refused with the old model kept, a valid one replacing it); one arm of a tilted mount with the
root's gravity."""

import re

import numpy as np
import pytest

from node_test_helpers import PANDA_URDF, PENDULUM_URDF, Q, efforts, read, wrench_array
from small_arms import ARM3_URDF, UR_SHAPE_URDF

from rclpy.parameter import Parameter

from robot_dynamics import RobotModel
from robot_dynamics_interfaces.srv import GetMassMatrix

pytestmark = pytest.mark.ros

# ARM3 with a placeholder inertia on its last moving link: positive semi-definite, but it breaks
# the triangle inequality (loads with a warning; strict_inertia refuses it)
PLACEHOLDER = ARM3_URDF.replace(
    '<inertia ixx="0.003" iyy="0.01" izz="0.01"', '<inertia ixx="0.001" iyy="0.001" izz="0.01"'
)


def _value(node, key, predicate):
    """The diagnostics value ``key`` once ``predicate(value)`` holds."""
    return node.diagnostics(lambda s, v: predicate(v[key]))[1][key]


def test_refused_description_strict_inertia_and_model_loads(dynamics_node):
    """Started with strict_inertia, the placeholder is refused and no model loads; setting
    strict_inertia false builds the kept description (the inertia warning logged at WARN and
    in the diagnostics). model_loads counts every model swapped in, payload rebuilds
    included; a tip_link typo is refused naming tip_link; balance_inertia clears the
    warning."""
    node = dynamics_node(
        urdf=PLACEHOLDER, wait_loaded=False, strict_inertia=True, diagnostics_period=0.2
    )
    node.proc.wait_for_output(r"parameter robot_description rejected", timeout=60.0)
    status, values = node.diagnostics()
    assert values["model_loaded"] == "false" and "strict_inertia" in values["last_error"]
    assert "'l3'" in values["last_error"] and values["model_loads"] == "0"

    result = node.set_parameters(strict_inertia=False)[0]
    assert result.successful, result.reason
    node.proc.wait_for_output(r"model loaded from parameter robot_description", timeout=60.0)
    node.proc.wait_for_output(r"WARN.*inertia loaded as given.*link 'l3'.*triangle", timeout=60.0)
    warnings = _value(node, "inertia_warnings", lambda v: "'l3'" in v)
    assert "triangle inequality" in warnings and "'elbow'" in warnings
    assert _value(node, "model_loads", lambda v: v != "0") == "1"

    # a payload rebuilds the model from the parsed URDF: one more model, no second warning
    assert node.set_parameters(payload__mass=0.5)[0].successful
    assert _value(node, "model_loads", lambda v: v != "1") == "2"
    assert node.set_parameters(payload__mass=0.8)[0].successful
    assert _value(node, "model_loads", lambda v: v != "2") == "3"
    assert node.proc.output().count("inertia loaded as given") == 1

    # a tip_link typo: refused with a suggestion, logged and kept as the tip_link's refusal
    result = node.set_parameters(tip_link="tol")[0]
    assert not result.successful and "did you mean 'tool'" in result.reason, result.reason
    node.proc.wait_for_output(r"parameter tip_link rejected: KinematicTreeError", timeout=60.0)
    # logged once, by the description (not again as a refused parameter change)
    assert "parameter change refused" not in node.proc.output()
    last_error = _value(node, "last_error", lambda v: "tip_link" in v)
    assert last_error.startswith("parameter tip_link rejected") and "'tol'" in last_error

    result = node.set_parameters(balance_inertia=True)[0]
    assert result.successful, result.reason
    node.proc.wait_for_output(r"balance_inertia: link 'l3': inertia balanced", timeout=60.0)
    assert _value(node, "model_loads", lambda v: v != "3") == "4"
    assert _value(node, "inertia_warnings", lambda v: True) == ""
    node.proc.assert_alive()


def test_a_node_parameter_the_model_cannot_take_is_named_until_fixed(dynamics_node):
    """Started with a per-joint parameter of the wrong length for the arm, the node names that
    parameter (not the robot description) and runs without a model; setting it right, with no
    model parameter changed, builds the model."""
    node = dynamics_node(urdf=read(PANDA_URDF), wait_loaded=False, effort_scale=[1.0, 2.0])
    node.proc.wait_for_output(
        r"parameter effort_scale rejected: InvalidInputError: effort_scale has 2 values, the "
        r"model has 7 joints.*\(no model loaded\)",
        timeout=60.0,
    )
    assert "parameter robot_description rejected" not in node.proc.output()
    result = node.set_parameters(effort_scale=[0.5] * 7)[0]
    assert result.successful, result.reason
    node.proc.wait_for_output(r"model loaded from parameter robot_description", timeout=60.0)
    node.proc.assert_alive()


def test_one_arm_of_a_tilted_mount_gets_the_roots_gravity(dynamics_node):
    """The Panda hung below a world link by a joint rolled -0.7 rad, the node based on the
    arm's own base link: its default gravity is the root's down in the arm's axes, logged, and
    its gravity torques are those of the whole description."""
    mount = (
        '<link name="world"/><joint name="mount" type="fixed"><parent link="world"/>'
        '<child link="panda_link0"/><origin rpy="-0.7 0 0"/></joint>'
    )
    tilted = re.sub(r"(<robot[^>]*>)", lambda m: m.group(1) + mount, read(PANDA_URDF), count=1)
    node = dynamics_node(urdf=tilted, base_link="panda_link0")
    node.proc.wait_for_output(r"model loaded from .*gravity \[0, 6\.32, -7\.503\] m/s\^2", 60.0)
    whole = RobotModel.from_urdf_string(tilted)  # based on the world link
    names, expected = list(whole.joint_names), whole.gravity_torques(Q)
    assert not np.allclose(
        expected, RobotModel.from_urdf_string(read(PANDA_URDF)).gravity_torques(Q)
    )
    node.publish_until(
        lambda: node.joint_state(names, Q, np.zeros(7)),
        "gravity_torques",
        lambda m: np.allclose(efforts(m, names), expected, rtol=0, atol=1e-9),
    )
    node.proc.assert_alive()


def test_tip_link_of_a_description_with_several_leaves(dynamics_node):
    """The official UR description's shape (leaves ft_frame, tool0, base): tool0 is the tip
    and the wrench frame. Without tool0 no tip can be chosen: a WARN names the candidates
    and tip_link."""
    no_tool0 = UR_SHAPE_URDF.replace('"tool0"', '"sensor_mount"')
    node = dynamics_node(urdf=no_tool0, diagnostics_period=0.2)
    match = node.proc.wait_for_output(r"WARN.*no tip link.*", timeout=60.0)
    for word in ("sensor_mount", "ft_frame", "set the parameter tip_link", "no external wrench"):
        assert word in match.group(0), match.group(0)
    assert _value(node, "tip_link", lambda v: True) == ""

    result = node.set_parameters(robot_description=UR_SHAPE_URDF)[0]
    assert result.successful, result.reason
    node.proc.wait_for_output(r"tip 'tool0'.*wrench_frame 'tool0'", timeout=60.0)
    assert _value(node, "tip_link", lambda v: v != "") == "tool0"
    node.proc.assert_alive()


def test_payload_and_parameter_validation(dynamics_node, panda):
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF))
    node.wait_connected()
    make = lambda: node.joint_state(names, Q, np.zeros(7))  # noqa: E731
    node.publish_until(make, "gravity_torques")

    com = [0.01, 0.0, 0.05]
    inertia = [0.01, 0.0, 0.0, 0.02, 0.0, 0.03]
    results = node.set_parameters(payload__mass=2.5, payload__com=com, payload__inertia=inertia)
    assert all(r.successful for r in results), [r.reason for r in results]
    I_c = np.array([[0.01, 0, 0], [0, 0.02, 0], [0, 0, 0.03]])
    with_payload = panda.with_payload(2.5, np.array(com), inertia=I_c)
    expected = with_payload.gravity_torques(Q)
    assert np.abs(expected - panda.gravity_torques(Q)).max() > 1.0
    node.publish_until(
        make,
        "gravity_torques",
        lambda m: np.allclose(efforts(m, names), expected, rtol=0, atol=1e-9),
    )
    # the services use the changed model too
    res = node.call("get_mass_matrix", GetMassMatrix.Request())
    np.testing.assert_allclose(
        np.reshape(res.mass_matrix.data, (7, 7)), with_payload.mass_matrix(Q), atol=1e-10
    )

    # Refused with a reason naming the parameter; the old values stay.
    bad = node.set_parameters(payload__mass=-1.0)[0]
    assert not bad.successful and "payload.mass" in bad.reason
    bad = node.set_parameters(payload__com=[0.0, 0.1])[0]
    assert not bad.successful and "payload.com" in bad.reason
    bad = node.set_parameters(gravity=[0.0, 0.0, -9.81, 1.0])[0]
    assert not bad.successful and "gravity" in bad.reason
    bad = node.set_parameters(armature=[0.1, 0.1])[0]
    assert not bad.successful and "armature" in bad.reason
    bad = node.set_parameters(observer_gain=0.0)[0]
    assert not bad.successful and "observer_gain" in bad.reason
    bad = node.set_parameters(payload__frame="no_such_link")[0]
    assert not bad.successful and "no_such_link" in bad.reason
    bad = node.set_parameter_typed("payload.mass", Parameter.Type.STRING, "heavy")
    assert not bad.successful
    assert node.get_parameter("payload.mass") == 2.5
    assert list(node.get_parameter("payload.com")) == com
    # What `ros2 param set` sends for 3, "[0, 0, 1]" and "[]": integers for doubles and an
    # empty list for an array are taken in the declared type.
    for name, type_, value, expected in (
        ("payload.mass", Parameter.Type.INTEGER, 3, 3.0),
        ("payload.com", Parameter.Type.INTEGER_ARRAY, [0, 0, 1], [0.0, 0.0, 1.0]),
        ("wrench_components", Parameter.Type.STRING_ARRAY, ["fx"], ["fx"]),
        ("wrench_components", Parameter.Type.BOOL_ARRAY, [], []),
    ):
        result = node.set_parameter_typed(name, type_, value)
        assert result.successful, result.reason
        assert list(np.atleast_1d(node.get_parameter(name))) == list(np.atleast_1d(expected))
    bad = node.set_parameter_typed("payload.mass", Parameter.Type.INTEGER, -3)
    assert not bad.successful and "payload.mass" in bad.reason
    assert node.set_parameters(payload__mass=2.5, payload__com=com)[0].successful

    # armature and gravity changes apply at runtime as well
    armature = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
    gravity = [0.0, -9.81, 0.0]
    results = node.set_parameters(armature=armature, gravity=gravity, payload__mass=0.0)
    assert all(r.successful for r in results), [r.reason for r in results]
    changed = panda.with_gravity(np.array(gravity))
    node.publish_until(
        make,
        "gravity_torques",
        lambda m: np.allclose(efforts(m, names), changed.gravity_torques(Q), rtol=0, atol=1e-9),
    )
    res = node.call("get_mass_matrix", GetMassMatrix.Request())
    np.testing.assert_allclose(
        np.reshape(res.mass_matrix.data, (7, 7)),
        panda.mass_matrix(Q) + np.diag(armature),
        atol=1e-10,
    )
    node.proc.assert_alive()


def test_robot_description_parameter_change_and_malformed_urdf(dynamics_node, panda, pendulum):
    names = list(panda.joint_names)
    node = dynamics_node(urdf=read(PANDA_URDF))
    node.wait_connected()
    node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7)), "gravity_torques")

    # A malformed URDF is refused, with the reason; the Panda model keeps working.
    bad = node.set_parameters(robot_description='<robot name="broken"><link name="a"/>')[0]
    assert not bad.successful and bad.reason
    bad = node.set_parameters(
        robot_description=read(PANDA_URDF).replace('panda_link3"/>', 'panda_link_missing"/>', 1)
    )[0]
    assert not bad.successful and bad.reason
    node.inbox["gravity_torques"].clear()
    msg = node.publish_until(lambda: node.joint_state(names, Q, np.zeros(7)), "gravity_torques")
    np.testing.assert_allclose(efforts(msg, names), panda.gravity_torques(Q), atol=1e-9)
    status, values = node.diagnostics(lambda s, v: int(v["model_rejections"]) >= 2)
    assert values["model_loaded"] == "true" and values["last_error"]

    # A new valid description (and gravity) is loaded at runtime: the double pendulum.
    results = node.set_parameters(robot_description=read(PENDULUM_URDF), gravity=[0.0, -9.81, 0.0])
    assert all(r.successful for r in results), [r.reason for r in results]
    pn = list(pendulum.joint_names)
    qp = np.array([0.3, -0.5])
    msg = node.publish_until(
        lambda: node.joint_state(pn + names, np.concatenate([qp, Q])),
        "gravity_torques",
        lambda m: list(m.name) == pn,
    )
    np.testing.assert_allclose(efforts(msg, pn), pendulum.gravity_torques(qp), atol=1e-9)
    node.proc.assert_alive()


def test_robot_description_topic(dynamics_node, panda, pendulum):
    # Started without the parameter (and through python -m): waits for the topic.
    node = dynamics_node(wait_loaded=False, via_module=True)
    node.proc.wait_for_output("waiting for a URDF", timeout=60.0)
    status, values = node.diagnostics()
    assert values["model_loaded"] == "false" and status.level == status.ERROR
    assert node.t.spin_until(lambda: node.description_pub.get_subscription_count() >= 1, 60.0)

    from std_msgs.msg import String

    node.description_pub.publish(String(data=read(PENDULUM_URDF)))
    node.proc.wait_for_output(r"model loaded from topic robot_description", timeout=60.0)
    node.wait_connected()
    pn = list(pendulum.joint_names)
    qp = np.array([0.3, -0.5])
    flat = RobotModel.from_urdf_file(PENDULUM_URDF)  # node default gravity: -z
    msg = node.publish_until(lambda: node.joint_state(pn, qp), "gravity_torques")
    np.testing.assert_allclose(efforts(msg, pn), flat.gravity_torques(qp), atol=1e-9)

    # Malformed on the topic: logged, old model kept.
    node.description_pub.publish(String(data='<robot name="x"><joint name="j" type="revolute">'))
    node.proc.wait_for_output(r"topic robot_description rejected", timeout=60.0)
    status, values = node.diagnostics(lambda s, v: v["model_rejections"] == "1")
    assert values["model_loaded"] == "true" and values["joints"] == " ".join(pn)
    node.inbox["gravity_torques"].clear()
    node.publish_until(lambda: node.joint_state(pn, qp), "gravity_torques")

    # A new valid description replaces the model at runtime.
    node.description_pub.publish(String(data=read(PANDA_URDF)))
    names = list(panda.joint_names)
    msg = node.publish_until(
        lambda: node.joint_state(names, Q), "gravity_torques", lambda m: list(m.name) == names
    )
    np.testing.assert_allclose(efforts(msg, names), panda.gravity_torques(Q), atol=1e-9)


def test_command_joints_without_an_effort_limit_are_named_at_load(dynamics_node):
    """A URDF whose first joint has effort limit 0 and whose second has no <limit>: with the
    effort command and its clamp on, the node warns at load that their command is not
    clamped."""
    text = read(PANDA_URDF).replace(
        'effort="87.0" velocity="2.175"/>', 'effort="0" velocity="2.175"/>', 1
    )
    text = re.sub(r'(<joint name="panda_joint2".*?)<limit [^>]*/>', r"\1", text, 1, re.S)
    node = dynamics_node(urdf=text, publish_effort_command=True)
    node.proc.wait_for_output(
        r"WARN.*clamp_effort_command: joints \['panda_joint1', 'panda_joint2'\] have no URDF "
        r"effort limit",
        timeout=60.0,
    )


def test_a_mimic_of_a_joint_the_description_lacks_loads_with_a_warning(dynamics_node):
    """ARM3's elbow with a <mimic> naming a joint the URDF does not have: the model loads with
    the elbow as an actuated joint; a WARN and the joint_warnings diagnostics value name both
    joints and the rule."""
    broken = ARM3_URDF.replace(
        '<limit lower="-3" upper="3" effort="30" velocity="3"/></joint>',
        '<limit lower="-3" upper="3" effort="30" velocity="3"/>'
        '<mimic joint="elbow_master" multiplier="2"/></joint>',
    )
    assert broken != ARM3_URDF
    node = dynamics_node(urdf=broken, diagnostics_period=0.2)
    match = node.proc.wait_for_output(r"WARN.*URDF joint warning: .*", timeout=60.0)
    for word in ("'elbow'", "'elbow_master'", "mimic_target_missing"):
        assert word in match.group(0), match.group(0)
    assert _value(node, "joints", lambda v: v != "") == "yaw shoulder elbow"
    warnings = _value(node, "joint_warnings", lambda v: v != "")
    assert "joint 'elbow': <mimic> names 'elbow_master'" in warnings
    node.proc.assert_alive()


def test_joint_states_with_the_mimic_joints_name_only_unknown_joints_as_unknown(dynamics_node):
    """ARM3 with a finger mimicking the elbow, as ros2_control's joint_state_broadcaster
    publishes it (the mimic joint among the others) beside a joint the URDF does not have: the
    diagnostics' unknown_joints name that joint only, and the gravity torques are the model's."""
    with_finger = ARM3_URDF.replace(
        "</robot>",
        '<link name="finger"><inertial><mass value="0.2"/>'
        '<inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>'
        '<joint name="finger_joint" type="prismatic"><parent link="l3"/><child link="finger"/>'
        '<origin xyz="0.2 0 0"/><axis xyz="0 0 1"/>'
        '<limit lower="0" upper="0.05" effort="10" velocity="0.1"/>'
        '<mimic joint="elbow" multiplier="0.01"/></joint></robot>',
    )
    model = RobotModel.from_urdf_string(with_finger)
    assert model.derived_joints == {"finger_joint"}
    node = dynamics_node(urdf=with_finger, diagnostics_period=0.2)
    node.wait_connected()
    names = ["yaw", "shoulder", "elbow", "finger_joint", "camera_pan"]
    q = np.array([0.2, -0.4, 0.7])
    msg = node.publish_until(lambda: node.joint_state(names, [*q, 0.007, 0.1]), "gravity_torques")
    np.testing.assert_allclose(efforts(msg, model.joint_names), model.gravity_torques(q), atol=1e-9)
    assert _value(node, "unknown_joints", lambda v: v != "") == "camera_pan"
    node.proc.wait_for_output(
        r"ignoring joints the model does not have: \['camera_pan'\]", timeout=60.0
    )


def test_a_description_without_inertials_and_limits_warns_once_per_rule(dynamics_node):
    """ARM3 as the ROS-Industrial descriptions are written (no <inertial>, effort="0" on every
    joint): the node loads it and says so in one WARN per rule naming the three joints, the
    same lines in the diagnostics values; its gravity torques are 0."""
    bare = re.sub(r"<inertial>.*?</inertial>", "", ARM3_URDF, flags=re.S)
    bare = re.sub(r'effort="\d+"', 'effort="0"', bare)
    node = dynamics_node(urdf=bare, diagnostics_period=0.2)
    joints = "'yaw', 'shoulder', 'elbow'"
    node.proc.wait_for_output(
        rf"WARN.*inertia loaded as given.*: joints {joints} move no mass or inertia", timeout=60.0
    )
    node.proc.wait_for_output(
        rf"WARN.*URDF joint warning: joints {joints}: "
        r'<limit effort="0">: loaded as no effort limit',
        timeout=60.0,
    )
    inertia = _value(node, "inertia_warnings", lambda v: v != "")
    assert inertia.startswith(f"joints {joints} move no mass")
    assert inertia.count("moves_no_inertia") == 1
    limits = _value(node, "joint_warnings", lambda v: v != "")
    assert limits.startswith(f"joints {joints}: <limit") and limits.count("zero_limit") == 1
    output = node.proc.output()
    assert output.count("inertia loaded as given") == 1
    assert output.count("URDF joint warning") == 1
    names = ["yaw", "shoulder", "elbow"]
    msg = node.publish_until(
        lambda: node.joint_state(names, [0.1, 0.2, 0.3]),
        "gravity_torques",
        lambda m: list(m.name) == names,
    )
    assert efforts(msg, names).tolist() == [0.0, 0.0, 0.0]
    node.proc.assert_alive()


def _finger(name, side, mimic=""):
    return (
        f'<link name="{name}_link"><inertial><origin xyz="0 0 0.02"/><mass value="0.3"/>'
        '<inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-5"/></inertial></link>'
        f'<joint name="{name}" type="prismatic"><parent link="tool"/><child link="{name}_link"/>'
        f'<origin xyz="0 {side * 0.01} 0.05"/><axis xyz="0 {side} 0"/>'
        f'<limit lower="0" upper="0.04" effort="20" velocity="0.2"/>{mimic}</joint>'
    )


# the bundled Panda arm with a two-finger gripper on its tool link (one finger mimics the other)
GRIPPER_URDF = read(PANDA_URDF).replace(
    "</robot>",
    _finger("finger_joint", 1)
    + _finger("finger_mimic_joint", -1, '<mimic joint="finger_joint"/>')
    + "</robot>",
)


def test_a_gripper_joint_states_never_carry_is_locked_by_parameter(dynamics_node, panda):
    """The Panda with a gripper whose driver publishes nothing: the node waits for the finger
    and says locked_joints would load it as fixed; a position beyond the finger's limits, the
    mimic finger, an unknown joint and a position that is not a number are refused naming
    them; locked at 2 cm (with its mimic finger), the node serves the arm joints: gravity
    torques of the arm with the fingers at 2 cm, the wrench from the arm's joint torques."""
    names = list(panda.joint_names)
    locked = RobotModel.from_urdf_string(
        GRIPPER_URDF, tip_link="tool", locked_joints={"finger_joint": 0.02}
    )
    full = RobotModel.from_urdf_string(GRIPPER_URDF, tip_link="tool")
    assert locked.joint_names == tuple(names)
    g = locked.gravity_torques(Q)
    np.testing.assert_allclose(g, full.gravity_torques(np.append(Q, 0.02))[:7], atol=1e-12)
    assert np.abs(g - panda.gravity_torques(Q)).max() > 1e-3  # the fingers weigh
    F = np.array([2.0, -3.0, 5.0, 0.2, -0.1, 0.3])
    tau = g - locked.jacobian(Q).T @ F

    node = dynamics_node(
        urdf=GRIPPER_URDF, tip_link="tool", wrench_estimation="static", diagnostics_period=0.2
    )
    node.wait_connected(("gravity_torques", "external_wrench"))
    for _ in range(3000):
        node.publish(node.joint_state(names, Q, np.zeros(7), tau))
        node.t.spin_for(0.02)
        match = re.search(r"waiting for positions of joints .*", node.proc.output())
        if match:
            break
    assert match, node.proc.output()
    assert match.group(0).startswith("waiting for positions of joints ['finger_joint']; if no")
    assert "the parameter locked_joints loads them as fixed joints" in match.group(0)

    for entry, words in (
        ("finger_joint=0.05", ["'finger_joint'", "0.05 is outside its limits [0, 0.04]"]),
        ("finger_mimic_joint=0", ["mimics 'finger_joint'", "lock 'finger_joint'"]),
        ("fingerjoint", ["'fingerjoint'", "did you mean 'finger_joint'"]),
        ("finger_joint=open", ["'finger_joint=open'", "must be a number"]),
    ):
        refused = node.set_parameters(locked_joints=[entry])[0]
        assert not refused.successful, entry
        for word in words:
            assert word in refused.reason, (word, refused.reason)
    result = node.set_parameters(locked_joints=["finger_joint=0.02"])[0]
    assert result.successful, result.reason
    node.proc.wait_for_output(
        r"model loaded from .*\(locked: finger_joint=0.02 finger_mimic_joint=0.02\)", timeout=60.0
    )
    gravity = node.publish_until(
        lambda: node.joint_state(names, Q, np.zeros(7), tau), "gravity_torques"
    )
    assert list(gravity.name) == names
    np.testing.assert_allclose(efforts(gravity, names), g, atol=1e-9)
    wrench = node.wait_for("external_wrench")
    R = locked.frame_pose(Q)[:3, :3]
    expected = np.concatenate([R.T @ F[:3], R.T @ F[3:]])
    np.testing.assert_allclose(wrench_array(wrench), expected, atol=1e-6)
    value = _value(node, "locked_joints", lambda v: v != "")
    assert value == "finger_joint=0.02 finger_mimic_joint=0.02"
    node.proc.assert_alive()
