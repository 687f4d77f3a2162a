"""Closed forms of the planar 2-link arm (reference section 3) on urdf/double_pendulum.urdf.

Two uniform rods 1.0 x 0.1 x 0.1 m, 10 kg, COM at 0.5 m, joints about z, gravity (0, -9.81, 0).
"""

import numpy as np
import pytest

from oracles import assert_close
from robot_urdfs import DOUBLE_PENDULUM_URDF, DP_GRAVITY

M1 = M2 = 10.0
L1 = L2 = 1.0
R1 = R2 = 0.5
IZ1 = IZ2 = 10.0 * (1.0**2 + 0.1**2) / 12.0
G0 = 9.81
ALPHA = IZ1 + IZ2 + M1 * R1**2 + M2 * (L1**2 + R2**2)
BETA = M2 * L1 * R2
DELTA = IZ2 + M2 * R2**2


def closed_D(q):
    c2 = np.cos(q[..., 1])
    D = np.empty(q.shape[:-1] + (2, 2))
    D[..., 0, 0] = ALPHA + 2 * BETA * c2
    D[..., 0, 1] = D[..., 1, 0] = DELTA + BETA * c2
    D[..., 1, 1] = DELTA
    return D


def closed_C(q, qd):
    s2 = np.sin(q[..., 1])
    C = np.zeros(q.shape[:-1] + (2, 2))
    C[..., 0, 0] = -BETA * s2 * qd[..., 1]
    C[..., 0, 1] = -BETA * s2 * (qd[..., 0] + qd[..., 1])
    C[..., 1, 0] = BETA * s2 * qd[..., 0]
    return C


def closed_g(q):
    c1, c12 = np.cos(q[..., 0]), np.cos(q[..., 0] + q[..., 1])
    return np.stack([(M1 * R1 + M2 * L1) * G0 * c1 + M2 * R2 * G0 * c12, M2 * R2 * G0 * c12], -1)


def closed_J(q):
    s1, c1 = np.sin(q[..., 0]), np.cos(q[..., 0])
    s12, c12 = np.sin(q[..., 0] + q[..., 1]), np.cos(q[..., 0] + q[..., 1])
    J = np.empty(q.shape[:-1] + (2, 2))
    J[..., 0, 0] = -L1 * s1 - L2 * s12
    J[..., 0, 1] = -L2 * s12
    J[..., 1, 0] = L1 * c1 + L2 * c12
    J[..., 1, 1] = L2 * c12
    return J


@pytest.fixture(scope="module")
def dp():
    from robot_dynamics import RobotModel

    return RobotModel.from_urdf_file(DOUBLE_PENDULUM_URDF, gravity=DP_GRAVITY)


@pytest.fixture(scope="module")
def states():
    rng = np.random.default_rng(3)
    q = rng.uniform(-np.pi, np.pi, size=(20, 2))
    qd = rng.normal(scale=2.0, size=(20, 2))
    qdd = rng.normal(scale=2.0, size=(20, 2))
    return q, qd, qdd


def test_structure(dp):
    assert tuple(dp.joint_names) == ("joint1", "joint2")
    assert dp.n == 2
    assert dp.base_link == "base_link"
    assert dp.tip_link == "tip"
    assert_close(dp.gravity, DP_GRAVITY, 0, "gravity")
    assert set(dp.link_names) >= {"link1", "link2", "tip"}


def test_mass_matrix(dp, states):
    q, _, _ = states
    assert_close(dp.mass_matrix(q), closed_D(q), 1e-12, "D batch")
    for qi in q:
        assert_close(dp.mass_matrix(qi), closed_D(qi), 1e-12, f"D at q={qi}")


def test_coriolis_matrix(dp, states):
    q, qd, _ = states
    assert_close(dp.coriolis_matrix(q, qd), closed_C(q, qd), 1e-12, "C batch")
    for qi, qdi in zip(q, qd):
        assert_close(dp.coriolis_matrix(qi, qdi), closed_C(qi, qdi), 1e-12, f"C at q={qi} qd={qdi}")


def test_gravity(dp, states):
    q, _, _ = states
    assert_close(dp.gravity_torques(q), closed_g(q), 1e-12, "g")


def test_inverse_and_forward_dynamics(dp, states):
    q, qd, qdd = states
    tau = (
        (closed_D(q) @ qdd[..., None])[..., 0]
        + (closed_C(q, qd) @ qd[..., None])[..., 0]
        + closed_g(q)
    )
    assert_close(dp.inverse_dynamics(q, qd, qdd), tau, 1e-12, "tau = D qdd + C qd + g")
    assert_close(
        dp.nonlinear_effects(q, qd), tau - (closed_D(q) @ qdd[..., None])[..., 0], 1e-12, "C qd + g"
    )
    assert_close(dp.forward_dynamics(q, qd, tau), qdd, 1e-10, "forward dynamics")


def test_tip_jacobian_and_pose(dp, states):
    q, _, _ = states
    J = dp.jacobian(q, frame="tip")
    assert J.shape == (20, 6, 2)
    assert_close(J[..., :2, :], closed_J(q), 1e-12, "J x,y rows")
    assert_close(J[..., 2:5, :], np.zeros((20, 3, 2)), 1e-12, "J vz, wx, wy rows")
    assert_close(J[..., 5, :], np.ones((20, 2)), 1e-12, "J wz row")
    assert_close(dp.jacobian(q), J, 1e-14, "default frame is the tip")
    T = dp.frame_pose(q, frame="tip")
    q1, q12 = q[:, 0], q[:, 0] + q[:, 1]
    assert_close(T[:, 0, 3], L1 * np.cos(q1) + L2 * np.cos(q12), 1e-12, "tip x")
    assert_close(T[:, 1, 3], L1 * np.sin(q1) + L2 * np.sin(q12), 1e-12, "tip y")
    assert_close(T[:, 2, 3], np.zeros(20), 1e-12, "tip z")
    assert_close(
        T[:, :2, :2],
        np.stack(
            [np.stack([np.cos(q12), -np.sin(q12)], -1), np.stack([np.sin(q12), np.cos(q12)], -1)],
            -2,
        ),
        1e-12,
        "tip R",
    )


def test_statics_base_axes(dp, states):
    """tau = J^T F for F pushed by the tip (base axes); the environment's wrench is -F."""
    q, _, _ = states
    rng = np.random.default_rng(7)
    F = rng.normal(scale=20.0, size=(20, 2))
    tau_closed = (np.swapaxes(closed_J(q), -1, -2) @ F[..., None])[..., 0]
    F6 = np.zeros((20, 6))
    F6[:, :2] = F
    JT_F = (np.swapaxes(dp.jacobian(q, frame="tip"), -1, -2) @ F6[..., None])[..., 0]
    assert_close(JT_F, tau_closed, 1e-12, "J^T F")
    # holding still while pushing with F: tau = g + J^T F, i.e. f_ext = -F in inverse dynamics
    z = np.zeros((20, 2))
    assert_close(
        dp.inverse_dynamics(q, z, z, f_ext=-F6, frame="tip"),
        closed_g(q) + tau_closed,
        1e-12,
        "inverse dynamics with f_ext = -F",
    )


def test_statics_link2_axes(dp, states):
    """F given in the frame of link 2 (the tip frame has link 2's axes)."""
    q, _, _ = states
    rng = np.random.default_rng(8)
    fx, fy = rng.normal(scale=20.0, size=(2, 20))
    s2, c2 = np.sin(q[:, 1]), np.cos(q[:, 1])
    tau1 = L1 * s2 * fx + (L1 * c2 + L2) * fy
    tau2 = L2 * fy
    F6 = np.zeros((20, 6))
    F6[:, 0], F6[:, 1] = fx, fy
    Jl = dp.jacobian(q, frame="tip", axes="local")
    assert_close(
        (np.swapaxes(Jl, -1, -2) @ F6[..., None])[..., 0],
        np.stack([tau1, tau2], -1),
        1e-12,
        "J_local^T F_local",
    )
    # same torque from the base-axes Jacobian with F rotated into base axes
    R = dp.frame_pose(q, frame="tip")[:, :3, :3]
    Fb = np.zeros((20, 6))
    Fb[:, :3] = (R @ F6[:, :3, None])[..., 0]
    assert_close(
        (np.swapaxes(dp.jacobian(q, frame="tip"), -1, -2) @ Fb[..., None])[..., 0],
        np.stack([tau1, tau2], -1),
        1e-12,
        "J^T R F_local",
    )


def test_energies(dp, states):
    q, qd, _ = states
    K = 0.5 * np.einsum("bi,bij,bj->b", qd, closed_D(q), qd)
    assert_close(dp.kinetic_energy(q, qd), K, 1e-12, "kinetic energy")
    # P = -sum m g^T r_c, g = (0, -9.81, 0): heights of the COMs
    y1 = R1 * np.sin(q[:, 0])
    y2 = L1 * np.sin(q[:, 0]) + R2 * np.sin(q[:, 0] + q[:, 1])
    P = M1 * G0 * y1 + M2 * G0 * y2
    assert_close(dp.potential_energy(q), P, 1e-12, "potential energy")
    assert_close(dp.total_energy(q, qd), K + P, 1e-12, "total energy")
