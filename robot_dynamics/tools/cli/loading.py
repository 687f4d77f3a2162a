"""The robot of a command line: description, model, frames, joint limits."""

from __future__ import annotations

import math
import sys
import xml.etree.ElementTree as ET
from typing import List, Optional

import numpy as np

from .arguments import parse_fixed_vector
from .errors import EXIT_BAD_URDF, EXIT_USAGE, CLIError


def load_model(args):
    """Read the robot of ``args.urdf`` (bundled name, URDF or xacro file, ``-`` for stdin) and
    build its model with the common options.

    Args:
        args: the parsed command line (``urdf``, ``xacro_arg``, ``base_link``, ``tip_link``,
            ``gravity``).

    Returns:
        tuple: ``(model, label, urdf_text, bundled robot or None)``.

    Raises:
        CLIError: exit 3 when the description cannot be read or made into a model; exit 2 when a
            command-line value is wrong (xacro argument, --gravity, --base-link, --tip-link).
    """
    from robot_dynamics import RobotModel
    from robot_dynamics.core.errors import InvalidInputError, RobotDynamicsError, URDFError
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
    # Two stages, so that the exit code follows from which input was wrong: first the URDF below
    # the base (its errors are the URDF's, unless --base-link names no link of it), then the tip.
    try:
        model = RobotModel.from_urdf(
            source.urdf,
            base_link=base,
            gravity=grav,
            balance_inertia=getattr(args, "balance_inertia", False),
        )
    except URDFError as exc:
        bad_base = args.base_link is not None and args.base_link not in urdf_link_names(source.urdf)
        raise CLIError(f"URDF {label}: {exc}", EXIT_USAGE if bad_base else EXIT_BAD_URDF) from None
    except RobotDynamicsError as exc:  # gravity
        raise CLIError(f"URDF {label}: {exc}", EXIT_USAGE) from None
    if tip is not None:
        try:
            adjustments = model.inertia_adjustments
            model = RobotModel(model.tree, tip_link=tip, gravity=grav)
            model.inertia_adjustments = adjustments
        except RobotDynamicsError as exc:
            raise CLIError(f"URDF {label}: {exc}", EXIT_USAGE) from None
    for note in model.inertia_adjustments:
        print(f"robot-dynamics: balance_inertia: {note}", file=sys.stderr)
    return model, label, source.urdf, source.bundled


def urdf_link_names(xml: str) -> List[str]:
    """Names of the <link> elements of a URDF.

    Args:
        xml: URDF XML text.

    Returns:
        list: link names (empty when the XML cannot be parsed).
    """
    try:
        return [link.get("name") for link in ET.fromstring(xml).findall("link")]
    except ET.ParseError:
        return []


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
