"""Joint samples for identification, made ready for the regressor: NaN samples dropped and
counted, gaps split, each segment resampled onto a uniform grid, velocity (when the samples have
none) and acceleration differentiated and the efforts smoothed with one zero-phase
Savitzky-Golay filter (scipy), so that every signal sees the same (zero) delay.

Used by ``robot-dynamics identify`` (:mod:`robot_dynamics.tools.identification_data` reads bags
and CSV files into :class:`JointSamples`) and by the dynamics node's ``~/identify_payload``.
"""

from dataclasses import dataclass

import numpy as np
from scipy.signal import savgol_filter

from .identification import IdentificationError


class DataError(IdentificationError):
    """The recording cannot be used: missing file or topic, unknown joints, bad CSV."""


@dataclass(frozen=True, eq=False)
class JointSamples:
    """Merged raw samples, model joint order.

    Attributes:
        t: (N,) stamps [s].
        position: (N, n) positions [rad or m], NaN where a value is missing.
        velocity: (N, n) velocities [rad/s or m/s], NaN where missing; None when no message had
            one.
        effort: (N, n) efforts [N m or N], NaN where missing.
        extra_joints: joints in the recording that the model does not have (ignored).
    """

    t: np.ndarray
    position: np.ndarray
    velocity: object
    effort: np.ndarray
    extra_joints: tuple = ()


@dataclass(frozen=True, eq=False)
class JointData:
    """Identification data, model joint order, uniformly sampled per segment.

    Attributes:
        t: (N,) [s].
        q: (N, n) joint positions [rad or m].
        qd: (N, n) joint velocities [rad/s or m/s].
        qdd: (N, n) joint accelerations [rad/s^2 or m/s^2].
        tau: (N, n) joint torques [N m or N].
        dropped: raw samples dropped (NaN or missing fields).
        raw_samples: merged samples before dropping.
        velocity_source: "message" or "differentiated".
        extra_joints: joints in the recording that the model does not have (ignored).
        rate: sampling rate of the uniform grid [Hz].
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    dropped: int
    raw_samples: int
    velocity_source: str
    extra_joints: tuple
    rate: float

    def split(self, holdout):
        """Split off the end of the data for validation.

        Args:
            holdout: fraction of the samples held out, in [0, 1).

        Returns:
            tuple: ``(train, test)`` :class:`JointData`, the last ``holdout`` fraction in test.
        """
        n = len(self.t)
        k = int(round(n * (1.0 - holdout)))
        return self._take(slice(0, k)), self._take(slice(k, n))

    def _take(self, s):
        return JointData(
            self.t[s],
            self.q[s],
            self.qd[s],
            self.qdd[s],
            self.tau[s],
            0,
            len(self.t[s]),
            self.velocity_source,
            self.extra_joints,
            self.rate,
        )


def prepare(samples, filter_window=0.05, polyorder=3, rate=None, gap_factor=5.0):
    """Uniformly sampled :class:`JointData` of merged samples.

    Args:
        samples: :class:`JointSamples`.
        filter_window: Savitzky-Golay window [s] for the differentiation and the smoothing.
        polyorder: its polynomial order.
        rate: resampling rate [Hz] (default: from the median sample interval).
        gap_factor: a jump of more than this many sample intervals splits the data.

    Returns:
        JointData: the prepared data.

    Raises:
        DataError: too few usable samples, no time spread, or no stretch longer than the filter
            window.
    """
    t = samples.t
    fields = [samples.position, samples.effort] + (
        [samples.velocity] if samples.velocity is not None else []
    )
    ok = np.isfinite(t) & np.all([np.isfinite(f).all(axis=1) for f in fields], axis=0)
    dropped = int(np.count_nonzero(~ok))
    t = t[ok]
    q, tau = samples.position[ok], samples.effort[ok]
    v = samples.velocity[ok] if samples.velocity is not None else None
    if len(t) < 2:
        raise DataError(f"too few samples: {len(t)} usable ({dropped} dropped)")
    dt_med = float(np.median(np.diff(t)))
    if not dt_med > 0:
        raise DataError("the samples have no time spread (all stamps equal)")
    dt = 1.0 / rate if rate else dt_med
    window = max(polyorder + 2, int(round(filter_window / dt)) | 1)
    if window % 2 == 0:
        window += 1
    cuts = np.flatnonzero(np.diff(t) > gap_factor * dt_med) + 1
    out = {k: [] for k in ("t", "q", "qd", "qdd", "tau")}
    for seg in np.split(np.arange(len(t)), cuts):
        ts = t[seg]
        grid = np.arange(ts[0], ts[-1] + 0.5 * dt, dt)
        if len(grid) < window:
            dropped += len(seg)
            continue

        def resample(x):
            return np.column_stack([np.interp(grid, ts, x[seg, j]) for j in range(x.shape[1])])

        qs = resample(q)
        if v is not None:
            qds = savgol_filter(resample(v), window, polyorder, axis=0)
        else:
            qds = savgol_filter(qs, window, polyorder, deriv=1, delta=dt, axis=0)
        qdds = savgol_filter(qds, window, polyorder, deriv=1, delta=dt, axis=0)
        out["t"].append(grid)
        out["q"].append(qs)
        out["qd"].append(qds)
        out["qdd"].append(qdds)
        out["tau"].append(savgol_filter(resample(tau), window, polyorder, axis=0))
    if not out["t"]:
        raise DataError(
            f"too few samples: no stretch of data longer than the filter window ({window} samples)"
        )
    return JointData(
        t=np.concatenate(out["t"]),
        q=np.concatenate(out["q"]),
        qd=np.concatenate(out["qd"]),
        qdd=np.concatenate(out["qdd"]),
        tau=np.concatenate(out["tau"]),
        dropped=dropped,
        raw_samples=len(samples.t),
        velocity_source="message" if v is not None else "differentiated",
        extra_joints=samples.extra_joints,
        rate=1.0 / dt,
    )
