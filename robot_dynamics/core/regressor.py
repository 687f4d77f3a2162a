"""Joint torque regressor: inverse dynamics written linearly in the dynamic parameters.

``tau = Y(q, qd, qdd) theta`` for the model's gravity. The parameter vector ``theta`` is laid out
by a :class:`ParameterLayout`:

- 10 inertial parameters per *body* (the model's bodies: one per movable joint, the links fixed
  to it merged in; mimic joints' bodies included), in body order ``model.tree.body_link_names``:
  ``[m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]`` with ``c`` the centre of mass and ``I``
  the rotational inertia *about the body frame origin* (``I = I_c - m [c]x^2``), both in body
  axes. The body frame is the frame of the joint that moves the body (= the URDF frame of the
  body's link). This is Pinocchio's ``Inertia::toDynamicParameters`` order;
- then, per group and for the joints the layout gives it (model order): the friction terms of
  :mod:`robot_dynamics.core.friction` (viscous ``qd``, Coulomb ``s``, asymmetry ``|s|``,
  Stribeck ``exp(-(qd / v_s)^2) s`` with ``s = smooth_sign(qd, v_eps)``, the functions of
  :func:`~robot_dynamics.core.friction.friction_basis`), a constant torque offset (column 1) and
  armature (column ``qdd``).

The inertial columns come from the body-frame Newton-Euler equations, linear in the
parameters: ``f_B = I_B(theta) a_B + v_B x* I_B(theta) v_B`` with the body's spatial velocity
``v_B`` and acceleration ``a_B`` (gravity as a base acceleration), and ``tau_j = S_j . sum of
the forces of the bodies it carries``; mimic joints' torques are mapped onto their drivers.
"""

from dataclasses import dataclass

import numpy as np

from .errors import InvalidInputError
from .friction import (
    DEFAULT_STRIBECK_VELOCITY,
    DEFAULT_VELOCITY_THRESHOLD,
    FRICTION_TERMS,
    MAX_STRIBECK_VELOCITY,
    check_velocity_threshold,
    friction_basis,
)
from .dynamics import kinematics
from .rnea import rnea_pass
from .spatial import motion_cross
from .validation import check_batch, check_vector

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


#: Per-joint column groups, in column order: the friction terms, a torque offset, armature.
JOINT_GROUPS = FRICTION_TERMS + ("offset", "armature")


def _members(value, n, group):
    """Joint indices of a group from True / False or n booleans."""
    if isinstance(value, (bool, np.bool_)):
        return tuple(range(n)) if value else ()
    flags = np.asarray(value)
    if flags.shape != (n,) or flags.dtype != bool:
        raise InvalidInputError(f"{group} must be True, False or {n} booleans, got {value!r}")
    return tuple(int(k) for k in np.flatnonzero(flags))


@dataclass(frozen=True)
class ParameterLayout:
    """Which columns the regressor has, in this order: the inertial parameters of the
    ``bodies`` bodies (10 each), then per group of :data:`JOINT_GROUPS` one column for each
    joint of the group (model order): viscous friction, Coulomb friction, friction asymmetry,
    Stribeck friction (see :mod:`robot_dynamics.core.friction`), torque offset and armature.

    Attributes:
        body_links: link names of the bodies, body order.
        joint_names: actuated joints, model order.
        members: per group of :data:`JOINT_GROUPS`, the indices of the joints that have it.
        velocity_threshold: ``v_eps`` [rad/s or m/s] of the friction's smooth sign, per joint.
        stribeck_velocity: Stribeck velocity [rad/s or m/s] of the Stribeck columns, per joint.
    """

    body_links: tuple
    joint_names: tuple
    members: tuple
    velocity_threshold: tuple
    stribeck_velocity: tuple

    @classmethod
    def for_model(
        cls,
        model,
        *,
        viscous=True,
        coulomb=True,
        asymmetry=False,
        stribeck=False,
        offset=False,
        armature=False,
        velocity_threshold=DEFAULT_VELOCITY_THRESHOLD,
        stribeck_velocity=DEFAULT_STRIBECK_VELOCITY,
    ):
        """The layout of a model's bodies and joints.

        Args:
            model: the :class:`~robot_dynamics.core.model.RobotModel`.
            viscous: viscous friction columns (``qd``): True (every joint), False, or (n,) bool.
            coulomb: Coulomb friction columns (``smooth_sign(qd, v_eps)``), the same forms.
            asymmetry: friction asymmetry columns (``|smooth_sign(qd, v_eps)|``); only on joints
                with a Coulomb column.
            stribeck: Stribeck columns (``exp(-(qd / v_s)^2) smooth_sign(qd, v_eps)``).
            offset: constant torque offset columns (1).
            armature: armature columns (``qdd``).
            velocity_threshold: ``v_eps`` [rad/s or m/s], scalar or (n,), >= 0.
            stribeck_velocity: ``v_s`` [rad/s or m/s], scalar or (n,), > 0.

        Returns:
            ParameterLayout: the layout.

        Raises:
            InvalidInputError: a bad velocity_threshold or stribeck_velocity, a group that is
                not a bool or n bools, asymmetry on a joint without Coulomb friction.
        """
        n = model.n
        eps = np.broadcast_to(check_velocity_threshold(velocity_threshold, n), (n,))
        try:
            vs = np.broadcast_to(np.asarray(stribeck_velocity, dtype=float), (n,))
        except ValueError:
            raise InvalidInputError(
                f"stribeck_velocity must be a scalar or {n} values, got {stribeck_velocity!r}"
            ) from None
        if not np.all(np.isfinite(vs) & (vs > 0) & (vs <= MAX_STRIBECK_VELOCITY)):
            raise InvalidInputError(
                f"stribeck_velocity must be > 0 and <= {MAX_STRIBECK_VELOCITY:g}, "
                f"got {stribeck_velocity!r}"
            )
        flags = dict(
            viscous=viscous,
            coulomb=coulomb,
            asymmetry=asymmetry,
            stribeck=stribeck,
            offset=offset,
            armature=armature,
        )
        members = tuple(_members(flags[g], n, g) for g in JOINT_GROUPS)
        lonely = set(members[JOINT_GROUPS.index("asymmetry")]) - set(
            members[JOINT_GROUPS.index("coulomb")]
        )
        if lonely:
            names = [model.joint_names[k] for k in sorted(lonely)]
            raise InvalidInputError(f"friction asymmetry without Coulomb friction on {names}")
        return cls(
            body_links=tuple(model.tree.body_link_names),
            joint_names=tuple(model.joint_names),
            members=members,
            velocity_threshold=tuple(float(x) for x in eps),
            stribeck_velocity=tuple(float(x) for x in vs),
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
        """Per-joint groups with at least one joint, in column order."""
        return tuple(g for g, m in zip(JOINT_GROUPS, self.members) if m)

    def joints(self, group):
        """Joint indices of a group.

        Args:
            group: one of :data:`JOINT_GROUPS`.

        Returns:
            tuple: indices (model order); empty when the layout has no such columns.

        Raises:
            InvalidInputError: an unknown group.
        """
        if group not in JOINT_GROUPS:
            raise InvalidInputError(f"unknown group {group!r}; groups: {list(JOINT_GROUPS)}")
        return self.members[JOINT_GROUPS.index(group)]

    @property
    def n_inertial(self):
        """Number of inertial columns, 10 per body."""
        return PARAMETERS_PER_BODY * self.nb

    @property
    def size(self):
        """Total number of columns p."""
        return self.n_inertial + sum(len(m) for m in self.members)

    def group_slice(self, group):
        """Columns of a per-joint group (one per joint of :meth:`joints`).

        Args:
            group: one of :data:`JOINT_GROUPS`.

        Returns:
            slice: the group's columns.

        Raises:
            InvalidInputError: the layout has no such group.
        """
        if group not in self.groups:
            raise InvalidInputError(f"the layout has no {group!r} columns (it has {self.groups})")
        start = self.n_inertial
        for g, m in zip(JOINT_GROUPS, self.members):
            if g == group:
                return slice(start, start + len(m))
            start += len(m)
        raise AssertionError("unreachable")  # pragma: no cover

    def joint_values(self, theta, group, default=0.0):
        """A group's values per joint.

        Args:
            theta: (p,) parameters in this layout.
            group: one of :data:`JOINT_GROUPS`.
            default: scalar or (n,) value of the joints without the group's column.

        Returns:
            ndarray: (n,) values, model order.
        """
        out = np.array(np.broadcast_to(np.asarray(default, dtype=float), (self.n,)))
        joints = self.joints(group)
        if joints:
            out[list(joints)] = np.asarray(theta, dtype=float)[self.group_slice(group)]
        return out

    @property
    def names(self):
        """Column names: ``'<link>.<parameter>'`` and ``'<joint>.<group>'``."""
        out = [f"{link}.{p}" for link in self.body_links for p in BODY_PARAMETER_NAMES]
        for group, m in zip(JOINT_GROUPS, self.members):
            out += [f"{self.joint_names[k]}.{group}" for k in m]
        return tuple(out)

    def nominal(self, model):
        """The model's parameters in this layout: its bodies' inertias, its friction model's
        coefficients, zero offsets and the model's armature.

        Args:
            model: the :class:`~robot_dynamics.core.model.RobotModel`.

        Returns:
            ndarray: (size,) parameters.
        """
        values = {term: getattr(model.friction, term) for term in FRICTION_TERMS}
        values["offset"] = np.zeros(model.n)
        values["armature"] = model.armature
        parts = [body_parameters(model)]
        parts += [np.asarray(values[g])[list(m)] for g, m in zip(JOINT_GROUPS, self.members)]
        return np.concatenate(parts)

    def friction_model(self, theta, base):
        """The friction model of parameters ``theta``: the fitted coefficients on the joints
        that have a column, ``base``'s elsewhere; the layout's Stribeck velocity on the joints
        with a Stribeck column.

        Args:
            theta: (p,) parameters in this layout.
            base: :class:`~robot_dynamics.core.friction.FrictionModel` of the other joints.

        Returns:
            FrictionModel: the model.

        Raises:
            InvalidInputError: coefficients the friction model refuses (negative, an asymmetry
                beyond the Coulomb level).
        """
        values = {
            term: self.joint_values(theta, term, getattr(base, term)) for term in FRICTION_TERMS
        }
        vs = np.array(base.stribeck_velocity)
        joints = list(self.joints("stribeck"))
        vs[joints] = np.asarray(self.stribeck_velocity)[joints]
        return base.replace(stribeck_velocity=vs, **values)

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
    tree = model.tree
    q = check_vector(q, "q", tree.joint_names)
    qd = check_vector(qd, "qd", tree.joint_names)
    qdd = check_vector(qdd, "qdd", tree.joint_names)
    shape = check_batch(q=q, qd=qd, qdd=qdd)
    q, qd, qdd = (np.broadcast_to(x, shape + (tree.n,)) for x in (q, qd, qdd))
    nb = tree.nb
    kin = kinematics(tree, q)
    qd_full, qdd_full = tree.body_rates(qd), tree.body_rates(qdd)
    _, V, A, _ = rnea_pass(tree, kin, qd_full, qdd_full)
    S, F = kin.S, kin.F
    anc = tree.ancestors
    va = F.swapaxes(-1, -2) @ np.stack([V, A], axis=-1)  # body-frame velocity, acceleration
    v, a = va[..., 0], va[..., 1]
    Pa = (a @ _UNIT_MATRIX).reshape(a.shape[:-1] + (6, 10))
    Pv = (v @ _UNIT_MATRIX).reshape(v.shape[:-1] + (6, 10))
    crf = -motion_cross(v).swapaxes(-1, -2)
    fB = Pa + crf @ Pv  # (..., nb, 6, 10) body-frame forces per parameter
    fW = F @ fB  # base axes about the base origin
    fW = fW.swapaxes(-3, -2).reshape(shape + (6, nb * 10))
    Y = S @ fW  # (..., nb_joint, nb_body * 10)
    Y = Y * np.repeat(anc.T, 10, axis=1)  # joint j carries the bodies below it
    return tree.GT @ Y if tree.has_mimic else Y


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
    shape = Y.shape[:-2] + (model.n,)
    qd = np.broadcast_to(np.asarray(qd, dtype=float), shape)
    qdd = np.broadcast_to(np.asarray(qdd, dtype=float), shape)
    return np.concatenate([Y, joint_regressor(layout, qd, qdd)], axis=-1)


def joint_regressor(layout, qd, qdd):
    """The per-joint columns of the regressor (friction, offset, armature: the columns after the
    inertial ones, see :func:`regressor`).

    Args:
        layout: :class:`ParameterLayout`.
        qd: (..., n) joint velocities [rad/s or m/s], checked by the caller.
        qdd: (..., n) joint accelerations [rad/s^2 or m/s^2], checked by the caller.

    Returns:
        (..., n, layout.size - layout.n_inertial) [N m or N per parameter unit].
    """
    qd = np.asarray(qd, dtype=float)
    qdd = np.asarray(qdd, dtype=float)
    n = layout.n
    eps = np.asarray(layout.velocity_threshold)
    blocks = []
    for group, members in zip(JOINT_GROUPS, layout.members):
        if not members:
            continue
        if group == "offset":
            column = np.ones(qd.shape)
        elif group == "armature":
            column = qdd
        else:
            column = friction_basis(group, qd, eps, np.asarray(layout.stribeck_velocity))
        joints = list(members)
        blocks.append(column[..., None, joints] * np.eye(n)[:, joints])
    if not blocks:
        return np.zeros(qd.shape + (0,))
    return np.concatenate(blocks, axis=-1)


__all__ = [
    "BODY_PARAMETER_NAMES",
    "JOINT_GROUPS",
    "PARAMETERS_PER_BODY",
    "ParameterLayout",
    "body_parameters",
    "inertia_to_parameters",
    "joint_regressor",
    "joint_torque_regressor",
    "parameters_to_inertia",
    "regressor",
    "rotational_inertia",
]
