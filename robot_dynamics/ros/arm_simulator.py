"""``arm_simulator``: a simulated torque-controlled arm for robot_dynamics (ROS 2 node).

The node integrates the core's forward dynamics (``RobotModel.step``: semi-implicit Euler at a
fixed step, real-time capable) and behaves like the driver of a torque-controlled arm driven
through ros2_control's ``effort_controllers/JointGroupEffortController``.

Robot model
    Parameter ``robot_description`` (URDF XML). When it is empty the node subscribes to the
    ``robot_description`` topic (``std_msgs/String``, depth 1, TRANSIENT_LOCAL, as
    robot_state_publisher publishes it). A new description (parameter set or topic message)
    rebuilds the model and resets the state; an invalid one is rejected with a logged error and
    the previous model is kept. ``base_link``, ``tip_link`` and ``gravity`` as the dynamics node.

Topics (relative names, so they remap)
    publishes ``joint_states`` (``sensor_msgs/JointState``): name, position [rad], velocity
        [rad/s], effort = the joint torque applied by the drives [Nm] (the command after
        saturation, plus the optional joint impedance; not friction or end stops), averaged over
        the integration steps since the previous message, as a torque-controlled arm's driver
        reports its (filtered) joint torque. Stamp: simulation time (see "Time").
    publishes ``~/applied_wrench`` (``geometry_msgs/WrenchStamped``): the external wrench applied
        in the last integration step before the stamp, base axes, moment about the origin of the link in ``header.frame_id``
        (all zeros with frame_id = the tip link when none is applied). Same stamp as joint_states,
        so an estimate can be compared sample by sample.
    subscribes ``~/commands`` (``std_msgs/Float64MultiArray``): joint torques [Nm] ordered by the
        parameter ``joints`` (default: all joints in model order), as the effort controller.
        Joints not listed get 0. The last command is held (like the effort controller) unless
        ``command_timeout`` > 0. A message of the wrong length or with NaN/inf is rejected,
        logged and counted; the node goes on.
    subscribes ``~/external_wrench`` (``geometry_msgs/WrenchStamped``): a wrench the environment
        applies ON the robot, at the origin of link ``header.frame_id`` (empty: the tip link),
        force first. Axes: base axes, or the link's own axes with ``external_wrench_axes: link``.
        Applied for ``external_wrench_duration`` seconds of simulated time after each message, or,
        when that is 0, for as long as messages keep coming (removed after
        ``external_wrench_timeout`` s without one). One wrench at a time: a new message replaces it.
    publishes ``/clock`` (``rosgraph_msgs/Clock``) when ``publish_clock`` is true.

Service
    ``~/reset`` (``std_srvs/Trigger``): back to the initial configuration at rest; clears the
    command and the external wrench (and brakes again with ``hold_until_first_command``). Simulation time keeps running (clocks never go backwards).

Time
    The integration runs in its own thread at ``integration_rate`` (Hz, default 1000) with a fixed
    step dt = 1/rate; ``joint_states`` are published every ``round(integration_rate /
    publish_rate)`` steps, each at the wall-clock instant its simulated time is reached (times
    ``real_time_factor``). Stamps are exact multiples of dt: with ``publish_clock`` false they are
    the wall time at which simulated time 0 was + simulated time; with ``publish_clock`` true the simulator is the ROS clock:
    stamps count from 0 and ``/clock`` is published with each state, so other nodes can run with
    ``use_sim_time: true``. ``real_time_factor`` <= 0 (only with ``publish_clock``) runs as fast
    as the CPU allows. If the process falls behind by more than ``max_lag`` seconds it stops
    catching up, restarts its pacing and counts an overrun (simulated time and stamps stay
    continuous; the stamps then lag the wall clock by the lost time).

Physics options
    ``hold_until_first_command`` (default false): the joints stay braked (frozen at rest, effort
    0) until the first command, as an arm whose brakes open when its controller starts.
    ``friction`` (default true): URDF ``<dynamics damping friction>`` act on the joints.
    ``effort_limit_saturation`` (default true): commands are clipped at the URDF effort limits.
    ``position_limits`` (default false): joint limits act as stiff spring-damper stops
    whose stiffness and damping are set per joint from the joint's inertia at the initial
    configuration, K_i = w^2 M_ii, D_i = 2 zeta w M_ii with w = 2 pi ``limit_frequency`` (default
    100 Hz) and zeta = ``limit_damping_ratio`` (default 1), so that they stay stable at the fixed
    step; contact torques are not in ``effort``.
    ``joint_impedance.stiffness`` / ``.damping`` (per joint or one value; default off): a
    drive-level joint impedance around ``joint_impedance.setpoint`` (default: the initial
    configuration) added to the torque command, as the joint-impedance modes of torque-controlled
    arms do (e.g. a torque overlay on a held position). Its torque is part of ``effort``.

Run: ``arm_simulator --ros-args --params-file params.yaml`` (the URDF in the file's
``robot_description``) or with the URDF on the ``robot_description`` topic; also
``python -m robot_dynamics.ros.arm_simulator``. (``-p robot_description:=...`` on the command
line is parsed as YAML by rcl and breaks on most URDFs.)
"""

from __future__ import annotations

import math
import threading
import time
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

import rclpy
from rclpy.exceptions import ParameterUninitializedException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult, FloatingPointRange

from builtin_interfaces.msg import Time as TimeMsg
from geometry_msgs.msg import WrenchStamped
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import Trigger

from robot_dynamics import RobotModel
from robot_dynamics.core.actuation import (
    end_stop_gains,
    impedance_torques,
    limit_stop_torques,
    saturate,
)
from robot_dynamics.core.errors import RobotDynamicsError

from .conversions import to_array, wrench_from_msg, wrench_to_msg
from .qos import robot_description_qos

NANO = 1_000_000_000


def _stamp(ns: int) -> TimeMsg:
    return TimeMsg(sec=int(ns // NANO), nanosec=int(ns % NANO))


def _descriptor(description: str, ptype=None, **kwargs) -> ParameterDescriptor:
    d = ParameterDescriptor(description=description, **kwargs)
    if ptype is not None:
        d.type = ptype
    return d


class ArmSimulator(Node):
    """Simulated torque-controlled arm; see the module docstring for the interface."""

    _RUNTIME_KEYS = (
        "hold_until_first_command",
        "friction",
        "effort_limit_saturation",
        "position_limits",
        "limit_frequency",
        "limit_damping_ratio",
        "command_timeout",
        "external_wrench_duration",
        "external_wrench_timeout",
        "real_time_factor",
        "max_lag",
    )

    def __init__(self, node_name: str = "arm_simulator", **kwargs):
        super().__init__(node_name, **kwargs)

        self._lock = threading.RLock()
        self._model: Optional[RobotModel] = None
        self._last_log: Dict[str, float] = {}
        self._stats = {
            "commands": 0,
            "rejected_commands": 0,
            "wrenches": 0,
            "rejected_wrenches": 0,
            "overruns": 0,
            "models": 0,
            "rejected_models": 0,
            "steps": 0,
        }

        dp = self.declare_parameter
        dp(
            "robot_description",
            "",
            _descriptor(
                "URDF XML of the robot. Empty: read the robot_description topic (TRANSIENT_LOCAL)."
            ),
        )
        dp("base_link", "", _descriptor("Base frame of the model (empty: the URDF root)."))
        dp(
            "tip_link",
            "",
            _descriptor(
                "Tip frame; external wrenches without frame_id act here "
                "(empty: the only leaf link)."
            ),
        )
        dp(
            "gravity",
            [0.0, 0.0, -9.81],
            _descriptor("Gravity in the base frame [m/s^2], 3 values."),
        )
        dp(
            "joints",
            Parameter.Type.STRING_ARRAY,
            _descriptor(
                "Order of the ~/commands vector (as the effort controller's 'joints'). Unset: all joints "
                "in model order. Joints not listed get zero torque."
            ),
        )
        dp(
            "initial_positions",
            Parameter.Type.DOUBLE_ARRAY,
            _descriptor("Initial joint positions [rad], model joint order. Unset: zeros."),
        )
        dp(
            "initial_velocities",
            Parameter.Type.DOUBLE_ARRAY,
            _descriptor("Initial joint velocities [rad/s], model joint order. Unset: zeros."),
        )
        dp(
            "integration_rate",
            1000.0,
            _descriptor(
                "Fixed integration rate [Hz] (step = 1/rate), semi-implicit Euler of the core.",
                floating_point_range=[FloatingPointRange(from_value=1.0, to_value=100000.0)],
            ),
        )
        dp(
            "publish_rate",
            500.0,
            _descriptor(
                "joint_states publication rate [Hz]; rounded to a whole number of integration steps.",
                floating_point_range=[FloatingPointRange(from_value=0.1, to_value=100000.0)],
            ),
        )
        dp(
            "real_time_factor",
            1.0,
            _descriptor(
                "Simulated seconds per wall-clock second; <= 0 means as fast as possible "
                "(only with publish_clock)."
            ),
        )
        dp(
            "publish_clock",
            False,
            _descriptor(
                "Publish /clock and stamp messages with simulated time from 0 (others use_sim_time)."
            ),
        )
        dp(
            "max_lag",
            0.25,
            _descriptor(
                "If the simulation falls this many seconds behind the wall clock, stop catching up "
                "and count an overrun [s]."
            ),
        )
        dp("friction", True, _descriptor("Apply the URDF joint damping and friction."))
        dp("effort_limit_saturation", True, _descriptor("Clip commands at the URDF effort limits."))
        dp("position_limits", False, _descriptor("URDF position limits act as stiff end stops."))
        dp(
            "limit_frequency",
            100.0,
            _descriptor(
                "End stops: natural frequency of each joint against its stop [Hz] (stiffness "
                "(2 pi f)^2 M_ii at the initial configuration). Keep 2 pi f / integration_rate < 1."
            ),
        )
        dp("limit_damping_ratio", 1.0, _descriptor("End stops: damping ratio (1 = critical)."))
        dp(
            "joint_impedance.stiffness",
            Parameter.Type.DOUBLE_ARRAY,
            _descriptor(
                "Drive-level joint stiffness [Nm/rad], one value or one per joint. Unset: off."
            ),
        )
        dp(
            "joint_impedance.damping",
            Parameter.Type.DOUBLE_ARRAY,
            _descriptor(
                "Drive-level joint damping [Nm s/rad], one value or one per joint. Unset: off."
            ),
        )
        dp(
            "joint_impedance.setpoint",
            Parameter.Type.DOUBLE_ARRAY,
            _descriptor(
                "Joint-impedance setpoint [rad], model joint order. Unset: the initial positions."
            ),
        )
        dp(
            "hold_until_first_command",
            False,
            _descriptor(
                "Keep the joints braked (state frozen at rest, effort 0) until the first ~/commands "
                "message arrives, as an arm whose brakes open when its controller starts. Also after "
                "~/reset."
            ),
        )
        dp(
            "command_timeout",
            0.0,
            _descriptor(
                "Zero the command when none arrived for this long [s of simulated time]; 0 holds "
                "the last command forever (as the effort controller)."
            ),
        )
        dp(
            "external_wrench_duration",
            0.0,
            _descriptor(
                "Apply each ~/external_wrench message for this long [s of simulated time]; 0: apply "
                "while messages keep coming (see external_wrench_timeout)."
            ),
        )
        dp(
            "external_wrench_timeout",
            0.2,
            _descriptor(
                "With external_wrench_duration 0: remove the wrench when no message came for this "
                "long [s of simulated time]."
            ),
        )
        dp(
            "external_wrench_axes",
            "base",
            _descriptor(
                "Axes of incoming wrenches: 'base' (base frame axes) or 'link' (axes of the link in "
                "header.frame_id). The moment is always about that link's origin."
            ),
        )

        self.add_on_set_parameters_callback(self._on_set_parameters)

        # state (guarded by _lock)
        self._k = 0  # steps done since start
        self._q = np.zeros(0)
        self._qd = np.zeros(0)
        self._cmd = np.zeros(0)  # last command, model order [Nm]
        self._cmd_step: Optional[int] = None
        self._applied = np.zeros(0)  # torque applied in the last step (effort) [Nm]
        self._wrench: Optional[Tuple[str, np.ndarray, int]] = (
            None  # (link, base-axes wrench, until step)
        )

        # Reliable with a history of 100 (0.2 s at 500 Hz): a reader stalled for a moment (a busy
        # CPU) gets every sample late rather than losing some (the observer integrates them).
        self._js_pub = self.create_publisher(JointState, "joint_states", 100)
        self._wrench_pub = self.create_publisher(WrenchStamped, "~/applied_wrench", 100)
        self._clock_pub = None
        self.create_subscription(Float64MultiArray, "~/commands", self._on_commands, 10)
        self.create_subscription(WrenchStamped, "~/external_wrench", self._on_wrench, 10)
        self.create_service(Trigger, "~/reset", self._on_reset)
        self._desc_sub = None

        urdf = self.get_parameter("robot_description").value
        if urdf:
            ok, reason = self._load_model(urdf, {})
            if not ok:
                self.get_logger().error(f"robot_description parameter rejected: {reason}")
        if self._model is None:
            self._subscribe_description()

        self._running = True
        self._thread = threading.Thread(
            target=self._loop, name="arm_simulator_physics", daemon=True
        )
        self._thread.start()

    # ------------------------------------------------------------------ parameters and model
    def _param(self, name, overrides: Dict):
        if name in overrides:
            return overrides[name]
        try:
            return self.get_parameter(name).value
        except ParameterUninitializedException:  # declared by type only and not set
            return None

    def _subscribe_description(self) -> None:
        if self._desc_sub is not None:
            return
        self._desc_sub = self.create_subscription(
            String, "robot_description", self._on_description, robot_description_qos()
        )
        self.get_logger().info("waiting for a URDF on the robot_description topic")

    def _on_description(self, msg: String) -> None:
        if self.get_parameter("robot_description").value:
            return  # the parameter wins
        ok, reason = self._load_model(msg.data, {})
        if not ok:
            self.get_logger().error(f"robot_description topic message rejected: {reason}")

    def _vector(
        self, values, n: int, name: str, default: float, allow_scalar: bool = False
    ) -> np.ndarray:
        if values is None or len(values) == 0:
            return np.full(n, default, dtype=float)
        arr = np.asarray(list(values), dtype=float)
        if allow_scalar and arr.size == 1:
            return np.full(n, float(arr[0]))
        if arr.size != n:
            raise ValueError(
                f"{name} has {arr.size} values, the model has {n} joints"
                + (" (or give 1 value)" if allow_scalar else "")
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} has a NaN or infinite entry")
        return arr

    def _configure(self, model: RobotModel, p: Dict) -> Dict:
        """Validate every model-dependent parameter against ``model``; return the settings."""
        n = model.n
        names = list(model.joint_names)
        joints = p["joints"]
        if joints is None or len(joints) == 0:
            joints = names
        unknown = [j for j in joints if j not in names]
        if unknown:
            raise ValueError(
                f"joints: unknown joint(s) {', '.join(unknown)}; the model's joints are "
                f"{', '.join(names)}"
            )
        if len(set(joints)) != len(joints):
            raise ValueError("joints: a joint is listed twice")
        q0 = self._vector(p["initial_positions"], n, "initial_positions", 0.0)
        qd0 = self._vector(p["initial_velocities"], n, "initial_velocities", 0.0)
        stiff = self._vector(
            p["joint_impedance.stiffness"], n, "joint_impedance.stiffness", 0.0, True
        )
        damp = self._vector(p["joint_impedance.damping"], n, "joint_impedance.damping", 0.0, True)
        if np.any(stiff < 0) or np.any(damp < 0):
            raise ValueError("joint_impedance stiffness and damping must be >= 0")
        setpoint = p["joint_impedance.setpoint"]
        setpoint = (
            q0.copy()
            if setpoint is None or len(setpoint) == 0
            else self._vector(setpoint, n, "joint_impedance.setpoint", 0.0)
        )
        rate = float(p["integration_rate"])
        pub_rate = float(p["publish_rate"])
        every = max(1, int(round(rate / pub_rate)))
        axes = p["external_wrench_axes"]
        if axes not in ("base", "link"):
            raise ValueError(f"external_wrench_axes must be 'base' or 'link', not {axes!r}")
        for key in (
            "limit_frequency",
            "limit_damping_ratio",
            "command_timeout",
            "external_wrench_duration",
            "external_wrench_timeout",
            "max_lag",
        ):
            if not (math.isfinite(float(p[key])) and float(p[key]) >= 0):
                raise ValueError(f"{key} must be a finite number >= 0, got {p[key]}")
        lower, upper = model.position_limits
        limit_stiffness, limit_damping = end_stop_gains(
            model, q0, float(p["limit_frequency"]), float(p["limit_damping_ratio"])
        )
        return {
            "brakes": bool(p["hold_until_first_command"]),
            "friction": bool(p["friction"]),
            "saturation": bool(p["effort_limit_saturation"]),
            "position_limits": bool(p["position_limits"]),
            "limit_stiffness": limit_stiffness,
            "limit_damping": limit_damping,
            "command_timeout": float(p["command_timeout"]),
            "wrench_duration": float(p["external_wrench_duration"]),
            "wrench_timeout": float(p["external_wrench_timeout"]),
            "real_time_factor": float(p["real_time_factor"]),
            "max_lag": float(p["max_lag"]),
            "joints": list(joints),
            "cmd_index": [names.index(j) for j in joints],
            "q0": q0,
            "qd0": qd0,
            "stiffness": stiff,
            "damping": damp,
            "setpoint": setpoint,
            "impedance": bool(np.any(stiff) or np.any(damp)),
            "dt": 1.0 / rate,
            "publish_every": every,
            "axes": axes,
            "lower": np.asarray(lower, dtype=float),
            "upper": np.asarray(upper, dtype=float),
            "effort_limits": np.asarray(model.effort_limits, dtype=float),
        }

    def _all_params(self, changes: Dict) -> Dict:
        keys = [
            "joints",
            "initial_positions",
            "initial_velocities",
            "joint_impedance.stiffness",
            "joint_impedance.damping",
            "joint_impedance.setpoint",
            "integration_rate",
            "publish_rate",
            "external_wrench_axes",
        ] + list(self._RUNTIME_KEYS)
        return {k: self._param(k, changes) for k in keys}

    def _build_model(self, urdf: str, changes: Dict) -> RobotModel:
        base = self._param("base_link", changes) or None
        tip = self._param("tip_link", changes) or None
        gravity = self._param("gravity", changes)
        if gravity is None or len(gravity) != 3 or not all(math.isfinite(g) for g in gravity):
            raise ValueError(f"gravity must be 3 finite numbers, got {gravity}")
        return RobotModel.from_urdf(
            urdf, base_link=base, tip_link=tip, gravity=tuple(float(g) for g in gravity)
        )

    def _load_model(self, urdf: str, changes: Dict) -> Tuple[bool, str]:
        try:
            model = self._build_model(urdf, changes)
            cfg = self._configure(model, self._all_params(changes))
        except (RobotDynamicsError, ValueError) as exc:
            self._stats["rejected_models"] += 1
            return False, f"{type(exc).__name__}: {exc}"
        with self._lock:
            self._model = model
            self._cfg = cfg
            self._stats["models"] += 1
            self._reset_state()
        self.get_logger().info(
            f"model loaded: {model.n} joints ({', '.join(model.joint_names)}), base {model.base_link}, "
            f"tip {model.tip_link}; step {cfg['dt'] * 1e3:g} ms, joint_states every "
            f"{cfg['publish_every']} steps"
        )
        return True, ""

    def _reset_state(self) -> None:
        cfg = self._cfg
        n = self._model.n
        self._q = cfg["q0"].copy()
        self._qd = cfg["qd0"].copy()
        self._cmd = np.zeros(n)
        self._cmd_step = None
        self._applied = np.zeros(n)
        self._applied_sum = np.zeros(n)
        self._applied_count = 0
        self._wrench = None
        self._wrench_in_step = None
        self._braked = cfg["brakes"]

    def _on_set_parameters(self, params: Sequence[Parameter]) -> SetParametersResult:
        changes = {p.name: p.value for p in params}
        model_keys = {"robot_description", "base_link", "tip_link", "gravity"}
        cfg_keys = {
            "joints",
            "initial_positions",
            "initial_velocities",
            "joint_impedance.stiffness",
            "joint_impedance.damping",
            "joint_impedance.setpoint",
            "integration_rate",
            "publish_rate",
            "external_wrench_axes",
        } | set(self._RUNTIME_KEYS)
        if not hasattr(self, "_running"):
            return SetParametersResult(successful=True)  # declarations during __init__
        if "publish_clock" in changes:
            return SetParametersResult(
                successful=False, reason="publish_clock cannot change at runtime"
            )
        try:
            if model_keys & changes.keys():
                urdf = self._param("robot_description", changes)
                if not urdf:
                    return SetParametersResult(successful=True)
                model = self._build_model(urdf, changes)
                cfg = self._configure(model, self._all_params(changes))
                with self._lock:
                    self._model, self._cfg = model, cfg
                    self._stats["models"] += 1
                    self._reset_state()
                self.get_logger().info(f"model rebuilt: {model.n} joints, tip {model.tip_link}")
            elif cfg_keys & changes.keys() and self._model is not None:
                cfg = self._configure(self._model, self._all_params(changes))
                with self._lock:
                    self._cfg = cfg
        except (RobotDynamicsError, ValueError) as exc:
            return SetParametersResult(successful=False, reason=f"{type(exc).__name__}: {exc}")
        return SetParametersResult(successful=True)

    # ------------------------------------------------------------------ inputs
    def _on_commands(self, msg: Float64MultiArray) -> None:
        with self._lock:
            if self._model is None:
                return
            idx = self._cfg["cmd_index"]
            data = np.asarray(msg.data, dtype=float)
            if data.size != len(idx):
                self._reject(
                    "rejected_commands",
                    "length",
                    f"~/commands has {data.size} values, expected {len(idx)} "
                    f"(ordered by parameter joints: {', '.join(self._cfg['joints'])})",
                )
                return
            if not np.all(np.isfinite(data)):
                bad = [self._cfg["joints"][i] for i in np.flatnonzero(~np.isfinite(data))]
                self._reject(
                    "rejected_commands", "nan", f"~/commands has NaN/inf for {', '.join(bad)}"
                )
                return
            cmd = np.zeros(self._model.n)
            cmd[idx] = data
            self._cmd = cmd
            self._cmd_step = self._k
            if self._braked:
                self._braked = False
                self.get_logger().info("first command received: brakes released")
            self._stats["commands"] += 1

    def _on_wrench(self, msg: WrenchStamped) -> None:
        with self._lock:
            if self._model is None:
                return
            link = msg.header.frame_id or self._model.tip_link
            w = wrench_from_msg(msg.wrench)
            if link is None:
                self._reject(
                    "rejected_wrenches",
                    "no_frame",
                    "~/external_wrench without frame_id and the model has no tip link",
                )
                return
            if link not in self._model.link_names:
                self._reject(
                    "rejected_wrenches",
                    "frame",
                    f"~/external_wrench frame_id {link!r} is not a link of the model "
                    f"(links: {', '.join(self._model.link_names)})",
                )
                return
            if not np.all(np.isfinite(w)):
                self._reject(
                    "rejected_wrenches", "nan", "~/external_wrench has a NaN/inf component"
                )
                return
            if self._cfg["axes"] == "link":
                rot = np.asarray(self._model.frame_pose(self._q, frame=link), dtype=float)[:3, :3]
                w = np.concatenate([rot @ w[:3], rot @ w[3:]])
            duration = self._cfg["wrench_duration"]
            if duration <= 0:
                duration = self._cfg["wrench_timeout"]
            until = self._k + max(1, int(round(duration / self._cfg["dt"])))
            self._wrench = (link, w, until) if np.any(w) else None
            self._stats["wrenches"] += 1

    def _reject(self, counter: str, kind: str, text: str) -> None:
        """Count a rejected message and log it (each kind of problem at most every 2 s)."""
        self._stats[counter] += 1
        now = time.monotonic()
        if now - self._last_log.get(counter + kind, -1e9) >= 2.0:
            self._last_log[counter + kind] = now
            self.get_logger().warning(f"{text} ({self._stats[counter]} rejected so far)")

    def _on_reset(self, request, response):
        with self._lock:
            if self._model is None:
                response.success = False
                response.message = "no robot model loaded yet"
                return response
            self._reset_state()
            t = self._k * self._cfg["dt"]
        response.success = True
        response.message = (
            f"reset to the initial configuration at t = {t:.3f} s (simulated time keeps running)"
        )
        self.get_logger().info(response.message)
        return response

    # ------------------------------------------------------------------ physics thread
    def _step_once(self) -> None:
        """One fixed step (caller holds the lock)."""
        model, cfg = self._model, self._cfg
        q, qd = self._q, self._qd
        if self._braked:
            self._applied = np.zeros(model.n)
            self._wrench_in_step = None
            self._applied_count += 1
            self._k += 1
            return
        timeout = cfg["command_timeout"]
        cmd = self._cmd
        if (
            timeout > 0
            and self._cmd_step is not None
            and (self._k - self._cmd_step) * cfg["dt"] > timeout
        ):
            cmd = np.zeros_like(cmd)
        tau = cmd
        if cfg["impedance"]:
            tau = tau + impedance_torques(q, qd, cfg["setpoint"], cfg["stiffness"], cfg["damping"])
        if cfg["saturation"]:
            tau = saturate(tau, cfg["effort_limits"])
        self._applied = tau
        self._applied_sum += tau
        self._applied_count += 1
        tau_total = tau
        if cfg["position_limits"]:
            tau_total = tau + limit_stop_torques(
                q, qd, cfg["lower"], cfg["upper"], cfg["limit_stiffness"], cfg["limit_damping"]
            )
        if self._wrench is not None and self._k >= self._wrench[2]:
            self._wrench = None
        self._wrench_in_step = self._wrench
        link, w, _ = self._wrench if self._wrench is not None else (None, None, None)
        q_new, qd_new = model.step(
            q, qd, tau_total, cfg["dt"], f_ext=w, frame=link, friction=cfg["friction"]
        )
        q_new = np.asarray(q_new, dtype=float)
        qd_new = np.asarray(qd_new, dtype=float)
        if not (np.all(np.isfinite(q_new)) and np.all(np.isfinite(qd_new))):
            self.get_logger().error(
                "the simulation diverged (NaN/inf state); resetting to the initial configuration",
                throttle_duration_sec=1.0,
            )
            self._reset_state()
        else:
            self._q, self._qd = q_new, qd_new
        self._k += 1
        self._stats["steps"] += 1

    def _publish(self, stamp_ns: int) -> None:
        """Publish joint_states, the applied wrench and /clock (caller holds the lock)."""
        stamp = _stamp(stamp_ns)
        js = JointState()
        js.header.stamp = stamp
        js.name = list(self._model.joint_names)
        js.position = to_array(self._q)
        js.velocity = to_array(self._qd)
        if self._applied_count:
            js.effort = to_array(self._applied_sum / self._applied_count)
        else:
            js.effort = to_array(self._applied)
        self._applied_sum.fill(0.0)
        self._applied_count = 0
        ws = WrenchStamped()
        ws.header.stamp = stamp
        if self._wrench_in_step is not None:  # the wrench of the last step (not one received since)
            link, w, _ = self._wrench_in_step
        else:
            link, w = self._model.tip_link or self._model.base_link, np.zeros(6)
        ws.header.frame_id = link
        wrench_to_msg(w, ws.wrench)
        if self._clock_pub is not None:
            self._clock_pub.publish(Clock(clock=stamp))
        self._js_pub.publish(js)
        self._wrench_pub.publish(ws)

    def _loop(self) -> None:
        publish_clock = bool(self.get_parameter("publish_clock").value)
        if publish_clock:
            self._clock_pub = self.create_publisher(Clock, "/clock", 10)
        origin_ns = 0
        pace_wall0, pace_k0 = time.monotonic(), 0
        started = False
        while self._running and rclpy.ok(context=self.context):
            with self._lock:
                ready = self._model is not None
                if ready:
                    cfg = self._cfg
                    if not started:
                        # simulated time 0 = now (wall mode) or 0 (publish_clock)
                        started = True
                        pace_wall0, pace_k0 = time.monotonic(), self._k
                        origin_ns = (
                            0
                            if publish_clock
                            else time.time_ns() - int(round(self._k * cfg["dt"] * NANO))
                        )
                    every = cfg["publish_every"]
                    try:
                        for _ in range(
                            every - (self._k % every)
                        ):  # steps up to the next publication
                            self._step_once()
                    except Exception as exc:  # noqa: BLE001 - the physics thread must not die
                        self._stats["step_errors"] = self._stats.get("step_errors", 0) + 1
                        self.get_logger().error(
                            f"integration step failed ({type(exc).__name__}: {exc}); resetting to the "
                            "initial configuration",
                            throttle_duration_sec=1.0,
                        )
                        self._reset_state()
                        self._k += 1
                    k, dt = self._k, cfg["dt"]
            if not ready:
                time.sleep(0.05)
                continue
            rtf = cfg["real_time_factor"]
            if rtf > 0 or not publish_clock:
                rtf = rtf if rtf > 0 else 1.0
                due = pace_wall0 + (k - pace_k0) * dt / rtf
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                elif -delay > cfg["max_lag"]:
                    # Stop catching up. Stamps stay origin + k*dt (continuous for every consumer
                    # that integrates over them); they now lag the wall clock by the lost time.
                    self._stats["overruns"] += 1
                    self.get_logger().warning(
                        f"simulation {-delay:.3f} s behind the wall clock: pacing restarted "
                        f"({self._stats['overruns']} overruns)",
                        throttle_duration_sec=5.0,
                    )
                    pace_wall0, pace_k0 = time.monotonic(), k
            with self._lock:
                if self._model is not None:
                    try:
                        self._publish(origin_ns + int(round(self._k * self._cfg["dt"] * NANO)))
                    except Exception:  # noqa: BLE001 - the context went away: shutting down
                        if not (self._running and rclpy.ok(context=self.context)):
                            break
                        raise

    def stats(self) -> Dict[str, int]:
        """Counters: commands, rejected_commands, wrenches, rejected_wrenches, overruns, models, steps."""
        return dict(self._stats)

    def destroy_node(self):
        self.get_logger().info(
            "counters: " + ", ".join(f"{k} {v}" for k, v in self.stats().items())
        )
        self._running = False
        if getattr(self, "_thread", None) is not None and self._thread.is_alive():
            self._thread.join(timeout=2.0)
        return super().destroy_node()


def main(args=None) -> None:
    """Console script ``arm_simulator``."""
    from rclpy.executors import SingleThreadedExecutor

    from .executors import spin_node

    # The physics runs in its own thread; the callbacks (commands, wrenches, reset, a new URDF)
    # are short and share one mutually exclusive group. A single-threaded executor leaves the
    # GIL to the physics thread (rclpy's multi-threaded executor polls its futures busily and
    # slowed the 1 kHz loop several times over).
    spin_node(ArmSimulator, lambda node: SingleThreadedExecutor(), args=args)


if __name__ == "__main__":
    main()
