"""robot_dynamics: rigid-body dynamics of any URDF arm, live in ROS 2.

``import robot_dynamics`` needs only numpy and scipy; the ROS 2 nodes live in
``robot_dynamics.ros`` and the command-line tools in ``robot_dynamics.tools``.
"""

from . import core as _core
from .core import *  # noqa: F403 - the core's public names (core.__all__)

__version__ = "0.1.0"

__all__ = list(_core.__all__)
