"""The model as plain data (spatial_v2 / Pinocchio ``Model`` style): a frozen tree of bodies with
its parent array, joint placements, axes, inertias, gravity, and the masks the algorithms read,
compiled once when the tree is made.

A *body* is a rigid group of links moved by one movable joint: links attached by fixed joints
are merged into their parent's body (their frames stay addressable). Bodies are numbered in
depth-first order, so a parent always comes before its children and every subtree is a
contiguous index range. Mimic joints are bodies of their own whose coordinate is slaved to a
driver: ``q_full = G q + q_offset`` maps the actuated coordinates ``q`` (n,) to all body joint
coordinates (nb,).

Every array of a :class:`KinematicTree` is read-only and the tree is frozen: a changed model
(gravity, payload, armature, friction, identified inertias) is a new tree, made with
``dataclasses.replace``, which compiles the derived arrays again.
"""

import dataclasses
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .errors import InvalidURDFValueError, KinematicTreeError
from .joint_warnings import (
    FREE_JOINT_FIXED,
    MIMIC_TARGET_FIXED,
    MIMIC_TARGET_MISSING,
    MIMIC_TARGET_OUTSIDE,
    ZERO_LIMIT,
    JointWarning,
)
from .spatial import force_transform

REVOLUTE, PRISMATIC = 0, 1
#: URDF joint types read but not modelled (robot_dynamics models fixed-base robots): below the
#: base link they load as fixed joints at their origin, with a :class:`JointWarning`.
FREE_JOINTS = ("floating", "planar")

#: Default gravity [m/s^2] in the base frame of a tree made directly; a model built from a URDF
#: takes it in the URDF root's frame (:func:`~robot_dynamics.core.placement.root_gravity`).
STANDARD_GRAVITY = (0.0, 0.0, -9.81)


def frozen_array(values, dtype=float):
    """A read-only array of ``values`` (copied unless it is already a read-only array).

    Args:
        values: array-like.
        dtype: element type.

    Returns:
        ndarray: with ``flags.writeable`` False.
    """
    arr = np.asarray(values, dtype=dtype)
    if arr.flags.writeable or arr.base is not None and arr.base.flags.writeable:
        arr = arr.copy()
        arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class FrameInfo:
    """A link frame: the body it is rigidly attached to and its placement.

    Attributes:
        body: index of the body (-1: the base).
        T_body_frame: (4, 4) pose of the link frame in the body frame [m] (read-only).
    """

    body: int
    T_body_frame: np.ndarray  # (4, 4)

    def __post_init__(self):
        object.__setattr__(self, "T_body_frame", frozen_array(self.T_body_frame))


@dataclass(frozen=True, eq=False)
class KinematicTree:
    """Frozen model data: nb bodies (movable joints), n actuated joints; all arrays read-only.

    Body quantities are in the body frame (the frame of the joint that moves it, at the joint);
    units rad, m, kg, s.

    Attributes:
        base_link: name of the fixed base link.
        body_joint_names: (nb,) name of the joint that moves each body.
        body_link_names: (nb,) name of each body's link.
        joint_type: (nb,) int, REVOLUTE or PRISMATIC.
        parent: (nb,) int, parent body index, -1 for the base.
        T_parent_joint: (nb, 4, 4) joint frame in the parent body frame at q = 0 [m].
        axis: (nb, 3) unit joint axis in the joint (= body) frame.
        inertia: (nb, 6, 6) spatial inertia about the body origin, body axes
            (``[[m 1, -m [c]x], [m [c]x, I_c - m [c]x^2]]``) [kg, kg m, kg m^2].
        base_inertia: (6, 6) links fixed to the base (they exert no joint torque).
        frames: link name -> :class:`FrameInfo` (a read-only mapping).
        joint_names: (n,) actuated joints, the order of every joint vector.
        G: (nb, n) mimic map (body joint coordinates = G q + q_offset).
        q_offset: (nb,) mimic offsets [rad or m].
        has_mimic: whether any body joint is a mimic joint (G is not the identity).
        lower: (n,) lower position limits (-inf when absent or continuous) [rad or m].
        upper: (n,) upper position limits (inf when absent or continuous) [rad or m].
        velocity_limit: (n,) [rad/s or m/s], inf when absent.
        effort_limit: (n,) [N m or N], inf when absent.
        damping: (n,) viscous friction [N m s/rad or N s/m].
        friction: (n,) Coulomb friction [N m or N].
        ancestors: (nb, nb) 1.0 where column j is an ancestor-or-self of row i.
        leaf_links: links with no child link, below the base.
        tip_candidates: leaf links at the end of a chain of bodies.
        joint_warnings: :class:`JointWarning` of the model's joints loaded otherwise than their
            URDF elements say (a negative damping or friction, ``lower > upper``, a ``<mimic>``
            naming no movable joint of the model: its joint is then actuated).
        gravity: (3,) gravity [m/s^2] in the base frame (default ``STANDARD_GRAVITY``).
        armature: (n,) reflected rotor inertia [kg m^2 or kg] on M's diagonal (default 0).

    Compiled at construction (not arguments):
        body_of_joint: joint name -> its body's index, for every body joint (actuated and
            mimic; a read-only mapping).
        descendants: (nb, nb) ``ancestors.T``: 1.0 where column i is in the subtree of row j
            (C-contiguous, for subtree sums as one matrix product).
        strict_ancestors: (nb, nb) ``ancestors`` without the diagonal.
        depth: (nb,) int, number of ancestors-or-self (1: hangs from the base).
        prismatic: (nb,) bool, prismatic joints.
        GT: (n, nb) ``G.T``, C-contiguous.
        base_acceleration: (nb, 6) the base's acceleration ``a_0 = [-gravity; 0]`` on the rows of
            the bodies on the base, zero elsewhere: the recursions start from it, so that they
            carry gravity as the base's acceleration.
        has_armature: whether any armature is non-zero.
        armature_matrix: (n, n) ``diag(armature)``.
    """

    base_link: str
    body_joint_names: tuple
    body_link_names: tuple
    joint_type: np.ndarray
    parent: np.ndarray
    T_parent_joint: np.ndarray
    axis: np.ndarray
    inertia: np.ndarray
    base_inertia: np.ndarray
    frames: dict
    joint_names: tuple
    G: np.ndarray
    q_offset: np.ndarray
    has_mimic: bool
    lower: np.ndarray
    upper: np.ndarray
    velocity_limit: np.ndarray
    effort_limit: np.ndarray
    damping: np.ndarray
    friction: np.ndarray
    ancestors: np.ndarray
    leaf_links: tuple
    tip_candidates: tuple
    joint_warnings: tuple = ()
    gravity: np.ndarray = STANDARD_GRAVITY
    armature: np.ndarray = None
    # compiled in __post_init__
    body_of_joint: dict = dataclasses.field(init=False, repr=False)
    descendants: np.ndarray = dataclasses.field(init=False, repr=False)
    strict_ancestors: np.ndarray = dataclasses.field(init=False, repr=False)
    depth: np.ndarray = dataclasses.field(init=False, repr=False)
    prismatic: np.ndarray = dataclasses.field(init=False, repr=False)
    GT: np.ndarray = dataclasses.field(init=False, repr=False)
    base_acceleration: np.ndarray = dataclasses.field(init=False, repr=False)
    has_armature: bool = dataclasses.field(init=False, repr=False)
    armature_matrix: np.ndarray = dataclasses.field(init=False, repr=False)

    def __post_init__(self):
        nb, n = len(self.body_joint_names), len(self.joint_names)
        arrays = {
            "joint_type": frozen_array(self.joint_type, int).reshape(nb),
            "parent": frozen_array(self.parent, int).reshape(nb),
            "T_parent_joint": frozen_array(self.T_parent_joint).reshape(nb, 4, 4),
            "axis": frozen_array(self.axis).reshape(nb, 3),
            "inertia": frozen_array(self.inertia).reshape(nb, 6, 6),
            "base_inertia": frozen_array(self.base_inertia).reshape(6, 6),
            "G": frozen_array(self.G).reshape(nb, n),
            "q_offset": frozen_array(self.q_offset).reshape(nb),
            "ancestors": frozen_array(self.ancestors).reshape(nb, nb),
            "gravity": frozen_array(self.gravity).reshape(3),
            "armature": frozen_array(np.zeros(n) if self.armature is None else self.armature),
        }
        for name in ("lower", "upper", "velocity_limit", "effort_limit", "damping", "friction"):
            arrays[name] = frozen_array(getattr(self, name)).reshape(n)
        arrays["armature"] = arrays["armature"].reshape(n)
        arrays["frames"] = MappingProxyType(dict(self.frames))
        for name, value in arrays.items():
            object.__setattr__(self, name, value)
        for name, value in _compile(self).items():
            if isinstance(value, np.ndarray):
                value = frozen_array(value, value.dtype)
            object.__setattr__(self, name, value)

    def __reduce__(self):
        """Pickled as the constructor's fields (the compiled ones are derived again)."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}
        fields["frames"] = dict(self.frames)
        return (_tree_from_fields, (fields,))

    @property
    def nb(self):
        """Number of bodies (moving joints: actuated and mimic)."""
        return len(self.body_joint_names)

    @property
    def n(self):
        """Number of actuated joints."""
        return len(self.joint_names)

    # ------------------------------------------------------------ actuated <-> body coordinates
    def body_positions(self, q):
        """Body joint coordinates ``G q + q_offset`` (..., nb) of actuated positions q (..., n)."""
        return q @ self.GT + self.q_offset if self.has_mimic else q

    def body_rates(self, x):
        """Body joint rates ``G x`` (..., nb) of actuated velocities or accelerations (..., n)."""
        return x @ self.GT if self.has_mimic else x

    def reduce(self, x):
        """Actuated-joint forces ``x G`` (..., n) of body joint forces (..., nb) (last axis; also
        Jacobian columns (..., 6, nb))."""
        return x @ self.G if self.has_mimic else x

    def reduce_matrix(self, A):
        """``G^T A G`` (..., n, n) of a body joint matrix (..., nb, nb)."""
        return self.GT @ A @ self.G if self.has_mimic else A

    def moving_joints(self, frame):
        """Which actuated joints move a link (its Jacobian's non-zero columns, at any q).

        Args:
            frame: a link name of ``frames``.

        Returns:
            ndarray: (n,) bool, True for each actuated joint that moves ``frame`` (itself or
            through a mimic joint).
        """
        body = self.frames[frame].body
        if body < 0:
            return np.zeros(self.n, dtype=bool)
        return (self.ancestors[body] @ (self.G != 0.0)) > 0.0


def _tree_from_fields(fields):
    """The :class:`KinematicTree` of its constructor's fields (unpickling)."""
    return KinematicTree(**fields)


def _compile(tree):
    """The derived arrays and schedules of a tree (see :class:`KinematicTree`)."""
    nb = tree.nb
    anc = tree.ancestors
    strict = anc - np.eye(nb)
    depth = anc.sum(axis=1).astype(int)
    prismatic = tree.joint_type == PRISMATIC
    return {
        "body_of_joint": MappingProxyType(
            {name: b for b, name in enumerate(tree.body_joint_names)}
        ),
        "descendants": np.ascontiguousarray(anc.T),
        "strict_ancestors": strict,
        "depth": depth,
        "prismatic": prismatic,
        "GT": np.ascontiguousarray(tree.G.T),
        "base_acceleration": np.where(
            (tree.parent < 0)[:, None], np.concatenate([-tree.gravity, np.zeros(3)]), 0.0
        ),
        "has_armature": bool(np.any(tree.armature)),
        "armature_matrix": np.diag(tree.armature),
    }


def build_tree(robot, base_link=None):
    """Build a :class:`KinematicTree` from a validated URDF description.

    Args:
        robot: :class:`~robot_dynamics.core.urdf.RobotDescription` (``parse_urdf``).
        base_link: the link that is the fixed base; defaults to the URDF's root. Joints above
            it and in other branches are not part of the model (the fixed environment).

    Returns:
        KinematicTree. Time and memory are linear in the number of links, except the dense
        ancestor mask ``ancestors`` (nb, nb), bounded by ``parse_urdf``'s ``max_links``.

    Raises:
        KinematicTreeError: links missing, a link with two parents, several roots, joint
            cycles (also a cycle not connected to the root), unknown base link, mimic joints
            that form a cycle. A ``<mimic>`` naming no movable joint of the model, and a floating
            or planar joint below the base link (loaded as fixed), load with a
            :class:`JointWarning` (``joint_warnings``).
    """
    links = {link.name: link for link in robot.links}
    children = {name: [] for name in links}
    parent_joint = {}
    for joint in robot.joints:
        for role, name in (("parent", joint.parent), ("child", joint.child)):
            if name not in links:
                raise KinematicTreeError(
                    f"joint {joint.name!r} names {role} link {name!r}, which is not in the URDF"
                )
        if joint.child in parent_joint:
            raise KinematicTreeError(
                f"link {joint.child!r} is the child of two joints: "
                f"{parent_joint[joint.child].name!r} and {joint.name!r}"
            )
        parent_joint[joint.child] = joint
        children[joint.parent].append(joint)
    roots = [name for name in links if name not in parent_joint]
    if not links:
        raise KinematicTreeError("the URDF has no links")
    if len(roots) != 1:
        if not roots:
            raise KinematicTreeError("the URDF's joints form a cycle: no link is a root")
        raise KinematicTreeError(f"the URDF has several root links: {', '.join(roots)}")
    unreachable = _unreachable(roots[0], links, children)
    if unreachable:
        raise KinematicTreeError(
            f"links {', '.join(map(repr, unreachable[:10]))} are not connected to the root link "
            f"{roots[0]!r}: their joints form a cycle"
        )
    if base_link is None:
        base_link = roots[0]
    elif not isinstance(base_link, str) or base_link not in links:
        raise KinematicTreeError(
            f"base_link {base_link!r} is not a link of the URDF (links: {', '.join(links)})",
            argument="base_link",
        )

    # Walk the subtree below the base depth-first; merge fixed joints into bodies.
    body_joint, body_link, joint_type, parent, T_pj, axis = [], [], [], [], [], []
    frames = {base_link: FrameInfo(-1, np.eye(4))}
    base_inertia = links[base_link].inertia
    body_inertia = []
    visited = {base_link}
    free_warnings = []
    stack = [(joint, -1, np.eye(4)) for joint in reversed(children[base_link])]
    while stack:
        joint, body, T_body_parentlink = stack.pop()
        if joint.child in visited:
            raise KinematicTreeError(f"the URDF's joints form a cycle at link {joint.child!r}")
        visited.add(joint.child)
        if joint.type in FREE_JOINTS:
            free_warnings.append(
                JointWarning(
                    joint.name,
                    FREE_JOINT_FIXED,
                    f"a {joint.type} joint (robot_dynamics models fixed-base robots): loaded as "
                    "a fixed joint at its origin"
                    + (
                        f"; base_link={joint.child!r} makes its child link the base"
                        if joint.parent == base_link  # a floating base; deeper, a loose body
                        else f", its link {joint.child!r} carried as if fixed there"
                    ),
                )
            )
        T_body_joint = T_body_parentlink @ joint.origin
        child = links[joint.child]
        I_link = child.inertia
        if joint.type == "fixed" or joint.type in FREE_JOINTS:
            frames[child.name] = FrameInfo(body, T_body_joint)
            X = force_transform(T_body_joint)
            merged = X @ I_link @ X.T
            if body < 0:
                base_inertia = base_inertia + merged
            else:
                body_inertia[body] = body_inertia[body] + merged
            child_body, T_child = body, T_body_joint
        else:
            child_body = len(body_joint)
            body_joint.append(joint.name)
            body_link.append(child.name)
            joint_type.append(PRISMATIC if joint.type == "prismatic" else REVOLUTE)
            parent.append(body)
            T_pj.append(T_body_joint)
            axis.append(joint.axis)
            body_inertia.append(I_link)
            frames[child.name] = FrameInfo(child_body, np.eye(4))
            T_child = np.eye(4)
        for grandchild in reversed(children[child.name]):
            stack.append((grandchild, child_body, T_child))

    nb = len(body_joint)
    joint_by_name = {joint.name: joint for joint in robot.joints}
    parent = np.array(parent, dtype=int)
    ancestors = np.zeros((nb, nb))
    for i in range(nb):  # depth-first order: a parent's row is complete before its children
        if parent[i] >= 0:
            ancestors[i] = ancestors[parent[i]]
        ancestors[i, i] = 1.0

    # Actuated joints and the mimic map.
    body_index = {name: b for b, name in enumerate(body_joint)}
    mimic_warnings = _mimic_warnings(body_joint, body_index, joint_by_name, base_link)
    independent = {w.joint for w in mimic_warnings}
    # a mimic joint's limits are its driver's: its own effort or velocity of 0 says nothing
    followers = {
        name
        for name in body_joint
        if joint_by_name[name].mimic is not None and name not in independent
    }
    joint_warnings = (
        tuple(
            w
            for w in robot.joint_warnings
            if w.joint in body_index and not (w.rule == ZERO_LIMIT and w.joint in followers)
        )
        + tuple(free_warnings)
        + mimic_warnings
    )
    actuated = [
        name for name in body_joint if joint_by_name[name].mimic is None or name in independent
    ]
    act_index = {name: k for k, name in enumerate(actuated)}
    G = np.zeros((nb, len(actuated)))
    q_offset = np.zeros(nb)
    for b, name in enumerate(body_joint):
        multiplier, offset, driver, seen = 1.0, 0.0, name, {name}
        while joint_by_name[driver].mimic is not None and driver not in independent:
            target, m, o = joint_by_name[driver].mimic
            # name = multiplier * driver + offset, driver = m * target + o
            multiplier, offset = multiplier * m, offset + multiplier * o
            driver = target
            if driver in seen:
                raise KinematicTreeError(f"mimic joints form a cycle through {driver!r}")
            seen.add(driver)
        if not (abs(multiplier) <= 1e6 and abs(offset) <= 1e6):
            raise InvalidURDFValueError(
                f"joint {name!r} <mimic>: the chain of mimic joints gives multiplier "
                f"{multiplier:g} and offset {offset:g}, beyond 1e6"
            )
        G[b, act_index[driver]] = multiplier
        q_offset[b] = offset

    n = len(actuated)
    lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
    velocity, effort = np.full(n, np.inf), np.full(n, np.inf)
    damping, friction = np.zeros(n), np.zeros(n)
    for k, name in enumerate(actuated):
        joint = joint_by_name[name]
        lower[k], upper[k] = joint.lower, joint.upper
        velocity[k], effort[k] = joint.velocity, joint.effort
        damping[k], friction[k] = joint.damping, joint.friction

    link_children = {name: [j.child for j in children[name]] for name in frames}
    leaf_links = tuple(name for name in frames if not link_children[name])
    body_has_child = np.zeros(nb, dtype=bool)
    body_has_child[parent[parent >= 0]] = True
    tip_candidates = tuple(
        name
        for name in leaf_links
        if frames[name].body >= 0 and not body_has_child[frames[name].body]
    )
    if nb == 0:
        tip_candidates = leaf_links if len(leaf_links) == 1 else ()

    tree = KinematicTree(
        base_link=base_link,
        body_joint_names=tuple(body_joint),
        body_link_names=tuple(body_link),
        joint_type=np.array(joint_type, dtype=int),
        parent=parent,
        T_parent_joint=np.array(T_pj).reshape(nb, 4, 4),
        axis=np.array(axis, dtype=float).reshape(nb, 3),
        inertia=np.array(body_inertia).reshape(nb, 6, 6),
        base_inertia=base_inertia,
        frames=frames,
        joint_names=tuple(actuated),
        G=G,
        q_offset=q_offset,
        has_mimic=bool(nb != n or np.any(q_offset != 0.0)),
        lower=lower,
        upper=upper,
        velocity_limit=velocity,
        effort_limit=effort,
        damping=damping,
        friction=friction,
        ancestors=ancestors,
        leaf_links=leaf_links,
        tip_candidates=tip_candidates,
        joint_warnings=joint_warnings,
    )
    return tree


def _mimic_warnings(body_joint, body_index, joint_by_name, base_link):
    """:class:`JointWarning` of the body joints whose ``<mimic>`` names no body joint."""
    warnings = []
    for name in body_joint:
        mimic = joint_by_name[name].mimic
        if mimic is None or mimic[0] in body_index:
            continue
        target = joint_by_name.get(mimic[0])
        if target is None:
            rule, which = MIMIC_TARGET_MISSING, "which the URDF does not have"
        elif target.type == "fixed":
            rule, which = MIMIC_TARGET_FIXED, "a fixed joint"
        else:
            rule, which = MIMIC_TARGET_OUTSIDE, f"which is not below base link {base_link!r}"
        message = f"<mimic> names {mimic[0]!r}, {which}: loaded as an independent joint"
        warnings.append(JointWarning(name, rule, message))
    return tuple(warnings)


def _unreachable(root, links, children):
    """Links not reached from ``root`` through the joints (sorted), by one linear walk."""
    seen = {root}
    stack = [root]
    while stack:
        for joint in children[stack.pop()]:
            if joint.child not in seen:
                seen.add(joint.child)
                stack.append(joint.child)
    return sorted(name for name in links if name not in seen)
