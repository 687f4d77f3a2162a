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


@pytest.mark.lint
def test_ruff():
    ruff = os.path.join(os.path.dirname(sys.executable), "ruff")
    if not os.path.exists(ruff):
        ruff = shutil.which("ruff")
    assert ruff, "ruff is not installed (it is in requirements-test.txt)"
    paths = [p for p in PATHS if os.path.exists(os.path.join(REPO, p))]
    out = subprocess.run(
        [ruff, "check", "--no-cache", *paths], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, (
        "ruff found problems (fix them; many are fixed by `.venv/bin/ruff check --fix <path>`):\n"
        + out.stdout
        + out.stderr
    )
