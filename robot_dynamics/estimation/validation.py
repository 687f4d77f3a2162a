"""Validation of one joint_states message's arrays, once, at the pipeline's boundary."""

import math

import numpy as np

from ..core.validation import within, within_each
from .config import ABSURD_POSITION


class Refused(Exception):
    """A message that is refused as a whole (args: reason, field or None)."""


class MessageValidator:
    """Checks a message's arrays (model order) against shapes and plausibility bounds.

    Args:
        joint_names: the model's joints, in order.
        resolved: the :class:`~robot_dynamics.estimation.config.ResolvedConfig` (bounds,
            effort scale and offset).
    """

    def __init__(self, joint_names, resolved):
        self.joint_names = tuple(joint_names)
        self.n = len(self.joint_names)
        self._resolved = resolved
        self._all = np.ones(self.n, dtype=bool)

    @property
    def all_joints(self):
        """The (n,) all-True mask that stands for "every joint" (identity-compared)."""
        return self._all

    def checked(self, present, position, velocity, effort):
        """The message's mask and arrays, and whether every value is finite and plausible.

        Args:
            present: (n,) bool mask of the joints the message carries, or None (all).
            position: (n,) positions [rad or m], or None.
            velocity: (n,) velocities [rad/s or m/s], or None.
            effort: (n,) efforts as received, or None.

        Returns:
            tuple: ``(present, (position, velocity, effort), clean)``: float arrays (or None);
            ``clean`` is True when every value is finite and within its bound (no per-joint
            merge needed).

        Raises:
            Refused: a bad shape, a non-numeric field, a non-finite or absurd position, or a
                velocity or effort beyond its plausibility bound (reason naming the joint, and
                the field).
        """
        if present is None:
            present = self._all
        else:
            present = np.asarray(present, dtype=bool)
            if present.shape != (self.n,):
                raise Refused(f"present has shape {present.shape}, expected ({self.n},)")
        arrays = (
            self._field(position, "position"),
            self._field(velocity, "velocity"),
            self._field(effort, "effort"),
        )
        position, velocity, effort = arrays
        r = self._resolved
        # fast path: one comparison per field when every value is finite and within bounds
        # (NaN compares False and takes the detailed path)
        if (
            (position is None or within(position, ABSURD_POSITION))
            and (velocity is None or within_each(velocity, r.velocity_bound))
            and (effort is None or within_each(effort, r.effort_raw_bound))
        ):
            return present, arrays, True
        names = self.joint_names
        if position is not None:
            bad = present & ~(np.abs(position) <= ABSURD_POSITION)
            if bad.any():
                j = int(np.argmax(bad))
                what = "not finite" if not math.isfinite(position[j]) else "beyond 1e6"
                raise Refused(
                    f"position of joint {names[j]!r} is {what} ({position[j]:g})", "position"
                )
        if velocity is not None:
            bad = present & np.isfinite(velocity) & (np.abs(velocity) > r.velocity_bound)
            if bad.any():
                j = int(np.argmax(bad))
                raise Refused(
                    f"velocity of joint {names[j]!r} is {velocity[j]:.6g}, beyond the plausible "
                    f"{r.velocity_bound[j]:.6g} (velocity_limit_factor x URDF limit)",
                    "velocity",
                )
        if effort is not None:
            with np.errstate(over="ignore", invalid="ignore"):
                tau = r.effort_scale * effort + r.effort_offset
            bad = present & np.isfinite(effort) & ~(np.abs(tau) <= r.effort_bound)
            if bad.any():
                j = int(np.argmax(bad))
                raise Refused(
                    f"effort of joint {names[j]!r} is {effort[j]:.6g} (scaled {tau[j]:.6g}), "
                    f"beyond the plausible {r.effort_bound[j]:.6g} "
                    f"(effort_limit_factor x URDF limit)",
                    "effort",
                )
        return present, arrays, False

    def unmeasured(self, present, position, velocity, effort):
        """Why a checked message's state is not measured whole: the joints whose position it
        carries without a finite velocity or effort (an empty field, NaN; their older values do
        not belong to the new positions), or None.

        Args:
            present: (n,) bool mask of the joints the message carries.
            position: (n,) positions [rad or m], or None.
            velocity: (n,) velocities [rad/s or m/s], or None.
            effort: (n,) efforts, or None.

        Returns:
            str or None: the reason, naming the joints and fields.
        """
        if position is None:
            return None
        missing = []
        for name, values in (("velocity", velocity), ("effort", effort)):
            lacking = present if values is None else present & ~np.isfinite(values)
            if lacking.any():
                joints = [self.joint_names[j] for j in np.flatnonzero(lacking)]
                missing.append(f"{name} for joints {joints}")
        if not missing:
            return None
        return f"no {' and no '.join(missing)} with their positions: this state is not estimated"

    def _field(self, values, name):
        """(n,) float array of a field, or None; raises _Refused on a bad shape."""
        if values is None:
            return None
        try:
            arr = np.asarray(values, dtype=float)
        except (TypeError, ValueError) as error:
            raise Refused(f"{name} is not numeric: {error}", name) from None
        if arr.shape != (self.n,):
            raise Refused(
                f"{name} has shape {arr.shape}, expected ({self.n},) in model order "
                f"{list(self.joint_names)}",
                name,
            )
        return arr


__all__ = ["MessageValidator", "Refused"]
