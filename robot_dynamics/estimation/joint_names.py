"""Joint names that data and a model spell differently: the hint a refusal or a warning gives
when the model's joints are missing from a joint_states stream or a recording that carries other
names (a ``tf_prefix`` one side has and the other not, a renamed or misspelled joint), or does
not carry at all (a gripper on a driver of its own)."""

import difflib

#: How alike two names must be to be named as a likely misspelling (difflib's ratio).
CLOSE_NAME_CUTOFF = 0.8


def renamed_joints(missing, found):
    """How the model's joints ``missing`` may be named in data that carries ``found`` instead.

    Args:
        missing: the model's joint names the data does not carry.
        found: the names the data carries that the model does not have.

    Returns:
        str: a hint naming the prefixes the data adds to the model's names or drops from them
        (``'left_elbow_joint' for 'elbow_joint'``) and the close spellings of the other missing
        joints (prefix aside); '' when no name of ``found`` resembles one of ``missing``.
    """
    missing, found = list(missing), sorted(found)
    added, prefixes, explained = _prefixes(missing, found)
    hints = []
    if explained:
        name, other = next(iter(explained.items()))
        listed = " and ".join(map(repr, prefixes))
        hints.append(
            f"the data names {len(explained)} of them "
            f"{'with' if added else 'without'} the prefix{'es' if len(prefixes) > 1 else ''} "
            f"{listed} ({other!r} for {name!r}): a tf_prefix only one side has?"
        )
    # the names as they would be without (or with) the prefixes, for the close spellings
    alias = {f: f for f in found}
    for prefix in prefixes:
        for f in found:
            if added and f.startswith(prefix):
                alias.setdefault(f[len(prefix) :], f)
            elif not added:
                alias.setdefault(prefix + f, f)
    close = []
    for name in missing:
        if name in explained:
            continue
        match = difflib.get_close_matches(name, list(alias), n=1, cutoff=CLOSE_NAME_CUTOFF)
        if match:
            close.append(f"{alias[match[0]]!r} for {name!r}")
    if close:
        more = f" and {len(close) - 5} more" if len(close) > 5 else ""
        hints.append(f"did you mean {', '.join(close[:5])}{more}?")
    return "; ".join(hints)


def missing_joints_hint(missing, found, n_joints):
    """What to tell a user whose data never gives the model's joints ``missing``.

    Args:
        missing: the model's joint names the data does not carry.
        found: the names the data carries that the model does not have.
        n_joints: the number of the model's joints.

    Returns:
        str: :func:`renamed_joints`' hint; without one, when the data carries the model's other
        joints, that the parameter ``locked_joints`` loads the missing ones as fixed joints
        (a gripper on a driver of its own); else ''.
    """
    hint = renamed_joints(missing, found)
    if hint or not 0 < len(missing) < n_joints:
        return hint
    return "if no driver publishes them, the parameter locked_joints loads them as fixed joints"


def _prefixes(missing, found):
    """``(added, prefixes, {missing name: found name})``: the missing names found with a prefix
    added (``added`` True; else removed), the prefixes in order of appearance."""
    for added in (True, False):
        pairs, prefixes = {}, []
        for name in missing:
            if added:
                candidates = [f for f in found if len(f) > len(name) and f.endswith(name)]
            else:
                candidates = [f for f in found if len(name) > len(f) and name.endswith(f)]
            if not candidates:
                continue
            pairs[name] = candidates[0]
            for other in candidates:
                longer, shorter = (other, name) if added else (name, other)
                prefix = longer[: len(longer) - len(shorter)]
                if prefix not in prefixes:
                    prefixes.append(prefix)
        if pairs:
            return added, prefixes, pairs
    return True, [], {}
