"""The tip link a model takes when none is given, and why a tree has none: the rule of
:func:`default_tip`, over a :class:`~robot_dynamics.core.tree.KinematicTree`'s chains and link
names."""

#: The tool flange frame of the ROS-Industrial frame convention: the default tip of a tree
#: whose chains end in several leaves.
TOOL_FRAME = "tool0"
#: Names of a tool centre point frame in the descriptions of arms with a gripper (Franka's
#: ``fr3_hand_tcp``, xArm's ``link_tcp``, Kinova Gen3's ``tool_frame`` and, with a gripper,
#: ``end_effector_link``, Jaco's ``j2s6s200_end_effector``), in order: the tip after ``tool0``,
#: when one link of the model is named so or ends in ``_`` and the name (either followed by
#: ``_link``).
TCP_FRAMES = ("tcp", "tool_frame", "end_effector")
#: :func:`default_tip`'s rule in a sentence, for the help of ``tip_link`` and ``--tip-link``.
DEFAULT_TIP_RULE = (
    "the single leaf ending a chain, else tool0 (or the one link named <prefix>tool0 that a "
    "joint moves), else the "
    "one link named tcp, tool_frame or end_effector (or ending in _tcp, ...), else the leaf "
    "ending the longest chain"
)


def default_tip(tree):
    """The tip link a model takes when none is given.

    The single leaf at the end of a chain of moving bodies (``tip_candidates``); with several:
    :data:`TOOL_FRAME` when it is a link of the model (the ROS-Industrial convention, e.g.
    the official UR description's leaves ``ft_frame``, ``tool0``, ``base``), or the one link
    whose name ends in it (a ``tf_prefix``'s ``left_tool0``; of several, the one some joint
    moves: one arm of two whose other arm is locked); else the one link named as a tool
    centre point (:data:`TCP_FRAMES`: ``fr3_hand_tcp`` between the fingers of a Franka hand,
    whose leaves are the fingers); else the leaf that ends the longest chain of moving bodies
    (movable joints counted, mimic joints included), when it is the only leaf of the deepest
    body; else None.

    Args:
        tree: a :class:`~robot_dynamics.core.tree.KinematicTree`.

    Returns:
        str | None: the tip link, or None when no tip can be chosen (see ``tip_candidates``).
    """
    candidates = tree.tip_candidates
    if len(candidates) == 1:
        return candidates[0]
    if TOOL_FRAME in tree.frames:
        return TOOL_FRAME
    prefixed = _moved([name for name in tree.frames if name.endswith(TOOL_FRAME)], tree)
    if len(prefixed) == 1:  # a tf_prefix's "left_tool0" or "arm/tool0"
        return prefixed[0]
    for tcp in TCP_FRAMES:
        named = _moved([name for name in tree.frames if _names_tcp(name, tcp)], tree)
        if len(named) == 1:
            return named[0]
    if not candidates:
        return None
    depth = tree.ancestors.sum(axis=1)  # moving bodies from the base to each body
    deepest = max(depth[tree.frames[name].body] for name in candidates)
    ends = [name for name in candidates if depth[tree.frames[name].body] == deepest]
    return ends[0] if len(ends) == 1 else None


def no_tip_reason(tree):
    """Why a tree has no default tip, for the messages that ask for one (each adds its remedy).

    Args:
        tree: a :class:`~robot_dynamics.core.tree.KinematicTree` whose :func:`default_tip` is None.

    Returns:
        str: ``"no tip link could be chosen among ... (none is tool0 or a tool centre point)"``
        naming the leaves ending the model's chains.
    """
    candidates = tree.tip_candidates or tree.leaf_links
    return (
        f"no tip link could be chosen among the leaves ending the model's chains "
        f"({', '.join(candidates)}; none is tool0 or a tool centre point)"
    )


def _moved(names, tree):
    """The links of ``names`` that some joint moves (one arm of two whose other arm's joints
    are locked), or all of them when none is."""
    return [name for name in names if tree.frames[name].body >= 0] or names


def _names_tcp(link, tcp):
    """Whether ``link`` is named as the tool centre point ``tcp``: ``tcp``, or ending in ``_``
    and ``tcp``, either followed by ``_link`` (Kinova's ``end_effector_link``)."""
    name = link[: -len("_link")] if link.endswith("_link") else link
    return name == tcp or name.endswith("_" + tcp)
