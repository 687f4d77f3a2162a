"""The core against Pinocchio on real URDFs (example-robot-data) and the local test robots.

Joints are mapped by name. Pinocchio's parser is used without mimic support: the mimic joints
(Panda gripper, Baxter grippers, the local "mixed" robot) are independent joints in pin's model
and the comparison reduces pin's quantities with q_full = G q + offset built from the URDF
(oracles.PinOracle). Tolerance: max abs error <= 1e-9 * max(1, max |reference|).
"""

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")

import oracles  # noqa: E402
import robot_urdfs  # noqa: E402
import urdf_reader  # noqa: E402
from core_helpers import TEST_ROBOTS, load_model, random_state, robot_params  # noqa: E402
from oracles import assert_close  # noqa: E402

ROBOTS = TEST_ROBOTS
TOL = 1e-9
N_CONF = 3

_ORACLES = {}


def _pin(name, model):
    if name not in _ORACLES:
        grav = robot_urdfs.model_kwargs(name).get("gravity")
        _ORACLES[name] = oracles.PinOracle(
            robot_urdfs.urdf_xml(name), model.joint_names, gravity=grav
        )
    return _ORACLES[name]


def _mv(A, x):
    return (A @ x[..., None])[..., 0]


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_joints_match(name):
    model = load_model(name)
    P = _pin(name, model)
    pin_names = {P.model.names[i] for i in range(1, P.model.njoints)}
    mimic = {j.name for j in P.info.joints.values() if j.mimic is not None}
    assert set(model.joint_names) == pin_names - mimic
    if "gravity" not in robot_urdfs.model_kwargs(name):  # our default gravity is pin's default
        assert_close(model.gravity, pin.Model().gravity.linear, 0, "default gravity")


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_inverse_dynamics_gravity_mass_matrix(name, rng):
    model = load_model(name)
    P = _pin(name, model)
    q, qd, qdd = random_state(model, name, rng, (N_CONF,))
    for i in range(N_CONF):
        assert_close(
            model.inverse_dynamics(q[i], qd[i], qdd[i]),
            P.rnea(q[i], qd[i], qdd[i]),
            TOL,
            f"{name} inverse dynamics",
        )
        assert_close(model.gravity_torques(q[i]), P.gravity_torques(q[i]), TOL, f"{name} gravity")
        assert_close(model.mass_matrix(q[i]), P.mass_matrix(q[i]), TOL, f"{name} mass matrix")
        assert_close(
            model.nonlinear_effects(q[i], qd[i]),
            P.nonlinear_effects(q[i], qd[i]),
            TOL,
            f"{name} nonlinear effects",
        )
    # the batched calls against the same references
    assert_close(
        model.inverse_dynamics(q, qd, qdd),
        np.array([P.rnea(q[i], qd[i], qdd[i]) for i in range(N_CONF)]),
        TOL,
        f"{name} ID batch",
    )
    assert_close(
        model.mass_matrix(q), np.array([P.mass_matrix(x) for x in q]), TOL, f"{name} M batch"
    )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_coriolis_matrix(name, rng):
    """Our C against pin.computeCoriolisMatrix, against the Christoffel-symbol C built from
    pin's exact dM/dq (RNEA derivatives), and C qd against pin's nonlinear effects - gravity."""
    model = load_model(name)
    P = _pin(name, model)
    q, qd, _ = random_state(model, name, rng, (N_CONF,))
    for i in range(N_CONF):
        C = model.coriolis_matrix(q[i], qd[i])
        C_chr = P.christoffel_coriolis(q[i], qd[i])
        assert_close(C, C_chr, TOL, f"{name} C vs Christoffel symbols of pin's dM/dq")
        assert_close(
            C, P.coriolis_matrix(q[i], qd[i]), TOL, f"{name} C vs pin.computeCoriolisMatrix"
        )
        assert_close(
            C @ qd[i],
            P.nonlinear_effects(q[i], qd[i]) - P.gravity_torques(q[i]),
            TOL,
            f"{name} C qd vs pin h - g",
        )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_forward_dynamics(name, rng):
    model = load_model(name)
    P = _pin(name, model)
    q, qd, _ = random_state(model, name, rng, (N_CONF,))
    tau = rng.normal(scale=5.0, size=q.shape)
    for i in range(N_CONF):
        ref = P.forward_dynamics(q[i], qd[i], tau[i])
        # qdd = M^-1 (...): allow for the conditioning of M
        cond = np.linalg.cond(P.mass_matrix(q[i]))
        assert_close(
            model.forward_dynamics(q[i], qd[i], tau[i]),
            ref,
            max(TOL, 1e-15 * cond),
            f"{name} forward dynamics (pin.aba), cond(M)={cond:.1e}",
        )


def _frames(name, P):
    """The default frame, every leaf link and a few intermediate links."""
    info = P.info
    frames = [robot_urdfs.default_frame(name)] + urdf_reader.leaves(info, info.root)
    links = urdf_reader.subtree_links(info, info.root)[1:]
    frames += links[:: max(1, len(links) // 4)]
    return list(dict.fromkeys(frames))


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_jacobians_and_frame_placements(name, rng):
    model = load_model(name)
    P = _pin(name, model)
    q, _, _ = random_state(model, name, rng, (2,))
    for frame in _frames(name, P):
        for qi in q:
            assert_close(
                model.jacobian(qi, frame=frame),
                P.jacobian(qi, frame),
                TOL,
                f"{name} Jacobian of {frame} (LOCAL_WORLD_ALIGNED)",
            )
            assert_close(
                model.frame_pose(qi, frame=frame),
                P.frame_pose(qi, frame),
                TOL,
                f"{name} placement of {frame}",
            )


@pytest.mark.parametrize("name", robot_params(["panda_gripper", "mixed"]))
def test_mimic_against_pinocchio_mimic_model(name, rng):
    """pin's own mimic model (buildModelFromXML(..., mimic=True)) gives the reduced M, tau."""
    model = load_model(name)
    try:
        pm = pin.buildModelFromXML(robot_urdfs.urdf_xml(name), mimic=True)
    except (
        TypeError,
        ValueError,
        RuntimeError,
    ) as e:  # old pin, or e.g. a mimic of a continuous joint
        pytest.skip(f"pinocchio cannot build the mimic model: {str(e)[:80]}")
    if pm.nv != model.n:
        pytest.skip("pin's mimic model does not reduce the velocity space")
    pd = pm.createData()
    # map our joints to pin's v indices (mimic joints have no v of their own in pin)
    idx_v = {pm.names[j]: pm.joints[j].idx_v for j in range(1, pm.njoints) if pm.joints[j].nv == 1}
    if not set(model.joint_names) <= set(idx_v):
        pytest.skip("unexpected pin mimic model layout")
    perm = np.array([idx_v[n] for n in model.joint_names])
    full = oracles.PinOracle(robot_urdfs.urdf_xml(name), model.joint_names)
    q, qd, qdd = random_state(model, name, rng, (2,))
    for i in range(2):
        qp = full.qp(q[i])  # joint values of every joint (mimic included)
        qm = pin.neutral(pm)
        for j in range(1, pm.njoints):
            jn, jm = pm.names[j], pm.joints[j]
            if jn in full.model.names:
                src = full.model.joints[full.model.getJointId(jn)]
                qm[jm.idx_q : jm.idx_q + jm.nq] = qp[src.idx_q : src.idx_q + src.nq]
        v = np.zeros(pm.nv)
        a = np.zeros(pm.nv)
        v[perm], a[perm] = qd[i], qdd[i]
        tau = pin.rnea(pm, pd, qm, v, a)[perm]
        assert_close(
            model.inverse_dynamics(q[i], qd[i], qdd[i]), tau, TOL, f"{name} tau vs pin mimic model"
        )
        M = pin.crba(pm, pd, qm)
        M = np.triu(M) + np.triu(M, 1).T
        assert_close(
            model.mass_matrix(q[i]), M[np.ix_(perm, perm)], TOL, f"{name} M vs pin mimic model"
        )


@pytest.mark.parametrize(
    "name", robot_params(["ur5", "panda_gripper", "baxter", "kinova", "mixed"])
)
def test_jacobian_dot_qd_vs_classical_acceleration(name, rng):
    """Jdot qd = pin's classical frame acceleration at qdd = 0 (LOCAL_WORLD_ALIGNED and LOCAL)."""
    model = load_model(name)
    P = _pin(name, model)
    frame = robot_urdfs.default_frame(name)
    fid = P.frame_id(frame)
    q, qd, _ = random_state(model, name, rng, (2,))
    for i in range(2):
        qp, vp = P.qp(q[i]), P.vp(qd[i])
        pin.forwardKinematics(P.model, P.data, qp, vp, np.zeros(P.model.nv))
        pin.updateFramePlacements(P.model, P.data)
        for axes, ref_frame in (("base", pin.LOCAL_WORLD_ALIGNED), ("local", pin.LOCAL)):
            a = pin.getFrameClassicalAcceleration(P.model, P.data, fid, ref_frame)
            ref = np.concatenate([a.linear, a.angular])
            assert_close(
                model.jacobian_dot_qd(q[i], qd[i], frame=frame, axes=axes),
                ref,
                TOL,
                f"{name} Jdot qd ({axes}) vs pin classical acceleration",
            )


@pytest.mark.parametrize("name", robot_params(["ur5", "panda_gripper", "baxter", "xarm7"]))
def test_energies_vs_pinocchio(name, rng):
    model = load_model(name)
    P = _pin(name, model)
    q, qd, _ = random_state(model, name, rng, (2,))
    for i in range(2):
        K = pin.computeKineticEnergy(P.model, P.data, P.qp(q[i]), P.vp(qd[i]))
        assert_close(model.kinetic_energy(q[i], qd[i]), K, TOL, f"{name} kinetic energy")
    # potential energy: equal up to a constant (pin adds nothing for the fixed root; we may
    # choose a zero)
    Pp = np.array([pin.computePotentialEnergy(P.model, P.data, P.qp(x)) for x in q])
    Po = model.potential_energy(q)
    assert_close(Po[1] - Po[0], Pp[1] - Pp[0], TOL, f"{name} potential energy differences")


@pytest.mark.parametrize("name", robot_params(["ur5", "baxter"]))
def test_other_gravity_vs_pinocchio(name, rng):
    gravity = (1.5, -2.0, -9.0)
    model = load_model(name).with_gravity(gravity)
    P = oracles.PinOracle(robot_urdfs.urdf_xml(name), model.joint_names, gravity=gravity)
    q, qd, qdd = random_state(model, name, rng, (2,))
    for i in range(2):
        assert_close(
            model.inverse_dynamics(q[i], qd[i], qdd[i]),
            P.rnea(q[i], qd[i], qdd[i]),
            TOL,
            f"{name} tau with gravity {gravity}",
        )
        assert_close(
            model.gravity_torques(q[i]), P.gravity_torques(q[i]), TOL, f"{name} g with {gravity}"
        )
