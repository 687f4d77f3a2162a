"""The dynamics core: pure numpy/scipy, no ROS. See :class:`RobotModel`."""

from .errors import (AmbiguousTipError, InvalidInputError, KinematicTreeError,  # noqa: F401
                     RobotDynamicsError, SingularInertiaError, UnknownFrameError,
                     UnsupportedJointError, URDFError)
from .estimation import MomentumObserver, WrenchEstimate  # noqa: F401
from .model import RobotModel, StateTerms  # noqa: F401
from .simulate import SimulationResult  # noqa: F401
from .urdf import URDFWarning  # noqa: F401
