"""Identification of the dynamic parameters from measured joint torques.

Two steps (reference section 8):

1. Weighted least squares on the base parameters ``beta`` (see
   :mod:`~robot_dynamics.core.base_parameters`): ordinary least squares first, then each joint's
   rows weighted by the inverse of its residual standard deviation; the covariance of ``beta``
   gives the standard errors.
2. A *physically consistent* full parameter set ``theta`` (every body with mass >= 0 and a
   rotational inertia that is positive semi-definite and satisfies the triangle inequality,
   i.e. a positive semi-definite 4x4 pseudo-inertia ``J = [[Sigma, h], [h^T, m]]``, Wensing et
   al. 2017) solved with ``scipy.optimize.least_squares`` over a log-Cholesky factor
   ``J = U U^T`` per body (Rucker and Wensing 2022); friction coefficients >= 0 (and a friction
   asymmetry no larger than its Coulomb level) are bounds of the same solve, and a coefficient
   the data push against its bound comes out as exactly 0. It minimises the whitened distance
   of ``K theta`` to the estimated ``beta`` plus a small penalty on ``theta - theta_nominal``
   restricted to the directions the torques cannot see (the null space of ``K``): what the data
   determine comes from the data, the rest stays as close to the nominal URDF as consistency
   allows. The solver converges slowly along those flat directions, so each body is then moved
   the rest of the way to the nominal along the directions of that body alone that the torques
   cannot see (a link turning about the vertical keeps the URDF's mass and centre of mass), as
   far as the body stays consistent.
"""

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize

from .base_parameters import base_parameters
from .errors import RobotDynamicsError
from .friction import FRICTION_TERMS
from .pseudo_inertia import (
    is_physically_consistent,
    log_cholesky_jacobian,
    log_cholesky_to_parameters,
    parameters_to_log_cholesky,
)
from .regressor import (
    PARAMETERS_PER_BODY,
    ParameterLayout,
    joint_regressor,
    joint_torque_regressor,
    parameters_to_inertia,
    regressor,
)
from .validation import check_vector


class IdentificationError(RobotDynamicsError, ValueError):
    """The data cannot identify the parameters: too few samples, or a trajectory that does not
    excite them (the message names the parameters)."""


#: default largest condition number of the column-normalised base regressor on the data
MAX_CONDITION = 1e4
#: samples per batch when building regressors (bounds the memory)
CHUNK = 2000
#: a friction coefficient or armature of the consistent fit within this of its bound (0) is
#: the bound [N m, N m s/rad, kg m^2 or the prismatic units]
BOUND_TOLERANCE = 1e-12


def single_threaded_blas():
    """One BLAS thread for the fit's dense problems (QR of tall regressors, 100 x 100 SVDs):
    threads add synchronisation, and on a busy machine they cost 10-20x. Uses threadpoolctl when
    it is installed (a test and benchmark dependency), else changes nothing.

    Returns:
        A context manager.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


# ------------------------------------------------------------------ result
@dataclass(frozen=True, eq=False)
class IdentificationResult:
    """Identified parameters.

    Attributes:
        layout: :class:`~robot_dynamics.core.regressor.ParameterLayout` of ``theta``.
        base: :class:`~robot_dynamics.core.base_parameters.BaseParameters`.
        beta: (r,) weighted least-squares base parameters.
        beta_std: (r,) their standard errors.
        theta: (p,) physically consistent full parameters (inertial per body, then friction).
        theta_nominal: (p,) the nominal model's parameters.
        joint_sigma: (n,) per-joint residual standard deviation of the least squares (the
            weights are its inverse) [N m or N].
        condition_number: condition number of the column-normalised weighted base regressor.
        samples: number of samples used.
        consistency_cost: whitened squared distance of ``K theta`` from ``beta`` (0 when the
            estimate is itself consistent).
    """

    layout: ParameterLayout
    base: object
    beta: np.ndarray
    beta_std: np.ndarray
    theta: np.ndarray
    theta_nominal: np.ndarray
    joint_sigma: np.ndarray
    condition_number: float
    samples: int
    consistency_cost: float

    def torques(self, model, q, qd, qdd, parameters="consistent"):
        """Predicted joint torques.

        Args:
            model: the :class:`~robot_dynamics.core.model.RobotModel` the layout was made for.
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            qdd: (..., n) joint accelerations [rad/s^2 or m/s^2].
            parameters: "consistent" (``theta``), "base" (``beta`` through the base regressor) or
                "nominal".

        Returns:
            ndarray: (..., n) torques [N m or N].

        Raises:
            KeyError: unknown ``parameters``.
        """
        Y = regressor(model, q, qd, qdd, self.layout)
        if parameters == "base":
            return self.base.base_regressor(Y) @ self.beta
        theta = {"consistent": self.theta, "nominal": self.theta_nominal}[parameters]
        return Y @ theta

    def body_parameters(self):
        """Identified inertial parameters per body.

        Returns:
            ndarray: (nb, 10) body parameters (body order of the layout).
        """
        return self.theta[: self.layout.n_inertial].reshape(-1, PARAMETERS_PER_BODY)

    def group(self, name):
        """Identified values of a per-joint group.

        Args:
            name: one of :data:`~robot_dynamics.core.regressor.JOINT_GROUPS`.

        Returns:
            ndarray: (n,) values (model joint order), 0 on the joints without such a column.

        Raises:
            InvalidInputError: an unknown group.
        """
        return self.layout.joint_values(self.theta, name)

    def group_std(self, name):
        """Standard errors of a per-joint group's values, where each is a base parameter of its
        own (its column independent of every other: offsets and friction usually are).

        Args:
            name: one of :data:`~robot_dynamics.core.regressor.JOINT_GROUPS`.

        Returns:
            ndarray: (n,) standard errors (model joint order); NaN on joints without the column
            or whose value the data see only in a combination with others.
        """
        out = np.full(self.layout.n, np.nan)
        if name not in self.layout.groups:
            return out
        columns = range(self.layout.size)[self.layout.group_slice(name)]
        for k, column in zip(self.layout.joints(name), columns):
            rows = np.flatnonzero(self.base.independent == column)
            if rows.size and np.count_nonzero(self.base.K[rows[0]]) == 1:
                out[k] = self.beta_std[rows[0]]
        return out

    def friction_model(self, model):
        """The identified friction model (the model's own coefficients where the layout has no
        column).

        Args:
            model: the :class:`~robot_dynamics.core.model.RobotModel` the layout was made for.

        Returns:
            FrictionModel: the friction model.
        """
        return self.layout.friction_model(self.theta, model.friction)

    def apply(self, model):
        """The model with the identified body inertias, friction model and armature; offsets are
        not part of a model.

        Args:
            model: the :class:`~robot_dynamics.core.model.RobotModel` the layout was made for.

        Returns:
            RobotModel: the new model.
        """
        return apply_parameters(model, self.layout, self.theta)


def apply_parameters(model, layout, theta):
    """A new model with the inertias, friction model and armature of ``theta``.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel` the layout was made for.
        layout: the :class:`~robot_dynamics.core.regressor.ParameterLayout` of ``theta``.
        theta: (p,) parameters in ``layout``.

    Returns:
        RobotModel: the new model.
    """
    layout.check(model)
    inertia = parameters_to_inertia(theta[: layout.n_inertial].reshape(-1, PARAMETERS_PER_BODY))
    new = model.with_body_inertias(inertia)
    groups = layout.groups
    if set(groups) & set(FRICTION_TERMS):
        new = new.with_friction(layout.friction_model(theta, model.friction))
    if "armature" in groups:
        new = new.with_armature(np.maximum(theta[layout.group_slice("armature")], 0.0))
    return new


# ------------------------------------------------------------------ identification
def stacked_regressor(model, q, qd, qdd, layout, columns=None, chunk=CHUNK, smooth=None):
    """Regressor of many samples, the inertial columns built ``chunk`` samples at a time.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        q: (N, n) joint positions [rad or m].
        qd: (N, n) joint velocities [rad/s or m/s].
        qdd: (N, n) joint accelerations [rad/s^2 or m/s^2].
        layout: the :class:`~robot_dynamics.core.regressor.ParameterLayout`.
        columns: indices of the columns to keep, or None for all p.
        chunk: samples per batch.
        smooth: None, or the filter that smoothed the measured torques, ``(N, ...) -> (N, ...)``
            along the samples (:meth:`~robot_dynamics.core.joint_data.JointData.smoothed`): it is
            applied to the per-joint columns (friction, offset, armature), so that a friction
            column's step at a velocity reversal is as smooth as the torque's.

    Returns:
        ndarray: (N, n, p) regressor (or (N, n, len(columns))).
    """
    q, qd, qdd = (np.asarray(x, dtype=float) for x in (q, qd, qdd))
    layout.check(model)
    ni = layout.n_inertial
    columns = np.arange(layout.size) if columns is None else np.asarray(columns)
    inertial, joint = columns[columns < ni], columns[columns >= ni] - ni
    parts = []
    for start in range(0, q.shape[0], chunk):
        s = slice(start, start + chunk)
        parts.append(joint_torque_regressor(model, q[s], qd[s], qdd[s])[..., inertial])
    Y = np.concatenate(parts) if parts else np.zeros((0, model.n, len(inertial)))
    if joint.size:
        J = joint_regressor(layout, qd, qdd)[..., joint]
        if smooth is not None:
            J = smooth(J)
        Y = np.concatenate([Y, J], axis=-1)
    is_joint = columns >= ni
    position = np.where(is_joint, len(inertial) + np.cumsum(is_joint) - 1, np.cumsum(~is_joint) - 1)
    return Y[..., position]


def _parameter_scale(model, layout):
    """Typical magnitude of each parameter (for the regulariser): per body a mass scale and a
    0.1 m length; 1 for the per-joint groups."""
    masses = model.tree.inertia[:, 0, 0]
    floor = 1e-3 + 0.01 * (masses.sum() / max(len(masses), 1))
    m = np.maximum(masses, floor)
    length = 0.1
    body = np.array([1.0] + [length] * 3 + [length**2] * 6)
    return np.concatenate([(m[:, None] * body).reshape(-1), np.ones(layout.size - 10 * len(m))])


@dataclass(frozen=True, eq=False)
class LeastSquaresFit:
    """Weighted least squares on the base parameters (step 1 of :func:`identify`).

    Attributes:
        beta: (r,) base parameters.
        beta_std: (r,) their standard errors (the residuals' correlation between samples
            accounted for: :func:`correlation_time`).
        sigma: (n,) per-joint residual standard deviation of the ordinary least squares (the
            weights are its inverse) [N m or N].
        condition_number: of the column-normalised weighted base regressor.
        R_unscaled: (r, r) triangular factor of the weighted base regressor: the whitened data
            term of other base parameters ``b`` is ``|R_unscaled (b - beta)|^2``.
    """

    beta: np.ndarray
    beta_std: np.ndarray
    sigma: np.ndarray
    condition_number: float
    R_unscaled: np.ndarray


def correlation_time(residuals, max_lag=None):
    """Integrated autocorrelation time of residuals: how many samples one independent sample is
    worth (1 for white residuals; filtered signals give tens).

    The least squares' covariance assumes independent residuals; multiplied by this it holds for
    residuals correlated between neighbouring samples (smoothed and differentiated signals): the
    Bartlett-weighted sum ``1 + 2 sum_k (1 - k / (L + 1)) rho(k)`` of the autocorrelation up to
    ``L`` lags, averaged over the joints (Newey and West 1987).

    Args:
        residuals: (N, n) residuals in time order, one column per joint.
        max_lag: ``L`` (default ``min(N // 10, 500)``).

    Returns:
        float: >= 1.
    """
    e = np.asarray(residuals, dtype=float)
    N = e.shape[0]
    lag = min(N // 10, 500) if max_lag is None else int(max_lag)
    if lag < 1:
        return 1.0
    e = e - e.mean(axis=0)
    var = (e**2).sum(axis=0)
    size = 1 << int(np.ceil(np.log2(2 * N)))
    spectrum = np.fft.rfft(e, size, axis=0)
    acov = np.fft.irfft(spectrum * np.conj(spectrum), size, axis=0)[: lag + 1]
    rho = acov[1:] / np.where(var > 0, var, 1.0)
    weights = 1.0 - np.arange(1, lag + 1) / (lag + 1.0)
    tau = 1.0 + 2.0 * (weights[:, None] * rho).sum(axis=0)
    return float(max(1.0, np.mean(tau[var > 0]) if np.any(var > 0) else 1.0))


def weighted_least_squares(Yb, tau, base, max_condition=MAX_CONDITION):
    """Ordinary, then per-joint weighted least squares ``tau = Yb beta``.

    Args:
        Yb: (N, n, r) stacked base regressor.
        tau: (N, n) measured torques [N m or N].
        base: the :class:`~robot_dynamics.core.base_parameters.BaseParameters` (for names).
        max_condition: largest accepted condition number of the column-normalised weighted
            base regressor.

    Returns:
        LeastSquaresFit: the fit.

    Raises:
        IdentificationError: a base parameter the data do not excite at all, or a condition
            number above ``max_condition`` (naming the least excited base parameters).
    """
    N, n, r = Yb.shape
    A = Yb.reshape(N * n, r)
    b = tau.reshape(N * n)
    norms = np.linalg.norm(A, axis=0)
    weak = norms <= 1e-12 * max(norms.max(initial=0.0), 1.0)
    if np.any(weak):
        names = [base.names[i] for i in np.flatnonzero(weak)]
        raise IdentificationError(
            "the trajectory does not excite these base parameters at all: " + "; ".join(names)
        )
    beta0 = np.linalg.lstsq(A / norms, b, rcond=None)[0] / norms
    resid = (tau - Yb @ beta0).reshape(N, n)
    dof = max(N - r / n, 1.0)
    sigma = np.sqrt((resid**2).sum(axis=0) / dof)
    rms_tau = np.sqrt((tau**2).mean(axis=0))
    sigma = np.maximum(sigma, 1e-6 * np.maximum(rms_tau, 1e-3))
    Aw = (Yb / sigma[:, None]).reshape(N * n, r)
    bw = (tau / sigma).reshape(N * n)
    wnorms = np.linalg.norm(Aw, axis=0)
    Q, R = np.linalg.qr(Aw / wnorms)
    s = np.linalg.svd(R, compute_uv=False)
    condition = float(s[0] / s[-1]) if s[-1] > 0 else math.inf
    if not condition <= max_condition:
        _, _, Vt = np.linalg.svd(R)
        worst = np.argsort(-np.abs(Vt[-1]))[:3]
        raise IdentificationError(
            f"the trajectory does not excite the parameters enough: condition number "
            f"{condition:.3g} > {max_condition:.3g}; least excited: "
            + "; ".join(base.names[i] for i in worst)
            + " (use an excitation trajectory: robot-dynamics excite)"
        )
    beta_s = scipy.linalg.solve_triangular(R, Q.T @ bw)
    beta = beta_s / wnorms
    res_w = bw - (Aw / wnorms) @ beta_s
    s2 = float(res_w @ res_w) / max(N * n - r, 1)
    s2 *= correlation_time(res_w.reshape(N, n))
    Rinv = scipy.linalg.solve_triangular(R, np.eye(r))
    beta_std = np.sqrt(s2 * (Rinv**2).sum(axis=1)) / wnorms
    return LeastSquaresFit(beta, beta_std, sigma, condition, R * wnorms)


def identify(
    model,
    q,
    qd,
    qdd,
    tau,
    *,
    layout=None,
    base=None,
    regularization=1e-2,
    max_condition=MAX_CONDITION,
    effort_mask=None,
    held=None,
    smooth=None,
):
    """Identify the dynamic parameters of ``model`` from measured joint torques.

    Args:
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel` (its parameters are
            the prior for what the data cannot see).
        q: (N, n) joint positions [rad or m], model order.
        qd: (N, n) joint velocities [rad/s or m/s], model order.
        qdd: (N, n) joint accelerations [rad/s^2 or m/s^2], model order.
        tau: (N, n) measured joint torques [N m or N].
        layout: :class:`~robot_dynamics.core.regressor.ParameterLayout` (default: inertial
            parameters with viscous and Coulomb friction).
        base: precomputed :class:`~robot_dynamics.core.base_parameters.BaseParameters`.
        regularization: weight of the pull toward the nominal parameters in the directions the
            data cannot see (whitened units).
        max_condition: largest accepted condition number of the column-normalised weighted
            base regressor.
        effort_mask: (n,) bool, the joints whose torque is measured: only their rows are
            fitted, ``tau`` of the others is not read (may be NaN); default all.
        held: (n,) positions [rad or m] of joints the data hold still (NaN for the moving
            ones), for the base parameters such data can show; default none.
        smooth: None, or the filter that smoothed ``tau`` (see :func:`stacked_regressor`).

    Returns:
        :class:`IdentificationResult` (``joint_sigma`` NaN for joints outside ``effort_mask``).

    Raises:
        IdentificationError: fewer samples than base parameters, or data that do not excite
            some base parameters (named).
        InvalidInputError: wrong shapes or non-finite values.
    """
    with single_threaded_blas():
        return _identify(
            model, q, qd, qdd, tau, layout, base, regularization, max_condition, effort_mask,
            held, smooth,
        )  # fmt: skip


def measured_rows(effort_mask, n):
    """The joints whose torque is measured, checked.

    Args:
        effort_mask: None (every joint) or (n,) bool.
        n: the model's joint count.

    Returns:
        ndarray: (n,) bool.

    Raises:
        IdentificationError: not n booleans, or no joint measured.
    """
    rows = np.ones(n, bool) if effort_mask is None else np.asarray(effort_mask, bool)
    if rows.shape != (n,) or not rows.any():
        raise IdentificationError(
            f"effort_mask must be {n} booleans with at least one measured joint"
        )
    return rows


def _identify(
    model, q, qd, qdd, tau, layout, base, regularization, max_condition, effort_mask, held,
    smooth,
):  # fmt: skip
    layout = ParameterLayout.for_model(model) if layout is None else layout
    layout.check(model)
    rows = measured_rows(effort_mask, model.n)
    if base is None:
        base = base_parameters(model, layout, effort_mask=rows, held=held)
    tau = np.asarray(tau, dtype=float)
    tau = check_vector(np.where(rows, tau, 0.0) if tau.ndim == 2 else tau, "tau", model.joint_names)
    if tau.ndim != 2:
        raise IdentificationError(f"tau must be (N, n) samples, got shape {tau.shape}")
    N = tau.shape[0]
    n = int(rows.sum())
    r = base.count
    if N * n < 2 * r or N < 2:
        raise IdentificationError(
            f"too few samples: {N} samples of {n} joints for {r} base parameters "
            f"(need at least {math.ceil(2 * r / n)})"
        )
    Yb = stacked_regressor(model, q, qd, qdd, layout, columns=base.independent, smooth=smooth)[
        :, rows
    ]
    tau = tau[:, rows]

    fit = weighted_least_squares(Yb, tau, base, max_condition)
    beta, R_unscaled = fit.beta, fit.R_unscaled

    # 2. physically consistent full parameters
    theta_nominal = layout.nominal(model)
    theta = _consistent_parameters(
        model, layout, base, beta, R_unscaled, theta_nominal, regularization
    )
    e = R_unscaled @ (base.from_full(theta) - beta)
    joint_sigma = np.full(model.n, np.nan)
    joint_sigma[rows] = fit.sigma
    return IdentificationResult(
        layout=layout,
        base=base,
        beta=beta,
        beta_std=fit.beta_std,
        theta=theta,
        theta_nominal=theta_nominal,
        joint_sigma=joint_sigma,
        condition_number=fit.condition_number,
        samples=N,
        consistency_cost=float(e @ e),
    )


def _consistent_parameters(model, layout, base, beta, Rw, theta_nominal, regularization):
    nb = layout.nb
    ni = layout.n_inertial
    p = layout.size
    scale = _parameter_scale(model, layout)
    N = base.null_space(scale)  # (p, p - r) in scaled coordinates
    sqrt_reg = math.sqrt(regularization)
    # residual = M theta - c: whitened data term and prior in the unseen directions
    M = np.vstack([Rw @ base.K, sqrt_reg * (N.T / scale)])
    c = np.concatenate([Rw @ beta, sqrt_reg * (N.T @ (theta_nominal / scale))])
    nominal_bodies = theta_nominal[:ni].reshape(nb, PARAMETERS_PER_BODY)
    T, lower = _joint_coordinates(layout)
    x0 = np.concatenate(
        [
            parameters_to_log_cholesky(nominal_bodies).reshape(-1),
            np.linalg.solve(T, _joint_start(layout, base, beta, theta_nominal)),
        ]
    )
    lower = np.concatenate([np.full(ni, -np.inf), lower])
    x0 = np.maximum(x0, np.where(np.isfinite(lower), lower + 1e-9, -np.inf))

    def clipped_bodies(x):
        xb = x[:ni].reshape(nb, PARAMETERS_PER_BODY).copy()
        xb[:, :4] = np.clip(xb[:, :4], -60.0, 60.0)  # trial steps must stay finite
        return xb

    def theta_of(x):
        return np.concatenate(
            [log_cholesky_to_parameters(clipped_bodies(x)).reshape(-1), T @ x[ni:]]
        )

    def residuals(x):
        return M @ theta_of(x) - c

    def jacobian(x):
        D = log_cholesky_jacobian(clipped_bodies(x))
        J = M.copy()
        for b in range(nb):
            s = slice(10 * b, 10 * b + 10)
            J[:, s] = M[:, s] @ D[b]
        J[:, ni:] = M[:, ni:] @ T
        return J

    sol = scipy.optimize.least_squares(
        residuals,
        x0,
        jac=jacobian,
        bounds=(lower, np.full(p, np.inf)),
        method="trf",
        x_scale="jac",
        ftol=1e-12,
        xtol=1e-12,
        gtol=1e-12,
        max_nfev=1000,  # the unseen directions converge slowly; the data do not
    )
    # trf keeps its iterates strictly inside the bounds: a coefficient the data push against
    # its bound ends a hair above it (1e-33); it is the bound
    x = sol.x.copy()
    at_bound = (sol.active_mask == -1) | (x - lower <= BOUND_TOLERANCE)
    x[at_bound] = lower[at_bound]
    return _unseen_to_nominal(theta_of(x), theta_nominal, base.K, scale, nb)


def _unseen_to_nominal(theta, theta_nominal, K, scale, nb):
    """Each body's parameters moved to the nominal ones along the directions of that body alone
    that no joint torque sees (``K`` is blind to them: the fit is unchanged), as far as the
    body stays physically consistent (the whole way, else halved).

    The solver converges slowly along these flat directions and may stop far from the nominal
    there: a link turning about the vertical, whose mass no joint torque sees, would keep a
    wandered mass and centre of mass.

    Args:
        theta: (p,) the solved parameters.
        theta_nominal: (p,) the nominal ones.
        K: (r, p) base parameters of the full ones.
        scale: (p,) typical magnitudes (the projection is in scaled coordinates).
        nb: bodies.

    Returns:
        ndarray: (p,) the parameters.
    """
    theta = theta.copy()
    for b in range(nb):
        cols = slice(PARAMETERS_PER_BODY * b, PARAMETERS_PER_BODY * (b + 1))
        unseen = scipy.linalg.null_space(K[:, cols] * scale[cols])  # (10, k) orthonormal
        if unseen.shape[1] == 0:
            continue
        step = scale[cols] * (
            unseen @ (unseen.T @ ((theta_nominal[cols] - theta[cols]) / scale[cols]))
        )
        for alpha in 0.5 ** np.arange(12):
            candidate = theta[cols] + alpha * step
            if is_physically_consistent(candidate):
                theta[cols] = candidate
                break
    return theta


def _joint_start(layout, base, beta, theta_nominal):
    """Where the solver starts the per-joint parameters: their least-squares values where the
    data see each alone (friction, offsets, armature usually; the nominal elsewhere), within
    their bounds. A start at the nominal values leaves a large offset or friction far from the
    optimum, and the solver then spends its evaluations on it."""
    ni = layout.n_inertial
    start = np.array(theta_nominal[ni:], dtype=float)
    for row, column in enumerate(base.independent):
        if column >= ni and np.count_nonzero(base.K[row]) == 1:
            start[column - ni] = beta[row]
    values = {g: layout.joint_values(np.r_[theta_nominal[:ni], start], g) for g in layout.groups}
    for group in ("viscous", "coulomb", "stribeck", "armature"):
        if group in values:
            values[group] = np.maximum(values[group], 0.0)
    if "asymmetry" in values:
        values["asymmetry"] = np.clip(values["asymmetry"], -values["coulomb"], values["coulomb"])
    for group in layout.groups:
        sl = layout.group_slice(group)
        start[sl.start - ni : sl.stop - ni] = values[group][list(layout.joints(group))]
    return start


def _joint_coordinates(layout):
    """The per-joint columns' solver coordinates: ``theta_joint = T x`` and lower bounds on x.

    Friction coefficients and armature are >= 0. On a joint with an asymmetry column the solver
    works on the forward and backward Coulomb levels ``c+ = coulomb + asymmetry`` and
    ``c- = coulomb - asymmetry`` (both >= 0: ``|asymmetry| <= coulomb``) in the places of the
    Coulomb and asymmetry columns.
    """
    ni = layout.n_inertial
    m = layout.size - ni
    T = np.eye(m)
    lower = np.full(m, -np.inf)
    for group in ("viscous", "coulomb", "asymmetry", "stribeck", "armature"):
        if group in layout.groups:
            sl = layout.group_slice(group)
            lower[sl.start - ni : sl.stop - ni] = 0.0
    if "asymmetry" in layout.groups:
        coulomb = dict(zip(layout.joints("coulomb"), range(m)[_shift(layout, "coulomb")]))
        for k, ia in zip(layout.joints("asymmetry"), range(m)[_shift(layout, "asymmetry")]):
            ic = coulomb[k]
            T[ic, ic], T[ic, ia] = 0.5, 0.5
            T[ia, ic], T[ia, ia] = 0.5, -0.5
    return T, lower


def _shift(layout, group):
    sl = layout.group_slice(group)
    return slice(sl.start - layout.n_inertial, sl.stop - layout.n_inertial)


__all__ = [
    "IdentificationError",
    "IdentificationResult",
    "LeastSquaresFit",
    "apply_parameters",
    "correlation_time",
    "identify",
    "measured_rows",
    "stacked_regressor",
    "weighted_least_squares",
]
