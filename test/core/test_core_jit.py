"""The kernels' decorator and batch rows (robot_dynamics.core.jit)."""

import os
import subprocess
import sys

import numpy as np

import robot_urdfs
from robot_dynamics.core.jit import rows

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_package_loads_where_numba_finds_no_cache_directory():
    # a read-only install and a home without a writable ~/.cache leave Numba no cache locator;
    # so does allowing only the IPython one outside IPython
    env = dict(os.environ, NUMBA_CACHE_LOCATOR_CLASSES="IPythonCacheLocator")
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    code = (
        "from robot_dynamics import RobotModel; "
        f"m = RobotModel.from_urdf_file({robot_urdfs.DOUBLE_PENDULUM_URDF!r}); "
        "print(m.gravity_torques([0.3, 0.2]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_rows_are_contiguous_writable_float_rows_copied_only_when_needed():
    x = np.arange(6.0).reshape(2, 3)
    assert np.shares_memory(rows(x, (2,), (3,)), x)  # a view of a suitable array
    frozen = x.copy()
    frozen.setflags(write=False)
    for value in (frozen, x[:, ::-1].copy().T.T[:, ::-1], [1, 2, 3], np.arange(3)):
        r = rows(value, (2,), (3,))
        assert r.shape == (2, 3) and r.dtype == np.float64
        assert r.flags.c_contiguous and r.flags.writeable
    np.testing.assert_array_equal(
        rows(np.arange(3.0), (2, 2), (3,)), np.tile(np.arange(3.0), (4, 1))
    )
