"""robot_dynamics: rigid-body dynamics of any URDF arm, live in ROS 2.

``import robot_dynamics`` needs only numpy and scipy; the ROS 2 nodes live in
``robot_dynamics.ros`` and the command-line tools in ``robot_dynamics.tools``. The core's public
names (``robot_dynamics.core.__all__``: ``RobotModel``, the errors, ...) are imported on first
use, so that a node's console script (:mod:`robot_dynamics.ros.process`) handles SIGINT before
numpy and scipy are loaded.
"""

import importlib

__version__ = "0.1.0"


def __getattr__(name):
    core = importlib.import_module(f"{__name__}.core")
    if name == "core":
        return core
    if name == "__all__":
        return list(core.__all__)
    if name in core.__all__:
        return getattr(core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__getattr__("__all__")) | {"core"})
