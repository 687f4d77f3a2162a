"""The dynamics node on real drivers' data, as a process over real DDS: force-only
estimation on a 3-DOF arm, effort scale and offset, tare, contact on/off with hysteresis.

The joint states are built from the core for a known wrench on the tool; expected values are
transformed by hand (a force-torque sensor at the tip reads R^T f, R^T n about its origin).
"""

import numpy as np
import pytest

from node_test_helpers import PANDA_URDF, Q, in_tip_frame, read, wrench_array
from small_arms import ARM3_URDF

from robot_dynamics import RobotModel
from robot_dynamics_interfaces.msg import ContactState
from std_srvs.srv import Trigger

pytestmark = pytest.mark.ros


def test_force_only_on_a_three_joint_arm(dynamics_node):
    """A pure 10 N force on the tool of a 3-DOF arm: the default components (fx fy fz, three
    joints) recover it exactly, moments published as 0 (the minimum-norm pseudo-inverse over
    six components would spread it over moments it cannot tell apart)."""
    arm = RobotModel.from_urdf_string(ARM3_URDF)
    q = np.array([0.4, -0.5, 1.1])
    force = np.array([0.0, 0.0, -10.0, 0.0, 0.0, 0.0])  # base axes, at the tool origin
    tau = arm.gravity_torques(q) - arm.jacobian(q).T @ force
    names = list(arm.joint_names)
    node = dynamics_node(urdf=ARM3_URDF, wrench_estimation="static")
    node.wait_connected(("external_wrench",))
    wrench = node.publish_until(
        lambda: node.joint_state(names, q, np.zeros(3), tau), "external_wrench"
    )
    assert wrench.header.frame_id == "tool"
    np.testing.assert_allclose(wrench_array(wrench), in_tip_frame(arm, q, force), atol=1e-9)
    assert np.all(wrench_array(wrench)[3:] == 0.0)
    status, values = node.diagnostics(lambda s, v: "wrench_components" in v)
    assert values["wrench_components"] == "fx fy fz"
    assert float(values["min_singular_value"]) > 0.0
    node.proc.assert_alive()


def test_effort_scale_and_offset(dynamics_node, panda):
    """A driver reporting tau = scale * effort + offset per joint (current, another sign)."""
    names = list(panda.joint_names)
    f_ext = np.array([2.0, -3.0, 5.0, 0.2, -0.1, 0.3])
    tau = panda.gravity_torques(Q) - panda.jacobian(Q).T @ f_ext
    scale = np.array([2.0, -1.0, 1.0, 0.5, -2.0, 1.0, 4.0])
    offset = np.array([0.1, 0.0, -0.2, 0.0, 0.3, 0.0, 0.0])
    reported = (tau - offset) / scale
    node = dynamics_node(
        urdf=read(PANDA_URDF),
        wrench_estimation="static",
        effort_scale=scale.tolist(),
        effort_offset=offset.tolist(),
    )
    node.wait_connected(("external_wrench",))
    wrench = node.publish_until(
        lambda: node.joint_state(names, Q, np.zeros(7), reported), "external_wrench"
    )
    np.testing.assert_allclose(wrench_array(wrench), in_tip_frame(panda, Q, f_ext), atol=1e-6)
    bad = node.set_parameters(effort_scale=[1.0, 2.0])[0]
    assert not bad.successful and "effort_scale" in bad.reason
    node.proc.assert_alive()


def test_tare_removes_a_constant_bias_and_reset_clears_it(dynamics_node, panda):
    names = list(panda.joint_names)
    bias = np.array([1.0, -0.5, 0.0, 0.8, 0.0, 0.2, 0.0])  # a model error, at rest
    tau0 = panda.gravity_torques(Q) - bias
    node = dynamics_node(urdf=read(PANDA_URDF), wrench_estimation="static", tare_duration=0.1)
    node.wait_connected(("external_wrench", "external_torques"))
    tare = node.node.create_client(Trigger, node.fq + "/tare")
    reset = node.node.create_client(Trigger, node.fq + "/reset_estimation")
    make = lambda: node.joint_state(names, Q, np.zeros(7), tau0)  # noqa: E731
    result = node.t.call(tare, Trigger.Request(), 60.0)  # nothing to average yet: refused
    assert not result.success and "no joint_states message yet" in result.message, result.message
    msg = node.publish_until(make, "external_wrench")
    assert np.abs(wrench_array(msg)).max() > 0.1  # the bias reads as a wrench
    result = node.t.call(tare, Trigger.Request(), 60.0)
    assert result.success, result.message
    msg = node.publish_until(
        make, "external_wrench", lambda m: np.abs(wrench_array(m)).max() <= 1e-9
    )
    # after the tare a push near the tare pose reads exactly
    f_ext = np.array([0.0, 0.0, -8.0, 0.0, 0.0, 0.0])
    pushed = tau0 - panda.jacobian(Q).T @ f_ext
    expected = in_tip_frame(panda, Q, f_ext)
    node.publish_until(
        lambda: node.joint_state(names, Q, np.zeros(7), pushed),
        "external_wrench",
        lambda m: np.abs(wrench_array(m) - expected).max() <= 1e-6,
    )
    result = node.t.call(reset, Trigger.Request(), 60.0)
    assert result.success, result.message
    node.publish_until(make, "external_wrench", lambda m: np.abs(wrench_array(m)).max() > 0.1)
    node.proc.assert_alive()


def test_contact_on_and_off_with_hysteresis_during_a_push(dynamics_node, panda):
    """force_on 6 N, force_off 2 N: a 10 N push switches contact on (link: the tool's body),
    4 N keeps it on (hysteresis), 0 N switches it off; ~/contact on each change."""
    names = list(panda.joint_names)
    node = dynamics_node(
        urdf=read(PANDA_URDF),
        wrench_estimation="static",
        **{"contact.force_on": 6.0, "contact.force_off": 2.0, "contact.min_duration": 0.005},
    )
    contacts = []
    node.node.create_subscription(ContactState, node.fq + "/contact", contacts.append, 100)
    node.wait_connected(("external_wrench",))
    assert node.t.spin_until(lambda: node.joint_pub.get_subscription_count() >= 1, 60.0)

    def pushing(newtons):
        f_ext = np.array([0.0, newtons, 0.0, 0.0, 0.0, 0.0])
        tau = panda.gravity_torques(Q) - panda.jacobian(Q).T @ f_ext
        return lambda: node.joint_state(names, Q, np.zeros(7), tau)

    def wait_contact(state, extra=lambda m: True):
        seen = len(contacts)

        def make():
            return make_msg[0]()

        deadline_msgs = 3000
        for _ in range(deadline_msgs):
            node.publish(make())
            node.t.spin_for(0.01)
            for m in contacts[seen:]:
                if m.in_contact == state and extra(m):
                    return m
        raise AssertionError(f"no ~/contact with in_contact={state}: {contacts[-3:]}")

    make_msg = [pushing(0.0)]
    node.publish_until(make_msg[0], "external_wrench")
    make_msg[0] = pushing(10.0)
    on = wait_contact(True)
    assert on.force == pytest.approx(10.0, abs=1e-6) and on.link
    assert on.contacts == 1 and on.header.frame_id == "tool"
    make_msg[0] = pushing(4.0)  # between off and on: stays in contact
    at_4_newtons = lambda m: abs(np.linalg.norm(wrench_array(m)[:3]) - 4.0) < 1e-6  # noqa: E731
    for _ in range(20):  # twenty states at 4 N served, however slowly a loaded node serves them
        node.publish_until(make_msg[0], "external_wrench", at_4_newtons)
    assert not [m for m in contacts if not m.in_contact and m.contacts >= 1]
    make_msg[0] = pushing(0.0)
    off = wait_contact(False, lambda m: m.contacts == 1)
    assert off.link == "" and off.force == pytest.approx(0.0, abs=1e-6)
    # in contact again, detection switched off: one last "no contact", then no ~/contact
    make_msg[0] = pushing(10.0)
    wait_contact(True, lambda m: m.contacts == 2)
    result = node.set_parameters(**{"contact.force_off": 0.0, "contact.force_on": 0.0})
    assert all(r.successful for r in result), result
    assert node.t.spin_until(lambda: not contacts[-1].in_contact, 10.0), contacts[-3:]
    assert contacts[-1].contacts == 2
    seen = len(contacts)
    for _ in range(250):  # 2.5 s of pushes: more than two periods of the periodic ~/contact
        node.publish(make_msg[0]())
        node.t.spin_for(0.01)
    assert len(contacts) == seen, contacts[seen:]
    node.proc.assert_alive()
