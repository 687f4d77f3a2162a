"""Which robot a command means: a bundled robot's name, a URDF or xacro file, or ``-`` (stdin).

Shared by the ``robot-dynamics`` CLI and the demo, so both accept the same robots the same way:
:func:`resolve_robot` turns the user's argument into URDF text (through
:func:`~robot_dynamics.tools.description.load_robot_description`) plus the bundled robot's settings
when it is one; :func:`build_model` makes the model with the bundled defaults filled in.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import IO, Mapping, Optional, Sequence, Tuple, Union

from robot_dynamics.tools.bundled import BUNDLED, BundledRobot, bundled_urdf_path
from robot_dynamics.tools.description import (
    STDIN,
    RobotDescriptionError,
    load_robot_description,
    resolve_package_path,
)

__all__ = ["RobotSource", "build_model", "defaults", "resolve_robot"]


@dataclass(frozen=True)
class RobotSource:
    """A robot description ready to build a model from.

    Attributes:
        urdf: the URDF XML text (xacro expanded).
        label: what to call it: the bundled name, the file's path, or ``<stdin>``.
        path: the file read (None for standard input).
        bundled: the bundled robot's settings, when the file is a bundled robot's.
    """

    urdf: str
    label: str
    path: Optional[str]
    bundled: Optional[BundledRobot]


def _bundled_of(path: str) -> Optional[BundledRobot]:
    """The bundled robot whose URDF file ``path`` is, in the source tree or an installed copy
    (``share/robot_dynamics/urdf``, ``package://robot_dynamics/urdf/...``): the same file name
    and the same bytes. So ``urdf/double_pendulum.urdf`` gets the pendulum's gravity. Else None."""
    real = os.path.realpath(path)
    for robot in BUNDLED.values():
        try:
            bundled = os.path.realpath(bundled_urdf_path(robot.name))
        except FileNotFoundError:
            continue
        if bundled == real:
            return robot
        if os.path.basename(bundled) == os.path.basename(real) and _same_bytes(bundled, real):
            return robot
    return None


def _same_bytes(a: str, b: str) -> bool:
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False


def resolve_robot(
    spec: str,
    xacro_args: Union[None, str, Sequence[str], Mapping[str, str]] = None,
    *,
    stdin: Optional[IO[bytes]] = None,
) -> RobotSource:
    """Read the robot named by ``spec``.

    Args:
        spec: a file path (URDF, or ``.xacro`` expanded with ``xacro_args``; ``package://pkg/path``
            for a file of a ROS package), ``-`` for a URDF on standard input, or a bundled
            robot's name (``panda``, ``double_pendulum``) when no such file exists.
        xacro_args: xacro arguments (``name:=value`` items, a string of them, or a mapping).
        stdin: binary stream read for ``-`` (default ``sys.stdin.buffer``).

    Returns:
        the :class:`RobotSource`.

    Raises:
        RobotDescriptionError: no such file and no bundled robot of that name, unknown package,
            unreadable file, not text in its encoding, or xacro failed.
        XacroArgumentError: malformed xacro arguments, or arguments for a non-xacro source.
    """
    if spec == STDIN:
        return RobotSource(
            load_robot_description(STDIN, xacro_args, stdin=stdin), "<stdin>", None, None
        )
    path = resolve_package_path(spec)
    if not os.path.exists(path) and spec in BUNDLED:
        path = bundled_urdf_path(spec)
        return RobotSource(load_robot_description(path, xacro_args), spec, path, BUNDLED[spec])
    if not os.path.exists(path):
        raise RobotDescriptionError(f"{spec}: no such file (bundled robots: {', '.join(BUNDLED)})")
    return RobotSource(load_robot_description(path, xacro_args), spec, path, _bundled_of(path))


def build_model(
    source: RobotSource,
    base_link: Optional[str] = None,
    tip_link: Optional[str] = None,
    gravity: Optional[Sequence[float]] = None,
):
    """The :class:`~robot_dynamics.RobotModel` of ``source``, bundled defaults filled in.

    A bundled robot's base link, tip link and gravity are the defaults; its tip is used only with
    its own base (another base may not have that tip below it).

    Args:
        source: from :func:`resolve_robot`.
        base_link: base frame (default: the bundled robot's, else the URDF root).
        tip_link: tip frame (default: the bundled robot's, else the single leaf, else none).
        gravity: (3,) gravity in the base frame [m/s^2] (default: the bundled robot's, else
            the URDF root's down in the base frame: ``RobotModel.from_urdf_string``'s).

    Returns:
        the model.

    Raises:
        URDFError: (and its subclasses) the URDF cannot be made into a model, or a base or tip
            link that does not exist or is not below the base (KinematicTreeError).
        InvalidInputError: a gravity that is not 3 finite numbers.
    """
    from robot_dynamics import RobotModel

    base, tip, grav = defaults(source, base_link, tip_link, gravity)
    return RobotModel.from_urdf_string(source.urdf, base_link=base, tip_link=tip, gravity=grav)


def defaults(
    source: RobotSource,
    base_link: Optional[str] = None,
    tip_link: Optional[str] = None,
    gravity: Optional[Sequence[float]] = None,
) -> Tuple[Optional[str], Optional[str], Optional[Tuple[float, float, float]]]:
    """The bundled robot's defaults filled in (see :func:`build_model`).

    Args:
        source: from :func:`resolve_robot`.
        base_link: base frame, or None for the default.
        tip_link: tip frame, or None for the default.
        gravity: (3,) gravity in the base frame [m/s^2], or None for the default.

    Returns:
        tuple: ``(base_link, tip_link, gravity (3,) or None)``; a bundled robot's tip and
        gravity go with its own base link.
    """
    bundled = source.bundled
    grav = tuple(float(g) for g in gravity) if gravity is not None else None
    if bundled is None:
        return base_link, tip_link, grav
    base = base_link or bundled.base_link
    own = base == bundled.base_link
    tip = tip_link or (bundled.tip_link if own else None)
    return base, tip, grav or (tuple(bundled.gravity) if own else None)
