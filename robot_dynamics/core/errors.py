"""Named exceptions of the dynamics core.

Every message names the culprit: the joint, link, frame or argument that is wrong.
"""

import difflib


def did_you_mean(name, names):
    """The end of a message about an unknown name: the known names close to it.

    Args:
        name: the unknown name.
        names: the known names (links, joints).

    Returns:
        str: ``" (did you mean 'a', 'b'?)"`` with at most three close names, or ''.
    """
    close = difflib.get_close_matches(str(name), list(names), n=3)
    return f" (did you mean {', '.join(map(repr, close))}?)" if close else ""


class RobotDynamicsError(Exception):
    """Base class of every error raised by robot_dynamics.

    Args:
        *args: the message.
        argument: the model-building argument at fault when it is not the robot description
            itself (``"base_link"``, ``"tip_link"``), else None; kept as ``self.argument``.
    """

    def __init__(self, *args, argument=None):
        super().__init__(*args)
        self.argument = argument


class URDFError(RobotDynamicsError, ValueError):
    """The robot description cannot be turned into a model (malformed XML, bad structure)."""


class UnsupportedJointError(URDFError):
    """A joint type URDF does not define (``helical``, ``spherical``, ...)."""


class KinematicTreeError(URDFError):
    """The links and joints do not form a usable tree (duplicate names, cycles, several
    roots, a base or tip link that does not exist, a tip that is not below the base)."""


class UnknownFrameError(RobotDynamicsError, ValueError):
    """A frame (link) name that the model does not know, or that is not below the base."""


class AmbiguousTipError(RobotDynamicsError, ValueError):
    """A call needs a tip frame, the model has several leaves and no ``tip_link``."""


class InvalidInputError(RobotDynamicsError, ValueError):
    """An argument of the wrong shape, or with NaN or infinite entries."""


class SingularInertiaError(RobotDynamicsError, ValueError):
    """The joint-space inertia matrix is singular (a joint moves no mass or inertia), so
    forward dynamics is undefined; add armature or inertia to the links it moves."""


class InvalidURDFValueError(URDFError):
    """A number in the URDF that no physical robot has: NaN or infinite, a negative mass, limit,
    damping or friction, an inertia tensor that is not positive semi-definite or violates the
    triangle inequality, a zero-length joint axis, lower > upper, or a magnitude beyond the
    documented bounds (see :mod:`robot_dynamics.core.urdf`). The message names the link or joint
    and the field."""


class ModelTooLargeError(URDFError):
    """The URDF has more links (or joints) than the ``max_links`` the caller allows."""


class SimulationError(RobotDynamicsError, RuntimeError):
    """The integrator failed (e.g. the step size underflowed) or the state left the finite
    range; the message says at which time and why.

    Args:
        message: what happened.
        t: the simulated time [s] the integration reached, or None when it was refused before
            it started.

    Attributes:
        t: see Args.
    """

    def __init__(self, message, t=None):
        super().__init__(message)
        self.t = t


class SimulationLimitError(SimulationError):
    """A simulation exceeded its work bound: wall time (``max_wall_time``), right-hand-side
    evaluations (``max_rhs_evaluations``), fixed steps (``max_steps``) or output samples
    (``max_samples``). The message names the bound."""


class ParametersFileError(RobotDynamicsError, ValueError):
    """A node parameters file (ROS 2 ``--params-file`` YAML) that the node would not run with:
    unreadable, not a parameters file, no section for the node, an unknown parameter, a value
    of the wrong type or out of its range. The message names the file and the parameter.

    Attributes:
        path: the file.
        parameter: the parameter's dotted name ('' when the file as a whole is wrong).
    """

    def __init__(self, message, path="", parameter=""):
        super().__init__(message)
        self.path = path
        self.parameter = parameter
