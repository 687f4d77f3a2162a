"""The dynamics core: pure numpy/scipy, no ROS. See :class:`RobotModel`."""

from .errors import (
    AmbiguousTipError,
    InvalidInputError,
    InvalidURDFValueError,
    KinematicTreeError,
    ModelTooLargeError,
    RobotDynamicsError,
    SimulationError,
    SimulationLimitError,
    SingularInertiaError,
    UnknownFrameError,
    UnsupportedJointError,
    URDFError,
)
from .estimation import MomentumObserver, WrenchEstimate
from .inertia import InertiaWarning
from .model import RobotModel, StateTerms
from .simulate import SimulationResult
from .joint_warnings import JointWarning

__all__ = [
    "AmbiguousTipError",
    "InertiaWarning",
    "InvalidInputError",
    "InvalidURDFValueError",
    "JointWarning",
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
