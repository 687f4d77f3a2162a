"""Compiled kernels: the algorithms' per-body recursions, compiled by Numba.

Each algorithm module holds its kernel beside the Python function that calls it; the kernel
reads the tree's arrays and a :class:`~robot_dynamics.core.kinematics.Kinematics` pass and
writes into output arrays the caller allocates, a configuration at a time, a body at a time,
as the book writes the recursion. Arrays are float64 and C-contiguous; a batch is flattened
to its rows ``(B, ...)``, and a pass made at one configuration (``Bk = 1``) serves a batch of
velocities (row ``b if Bk > 1 else 0``).

Compiled code is cached beside the modules (Numba's ``cache=True``; a read-only install
caches in the user's cache directory): the first call in a fresh install compiles for a few
seconds, later processes load it.
"""

import math

import numpy as np
from numba import njit

_OPTIONS = dict(nogil=True, error_model="numpy")


def kernel(function):
    """Decorator of every kernel: compiled on first call and cached, the GIL released, floating
    point as numpy computes it (a division by zero gives inf or nan, it does not raise).

    Where Numba finds no writable cache directory (a read-only install, and a home without a
    writable ``~/.cache``; ``NUMBA_CACHE_DIR`` names one), the kernel is compiled in every
    process instead of refusing to load.

    Args:
        function: the Python function, in Numba's nopython subset.

    Returns:
        the compiled dispatcher.
    """
    try:
        return njit(cache=True, **_OPTIONS)(function)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return njit(cache=False, **_OPTIONS)(function)


def rows(x, batch, tail):
    """``x`` broadcast to ``batch + tail`` and flattened to C-contiguous rows.

    Args:
        x: array-like whose shape broadcasts to ``batch + tail``.
        batch: the batch shape (a tuple).
        tail: the shape of one row (a tuple: ``(n,)`` for a joint vector).

    Returns:
        ndarray: (prod(batch), *tail) float64, C-contiguous and writable, as every kernel
        argument but the tree's arrays is (a kernel is compiled once per kind of array); a copy
        only when ``x`` is not such an array already.
    """
    shape = (math.prod(batch),) + tail
    if type(x) is np.ndarray and x.dtype == np.float64 and x.shape == batch + tail:
        if x.flags.c_contiguous and x.flags.writeable:
            return x.reshape(shape)
    return np.array(np.broadcast_to(x, batch + tail).reshape(shape), dtype=float, order="C")


def batch_shape(*shapes):
    """The broadcast of batch shapes (tuples); the shape itself when they are equal.

    Args:
        *shapes: batch shapes.

    Returns:
        tuple: their broadcast shape.
    """
    first = shapes[0]
    for shape in shapes[1:]:
        if shape != first:
            return np.broadcast_shapes(*shapes)
    return first
