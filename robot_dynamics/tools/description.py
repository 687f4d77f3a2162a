"""Read a robot description: a URDF file, a xacro file, or a URDF on standard input.

The one loader of the package for URDF text from a file: the ``robot-dynamics`` CLI, the demo's
``--urdf`` and ``launch/dynamics.launch.py`` all call :func:`load_robot_description`. No ROS
needed for plain paths (xacro is the PyPI/ROS package ``xacro``); ``package://`` paths and
``$(find pkg)`` in a xacro file need ament_index_python, as with the ``xacro`` command.

Rules:

* ``-`` reads the URDF from standard input;
* ``package://pkg/path`` is ``path`` in the share directory of the ROS package ``pkg`` (ament
  index), as in URDF mesh references;
* with a description package (the launch file's ``description_package``), a relative file name
  is looked up in that package's ``urdf/`` folder, as the UR and ros2_control launch files do;
  otherwise it is relative to the working directory;
* a name ending in ``.xacro`` (``arm.urdf.xacro``, ``arm.xacro``) is expanded by xacro with the
  given arguments (``name:=value``, as ``xacro arm.urdf.xacro name:=value``); arguments are
  given as one string ``"a:=1 b:=2"`` (split as a shell does) or as several such strings, so the
  CLI's repeated ``--xacro-arg`` and the launch file's ``xacro_args`` take the same text;
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
    "resolve_description_path",
    "resolve_package_path",
    "urdf_root_link",
]

STDIN = "-"
PACKAGE_URL = "package://"
DESCRIPTION_FOLDER = "urdf"
"""Folder of a description package where a relative description file is looked up."""

# xacro keeps its state (file stack, substitution arguments) in module globals: one at a time.
_XACRO_LOCK = threading.Lock()


class RobotDescriptionError(URDFError):
    """The robot description cannot be read: no such file, unreadable, not text in its
    encoding, or xacro failed on it (the message names the file and, for xacro, its error)."""


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

    A string holds one or more ``name:=value`` pairs separated by white space and is split as a
    shell does (a value with spaces is quoted: ``"title:='my arm'"``); a sequence is a list of
    such strings (the CLI's repeated ``--xacro-arg``), so ``["a:=1 b:=2"]``, ``["a:=1", "b:=2"]``
    and ``"a:=1 b:=2"`` are the same arguments. A later pair overrides an earlier one.

    Args:
        args: None; a string ``"name:=value other:=x"``; a sequence of such strings; or a
            mapping (copied, values made strings).

    Returns:
        dict of argument names to string values.

    Raises:
        XacroArgumentError: unbalanced quotes, or a pair without ``:=`` or with an empty name
            (the text is named).
    """
    if args is None:
        return {}
    if isinstance(args, Mapping):
        return {str(k): str(v) for k, v in args.items()}
    texts = [args] if isinstance(args, str) else [str(a) for a in args]
    out: Dict[str, str] = {}
    for text in texts:
        try:
            items = shlex.split(text)
        except ValueError as exc:  # "No closing quotation"
            raise XacroArgumentError(f"xacro arguments {text!r}: {exc}") from None
        for item in items:
            name, sep, value = item.partition(":=")
            if not sep or not name.strip():
                hint = (
                    f" (in {text!r}: a value with spaces is quoted, \"name:='a b'\")"
                    if len(items) > 1
                    else ""
                )
                raise XacroArgumentError(
                    f"xacro argument {item!r} is not of the form name:=value{hint}"
                )
            out[name.strip()] = value
    return out


def _package_share(package: str, context: str) -> str:
    """The share directory of ROS package ``package`` (ament index)."""
    try:
        from ament_index_python.packages import (
            PackageNotFoundError,
            get_package_share_directory,
        )
    except ImportError:  # pragma: no cover - ament_index_python is a runtime dependency
        raise RobotDescriptionError(
            f"{context}: finding package {package!r} needs ament_index_python "
            "(pip install ros-jazzy-ament-index-python, or source a ROS 2 install)"
        ) from None
    try:
        return get_package_share_directory(package)
    except (PackageNotFoundError, ValueError):
        raise RobotDescriptionError(
            f"{context}: package {package!r} is not in the ament index (AMENT_PREFIX_PATH="
            f"{os.environ.get('AMENT_PREFIX_PATH', '')!r}); build it and source its workspace's "
            "install/setup.sh"
        ) from None


def resolve_package_path(path: str) -> str:
    """A file path with ``package://`` and ``~`` resolved.

    Args:
        path: ``package://pkg/relative/path`` (the file in ``pkg``'s share directory), or a file
            path (``~`` expanded; relative stays relative to the working directory).

    Returns:
        str: the path (not checked for existence).

    Raises:
        RobotDescriptionError: a ``package://`` URL without a package or a path, or a package
            that is not in the ament index.
    """
    if not path.startswith(PACKAGE_URL):
        return os.path.expanduser(path)
    package, _, inside = path[len(PACKAGE_URL) :].partition("/")
    if not package or not inside.strip("/"):
        raise RobotDescriptionError(f"{path}: not of the form package://<package>/<path>")
    return os.path.join(_package_share(package, path), inside)


def resolve_description_path(path: str, description_package: str = "") -> str:
    """The robot description file meant by ``path`` and ``description_package``.

    Args:
        path: ``-`` (standard input, returned as is), ``package://pkg/path``, an absolute path
            (``~`` expanded), or a relative path.
        description_package: ROS package whose ``urdf/`` folder holds a relative ``path``
            (the launch file's ``description_package``); empty: a relative path is relative to
            the working directory. Not used for ``package://`` and absolute paths.

    Returns:
        str: the file's path (checked to exist for a description package's file only).

    Raises:
        RobotDescriptionError: an unknown package, or a relative path that the description
            package's ``urdf/`` folder does not have (the message names the folder and, when the
            file is in the working directory, how to give it).
    """
    if path == STDIN:
        return path
    if path.startswith(PACKAGE_URL):
        return resolve_package_path(path)
    path = os.path.expanduser(path)
    if os.path.isabs(path) or not description_package:
        return path
    folder = os.path.join(
        _package_share(description_package, f"description_package {description_package!r}"),
        DESCRIPTION_FOLDER,
    )
    resolved = os.path.join(folder, path)
    if not os.path.isfile(resolved):
        here = (
            f"; {path!r} is a file of the working directory: give its absolute path "
            f"({os.path.abspath(path)})"
            if os.path.isfile(path)
            else ""
        )
        raise RobotDescriptionError(
            f"{resolved}: no such file (a relative description file is looked up in the "
            f"{DESCRIPTION_FOLDER}/ folder of description_package {description_package!r}{here})"
        )
    return resolved


def urdf_root_link(urdf: str) -> str:
    """The root link of URDF text: the one link that is no joint's child.

    Args:
        urdf: URDF XML text.

    Returns:
        str: the root link's name.

    Raises:
        RobotDescriptionError: text the URDF reader refuses (:func:`robot_dynamics.core.urdf.
            parse_urdf`: malformed XML, a number out of bounds, ...), or not exactly one root
            link (the roots named).
    """
    from robot_dynamics.core.urdf import parse_urdf

    try:
        robot = parse_urdf(urdf)
    except URDFError as exc:
        raise RobotDescriptionError(f"robot description: {exc}") from None
    children = {joint.child for joint in robot.joints}
    roots = [link.name for link in robot.links if link.name not in children]
    if len(roots) != 1:
        raise RobotDescriptionError(
            f"robot description: {len(roots)} root links ({', '.join(map(str, roots)) or 'none'}),"
            " a URDF has one"
        )
    return roots[0]


def _decode(data: bytes, source: str) -> str:
    from robot_dynamics.core.urdf import decode_xml

    try:
        return decode_xml(data)
    except (UnicodeDecodeError, LookupError) as exc:
        raise RobotDescriptionError(f"{source}: not text in its encoding ({exc})") from None


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
    description_package: str = "",
    stdin: Optional[IO[bytes]] = None,
) -> str:
    """The URDF text of a robot description file, a xacro file, or standard input.

    Args:
        path_or_dash: file path (``~`` expanded), ``package://pkg/path``, a file name in
            ``description_package``'s ``urdf/`` folder, or ``-`` for standard input (see
            :func:`resolve_description_path`).
        xacro_args: arguments of a xacro file (see :func:`parse_xacro_args`); only allowed for a
            ``.xacro`` file.
        description_package: ROS package whose ``urdf/`` folder holds a relative path (empty:
            relative to the working directory).
        stdin: binary stream read for ``-`` (default ``sys.stdin.buffer``).

    Returns:
        the URDF XML as a string (xacro expanded, byte-order mark dropped).

    Raises:
        RobotDescriptionError: no such file or package, unreadable, not text in its encoding (UTF-8
            or the one its XML declaration names), or xacro failed.
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
    path = resolve_description_path(path_or_dash, description_package)
    if mappings and not is_xacro(path):
        raise XacroArgumentError(
            f"xacro arguments given ({', '.join(sorted(mappings))}), but {path!r} is not a "
            ".xacro file"
        )
    if os.path.isdir(path):
        raise RobotDescriptionError(f"{path}: a directory, not a URDF or xacro file")
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
