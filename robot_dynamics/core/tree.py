"""The model as plain data: parent array, joint placements, axes, inertias (spatial_v2 style).

A *body* is a rigid group of links moved by one movable joint: links attached by fixed joints
are merged into their parent's body (their frames stay addressable). Bodies are numbered in
depth-first order, so a parent always comes before its children and every subtree is a
contiguous index range. Mimic joints are bodies of their own whose coordinate is slaved to a
driver: ``q_full = G q + q_offset`` maps the actuated coordinates ``q`` (n,) to all body joint
coordinates (nb,).
"""

from dataclasses import dataclass

import numpy as np

from .errors import InvalidURDFValueError, KinematicTreeError
from .spatial import force_transform

REVOLUTE, PRISMATIC = 0, 1

#: The tool flange frame of the ROS-Industrial frame convention: the default tip of a tree
#: whose chains end in several leaves.
TOOL_FRAME = "tool0"


@dataclass(frozen=True, eq=False)
class FrameInfo:
    """A link frame: the body it is rigidly attached to and its placement.

    Attributes:
        body: index of the body (-1: the base).
        T_body_frame: (4, 4) pose of the link frame in the body frame [m].
    """

    body: int
    T_body_frame: np.ndarray  # (4, 4)


@dataclass(frozen=True, eq=False)
class KinematicTree:
    """Immutable model data. Shapes: nb bodies (movable joints), n actuated joints.

    Attributes:
        base_link: name of the fixed base link.
        body_joint_names: (nb,) name of the joint that moves each body.
        body_link_names: (nb,) name of each body's link.
        joint_type: (nb,) REVOLUTE or PRISMATIC.
        parent: (nb,) parent body index, -1 for the base.
        T_parent_joint: (nb, 4, 4) joint frame in the parent body frame at q = 0.
        axis: (nb, 3) unit axis in the joint (= body) frame.
        inertia: (nb, 6, 6) spatial inertia about the body origin, body axes.
        base_inertia: (6, 6) links fixed to the base (they exert no joint torque).
        frames: link name -> :class:`FrameInfo`.
        joint_names: (n,) actuated joints.
        G: (nb, n) mimic map (body joint coordinates = G q + q_offset).
        q_offset: (nb,) mimic offsets [rad or m].
        has_mimic: whether any body joint is a mimic joint.
        lower: (n,) lower position limits (-inf when absent or continuous) [rad or m].
        upper: (n,) upper position limits (inf when absent or continuous) [rad or m].
        velocity_limit: (n,) [rad/s or m/s], inf when absent.
        effort_limit: (n,) [N m or N], inf when absent.
        damping: (n,) viscous friction [N m s/rad or N s/m].
        friction: (n,) Coulomb friction [N m or N].
        ancestors: (nb, nb) 1.0 where column j is an ancestor-or-self of row i.
        leaf_links: links with no child link, below the base.
        tip_candidates: leaf links at the end of a chain of bodies.
    """

    base_link: str
    body_joint_names: tuple  # (nb,) name of the joint that moves each body
    body_link_names: tuple  # (nb,) name of each body's link
    joint_type: np.ndarray  # (nb,) REVOLUTE or PRISMATIC
    parent: np.ndarray  # (nb,) parent body index, -1 for the base
    T_parent_joint: np.ndarray  # (nb, 4, 4) joint frame in the parent body frame at q = 0
    axis: np.ndarray  # (nb, 3) unit axis in the joint (= body) frame
    inertia: np.ndarray  # (nb, 6, 6) spatial inertia about the body origin, body axes
    base_inertia: np.ndarray  # (6, 6) links fixed to the base (they exert no joint torque)
    frames: dict  # link name -> FrameInfo
    joint_names: tuple  # (n,) actuated joints
    G: np.ndarray  # (nb, n) mimic map
    q_offset: np.ndarray  # (nb,)
    has_mimic: bool
    lower: np.ndarray  # (n,) position limits (-inf/inf when absent or continuous)
    upper: np.ndarray
    velocity_limit: np.ndarray  # (n,) inf when absent
    effort_limit: np.ndarray  # (n,) inf when absent
    damping: np.ndarray  # (n,) viscous friction, N m s/rad or N s/m
    friction: np.ndarray  # (n,) Coulomb friction, N m or N
    ancestors: np.ndarray  # (nb, nb) 1.0 where column j is an ancestor-or-self of row i
    leaf_links: tuple  # links with no child link, below the base
    tip_candidates: tuple  # leaf links at the end of a chain of bodies

    @property
    def nb(self):
        """Number of bodies (moving joints: actuated and mimic)."""
        return len(self.body_joint_names)

    @property
    def n(self):
        """Number of actuated joints."""
        return len(self.joint_names)


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
            cycles (also a cycle not connected to the root), unknown base link, mimic problems.
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
    stack = [(joint, -1, np.eye(4)) for joint in reversed(children[base_link])]
    while stack:
        joint, body, T_body_parentlink = stack.pop()
        if joint.child in visited:
            raise KinematicTreeError(f"the URDF's joints form a cycle at link {joint.child!r}")
        visited.add(joint.child)
        T_body_joint = T_body_parentlink @ joint.origin
        child = links[joint.child]
        I_link = child.inertia
        if joint.type == "fixed":
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
    actuated = [name for name in body_joint if joint_by_name[name].mimic is None]
    act_index = {name: k for k, name in enumerate(actuated)}
    G = np.zeros((nb, len(actuated)))
    q_offset = np.zeros(nb)
    for b, name in enumerate(body_joint):
        multiplier, offset, driver, seen = 1.0, 0.0, name, {name}
        while joint_by_name[driver].mimic is not None:
            target, m, o = joint_by_name[driver].mimic
            if target not in body_index:
                raise KinematicTreeError(
                    f"joint {driver!r} mimics {target!r}, which is not a movable joint "
                    f"below base link {base_link!r}"
                )
            multiplier, offset = multiplier * m, offset * m + o
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
    )
    return tree


def default_tip(tree):
    """The tip link a model takes when none is given.

    The single leaf at the end of a chain of moving bodies (``tip_candidates``); with several:
    :data:`TOOL_FRAME` when it is a link of the model (the ROS-Industrial convention, e.g.
    the official UR description's leaves ``ft_frame``, ``tool0``, ``base``); else the leaf
    that ends the longest chain of moving bodies (movable joints counted, mimic joints
    included), when it is the only leaf of the deepest body; else None.

    Args:
        tree: a :class:`KinematicTree`.

    Returns:
        str | None: the tip link, or None when no tip can be chosen (see ``tip_candidates``).
    """
    candidates = tree.tip_candidates
    if len(candidates) == 1:
        return candidates[0]
    if TOOL_FRAME in tree.frames:
        return TOOL_FRAME
    if not candidates:
        return None
    depth = tree.ancestors.sum(axis=1)  # moving bodies from the base to each body
    deepest = max(depth[tree.frames[name].body] for name in candidates)
    ends = [name for name in candidates if depth[tree.frames[name].body] == deepest]
    return ends[0] if len(ends) == 1 else None


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
