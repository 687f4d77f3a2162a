"""The core against an independent Kane's-method implementation (reference section 4,
oracles.KaneOracle: every body of the URDF tree on its own, fixed joints not merged, mimic joints
slaved through q_full = G q + offset). Runs without Pinocchio."""

import numpy as np
import pytest

import oracles
import robot_urdfs
import urdf_reader
from core_helpers import load_model, random_state, robot_params
from oracles import assert_close

ROBOTS = [
    "double_pendulum",
    "mixed",
    "ytree",
    "bundled_panda",
    "ur5",
    "panda_gripper",
    "baxter",
    "kinova",
    "so100",
]


def _kane(name, model, **kw):
    grav = robot_urdfs.model_kwargs(name).get("gravity", (0.0, 0.0, -9.81))
    return oracles.KaneOracle(
        robot_urdfs.urdf_xml(name), model.joint_names, gravity=kw.pop("gravity", grav), **kw
    )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_inverse_dynamics_vs_kane(name, rng):
    model = load_model(name)
    kane = _kane(name, model)
    frame = robot_urdfs.default_frame(name)
    q, qd, qdd = random_state(model, name, rng, (3,))
    f = rng.normal(scale=5.0, size=(3, 6))
    for i in range(3):
        ref = kane.inverse_dynamics(q[i], qd[i], qdd[i])
        assert_close(model.inverse_dynamics(q[i], qd[i], qdd[i]), ref, 1e-9, f"{name} tau (Kane)")
        ref_f = kane.inverse_dynamics(q[i], qd[i], qdd[i], f_ext=f[i], frame=frame)
        assert_close(
            model.inverse_dynamics(q[i], qd[i], qdd[i], f_ext=f[i], frame=frame),
            ref_f,
            1e-9,
            f"{name} tau with f_ext on {frame} (Kane)",
        )
    # batched call against the same oracle
    ref = np.array([kane.inverse_dynamics(q[i], qd[i], qdd[i]) for i in range(3)])
    assert_close(model.inverse_dynamics(q, qd, qdd), ref, 1e-9, f"{name} tau batch (Kane)")


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_mass_matrix_gravity_energy_vs_kane(name, rng):
    model = load_model(name)
    kane = _kane(name, model)
    q, qd, _ = random_state(model, name, rng, (2,))
    for i in range(2):
        assert_close(model.mass_matrix(q[i]), kane.mass_matrix(q[i]), 1e-9, f"{name} M (Kane)")
        assert_close(
            model.gravity_torques(q[i]), kane.gravity_torques(q[i]), 1e-9, f"{name} g (Kane)"
        )
        assert_close(
            model.kinetic_energy(q[i], qd[i]),
            kane.kinetic_energy(q[i], qd[i]),
            1e-9,
            f"{name} kinetic energy (Kane)",
        )
        # potential energy: same up to a constant (the zero of P is a convention)
        dP = model.potential_energy(q[i]) - kane.potential_energy(q[i])
        dP0 = model.potential_energy(q[1 - i]) - kane.potential_energy(q[1 - i])
        assert abs(dP - dP0) <= 1e-9 * max(1.0, abs(kane.potential_energy(q[i]))), (
            f"{name} P (Kane)"
        )


@pytest.mark.parametrize("name", robot_params(ROBOTS))
def test_kinematics_vs_kane(name, rng):
    model = load_model(name)
    kane = _kane(name, model)
    q, _, _ = random_state(model, name, rng, (2,))
    links = urdf_reader.subtree_links(kane.info, kane.base)
    assert set(model.link_names) >= set(links[1:]), "every link below the base is a frame"
    for frame in links[1:]:
        for qi in q:
            assert_close(
                model.frame_pose(qi, frame=frame),
                kane.frame_pose(qi, frame),
                1e-12,
                f"{name} pose of {frame}",
            )
            assert_close(
                model.jacobian(qi, frame=frame),
                kane.jacobian(qi, frame),
                1e-12,
                f"{name} Jacobian of {frame}",
            )


@pytest.mark.parametrize("base", ["mount", "l1", "l2"])
def test_rerooted_model_vs_kane(base, rng):
    """base_link re-roots at an intermediate link: joints above it are gone, frames and
    gravity are in the new base's axes."""
    gravity = (0.3, -2.0, -9.5)
    model = load_model("mixed", base_link=base, gravity=gravity)
    assert model.base_link == base
    kane = oracles.KaneOracle(
        robot_urdfs.MIXED_URDF, model.joint_names, gravity=gravity, base_link=base
    )
    expected = {j.name for j in kane.full if j.mimic is None}
    assert set(model.joint_names) == expected
    q, qd, qdd = random_state(model, "mixed", rng, (2,))
    for i in range(2):
        assert_close(
            model.inverse_dynamics(q[i], qd[i], qdd[i]),
            kane.inverse_dynamics(q[i], qd[i], qdd[i]),
            1e-9,
            f"tau rooted at {base}",
        )
        assert_close(model.mass_matrix(q[i]), kane.mass_matrix(q[i]), 1e-9, f"M rooted at {base}")
        assert_close(
            model.frame_pose(q[i], frame="tool"),
            kane.frame_pose(q[i], "tool"),
            1e-12,
            f"tool pose rooted at {base}",
        )
        assert_close(
            model.jacobian(q[i]), kane.jacobian(q[i], "tool"), 1e-12, f"tool J rooted at {base}"
        )


@pytest.mark.parametrize(
    "name,base,frame",
    [
        pytest.param(
            *p,
            id=f"{p[0]}-{p[1]}",
            marks=pytest.mark.skipif(not robot_urdfs.has_erd(), reason="no example-robot-data"),
        )
        for p in [
            ("baxter", "left_arm_mount", "left_gripper"),
            ("ur5", "shoulder_link", "tool0"),
            ("panda_gripper", "panda_link3", "panda_leftfinger"),
        ]
    ],
)
def test_rerooted_real_robot_vs_kane(name, base, frame, rng):
    """Re-rooting a real tree/chain at an intermediate link (Baxter: one arm with its gripper)."""
    model = load_model(name, base_link=base)
    assert model.base_link == base
    kane = oracles.KaneOracle(robot_urdfs.urdf_xml(name), model.joint_names, base_link=base)
    assert set(model.joint_names) == {j.name for j in kane.full if j.mimic is None}
    info = kane.info
    q = urdf_reader.random_q(info, model.joint_names, rng, (2,))
    qd, qdd = rng.normal(size=(2, 2, model.n))
    for i in range(2):
        assert_close(
            model.inverse_dynamics(q[i], qd[i], qdd[i]),
            kane.inverse_dynamics(q[i], qd[i], qdd[i]),
            1e-9,
            f"{name} tau rooted at {base}",
        )
        assert_close(
            model.mass_matrix(q[i]), kane.mass_matrix(q[i]), 1e-9, f"{name} M rooted at {base}"
        )
        assert_close(
            model.jacobian(q[i], frame=frame),
            kane.jacobian(q[i], frame),
            1e-12,
            f"{name} J of {frame} rooted at {base}",
        )
        assert_close(
            model.frame_pose(q[i], frame=frame),
            kane.frame_pose(q[i], frame),
            1e-12,
            f"{name} pose of {frame} rooted at {base}",
        )
