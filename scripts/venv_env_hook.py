"""Start-up hook of the robot_dynamics virtual environment (installed by scripts/setup_env.sh).

Imported by ``_robot_dynamics_venv_env.pth`` in the venv's site-packages at every interpreter
start, so every python of the venv -- ``.venv/bin/python``, console scripts in ``.venv/bin`` and
their subprocesses -- sees the venv prefix in AMENT_PREFIX_PATH without sourcing anything. The ROS
wheels and robot_dynamics_interfaces install their ament resource index under ``<venv>/share``;
with it ``ament_index_python`` finds ``robot_dynamics`` (launch/config/urdf in share/) and the
interface packages.

The prefix is APPENDED: a sourced colcon overlay (install/setup.sh) listed earlier keeps
precedence over the venv's own copies, as an overlay should.

Libraries are found by the ros-wheels-bootstrapper hook (re-exec with LD_LIBRARY_PATH =
``<venv>/lib`` + ``site-packages/ros_*.libs``); this hook only adds the ament index. It adds
nothing when the prefix is already listed.
"""

import os
import sys


def _add_ament_prefix() -> None:
    prefix = sys.prefix
    current = os.environ.get("AMENT_PREFIX_PATH", "")
    parts = [p for p in current.split(os.pathsep) if p]
    if prefix not in parts:
        os.environ["AMENT_PREFIX_PATH"] = os.pathsep.join(parts + [prefix])


_add_ament_prefix()
