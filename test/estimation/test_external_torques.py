"""The external-torque estimators of the pipeline (estimation/external_torques.py) on ground truth
made with the core: the static estimate at zero and at a differentiated acceleration against
``M qdd + C qd + g - tau``, and the momentum observer from its quasi-static start through a push
held at rest (first order, time constant 1 / K_O); its restart on a moving arm (from 0) and from
the estimate of the estimator it replaces."""

import os

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.estimation import PipelineConfig, PipelineOutput, Sample
from robot_dynamics.estimation.external_torques import ExternalTorqueEstimator

PANDA = os.path.join(os.path.dirname(__file__), "..", "..", "urdf", "panda_arm.urdf")
Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
MS = 1_000_000  # 1 ms [ns]


@pytest.fixture(scope="module")
def panda():
    return RobotModel.from_urdf_file(PANDA)


def _sample(model, q, qd, t_ns):
    """A message's Sample at stamp ``t_ns`` (the estimator steps from its previous one)."""
    sample = Sample(PipelineOutput(stamp_ns=t_ns), ready=True, t_ns=t_ns, dt_ns=MS, q=q, qd=qd)
    sample.terms = model.state_terms(q, qd, jacobian=False)
    return sample


def test_static_at_zero_acceleration_is_the_quasi_static_residual(panda, rng):
    estimator = ExternalTorqueEstimator(panda, PipelineConfig(wrench_estimation="static"))
    for k, restarted in enumerate((True, False, False)):
        q = Q0 + rng.uniform(-0.3, 0.3, 7)
        qd = rng.uniform(-1.0, 1.0, 7)
        tau = rng.uniform(-5.0, 5.0, 7)
        got = estimator.estimate(_sample(panda, q, qd, k * MS), tau, restarted)
        expected = panda.inverse_dynamics(q, qd, np.zeros(7)) - tau
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)


def test_static_at_a_differentiated_acceleration_follows_a_constant_acceleration(panda, rng):
    config = PipelineConfig(
        wrench_estimation="static",
        static_acceleration="differentiated",
        acceleration_filter_time_constant=0.005,
    )
    estimator = ExternalTorqueEstimator(panda, config)
    qdd = rng.uniform(-2.0, 2.0, 7)
    qd0 = rng.uniform(-0.5, 0.5, 7)
    tau = rng.uniform(-5.0, 5.0, 7)
    for k in range(200):  # 40 filter time constants
        t = k * 1e-3
        q, qd = Q0 + qd0 * t + 0.5 * qdd * t**2, qd0 + qdd * t
        got = estimator.estimate(_sample(panda, q, qd, k * MS), tau, restarted=k == 0)
        if k == 0:  # a restart knows no acceleration yet: the quasi-static estimate
            quasi_static = panda.inverse_dynamics(q, qd, np.zeros(7)) - tau
            np.testing.assert_allclose(got, quasi_static, rtol=0, atol=1e-10)
    expected = panda.inverse_dynamics(q, qd, qdd) - tau
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-8)
    # a restart forgets the filtered acceleration
    again = estimator.estimate(_sample(panda, q, qd, 200 * MS), tau, restarted=True)
    np.testing.assert_allclose(
        again, panda.inverse_dynamics(q, qd, np.zeros(7)) - tau, rtol=0, atol=1e-10
    )


def test_observer_starts_quasi_static_and_follows_a_push_held_at_rest(panda):
    gain = 50.0
    estimator = ExternalTorqueEstimator(panda, PipelineConfig(observer_gain=gain))
    zero = np.zeros(7)
    g = panda.gravity_torques(Q0)
    push = np.array([0.0, 2.0, 0.0, -1.5, 0.0, 0.5, 0.0])  # tau_ext [N m]
    # a restart while the push is already on: right at once (exact at rest)
    got = estimator.estimate(_sample(panda, Q0, zero, 0), g - push, restarted=True)
    np.testing.assert_allclose(got, push, rtol=0, atol=1e-10)
    # free again: the residual decays as (1 + K dt)^-k, the observer's implicit step
    for k in range(1, 41):
        got = estimator.estimate(_sample(panda, Q0, zero, k * MS), g, restarted=False)
        np.testing.assert_allclose(got, push * (1.0 + gain * 1e-3) ** -k, rtol=1e-9, atol=1e-12)
    # pushed again, held: the push ramps in over the first step (the trapezoidal rule counts
    # half of it there), then the error decays as (1 + K dt)^-k; all of it after 20 time
    # constants
    start = got.copy()
    for k in range(1, 401):
        sample = _sample(panda, Q0, zero, (40 + k) * MS)
        got = estimator.estimate(sample, g - push, restarted=False)
        if k == 20:  # one time constant
            decay = (1.0 + gain * 1e-3) ** -k
            first = start - push - gain * 1e-3 * push / 2  # the error after a half step
            np.testing.assert_allclose(got, push + first * decay, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got, push, rtol=0, atol=1e-6)


def _motion(model, t):
    """q, qd, qdd (7,) of a smooth motion of every joint at time t [s] (about 10 rad/s^2)."""
    w = np.linspace(2.0, 3.5, 7)
    return Q0 + 0.5 * np.sin(w * t), 0.5 * w * np.cos(w * t), -0.5 * w * w * np.sin(w * t)


def test_a_restart_on_a_moving_arm_starts_from_zero_not_from_a_phantom(panda):
    """Nothing touches the arm, which accelerates: the quasi-static estimate is off by -M qdd
    (several N m), which a restart must not publish; from 0 the observer stays near 0 (its
    discretisation error). At rest the restart is quasi-static (the push test above)."""
    estimator = ExternalTorqueEstimator(panda, PipelineConfig(observer_gain=50.0))
    worst, phantom = 0.0, None
    for k in range(300):
        t = 0.4 + k * 1e-3
        q, qd, qdd = _motion(panda, t)
        tau = panda.inverse_dynamics(q, qd, qdd)
        got = estimator.estimate(_sample(panda, q, qd, k * MS), tau, restarted=k == 0)
        if k == 0:
            np.testing.assert_array_equal(got, np.zeros(7))
            phantom = panda.mass_matrix(q) @ qdd  # what the quasi-static start would say
        worst = max(worst, float(np.max(np.abs(got))))
    assert np.max(np.abs(phantom)) > 2.0  # the phantom avoided is several N m
    assert worst < 0.05, worst


def test_an_estimator_that_replaces_another_goes_on_from_its_estimate(panda):
    """A new configuration of the same model (another gain) takes over the estimate: its restart
    starts from the replaced estimator's latest value, on a moving arm, then converges to the
    true external torque with its own gain; a reset forgets what was carried."""
    push = np.array([0.0, 2.0, 0.0, -1.5, 0.0, 0.5, 0.0])
    old = ExternalTorqueEstimator(panda, PipelineConfig(observer_gain=50.0))
    for k in range(200):
        q, qd, qdd = _motion(panda, 0.4 + k * 1e-3)
        tau = panda.inverse_dynamics(q, qd, qdd) - push
        latest = old.estimate(_sample(panda, q, qd, k * MS), tau, restarted=k == 0)
    new = ExternalTorqueEstimator(panda, PipelineConfig(observer_gain=80.0))
    new.carry(old)
    q, qd, qdd = _motion(panda, 0.6)
    tau = panda.inverse_dynamics(q, qd, qdd) - push
    got = new.estimate(_sample(panda, q, qd, 200 * MS), tau, restarted=True)
    np.testing.assert_array_equal(got, latest)
    np.testing.assert_allclose(latest, push, atol=0.05)
    for k in range(201, 400):
        q, qd, qdd = _motion(panda, 0.4 + k * 1e-3)
        tau = panda.inverse_dynamics(q, qd, qdd) - push
        got = new.estimate(_sample(panda, q, qd, k * MS), tau, restarted=False)
    np.testing.assert_allclose(got, push, atol=0.05)
    new.carry(old)
    new.reset()
    q, qd, qdd = _motion(panda, 0.8)
    got = new.estimate(_sample(panda, q, qd, 400 * MS), tau, restarted=True)
    np.testing.assert_array_equal(got, np.zeros(7))  # moving: from 0, nothing carried
