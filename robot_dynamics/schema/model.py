"""The parameters a node's model is built from, declared the same in both nodes."""

import math

from robot_dynamics.core.tip import DEFAULT_TIP_RULE

from .param import Param, Section, Type

MAX_LOCKED_POSITION = 1.0e3
"""Largest magnitude of a ``locked_joints`` position [rad or m]."""


def locked_joints(entries):
    """The ``locked_joints`` parameter as ``RobotModel.from_urdf_string``'s argument.

    Args:
        entries: strings ``JOINT=POSITION`` (position in rad or m) or ``JOINT``.

    Returns:
        dict: joint name -> position, None for a bare ``JOINT`` (its default position).

    Raises:
        ValueError: an empty name, a position that is not a finite number within +-1e3, a joint
            named twice (the entry named).
    """
    locked = {}
    for entry in entries:
        name, sep, text = (part.strip() for part in entry.partition("="))
        position = None
        if sep:
            try:
                position = float(text)
            except ValueError:
                position = math.nan
            if not abs(position) <= MAX_LOCKED_POSITION:
                raise ValueError(
                    f"{entry!r}: the position must be a number within +-{MAX_LOCKED_POSITION:g} "
                    "(JOINT=POSITION, or JOINT alone for its default)"
                )
        if not name:
            raise ValueError(f"{entry!r} names no joint (JOINT=POSITION or JOINT)")
        if name in locked:
            raise ValueError(f"joint {name!r} is locked twice")
        locked[name] = position
    return locked


def _locked_reason(value):
    try:
        locked_joints(value)
    except ValueError as error:
        return str(error)
    return None


def model_section(tip_link_use):
    """The model parameters (a change rebuilds the model: the URDF is parsed again).

    Args:
        tip_link_use: what the node uses the tip link for (ends its description).

    Returns:
        Section: key ``"model"``.
    """
    return Section(
        "model",
        "Model",
        (
            Param(
                "robot_description",
                "",
                "URDF of the robot (XML text only, never a path). Empty: the robot_description "
                "topic (std_msgs/String, transient local). A new value rebuilds the model aside; "
                "an invalid one is refused and the old model kept.",
                Type.STRING,
            ),
            Param("base_link", "", "Root link of the model; empty = the URDF root.", Type.STRING),
            Param(
                "tip_link",
                "",
                f"Tip link; empty = {DEFAULT_TIP_RULE}. {tip_link_use}",
                Type.STRING,
            ),
            Param(
                "locked_joints",
                [],
                "Movable joints loaded as fixed joints, each JOINT=POSITION (rad or m) or JOINT "
                "(at 0, or the middle of its range when 0 is outside its limits), with their "
                "mimic joints: joints that joint_states never carries (a gripper on a driver of "
                "its own). Their links still weigh on the other joints; the model's joints, and "
                "every joint vector, leave them out.",
                Type.STRING_ARRAY,
                check=_locked_reason,
            ),
            Param(
                "gravity",
                [],
                "Gravity in the base frame; [] = 9.81 down the URDF root link's z "
                "axis as base_link sees it (its pose in the URDF, the joints above it at 0): "
                "[0, 0, -9.81] when base_link is the root, the tilt of an arm that a multi-arm "
                "or wall-mount URDF places on a tilted link.",
                Type.DOUBLE_ARRAY,
                units="m/s^2",
                range=(-100.0, 100.0),
                length=(3, 0),
            ),
            Param(
                "balance_inertia",
                False,
                "Replace link inertias that are not positive semi-definite or violate the "
                "triangle inequality (CAD placeholders) by balanced ones, each change logged.",
                Type.BOOL,
            ),
            Param(
                "strict_inertia",
                False,
                "Refuse a URDF with inertias that are not physically consistent (link tensors, "
                "an indefinite moving body that leaves M(q) positive); by default they load with "
                "a warning: logged, in the diagnostics.",
                Type.BOOL,
            ),
        ),
    )


MODEL_PARAMS = model_section("").names
"""The names of the model parameters (a change rebuilds the model, the URDF parsed again)."""
