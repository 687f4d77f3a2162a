"""The identify scenario's trajectory tracker: a small rclpy process that commands the simulated
arm's joint torques along the excitation reference
(:class:`~robot_dynamics.tools.demo.identify_analysis.ExcitationReference`).

One command per ``joint_states`` message (the freshest only: best effort, depth 1), computed
by :func:`~robot_dynamics.tools.demo.identify_analysis.impedance_feedforward` (the nominal
model's inverse dynamics at the reference, plus what makes the drives' joint impedance around
the held pose act around the reference instead) and published on the simulator's
``~/commands`` (the topic given). Time is the joint-state stamps from the first message on
(printed as ``tracker t0_ns=<stamp>``). After the reference it holds its last point until
stopped (SIGINT or SIGTERM). A process of its own so that its loop never waits behind the demo's
recording.

Run by the demo: ``python -m robot_dynamics.tools.demo.tracker SETUP.npz NAMESPACE TOPIC`` (TOPIC:
where the simulator reads its commands; the demo remaps its ``~/commands`` onto the dynamics
node's ``~/effort_command``, which is silent while the tracker runs); the .npz
holds ``urdf``, ``base_link``, ``tip_link``, ``gravity``, ``q0``, ``center``, ``scale``, ``a``,
``b``, ``period``, ``periods``, ``move_time``, ``stiffness``, ``damping`` (the drives').
"""

from __future__ import annotations

import sys

import numpy as np


def load_reference(path: str):
    """Read a tracker setup file.

    Args:
        path: the .npz written by :func:`save_reference`.

    Returns:
        tuple: ``(nominal model, ExcitationReference, stiffness (n,) [N m/rad], damping (n,)
        [N m s/rad])``.
    """
    from robot_dynamics import RobotModel
    from robot_dynamics.core.excitation import FourierTrajectory
    from robot_dynamics.tools.demo.identify_analysis import ExcitationReference

    d = np.load(path)
    model = RobotModel.from_urdf_string(
        str(d["urdf"]),
        base_link=str(d["base_link"]),
        tip_link=str(d["tip_link"]),
        gravity=tuple(float(g) for g in d["gravity"]),
    )
    traj = FourierTrajectory(d["center"], d["scale"], d["a"], d["b"], float(d["period"]))
    reference = ExcitationReference(traj, d["q0"], int(d["periods"]), float(d["move_time"]))
    return model, reference, d["stiffness"], d["damping"]


def save_reference(
    path: str, setup, traj, periods: int, move_time: float, stiffness, damping
) -> None:
    """Write the tracker setup file (see the module docstring).

    Args:
        path: the .npz to write.
        setup: the demo's RobotSetup (urdf, base_link, tip_link, gravity, q0).
        traj: the :class:`~robot_dynamics.core.excitation.FourierTrajectory`.
        periods: whole periods to run.
        move_time: each quintic [s].
        stiffness: (n,) the drives' impedance stiffness [N m/rad].
        damping: (n,) the drives' impedance damping [N m s/rad].
    """
    np.savez(
        path,
        urdf=np.array(setup.urdf),
        base_link=np.array(setup.base_link),
        tip_link=np.array(setup.tip_link),
        gravity=np.asarray(setup.gravity, dtype=float),
        q0=np.asarray(setup.q0, dtype=float),
        center=traj.center,
        scale=traj.scale,
        a=traj.a,
        b=traj.b,
        period=float(traj.period),
        periods=int(periods),
        move_time=float(move_time),
        stiffness=np.asarray(stiffness, dtype=float),
        damping=np.asarray(damping, dtype=float),
    )


def main(argv=None) -> int:
    """Run the tracker until SIGINT or SIGTERM (it stops as the nodes do:
    :func:`robot_dynamics.ros.executors.spin_node`).

    Args:
        argv: ``[SETUP.npz, NAMESPACE, TOPIC]`` (default: ``sys.argv[1:]``).

    Returns:
        int: the exit code, 0.
    """
    from robot_dynamics.ros.process import stop_request

    stop_request()  # a signal from here on asks the tracker to stop
    import rclpy
    from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    from robot_dynamics.ros.executors import make_executors, spin_node
    from robot_dynamics.tools.demo.identify_analysis import impedance_feedforward

    argv = sys.argv[1:] if argv is None else argv
    path, ns, topic = argv[0], argv[1].rstrip("/"), argv[2]
    model, reference, stiffness, damping = load_reference(path)

    def make_node():
        node = rclpy.create_node("identify_tracker")
        pub = node.create_publisher(Float64MultiArray, topic, 10)
        state = {"t0": None}
        msg_out = Float64MultiArray()

        def on_joint_states(msg):
            stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
            if state["t0"] is None:
                state["t0"] = stamp
                print(f"tracker t0_ns={stamp}", flush=True)
            t = min((stamp - state["t0"]) * 1e-9, reference.duration)
            tau = impedance_feedforward(model, reference(t), stiffness, damping, reference.q0)
            if np.all(np.isfinite(tau)):
                msg_out.data = tau.tolist()
                pub.publish(msg_out)

        qos = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST)
        qos.reliability = ReliabilityPolicy.BEST_EFFORT
        node.create_subscription(JointState, f"{ns}/joint_states", on_joint_states, qos)
        return node

    return spin_node(make_node, lambda node: make_executors("split", node))


if __name__ == "__main__":
    sys.exit(main())
