"""Fixtures of the dynamics-core tests. Shared helpers live in core_helpers.py, robot_urdfs.py (the
test robots), urdf_reader.py and oracles.py (uniquely named modules; this directory is put on
sys.path for them)."""

import os
import sys
import zlib

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def rng(request):
    # a seed per test, stable across runs: failures are reproducible
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
