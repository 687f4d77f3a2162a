"""The robots bundled with the package (URDFs in ``urdf/``) and where to find them.

A bundled robot has a short name (``panda``, ``double_pendulum``) usable wherever a URDF path is
accepted by the CLI and the demo, plus the settings its URDF cannot carry (the gravity direction of
the planar double pendulum, a home configuration, the tip frame). Names and paths are resolved by
:mod:`robot_dynamics.tools.robots`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class BundledRobot:
    """Settings of one bundled robot.

    Attributes:
        name: short name.
        filename: file name in the package's ``urdf/`` folder.
        base_link: base frame of the model.
        tip_link: tip frame (wrenches are estimated there).
        gravity: (3,) gravity in the base frame [m/s^2].
        home: joint positions [rad] in the model's joint order, the demo's start configuration.
        description: one line for --help texts.
    """

    name: str
    filename: str
    base_link: str
    tip_link: str
    gravity: Tuple[float, float, float]
    home: Tuple[float, ...]
    description: str


BUNDLED = {
    "panda": BundledRobot(
        name="panda",
        filename="panda_arm.urdf",
        base_link="panda_link0",
        tip_link="tool",
        gravity=(0.0, 0.0, -9.81),
        # Franka's "ready" pose: elbow up, tool pointing down, 0.31 m in front of the base.
        home=(0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785),
        description="Franka Emika Panda, 7 DOF + hand (inertial parameters of Gaz et al. 2019)",
    ),
    "double_pendulum": BundledRobot(
        name="double_pendulum",
        filename="double_pendulum.urdf",
        base_link="base_link",
        tip_link="tip",
        gravity=(0.0, -9.81, 0.0),
        # released from horizontal at rest, as in the reference benchmark
        home=(0.0, 0.0),
        description="planar double pendulum of the reference (two 10 kg, 1 m rods), gravity -y",
    ),
}


def urdf_dirs():
    """Folders searched for bundled URDFs, in order: the source tree, then installed locations.

    Returns:
        list: folder paths (str).
    """
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [os.path.normpath(os.path.join(here, "..", "..", "urdf"))]
    dirs.append(os.path.join(sys.prefix, "share", "robot_dynamics", "urdf"))
    try:  # a colcon/ament install
        import warnings

        from ament_index_python.packages import get_package_share_directory

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dirs.append(os.path.join(get_package_share_directory("robot_dynamics"), "urdf"))
    except Exception:  # noqa: BLE001 - not installed the ament way, or ament_index missing
        pass
    return dirs


def bundled_urdf_path(name: str) -> str:
    """Absolute path of a bundled robot's URDF.

    Args:
        name: bundled robot name (e.g. ``panda``, ``double_pendulum``).

    Returns:
        str: the URDF file's path.

    Raises:
        KeyError: ``name`` is not a bundled robot (the message lists the bundled ones).
        FileNotFoundError: the package's urdf folder cannot be found.
    """
    if name not in BUNDLED:
        raise KeyError(
            f"unknown bundled robot {name!r}; bundled robots: {', '.join(sorted(BUNDLED))}"
        )
    filename = BUNDLED[name].filename
    for folder in urdf_dirs():
        path = os.path.join(folder, filename)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"bundled URDF {filename} not found in: {', '.join(urdf_dirs())}")
