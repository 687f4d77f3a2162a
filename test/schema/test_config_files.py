"""The parameters files in config/ against the declarations: every key a declared parameter of
the dynamics node, every value one it accepts (read as rcl and the node read it) and not its
declared default (a default written again would go stale when the declaration changes), every
value with units commented with them (``# [s] ...``)."""

import glob
import os

import pytest

from robot_dynamics.schema import DYNAMICS_NODE, comment_problems
from robot_dynamics.tools.params_file import read_parameters_file

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG_FILES = sorted(glob.glob(os.path.join(REPO, "config", "*.yaml")))


def test_there_are_config_files():
    assert len(CONFIG_FILES) >= 2


@pytest.mark.parametrize("path", CONFIG_FILES, ids=os.path.basename)
def test_config_file_is_valid_for_the_dynamics_node(path):
    params = read_parameters_file(path)  # raises naming the parameter and line
    assert params.given  # it sets something


@pytest.mark.parametrize("path", CONFIG_FILES, ids=os.path.basename)
def test_config_file_sets_only_what_differs_from_the_declared_defaults(path):
    params = read_parameters_file(path)
    repeated = [
        name
        for name in params.given
        if DYNAMICS_NODE[name].config_value(params.values[name])
        == DYNAMICS_NODE[name].config_value(DYNAMICS_NODE[name].default)
    ]
    assert repeated == [], f"{os.path.basename(path)} repeats the declared default of {repeated}"


@pytest.mark.parametrize("path", CONFIG_FILES, ids=os.path.basename)
def test_config_file_comments_state_the_declared_units(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert comment_problems(DYNAMICS_NODE, text, os.path.relpath(path, REPO)) == []
