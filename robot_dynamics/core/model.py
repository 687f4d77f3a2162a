"""RobotModel: an immutable dynamics model of a fixed-base robot, built once from a URDF.

All methods take batches: joint vectors of shape (..., n) give results of shape (..., n),
(..., n, n), (..., 6, n) or (..., 4, 4), computed with a few vectorised numpy calls (no Python
loop over the batch or, except ABA's depth loop, over the links).

Conventions (see the package's dynamics reference):

- joint vectors follow ``model.joint_names`` (actuated joints; fixed joints merged, mimic
  joints slaved ``q_mimic = multiplier * q_driver + offset`` and their torque mapped onto the
  driver);
- ``M(q) qdd + C(q, qd) qd + g(q) = tau + J(q)^T f_ext``;
- wrenches are ``[fx, fy, fz, tx, ty, tz]``: force, then moment about the frame origin, in
  base-frame axes (``axes="local"``: the frame's axes); ``f_ext`` is the wrench the environment
  applies to the robot;
- Jacobians are (..., 6, n), rows ``[vx, vy, vz, wx, wy, wz]`` of the frame origin;
- units: rad, m, s, kg, N, N m; gravity in the base frame (default ``[0, 0, -9.81]``).
"""

import difflib
import math

import numpy as np
from scipy.linalg.lapack import dposv as _dposv

from . import aba as _aba
from . import coriolis as _coriolis
from . import crba as _crba
from . import friction as _friction
from . import gravity as _gravity
from . import jacobian as _jacobian
from . import rnea as _rnea
from . import simulate as _simulate
from .errors import (
    AmbiguousTipError,
    InvalidInputError,
    KinematicTreeError,
    SingularInertiaError,
    UnknownFrameError,
    URDFError,
)
from . import estimation as _estimation
from .estimation import WrenchEstimate, damped_pinv_solve
from .inertia import check_inertias
from .kinematics import Kinematics, body_transforms, fk_schedules, motion_basis, swapped_body_axes
from .spatial import force_transform, inertia_parameters, skew, spatial_inertia
from .tree import PRISMATIC, build_tree, default_tip
from .urdf import MAX_LINKS, check_inertia_tensor, parse_urdf

#: Bound on the magnitude of every number a method takes (joint positions, velocities,
#: accelerations, torques, wrenches), SI units. With the URDF bounds of
#: :mod:`robot_dynamics.core.urdf` every result is then finite; beyond it inputs are refused.
MAX_INPUT = 1e9
#: Bound on |gravity| [m/s^2].
MAX_GRAVITY = 1e3
#: Bounds of with_payload: mass [kg], |com| [m].
MAX_PAYLOAD_MASS = 1e5
MAX_PAYLOAD_COM = 1e2
#: Bound on armature [kg m^2 or kg].
MAX_JOINT_COEFFICIENT = 1e6


_MAXIMUM = np.maximum.reduce


class RobotModel:
    """Rigid-body dynamics of a fixed-base robot (chain or tree), built once from a URDF.

    Immutable: the ``with_*`` methods return new models. Joint vectors follow ``joint_names``;
    units rad, m, s, kg, N, N m; frames are link names below ``base_link``.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree` (see :meth:`from_urdf`).
        tip_link: default frame of Jacobians and wrenches (default:
            :func:`~robot_dynamics.core.tree.default_tip`: the single leaf of a chain, else
            ``tool0``, else the leaf ending the longest chain; None when none can be chosen).
        gravity: (3,) gravity [m/s^2] in the base frame, ``|gravity| <= MAX_GRAVITY``.
        armature: (n,) reflected rotor inertia [kg m^2 or kg] added to M's diagonal, >= 0
            (default: 0).

    Raises:
        InvalidInputError: gravity, armature or tip_link malformed or out of bounds.
        KinematicTreeError: ``tip_link`` is not a link below the base link.
    """

    def __init__(self, tree, *, tip_link=None, gravity=(0.0, 0.0, -9.81), armature=None):
        self.tree = tree
        self.joint_names = tree.joint_names
        self.n = tree.n
        self.base_link = tree.base_link
        self.gravity = self._vector3(gravity, "gravity")
        self.tip_link = self._resolve_tip(tip_link)
        self.armature = self._per_joint(armature, "armature", default=0.0, nonneg=True)
        self.friction = _friction.FrictionModel(
            tree.damping, tree.friction, joint_names=tree.joint_names
        )
        self.inertia_adjustments = ()
        self.inertia_warnings = ()
        self._joint_index = {name: k for k, name in enumerate(self.joint_names)}
        self._precompute()

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_urdf(
        cls,
        urdf,
        base_link=None,
        tip_link=None,
        gravity=(0.0, 0.0, -9.81),
        armature=None,
        max_links=MAX_LINKS,
        balance_inertia=False,
        strict_inertia=False,
    ):
        """Build a model from URDF XML text or a file path.

        Every number of the URDF is validated (bounds in :mod:`robot_dynamics.core.urdf`).

        Args:
            urdf: URDF XML text or a file path.
            base_link: fixed base (default: the URDF root); joints above it and in other branches
                are left out.
            tip_link: default frame of Jacobians and wrenches (default:
                :func:`~robot_dynamics.core.tree.default_tip`).
            gravity: (3,) gravity [m/s^2] in the base frame, ``|gravity| <= MAX_GRAVITY``.
            armature: (n,) reflected rotor inertia [kg m^2 or kg] added to M's diagonal.
            max_links: refuse documents with more links or joints.
            balance_inertia: replace link inertias that are not positive semi-definite or
                violate the triangle inequality by balanced ones (:func:`~robot_dynamics.core.
                inertia.balanced_inertia`); each change is listed in ``inertia_adjustments``.
            strict_inertia: refuse the link inertias that load with a warning.

        Returns:
            RobotModel: the new model. ``inertia_adjustments``: tuple of messages, empty
            unless ``balance_inertia`` changed something; ``inertia_warnings``: tuple of
            :class:`~robot_dynamics.core.inertia.InertiaWarning`, one per link inertia loaded
            although it is not physically consistent on its own (policy:
            :mod:`robot_dynamics.core.inertia`).

        Raises:
            ModelTooLargeError: more than ``max_links`` links or joints.
            InvalidURDFValueError: a number out of bounds, a moving body whose inertia is not
                positive semi-definite, with ``strict_inertia`` any inconsistent link inertia;
                names the link or joint and the field.
        """
        description = parse_urdf(urdf, max_links=max_links, balance_inertia=balance_inertia)
        tree = build_tree(description, base_link=base_link)
        warnings = check_inertias(description.inconsistent_inertias, tree, strict=strict_inertia)
        model = cls(tree, tip_link=tip_link, gravity=gravity, armature=armature)
        model.inertia_adjustments = description.adjustments
        model.inertia_warnings = warnings
        return model

    def _resolve_tip(self, tip_link):
        tree = self.tree
        if tip_link is None:
            return default_tip(tree)
        if not isinstance(tip_link, str):
            raise InvalidInputError(
                f"tip_link must be a link name, got {tip_link!r}", argument="tip_link"
            )
        if tip_link not in tree.frames:
            raise KinematicTreeError(
                f"tip_link {tip_link!r} is not a link below base link {tree.base_link!r}"
                f"{self._suggest(tip_link)}",
                argument="tip_link",
            )
        return tip_link

    def _precompute(self):
        tree = self.tree
        nb = tree.nb
        self._basis, self._prismatic_basis = motion_basis(tree)
        self._has_prismatic = bool(np.any(tree.joint_type == PRISMATIC))
        self._has_armature = bool(np.any(self.armature))
        self._armature_matrix = np.diag(self.armature)
        self._fk_jumps, self._fk_levels = fk_schedules(tree)
        self._S_body_swapped = swapped_body_axes(tree)
        self._frame_masks = tree.ancestors[:, :, None]  # (nb, nb, 1): joints moving each body
        anc = tree.ancestors
        strict = anc - np.eye(nb)
        self._anc_T = np.ascontiguousarray(anc.T)
        self._anc_strict = strict
        self._anc_T_strict = np.ascontiguousarray(strict.T)
        self._prismatic = tree.joint_type == PRISMATIC
        masses = tree.inertia[:, 0, 0]
        self._subtree_mass = anc.T @ masses
        # columns [axis; 0] and [first moment h_B; m]: T @ column gives z_W and m c_W
        cols = np.zeros((nb, 4, 2))
        cols[:, :3, 0] = tree.axis
        cols[:, 0, 1] = tree.inertia[:, 2, 4] * -1.0  # m c from the block m [c]x
        cols[:, 1, 1] = tree.inertia[:, 0, 5] * -1.0
        cols[:, 2, 1] = tree.inertia[:, 1, 3] * -1.0
        cols[:, 3, 1] = masses
        self._axis_first_moment = cols
        self._neg_gravity_skew = skew(-self.gravity)
        self._G = tree.G
        self._GT = np.ascontiguousarray(tree.G.T)
        # ABA level sets: bodies grouped by depth (depth = number of ancestors-or-self), split
        # so that no two bodies of a group share a parent; depth 1 hangs from the base (None)
        depth = anc.sum(axis=1).astype(int)
        levels = []
        for d in range(1, int(depth.max()) + 1 if nb else 1):
            bodies = np.nonzero(depth == d)[0]
            if d == 1:
                levels.append((bodies, None))
                continue
            parents = tree.parent[bodies]
            rank = np.array([np.count_nonzero(parents[:i] == p) for i, p in enumerate(parents)])
            for r in range(rank.max() + 1):
                levels.append((bodies[rank == r], parents[rank == r]))
        self._levels_down = tuple(levels)
        self._levels_up = tuple(reversed(levels))

    # ---------------------------------------------------------------- derived models
    def _copy_with(self, **changes):
        new = object.__new__(RobotModel)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        new._precompute()
        return new

    def with_gravity(self, gravity):
        """New model with another gravity vector.

        Args:
            gravity: (3,) gravity [m/s^2] in the base frame, ``|gravity| <= MAX_GRAVITY``.

        Returns:
            RobotModel: the new model.

        Raises:
            InvalidInputError: not 3 finite numbers, or beyond the bound.
        """
        return self._copy_with(gravity=self._vector3(gravity, "gravity"))

    def with_armature(self, armature):
        """New model with armature added to M's diagonal.

        Args:
            armature: (n,) or scalar reflected rotor inertia [kg m^2 or kg], >= 0.

        Returns:
            RobotModel: the new model.

        Raises:
            InvalidInputError: wrong shape, not finite, negative or beyond the bound (names
                the joint).
        """
        return self._copy_with(armature=self._per_joint(armature, "armature", 0.0, nonneg=True))

    def with_friction(self, friction):
        """New model with another joint friction model (the default is the URDF's
        ``<dynamics damping friction>``: viscous and symmetric Coulomb).

        Args:
            friction: :class:`~robot_dynamics.core.friction.FrictionModel` of ``n`` joints
                (validated at its construction).

        Returns:
            RobotModel: the new model (``friction`` carries the model's joint names).

        Raises:
            InvalidInputError: not a FrictionModel, or one of another number of joints.
        """
        if not isinstance(friction, _friction.FrictionModel):
            raise InvalidInputError(
                f"with_friction needs a FrictionModel, got {type(friction).__name__}"
            )
        if friction.n != self.n:
            raise InvalidInputError(
                f"the friction model has {friction.n} joints, the model {self.n} "
                f"{list(self.joint_names)}"
            )
        return self._copy_with(friction=friction.replace(joint_names=self.joint_names))

    def with_payload(self, mass, com, inertia=None, frame=None):
        """New model with a rigid payload attached to ``frame``.

        Args:
            mass: payload mass [kg], in ``[0, MAX_PAYLOAD_MASS]``.
            com: (3,) payload centre of mass [m] in the frame's axes, ``|com| <= MAX_PAYLOAD_COM``.
            inertia: (3, 3) rotational inertia [kg m^2] about the payload's COM in the frame's axes
                (default: a point mass): symmetric, positive semi-definite, satisfying the triangle
                inequality (the URDF rules of
                :func:`~robot_dynamics.core.urdf.check_inertia_tensor`).
            frame: the link the payload is fixed to (default: the tip link).

        Returns:
            RobotModel: the new model.

        Raises:
            InvalidInputError: a malformed or out-of-range field (named in the message).
            UnknownFrameError: ``frame`` is not a link of the model.
            AmbiguousTipError: no frame given and the model has no tip link.
        """
        frame = self._frame(frame)
        try:
            mass = float(mass)
        except (TypeError, ValueError):
            raise InvalidInputError(f"payload mass must be a number, got {mass!r}") from None
        if not (0.0 <= mass <= MAX_PAYLOAD_MASS):
            raise InvalidInputError(
                f"payload mass must be finite, >= 0 and <= {MAX_PAYLOAD_MASS:g} kg, got {mass}"
            )
        com = self._vector3(com, "payload com", bound=MAX_PAYLOAD_COM)
        try:
            I_c = np.zeros((3, 3)) if inertia is None else np.asarray(inertia, dtype=float)
        except (TypeError, ValueError):
            raise InvalidInputError(f"payload inertia must be numeric, got {inertia!r}") from None
        if I_c.shape != (3, 3) or not np.all(np.isfinite(I_c)):
            raise InvalidInputError(
                f"payload inertia must be a finite (3, 3) matrix, got shape {I_c.shape}"
            )
        try:
            check_inertia_tensor(I_c, "payload", "inertia")
        except URDFError as err:
            raise InvalidInputError(str(err)) from None
        info = self.tree.frames[frame]
        I_frame = spatial_inertia(mass, com, I_c)
        X = force_transform(info.T_body_frame)
        I_body = X @ I_frame @ X.T
        tree = self.tree
        if info.body < 0:
            new_tree = _replace(tree, base_inertia=tree.base_inertia + I_body)
        else:
            inertia_all = tree.inertia.copy()
            inertia_all[info.body] += I_body
            new_tree = _replace(tree, inertia=inertia_all)
        return self._copy_with(tree=new_tree)

    # ---------------------------------------------------------------- input checking
    def _suggest(self, name):
        close = difflib.get_close_matches(str(name), list(self.tree.frames), n=3)
        return f" (did you mean {', '.join(map(repr, close))}?)" if close else ""

    def _frame(self, frame):
        if frame is None:
            if self.tip_link is None:
                candidates = self.tree.tip_candidates or self.tree.leaf_links
                raise AmbiguousTipError(
                    f"no frame given and the model has no tip_link: none could be chosen among "
                    f"the leaves ending its chains ({', '.join(candidates)}); pass frame= or "
                    f"build the model with tip_link="
                )
            return self.tip_link
        if not isinstance(frame, str):
            raise InvalidInputError(
                f"frame must be a link name (str), got {type(frame).__name__} {frame!r}"
            )
        if frame not in self.tree.frames:
            raise UnknownFrameError(
                f"unknown frame {frame!r}: not a link below base link {self.base_link!r}"
                f"{self._suggest(frame)}"
            )
        return frame

    def _check_vector(self, x, name, size=None):
        size = self.n if size is None else size
        try:
            arr = np.asarray(x, dtype=float)
        except (TypeError, ValueError) as err:
            raise InvalidInputError(f"{name} must be numeric: {err}") from None
        if arr.ndim == 0 or arr.shape[-1] != size:
            raise InvalidInputError(
                f"{name} has shape {arr.shape}, expected (..., {size})"
                + (f" ordered as {list(self.joint_names)}" if size == self.n else "")
            )
        # max |x| is NaN for a NaN entry, so one comparison checks finiteness and the bound
        if arr.size and not _MAXIMUM(np.abs(arr), axis=None) <= MAX_INPUT:
            finite = np.isfinite(arr)
            bad_mask = ~finite | (np.abs(np.where(finite, arr, 0.0)) > MAX_INPUT)
            if np.any(bad_mask):
                bad = np.argwhere(bad_mask)[0]
                value = float(arr[tuple(bad)])
                where = (
                    f"joint {self.joint_names[bad[-1]]!r}"
                    if size == self.n
                    else f"component {bad[-1]}"
                )
                problem = (
                    "a NaN or infinite value"
                    if not math.isfinite(value)
                    else f"the value {value:g}, beyond the bound {MAX_INPUT:g}"
                )
                raise InvalidInputError(
                    f"{name} has {problem} at {where} (index {tuple(int(i) for i in bad)})"
                )
        return arr

    @staticmethod
    def _check_batch(**arrays):
        """Leading (batch) shape shared by joint arrays, or InvalidInputError naming them."""
        shapes = {a.shape[:-1] for a in arrays.values()}
        if len(shapes) == 1:
            return shapes.pop()
        try:
            return np.broadcast_shapes(*(a.shape[:-1] for a in arrays.values()))
        except ValueError:
            shapes = ", ".join(f"{name} {a.shape[:-1]}" for name, a in arrays.items())
            raise InvalidInputError(f"batch shapes do not broadcast: {shapes}") from None

    def _vector3(self, x, name, bound=MAX_GRAVITY):
        """(3,) finite float vector with norm <= bound, or InvalidInputError naming it."""
        try:
            arr = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            arr = None
        if arr is None or arr.shape != (3,) or not np.all(np.isfinite(arr)):
            raise InvalidInputError(f"{name} must be 3 finite numbers, got {x!r}")
        if not (np.max(np.abs(arr)) <= bound and np.linalg.norm(arr) <= bound):
            raise InvalidInputError(f"{name} {arr.tolist()} has a magnitude beyond {bound:g}")
        return arr

    def _per_joint(self, x, name, default, nonneg=False, bound=MAX_JOINT_COEFFICIENT):
        if x is None:
            return np.full(self.n, default)
        try:
            arr = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise InvalidInputError(f"{name} must be numeric, got {x!r}") from None
        if arr.ndim == 0:
            arr = np.full(self.n, float(arr))
        if arr.shape != (self.n,) or not np.all(np.isfinite(arr)):
            raise InvalidInputError(
                f"{name} must be {self.n} finite values "
                f"(joints {list(self.joint_names)}), got shape {arr.shape}"
            )
        if np.any(np.abs(arr) > bound):
            k = int(np.argmax(np.abs(arr) > bound))
            raise InvalidInputError(
                f"{name}: joint {self.joint_names[k]!r} has {arr[k]:g}, beyond the bound {bound:g}"
            )
        if nonneg and np.any(arr < 0):
            k = int(np.argmax(arr < 0))
            raise InvalidInputError(
                f"{name} must be >= 0; joint {self.joint_names[k]!r} has {arr[k]}"
            )
        return arr

    def _full(self, x, offset=True):
        """Actuated (..., n) -> all body joints (..., nb)."""
        if not self.tree.has_mimic:
            return x
        full = x @ self._GT
        return full + self.tree.q_offset if offset else full

    def _reduce(self, tau_full):
        return tau_full @ self._G if self.tree.has_mimic else tau_full

    def _reduce_matrix(self, A):
        return self._GT @ A @ self._G if self.tree.has_mimic else A

    def _kin(self, q):
        return Kinematics(self, self._full(q))

    def _external(self, kin, f_ext, frame):
        """(body, spatial force about the base origin) of a tip wrench, or None."""
        if f_ext is None:
            return None
        frame = self._frame(frame)
        f = self._check_vector(f_ext, "f_ext", size=6)
        info = self.tree.frames[frame]
        W_T_F = _jacobian.frame_pose(self, kin.T, frame)
        return info.body, _rnea.world_wrench(W_T_F[..., :3, 3], f)

    # ---------------------------------------------------------------- dynamics
    def gravity_torques(self, q):
        """Generalised gravity g(q): the joint torques that hold the robot still.

        Args:
            q: (..., n) joint positions [rad or m].

        Returns:
            ndarray: (..., n) torques [N m or N].

        Raises:
            InvalidInputError: wrong shape, non-finite or out-of-bound values (names the joint).
        """
        q = self._check_vector(q, "q")
        return self._reduce(_gravity.generalized_gravity(self, self._kin(q)))

    def inverse_dynamics(self, q, qd, qdd, f_ext=None, frame=None):
        """Inverse dynamics by RNEA: ``tau = M qdd + C qd + g - J_frame^T f_ext``.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            qdd: (..., n) joint accelerations [rad/s^2 or m/s^2].
            f_ext: (..., 6) wrench ``[fx fy fz tx ty tz]`` [N, N m] the environment applies to
                ``frame``, base-frame axes, moment about the frame origin; None for no wrench.
            frame: the link ``f_ext`` acts on (default: the tip).

        Returns:
            ndarray: (..., n) joint torques [N m or N].

        Raises:
            InvalidInputError: bad shapes, non-broadcasting batches, non-finite values.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        q = self._check_vector(q, "q")
        qd = self._check_vector(qd, "qd")
        qdd = self._check_vector(qdd, "qdd")
        self._check_batch(q=q, qd=qd, qdd=qdd)
        kin = self._kin(q)
        ext = self._external(kin, f_ext, frame)
        tau = _rnea.rnea(self, kin, self._full(qd, False), self._full(qdd, False), f_ext=ext)
        tau = self._reduce(tau)
        if self._has_armature:
            tau = tau + self.armature * qdd
        return tau

    def nonlinear_effects(self, q, qd):
        """Nonlinear effects h(q, qd) = C(q, qd) qd + g(q).

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].

        Returns:
            ndarray: (..., n) torques [N m or N].

        Raises:
            InvalidInputError: bad shapes, non-broadcasting batches, non-finite values.
        """
        q = self._check_vector(q, "q")
        qd = self._check_vector(qd, "qd")
        self._check_batch(q=q, qd=qd)
        return self._reduce(_rnea.rnea(self, self._kin(q), self._full(qd, False), None))

    def mass_matrix(self, q):
        """Joint-space inertia matrix M(q) by CRBA, armature included.

        Args:
            q: (..., n) joint positions [rad or m].

        Returns:
            ndarray: (..., n, n) symmetric positive definite M [kg m^2 / kg].

        Raises:
            InvalidInputError: wrong shape or non-finite values.
        """
        q = self._check_vector(q, "q")
        return self._mass_matrix(self._kin(q))

    def _mass_matrix(self, kin):
        """M (..., n, n) from a kinematics workspace: CRBA, mimic reduction, armature."""
        M = self._reduce_matrix(_crba.crba(self, kin)[0])
        return M + self._armature_matrix if self._has_armature else M

    def coriolis_matrix(self, q, qd):
        """Coriolis matrix C(q, qd): C qd are the Coriolis/centrifugal torques and Mdot - 2C is
        skew-symmetric (the Christoffel-symbol C).

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].

        Returns:
            ndarray: (..., n, n) C [kg m^2/s or kg/s].

        Raises:
            InvalidInputError: bad shapes, non-broadcasting batches, non-finite values.
        """
        q = self._check_vector(q, "q")
        qd = self._check_vector(qd, "qd")
        self._check_batch(q=q, qd=qd)
        C = _coriolis.coriolis(self, self._kin(q), self._full(qd, False))
        return self._reduce_matrix(C)

    def momentum_terms(self, q, qd):
        """Generalised momentum, C^T qd and gravity from one kinematics pass, without forming M or C
        (what the momentum observer needs on every sample).

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].

        Returns:
            tuple: ``(p, C^T qd, g)``, each (..., n): generalised momentum ``p = M qd``
            [kg m^2/s], ``C(q, qd)^T qd`` [N m] and ``g(q)`` [N m].

        Raises:
            InvalidInputError: bad shapes, non-broadcasting batches, non-finite values.
        """
        q = self._check_vector(q, "q")
        qd = self._check_vector(qd, "qd")
        self._check_batch(q=q, qd=qd)
        kin = self._kin(q)
        p, CTqd = _coriolis.momentum_terms(self, kin, self._full(qd, False))
        g = _gravity.generalized_gravity(self, kin)
        p, CTqd, g = self._reduce(p), self._reduce(CTqd), self._reduce(g)
        if self._has_armature:
            p = p + self.armature * qd
        return p, CTqd, g

    def state_terms(self, q, qd, frame=None, axes="base", jacobian=True):
        """Everything a controller or estimator needs at one joint state, from one kinematics pass
        (cf. Pinocchio's ``computeAllTerms``).

        The forward kinematics runs here; each term is evaluated when first read (the three
        velocity terms together), so a controller pays only for what it reads, in the order it
        needs it.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s] (copied).
            frame: link of the Jacobian (default: the tip).
            axes: "base" (base-frame axes) or "local" (the frame's own axes) for the Jacobian.
            jacobian: False to skip the Jacobian.

        Returns:
            StateTerms: gravity g(q), nonlinear_effects C qd + g, momentum M qd,
            coriolis_transpose_qd C^T qd (all (..., n)), and jacobian (..., 6, n) of ``frame`` in
            ``axes`` (None when ``jacobian`` is False, or when frame is None and the model has no
            tip).

        Raises:
            InvalidInputError: bad shapes, non-finite values, unknown ``axes``.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        q = self._check_vector(q, "q")
        qd = self._check_vector(qd, "qd")
        self._check_batch(q=q, qd=qd)
        self._check_axes(axes)
        if jacobian and (frame is not None or self.tip_link is not None):
            frame = self._frame(frame)
        else:
            frame = None
        # qd is copied: it may be a buffer the caller overwrites before reading the terms
        return StateTerms(self, self._kin(q), qd.copy(), frame, axes)

    def forward_dynamics(self, q, qd, tau, f_ext=None, frame=None):
        """Forward dynamics: qdd solving ``M qdd = tau + J^T f_ext - C qd - g``.

        CRBA matrix, Cholesky or LU solve; :meth:`aba` gives the same by the articulated-body
        algorithm.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            tau: (..., n) joint torques [N m or N].
            f_ext: (..., 6) wrench [N, N m] the environment applies to ``frame``, base-frame axes,
                moment about the frame origin; None for no wrench.
            frame: the link ``f_ext`` acts on (default: the tip).

        Returns:
            ndarray: (..., n) joint accelerations [rad/s^2 or m/s^2].

        Raises:
            InvalidInputError: bad shapes, non-broadcasting batches, non-finite values.
            SingularInertiaError: M is singular (names a joint that moves little or no inertia).
        """
        q = self._check_vector(q, "q")
        qd = self._check_vector(qd, "qd")
        tau = self._check_vector(tau, "tau")
        self._check_batch(q=q, qd=qd, tau=tau)
        return self._forward_dynamics(q, qd, tau, f_ext, frame)

    def _forward_dynamics(self, q, qd, tau, f_ext=None, frame=None):
        """forward_dynamics on checked float arrays (the integrators' inner loop)."""
        kin = self._kin(q)
        ext = self._external(kin, f_ext, frame)
        h = _rnea.rnea(self, kin, self._full(qd, False), None, f_ext=ext)
        M = self._mass_matrix(kin)
        rhs = tau - self._reduce(h)
        if self.n == 0:
            return rhs  # no movable joint: (..., 0)
        if M.ndim == 2:
            # one configuration: LAPACK's Cholesky solve directly (numpy's wrapper costs more
            # than the solve itself for a 7x7 system)
            _, x, info = _dposv(M, rhs, lower=1)
            if info == 0 and math.isfinite(np.add.reduce(x)):
                return x
        try:
            x = np.linalg.solve(M, rhs[..., None])[..., 0]
            if not math.isfinite(np.add.reduce(x, axis=None)):
                raise np.linalg.LinAlgError
            return x
        except np.linalg.LinAlgError:
            diag = np.diagonal(M, axis1=-2, axis2=-1).reshape(-1, self.n)
            k = int(np.argmin(diag.min(axis=0)))
            raise SingularInertiaError(
                f"forward dynamics: the joint-space inertia matrix is singular; joint "
                f"{self.joint_names[k]!r} moves little or no inertia (add armature or link "
                f"inertia)"
            ) from None

    def aba(self, q, qd, tau, f_ext=None, frame=None):
        """Forward dynamics by the articulated-body algorithm (O(n)).

        Only for models without mimic joints or armature.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            tau: (..., n) joint torques [N m or N].
            f_ext: (..., 6) wrench [N, N m] the environment applies to ``frame``, base-frame axes,
                moment about the frame origin; None for no wrench.
            frame: the link ``f_ext`` acts on (default: the tip).

        Returns:
            ndarray: (..., n) joint accelerations [rad/s^2 or m/s^2].

        Raises:
            InvalidInputError: the model has mimic joints or armature; bad shapes or values.
        """
        if self.tree.has_mimic or self._has_armature:
            raise InvalidInputError(
                "aba handles neither mimic joints nor armature; use forward_dynamics"
            )
        q = self._check_vector(q, "q")
        qd = self._check_vector(qd, "qd")
        tau = self._check_vector(tau, "tau")
        shape = self._check_batch(q=q, qd=qd, tau=tau) + (self.tree.nb,)
        kin = self._kin(q)
        ext = self._external(kin, f_ext, frame)
        return _aba.aba(
            self, kin, np.broadcast_to(qd, shape), np.broadcast_to(tau, shape), f_ext=ext
        )

    def friction_torques(self, qd, velocity_threshold=_friction.DEFAULT_VELOCITY_THRESHOLD):
        """Joint friction torques of the model's :class:`~robot_dynamics.core.friction.
        FrictionModel` ``friction`` (URDF ``<dynamics damping friction>`` or
        :meth:`with_friction`).

        Args:
            qd: (..., n) joint velocities [rad/s or m/s].
            velocity_threshold: ``v_eps`` [rad/s or m/s] of the smooth sign
                (:func:`robot_dynamics.core.friction.smooth_sign`), scalar or (n,), >= 0; 0 gives
                the discontinuous ``sign(qd)``.

        Returns:
            ndarray: (..., n) friction torques [N m or N].

        Raises:
            InvalidInputError: wrong shape or non-finite values.
        """
        qd = self._check_vector(qd, "qd")
        return self.friction.torques(qd, velocity_threshold)

    # ---------------------------------------------------------------- energy
    def kinetic_energy(self, q, qd):
        """Kinetic energy 1/2 qd^T M qd.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].

        Returns:
            ndarray: (...,) energy [J].

        Raises:
            InvalidInputError: wrong shapes or non-finite values.
        """
        M = self.mass_matrix(q)
        qd = self._check_vector(qd, "qd")
        return 0.5 * np.einsum("...i,...ij,...j->...", qd, M, qd)

    def potential_energy(self, q):
        """Potential energy -sum_i m_i gravity . c_i, zero at the base origin.

        Args:
            q: (..., n) joint positions [rad or m].

        Returns:
            ndarray: (...,) energy [J].

        Raises:
            InvalidInputError: wrong shape or non-finite values.
        """
        q = self._check_vector(q, "q")
        T = body_transforms(self, self._full(q))
        h = (T[..., :3, :] @ self._axis_first_moment[..., 1:])[..., 0]  # m c (base axes)
        base_h = -np.array(
            [
                self.tree.base_inertia[2, 4],
                self.tree.base_inertia[0, 5],
                self.tree.base_inertia[1, 3],
            ]
        )
        return -(h.sum(axis=-2) + base_h) @ self.gravity

    def total_energy(self, q, qd):
        """Kinetic plus potential energy.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].

        Returns:
            ndarray: (...,) energy [J].

        Raises:
            InvalidInputError: wrong shapes or non-finite values.
        """
        return self.kinetic_energy(q, qd) + self.potential_energy(q)

    # ---------------------------------------------------------------- kinematics
    def frame_pose(self, q, frame=None):
        """Pose ``B_T_F`` of a link frame in the base frame.

        Args:
            q: (..., n) joint positions [rad or m].
            frame: link name (default: the tip).

        Returns:
            ndarray: (..., 4, 4) homogeneous transform [m].

        Raises:
            InvalidInputError: bad q, or ``frame`` not a string.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        frame = self._frame(frame)
        q = self._check_vector(q, "q")
        T = body_transforms(self, self._full(q))
        return _jacobian.frame_pose(self, T, frame)

    def jacobian(self, q, frame=None, axes="base"):
        """Geometric Jacobian of a frame: rows ``[vx vy vz wx wy wz]`` of the frame origin.

        Args:
            q: (..., n) joint positions [rad or m].
            frame: link name (default: the tip).
            axes: "base": base-frame axes (Pinocchio's LOCAL_WORLD_ALIGNED); "local": the frame's
                own axes.

        Returns:
            ndarray: (..., 6, n) J, mapping qd to ``[v; w]`` [m/s; rad/s].

        Raises:
            InvalidInputError: bad q or unknown ``axes``.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        frame = self._frame(frame)
        self._check_axes(axes)
        q = self._check_vector(q, "q")
        return self._jacobian(q, frame, axes)

    def _jacobian(self, q, frame, axes):
        return self._jacobian_from_kin(self._kin(q), frame, axes)

    def _jacobian_from_kin(self, kin, frame, axes):
        J, W_T_F = _jacobian.frame_jacobian_full(self, kin, frame)
        J = J @ self._G if self.tree.has_mimic else J
        return _jacobian.to_local_axes(J, W_T_F) if axes == "local" else J

    def jacobian_dot_qd(self, q, qd, frame=None, axes="base"):
        """``Jdot qd``: classical acceleration of the frame origin at zero joint acceleration.

        No gravity.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            frame: link name (default: the tip).
            axes: "base" (base-frame axes) or "local" (the frame's own axes).

        Returns:
            ndarray: (..., 6) ``[m/s^2; rad/s^2]``.

        Raises:
            InvalidInputError: bad q, qd or unknown ``axes``.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        frame = self._frame(frame)
        self._check_axes(axes)
        q = self._check_vector(q, "q")
        qd = self._check_vector(qd, "qd")
        bias, W_T_F = _jacobian.frame_acceleration_bias(
            self, self._kin(q), self._full(qd, False), frame
        )
        return _jacobian.to_local_axes(bias, W_T_F) if axes == "local" else bias

    def task_space_inertia(self, q, frame=None, rcond=1e-10):
        """Task-space inertia ``Lambda = (J M^-1 J^T)^-1`` of a frame, base axes; a pseudo-inverse
        (relative cutoff ``rcond``) where J is not full row rank.

        Args:
            q: (..., n) joint positions [rad or m].
            frame: link name (default: the tip).
            rcond: relative singular-value cutoff of the pseudo-inverse.

        Returns:
            ndarray: (..., 6, 6) Lambda [kg, kg m, kg m^2].

        Raises:
            InvalidInputError: bad q.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        frame = self._frame(frame)
        kin = self._kin(self._check_vector(q, "q"))
        J = self._jacobian_from_kin(kin, frame, "base")
        M = self._mass_matrix(kin)
        Minv_JT = np.linalg.solve(M, J.swapaxes(-1, -2))
        return np.linalg.pinv(J @ Minv_JT, rcond=rcond, hermitian=True)

    def _check_axes(self, axes):
        if axes not in ("base", "local"):
            raise InvalidInputError(f"axes must be 'base' or 'local', got {axes!r}")

    # ---------------------------------------------------------------- estimation
    def estimate_external_wrench(
        self,
        q,
        tau_ext,
        frame=None,
        components=None,
        damping=0.05,
        singular_threshold=0.01,
        jacobian=None,
        sensor_frame=None,
    ):
        """The external wrench f_ext (..., 6) that the environment applies at ``frame`` (on its
        link, at its origin), from the external joint torques ``tau_ext = J^T f_ext``, as a
        force-torque sensor at ``sensor_frame`` (default: ``frame``) reads it: components in
        the sensor frame's axes, moment about its origin (a ROS ``WrenchStamped`` with
        ``frame_id = sensor_frame``).

        Only the selected components S are solved for, ``tau_ext = J_S^T f_S`` with the rows
        J_S of the Jacobian of ``frame``'s origin in the sensor frame's axes; the others are 0.
        The solve is a pseudo-inverse of J_S^T damped only near a singularity (singular values
        below ``singular_threshold``, damping up to ``damping``). The moment is then carried
        from ``frame``'s origin to the sensor's (``n_s = n + (p - p_s) x f``).

        Args:
            q: (..., n) joint positions.
            tau_ext: (..., n) external joint torques [N m or N].
            frame: the link the wrench acts on, at its origin (default: the tip).
            components: subset of ``fx fy fz tx ty tz`` in the sensor frame's axes (string or
                sequence; the moments about ``frame``'s origin), or None: all six when the arm
                has >= 6 joints, else the force only (a point contact at ``frame``'s origin; a
                minimum-norm 6-D solve would spread a pure force over moments).
            damping: largest damping of the damped pseudo-inverse.
            singular_threshold: singular value below which the damping fades in.
            jacobian: optional (..., 6, n) Jacobian of ``frame`` in its own axes, already
                computed at q (``state_terms(q, qd, frame=frame, axes="local").jacobian``).
            sensor_frame: any link (default: ``frame``); e.g. the base link for the wrench
                about the base origin in base axes.

        Returns:
            :class:`WrenchEstimate` (singular values of J_S; ``min_singular_value`` a float for
            one configuration).

        Raises:
            InvalidInputError: bad shapes, non-finite values, unknown components.
            UnknownFrameError: ``frame`` or ``sensor_frame`` is not a link of the model.
        """
        frame = self._frame(frame)
        sensor = frame if sensor_frame is None else self._frame(sensor_frame)
        names = _estimation.resolve_wrench_components(components, self.n)
        q = self._check_vector(q, "q")
        tau_ext = self._check_vector(tau_ext, "tau_ext")
        shape = self._check_batch(q=q, tau_ext=tau_ext)
        kin = None
        if jacobian is None:
            kin = self._kin(q)
            J = self._jacobian_from_kin(kin, frame, "local")
        else:
            J = np.asarray(jacobian, dtype=float)
            if J.shape[-2:] != (6, self.n):
                raise InvalidInputError(
                    f"jacobian has shape {J.shape}, expected (..., 6, {self.n})"
                )
        lever = None
        if sensor != frame:
            T = (self._kin(q) if kin is None else kin).T
            T_f = _jacobian.frame_pose(self, T, frame)
            T_s = _jacobian.frame_pose(self, T, sensor)
            R_sT = np.swapaxes(T_s[..., :3, :3], -1, -2)
            R_sf = R_sT @ T_f[..., :3, :3]  # frame axes -> sensor axes
            J = np.concatenate([R_sf @ J[..., :3, :], R_sf @ J[..., 3:, :]], axis=-2)
            lever = (R_sT @ (T_f[..., :3, 3] - T_s[..., :3, 3])[..., None])[..., 0]
        if J.shape[:-2] != shape:
            J = np.broadcast_to(J, shape + J.shape[-2:])
        if tau_ext.shape[:-1] != shape:
            tau_ext = np.broadcast_to(tau_ext, shape + tau_ext.shape[-1:])
        if len(names) == 6:
            f, s = damped_pinv_solve(
                J, tau_ext, damping=damping, singular_threshold=singular_threshold
            )
        else:
            rows = _estimation.component_rows(names)
            f_s, s = damped_pinv_solve(
                J[..., rows, :], tau_ext, damping=damping, singular_threshold=singular_threshold
            )
            f = np.zeros(shape + (6,))
            f[..., rows] = f_s
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
            components=names,
        )

    # ---------------------------------------------------------------- simulation
    def step(self, q, qd, tau, dt, f_ext=None, frame=None, friction=False):
        """One semi-implicit (symplectic) Euler step.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            tau: (..., n) joint torques [N m or N].
            dt: step length [s], ``0 < dt <= 1e3``.
            f_ext: (..., 6) wrench [N, N m] on ``frame``, base-frame axes; None for no wrench.
            frame: the link ``f_ext`` acts on (default: the tip).
            friction: subtract the joint friction (:meth:`friction_torques`) from tau.

        Returns:
            tuple: ``(q, qd)`` after the step, (..., n) each.

        Raises:
            InvalidInputError: bad dt, shapes or values.
        """
        if not (isinstance(dt, (int, float, np.floating)) and 0 < dt <= 1e3):
            raise InvalidInputError(f"step: dt must be a number in (0, 1e3] s, got {dt!r}")
        q = self._check_vector(q, "q")
        qd = self._check_vector(qd, "qd")
        tau = self._check_vector(tau, "tau")
        self._check_batch(q=q, qd=qd, tau=tau)
        return self._step(q, qd, tau, dt, f_ext, frame, friction)

    def _step(self, q, qd, tau, dt, f_ext=None, frame=None, friction=False):
        """step on checked float arrays (the fixed-step integrator's inner loop)."""
        if friction:
            tau = tau - self.friction_torques(qd)
        qdd = self._forward_dynamics(q, qd, tau, f_ext=f_ext, frame=frame)
        qd_new = qd + dt * qdd
        return q + dt * qd_new, qd_new

    def simulate(
        self,
        q0,
        qd0,
        duration,
        tau=None,
        f_ext=None,
        frame=None,
        method="RK45",
        rtol=1e-8,
        atol=1e-10,
        sample_dt=None,
        friction=False,
        fixed_step=1e-3,
        max_torque=_simulate.MAX_TORQUE,
        max_steps=_simulate.MAX_STEPS,
        max_samples=_simulate.MAX_SAMPLES,
        max_rhs_evaluations=_simulate.MAX_RHS_EVALUATIONS,
        max_wall_time=None,
    ):
        """Integrate the dynamics from ``(q0, qd0)`` for ``duration`` seconds.

        The bounds (``max_*``, ``max_wall_time``) and the input ranges are those of
        :func:`robot_dynamics.core.simulate.simulate`.

        Args:
            q0: (n,) initial joint positions [rad or m].
            qd0: (n,) initial joint velocities [rad/s or m/s].
            duration: simulated time [s].
            tau: None (zero), (n,) constant, ``(times (k,), values (k, n))`` sampled (linear in
                between), or a callable ``tau(t, q, qd) -> (n,)`` [N m or N].
            f_ext: constant (6,) wrench [N, N m] on ``frame``, base-frame axes.
            frame: the link ``f_ext`` acts on (default: the tip).
            method: a solve_ivp method (RK45, RK23, DOP853, Radau, BDF, LSODA) or
                "semi_implicit_euler" (fixed step ``fixed_step``).
            rtol: relative tolerance of solve_ivp.
            atol: absolute tolerance of solve_ivp.
            sample_dt: output sample period [s] (default: the integrator's steps).
            friction: include joint friction.
            fixed_step: step [s] of "semi_implicit_euler".
            max_torque: bound on |tau| [N m or N].
            max_steps: bound on the number of integration steps.
            max_samples: bound on the number of output samples.
            max_rhs_evaluations: bound on the number of dynamics evaluations.
            max_wall_time: wall-clock bound [s], or None.

        Returns:
            SimulationResult: see :class:`~robot_dynamics.core.simulate.SimulationResult`.

        Raises:
            InvalidInputError: see :func:`robot_dynamics.core.simulate.simulate`.
            SimulationError: the integration failed (SimulationLimitError: a bound was exceeded).
        """
        return _simulate.simulate(
            self,
            q0,
            qd0,
            duration,
            tau=tau,
            f_ext=f_ext,
            frame=frame,
            method=method,
            rtol=rtol,
            atol=atol,
            sample_dt=sample_dt,
            friction=friction,
            fixed_step=fixed_step,
            max_torque=max_torque,
            max_steps=max_steps,
            max_samples=max_samples,
            max_rhs_evaluations=max_rhs_evaluations,
            max_wall_time=max_wall_time,
        )

    # ---------------------------------------------------------------- description
    @property
    def link_names(self):
        """Every link frame below (and including) the base."""
        return tuple(self.tree.frames)

    @property
    def leaf_links(self):
        """Links with no child link, below the base (tuple of str)."""
        return self.tree.leaf_links

    @property
    def position_limits(self):
        """``(lower, upper)`` joint position limits, (n,) each [rad or m]."""
        return self.tree.lower, self.tree.upper

    @property
    def velocity_limits(self):
        """(n,) joint velocity limits [rad/s or m/s]."""
        return self.tree.velocity_limit

    @property
    def effort_limits(self):
        """(n,) joint effort limits [N m or N]."""
        return self.tree.effort_limit

    @property
    def mimic_joints(self):
        """{mimic joint: (driver, multiplier, offset)} for slaved joints."""
        out = {}
        for b, name in enumerate(self.tree.body_joint_names):
            if name not in self._joint_index:
                k = int(np.argmax(self.tree.G[b] != 0))
                out[name] = (
                    self.joint_names[k],
                    float(self.tree.G[b, k]),
                    float(self.tree.q_offset[b]),
                )
        return out

    def link_inertial(self, body_joint):
        """Inertial parameters of the body moved by a joint, in body axes.

        Args:
            body_joint: name of the joint that moves the body (actuated, mimic, not fixed).

        Returns:
            tuple: ``(mass [kg], com (3,) [m], inertia (3, 3) [kg m^2] about the com)``.

        Raises:
            ValueError: no body is moved by a joint of that name.
        """
        b = self.tree.body_joint_names.index(body_joint)
        return inertia_parameters(self.tree.inertia[b])

    @property
    def total_mass(self):
        """Total mass [kg] of the links below (and including) the base."""
        return float(self.tree.inertia[:, 0, 0].sum() + self.tree.base_inertia[0, 0])

    def joint_index(self, name):
        """Index of an actuated joint in every joint vector.

        Args:
            name: joint name.

        Returns:
            int: index into ``joint_names``.

        Raises:
            InvalidInputError: not an actuated joint (the message lists the actuated joints).
        """
        try:
            return self._joint_index[name]
        except (KeyError, TypeError):
            raise InvalidInputError(
                f"unknown joint {name!r}; actuated joints are {list(self.joint_names)}"
            ) from None

    def __repr__(self):
        return (
            f"RobotModel({self.n} joints, base_link={self.base_link!r}, tip_link={self.tip_link!r})"
        )


class StateTerms:
    """Dynamics terms at one joint state; see :meth:`RobotModel.state_terms`.

    Each is computed on first access from the kinematics pass done by ``state_terms``
    (nonlinear_effects, momentum and coriolis_transpose_qd share one pass over the body
    velocities), so a controller can publish the torque it needs before paying for the others.

    Args:
        model: the :class:`RobotModel`.
        kin: the :class:`~robot_dynamics.core.kinematics.Kinematics` pass at q.
        qd: (..., n) joint velocities [rad/s or m/s] (not copied here).
        frame: link of the Jacobian, or None.
        axes: "base" or "local".

    Attributes:
        frame: link of the Jacobian, or None.
        axes: "base" or "local", the axes of the Jacobian.
        gravity: (..., n) g(q) [N m or N].
        nonlinear_effects: (..., n) C qd + g [N m or N].
        momentum: (..., n) M qd [kg m^2/s or kg m/s].
        coriolis_transpose_qd: (..., n) C^T qd [N m or N].
        jacobian: (..., 6, n) of ``frame`` in ``axes`` (None without a frame).
    """

    __slots__ = (
        "frame",
        "axes",
        "_model",
        "_kin",
        "_qd",
        "_jacobian",
        "_gravity",
        "_velocity",
        "_momentum",
    )

    def __init__(self, model, kin, qd, frame, axes):
        self._model, self._kin, self._qd = model, kin, qd
        self.frame, self.axes = frame, axes
        self._jacobian = self._gravity = self._velocity = self._momentum = None

    def _velocity_terms(self):
        """(C qd + g, crm(V), I V): the RNEA pass over the body velocities, on first use."""
        if self._velocity is None:
            model = self._model
            h, crmV, IV = _coriolis.velocity_terms(model, self._kin, model._full(self._qd, False))
            self._velocity = (model._reduce(h), crmV, IV)
        return self._velocity

    def _momentum_terms(self):
        """(M qd, C^T qd) from the velocity pass's subtree momenta, on first use."""
        if self._momentum is None:
            model = self._model
            _, crmV, IV = self._velocity_terms()
            p, CTqd = _coriolis.momentum_from_velocity_terms(model, self._kin, crmV, IV)
            p, CTqd = model._reduce(p), model._reduce(CTqd)
            if model._has_armature:
                p = p + model.armature * self._qd
            self._momentum = (p, CTqd)
        return self._momentum

    @property
    def nonlinear_effects(self):
        """C(q, qd) qd + g(q) (..., n): the inverse dynamics at zero acceleration."""
        return self._velocity_terms()[0]

    @property
    def momentum(self):
        """Generalised momentum M qd (..., n)."""
        return self._momentum_terms()[0]

    @property
    def coriolis_transpose_qd(self):
        """C(q, qd)^T qd (..., n)."""
        return self._momentum_terms()[1]

    @property
    def gravity(self):
        """Generalised gravity g(q) (..., n)."""
        if self._gravity is None:
            self._gravity = self._model._reduce(
                _gravity.generalized_gravity(self._model, self._kin)
            )
        return self._gravity

    @property
    def jacobian(self):
        """(..., 6, n) Jacobian of ``frame`` in ``axes``, or None without a frame."""
        if self._jacobian is None and self.frame is not None:
            self._jacobian = self._model._jacobian_from_kin(self._kin, self.frame, self.axes)
        return self._jacobian


def _replace(tree, **changes):
    import dataclasses

    return dataclasses.replace(tree, **changes)


__all__ = ["RobotModel", "StateTerms", "WrenchEstimate"]
