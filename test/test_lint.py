"""Linters as tests (the ament way): ruff over the package, the tests, benchmarks and scripts.

Configuration: [tool.ruff] in pyproject.toml (line length 100; pycodestyle + pyflakes rules).
"""

import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATHS = ["robot_dynamics", "test", "benchmarks", "scripts", "launch", "setup.py"]


def _ruff(*args):
    ruff = os.path.join(os.path.dirname(sys.executable), "ruff")
    if not os.path.exists(ruff):
        ruff = shutil.which("ruff")
    assert ruff, "ruff is not installed (it is in requirements-test.txt)"
    paths = [p for p in PATHS if os.path.exists(os.path.join(REPO, p))]
    return subprocess.run(
        [ruff, *args, "--no-cache", *paths], cwd=REPO, capture_output=True, text=True, timeout=300
    )


@pytest.mark.lint
def test_ruff():
    out = _ruff("check")
    assert out.returncode == 0, (
        "ruff found problems (fix them; many are fixed by `.venv/bin/ruff check --fix <path>`):\n"
        + out.stdout
        + out.stderr
    )


@pytest.mark.lint
def test_ruff_format():
    """One formatter for the tree: ``ruff format`` at the project's line length."""
    out = _ruff("format", "--check")
    assert out.returncode == 0, (
        "files not formatted (run `.venv/bin/ruff format <path>`):\n" + out.stdout + out.stderr
    )
