"""Identities of rigid-body dynamics on random configurations of several robots
(reference section 2): M SPD, Mdot - 2C skew, C qd = h - g, forward/inverse dynamics,
g = dP/dq, Jacobian = d(pose)/dq, the sign of J^T f_ext, energies, Jdot qd, batch semantics."""

import numpy as np
import pytest

import oracles
import robot_urdfs
import urdf_reader
from core_helpers import load_model, random_state, robot_params
from oracles import assert_close

ROBOTS = ["double_pendulum", "mixed", "ytree", "ur5", "panda_gripper", "baxter", "kinova"]
N_CONF = 3


def _scale(x):
    return max(1.0, float(np.max(np.abs(x))))


def _mv(A, x):
    return (A @ x[..., None])[..., 0]


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_joint_names_are_the_actuated_joints(name):
    model = load_model(name)
    info = urdf_reader.parse_urdf(robot_urdfs.urdf_xml(name))
    expected = {j.name for j in info.joints.values() if j.type != "fixed" and j.mimic is None}
    assert set(model.joint_names) == expected
    assert len(model.joint_names) == model.n == len(expected)


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_mass_matrix_symmetric_positive_definite(name, rng):
    model = load_model(name)
    q, _, _ = random_state(model, name, rng, (N_CONF,))
    M = model.mass_matrix(q)
    assert M.shape == (N_CONF, model.n, model.n)
    assert_close(M, np.swapaxes(M, -1, -2), 1e-14, "M - M^T")
    assert np.all(np.linalg.eigvalsh(M) > 0), "M not positive definite"


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_mdot_minus_2c_skew(name, rng):
    model = load_model(name)
    q, qd, _ = random_state(model, name, rng, (N_CONF,))
    h = 1e-4
    for qi, qdi in zip(q, qd):
        Mdot = (
            -model.mass_matrix(qi + 2 * h * qdi)
            + 8 * model.mass_matrix(qi + h * qdi)
            - 8 * model.mass_matrix(qi - h * qdi)
            + model.mass_matrix(qi - 2 * h * qdi)
        ) / (12 * h)
        S = Mdot - 2 * model.coriolis_matrix(qi, qdi)
        assert_close(S, -S.T, 1e-7, f"{name}: Mdot - 2C not skew at q={qi.tolist()}")


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_coriolis_is_christoffel(name, rng):
    """C_kj = sum_i c_ijk qd_i with Christoffel symbols of finite-difference dM/dq."""
    model = load_model(name)
    q, qd, _ = random_state(model, name, rng, (2,))
    for qi, qdi in zip(q, qd):
        C_fd = oracles.christoffel_from_dM(oracles.fd_dM(model.mass_matrix, qi, 1e-4), qdi)
        assert_close(
            model.coriolis_matrix(qi, qdi), C_fd, 1e-7, f"{name}: C vs Christoffel(FD of M)"
        )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_c_qd_equals_nonlinear_effects_minus_gravity(name, rng):
    model = load_model(name)
    q, qd, _ = random_state(model, name, rng, (N_CONF,))
    Cqd = _mv(model.coriolis_matrix(q, qd), qd)
    h = model.nonlinear_effects(q, qd)
    g = model.gravity_torques(q)
    assert_close(Cqd, h - g, 1e-10, "C qd vs h - g")
    z = np.zeros_like(qd)
    assert_close(model.inverse_dynamics(q, qd, z), h, 1e-12, "RNEA(q, qd, 0) = h")
    assert_close(model.inverse_dynamics(q, z, z), g, 1e-12, "RNEA(q, 0, 0) = g")


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_aba_solves_the_mass_matrix_system(name, rng):
    """The articulated-body algorithm (no matrices) against ``M^-1 (tau + J^T f - h)`` from the
    CRBA and the RNEA, on chains and on branching trees (several children of one parent),
    batched, with and without a wrench, armature included."""
    model = load_model(name)
    if model.tree.has_mimic:
        pytest.skip("aba does not handle mimic joints")
    frame = robot_urdfs.default_frame(name)
    q, qd, qdd = random_state(model, name, rng, (N_CONF,))
    tau = model.inverse_dynamics(q, qd, qdd)
    M = model.mass_matrix(q)
    h = model.nonlinear_effects(q, qd)
    cond = float(np.max(np.linalg.cond(M)))
    expected = np.linalg.solve(M, (tau - h)[..., None])[..., 0]
    assert_close(model.aba(q, qd, tau), expected, 1e-12 * max(cond, 1e3), "aba = M^-1 (tau - h)")
    assert_close(model.forward_dynamics(q, qd, tau), expected, 1e-12 * max(cond, 1e3), "fd")
    f = rng.normal(scale=5.0, size=(N_CONF, 6))
    JTf = (model.jacobian(q, frame, "base").swapaxes(-1, -2) @ f[..., None])[..., 0]
    expected = np.linalg.solve(M, (tau + JTf - h)[..., None])[..., 0]
    assert_close(
        model.aba(q, qd, tau, f_ext=f, frame=frame),
        expected,
        1e-12 * max(cond, 1e3),
        "aba = M^-1 (tau + J^T f - h)",
    )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_inverse_dynamics_is_m_qdd_plus_h(name, rng):
    model = load_model(name)
    q, qd, qdd = random_state(model, name, rng, (N_CONF,))
    tau = model.inverse_dynamics(q, qd, qdd)
    assert_close(
        tau,
        _mv(model.mass_matrix(q), qdd) + model.nonlinear_effects(q, qd),
        1e-10,
        "tau = M qdd + h",
    )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_forward_dynamics_inverts_inverse_dynamics(name, rng):
    model = load_model(name)
    frame = robot_urdfs.default_frame(name)
    q, qd, qdd = random_state(model, name, rng, (N_CONF,))
    tau = model.inverse_dynamics(q, qd, qdd)
    qdd_back = model.forward_dynamics(q, qd, tau)
    # error relative to the size of qdd, amplified by cond(M)
    cond = float(np.max(np.linalg.cond(model.mass_matrix(q))))
    assert_close(qdd_back, qdd, 1e-12 * max(cond, 1e3), "FD(ID(qdd)) = qdd")
    f = rng.normal(scale=5.0, size=(N_CONF, 6))
    tau_f = model.inverse_dynamics(q, qd, qdd, f_ext=f, frame=frame)
    assert_close(
        model.forward_dynamics(q, qd, tau_f, f_ext=f, frame=frame),
        qdd,
        1e-12 * max(cond, 1e3),
        "FD(ID(qdd, f_ext), f_ext) = qdd",
    )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_external_wrench_sign(name, rng):
    """tau = M qdd + C qd + g - J^T f_ext (f_ext applied by the environment on the frame)."""
    model = load_model(name)
    frame = robot_urdfs.default_frame(name)
    q, qd, qdd = random_state(model, name, rng, (N_CONF,))
    f = rng.normal(scale=5.0, size=(N_CONF, 6))
    J = model.jacobian(q, frame=frame)
    expected = model.inverse_dynamics(q, qd, qdd) - _mv(np.swapaxes(J, -1, -2), f)
    assert_close(
        model.inverse_dynamics(q, qd, qdd, f_ext=f, frame=frame), expected, 1e-12, "ID with f_ext"
    )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_gravity_is_gradient_of_potential_energy(name, rng):
    model = load_model(name)
    q, _, _ = random_state(model, name, rng, (2,))
    h = 1e-4
    for qi in q:
        grad = np.zeros(model.n)
        for k in range(model.n):
            e = np.zeros(model.n)
            e[k] = h
            P = model.potential_energy
            grad[k] = (-P(qi + 2 * e) + 8 * P(qi + e) - 8 * P(qi - e) + P(qi - 2 * e)) / (12 * h)
        assert_close(model.gravity_torques(qi), grad, 1e-7, f"g vs dP/dq at {qi.tolist()}")


def _frames(name, model):
    """The default frame and a few others (fixed frames included)."""
    fr = [robot_urdfs.default_frame(name)]
    extra = {
        "double_pendulum": ["link1", "link2"],
        "mixed": ["mount", "l2", "l5"],
        "ytree": ["right_l2", "left_l1"],
        "ur5": ["ee_link", "wrist_2_link"],
        "panda_gripper": ["panda_link8", "panda_leftfinger", "panda_rightfinger"],
        "baxter": ["right_gripper", "head", "r_gripper_r_finger_tip"],
        "kinova": ["j2s6s200_link_3", "j2s6s200_link_finger_tip_1"],
    }[name]
    return fr + extra


def _skew_to_vec(S):
    return np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]]) / 2


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_jacobian_is_derivative_of_frame_pose(name, rng):
    model = load_model(name)
    q, _, _ = random_state(model, name, rng, (2,))
    h = 1e-5
    for frame in _frames(name, model):
        for qi in q:
            J = model.jacobian(qi, frame=frame)
            assert J.shape == (6, model.n)
            T0 = model.frame_pose(qi, frame=frame)
            for k in range(model.n):
                e = np.zeros(model.n)
                e[k] = h
                Tp, Tm = (
                    model.frame_pose(qi + e, frame=frame),
                    model.frame_pose(qi - e, frame=frame),
                )
                dT = (Tp - Tm) / (2 * h)
                v = dT[:3, 3]
                w = _skew_to_vec(dT[:3, :3] @ T0[:3, :3].T)
                assert_close(J[:3, k], v, 1e-7, f"{name} {frame} linear column {k}")
                assert_close(J[3:, k], w, 1e-7, f"{name} {frame} angular column {k}")


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_local_jacobian(name, rng):
    model = load_model(name)
    q, _, _ = random_state(model, name, rng, (N_CONF,))
    for frame in _frames(name, model):
        R = model.frame_pose(q, frame=frame)[..., :3, :3]
        J = model.jacobian(q, frame=frame)
        Jl = model.jacobian(q, frame=frame, axes="local")
        RT = np.swapaxes(R, -1, -2)
        assert_close(Jl[..., :3, :], RT @ J[..., :3, :], 1e-12, f"{frame} local linear")
        assert_close(Jl[..., 3:, :], RT @ J[..., 3:, :], 1e-12, f"{frame} local angular")


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_frame_pose_is_rigid_transform(name, rng):
    model = load_model(name)
    q, _, _ = random_state(model, name, rng, (N_CONF,))
    T = model.frame_pose(q, frame=robot_urdfs.default_frame(name))
    assert T.shape == (N_CONF, 4, 4)
    R = T[..., :3, :3]
    assert_close(R @ np.swapaxes(R, -1, -2), np.broadcast_to(np.eye(3), R.shape), 1e-12, "R R^T")
    assert_close(np.linalg.det(R), np.ones(N_CONF), 1e-12, "det R")
    assert_close(T[..., 3, :], np.broadcast_to([0, 0, 0, 1.0], (N_CONF, 4)), 0, "last row")


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_jacobian_dot_qd(name, rng):
    """Jdot qd = d/dt (J(q + t qd) qd) at t = 0 (finite differences) and = the frame's
    acceleration at qdd = 0 from the Kane oracle's kinematics (classical acceleration)."""
    model = load_model(name)
    frame = robot_urdfs.default_frame(name)
    q, qd, _ = random_state(model, name, rng, (2,))
    kane = oracles.KaneOracle(robot_urdfs.urdf_xml(name), model.joint_names)
    h = 1e-5
    for qi, qdi in zip(q, qd):
        fd = (
            (
                -model.jacobian(qi + 2 * h * qdi, frame=frame)
                + 8 * model.jacobian(qi + h * qdi, frame=frame)
                - 8 * model.jacobian(qi - h * qdi, frame=frame)
                + model.jacobian(qi - 2 * h * qdi, frame=frame)
            )
            / (12 * h)
        ) @ qdi
        ours = model.jacobian_dot_qd(qi, qdi, frame=frame)
        assert ours.shape == (6,)
        assert_close(ours, fd, 1e-7, f"{name} Jdot qd vs finite differences")
        s = kane._kin(qi, qdi, np.zeros(model.n))[frame]
        assert_close(
            ours, np.concatenate([s["a"], s["wd"]]), 1e-10, f"{name} Jdot qd vs Kane kinematics"
        )
        R = model.frame_pose(qi, frame=frame)[:3, :3]
        local = model.jacobian_dot_qd(qi, qdi, frame=frame, axes="local")
        assert_close(
            local,
            np.concatenate([R.T @ ours[:3], R.T @ ours[3:]]),
            1e-12,
            f"{name} Jdot qd local axes = R^T (Jdot qd)",
        )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_energies(name, rng):
    model = load_model(name)
    q, qd, _ = random_state(model, name, rng, (N_CONF,))
    K = model.kinetic_energy(q, qd)
    assert K.shape == (N_CONF,)
    assert np.all(K >= 0)
    assert_close(
        K, 0.5 * np.einsum("bi,bij,bj->b", qd, model.mass_matrix(q), qd), 1e-12, "K = qd^T M qd / 2"
    )
    assert_close(model.total_energy(q, qd), K + model.potential_energy(q), 1e-12, "E = K + P")
    assert_close(model.kinetic_energy(q, np.zeros_like(qd)), np.zeros(N_CONF), 0, "K(qd=0)")


BATCH_CALLS = {
    "gravity_torques": lambda m, f, q, qd, qdd, w: m.gravity_torques(q),
    "inverse_dynamics": lambda m, f, q, qd, qdd, w: m.inverse_dynamics(q, qd, qdd),
    "inverse_dynamics_fext": lambda m, f, q, qd, qdd, w: m.inverse_dynamics(
        q, qd, qdd, f_ext=w, frame=f
    ),
    "mass_matrix": lambda m, f, q, qd, qdd, w: m.mass_matrix(q),
    "coriolis_matrix": lambda m, f, q, qd, qdd, w: m.coriolis_matrix(q, qd),
    "nonlinear_effects": lambda m, f, q, qd, qdd, w: m.nonlinear_effects(q, qd),
    "forward_dynamics": lambda m, f, q, qd, qdd, w: m.forward_dynamics(q, qd, qdd),
    "forward_dynamics_fext": lambda m, f, q, qd, qdd, w: m.forward_dynamics(
        q, qd, qdd, f_ext=w, frame=f
    ),
    "jacobian": lambda m, f, q, qd, qdd, w: m.jacobian(q, frame=f),
    "jacobian_local": lambda m, f, q, qd, qdd, w: m.jacobian(q, frame=f, axes="local"),
    "jacobian_dot_qd": lambda m, f, q, qd, qdd, w: m.jacobian_dot_qd(q, qd, frame=f),
    "frame_pose": lambda m, f, q, qd, qdd, w: m.frame_pose(q, frame=f),
    "kinetic_energy": lambda m, f, q, qd, qdd, w: m.kinetic_energy(q, qd),
    "potential_energy": lambda m, f, q, qd, qdd, w: m.potential_energy(q),
    "total_energy": lambda m, f, q, qd, qdd, w: m.total_energy(q, qd),
    "friction_torques": lambda m, f, q, qd, qdd, w: m.friction_torques(qd),
    "task_space_inertia": lambda m, f, q, qd, qdd, w: m.task_space_inertia(q, frame=f),
    "estimate_external_wrench": lambda m, f, q, qd, qdd, w: (
        m.estimate_external_wrench(q, qdd, frame=f).wrench
    ),
    "momentum_terms": lambda m, f, q, qd, qdd, w: np.stack(m.momentum_terms(q, qd), axis=-2),
    "state_terms": lambda m, f, q, qd, qdd, w: _state_terms(m.state_terms(q, qd, frame=f)),
}


def _state_terms(terms):
    """Every term of a StateTerms, stacked (..., 6 + 5, n)."""
    vectors = (terms.gravity, terms.nonlinear_effects, terms.momentum, terms.coriolis_transpose_qd)
    return np.concatenate([np.stack(vectors, axis=-2), terms.jacobian], axis=-2)


@pytest.mark.parametrize("call", sorted(BATCH_CALLS))
@pytest.mark.parametrize("name", robot_params(["mixed", "ur5"]))
def test_batch_semantics(name, call, rng):
    """q of shape (B, n) and (B1, B2, n) give the per-configuration results."""
    model = load_model(name)
    frame = robot_urdfs.default_frame(name)
    fn = BATCH_CALLS[call]
    q, qd, qdd = random_state(model, name, rng, (2, 3))
    w = rng.normal(size=(2, 3, 6))
    single = np.array(
        [
            [fn(model, frame, q[i, j], qd[i, j], qdd[i, j], w[i, j]) for j in range(3)]
            for i in range(2)
        ]
    )
    out2 = np.asarray(fn(model, frame, q, qd, qdd, w))
    assert out2.shape == single.shape, (
        f"{call}: (B1, B2, n) -> {out2.shape}, expected {single.shape}"
    )
    assert_close(out2, single, 1e-10, f"{call} (2, 3) batch")
    flat = lambda a: a.reshape((6,) + a.shape[2:])  # noqa: E731
    out1 = np.asarray(fn(model, frame, flat(q), flat(qd), flat(qdd), flat(w)))
    assert out1.shape == flat(single).shape
    assert_close(out1, flat(single), 1e-10, f"{call} (6,) batch")


#: calls of (q, qd, tau, f_ext) whose arguments broadcast against each other
BROADCAST_CALLS = {
    "inverse_dynamics": lambda m, f, q, qd, tau, w: m.inverse_dynamics(q, qd, tau, w, f),
    "forward_dynamics": lambda m, f, q, qd, tau, w: m.forward_dynamics(q, qd, tau, w, f),
    "aba": lambda m, f, q, qd, tau, w: m.aba(q, qd, tau, w, f),
    "step": lambda m, f, q, qd, tau, w: np.stack(m.step(q, qd, tau, 1e-3, w, f), axis=-2),
}


#: RobotModel's public calls without a batch case, and why
NOT_BATCHED = {"simulate": "one trajectory from one state"}


def test_every_public_call_has_a_batch_case():
    """A new RobotModel method joins BATCH_CALLS or BROADCAST_CALLS (or NOT_BATCHED, with the
    reason)."""
    from robot_dynamics.core.checked import CheckedAlgorithms

    public = {n for n in vars(CheckedAlgorithms) if not n.startswith("_")}
    cases = set(BATCH_CALLS) | set(BROADCAST_CALLS) | set(NOT_BATCHED)
    assert sorted(public - cases) == []


@pytest.mark.parametrize("call", sorted(BROADCAST_CALLS))
@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_one_configuration_broadcasts_over_a_batch(name, call, rng):
    """One q (n,) with a batch of velocities, torques or wrenches (2, 3, ...), and a batch of q
    with one velocity and torque, give the per-configuration results."""
    model = load_model(name)
    if call == "aba" and model.tree.has_mimic:
        pytest.skip("aba does not handle mimic joints")
    frame = robot_urdfs.default_frame(name)
    fn = BROADCAST_CALLS[call]
    q, qd, tau = random_state(model, name, rng, (2, 3))
    w = rng.normal(size=(2, 3, 6))
    one = (q[1, 2], qd[1, 2], tau[1, 2], w[1, 2])
    for batched in ((1, 2), (3,), (0,)):  # the arguments that carry the batch
        args = [a if k in batched else o for k, (a, o) in enumerate(zip((q, qd, tau, w), one))]
        full = [np.broadcast_to(a, (2, 3) + a.shape[-1:]) for a in args]
        expected = np.array(
            [[fn(model, frame, *(a[i, j] for a in full)) for j in range(3)] for i in range(2)]
        )
        got = fn(model, frame, *args)
        assert got.shape == expected.shape, f"{call} batched {batched}: {got.shape}"
        assert_close(got, expected, 1e-10, f"{call} batched {batched}")


@pytest.mark.parametrize("name", robot_params(["mixed", "ur5"]))
def test_single_wrench_broadcasts_over_batch(name, rng):
    """One f_ext (6,) with a batch of configurations applies to every configuration."""
    model = load_model(name)
    frame = robot_urdfs.default_frame(name)
    q, qd, qdd = random_state(model, name, rng, (4,))
    f = rng.normal(scale=5.0, size=6)
    fb = np.broadcast_to(f, (4, 6))
    assert_close(
        model.inverse_dynamics(q, qd, qdd, f_ext=f, frame=frame),
        model.inverse_dynamics(q, qd, qdd, f_ext=fb, frame=frame),
        1e-12,
        "ID single f_ext",
    )
    assert_close(
        model.forward_dynamics(q, qd, qdd, f_ext=f, frame=frame),
        model.forward_dynamics(q, qd, qdd, f_ext=fb, frame=frame),
        1e-12,
        "FD single f_ext",
    )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_momentum_terms_match_matrices(name, rng):
    """momentum_terms (the observer's p = M qd, C^T qd, g from one pass, without M or C) equals
    the products with the full matrices, armature included."""
    model = load_model(name).with_armature(0.05)
    q, qd, _ = random_state(model, name, rng, (N_CONF,))
    p, CTqd, g = model.momentum_terms(q, qd)
    M = model.mass_matrix(q)
    C = model.coriolis_matrix(q, qd)
    assert_close(p, (M @ qd[..., None])[..., 0], 1e-12, "p vs M qd")
    assert_close(CTqd, (np.swapaxes(C, -1, -2) @ qd[..., None])[..., 0], 1e-12, "C^T qd")
    assert_close(g, model.gravity_torques(q), 1e-12, "g")


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_state_terms_equal_the_separate_calls(name, rng):
    """state_terms (one kinematics pass) equals the separate API calls."""
    model = load_model(name).with_armature(0.02)
    q, qd, _ = random_state(model, name, rng, (N_CONF,))
    frame = model.tip_link or model.tree.tip_candidates[0]
    for axes in ("base", "local"):
        t = model.state_terms(q, qd, frame=frame, axes=axes)
        assert_close(t.gravity, model.gravity_torques(q), 1e-12, "gravity")
        assert_close(t.nonlinear_effects, model.nonlinear_effects(q, qd), 1e-12, "h")
        p, CTqd, _ = model.momentum_terms(q, qd)
        assert_close(t.momentum, p, 1e-12, "p")
        assert_close(t.coriolis_transpose_qd, CTqd, 1e-12, "C^T qd")
        assert_close(t.jacobian, model.jacobian(q, frame=frame, axes=axes), 1e-12, "J")
    assert model.state_terms(q, qd, jacobian=False).jacobian is None


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_state_terms_lazy_values_ignore_later_input_changes(name, rng):
    """gravity, momentum, C^T qd and J are evaluated on first read; overwriting the q and qd
    buffers in between (as a node's joint-state buffer is, message after message) must not
    change them."""
    model = load_model(name).with_armature(0.02)
    q, qd, _ = random_state(model, name, rng, ())
    q_buf, qd_buf = q.copy(), qd.copy()
    terms = model.state_terms(q_buf, qd_buf)
    q_buf += 0.3
    qd_buf *= -2.0
    p, CTqd, g = model.momentum_terms(q, qd)
    assert_close(terms.gravity, g, 1e-12, "gravity")
    assert_close(terms.momentum, p, 1e-12, "p")
    assert_close(terms.coriolis_transpose_qd, CTqd, 1e-12, "C^T qd")
    if model.tip_link is not None:
        assert_close(terms.jacobian, model.jacobian(q), 1e-12, "J")
