"""Unchecked entry points: the dynamics of actuated joint vectors over the compiled tree.

**Inputs are already validated**: these functions do not check them again. Joint vectors are
float arrays (..., n) in ``tree.joint_names`` order, finite and within
:data:`~robot_dynamics.core.validation.MAX_INPUT`, with batch shapes that broadcast; frames are
links of the tree (keys of ``tree.frames``); axes are ``"base"`` or ``"local"``; wrenches are
(..., 6) float arrays. :class:`~robot_dynamics.core.model.RobotModel`'s methods validate their
arguments once and call these; a caller that has validated its inputs itself (the estimation
pipeline, an integrator's inner loop) calls them directly.

They take a :class:`~robot_dynamics.core.kinematics.Kinematics` pass made by :func:`kinematics`,
so several terms at one configuration share one forward-kinematics pass (as Pinocchio's
algorithms share ``forwardKinematics``); :func:`in_chunks` runs one of them over a large batch a
chunk of configurations at a time. Units and conventions are those of
:class:`~robot_dynamics.core.model.RobotModel`.
"""

import math

import numpy as np
from scipy.linalg.lapack import dposv as _dposv

from . import jacobian as _jacobian
from .coriolis import coriolis, momentum_terms as _momentum_terms
from .crba import crba
from .errors import SingularInertiaError
from .gravity import generalized_gravity
from .jit import batch_shape
from .kinematics import Kinematics
from .aba import aba as _aba
from .rnea import rnea, world_wrench
from .validation import all_finite

_isfinite = np.isfinite

#: Bytes of one per-body array (configurations x bodies x its entries, float64) in a pass of
#: :func:`in_chunks`: a larger batch is computed a chunk at a time, so that the kinematics pass's
#: arrays stay small whatever the batch (512 body configurations of 6 x 6 matrices: 1.2 MB; the
#: time per configuration is within ~10 % of one pass over 1000 or 20000 configurations).
CHUNK_BYTES = 512 * 36 * 8


def kinematics(tree, q):
    """The forward-kinematics pass at q, shared by the terms below.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        q: (..., n) joint positions [rad or m].

    Returns:
        Kinematics: body poses at q (and, on first use, world axes and inertias).
    """
    return Kinematics(tree, tree.body_positions(q))


def in_chunks(tree, shape, function, q, *arrays, entries=36, **options):
    """``function(tree, kinematics(tree, q), *arrays, **options)`` over a batch of configurations,
    a chunk at a time: chunks of ``CHUNK_BYTES / (8 entries nb)`` configurations.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        shape: the batch shape of ``q`` and ``arrays`` (broadcast).
        function: one of this module's functions (or any taking ``(tree, kin, *arrays,
            **options)`` and returning an array, or a tuple of arrays, of leading shape
            ``shape``).
        q: (..., n) joint positions [rad or m].
        *arrays: (..., m) arrays of the batch (or None, passed on as None).
        entries: entries per body of ``function``'s largest temporaries: 36 for the dynamics
            (6 x 6 spatial matrices), 16 for poses and Jacobians (4 x 4 transforms).
        **options: passed on unchanged.

    Returns:
        ``function``'s result (..., *) over the whole batch (a tuple when it returns one).
    """
    if not shape:  # one configuration
        return function(tree, kinematics(tree, q), *arrays, **options)
    size = math.prod(shape)
    chunk = max(1, CHUNK_BYTES // (8 * entries * max(tree.nb, 1)))
    if size <= chunk:
        return function(tree, kinematics(tree, q), *arrays, **options)
    flat = [
        None if a is None else np.broadcast_to(a, shape + a.shape[-1:]).reshape(size, -1)
        for a in (q,) + arrays
    ]
    parts = []
    for start in range(0, size, chunk):
        q_k, *arrays_k = (None if a is None else a[start : start + chunk] for a in flat)
        parts.append(function(tree, kinematics(tree, q_k), *arrays_k, **options))
    if isinstance(parts[0], tuple):
        return tuple(_joined(results, shape) for results in zip(*parts))
    return _joined(parts, shape)


def _joined(parts, shape):
    out = np.concatenate(parts)
    return out.reshape(shape + out.shape[1:])


def external_force(tree, kin, f_ext, frame):
    """A wrench on a link as ``(body, spatial force about the base origin)`` for the RNEA.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        f_ext: (..., 6) wrench ``[f; n]`` [N, N m] the environment applies to ``frame``,
            base-frame axes, moment about the frame origin; or None.
        frame: the link it acts on.

    Returns:
        tuple or None: ``(body index, (..., 6) spatial force)``; None without a wrench.
    """
    if f_ext is None:
        return None
    W_T_F = _jacobian.frame_pose(tree, kin.T, frame)
    return tree.frames[frame].body, world_wrench(W_T_F[..., :3, 3], f_ext)


def gravity_torques(tree, kin):
    """Generalised gravity g(q) (..., n) [N m or N]: the torques that hold the robot still."""
    return tree.reduce(generalized_gravity(tree, kin))


def inverse_dynamics(tree, kin, qd, qdd, f_ext=None, frame=None):
    """``tau = M qdd + C qd + g - J^T f_ext`` (..., n) [N m or N], armature included.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., n) joint velocities [rad/s or m/s].
        qdd: (..., n) joint accelerations [rad/s^2 or m/s^2].
        f_ext: (..., 6) wrench [N, N m] the environment applies to ``frame``, base-frame axes,
            moment about the frame origin; or None.
        frame: the link ``f_ext`` acts on.

    Returns:
        ndarray: (..., n) joint torques.
    """
    external = external_force(tree, kin, f_ext, frame)
    tau = rnea(tree, kin, tree.body_rates(qd), tree.body_rates(qdd), f_ext=external)
    tau = tree.reduce(tau)
    return tau + tree.armature * qdd if tree.has_armature else tau


def nonlinear_effects(tree, kin, qd):
    """``h = C qd + g`` (..., n) [N m or N]: the inverse dynamics at qdd = 0.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., n) joint velocities [rad/s or m/s].

    Returns:
        ndarray: (..., n) torques.
    """
    return tree.reduce(rnea(tree, kin, tree.body_rates(qd), None))


def mass_matrix(tree, kin):
    """Joint-space inertia M(q) (..., n, n) [kg m^2 or kg] by CRBA, armature included."""
    M = tree.reduce_matrix(crba(tree, kin)[0])
    return M + tree.armature_matrix if tree.has_armature else M


def forward_dynamics(tree, kin, qd, tau, f_ext=None, frame=None):
    """qdd (..., n) [rad/s^2 or m/s^2] solving ``M qdd = tau + J^T f_ext - C qd - g``.

    The articulated-body algorithm; with mimic joints, the CRBA matrix of the reduced system,
    then LAPACK's Cholesky solve for one configuration, numpy's LU solve for a batch.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., n) joint velocities [rad/s or m/s].
        tau: (..., n) joint torques [N m or N].
        f_ext: (..., 6) wrench [N, N m] the environment applies to ``frame``, base-frame axes,
            moment about the frame origin; or None.
        frame: the link ``f_ext`` acts on.

    Returns:
        ndarray: (..., n) joint accelerations.

    Raises:
        SingularInertiaError: M is singular (names a joint that moves little or no inertia).
    """
    if not tree.has_mimic:
        return aba(tree, kin, qd, tau, f_ext, frame, what="forward dynamics")
    external = external_force(tree, kin, f_ext, frame)
    M = mass_matrix(tree, kin)
    rhs = tau - tree.reduce(rnea(tree, kin, tree.body_rates(qd), None, f_ext=external))
    if rhs.ndim == 1:
        # one configuration: LAPACK's Cholesky solve directly (numpy's wrapper costs more
        # than the solve itself for a 7x7 system)
        _, x, info = _dposv(M, rhs, lower=1)
        if info == 0 and _isfinite(x).all():
            return x
    try:
        x = np.linalg.solve(M, rhs[..., None])[..., 0]  # one M broadcasts over a batch of rhs
        if not _isfinite(x).all():  # (a sum could be inf - inf: an invalid-value warning)
            raise np.linalg.LinAlgError
        return x
    except np.linalg.LinAlgError:
        raise _singular(tree, M, "forward dynamics") from None


def _singular(tree, M, what):
    """The SingularInertiaError of ``what`` with M (..., n, n), naming the joint whose diagonal
    entry of M is smallest."""
    diag = np.diagonal(M, axis1=-2, axis2=-1).reshape(-1, tree.n)
    k = int(np.argmin(diag.min(axis=0)))
    return SingularInertiaError(
        f"{what}: the joint-space inertia matrix is singular; joint "
        f"{tree.joint_names[k]!r} moves little or no inertia (add armature or link inertia)"
    )


def aba(tree, kin, qd, tau, f_ext=None, frame=None, what="aba"):
    """qdd (..., n) [rad/s^2 or m/s^2] by the articulated-body algorithm (O(n)); for trees
    without mimic joints.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree` (no mimic joint).
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., n) joint velocities [rad/s or m/s].
        tau: (..., n) joint torques [N m or N].
        f_ext: (..., 6) wrench [N, N m] on ``frame`` as in :func:`inverse_dynamics`, or None.
        frame: the link ``f_ext`` acts on.
        what: the computation a SingularInertiaError names.

    Returns:
        ndarray: (..., n) joint accelerations.

    Raises:
        SingularInertiaError: an articulated inertia is zero, M is singular (names a joint that
            moves little or no inertia).
    """
    external = external_force(tree, kin, f_ext, frame)
    batches = (kin.batch, qd.shape[:-1], tau.shape[:-1])
    if f_ext is not None:
        batches += (f_ext.shape[:-1],)
    qdd = _aba(tree, kin, qd, tau, external, batch_shape(*batches))
    if not all_finite(qdd):
        raise _singular(tree, mass_matrix(tree, kin), what)
    return qdd


def coriolis_matrix(tree, kin, qd):
    """Christoffel-symbol Coriolis matrix C(q, qd) (..., n, n) [kg m^2/s or kg/s]."""
    return tree.reduce_matrix(coriolis(tree, kin, tree.body_rates(qd)))


def momentum_terms(tree, kin, qd):
    """``(M qd, C^T qd, g)``, each (..., n), from one pass over the body velocities.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        qd: (..., n) joint velocities [rad/s or m/s].

    Returns:
        tuple: generalised momentum [kg m^2/s or kg m/s], ``C^T qd`` and ``g`` [N m or N].
    """
    p, CTqd = _momentum_terms(tree, kin, tree.body_rates(qd))
    g = generalized_gravity(tree, kin)
    p, CTqd, g = tree.reduce(p), tree.reduce(CTqd), tree.reduce(g)
    if tree.has_armature:
        p = p + tree.armature * qd
    return p, CTqd, g


def frame_pose(tree, kin, frame):
    """Pose ``B_T_F`` (..., 4, 4) [m] of link ``frame`` in the base frame (kinematics at q)."""
    return _jacobian.frame_pose(tree, kin.T, frame)


def frame_jacobian(tree, kin, frame, axes):
    """Geometric Jacobian (..., 6, n), rows ``[v; w]`` of the frame origin.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        frame: link name.
        axes: "base" (base-frame axes) or "local" (the frame's own axes).

    Returns:
        ndarray: (..., 6, n) J mapping qd to ``[v; w]`` [m/s; rad/s].
    """
    J, _ = _jacobian.frame_jacobian_full(tree, kin, frame, local=axes == "local")
    return tree.reduce(J)


def jacobian_dot_qd(tree, kin, qd, frame, axes):
    """``Jdot qd`` (..., 6) [m/s^2; rad/s^2] of the frame origin, in ``axes``, no gravity."""
    bias, W_T_F = _jacobian.frame_acceleration_bias(tree, kin, tree.body_rates(qd), frame)
    return _jacobian.to_local_axes(bias, W_T_F) if axes == "local" else bias


def task_space_inertia(tree, kin, frame, rcond):
    """``Lambda = (J M^-1 J^T)^+`` (..., 6, 6) [kg, kg m, kg m^2] of a frame, base axes.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree`.
        kin: :class:`~robot_dynamics.core.kinematics.Kinematics` at q.
        frame: link name.
        rcond: relative singular-value cutoff of the pseudo-inverse.

    Returns:
        ndarray: (..., 6, 6) Lambda.
    """
    J = frame_jacobian(tree, kin, frame, "base")
    Minv_JT = np.linalg.solve(mass_matrix(tree, kin), J.swapaxes(-1, -2))
    return np.linalg.pinv(J @ Minv_JT, rcond=rcond, hermitian=True)


def potential_energy(tree, kin):
    """Potential energy ``-sum_i m_i gravity . c_i`` (...,) [J], zero at the base origin."""
    I = kin.I  # noqa: E741 - its lower left block is [m c]x
    h = np.stack([I[..., 5, 1], I[..., 3, 2], I[..., 4, 0]], axis=-1)  # m c, base frame
    base = tree.base_inertia
    base_h = -np.array([base[2, 4], base[0, 5], base[1, 3]])
    return -(h.sum(axis=-2) + base_h) @ tree.gravity
