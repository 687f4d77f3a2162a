"""What a robot description says of a joint that the model loads otherwise, or that makes its
numbers doubtful: the rules, the warning (:class:`JointWarning`) and its report lines. The URDF
reader (:mod:`robot_dynamics.core.urdf`), the tree builder (:mod:`robot_dynamics.core.tree`) and
the placement checks (:mod:`robot_dynamics.core.placement`) make them;
``RobotModel.joint_warnings`` holds the model's joints'."""

from dataclasses import dataclass

#: Rules of :class:`JointWarning`.
NEGATIVE_DAMPING = "negative_damping"
NEGATIVE_FRICTION = "negative_friction"
INVERTED_LIMITS = "inverted_limits"
ZERO_LIMIT = "zero_limit"
MISSING_LIMIT = "missing_limit"
MIMIC_TARGET_MISSING = "mimic_target_missing"
MIMIC_TARGET_FIXED = "mimic_target_fixed"
MIMIC_TARGET_OUTSIDE = "mimic_target_outside_model"
FREE_JOINT_FIXED = "free_joint_fixed"
GRAVITY_JOINT_ABOVE = "gravity_joint_above_base"
FAR_FROM_BASE_RULE = "far_from_base"


@dataclass(frozen=True)
class JointWarning:
    """A joint loaded otherwise than its URDF element says: what the element says is not physical
    (a negative damping or friction, ``lower > upper``, an effort or velocity limit of 0), is a
    joint a fixed-base model does not have (``floating``, ``planar``) or names no movable joint of
    the model (a ``<mimic>``), while the rigid-body numbers stay meaningful; or a joint loaded as
    given that makes them doubtful (it places a link implausibly far from the base; it turns the
    base from above, so the default gravity's direction is that of the joint at 0).

    Attributes:
        joint: the joint's name.
        rule: :data:`NEGATIVE_DAMPING`, :data:`NEGATIVE_FRICTION`, :data:`INVERTED_LIMITS`,
            :data:`ZERO_LIMIT` (``<limit effort="0">`` or ``velocity="0"``, as CAD exporters and
            ROS-Industrial descriptions write for "unknown": loaded as no such limit),
            :data:`MISSING_LIMIT` (a revolute or prismatic joint without the ``<limit>`` the URDF
            requires of it, which urdfdom refuses: loaded without any limit),
            :data:`MIMIC_TARGET_MISSING` (the ``<mimic>`` names a joint the URDF does not have),
            :data:`MIMIC_TARGET_FIXED` (a fixed joint) or :data:`MIMIC_TARGET_OUTSIDE` (a joint
            not below the model's base link; a mimic joint is then independent and actuated);
            :data:`FREE_JOINT_FIXED` (a floating or planar joint below the base link, loaded as
            a fixed joint at its origin); :data:`GRAVITY_JOINT_ABOVE` (a revolute or continuous
            joint above the base link, which turns it: the default gravity, the URDF root's
            down, is taken with the joint at 0); :data:`FAR_FROM_BASE_RULE` (the joint moves a
            link frame implausibly far from the base: lengths not in metres).
        message: what the element says and what the model does instead.
    """

    joint: str
    rule: str
    message: str

    def __str__(self):
        return _line([self.joint], self.message, self.rule)


def joint_warning_lines(warnings):
    """One line per rule and message of the :class:`JointWarning` list, naming every joint it
    applies to (a description whose six joints all say ``effort="0"`` gets one line, not six).

    Args:
        warnings: JointWarnings (``model.joint_warnings``).

    Returns:
        list: str lines, in the order of each group's first warning.
    """
    groups = {}
    for warning in warnings:
        groups.setdefault((warning.rule, warning.message), []).append(warning.joint)
    return [_line(joints, message, rule) for (rule, message), joints in groups.items()]


def _line(joints, message, rule):
    names = ", ".join(map(repr, joints))
    return f"joint{'s' if len(joints) > 1 else ''} {names}: {message} ({rule})"
