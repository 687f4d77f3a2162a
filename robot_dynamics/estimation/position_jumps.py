"""Positions that move farther than the joints can between two messages.

A second publisher of the same joints (a ``joint_state_publisher`` left in a launch file beside
the driver, publishing zeros at 10 Hz; a simulator and a driver both up) interleaves another arm's
state with the measured one: every one of its messages would turn the effort command to the torques
of another configuration for a cycle, a kick to the robot each time. Its positions are where the
arm cannot be: farther from the joint's latest position than the joint moves, at
``velocity_limit_factor`` times its URDF velocity limit (:data:`FALLBACK_SPEED` without one), in
the time between them. That time counts as at least :data:`MIN_JUMP_INTERVAL_NS` or two of the
typical intervals of the message's stream (the messages carrying the same joints, measured or
not; a running mean), since stamps jitter; beyond :data:`MAX_CREDIT_NS` it counts as that least
time (a publisher on another clock gains nothing from its stamps). Such a message is refused,
naming the joint.

A message without a velocity or an effort (a ``joint_state_publisher``'s) is no measurement: it
never moves a joint a measured message set by more than the shortest time allows, and a measured
message takes over at once from positions such a message set (the estimation restarts). A state that
stays where it jumped to, :data:`JUMP_RUN` messages of one stream in a row that agree with each
other (a driver restarted and homed again, a simulation reset), is the arm's from then on: taken,
and the estimation restarts.
"""

import numpy as np

from robot_dynamics.core.recorded_motion import periodic_joints

from .joint_state import NEVER
from .validation import Refused

#: Shortest interval the allowed motion is computed over [ns]: a logging PC's stamps jitter
#: and repeat, so two messages of one driver may be stamped much closer than they were measured.
MIN_JUMP_INTERVAL_NS = 10_000_000

#: Longest interval [ns] that allows motion: beyond it the stamps are of another clock (a
#: publisher on wall time beside a driver on simulated or controller time), and the shortest
#: interval applies.
MAX_CREDIT_NS = 10_000_000_000

#: Messages of one stream in a row, each agreeing with the one before, after which positions
#: that jumped are taken as the arm's.
JUMP_RUN = 3

#: Messages a stream's typical interval is the running mean of (steps of at most
#: :data:`MAX_CREDIT_NS` count).
INTERVAL_MEAN = 8

#: Streams (sets of joints, measured or not) followed at once; more start over.
MAX_STREAMS = 64

#: Speed [rad/s, m/s] of a turning and a sliding joint without a URDF velocity limit (0 or none),
#: before ``velocity_limit_factor``.
FALLBACK_SPEED = (np.pi, 1.0)


class _Stream:
    """The messages that carry one set of joints, measured or not: their latest accepted stamp
    and typical interval [ns], and the run of jumped messages."""

    __slots__ = ("last_ns", "interval_ns", "run", "candidate")

    def __init__(self):
        self.last_ns = self.interval_ns = None
        self.run = 0
        self.candidate = None  # (stamp [ns], (n,) positions, (n,) bool carried) of the last jump

    def tick(self, t_ns):
        """Take a message's stamp into the typical interval: a running mean of the steps
        forward of at most :data:`MAX_CREDIT_NS` (a stamp of another clock is none)."""
        last, self.last_ns = self.last_ns, t_ns
        if last is not None and 0 < t_ns - last <= MAX_CREDIT_NS:
            step, old = t_ns - last, self.interval_ns
            self.interval_ns = step if old is None else old + (step - old) // INTERVAL_MEAN


class PositionJumps:
    """Refuses positions the joints cannot have reached since their latest ones.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        factor: ``velocity_limit_factor``: the fastest plausible speed in URDF limits.
    """

    def __init__(self, model, factor):
        self.joint_names = tuple(model.joint_names)
        self._periodic = periodic_joints(model)
        limits = np.asarray(model.velocity_limits, dtype=float)
        fallback = np.where(self._periodic, *FALLBACK_SPEED)
        speed = np.where(np.isfinite(limits) & (limits > 0.0), limits, fallback)
        self._bound = factor * speed * 1e-9  # per ns
        self._least = self._bound * MIN_JUMP_INTERVAL_NS  # allowed at any interval
        self._least_sq = float(self._least.min()) ** 2 if self._least.size else 0.0
        self._unmeasured = np.zeros(len(self.joint_names), dtype=bool)  # set by such a message
        self._any_unmeasured = False
        self._streams = {}
        self._last = None  # (mask, measured, stream) of the latest message

    def check(self, t_ns, present, fields, clean, state):
        """Whether a validated message's positions are where the arm can be.

        Args:
            t_ns: its stamp [ns].
            present: (n,) bool, the joints it carries.
            fields: its ``(position, velocity, effort)``, each (n,) in model order or None.
            clean: every value of the message is finite.
            state: the :class:`~robot_dynamics.estimation.joint_state.MergedJointState` with the
                latest positions.

        Returns:
            str or None: the reason to restart the estimation when positions that jumped are
            taken as the arm's, else None.

        Raises:
            Refused: a joint's position jumped (naming the joint, how far, in how long, what its
                velocity bound allows).
        """
        position, velocity, effort = fields
        if position is None:
            return None
        if clean:
            measured = velocity is not None or effort is not None
        else:
            measured = any(
                values is not None and np.isfinite(values[present]).any()
                for values in (velocity, effort)
            )
        stream = self._stream(present, measured)
        step = position - state.position
        # the common case; a clean message's positions are all within the plausible bound
        if (clean and step @ step <= self._least_sq) or (np.abs(step) <= self._least).all():
            return self._take(stream, t_ns, present, measured, None)
        known = present & (state.position_stamp != NEVER)
        credit = measured or not (known & ~self._unmeasured).any()
        jump = self._jump(
            t_ns, known, position, state.position, state.position_stamp, stream, credit
        )
        if jump is None:  # within its time, but farther than any time allows after jumps: restart
            after = None
            if stream.run:
                after = self._jump(
                    t_ns, known, position, state.position, state.position_stamp, stream, False
                )
            return self._take(stream, t_ns, present, measured, after and f"positions {after}")
        if measured and (known & self._unmeasured).any():
            return self._take(stream, t_ns, present, measured, f"positions {jump}")
        if not credit:  # never a run: a message without a measurement does not take over
            raise Refused(
                f"position {jump} in a message without velocity or effort: is a "
                "joint_state_publisher publishing the same joints beside the driver?",
                "position",
            )
        if stream.candidate is not None:
            stamp, previous, carried = stream.candidate
            both = known & carried
            stamps = np.full(len(both), stamp)
            agrees = self._jump(t_ns, both, position, previous, stamps, stream, True) is None
            stream.run = stream.run + 1 if agrees else 1
        else:
            stream.run = 1
        if stream.run >= JUMP_RUN:
            return self._take(
                stream, t_ns, present, measured, f"positions jumped and stayed ({jump})"
            )
        stream.candidate = (t_ns, position.copy(), present.copy())
        raise Refused(
            f"position {jump}: is another node publishing the same joints (a "
            "joint_state_publisher beside the driver)? a jump that stays is taken after "
            f"{JUMP_RUN} messages",
            "position",
        )

    def _stream(self, present, measured):
        """The stream of a message: the same as the previous message's when it carries the same
        mask object (a full message's, the validator's one), else looked up by its joints."""
        last = self._last
        if last is not None and last[0] is present and last[1] == measured:
            return last[2]
        key = (present.tobytes(), measured)
        stream = self._streams.get(key)
        if stream is None:
            if len(self._streams) >= MAX_STREAMS:  # ever new sets of joints: start over
                self._streams.clear()
            stream = self._streams[key] = _Stream()
        self._last = (present, measured, stream)
        return stream

    def carry_over(self, other):
        """Go on from ``other`` (the checks of a pipeline with the same joints): its streams
        and which joints a message without a measurement set.

        Args:
            other: a :class:`PositionJumps` of the same joints.
        """
        self._streams = other._streams
        self._unmeasured = other._unmeasured.copy()
        self._any_unmeasured = other._any_unmeasured

    def _take(self, stream, t_ns, present, measured, restart):
        """Accept a message of ``stream`` (its stamp teaches the stream's interval: a refused
        one's, perhaps of another clock, does not); returns ``restart``."""
        stream.tick(t_ns)
        stream.run, stream.candidate = 0, None
        if not measured or self._any_unmeasured:
            self._unmeasured[present] = not measured
            self._any_unmeasured = bool(self._unmeasured.any())
        return restart

    def _jump(self, t_ns, joints, position, previous, stamps, stream, credit):
        """The description of the largest jump beyond the bound among ``joints``, or None;
        ``credit``: whether the stream's time allows motion (else the shortest interval)."""
        if not joints.any():
            return None
        step = np.where(joints, position - previous, 0.0)
        step = np.where(self._periodic, (step + np.pi) % (2 * np.pi) - np.pi, step)  # turns
        elapsed = t_ns - np.where(joints, stamps, t_ns)
        floor = MIN_JUMP_INTERVAL_NS
        if credit and stream.interval_ns is not None:
            floor = max(floor, 2 * stream.interval_ns)
        credited = (elapsed > floor) & (elapsed <= MAX_CREDIT_NS) if credit else False
        allowed = self._bound * np.where(credited, elapsed, floor)
        excess = np.where(joints, np.abs(step) - allowed, -np.inf)
        j = int(np.argmax(excess))
        if not excess[j] > 0.0:
            return None
        unit = "rad" if self._periodic[j] else "m"
        return (
            f"of joint {self.joint_names[j]!r} jumped by {step[j]:.4g} {unit} in "
            f"{elapsed[j] * 1e-6:.3g} ms, beyond the {allowed[j]:.3g} {unit} it moves in that "
            "time (velocity_limit_factor x URDF limit)"
        )
