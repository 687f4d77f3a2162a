"""What ``robot-dynamics identify`` writes: the identified URDF and, beside it, the dynamics
node's parameters file with every joint-level quantity of the fit that a URDF cannot carry.

The URDF (:func:`identified_urdf`) is the input with, for every body the fit sees (a link moved
by a movable joint, with the links fixed to it merged in), the body's identified ``<inertial>``
written on the body's own link (mass, centre of mass, full inertia tensor about it, link axes)
and the ``<inertial>`` of the links fixed to it removed (their mass is in the body's), and every
actuated joint's ``<dynamics damping friction>`` set to the identified viscous and Coulomb
friction. Links fixed to the base and everything else (visuals, collisions, limits, comments)
are kept. A coefficient the fit put at its bound is written as exactly 0, and an entry of an
inertia tensor or a centre of mass below ``1e-12`` of its largest one (what the solver leaves of
a zero) as 0.

The parameters file (:func:`identified_parameters`, ``/**: ros__parameters:``, loadable by
``ros2 launch robot_dynamics dynamics.launch.py description_file:=X.urdf params_file:=X.yaml``,
by ``--ros-args --params-file X.yaml`` and by the CLI's ``--params X.yaml``) holds:

- ``friction_compensation: true`` and the ``friction_velocity_threshold`` the fit used;
- the friction model beyond the URDF's (``friction.asymmetry``, ``friction.stribeck``,
  ``friction.stribeck_velocity``; viscous and Coulomb friction are in the URDF);
- the torque offsets as the node's effort conversion ``tau = effort_scale * effort +
  effort_offset``: a fitted offset ``o`` of the measured torque (the recording's efforts with
  identify's ``--effort-scale``/``--effort-offset`` applied) gives ``effort_offset = offset - o``
  and ``effort_scale`` the scale identify used;
- ``armature`` when it was fitted.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import numpy as np

from robot_dynamics.core.regressor import parameters_to_inertia
from robot_dynamics.core.spatial import inertia_parameters

#: Entries of an inertia tensor or a centre of mass below this fraction of the largest one are
#: written as 0.
NEGLIGIBLE = 1e-12


def _fmt(x):
    return f"{float(x) + 0.0:.9g}"  # + 0.0: never "-0"


def _clean(values):
    values = np.asarray(values, dtype=float)
    scale = np.abs(values).max(initial=0.0)
    return np.where(np.abs(values) <= NEGLIGIBLE * scale, 0.0, values)


def identified_urdf(xml, model, layout, theta):
    """The URDF text ``xml`` with the identified inertials and joint friction of ``theta`` (see
    the module docstring). Comments and every other element are kept.

    Args:
        xml: the original URDF XML text.
        model: the :class:`~robot_dynamics.core.model.RobotModel` built from it.
        layout: the :class:`~robot_dynamics.core.regressor.ParameterLayout` of ``theta``.
        theta: (p,) identified parameters.

    Returns:
        str: the new URDF XML text.
    """
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    root = ET.fromstring(xml, parser=parser)
    links = {link.get("name"): link for link in root.findall("link")}
    joints = {joint.get("name"): joint for joint in root.findall("joint")}
    tree = model.tree
    bodies = theta[: layout.n_inertial].reshape(-1, 10)
    for b, link_name in enumerate(tree.body_link_names):
        link = links[link_name]
        mass, com, inertia = inertia_parameters(parameters_to_inertia(bodies[b]))
        com, inertia = _clean(com), _clean(inertia)
        index = 0
        for old in link.findall("inertial"):
            index = list(link).index(old)
            link.remove(old)
        inertial = ET.Element("inertial")
        inertial.text, inertial.tail = "\n      ", "\n    "
        ET.SubElement(inertial, "origin", xyz=" ".join(_fmt(c) for c in com), rpy="0 0 0")
        ET.SubElement(inertial, "mass", value=_fmt(mass))
        ET.SubElement(
            inertial,
            "inertia",
            ixx=_fmt(inertia[0, 0]),
            ixy=_fmt(inertia[0, 1]),
            ixz=_fmt(inertia[0, 2]),
            iyy=_fmt(inertia[1, 1]),
            iyz=_fmt(inertia[1, 2]),
            izz=_fmt(inertia[2, 2]),
        )
        for child in inertial:
            child.tail = "\n      "
        inertial[-1].tail = "\n    "
        link.insert(index, inertial)
    for name, info in tree.frames.items():
        if info.body >= 0 and name != tree.body_link_names[info.body] and name in links:
            for old in links[name].findall("inertial"):
                links[name].remove(old)
    if {"viscous", "coulomb"} & set(layout.groups):
        friction = layout.friction_model(theta, model.friction)
        for k, name in enumerate(model.joint_names):
            dyn = joints[name].find("dynamics")
            if dyn is None:
                dyn = ET.SubElement(joints[name], "dynamics")
            dyn.set("damping", _fmt(friction.viscous[k]))
            dyn.set("friction", _fmt(friction.coulomb[k]))
    text = ET.tostring(root, encoding="unicode")
    start = xml.find("<robot")
    prolog = xml[:start] if start > 0 else '<?xml version="1.0"?>\n'  # declaration, comments
    return prolog + text + "\n"


def identified_parameters(
    result, model, velocity_threshold, *, effort_scale=None, effort_offset=None
):
    """The dynamics node's parameters of what the fit found beyond the URDF (see the module
    docstring).

    Args:
        result: the :class:`~robot_dynamics.core.identification.IdentificationResult`.
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel` it was fitted for.
        velocity_threshold: ``v_eps`` of the friction's smooth sign the fit used [rad/s or m/s].
        effort_scale: (n,) the scale identify applied to the recording's efforts, or None (1).
        effort_offset: (n,) the offset identify applied [N m or N], or None (0).

    Returns:
        dict: parameter name -> value (floats, lists of floats, model joint order).
    """
    n = model.n
    friction = result.friction_model(model)
    scale = np.ones(n) if effort_scale is None else np.asarray(effort_scale, dtype=float)
    offset = np.zeros(n) if effort_offset is None else np.asarray(effort_offset, dtype=float)
    # the Coulomb levels as the URDF writes them: an asymmetry at its bound (|asymmetry| =
    # coulomb) must stay within the rounded level
    coulomb = np.array([float(_fmt(c)) for c in friction.coulomb])
    asymmetry = np.clip(friction.asymmetry, -coulomb, coulomb)
    values = {
        "friction_compensation": True,
        "friction_velocity_threshold": float(velocity_threshold),
        "friction.asymmetry": [float(x) + 0.0 for x in asymmetry],
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
        model: the model (its joints name the order of every per-joint list).
        comments: more ``#`` lines for the top (the source, the choices made).

    Returns:
        str: the YAML text (``/**: ros__parameters:``).

    Raises:
        ParametersFileError: a value the dynamics node would refuse.
    """
    from robot_dynamics.tools.params_file import parameters_yaml

    lines = [
        "robot-dynamics identify: what the identified URDF cannot carry, for the dynamics node",
        "per-joint lists in model order: " + ", ".join(model.joint_names),
        *comments,
    ]
    return parameters_yaml(values, node="/**", comments=lines)


__all__ = [
    "NEGLIGIBLE",
    "identified_parameters",
    "identified_urdf",
    "parameters_file_text",
    "parameters_path",
]
