"""Locked joints: movable joints of a URDF loaded as fixed joints at a given position, as
Pinocchio's ``buildReducedModel`` does.

A robot description often has joints that no joint_states message carries: the gripper of an
arm whose gripper driver publishes elsewhere (or not at all), a passive joint without an
encoder. Locked at a position, such a joint is part of its parent's body: its links still
weigh on the other joints, it has no coordinate of its own, and the model's joint vectors leave
it out. The mimic joints of a locked joint are locked with it, at ``multiplier * position +
offset``.
"""

import dataclasses

import numpy as np
from scipy.spatial.transform import Rotation

from .errors import InvalidInputError, KinematicTreeError, did_you_mean
from .spatial import homogeneous

MOVABLE = ("revolute", "continuous", "prismatic")


def default_positions(lower, upper):
    """Where a joint whose position is not known is held by default: 0 (the URDF's zero) when
    it is within the joint's limits, else the middle of its range.

    Args:
        lower: (n,) lower position limits [rad or m] (-inf when absent).
        upper: (n,) upper position limits [rad or m] (inf when absent).

    Returns:
        tuple: ``(positions (n,) [rad or m], at_zero (n,) bool)``.
    """
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    at_zero = (lower <= 0.0) & (upper >= 0.0)
    bounded = np.isfinite(lower) & np.isfinite(upper)
    mid = 0.5 * (np.where(bounded, lower, 0.0) + np.where(bounded, upper, 0.0))
    return np.where(at_zero, 0.0, mid), at_zero


def joint_motion(joint, position):
    """The transform a movable joint adds to its origin at a position.

    Args:
        joint: :class:`~robot_dynamics.core.urdf.JointData` (revolute, continuous or prismatic).
        position: its position [rad or m].

    Returns:
        ndarray: (4, 4) child link frame in the joint frame at that position [m].
    """
    if joint.type == "prismatic":
        return homogeneous(np.eye(3), joint.axis * position)
    return homogeneous(Rotation.from_rotvec(joint.axis * position).as_matrix(), np.zeros(3))


def _checked_position(joint, position):
    if position is None:
        (value,), _ = default_positions([joint.lower], [joint.upper])
        return float(value)
    try:
        value = float(position)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"locked joint {joint.name!r}: position {position!r} is not a number",
            argument="locked_joints",
        ) from None
    if not np.isfinite(value):
        raise InvalidInputError(
            f"locked joint {joint.name!r}: position {value} is not finite",
            argument="locked_joints",
        )
    if not joint.lower <= value <= joint.upper:
        raise InvalidInputError(
            f"locked joint {joint.name!r}: position {value:g} is outside its limits "
            f"[{joint.lower:g}, {joint.upper:g}]",
            argument="locked_joints",
        )
    return value


def lock_joints(robot, positions):
    """The description with joints locked: each a fixed joint at its position.

    Args:
        robot: :class:`~robot_dynamics.core.urdf.RobotDescription` (``parse_urdf``).
        positions: ``{joint name: position [rad or m]}``; a position of None is the joint's
            :func:`default_positions`.

    Returns:
        tuple: ``(RobotDescription, locked)``: the description with the named joints and their
        mimic joints fixed at ``origin @ joint_motion(position)``; ``locked`` is
        ``((joint name, position), ...)`` of every joint locked, in file order.

    Raises:
        KinematicTreeError: a joint the URDF does not have (close names suggested), a joint
            that is not revolute, continuous or prismatic, a mimic joint of a movable joint
            (its driver is the one to lock).
        InvalidInputError: a position that is not a finite number within the joint's limits.

        Each error's ``argument`` is ``"locked_joints"``.
    """
    joints = {joint.name: joint for joint in robot.joints}
    locked = {}
    for name, position in positions.items():
        joint = joints.get(name)
        if joint is None:
            raise KinematicTreeError(
                f"locked joint {name!r} is not a joint of the URDF{did_you_mean(name, joints)}",
                argument="locked_joints",
            )
        if joint.type not in MOVABLE:
            raise KinematicTreeError(
                f"locked joint {name!r} is a {joint.type} joint: only revolute, continuous and "
                "prismatic joints can be locked",
                argument="locked_joints",
            )
        driver = joint.mimic[0] if joint.mimic is not None else None
        if driver in joints and joints[driver].type in MOVABLE:
            raise KinematicTreeError(
                f"locked joint {name!r} mimics {driver!r}: lock {driver!r} (its mimic joints "
                "are locked with it)",
                argument="locked_joints",
            )
        locked[name] = _checked_position(joint, position)
    followers = [j for j in robot.joints if j.mimic is not None and j.type in MOVABLE]
    while True:  # mimic joints of locked joints, and theirs, in turn
        added = {
            j.name: j.mimic[1] * locked[j.mimic[0]] + j.mimic[2] + 0.0  # never -0.0
            for j in followers
            if j.mimic[0] in locked and j.name not in locked
        }
        if not added:
            break
        locked.update(added)
    fixed = tuple(
        dataclasses.replace(
            joint,
            type="fixed",
            origin=joint.origin @ joint_motion(joint, locked[joint.name]),
            mimic=None,
        )
        if joint.name in locked
        else joint
        for joint in robot.joints
    )
    order = tuple((j.name, locked[j.name]) for j in robot.joints if j.name in locked)
    return dataclasses.replace(robot, joints=fixed), order


__all__ = ["MOVABLE", "default_positions", "joint_motion", "lock_joints"]
