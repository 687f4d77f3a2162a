"""Contact detection on the external joint torques and the estimated wrench (reference
section 6, "Contact detection": thresholds with hysteresis, a minimum duration, isolation of
the link in contact)."""

from dataclasses import dataclass
import math

import numpy as np


@dataclass(frozen=True)
class ContactState:
    """Contact state after one message.

    Attributes:
        in_contact: the detector's state.
        changed: it switched with this message.
        link: the isolated link while in contact: the body moved by the most distal joint
            whose external torque is above its start level (``torque_on``); while no joint is
            above it and the release levels hold the contact, the link isolated last; the
            contact frame, where the wrench is estimated, when only the force or moment
            magnitudes trigger; '' when not in contact.
        force: ``|f|`` of the estimated wrench [N] (nan without a wrench).
        moment: ``|n|`` [N m] (nan without a wrench).
        contacts: contacts started so far (since the last estimation reset).
    """

    in_contact: bool
    changed: bool
    link: str
    force: float
    moment: float
    contacts: int = 0


class ContactDetector:
    """Hysteresis and minimum-duration state machine over per-joint torque levels and the
    force and moment magnitudes.

    A contact starts when some level is exceeded (``|tau_j| > torque_on_j``, ``|f| >
    force_on`` or ``|n| > moment_on``) at every message for ``min_duration``; it ends when no
    release level is exceeded (``torque_off``, ``force_off``, ``moment_off``) for
    ``min_duration``. Isolation: a contact on body k shows residual only on the joints between
    the base and k, so the most distal joint above its start level names the body; the link
    is kept while the contact fades between the start and release levels.

    Args:
        model: the RobotModel (joint -> link and depth of each actuated joint).
        resolved: :class:`~robot_dynamics.estimation.config.ResolvedContact`.
        contact_frame: link reported when only the magnitudes trigger ('' without one).
    """

    def __init__(self, model, resolved, contact_frame):
        self.config = resolved
        self.contact_frame = contact_frame or ""
        tree = model.tree
        bodies = np.array([tree.body_of_joint[name] for name in model.joint_names], dtype=np.intp)
        self._links = tuple(tree.body_link_names[b] for b in bodies)
        # depth (number of ancestors-or-self) + a tie breaker on the index: argmax picks the
        # most distal flagged joint
        depth = tree.depth[bodies] if len(bodies) else np.zeros(0)
        self._rank = depth * (model.n + 1) + np.arange(model.n) + 1.0
        self.in_contact = False
        self.link = ""
        self.contacts = 0
        self._pending_since = None  # stamp [ns] since which the switch condition has held

    def reset(self):
        """Back to no contact, with no switch pending (the contact count is kept)."""
        self.in_contact = False
        self.link = ""
        self._pending_since = None

    def interrupted(self):
        """No estimate with this message and the estimator starts over: a contact in progress
        ends (it cannot be followed without estimates), the count kept.

        Returns:
            ContactState: the state after it (``changed`` when a contact ended).
        """
        changed = self.in_contact
        self.reset()
        return ContactState(False, changed, "", math.nan, math.nan, self.contacts)

    def carry_over(self, old):
        """Take over another detector's state, for a new configuration or model of the same
        robot: the contact count, a switch pending since its stamp, and an ongoing contact with
        its link (when the link is one this detector reports).

        Args:
            old: the :class:`ContactDetector` this one replaces.
        """
        self.contacts = old.contacts
        self._pending_since = old._pending_since
        if old.in_contact and old.link in self._links + (self.contact_frame,):
            self.in_contact = True
            self.link = old.link

    def _isolate(self, over):
        if over is not None and over.any():
            return self._links[int(np.argmax(np.where(over, self._rank, 0.0)))]
        return self.contact_frame

    def update(self, t_ns, tau_ext, wrench):
        """Feed one estimate.

        Args:
            t_ns: message stamp [ns].
            tau_ext: (n,) external joint torques [N m or N], model order, bias removed.
            wrench: (6,) estimated wrench ``[fx fy fz tx ty tz]`` [N, N m], or None.

        Returns:
            ContactState: the state after this message.
        """
        c = self.config
        force = moment = math.nan
        if wrench is not None:
            force = math.hypot(wrench[0], wrench[1], wrench[2])
            moment = math.hypot(wrench[3], wrench[4], wrench[5])
        levels = (
            (c.torque_off, c.force_off, c.moment_off)
            if self.in_contact
            else (c.torque_on, c.force_on, c.moment_on)
        )
        magnitude = None if c.torque_on is None else np.abs(tau_ext)
        over = None if magnitude is None else magnitude > levels[0]
        active = bool(over is not None and over.any())
        active = active or (c.force_on > 0.0 and force > levels[1])
        active = active or (c.moment_on > 0.0 and moment > levels[2])
        changed = False
        if active != self.in_contact:
            if self._pending_since is None or t_ns < self._pending_since:
                self._pending_since = t_ns  # (a stamp going backwards starts it again)
            if t_ns - self._pending_since >= c.min_duration_ns:
                self.in_contact = active
                self._pending_since = None
                changed = True
                if active:
                    self.contacts += 1
        else:
            self._pending_since = None
        if not self.in_contact:
            self.link = ""
        elif magnitude is None:
            self.link = self.contact_frame
        else:
            # isolated on the start levels: while only the release levels hold the contact, the
            # link stays the one isolated last (a fading push does not wander proximal, where
            # the longer lever arms keep the residual above the release levels longest)
            detected = magnitude > c.torque_on
            if detected.any() or not self.link:
                self.link = self._isolate(detected)
        return ContactState(self.in_contact, changed, self.link, force, moment, self.contacts)

    def state(self):
        """The current state without a new estimate.

        Returns:
            ContactState: with ``changed`` False and the magnitudes nan.
        """
        return ContactState(self.in_contact, False, self.link, math.nan, math.nan, self.contacts)


__all__ = ["ContactDetector", "ContactState"]
