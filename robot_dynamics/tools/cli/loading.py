"""The robot of a command line: description, model, frames, joint limits."""

from __future__ import annotations

import math
import sys
from typing import List, Optional

import numpy as np

from .arguments import parse_fixed_vector, parse_joint_vector
from .errors import EXIT_BAD_URDF, EXIT_USAGE, CLIError


def load_model(args):
    """Read the robot of ``args.urdf`` (bundled name, URDF or xacro file, ``-`` for stdin) and
    build its model with the common options.

    Args:
        args: the parsed command line (``urdf``, ``xacro_arg``, ``base_link``, ``tip_link``,
            ``gravity``, ``balance_inertia``, ``strict_inertia``, ``command``).

    Returns:
        tuple: ``(model, label, urdf_text, bundled robot or None)``.

    Raises:
        CLIError: exit 3 when the description cannot be read or made into a model (with
            --strict-inertia: also for an inertia that would load with a warning); exit 2 when
            a command-line value is wrong (xacro argument, --gravity, --base-link,
            --tip-link).
    """
    from robot_dynamics import RobotModel
    from robot_dynamics.core.errors import InvalidInputError, RobotDynamicsError, URDFError
    from robot_dynamics.core.joint_warnings import joint_warning_lines
    from robot_dynamics.tools.robots import defaults, resolve_robot

    try:
        source = resolve_robot(args.urdf, args.xacro_arg)
    except InvalidInputError as exc:  # XacroArgumentError
        raise CLIError(str(exc), EXIT_USAGE) from None
    except URDFError as exc:  # RobotDescriptionError: missing, unreadable, xacro failed
        raise CLIError(f"URDF {exc}", EXIT_BAD_URDF) from None
    gravity = parse_fixed_vector(args.gravity, 3, "--gravity", ("gx", "gy", "gz"))
    base, tip, grav = defaults(source, args.base_link, args.tip_link, gravity)
    label = source.path or source.label
    try:
        model = RobotModel.from_urdf_string(
            source.urdf,
            base_link=base,
            tip_link=tip,
            gravity=grav,
            balance_inertia=getattr(args, "balance_inertia", False),
            strict_inertia=getattr(args, "strict_inertia", False),
        )
    except URDFError as exc:  # --base-link or --tip-link (exc.argument) is a usage error
        code = EXIT_USAGE if exc.argument is not None else EXIT_BAD_URDF
        raise CLIError(f"URDF {label}: {exc}", code) from None
    except RobotDynamicsError as exc:  # gravity
        raise CLIError(f"URDF {label}: {exc}", EXIT_USAGE) from None
    for note in model.inertia_adjustments:
        print(f"robot-dynamics: balance_inertia: {note}", file=sys.stderr)
    if args.command != "info":
        for line in joint_warning_lines(model.joint_warnings):
            print(f"robot-dynamics: warning: {line}", file=sys.stderr)
    if model.inertia_warnings and args.command != "info":
        rules = sorted({w.rule for w in model.inertia_warnings})
        print(
            f"robot-dynamics: warning: {len(model.inertia_warnings)} inertia warning(s) "
            f"({', '.join(rules)}; listed by `info`; --strict-inertia refuses them)",
            file=sys.stderr,
        )
    return model, label, source.urdf, source.bundled


def no_tip_error(model, option: str = "--frame") -> CLIError:
    """The error of a command that needs a frame on a model without a tip link.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel` (its ``tip_link`` is None).
        option: the option that names the frame.

    Returns:
        CLIError: exit 2, naming the candidate leaves, ``option`` and ``--tip-link``.
    """
    from robot_dynamics.core.tip import no_tip_reason

    return CLIError(f"{option} is needed: {no_tip_reason(model.tree)}; pass {option} or --tip-link")


def frame_option(args, model) -> Optional[str]:
    frame = getattr(args, "frame", None)
    if frame is None:
        return None
    if frame not in model.link_names and frame != model.base_link:
        raise CLIError(
            f"--frame: unknown frame {frame!r}; frames below {model.base_link}: "
            f"{', '.join(model.link_names)}"
        )
    return frame


def check_limits(model, q: np.ndarray, warnings: List[str]) -> None:
    lower, upper = model.position_limits
    for i, name in enumerate(model.joint_names):
        lo, hi = float(lower[i]), float(upper[i])
        if math.isfinite(lo) and math.isfinite(hi) and not (lo - 1e-12 <= q[i] <= hi + 1e-12):
            warnings.append(f"{name} = {q[i]:g} is outside its limits [{lo:g}, {hi:g}]")


def configuration(run) -> np.ndarray:
    """The joint positions of ``--q``, each outside its limits noted in ``run.out["warnings"]``.

    Args:
        run: the command's :class:`~robot_dynamics.tools.cli.arguments.Invocation`.

    Returns:
        ndarray: (n,) joint positions [rad or m], model order.

    Raises:
        CLIError: a bad ``--q``.
    """
    q = parse_joint_vector(run.args.q, run.model.joint_names, "--q")
    check_limits(run.model, q, run.out.setdefault("warnings", []))
    return q
