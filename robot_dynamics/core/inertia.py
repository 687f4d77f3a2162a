"""Physical consistency of a URDF's inertias: what is refused, what loads with a warning.

An inertia is judged where the dynamics uses it: a *moving body* is the link a movable joint
moves plus every link fixed to it (merged into one rigid body), and only moving bodies enter
the joint-space dynamics; links fixed to the base never move. What makes the numbers
meaningless is a joint-space inertia matrix M(q) that is not positive semi-definite (forward
dynamics, the articulated-body pivots, the momentum observer and every solve with M depend on
it), so that is what is refused; a body whose own tensor is indefinite inside a tree whose M(q)
stays positive gives meaningful, if physically dubious, numbers (as Pinocchio computes them).

- **Loaded with a warning** (:class:`InertiaWarning`, in ``RobotModel.inertia_warnings``):

  - a link whose own tensor is not physically consistent (the link rule, tolerance
    ``INERTIA_RTOL * trace + INERTIA_ATOL``): positive semi-definite but breaking the triangle
    inequality ``I_max <= I_a + I_b`` of its principal moments (:data:`TRIANGLE`: no mass
    distribution has it); a negative principal moment at the file's rounding, down to
    ``-INERTIA_ROUNDING * trace`` (:data:`ROUNDING`); or a larger negative one on a link fixed
    to the base, or on a link whose moving body is positive semi-definite as a whole
    (:data:`NEGATIVE`);
  - a moving body whose composite rotational inertia about its centre of mass is indefinite
    beyond ``INERTIA_ROUNDING * trace + INERTIA_ATOL`` of that composite
    (:data:`INDEFINITE_BODY`, named by its most negative link), when M(q) stays positive:
    **exact** (``InertiaWarning.exact``) when the body's kinetic energy is non-negative in
    every motion its joints can give it at any configuration (the body's spatial inertia,
    lifted by the rounding tolerance, is positive semi-definite on the span of those motions,
    :func:`motion_spans`; e.g. a hip whose three axes meet in one point moves only by
    rotations about that point): then the body cannot make M(q) indefinite at any
    configuration, as with physically consistent inertias; otherwise **sampled**: M(q) has
    no negative eigenvalue at the :data:`SAMPLED_CONFIGURATIONS` configurations of
    :func:`sampled_configurations` (neutral, all joints at their lower and at their upper
    limits, the rest seeded uniformly within the limits) nor where a local search within the
    limits leads from the :data:`SEARCHED_CONFIGURATIONS` with the smallest eigenvalue (the
    negative region of a wrong tensor can be a small pocket), not a guarantee for every q;
  - an actuated joint that moves no mass and no inertia (:data:`MOVES_NO_INERTIA`): every body
    it drives (its own and its mimic joints') carries, with every link below it, no
    ``<inertial>`` or a zero mass and zero inertia, as in the ROS-Industrial descriptions, which
    have no ``<inertial>`` at all. Exact and at every configuration: its gravity and
    inverse-dynamics torques are 0, M(q) has a zero row and column, and forward dynamics and
    simulation refuse the model (:class:`~robot_dynamics.core.errors.SingularInertiaError`).

- **Refused** (:class:`~robot_dynamics.core.errors.InvalidURDFValueError`, always): such an
  indefinite body without the exact guarantee when M(q) has a negative eigenvalue (beyond
  round-off: ``M_SCALED_TOLERANCE`` of M with its diagonal scaled to 1) at one of those
  configurations (rule :data:`INDEFINITE_MASS_MATRIX`; the message names the body whose kinetic
  energy is most negative in that motion, its joint and the configuration). The refusal is
  exact: that configuration is a witness. (Non-finite numbers and negative masses are refused
  while parsing, :mod:`robot_dynamics.core.urdf`.)
- ``strict_inertia`` refuses every warning with the same typed error; ``balance_inertia``
  replaces each inconsistent link tensor by :func:`balanced_inertia` before these checks (each
  change listed in the description's ``adjustments``), so nothing is left to warn about but
  the joints that move no inertia (balancing gives no link a mass).

New body inertias (``RobotModel.with_body_inertias``, e.g. identified ones) are judged the same
way, each body's rotational inertia taking the place of its links' tensors, once each is checked
to be a spatial inertia with a mass >= 0 (:func:`check_body_inertias`).

A negative principal moment ``-INERTIA_ROUNDING * trace`` is what rounding the six entries of
a tensor to three significant digits can give. Only indefinite bodies cost more than one
eigen-decomposition per body: the exact check walks their ancestors, the sampled one (only when
the exact one fails) computes M at the sampled configurations.
"""

from dataclasses import dataclass

import numpy as np

from .crba import crba
from .errors import InvalidInputError, InvalidURDFValueError
from .kinematics import Kinematics
from .spatial import inertia_parameters, motion_cross
from .tree import PRISMATIC

#: Tolerance of the link rule: INERTIA_RTOL * trace + INERTIA_ATOL [kg m^2].
INERTIA_RTOL = 1e-6
INERTIA_ATOL = 1e-12
#: A negative principal moment down to INERTIA_ROUNDING * trace is the file's rounding; a
#: moving body's composite inertia more negative than that is an indefinite body.
INERTIA_ROUNDING = 1e-3
#: Configurations at which M(q) is computed for an indefinite body without the exact guarantee.
SAMPLED_CONFIGURATIONS = 64
#: Seed of the sampled configurations (the same model always gets the same verdict).
SAMPLE_SEED = 0
#: Sampled configurations a local search for a negative eigenvalue of M(q) starts from, and the
#: evaluations of M it may spend from each.
SEARCHED_CONFIGURATIONS = 4
SEARCH_EVALUATIONS = 400
#: Range [rad or m] sampled for a joint without limits (continuous, or a prismatic joint
#: without ``<limit>``): [-pi, pi] rad, [-1, 1] m.
UNLIMITED_RANGE = {False: np.pi, True: 1.0}
#: M(q) with its diagonal scaled to 1 is indefinite when an eigenvalue is below -this.
M_SCALED_TOLERANCE = 1e-9
#: A body spatial inertia given as an array is symmetric, and its mass and coupling blocks of
#: the spatial form, to this times its largest entry.
SPATIAL_RTOL = 1e-9
#: Relative rank tolerance of the motion spans.
_RANK_RTOL = 1e-9

#: Rules of :class:`InertiaWarning`.
TRIANGLE = "triangle_inequality"
ROUNDING = "negative_at_rounding"
NEGATIVE = "not_positive_semidefinite"
INDEFINITE_BODY = "indefinite_body"
MOVES_NO_INERTIA = "moves_no_inertia"
#: Rules of what an ``<inertial>`` says that a rigid body cannot quite be: no ``<inertia>`` (a
#: point mass; urdfdom refuses it), a rotational inertia without mass, an inertia so large for
#: its mass that the body would be metres across (a CAD export in kg cm^2 or kg mm^2, or a
#: placeholder).
POINT_MASS = "no_inertia_element"
INERTIA_WITHOUT_MASS = "inertia_without_mass"
LARGE_INERTIA = "large_for_its_mass"
#: Radius of gyration sqrt(largest principal moment / mass) [m] above which an inertia is
#: LARGE_INERTIA (an arm's links stay below 1 m; a 7 m rod about its middle reaches 2 m).
MAX_GYRATION_RADIUS = 2.0
#: Rule of the refusal: an indefinite body makes M(q) indefinite.
INDEFINITE_MASS_MATRIX = "indefinite_mass_matrix"

_BALANCE_HINT = "balance_inertia: node parameter balance_inertia, CLI --balance-inertia"


@dataclass(frozen=True)
class InertiaWarning:
    """An inertia loaded as the file gives it although it is not physically consistent.

    Attributes:
        link: the link's name (for :data:`INDEFINITE_BODY`: the body's link with the most
            negative own principal moment; for :data:`MOVES_NO_INERTIA`: the link the joint
            moves).
        rule: :data:`TRIANGLE` (positive semi-definite, breaks the triangle inequality),
            :data:`ROUNDING` (a negative principal moment at the file's rounding),
            :data:`NEGATIVE` (more negative; on a link fixed to the base, or in a moving body
            that is positive semi-definite as a whole), :data:`INDEFINITE_BODY` (the moving
            body is indefinite beyond rounding, M(q) stays positive) or
            :data:`MOVES_NO_INERTIA` (the actuated joint ``joint`` moves no mass or inertia);
            :data:`POINT_MASS`, :data:`INERTIA_WITHOUT_MASS`, :data:`LARGE_INERTIA` (what the
            ``<inertial>`` says, ``detail``).
        moments: (3,) principal moments [kg m^2] about the centre of mass, ascending: of the
            link, for :data:`INDEFINITE_BODY` of the body (the link plus the links fixed to it),
            for :data:`MOVES_NO_INERTIA` zeros.
        joint: the movable joint whose body the link belongs to; None when the link never
            moves (fixed to the base, or not below the model's base link).
        exact: for :data:`INDEFINITE_BODY`, True when the body's kinetic energy is >= 0 in
            every motion its joints can give it at every configuration (so it cannot make M(q)
            indefinite: exact), False when M(q) was found positive semi-definite only at the
            sampled configurations; else None.
        detail: for the ``<inertial>`` rules, what the element says.
    """

    link: str
    rule: str
    moments: tuple
    joint: str = None
    exact: bool = None
    detail: str = ""

    def __str__(self):
        moments = ", ".join(f"{m:.4g}" for m in self.moments)
        if self.rule == INDEFINITE_BODY:
            how = (
                "it cannot make M(q) indefinite: its kinetic energy is >= 0 in every motion "
                "its joints can give it, at every configuration (exact)"
                if self.exact
                else f"M(q) has no negative eigenvalue at the {SAMPLED_CONFIGURATIONS} "
                "configurations tested (neutral, joint limits, seeded within them) nor where a "
                "local search from the lowest of them leads (sampled, not a guarantee for every "
                "configuration)"
            )
            return (
                f"link {self.link!r} <inertia> makes the body moved by joint {self.joint!r} "
                f"indefinite ({INDEFINITE_BODY}): principal moments [{moments}] kg m^2 about "
                f"its centre of mass, beyond the file's rounding; loaded as given: {how}"
            )
        if self.rule == MOVES_NO_INERTIA:
            return _moves_no_inertia_text([self])
        if self.detail:
            return (
                f"link {self.link!r} <inertial> {self.detail} ({self.rule}); moves with joint "
                f"{self.joint!r}"
            )
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


def inertia_warning_lines(warnings):
    """Report lines of :class:`InertiaWarning` entries: one per warning, except that the
    :data:`MOVES_NO_INERTIA` ones make one line naming every such joint and link (a description
    without any ``<inertial>`` gets one line, not one per joint), where the first of them is.

    Args:
        warnings: InertiaWarnings (``model.inertia_warnings``).

    Returns:
        list: str lines.
    """
    massless = [w for w in warnings if w.rule == MOVES_NO_INERTIA]
    first = massless[0] if massless else None
    return [
        _moves_no_inertia_text(massless) if w is first else str(w)
        for w in warnings
        if w.rule != MOVES_NO_INERTIA or w is first
    ]


def _moves_no_inertia_text(warnings):
    """The report of one or several :data:`MOVES_NO_INERTIA` warnings, naming their joints and
    links."""
    joints = ", ".join(repr(w.joint) for w in warnings)
    links = ", ".join(repr(w.link) for w in warnings)
    if len(warnings) == 1:
        who, what = f"joint {joints} moves", f"link {links} and every link it carries"
        whose, rows = "its", "a zero row and column"
    else:
        who, what = f"joints {joints} move", f"links {links} and every link they carry"
        whose, rows = "their", "zero rows and columns"
    return (
        f"{who} no mass or inertia ({MOVES_NO_INERTIA}): {what} have no <inertial> (or zero mass "
        f"and inertia); {whose} gravity and inverse-dynamics torques are 0, M(q) has {rows}, "
        "forward dynamics and simulation refuse the model"
    )


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


def motion_spans(S, parent, bodies):
    """Span of every motion the joints can give each body, over all configurations.

    A body's velocity is a combination of its ancestors' (and its own) joint axes, each carried
    to the body through the joints between them; as those joints turn or slide, the axes sweep
    out the span of the axes and their Lie brackets: ``W_b = span(S_b) + K(ad(S_b), W_parent)``
    with ``K(A, W)`` the smallest ``A``-invariant subspace containing ``W`` (the span of
    ``exp(t A) W`` over all ``t``, any non-empty interval of ``t`` giving the same). Exact:
    every velocity of the body at every configuration lies in ``W_b``, joint limits and mimic
    couplings only shrink the set.

    Args:
        S: (nb, 6) joint axes ``[v; w]`` at one configuration, one frame (e.g. base axes about
            the base origin); the spans are in the same coordinates.
        parent: (nb,) parent body index (-1 for the base), parents before children.
        bodies: the body indices wanted.

    Returns:
        dict: body index -> (6, d) orthonormal basis of its motion span (d <= 6).
    """
    wanted = set()
    for b in bodies:
        while b >= 0 and b not in wanted:
            wanted.add(b)
            b = parent[b]
    spans = {}
    for b in sorted(wanted):  # parents first
        A = motion_cross(S[b])
        U = _orthonormal(
            S[b][:, None] if parent[b] < 0 else np.column_stack([S[b], spans[parent[b]]])
        )
        while U.shape[1] < 6:
            grown = _orthonormal(np.column_stack([U, A @ U]))
            if grown.shape[1] == U.shape[1]:
                break
            U = grown
        spans[b] = U
    return {b: spans[b] for b in bodies}


def _orthonormal(columns):
    """Orthonormal basis (6, rank) of the columns' span (rank relative to the largest)."""
    U, sv, _ = np.linalg.svd(columns, full_matrices=False)
    rank = int(np.count_nonzero(sv > _RANK_RTOL * sv[0])) if sv.size and sv[0] > 0.0 else 0
    return U[:, :rank]


def sampled_configurations(tree):
    """The configurations at which M(q) is checked for an indefinite body without the exact
    guarantee: the neutral one (every joint at 0, clipped into its limits), every joint at its
    lower limit, every joint at its upper limit, then configurations drawn uniformly within the
    limits (seed :data:`SAMPLE_SEED`); a joint without limits spans :data:`UNLIMITED_RANGE`.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.

    Returns:
        ndarray: (SAMPLED_CONFIGURATIONS, n) joint positions [rad or m], the neutral first.
    """
    body = [tree.body_joint_names.index(name) for name in tree.joint_names]
    prismatic = tree.joint_type[body] == PRISMATIC
    span = np.where(prismatic, UNLIMITED_RANGE[True], UNLIMITED_RANGE[False])
    lower = np.where(np.isfinite(tree.lower), tree.lower, -span)
    upper = np.where(np.isfinite(tree.upper), tree.upper, span)
    rng = np.random.default_rng(SAMPLE_SEED)
    drawn = rng.uniform(lower, upper, size=(SAMPLED_CONFIGURATIONS - 3, tree.n))
    return np.vstack([np.clip(np.zeros(tree.n), lower, upper), lower, upper, drawn])


def _mass_matrices(tree, Q):
    """``(kinematics, M)`` at configurations Q (K, n): M(Q) (K, n, n), no armature, mimic joints
    reduced."""
    kin = Kinematics(tree, tree.body_positions(Q))
    return kin, tree.reduce_matrix(crba(tree, kin)[0])


def _scaled_mass_matrices(tree, Q):
    """``(kinematics, scaled, scale)`` at configurations Q (K, n): M(Q) (:func:`_mass_matrices`)
    with its diagonal scaled to 1 (``scale`` (K, n)), lifted by ``M_SCALED_TOLERANCE``."""
    kin, M = _mass_matrices(tree, Q)
    d = np.diagonal(M, axis1=-2, axis2=-1)
    floor = M_SCALED_TOLERANCE * np.maximum(d.max(axis=-1, keepdims=True), INERTIA_ATOL)
    scale = 1.0 / np.sqrt(np.maximum(d, floor))
    scaled = M * scale[:, :, None] * scale[:, None, :] + M_SCALED_TOLERANCE * np.eye(tree.n)
    return kin, scaled, scale


def _searched_configuration(tree, Q, scaled, scale):
    """A configuration within the sampled ranges where M(q) has a negative eigenvalue, found by
    a bounded local search (L-BFGS-B) from each of the ``SEARCHED_CONFIGURATIONS`` sampled ones
    with the smallest eigenvalue, or None. The search lowers the smallest eigenvalue of M(q)
    scaled as at its start (a scaling that follows q would hide a diagonal entry going
    negative)."""
    from scipy.optimize import minimize

    lowest = np.linalg.eigvalsh(scaled)[:, 0]
    bounds = list(zip(Q.min(axis=0), Q.max(axis=0)))  # the limits (rows 1 and 2 of Q)
    for k in np.argsort(lowest)[:SEARCHED_CONFIGURATIONS]:
        D = scale[k][:, None] * scale[k][None, :]

        def smallest(q):
            return float(np.linalg.eigvalsh(_mass_matrices(tree, q[None])[1][0] * D)[0])

        found = minimize(
            smallest, Q[k], method="L-BFGS-B", bounds=bounds,
            options={"maxfun": SEARCH_EVALUATIONS},
        )  # fmt: skip
        if np.linalg.eigvalsh(_scaled_mass_matrices(tree, found.x[None])[1][0])[0] < 0.0:
            return k, found.x
    return None


def joints_moving_no_inertia(tree):
    """The actuated joints that move no mass and no inertia: every body the joint drives (its
    own, its mimic joints') has, with every body below it, a zero spatial inertia.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.

    Returns:
        list: indices (into ``tree.joint_names``) of those joints, ascending.
    """
    carries = np.any(tree.inertia != 0.0, axis=(1, 2))  # (nb,)
    below = (tree.ancestors.T @ carries) > 0  # (nb,) the body or a body below it carries some
    return [k for k in range(tree.n) if not np.any(below[tree.G[:, k] != 0.0])]


def _exactly_positive(tree, bodies, trace):
    """Whether each body's kinetic energy is >= 0 in every motion its joints can give it: its
    spatial inertia, lifted by the rounding tolerance (a pure couple of INERTIA_ROUNDING times
    the trace of its moments, plus INERTIA_ATOL), positive semi-definite on its motion span."""
    kin = Kinematics(
        tree, tree.body_positions(np.zeros(tree.n))
    )  # the spans do not depend on the configuration
    spans = motion_spans(kin.S, tree.parent, bodies)
    verdict = {}
    for b in bodies:
        lift = np.zeros((6, 6))
        lift[3:, 3:] = (INERTIA_ROUNDING * abs(trace[b]) + INERTIA_ATOL) * np.eye(3)
        U = spans[b]
        energy = np.linalg.eigvalsh(U.T @ (kin.I[b] + lift) @ U)
        verdict[b] = bool(energy[0] >= -1e-12 * max(abs(energy[-1]), INERTIA_ATOL))
    return verdict


def _mass_matrix_witness(tree, bodies):
    """The first sampled configuration where M(q) (no armature, mimic joints reduced) is
    indefinite beyond round-off, else one a local search finds, or None: ``(where, q, body of
    ``bodies`` with the most negative kinetic energy in M's most negative direction)``,
    ``where`` naming the configuration."""
    if tree.n == 0:
        return None
    Q = sampled_configurations(tree)
    kin, scaled, scale = _scaled_mass_matrices(tree, Q)
    names = ("the neutral configuration", "the lower joint limits", "the upper joint limits")
    try:
        np.linalg.cholesky(scaled)
        searched = _searched_configuration(tree, Q, scaled, scale)
        if searched is None:
            return None
        k, q = searched
        where = f"a configuration a local search found from sampled configuration {k}"
        kin, scaled, scale = _scaled_mass_matrices(tree, q[None])
        candidates = [(0, where, q)]
    except np.linalg.LinAlgError:
        candidates = [
            (k, names[k] if k < 3 else f"sampled configuration {k}", Q[k]) for k in range(len(Q))
        ]
    for k, where, q in candidates:
        values, vectors = np.linalg.eigh(scaled[k])
        if values[0] > 0.0:
            continue
        qd = tree.body_rates(scale[k] * vectors[:, 0])
        V = tree.ancestors @ (kin.S[k] * qd[:, None])  # (nb, 6) body velocities
        energy = np.einsum("bi,bij,bj->b", V, kin.I[k], V)
        return where, q, min(bodies, key=lambda b: energy[b])
    return None


def check_inertias(
    inconsistent,
    tree,
    strict=False,
    remedy="fix the URDF, or load it with " + _BALANCE_HINT,
    inertial_notes=(),
):
    """Apply the policy of the module doc to a model's bodies and inconsistent links.

    Args:
        inconsistent: ``(link name, (3, 3) rotational inertia about its COM)`` of every link
            tensor that breaks the link rule (:func:`link_rule`), in file order.
        inertial_notes: ``(link name, rule, detail)`` of the ``<inertial>`` elements that a
            rigid body cannot quite be (:data:`POINT_MASS`, :data:`INERTIA_WITHOUT_MASS`,
            :data:`LARGE_INERTIA`), in file order; those of moving links warn.
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree` built from the description.
        strict: refuse every warning.
        remedy: what the refusal of an indefinite M(q) tells to do.

    Returns:
        tuple: :class:`InertiaWarning` per inconsistent link and per indefinite body, in file
        order (an indefinite body where its most negative link is, its other links' negative
        tensors left to the body's warning), then one per actuated joint that moves no inertia
        (:func:`joints_moving_no_inertia`), in joint order.

    Raises:
        InvalidURDFValueError: an indefinite body that makes M(q) indefinite at a sampled
            configuration (names the body's links, its joint, the rule and the configuration);
            with ``strict``, every warning.
    """
    moments = body_moments(tree)  # (nb, 3)
    trace = moments.sum(axis=1)
    indefinite = np.flatnonzero(
        moments[:, 0] < -(INERTIA_ROUNDING * np.abs(trace) + INERTIA_ATOL)
    ).tolist()
    exact = _exactly_positive(tree, indefinite, trace) if indefinite else {}
    sampled = [b for b in indefinite if not exact[b]]
    witness = _mass_matrix_witness(tree, sampled) if sampled else None
    if witness is not None:
        where, q, b = witness
        links = [name for name, info in tree.frames.items() if info.body == b]
        raise InvalidURDFValueError(
            f"link {', link '.join(map(repr, links))} <inertia>: the body moved by joint "
            f"{tree.body_joint_names[b]!r} is not positive semi-definite (principal moments "
            f"{np.array2string(moments[b], precision=4)} kg m^2 about its centre of mass) and "
            f"makes the joint-space inertia matrix M(q) indefinite ({INDEFINITE_MASS_MATRIX}): "
            f"at {where}, q = {np.array2string(q, precision=4)} (joints "
            f"{', '.join(tree.joint_names)}), M has a negative eigenvalue and the body's kinetic "
            f"energy is negative in that motion ({remedy})"
        )
    by_body = {}  # indefinite body -> its most negative inconsistent link
    entries = []
    for name, I in inconsistent:
        info = tree.frames.get(name)
        body = info.body if info is not None else -1
        link_moments = np.linalg.eigvalsh(I)
        entries.append((name, I, body, link_moments))
        if body in exact and (body not in by_body or link_moments[0] < by_body[body][1]):
            by_body[body] = (name, link_moments[0])
    warnings = []
    for name, I, body, link_moments in entries:
        joint = tree.body_joint_names[body] if body >= 0 else None
        rule = link_rule(I)
        if body in exact:
            if by_body[body][0] == name:
                warnings.append(
                    InertiaWarning(
                        name, INDEFINITE_BODY, tuple(map(float, moments[body])), joint, exact[body]
                    )
                )
            if rule != TRIANGLE:
                continue
        warnings.append(InertiaWarning(name, rule, tuple(map(float, link_moments)), joint))
    for body in exact:
        if body not in by_body:  # indefinite from links each consistent within tolerance
            warnings.append(
                InertiaWarning(
                    tree.body_link_names[body],
                    INDEFINITE_BODY,
                    tuple(map(float, moments[body])),
                    tree.body_joint_names[body],
                    exact[body],
                )
            )
    balanceable = bool(warnings)
    for name, rule, detail in inertial_notes:
        info = tree.frames.get(name)
        if info is not None and info.body >= 0:  # a link fixed to the base weighs nothing
            joint = tree.body_joint_names[info.body]
            warnings.append(InertiaWarning(name, rule, (0.0, 0.0, 0.0), joint, detail=detail))
    warnings.extend(moves_no_inertia_warnings(tree))
    if strict and warnings:
        balance = f"load it with {_BALANCE_HINT}, " if balanceable else ""
        raise InvalidURDFValueError(
            f"{len(warnings)} inertia(s) not physically consistent and strict_inertia is "
            f"set: {'; '.join(map(str, warnings))} (fix the URDF, {balance}or load it without "
            "strict_inertia to load them with a warning)"
        )
    return tuple(warnings)


def check_body_inertias(inertia, tree):
    """Judge new body spatial inertias (e.g. identified ones) as a URDF's are judged.

    Each must be a spatial inertia (symmetric, its mass block ``m 1`` with ``m >= 0``, its
    coupling block ``m [c]x``, to ``SPATIAL_RTOL`` of its largest entry); then the policy of the
    module doc applies to the bodies, each body's rotational inertia about its centre of mass
    taking the place of its links' tensors.

    Args:
        inertia: (nb, 6, 6) finite spatial inertias about the body origins, body axes
            [kg, kg m, kg m^2] (``tree.body_link_names`` order).
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree` with these inertias.

    Returns:
        tuple: :class:`InertiaWarning` of the bodies loaded although not physically consistent
        (named by the body's link), and of the joints that move no inertia.

    Raises:
        InvalidInputError: not a spatial inertia, a negative mass, or an indefinite body that
            makes M(q) indefinite (names the body's link and joint).
    """
    inconsistent = []
    for b, I6 in enumerate(inertia):
        where = f"body inertia {b} (link {tree.body_link_names[b]!r}, joint " + repr(
            tree.body_joint_names[b]
        )
        mass = I6[0, 0]
        tol = SPATIAL_RTOL * max(float(np.abs(I6).max()), 1.0)
        C = I6[3:, :3]
        if not (
            np.abs(I6 - I6.T).max() <= tol
            and np.abs(I6[:3, :3] - mass * np.eye(3)).max() <= tol
            and np.abs(C + C.T).max() <= tol
        ):
            raise InvalidInputError(
                f"{where}) is not a spatial inertia [[m 1, -m [c]x], [m [c]x, I]] (symmetric, "
                f"mass block m times the identity, coupling block m [c]x): {I6.tolist()}"
            )
        if mass < -tol:
            raise InvalidInputError(f"{where}) has a negative mass, {mass:g} kg")
        _, _, I_c = inertia_parameters(I6)
        if link_rule(I_c) is not None:
            inconsistent.append((tree.body_link_names[b], I_c))
    try:
        return check_inertias(
            inconsistent, tree, remedy="body inertias that no mass distribution has"
        )
    except InvalidURDFValueError as err:
        raise InvalidInputError(str(err)) from None


def moves_no_inertia_warnings(tree):
    """:data:`MOVES_NO_INERTIA` warnings of a tree, one per joint of
    :func:`joints_moving_no_inertia` (joint order).

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.

    Returns:
        tuple: :class:`InertiaWarning` entries.
    """
    warnings = []
    for k in joints_moving_no_inertia(tree):
        b = tree.body_of_joint[tree.joint_names[k]]
        warnings.append(
            InertiaWarning(
                tree.body_link_names[b], MOVES_NO_INERTIA, (0.0, 0.0, 0.0), tree.joint_names[k]
            )
        )
    return tuple(warnings)
