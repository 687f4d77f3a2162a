"""Where the joints of a recording stand still: the arm at rest over a window of samples
(:func:`at_rest`), a joint that a whole recording does not move (:func:`does_not_move`), both by
one rule: positions that spread no more than their noise plus their resolution."""

import numpy as np
from scipy.ndimage import maximum_filter1d, minimum_filter1d

#: the arm is at rest where no joint's position spans more than this many times its noise (plus
#: its resolution) over the filter window: Gaussian noise spans ~6 sigma over 300 samples and
#: exceeds 12 practically never
REST_NOISE_SPAN = 12.0
#: a joint moves where its measured velocity reaches this [rad/s or m/s] (well above a robot's
#: velocity noise of a few mrad/s)
MOVING_VELOCITY = 0.05
#: :func:`rest_velocity` over the velocity noise at rest
REST_VELOCITY_MARGIN = 1.25
#: the share of a joint's velocities at rest its noise covers (a few glitches stay beyond it)
REST_NOISE_QUANTILE = 0.995
#: time at rest [s] from which the velocities there tell a driver's noise
MIN_REST_TIME = 1.0


def does_not_move(position):
    """Which joints a recording carries without moving them: their positions spread over the
    whole recording no more than :data:`REST_NOISE_SPAN` times their noise plus their
    resolution (the rule of :func:`at_rest`, over all the samples).

    Args:
        position: (N, n) recorded positions [rad or m], NaN where a sample lacks one.

    Returns:
        ndarray: (n,) bool; False for a joint with fewer than 4 positions (nothing to tell).
    """
    position = np.asarray(position, dtype=float)
    still = np.zeros(position.shape[1], bool)
    for k in range(position.shape[1]):
        x = position[:, k][np.isfinite(position[:, k])]
        if x.size < 4:
            continue
        x = x[:, None]
        still[k] = np.ptp(x) <= REST_NOISE_SPAN * _noise(x)[0] + position_resolution(x)[0]
    return still


def _noise(q):
    """(n,) each joint's position noise: the RMS of its third differences over ``sqrt(20)``
    (what white noise gives; a smooth motion adds next to nothing at a robot's sample rate)."""
    return np.sqrt(np.mean(np.diff(q, 3, axis=0) ** 2, axis=0) / 20.0)


def position_resolution(position):
    """The smallest nonzero step between successive positions per joint: an encoder's count
    when the positions are quantized.

    Args:
        position: (N, n) positions in time order [rad or m].

    Returns:
        ndarray: (n,) the smallest step [rad or m], 0 for a joint that never moves.
    """
    steps = np.abs(np.diff(position, axis=0))
    steps = np.where(steps > 0, steps, np.inf)
    smallest = steps.min(axis=0, initial=np.inf)
    return np.where(np.isfinite(smallest), smallest, 0.0)


def hold_means(q, still):
    """Each run of samples at rest gets its mean position, in place: the arm holds one pose
    there (the encoder noise would pass for small changes of pose).

    Args:
        q: (N, n) positions in time order [rad or m], changed in place.
        still: (N,) bool, the samples at rest (:func:`at_rest`).
    """
    edges = np.flatnonzero(np.diff(np.concatenate([[False], still, [False]]).astype(int)))
    for a, b in zip(edges[::2], edges[1::2]):
        q[a:b] = q[a:b].mean(axis=0)


def at_rest(q, window, resolution=None):
    """Where the arm is at rest: every joint's position, over the ``window`` samples around a
    sample, spans at most :data:`REST_NOISE_SPAN` times its noise plus its resolution.

    The noise of a joint is the RMS of its positions' third differences over ``sqrt(20)`` (what
    white noise gives; a smooth motion adds next to nothing at a robot's sample rate, and an
    encoder count toggling at rest counts in). A velocity signal is not looked at: a driver
    reports its ripple and noise whether the arm moves or not.

    Args:
        q: (N, n) positions of a uniformly sampled stretch [rad or m], N >= 4.
        window: the filter window [samples].
        resolution: (n,) smallest position step per joint [rad or m] (default: from ``q``).

    Returns:
        ndarray: (N,) bool, True where the arm is at rest.
    """
    q = np.asarray(q, dtype=float)
    if resolution is None:
        resolution = position_resolution(q)
    noise = _noise(q)
    span = maximum_filter1d(q, window, axis=0, mode="nearest") - minimum_filter1d(
        q, window, axis=0, mode="nearest"
    )
    return np.all(span <= REST_NOISE_SPAN * noise + resolution, axis=1)


def velocity_noise(velocity):
    """Each joint's velocity noise at rest: the :data:`REST_NOISE_QUANTILE` quantile of its
    ``|velocity|`` (a driver's glitch of a few samples does not count).

    Args:
        velocity: (N, n) velocities the driver reported while the arm stood still [rad/s or
            m/s], NaN where a sample lacks one.

    Returns:
        ndarray: (n,) the noise, NaN for a joint without a velocity.
    """
    speed = np.abs(np.asarray(velocity, dtype=float))
    noise = np.full(speed.shape[1], np.nan)
    for j in range(speed.shape[1]):
        finite = speed[:, j][np.isfinite(speed[:, j])]
        if finite.size:
            noise[j] = np.quantile(finite, REST_NOISE_QUANTILE)
    return noise


def rest_velocity(noise, seconds):
    """The velocity below which every joint must be for the arm to be at rest (the nodes'
    ``friction_rest_velocity``), from a driver's velocity noise at rest.

    Args:
        noise: (n,) each joint's :func:`velocity_noise` [rad/s or m/s] (NaN: not recorded), or
            None.
        seconds: how long the arm stood still [s].

    Returns:
        float or None: :data:`REST_VELOCITY_MARGIN` times the largest noise; None with less
        than :data:`MIN_REST_TIME` at rest, without a velocity, or when it reaches
        :data:`MOVING_VELOCITY` (velocities that large are motion, not noise).
    """
    if noise is None or seconds < MIN_REST_TIME or not np.isfinite(noise).any():
        return None
    largest = float(np.nanmax(noise))
    return REST_VELOCITY_MARGIN * largest if largest < MOVING_VELOCITY else None


__all__ = [
    "MIN_REST_TIME",
    "MOVING_VELOCITY",
    "REST_NOISE_QUANTILE",
    "REST_VELOCITY_MARGIN",
    "REST_NOISE_SPAN",
    "at_rest",
    "does_not_move",
    "hold_means",
    "position_resolution",
    "rest_velocity",
    "velocity_noise",
]
