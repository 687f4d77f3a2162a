"""The library's documented examples run as written: every Python block of README.md's "The
library" section and of docs/library.md, from the repository root (their URDF paths are
relative to it); the names their text quotes exist (``model.x``, ``robot_dynamics.a.b``,
``core.a.b``); and every code fence of README.md and docs/*.md opens with a language and is
closed, so no prose renders as code."""

import glob
import importlib
import os
import re

import pytest

import robot_urdfs

ROOT = robot_urdfs.REPO_ROOT
MARKDOWN = ["README.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))
)


def _text(rel, section=None):
    with open(os.path.join(ROOT, rel)) as f:
        text = f.read()
    if section is not None:
        start = text.index(f"\n## {section}\n")
        end = text.find("\n## ", start + 1)
        text = text[start : end if end >= 0 else len(text)]
    return text


def _python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)


EXAMPLES = [
    (f"{rel} #{k}", block)
    for rel, section in (("README.md", "The library"), ("docs/library.md", None))
    for k, block in enumerate(_python_blocks(_text(rel, section)))
]


def test_the_library_sections_have_examples():
    assert {name.split(" #")[0] for name, _ in EXAMPLES} == {"README.md", "docs/library.md"}


@pytest.mark.parametrize("name, code", EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_example_runs_as_written(name, code, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(code, name, "exec"), {"__name__": "__example__"})


def _quoted(pattern):
    """Matches of ``pattern`` inside the `code spans` of the library's documentation."""
    text = _text("README.md", "The library") + _text("docs/library.md")
    return sorted(
        {m for span in re.findall(r"`([^`\n]+)`", text) for m in re.findall(pattern, span)}
    )


def _resolve(dotted):
    """The object a dotted name names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attribute in parts[k:]:
            obj = getattr(obj, attribute)
        return obj
    raise ImportError(dotted)


def test_quoted_model_attributes_exist(monkeypatch):
    from robot_dynamics import RobotModel

    model = RobotModel.from_urdf_file(robot_urdfs.BUNDLED_PANDA_URDF)
    names = _quoted(r"\bmodel\.(\w+)")
    assert "tree" in names
    assert [name for name in names if not hasattr(model, name)] == []


def test_quoted_module_paths_exist():
    names = _quoted(r"\b((?:robot_dynamics|core)(?:\.\w+)+)")
    assert "robot_dynamics.core.dynamics" in names
    for name in names:
        _resolve(name if name.startswith("robot_dynamics") else f"robot_dynamics.{name}")


@pytest.mark.parametrize("rel", MARKDOWN)
def test_code_fences_open_with_a_language_and_close(rel):
    inside = False
    for number, line in enumerate(_text(rel).splitlines(), 1):
        if line.startswith("```"):
            if not inside:
                assert line.strip() != "```", f"{rel}:{number}: a fence opens without a language"
            inside = not inside
    assert not inside, f"{rel}: the last code block is not closed"
