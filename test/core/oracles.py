"""Test oracles for the dynamics core: a Kane's-method implementation and a Pinocchio wrapper
that maps joints by name, the Christoffel Coriolis matrix from ``dM/dq``, and the tolerance check
the core tests compare with.

Nothing here imports robot_dynamics: every quantity is computed independently of the core (the
URDF is read by ``urdf_reader.parse_urdf``).

- ``KaneOracle``: Kane's method (reference section 4) on the full tree, every body its own
  (fixed joints are not merged), mimic joints slaved through ``q_full = G q + offset``.
- ``PinOracle``: Pinocchio on the full tree (mimic joints left independent by pin's parser),
  reduced with the same ``G`` (``M_red = G^T M G``, ``tau_red = G^T tau``, ``J_red = J G``).
- ``assert_close(actual, expected, rel)``: ``max |actual - expected| <= rel * max(1, max
  |expected|)``.
"""

import numpy as np

from urdf_reader import axis_angle_R, homog, mimic_resolve, parse_urdf, subtree_links


# --------------------------------------------------------------------------------------------
# Kane's method (reference section 4)
# --------------------------------------------------------------------------------------------
class KaneOracle:
    """Inverse dynamics by Kane's method on every body of the tree below ``base_link``.

    ``joint_names`` fixes the order of the generalised coordinates (the model's order); every
    other movable joint must be a mimic joint of them. Base frame = frame of ``base_link``.
    """

    def __init__(self, xml, joint_names, gravity=(0.0, 0.0, -9.81), base_link=None):
        self.info = parse_urdf(xml)
        self.base = base_link or self.info.root
        self.links = subtree_links(self.info, self.base)
        self.joint_names = list(joint_names)
        self.n = len(self.joint_names)
        self.gravity = np.asarray(gravity, float)
        idx = {n: i for i, n in enumerate(self.joint_names)}
        # movable joints below the base, full coordinates
        self.full = [
            self.info.parent_joint[ln]
            for ln in self.links[1:]
            if self.info.parent_joint[ln].type != "fixed"
        ]
        self.G = np.zeros((len(self.full), self.n))
        self.off = np.zeros(len(self.full))
        for a, j in enumerate(self.full):
            coeffs, o = mimic_resolve(self.info, j.name, idx)
            for k, c in coeffs.items():
                self.G[a, k] += c
            self.off[a] = o
        self.full_index = {j.name: a for a, j in enumerate(self.full)}

    def _kin(self, q, qd, qdd):
        q, qd, qdd = (np.asarray(x, float) for x in (q, qd, qdd))
        qf, qdf, qddf = self.G @ q + self.off, self.G @ qd, self.G @ qdd
        st = {
            self.base: dict(
                T=np.eye(4), w=np.zeros(3), wd=np.zeros(3), v=np.zeros(3), a=np.zeros(3), chain=[]
            )
        }
        for ln in self.links[1:]:
            j = self.info.parent_joint[ln]
            p = st[j.parent]
            Tj = p["T"] @ j.T_origin
            axis_w = Tj[:3, :3] @ j.axis
            oj = Tj[:3, 3]
            w, wd = p["w"].copy(), p["wd"].copy()
            r_extra = np.zeros(3)
            v_rel, a_rel = np.zeros(3), np.zeros(3)
            chain = list(p["chain"])
            if j.type in ("revolute", "continuous"):
                k = self.full_index[j.name]
                T = Tj @ homog(axis_angle_R(j.axis, qf[k]), np.zeros(3))
                w = p["w"] + axis_w * qdf[k]
                wd = p["wd"] + axis_w * qddf[k] + np.cross(p["w"], axis_w * qdf[k])
                chain.append(("R", k, axis_w, oj))
            elif j.type == "prismatic":
                k = self.full_index[j.name]
                T = Tj @ homog(np.eye(3), j.axis * qf[k])
                r_extra = axis_w * qf[k]
                v_rel = axis_w * qdf[k]
                a_rel = axis_w * qddf[k] + 2 * np.cross(p["w"], axis_w * qdf[k])
                chain.append(("P", k, axis_w, oj))
            elif j.type == "fixed":
                T = Tj
            else:
                raise ValueError(j.type)
            r = oj + r_extra - p["T"][:3, 3]
            v = p["v"] + np.cross(p["w"], r) + v_rel
            a = p["a"] + np.cross(p["wd"], r) + np.cross(p["w"], np.cross(p["w"], r)) + a_rel
            st[ln] = dict(T=T, w=w, wd=wd, v=v, a=a, chain=chain)
        return st

    def _jac_point(self, s, point):
        J = np.zeros((6, len(self.full)))
        for kind, k, ax, oj in s["chain"]:
            if kind == "R":
                J[:3, k] += np.cross(ax, point - oj)
                J[3:, k] += ax
            else:
                J[:3, k] += ax
        return J

    def inverse_dynamics(self, q, qd, qdd, f_ext=None, frame=None, gravity=True):
        st = self._kin(q, qd, qdd)
        g = self.gravity if gravity else np.zeros(3)
        tau_f = np.zeros(len(self.full))
        for ln in self.links:
            li = self.info.links[ln]
            if li.mass == 0.0 and not np.any(li.inertia):
                continue
            s = st[ln]
            R = s["T"][:3, :3]
            c = s["T"][:3, 3] + R @ li.com
            rc = c - s["T"][:3, 3]
            ac = s["a"] + np.cross(s["wd"], rc) + np.cross(s["w"], np.cross(s["w"], rc))
            Rl = R @ li.R_inertial
            Iw = Rl @ li.inertia @ Rl.T
            Jc = self._jac_point(s, c)  # partial velocities dvc/dqd, dw/dqd
            F = li.mass * (ac - g)
            Tq = Iw @ s["wd"] + np.cross(s["w"], Iw @ s["w"])
            tau_f += Jc[:3].T @ F + Jc[3:].T @ Tq
        tau = self.G.T @ tau_f
        if f_ext is not None:
            tau -= self.jacobian(q, frame).T @ np.asarray(f_ext, float)
        return tau

    def gravity_torques(self, q):
        z = np.zeros(self.n)
        return self.inverse_dynamics(q, z, z)

    def mass_matrix(self, q):
        z = np.zeros(self.n)
        return np.column_stack(
            [self.inverse_dynamics(q, z, e, gravity=False) for e in np.eye(self.n)]
        )

    def frame_pose(self, q, frame):
        z = np.zeros(self.n)
        return self._kin(q, z, z)[frame]["T"]

    def jacobian(self, q, frame):
        z = np.zeros(self.n)
        s = self._kin(q, z, z)[frame]
        return self._jac_point(s, s["T"][:3, 3]) @ self.G

    def kinetic_energy(self, q, qd):
        st = self._kin(q, qd, np.zeros(self.n))
        K = 0.0
        for ln in self.links:
            li = self.info.links[ln]
            s = st[ln]
            R = s["T"][:3, :3]
            rc = R @ li.com
            vc = s["v"] + np.cross(s["w"], rc)
            Rl = R @ li.R_inertial
            K += 0.5 * li.mass * vc @ vc + 0.5 * s["w"] @ (Rl @ li.inertia @ Rl.T) @ s["w"]
        return K

    def potential_energy(self, q):
        z = np.zeros(self.n)
        st = self._kin(q, z, z)
        P = 0.0
        for ln in self.links:
            li = self.info.links[ln]
            T = st[ln]["T"]
            P -= li.mass * self.gravity @ (T[:3, 3] + T[:3, :3] @ li.com)
        return P


# --------------------------------------------------------------------------------------------
# Pinocchio
# --------------------------------------------------------------------------------------------
class PinOracle:
    """Pinocchio on the full URDF tree (mimic joints as independent joints), reduced to the
    coordinates ``joint_names`` through ``q_full = G q + offset`` built from the URDF."""

    def __init__(self, xml, joint_names, gravity=None):
        import pinocchio as pin

        self.pin = pin
        self.xml = xml
        self.model = pin.buildModelFromXML(xml)
        if gravity is not None:
            self.model.gravity.linear = np.asarray(gravity, float)
        self.data = self.model.createData()
        self.info = parse_urdf(xml)
        self.joint_names = list(joint_names)
        self.n = len(self.joint_names)
        idx = {n: i for i, n in enumerate(self.joint_names)}
        m = self.model
        self.G = np.zeros((m.nv, self.n))
        self.off = np.zeros(m.nv)
        self.qslots = []  # (idx_q, idx_v, nq)
        for jid in range(1, m.njoints):
            name = m.names[jid]
            jm = m.joints[jid]
            assert jm.nv == 1, (name, jm.nv)
            coeffs, o = mimic_resolve(self.info, name, idx)
            for k, c in coeffs.items():
                self.G[jm.idx_v, k] += c
            self.off[jm.idx_v] = o
            self.qslots.append((jm.idx_q, jm.idx_v, jm.nq))
        self.has_mimic = not (
            self.G.shape[0] == self.n
            and np.allclose(self.G.T @ self.G, np.eye(self.n))
            and not np.any(self.off)
        )

    # coordinates
    def qp(self, q):
        th = self.G @ np.asarray(q, float) + self.off
        out = np.zeros(self.model.nq)
        for iq, iv, nq in self.qslots:
            if nq == 1:
                out[iq] = th[iv]
            else:
                out[iq], out[iq + 1] = np.cos(th[iv]), np.sin(th[iv])
        return out

    def vp(self, qd):
        return self.G @ np.asarray(qd, float)

    def rnea(self, q, qd, qdd):
        return self.G.T @ self.pin.rnea(
            self.model, self.data, self.qp(q), self.vp(qd), self.vp(qdd)
        )

    def gravity_torques(self, q):
        return self.G.T @ self.pin.computeGeneralizedGravity(self.model, self.data, self.qp(q))

    def mass_matrix_full(self, q):
        M = np.array(self.pin.crba(self.model, self.data, self.qp(q)))
        return np.triu(M) + np.triu(M, 1).T

    def mass_matrix(self, q):
        return self.G.T @ self.mass_matrix_full(q) @ self.G

    def coriolis_matrix(self, q, qd):
        C = self.pin.computeCoriolisMatrix(self.model, self.data, self.qp(q), self.vp(qd))
        return self.G.T @ np.array(C) @ self.G

    def nonlinear_effects(self, q, qd):
        return self.G.T @ self.pin.nonLinearEffects(self.model, self.data, self.qp(q), self.vp(qd))

    def forward_dynamics(self, q, qd, tau):
        if not self.has_mimic:  # G is a permutation: tau_full = G tau
            return self.G.T @ self.pin.aba(
                self.model, self.data, self.qp(q), self.vp(qd), self.G @ np.asarray(tau, float)
            )
        return np.linalg.solve(
            self.mass_matrix(q), np.asarray(tau, float) - self.nonlinear_effects(q, qd)
        )

    def dM_dq(self, q):
        """Exact dM_red/dq_l (n, n, n) [i, j, l] from pin's RNEA derivatives (zero gravity,
        zero velocity, qdd = e_k: dtau/dq = d(M e_k)/dq)."""
        pin = self.pin
        model0 = self.model.copy()
        model0.gravity.linear = np.zeros(3)
        data0 = model0.createData()
        qp = self.qp(q)
        nv = model0.nv
        dMf = np.zeros((nv, nv, nv))
        for k in range(nv):
            a = np.zeros(nv)
            a[k] = 1.0
            dtau_dq, _, _ = pin.computeRNEADerivatives(model0, data0, qp, np.zeros(nv), a)
            dMf[:, k, :] = np.array(dtau_dq)
        # reduce: dMred/dq_l = G^T (sum_a dMf[..., a] G[a, l]) G
        return np.einsum("ai,abc,bj,cl->ijl", self.G, dMf, self.G, self.G)

    def christoffel_coriolis(self, q, qd):
        return christoffel_from_dM(self.dM_dq(q), qd)

    def frame_id(self, frame):
        fid = self.model.getFrameId(frame, self.pin.FrameType.BODY)
        if fid >= self.model.nframes:
            fid = self.model.getFrameId(frame)
        if fid >= self.model.nframes:
            raise KeyError(frame)
        return fid

    def jacobian(self, q, frame):
        pin = self.pin
        J = pin.computeFrameJacobian(
            self.model, self.data, self.qp(q), self.frame_id(frame), pin.LOCAL_WORLD_ALIGNED
        )
        return np.array(J) @ self.G

    def frame_pose(self, q, frame):
        self.pin.framesForwardKinematics(self.model, self.data, self.qp(q))
        return np.array(self.data.oMf[self.frame_id(frame)].homogeneous)


def christoffel_from_dM(dM, qd):
    """C_kj = sum_i c_ijk qd_i, c_ijk = 1/2 (dM_kj/dq_i + dM_ki/dq_j - dM_ij/dq_k).

    dM[a, b, l] = dM_ab / dq_l."""
    qd = np.asarray(qd, float)
    # term1: sum_i dM_kj/dq_i qd_i ; term2: sum_i dM_ki/dq_j qd_i ; term3: sum_i dM_ij/dq_k qd_i
    t1 = np.einsum("kji,i->kj", dM, qd)
    t2 = np.einsum("kij,i->kj", dM, qd)
    t3 = np.einsum("ijk,i->kj", dM, qd)
    return 0.5 * (t1 + t2 - t3)


def fd_dM(mass_matrix, q, h=1e-5):
    """dM/dq_l by 4th-order central differences of a mass-matrix function (n, n, n)."""
    q = np.asarray(q, float)
    n = q.size
    out = np.zeros((n, n, n))
    for l in range(n):
        e = np.zeros(n)
        e[l] = h
        out[:, :, l] = (
            -mass_matrix(q + 2 * e)
            + 8 * mass_matrix(q + e)
            - 8 * mass_matrix(q - e)
            + mass_matrix(q - 2 * e)
        ) / (12 * h)
    return out


def max_err(a, b):
    return float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float)))) if np.size(a) else 0.0


def assert_close(actual, expected, rel=1e-9, what=""):
    """max |actual - expected| <= rel * max(1, max |expected|)."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    scale = max(1.0, float(np.max(np.abs(expected))) if expected.size else 1.0)
    err = max_err(actual, expected)
    assert err <= rel * scale, f"{what}: max abs error {err:.3e} > {rel:.1e} * {scale:.3g}"
