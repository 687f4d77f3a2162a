"""Arguments shared by every ``robot-dynamics`` command: the argument parser, the common options,
joint vectors, and the :class:`Invocation` a command runs with."""

from __future__ import annotations

import argparse
import math
import os
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence

import numpy as np

from robot_dynamics.core.tip import DEFAULT_TIP_RULE

from .errors import EXIT_USAGE, CLIError


class Invocation(NamedTuple):
    """What a command runs with (unpacks as ``args, model, path, xml, bundled, out``).

    Attributes:
        args: the parsed command line (``argparse.Namespace``).
        model: the :class:`~robot_dynamics.core.model.RobotModel` built by
            :func:`~robot_dynamics.tools.cli.loading.load_model`.
        path: label of the robot description (file path, bundled name or ``-``).
        xml: the URDF XML text.
        bundled: the bundled robot, or None.
        out: dict the command fills with its results for ``--json``.
    """

    args: argparse.Namespace
    model: object
    path: str
    xml: str
    bundled: object
    out: Dict


#: A command, ``cmd_*(run) -> lines``: it reads the parsed arguments and the model of ``run`` (an
#: :class:`Invocation`), fills ``run.out`` with its results for ``--json`` and returns the lines
#: printed without ``--json``; what is wrong with an argument raises :class:`CLIError` (exit 2).
Command = Callable[[Invocation], List[str]]


class Parser(argparse.ArgumentParser):
    """argparse that raises CLIError instead of exiting, so --json can report usage errors too."""

    def error(self, message):  # noqa: D401
        raise CLIError(f"{message} (see: {self.prog} --help)", EXIT_USAGE)


def common_parser() -> argparse.ArgumentParser:
    """The parent parser with the options every command has (robot, frames, gravity, output).

    Returns:
        argparse.ArgumentParser: the parent parser (no help of its own).
    """
    common = Parser(add_help=False)
    common.add_argument(
        "urdf",
        help="URDF or xacro file (.xacro: expanded with --xacro-arg; package://PKG/PATH for a "
        "file of a ROS package), - for a URDF on standard input, or a bundled robot: panda, "
        "double_pendulum",
    )
    common.add_argument(
        "--xacro-arg",
        action="append",
        default=None,
        metavar="NAME:=VALUE",
        help="arguments of a .xacro file: repeat, or several in one string "
        '("a:=1 b:=2", as the launch file\'s xacro_args)',
    )
    common.add_argument("--base-link", default=None, help="base frame (default: the URDF root)")
    common.add_argument(
        "--balance-inertia",
        action="store_true",
        help="replace link inertias that are not positive semi-definite or violate the "
        "triangle inequality by balanced ones (each change reported on stderr)",
    )
    common.add_argument(
        "--strict-inertia",
        action="store_true",
        help="refuse inertias that are not physically consistent: link tensors, indefinite "
        "moving bodies (by default they load with a warning, listed by info)",
    )
    common.add_argument(
        "--tip-link",
        default=None,
        help=f"tip frame (default: {DEFAULT_TIP_RULE})",
    )
    common.add_argument(
        "--gravity",
        nargs=3,
        metavar=("GX", "GY", "GZ"),
        default=None,
        help="gravity in the base frame [m/s^2] (default: 9.81 down the URDF root's z axis as "
        "the base link sees it, 0 0 -9.81 when the base is the root; the bundled double "
        "pendulum: 0 -9.81 0)",
    )
    common.add_argument("--json", action="store_true", help="print one JSON object (for programs)")
    common.add_argument(
        "--precision",
        type=number(0, 17, integer=True),
        default=4,
        help="decimals in human output (default 4)",
    )

    return common


def number(low=None, high=None, *, above=False, below=False, integer=False):
    """An argparse ``type`` for a numeric option: a finite number (an integer with ``integer``)
    in a range, so that a bad value is refused by the parser, naming the option (exit 2).

    Args:
        low: smallest value allowed (None: no bound).
        high: largest value allowed (None: no bound).
        above: ``low`` itself is not allowed (``> low``).
        below: ``high`` itself is not allowed (``< high``).
        integer: the value is an integer.

    Returns:
        callable: ``text -> int or float``, raising ``argparse.ArgumentTypeError``.
    """
    bounds = []
    if low is not None:
        bounds.append(f"{'>' if above else '>='} {low:g}")
    if high is not None:
        bounds.append(f"{'<' if below else '<='} {high:g}")
    kind = "an integer" if integer else "a finite number"
    wanted = kind + (" " + " and ".join(bounds) if bounds else "")

    def convert(text):
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {kind}") from None
        if (
            not math.isfinite(value)
            or (low is not None and (value <= low if above else value < low))
            or (high is not None and (value >= high if below else value > high))
        ):
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
        return value

    convert.__name__ = "integer" if integer else "number"  # argparse's name for the type
    return convert


def add_joint_vector(
    p: argparse.ArgumentParser, flag: str, text: str, default: Optional[str] = "zeros"
) -> None:
    """Add a joint-vector option (``--q``, ``--qd``, ...) to a command's parser.

    Args:
        p: the command's parser.
        flag: the option, e.g. ``--q``.
        text: its help text (units included).
        default: what the command takes without it, for the help; None: the option is required
            (the command says so).
    """
    p.add_argument(
        flag,
        nargs="+",
        default=None,
        metavar="V",
        help=f"{text} (n numbers in joint order, or name=value pairs; "
        + (f"default {default})" if default else "required)"),
    )


def split_tokens(values: Sequence[str]) -> List[str]:
    tokens: List[str] = []
    for value in values:
        tokens.extend(tok for tok in value.replace(",", " ").split() if tok)
    return tokens


def parse_joint_vector(
    values: Optional[Sequence[str]],
    joint_names: Sequence[str],
    option: str,
    default: float = 0.0,
    every_joint: bool = False,
) -> np.ndarray:
    """Parse ``--q``-style values into a float array in ``joint_names`` order.

    Accepts n numbers (separated by spaces or commas), or ``name=value`` pairs (unnamed joints
    get ``default``); with ``every_joint``, also one number for every joint.

    Args:
        values: the option's strings, or None when the option was not given.
        joint_names: the model's joint names, in order.
        option: the option's name, for messages.
        default: value of joints not named.
        every_joint: one plain number is every joint's value (a driver's one scale).

    Returns:
        ndarray: (n,) values.

    Raises:
        CLIError: wrong count, unknown or repeated joint name, not a number, NaN or infinity.
    """
    n = len(joint_names)
    if values is None:
        return np.full(n, default, dtype=float)
    tokens = split_tokens(values)
    if not tokens:
        raise CLIError(f"{option}: no values given; expected {n} ({', '.join(joint_names)})")
    out = np.full(n, default, dtype=float)
    if any("=" in tok for tok in tokens):
        index = {name: i for i, name in enumerate(joint_names)}
        seen = set()
        for tok in tokens:
            if "=" not in tok:
                raise CLIError(
                    f"{option}: mix of 'name=value' and plain values ({tok!r}); use one form"
                )
            name, _, text = tok.partition("=")
            if name not in index:
                raise CLIError(
                    f"{option}: unknown joint {name!r}; the model's joints are: "
                    f"{', '.join(joint_names)}"
                )
            if name in seen:
                raise CLIError(f"{option}: joint {name!r} given twice")
            seen.add(name)
            out[index[name]] = _to_float(text, option, name)
        return out
    if every_joint and len(tokens) == 1:
        return np.full(n, _to_float(tokens[0], option, "every joint"))
    if len(tokens) != n:
        raise CLIError(
            f"{option}: got {len(tokens)} value(s), the model has {n} joint(s): "
            f"{', '.join(joint_names)} (or give JOINT=VALUE pairs for some of them)"
        )
    for i, tok in enumerate(tokens):
        out[i] = _to_float(tok, option, joint_names[i])
    return out


def _to_float(text: str, option: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CLIError(f"{option}: {text!r} (for {what}) is not a number") from None
    if not math.isfinite(value):
        raise CLIError(f"{option}: {text!r} (for {what}) is not finite")
    return value


def parse_fixed_vector(
    values: Optional[Sequence[str]], size: int, option: str, labels: Sequence[str]
):
    """Parse a fixed-size vector option (gravity: 3, wrench: 6).

    Args:
        values: the option's strings, or None when the option was not given.
        size: expected number of values.
        option: the option's name, for messages.
        labels: a label per value (e.g. ``gx gy gz``), for messages.

    Returns:
        ndarray or None: (size,) values, or None without the option.

    Raises:
        CLIError: wrong count, not a number, NaN or infinity.
    """
    if values is None:
        return None
    tokens = split_tokens(values)
    if len(tokens) != size:
        raise CLIError(
            f"{option}: got {len(tokens)} value(s), expected {size} ({' '.join(labels)})"
        )
    return np.array([_to_float(tok, option, label) for tok, label in zip(tokens, labels)])


def output_paths(option: str, paths: Sequence[str], inputs: Sequence[str] = ()) -> List[str]:
    """Check the files a command writes before it works, and create their folders.

    Args:
        option: the option that names them, for messages (``"--out"``).
        paths: the files it writes.
        inputs: the files and folders it reads (a bag folder: nothing is written inside it).

    Returns:
        list: ``paths``.

    Raises:
        CLIError: a path that is a folder, one below a file, one that is an input or inside an
            input folder, or two that are the same file (exit 2).
    """
    written = {}
    for path in paths:
        full = os.path.abspath(path)
        if os.path.isdir(full):
            raise CLIError(f"{option} {path}: a folder, not a file name", EXIT_USAGE)
        folder = os.path.dirname(full)
        while not os.path.exists(folder):
            folder = os.path.dirname(folder)
        if not os.path.isdir(folder):
            raise CLIError(f"{option} {path}: {folder} is a file, not a folder", EXIT_USAGE)
        for given in inputs:
            if not given or not os.path.exists(given):
                continue
            inside = os.path.isdir(given) and os.path.commonpath(
                [full, os.path.abspath(given)]
            ) == os.path.abspath(given)
            if inside or (os.path.exists(full) and os.path.samefile(full, given)):
                raise CLIError(
                    f"{option} {path}: would overwrite the input {given}; choose another name",
                    EXIT_USAGE,
                )
        if full in written:
            raise CLIError(
                f"{option}: {path} would be written twice ({written[full]} and {path}); "
                "choose another name",
                EXIT_USAGE,
            )
        written[full] = path
    for full in written:
        os.makedirs(os.path.dirname(full), exist_ok=True)
    return list(paths)
