"""Base (identifiable) parameters by Gautier's numerical method.

Not every parameter of :mod:`~robot_dynamics.core.regressor` shows in the joint torques: some
never act (the mass of the first body of a vertical axis), others only in fixed linear
combinations (a link's mass moves into its parent's first moment and inertia). Stacking the
regressor over random states ``W = [Y(x_1); ...; Y(x_K)]`` and factoring it with a QR
decomposition with column pivoting ``W P = Q [R1 R2]`` splits the columns into ``r = rank(W)``
independent ones (first r pivots) and the rest, with ``W_d = W_b R1^-1 R2``, so

    tau = Y theta = Y_b beta,   beta = theta_b + R1^-1 R2 theta_d = K theta

with ``Y_b = Y[..., independent]`` the base regressor and ``beta`` (r,) the base parameters
(Gautier 1990; Pinocchio and FIGAROH do the same).
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .regressor import regressor

#: relative size of R's diagonal below which a column counts as dependent
RANK_TOLERANCE = 1e-8


@dataclass(frozen=True, eq=False)
class BaseParameters:
    """Base parameters of a :class:`~robot_dynamics.core.regressor.ParameterLayout`.

    Attributes:
        layout: the full parameter layout.
        independent: (r,) indices of the full columns kept as the base regressor.
        K: (r, p) with ``beta = K @ theta``.
        names: (r,) readable linear combination of each base parameter.
    """

    layout: object
    independent: np.ndarray
    K: np.ndarray
    names: tuple

    @property
    def count(self):
        """Number of base parameters r."""
        return len(self.independent)

    def base_regressor(self, Y):
        """Base regressor ``Y_b`` from a full regressor.

        Args:
            Y: (..., n, p) full regressor.

        Returns:
            ndarray: (..., n, r) the independent columns.
        """
        return Y[..., self.independent]

    def from_full(self, theta):
        """Base parameters ``beta = K theta`` from full parameters.

        Args:
            theta: (..., p) full parameters (layout units: kg, kg m, kg m^2, friction, ...).

        Returns:
            ndarray: (..., r) base parameters.
        """
        return np.asarray(theta, dtype=float) @ self.K.T

    def null_space(self, scale=None):
        """Orthonormal basis of the directions ``d`` of (scaled) parameter space the torques cannot
        see: ``K @ (scale * d) = 0``.

        Args:
            scale: (p,) per-parameter scale, or None for 1.

        Returns:
            ndarray: (p, p - r) basis.
        """
        Ks = self.K if scale is None else self.K * scale
        return scipy.linalg.null_space(Ks)


def random_states(model, count, rng):
    """Random joint states for the numerical base-parameter method.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        count: number of states.
        rng: a ``numpy.random.Generator``.

    Returns:
        tuple: ``(q, qd, qdd)``, each (count, n): q uniform within the position limits
        ([-pi, pi] for unlimited joints) [rad or m], qd and qdd standard normal.
    """
    lower, upper = model.position_limits
    lo = np.where(np.isfinite(lower), lower, -np.pi)
    hi = np.where(np.isfinite(upper), upper, np.pi)
    q = lo + (hi - lo) * rng.uniform(size=(count, model.n))
    return q, rng.normal(size=(count, model.n)), rng.normal(size=(count, model.n))


def base_parameters(
    model,
    layout,
    *,
    samples=None,
    seed=0,
    tolerance=RANK_TOLERANCE,
    effort_mask=None,
    held=None,
):
    """Find the base parameters of ``layout`` for ``model`` numerically.

    With ``effort_mask`` or ``held``, the base parameters of what such data can show: only the
    rows of the joints whose torque is measured, and the held joints at their positions, at
    rest (a held joint's body then merges into its parent's, a joint without a measured torque
    shows its own friction nowhere).

    Args:
        model: :class:`~robot_dynamics.core.model.RobotModel`.
        layout: :class:`~robot_dynamics.core.regressor.ParameterLayout` of the model.
        samples: number of random states stacked (default: enough for 4 rows per column).
        seed: seed of the random states (the result is the same for any generic states).
        tolerance: threshold on R's diagonal relative to its largest entry.
        effort_mask: (n,) bool, the joints whose torque is measured (default: all).
        held: (n,) positions [rad or m] of the joints held still, NaN for the moving ones
            (default: none held).

    Returns:
        :class:`BaseParameters`.
    """
    p = layout.size
    rows = np.ones(model.n, bool) if effort_mask is None else np.asarray(effort_mask, bool)
    if samples is None:
        samples = max(50, 4 * p // max(int(rows.sum()), 1) + 10)
    rng = np.random.default_rng(seed)
    q, qd, qdd = random_states(model, samples, rng)
    if set(layout.groups) & {"asymmetry", "stribeck"}:
        # these columns differ from the offset and Coulomb ones only near rest: spread the
        # speeds over three decades (0.003-3 rad/s) so that the states see them apart
        qd = qd * 10.0 ** rng.uniform(-2.5, 0.5, qd.shape)
    if held is not None:
        fixed = np.isfinite(np.asarray(held, dtype=float))
        q[:, fixed] = np.asarray(held, dtype=float)[fixed]
        qd[:, fixed] = 0.0
        qdd[:, fixed] = 0.0
    W = regressor(model, q, qd, qdd, layout)[:, rows].reshape(-1, p)
    # no column normalisation: a column that only acts through a numerically tiny lever (a
    # first axis tilted by a rounded pi in the URDF) must stay below the tolerance
    _, R, perm = scipy.linalg.qr(W, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    r = int(np.count_nonzero(diag > tolerance * diag[0])) if diag.size and diag[0] > 0 else 0
    independent, dependent = perm[:r], perm[r:]
    K = np.zeros((r, p))
    K[np.arange(r), independent] = 1.0
    K[:, dependent] = scipy.linalg.solve_triangular(R[:r, :r], R[:r, r:])
    K[np.abs(K) < 1e-10 * max(1.0, np.abs(K).max(initial=0.0))] = 0.0
    order = np.argsort(independent)  # keep the layout's order for readability
    independent, K = independent[order], K[order]
    names = tuple(_combination(K[i], independent[i], layout.names) for i in range(r))
    return BaseParameters(layout=layout, independent=independent, K=K, names=names)


def _combination(row, main, names):
    terms = [names[main]]
    for j in np.flatnonzero(row):
        if j != main:
            terms.append(f"{row[j]:+.4g} {names[j]}")
    return " ".join(terms)


__all__ = ["BaseParameters", "base_parameters", "random_states", "RANK_TOLERANCE"]
