"""The ``robot-dynamics simulate`` subcommand: ``--json`` against the core's ``simulate``, the PNG
plot, constant torques and the integration method, ``--tau gravity`` holding the arm, the
joint-limit warning, a simulation that stops (why, and what to try), the energy balance (work +
friction losses = energy change, drift the rest) and its plot labels.

The tests call ``cli.main(argv)`` in-process (tools_helpers.run_json, run_fail).
"""

import numpy as np
import pytest

from robot_dynamics.tools import cli
from robot_dynamics.tools.cli import simulate
from robot_dynamics.tools.plotting import is_png, png_size
from tools_helpers import PANDA_HOME, panda, pendulum, run_fail, run_json


# ------------------------------------------------------------------ simulate vs the core


def test_simulate_json_matches_core(capsys):
    data = run_json(
        capsys,
        "simulate",
        "double_pendulum",
        "--duration",
        "1.0",
        "--sample-dt",
        "0.1",
        "--json-series",
    )
    ref = pendulum().simulate(np.zeros(2), np.zeros(2), 1.0, sample_dt=0.1)
    np.testing.assert_allclose(data["t"], ref.t, atol=1e-12)
    np.testing.assert_allclose(data["q"], ref.q, atol=1e-9)
    np.testing.assert_allclose(data["final_q"], ref.q[-1], atol=1e-9)
    assert data["q0"] == [0.0, 0.0]  # the bundled start: released from horizontal
    assert data["energy_max_abs_drift"] < 1e-4


def test_simulate_writes_png(tmp_path, capsys):
    out = tmp_path / "plots" / "pendulum.png"
    data = run_json(capsys, "simulate", "double_pendulum", "--duration", "10", "--plot", out)
    assert data["plot"] == str(out)
    assert out.is_file() and is_png(str(out))
    width, height = png_size(str(out))
    assert width >= 800 and height >= 500
    assert out.stat().st_size > 20_000  # a real figure, not an empty canvas
    # energy of the 10 s reference run is conserved by RK45 (rtol 1e-8)
    assert data["energy_max_rel_drift"] < 1e-5


def test_simulate_constant_torque_and_method(capsys):
    data = run_json(
        capsys,
        "simulate",
        "panda",
        "--duration",
        "0.2",
        "--method",
        "semi_implicit_euler",
        "--tau",
        "0",
        "1",
        "0",
        "0",
        "0",
        "0",
        "0",
        "--friction",
    )
    ref = panda().simulate(
        np.array(PANDA_HOME),
        np.zeros(7),
        0.2,
        tau=np.array([0, 1.0, 0, 0, 0, 0, 0]),
        method="semi_implicit_euler",
        sample_dt=0.01,
        friction=True,
    )
    np.testing.assert_allclose(data["final_q"], ref.q[-1], atol=1e-12)


# ------------------------------------------------------------ simulate: hold, limits, energy


def test_simulate_tau_gravity_holds_the_arm(capsys):
    q0 = [0.3, -0.5, 0.2, -2.0, 0.1, 1.4, -0.6]
    data = run_json(
        capsys, "simulate", "panda", "--q", *q0, "--tau", "gravity", "--duration", "2", "--friction"
    )
    assert data["tau"] == "gravity"
    np.testing.assert_allclose(data["final_q"], q0, atol=1e-9)
    np.testing.assert_allclose(data["final_qd"], 0.0, atol=1e-9)
    assert "warnings" not in data or not data["warnings"]
    # without it the same arm falls
    data = run_json(capsys, "simulate", "panda", "--q", *q0, "--duration", "0.5")
    assert np.max(np.abs(np.array(data["final_q"]) - q0)) > 0.1


def test_simulate_warns_when_a_joint_leaves_its_limits(capsys):
    data = run_json(capsys, "simulate", "panda", "--duration", "1", "--tau", "panda_joint4=20")
    warnings = [w for w in data["warnings"] if "left its limits" in w]
    assert any(w.startswith("panda_joint4 left its limits [-3.0718, -0.0698]") for w in warnings)
    assert cli.main(["simulate", "panda", "--duration", "1", "--tau", "panda_joint4=20"]) == 0
    assert "warning: panda_joint4 left its limits" in capsys.readouterr().err


def test_a_simulation_that_stops_says_why_and_what_to_try(capsys):
    """A diverging integration is exit 2 with the time it reached and what to try (a smaller
    step, an implicit integrator); settings refused before it starts get no such advice."""
    code, err = run_fail(
        capsys, "simulate", "double_pendulum", "--method", "semi_implicit_euler",
        "--fixed-step", "1", "--duration", "100", "--sample-dt", "10", "--tau=1e6,-1e6",
    )  # fmt: skip
    assert code == 2, err
    assert "the state left the range" in err and "at t = " in err
    assert "a smaller fixed_step" in err and "an implicit method (Radau, BDF)" in err
    code, err = run_fail(
        capsys, "simulate", "double_pendulum", "--duration", "60", "--sample-dt", "1e-5"
    )
    assert code == 2 and "max_samples" in err and "Radau" not in err, err


def test_energy_balance_separates_work_friction_and_drift(capsys):
    """A driven pendulum with friction: E - E0 = work - friction loss, to RK45's accuracy; the
    drift reported is that residual, not the energy change."""
    data = run_json(
        capsys,
        "simulate",
        "double_pendulum",
        "--duration",
        "2",
        "--tau",
        "20",
        "5",
        "--friction",
        "--json-series",
        "--gravity",
        "0",
        "0",
        "-9.81",  # gravity normal to the plane: the potential stays constant
    )
    change = data["energy_final"] - data["energy_initial"]
    assert abs(data["work_by_torques"]) > 10.0
    assert change == pytest.approx(data["work_by_torques"] - data["friction_loss"], abs=1e-3)
    assert data["energy_max_abs_drift"] < 1e-3 < abs(change)
    model = pendulum().with_gravity((0.0, 0.0, -9.81))
    t, q, qd = (np.array(data[k]) for k in ("t", "q", "qd"))
    balance = simulate.energy_balance(model, t, q, qd, np.tile([20.0, 5.0], (len(t), 1)), True)
    np.testing.assert_allclose(balance["work"], data["work_by_torques_series"], atol=1e-12)


def test_energy_panel_labels():
    from robot_dynamics.tools import plotting

    fig, axes = plotting._figure(1)
    t = np.linspace(0.0, 1.0, 11)
    energy, work, loss = 2.0 * t + 5.0, 3.0 * t, t
    plotting._energy_panel(axes[0, 0], t, energy, work, loss)
    ax = axes[0, 0]
    labels = ax.get_legend_handles_labels()[1]
    assert labels == [
        "E - E0 (total energy change)",
        "work done by the torques",
        "- friction losses (dissipated)",
        "integrator drift (the rest)",
    ]
    np.testing.assert_allclose(ax.lines[3].get_ydata(), 0.0, atol=1e-12)  # 2t = 3t - t
    title = ax.get_title()
    assert "work done by the torques - friction losses + integrator drift" in title
    assert float(title.split("max |drift| = ")[1].split(" J")[0]) < 1e-12


def test_a_plot_is_written_in_the_format_its_name_says(tmp_path, capsys):
    """--plot x.svg writes SVG, x.pdf PDF, and a name without a known suffix PNG."""
    for name, head in (("q.svg", b"<?xml"), ("q.pdf", b"%PDF"), ("q.plot", b"\x89PNG")):
        code = cli.main(
            ["simulate", "double_pendulum", "--duration", "0.2", "--plot", str(tmp_path / name)]
        )
        assert code == 0, capsys.readouterr().err
        assert (tmp_path / name).read_bytes().startswith(head), name


def test_the_help_gives_each_joint_vector_its_own_default(capsys):
    """simulate starts a bundled robot at its home pose; wrench needs --tau: the help says so,
    once."""

    def help_text(command):
        assert cli.main([command, "--help"]) == 0
        return " ".join(capsys.readouterr().out.split())

    text = help_text("simulate")
    assert (
        "initial joint positions (n numbers in joint order, or name=value pairs; default "
        "zeros, or a bundled robot's home pose)" in text
    )
    assert text.count("default zeros") == 3, text  # --q (with its bundled pose), --qd, --tau
    text = help_text("wrench")
    assert (
        "the external joint torques) (n numbers in joint order, or name=value pairs; "
        "required)" in text
    )
    assert "joint velocities (n numbers in joint order, or name=value pairs; default zeros)" in text
