"""Fixtures shared by the tools tests."""

import zlib

import numpy as np
import pytest

from robot_dynamics.tools.params_file import parameters_yaml

import estimate_recordings as ER


@pytest.fixture
def rng(request):
    """A random generator seeded by the test's id (the same draws at every run)."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    folder = tmp_path_factory.mktemp("arm")
    urdf = folder / "arm.urdf"
    urdf.write_text(ER.estimator_urdf())
    params = folder / "arm.yaml"
    params.write_text(parameters_yaml(ER.node_parameters()))
    return folder, str(urdf), str(params)
