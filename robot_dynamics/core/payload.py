"""Payload identification: the mass, centre of mass and (when the motion excites it) inertia of
a rigid load attached to a frame, from joint torques the model does not explain.

The load's 10 inertial parameters ``phi = [m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]``
(about the frame origin, frame axes, :mod:`~robot_dynamics.core.regressor` order) act through the
regressor columns of the body the frame is fixed to, mapped into the frame:

    tau_measured - tau_model(q, qd, qdd) - friction(qd) = Y_body(q, qd, qdd) T phi

Static poses only see gravity, so only ``m`` and ``m c`` (and not all of ``m c`` when the
frame's orientation hardly changes between poses). The least-squares solution is taken on the
subspace the data determine (an SVD with a relative threshold); a parameter is reported
determined when it lies in that subspace and, for the centre of mass and the inertia, when the
data resolve it against their noise (:data:`COM_RESOLUTION`, :data:`INERTIA_SIGNIFICANCE`); the
rest is named in ``undetermined``. Only the rows of joints whose torque is measured
(``effort_mask``) are fitted.
"""

import math
from dataclasses import dataclass

import numpy as np

from .errors import InvalidInputError
from .friction import DEFAULT_VELOCITY_THRESHOLD
from .identification import IdentificationError, measured_rows, stacked_regressor
from .inertia import inertia_inconsistency
from .regressor import (
    BODY_PARAMETER_NAMES,
    ParameterLayout,
    inertia_to_parameters,
    parameters_to_inertia,
)
from .spatial import force_transform, inertia_parameters
from .validation import check_vector

#: singular values below this fraction of the largest count as not determined
DETERMINED_TOLERANCE = 1e-6

#: share of the samples at or near rest from which a static fit's stiction bias is warned of
NEAR_REST_SHARE = 0.25

#: the inertia is reported only when its largest principal moment exceeds this many standard
#: errors of its parameters (a significance test: the data resolve it)
INERTIA_SIGNIFICANCE = 2.0

#: a centre-of-mass component is reported only when the gravity torque its standard error can
#: cause once the frame is tilted (``m |g| std``) stays within this many times the fit's residual
#: RMS (the torque noise of the data): beyond, the poses hardly tilt the frame about that axis
COM_RESOLUTION = 10.0


@dataclass(frozen=True, eq=False)
class PayloadEstimate:
    """An identified payload, in the axes of ``frame``.

    Attributes:
        frame: the link the payload is attached to.
        mass: [kg]; nan when not determined.
        mass_std: standard error of mass [kg]; nan when not determined.
        com: (3,) centre of mass [m] in the frame; nan where not determined.
        com_std: (3,) standard errors of com [m]; nan where not determined.
        inertia: (3, 3) about the centre of mass [kg m^2], or None when not determined: not
            in the subspace the data determine, not resolved by them (its largest principal
            moment within :data:`INERTIA_SIGNIFICANCE` standard errors), or about a centre of
            mass they do not give.
        inertia_std: (6,) standard errors of [Ixx, Ixy, Iyy, Ixz, Iyz, Izz] (about the frame
            origin), or None.
        parameters: (10,) least-squares estimate of phi (zero in the directions outside the
            subspace the data determine).
        covariance: (10, 10) of phi.
        determined: (10,) bool per parameter of phi: in the subspace the data determine and,
            for the centre of mass and the inertia, resolved by them (:data:`COM_RESOLUTION`,
            :data:`INERTIA_SIGNIFICANCE`).
        undetermined: readable notes on what the data could not determine.
        samples: number of samples used; residual_rms: (n,) [N m or N] after the fit (NaN for
            the joints without a measured torque).
    """

    frame: str
    mass: float
    mass_std: float
    com: np.ndarray
    com_std: np.ndarray
    inertia: object
    inertia_std: object
    parameters: np.ndarray
    covariance: np.ndarray
    determined: np.ndarray
    undetermined: tuple
    samples: int
    residual_rms: np.ndarray


def frame_parameter_map(model, frame):
    """Linear map from the parameters of a load in ``frame`` to the parameters of its body.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        frame: link name.

    Returns:
        tuple: ``(body, T (10, 10))``: the body index (-1: the base) and the map, in the
        10-parameter layout of :mod:`robot_dynamics.core.regressor`.
    """
    info = model.tree.frames[frame]
    X = force_transform(info.T_body_frame)
    unit = parameters_to_inertia(np.eye(10))  # (10, 6, 6)
    return info.body, inertia_to_parameters(X @ unit @ X.T).T


def _robot_torques(model, q, qd, qdd, friction, velocity_threshold):
    """(N, n): the known robot's joint torques (inverse dynamics, plus its friction)."""
    tau = model.inverse_dynamics(q, qd, qdd)
    if friction:
        tau = tau + model.friction_torques(qd, velocity_threshold)
    return tau


def _payload_regressor(model, body, T, q, qd, qdd):
    """(N, n, 10): the joint torques of a load's parameters phi on ``body`` (map ``T``)."""
    layout = ParameterLayout.for_model(model, viscous=False, coulomb=False)
    cols = np.arange(10 * body, 10 * body + 10)
    return stacked_regressor(model, q, qd, qdd, layout, columns=cols) @ T


def identify_payload(
    model,
    q,
    qd,
    qdd,
    tau,
    *,
    frame=None,
    friction=True,
    velocity_threshold=DEFAULT_VELOCITY_THRESHOLD,
    tolerance=DETERMINED_TOLERANCE,
    effort_mask=None,
):
    """Identify a payload on ``frame`` (default: the model's tip link).

    Args:
        model: :class:`~robot_dynamics.core.model.RobotModel` without the payload.
        q: (N, n) joint positions [rad or m], model order.
        qd: (N, n) joint velocities [rad/s or m/s].
        qdd: (N, n) joint accelerations [rad/s^2 or m/s^2] (zeros for static poses).
        tau: (N, n) measured joint torques [N m or N]; the columns outside ``effort_mask`` are
            not read (may be NaN).
        frame: link the payload is rigidly attached to.
        friction: subtract the model's joint friction at qd.
        velocity_threshold: v_eps of the Coulomb friction's smooth sign [rad/s or m/s].
        tolerance: relative singular-value threshold of "determined".
        effort_mask: (n,) bool, the joints whose torque is measured: only their rows are
            fitted; default all.

    Returns:
        :class:`PayloadEstimate`.

    Raises:
        IdentificationError: too few samples, a bad ``effort_mask``, no measured joint that
            carries ``frame``, or data that determine not even the mass.
        UnknownFrameError, AmbiguousTipError, InvalidInputError: bad frame or arrays.
    """
    frame = model.resolve_frame(frame)
    names = model.joint_names
    rows = measured_rows(effort_mask, model.n)
    try:
        tau = np.asarray(tau, dtype=float)
    except (TypeError, ValueError) as err:
        raise InvalidInputError(f"tau must be numeric: {err}") from None
    q = check_vector(q, "q", names)
    qd = check_vector(qd, "qd", names)
    qdd = check_vector(qdd, "qdd", names)
    if tau.ndim != 2 or q.shape != tau.shape or qd.shape != tau.shape or qdd.shape != tau.shape:
        raise IdentificationError(
            f"payload: q, qd, qdd and tau must be (N, n) arrays of one shape, got "
            f"{q.shape}, {qd.shape}, {qdd.shape}, {tau.shape}"
        )
    check_vector(np.where(rows, tau, 0.0), "tau", names)
    N, n = tau.shape
    body, T = frame_parameter_map(model, frame)
    if body < 0:
        raise IdentificationError(
            f"payload: frame {frame!r} is fixed to the base: no joint sees it"
        )
    tree = model.tree
    carriers = (tree.ancestors[body] @ (tree.G != 0)) > 0  # (n,) joints that move the frame
    if not np.any(carriers & rows):
        raise IdentificationError(
            f"payload: no joint with a measured torque carries frame {frame!r} (it is carried "
            f"by {', '.join(np.asarray(names)[carriers])})"
        )
    m_rows = int(rows.sum())
    if N * m_rows < 4:
        raise IdentificationError(f"payload: too few samples ({N} of {m_rows} measured joints)")
    Y = _payload_regressor(model, body, T, q, qd, qdd)[:, rows]  # (N, m, 10)
    known = _robot_torques(model, q, qd, qdd, friction, velocity_threshold)
    residual = tau[:, rows] - known[:, rows]
    A = Y.reshape(N * m_rows, 10)
    b = residual.reshape(N * m_rows)
    norms = np.linalg.norm(A, axis=0)
    scale = np.where(norms > 0, norms, 1.0)
    U, s, Vt = np.linalg.svd(A / scale, full_matrices=False)
    keep = s > tolerance * s[0] if s.size and s[0] > 0 else np.zeros(0, dtype=bool)
    r = int(np.count_nonzero(keep))
    V = Vt[:r].T  # (10, r) determined directions (scaled coordinates)
    coef = (U[:, :r].T @ b) / s[:r]
    phi = (V @ coef) / scale
    fit = A @ phi
    dof = max(N * m_rows - r, 1)
    sigma2 = float(((b - fit) ** 2).sum() / dof)
    cov_s = sigma2 * (V / s[:r] ** 2) @ V.T
    cov = cov_s / np.outer(scale, scale)
    # a parameter is determined when its unit direction lies in the determined subspace
    null = np.eye(10) - V @ V.T
    determined = np.linalg.norm(null, axis=0) < 1e-6
    std = np.sqrt(np.maximum(np.diag(cov), 0.0))
    notes = []
    if not determined[0]:
        raise IdentificationError(
            f"payload: the data do not determine the mass on {frame!r} (no joint's gravity "
            f"torque depends on it in these poses); move the arm to poses that tilt the frame"
        )
    m = phi[0]
    h = phi[1:4]
    com = h / m
    J = np.hstack([-h[:, None] / m**2, np.eye(3) / m])  # d com / d (m, h)
    com_cov = J @ cov[:4, :4] @ J.T
    com_std = np.sqrt(np.maximum(np.diag(com_cov), 0.0))
    noise = math.sqrt(sigma2)
    weight = abs(m) * float(np.linalg.norm(model.gravity))
    unresolved = determined[1:4] & (weight * com_std > COM_RESOLUTION * noise)
    for k, axis in enumerate("xyz"):
        if not determined[1 + k]:
            notes.append(
                f"centre of mass along {axis}: not determined (poses do not rotate the frame "
                f"about an axis that makes it act on a joint)"
            )
        elif unresolved[k]:
            notes.append(
                f"centre of mass along {axis}: not resolved by the data ({com[k]:.3g} m, "
                f"standard error {com_std[k]:.3g} m: a gravity torque error up to "
                f"{weight * com_std[k]:.3g} N m once the frame tilts, against a residual of "
                f"{noise:.3g} N m; poses that tilt the frame more about that axis)"
            )
    determined[1:4] &= ~unresolved
    com[~determined[1:4]] = com_std[~determined[1:4]] = np.nan
    inertia = inertia_std = None
    if not np.all(determined[4:]):
        missing = [BODY_PARAMETER_NAMES[k] for k in range(4, 10) if not determined[k]]
        notes.append(
            "inertia: not determined (" + ", ".join(missing) + "; static poses or too little "
            "rotation show only mass and centre of mass)"
        )
    elif not np.all(determined[1:4]):
        determined[4:] = False  # the inertia is about a centre of mass the data do not give
        notes.append("inertia: not determined without the whole centre of mass")
    else:
        _, _, estimate = inertia_parameters(parameters_to_inertia(phi))
        size = float(np.max(np.abs(np.linalg.eigvalsh(estimate))))
        largest_std = float(np.max(std[4:]))
        if size > INERTIA_SIGNIFICANCE * largest_std:
            inertia, inertia_std = estimate, std[4:]
        else:
            determined[4:] = False
            notes.append(
                f"inertia: not resolved by the data (largest principal moment {size:.3g} kg m^2, "
                f"standard errors up to {largest_std:.3g}; too little rotation, or too short a "
                "window)"
            )
    residual_rms = np.full(n, np.nan)
    residual_rms[rows] = np.sqrt(((b - fit).reshape(N, m_rows) ** 2).mean(axis=0))
    return PayloadEstimate(
        frame=frame,
        mass=float(m),
        mass_std=float(std[0]),
        com=com,
        com_std=com_std,
        inertia=inertia,
        inertia_std=inertia_std,
        parameters=phi,
        covariance=cov,
        determined=determined,
        undetermined=tuple(notes),
        samples=N,
        residual_rms=residual_rms,
    )


def payload_fit(
    model,
    data,
    *,
    frame=None,
    friction=True,
    velocity_threshold=DEFAULT_VELOCITY_THRESHOLD,
):
    """The payload fit of :func:`identify_payload` as a filter window's fit
    (:func:`robot_dynamics.core.filter_window.choose_filter_window`).

    Args:
        model: :class:`~robot_dynamics.core.model.RobotModel` without the payload.
        data: the :class:`~robot_dynamics.core.joint_data.CleanData` (its effort mask).
        frame, friction, velocity_threshold: see :func:`identify_payload`.

    Returns:
        callable: ``fit(q, qd, qdd, tau) -> predict``, ``predict(q, qd, qdd) -> (N, n)``
        torques [N m or N] of the model with the identified payload (NaN for the joints
        without a measured torque); ``fit`` raises IdentificationError as
        :func:`identify_payload` does.
    """
    frame = model.resolve_frame(frame)
    body, T = frame_parameter_map(model, frame)
    rows = np.asarray(data.effort_mask, bool)

    def fit(q, qd, qdd, tau):
        est = identify_payload(
            model,
            q,
            qd,
            qdd,
            tau,
            frame=frame,
            friction=friction,
            velocity_threshold=velocity_threshold,
            effort_mask=rows,
        )

        def predict(q, qd, qdd):
            out = _robot_torques(model, q, qd, qdd, friction, velocity_threshold)
            out = out + _payload_regressor(model, body, T, q, qd, qdd) @ est.parameters
            return np.where(rows, out, np.nan)

        return predict

    return fit


def payload_inconsistency(estimate):
    """What is not physical in an identified payload.

    Args:
        estimate: the :class:`PayloadEstimate`.

    Returns:
        tuple: ``(mass, inertia)``: the text of each problem, or "" where there is none (the
        mass not positive; the inertia about the centre of mass not physically consistent,
        :func:`~robot_dynamics.core.inertia.inertia_inconsistency`).
    """
    mass = "" if estimate.mass > 0.0 else f"its mass {float(estimate.mass):.4g} kg is not positive"
    inertia = ""
    if estimate.inertia is not None:
        problem = inertia_inconsistency(estimate.inertia)
        inertia = f"its inertia about the centre of mass {problem}" if problem else ""
    return mass, inertia


def payload_warnings(model, estimate, qd, *, effort_mask, velocity_threshold, friction, scaled):
    """The named warnings of an identified payload (each ``"name: text"``), the same for the
    ``identify-payload`` command and the dynamics node's ``~/identify_payload``.

    - ``payload-inconsistent``: the mass is not positive, or the inertia about the centre of
      mass is not physically consistent
      (:func:`~robot_dynamics.core.inertia.inertia_inconsistency`).
    - ``payload-at-rest``: at least :data:`NEAR_REST_SHARE` of the samples have every measured
      joint at or below ``velocity_threshold`` while the efforts look motor-side (the model's
      friction subtracted on a measured joint that has some, or an effort scale applied): at
      rest a motor-side torque holds any stiction within the breakaway friction, which the
      friction model (0 at rest) does not remove and a static fit takes for load.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel` the payload was fitted on.
        estimate: the :class:`PayloadEstimate`.
        qd: (N, n) joint velocities of the fitted samples [rad/s or m/s].
        effort_mask: (n,) bool, the joints whose torque was fitted.
        velocity_threshold: the friction's ``v_eps`` [rad/s or m/s]: "at or near rest" below it.
        friction: whether the model's joint friction was subtracted.
        scaled: whether an effort scale other than 1 converted the measured efforts.

    Returns:
        list: the warning strings (empty when nothing is odd).
    """
    warnings = []
    what = [problem for problem in payload_inconsistency(estimate) if problem]
    if what:
        warnings.append(
            f"payload-inconsistent: the payload on {estimate.frame} is not physically "
            "consistent: " + "; ".join(what) + ". The fit took for load what the model does not "
            "explain (torque offsets, joint friction or stiction, a wrong effort scale): check "
            "the effort conversion (effort scale and offset) and the friction model"
        )
    mask = np.asarray(effort_mask, bool)
    qd = np.asarray(qd, dtype=float)
    near = float(np.mean(np.all(np.abs(qd[:, mask]) <= velocity_threshold, axis=1)))
    levels = model.friction.breakaway
    with_friction = [n for n, f, m in zip(model.joint_names, levels, mask) if f > 0 and m]
    if near >= NEAR_REST_SHARE and ((friction and with_friction) or scaled):
        why = (
            f"the model has joint friction on {', '.join(with_friction)}"
            if friction and with_friction
            else "an effort scale was applied"
        )
        warnings.append(
            f"payload-at-rest: {100 * near:.0f} % of the samples are at or near rest (every "
            f"measured joint slower than {velocity_threshold:g} rad/s) and the efforts look "
            f"motor-side ({why}): at rest a motor-side torque holds any stiction within the "
            "breakaway friction, which the friction model (0 at rest) does not remove and a "
            "static fit takes for load, so mass and centre of mass can be off by far more than "
            "their standard errors. Use link-side joint torques, or a recording in motion"
        )
    return warnings


__all__ = [
    "NEAR_REST_SHARE",
    "PayloadEstimate",
    "frame_parameter_map",
    "identify_payload",
    "payload_fit",
    "payload_inconsistency",
    "payload_warnings",
]
