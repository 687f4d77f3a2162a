# ruff: noqa: E402 - the imports come after the python -m start, which must precede them
"""The dynamics node: a thin rclpy adapter over the estimation pipeline.

Callbacks convert messages (joint names -> model order, NaN where a message does not carry a
joint; stamps as integer nanoseconds), call :class:`robot_dynamics.estimation.EstimationPipeline`
and publish what it returns. The pipeline owns every estimation policy (estimator, observer
restarts, friction, reference expiry, effort ages and scales, tare, contact detection, the last
guard against non-finite outputs). Services live in :mod:`robot_dynamics.ros.services`, the
robot description in :mod:`robot_dynamics.ros.description`, the parameters in
:mod:`robot_dynamics.schema.dynamics_node` (declared) and
:mod:`robot_dynamics.ros.dynamics_parameters` (applied), the executors in
:mod:`robot_dynamics.ros.executors`. The README section "The dynamics node" documents the
interface. Run it with ``ros2 run robot_dynamics dynamics_node`` (or ``dynamics_node`` in the
wheel environment) with the URDF in a parameters file or on the ``robot_description`` topic.

Conventions: ``M qdd + C qd + g = tau + J^T f_ext`` with ``f_ext`` the wrench the environment
applies ON the robot; ``~/external_wrench`` is what a force-torque sensor at ``wrench_frame``
would read (components in its axes, moment about its origin, ``frame_id`` = that link).
"""

if __name__ == "__main__":  # python -m: start as the console script does, SIGINT handled first
    from robot_dynamics.ros.process import dynamics_node as _console_script

    raise SystemExit(_console_script())


import gc
import threading
import time

import numpy as np

from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.clock import Clock, ClockType
from rclpy.node import Node

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

from robot_dynamics.core.validation import all_finite
from robot_dynamics.estimation import EstimationPipeline
from robot_dynamics.estimation.config import pipeline_config
from robot_dynamics.estimation.joint_names import missing_joints_hint
from robot_dynamics.schema import DYNAMICS_NODE, MODEL_PARAMS
from robot_dynamics_interfaces.msg import ContactState

from . import dynamics_parameters as DP
from . import parameters as P
from .conversions import JointNameMap, to_array, wrench_to_msg
from .description import (
    UNCHANGED,
    RobotDescription,
    gravity_text,
    locked_joints_text,
    log_model_notes,
)
from .diagnostics import EFFORT_CHECK_MESSAGES, LOGGED, DynamicsDiagnostics, NodeState
from .executors import CallbackErrors, io_node, make_executors, spin_node
from .latest_messages import LatestMessages
from .payload_service import PayloadService
from .qos import joint_states_qos, subscription_qos_overrides
from .services import DynamicsServices, trigger_services
from .throttled_log import ThrottledLog

MAX_UNKNOWN_NAMES = 64  # unknown joint names remembered (and reported) at most
_JOINT_OUTPUTS = ("gravity", "feedforward", "external")


class _Active:
    """One loaded model with its pipeline, name map and output messages (swapped as a whole;
    the messages are reused: publish() serialises synchronously)."""

    def __init__(self, parsed, model, pipeline):
        self.parsed, self.model, self.pipeline = parsed, model, pipeline
        self.names = tuple(model.joint_names)
        self.joints = JointNameMap(self.names, model.derived_joints)
        self.command_index = None
        self.msgs = {key: JointState(name=list(self.names)) for key in _JOINT_OUTPUTS}
        self.wrench = WrenchStamped()


class DynamicsNode(Node):
    """ROS 2 adapter of the estimation pipeline; see the module docstring and the README.

    Args:
        node_name: the node's name.
        **kwargs: passed to ``rclpy.node.Node``.
    """

    def __init__(self, node_name="dynamics_node", **kwargs):
        super().__init__(node_name, **kwargs)
        self._specs = {p.name: p for p in DP.specs()}
        self._values = P.declare(self, list(self._specs.values()))
        self.callback_errors = CallbackErrors()
        #: set when the process stops (spin_node): long callbacks (a simulation) end early
        self.stopping = threading.Event()
        self._log = ThrottledLog(self.get_logger())  # what the hot path may log every message
        # The hot path (joint_states, ~/reference, the outputs) lives on a node of its own, so
        # that it can spin on an executor of its own (see executors.py).
        self.io = io_node(self)
        self._lock = threading.Lock()  # the pipeline: hot path, tare/reset, swaps
        self._active = None
        # the node's own counts; every event of the estimation is counted by the pipeline
        self._count = {"received": 0, "commands": 0, "model_loads": 0}
        self._command_error = ""
        self._diagnostics_state = DynamicsDiagnostics()
        self._unknown = set()
        self._name_hint = (None, "")  # ((missing joints, unknown names seen), the hint)
        self._contact = None  # last ContactState message
        self._cmd_msg = Float64MultiArray()
        self._last_t_ns = 0  # stamp of the latest joint_states message [ns]
        # joint_states: served at once, or (the node is behind) the newest of each stream by a
        # task of the I/O node's executor
        self._latest = LatestMessages()
        self._serve_lock = threading.Lock()

        # Every QoS event handler is an entity the executor scans on each wake-up, at 1 kHz:
        # the hot path goes without the default incompatible-QoS handlers (a peer with an
        # incompatible QoS still gets the warning on its own side).
        def output(msg_type, topic):
            return self.io.create_publisher(
                msg_type,
                self.resolve_topic_name(topic),
                10,
                event_callbacks=PublisherEventCallbacks(use_default_callbacks=False),
            )

        self._pub = {
            "gravity": output(JointState, "~/gravity_torques"),
            "feedforward": output(JointState, "~/feedforward_torques"),
            "external": output(JointState, "~/external_torques"),
            "wrench": output(WrenchStamped, "~/external_wrench"),
            "command": output(Float64MultiArray, "~/effort_command"),
            "contact": output(ContactState, "~/contact"),
        }
        self._pub_diagnostics = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self._description = RobotDescription(self, self._build, self._install, self._get_values)
        self._description.start(self._values["robot_description"])
        self.add_on_set_parameters_callback(self._on_set_parameters)
        P.accept_declared_types(self)
        joint_states = self.resolve_topic_name("joint_states")
        self._joint_states_sub = self.io.create_subscription(
            JointState,
            joint_states,
            self._on_joint_states,
            subscription_qos_overrides(self, joint_states, joint_states_qos()),
            event_callbacks=SubscriptionEventCallbacks(use_default_callbacks=False),
        )
        self.io.create_subscription(
            JointTrajectory,
            self.resolve_topic_name("~/reference"),
            self._on_reference,
            10,
            event_callbacks=SubscriptionEventCallbacks(use_default_callbacks=False),
        )
        DynamicsServices(
            self, lambda: self._active, self._get_values, self._measured, self.stopping.is_set
        )
        self._payload = PayloadService(
            self, lambda: self._active, self._get_values, self._with_pipeline
        )
        group = MutuallyExclusiveCallbackGroup()
        trigger_services(self, self._with_pipeline, self._start_tare, self._reset, group)
        # on the steady clock: under use_sim_time the status goes on while /clock stands still
        steady = Clock(clock_type=ClockType.STEADY_TIME)
        self.create_timer(self._values["diagnostics_period"], self._diagnostics, group, steady)
        self.create_timer(
            self._values["contact_publish_period"], self._republish_contact, group, steady
        )

    def _get_values(self):
        return self._values

    def destroy_node(self):
        """Destroy the hot-path node, then this one.

        Returns:
            bool: what ``Node.destroy_node`` returns.
        """
        self.io.destroy_node()
        return super().destroy_node()

    # ------------------------------------------------------------------ model and parameters
    def _build(self, text, values):
        parsed, model = DP.build_model(text, values)
        return _Active(parsed, model, EstimationPipeline(model, pipeline_config(values)))

    def _install(self, active, source):
        values = self._values
        try:
            active.command_index = DP.command_indices(active.names, values["command_joints"])
            self._command_error = ""
        except ValueError as error:
            self._command_error = f"~/effort_command disabled: {error}"
            self.get_logger().error(self._command_error)
        with self._lock:
            old = self._active
            if old is not None:  # carry the measured joint state over, by joint name
                active.pipeline = old.pipeline.with_model(active.model, active.pipeline.config)
            self._active = active
            self._unknown = set()
            self._name_hint = (None, "")
            self._count["model_loads"] += 1
        pipeline = active.pipeline
        locked = locked_joints_text(active.model)
        self.get_logger().info(
            f"model loaded from {source}: {len(active.names)} joints {list(active.names)}"
            + (f" (locked: {locked})" if locked else "")
            + ", base "
            f"{active.model.base_link!r}, tip {active.model.tip_link!r}, payload "
            f"{float(values['payload.mass'])} kg, {gravity_text(active.model)}; wrench_frame "
            f"{pipeline.wrench_frame!r}, components {' '.join(pipeline.wrench_components)}"
        )
        unclamped = set(pipeline.unclamped_joints)
        if values["publish_effort_command"] and active.command_index is not None:
            unclamped &= {active.names[j] for j in active.command_index}
            if unclamped:
                self.get_logger().warn(
                    f"clamp_effort_command: joints {sorted(unclamped)} have no URDF effort limit "
                    "(0 or missing): their ~/effort_command is not clamped"
                )
        if old is None or active.parsed is not old.parsed:  # built from a URDF
            log_model_notes(
                self.get_logger(),
                active.parsed,
                "The payload and the Jacobian services need a frame"
                + (
                    "; no external wrench is estimated (nor wrench_frame set)."
                    if pipeline.wrench_frame is None
                    else "."
                ),
            )

    def _on_set_parameters(self, parameters):
        result = P.validate(self._specs, parameters)
        if not result.successful:
            self.get_logger().warn(f"parameter change refused: {result.reason}")
            return result
        new = dict(self._values)
        changed = {p.name for p in parameters if p.name in self._specs}
        new.update({p.name: p.value for p in parameters if p.name in self._specs})
        if not changed:
            return result
        active, prepared, derived = self._active, None, None
        try:
            config = pipeline_config(new)
            if changed & MODEL_PARAMS or active is None:  # no model yet: built anew
                text = new["robot_description"] if "robot_description" in changed else UNCHANGED
                try:
                    prepared = self._description.prepare(new, text)
                except Exception as error:  # noqa: BLE001 - counted and logged by the description
                    return type(result)(successful=False, reason=f"{type(error).__name__}: {error}")
                model = prepared.built.model if prepared.built is not None else None
            elif changed & DP.DERIVE_PARAMS and active is not None:
                model = DP.derive_model(active.parsed, new)
                derived = _Active(active.parsed, model, EstimationPipeline(model, config))
            else:
                model = active.model if active is not None else None
                if model is not None:
                    EstimationPipeline(model, config)  # refuses a config the model cannot take
            if model is not None and new["command_joints"]:
                DP.command_indices(model.joint_names, new["command_joints"])
        except Exception as error:  # noqa: BLE001 - any failure refuses the batch
            reason = f"{type(error).__name__}: {error}"
            self.get_logger().warn(f"parameter change refused: {reason}")
            return type(result)(successful=False, reason=reason)
        self._values = new
        if prepared is not None:
            self._description.commit(prepared)
        elif derived is not None:
            self._install(derived, f"parameters {sorted(changed)}")
        elif active is not None:
            with self._lock:
                active.pipeline = active.pipeline.with_config(config)
                active.command_index = DP.command_indices(active.names, new["command_joints"])
            self._command_error = ""
        with self._lock:  # after the message being served, if any
            if self._active is not None and not self._active.pipeline.detects_contact:
                self._end_contact()
        return result

    # ------------------------------------------------------------------ hot path
    def _refused(self, pipeline, reason):
        """A refused joint_states message: no command from it (the diagnostics say why), and a
        throttled warning."""
        self._command_error = f"joint_states refused: {reason}"
        self._log(
            "refused",
            5.0,
            "warning",
            f"joint_states message refused: {reason} ({pipeline.counters['refused']} so far)",
        )

    def _on_joint_states(self, msg):
        # A node that keeps up serves the message here. One that is behind hands it over to a
        # task of the executor: the task runs after the events already queued, whose messages
        # supersede it, so the node processes the newest state and sheds the rest instead of
        # queueing them (latest_messages.py).
        try:
            self._count["received"] += 1
            latest = self._latest
            if latest.serve_at_once():
                with self._serve_lock:
                    try:
                        self._handle_joint_states(msg, 0)
                    finally:
                        latest.served()
                return
            if not latest.put(tuple(msg.name), msg):
                return  # a serve is already asked for: it takes this message
            executor = self.io.executor
            if executor is None:  # not spun (a test driving the callbacks): serve at once
                self._serve_joint_states()
                return
            try:
                executor.create_task(self._serve_joint_states)
            except BaseException:  # no task: the next message asks again
                latest.unschedule()
                raise
        except Exception as error:  # noqa: BLE001 - a message must never stop the hot path
            self._hot_path_error(error)

    def _serve_joint_states(self):
        """The executor task: process the newest joint_states of each stream (the hand-off
        counts the shed ones; the diagnostics report them). Never raises: rclpy's
        ``EventsExecutor`` ends the process (SIGSEGV) when a task raises."""
        try:
            self._serve_pending()
        except Exception as error:  # noqa: BLE001 - see the docstring
            self._hot_path_error(error)

    def _serve_pending(self):
        latest = self._latest
        latest.unschedule()  # from here on a new message asks for another task
        with self._serve_lock:  # one at a time, in order (a multi-threaded executor included)
            while (taken := latest.take()) is not None:
                try:
                    self._handle_joint_states(*taken)
                except Exception as error:  # noqa: BLE001 - a message must never stop the node
                    self._hot_path_error(error)
            latest.served()

    def _reference_clock_ns(self):
        """Now [ns] on the clock a ~/reference ages by: ROS time when it is simulated
        (``use_sim_time``, the /clock publisher's), else the monotonic clock (no system clock
        steps)."""
        clock = self.get_clock()
        return clock.now().nanoseconds if clock.ros_time_is_active else time.monotonic_ns()

    def _hot_path_error(self, error):
        self.callback_errors.record(error)
        self._log(
            "hot_path_error",
            1.0,
            "error",
            f"joint_states/~/reference callback raised {type(error).__name__}: {error} "
            "(ignored; the node goes on)",
        )

    def _handle_joint_states(self, msg, superseded):
        """Serve one joint_states message; ``superseded``: its stream's messages shed since the
        previous one served."""
        active = self._active
        if active is None:
            return
        stamp = msg.header.stamp
        t_ns = stamp.sec * 1_000_000_000 + stamp.nanosec
        if t_ns == 0:  # unstamped: the node's clock
            now = self.get_clock().now()
            t_ns, stamp = now.nanoseconds, now.to_msg()
            self._log(
                "unstamped",
                60.0,
                "warning",
                "joint_states without a stamp (0): stamped on arrival with the node's clock, "
                "whose delivery jitter then shows in the estimate; stamp them in the driver",
            )
        try:
            present, unknown, (position, velocity, effort) = active.joints.fields(
                msg.name,
                (("position", msg.position), ("velocity", msg.velocity), ("effort", msg.effort)),
                "joint_states",
            )
        except ValueError as error:
            with self._lock:
                if self._active is active:
                    active.pipeline.refuse(t_ns, str(error))
            self._refused(active.pipeline, str(error))
            return
        if unknown:
            self._note_unknown(unknown)
        self._last_t_ns = t_ns
        with self._lock:
            if self._active is not active:
                return  # swapped meanwhile: the next message goes to the new model
            pipeline = active.pipeline
            sample = pipeline.ingest(t_ns, position, velocity, effort, present, superseded)
            out = sample.out
            if sample.ready:
                # the reference clock only ages a reference (without one: the stamp)
                now_ns = self._reference_clock_ns() if pipeline.has_reference else None
                pipeline.command(sample, now_ns=now_ns)
                self._publish_command(active, out)
                pipeline.estimate(sample)
                self._payload.record(active.names, t_ns, position, velocity, effort)
        if out.refused:
            self._refused(pipeline, out.refused)
            return
        if out.missing_positions:
            self._command_error = out.command_error
            self._log(
                "missing_positions",
                5.0,
                "warning",
                f"waiting for positions of joints {list(out.missing_positions)}"
                + self._missing_joints_hint(out.missing_positions, len(active.names)),
            )
        self._publish_joints("feedforward", active, stamp, out.feedforward)
        self._publish_joints("gravity", active, stamp, out.gravity)
        self._publish_joints("external", active, stamp, out.external_torques)
        publisher = self._pub["wrench"]
        if out.wrench is not None and publisher.get_subscription_count():  # finite arrays only
            wrench = active.wrench
            wrench.header.stamp = stamp
            wrench.header.frame_id = out.wrench_frame
            wrench_to_msg(out.wrench, wrench.wrench)
            publisher.publish(wrench)
        if out.near_singular:
            self._log(
                "near_singular",
                5.0,
                "warning",
                f"near a singularity: smallest singular value {out.min_singular_value:.3g}; "
                "the wrench estimate is damped",
            )
        if out.contact is not None:
            self._publish_contact(out, stamp)

    def _publish_command(self, active, out):
        """Publish the effort command of ``out`` (caller holds the lock), when it is on."""
        if not self._values["publish_effort_command"]:
            return
        if out.command is None:
            self._command_error = out.command_error or "no command"
            return
        index = active.command_index
        if index is None:
            return
        values = out.command[index]
        if not all_finite(values):  # the last check before a robot gets it
            self._command_error = "non-finite effort command withheld"
            active.pipeline.withhold_command(self._command_error)
            return
        self._cmd_msg.data = to_array(values)
        self._pub["command"].publish(self._cmd_msg)
        self._count["commands"] += 1
        self._command_error = ""

    def _publish_joints(self, key, active, stamp, values):
        publisher = self._pub[key]
        if values is None or publisher.get_subscription_count() == 0:
            return
        msg = active.msgs[key]
        msg.header.stamp = stamp
        msg.effort = to_array(values)
        publisher.publish(msg)

    def _publish_contact(self, out, stamp):
        state = out.contact
        msg = ContactState(
            in_contact=bool(state.in_contact),
            link=state.link,
            force=float(state.force) if np.isfinite(state.force) else 0.0,
            moment=float(state.moment) if np.isfinite(state.moment) else 0.0,
            contacts=state.contacts,
        )
        msg.header.stamp = stamp
        msg.header.frame_id = out.wrench_frame
        self._contact = msg
        if state.changed:
            self._pub["contact"].publish(msg)

    def _end_contact(self):
        """Contact detection switched off: one last ~/contact saying no contact when the last
        one said contact, then none (the periodic one stops). The caller holds the lock."""
        last, self._contact = self._contact, None
        if last is not None and last.in_contact:
            end = ContactState(in_contact=False, contacts=last.contacts)
            end.header.stamp = self.get_clock().now().to_msg()
            end.header.frame_id = last.header.frame_id
            self._pub["contact"].publish(end)

    def _republish_contact(self):
        if self._contact is not None:
            self._pub["contact"].publish(self._contact)

    def _missing_joints_hint(self, missing, n_joints):
        """``"; <hint>"`` on how joint_states may name the model's ``missing`` joints (a
        tf_prefix, a misspelling) or on locking them (:func:`missing_joints_hint`), or ''.
        Computed again only when the missing joints or the unknown names seen change."""
        key = (missing, len(self._unknown))
        if self._name_hint[0] != key:
            hint = missing_joints_hint(missing, self._unknown, n_joints)
            self._name_hint = (key, f"; {hint}" if hint else "")
        return self._name_hint[1]

    def _note_unknown(self, unknown):
        new = [name for name in unknown if name not in self._unknown]
        if new and len(self._unknown) < MAX_UNKNOWN_NAMES:
            self._unknown.update(new[: MAX_UNKNOWN_NAMES - len(self._unknown)])
            self._log(
                "unknown_joints",
                5.0,
                "info",
                f"joint_states: ignoring joints the model does not have: {sorted(new)[:10]}",
            )

    def _on_reference(self, msg):
        try:
            self._handle_reference(msg)
        except Exception as error:  # noqa: BLE001 - a message must never stop the hot path
            self._hot_path_error(error)

    def _handle_reference(self, msg):
        active = self._active
        if active is None:
            return
        with self._lock:
            if not msg.points:
                active.pipeline.clear_reference()
                return
            point = msg.points[0]
            try:
                present, _, fields = active.joints.fields(
                    msg.joint_names,
                    (
                        ("positions", point.positions),
                        ("velocities", point.velocities),
                        ("accelerations", point.accelerations),
                    ),
                    "~/reference",
                )
                if fields[0] is None or present is not None:  # None: it names every joint
                    raise ValueError(f"~/reference must give positions of {list(active.names)}")
            except ValueError as error:  # counted with the pipeline's own reference refusals
                active.pipeline.counters["reference_refused"] += 1
                self._log("reference_refused", 5.0, "warning", f"~/reference refused: {error}")
                return
            try:
                active.pipeline.set_reference(self._reference_clock_ns(), *fields)
            except ValueError as error:  # InvalidInputError, counted by the pipeline
                self._log("reference_refused", 5.0, "warning", f"~/reference refused: {error}")

    # ------------------------------------------------------------------ services
    def _with_pipeline(self, call):
        """``call(pipeline)`` under the pipeline lock; None without a model."""
        active = self._active
        if active is None:
            return None
        with self._lock:
            return call(active.pipeline)

    def _measured(self):
        state = self._with_pipeline(lambda pipeline: pipeline.measured_state())
        return (None, None) if state is None else state[:2]

    def _start_tare(self, pipeline):
        # from the next joint_states message on (the stamps' clock, not the node's)
        pipeline.start_tare(self._last_t_ns + 1)
        return pipeline.tare_state()

    def _reset(self, pipeline):
        pipeline.reset_estimation()
        return "observer restarted, tare bias cleared"

    # ------------------------------------------------------------------ diagnostics
    def _state(self):
        """The node's counters and settings for its diagnostics."""
        count, latest, errors = self._count, self._latest, self.callback_errors
        description, values = self._description, self._values
        return NodeState(
            name=self.get_fully_qualified_name(),
            received=count["received"],
            shed=latest.shed,
            shed_at_start=latest.shed_at_start,
            commands=count["commands"],
            command_error=self._command_error,
            effort_command_on=bool(values["publish_effort_command"]),
            payload_mass=float(values["payload.mass"]),
            model_loads=count["model_loads"],
            model_source=description.source,
            model_rejections=description.rejections,
            last_model_error=description.last_error,
            callback_errors=errors.count,
            last_callback_error=errors.last,
            unknown_joints=tuple(sorted(self._unknown)),
            joint_states_publishers=self._joint_states_sub.get_publisher_count(),
            joint_states_topic=self._joint_states_sub.topic_name,
        )

    def _diagnostics(self):
        snapshot = self._with_pipeline(
            lambda pipeline: (
                pipeline.status(),
                self._payload.latest_efforts(EFFORT_CHECK_MESSAGES),
            )
        )
        pipeline_status, efforts = snapshot or ({}, None)
        diagnostics = self._diagnostics_state
        array = diagnostics.array(
            self._state(), self._active, pipeline_status, self.get_clock().now().to_msg(), efforts
        )
        self._pub_diagnostics.publish(array)
        for kind, line in diagnostics.to_log.items():
            level, period = LOGGED[kind]
            self._log((kind, line.subject), period, level, line.text)


def main(args=None):
    """Console script ``dynamics_node``: spins with the executors the ``executor`` parameter names
    (see :mod:`robot_dynamics.ros.executors`).

    Args:
        args: command-line arguments for ``rclpy.init`` (default: ``sys.argv``).

    Returns:
        int: the exit code, 0.
    """

    def executors(node):
        return make_executors(node.get_parameter("executor").value, node, node.io)

    def freeze_heap(node):
        # Everything allocated so far (modules, the model) lives for the whole run: keep it out
        # of the garbage collector's full passes, which would otherwise stall the 1 kHz loop.
        gc.collect()
        gc.freeze()

    return spin_node(
        DynamicsNode, executors, args=args, before_spin=freeze_heap, schema=DYNAMICS_NODE
    )
