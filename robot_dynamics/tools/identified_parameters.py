"""The dynamics node's parameters file that ``robot-dynamics identify`` writes beside the
identified URDF (:func:`robot_dynamics.core.urdf_writer.identified_urdf`): every joint-level
quantity of the fit that a URDF cannot carry.

The file (:func:`identified_parameters`, :func:`parameters_file_text`; ``/**:
ros__parameters:``, loadable by ``ros2 launch robot_dynamics dynamics.launch.py
description_file:=/abs/X.urdf params_file:=/abs/X.yaml``, by ``--ros-args --params-file
X.yaml`` and by the CLI's ``--params X.yaml``) holds:

- ``friction_compensation: true`` and the ``friction_velocity_threshold`` the fit used;
- ``friction_rest_velocity`` above the velocity noise the driver reported at rest, when the
  recording has the arm at rest for a second or more (no friction compensation while every
  joint is below it);
- the friction model beyond the URDF's (``friction.asymmetry``, ``friction.stribeck``,
  ``friction.stribeck_velocity``; viscous and Coulomb friction are in the URDF);
- the torque offsets as the node's effort conversion ``tau = effort_scale * effort +
  effort_offset``: a fitted offset ``o`` of the measured torque (the recording's efforts with
  identify's ``--effort-scale``/``--effort-offset`` applied) gives ``effort_offset = offset - o``
  and ``effort_scale`` the scale identify used;
- ``armature`` when it was fitted;
- ``locked_joints``: the joints the recording does not carry, at the positions identify held
  them (``JOINT=POSITION``): the node, whose joint_states lack them too, loads them as fixed
  joints there. Every per-joint list is then in the order of the other joints.
"""

from __future__ import annotations

import os

import numpy as np

from robot_dynamics.schema.model import locked_joints
from robot_dynamics.tools.params_file import parameters_yaml


def identified_parameters(
    result,
    model,
    velocity_threshold,
    *,
    effort_scale=None,
    effort_offset=None,
    held=(),
    rest_velocity=None,
):
    """The dynamics node's parameters of what the fit found beyond the URDF (see the module
    docstring).

    Args:
        result: the :class:`~robot_dynamics.core.identification.IdentificationResult`.
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel` it was fitted for.
        velocity_threshold: ``v_eps`` of the friction's smooth sign the fit used [rad/s or m/s].
        effort_scale: (n,) the scale identify applied to the recording's efforts, or None (1).
        effort_offset: (n,) the offset identify applied [N m or N], or None (0).
        held: ``((joint, position [rad or m]), ...)`` of the joints the recording does not
            carry (identify held them there).
        rest_velocity: ``friction_rest_velocity`` from the recording's velocity noise at rest
            [rad/s or m/s] (:func:`~robot_dynamics.core.rest.rest_velocity`), or None.

    Returns:
        dict: parameter name -> value (floats, lists of floats in model joint order without
        the held joints; ``locked_joints`` when some are held).
    """
    n = model.n
    friction = result.friction_model(model)
    scale = np.ones(n) if effort_scale is None else np.asarray(effort_scale, dtype=float)
    offset = np.zeros(n) if effort_offset is None else np.asarray(effort_offset, dtype=float)
    values = {
        "friction_compensation": True,
        "friction_velocity_threshold": float(velocity_threshold),
        **({} if rest_velocity is None else {"friction_rest_velocity": float(rest_velocity)}),
        "friction.asymmetry": [float(x) + 0.0 for x in friction.asymmetry],
        "friction.stribeck": [float(x) + 0.0 for x in friction.stribeck],
        "friction.stribeck_velocity": [float(x) for x in friction.stribeck_velocity],
        "effort_offset": [float(x) + 0.0 for x in offset - result.group("offset")],
    }
    if effort_scale is not None:
        values["effort_scale"] = [float(x) for x in scale]
    if "armature" in result.layout.groups:
        values["armature"] = [
            float(x) + 0.0 for x in result.layout.joint_values(result.theta, "armature")
        ]
    if held:
        locked = {name for name, _ in held}
        keep = [k for k, name in enumerate(model.joint_names) if name not in locked]
        values = {
            key: [value[k] for k in keep] if isinstance(value, list) else value
            for key, value in values.items()
        }
        values["locked_joints"] = [f"{name}={float(position)!r}" for name, position in held]
    return values


def parameters_path(urdf_path):
    """Where the parameters file of an identified URDF goes: beside it, ``<stem>.yaml``.

    Args:
        urdf_path: the identified URDF's path.

    Returns:
        str: the path.
    """
    return os.path.splitext(str(urdf_path))[0] + ".yaml"


def parameters_file_text(values, model, comments=()):
    """The parameters file of :func:`identified_parameters`' values.

    Args:
        values: parameter name -> value.
        model: the model (its joints but the locked ones name the order of every per-joint
            list).
        comments: more ``#`` lines for the top (the source, the choices made).

    Returns:
        str: the YAML text (``/**: ros__parameters:``).

    Raises:
        ParametersFileError: a value the dynamics node would refuse.
    """
    locked = locked_joints(values.get("locked_joints", []))
    lines = [
        "robot-dynamics identify: what the identified URDF cannot carry, for the dynamics node",
        "per-joint lists in model order: "
        + ", ".join(name for name in model.joint_names if name not in locked),
        *(
            [
                "locked_joints: fixed where identify held them (not in the recording, or locked "
                "by the node's file)"
            ]
            if locked
            else []
        ),
        *comments,
    ]
    return parameters_yaml(values, node="/**", comments=lines)


__all__ = ["identified_parameters", "parameters_file_text", "parameters_path"]
