"""Runs of consecutive True values in a boolean sequence (repeated samples, disturbed stretches,
logger stalls, shaded spans of a plot)."""

import numpy as np


def true_runs(mask):
    """Where a boolean sequence is True, as runs of consecutive samples.

    Args:
        mask: (N,) bools (anything ``numpy.asarray(..., bool)`` takes).

    Returns:
        tuple: ``(starts, ends)``, two (k,) int arrays: run j covers ``mask[starts[j]:ends[j]]``
        (``ends`` exclusive), in order.
    """
    edges = np.diff(np.concatenate([[0], np.asarray(mask, dtype=np.int8), [0]]))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


__all__ = ["true_runs"]
