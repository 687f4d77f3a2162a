"""What the demo prints: the live table (redrawn in place on a terminal, one plain line per
simulated second otherwise) and the summary. Formatting only: the numbers come in as arguments."""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

import numpy as np

from robot_dynamics.tools.demo.analysis import AXES


class Display:
    """Live table: redrawn in place on a terminal, one plain line per simulated second otherwise.

    Args:
        stream: text stream written to.
        live: redraw in place (True), plain lines (False), or None: redraw when ``stream`` is a
            terminal.
        period: redraw period on a terminal [s of wall time].
    """

    def __init__(self, stream, live: Optional[bool], period: float = 0.25):
        self.stream = stream
        self.tty = stream.isatty() if live is None else live
        self.period = period
        self._last = -1e9
        self._last_second = 0
        self._height = 0

    def due(self, now: float, t_sim: float) -> bool:
        """Whether to redraw now.

        Live: every ``period`` s of wall time. Plain: once per simulated second, at 0.5 s, 1.5 s,
        ... (between the script's phase boundaries, which fall on whole seconds by default).

        Args:
            now: wall time [s].
            t_sim: simulated time [s].

        Returns:
            bool: True when a redraw is due.
        """
        if self.tty:
            if now - self._last >= self.period:
                self._last = now
                return True
            return False
        if int(t_sim + 0.5) > self._last_second:
            self._last_second = int(t_sim + 0.5)
            return True
        return False

    def show(self, lines: List[str], plain: str) -> None:
        """Redraw ``lines`` in place (terminal) or write the one line ``plain``.

        Args:
            lines: the table lines.
            plain: the one-line form.
        """
        if self.tty:
            out = ""
            if self._height:
                out += f"\x1b[{self._height}F"
            out += "".join(f"\x1b[2K{line}\n" for line in lines)
            self.stream.write(out)
            self._height = len(lines)
        else:
            self.stream.write(plain + "\n")
        self.stream.flush()

    def done(self) -> None:
        """The next :meth:`show` starts below the table instead of over it."""
        self._height = 0


def row(label: str, w: Optional[np.ndarray]) -> str:
    """One line of the wrench table.

    Args:
        label: row label.
        w: (6,) wrench [N, N m], or None (shown as ``-``).

    Returns:
        str: the line.
    """
    if w is None:
        return f"  {label:<10}" + "".join(f"{'-':>8}" for _ in AXES)
    return f"  {label:<10}" + "".join(f"{v:>8.2f}" for v in w)


def _vec(v, precision=3) -> str:
    return np.array2string(v, precision=precision, suppress_small=True) if v is not None else "-"


def _rounded(v) -> str:
    return str(np.round(v, 2).tolist()) if v is not None else "-"


def pendulum_lines(
    t: float,
    duration: float,
    q: Optional[np.ndarray],
    qd: Optional[np.ndarray],
    energy: float,
    energy0: float,
    estimate: Optional[np.ndarray],
) -> Tuple[List[str], str]:
    """Table of the double-pendulum run at simulated time ``t``: joint state, total energy (and
    at the release) and the estimate (should stay ~0).

    Args:
        t: simulated time [s].
        duration: length of the run [s].
        q: (n,) joint positions [rad], or None.
        qd: (n,) joint velocities [rad/s], or None.
        energy: total energy [J].
        energy0: total energy at the release [J].
        estimate: (6,) estimated wrench [N, N m], or None.

    Returns:
        tuple: ``(table lines, plain line)``.
    """
    lines = [
        f"t = {t:5.1f} / {duration:g} s   double pendulum released from horizontal, zero torque",
        f"  q  [rad]    {_vec(q)}",
        f"  qd [rad/s]  {_vec(qd)}",
        f"  energy {energy:9.4f} J (start {energy0:.4f} J)",
        row("estimated", estimate) + "   (no contact: should stay ~0)",
    ]
    force = np.linalg.norm(estimate[:3]) if estimate is not None else float("nan")
    plain = (
        f"t={t:5.1f}s q={np.round(q, 3).tolist() if q is not None else '-'} E={energy:.4f} J "
        f"|f_est|={force:.3f} N"
    )
    return lines, plain


def push_lines(
    t: float,
    duration: float,
    phase_name: str,
    applied: Optional[np.ndarray],
    estimate: Optional[np.ndarray],
    displacement_mm: float,
    lag_ms: float,
) -> Tuple[List[str], str]:
    """Table of the push run at simulated time ``t``: applied and estimated wrench (base axes,
    moment about the tip origin), their difference, the tool's displacement from the held pose.

    Args:
        t: simulated time [s].
        duration: length of the run [s].
        phase_name: the current phase.
        applied: (6,) applied wrench [N, N m], or None.
        estimate: (6,) estimated wrench [N, N m], or None.
        displacement_mm: the tool's displacement from the held pose [mm].
        lag_ms: how far the estimate is behind the latest joint state [ms].

    Returns:
        tuple: ``(table lines, plain line)``.
    """
    err = None if (applied is None or estimate is None) else estimate - applied
    header = f"  {'wrench':<10}" + "".join(
        f"{a + (' [N]' if a[0] == 'f' else '[Nm]'):>8}" for a in AXES
    )
    behind = f"   (estimate {lag_ms:.0f} ms behind: node catching up)" if lag_ms > 50 else ""
    lines = [
        f"t = {t:5.1f} / {duration:g} s   {phase_name}{behind}",
        header,
        row("applied", applied),
        row("estimated", estimate),
        row("error", err),
        f"  tool displacement from the held pose: {displacement_mm:6.2f} mm",
    ]
    plain = (
        f"t={t:5.1f}s {phase_name:<36} applied={_rounded(applied)} "
        f"estimated={_rounded(estimate)} tool {displacement_mm:.2f} mm{behind}"
    )
    return lines, plain


def fmt(v, spec=".3f") -> str:
    """A number formatted, or ``n/a`` for None and non-finite numbers.

    Args:
        v: the value.
        spec: format spec.

    Returns:
        str: the text.
    """
    return (
        "n/a" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format(v, spec)
    )


def print_summary(s: Dict, name: str, pendulum: bool, args, out) -> None:
    """Print the summary of a run.

    Args:
        s: the summary (from the analysis, plus the run's settings).
        name: the robot's name.
        pendulum: the run was the double pendulum's.
        args: the demo options.
        out: text stream written to.
    """

    def p(*a):
        print(*a, file=out)

    p("")
    p(
        f"summary ({name}, {s['duration_s']:g} s scripted, set-up {s['setup_time_s']:.1f} s, "
        f"total {s['total_time_s']:.1f} s)"
    )
    rates = s["rates_hz"]
    p(
        f"  joint_states {fmt(rates['joint_states'], '.0f')} Hz, wrench estimates "
        f"{fmt(rates['estimates'], '.0f')} Hz over DDS; simulator step "
        f"{1e3 / s['integration_rate_hz']:g} ms"
    )
    if pendulum:
        p(
            f"  energy: start {s['energy_initial_J']:.4f} J, max |E - E0| = "
            f"{s['energy_max_abs_drift_J']:.4f} J = "
            f"{100 * s['energy_drift_relative_to_max_kinetic']:.3f} % of the largest kinetic "
            f"energy ({s['max_kinetic_energy_J']:.1f} J); tolerance "
            f"{100 * args.energy_tolerance:g} %"
        )
        p(
            f"  first {s['agreement_horizon_s']:g} s vs the core's RK45 (rtol 1e-10): max joint "
            f"deviation {fmt(s['max_joint_deviation_from_rk45_rad'], '.2e')} rad"
        )
        p(
            f"  external joint torque reported without any contact (after 0.1 s): RMS "
            f"{fmt(s['rms_false_joint_torque_Nm'])} N m, max {fmt(s['max_false_joint_torque_Nm'])} "
            f"N m (gravity torques reach {s['max_gravity_torque_Nm']:.0f} N m; speeds up to "
            f"{s['max_speed_rad_s']:.1f} rad/s)"
        )
    else:
        p("  steady-state estimation error per axis, after convergence [N, N m]:")
        p("    " + f"{'':<5}" + "".join(f"{a:>10}" for a in AXES))
        p("    " + f"{'RMS':<5}" + "".join(f"{v:>10.2g}" for v in s["steady_error_rms"]))
        p("    " + f"{'max':<5}" + "".join(f"{v:>10.2g}" for v in s["steady_error_max"]))
        if s["observer_restarts"]:
            p(
                f"    ({s['observer_restarts']} observer restart(s): the dynamics node skipped "
                f"joint_states for up to {s['longest_estimate_gap_ms']:.0f} ms (CPU busy); "
                f"{1e3 * s['recovery_excluded_s']:.0f} ms after each are left out here)"
            )
        for push in s["pushes"]:
            w = np.asarray(push["applied"])
            what = (
                "release"
                if not np.any(w)
                else "push " + np.array2string(w, precision=2, suppress_small=True)
            )
            conv = push["convergence_time_s"]
            p(
                f"  {push['phase']:<34} converged in "
                f"{fmt(conv * 1e3 if math.isfinite(conv) else conv, '.0f')} ms "
                f"(to within {push['band_force_N']:.2g} N / {push['band_torque_Nm']:.2g} N m)  "
                f"[{what}]"
            )
        for name in s["pushes_not_evaluated"]:
            p(
                f"  {name:<34} not evaluated: no estimate received while it was applied "
                "(an overloaded machine?)"
            )
        p(
            f"  held pose (tool position): drift while holding "
            f"{s['pose_drift_hold_mm'] * 1e3:.3g} um, after the releases "
            f"{s['pose_drift_final_mm'] * 1e3:.3g} um; deflection under the pushes up to "
            f"{s['deflection_under_push_max_mm']:.1f} mm (joint impedance {args.impedance_hz:g} Hz)"
        )
        p(
            f"  without gravity compensation the same joint impedance would sag "
            f"{s['sag_without_gravity_compensation_mm']:.1f} mm"
        )
    p(
        f"  result: {'PASS' if s['passed'] else 'FAIL'}"
        + (
            ""
            if pendulum
            else f" (tolerance {args.force_tolerance:g} N / {args.torque_tolerance:g} N m per axis)"
        )
    )
    p(f"  plot: {s['plot']}")
    p(f"  summary: {s['summary_json']}")
