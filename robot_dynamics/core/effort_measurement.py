"""Whether a joint's efforts over a recording or a stream are a measurement: a driver that
measures none (a gripper's) reports no effort, 0 or one constant value in every sample. Used by
identification (such joints are left out of the fit), ``robot-dynamics estimate`` and the dynamics
node's diagnostics (their external torque is the model's torque, not an estimate).

And whether the efforts are in the model's unit: :func:`model_torque_ratios` and
:func:`effort_scale_finding` tell a driver's scale (motor currents, twice the torque) from a
URDF's mass errors, for identify (against the nominal model) and estimate (against the model
it estimates with)."""

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


def model_torque_ratios(tau, nominal, qd, effort_mask, velocity_threshold):
    """Per joint, the least-squares scale of a model's torques in the measured ones, viscous and
    Coulomb friction and an offset fitted alongside (about 1 for torques in N m or N, a nominal
    URDF's inertials a few tens of percent off; the torque per unit of effort's inverse for
    motor currents).

    Args:
        tau: (N, n) measured torques (the recording's efforts after ``--effort-scale`` and
            ``--effort-offset``).
        nominal: (N, n) the model's torques at the same samples.
        qd: (N, n) joint velocities [rad/s or m/s].
        effort_mask: (n,) bool, the joints with a measured torque.
        velocity_threshold: ``v_eps`` of the Coulomb friction's smooth sign [rad/s or m/s].

    Returns:
        ndarray: (n,) the scales; NaN where no torque is measured or the nominal torques explain
        less than :data:`SCALE_MIN_R2` of the measured ones' variation beside friction and offset
        (too little to tell a scale).
    """
    N, n = tau.shape
    ratios = np.full(n, np.nan)
    for k in np.flatnonzero(effort_mask):
        v = qd[:, k]
        Q, _ = np.linalg.qr(np.column_stack([v, smooth_sign(v, velocity_threshold), np.ones(N)]))
        nom = nominal[:, k] - Q @ (Q.T @ nominal[:, k])
        meas = tau[:, k] - Q @ (Q.T @ tau[:, k])
        nn, mm, nm = nom @ nom, meas @ meas, nom @ meas
        if nn > 0 and mm > 0 and nm**2 >= SCALE_MIN_R2 * nn * mm:
            ratios[k] = nm / nn
    return ratios


def effort_scale_finding(ratios):
    """Whether measured torques are in another unit than a model's, from
    :func:`model_torque_ratios`: one scale beyond ``1 / COMMON_SCALE_FACTOR`` to
    ``COMMON_SCALE_FACTOR`` shared by the judged joints (three or more, and at least
    :data:`COMMON_SCALE_SHARE` of them within ``COMMON_SCALE_SPREAD`` of their median: a wrist
    joint whose small torques friction hides may miss it): a driver's unit, not a URDF's masses,
    whose errors differ joint by joint. Else the joints beyond ``1 / SCALE_FACTOR`` to
    ``SCALE_FACTOR``.

    Args:
        ratios: (n,) the ratios, NaN where not judged.

    Returns:
        tuple: ``(common, bad)``: the shared scale (None when there is none beyond its band) and
        the indices of the joints out of the per-joint band (empty when ``common`` is given).
    """
    ratios = np.asarray(ratios, dtype=float)
    judged = ratios[np.isfinite(ratios)]
    common = float(np.median(judged)) if judged.size >= 3 else 1.0
    with np.errstate(invalid="ignore", divide="ignore"):  # scales of both signs: not one
        near = np.abs(np.log(judged / common)) <= np.log(COMMON_SCALE_SPREAD)
    shared = np.count_nonzero(near) >= max(3, COMMON_SCALE_SHARE * judged.size)
    if not 1.0 / COMMON_SCALE_FACTOR <= common <= COMMON_SCALE_FACTOR and shared:
        return common, []
    out = np.isfinite(ratios) & ~((1.0 / SCALE_FACTOR <= ratios) & (ratios <= SCALE_FACTOR))
    return None, [int(k) for k in np.flatnonzero(out)]
