"""External wrench from joint torques (tau_ext = J^T f_ext) and the momentum observer."""

from dataclasses import dataclass
import functools

import math

import numpy as np

from . import dynamics as _dynamics
from .errors import InvalidInputError
from .friction import DEFAULT_VELOCITY_THRESHOLD, check_velocity_threshold
from .jacobian import frame_pose
from .jit import kernel, rows
from .validation import check_vector


#: Names of the wrench components, in the order of every wrench vector.
WRENCH_COMPONENTS = ("fx", "fy", "fz", "tx", "ty", "tz")

#: Default momentum-observer gain K_O [1/s]: the estimate's time constant is 1 / K_O (20 ms).
OBSERVER_GAIN = 50.0

#: Default largest damping of the wrench's pseudo-inverse, and the singular value below which
#: it fades in.
WRENCH_DAMPING = 0.05
SINGULAR_THRESHOLD = 0.01


def resolve_wrench_components(components, n):
    """The wrench components to estimate, in :data:`WRENCH_COMPONENTS` order.

    Args:
        components: None (the default: all six when ``n >= 6``, else the force
            ``("fx", "fy", "fz")``, a point contact at the frame origin), a string such as
            ``"fx fy fz"`` (spaces or commas), or a sequence of names.
        n: number of joints that move the frame the wrench acts on
            (``tree.moving_joints(frame).sum()``: on a tree, not every joint of the model).

    Returns:
        tuple of component names, without repeats, in ``fx fy fz tx ty tz`` order.

    Raises:
        InvalidInputError: an unknown or repeated name, or an empty selection.
    """
    if components is None:
        return WRENCH_COMPONENTS if n >= 6 else WRENCH_COMPONENTS[:3]
    if isinstance(components, tuple):
        try:
            if components in _RESOLVED:  # already resolved
                return components
        except TypeError:  # an unhashable entry: reported below
            pass
    if isinstance(components, str):
        names = components.replace(",", " ").split()
    else:
        names = list(components)
    unknown = [c for c in names if c not in WRENCH_COMPONENTS]
    if unknown:
        raise InvalidInputError(
            f"unknown wrench components {unknown}; choose from {list(WRENCH_COMPONENTS)}"
        )
    if len(set(names)) != len(names):
        raise InvalidInputError(f"wrench components repeated in {names}")
    if not names:
        raise InvalidInputError(
            f"no wrench component selected; choose from {list(WRENCH_COMPONENTS)}"
        )
    resolved = tuple(c for c in WRENCH_COMPONENTS if c in names)
    if len(_RESOLVED) < 64:
        _RESOLVED.add(resolved)
    return resolved


_RESOLVED = {WRENCH_COMPONENTS}  # selections seen in canonical form (a fast path)


@functools.lru_cache(maxsize=64)
def component_rows(components):
    """Rows of a resolved components tuple in a wrench vector (cached, read-only).

    Args:
        components: tuple of names among ``fx fy fz tx ty tz`` (as resolved by
            :func:`resolve_wrench_components`).

    Returns:
        ndarray: (k,) read-only index array into ``[fx fy fz tx ty tz]``.
    """
    rows = np.array([WRENCH_COMPONENTS.index(c) for c in components], dtype=np.intp)
    rows.flags.writeable = False
    return rows


@dataclass(frozen=True)
class WrenchEstimate:
    """Result of :meth:`RobotModel.estimate_external_wrench`.

    Attributes:
        wrench: (..., 6) ``[fx, fy, fz, tx, ty, tz]`` [N, N m], the wrench the environment
            applies to the frame as a force-torque sensor at the frame reads it: components in
            the frame's axes, moment about the frame origin; components not estimated are 0.
        singular_values: (..., k) singular values of J_S (the rows of the selected components),
            k = min(len(components), n), descending.
        min_singular_value: the smallest of them: a float for one configuration, (...) for a
            batch.
        near_singular: ``min_singular_value < singular_threshold`` (bool, or (...) for a batch):
            the components along the weakest directions are damped (biased toward zero).
        components: the estimated components, e.g. ``("fx", "fy", "fz")``.
    """

    wrench: np.ndarray
    singular_values: np.ndarray
    min_singular_value: float | np.ndarray
    near_singular: bool | np.ndarray
    components: tuple = WRENCH_COMPONENTS


_TINY = np.finfo(float).tiny


@kernel
def damped_pinv_kernel(J, tau_ext, damping, singular_threshold, f, singular_values):
    """:func:`damped_pinv_solve`, a configuration at a time.

    Args:
        J: (B, k, n) Jacobian rows, k and n > 0.
        tau_ext: (B, n) external joint torques.
        damping: maximum damping lambda.
        singular_threshold: singular value below which damping fades in.
        f: (B, k) output: the wrench.
        singular_values: (B, min(k, n)) output, descending.
    """
    coeff = np.empty(singular_values.shape[1])
    for b in range(J.shape[0]):
        U, s, Vt = np.linalg.svd(J[b], full_matrices=False)  # J = U diag(s) Vt
        for i in range(s.size):
            if s[i] >= singular_threshold and s[i] > 0.0:
                gain = 1.0 / s[i]  # the exact inverse
            else:
                ratio = min(s[i] / singular_threshold, 1.0) if singular_threshold > 0.0 else 1.0
                lam2 = damping**2 * (1.0 - ratio**2)
                gain = s[i] / (s[i] ** 2 + lam2 + _TINY)
            coeff[i] = (Vt[i] @ tau_ext[b]) * gain  # J^T = V diag(s) U^T: f = U diag(gain) V^T tau
            singular_values[b, i] = s[i]
        for r in range(f.shape[1]):
            f[b, r] = U[r] @ coeff


def damped_pinv_solve(J, tau_ext, *, damping, singular_threshold):
    """Solve ``J^T f = tau_ext`` for f by a selectively damped SVD pseudo-inverse.

    Singular values at or above ``singular_threshold`` are inverted exactly; below it a damping
    ``lambda^2 = damping^2 (1 - (s / threshold)^2)`` fades in (Nakamura & Hanafusa), which
    bounds the gain near a singularity.

    Args:
        J: (..., k, n) Jacobian rows (k = 6, or the selected components).
        tau_ext: (..., n) external joint torques [N m or N], J's batch shape.
        damping: maximum damping lambda.
        singular_threshold: singular value below which damping fades in.

    Returns:
        tuple: ``(f (..., k) [N, N m], singular values (..., min(k, n)))``, the singular values
        in descending order.
    """
    batch, (k, n) = J.shape[:-2], J.shape[-2:]
    if 0 in (k, n):  # no joint moves the frame (or no component): nothing to solve
        return np.zeros(batch + (k,)), np.zeros(batch + (0,))
    f, s = np.empty(batch + (k,)), np.empty(batch + (min(k, n),))
    size = math.prod(batch)
    damped_pinv_kernel(
        rows(J, batch, (k, n)),
        rows(tau_ext, batch, (n,)),
        float(damping),
        float(singular_threshold),
        f.reshape(size, k),
        s.reshape(size, min(k, n)),
    )
    return f, s


def external_wrench(
    tree, q, tau_ext, frame, sensor_frame, components, damping, singular_threshold, jacobian=None
):
    """The external wrench at ``frame`` as a sensor at ``sensor_frame`` reads it (see
    :meth:`RobotModel.estimate_external_wrench`, which validates the arguments and calls this).

    An unchecked entry point (see :mod:`robot_dynamics.core.dynamics`): the arguments are
    already validated.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        q: (..., n) joint positions [rad or m].
        tau_ext: (..., n) external joint torques [N m or N].
        frame: the link the wrench acts on, at its origin.
        sensor_frame: the link whose axes and origin the wrench is expressed in.
        components: resolved component names (:func:`resolve_wrench_components`).
        damping: largest damping of the damped pseudo-inverse.
        singular_threshold: singular value below which the damping fades in.
        jacobian: (..., 6, n) Jacobian of ``frame`` in its own axes at q, or None.

    Returns:
        :class:`WrenchEstimate`.
    """
    shape = q.shape[:-1]
    if tau_ext.shape[:-1] != shape:
        shape = np.broadcast_shapes(shape, tau_ext.shape[:-1])
    kin = None
    if jacobian is None:
        kin = _dynamics.kinematics(tree, q)
        J = _dynamics.frame_jacobian(tree, kin, frame, "local")
    else:
        J = jacobian
    lever = None
    if sensor_frame != frame:
        T = (_dynamics.kinematics(tree, q) if kin is None else kin).T
        T_f = frame_pose(tree, T, frame)
        T_s = frame_pose(tree, T, sensor_frame)
        R_sT = np.swapaxes(T_s[..., :3, :3], -1, -2)
        R_sf = R_sT @ T_f[..., :3, :3]  # frame axes -> sensor axes
        J = np.concatenate([R_sf @ J[..., :3, :], R_sf @ J[..., 3:, :]], axis=-2)
        lever = (R_sT @ (T_f[..., :3, 3] - T_s[..., :3, 3])[..., None])[..., 0]
    if J.shape[:-2] != shape:
        J = np.broadcast_to(J, shape + J.shape[-2:])
    if tau_ext.shape[:-1] != shape:
        tau_ext = np.broadcast_to(tau_ext, shape + tau_ext.shape[-1:])
    if len(components) == 6:
        f, s = damped_pinv_solve(J, tau_ext, damping=damping, singular_threshold=singular_threshold)
    else:
        selected = component_rows(components)
        f_s, s = damped_pinv_solve(
            J[..., selected, :], tau_ext, damping=damping, singular_threshold=singular_threshold
        )
        f = np.zeros(shape + (6,))
        f[..., selected] = f_s
    if lever is not None:
        f = np.concatenate([f[..., :3], f[..., 3:] + np.cross(lever, f[..., :3])], axis=-1)
    s_min = s[..., -1] if s.shape[-1] else np.zeros(s.shape[:-1])
    near = s_min < singular_threshold
    if not shape:
        s_min, near = float(s_min), bool(near)
    return WrenchEstimate(
        wrench=f,
        singular_values=s,
        min_singular_value=s_min,
        near_singular=near,
        components=components,
    )


class MomentumObserver:
    """Generalised momentum observer (De Luca & Mattone 2005): external joint torques without
    joint accelerations.

    With ``p = M(q) qd``::

        r(t) = K_O [p(t) - p(0) - integral(tau + C^T qd - g + r) dt]

    r converges to ``tau_ext`` (the joint torques of the external wrench, ``J^T f_ext``) with
    first-order dynamics of bandwidth ``K_O`` [1/s] per joint. The discrete update treats r
    implicitly (backward Euler), so it stays stable for any ``gain * dt``, and integrates the
    known torques ``tau + C^T qd - g`` by the trapezoidal rule over each step (exact when they
    change linearly over a gap in the samples).

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        gain: K_O, scalar or (n,) [1/s], finite and > 0.
        friction: subtract the model's joint friction from the applied torque (use when the
            robot really has that friction).
        friction_velocity_threshold: ``v_eps`` [rad/s or m/s] of the friction's smooth sign
            (:func:`robot_dynamics.core.friction.smooth_sign`).

    Raises:
        InvalidInputError: a gain of the wrong size, not finite or not > 0; a bad threshold.
    """

    def __init__(
        self,
        model,
        gain=OBSERVER_GAIN,
        *,
        friction=False,
        friction_velocity_threshold=DEFAULT_VELOCITY_THRESHOLD,
    ):
        self.model = model
        try:
            self.gain = np.broadcast_to(np.asarray(gain, dtype=float), (model.n,)).copy()
        except ValueError:
            raise InvalidInputError(
                f"observer gain must be a scalar or {model.n} values "
                f"(joints {list(model.joint_names)}), got {gain!r}"
            ) from None
        if np.any(self.gain <= 0) or not np.all(np.isfinite(self.gain)):
            raise InvalidInputError(f"observer gain must be finite and > 0, got {gain!r}")
        self.friction = friction
        self.friction_velocity_threshold = check_velocity_threshold(
            friction_velocity_threshold, model.n
        )
        self._p0 = None
        self._integral = None
        self._known = None  # tau + C^T qd - g at the latest step (None after a reset)
        self.residual = None

    def reset(self, q, qd, terms=None, residual=None):
        """Start observing from state (q, qd).

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            terms: optional :class:`~robot_dynamics.core.model.StateTerms` already computed at
                (q, qd) (its momentum is used instead of a new pass).
            residual: (..., n) value [N m or N] the residual restarts from (default 0), e.g. the
                quasi-static estimate ``C qd + g - tau``, exact at rest: the observer is then right
                at once after a restart instead of converging from zero with time constant 1 / K_O.
        """
        if terms is None:
            self._p0, _, _ = self.model.momentum_terms(q, qd)
        else:
            self._p0 = terms.momentum.copy()
        self._known = None
        if residual is None:
            self._integral = np.zeros_like(self._p0)
            self.residual = np.zeros_like(self._p0)
        else:
            # r = K (p - p0 - I) with p = p0: I = -r / K gives r at once
            self.residual = np.array(np.broadcast_to(residual, self._p0.shape), dtype=float)
            self._integral = -self.residual / self.gain

    @property
    def started(self):
        """True once the observer has a reference state (first update or reset)."""
        return self._p0 is not None

    def update(self, q, qd, tau, dt, terms=None):
        """Advance by dt with the measured state and applied joint torque.

        The first call after construction initialises from (q, qd) and returns zeros (tau and dt
        are checked, not used).

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            tau: (..., n) applied joint torques [N m or N].
            dt: time step [s], finite and > 0.
            terms: optional :class:`~robot_dynamics.core.model.StateTerms` already computed at
                (q, qd) (its momentum, C^T qd and gravity are used instead of a new pass).

        Returns:
            ndarray: the estimated external joint torques r (..., n) [N m or N].

        Raises:
            InvalidInputError: dt not finite or not > 0; tau malformed (names the joint).
        """
        if not (math.isfinite(dt) and dt > 0):
            raise InvalidInputError(f"observer time step dt must be finite and > 0, got {dt!r}")
        tau = check_vector(tau, "tau", self.model.joint_names)
        if self._p0 is None:
            self.reset(q, qd, terms)
            return self.residual.copy()
        if terms is None:
            p, CTqd, g = self.model.momentum_terms(q, qd)
        else:
            p, CTqd, g = terms.momentum, terms.coriolis_transpose_qd, terms.gravity
        if self.friction:
            tau = tau - self.model.friction_torques(qd, self.friction_velocity_threshold)
        return self.advance(tau, dt, p, CTqd, g).copy()

    def advance(self, tau, dt, momentum, coriolis_transpose_qd, gravity):
        """Advance by dt from dynamics terms already computed at the new state.

        An unchecked entry point (see :mod:`robot_dynamics.core.dynamics`): the observer has
        started (:meth:`reset`), ``tau`` is finite and its friction already removed, ``dt`` is
        finite and > 0; :meth:`update` checks its arguments and calls this.

        Args:
            tau: (..., n) applied joint torques [N m or N].
            dt: time step [s].
            momentum: (..., n) M qd [kg m^2/s or kg m/s].
            coriolis_transpose_qd: (..., n) C^T qd [N m or N].
            gravity: (..., n) g(q) [N m or N].

        Returns:
            ndarray: the estimated external joint torques r (..., n) [N m or N]: the observer's
            ``residual`` itself (a new array every step; not to be modified).
        """
        # The residual enters its own integral implicitly (r at the end of the step), so the
        # update is stable and monotone for any gain * dt, e.g. after a gap in the samples; the
        # known torques k = tau + C^T qd - g by the trapezoidal rule (the step's end alone
        # after a reset):
        #   r_new = K (p - p0 - I_old - ((k_old + k_new) / 2 + r_new) dt)
        known = tau + coriolis_transpose_qd - gravity
        mean = known if self._known is None else 0.5 * (known + self._known)
        self._known = known
        u = momentum - self._p0 - self._integral - mean * dt
        self.residual = self.gain * u / (1.0 + self.gain * dt)
        self._integral = self._integral + (mean + self.residual) * dt
        return self.residual
