# ruff: noqa: E402 - the imports come after the python -m start, which must precede them
"""``arm_simulator``: a simulated torque-controlled arm for robot_dynamics (ROS 2 node).

The node integrates the core's forward dynamics (``RobotModel.step``: semi-implicit Euler at a
fixed step, real-time capable) and behaves like the driver of a torque-controlled arm driven
through ros2_control's ``effort_controllers/JointGroupEffortController``. Every parameter, with
its default, range and units, is declared once in :mod:`robot_dynamics.schema.arm_simulator`
(the table: ``docs/parameters.md``; ``arm_simulator --help``).

Robot model
    As the dynamics node (:mod:`robot_dynamics.ros.description`): parameter
    ``robot_description`` (URDF XML text, never a path) or, while it is empty, the latest message
    of the ``robot_description`` topic (``std_msgs/String``, TRANSIENT_LOCAL, as
    robot_state_publisher publishes it; always subscribed, so clearing the parameter switches to
    it). A new description, or a change of ``base_link``, ``tip_link`` or ``gravity`` whatever
    the description's source, rebuilds the model (aside: the physics keeps running on the old
    one) and resets the state (the clock runs on, and brakes released by a command stay
    released); an invalid one is refused with a logged error and the previous model is kept.

Topics (relative names, so they remap)
    publishes ``joint_states`` (``sensor_msgs/JointState``): name, position [rad], velocity
        [rad/s], effort = the joint torque applied by the drives [N m] (the command after
        saturation, plus the optional joint impedance; not friction or end stops), averaged over
        the integration steps since the previous message, as a torque-controlled arm's driver
        reports its (filtered) joint torque. Stamp: simulation time (see "Time").
    publishes ``~/applied_wrench`` (``geometry_msgs/WrenchStamped``): the external wrench applied
        in the last integration step before the stamp, in the axes of the link in
        ``header.frame_id`` at the stamp's joint positions, moment about its origin: what a
        force-torque sensor at that link reads, as the dynamics node's ``~/external_wrench``
        reports it when its ``wrench_frame`` is that link (all zeros with frame_id = the tip link
        when none is applied). Same stamp as joint_states, so an estimate can be compared sample
        by sample.
    subscribes ``~/commands`` (``std_msgs/Float64MultiArray``): joint torques [N m] ordered by the
        parameter ``joints`` (default: all joints in model order), as the effort controller.
        Joints not listed get 0. The last command is held (like the effort controller) unless
        ``command_timeout`` > 0. A message of the wrong length or with NaN/inf is rejected,
        logged and counted; the node goes on.
    subscribes ``~/external_wrench`` (``geometry_msgs/WrenchStamped``): a wrench the environment
        applies ON the robot, at the origin of link ``header.frame_id`` (empty: the tip link),
        force first. Axes: the link's own axes (``external_wrench_axes: link``, the default, as
        ROS reads a WrenchStamped), or base axes with ``external_wrench_axes: base``.
        Applied for ``external_wrench_duration`` seconds of simulated time after each message, or,
        when that is 0, for as long as messages keep coming (removed after
        ``external_wrench_timeout`` s without one). One wrench at a time: a new message replaces it.
    publishes ``/clock`` (``rosgraph_msgs/Clock``) when ``publish_clock`` is true.

Service
    ``~/reset`` (``std_srvs/Trigger``): back to the initial configuration at rest; clears the
    command and the external wrench (and brakes again with ``hold_until_first_command``).
    Simulation time keeps running (clocks never go backwards). The response names the messages
    it acts on (see "Run-time changes").

Time
    The integration runs in its own thread at ``integration_rate`` (Hz) with a fixed
    step dt = 1/rate; ``joint_states`` are published every ``round(integration_rate /
    publish_rate)`` steps: when the wall clock reaches a message's simulated time (times
    ``real_time_factor``), the steps up to it are integrated and it is published. Simulated time
    is counted in integer nanoseconds (dt rounded to whole ns), so changing ``integration_rate``
    at run time changes the step, never the clock (stamps stay monotonic). With ``publish_clock``
    false stamps are the wall time at which simulated time 0 was + simulated time; with
    ``publish_clock`` true the simulator is the ROS clock: stamps count from 0 and ``/clock`` is
    published with each state, so other nodes can run with ``use_sim_time: true``.
    ``real_time_factor`` 0 (only with ``publish_clock``) runs as fast as the CPU allows. A
    run-time change of ``real_time_factor`` acts at once: the simulated time reached at the
    change goes on at the new factor from then (without ``publish_clock`` stamps stay wall time
    of simulated time 0 + simulated time, so a factor below 1 leaves them behind the wall clock
    by the simulated time not run). If the process falls behind by more than ``max_lag``
    seconds it stops catching up, restarts its pacing and counts an overrun (simulated time and
    stamps stay continuous; the stamps then lag the wall clock by the lost time). The pacing is
    :class:`~robot_dynamics.simulation.pacing.Pacer`.

Run-time changes
    A parameter change, a command, a wrench or a reset acts on every integration step and message
    after the last message published before it, and on none before. A parameter change logs that
    message's stamp (``set effort_noise: applied to the messages stamped after
    1718000000.123456789 s``), the ``~/reset`` response names it. Without ``publish_clock`` (and
    with ``real_time_factor`` <= 1) no message is published before the wall-clock time of its
    stamp, so every message stamped after the set-parameters response has the change.

Physics options
    ``hold_until_first_command`` (default false): the joints stay braked (frozen at rest, effort
    0) until the first command, as an arm whose brakes open when its controller starts; they
    engage again at ``~/reset``, not at a model rebuild.
    ``joint_friction`` (default true): the joint friction model acts on the joints: the URDF
    ``<dynamics damping friction>``, or the ``friction.*`` parameters (viscous, Coulomb,
    asymmetry, Stribeck; :mod:`robot_dynamics.schema.friction`) over it.
    ``effort_limit_saturation`` (default true): commands are clipped at the URDF effort limits.
    ``effort_noise``: standard deviation [N m] of Gaussian noise added to the
    published ``effort`` (a torque sensor's noise; the physics uses the exact torque), drawn from
    ``effort_noise_seed`` (default -1, a fresh seed): a seed gives the same noise from the start
    and after each ``~/reset``.
    ``effort_scale`` / ``effort_offset`` (per joint): the published effort is
    ``(torque + noise - effort_offset) / effort_scale``, what a driver reports whose efforts the
    dynamics node converts with its parameters of the same names (a torque sensor's offset, a
    current with a torque constant).
    ``position_limits`` (default true): joint limits act as stiff spring-damper stops whose
    stiffness and damping come, at every step, from the inertia the joints against their stops
    see (the rest of the arm free), so that their stiffest mode rings at w = 2 pi
    ``limit_frequency`` (Hz) with damping ratio ``limit_damping_ratio``
    (``robot_dynamics.core.actuation.end_stop_gains``); stops that would be unstable at the fixed
    step, or initial positions beyond the limits, are refused. Contact torques are not in
    ``effort``.
    ``joint_impedance.stiffness`` / ``.damping`` (per joint or one value; default off): a
    drive-level joint impedance around ``joint_impedance.setpoint`` (default: the initial
    configuration) added to the torque command, as the joint-impedance modes of torque-controlled
    arms do (e.g. a torque overlay on a held position). Its torque is part of ``effort``. Gains
    the fixed step cannot keep stable at the initial positions or the setpoint are refused
    (at start-up, and at a change of the gains, ``integration_rate`` or the model), naming the
    joints and the damping and rate that are stable
    (``robot_dynamics.core.actuation.impedance_stable``).

Run: ``arm_simulator --ros-args --params-file params.yaml`` (the URDF in the file's
``robot_description``) or with the URDF on the ``robot_description`` topic; also
``python -m robot_dynamics.ros.arm_simulator``. (``-p robot_description:=...`` on the command
line is parsed as YAML by rcl and breaks on most URDFs.)
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m: start as the console script does, SIGINT handled first
    from robot_dynamics.ros.process import arm_simulator as _console_script

    raise SystemExit(_console_script())


import threading
import time
from typing import Dict, Optional, Sequence

import numpy as np

import rclpy
from rclpy.node import Node
from rclpy.parameter import Parameter
from rcl_interfaces.msg import SetParametersResult

from builtin_interfaces.msg import Time as TimeMsg
from geometry_msgs.msg import WrenchStamped
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger

from robot_dynamics.core.errors import RobotDynamicsError
from robot_dynamics.simulation.arm import (
    NANO,
    ArmCounters,
    ArmSettings,
    CommandError,
    SimulatedArm,
)
from robot_dynamics.simulation.pacing import Pacer
from robot_dynamics.schema import ARM_SIMULATOR, MODEL_PARAMS

from . import parameters as P
from .conversions import to_array, wrench_from_msg, wrench_to_msg
from .description import (
    UNCHANGED,
    RobotDescription,
    gravity_text,
    locked_joints_text,
    log_model_notes,
    model_from_parameters,
)
from .throttled_log import ThrottledLog


def _stamp(ns: int) -> TimeMsg:
    return TimeMsg(sec=int(ns // NANO), nanosec=int(ns % NANO))


class ArmSimulator(Node):
    """Simulated torque-controlled arm; see the module docstring for the interface.

    The physics, command handling and clock are a :class:`~robot_dynamics.simulation.SimulatedArm`;
    the node converts messages, paces the arm against the wall clock in its own thread and
    publishes.

    Args:
        node_name: the node's name.
        **kwargs: passed to ``rclpy.node.Node``.
    """

    def __init__(self, node_name: str = "arm_simulator", **kwargs):
        super().__init__(node_name, **kwargs)

        self._lock = threading.RLock()  # guards self._arm across the executor and physics thread
        self._arm: Optional[SimulatedArm] = None
        self._log = ThrottledLog(self.get_logger())
        self._rejected = {"rejected_commands": 0, "rejected_wrenches": 0}
        self._stats = {"overruns": 0, "models": 0, "step_errors": 0}
        self._counters = ArmCounters()  # of the arms replaced by a new model
        self._origin_ns: Optional[int] = None  # stamp of simulated time 0, once the loop runs

        self._specs = {p.name: p for p in ARM_SIMULATOR.params}
        self._values = P.declare(self, list(self._specs.values()))
        self._rng = self._noise_generator()  # effort_noise, carried over to a new model's arm
        self._publish_clock = bool(self._values["publish_clock"])
        self._pacer = Pacer(  # guarded by self._lock, as the arm
            self._values["real_time_factor"], self._values["max_lag"], fast=self._publish_clock
        )
        self._wake = threading.Event()  # set by a change: the physics thread stops waiting
        self.add_on_set_parameters_callback(self._on_set_parameters)
        P.accept_declared_types(self)

        # Reliable with a history of 100 (0.2 s at 500 Hz): a reader stalled for a moment (a busy
        # CPU) gets every sample late rather than losing some (the observer integrates them).
        self._js_pub = self.create_publisher(JointState, "joint_states", 100)
        self._wrench_pub = self.create_publisher(WrenchStamped, "~/applied_wrench", 100)
        self._clock_pub = None
        self.create_subscription(Float64MultiArray, "~/commands", self._on_commands, 10)
        self.create_subscription(WrenchStamped, "~/external_wrench", self._on_wrench, 10)
        self.create_service(Trigger, "~/reset", self._on_reset)
        self._description = RobotDescription(self, self._build, self._install, lambda: self._values)
        self._description.start(self._values["robot_description"])

        self._running = True
        self._thread = threading.Thread(
            target=self._loop, name="arm_simulator_physics", daemon=True
        )
        self._thread.start()

    # ------------------------------------------------------------------ parameters and model
    def _build(self, urdf: str, values: Dict):
        """(model, settings) from URDF text and parameter values; raises to refuse."""
        model = model_from_parameters(urdf, values)
        return model, ArmSettings.from_values(model, values)

    def _install(self, built, source: str) -> None:
        model, settings = built
        with self._lock:
            if self._arm is None:
                self._arm = SimulatedArm(model, settings, rng=self._rng)
            else:
                for name, value in vars(self._arm.counters).items():
                    setattr(self._counters, name, getattr(self._counters, name) + value)
                self._arm = self._arm.rebuilt(model, settings)
            self._stats["models"] += 1
            acts = "" if self._origin_ns is None else f"; {self._acts_after()}"
        locked = locked_joints_text(model)
        self.get_logger().info(
            f"model loaded from {source}: {model.n} joints ({', '.join(model.joint_names)})"
            + (f" (locked: {locked})" if locked else "")
            + f", base {model.base_link}, tip {model.tip_link}, {gravity_text(model)}; step "
            f"{settings.dt * 1e3:g} ms, "
            f"joint_states every {settings.publish_every} steps{acts}"
        )
        log_model_notes(
            self.get_logger(),
            model,
            "External wrenches on ~/external_wrench need a frame_id.",
        )

    def _on_set_parameters(self, params: Sequence[Parameter]) -> SetParametersResult:
        result = P.validate(self._specs, params)
        if not result.successful:
            self.get_logger().warn(f"parameter change refused: {result.reason}")
            return result
        changes = {p.name: p.value for p in params if p.name in self._specs}
        values = {**self._values, **changes}
        prepared = settings = None
        try:
            if MODEL_PARAMS & changes.keys() or self._arm is None:  # no model: built anew
                text = changes.get("robot_description", UNCHANGED)
                try:
                    prepared = self._description.prepare(values, text)
                except (RobotDynamicsError, ValueError) as exc:  # logged by the description
                    reason = f"{type(exc).__name__}: {exc}"
                    return SetParametersResult(successful=False, reason=reason)
            elif self._arm is not None:
                settings = ArmSettings.from_values(self._arm.model, values)
        except (RobotDynamicsError, ValueError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
            self.get_logger().warn(f"parameter change refused: {reason}")
            return SetParametersResult(successful=False, reason=reason)
        self._values = values
        with self._lock:
            self._pacer.max_lag = float(values["max_lag"])
            if "real_time_factor" in changes:
                t_ns = self._arm.t_ns if self._arm is not None else 0
                self._pacer.set_factor(values["real_time_factor"], t_ns)
        self._wake.set()  # the next sample's time or due time may have changed
        if prepared is not None:
            source = None if "robot_description" in changes else f"parameters {sorted(changes)}"
            self._description.commit(prepared, source)
        elif settings is not None:
            with self._lock:
                self._arm.reconfigure(settings)
                acts = self._acts_after()
            self.get_logger().info(f"set {', '.join(sorted(changes))}: {acts}")
        return result

    def _acts_after(self) -> str:
        """Which messages a change made now acts on (caller holds the lock): those stamped after
        the last one published, the arm's simulated time (see :meth:`_loop`)."""
        if self._origin_ns is None:
            return "applied from the first message"
        stamp_ns = self._origin_ns + self._arm.t_ns
        return f"applied to the messages stamped after {stamp_ns // NANO}.{stamp_ns % NANO:09d} s"

    # ------------------------------------------------------------------ inputs
    def _on_commands(self, msg: Float64MultiArray) -> None:
        with self._lock:
            if self._arm is None:
                return
            braked = self._arm.braked
            try:
                self._arm.command(msg.data)
            except CommandError as exc:
                self._reject("rejected_commands", exc)
                return
        if braked:
            self.get_logger().info("first command received: brakes released")

    def _on_wrench(self, msg: WrenchStamped) -> None:
        with self._lock:
            if self._arm is None:
                return
            try:
                self._arm.apply_wrench(msg.header.frame_id, wrench_from_msg(msg.wrench))
            except CommandError as exc:
                self._reject("rejected_wrenches", exc)

    def _reject(self, counter: str, error: CommandError) -> None:
        """Count a rejected message and log it (each kind of problem at most every 2 s)."""
        self._rejected[counter] += 1
        message = f"{error} ({self._rejected[counter]} rejected so far)"
        self._log(counter + error.kind, 2.0, "warning", message)

    def _noise_generator(self) -> np.random.Generator:
        """A generator for the effort noise, from ``effort_noise_seed`` (-1: a fresh seed)."""
        seed = int(self._values["effort_noise_seed"])
        return np.random.default_rng(None if seed < 0 else seed)

    def _on_reset(self, request, response):
        with self._lock:
            if self._arm is None:
                response.success = False
                response.message = "no robot model loaded yet"
                return response
            if self._values["effort_noise_seed"] >= 0:  # the noise starts again from the seed
                self._rng = self._noise_generator()
            self._arm.reset(rng=self._rng)
            acts = self._acts_after()
        response.success = True
        response.message = (
            f"reset to the initial configuration, {acts} (simulated time keeps running)"
        )
        self.get_logger().info(response.message)
        return response

    # ------------------------------------------------------------------ physics thread
    def _advance(self, arm: SimulatedArm) -> None:
        """Step the arm to its next sample (caller holds the lock); the thread never dies."""
        diverged = arm.counters.diverged
        try:
            arm.run_to_next_sample()
        except Exception as exc:  # noqa: BLE001 - the physics thread must not die
            self._stats["step_errors"] += 1
            self._log(
                "step_error",
                1.0,
                "error",
                f"integration step failed ({type(exc).__name__}: {exc}); "
                "resetting to the initial configuration",
            )
            arm.reset()
            arm.step()
        if arm.counters.diverged > diverged:
            self._log(
                "diverged",
                1.0,
                "error",
                "the simulation diverged (NaN/inf state); resetting to the initial configuration",
            )

    def _publish(self, stamp_ns: int, sample) -> None:
        """Publish joint_states, the applied wrench and /clock for one sample."""
        stamp = _stamp(stamp_ns)
        js = JointState()
        js.header.stamp = stamp
        js.name = list(self._arm.model.joint_names)
        js.position = to_array(sample.position)
        js.velocity = to_array(sample.velocity)
        js.effort = to_array(sample.effort)
        ws = WrenchStamped()
        ws.header.stamp = stamp
        ws.header.frame_id = sample.wrench_link
        wrench_to_msg(sample.wrench_in_link, ws.wrench)
        if self._clock_pub is not None:
            self._clock_pub.publish(Clock(clock=stamp))
        self._js_pub.publish(js)
        self._wrench_pub.publish(ws)

    def _loop(self) -> None:
        """Pace the arm: wait until the wall-clock instant of the next sample (the
        :class:`~robot_dynamics.simulation.pacing.Pacer`; a parameter change ends the wait and
        it is computed again), then integrate up to it and publish it, both under the lock. So
        whatever a callback changes between two messages (parameters, command, wrench, reset, a
        new model) acts on every later integration step and message, and on none before."""
        if self._publish_clock:
            self._clock_pub = self.create_publisher(Clock, "/clock", 10)
        while self._running and rclpy.ok(context=self.context):
            with self._lock:
                arm = self._arm
                if arm is not None:
                    if self._origin_ns is None:
                        # simulated time 0 = now (wall mode) or 0 (publish_clock). The wall clock
                        # is read before the pacing clock: no message is published before the
                        # wall-clock time of its stamp (with real_time_factor <= 1).
                        self._origin_ns = 0 if self._publish_clock else time.time_ns() - arm.t_ns
                        self._pacer.start(arm.t_ns)
                    delay, lost = self._pacer.delay(arm.next_sample_ns)
            if arm is None:
                time.sleep(0.05)
                continue
            if delay > 0.0:
                if self._wake.wait(delay):
                    self._wake.clear()
                continue
            if lost > 0.0:
                # Stop catching up. Stamps stay origin + t (continuous for every consumer
                # that integrates over them); they now lag the wall clock by the lost time.
                self._stats["overruns"] += 1
                self._log(
                    "overrun",
                    5.0,
                    "warning",
                    f"simulation {lost:.3f} s behind the wall clock: pacing restarted "
                    f"({self._stats['overruns']} overruns)",
                )
            with self._lock:
                arm = self._arm  # a new model may have been installed meanwhile
                self._advance(arm)
                try:
                    self._publish(self._origin_ns + arm.t_ns, arm.sample())
                except Exception:  # noqa: BLE001 - the context went away: shutting down
                    if not (self._running and rclpy.ok(context=self.context)):
                        break
                    raise

    def stats(self) -> Dict[str, int]:
        """The node's counters.

        Returns:
            dict: commands, rejected_commands, wrenches, rejected_wrenches, overruns, models,
            steps, step_errors, diverged.
        """
        with self._lock:
            arm = vars(self._arm.counters) if self._arm is not None else {}
            total = {k: v + arm.get(k, 0) for k, v in vars(self._counters).items()}
        return {**total, **self._rejected, **self._stats}

    def destroy_node(self):
        """Log the counters, stop the physics thread (waits up to 2 s) and destroy the node.

        Returns:
            bool: what ``Node.destroy_node`` returns.
        """
        self.get_logger().info(
            "counters: " + ", ".join(f"{k} {v}" for k, v in self.stats().items())
        )
        self._running = False
        self._wake.set()
        if getattr(self, "_thread", None) is not None and self._thread.is_alive():
            self._thread.join(timeout=2.0)
        return super().destroy_node()


def main(args=None) -> int:
    """Run the node until SIGINT or SIGTERM (console script ``arm_simulator``).

    Args:
        args: command-line arguments for ``rclpy.init`` (default: ``sys.argv``).

    Returns:
        int: the exit code, 0.
    """
    from .executors import make_executors, spin_node

    # The physics runs in its own thread; the callbacks (commands, wrenches, reset, a new URDF)
    # are short and share one mutually exclusive group. A single-threaded executor leaves the
    # GIL to the physics thread (rclpy's multi-threaded executor polls its futures busily and
    # slowed the 1 kHz loop several times over).
    return spin_node(
        ArmSimulator,
        lambda node: make_executors("split", node),
        args=args,
        schema=ARM_SIMULATOR,
    )
