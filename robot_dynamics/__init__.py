"""robot_dynamics: rigid-body dynamics of any URDF arm, live in ROS 2.

``import robot_dynamics`` needs only numpy, scipy and urdf_parser_py; the ROS 2 nodes live in
``robot_dynamics.ros`` and the command-line tools in ``robot_dynamics.tools``.
"""

from .core import (
    AmbiguousTipError,
    InvalidInputError,
    KinematicTreeError,
    MomentumObserver,
    RobotDynamicsError,
    RobotModel,
    SimulationResult,
    SingularInertiaError,
    StateTerms,
    UnknownFrameError,
    UnsupportedJointError,
    URDFError,
    URDFWarning,
    WrenchEstimate,
)

__version__ = "0.1.0"

__all__ = [
    "AmbiguousTipError",
    "InvalidInputError",
    "KinematicTreeError",
    "MomentumObserver",
    "RobotDynamicsError",
    "RobotModel",
    "SimulationResult",
    "SingularInertiaError",
    "StateTerms",
    "URDFError",
    "URDFWarning",
    "UnknownFrameError",
    "UnsupportedJointError",
    "WrenchEstimate",
]
