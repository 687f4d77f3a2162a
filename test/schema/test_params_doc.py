"""The parameter tables of docs/parameters.md are the ones generated from the declarations
(robot_dynamics.tools.params_doc), and the generator rewrites a stale table."""

import os

from robot_dynamics.schema import ARM_SIMULATOR, DYNAMICS_NODE, SCHEMAS
from robot_dynamics.tools import params_doc

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCUMENT = os.path.join(REPO, "docs", "parameters.md")


def test_the_documented_tables_are_the_generated_ones():
    with open(DOCUMENT, encoding="utf-8") as f:
        text = f.read()
    new, changed = params_doc.update(text)
    assert changed == [], (
        f"docs/parameters.md tables out of date for {changed}: run "
        "make params-doc (python -m robot_dynamics.tools.params_doc)"
    )
    assert new == text, "docs/parameters.md differs from its regenerated text: run make params-doc"
    for schema in SCHEMAS:
        assert params_doc.table(schema) in text
        for p in schema.params:
            assert f"| `{p.name}`" in text, p.name


def test_a_row_per_parameter_with_default_range_units_and_description():
    rows = params_doc.table(DYNAMICS_NODE).splitlines()
    assert rows[0] == "| parameter | default | accepted | units | description |"
    gain = next(r for r in rows if r.startswith("| `observer_gain`"))
    assert gain == (
        "| `observer_gain` | `50.0` | (0, 10000] | 1/s | Momentum observer gain K_O (time "
        "constant 1/K_O). |"
    )
    assert "| `executor` (read-only) | `split_events` | `split`, `split_events`," in "\n".join(rows)
    assert "| `gravity` | `[]` | 3 entries or none in [-100, 100] | m/s^2 |" in "\n".join(rows)
    torque = next(r for r in rows if r.startswith("| `max_simulation_torque`"))
    assert "| (0, 1e7] |" in torque and "\\|torque\\|" in torque  # a | in a cell is escaped
    sections = [r for r in params_doc.table(ARM_SIMULATOR).splitlines() if r.startswith("| **")]
    assert sections == ["| **Model** | | | | |", "| **Simulation** | | | | |"]
    assert [params_doc.number(v) for v in (10000.0, 1e7, 1e-6, 0.01, 2_000_000, 5)] == [
        "10000",
        "1e7",
        "1e-6",
        "0.01",
        "2e6",
        "5",
    ]
    assert params_doc.number(2**31 - 1) == "2147483647"  # an integer %g would round


def test_the_tool_checks_and_rewrites_a_stale_table(tmp_path, capsys):
    with open(DOCUMENT, encoding="utf-8") as f:
        text = f.read()
    stale = text.replace("| `observer_gain` | `50.0` |", "| `observer_gain` | `20.0` |")
    path = tmp_path / "parameters.md"
    path.write_text(stale, encoding="utf-8")
    assert params_doc.main([str(path), "--check"]) == 1
    assert "out of date: dynamics_node" in capsys.readouterr().err
    assert params_doc.main([str(path)]) == 0
    assert path.read_text(encoding="utf-8") == text
    assert params_doc.main([str(path), "--check"]) == 0
    path.write_text("no markers\n", encoding="utf-8")
    assert params_doc.main([str(path), "--check"]) == 2
    assert "no '<!-- parameters: dynamics_node" in capsys.readouterr().err
