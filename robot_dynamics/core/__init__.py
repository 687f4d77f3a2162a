"""The dynamics core: pure numpy/scipy, no ROS. See :class:`RobotModel`."""

from .errors import (
    AmbiguousTipError,
    InvalidInputError,
    KinematicTreeError,
    RobotDynamicsError,
    SingularInertiaError,
    UnknownFrameError,
    UnsupportedJointError,
    URDFError,
)
from .estimation import MomentumObserver, WrenchEstimate
from .model import RobotModel, StateTerms
from .simulate import SimulationResult
from .urdf import URDFWarning

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
