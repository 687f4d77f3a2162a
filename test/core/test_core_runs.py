"""true_runs: the runs of consecutive True values, against a per-sample walk."""

import numpy as np
import pytest

from robot_dynamics.core.runs import true_runs


def walked_runs(mask):
    """The runs by walking the samples one by one (the definition)."""
    runs, start = [], None
    for i, value in enumerate(list(mask) + [False]):
        if value and start is None:
            start = i
        elif not value and start is not None:
            runs.append((start, i))
            start = None
    return runs


@pytest.mark.parametrize(
    "mask",
    [
        [],
        [False],
        [True],
        [True, True, False, True],
        [False, True, True, True],
        [True, False, True, False, True],
    ],
)
def test_true_runs_small_cases(mask):
    starts, ends = true_runs(np.array(mask, dtype=bool))
    assert list(zip(starts.tolist(), ends.tolist())) == walked_runs(mask)


def test_true_runs_random_masks():
    rng = np.random.default_rng(3)
    for _ in range(50):
        mask = rng.random(rng.integers(0, 40)) < rng.random()
        starts, ends = true_runs(mask)
        assert list(zip(starts.tolist(), ends.tolist())) == walked_runs(mask)
