"""Where a URDF places the model: the root's gravity as the base link sees it, and link frames so
far from the base that the lengths cannot be metres.

- :func:`root_gravity`: the default gravity, 9.81 m/s^2 down the URDF root's z axis (REP 103: z
  up) in the base link's axes; a revolute joint between the root and the base is named (the
  direction is then that of the joint at 0).
- :func:`far_frame_warnings`: a moving link frame farther than ``FAR_FROM_BASE`` from the base at
  the zero configuration (a description in millimetres or centimetres) is named.

Both give :class:`~robot_dynamics.core.joint_warnings.JointWarning` entries that the model
holds in ``joint_warnings``.
"""

import numpy as np

from .joint_warnings import FAR_FROM_BASE_RULE, GRAVITY_JOINT_ABOVE, JointWarning
from .kinematics import Kinematics
from .tree import STANDARD_GRAVITY

#: Distance [m] from the base beyond which a moving link frame at the zero configuration is
#: taken for lengths in another unit (the largest arms reach 4 m; millimetres make a UR5 1 km
#: long, centimetres 100 m).
FAR_FROM_BASE = 50.0


def far_frame_warnings(tree):
    """A :class:`JointWarning` when a moving link frame lies farther than ``FAR_FROM_BASE`` from
    the base at the zero configuration (a description in millimetres or centimetres: its
    torques would be 1000 or 100 times too large), naming the farthest frame's joint.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.

    Returns:
        tuple: none or one JointWarning (rule :data:`FAR_FROM_BASE_RULE`).
    """
    pose = Kinematics(tree, tree.body_positions(np.zeros(tree.n))).T  # (nb, 4, 4) at q = 0
    far, where = FAR_FROM_BASE, None
    for link, info in tree.frames.items():
        if info.body >= 0:
            distance = float(np.linalg.norm((pose[info.body] @ info.T_body_frame)[:3, 3]))
            if distance > far:
                far, where = distance, (link, info.body)
    if where is None:
        return ()
    link, body = where
    return (
        JointWarning(
            tree.body_joint_names[body],
            FAR_FROM_BASE_RULE,
            f"moves link {link!r}, {far:.4g} m from base link {tree.base_link!r} at the zero "
            "configuration: lengths in millimetres or centimetres? (URDF lengths are metres; "
            "the torques would be that many times too large) loaded as given",
        ),
    )


def root_gravity(robot, base_link):
    """Standard gravity down the URDF root link's z axis (REP 103: z up), in the base link's axes:
    the base as the URDF places it in the root, the joints between them at 0.

    Args:
        robot: :class:`~robot_dynamics.core.urdf.RobotDescription`.
        base_link: the model's base link (the root itself: ``STANDARD_GRAVITY``).

    Returns:
        tuple: ``(gravity (3,) [m/s^2], warnings)``, one :class:`JointWarning` per revolute or
        continuous joint above the base (gravity's direction is then that of the joint at 0;
        a floating or planar joint is taken at its origin, the pose its URDF means).
    """
    parent_joint = {joint.child: joint for joint in robot.joints}
    rotation, warnings, link = np.eye(3), [], base_link
    while link in parent_joint:
        joint = parent_joint[link]
        rotation = joint.origin[:3, :3] @ rotation
        if joint.type in ("revolute", "continuous"):  # a free joint's origin is the pose meant
            warnings.append(
                JointWarning(
                    joint.name,
                    GRAVITY_JOINT_ABOVE,
                    f"turns base link {base_link!r} from above: gravity, the URDF root's down, "
                    "is taken with it at 0; give gravity in the base frame for its position",
                )
            )
        link = joint.parent
    gravity = rotation.T @ np.asarray(STANDARD_GRAVITY)
    gravity[np.abs(gravity) < 1e-12] = 0.0  # an axis turned by a right angle: no -0 or 6e-16
    return gravity, tuple(reversed(warnings))


__all__ = ["FAR_FROM_BASE", "far_frame_warnings", "root_gravity"]
