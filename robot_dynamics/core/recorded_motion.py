"""How a recording's velocities relate to its positions.

- :func:`velocity_ratio`: per joint, the scale of the positions' rate of change in the recorded
  velocities (about 1 for a consistent recording; 1000 for a time column in milliseconds, 57 for
  velocities in deg/s).
- :func:`unfollowed_velocities`: joints whose position moves while their recorded velocities
  stay 0 (a driver without a velocity state interface fills the field with zeros) or do not
  follow the positions' rate of change.
- :func:`unwrap_positions`: positions of turning joints (:func:`periodic_joints`) made
  continuous where a driver wraps them by whole turns.

Both compare ``d position / d t`` over ``stride`` samples that carry a velocity (a driver may
publish velocities in some messages only; no gap inside) with the mean of their velocities, the
turning joints' positions unwrapped (:func:`unwrap_positions`: a driver may wrap them to
(-pi, pi]). Used by identify's readers
(:mod:`robot_dynamics.tools.identification_data`) and by ``estimate``.
"""

import numpy as np

#: samples a position difference spans when velocities are compared with it
VELOCITY_CHECK_STRIDE = 20
#: velocities / d position / dt outside [1 / VELOCITY_RATIO_LIMIT, VELOCITY_RATIO_LIMIT]: units
VELOCITY_RATIO_LIMIT = 2.0
#: a joint whose positions' rate of change has a smaller RMS [rad/s or m/s] hardly moves
MOVING_RATE = 0.01
#: recorded velocities with an RMS below this fraction of the rate of change's stay at 0
STUCK_SHARE = 0.1
#: recorded velocities correlated less than this with the rate of change do not follow it
MIN_CORRELATION = 0.5


def periodic_joints(model):
    """Which actuated joints turn (revolute or continuous: their positions may be wrapped by
    whole turns), model order.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.

    Returns:
        ndarray: (n,) bool, False for the prismatic joints.
    """
    tree = model.tree
    return ~tree.prismatic[[tree.body_of_joint[name] for name in model.joint_names]]


def unwrap_positions(position, periodic):
    """Positions of turning joints made continuous: a step of more than pi between two samples
    that carry a position is a wrap by a whole turn (a driver reporting angles in (-pi, pi]),
    taken out (:func:`numpy.unwrap`, period 2 pi); prismatic joints are left as they are.

    Args:
        position: (N, n) positions in time order [rad or m], NaN where none.
        periodic: (n,) bool, the joints that turn (:func:`periodic_joints`), or None for none.

    Returns:
        tuple: ``(positions (N, n) [rad or m], wraps (n,) int)``: the positions and the number
        of wraps taken out per joint.
    """
    position = np.array(position, dtype=float)
    wraps = np.zeros(position.shape[1], dtype=int)
    if periodic is None:
        return position, wraps
    for j in np.flatnonzero(periodic):
        rows = np.flatnonzero(np.isfinite(position[:, j]))
        x = position[rows, j]
        steps = np.diff(x)
        wraps[j] = int(np.count_nonzero(np.abs(steps) > np.pi))
        if wraps[j]:
            position[rows, j] = np.unwrap(x, period=2 * np.pi)
    return position, wraps


def _spans(t, position, velocity, stride, periodic):
    """Per joint, the rate of change and the mean recorded velocity over each span of
    ``stride`` samples carrying a velocity without a gap inside, in time order (the turning
    joints' positions unwrapped).

    Args:
        t: (N,) times [s] (any order).
        position: (N, n) positions [rad or m], NaN where none.
        velocity: (N, n) velocities [rad/s or m/s], NaN where none.
        stride: samples each difference spans.
        periodic: (n,) bool, the joints whose positions are unwrapped, or None.

    Returns:
        list: per joint ``(rate (m,), mean velocity (m,))`` [rad/s or m/s] over its usable
        spans, or None for a joint that hardly moves (less than 1e-3 in position) or has fewer
        than 10 spans.
    """
    order = np.argsort(t, kind="stable")
    t, velocity = np.asarray(t, dtype=float)[order], np.asarray(velocity, dtype=float)[order]
    position, _ = unwrap_positions(np.asarray(position, dtype=float)[order], periodic)
    out = []
    for j in range(position.shape[1]):
        rows = np.isfinite(position[:, j]) & np.isfinite(velocity[:, j])
        tj, q, v = t[rows], position[rows, j], velocity[rows, j]
        if len(q) <= stride + 10 or np.ptp(q) < 1e-3:
            out.append(None)  # a joint that hardly moves tells nothing
            continue
        dt = tj[stride:] - tj[:-stride]
        use = (dt > 0) & (dt < 3 * np.median(dt))  # no gap or burst of repeats inside
        if np.count_nonzero(use) < 10:
            out.append(None)
            continue
        cumulative = np.concatenate([[0.0], np.cumsum(v)])
        mean_velocity = (cumulative[stride + 1 :] - cumulative[1:-stride]) / stride
        rate = (q[stride:] - q[:-stride])[use] / dt[use]
        out.append((rate, mean_velocity[use]))
    return out


def velocity_ratio(t, position, velocity, stride=VELOCITY_CHECK_STRIDE, periodic=None):
    """How the recorded velocities compare with the positions' rate of change: per joint, the
    least-squares scale of ``d position / d t`` in the mean recorded velocity over the same
    samples (see the module docstring); about 1 for a consistent recording.

    Args:
        t: (N,) times [s] (any order).
        position: (N, n) positions [rad or m], NaN where none.
        velocity: (N, n) velocities [rad/s or m/s], NaN where none.
        stride: samples each difference spans.
        periodic: (n,) bool, the joints whose positions are unwrapped first
            (:func:`periodic_joints`), or None.

    Returns:
        ndarray: (n,) the scales; NaN for a joint that hardly moves, lacks values, or whose
        velocities and rate of change do not follow each other (noise, a ripple at rest).
    """
    ratios = np.full(np.shape(position)[1], np.nan)
    for j, pair in enumerate(_spans(t, position, velocity, stride, periodic)):
        if pair is None:
            continue
        r, v = pair
        rr, vv, rv = r @ r, v @ v, r @ v
        if rr > 0 and vv > 0 and rv**2 >= 0.5 * rr * vv:  # they follow each other: comparable
            ratios[j] = rv / rr
    return ratios


def unfollowed_velocities(t, position, velocity, stride=VELOCITY_CHECK_STRIDE, periodic=None):
    """The joints whose position moves (its rate of change at least :data:`MOVING_RATE` RMS)
    while their recorded velocities stay 0 (RMS below :data:`STUCK_SHARE` of the rate's) or do
    not follow the rate of change (correlated less than :data:`MIN_CORRELATION`).

    Args:
        t: (N,) times [s] (any order).
        position: (N, n) positions [rad or m], NaN where none.
        velocity: (N, n) velocities [rad/s or m/s], NaN where none.
        stride: samples each difference spans.
        periodic: (n,) bool, the joints whose positions are unwrapped first
            (:func:`periodic_joints`), or None.

    Returns:
        list: ``(j, velocity RMS, rate RMS, correlation)`` per such joint ``j`` (RMS in rad/s
        or m/s; correlation NaN for velocities that stay exactly 0).
    """
    found = []
    for j, pair in enumerate(_spans(t, position, velocity, stride, periodic)):
        if pair is None:
            continue
        r, v = pair
        rate_rms, velocity_rms = np.sqrt(np.mean(r * r)), np.sqrt(np.mean(v * v))
        if rate_rms < MOVING_RATE:
            continue
        correlation = np.mean(r * v) / (rate_rms * velocity_rms) if velocity_rms > 0 else np.nan
        if velocity_rms < STUCK_SHARE * rate_rms or not correlation >= MIN_CORRELATION:
            found.append((j, float(velocity_rms), float(rate_rms), float(correlation)))
    return found


def unfollowed_text(names, found):
    """What :func:`unfollowed_velocities` found, as the start of a warning: the joints, e.g.
    ``"wrist_1 (velocity RMS 0 vs the rate of change's 0.8)"``, and the likely cause.

    Args:
        names: joint names, model order.
        found: the entries of :func:`unfollowed_velocities`.

    Returns:
        str: the sentence, ending in the cause (a question).
    """
    parts = []
    for j, velocity_rms, rate_rms, correlation in found:
        follows = f", correlation {correlation:.2g}" if np.isfinite(correlation) else ""
        parts.append(
            f"{names[j]} (velocity RMS {velocity_rms:.3g} vs the rate of change's "
            f"{rate_rms:.3g}{follows})"
        )
    return (
        "the recorded velocities stay 0 or do not follow the positions' rate of change while "
        f"the joints move: {'; '.join(parts)} [rad/s or m/s]: a driver that fills the velocity "
        "field with zeros (no velocity state interface)?"
    )


__all__ = [
    "VELOCITY_CHECK_STRIDE",
    "VELOCITY_RATIO_LIMIT",
    "periodic_joints",
    "unwrap_positions",
    "unfollowed_text",
    "unfollowed_velocities",
    "velocity_ratio",
]
