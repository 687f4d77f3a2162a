"""The Savitzky-Golay window chosen from the data: the candidate whose fit predicts held-out
torques best.

The window trades noise against distortion: too short, and a velocity signal's ripple
(11-22 Hz on a real arm) reaches the accelerations and the predicted torques; too long, and the
motion itself is flattened. For each candidate window the data are smoothed with it
(:func:`~robot_dynamics.core.joint_data.smooth`), a fit is made on the first part of the
training data, and the torques of the rest (the last ``validation`` fraction of the training
data; the ``holdout`` part of the recording is not looked at) are predicted from that
candidate's positions, velocities and accelerations. They are compared with the torques as
measured (resampled, not smoothed: every candidate is judged against the same signal), joint by
joint; the score is the geometric mean of the joints' RMS errors (independent of each joint's
units and scale) and the lowest score wins.

The fit is the one the data are for: the robot's base parameters by weighted least squares (the
first step of ``identify``; :func:`base_parameter_fit`) or a payload on a known robot
(:func:`robot_dynamics.core.payload.payload_fit`).
"""

import math
from dataclasses import dataclass, replace

import numpy as np

from .base_parameters import base_parameters
from .identification import (
    IdentificationError,
    single_threaded_blas,
    stacked_regressor,
    weighted_least_squares,
)
from .joint_data import DataError, smooth

#: candidate windows [s]
CANDIDATE_WINDOWS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3)


@dataclass(frozen=True)
class WindowChoice:
    """The window chosen and what every candidate scored.

    Attributes:
        window: the chosen window [s] (its samples / the grid rate).
        candidates: the windows tried [s] (as used: a whole odd number of samples, at least
            ``polyorder + 2``; candidates that round to the same length are tried once).
        scores: per candidate, the geometric mean over the measured joints of the validation
            torque RMS, NaN when it could not be evaluated.
        rms: per candidate, (n,) validation torque RMS per joint [N m or N] (NaN for the joints
            without a measured torque).
        notes: per candidate, why it was not evaluated ("" when it was).
        validation_samples: samples the chosen window was judged on.
        validation: the fraction of the training data they are (its end).
    """

    window: float
    candidates: tuple
    scores: tuple
    rms: tuple
    notes: tuple
    validation_samples: int
    validation: float


def base_parameter_fit(model, layout, data):
    """The base parameters of ``layout`` fitted by weighted least squares, as a window's fit.

    Args:
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel`.
        layout: :class:`~robot_dynamics.core.regressor.ParameterLayout` of the fit.
        data: the :class:`~robot_dynamics.core.joint_data.CleanData` (its effort mask and held
            joints).

    Returns:
        callable: ``fit(q, qd, qdd, tau) -> predict``, ``predict(q, qd, qdd) -> (N, n)``
        torques [N m or N] (NaN for the joints without a measured torque); ``fit`` raises
        IdentificationError when the data do not allow it.
    """
    with single_threaded_blas():
        base = base_parameters(model, layout, effort_mask=data.effort_mask, held=data.held)
    rows = np.flatnonzero(data.effort_mask)

    def fit(q, qd, qdd, tau):
        if len(q) * len(rows) < 2 * base.count:
            raise IdentificationError(f"too few samples ({len(q)} to fit)")
        Y = stacked_regressor(model, q, qd, qdd, layout, columns=base.independent)[:, rows]
        beta = weighted_least_squares(Y, tau[:, rows], base, max_condition=math.inf).beta

        def predict(q, qd, qdd):
            out = np.full((len(q), model.n), np.nan)
            Yv = stacked_regressor(model, q, qd, qdd, layout, columns=base.independent)
            out[:, rows] = Yv[:, rows] @ beta
            return out

        return predict

    return fit


def _thin(data, max_samples):
    step = max(1, math.ceil(len(data.t) / max_samples))
    return data.t[::step], data.q[::step], data.qd[::step], data.qdd[::step], data.tau[::step]


def _score(fit, data, smoothed, holdout, validation, max_samples):
    train, _ = smoothed.split(holdout)
    part, val = train.split(validation)
    if len(val.t) < 2:
        return None, f"too few samples ({len(val.t)} to validate)", 0
    _, q, qd, qdd, tau = _thin(part, max_samples)
    try:
        predict = fit(q, qd, qdd, tau)
    except IdentificationError as error:
        return None, str(error), 0
    vt, vq, vqd, vqdd, _ = _thin(val, max_samples)
    # the torques as measured at the validation times (resampled, not smoothed)
    rows = np.flatnonzero(data.effort_mask)
    measured = np.column_stack([np.interp(vt, data.t, data.tau[:, k]) for k in rows])
    rms = np.full(len(data.effort_mask), np.nan)
    rms[rows] = np.sqrt(np.mean((predict(vq, vqd, vqdd)[:, rows] - measured) ** 2, axis=0))
    return rms, "", len(vt)


def choose_filter_window(
    data,
    fit,
    *,
    candidates=CANDIDATE_WINDOWS,
    holdout=0.2,
    validation=0.25,
    max_samples=4000,
    **smooth_options,
):
    """Choose the Savitzky-Golay window (see the module docstring).

    Args:
        data: :class:`~robot_dynamics.core.joint_data.CleanData`.
        fit: ``fit(q, qd, qdd, tau) -> predict`` with ``predict(q, qd, qdd) -> (N, n)``
            torques, raising IdentificationError when the data do not allow it
            (:func:`base_parameter_fit`, :func:`robot_dynamics.core.payload.payload_fit`).
        candidates: windows to try [s].
        holdout: the last fraction of the recording, kept out of the choice (it validates the
            final fit).
        validation: the last fraction of the rest on which the candidates are judged.
        max_samples: at most this many samples (evenly spaced) fitted and validated per
            candidate.
        **smooth_options: keyword arguments of :func:`~robot_dynamics.core.joint_data.smooth`
            (``polyorder``, ``rate``, ``gap_factor``, ``samples_per_window``, ``rest``).

    Returns:
        WindowChoice: the choice.

    Raises:
        DataError: no candidate could be evaluated (each candidate's reason named).
    """
    n = len(data.effort_mask)
    with single_threaded_blas():
        tried, scores, rms_all, notes, sizes, val_samples = [], [], [], [], set(), []
        for window in sorted(candidates):
            try:
                smoothed = smooth(data, window, **smooth_options)
            except DataError as error:
                rms, note, used, window_used = None, str(error), 0, float(window)
            else:
                if smoothed.report.window_samples in sizes:
                    continue
                sizes.add(smoothed.report.window_samples)
                window_used = smoothed.report.filter_window
                rms, note, used = _score(fit, data, smoothed, holdout, validation, max_samples)
            tried.append(window_used)
            notes.append(note)
            val_samples.append(used)
            if rms is None:
                scores.append(math.nan)
                rms_all.append(np.full(n, np.nan))
            else:
                measured = rms[data.effort_mask]
                scores.append(float(np.exp(np.mean(np.log(np.maximum(measured, 1e-12))))))
                rms_all.append(rms)
    finite = [k for k, s in enumerate(scores) if np.isfinite(s)]
    if not finite:
        raise DataError(
            "no filter window could be evaluated: "
            + "; ".join(f"{w:g} s: {note}" for w, note in zip(tried, notes))
        )
    best = min(finite, key=lambda k: scores[k])
    return WindowChoice(
        window=tried[best],
        candidates=tuple(tried),
        scores=tuple(scores),
        rms=tuple(rms_all),
        notes=tuple(notes),
        validation_samples=val_samples[best],
        validation=float(validation),
    )


def smooth_with_window(data, fit, filter_window=None, *, holdout=0.2, **smooth_options):
    """``data`` smoothed with ``filter_window``, or with the window ``fit`` chooses.

    Args:
        data: :class:`~robot_dynamics.core.joint_data.CleanData`.
        fit: see :func:`choose_filter_window` (not called when ``filter_window`` is given).
        filter_window: Savitzky-Golay window [s], or None to choose it.
        holdout: see :func:`choose_filter_window`.
        **smooth_options: keyword arguments of :func:`~robot_dynamics.core.joint_data.smooth`.

    Returns:
        JointData: the data, ``report.window_choice`` set when the window was chosen.

    Raises:
        DataError: see :func:`choose_filter_window` and
            :func:`~robot_dynamics.core.joint_data.smooth`.
    """
    if filter_window is not None:
        return smooth(data, filter_window, **smooth_options)
    choice = choose_filter_window(data, fit, holdout=holdout, **smooth_options)
    smoothed = smooth(data, choice.window, **smooth_options)
    return replace(smoothed, report=replace(smoothed.report, window_choice=choice))


__all__ = [
    "CANDIDATE_WINDOWS",
    "WindowChoice",
    "base_parameter_fit",
    "choose_filter_window",
    "smooth_with_window",
]
