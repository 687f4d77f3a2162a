"""Stretches of a recording that the arm's own dynamics cannot explain: something touched the arm
or pulled on it (a push, a cable, a collision) while it was recorded for identification.

A least-squares fit takes such torques for the arm's dynamics and spreads them over the whole
recording (23 % of pushed time leaves residuals of several N m everywhere), so the residual of
that fit does not show where they are. :func:`disturbed_stretches` fits the linear model
``tau = Y theta`` on random subsets of one-second chunks instead (``TRIALS`` draws of
``SUBSET_SHARE`` of them, seeded), keeps the fit with the smallest median residual (a subset
without the disturbance explains the rest of the recording best), fits again on all but the
runs where that fit's residual exceeds ``DISTURBED_SIGMA`` robust standard deviations
(``1.4826 MAD``) on some joint for ``DISTURBED_DURATION`` or longer, and returns those runs of
the last fit. A joint is judged where it moves (``|qd| >=
MOVING_VELOCITY``): standing still, its friction holds anything up to the breakaway level and the
noise of the measured velocity decides the sign of the model's.
"""

import numpy as np

from .rest import MOVING_VELOCITY
from .runs import true_runs

#: duration [s] of the chunks the subsets are drawn from
CHUNK_SECONDS = 1.0
#: share of the chunks in a subset, and the subsets drawn
SUBSET_SHARE = 0.3
TRIALS = 30
SEED = 0
#: a residual beyond this many robust standard deviations of its joint ...
DISTURBED_SIGMA = 8.0
#: ... on some joint for this long or longer [s] is no part of the arm's own dynamics
DISTURBED_DURATION = 0.5


def disturbed_stretches(t, Y, tau, qd):
    """The stretches of a recording the linear model cannot explain (see the module docstring).

    Args:
        t: (N,) sample times [s], increasing.
        Y: (N, m, p) regressor of the ``m`` joints with a measured torque.
        tau: (N, m) their measured torques [N m or N].
        qd: (N, m) their velocities [rad/s or m/s].

    Returns:
        list: ``(first, last, peak)`` per stretch, in time order: sample indices (inclusive)
        and (m,) each joint's largest residual there in robust standard deviations.
    """
    N, m, p = Y.shape
    chunk = np.floor((t - t[0]) / CHUNK_SECONDS).astype(np.int64)
    ids = np.unique(chunk)
    size = max(int(np.ceil(SUBSET_SHARE * len(ids))), 1)
    if N * m < 4 * p or len(ids) < 3:
        return []
    norms = np.linalg.norm(Y.reshape(N * m, p), axis=0)
    norms[norms == 0.0] = 1.0
    spread = np.maximum(np.median(np.abs(tau - np.median(tau, axis=0)), axis=0), 1e-12)

    def residual_of_fit(rows):
        """tau - Y theta, theta fitted (columns normalised) on the samples ``rows``."""
        A = Y[rows].reshape(-1, p) / norms
        theta = np.linalg.lstsq(A, tau[rows].reshape(-1), rcond=None)[0] / norms
        return tau - Y @ theta

    rng = np.random.default_rng(SEED)
    best, best_score = None, np.inf
    for _ in range(TRIALS):
        residual = residual_of_fit(np.isin(chunk, rng.choice(ids, size, replace=False)))
        score = float(np.sum(np.median(np.abs(residual), axis=0) / spread))
        if score < best_score:
            best, best_score = residual, score
    runs = outlying_stretches(t, best, qd)
    if runs:  # fit again on all but the disturbed stretches: no state left to extrapolate to
        keep = np.ones(N, bool)
        for first, last, _ in runs:
            keep[first : last + 1] = False
        runs = outlying_stretches(t, residual_of_fit(keep), qd, keep)
    return runs


def outlying_stretches(t, residual, qd, judged_by=None, rest_band=None):
    """The stretches where a residual stands out: beyond ``DISTURBED_SIGMA`` robust standard
    deviations (``1.4826 MAD`` about the median, per joint) at every sample for
    ``DISTURBED_DURATION`` or longer, on a moving joint (``|qd| >= MOVING_VELOCITY``), or on a
    joint at rest by more than ``rest_band`` beyond them (what its friction may hold there: the
    breakaway friction, whose share a noisy velocity's sign decides in the model's torque).

    Args:
        t: (N,) sample times [s], increasing.
        residual: (N, m) residual torques [N m or N]; NaN where there is none (never outlying).
        qd: (N, m) the joints' velocities [rad/s or m/s].
        judged_by: (N,) bool, the samples the median and MAD come from (default all); they
            must have finite residuals.
        rest_band: (m,) the torque each joint's friction may hold at rest [N m or N], or None;
            a joint without one (None, or 0: its friction unknown) is not judged at rest.

    Returns:
        list: ``(first, last, peak)`` per stretch, in time order: sample indices (inclusive)
        and (m,) each joint's largest residual there in robust standard deviations.
    """
    scale_rows = residual if judged_by is None else residual[judged_by]
    centre = np.median(scale_rows, axis=0)
    sigma = np.maximum(1.4826 * np.median(np.abs(scale_rows - centre), axis=0), 1e-12)
    deviation = np.abs(residual - centre)
    z = deviation / sigma
    resting = np.abs(qd) < MOVING_VELOCITY
    if rest_band is None:
        z[resting] = 0.0
    else:
        band = np.asarray(rest_band, dtype=float)
        held = np.where(band > 0.0, np.maximum(deviation - band, 0.0) / sigma, 0.0)
        z = np.where(resting, held, z)
    return [
        (int(a), int(b - 1), z[a:b].max(axis=0))
        for a, b in zip(*true_runs(z.max(axis=1) > DISTURBED_SIGMA))
        if t[b - 1] - t[a] >= DISTURBED_DURATION
    ]


__all__ = [
    "DISTURBED_DURATION",
    "DISTURBED_SIGMA",
    "disturbed_stretches",
    "outlying_stretches",
]
