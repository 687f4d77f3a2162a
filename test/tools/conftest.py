"""Fixtures shared by the tools tests."""

import pytest

from robot_dynamics.tools.params_file import parameters_yaml

import estimate_recordings as ER


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    folder = tmp_path_factory.mktemp("arm")
    urdf = folder / "arm.urdf"
    urdf.write_text(ER.estimator_urdf())
    params = folder / "arm.yaml"
    params.write_text(parameters_yaml(ER.node_parameters()))
    return folder, str(urdf), str(params)
