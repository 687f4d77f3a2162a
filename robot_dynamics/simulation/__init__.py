"""The ROS-free simulated arm: a torque-controlled arm's physics, command handling and clock
(numpy only), driven by the ``arm_simulator`` node; see
:class:`~robot_dynamics.simulation.arm.SimulatedArm`."""

from .arm import ArmCounters, ArmOptions, ArmSample, ArmSettings, CommandError, SimulatedArm

__all__ = ["ArmCounters", "ArmOptions", "ArmSample", "ArmSettings", "CommandError", "SimulatedArm"]
