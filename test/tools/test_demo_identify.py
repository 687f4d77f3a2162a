"""The identify scenario's analysis pieces without DDS (robot_dynamics.tools.demo.identify_analysis
and the tracker's setup file): the perturbed "true" robot, the excitation reference, the
impedance feed-forward, identification of a recording, the before/after wrench errors."""

import os

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.excitation import optimize_excitation
from robot_dynamics.core.pseudo_inertia import is_physically_consistent
from robot_dynamics.core.regressor import ParameterLayout
from robot_dynamics.tools.demo import identify_analysis as IA
from robot_dynamics.tools.demo.analysis import Recording
from robot_dynamics.tools.demo.tracker import load_reference, save_reference

PANDA_URDF = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "urdf",
    "panda_arm.urdf",
)
Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])


@pytest.fixture(scope="module")
def nominal():
    with open(PANDA_URDF) as f:
        urdf = f.read()
    return urdf, RobotModel.from_urdf_string(urdf)


@pytest.fixture(scope="module")
def true(nominal):
    urdf, model = nominal
    return IA.true_robot(urdf, model, tool_mass=1.5, seed=3)


@pytest.fixture(scope="module")
def excitation(nominal):
    _, model = nominal
    traj, _ = optimize_excitation(
        model, period=6.0, maxiter=3, starts=1, samples=40, max_acceleration=2.0, margin=0.15
    )
    return traj


def test_true_robot_differs_as_stated_and_is_physically_consistent(nominal, true):
    urdf, model = nominal
    layout = ParameterLayout.for_model(model)
    nominal_theta = layout.nominal(model)
    tip_body = model.tree.frames[model.tip_link].body
    m_nom = nominal_theta[: layout.n_inertial : 10]
    m_true = true.theta[: layout.n_inertial : 10]
    for b in range(layout.nb):
        tool = 1.5 if b == tip_body else 0.0
        change = abs((m_true[b] - tool) / m_nom[b] - 1.0)
        assert 0.10 - 1e-9 <= change <= 0.25 + 1e-9, (b, change)
    limits = np.asarray(model.effort_limits)
    viscous = true.theta[layout.group_slice("viscous")] / limits
    coulomb = true.theta[layout.group_slice("coulomb")] / limits
    assert np.all((viscous >= IA.VISCOUS[0]) & (viscous <= IA.VISCOUS[1]))
    assert np.all((coulomb >= IA.COULOMB[0]) & (coulomb <= IA.COULOMB[1]))
    assert np.all(is_physically_consistent(true.theta[: layout.n_inertial].reshape(-1, 10)))
    # the URDF the simulator reads is that robot
    reread = RobotModel.from_urdf_string(true.urdf)
    np.testing.assert_allclose(layout.nominal(reread), true.theta, atol=1e-9)
    np.testing.assert_allclose(
        reread.gravity_torques(Q0), true.model.gravity_torques(Q0), atol=1e-9
    )
    assert np.abs(true.model.gravity_torques(Q0) - model.gravity_torques(Q0)).max() > 1.0


def test_quintic_and_reference_start_and_end_at_rest_continuously(excitation):
    q_a, q_b = np.zeros(7), np.linspace(-1, 1, 7)
    for t, want in ((0.0, q_a), (2.0, q_b), (5.0, q_b)):
        q, qd, qdd = IA.quintic(q_a, q_b, 2.0, t)
        np.testing.assert_allclose(q, want, atol=1e-12)
        np.testing.assert_allclose(qd, 0.0, atol=1e-12)
    ref = IA.ExcitationReference(excitation, Q0, 2, 1.5)
    assert ref.duration == pytest.approx(3.0 + 2 * excitation.period)
    for t in (0.0, ref.duration):
        q, qd, _ = ref(t)
        np.testing.assert_allclose(q, Q0, atol=1e-9)
        np.testing.assert_allclose(qd, 0.0, atol=1e-9)
    for boundary in (ref.move_time, ref.move_time + ref.excite_time):
        before, after = ref(boundary - 1e-7), ref(boundary + 1e-7)
        np.testing.assert_allclose(before[0], after[0], atol=1e-5)
        np.testing.assert_allclose(before[1], after[1], atol=1e-4)


def test_impedance_feedforward_makes_the_drives_act_around_the_reference(nominal, excitation):
    _, model = nominal
    ref = IA.ExcitationReference(excitation, Q0, 1, 1.0)(2.3)
    K, D = np.linspace(10, 70, 7), np.linspace(1, 7, 7)
    command = IA.impedance_feedforward(model, ref, K, D, Q0)
    q, qd = ref[0] + 0.01, ref[1] - 0.02  # off the reference
    drives = command + K * (Q0 - q) - D * qd  # what the simulated drives apply
    expected = model.inverse_dynamics(*ref) + model.friction_torques(ref[1])
    np.testing.assert_allclose(drives, expected + K * (ref[0] - q) + D * (ref[1] - qd), atol=1e-9)


def test_tracker_setup_round_trips(tmp_path, nominal, excitation):
    urdf, model = nominal
    setup = type(
        "Setup",
        (),
        {
            "urdf": urdf,
            "base_link": "panda_link0",
            "tip_link": "tool",
            "gravity": (0, 0, -9.81),
            "q0": Q0,
        },
    )()
    path = str(tmp_path / "tracker.npz")
    save_reference(path, setup, excitation, 2, 1.5, np.ones(7), 2 * np.ones(7))
    loaded, ref, K, D = load_reference(path)
    assert loaded.joint_names == model.joint_names
    original = IA.ExcitationReference(excitation, Q0, 2, 1.5)
    for t in (0.3, 4.0, original.duration - 0.2):
        for a, b in zip(ref(t), original(t)):
            np.testing.assert_allclose(a, b, atol=1e-12)
    np.testing.assert_array_equal(K, 1.0)
    np.testing.assert_array_equal(D, 2.0)


def test_identify_recording_recovers_the_true_torques(nominal, true, excitation):
    urdf, model = nominal
    ref = IA.ExcitationReference(excitation, Q0, 2, 1.0)
    t = np.arange(0.0, ref.duration, 0.004)
    q, qd, qdd = (np.array(x) for x in zip(*(ref(s) for s in t)))
    noise = 0.05
    rng = np.random.default_rng(0)
    tau = true.model.inverse_dynamics(q, qd, qdd) + true.model.friction_torques(qd)
    tau = tau + rng.normal(0.0, noise, tau.shape)
    found = IA.identify_recording(urdf, model, t, q, qd, tau, true=true, rate=100.0)
    rep = found.report
    identified = np.array(rep["torque_rms_identified"])
    floor = np.array(rep["torque_rms_true"])
    assert np.all(identified <= 1.5 * floor + 0.01), (identified, floor)
    assert np.mean(rep["torque_rms_nominal"]) > 10 * np.mean(identified)
    # the identified model's gravity at the held pose is the true one (what the pushes need)
    g_err = found.model.gravity_torques(Q0) - true.model.gravity_torques(Q0)
    assert np.abs(g_err).max() < 0.1, g_err
    assert rep["base_parameter_count"] > 0 and rep["samples_used"] > 0
    reread = RobotModel.from_urdf_string(found.urdf)
    assert reread.joint_names == model.joint_names


def recording(offset):
    """Constructed push rounds: rest 1 s, push 1 s, rest 1 s at 100 Hz; estimate = applied +
    offset after 0.1 s of convergence."""
    rec = Recording()
    rec.est_frame = "panda_link0"  # base axes, moment about the base origin
    push = np.array([0.0, 0.0, -10.0, 0.0, 0.0, 0.0])
    for k in range(300):
        stamp = 1_000_000_000 + k * 10_000_000
        applied = push if 100 <= k < 200 else np.zeros(6)
        rec.js_stamp.append(stamp)
        rec.js_q.append(np.zeros(7))
        rec.js_qd.append(np.zeros(7))
        rec.js_effort.append(np.zeros(7))
        rec.app_stamp.append(stamp)
        rec.app_wrench.append(applied)
        rec.est_stamp.append(stamp)
        converged = (k % 100) >= 10
        rec.est_wrench.append(applied + (offset if converged else 5 * offset))
    return rec


def test_steady_errors_compare_and_improvement(nominal):
    _, model = nominal
    start, end = 1_000_000_000, 1_000_000_000 + 300 * 10_000_000
    # the estimate at the base link: moment about the base origin; the tip's moment differs
    offset = np.array([1.0, -2.0, 0.5, 0.0, 0.0, 0.0])
    before = IA.steady_errors(recording(offset), model, "panda_link0", start, end, settle=0.5)
    assert len(before) == 3
    for segment, applied_fz in zip(before, (0.0, -10.0, 0.0)):
        assert segment["applied"][2] == applied_fz
        np.testing.assert_allclose(segment["error"], offset, atol=1e-12)
        assert segment["force_error_N"] == pytest.approx(np.linalg.norm(offset[:3]))
    after = IA.steady_errors(recording(0.1 * offset), model, "panda_link0", start, end)
    rows = IA.compare(before, after)
    assert [r["phase"] for r in rows] == ["at rest", "push f=(0, 0, -10) N", "at rest"]
    assert IA.improvement(rows) == pytest.approx(0.1)
    assert IA.steady_errors(Recording(), model, "tool", start, end) == []
    assert np.isnan(IA.improvement([]))
    assert IA.phase_name([0, 5, 0, 0, 0, 1]) == "push f=(0, 5, 0) N, n=(0, 0, 1) N m"
