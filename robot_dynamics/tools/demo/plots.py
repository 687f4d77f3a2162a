"""The demo's PNG: applied vs estimated wrench (pushes), or q, qd, energy (pendulum)."""

from __future__ import annotations

import numpy as np

from robot_dynamics.tools.demo.analysis import Recording, estimates_of, seconds


def plot_run(rec: Recording, setup, t0_ns: int, path: str) -> str:
    """Write the plot of a recorded run to ``path`` (PNG) and return the path.

    Args:
        rec: the recording.
        setup: the demo's RobotSetup (model, tip link, name; pendulum or pushes).
        t0_ns: start of the script [ns]; samples before it are left out.
        path: PNG to write.

    Returns:
        str: the path written.
    """
    from robot_dynamics.tools.plotting import plot_trajectory, plot_wrench_demo

    model = setup.model
    js_t = seconds(rec.js_stamp, t0_ns)
    keep_js = js_t >= 0
    if setup.pendulum:
        q = np.asarray(rec.js_q)[keep_js]
        qd = np.asarray(rec.js_qd)[keep_js]
        energy = np.asarray(model.total_energy(q, qd), dtype=float)
        ext_t = seconds(rec.ext_stamp, t0_ns)
        keep_ext = ext_t >= 0.1  # the brakes' torque, seen as external until 0.1 s, left out
        ext = np.asarray(rec.ext_tau).reshape(-1, model.n)[keep_ext]
        return plot_trajectory(
            path,
            t=js_t[keep_js],
            q=q,
            qd=qd,
            energy=energy,
            joint_names=model.joint_names,
            title="double pendulum released from horizontal, zero torque (arm_simulator over DDS)",
            extra=(
                ext_t[keep_ext],
                ext,
                "estimated external\ntorque [N m] (none)\nfrom 0.1 s",
                list(model.joint_names),
            ),
        )
    est_t = seconds(rec.est_stamp, t0_ns)
    app_t = seconds(rec.app_stamp, t0_ns)
    keep_est = est_t >= 0
    keep_app = app_t >= 0
    order = np.argsort(app_t[keep_app], kind="stable")
    return plot_wrench_demo(
        path,
        t_wrench=app_t[keep_app][order],
        applied=np.asarray(rec.app_wrench)[keep_app][order],
        t_estimated=est_t[keep_est],
        estimated=estimates_of(rec, model, setup.tip_link)[keep_est],
        t_joints=js_t[keep_js],
        tau=np.asarray(rec.js_effort)[keep_js],
        joint_names=model.joint_names,
        title=f"{setup.name}: external wrench on {setup.tip_link}, applied vs estimated "
        f"(momentum observer; base axes, moment about the {setup.tip_link} origin)",
    )
