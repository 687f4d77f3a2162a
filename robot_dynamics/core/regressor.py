"""Joint torque regressor: inverse dynamics written linearly in the dynamic parameters.

``tau = Y(q, qd, qdd) theta`` for the model's gravity. The parameter vector ``theta`` is laid out
by a :class:`ParameterLayout`:

- 10 inertial parameters per *body* (the model's bodies: one per movable joint, the links fixed
  to it merged in; mimic joints' bodies included), in body order ``model.tree.body_link_names``:
  ``[m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]`` with ``c`` the centre of mass and ``I``
  the rotational inertia *about the body frame origin* (``I = I_c - m [c]x^2``), both in body
  axes. The body frame is the frame of the joint that moves the body (= the URDF frame of the
  body's link). This is Pinocchio's ``Inertia::toDynamicParameters`` order;
- then, per actuated joint (model order) and when the layout asks for them: viscous friction
  (column ``qd``), Coulomb friction (column ``smooth_sign(qd, v_eps)``, the core's smooth sign),
  a constant torque offset (column 1) and armature (column ``qdd``).

The inertial columns come from the body-frame Newton-Euler equations, linear in the
parameters: ``f_B = I_B(theta) a_B + v_B x* I_B(theta) v_B`` with the body's spatial velocity
``v_B`` and acceleration ``a_B`` (gravity as a base acceleration), and ``tau_j = S_j . sum of
the forces of the bodies it carries``; mimic joints' torques are mapped onto their drivers.
"""

from dataclasses import dataclass

import numpy as np

from .errors import InvalidInputError
from .friction import DEFAULT_VELOCITY_THRESHOLD, check_velocity_threshold, smooth_sign
from .spatial import motion_cross

#: Parameters per body, in this order.
BODY_PARAMETER_NAMES = ("m", "mcx", "mcy", "mcz", "ixx", "ixy", "iyy", "ixz", "iyz", "izz")
PARAMETERS_PER_BODY = 10


def _unit_inertias():
    """(10, 6, 6): the spatial inertia of each unit parameter vector e_k."""
    P = np.zeros((10, 6, 6))
    P[0, :3, :3] = np.eye(3)
    for k, axis in enumerate(range(3)):
        h = np.zeros(3)
        h[axis] = 1.0
        H = np.array([[0, -h[2], h[1]], [h[2], 0, -h[0]], [-h[1], h[0], 0]])
        P[1 + k, :3, 3:] = -H
        P[1 + k, 3:, :3] = H
    for k, (i, j) in enumerate(((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2))):
        P[4 + k, 3 + i, 3 + j] = 1.0
        P[4 + k, 3 + j, 3 + i] = 1.0
    return P


_UNIT_INERTIAS = _unit_inertias()
# (6, 60): a @ _UNIT_MATRIX reshaped (6, 10) is [P_0 a, ..., P_9 a]
_UNIT_MATRIX = np.ascontiguousarray(_UNIT_INERTIAS.transpose(2, 1, 0).reshape(6, 60))


def inertia_to_parameters(I6):
    """The 10 inertial parameters of spatial inertias.

    Args:
        I6: (..., 6, 6) spatial inertias about a frame origin, ``[v; w]`` order (see
            :mod:`robot_dynamics.core.spatial`).

    Returns:
        (..., 10) ``[m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]`` (kg, kg m, kg m^2),
        the inertia about the frame origin, frame axes.
    """
    I6 = np.asarray(I6, dtype=float)
    out = np.empty(I6.shape[:-2] + (10,))
    out[..., 0] = I6[..., 0, 0]
    out[..., 1] = I6[..., 5, 1]  # m [c]x block (lower left): [c]x[2, 1] = cx
    out[..., 2] = I6[..., 3, 2]
    out[..., 3] = I6[..., 4, 0]
    out[..., 4] = I6[..., 3, 3]
    out[..., 5] = I6[..., 3, 4]
    out[..., 6] = I6[..., 4, 4]
    out[..., 7] = I6[..., 3, 5]
    out[..., 8] = I6[..., 4, 5]
    out[..., 9] = I6[..., 5, 5]
    return out


def parameters_to_inertia(theta):
    """Inverse of :func:`inertia_to_parameters`.

    Args:
        theta: (..., 10) inertial parameters.

    Returns:
        ndarray: (..., 6, 6) spatial inertias about the frame origin, ``[v; w]`` order.
    """
    theta = np.asarray(theta, dtype=float)
    return np.tensordot(theta, _UNIT_INERTIAS, axes=(-1, 0))


def rotational_inertia(theta):
    """Rotational inertia about the frame origin from inertial parameters.

    Args:
        theta: (..., 10) inertial parameters.

    Returns:
        ndarray: (..., 3, 3) inertia [kg m^2], frame axes.
    """
    return parameters_to_inertia(theta)[..., 3:, 3:]


def body_parameters(model):
    """Nominal inertial parameters of the model's bodies, in body order.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.

    Returns:
        ndarray: (10 * nb,) parameters.
    """
    return inertia_to_parameters(model.tree.inertia).reshape(-1)


@dataclass(frozen=True)
class ParameterLayout:
    """Which columns the regressor has, in this order: the inertial parameters of the
    ``bodies`` bodies (10 each), then per actuated joint the enabled groups among viscous
    friction, Coulomb friction, offset and armature (``n`` each).

    Attributes:
        body_links: link names of the bodies, body order.
        joint_names: actuated joints, model order.
        viscous: viscous friction columns (``qd``).
        coulomb: Coulomb friction columns (``smooth_sign(qd, v_eps)``).
        offset: constant torque offset columns.
        armature: armature columns (``qdd``).
        velocity_threshold: ``v_eps`` [rad/s or m/s] of the Coulomb column's smooth sign, scalar
            (stored as a tuple of one value) or per joint.
    """

    body_links: tuple
    joint_names: tuple
    viscous: bool = True
    coulomb: bool = True
    offset: bool = False
    armature: bool = False
    velocity_threshold: tuple = (DEFAULT_VELOCITY_THRESHOLD,)

    @classmethod
    def for_model(
        cls,
        model,
        *,
        viscous=True,
        coulomb=True,
        offset=False,
        armature=False,
        velocity_threshold=DEFAULT_VELOCITY_THRESHOLD,
    ):
        """The layout of a model's bodies and joints.

        Args:
            model: the :class:`~robot_dynamics.core.model.RobotModel`.
            viscous: include viscous friction columns.
            coulomb: include Coulomb friction columns.
            offset: include constant torque offset columns.
            armature: include armature columns.
            velocity_threshold: ``v_eps`` [rad/s or m/s], scalar or (n,), >= 0.

        Returns:
            ParameterLayout: the layout.

        Raises:
            InvalidInputError: a bad velocity_threshold.
        """
        eps = check_velocity_threshold(velocity_threshold, model.n)
        return cls(
            body_links=tuple(model.tree.body_link_names),
            joint_names=tuple(model.joint_names),
            viscous=bool(viscous),
            coulomb=bool(coulomb),
            offset=bool(offset),
            armature=bool(armature),
            velocity_threshold=tuple(float(x) for x in np.atleast_1d(eps)),
        )

    @property
    def nb(self):
        """Number of bodies."""
        return len(self.body_links)

    @property
    def n(self):
        """Number of actuated joints."""
        return len(self.joint_names)

    @property
    def groups(self):
        """Enabled per-joint groups, in column order."""
        flags = (
            ("viscous", self.viscous),
            ("coulomb", self.coulomb),
            ("offset", self.offset),
            ("armature", self.armature),
        )
        return tuple(name for name, on in flags if on)

    @property
    def n_inertial(self):
        """Number of inertial columns, 10 per body."""
        return PARAMETERS_PER_BODY * self.nb

    @property
    def size(self):
        """Total number of columns p."""
        return self.n_inertial + self.n * len(self.groups)

    def group_slice(self, group):
        """Columns of a per-joint group.

        Args:
            group: 'viscous', 'coulomb', 'offset' or 'armature'.

        Returns:
            slice: the group's n columns.

        Raises:
            InvalidInputError: the layout has no such group.
        """
        if group not in self.groups:
            raise InvalidInputError(f"the layout has no {group!r} columns (it has {self.groups})")
        k = self.groups.index(group)
        start = self.n_inertial + k * self.n
        return slice(start, start + self.n)

    @property
    def names(self):
        """Column names: ``'<link>.<parameter>'`` and ``'<joint>.<group>'``."""
        out = [f"{link}.{p}" for link in self.body_links for p in BODY_PARAMETER_NAMES]
        for group in self.groups:
            out += [f"{joint}.{group}" for joint in self.joint_names]
        return tuple(out)

    def nominal(self, model):
        """The model's parameters in this layout: its bodies' inertias, URDF damping (viscous),
        friction (Coulomb), zero offsets and the model's armature.

        Args:
            model: the :class:`~robot_dynamics.core.model.RobotModel`.

        Returns:
            ndarray: (size,) parameters.
        """
        values = {
            "viscous": model.damping,
            "coulomb": model.friction,
            "offset": np.zeros(model.n),
            "armature": model.armature,
        }
        return np.concatenate([body_parameters(model)] + [values[g] for g in self.groups])

    def check(self, model):
        """Check that the layout was made for ``model``.

        Args:
            model: the :class:`~robot_dynamics.core.model.RobotModel`.

        Raises:
            InvalidInputError: the model's bodies or joints differ from the layout's.
        """
        if tuple(model.tree.body_link_names) != self.body_links or tuple(
            model.joint_names
        ) != tuple(self.joint_names):
            raise InvalidInputError(
                "parameter layout was made for another model (bodies or joints differ)"
            )


def joint_torque_regressor(model, q, qd, qdd):
    """Inertial regressor ``Y`` with ``inverse_dynamics(q, qd, qdd) = Y @ body_parameters``
    (without armature), the model's gravity included.

    Args:
        model: :class:`~robot_dynamics.core.model.RobotModel`.
        q: (..., n) joint positions [rad or m], model order.
        qd: (..., n) joint velocities [rad/s or m/s].
        qdd: (..., n) joint accelerations [rad/s^2 or m/s^2].

    Returns:
        (..., n, 10 * nb): column ``10 b + k`` is the torque of inertial parameter ``k`` of body
        ``b`` (see the module docstring for the order and frame).
    """
    q = model._check_vector(q, "q")
    qd = model._check_vector(qd, "qd")
    qdd = model._check_vector(qdd, "qdd")
    shape = model._check_batch(q=q, qd=qd, qdd=qdd)
    q, qd, qdd = (np.broadcast_to(x, shape + (model.n,)) for x in (q, qd, qdd))
    nb = model.tree.nb
    kin = model._kin(q)
    qd_full, qdd_full = model._full(qd, False), model._full(qdd, False)
    S, F = kin.S, kin.F
    anc = model.tree.ancestors
    Sqd = S * qd_full[..., None]
    V = anc @ Sqd
    bias = (motion_cross(V) @ Sqd[..., None])[..., 0]
    A = anc @ (S * qdd_full[..., None] + bias)
    A[..., :3] -= model.gravity
    FT = F.swapaxes(-1, -2)
    v = (FT @ V[..., None])[..., 0]  # body-frame velocity and acceleration
    a = (FT @ A[..., None])[..., 0]
    Pa = (a @ _UNIT_MATRIX).reshape(a.shape[:-1] + (6, 10))
    Pv = (v @ _UNIT_MATRIX).reshape(v.shape[:-1] + (6, 10))
    crf = -motion_cross(v).swapaxes(-1, -2)
    fB = Pa + crf @ Pv  # (..., nb, 6, 10) body-frame forces per parameter
    fW = F @ fB  # base axes about the base origin
    fW = fW.swapaxes(-3, -2).reshape(shape + (6, nb * 10))
    Y = S @ fW  # (..., nb_joint, nb_body * 10)
    Y = Y * np.repeat(anc.T, 10, axis=1)  # joint j carries the bodies below it
    if model.tree.has_mimic:
        Y = model._GT @ Y
    return Y


def regressor(model, q, qd, qdd, layout):
    """Full regressor ``Y`` (..., n, layout.size) with ``tau = Y @ theta`` for parameters
    ``theta`` in ``layout`` (inertial, then the friction / offset / armature columns).

    Args:
        model: the model the layout was made for.
        q: (..., n) joint positions [rad or m], model order.
        qd: (..., n) joint velocities [rad/s or m/s].
        qdd: (..., n) joint accelerations [rad/s^2 or m/s^2].
        layout: :class:`ParameterLayout`.

    Returns:
        (..., n, layout.size) [N m or N per parameter unit].

    Raises:
        InvalidInputError: wrong shapes or non-finite values (naming the joint), or a layout
            of another model.
    """
    layout.check(model)
    Y = joint_torque_regressor(model, q, qd, qdd)
    if not layout.groups:
        return Y
    shape = Y.shape[:-2]
    qd = np.broadcast_to(np.asarray(qd, dtype=float), shape + (model.n,))
    qdd = np.broadcast_to(np.asarray(qdd, dtype=float), shape + (model.n,))
    eps = np.asarray(layout.velocity_threshold)
    eps = eps[0] if eps.size == 1 else eps
    columns = {
        "viscous": lambda: qd,
        "coulomb": lambda: smooth_sign(qd, eps),
        "offset": lambda: np.ones(shape + (model.n,)),
        "armature": lambda: qdd,
    }
    eye = np.eye(model.n)
    blocks = [Y] + [columns[g]()[..., None, :] * eye for g in layout.groups]
    return np.concatenate(blocks, axis=-1)


__all__ = [
    "BODY_PARAMETER_NAMES",
    "PARAMETERS_PER_BODY",
    "ParameterLayout",
    "body_parameters",
    "inertia_to_parameters",
    "joint_torque_regressor",
    "parameters_to_inertia",
    "regressor",
    "rotational_inertia",
]
