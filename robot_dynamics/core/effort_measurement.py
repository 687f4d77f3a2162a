"""Whether a joint's efforts over a recording or a stream are a measurement: a driver that
measures none (a gripper's) reports no effort, 0 or one constant value in every sample. Used by
identification (such joints are left out of the fit), ``robot-dynamics estimate`` and the dynamics
node's diagnostics (their external torque is the model's torque, not an estimate)."""

import numpy as np


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
