"""Base parameters (Gautier's QR with pivoting) and identification (weighted least squares,
then a physically consistent full parameter set) on synthetic data from a known, perturbed
ground truth."""

import numpy as np
import pytest

from core_helpers import load_model, robot_params
from oracles import assert_close
from robot_dynamics.core.base_parameters import base_parameters, random_states
from robot_dynamics.core.identification import (
    IdentificationError,
    apply_parameters,
    identify,
)
from robot_dynamics.core.pseudo_inertia import (
    is_physically_consistent,
    log_cholesky_to_parameters,
    parameters_to_log_cholesky,
    pseudo_inertia,
)
from robot_dynamics.core.regressor import ParameterLayout, inertia_to_parameters, regressor
from robot_dynamics.core.spatial import inertia_parameters, spatial_inertia


def perturbed_truth(model, layout, rng):
    """Ground truth: masses and inertias scaled by 0.8-1.25, COMs moved by up to 2 cm (a
    physically consistent body each), friction (and offsets) drawn per joint."""
    theta = layout.nominal(model).copy()
    bodies = []
    for b in range(model.tree.nb):
        m, c, Ic = inertia_parameters(model.tree.inertia[b])
        m2 = m * rng.uniform(0.8, 1.25) + 0.05
        c2 = c + rng.uniform(-0.02, 0.02, 3)
        Ic2 = Ic * rng.uniform(0.8, 1.25) + 1e-4 * np.eye(3)
        bodies.append(inertia_to_parameters(spatial_inertia(m2, c2, Ic2)))
    theta[: layout.n_inertial] = np.concatenate(bodies)
    for group in layout.groups:
        theta[layout.group_slice(group)] = rng.uniform(0.1, 1.0, model.n)
    return theta


def sine_trajectory(model, rng, duration=20.0, rate=100.0):
    """Sum of three sines per joint inside 60 % of the position range (q, qd, qdd)."""
    lo, hi = model.position_limits
    lo = np.where(np.isfinite(lo), lo, -np.pi)
    hi = np.where(np.isfinite(hi), hi, np.pi)
    t = np.arange(0.0, duration, 1.0 / rate)[:, None]
    q = np.zeros((t.size, model.n))
    qd, qdd = np.zeros_like(q), np.zeros_like(q)
    for harmonic in range(1, 4):
        w = 2 * np.pi * 0.1 * harmonic
        a = rng.normal(size=model.n) * 0.3 / harmonic
        phase = rng.uniform(0, 2 * np.pi, model.n)
        q += a * np.sin(w * t + phase)
        qd += a * w * np.cos(w * t + phase)
        qdd -= a * w * w * np.sin(w * t + phase)
    s = np.minimum(0.3 * (hi - lo) / np.maximum(np.abs(q).max(axis=0), 1e-9), 1.0)
    return (lo + hi) / 2 + q * s, qd * s, qdd * s


def measured(model, layout, theta, q, qd, qdd):
    return regressor(model, q, qd, qdd, layout) @ theta


# ------------------------------------------------------------------ base parameters
def test_planar_2r_base_parameter_count():
    # the double pendulum: joints about z; gravity along the axes (horizontal plane)
    model = load_model("double_pendulum").with_gravity([0.0, 0.0, -9.81])
    inertial = ParameterLayout.for_model(model, viscous=False, coulomb=False)
    base = base_parameters(model, inertial)
    assert base.count == 4
    assert "link1.izz +1 link2.m" in base.names  # ZZ1R = ZZ1 + l1^2 m2 (l1 = 1 m)
    # gravity in the plane of motion adds the first moments of both links (Khalil: 6)
    vertical = load_model("double_pendulum")
    assert base_parameters(vertical, inertial).count == 6
    # viscous and Coulomb friction: one column each per joint
    assert base_parameters(vertical, ParameterLayout.for_model(vertical)).count == 10


@pytest.mark.parametrize("name, count", [("ur5", 36), ("panda_arm", 43), ("kinova", 36)])
def test_base_parameter_count_of_real_arms(name, count):
    # 7 per revolute body, 1 for a first axis along gravity; kinova's URDF rounds pi, which
    # must not create parameters seen through a 1e-13 lever
    model = load_model(name) if name == "panda_arm" else _erd(name)
    layout = ParameterLayout.for_model(model, viscous=False, coulomb=False)
    assert base_parameters(model, layout).count == count


def _erd(name):
    return pytest.importorskip("pinocchio") and load_model(name)


@pytest.mark.parametrize("name", robot_params(["mixed", "ytree", "panda_gripper"]))
def test_base_regressor_reproduces_full_regressor(name, rng):
    model = load_model(name)
    layout = ParameterLayout.for_model(model, offset=True, armature=True)
    base = base_parameters(model, layout)
    q, qd, qdd = random_states(model, 10, rng)
    Y = regressor(model, q, qd, qdd, layout)
    theta = rng.normal(size=(3, layout.size))
    for th in theta:
        assert_close(base.base_regressor(Y) @ base.from_full(th), Y @ th, 1e-10, name)
    assert base.null_space().shape == (layout.size, layout.size - base.count)


# ------------------------------------------------------------------ consistency
def test_log_cholesky_round_trip_and_consistency(rng):
    x = rng.normal(size=(20, 10))
    theta = log_cholesky_to_parameters(x)
    assert np.all(is_physically_consistent(theta))
    assert np.all(np.linalg.eigvalsh(pseudo_inertia(theta)) > 0)
    assert_close(parameters_to_log_cholesky(theta), x, 1e-9)
    # a rod violating the triangle inequality (Izz > Ixx + Iyy about the COM)
    bad = inertia_to_parameters(spatial_inertia(1.0, np.zeros(3), np.diag([0.01, 0.01, 0.05])))
    good = inertia_to_parameters(spatial_inertia(1.0, np.zeros(3), np.diag([0.03, 0.03, 0.05])))
    assert not is_physically_consistent(bad) and is_physically_consistent(good)
    assert not is_physically_consistent(-good)  # negative mass


# ------------------------------------------------------------------ identification
@pytest.mark.parametrize("name", robot_params(["double_pendulum", "mixed", "bundled_panda"]))
def test_identify_noise_free_recovers_the_truth_torques(name, rng):
    model = load_model(name)
    layout = ParameterLayout.for_model(model)
    truth = perturbed_truth(model, layout, rng)
    q, qd, qdd = sine_trajectory(model, rng)
    result = identify(model, q, qd, qdd, measured(model, layout, truth, q, qd, qdd))
    assert result.samples == len(q) and result.base.count == len(result.beta)
    assert np.all(is_physically_consistent(result.body_parameters()))
    # held-out trajectory: the identified model (consistent set, as a RobotModel) = the truth
    q2, qd2, qdd2 = sine_trajectory(model, rng)
    expected = measured(model, layout, truth, q2, qd2, qdd2)
    identified = result.apply(model)
    got = identified.inverse_dynamics(q2, qd2, qdd2) + identified.friction_torques(qd2)
    assert_close(got, expected, 1e-6, f"{name} identified model")
    assert_close(result.torques(model, q2, qd2, qdd2, "base"), expected, 1e-9, "base")
    nominal_error = np.abs(result.torques(model, q2, qd2, qdd2, "nominal") - expected).max()
    assert nominal_error > 0.01  # the truth differs from the nominal model


def test_identify_with_noise_reaches_the_noise_level(rng):
    model = load_model("bundled_panda")
    layout = ParameterLayout.for_model(model)
    truth = perturbed_truth(model, layout, rng)
    noise = 0.3
    q, qd, qdd = sine_trajectory(model, rng, duration=40.0)
    tau = measured(model, layout, truth, q, qd, qdd)
    result = identify(model, q, qd, qdd, tau + noise * rng.normal(size=tau.shape))
    assert np.all(is_physically_consistent(result.body_parameters()))
    assert np.all(result.joint_sigma < 1.2 * noise)
    assert np.all(result.beta_std > 0) and np.all(np.isfinite(result.beta_std))
    q2, qd2, qdd2 = sine_trajectory(model, rng)
    tau2 = measured(model, layout, truth, q2, qd2, qdd2)
    tau2_noisy = tau2 + noise * rng.normal(size=tau2.shape)
    rms = np.sqrt(((result.torques(model, q2, qd2, qdd2) - tau2_noisy) ** 2).mean(axis=0))
    assert np.all(rms < 1.15 * noise) and np.all(rms > 0.85 * noise), rms
    rms_nominal = np.sqrt(
        ((result.torques(model, q2, qd2, qdd2, "nominal") - tau2_noisy) ** 2).mean(axis=0)
    )
    assert rms_nominal.max() > 3 * noise
    # link 1 turns about the vertical axis: no joint torque sees its mass or centre of mass,
    # which stay the URDF's
    np.testing.assert_allclose(result.theta[:4], result.theta_nominal[:4], rtol=1e-6, atol=1e-9)


def test_identify_bad_data(rng):
    model = load_model("mixed")
    layout = ParameterLayout.for_model(model)
    truth = perturbed_truth(model, layout, rng)
    q, qd, qdd = sine_trajectory(model, rng, duration=2.0)
    tau = measured(model, layout, truth, q, qd, qdd)
    with pytest.raises(IdentificationError, match="too few samples: 5 samples"):
        identify(model, q[:5], qd[:5], qdd[:5], tau[:5])
    # the arm at rest: no velocity, no acceleration
    z = np.zeros_like(q)
    with pytest.raises(IdentificationError, match="does not excite.*at all: .*(izz|viscous)"):
        identify(model, q, z, z, measured(model, layout, truth, q, z, z))
    # one joint moving: excited, but far from enough
    q1, qd1, qdd1 = q.copy(), qd.copy(), qdd.copy()
    q1[:, 1:] = q[0, 1:]
    qd1[:, 1:] = 0.0
    qdd1[:, 1:] = 0.0
    tau1 = measured(model, layout, truth, q1, qd1, qdd1)
    with pytest.raises(IdentificationError, match="at all: j2.viscous"):
        identify(model, q1, qd1, qdd1, tau1)
    inertial = ParameterLayout.for_model(model, viscous=False, coulomb=False)
    with pytest.raises(IdentificationError, match="condition number"):
        identify(model, q1, qd1, qdd1, tau1, layout=inertial)
    with pytest.raises(Exception, match="tau has a NaN"):
        bad = tau.copy()
        bad[3, 2] = np.nan
        identify(model, q, qd, qdd, bad)


def test_apply_parameters_round_trip():
    model = load_model("mixed")
    layout = ParameterLayout.for_model(model)
    theta = layout.nominal(model)
    again = apply_parameters(model, layout, theta)
    assert_close(again.tree.inertia, model.tree.inertia, 1e-14)
    assert_close(again.friction.viscous, model.friction.viscous, 0)


def test_fourier_trajectory_derivatives_and_limits(rng):
    from robot_dynamics.core.excitation import optimize_excitation

    model = load_model("double_pendulum")
    traj, condition = optimize_excitation(model, maxiter=3, max_acceleration=5.0)
    assert condition < 100
    t = np.linspace(0.0, 10.0, 2001)
    q, qd, qdd = traj.evaluate(t)
    h = t[1] - t[0]
    assert_close(np.gradient(q, h, axis=0)[1:-1], qd[1:-1], 1e-3, "qd")
    assert_close(np.gradient(qd, h, axis=0)[1:-1], qdd[1:-1], 1e-3, "qdd")
    assert_close(qd[0], np.zeros(2), 1e-12) and assert_close(qdd[0], np.zeros(2), 1e-12)
    assert_close(q[-1], q[0], 1e-3, "periodic")
    lower, upper = model.position_limits
    assert np.all(q >= lower + 0.1 * (upper - lower) - 1e-9)
    assert np.all(np.abs(qdd) <= 4.5 + 1e-9)


# ------------------------------------------------------------------ payload
PAYLOAD_MASS = 1.5
PAYLOAD_COM = np.array([0.01, -0.02, 0.06])
PAYLOAD_INERTIA = np.array([[0.004, 0.0002, 0.0], [0.0002, 0.005, -0.0003], [0.0, -0.0003, 0.003]])


def test_payload_from_four_static_noisy_poses(rng):
    from robot_dynamics.core.payload import identify_payload

    model = load_model("bundled_panda")
    truth = model.with_payload(PAYLOAD_MASS, PAYLOAD_COM, PAYLOAD_INERTIA, frame="tool")
    poses = np.array(
        [
            [0.0, -0.3, 0.0, -2.0, 0.0, 1.6, 0.8],
            [0.5, 0.2, -0.3, -1.5, 1.2, 1.0, -0.5],
            [-0.4, 0.4, 0.6, -2.2, -1.0, 2.2, 1.5],
            [0.2, -0.6, 0.2, -1.0, 0.7, 0.5, -1.8],
        ]
    )
    q = np.repeat(poses, 100, axis=0)
    z = np.zeros_like(q)
    tau = truth.gravity_torques(q) + 0.05 * rng.normal(size=q.shape)
    est = identify_payload(model, q, z, z, tau, frame="tool")
    assert abs(est.mass - PAYLOAD_MASS) < 0.01 * PAYLOAD_MASS
    assert np.all(np.abs(est.com - PAYLOAD_COM) < 0.005), est.com
    assert 0 < est.mass_std < 0.01 and np.all(est.com_std < 0.005)
    assert est.inertia is None and any("inertia: not determined" in u for u in est.undetermined)
    assert est.samples == 400 and np.all(est.residual_rms < 0.07)


def test_payload_inertia_from_motion_and_one_pose(rng):
    from robot_dynamics.core.payload import identify_payload

    model = load_model("bundled_panda")
    truth = model.with_payload(PAYLOAD_MASS, PAYLOAD_COM, PAYLOAD_INERTIA, frame="tool")
    q, qd, qdd = sine_trajectory(model, rng, duration=10.0, rate=50.0)
    tau = truth.inverse_dynamics(q, qd, qdd) + model.friction_torques(qd)
    est = identify_payload(model, q, qd, qdd, tau, frame="tool")
    assert np.all(est.determined) and est.undetermined == ()
    assert abs(est.mass - PAYLOAD_MASS) < 1e-8 and np.allclose(est.com, PAYLOAD_COM, atol=1e-8)
    assert np.allclose(est.inertia, PAYLOAD_INERTIA, atol=1e-7)
    # one static pose: the mass, and only the COM components that gravity turns into torques
    one = np.repeat(q[:1], 20, axis=0)
    z = np.zeros_like(one)
    est = identify_payload(model, one, z, z, truth.gravity_torques(one), frame="tool")
    assert abs(est.mass - PAYLOAD_MASS) < 1e-6
    assert np.count_nonzero(np.isnan(est.com)) >= 1
    assert any("centre of mass along" in u for u in est.undetermined)


def test_payload_centre_of_mass_and_inertia_are_reported_where_the_data_resolve_them():
    """With torque noise, a rich 10 s motion resolves centre of mass and inertia (a load of ~0.07
    kg m^2: within 3 standard errors of the truth); a second of the same motion at 1/20 of its
    amplitude determines them numerically but cannot tell them from the noise (a centre of mass
    of a metre, an inertia of tens of kg m^2): they are left out, named, the mass still right;
    static poses held with a wobble resolve the centre of mass but not the inertia."""
    from robot_dynamics.core.payload import (
        COM_RESOLUTION,
        INERTIA_SIGNIFICANCE,
        identify_payload,
    )

    model = load_model("bundled_panda")
    inertia = np.diag([0.06, 0.08, 0.05])
    truth = model.with_payload(PAYLOAD_MASS, PAYLOAD_COM, inertia, frame="tool")
    rng = np.random.default_rng(3)

    def measured(q, qd, qdd):
        tau = truth.inverse_dynamics(q, qd, qdd) + model.friction_torques(qd)
        return tau + 0.05 * rng.normal(size=q.shape)

    q, qd, qdd = sine_trajectory(model, rng, duration=10.0, rate=100.0)
    est = identify_payload(model, q, qd, qdd, measured(q, qd, qdd), frame="tool")
    assert est.undetermined == () and np.all(est.determined)
    assert np.all(np.abs(est.com - PAYLOAD_COM) < 3.0 * est.com_std)
    assert np.all(PAYLOAD_MASS * 9.81 * est.com_std < COM_RESOLUTION * 0.05)
    big = np.max(np.abs(np.linalg.eigvalsh(est.inertia)))
    assert big > INERTIA_SIGNIFICANCE * np.max(est.inertia_std)
    assert np.all(np.abs(est.inertia - inertia) < 3.0 * np.max(est.inertia_std))
    # one second of the same motion at 1/20 of its amplitude
    mid = q[:100].mean(axis=0)
    q, qd, qdd = mid + 0.05 * (q[:100] - mid), 0.05 * qd[:100], 0.05 * qdd[:100]
    est = identify_payload(model, q, qd, qdd, measured(q, qd, qdd), frame="tool")
    assert abs(est.mass - PAYLOAD_MASS) < 0.01 * PAYLOAD_MASS
    assert list(est.determined) == [True] + [False] * 9
    assert np.isnan(est.com).all() and np.isnan(est.com_std).all()
    assert est.inertia is None and est.inertia_std is None
    notes = [u.split(" (")[0] for u in est.undetermined]
    assert notes == [f"centre of mass along {axis}: not resolved by the data" for axis in "xyz"] + [
        "inertia: not determined without the whole centre of mass"
    ]
    # four poses, each held with a 0.2 mrad wobble: the centre of mass is resolved, the inertia
    # only numerically determined (its principal moments within the noise)
    poses = np.array(
        [
            [0.0, -0.3, 0.0, -2.0, 0.0, 1.6, 0.8],
            [0.5, 0.2, -0.3, -1.5, 1.2, 1.0, -0.5],
            [-0.4, 0.4, 0.6, -2.2, -1.0, 2.2, 1.5],
            [0.2, -0.6, 0.2, -1.0, 0.7, 0.5, -1.8],
        ]
    )
    w, t = 2 * np.pi * 2.0, np.arange(100)[:, None] * 0.01  # each joint: 2e-4 sin(w t)
    q = np.concatenate([pose + 2e-4 * np.sin(w * t) for pose in poses])
    qd = np.tile(2e-4 * w * np.cos(w * t), (len(poses), model.n))
    qdd = np.tile(-2e-4 * w * w * np.sin(w * t), (len(poses), model.n))
    est = identify_payload(model, q, qd, qdd, measured(q, qd, qdd), frame="tool")
    assert np.all(est.determined[:4]) and np.all(np.abs(est.com - PAYLOAD_COM) < 3 * est.com_std)
    assert est.inertia is None and not np.any(est.determined[4:])
    (note,) = est.undetermined
    assert note.startswith("inertia: not resolved by the data (largest principal moment ")


def test_payload_fit_predicts_the_loaded_robot(rng):
    # the window choice's payload fit: fitted on one motion, it predicts the loaded robot's
    # torques (rigid body and friction) on another; a joint without a torque is NaN
    from types import SimpleNamespace

    from robot_dynamics.core.payload import payload_fit

    model = load_model("bundled_panda")
    truth = model.with_payload(PAYLOAD_MASS, PAYLOAD_COM, PAYLOAD_INERTIA, frame="tool")
    mask = np.array([True] * 6 + [False])
    fit = payload_fit(model, SimpleNamespace(effort_mask=mask), frame="tool")
    q, qd, qdd = sine_trajectory(model, rng, duration=10.0, rate=50.0)
    predict = fit(q, qd, qdd, truth.inverse_dynamics(q, qd, qdd) + model.friction_torques(qd))
    q, qd, qdd = (x[::-1] + 0.1 for x in (q, qd, qdd))
    tau = predict(q, qd, qdd)
    expected = truth.inverse_dynamics(q, qd, qdd) + model.friction_torques(qd)
    np.testing.assert_allclose(tau[:, :6], expected[:, :6], atol=1e-7)
    assert np.all(np.isnan(tau[:, 6]))


def test_payload_effort_mask(rng):
    # joint 2 has no torque sensor (NaN), joint 7 reports 0: with both masked the fit is the
    # least-squares fit of the other joints' rows, and finds the payload
    from robot_dynamics.core import InvalidInputError
    from robot_dynamics.core.payload import frame_parameter_map, identify_payload

    model = load_model("bundled_panda")
    truth = model.with_payload(PAYLOAD_MASS, PAYLOAD_COM, PAYLOAD_INERTIA, frame="tool")
    q, qd, qdd = sine_trajectory(model, rng, duration=10.0, rate=50.0)
    tau = truth.inverse_dynamics(q, qd, qdd) + model.friction_torques(qd)
    tau += 0.05 * rng.normal(size=tau.shape)
    tau[:, 1] = np.nan
    tau[:, 6] = 0.0
    mask = np.ones(model.n, bool)
    mask[[1, 6]] = False
    est = identify_payload(model, q, qd, qdd, tau, frame="tool", effort_mask=mask)
    body, T = frame_parameter_map(model, "tool")
    layout = ParameterLayout.for_model(model, viscous=False, coulomb=False)
    Y = regressor(model, q, qd, qdd, layout)[..., 10 * body : 10 * body + 10] @ T
    rest = tau - model.inverse_dynamics(q, qd, qdd) - model.friction_torques(qd)
    phi = np.linalg.lstsq(Y[:, mask].reshape(-1, 10), rest[:, mask].reshape(-1), rcond=None)[0]
    assert np.all(est.determined[:4])  # mass and centre of mass (the small inertia: the noise's)
    assert_close(est.parameters, phi, 1e-8, "masked fit")
    assert abs(est.mass - PAYLOAD_MASS) < 0.01 and np.all(np.abs(est.com - PAYLOAD_COM) < 2e-3)
    assert np.isnan(est.residual_rms[~mask]).all() and np.all(est.residual_rms[mask] < 0.07)
    # a NaN on a measured joint is refused, naming it
    with pytest.raises(InvalidInputError, match="'panda_joint2'"):
        identify_payload(model, q, qd, qdd, tau)
    # a mask that leaves no joint carrying the frame, or is not n booleans
    with pytest.raises(IdentificationError, match="carries frame 'panda_link3'"):
        identify_payload(
            model, q, qd, qdd, tau, frame="panda_link3", effort_mask=[0, 0, 0, 1, 1, 1, 1]
        )
    with pytest.raises(IdentificationError, match="effort_mask must be 7 booleans"):
        identify_payload(model, q, qd, qdd, tau, effort_mask=[True] * 3)


def test_payload_bad_input():
    from robot_dynamics.core import UnknownFrameError
    from robot_dynamics.core.payload import identify_payload

    model = load_model("bundled_panda")
    q = np.zeros((5, 7))
    with pytest.raises(UnknownFrameError, match="toool"):
        identify_payload(model, q, q, q, q, frame="toool")
    with pytest.raises(IdentificationError, match="fixed to the base"):
        identify_payload(model, q, q, q, q, frame="panda_link0")
    with pytest.raises(IdentificationError, match="one shape"):
        identify_payload(model, q, q[:3], q, q)


def test_identify_with_held_joints_and_unmeasured_torques(rng):
    # the tree's right branch held still (not recorded), left_j2 without a torque sensor: the
    # fit uses the measured rows only, the base parameters are those such data show, and a NaN
    # in the unmeasured column is never read
    model = load_model("ytree")
    layout = ParameterLayout.for_model(model)
    truth = perturbed_truth(model, layout, rng)
    names = list(model.joint_names)
    held = np.full(model.n, np.nan)
    held[names.index("right_j1")], held[names.index("right_j2")] = 0.3, 0.05
    mask = np.ones(model.n, bool)
    mask[names.index("left_j2")] = False
    fixed = np.isfinite(held)
    q, qd, qdd = sine_trajectory(model, rng)
    q[:, fixed], qd[:, fixed], qdd[:, fixed] = held[fixed], 0.0, 0.0
    tau = measured(model, layout, truth, q, qd, qdd)
    tau[:, ~mask] = np.nan
    full = base_parameters(model, layout)
    seen = base_parameters(model, layout, effort_mask=mask, held=held)
    assert seen.count < full.count
    assert not any("left_j2.viscous" in name for name in seen.names)
    assert not any("right_j2" in name for name in seen.names)
    with pytest.raises(IdentificationError, match="does not excite"):
        identify(model, q, qd, qdd, np.nan_to_num(tau))  # as if every joint were measured
    result = identify(model, q, qd, qdd, tau, effort_mask=mask, held=held)
    assert np.isnan(result.joint_sigma[~mask]).all() and np.all(result.joint_sigma[mask] < 1e-4)
    q2, qd2, qdd2 = sine_trajectory(model, rng)
    q2[:, fixed], qd2[:, fixed], qdd2[:, fixed] = held[fixed], 0.0, 0.0
    expected = measured(model, layout, truth, q2, qd2, qdd2)
    got = result.torques(model, q2, qd2, qdd2)
    assert_close(got[:, mask], expected[:, mask], 1e-6, "measured joints")
    # what no row shows stays nominal: left_j2's friction
    k = names.index("left_j2")
    assert result.group("viscous")[k] == pytest.approx(model.friction.viscous[k], abs=1e-6)
    with pytest.raises(IdentificationError, match="at least one measured joint"):
        identify(model, q, qd, qdd, tau, effort_mask=np.zeros(model.n, bool))
