"""RobotModel: an immutable dynamics model of a fixed-base robot, built once from a URDF.

The model's data is its :attr:`RobotModel.tree`, a frozen
:class:`~robot_dynamics.core.tree.KinematicTree` of read-only arrays (parents, ancestor masks,
joint axes, spatial inertias, gravity, ...) that the algorithm modules read. ``RobotModel``
validates every argument once and calls the unchecked entry points of
:mod:`robot_dynamics.core.dynamics` (its algorithm methods are in
:mod:`robot_dynamics.core.checked`).

All methods take batches: joint vectors of shape (..., n) give results of shape (..., n),
(..., n, n), (..., 6, n) or (..., 4, 4): a batch is one call of each compiled kernel, which loops
over the configurations and the bodies (no Python loop over either).

Conventions (see the package's dynamics reference):

- joint vectors follow ``model.joint_names`` (actuated joints; fixed joints merged, mimic
  joints slaved ``q_mimic = multiplier * q_driver + offset`` and their torque mapped onto the
  driver);
- ``M(q) qdd + C(q, qd) qd + g(q) = tau + J(q)^T f_ext``;
- wrenches are ``[fx, fy, fz, tx, ty, tz]``: force, then moment about the frame origin, in
  base-frame axes (``axes="local"``: the frame's axes); ``f_ext`` is the wrench the environment
  applies to the robot;
- Jacobians are (..., 6, n), rows ``[vx, vy, vz, wx, wy, wz]`` of the frame origin;
- units: rad, m, s, kg, N, N m; gravity in the base frame (default: 9.81 m/s^2 down the URDF
  root's z axis, ``[0, 0, -9.81]`` when the base is the root).
"""

import dataclasses
import numpy as np

from . import friction as _friction
from .checked import CheckedAlgorithms
from .estimation import WrenchEstimate
from .errors import (
    AmbiguousTipError,
    InvalidInputError,
    KinematicTreeError,
    RobotDynamicsError,
    UnknownFrameError,
    URDFError,
    did_you_mean,
)
from . import inertia as _inertia
from .inertia import check_inertias
from .locked_joints import lock_joints
from .spatial import force_transform, inertia_parameters, spatial_inertia
from .state_terms import StateTerms
from .tip import default_tip
from .placement import far_frame_warnings, root_gravity
from .tree import build_tree
from .urdf import MAX_LINKS, check_inertia_tensor, parse_urdf, read_urdf_file
from .validation import (
    MAX_PAYLOAD_COM,
    MAX_PAYLOAD_MASS,
    check_per_joint,
    check_vector3,
)


class RobotModel(CheckedAlgorithms):
    """Rigid-body dynamics of a fixed-base robot (chain or tree), built once from a URDF.

    Immutable: attributes cannot be set, and the ``with_*`` methods return new models built
    from new trees. Joint vectors follow ``joint_names``; units rad, m, s, kg, N, N m; frames
    are link names below ``base_link``.

    Args:
        tree: the :class:`~robot_dynamics.core.tree.KinematicTree` (see :meth:`from_urdf_string`),
            with its gravity and armature.
        tip_link: default frame of Jacobians and wrenches (default:
            :func:`~robot_dynamics.core.tip.default_tip`: the single leaf of a chain, else
            ``tool0``, else the one tool centre point link, else the leaf ending the longest
            chain; None when none can be chosen).
        friction: the joints' :class:`~robot_dynamics.core.friction.FrictionModel` (default:
            the URDF's ``<dynamics damping friction>``, the tree's ``damping`` and
            ``friction``).
        inertia_adjustments: messages of the inertias balanced when the URDF was loaded.
        inertia_warnings: :class:`~robot_dynamics.core.inertia.InertiaWarning` of the URDF's
            link inertias loaded although not physically consistent.
        locked_joints: ``((joint name, position), ...)`` of the URDF joints loaded as fixed
            joints (see :meth:`from_urdf_string`).

    Attributes:
        tree: the frozen model data the algorithms read (read-only arrays; documented in
            :class:`~robot_dynamics.core.tree.KinematicTree`).
        tip_link: default frame of Jacobians and wrenches, or None.
        friction: the :class:`~robot_dynamics.core.friction.FrictionModel` (carries the
            model's joint names).
        inertia_adjustments: tuple of messages, empty unless ``balance_inertia`` changed an
            inertia.
        inertia_warnings: tuple of :class:`~robot_dynamics.core.inertia.InertiaWarning`.
        locked_joints: ``((joint name, position [rad or m]), ...)``: the URDF's movable joints
            locked (fixed at that position, not in ``joint_names``), their mimic joints
            included; empty when none is.
        joint_warnings: tuple of :class:`~robot_dynamics.core.joint_warnings.JointWarning`: the
            joints loaded otherwise than their URDF elements say (the tree's
            ``joint_warnings``).

    Raises:
        InvalidInputError: the tree's gravity or armature out of bounds; tip_link not a str.
        KinematicTreeError: ``tip_link`` is not a link below the base link.
    """

    __slots__ = (
        "tree",
        "tip_link",
        "friction",
        "inertia_adjustments",
        "inertia_warnings",
        "locked_joints",
        "_joint_index",
    )

    def __init__(
        self,
        tree,
        *,
        tip_link=None,
        friction=None,
        inertia_adjustments=(),
        inertia_warnings=(),
        locked_joints=(),
    ):
        check_vector3(tree.gravity, "gravity", argument="gravity")
        check_per_joint(tree.armature, "armature", tree.joint_names, 0.0, nonneg=True)
        if friction is None:
            friction = _friction.FrictionModel(
                tree.damping, tree.friction, joint_names=tree.joint_names
            )
        init = object.__setattr__
        init(self, "tree", tree)
        init(self, "_joint_index", {name: k for k, name in enumerate(tree.joint_names)})
        init(self, "tip_link", self._resolve_tip(tip_link))
        init(self, "friction", friction)
        init(self, "inertia_adjustments", tuple(inertia_adjustments))
        init(self, "inertia_warnings", tuple(inertia_warnings))
        init(self, "locked_joints", tuple(locked_joints))

    def __setattr__(self, name, value):
        raise AttributeError(
            f"RobotModel is immutable: cannot set {name!r} (the with_* methods make new models)"
        )

    def __delattr__(self, name):
        raise AttributeError(f"RobotModel is immutable: cannot delete {name!r}")

    def __copy__(self):
        return self  # immutable: a copy is the model itself, as for a tuple

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        """Pickled as its constructor's arguments (for multiprocessing, joblib, Ray)."""
        return (_model_from_state, (self.tree, self._arguments()))

    def _arguments(self):
        """The constructor's keyword arguments that make this model of its tree."""
        return dict(
            tip_link=self.tip_link,
            friction=self.friction,
            inertia_adjustments=self.inertia_adjustments,
            inertia_warnings=self.inertia_warnings,
            locked_joints=self.locked_joints,
        )

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_urdf_string(
        cls,
        text,
        base_link=None,
        tip_link=None,
        gravity=None,
        armature=None,
        max_links=MAX_LINKS,
        balance_inertia=False,
        strict_inertia=False,
        locked_joints=None,
    ):
        """Build a model from URDF XML text (a ``robot_description``; :meth:`from_urdf_file`
        reads a file).

        Every number of the URDF is validated (bounds in :mod:`robot_dynamics.core.urdf`).

        Args:
            text: URDF XML text (str, or UTF-8 bytes).
            base_link: fixed base (default: the URDF root); joints above it and in other branches
                are left out.
            tip_link: default frame of Jacobians and wrenches (default:
                :func:`~robot_dynamics.core.tip.default_tip`).
            gravity: (3,) gravity [m/s^2] in the base frame, ``|gravity| <= MAX_GRAVITY``;
                None: 9.81 down the URDF root link's z axis, seen from the base link as the
                URDF places it (:func:`~robot_dynamics.core.placement.root_gravity`: ``[0, 0,
                -9.81]`` when the base is the root; one arm of a multi-arm description, or an
                arm hung on a wall by its URDF, gets its tilted gravity).
            armature: (n,) reflected rotor inertia [kg m^2 or kg] added to M's diagonal.
            max_links: refuse documents with more links or joints.
            balance_inertia: replace link inertias that are not positive semi-definite or
                violate the triangle inequality by balanced ones (:func:`~robot_dynamics.core.
                inertia.balanced_inertia`); each change is listed in ``inertia_adjustments``.
            strict_inertia: refuse the inertias that load with a warning.
            locked_joints: ``{joint name: position [rad or m]}`` of movable joints to load as
                fixed joints at that position (a position of None: 0 when within the joint's
                limits, else the middle of its range), with their mimic joints (Pinocchio's
                ``buildReducedModel``): joints that no measurement carries, such as a gripper
                on a driver of its own. Their links still weigh on the other joints.

        Returns:
            RobotModel: the new model. ``inertia_adjustments``: tuple of messages, empty
            unless ``balance_inertia`` changed something; ``inertia_warnings``: tuple of
            :class:`~robot_dynamics.core.inertia.InertiaWarning`, one per link inertia (or
            indefinite moving body) loaded although it is not physically consistent and one per
            actuated joint that moves no inertia (policy: :mod:`robot_dynamics.core.inertia`).

        Raises:
            URDFError: not XML text (a file path, say), malformed XML, not a ``<robot>``.
            ModelTooLargeError: more than ``max_links`` links or joints.
            InvalidURDFValueError: a number out of bounds, an indefinite moving body that
                makes M(q) indefinite, with ``strict_inertia`` every inertia warning; names
                the link or joint and the field (or rule).
            InvalidInputError: gravity or armature malformed or out of bounds; a locked joint's
                position that is not finite or not within its limits (``argument``
                ``"locked_joints"``).
            KinematicTreeError: a locked joint that is not a movable joint below the base
                link, or that mimics one (``argument`` ``"locked_joints"``).
        """
        description = parse_urdf(text, max_links=max_links, balance_inertia=balance_inertia)
        locked = ()
        if locked_joints:
            description, locked = lock_joints(description, dict(locked_joints))
        tree = build_tree(description, base_link=base_link)
        if locked:
            below = set(tree.frames) - {tree.base_link}
            child = {joint.name: joint.child for joint in description.joints}
            outside = [name for name in locked_joints if child[name] not in below]
            if outside:
                raise KinematicTreeError(
                    f"locked joints {outside} are not below base link {tree.base_link!r}",
                    argument="locked_joints",
                )
            locked = tuple((name, q) for name, q in locked if child[name] in below)
        warnings = check_inertias(
            description.inconsistent_inertias,
            tree,
            strict=strict_inertia,
            inertial_notes=description.inertial_notes,
        )
        placed = far_frame_warnings(tree)
        if gravity is None:
            gravity, turning = root_gravity(description, tree.base_link)
            placed += turning
        if placed:
            tree = dataclasses.replace(tree, joint_warnings=tree.joint_warnings + placed)
        gravity = check_vector3(gravity, "gravity", argument="gravity")
        if armature is not None or np.any(gravity != tree.gravity):
            armature = check_per_joint(armature, "armature", tree.joint_names, 0.0, nonneg=True)
            tree = dataclasses.replace(tree, gravity=gravity, armature=armature)
        return cls(
            tree,
            tip_link=tip_link,
            inertia_adjustments=description.adjustments,
            inertia_warnings=warnings,
            locked_joints=locked,
        )

    @classmethod
    def from_urdf_file(
        cls,
        path,
        base_link=None,
        tip_link=None,
        gravity=None,
        armature=None,
        max_links=MAX_LINKS,
        balance_inertia=False,
        strict_inertia=False,
        locked_joints=None,
    ):
        """Build a model from a URDF file: :meth:`from_urdf_string` of the file's text.

        Args:
            path: the URDF file (str or ``os.PathLike``; UTF-8).
            base_link: as :meth:`from_urdf_string`.
            tip_link: as :meth:`from_urdf_string`.
            gravity: as :meth:`from_urdf_string`.
            armature: as :meth:`from_urdf_string`.
            max_links: as :meth:`from_urdf_string`.
            balance_inertia: as :meth:`from_urdf_string`.
            strict_inertia: as :meth:`from_urdf_string`.
            locked_joints: as :meth:`from_urdf_string`.

        Returns:
            RobotModel: the new model.

        Raises:
            URDFError: no such file, unreadable, not text in its encoding (names the path);
                and everything :meth:`from_urdf_string` raises.
        """
        return cls.from_urdf_string(
            read_urdf_file(path),
            base_link=base_link,
            tip_link=tip_link,
            gravity=gravity,
            armature=armature,
            max_links=max_links,
            balance_inertia=balance_inertia,
            strict_inertia=strict_inertia,
            locked_joints=locked_joints,
        )

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

    # ---------------------------------------------------------------- the model's data
    @property
    def joint_names(self):
        """(n,) actuated joint names: the order of every joint vector."""
        return self.tree.joint_names

    @property
    def n(self):
        """Number of actuated joints."""
        return len(self.tree.joint_names)

    @property
    def base_link(self):
        """The fixed base link."""
        return self.tree.base_link

    @property
    def gravity(self):
        """(3,) gravity [m/s^2] in the base frame (read-only)."""
        return self.tree.gravity

    @property
    def armature(self):
        """(n,) reflected rotor inertia [kg m^2 or kg] on M's diagonal (read-only)."""
        return self.tree.armature

    # ---------------------------------------------------------------- derived models
    def _derived(self, tree=None, friction=None, inertia_warnings=None):
        """A new model of the same robot (tip link, load notes) with a changed tree or friction
        model; on a changed tree, ``inertia_warnings`` when given, else the joints that move no
        inertia judged again (a payload)."""
        arguments = self._arguments()
        if friction is not None:
            arguments["friction"] = friction
        if inertia_warnings is None and tree is not None:
            kept = tuple(w for w in self.inertia_warnings if w.rule != _inertia.MOVES_NO_INERTIA)
            inertia_warnings = kept + _inertia.moves_no_inertia_warnings(tree)
        if inertia_warnings is not None:
            arguments["inertia_warnings"] = inertia_warnings
        return RobotModel(self.tree if tree is None else tree, **arguments)

    def with_gravity(self, gravity):
        """New model with another gravity vector.

        Args:
            gravity: (3,) gravity [m/s^2] in the base frame, ``|gravity| <= MAX_GRAVITY``.

        Returns:
            RobotModel: the new model.

        Raises:
            InvalidInputError: not 3 finite numbers, or beyond the bound.
        """
        gravity = check_vector3(gravity, "gravity", argument="gravity")
        return self._derived(dataclasses.replace(self.tree, gravity=gravity))

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
        armature = check_per_joint(armature, "armature", self.joint_names, 0.0, nonneg=True)
        return self._derived(dataclasses.replace(self.tree, armature=armature))

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
        return self._derived(friction=friction.replace(joint_names=self.joint_names))

    def with_body_inertias(self, inertia):
        """New model with other body spatial inertias (e.g. identified ones).

        Args:
            inertia: (nb, 6, 6) spatial inertia of each body (``tree.body_link_names`` order,
                links fixed to it merged in) about the body origin, body axes
                [kg, kg m, kg m^2].

        Returns:
            RobotModel: the new model; its ``inertia_warnings`` judge the new inertias as a
            URDF's are judged (:func:`~robot_dynamics.core.inertia.check_body_inertias`).

        Raises:
            InvalidInputError: wrong shape or not finite; a body inertia that is not a spatial
                inertia, has a negative mass, or makes M(q) indefinite (names the body's link
                and joint).
        """
        try:
            inertia = np.asarray(inertia, dtype=float)
        except (TypeError, ValueError):
            raise InvalidInputError(f"body inertias must be numeric, got {inertia!r}") from None
        nb = self.tree.nb
        if inertia.shape != (nb, 6, 6) or not np.all(np.isfinite(inertia)):
            raise InvalidInputError(
                f"body inertias must be finite, of shape ({nb}, 6, 6), got shape {inertia.shape}"
            )
        tree = dataclasses.replace(self.tree, inertia=inertia)
        return self._derived(tree, inertia_warnings=_inertia.check_body_inertias(inertia, tree))

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
            Each error's ``argument`` is the argument at fault: mass, com, inertia or frame.
        """
        try:
            frame = self.resolve_frame(frame)
        except RobotDynamicsError as err:
            raise type(err)(str(err), argument="frame") from None
        try:
            mass = float(mass)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"payload mass must be a number, got {mass!r}", argument="mass"
            ) from None
        if not (0.0 <= mass <= MAX_PAYLOAD_MASS):
            raise InvalidInputError(
                f"payload mass must be finite, >= 0 and <= {MAX_PAYLOAD_MASS:g} kg, got {mass}",
                argument="mass",
            )
        com = check_vector3(com, "payload com", bound=MAX_PAYLOAD_COM, argument="com")
        try:
            I_c = np.zeros((3, 3)) if inertia is None else np.asarray(inertia, dtype=float)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"payload inertia must be numeric, got {inertia!r}", argument="inertia"
            ) from None
        if I_c.shape != (3, 3) or not np.all(np.isfinite(I_c)):
            raise InvalidInputError(
                f"payload inertia must be a finite (3, 3) matrix, got shape {I_c.shape}",
                argument="inertia",
            )
        try:
            check_inertia_tensor(I_c, "payload", "inertia")
        except URDFError as err:
            raise InvalidInputError(str(err), argument="inertia") from None
        tree = self.tree
        info = tree.frames[frame]
        X = force_transform(info.T_body_frame)
        I_body = X @ spatial_inertia(mass, com, I_c) @ X.T
        if info.body < 0:
            tree = dataclasses.replace(tree, base_inertia=tree.base_inertia + I_body)
        else:
            inertia_all = tree.inertia.copy()
            inertia_all[info.body] += I_body
            tree = dataclasses.replace(tree, inertia=inertia_all)
        return self._derived(tree)

    # ---------------------------------------------------------------- input checking
    def _suggest(self, name):
        return did_you_mean(name, self.tree.frames)

    def resolve_frame(self, frame):
        """The link a method acts on: ``frame``, or the tip link when None.

        Args:
            frame: link name or None.

        Returns:
            str: a link of the model (a key of ``tree.frames``).

        Raises:
            AmbiguousTipError: None given and the model has no tip link.
            InvalidInputError: not a str.
            UnknownFrameError: not a link below the base (suggests close names).
        """
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
    def joint_warnings(self):
        """Tuple of :class:`~robot_dynamics.core.joint_warnings.JointWarning`: the model's joints
        loaded otherwise than their URDF elements say (a negative damping or friction loaded as
        0, ``lower > upper`` loaded without position limits, an effort or velocity limit of 0
        as no such limit, a ``<mimic>`` naming no movable joint of the model loaded as an
        independent joint, a floating or planar joint as fixed)."""
        return self.tree.joint_warnings

    @property
    def derived_joints(self):
        """frozenset of the URDF's movable joints that take no value of their own: mimic joints
        (following their drivers) and locked joints (fixed; ``locked_joints``). A joint_states
        message may carry them (ros2_control publishes mimic joints): they are not unknown."""
        return frozenset(self.mimic_joints) | frozenset(name for name, _ in self.locked_joints)

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
            InvalidInputError: no body is moved by a joint of that name (names the joint that
                moves a link of that name).
        """
        tree = self.tree
        b = tree.body_of_joint.get(body_joint) if isinstance(body_joint, str) else None
        if b is None:
            info = tree.frames.get(body_joint) if isinstance(body_joint, str) else None
            hint = (
                f"; link {body_joint!r} is on the body moved by joint "
                f"{tree.body_joint_names[info.body]!r}"
                if info is not None and info.body >= 0
                else ""
            )
            raise InvalidInputError(
                f"link_inertial takes the joint that moves a body, got {body_joint!r}{hint}; "
                f"joints that move a body: {list(tree.body_joint_names)}"
            )
        return inertia_parameters(tree.inertia[b])

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


def _model_from_state(tree, state):
    """The :class:`RobotModel` of a tree and its constructor's keyword arguments (unpickling)."""
    return RobotModel(tree, **state)


__all__ = ["RobotModel", "StateTerms", "WrenchEstimate"]
