"""Read a robot description: a URDF file, a xacro file, or a URDF on standard input.

The one loader of the package for URDF text from a file: the ``robot-dynamics`` CLI, the demo's
``--urdf`` and ``launch/dynamics.launch.py`` all call :func:`load_robot_description`. No ROS
needed (xacro is the PyPI/ROS package ``xacro``; ``$(find pkg)`` in a xacro file needs
ament_index, as with the ``xacro`` command).

Rules:

* ``-`` reads the URDF from standard input;
* a name ending in ``.xacro`` (``arm.urdf.xacro``, ``arm.xacro``) is expanded by xacro with the
  given arguments (``name:=value``, as ``xacro arm.urdf.xacro name:=value``);
* text is UTF-8; a leading byte-order mark is dropped (Windows editors write one).
"""

from __future__ import annotations

import os
import shlex
import sys
import threading
from typing import IO, Dict, Mapping, Optional, Sequence, Union

from robot_dynamics.core.errors import InvalidInputError, URDFError

__all__ = [
    "RobotDescriptionError",
    "XacroArgumentError",
    "is_xacro",
    "load_robot_description",
    "parse_xacro_args",
]

STDIN = "-"

# xacro keeps its state (file stack, substitution arguments) in module globals: one at a time.
_XACRO_LOCK = threading.Lock()


class RobotDescriptionError(URDFError):
    """The robot description cannot be read: no such file, unreadable, not UTF-8 text, or xacro
    failed on it (the message names the file and, for xacro, its error)."""


class XacroArgumentError(InvalidInputError):
    """A xacro argument that is not of the form ``name:=value``, or arguments given for a file
    that is not a xacro file."""


def is_xacro(path: str) -> bool:
    """Whether ``path`` names a xacro file (``.xacro``, e.g. ``arm.urdf.xacro``).

    Args:
        path: file name or path.

    Returns:
        bool: True for a xacro file.
    """
    return path.lower().endswith(".xacro")


def parse_xacro_args(args: Union[None, str, Sequence[str], Mapping[str, str]]) -> Dict[str, str]:
    """xacro arguments as a ``{name: value}`` dict.

    Args:
        args: None; a string ``"name:=value other:=x"`` (split as a shell does, so values may be
            quoted); a sequence of ``"name:=value"`` items; or a mapping (copied).

    Returns:
        dict of argument names to string values.

    Raises:
        XacroArgumentError: an item without ``:=`` or with an empty name (the item is named).
    """
    if args is None:
        return {}
    if isinstance(args, Mapping):
        return {str(k): str(v) for k, v in args.items()}
    items = shlex.split(args) if isinstance(args, str) else list(args)
    out: Dict[str, str] = {}
    for item in items:
        name, sep, value = str(item).partition(":=")
        if not sep or not name.strip():
            raise XacroArgumentError(f"xacro argument {item!r} is not of the form name:=value")
        out[name.strip()] = value
    return out


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")  # utf-8, dropping a leading byte-order mark
    except UnicodeDecodeError as exc:
        raise RobotDescriptionError(f"{source}: not UTF-8 text ({exc})") from None


def _run_xacro(path: str, text: str, mappings: Dict[str, str]) -> str:
    try:
        import xacro
    except ImportError:  # pragma: no cover - xacro is a runtime dependency
        raise RobotDescriptionError(
            f"{path}: is a xacro file, but the xacro package is not installed (pip install xacro)"
        ) from None
    from xml.parsers.expat import ExpatError

    with _XACRO_LOCK:
        try:
            # process_file() minus its reading: the text is already decoded (byte-order mark
            # dropped); the file stack makes includes relative to the file, as with the command.
            xacro.init_stacks(path)
            doc = xacro.parse(text)
            xacro.process_doc(doc, mappings=dict(mappings))
            return doc.toprettyxml(indent="  ")
        except ExpatError as exc:
            raise RobotDescriptionError(f"{path}: malformed XML: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - xacro raises XacroException and NameError etc.
            raise RobotDescriptionError(
                f"{path}: xacro failed: {type(exc).__name__}: {exc}"
            ) from None
        finally:
            xacro.init_stacks(None)


def load_robot_description(
    path_or_dash: str,
    xacro_args: Union[None, str, Sequence[str], Mapping[str, str]] = None,
    *,
    stdin: Optional[IO[bytes]] = None,
) -> str:
    """The URDF text of a robot description file, a xacro file, or standard input.

    Args:
        path_or_dash: file path (``~`` expanded), or ``-`` for standard input.
        xacro_args: arguments of a xacro file (see :func:`parse_xacro_args`); only allowed for a
            ``.xacro`` file.
        stdin: binary stream read for ``-`` (default ``sys.stdin.buffer``).

    Returns:
        the URDF XML as a string (xacro expanded, byte-order mark dropped).

    Raises:
        RobotDescriptionError: no such file, unreadable, not UTF-8, or xacro failed.
        XacroArgumentError: malformed xacro arguments, or arguments for a file that is not xacro.
    """
    mappings = parse_xacro_args(xacro_args)
    if path_or_dash == STDIN:
        if mappings:
            raise XacroArgumentError(
                "xacro arguments given, but the description comes from standard input (plain "
                "URDF); pass the .xacro file instead"
            )
        stream = stdin if stdin is not None else sys.stdin.buffer
        text = _decode(stream.read(), "standard input")
        if not text.strip():
            raise RobotDescriptionError("standard input: empty robot description")
        return text
    path = os.path.expanduser(path_or_dash)
    if mappings and not is_xacro(path):
        raise XacroArgumentError(
            f"xacro arguments given ({', '.join(sorted(mappings))}), but {path!r} is not a "
            ".xacro file"
        )
    if not os.path.isfile(path):
        raise RobotDescriptionError(f"{path}: no such file")
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise RobotDescriptionError(f"{path}: cannot read: {exc.strerror or exc}") from None
    text = _decode(data, path)
    if is_xacro(path):
        return _run_xacro(os.path.abspath(path), text, mappings)
    return text
