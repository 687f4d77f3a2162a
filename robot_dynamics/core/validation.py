"""Input checks at the core's boundary: every public model method validates its arguments once
with these, then calls the unchecked algorithms.

Each check raises :class:`~robot_dynamics.core.errors.InvalidInputError` with a message that
names the argument and, for joint vectors, the joint.
"""

import math
import sys

import numpy as np

from .errors import InvalidInputError
from .jit import kernel

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
#: The axes a Jacobian or a frame acceleration can be expressed in.
AXES = ("base", "local")


@kernel
def within(x, bound):
    """Whether every entry of ``x`` is finite and ``|x| <= bound`` (compiled).

    Args:
        x: (k,) float array (``arr.reshape(-1)`` of any array).
        bound: the bound, finite (``|inf| <= inf``: an infinite bound lets inf through).

    Returns:
        bool: False at the first entry that is NaN, infinite or beyond the bound.
    """
    for v in x:
        if not abs(v) <= bound:  # False for NaN
            return False
    return True


def all_finite(x, bound=sys.float_info.max):
    """Whether every entry of the float array ``x``, of any shape, is finite and ``|x| <= bound``
    (:func:`within`; ``np.isfinite(x).all()`` costs more for a handful of values).

    Args:
        x: float array.
        bound: the bound (default: the largest finite float, i.e. finiteness only).

    Returns:
        bool.
    """
    return within(x.reshape(-1), bound)


@kernel
def within_each(x, bounds):
    """Whether every entry of ``x`` is finite and ``|x[i]| <= bounds[i]`` (compiled).

    Args:
        x: (k,) float array.
        bounds: (k,) float array, one bound per entry.

    Returns:
        bool: False at the first entry that is NaN, infinite or beyond its bound.
    """
    for i in range(x.shape[0]):
        if not abs(x[i]) <= bounds[i]:  # False for NaN
            return False
    return True


def check_vector(x, name, joint_names, size=None):
    """A float array (..., size) of finite numbers within ``MAX_INPUT``.

    Args:
        x: array-like.
        name: the argument's name, for messages.
        joint_names: (n,) the model's joint names (messages; the default size).
        size: length of the last axis (default: the number of joints).

    Returns:
        ndarray: ``x`` as floats (not copied when it already is a float array).

    Raises:
        InvalidInputError: not numeric (or a complex or boolean array), the wrong last axis,
            or a value not finite or beyond the bound (names the joint, or the component when
            ``size`` is given).
    """
    n = len(joint_names)
    size = n if size is None else size
    # float() would drop .imag, and make True and False 1 and 0
    if getattr(getattr(x, "dtype", None), "kind", None) in ("c", "b"):
        raise InvalidInputError(f"{name} must be real numbers, got an array of {x.dtype}")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise InvalidInputError(f"{name} must be numeric: {err}") from None
    if arr.ndim == 0 or arr.shape[-1] != size:
        raise InvalidInputError(
            f"{name} has shape {arr.shape}, expected (..., {size})"
            + (f" ordered as {list(joint_names)}" if size == n else "")
        )
    if not all_finite(arr, MAX_INPUT):
        finite = np.isfinite(arr)
        bad_mask = ~finite | (np.abs(np.where(finite, arr, 0.0)) > MAX_INPUT)
        if np.any(bad_mask):
            bad = np.argwhere(bad_mask)[0]
            value = float(arr[tuple(bad)])
            where = f"joint {joint_names[bad[-1]]!r}" if size == n else f"component {bad[-1]}"
            problem = (
                "a NaN or infinite value"
                if not math.isfinite(value)
                else f"the value {value:g}, beyond the bound {MAX_INPUT:g}"
            )
            raise InvalidInputError(
                f"{name} has {problem} at {where} (index {tuple(int(i) for i in bad)})"
            )
    return arr


def check_batch(**arrays):
    """Leading (batch) shape shared by joint arrays.

    Args:
        **arrays: name -> (..., k) array.

    Returns:
        tuple: the broadcast batch shape.

    Raises:
        InvalidInputError: the batch shapes do not broadcast (names the arrays).
    """
    shapes = {a.shape[:-1] for a in arrays.values()}
    if len(shapes) == 1:
        return shapes.pop()
    try:
        return np.broadcast_shapes(*(a.shape[:-1] for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{name} {a.shape[:-1]}" for name, a in arrays.items())
        raise InvalidInputError(f"batch shapes do not broadcast: {shapes}") from None


def check_vector3(x, name, bound=MAX_GRAVITY, argument=None):
    """A (3,) finite float vector with norm <= bound.

    Args:
        x: array-like.
        name: the argument's name, for messages.
        bound: bound on the magnitude.
        argument: the error's ``argument`` (the model-building argument at fault), or None.

    Returns:
        ndarray: (3,) floats.

    Raises:
        InvalidInputError: not 3 finite numbers, or beyond the bound.
    """
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (3,) or not np.all(np.isfinite(arr)):
        raise InvalidInputError(f"{name} must be 3 finite numbers, got {x!r}", argument=argument)
    if not (np.max(np.abs(arr)) <= bound and np.linalg.norm(arr) <= bound):
        raise InvalidInputError(
            f"{name} {arr.tolist()} has a magnitude beyond {bound:g}", argument=argument
        )
    return arr


def check_per_joint(x, name, joint_names, default, nonneg=False, bound=MAX_JOINT_COEFFICIENT):
    """A per-joint coefficient vector (n,): a scalar applies to every joint.

    Args:
        x: None (every joint ``default``), a scalar or (n,) array-like.
        name: the argument's name, for messages and the error's ``argument``.
        joint_names: (n,) the model's joint names.
        default: value of every joint when ``x`` is None.
        nonneg: refuse negative values.
        bound: bound on the magnitude.

    Returns:
        ndarray: (n,) floats.

    Raises:
        InvalidInputError: wrong shape, not finite, negative (when ``nonneg``) or beyond the
            bound (names the joint).
    """
    n = len(joint_names)
    if x is None:
        return np.full(n, default)
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be numeric, got {x!r}", argument=name) from None
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise InvalidInputError(
            f"{name} must be {n} finite values (joints {list(joint_names)}), got shape {arr.shape}",
            argument=name,
        )
    if np.any(np.abs(arr) > bound):
        k = int(np.argmax(np.abs(arr) > bound))
        raise InvalidInputError(
            f"{name}: joint {joint_names[k]!r} has {arr[k]:g}, beyond the bound {bound:g}",
            argument=name,
        )
    if nonneg and np.any(arr < 0):
        k = int(np.argmax(arr < 0))
        raise InvalidInputError(
            f"{name} must be >= 0; joint {joint_names[k]!r} has {arr[k]}", argument=name
        )
    return arr


def check_axes(axes):
    """Refuse anything but ``"base"`` and ``"local"``.

    Args:
        axes: the value to check.

    Raises:
        InvalidInputError: another value.
    """
    if axes not in AXES:
        raise InvalidInputError(f"axes must be 'base' or 'local', got {axes!r}")
