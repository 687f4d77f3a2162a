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
   allows.
"""

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize

from .base_parameters import base_parameters
from .errors import RobotDynamicsError
from .friction import FRICTION_TERMS
from .regressor import (
    PARAMETERS_PER_BODY,
    ParameterLayout,
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
    """One BLAS thread for loops of small dense problems (the fit's 100 x 100 SVDs): threads only
    add synchronisation there, and on a busy machine they cost 10-20x. Uses threadpoolctl when
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


# ------------------------------------------------------------------ pseudo-inertia
def pseudo_inertia(theta):
    """Pseudo-inertia ``[[Sigma, h], [h^T, m]]``, ``Sigma = tr(I)/2 1 - I``, of body parameters
    (inertia about the body origin).

    Args:
        theta: (..., 10) body parameters (:mod:`robot_dynamics.core.regressor` order).

    Returns:
        ndarray: (..., 4, 4) pseudo-inertia [kg, kg m, kg m^2].
    """
    theta = np.asarray(theta, dtype=float)
    inertia = parameters_to_inertia(theta)[..., 3:, 3:]
    trace = np.trace(inertia, axis1=-2, axis2=-1)[..., None, None]
    J = np.zeros(theta.shape[:-1] + (4, 4))
    J[..., :3, :3] = 0.5 * trace * np.eye(3) - inertia
    J[..., :3, 3] = theta[..., 1:4]
    J[..., 3, :3] = theta[..., 1:4]
    J[..., 3, 3] = theta[..., 0]
    return J


def parameters_from_pseudo_inertia(J):
    """Inverse of :func:`pseudo_inertia`.

    Args:
        J: (..., 4, 4) pseudo-inertia.

    Returns:
        ndarray: (..., 10) body parameters.
    """
    J = np.asarray(J, dtype=float)
    S = J[..., :3, :3]
    inertia = np.trace(S, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - S
    out = np.empty(J.shape[:-2] + (10,))
    out[..., 0] = J[..., 3, 3]
    out[..., 1:4] = J[..., :3, 3]
    out[..., 4:] = inertia[..., [0, 0, 1, 0, 1, 2], [0, 1, 1, 2, 2, 2]]
    return out


def is_physically_consistent(theta, tolerance=1e-9):
    """Mass >= 0 and rotational inertia PSD with the triangle inequality, per body
    (pseudo-inertia eigenvalues >= -tolerance * its scale).

    Args:
        theta: (..., 10) body parameters.
        tolerance: relative tolerance on the pseudo-inertia's eigenvalues.

    Returns:
        ndarray: (...,) bool.
    """
    J = pseudo_inertia(theta)
    eig = np.linalg.eigvalsh(J)
    scale = np.maximum(np.abs(eig).max(axis=-1), 1e-12)
    return eig.min(axis=-1) >= -tolerance * scale


def log_cholesky_to_parameters(x):
    """Body parameters of log-Cholesky coordinates
    ``[alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3]``:
    ``U = e^alpha [[e^d1, s12, s13, t1], [0, e^d2, s23, t2], [0, 0, e^d3, t3], [0, 0, 0, 1]]``,
    ``J = U U^T`` (always a physically consistent body with positive mass).

    Args:
        x: (..., 10) log-Cholesky coordinates.

    Returns:
        ndarray: (..., 10) body parameters.
    """
    U = _log_cholesky_factor(np.asarray(x, dtype=float))
    return parameters_from_pseudo_inertia(U @ U.swapaxes(-1, -2))


def parameters_to_log_cholesky(theta, floor=1e-9):
    """Log-Cholesky coordinates of body parameters; a pseudo-inertia that is not positive definite
    is first lifted by ``floor`` times its scale (plus its most negative eigenvalue).

    Args:
        theta: (..., 10) body parameters.
        floor: relative lift of a pseudo-inertia that is not positive definite.

    Returns:
        ndarray: (..., 10) log-Cholesky coordinates.
    """
    J = pseudo_inertia(theta)
    eig = np.linalg.eigvalsh(J)
    scale = np.maximum(np.abs(eig).max(axis=-1), 1e-12)
    lift = np.maximum(floor * scale - eig.min(axis=-1), 0.0)
    J = J + lift[..., None, None] * np.eye(4)
    flip = np.eye(4)[::-1]
    L = np.linalg.cholesky(flip @ J @ flip)  # J = (P L P)(P L P)^T, P L P upper triangular
    U = flip @ L @ flip
    a = U[..., 3, 3]
    U = U / a[..., None, None]
    x = np.empty(theta.shape[:-1] + (10,))
    x[..., 0] = np.log(a)
    x[..., 1] = np.log(U[..., 0, 0])
    x[..., 2] = np.log(U[..., 1, 1])
    x[..., 3] = np.log(U[..., 2, 2])
    x[..., 4] = U[..., 0, 1]
    x[..., 5] = U[..., 1, 2]
    x[..., 6] = U[..., 0, 2]
    x[..., 7:10] = U[..., :3, 3]
    return x


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
def stacked_regressor(model, q, qd, qdd, layout, columns=None, chunk=CHUNK):
    """Regressor of many samples, built ``chunk`` at a time.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        q: (N, n) joint positions [rad or m].
        qd: (N, n) joint velocities [rad/s or m/s].
        qdd: (N, n) joint accelerations [rad/s^2 or m/s^2].
        layout: the :class:`~robot_dynamics.core.regressor.ParameterLayout`.
        columns: indices of the columns to keep, or None for all p.
        chunk: samples per batch.

    Returns:
        ndarray: (N, n, p) regressor (or (N, n, len(columns))).
    """
    q, qd, qdd = (np.asarray(x, dtype=float) for x in (q, qd, qdd))
    parts = []
    for start in range(0, q.shape[0], chunk):
        s = slice(start, start + chunk)
        Y = regressor(model, q[s], qd[s], qdd[s], layout)
        parts.append(Y if columns is None else Y[..., columns])
    width = layout.size if columns is None else len(columns)
    return np.concatenate(parts) if parts else np.zeros((0, model.n, width))


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
        beta_std: (r,) their standard errors.
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

    Returns:
        :class:`IdentificationResult` (``joint_sigma`` NaN for joints outside ``effort_mask``).

    Raises:
        IdentificationError: fewer samples than base parameters, or data that do not excite
            some base parameters (named).
        InvalidInputError: wrong shapes or non-finite values.
    """
    layout = ParameterLayout.for_model(model) if layout is None else layout
    layout.check(model)
    rows = np.ones(model.n, bool) if effort_mask is None else np.asarray(effort_mask, bool)
    if rows.shape != (model.n,) or not rows.any():
        raise IdentificationError(
            f"effort_mask must be {model.n} booleans with at least one measured joint"
        )
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
    Yb = stacked_regressor(model, q, qd, qdd, layout, columns=base.independent)[:, rows]
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


def _log_cholesky_factor(x):
    """(..., 4, 4) upper-triangular U of log-Cholesky coordinates (..., 10)."""
    U = np.zeros(x.shape[:-1] + (4, 4))
    U[..., 0, 0] = np.exp(x[..., 1])
    U[..., 1, 1] = np.exp(x[..., 2])
    U[..., 2, 2] = np.exp(x[..., 3])
    U[..., 0, 1] = x[..., 4]
    U[..., 1, 2] = x[..., 5]
    U[..., 0, 2] = x[..., 6]
    U[..., :3, 3] = x[..., 7:10]
    U[..., 3, 3] = 1.0
    return U * np.exp(x[..., 0])[..., None, None]


# entries of U moved by the coordinates s12, s23, s13, t1, t2, t3 (x[4:10])
_OFF_DIAGONAL = ((0, 1), (1, 2), (0, 2), (0, 3), (1, 3), (2, 3))


def _log_cholesky_jacobian(x):
    """d theta / d x (..., 10, 10) of :func:`log_cholesky_to_parameters`."""
    U = _log_cholesky_factor(x)
    dU = np.zeros(x.shape[:-1] + (10, 4, 4))
    dU[..., 0, :, :] = U  # alpha scales everything
    for k in range(3):  # d_k scales the diagonal entry
        dU[..., 1 + k, k, k] = U[..., k, k]
    ea = np.exp(x[..., 0])
    for k, (i, j) in enumerate(_OFF_DIAGONAL):
        dU[..., 4 + k, i, j] = ea
    Ut = U[..., None, :, :].swapaxes(-1, -2)
    dJ = dU @ Ut
    dJ = dJ + dJ.swapaxes(-1, -2)
    return parameters_from_pseudo_inertia(dJ).swapaxes(-1, -2)  # (..., theta, x)


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
            np.linalg.solve(T, theta_nominal[ni:]),
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
        D = _log_cholesky_jacobian(clipped_bodies(x))
        J = M.copy()
        for b in range(nb):
            s = slice(10 * b, 10 * b + 10)
            J[:, s] = M[:, s] @ D[b]
        J[:, ni:] = M[:, ni:] @ T
        return J

    with single_threaded_blas():
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
    return theta_of(x)


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
    "identify",
    "is_physically_consistent",
    "log_cholesky_to_parameters",
    "parameters_from_pseudo_inertia",
    "parameters_to_log_cholesky",
    "pseudo_inertia",
    "stacked_regressor",
    "weighted_least_squares",
]
