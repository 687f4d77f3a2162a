"""The ``robot-dynamics`` entry point: the parser of every command, dispatch, output and exit
codes."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, Optional, Sequence

from . import dynamics, estimate, identify, info, simulate
from .arguments import Command, Invocation, Parser, common_parser
from .errors import EXIT_ERROR, EXIT_OK, CLIError, exit_code_of
from .loading import load_model
from .output import fail, json_text

#: The command families, each a module with ``COMMANDS`` (``{name: Command}``) and
#: ``add_parsers(sub, common)``, which registers its commands on ``sub`` (the parser's
#: ``add_subparsers()``) with ``common`` (:func:`~robot_dynamics.tools.cli.arguments.common_parser`,
#: the options every command has) as their parent.
FAMILIES = (info, dynamics, simulate, identify, estimate)
#: Every command by name.
COMMANDS: Dict[str, Command] = {
    name: command for family in FAMILIES for name, command in family.COMMANDS.items()
}
#: The commands that mean something for a model without a movable joint (a fixed structure,
#: or a base link chosen below every joint); the others refuse it.
WITHOUT_JOINTS = frozenset({"info", "pose"})


def build_parser() -> argparse.ArgumentParser:
    """The ``robot-dynamics`` argument parser with every subcommand.

    Returns:
        argparse.ArgumentParser: the parser.
    """
    common = common_parser()
    parser = Parser(
        prog="robot-dynamics",
        description="Rigid-body dynamics of a URDF: gravity torques, mass matrix, Jacobian, "
        "simulation "
        "and external-wrench estimation. No ROS needed.",
        epilog="Exit codes: 0 ok, 1 unexpected error, 2 bad argument, 3 bad or unreadable URDF.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    for family in FAMILIES:
        family.add_parsers(sub, common)
    return parser


def _wants_json(argv: Sequence[str]) -> bool:
    return "--json" in argv


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``robot-dynamics`` console script.

    Args:
        argv: command-line arguments (default: ``sys.argv[1:]``).

    Returns:
        int: the exit code.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = _wants_json(argv)
    # the command, also for an error in its arguments (the first word naming one)
    out: Dict = {"command": next((word for word in argv if word in COMMANDS), None)}
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help
            return int(exc.code or 0)
        out["command"] = args.command
        model, path, xml, bundled = load_model(args)
        if model.n == 0 and args.command not in WITHOUT_JOINTS:
            raise CLIError(
                f"{path}: no movable joint below base link {model.base_link!r}: nothing for "
                f"{args.command} to compute (info shows the tree; --base-link chooses another "
                "base)"
            )
        lines = COMMANDS[args.command](Invocation(args, model, path, xml, bundled, out))
    except CLIError as exc:
        return fail(str(exc), exc.code, as_json, out)
    except Exception as exc:  # noqa: BLE001 - last resort: say what happened, non-zero exit
        code = exit_code_of(exc)
        prefix = "unexpected " if code == EXIT_ERROR else ""
        return fail(f"{prefix}{type(exc).__name__}: {exc}", code, as_json, out)
    warnings = out.get("warnings") or []
    try:
        if as_json:
            out["ok"] = True
            print(json_text(out))
        else:
            for warning in warnings:
                print(f"warning: {warning}", file=sys.stderr)
            print("\n".join(lines))
        sys.stdout.flush()
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
