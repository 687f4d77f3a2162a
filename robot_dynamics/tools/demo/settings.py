"""The demo's robot and the parameters of the two nodes it runs (also used by
``launch/demo.launch.py``, which starts the same nodes with the same parameters)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import numpy as np

from robot_dynamics.core.errors import ParametersFileError
from robot_dynamics.core.tip import no_tip_reason
from robot_dynamics.schema import ARM_SIMULATOR, DYNAMICS_NODE
from robot_dynamics.tools.params_file import parameters_yaml

EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE, EXIT_STARTUP = 0, 1, 2, 3
NODE_OBSERVER_MAX_DT = DYNAMICS_NODE["observer_max_dt"].default  # the node's default [s]


class DemoError(Exception):
    """An error that ends the demo with exit code ``code``.

    Args:
        message: what went wrong, for the user.
        code: exit code (2: bad arguments, 3: start-up).
    """

    def __init__(self, message: str, code: int = EXIT_STARTUP):
        super().__init__(message)
        self.code = code


@dataclass
class RobotSetup:
    """The demo's robot.

    Attributes:
        name: bundled name or the URDF file's name.
        urdf_path: the file read (``<stdin>`` for standard input).
        urdf: URDF XML text (xacro expanded).
        model: the RobotModel.
        base_link: base frame.
        tip_link: the pushed frame.
        gravity: (3,) [m/s^2] in the base frame.
        q0: (n,) start configuration [rad].
        pendulum: the bundled double pendulum (released, not pushed).
        stiffness: (n,) joint impedance of the simulated drives [N m/rad] (set by demo_settings).
    """

    name: str
    urdf_path: str
    urdf: str
    model: object
    base_link: str
    tip_link: str
    gravity: Tuple[float, float, float]
    q0: np.ndarray
    pendulum: bool = False
    stiffness: Optional[np.ndarray] = None


def resolve_setup(args) -> RobotSetup:
    """The robot of the demo options (``--robot`` or ``--urdf`` with ``--xacro-arg``,
    ``--base-link``, ``--tip-link``, ``--gravity``, ``--q0``), resolved as the CLI resolves its
    robots (:mod:`robot_dynamics.tools.robots`).

    Args:
        args: the parsed demo options.

    Returns:
        RobotSetup: the robot.

    Raises:
        DemoError: (exit 2) unknown bundled robot, unreadable description, a model that cannot
            be built, no tip link (none chosen, no --tip-link), a --q0 of the wrong length.
    """
    from robot_dynamics.core.errors import RobotDynamicsError
    from robot_dynamics.tools.bundled import BUNDLED
    from robot_dynamics.tools.robots import build_model, resolve_robot

    if not args.urdf and args.robot not in BUNDLED:
        raise DemoError(
            f"--robot {args.robot!r}: bundled robots are {', '.join(BUNDLED)}", EXIT_USAGE
        )
    spec = args.urdf or args.robot
    try:
        source = resolve_robot(spec, getattr(args, "xacro_arg", None))
        model = build_model(source, args.base_link, args.tip_link, args.gravity)
    except RobotDynamicsError as exc:  # description unreadable, xacro, URDF, links, gravity
        raise DemoError(f"--urdf {exc}" if args.urdf else str(exc), EXIT_USAGE) from None
    bundled = source.bundled
    if model.tip_link is None:
        raise DemoError(
            f"URDF {source.label}: {no_tip_reason(model.tree)}; choose one with --tip-link",
            EXIT_USAGE,
        )
    if args.q0:
        q0 = np.asarray(args.q0, dtype=float)
        if q0.shape != (model.n,):
            raise DemoError(
                f"--q0 has {q0.size} values, the model has {model.n} joints "
                f"({', '.join(model.joint_names)})",
                EXIT_USAGE,
            )
    elif bundled is not None:
        q0 = np.asarray(bundled.home, dtype=float)
    else:  # zeros, clipped into the limits
        lower, upper = (np.asarray(v, dtype=float) for v in model.position_limits)
        q0 = np.clip(np.zeros(model.n), lower, upper)
    return RobotSetup(
        name=bundled.name if bundled else os.path.basename(source.label),
        urdf_path=source.path or source.label,
        urdf=source.urdf,
        model=model,
        base_link=model.base_link,
        tip_link=model.tip_link,
        gravity=tuple(float(g) for g in model.gravity),
        q0=q0,
        pendulum=bool(bundled is not None and bundled.name == "double_pendulum"),
    )


def joint_impedance(model, q0: np.ndarray, frequency_hz: float, zeta: float = 0.7):
    """Per-joint stiffness and damping: each joint, alone, a mass-spring-damper of natural
    frequency ``frequency_hz``.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel`.
        q0: (n,) configuration [rad].
        frequency_hz: natural frequency f [Hz] (w = 2 pi f).
        zeta: damping ratio.

    Returns:
        tuple: ``(K (n,) [N m/rad], D (n,) [N m s/rad])`` with K_i = w^2 M_ii(q0) and
        D_i = 2 zeta w M_ii(q0).
    """
    inertia = np.diagonal(model.mass_matrix(q0))  # each joint alone: the others held
    omega = 2.0 * np.pi * float(frequency_hz)
    return omega**2 * inertia, 2.0 * float(zeta) * omega * inertia


def write_parameter_files(directory: str, sim_params: Dict, node_params: Dict) -> Dict[str, str]:
    """The parameters files of the demo's two nodes, written by the schema's writer
    (:func:`~robot_dynamics.tools.params_file.parameters_yaml`: every value checked against the
    node's declarations), each in a ``/**:`` section (the process has one node, whatever its
    namespace and name).

    Args:
        directory: where the files go.
        sim_params: the arm_simulator's parameters (name -> value).
        node_params: the dynamics_node's parameters.

    Returns:
        dict: node name (``arm_simulator``, ``dynamics_node``) -> the file's path.

    Raises:
        DemoError: (exit 2) a value the node would refuse (an option out of its range), naming
            the parameter.
    """
    paths = {}
    for name, schema, params in (
        ("arm_simulator", ARM_SIMULATOR, sim_params),
        ("dynamics_node", DYNAMICS_NODE, node_params),
    ):
        paths[name] = os.path.join(directory, name + ".yaml")
        try:
            text = parameters_yaml(
                params, comments=[f"{name}: the demo's parameters"], schema=schema
            )
        except ParametersFileError as exc:
            raise DemoError(f"{name}: {exc}", EXIT_USAGE) from None
        with open(paths[name], "w") as fh:
            fh.write(text)
    return paths


def demo_settings(args) -> Tuple[RobotSetup, Dict, Dict, float, float]:
    """Robot, parameters of arm_simulator and dynamics_node, scripted duration and integration
    rate for the demo options (also used by launch/demo.launch.py).

    Args:
        args: the parsed demo options.

    Returns:
        tuple: ``(RobotSetup, arm_simulator parameters, dynamics_node parameters, duration [s],
        integration rate [Hz])``.

    Raises:
        DemoError: bad options (exit 2).
    """
    setup = resolve_setup(args)
    model = setup.model
    pendulum = setup.pendulum
    duration = args.duration if args.duration is not None else (10.0 if pendulum else 12.0)
    if not (math.isfinite(duration) and 0.5 <= duration <= 600):
        raise DemoError(f"--duration must be between 0.5 and 600 s, got {duration}", EXIT_USAGE)
    rate = args.rate if args.rate is not None else (4000.0 if pendulum else 1000.0)
    joints = list(model.joint_names)
    if pendulum:
        stiffness, damping = np.zeros(model.n), np.zeros(model.n)
    else:
        stiffness, damping = joint_impedance(model, setup.q0, args.impedance_hz)
    setup.stiffness = stiffness
    sim_params = {
        "robot_description": setup.urdf,
        "base_link": setup.base_link,
        "tip_link": setup.tip_link,
        "gravity": list(setup.gravity),
        "joints": joints,
        "initial_positions": setup.q0.tolist(),
        "integration_rate": float(rate),
        "publish_rate": float(args.publish_rate),
        "joint_friction": not pendulum,
        "hold_until_first_command": True,
        "external_wrench_duration": 0.0,
        # the demo re-sends the wrench at ~50 Hz and sends zeros to release: a long timeout only
        # keeps a push on through a stall of the (CPU-starved) demo process
        "external_wrench_timeout": 2.0,
        "external_wrench_axes": "base",
    }
    if not pendulum:
        sim_params["joint_impedance.stiffness"] = stiffness.tolist()
        sim_params["joint_impedance.damping"] = damping.tolist()
    node_params = {
        "robot_description": setup.urdf,
        "base_link": setup.base_link,
        "tip_link": setup.tip_link,
        "gravity": list(setup.gravity),
        "publish_effort_command": not pendulum,
        "effort_command_source": "gravity",
        "command_joints": joints,
        "wrench_estimation": "momentum_observer",
        "observer_gain": float(args.observer_gain),
        # The estimate comes as a force-torque sensor at the tip would report it (tip axes,
        # moment about the tip origin); the demo turns it into base axes for its table.
        "wrench_frame": setup.tip_link,
        "friction_compensation": not pendulum,
    }
    if args.observer_max_dt:
        node_params["observer_max_dt"] = float(args.observer_max_dt)
    if args.sim_time:
        # the simulator is the clock: it publishes /clock and stamps with simulated time
        sim_params["publish_clock"] = True
        node_params["use_sim_time"] = True
    # The node reads joint_states best-effort with a 10-message queue (sensor-data style, the
    # freshest state wins). In the demo every sample matters to the observer: ask for a reliable,
    # deeper queue through the node's QoS overrides, so a CPU stall delays messages instead of
    # dropping them.
    ns = args.namespace.strip("/")
    topic = ("/" + ns if ns else "") + "/joint_states"
    node_params[f"qos_overrides.{topic}.subscription.reliability"] = "reliable"
    node_params[f"qos_overrides.{topic}.subscription.depth"] = 200
    return setup, sim_params, node_params, duration, rate
