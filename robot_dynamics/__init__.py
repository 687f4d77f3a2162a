"""robot_dynamics: rigid-body dynamics of any URDF arm, live in ROS 2.

``import robot_dynamics`` needs only numpy and scipy; the ROS 2 nodes live in
``robot_dynamics.ros`` and the command-line tools in ``robot_dynamics.tools``.
"""

from .core import (
    AmbiguousTipError,
    InvalidInputError,
    InvalidURDFValueError,
    KinematicTreeError,
    ModelTooLargeError,
    MomentumObserver,
    RobotDynamicsError,
    RobotModel,
    SimulationError,
    SimulationLimitError,
    SimulationResult,
    SingularInertiaError,
    StateTerms,
    UnknownFrameError,
    UnsupportedJointError,
    URDFError,
    WrenchEstimate,
)

__version__ = "0.1.0"

__all__ = [
    "AmbiguousTipError",
    "InvalidInputError",
    "InvalidURDFValueError",
    "KinematicTreeError",
    "ModelTooLargeError",
    "MomentumObserver",
    "RobotDynamicsError",
    "RobotModel",
    "SimulationError",
    "SimulationLimitError",
    "SimulationResult",
    "SingularInertiaError",
    "StateTerms",
    "URDFError",
    "UnknownFrameError",
    "UnsupportedJointError",
    "WrenchEstimate",
]
