"""Task-space inertia, external wrench estimation (damped pseudo-inverse of J^T, singular values)
and the generalised momentum observer."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from robot_dynamics import MomentumObserver

import robot_urdfs
from core_helpers import load_model, random_state, robot_params
from oracles import assert_close

UR5_Q = np.array([0.3, -1.2, 1.5, -0.9, 1.1, 0.4])  # far from singularities
UR5_Q_SINGULAR = np.array([0.3, -1.2, 0.0, -0.9, 0.0, 0.4])  # elbow straight and wrist 2 = 0


def _ur5():
    # ur5_robot.urdf has three leaves (ee_link, tool0, base): name the tip
    return load_model("ur5", tip_link="tool0")


def _mv(A, x):
    return (A @ x[..., None])[..., 0]


@pytest.mark.parametrize("name", robot_params(["ur5", "kinova", "panda_arm"]))
def test_task_space_inertia(name, rng):
    model = load_model(name)
    frame = robot_urdfs.default_frame(name)
    q = random_state(model, name, rng, (3,))[0]
    J = model.jacobian(q, frame=frame)
    M = model.mass_matrix(q)
    ref = np.linalg.inv(J @ np.linalg.solve(M, np.swapaxes(J, -1, -2)))
    cond = float(np.max(np.linalg.cond(ref)))
    Lam = model.task_space_inertia(q, frame=frame)
    assert Lam.shape == (3, 6, 6)
    assert_close(Lam, ref, max(1e-9, 1e-14 * cond), f"{name} Lambda vs inv(J M^-1 J^T)")
    assert_close(Lam, np.swapaxes(Lam, -1, -2), 1e-9 * max(1.0, cond * 1e-5), "Lambda symmetric")
    if model.n == 6:  # square J: Lambda = J^-T M J^-1
        Jinv = np.linalg.inv(J)
        assert_close(
            Lam, np.swapaxes(Jinv, -1, -2) @ M @ Jinv, max(1e-9, 1e-14 * cond), "J^-T M J^-1"
        )


@pytest.mark.skipif(not robot_urdfs.has_erd(), reason="example-robot-data not installed")
def test_estimate_external_wrench_recovers_known_wrench(rng):
    model = _ur5()
    f = np.array([12.0, -7.0, 20.0, 1.5, -0.8, 0.6])
    J = model.jacobian(UR5_Q)
    tau_ext = J.T @ f
    # f: base axes, moment about the tip origin; the estimate is the sensor reading at the tip
    # (tip axes, moment about the tip origin): blockdiag(R^T, R^T) f
    est = model.estimate_external_wrench(UR5_Q, tau_ext)
    R = model.frame_pose(UR5_Q)[:3, :3]
    f_tip = np.concatenate([R.T @ f[:3], R.T @ f[3:]])
    assert_close(est.wrench, f_tip, 1e-6, "recovered wrench (tip axes)")
    sv = np.linalg.svd(J, compute_uv=False)
    assert_close(np.sort(est.singular_values), np.sort(sv), 1e-9, "singular values of J")
    assert isinstance(est.min_singular_value, float) and isinstance(est.near_singular, bool)
    assert_close(est.min_singular_value, sv.min(), 1e-9, "min singular value")
    assert not est.near_singular
    assert est.components == ("fx", "fy", "fz", "tx", "ty", "tz")  # n = 6: all six
    # it is the f_ext of inverse dynamics: tau_ext = tau_measured - (M qdd + C qd + g)
    qd, qdd = rng.normal(size=(2, 6))
    tau_measured = model.inverse_dynamics(UR5_Q, qd, qdd, f_ext=f)
    tau_ext2 = tau_measured - model.inverse_dynamics(UR5_Q, qd, qdd)
    assert_close(
        model.estimate_external_wrench(UR5_Q, -tau_ext2).wrench,
        f_tip,
        1e-6,
        "f_ext of inverse dynamics (tau_measured = tau_rigid - J^T f_ext)",
    )
    # batch
    fb = rng.normal(scale=10.0, size=(4, 6))
    qb = UR5_Q + rng.normal(scale=0.05, size=(4, 6))
    tb = _mv(np.swapaxes(model.jacobian(qb, axes="local"), -1, -2), fb)
    eb = model.estimate_external_wrench(qb, tb)
    assert eb.wrench.shape == (4, 6) and np.shape(eb.near_singular) == (4,)
    assert np.shape(eb.min_singular_value) == (4,)
    assert_close(eb.wrench, fb, 1e-5, "batch")


@pytest.mark.skipif(not robot_urdfs.has_erd(), reason="example-robot-data not installed")
@pytest.mark.parametrize("eps", [0.0, 1e-9, 1e-6])
def test_estimate_external_wrench_near_singularity(eps, rng):
    model = _ur5()
    q = UR5_Q_SINGULAR + eps
    tau_ext = rng.normal(scale=5.0, size=6)
    damping = 1e-2
    est = model.estimate_external_wrench(q, tau_ext, damping=damping)
    assert np.all(np.isfinite(est.wrench))
    assert bool(est.near_singular)
    assert est.min_singular_value < 1e-5
    # a damped pseudo-inverse has gain <= 1 / (2 lambda) whatever lambda's convention
    # (lambda or lambda^2)
    assert np.linalg.norm(est.wrench) <= np.linalg.norm(tau_ext) / (2 * damping) * (1 + 1e-9)
    # a wrench in the range of the singular Jacobian's well-conditioned directions is still
    # recovered
    J = model.jacobian(q, axes="local")  # the estimate's axes: the frame's own
    U, s, Vt = np.linalg.svd(J.T)  # J^T = U s Vt, 6 x 6
    f = Vt[0] * 10.0  # the best-conditioned wrench direction
    est2 = model.estimate_external_wrench(q, J.T @ f, damping=damping)
    assert_close(est2.wrench, f, 1e-2 * 10, "well-conditioned direction near the singularity")


def _simulate_with_external_torque(model, q0, tau_fn, tau_ext, t_end, dt):
    """Reference trajectory: M qdd + h = tau(t, q, qd) + tau_ext, solve_ivp at rtol 1e-11."""
    n = model.n

    def rhs(t, x):
        q, qd = x[:n], x[n:]
        return np.concatenate([qd, model.forward_dynamics(q, qd, tau_fn(t, q, qd) + tau_ext)])

    t = np.arange(0.0, t_end + dt / 2, dt)
    sol = solve_ivp(
        rhs,
        (0, t[-1]),
        np.concatenate([q0, np.zeros(n)]),
        method="DOP853",
        t_eval=t,
        rtol=1e-11,
        atol=1e-12,
    )
    assert sol.success
    return t, sol.y[:n].T, sol.y[n:].T


@pytest.mark.parametrize("name", robot_params(["double_pendulum", "mixed", "ur5"]))
def test_momentum_observer_converges(name, rng):
    model = load_model(name)
    n = model.n
    q0 = random_state(model, name, rng)[0] * 0.5
    # scaled by the joint inertias (light wrist joints get small torques): a non-stiff motion
    m_diag = np.diag(model.mass_matrix(q0))
    tau_ext = rng.normal(scale=2.0, size=n) * m_diag / m_diag.max()
    # a damped, gravity-compensated arm with a small excitation
    tau_fn = lambda t, q, qd: (
        model.gravity_torques(q)  # noqa: E731
        + model.mass_matrix(q) @ (-3.0 * qd + 0.5 * np.sin(3 * t))
    )
    dt, gain = 1e-3, 50.0
    t, q, qd = _simulate_with_external_torque(model, q0, tau_fn, tau_ext, 1.0, dt)
    obs = MomentumObserver(model, gain=gain)
    obs.reset(q[0], qd[0])
    r = np.zeros((len(t), n))
    for k in range(1, len(t)):
        # torque applied over the step (known to the controller); the observer sees q, qd only
        r[k] = obs.update(q[k], qd[k], tau_fn(t[k - 1], q[k - 1], qd[k - 1]), dt)
    scale = np.abs(tau_ext).max()
    # first-order convergence with time constant 1/gain: at t = 1/gain about 63 %
    k1 = int(round(1.0 / gain / dt))
    frac = r[k1] @ tau_ext / (tau_ext @ tau_ext)
    assert 0.45 < frac < 0.8, f"observer at t=1/K reached {frac:.2f} of tau_ext"
    # converged after 20 time constants: small error (discretisation O(dt))
    err = np.abs(r[-200:] - tau_ext).max()
    assert err < 0.03 * scale, f"observer error {err:.3e} (tau_ext {tau_ext})"


def test_momentum_observer_per_joint_gain(rng):
    model = load_model("double_pendulum")
    gains = np.array([20.0, 80.0])
    tau_ext = np.array([1.5, -0.7])
    tau_fn = lambda t, q, qd: model.gravity_torques(q) - 3.0 * qd  # noqa: E731
    dt = 1e-3
    t, q, qd = _simulate_with_external_torque(
        model, np.array([0.2, -0.4]), tau_fn, tau_ext, 0.6, dt
    )
    obs = MomentumObserver(model, gain=gains)
    obs.reset(q[0], qd[0])
    r = [np.zeros(2)]
    for k in range(1, len(t)):
        r.append(obs.update(q[k], qd[k], tau_fn(t[k - 1], q[k - 1], qd[k - 1]), dt))
    r = np.array(r)
    k = int(round(0.03 / dt))  # 0.6 time constants of joint 1, 2.4 of joint 2
    frac = r[k] / tau_ext
    assert frac[1] > frac[0] + 0.2, f"faster gain must converge faster: {frac}"
    assert np.abs(r[-1] - tau_ext).max() < 0.05 * np.abs(tau_ext).max()


def test_momentum_observer_batch(rng):
    """A batch of observers (B, n) equals independent observers."""
    model = load_model("double_pendulum")
    obs_b = MomentumObserver(model, gain=30.0)
    obs = [MomentumObserver(model, gain=30.0) for _ in range(3)]
    q, qd = rng.normal(size=(2, 3, 2))
    obs_b.reset(q, qd)
    for i in range(3):
        obs[i].reset(q[i], qd[i])
    for _ in range(5):
        q = q + 1e-3 * qd
        qd = qd + 1e-3 * rng.normal(size=(3, 2))
        tau = rng.normal(size=(3, 2))
        rb = obs_b.update(q, qd, tau, 1e-3)
        r = np.array([obs[i].update(q[i], qd[i], tau[i], 1e-3) for i in range(3)])
        assert rb.shape == (3, 2)
        assert_close(rb, r, 1e-12, "batched observer")


@pytest.mark.parametrize("gap", [0.004, 0.064, 1.0])
def test_momentum_observer_stable_across_sample_gaps(gap):
    """An arm held at rest against a constant push: a long gap between samples (gain * dt >> 1,
    as when a node misses messages) must not overshoot or flip the estimate's sign."""
    model = load_model("bundled_panda")
    q = np.linspace(-0.5, 0.5, model.n)
    qd = np.zeros(model.n)
    f = np.array([0.0, 0.0, -5.0, 0.0, 0.0, 0.0])
    tau_ext = model.jacobian(q).T @ f
    tau = model.gravity_torques(q) - tau_ext  # the drive balances gravity and the push
    obs = MomentumObserver(model, gain=50.0)
    obs.reset(q, qd)
    history = [obs.update(q, qd, tau, 0.004) for _ in range(10)]
    history.append(obs.update(q, qd, tau, gap))
    history += [obs.update(q, qd, tau, 0.004) for _ in range(200)]
    fraction = np.array([r @ tau_ext / (tau_ext @ tau_ext) for r in history])
    assert np.all(np.diff(fraction) >= -1e-12), "the estimate must approach tau_ext monotonically"
    assert fraction.max() <= 1.0 + 1e-9, f"overshoot: {fraction.max():.3f} of tau_ext"
    assert fraction[-1] > 0.98


def test_precomputed_terms_give_the_same_estimates(rng):
    """The observer fed with state_terms, and the wrench estimate fed with its Jacobian, equal
    the self-contained calls (what the node does to share one kinematics pass)."""
    model = load_model("bundled_panda")
    q = rng.uniform(-1, 1, model.n)
    qd = rng.uniform(-1, 1, model.n)
    tau = rng.uniform(-5, 5, model.n)
    a, b = MomentumObserver(model, gain=40.0), MomentumObserver(model, gain=40.0)
    a.reset(q, qd)
    b.reset(q, qd)
    for k in range(5):
        qk, qdk = q + 0.01 * k, qd - 0.02 * k
        terms = model.state_terms(qk, qdk, axes="local")
        ra = a.update(qk, qdk, tau, 1e-3)
        rb = b.update(qk, qdk, tau, 1e-3, terms=terms)
        assert_close(rb, ra, 1e-12, "observer with terms")
        wa = model.estimate_external_wrench(qk, ra)
        wb = model.estimate_external_wrench(qk, ra, jacobian=terms.jacobian)
        assert_close(wb.wrench, wa.wrench, 1e-12, "wrench with a given Jacobian")
        assert_close(wb.min_singular_value, wa.min_singular_value, 1e-12, "min singular value")
