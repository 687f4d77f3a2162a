"""Positions that move farther than the joints can between two messages.

A second publisher of the same joints (a ``joint_state_publisher`` left in a launch file beside
the driver, publishing zeros at 10 Hz; a simulator and a driver both up) interleaves another arm's
state with the measured one: every one of its messages would turn the effort command to the torques
of another configuration for a cycle, a kick to the robot each time. Its positions are where the
arm cannot be: farther from the joint's latest position than ``velocity_bound`` (the URDF velocity
limit times ``velocity_limit_factor``) allows over the time between them. Such a message is refused,
naming the joint. A state that stays where it jumped to, :data:`JUMP_RUN` messages in a row that
agree with each other (a driver restarted and homed again, a simulation reset, the arm's stream
taking over from a stale first message), is the arm's from then on: taken, and the estimation
restarts.
"""

import numpy as np

from robot_dynamics.core.recorded_motion import periodic_joints

from .joint_state import NEVER
from .validation import Refused

#: Shortest interval the allowed motion is computed over [ns]: a logging PC's stamps jitter
#: and repeat, so two messages of one driver may be stamped much closer than they were measured.
MIN_JUMP_INTERVAL_NS = 10_000_000

#: Messages in a row, each agreeing with the one before, after which positions that jumped are
#: taken as the arm's.
JUMP_RUN = 3


class PositionJumps:
    """Refuses positions the joints cannot have reached since their latest ones.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        velocity_bound: (n,) fastest plausible |velocity| per joint [rad/s or m/s].
    """

    def __init__(self, model, velocity_bound):
        self.joint_names = tuple(model.joint_names)
        self._bound = np.asarray(velocity_bound, dtype=float) * 1e-9  # per ns
        self._least = self._bound * MIN_JUMP_INTERVAL_NS  # allowed at any interval
        self._periodic = periodic_joints(model)
        self._run = 0  # messages in a row whose positions jumped, each agreeing with the last
        self._candidate = None  # (stamp [ns], (n,) positions, (n,) bool present) of the last

    def check(self, t_ns, present, position, state):
        """Whether a validated message's positions are where the arm can be.

        Args:
            t_ns: its stamp [ns].
            present: (n,) bool, the joints it carries.
            position: (n,) positions [rad or m], model order, or None.
            state: the :class:`~robot_dynamics.estimation.joint_state.MergedJointState` with the
                latest positions.

        Returns:
            str or None: the reason to restart the estimation when positions that jumped are
            taken as the arm's (:data:`JUMP_RUN` in a row), else None.

        Raises:
            Refused: a joint's position jumped (naming the joint, how far, in how long, what its
                velocity bound allows).
        """
        if position is None:
            return None
        if (np.abs(position - state.position) <= self._least).all():  # the common case
            self._run, self._candidate = 0, None
            return None
        known = present & (state.position_stamp != NEVER)
        jump = self._jump(t_ns, known, position, state.position, state.position_stamp)
        if jump is None:
            self._run, self._candidate = 0, None
            return None
        if self._candidate is not None:
            stamp, previous, carried = self._candidate
            both = known & carried
            agrees = self._jump(t_ns, both, position, previous, np.full(len(both), stamp)) is None
            self._run = self._run + 1 if agrees else 1
        else:
            self._run = 1
        if self._run >= JUMP_RUN:
            self._run, self._candidate = 0, None
            return f"positions jumped and stayed ({jump})"
        self._candidate = (t_ns, position.copy(), present.copy())
        raise Refused(
            f"position {jump}: is another node publishing the same joints (a "
            "joint_state_publisher beside the driver)? a jump that stays is taken after "
            f"{JUMP_RUN} messages",
            "position",
        )

    def _jump(self, t_ns, joints, position, previous, stamps):
        """The description of the largest jump beyond the bound among ``joints``, or None."""
        if not joints.any():
            return None
        step = np.where(joints, position - previous, 0.0)
        step = np.where(self._periodic, (step + np.pi) % (2 * np.pi) - np.pi, step)  # turns
        elapsed = t_ns - np.where(joints, stamps, t_ns)
        allowed = self._bound * np.maximum(elapsed, MIN_JUMP_INTERVAL_NS)
        excess = np.where(joints, np.abs(step) - allowed, -np.inf)
        j = int(np.argmax(excess))
        if not excess[j] > 0.0:
            return None
        unit = "rad" if self._periodic[j] else "m"
        return (
            f"of joint {self.joint_names[j]!r} jumped by {step[j]:.4g} {unit} in "
            f"{elapsed[j] * 1e-6:.3g} ms, beyond the {allowed[j]:.3g} {unit} its velocity bound "
            "allows (velocity_limit_factor x URDF limit)"
        )
