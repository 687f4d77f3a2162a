"""Excitation trajectories for identification: a finite Fourier series per joint (Swevers et al.
1997) optimised for the condition number of the base regressor.

    q_j(t) = c_j + s_j * sum_l [ a_jl / (w l) sin(w l t) - b_jl / (w l) cos(w l t) ]

with ``w = 2 pi / period``. The series is periodic, and its first harmonic is chosen so that
the velocity and acceleration are zero at t = 0 (``sum_l a_jl = 0``, ``sum_l l b_jl = 0``): the
arm starts from rest. The per-joint scale ``s_j`` and centre ``c_j`` are set so that each joint
uses its position, velocity and acceleration range up to a margin, which keeps every candidate
feasible; scipy's L-BFGS-B then minimises the log condition number of the stacked base
regressor over the coefficients, from the best of a few random starts.
"""

from dataclasses import dataclass

import numpy as np
import scipy.optimize

from .base_parameters import base_parameters
from .errors import InvalidInputError
from .identification import single_threaded_blas
from .regressor import ParameterLayout, regressor


@dataclass(frozen=True, eq=False)
class FourierTrajectory:
    """A finite Fourier series per joint.

    Attributes:
        center: (n,) [rad or m]; scale: (n,); a, b: (n, L) coefficients [rad/s]; period [s].
    """

    center: np.ndarray
    scale: np.ndarray
    a: np.ndarray
    b: np.ndarray
    period: float

    def evaluate(self, t):
        """Joint positions, velocities and accelerations of the trajectory.

        Args:
            t: (T,) times [s].

        Returns:
            tuple: ``(q [rad or m], qd, qdd)``, each (T, n).
        """
        t = np.asarray(t, dtype=float)[:, None, None]
        L = self.a.shape[1]
        w = 2 * np.pi / self.period
        wl = w * np.arange(1, L + 1)  # (L,)
        s, c = np.sin(wl * t), np.cos(wl * t)  # (T, 1, L)
        q = (self.a / wl * s - self.b / wl * c).sum(axis=-1)
        qd = (self.a * c + self.b * s).sum(axis=-1)
        qdd = (-self.a * wl * s + self.b * wl * c).sum(axis=-1)
        k = self.scale
        return self.center + k * q, k * qd, k * qdd


def _coefficients(x, n, L):
    """(a, b) (n, L) from free coefficients (n, 2 (L - 1)): the first harmonic makes the
    velocity and acceleration zero at t = 0."""
    x = x.reshape(n, 2, L - 1)
    a = np.empty((n, L))
    b = np.empty((n, L))
    a[:, 1:], b[:, 1:] = x[:, 0], x[:, 1]
    a[:, 0] = -x[:, 0].sum(axis=1)
    b[:, 0] = -(np.arange(2, L + 1) * x[:, 1]).sum(axis=1)
    return a, b


def _fit_to_limits(a, b, period, t, lower, upper, vmax, amax, margin):
    """FourierTrajectory of unit-scale coefficients scaled and centred per joint into the
    limits (range shrunk by ``margin`` on each side, speeds by ``1 - margin``)."""
    n = a.shape[0]
    unit = FourierTrajectory(np.zeros(n), np.ones(n), a, b, period)
    q, qd, qdd = unit.evaluate(t)
    hi, lo = q.max(axis=0), q.min(axis=0)
    half = np.maximum((hi - lo) / 2, 1e-12)
    room = (upper - lower) / 2 * (1 - 2 * margin)
    s = np.minimum.reduce(
        [
            room / half,
            (1 - margin) * vmax / np.maximum(np.abs(qd).max(axis=0), 1e-12),
            (1 - margin) * amax / np.maximum(np.abs(qdd).max(axis=0), 1e-12),
        ]
    )
    center = (upper + lower) / 2 - s * (hi + lo) / 2
    return FourierTrajectory(center, s, a, b, period)


def optimize_excitation(
    model,
    *,
    period=10.0,
    harmonics=5,
    max_acceleration=3.0,
    margin=0.1,
    samples=120,
    starts=4,
    maxiter=40,
    layout=None,
    seed=0,
):
    """A Fourier excitation trajectory minimising the base regressor's condition number.

    Args:
        model: :class:`~robot_dynamics.core.model.RobotModel`.
        period: period of the series [s] (base frequency 1 / period).
        harmonics: number of harmonics L (>= 2).
        max_acceleration: joint acceleration limit [rad/s^2 or m/s^2], scalar or (n,) (URDF
            has none).
        margin: fraction of each position range kept free on each side, and of the velocity
            and acceleration limits.
        samples: sample times per period for the condition number and the limits.
        starts: random starting points (the best is optimised).
        maxiter: L-BFGS-B iterations.
        layout: regressor layout (default: what ``identify`` fits by default: inertial, viscous
            and Coulomb friction and a torque offset per joint, so that an offset cannot pass
            for gravity).
        seed: random seed.

    Returns:
        ``(trajectory, condition_number)``: :class:`FourierTrajectory` and the condition number
        of the stacked base regressor at the sample times (columns normalised).

    Raises:
        InvalidInputError: bad period, harmonics, margin or limits.
    """
    n = model.n
    if not (period > 0 and harmonics >= 2 and 0 <= margin < 0.5 and samples >= 10):
        raise InvalidInputError(
            f"excitation: need period > 0, harmonics >= 2, 0 <= margin < 0.5, samples >= 10 "
            f"(got {period}, {harmonics}, {margin}, {samples})"
        )
    lower, upper = model.position_limits
    lower = np.where(np.isfinite(lower), lower, -np.pi)
    upper = np.where(np.isfinite(upper), upper, np.pi)
    vmax = np.where(np.isfinite(model.velocity_limits), model.velocity_limits, 2.0)
    amax = np.broadcast_to(np.asarray(max_acceleration, dtype=float), (n,))
    stuck = [name for name, lo, hi in zip(model.joint_names, lower, upper) if not hi > lo]
    if stuck:
        raise InvalidInputError(
            f"excitation: joints {stuck} have no position range (<limit> lower = upper): they "
            "cannot be excited"
        )
    if np.any(amax <= 0):
        raise InvalidInputError(f"excitation: max_acceleration must be > 0, got {amax.tolist()}")
    layout = ParameterLayout.for_model(model, offset=True) if layout is None else layout
    base = base_parameters(model, layout)
    t = np.linspace(0.0, period, samples, endpoint=False)
    L = harmonics

    def trajectory(x):
        a, b = _coefficients(x, n, L)
        return _fit_to_limits(a, b, period, t, lower, upper, vmax, amax, margin)

    def cost(x):
        q, qd, qdd = trajectory(x).evaluate(t)
        W = base.base_regressor(regressor(model, q, qd, qdd, layout)).reshape(-1, base.count)
        W = W / np.maximum(np.linalg.norm(W, axis=0), 1e-12)
        s = np.linalg.svd(W, compute_uv=False)
        return float(np.log(s[0] / max(s[-1], 1e-300)))

    rng = np.random.default_rng(seed)
    candidates = [rng.normal(size=n * 2 * (L - 1)) for _ in range(max(starts, 1))]
    with single_threaded_blas():
        x0 = min(candidates, key=cost)
        sol = scipy.optimize.minimize(
            cost, x0, method="L-BFGS-B", options={"maxiter": maxiter, "eps": 1e-6}
        )
    x = sol.x if sol.fun <= cost(x0) else x0
    # the limits hold between the optimiser's samples too: refit on a fine grid
    a, b = _coefficients(x, n, L)
    fine = np.linspace(0.0, period, 50 * samples, endpoint=False)
    final = _fit_to_limits(a, b, period, fine, lower, upper, vmax, amax, margin)
    q, qd, qdd = final.evaluate(t)
    W = base.base_regressor(regressor(model, q, qd, qdd, layout)).reshape(-1, base.count)
    W = W / np.maximum(np.linalg.norm(W, axis=0), 1e-12)
    s = np.linalg.svd(W, compute_uv=False)
    return final, float(s[0] / max(s[-1], 1e-300))


__all__ = ["FourierTrajectory", "optimize_excitation"]
