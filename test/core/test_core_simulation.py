"""simulate / step: the double-pendulum benchmark of the reference (energy conservation over
10 s, first second against independent integrations), torque inputs, friction, f_ext,
the semi-implicit Euler integrator."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from robot_dynamics.core.errors import SimulationLimitError
from robot_dynamics import RobotModel

import robot_urdfs
from oracles import assert_close
from robot_urdfs import DP_GRAVITY
from test_core_closed_form import closed_C, closed_D, closed_g, closed_J
from robot_dynamics.core.friction import FrictionModel


@pytest.fixture(scope="module")
def dp():
    return RobotModel.from_urdf_file(robot_urdfs.DOUBLE_PENDULUM_URDF, gravity=DP_GRAVITY)


def closed_rhs(tau_fn=None, f_ext=None, damping=None):
    """Independent double-pendulum dynamics from the closed forms of the reference."""

    def rhs(t, x):
        q, qd = x[:2], x[2:]
        tau = np.zeros(2) if tau_fn is None else tau_fn(t, q, qd)
        if f_ext is not None:
            tau = tau + closed_J(q).T @ np.asarray(f_ext)[:2]
        if damping is not None:
            tau = tau - damping * qd
        qdd = np.linalg.solve(closed_D(q), tau - closed_C(q, qd) @ qd - closed_g(q))
        return np.concatenate([qd, qdd])

    return rhs


def _reference(rhs, q0, qd0, t_eval):
    sol = solve_ivp(
        rhs,
        (0.0, t_eval[-1]),
        np.concatenate([q0, qd0]),
        method="DOP853",
        t_eval=t_eval,
        rtol=1e-12,
        atol=1e-12,
    )
    assert sol.success
    return sol.y[:2].T, sol.y[2:].T


def test_benchmark_energy_conservation_10s(dp):
    """10 s, zero torque, from q = [0, 0] at rest: total energy drift < 1e-6 relative (rtol 1e-10).
    E(0) = 0 here (P = 0 with the arm horizontal): drift is relative to the energy exchanged,
    max_t K(t)."""
    res = dp.simulate(np.zeros(2), np.zeros(2), 10.0, rtol=1e-10, atol=1e-12, sample_dt=0.01)
    assert res.t[0] == 0.0 and abs(res.t[-1] - 10.0) < 1e-9
    assert res.q.shape == (len(res.t), 2) and res.energy.shape == (len(res.t),)
    E = dp.total_energy(res.q, res.qd)
    assert_close(res.energy, E, 1e-9, "result energy = total_energy(q, qd)")
    scale = np.max(dp.kinetic_energy(res.q, res.qd))
    assert scale > 100.0  # the pendulum really swings (mgl ~ 200 J)
    drift = np.max(np.abs(E - E[0])) / scale
    assert drift < 1e-6, f"relative energy drift {drift:.2e}"


def test_benchmark_first_second_vs_closed_form_integration(dp):
    t = np.linspace(0.0, 1.0, 101)
    res = dp.simulate(np.zeros(2), np.zeros(2), 1.0, rtol=1e-10, atol=1e-12, sample_dt=0.01)
    assert_close(res.t, t, 1e-12, "sample times")
    q_ref, qd_ref = _reference(closed_rhs(), np.zeros(2), np.zeros(2), t)
    assert_close(res.q, q_ref, 1e-6, "q vs closed-form + solve_ivp")
    assert_close(res.qd, qd_ref, 1e-6, "qd vs closed-form + solve_ivp")


def test_benchmark_first_second_vs_pinocchio_aba(dp):
    pin = pytest.importorskip("pinocchio")
    pm = pin.buildModelFromUrdf(robot_urdfs.DOUBLE_PENDULUM_URDF)
    pm.gravity.linear = np.array(DP_GRAVITY)
    pd = pm.createData()
    order = [pm.joints[pm.getJointId(n)].idx_v for n in dp.joint_names]

    def rhs(t, x):
        q, v = np.zeros(2), np.zeros(2)
        q[order], v[order] = x[:2], x[2:]
        a = pin.aba(pm, pd, q, v, np.zeros(2))
        return np.concatenate([x[2:], a[order]])

    t = np.linspace(0.0, 1.0, 101)
    res = dp.simulate(np.zeros(2), np.zeros(2), 1.0, rtol=1e-10, atol=1e-12, sample_dt=0.01)
    q_ref, qd_ref = _reference(rhs, np.zeros(2), np.zeros(2), t)
    assert_close(res.q, q_ref, 1e-6, "q vs pin.aba + solve_ivp")
    assert_close(res.qd, qd_ref, 1e-6, "qd vs pin.aba + solve_ivp")


@pytest.mark.parametrize("method", ["RK45", "DOP853", "LSODA", "BDF", "Radau"])
def test_methods_short_horizon(dp, method):
    t = np.linspace(0.0, 0.3, 31)
    q0, qd0 = np.array([0.3, -0.5]), np.array([0.2, 0.1])
    res = dp.simulate(q0, qd0, 0.3, method=method, rtol=1e-9, atol=1e-11, sample_dt=0.01)
    q_ref, qd_ref = _reference(closed_rhs(), q0, qd0, t)
    assert_close(res.q, q_ref, 1e-5, f"{method} q")


def test_torque_inputs(dp):
    """Constant vector, (times, values) grid and callable give the same motion for a constant
    torque; a state-dependent callable matches the closed-form integration."""
    q0, qd0 = np.array([0.2, 0.4]), np.zeros(2)
    c = np.array([30.0, -5.0])
    kw = dict(rtol=1e-10, atol=1e-12, sample_dt=0.05)
    a = dp.simulate(q0, qd0, 0.5, tau=c, **kw)
    grid = np.linspace(0.0, 0.5, 11)
    b = dp.simulate(q0, qd0, 0.5, tau=(grid, np.tile(c, (11, 1))), **kw)
    cc = dp.simulate(q0, qd0, 0.5, tau=lambda t, q, qd: c, **kw)
    assert_close(b.q, a.q, 1e-8, "grid torque vs constant")
    assert_close(cc.q, a.q, 1e-8, "callable torque vs constant")
    assert_close(a.tau, np.tile(c, (len(a.t), 1)), 1e-12, "result tau")
    q_ref, _ = _reference(closed_rhs(lambda t, q, qd: c), q0, qd0, a.t)
    assert_close(a.q, q_ref, 1e-7, "constant torque vs closed form")
    fb = lambda t, q, qd: closed_g(q) - 5.0 * (q - np.array([0.5, -0.5])) - 2.0 * qd + np.sin(2 * t)  # noqa
    d = dp.simulate(q0, qd0, 0.5, tau=fb, **kw)
    q_ref, _ = _reference(closed_rhs(fb), q0, qd0, d.t)
    assert_close(d.q, q_ref, 1e-7, "feedback torque vs closed form")
    assert_close(
        d.tau, np.array([fb(t, q, qd) for t, q, qd in zip(d.t, d.q, d.qd)]), 1e-9, "result tau"
    )
    # qdd reported = forward dynamics at the samples
    assert_close(d.qdd, dp.forward_dynamics(d.q, d.qd, d.tau), 1e-9, "result qdd")


def test_time_varying_grid_torque(dp):
    """A torque sampled on a time grid is applied between the samples (any interpolation between
    equal neighbours is exact: piecewise-constant steps on a grid of pairs)."""
    q0, qd0 = np.array([0.2, 0.4]), np.zeros(2)
    times = np.array([0.0, 0.2, 0.2 + 1e-9, 0.4])
    vals = np.array([[10.0, 0.0], [10.0, 0.0], [-10.0, 5.0], [-10.0, 5.0]])
    res = dp.simulate(q0, qd0, 0.4, tau=(times, vals), rtol=1e-10, atol=1e-12, sample_dt=0.05)
    step = lambda t, q, qd: np.array([10.0, 0.0]) if t < 0.2 else np.array([-10.0, 5.0])  # noqa: E731
    sol1 = solve_ivp(
        closed_rhs(step),
        (0, 0.2),
        np.concatenate([q0, qd0]),
        method="DOP853",
        rtol=1e-12,
        atol=1e-12,
    )
    sol2 = solve_ivp(
        closed_rhs(step), (0.2, 0.4), sol1.y[:, -1], method="DOP853", rtol=1e-12, atol=1e-12
    )
    assert_close(res.q[-1], sol2.y[:2, -1], 1e-5, "grid torque with a step")


def test_external_wrench_in_simulation(dp):
    q0, qd0 = np.array([0.2, 0.4]), np.zeros(2)
    f = np.array([5.0, 40.0, 0.0, 0.0, 0.0, 0.0])
    res = dp.simulate(q0, qd0, 0.5, f_ext=f, frame="tip", rtol=1e-10, atol=1e-12, sample_dt=0.05)
    q_ref, _ = _reference(closed_rhs(f_ext=f), q0, qd0, res.t)
    assert_close(res.q, q_ref, 1e-7, "simulation with f_ext on the tip")


def test_friction_in_simulation(dp):
    m = dp.with_friction(FrictionModel(np.array([0.8, 0.3]), np.zeros(2)))
    q0, qd0 = np.zeros(2), np.zeros(2)
    res = m.simulate(q0, qd0, 1.0, friction=True, rtol=1e-10, atol=1e-12, sample_dt=0.05)
    q_ref, _ = _reference(closed_rhs(damping=np.array([0.8, 0.3])), q0, qd0, res.t)
    assert_close(res.q, q_ref, 1e-7, "viscous damping")
    E = m.total_energy(res.q, res.qd)
    assert np.all(np.diff(E) <= 1e-9), "damping dissipates energy"
    assert E[-1] < E[0] - 1.0
    free = m.simulate(q0, qd0, 1.0, friction=False, rtol=1e-10, atol=1e-12, sample_dt=0.05)
    assert np.abs(free.q - res.q).max() > 1e-3, "friction=False ignores damping"


def test_step_is_semi_implicit_euler(dp, rng):
    q, qd = rng.normal(size=(2, 2))
    tau = rng.normal(scale=10, size=2)
    dt = 1e-3
    q1, qd1 = dp.step(q, qd, tau, dt)
    qd_exp = qd + dt * dp.forward_dynamics(q, qd, tau)
    assert_close(qd1, qd_exp, 1e-12, "qd+ = qd + dt qdd")
    assert_close(q1, q + dt * qd_exp, 1e-12, "q+ = q + dt qd+")
    # batch
    qb, qdb = rng.normal(size=(2, 3, 2))
    taub = rng.normal(size=(3, 2))
    q1b, qd1b = dp.step(qb, qdb, taub, dt)
    for i in range(3):
        a, b = dp.step(qb[i], qdb[i], taub[i], dt)
        assert_close(q1b[i], a, 1e-12, "step batch q")
        assert_close(qd1b[i], b, 1e-12, "step batch qd")


def test_semi_implicit_euler_simulation(dp):
    q0, qd0 = np.zeros(2), np.zeros(2)
    res = dp.simulate(q0, qd0, 2.0, method="semi_implicit_euler", fixed_step=1e-3, sample_dt=1e-3)
    assert abs(res.t[-1] - 2.0) < 1e-9
    q, qd = q0.copy(), qd0.copy()
    for _ in range(100):
        q, qd = dp.step(q, qd, np.zeros(2), 1e-3)
    assert_close(res.q[100], q, 1e-12, "100 fixed steps = 100 step() calls")
    E = dp.total_energy(res.q, res.qd)
    scale = np.max(dp.kinetic_energy(res.q, res.qd))
    # symplectic: bounded energy error of order dt
    assert np.max(np.abs(E - E[0])) / scale < 2e-2
    t = res.t[:201]
    q_ref, _ = _reference(closed_rhs(), q0, qd0, t)
    assert_close(res.q[:201], q_ref, 5e-3, "semi-implicit Euler first 0.2 s")


@pytest.mark.parametrize("method", ["RK45", "semi_implicit_euler"])
def test_sample_period_just_below_a_whole_count(dp, method):
    """duration / sample_dt just below an integer: the last sample rounds past the duration
    (it raised scipy's 't_eval not within t_span'); it is clipped to the duration."""
    period = 0.004000000000000115  # a median of real stamp differences
    result = dp.simulate(np.zeros(2), np.zeros(2), 1.0, sample_dt=period, method=method)
    assert result.t[-1] == 1.0
    assert np.all(np.diff(result.t) > 0.0)


@pytest.mark.parametrize("method", ["RK45", "semi_implicit_euler"])
def test_the_end_between_two_sample_periods_is_sampled(dp, method):
    """0.1 s sampled every 0.03 s: 0, 0.03, 0.06, 0.09 and the end, 0.1; a period longer than
    the duration: the start and the end. The end state is the state at the duration."""
    q0 = np.array([0.4, -0.2])
    for period, times in ((0.03, [0.0, 0.03, 0.06, 0.09, 0.1]), (1.0, [0.0, 0.1])):
        result = dp.simulate(q0, np.zeros(2), 0.1, sample_dt=period, method=method, fixed_step=1e-3)
        np.testing.assert_allclose(result.t, times, rtol=0, atol=1e-12)
        whole = dp.simulate(q0, np.zeros(2), 0.1, sample_dt=0.01, method=method, fixed_step=1e-3)
        assert whole.t[-1] == 0.1
        np.testing.assert_allclose(result.q[-1], whole.q[-1], rtol=0, atol=1e-7)
    with pytest.raises(SimulationLimitError, match="5 samples"):
        dp.simulate(q0, np.zeros(2), 0.1, sample_dt=0.03, method=method, max_samples=4)


def test_a_sample_period_shorter_than_the_fixed_step_samples_every_step(dp):
    """sample_dt 0.01 s with fixed steps of 0.02 s: each step once, times strictly increasing."""
    result = dp.simulate(
        np.array([0.4, -0.2]),
        np.zeros(2),
        0.1,
        method="semi_implicit_euler",
        fixed_step=0.02,
        sample_dt=0.01,
    )
    np.testing.assert_allclose(result.t, np.arange(6) * 0.02, rtol=0, atol=1e-12)
