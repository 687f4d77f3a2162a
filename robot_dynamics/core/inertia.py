"""Physical consistency of a URDF's inertias: what is refused, what loads with a warning.

An inertia is judged where the dynamics uses it: a *moving body* is the link a movable joint
moves plus every link fixed to it (merged into one rigid body), and only moving bodies enter
the joint-space dynamics; links fixed to the base never move.

- **Refused** (:class:`~robot_dynamics.core.errors.InvalidURDFValueError`, always): a moving
  body whose composite rotational inertia about its centre of mass is not positive
  semi-definite beyond ``INERTIA_ROUNDING * trace + INERTIA_ATOL`` of that composite: such a
  body can have negative kinetic energy and its numbers mean nothing. (Non-finite numbers and
  negative masses are refused while parsing, :mod:`robot_dynamics.core.urdf`.)
- **Loaded with a warning** (:class:`InertiaWarning`, in ``RobotModel.inertia_warnings``): a
  link whose own tensor is not physically consistent (the link rule below, tolerance
  ``INERTIA_RTOL * trace + INERTIA_ATOL``): positive semi-definite but breaking the triangle
  inequality ``I_max <= I_a + I_b`` of its principal moments (no mass distribution has it);
  a negative principal moment at the file's rounding (down to ``-INERTIA_ROUNDING * trace``);
  or a larger negative one on a link fixed to the base, or on a link whose moving body is
  positive semi-definite as a whole.
- ``strict_inertia`` refuses every warning with the same typed error; ``balance_inertia``
  replaces each inconsistent link tensor by :func:`balanced_inertia` before these checks (each
  change listed in the description's ``adjustments``), so nothing is left to warn about.

A negative principal moment ``-INERTIA_ROUNDING * trace`` is what rounding the six entries of
a tensor to three significant digits can give.
"""

from dataclasses import dataclass

import numpy as np

from .errors import InvalidURDFValueError

#: Tolerance of the link rule: INERTIA_RTOL * trace + INERTIA_ATOL [kg m^2].
INERTIA_RTOL = 1e-6
INERTIA_ATOL = 1e-12
#: A negative principal moment down to INERTIA_ROUNDING * trace is the file's rounding; a
#: moving body's composite inertia more negative than that is refused.
INERTIA_ROUNDING = 1e-3

#: Rules of :class:`InertiaWarning`.
TRIANGLE = "triangle_inequality"
ROUNDING = "negative_at_rounding"
NEGATIVE = "not_positive_semidefinite"

_BALANCE_HINT = "balance_inertia: node parameter balance_inertia, CLI --balance-inertia"


@dataclass(frozen=True)
class InertiaWarning:
    """A link inertia loaded as the file gives it although it is not physically consistent.

    Attributes:
        link: the link's name.
        rule: :data:`TRIANGLE` (positive semi-definite, breaks the triangle inequality),
            :data:`ROUNDING` (a negative principal moment at the file's rounding) or
            :data:`NEGATIVE` (more negative; on a link fixed to the base, or in a moving body
            that is positive semi-definite as a whole).
        moments: (3,) principal moments [kg m^2] about the link's centre of mass, ascending.
        joint: the movable joint whose body the link belongs to; None when the link never
            moves (fixed to the base, or not below the model's base link).
    """

    link: str
    rule: str
    moments: tuple
    joint: str = None

    def __str__(self):
        moments = ", ".join(f"{m:.4g}" for m in self.moments)
        what = {
            TRIANGLE: "violates the triangle inequality (the largest principal moment exceeds "
            "the sum of the other two)",
            ROUNDING: "has a negative principal moment at the file's rounding",
            NEGATIVE: "is not positive semi-definite",
        }[self.rule]
        where = (
            "fixed to the base: never moves"
            if self.joint is None
            else f"moves with joint {self.joint!r}"
            + ("; its body is positive semi-definite" if self.rule == NEGATIVE else "")
        )
        return f"link {self.link!r} <inertia> {what}: principal moments [{moments}] kg m^2; {where}"


def _tolerance(I, rtol):
    return rtol * abs(float(np.trace(I))) + INERTIA_ATOL


def link_rule(I):
    """The rule a link tensor breaks, or None when it is physically consistent.

    Args:
        I: (3, 3) symmetric rotational inertia [kg m^2] about the centre of mass.

    Returns:
        str | None: :data:`NEGATIVE`, :data:`ROUNDING`, :data:`TRIANGLE` (the first that
        applies, with the tolerances of the module doc) or None.
    """
    moments = np.linalg.eigvalsh(I)  # ascending
    if moments[0] < -_tolerance(I, INERTIA_RTOL):
        return ROUNDING if moments[0] >= -_tolerance(I, INERTIA_ROUNDING) else NEGATIVE
    if moments[2] > moments[0] + moments[1] + _tolerance(I, INERTIA_RTOL):
        return TRIANGLE
    return None


def inertia_inconsistency(I):
    """Why a finite symmetric inertia is not physically consistent, or None when it is.

    Args:
        I: (3, 3) symmetric rotational inertia [kg m^2].

    Returns:
        str | None: the violated rule with the principal moments, None when the tensor is
        positive semi-definite and satisfies the triangle inequality (``INERTIA_RTOL * trace +
        INERTIA_ATOL``).
    """
    rule = link_rule(I)
    if rule is None:
        return None
    moments = np.linalg.eigvalsh(I).tolist()
    if rule == TRIANGLE:
        return (
            f"violates the triangle inequality: principal moments {moments} kg m^2, "
            f"the largest exceeds the sum of the other two"
        )
    return f"is not positive semi-definite (principal moments {moments} kg m^2)"


def balanced_inertia(I):
    """The nearest-in-spirit physically consistent tensor to a finite symmetric inertia: the
    principal moments clipped at 0, then, when the largest exceeds the sum of the other two by
    d, the two smaller ones raised by d / 2 each (principal axes kept).

    Args:
        I: (3, 3) symmetric rotational inertia [kg m^2].

    Returns:
        ndarray: (3, 3) tensor, positive semi-definite and satisfying the triangle inequality.
    """
    moments, axes = np.linalg.eigh(np.asarray(I, dtype=float))
    moments = np.maximum(moments, 0.0)
    deficit = moments[2] - moments[0] - moments[1]
    if deficit > 0.0:
        moments[:2] += 0.5 * deficit
    return (axes * moments) @ axes.T


def body_moments(tree):
    """Principal moments of each moving body's composite inertia about its centre of mass.

    Args:
        tree: a :class:`~robot_dynamics.core.tree.KinematicTree`.

    Returns:
        ndarray: (nb, 3) principal moments [kg m^2], ascending per body.
    """
    I6 = tree.inertia  # (nb, 6, 6) about each body origin, body axes
    mass = I6[:, 0, 0, None, None]
    C = I6[:, 3:, :3] / np.where(mass > 0.0, mass, 1.0)  # [com]x; 0 for a massless body
    I_c = I6[:, 3:, 3:] + mass * C @ C  # as spatial.inertia_parameters, for every body
    return np.linalg.eigvalsh(0.5 * (I_c + np.swapaxes(I_c, -1, -2))).reshape(-1, 3)


def check_inertias(inconsistent, tree, strict=False):
    """Apply the policy of the module doc to a model's bodies and inconsistent links.

    Args:
        inconsistent: ``(link name, (3, 3) rotational inertia about its COM)`` of every link
            tensor that breaks the link rule (:func:`link_rule`), in file order.
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree` built from the description.
        strict: refuse every warning.

    Returns:
        tuple: :class:`InertiaWarning` per inconsistent link, in file order.

    Raises:
        InvalidURDFValueError: a moving body whose composite inertia is not positive
            semi-definite (names the joint and its links); with ``strict``, every warning.
    """
    moments = body_moments(tree)  # (nb, 3)
    trace = moments.sum(axis=1)
    for b in np.flatnonzero(moments[:, 0] < -(INERTIA_ROUNDING * np.abs(trace) + INERTIA_ATOL)):
        links = [name for name, info in tree.frames.items() if info.body == b]
        raise InvalidURDFValueError(
            f"link {', link '.join(map(repr, links))} <inertia>: the body moved by joint "
            f"{tree.body_joint_names[b]!r} is not positive semi-definite: principal moments "
            f"{np.array2string(moments[b], precision=4)} kg m^2 about its centre of mass, the "
            f"smallest below -{INERTIA_ROUNDING:g} of their sum (fix the URDF, or load it "
            f"with {_BALANCE_HINT})"
        )
    warnings = []
    for name, I in inconsistent:
        info = tree.frames.get(name)
        joint = tree.body_joint_names[info.body] if info is not None and info.body >= 0 else None
        moments = tuple(float(m) for m in np.linalg.eigvalsh(I))
        warnings.append(InertiaWarning(name, link_rule(I), moments, joint))
    if strict and warnings:
        raise InvalidURDFValueError(
            f"{len(warnings)} link inertia(s) not physically consistent and strict_inertia is "
            f"set: {'; '.join(map(str, warnings))} (fix the URDF, load it with "
            f"{_BALANCE_HINT}, or without strict_inertia to load them with a warning)"
        )
    return tuple(warnings)
