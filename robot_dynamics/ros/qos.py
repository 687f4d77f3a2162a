"""QoS profiles the nodes share, and the user's QoS overrides of them. Functions, not module
constants: each call returns a profile of its own."""

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy


def joint_states_qos():
    """joint_states as a 1 kHz consumer reads it: best effort (matches every publisher), the
    latest 10 samples.

    Returns:
        rclpy.qos.QoSProfile: the profile.
    """
    return QoSProfile(
        depth=10,
        history=HistoryPolicy.KEEP_LAST,
        reliability=ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.VOLATILE,
    )


def robot_description_qos():
    """robot_description as robot_state_publisher publishes it: reliable, transient local, depth 1
    (a late subscriber still gets the URDF).

    Returns:
        rclpy.qos.QoSProfile: the profile.
    """
    return QoSProfile(
        depth=1,
        history=HistoryPolicy.KEEP_LAST,
        reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL,
    )


def subscription_qos_overrides(node, topic, profile):
    """``profile`` with the user's QoS overrides for a subscription to ``topic`` applied, under
    the names and policies of rclpy's ``QoSOverridingOptions.with_default_policies()``: read-only
    parameters ``qos_overrides.<topic>.subscription.{depth,history,reliability}`` declared on
    ``node``, defaulting to ``profile``'s values. For a subscription created on another node than
    the one whose parameters the user sets (the hot path's I/O node).

    Args:
        node: the node whose parameters hold the overrides.
        topic: the fully resolved topic name.
        profile: the default profile.

    Returns:
        rclpy.qos.QoSProfile: a new profile, the overrides applied.

    Raises:
        ValueError: a depth below 1, or a history or reliability that is not one of its names.
    """
    prefix = f"qos_overrides.{topic}.subscription."

    def declare(policy, default):
        descriptor = ParameterDescriptor(
            description=f"{policy} for subscription `{topic}`", read_only=True
        )
        return node.declare_parameter(prefix + policy, default, descriptor).value

    def policy_value(policy, enum, default):
        value = declare(policy, default.name.lower())
        names = [k.lower() for k in enum.__members__ if not k.startswith("RMW")]
        if str(value).lower() not in names:
            raise ValueError(f"parameter {prefix + policy}: {value!r} is not one of {names}")
        return enum[str(value).upper()]

    depth = declare("depth", profile.depth)
    if depth < 1:
        raise ValueError(f"parameter {prefix}depth: {depth} is below 1")
    return QoSProfile(
        depth=depth,
        history=policy_value("history", HistoryPolicy, profile.history),
        reliability=policy_value("reliability", ReliabilityPolicy, profile.reliability),
        durability=profile.durability,
    )
