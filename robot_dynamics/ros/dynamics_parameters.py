"""The dynamics node's parameters (declared in :mod:`robot_dynamics.schema.dynamics_node`) and
what the node builds from their values: the model with payload and armature, the command joint
order. Their pipeline config is :func:`robot_dynamics.estimation.config.pipeline_config`.
"""

import numpy as np

from robot_dynamics.core.errors import InvalidInputError, RobotDynamicsError
from robot_dynamics.schema.dynamics_node import DERIVED, DYNAMICS_NODE, PAYLOAD_IDENTIFICATION

DERIVE_PARAMS = DERIVED.names
"""Parameters of a model derived from the parsed URDF (those that change the model itself are
:data:`~robot_dynamics.schema.MODEL_PARAMS`); the others are the pipeline's (a new pipeline
carrying the measured joint state over)."""


def specs():
    """The parameters the node declares itself (the ``~/identify_payload`` service declares
    its own), in declaration order.

    Returns:
        list: :class:`~robot_dynamics.schema.Param` entries.
    """
    return [p for s in DYNAMICS_NODE.sections if s is not PAYLOAD_IDENTIFICATION for p in s.params]


def build_model(text, values):
    """Models of URDF text and parameter values.

    Args:
        text: URDF XML text.
        values: parameter name -> value (base_link, tip_link, gravity, armature, payload.*).

    Returns:
        tuple: ``(parsed model, model with armature and payload)``.

    Raises:
        RobotDynamicsError: the URDF or a value cannot make a model.
        ValueError: see :func:`derive_model`.
    """
    from .description import model_from_parameters

    parsed = model_from_parameters(text, values)
    return parsed, derive_model(parsed, values)


def derive_model(parsed, values):
    """The parsed model with the armature, joint friction (``friction.*``) and payload
    parameters applied.

    Args:
        parsed: the model from the URDF.
        values: parameter name -> value.

    Returns:
        RobotModel: the derived model.

    Raises:
        RobotDynamicsError: whose ``argument`` is the parameter at fault (``armature``,
            ``friction.<field>``, ``payload.mass``/``com``/``inertia``/``frame``): an armature
            or friction coefficients of the wrong length or out of range, friction
            coefficients the friction model refuses (InvalidInputError naming the joint), a
            payload the model refuses (a frame that is not a link, or empty on a model without
            a tip link; an inertia that is not physically consistent).
    """
    model = parsed
    friction = parsed.friction.with_parameters(values)  # errors name friction.<field>
    if friction is not parsed.friction:
        model = model.with_friction(friction)
    armature = list(values["armature"])
    if armature:
        if len(armature) != parsed.n:
            raise InvalidInputError(
                f"armature has {len(armature)} values, the model has {parsed.n} joints "
                f"{list(parsed.joint_names)}",
                argument="armature",
            )
        model = model.with_armature(np.array(armature, dtype=float))  # errors name armature
    mass = float(values["payload.mass"])
    if values["payload.frame"] and values["payload.frame"] not in parsed.link_names:
        # refused when set, not later when a mass is given
        raise InvalidInputError(
            f"payload.frame {values['payload.frame']!r} is not a link of the model "
            f"(links: {list(parsed.link_names)})",
            argument="payload.frame",
        )
    if mass > 0.0:
        frame = values["payload.frame"] or None
        if frame is None and parsed.tip_link is None:
            raise InvalidInputError(
                "payload.frame is empty and the model has no tip_link "
                f"(leaves: {list(parsed.leaf_links)})",
                argument="payload.frame",
            )
        ixx, ixy, ixz, iyy, iyz, izz = values["payload.inertia"]
        inertia = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        try:
            model = model.with_payload(
                mass, np.array(values["payload.com"], dtype=float), inertia=inertia, frame=frame
            )
        except RobotDynamicsError as error:  # argument: mass, com, inertia or frame
            raise type(error)(str(error), argument=f"payload.{error.argument}") from None
    return model


def command_indices(joint_names, command_joints):
    """Model indices of the command joints.

    Args:
        joint_names: the model's joints, in order.
        command_joints: the ``command_joints`` parameter (empty: model order).

    Returns:
        ndarray: model indices (intp).

    Raises:
        ValueError: naming unknown joints.
    """
    joint_names = list(joint_names)
    if not command_joints:
        return np.arange(len(joint_names))
    unknown = [name for name in command_joints if name not in joint_names]
    if unknown:
        raise ValueError(f"command_joints {unknown} are not joints of the model {joint_names}")
    return np.array([joint_names.index(name) for name in command_joints], dtype=np.intp)
