"""Whether a joint's efforts over a recording or a stream are a measurement: a driver that
measures none (a gripper's) reports no effort, 0 or one constant value in every sample. Used by
identification (such joints are left out of the fit), ``robot-dynamics estimate`` and the dynamics
node's diagnostics (their external torque is the model's torque, not an estimate).

And whether the efforts are in the model's unit and sign: :func:`model_torque_ratios` and
:func:`effort_scale_finding` tell a driver's scale (motor currents, twice the torque) and a
joint of the other sign (wired backwards, a driver's convention) from a URDF's mass errors, for
identify (against the nominal model) and estimate (against the model it estimates with)."""

from dataclasses import dataclass
from typing import List, NamedTuple, Optional

import numpy as np

from .friction import smooth_sign


#: An effort [N m or N] that spans no more than this varies by the arithmetic of a simulation
#: (an arm held still, to 1e-6), not as a measurement does: it tells no joint's effort from none.
MEASURED_SPAN = 1e-4

NO_EFFORT = "no effort in the recording"
"""What :func:`effort_reason` says of a joint whose effort is never given."""


def _exactly_zero(sample):
    """What :func:`effort_reason` says of a joint whose effort is 0 in every sample."""
    return f"effort exactly 0 in every {sample}"


def effort_reason(effort, sample="sample"):
    """Why one joint's efforts over a recording are no measurement, or None.

    Args:
        effort: (k,) the joint's efforts, NaN where a sample has none.
        sample: the word for one sample in the text ("message" for a replay).

    Returns:
        str or None: :data:`NO_EFFORT`, "effort exactly 0 in every sample" or "effort constant
        (x) in every sample"; None when the effort varies.
    """
    finite = effort[np.isfinite(effort)]
    if finite.size == 0:
        return NO_EFFORT
    if np.all(finite == 0.0):
        return _exactly_zero(sample)
    if np.all(finite == finite[0]):
        return f"effort constant ({finite[0]:g}) in every {sample}"
    return None


def constant_efforts(names, effort, sample="sample"):
    """The joints whose effort is no measurement: one constant value in every sample while
    another joint's effort varies by more than :data:`MEASURED_SPAN` (a driver that measures
    none, such as a gripper's reporting 0), or exactly 0 for every joint. When no joint's effort
    varies more than that and they are not all 0 (a simulated arm at rest, held to 1e-6),
    nothing tells a measurement from none: no joint is named.

    Args:
        names: the joints, in the columns' order.
        effort: (k, n) efforts, NaN where a sample has none.
        sample: the word for one sample in the reasons ("message" for a node or a replay).

    Returns:
        tuple: ``(joint, reason)`` pairs in column order, the reason :func:`effort_reason`'s;
        joints with no effort at all are not named (the estimation pauses for them).
    """
    effort = np.asarray(effort, float)
    reasons = [effort_reason(column, sample) for column in effort.T]
    named = [(name, why) for name, why in zip(names, reasons) if why not in (None, NO_EFFORT)]
    zero = _exactly_zero(sample)
    # a joint with no effort at all (all NaN) spans -inf
    span = np.nanmax(effort, axis=0, initial=-np.inf) - np.nanmin(effort, axis=0, initial=np.inf)
    if np.any(span > MEASURED_SPAN) or (named and all(why == zero for _, why in named)):
        return tuple(named)
    return ()


def nothing_measured(constant, n_joints):
    """True when :func:`constant_efforts` named every joint: no effort is measured at all (it
    names all joints only when every effort is exactly 0).

    Args:
        constant: ``(joint, reason)`` pairs of :func:`constant_efforts`.
        n_joints: the model's joints.

    Returns:
        bool: no joint's effort is a measurement.
    """
    return n_joints > 0 and len(constant) == n_joints


def constant_efforts_text(constant, n_joints):
    """What to say of the joints :func:`constant_efforts` names, and what to do about them.

    Args:
        constant: ``(joint, reason)`` pairs.
        n_joints: the model's joints (when every one is named, no effort is measured at all).

    Returns:
        str: one sentence.
    """
    constant = list(constant)
    if nothing_measured(constant, n_joints):
        return (
            f"no joint's effort is a measurement ({constant[0][1]}, for every joint): the "
            "driver reports no effort, or the arm is not powered; the external torques are the "
            "model's torques, not an estimate"
        )
    joints = "; ".join(f"{name}: {why}" for name, why in constant)
    return (
        f"joints whose effort is no measurement ({joints}): their external torque is the "
        "model's torque, not an estimate; if their driver measures no effort (a gripper's), "
        "load them as fixed with the locked_joints parameter"
    )


#: measured/nominal torque scale outside [1/SCALE_FACTOR, SCALE_FACTOR]: efforts in another unit
SCALE_FACTOR = 3.0
#: share of a joint's measured torque variation the nominal torques must explain to be compared
SCALE_MIN_R2 = 0.5
#: one scale shared by the joints beyond [1/COMMON_SCALE_FACTOR, COMMON_SCALE_FACTOR]: a driver's
#: unit or gear ratio, not the URDF's masses (whose errors differ joint by joint)
COMMON_SCALE_FACTOR = 1.6
#: how far from their median the joints' scales may be to count as one scale (a factor)
COMMON_SCALE_SPREAD = 1.5
#: share of the judged joints that must be that near for one scale
COMMON_SCALE_SHARE = 0.75
#: share of a joint's measured torque variation a negative scale of the model's torques must
#: explain (below :data:`SCALE_MIN_R2`) for the joint's sign to be judged
SIGN_MIN_R2 = 0.25
#: largest magnitude of that negative scale, a factor of the joints' typical scale: a model that
#: misses most of a joint's torque (a wrist's small torques under a COM a few cm off) correlates
#: with it by chance, with a large scale of either sign
SIGN_MAX_SCALE = 1.25


class TorqueScales(NamedTuple):
    """Per joint, the least-squares scale of a model's torques in the measured ones
    (:func:`model_torque_ratios`).

    Attributes:
        ratio: (n,) the scale [measured unit per model unit; about 1 for torques in N m or N];
            NaN where no torque is measured or either torque has no variation beside friction
            and offset.
        share: (n,) the share of the measured torques' variation beside friction and offset
            the scale explains (0 to 1; the squared correlation); NaN where no torque is
            measured, 0 where either torque has no such variation.
    """

    ratio: np.ndarray
    share: np.ndarray


@dataclass(frozen=True)
class EffortScaleFinding:
    """What :func:`effort_scale_finding` found of the measured torques' unit and sign.

    Attributes:
        ratios: (n,) the scale of each judged joint (its size, its sign or both), NaN where not
            judged.
        common: the scale the joints judged in size share beyond ``1 / COMMON_SCALE_FACTOR`` to
            ``COMMON_SCALE_FACTOR`` (its magnitude), or None.
        bad: indices of the joints judged in size whose scale's magnitude is outside
            ``1 / SCALE_FACTOR`` to ``SCALE_FACTOR`` (empty when ``common`` is given).
        other_sign: indices of the joints whose measured torque is the model's with the other
            sign (a negative scale).
        unjudged: indices of the joints with a measured torque judged neither in size nor in
            sign: the model's torques explain too little of theirs.
    """

    ratios: np.ndarray
    common: Optional[float]
    bad: List[int]
    other_sign: List[int]
    unjudged: List[int]

    @property
    def found(self):
        """bool: something to warn about (a common scale, a joint out of size or of the
        other sign)."""
        return self.common is not None or bool(self.bad) or bool(self.other_sign)


def model_torque_ratios(tau, nominal, qd, effort_mask, velocity_threshold):
    """Per joint, the least-squares scale of a model's torques in the measured ones, viscous and
    Coulomb friction and an offset fitted alongside (about 1 for torques in N m or N, a nominal
    URDF's inertials a few tens of percent off; the torque per unit of effort's inverse for
    motor currents; negative for an effort of the other sign), and the share of the measured
    torques' variation it explains.

    Args:
        tau: (N, n) measured torques (the recording's efforts after ``--effort-scale`` and
            ``--effort-offset``).
        nominal: (N, n) the model's torques at the same samples.
        qd: (N, n) joint velocities [rad/s or m/s].
        effort_mask: (n,) bool, the joints with a measured torque.
        velocity_threshold: ``v_eps`` of the Coulomb friction's smooth sign [rad/s or m/s].

    Returns:
        TorqueScales: ``ratio`` and ``share``, each (n,).
    """
    N, n = tau.shape
    ratio = np.full(n, np.nan)
    share = np.full(n, np.nan)
    for k in np.flatnonzero(effort_mask):
        v = qd[:, k]
        Q, _ = np.linalg.qr(np.column_stack([v, smooth_sign(v, velocity_threshold), np.ones(N)]))
        nom = nominal[:, k] - Q @ (Q.T @ nominal[:, k])
        meas = tau[:, k] - Q @ (Q.T @ tau[:, k])
        nn, mm, nm = nom @ nom, meas @ meas, nom @ meas
        share[k] = 0.0
        if nn > 0 and mm > 0:
            ratio[k] = nm / nn
            share[k] = nm**2 / (nn * mm)
    return TorqueScales(ratio, share)


def effort_scale_finding(scales):
    """Whether measured torques are in another unit than a model's, or of the other sign, from
    :func:`model_torque_ratios`.

    Size: judged where the model's torques explain at least :data:`SCALE_MIN_R2` of the measured
    ones' variation. One scale beyond ``1 / COMMON_SCALE_FACTOR`` to ``COMMON_SCALE_FACTOR``
    shared by the joints judged (three or more, and at least :data:`COMMON_SCALE_SHARE` of them
    within ``COMMON_SCALE_SPREAD`` of their median, in magnitude: a wrist joint whose small
    torques friction hides may miss it) is a driver's unit, not a URDF's masses, whose errors
    differ joint by joint; else the joints beyond ``1 / SCALE_FACTOR`` to ``SCALE_FACTOR`` in
    magnitude.

    Sign: a negative scale judged in size, or one that explains at least :data:`SIGN_MIN_R2` of
    the variation with a magnitude of at most :data:`SIGN_MAX_SCALE` times the typical scale
    (the median magnitude of the joints judged in size; 1 when there are none): the model's
    torques are then about as large as the measured ones, and what the model misses (a
    payload, masses tens of percent off), correlated with them by chance, cannot turn the scale
    negative. Where the model misses most of a joint's torque, a chance correlation gives a
    scale of either sign, large beside the typical one: that joint is not judged.

    Args:
        scales: the :class:`TorqueScales`.

    Returns:
        EffortScaleFinding: the finding.
    """
    ratio = np.asarray(scales.ratio, dtype=float)
    share = np.asarray(scales.share, dtype=float)
    measured = np.isfinite(share)
    with np.errstate(invalid="ignore"):
        sized = measured & np.isfinite(ratio) & (share >= SCALE_MIN_R2)
    magnitude = np.abs(ratio[sized])
    typical = float(np.median(magnitude)) if magnitude.size else 1.0
    with np.errstate(invalid="ignore"):
        weak = (share >= SIGN_MIN_R2) & (np.abs(ratio) <= SIGN_MAX_SCALE * typical)
        other_sign = measured & (ratio < 0) & (sized | weak)
    judged = sized | other_sign
    common = typical if magnitude.size >= 3 else 1.0
    near = np.abs(np.log(magnitude / common)) <= np.log(COMMON_SCALE_SPREAD)
    shared = np.count_nonzero(near) >= max(3, COMMON_SCALE_SHARE * magnitude.size)
    bad = []
    if shared and not 1.0 / COMMON_SCALE_FACTOR <= common <= COMMON_SCALE_FACTOR:
        common = float(common)
    else:
        common = None
        with np.errstate(invalid="ignore"):
            within = (1.0 / SCALE_FACTOR <= np.abs(ratio)) & (np.abs(ratio) <= SCALE_FACTOR)
        bad = [int(k) for k in np.flatnonzero(sized & ~within)]
    return EffortScaleFinding(
        ratios=np.where(judged, ratio, np.nan),
        common=common,
        bad=bad,
        other_sign=[int(k) for k in np.flatnonzero(other_sign)],
        unjudged=[int(k) for k in np.flatnonzero(measured & ~judged)],
    )


def suggested_effort_scale(finding, given=None):
    """The effort scale per joint that gives torques of the model's size and sign, from a
    finding: the given scale divided by the common scale, or by a joint's own ratio where it is
    out of size, negated where the sign is the other.

    Args:
        finding: the :class:`EffortScaleFinding`.
        given: (n,) the effort scale the measured torques were computed with [torque per unit
            of effort], or None (1 for every joint).

    Returns:
        ndarray: (n,) the scale [torque per unit of effort]; joints judged neither in size nor
        in sign keep the common scale's (or their given) value.
    """
    n = finding.ratios.size
    scale = np.ones(n) if given is None else np.array(given, dtype=float)
    if finding.common is not None:
        scale = scale / finding.common
    for k in finding.bad:
        scale[k] /= finding.ratios[k]
    flip = [k for k in finding.other_sign if k not in finding.bad]
    scale[flip] = -scale[flip]
    return scale


def other_sign_text(names, finding):
    """The joints of the other sign, for a warning.

    Args:
        names: joint names, model order.
        finding: the :class:`EffortScaleFinding`.

    Returns:
        str: ``name xratio`` entries, comma-separated.
    """
    return ", ".join(f"{names[k]} x{finding.ratios[k]:.3g}" for k in finding.other_sign)


def unjudged_text(names, finding, model):
    """What a warning says of the joints judged neither in size nor in sign.

    Args:
        names: joint names, model order.
        finding: the :class:`EffortScaleFinding` (``unjudged`` not empty).
        model: which model's torques, as the text names it ("the nominal model's").

    Returns:
        str: one clause.
    """
    joints = ", ".join(names[k] for k in finding.unjudged)
    return (
        f"not judged: {joints} ({model} torques explain too little of their measured ones): "
        "this covers neither their scale nor their sign; check those apart"
    )
