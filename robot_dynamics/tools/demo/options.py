"""The demo's command-line options (``robot-dynamics-demo --help``)."""

from __future__ import annotations

import argparse
import os

from robot_dynamics.schema import DYNAMICS_NODE


def build_parser() -> argparse.ArgumentParser:
    """The ``robot-dynamics-demo`` argument parser.

    Returns:
        argparse.ArgumentParser: the parser.
    """
    p = argparse.ArgumentParser(
        prog="robot-dynamics-demo",
        description="Simulated arm + dynamics node over DDS: gravity compensation holds the arm, "
        "scripted pushes on the tool, live applied-vs-estimated wrench, summary and plot.",
    )
    p.add_argument(
        "--robot", default="panda", help="bundled robot: panda (default) or double_pendulum"
    )
    p.add_argument(
        "--urdf",
        default=None,
        help="your own robot instead of a bundled one: a URDF or xacro file (.xacro, expanded "
        "with --xacro-arg; package://PKG/PATH for a file of a ROS package), or - for a URDF on "
        "standard input",
    )
    p.add_argument(
        "--xacro-arg",
        action="append",
        default=None,
        metavar="NAME:=VALUE",
        help="arguments of a --urdf .xacro file: repeat, or several in one string "
        '("a:=1 b:=2", as the launch file\'s xacro_args)',
    )
    p.add_argument("--base-link", default=None, help="base frame (default: URDF root)")
    p.add_argument(
        "--tip-link", default=None, help="frame that is pushed and where the wrench is estimated"
    )
    p.add_argument("--gravity", nargs=3, type=float, default=None, metavar=("GX", "GY", "GZ"))
    p.add_argument("--q0", nargs="+", type=float, default=None, help="start configuration [rad]")
    p.add_argument(
        "--duration",
        type=float,
        default=None,
        help="length of the scripted part [s] (default 12 for pushes, 10 for the pendulum)",
    )
    p.add_argument("--force", type=float, default=10.0, help="downward push [N] (default 10)")
    p.add_argument(
        "--side-force", type=float, default=5.0, help="sideways (+y) push [N] (default 5)"
    )
    p.add_argument(
        "--twist",
        type=float,
        default=1.0,
        help="twist about +z with the side push [N m] (default 1)",
    )
    p.add_argument(
        "--rate",
        type=float,
        default=None,
        help="simulator integration rate [Hz] (default 1000; 4000 for the pendulum)",
    )
    p.add_argument(
        "--publish-rate", type=float, default=250.0, help="joint_states rate [Hz] (default 250)"
    )
    p.add_argument(
        "--observer-gain",
        type=float,
        default=DYNAMICS_NODE["observer_gain"].default,
        help="momentum observer gain [1/s] (default: the node's, %(default)g)",
    )
    p.add_argument(
        "--sim-time",
        action="store_true",
        help="the simulator publishes /clock (simulated time from 0) and the dynamics node "
        "runs with use_sim_time",
    )
    p.add_argument(
        "--observer-max-dt",
        type=float,
        default=None,
        help="dynamics_node's observer_max_dt: a longer gap between joint_states restarts the "
        f"observer [s] (default: the node's, {DYNAMICS_NODE['observer_max_dt'].default:g} s)",
    )
    p.add_argument(
        "--impedance-hz",
        type=float,
        default=5.0,
        help="natural frequency of the simulated drives' joint impedance [Hz] (default 5)",
    )
    p.add_argument(
        "--force-tolerance",
        type=float,
        default=0.5,
        help="pass if every steady-state force error is below this [N] (default 0.5)",
    )
    p.add_argument(
        "--torque-tolerance",
        type=float,
        default=0.05,
        help="pass if every steady-state torque error is below this [N m] (default 0.05)",
    )
    p.add_argument(
        "--energy-tolerance",
        type=float,
        default=0.05,
        help="pendulum: pass if max |E - E0| / max kinetic energy is below this (default 0.05)",
    )
    p.add_argument(
        "--plot",
        default=os.path.join("out", "demo.png"),
        help="PNG to write (default out/demo.png)",
    )
    p.add_argument(
        "--summary-json",
        default=None,
        help="also write the summary as JSON here (default: next to the plot, .json)",
    )
    p.add_argument(
        "--save-recording",
        default=None,
        metavar="NPZ",
        help="save every received sample (stamps, q, qd, effort, applied and estimated wrench) "
        "to this .npz file",
    )
    p.add_argument(
        "--namespace", default="", help="ROS namespace of the three nodes (default: none)"
    )
    live = p.add_mutually_exclusive_group()
    live.add_argument(
        "--live",
        dest="live",
        action="store_true",
        default=None,
        help="redraw the table in place (default when stdout is a terminal)",
    )
    live.add_argument(
        "--no-live", dest="live", action="store_false", help="one plain line per second"
    )
    p.add_argument(
        "--attach",
        action="store_true",
        help="do not start the nodes: drive and watch an arm_simulator and a dynamics_node "
        "already running with the demo's parameters (launch/demo.launch.py does this)",
    )
    p.add_argument(
        "--startup-timeout", type=float, default=60.0, help="give up if the nodes are not up [s]"
    )
    identify = p.add_argument_group("--scenario identify (see identify_scenario.py)")
    identify.add_argument(
        "--scenario",
        choices=("push", "identify"),
        default="push",
        help="push (default): the push demo; identify: a perturbed simulated robot, pushes with "
        "the nominal URDF, excitation, identification, the same pushes with the identified URDF",
    )
    identify.add_argument(
        "--tool-mass",
        type=float,
        default=1.5,
        help="identify: mass of the tool the URDF does not have [kg] (default 1.5)",
    )
    identify.add_argument(
        "--torque-noise",
        type=float,
        default=0.05,
        help="identify: noise of the simulated joint torques [N m] (default 0.05)",
    )
    identify.add_argument(
        "--seed",
        type=int,
        default=1,
        help="identify: seed of the robot's perturbation and of the simulator's torque noise",
    )
    identify.add_argument(
        "--excitation-periods",
        type=int,
        default=2,
        help="identify: periods of the 8 s excitation trajectory to run (default 2)",
    )
    return p
