"""Plots shared by the ``robot-dynamics`` CLI and the demo.

matplotlib with the Agg backend only (no display needed, safe in CI and over SSH). Every function
takes plain numpy arrays, writes one figure (PNG, or the format the path's suffix names: .svg,
.pdf) and returns the path it wrote. Parent folders are created.
"""

from __future__ import annotations

import os
from typing import Optional, Sequence

import numpy as np

from robot_dynamics.core.runs import true_runs

WRENCH_LABELS = ("fx [N]", "fy [N]", "fz [N]", "tx [N m]", "ty [N m]", "tz [N m]")


def _figure(n_rows: int, n_cols: int = 1, height_per_row: float = 2.2, width: float = 11.0):
    """A new Figure with an Agg canvas (no pyplot global state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, max(3.0, height_per_row * n_rows)), dpi=100)
    FigureCanvasAgg(fig)
    axes = fig.subplots(n_rows, n_cols, squeeze=False)
    return fig, axes


def _save(fig, path: str) -> str:
    """Write the figure in the format its suffix names (.png, .svg, .pdf, ...; PNG without a
    suffix matplotlib knows)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fig.tight_layout()
    suffix = os.path.splitext(path)[1][1:].lower()
    fig.savefig(path, format=suffix if suffix in fig.canvas.get_supported_filetypes() else "png")
    return path


def plot_trajectory(
    path: str,
    *,
    t: np.ndarray,
    q: np.ndarray,
    qd: np.ndarray,
    energy: Optional[np.ndarray] = None,
    tau: Optional[np.ndarray] = None,
    work: Optional[np.ndarray] = None,
    friction_loss: Optional[np.ndarray] = None,
    joint_names: Sequence[str],
    title: str = "",
    extra: Optional[tuple] = None,
) -> str:
    """Plot a joint trajectory: positions, velocities, torques (if given) and the energy balance.

    The energy panel shows the change of total energy E - E0 and, when given, the work done by
    the applied torques and the energy friction dissipated; what is left,
    ``E - E0 - work + friction_loss``, is the integrator's drift and is labelled as such.

    Args:
        path: PNG file to write.
        t: (k,) time [s].
        q: (k, n) joint positions [rad or m].
        qd: (k, n) joint velocities [rad/s or m/s].
        energy: (k,) total mechanical energy [J] (kinetic + potential), optional.
        tau: (k, n) applied joint torques [N m or N], optional.
        work: (k,) work done by the applied torques since t[0] [J], optional.
        friction_loss: (k,) energy dissipated by joint friction since t[0] [J] (>= 0), optional.
        joint_names: n names, for the legend.
        title: figure title.
        extra: optional last panel ``(t (m,), values (m, c), ylabel, legend labels)``.

    Returns:
        str: the path written.
    """
    t = np.asarray(t, dtype=float)
    panels = (
        ["q", "qd"] + (["tau"] if tau is not None else []) + (["E"] if energy is not None else [])
    )
    panels += ["extra"] if extra is not None else []
    fig, axes = _figure(len(panels))
    for ax, panel in zip(axes[:, 0], panels):
        if panel == "q":
            ax.plot(t, np.asarray(q))
            ax.set_ylabel("position [rad]")
            ax.legend(
                list(joint_names), fontsize=7, ncol=min(len(joint_names), 7), loc="upper right"
            )
        elif panel == "qd":
            ax.plot(t, np.asarray(qd))
            ax.set_ylabel("velocity [rad/s]")
        elif panel == "tau":
            ax.plot(t, np.asarray(tau))
            ax.set_ylabel("torque [N m]")
        elif panel == "extra":
            t_x, values, ylabel, labels = extra
            ax.plot(np.asarray(t_x), np.asarray(values))
            ax.set_ylabel(ylabel)
            ax.legend(list(labels), fontsize=7, ncol=min(len(labels), 6), loc="upper right")
        else:
            _energy_panel(ax, t, energy, work, friction_loss)
        ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel("time [s]")
    if title:
        fig.suptitle(title)
    return _save(fig, path)


def _energy_panel(ax, t, energy, work, friction_loss) -> None:
    e = np.asarray(energy, dtype=float)
    change = e - e[0] if e.size else e
    drift = change.copy()
    if work is None and friction_loss is None:
        ax.plot(t, e, color="k", label="total energy E")
        ax.set_ylabel("energy [J]")
    else:
        ax.plot(t, change, color="k", label="E - E0 (total energy change)")
        if work is not None:
            work = np.asarray(work, dtype=float)
            ax.plot(t, work, color="tab:green", label="work done by the torques")
            drift -= work
        if friction_loss is not None:
            loss = np.asarray(friction_loss, dtype=float)
            ax.plot(t, -loss, color="tab:red", label="- friction losses (dissipated)")
            drift += loss
        ax.plot(t, drift, color="tab:purple", ls="--", label="integrator drift (the rest)")
        ax.set_ylabel("energy [J]")
        ax.legend(fontsize=7, loc="best")
    worst = float(np.max(np.abs(drift))) if drift.size else 0.0
    if work is None and friction_loss is None:
        ax.set_title(f"total energy (max |E - E0| = {worst:.3g} J)", fontsize=9)
    else:
        ax.set_title(
            "energy balance: E - E0 = work done by the torques - friction losses + integrator "
            f"drift (max |drift| = {worst:.3g} J)",
            fontsize=9,
        )


def plot_wrench_demo(
    path: str,
    *,
    t_wrench: np.ndarray,
    applied: np.ndarray,
    estimated: np.ndarray,
    t_joints: np.ndarray,
    tau: np.ndarray,
    joint_names: Sequence[str],
    t_estimated: Optional[np.ndarray] = None,
    title: str = "",
) -> str:
    """Plot applied vs estimated external wrench (6 panels) and the joint torques.

    Args:
        path: PNG file to write.
        t_wrench: (k,) time of the applied-wrench samples [s].
        applied: (k, 6) applied wrench [fx fy fz tx ty tz] (N, N m), base axes, about the tip
            origin.
        estimated: (m, 6) estimated wrench, same convention.
        t_estimated: (m,) time of the estimates [s] (default ``t_wrench``).
        t_joints: (j,) time of the joint-torque samples [s].
        tau: (j, n) joint torques [N m] (the effort reported in joint_states).
        joint_names: n names.
        title: figure title.

    Returns:
        str: the path written.
    """
    t_est = t_wrench if t_estimated is None else t_estimated
    applied = np.asarray(applied, dtype=float).reshape(-1, 6)
    estimated = np.asarray(estimated, dtype=float).reshape(-1, 6)
    fig, axes = _figure(4, 2, height_per_row=2.3)
    for i in range(6):
        ax = axes[i // 2, i % 2]
        ax.plot(t_wrench, applied[:, i], color="tab:blue", lw=2.0, label="applied")
        ax.plot(t_est, estimated[:, i], color="tab:orange", lw=1.2, ls="--", label="estimated")
        ax.set_ylabel(WRENCH_LABELS[i])
        ax.grid(True, alpha=0.3)
        if i == 0:
            ax.legend(fontsize=8, loc="upper right")
    gs = axes[3, 0].get_gridspec()
    axes[3, 0].remove()
    axes[3, 1].remove()
    ax_tau = fig.add_subplot(gs[3, :])
    ax_tau.plot(np.asarray(t_joints), np.asarray(tau))
    ax_tau.set_ylabel("joint torque [N m]")
    ax_tau.set_xlabel("time [s]")
    ax_tau.grid(True, alpha=0.3)
    ax_tau.legend(list(joint_names), fontsize=7, ncol=min(len(joint_names), 7), loc="upper right")
    axes[2, 0].set_xlabel("time [s]")
    axes[2, 1].set_xlabel("time [s]")
    if title:
        fig.suptitle(title)
    return _save(fig, path)


def identification_figure(
    *,
    t: np.ndarray,
    measured: np.ndarray,
    nominal: np.ndarray,
    identified: np.ndarray,
    joint_names: Sequence[str],
    prismatic: Sequence[bool],
):
    """Measured torques against the nominal and the identified model's, one panel per joint
    (two columns beyond three joints, no empty panel), in N m or N (prismatic).

    Args:
        t: (k,) time [s].
        measured: (k, n) measured torques [N m or N], NaN for a joint without a measured torque
            (its panel shows the predictions only and says so).
        nominal: (k, n) the nominal model's torques.
        identified: (k, n) the identified model's torques.
        joint_names: n names.
        prismatic: n flags, True for a prismatic joint (force, N).

    Returns:
        matplotlib.figure.Figure: the figure (Agg canvas).
    """
    n = len(joint_names)
    cols = 2 if n > 3 else 1
    rows = -(-n // cols)
    fig, axes = _figure(rows, cols, height_per_row=2.2, width=6.0 * cols)
    for k, name in enumerate(joint_names):
        ax = axes[k % rows, k // rows]
        if np.all(np.isnan(measured[:, k])):
            ax.set_title("no measured torque: not fitted", fontsize=8)
        else:
            ax.plot(t, measured[:, k], "k", lw=1, label="measured")
        ax.plot(t, nominal[:, k], "tab:red", lw=1, label="nominal URDF")
        ax.plot(t, identified[:, k], "tab:blue", lw=1, label="identified")
        ax.set_ylabel(f"{name} [{'N' if prismatic[k] else 'N m'}]")
        ax.grid(True, alpha=0.3)
    for k in range(n, rows * cols):
        axes[k % rows, k // rows].remove()
    axes[0, 0].legend(loc="upper right", fontsize=7)
    for c in range(cols):
        axes[min(rows, n - c * rows) - 1, c].set_xlabel("t [s]")
    return fig


def plot_identification(path: str, **panels) -> str:
    """Write :func:`identification_figure` as a PNG.

    Args:
        path: PNG file to write.
        **panels: the keyword arguments of :func:`identification_figure`.

    Returns:
        str: the path written.
    """
    return _save(identification_figure(**panels), path)


def _spans(ax, t, mask, color, label):
    """Shade the stretches of t where mask is true."""
    mask = np.asarray(mask, dtype=bool)
    if not mask.any():
        return
    for k, (a, b) in enumerate(zip(*true_runs(mask))):
        ax.axvspan(t[a], t[b - 1], color=color, alpha=0.15, lw=0, label=label if k == 0 else None)


def plot_estimate(
    path: str,
    *,
    t: np.ndarray,
    external_torques: np.ndarray,
    wrench: np.ndarray,
    components: Sequence[str],
    frame: str,
    free: np.ndarray,
    contact: Optional[np.ndarray],
    suggested_contact: Optional[np.ndarray],
    levels: dict,
    joint_names: Sequence[str],
    title: str = "",
    max_points: int = 20000,
) -> str:
    """Plot an estimate over a recording: external joint torques, force and moment (with the
    suggested magnitude levels), contact states; free stretches shaded.

    Args:
        path: PNG file to write.
        t: (k,) time [s].
        external_torques: (k, n) [N m or N], NaN where not estimated.
        wrench: (k, 6) ``[fx fy fz tx ty tz]`` [N, N m] in ``frame``'s axes, NaN where none.
        components: the estimated components (the others are not drawn).
        frame: the wrench frame ('' without a wrench).
        free: (k,) bool, where nothing touches the arm.
        contact: (k,) 1/0 contact state with the node's parameters (-1 / None: detection off).
        suggested_contact: (k,) 1/0 contact state with the suggested levels, or None.
        levels: ``contact.force_on`` etc. of the suggestion (drawn when present).
        joint_names: n names.
        title: figure title.
        max_points: longer series are drawn every few samples (the statistics use all).

    Returns:
        str: the path written.
    """
    t = np.asarray(t, dtype=float)
    step = max(1, int(np.ceil(t.size / max_points)))
    ts = t[::step]
    has = {
        "force": bool(frame) and any(c in components for c in ("fx", "fy", "fz")),
        "moment": bool(frame) and any(c in components for c in ("tx", "ty", "tz")),
    }
    panels = ["tau"] + [k for k in ("force", "moment") if has[k]] + ["contact"]
    fig, axes = _figure(len(panels), height_per_row=2.4)
    wrench = np.asarray(wrench, dtype=float)
    for ax, panel in zip(axes[:, 0], panels):
        _spans(ax, t, free, "tab:green", "free (statistics, levels)")
        if panel == "tau":
            ax.plot(ts, np.asarray(external_torques)[::step], lw=0.8)
            ax.set_ylabel("external torque [N m]")
            handles, _ = ax.get_legend_handles_labels()
            ax.legend(
                list(ax.get_lines()) + handles,
                list(joint_names) + [h.get_label() for h in handles],
                fontsize=7,
                ncol=min(len(joint_names) + 1, 8),
                loc="upper right",
            )
        elif panel in ("force", "moment"):
            cols = (0, 1, 2) if panel == "force" else (3, 4, 5)
            unit = "N" if panel == "force" else "N m"
            for c in cols:
                if WRENCH_LABELS[c].split()[0] in components:
                    ax.plot(ts, wrench[::step, c], lw=0.8, label=WRENCH_LABELS[c].split()[0])
            magnitude = np.linalg.norm(wrench[:, cols], axis=1)
            ax.plot(
                ts, magnitude[::step], color="k", lw=1.0, label="|f|" if panel == "force" else "|n|"
            )
            for key, style in (("on", "--"), ("off", ":")):
                level = levels.get(f"contact.{panel}_{key}")
                if level:
                    ax.axhline(level, color="tab:red", ls=style, lw=1, label=f"suggested {key}")
            ax.set_ylabel(f"{panel} [{unit}] ({frame} axes)")
            ax.legend(fontsize=7, ncol=4, loc="upper right")
        else:
            if contact is not None and np.any(np.asarray(contact) >= 0):
                ax.step(t, np.clip(contact, 0, 1), where="post", label="node parameters")
            if suggested_contact is not None:
                ax.step(t, 0.95 * np.clip(suggested_contact, 0, 1), where="post", label="suggested")
            ax.set_ylim(-0.1, 1.1)
            ax.set_yticks([0, 1])
            ax.set_yticklabels(["free", "contact"])
            ax.legend(fontsize=7, loc="upper right")
        ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel("time [s] since the first stamp")
    if title:
        fig.suptitle(title)
    return _save(fig, path)


def is_png(path: str) -> bool:
    """Whether ``path`` starts with the 8-byte PNG signature and has a non-empty IHDR.

    Args:
        path: file to check.

    Returns:
        bool: True for a PNG.
    """
    with open(path, "rb") as fh:
        head = fh.read(24)
    return head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"


def png_size(path: str) -> tuple:
    """Size of a PNG, read from its IHDR chunk.

    Args:
        path: the PNG file.

    Returns:
        tuple: ``(width, height)`` in pixels.
    """
    with open(path, "rb") as fh:
        head = fh.read(24)
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
