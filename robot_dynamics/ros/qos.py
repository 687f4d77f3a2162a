"""QoS profiles the nodes share. Functions, not module constants: rclpy's QoS overriding
(``qos_overriding_options``) writes the overrides into the profile it is given."""

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
