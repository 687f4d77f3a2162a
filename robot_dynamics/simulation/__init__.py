"""The ROS-free simulated arm: a torque-controlled arm's physics, command handling and clock
(numpy only), driven by the ``arm_simulator`` node; see
:class:`~robot_dynamics.simulation.arm.SimulatedArm`, and
:class:`~robot_dynamics.simulation.pacing.Pacer` for its pacing against the wall clock."""

from .arm import ArmCounters, ArmOptions, ArmSample, ArmSettings, CommandError, SimulatedArm
from .pacing import Pacer

__all__ = [
    "ArmCounters",
    "ArmOptions",
    "ArmSample",
    "ArmSettings",
    "CommandError",
    "Pacer",
    "SimulatedArm",
]
