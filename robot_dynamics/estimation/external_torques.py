"""The external joint torques of one message by the configured estimator: the momentum
observer, or the static estimate with a zero or a differentiated acceleration."""

import numpy as np

from robot_dynamics.core.estimation import MomentumObserver
from robot_dynamics.core.rest import MOVING_VELOCITY

from .filters import FilteredDifferentiator


class ExternalTorqueEstimator:
    """``tau_ext = (M qdd + C qd + g) - tau`` [N m or N] of each message, by the estimator the
    :class:`~robot_dynamics.estimation.config.PipelineConfig` names:

    - ``wrench_estimation="momentum_observer"``: the momentum observer (no acceleration needed).
      A restart starts it from the estimate :meth:`carry` was given (a new configuration of the
      same model: the estimate goes on where it was), else from the quasi-static estimate
      ``C qd + g - tau`` when the arm is at rest (no joint's velocity reaches
      :data:`~robot_dynamics.core.rest.MOVING_VELOCITY`: exact there, a held push is right at
      once), else from 0 (on a moving arm the quasi-static estimate misses ``M qdd``: a phantom
      torque; from 0 the observer converges to the true one with time constant 1 / K_O and
      never reports a force that is not there);
    - ``"static"`` with ``static_acceleration="zero"``: ``C qd + g - tau``; with
      ``"differentiated"``: ``M qdd + C qd + g - tau``, qdd the filtered derivative of the
      measured velocity.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        config: the validated PipelineConfig.
    """

    def __init__(self, model, config):
        self._model = model
        self._observer = MomentumObserver(model, gain=config.observer_gain)
        self._differentiator = FilteredDifferentiator(
            model.n, config.acceleration_filter_time_constant
        )
        self._static = config.wrench_estimation == "static"
        self._differentiated = config.static_acceleration == "differentiated"
        self.last_ns = None  # the stamp of the latest message estimated at
        self.latest = None  # the latest estimate (n,)
        self._carried = None  # the estimate the next restart starts from, or None

    def since(self, t_ns):
        """Time [ns] from the latest message estimated at to ``t_ns`` (None before the first).

        Args:
            t_ns: a message stamp [ns].

        Returns:
            int or None: the time the next step spans [ns].
        """
        return None if self.last_ns is None else t_ns - self.last_ns

    def reset(self):
        """Forget the filtered acceleration and a carried estimate; the observer starts again at
        the next restart."""
        self._differentiator.reset()
        self._carried = None

    def carry(self, other):
        """Start the next restart from ``other``'s latest estimate (an estimator of the same
        model that this one replaces; nothing when it has none).

        Args:
            other: the ExternalTorqueEstimator replaced.
        """
        self._carried = None if other.latest is None else other.latest.copy()

    def estimate(self, sample, tau, restarted):
        """The external joint torques of one message.

        A step spans the time since the latest message estimated at (messages the estimation
        skipped in between are spanned, as a gap between stamps is).

        Args:
            sample: the ingested :class:`~robot_dynamics.estimation.output.Sample` (its stamp,
                q, qd and dynamics terms).
            tau: (n,) measured joint torques [N m or N] (scaled, offset, friction removed).
            restarted: the estimator starts again at this message (the first one, a stamp gap,
                a pause or a new configuration): the observer as the class docstring says, the
                differentiated acceleration from zero.

        Returns:
            ndarray: (n,) tau_ext [N m or N].
        """
        terms = sample.terms
        dt = None if restarted else (sample.t_ns - self.last_ns) * 1e-9
        self.last_ns = sample.t_ns
        if self._static:
            if self._differentiated:  # a dt of 0 starts the filter again: qdd = 0
                qdd = self._differentiator.update(sample.qd, 0.0 if restarted else dt)
                tau_model = self._model.inverse_dynamics(sample.q, sample.qd, qdd)
            else:
                tau_model = terms.nonlinear_effects
            return tau_model - tau
        if restarted:
            if self._carried is not None:
                tau_ext, self._carried = self._carried, None
            elif np.all(np.abs(sample.qd) < MOVING_VELOCITY):
                tau_ext = terms.nonlinear_effects - tau
            else:
                tau_ext = np.zeros(self._model.n)
            self._observer.reset(sample.q, sample.qd, terms=terms, residual=tau_ext)
        else:
            tau_ext = self._observer.advance(
                tau, dt, terms.momentum, terms.coriolis_transpose_qd, terms.gravity
            )
        self.latest = tau_ext
        return tau_ext
