"""Errors of the ``robot-dynamics`` command line and the exit codes they map to."""

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_BAD_URDF = 3


class CLIError(Exception):
    """An error to report to the user with an exit code.

    Args:
        message: what went wrong, for the user.
        code: the process exit code (default ``EXIT_USAGE``, 2).
    """

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


def exit_code_of(exc: BaseException) -> int:
    """The exit code of an error raised by a command, from its type (core/errors.py).

    * bad input to a computation (InvalidInputError: a vector, a method, a gravity; an unknown
      frame; a tip needed where the model has none; a node parameters file the node
      would refuse, ParametersFileError) -> 2;
    * a model the URDF cannot make (URDFError and subclasses; a singular inertia matrix) -> 3;
    * anything else -> 1.

    Args:
        exc: the exception.

    Returns:
        int: the exit code (a CLIError's own code).
    """
    from robot_dynamics.core.errors import (
        AmbiguousTipError,
        InvalidInputError,
        ParametersFileError,
        SingularInertiaError,
        UnknownFrameError,
        URDFError,
    )

    if isinstance(exc, CLIError):
        return exc.code
    if isinstance(
        exc, (InvalidInputError, UnknownFrameError, AmbiguousTipError, ParametersFileError)
    ):
        return EXIT_USAGE
    if isinstance(exc, (URDFError, SingularInertiaError)):
        return EXIT_BAD_URDF
    return EXIT_ERROR


__all__ = ["CLIError", "EXIT_BAD_URDF", "EXIT_ERROR", "EXIT_OK", "EXIT_USAGE", "exit_code_of"]
