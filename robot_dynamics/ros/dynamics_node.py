"""The dynamics node: gravity and feed-forward torques, external wrench estimation, services.

A thin rclpy adapter over the core (:mod:`robot_dynamics.core`): callbacks convert messages to
numpy, call the core, and publish. See the README section "The dynamics node" for the full
interface. Run it with ``ros2 run robot_dynamics dynamics_node`` or, in the wheel environment,
``dynamics_node`` / ``python -m robot_dynamics.ros.dynamics_node``, with the URDF in a parameters
file (``--ros-args --params-file arm.yaml``), from ``launch/dynamics.launch.py``, or on the
``robot_description`` topic (a URDF passed with ``-p robot_description:=...`` is parsed as YAML
by rcl and breaks on most files).

Conventions (as the core): joint vectors in ``model.joint_names`` order inside the node, message
order at the boundary; wrenches ``[fx fy fz tx ty tz]``, moment about the tip-frame origin; the
external wrench is the one the environment applies ON the robot,
``M qdd + C qd + g = tau + J^T f_ext``. ``~/external_torques`` publishes ``tau_ext = J^T f_ext``
(= model torques - measured torques), ``~/external_wrench`` the ``f_ext`` estimated from it.
"""

import functools
import gc
import math
import sys
import threading
import time

import numpy as np

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
from rclpy.node import Node
from rclpy.qos_overriding_options import QoSOverridingOptions
from rclpy.serialization import deserialize_message

from builtin_interfaces.msg import Time

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import WrenchStamped
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from robot_dynamics_interfaces.srv import (
    ComputeInverseDynamics,
    GetMassMatrix,
    SimulateForwardDynamics,
)

from robot_dynamics import MomentumObserver, RobotModel
from robot_dynamics.core.errors import RobotDynamicsError
from robot_dynamics.core.simulate import FIXED_STEP_METHODS, IVP_METHODS

from . import parameters as P
from .executors import DedicatedThreadGroup, HotPathExecutor, SubscriptionThread, spin_node
from .conversions import (
    JointStateError,
    JointStateMerger,
    JointStateWire,
    as_numpy,
    duration_to_seconds,
    matrix_to_multiarray,
    name_index,
    seconds_to_duration,
    to_array,
    vector_in_model_order,
    wrench_from_msg,
    wrench_to_msg,
)
from .filters import FilteredDifferentiator
from .qos import joint_states_qos, robot_description_qos

SIM_TORQUE_MODES = {
    SimulateForwardDynamics.Request.TORQUE_ZERO: "zero",
    SimulateForwardDynamics.Request.TORQUE_CONSTANT: "constant",
    SimulateForwardDynamics.Request.TORQUE_TRAJECTORY: "trajectory",
    SimulateForwardDynamics.Request.TORQUE_GRAVITY_COMPENSATION: "gravity_compensation",
}
SIM_INTEGRATORS = IVP_METHODS + FIXED_STEP_METHODS

# Parameters that change the model (rebuild), and those that need the URDF parsed again.
PARSE_PARAMS = ("robot_description", "base_link", "tip_link", "gravity")
DERIVE_PARAMS = ("payload.mass", "payload.com", "payload.inertia", "payload.frame", "armature")


def _param_specs():
    fv = P.finite_vector
    fn = P.finite_number
    return [
        P.Param(
            "robot_description",
            "",
            "URDF of the robot (XML text). Empty: use the "
            "robot_description topic (std_msgs/String, transient local). A new value "
            "rebuilds the model; an invalid one is refused and the old model kept.",
            P.STRING,
        ),
        P.Param("base_link", "", "Root link of the model; empty = the URDF root.", P.STRING),
        P.Param(
            "tip_link",
            "",
            "Tip link: the frame of the external wrench, the Jacobian and "
            "the default payload frame; empty = the single leaf of a chain.",
            P.STRING,
        ),
        P.Param(
            "gravity",
            [0.0, 0.0, -9.81],
            "Gravity vector in the base frame [m/s^2], 3 values.",
            P.DOUBLE_ARRAY,
            fv(3),
        ),
        P.Param(
            "payload.mass",
            0.0,
            "Mass of a rigid payload on payload.frame [kg], >= 0; "
            "0 = no payload. Takes effect on the next joint_states message.",
            P.DOUBLE,
            fn(0.0),
            float_range=(0.0, 1.0e4),
        ),
        P.Param(
            "payload.com",
            [0.0, 0.0, 0.0],
            "Payload centre of mass in payload.frame [m], 3 values.",
            P.DOUBLE_ARRAY,
            fv(3),
        ),
        P.Param(
            "payload.inertia",
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            "Payload rotational inertia "
            "about its centre of mass, payload.frame axes [kg m^2]: ixx ixy ixz iyy iyz izz "
            "(6 values; zeros = point mass).",
            P.DOUBLE_ARRAY,
            fv(6),
        ),
        P.Param("payload.frame", "", "Link carrying the payload; empty = tip_link.", P.STRING),
        P.Param(
            "armature",
            [],
            "Rotor inertia reflected at each joint (G^2 I_rotor), one value "
            "per joint in model order [kg m^2 or kg]; empty = none.",
            P.DOUBLE_ARRAY,
            fv(None, nonnegative=True),
        ),
        P.Param(
            "friction_compensation",
            False,
            "Add the URDF joint friction (damping qd + "
            "friction sign(qd)) to the feed-forward torques and remove it from the measured "
            "torques before estimating the external wrench.",
            P.BOOL,
        ),
        P.Param(
            "wrench_estimation",
            "momentum_observer",
            "External wrench estimator: "
            '"momentum_observer" (generalised momentum observer, no acceleration needed) or '
            '"static" (tau_ext = M qdd + C qd + g - tau_measured with qdd per '
            "static_acceleration).",
            P.STRING,
            P.one_of("momentum_observer", "static"),
        ),
        P.Param(
            "observer_gain",
            50.0,
            "Momentum observer gain K_O [1/s], > 0: the estimate "
            "follows the true external torque with time constant 1/K_O.",
            P.DOUBLE,
            fn(0.0, strict_minimum=True),
            float_range=(0.0, 1.0e5),
        ),
        P.Param(
            "static_acceleration",
            "zero",
            "Joint acceleration used by the static "
            'estimator: "zero" (quasi-static) or "differentiated" (measured velocity '
            "differentiated and low-pass filtered).",
            P.STRING,
            P.one_of("zero", "differentiated"),
        ),
        P.Param(
            "acceleration_filter_time_constant",
            0.01,
            "Time constant of the low-pass filter on the differentiated velocity [s], >= 0.",
            P.DOUBLE,
            fn(0.0),
        ),
        P.Param(
            "observer_max_dt",
            0.5,
            "A gap between joint_states stamps longer than this "
            "(or a stamp going backwards) resets the observer and filter [s], > 0.",
            P.DOUBLE,
            fn(0.0, strict_minimum=True),
        ),
        P.Param(
            "wrench_frame",
            "base",
            'Axes of ~/external_wrench: "base" (frame_id = '
            'base_link) or "tip" (frame_id = tip_link). The moment is always about the '
            "tip-frame origin.",
            P.STRING,
            P.one_of("base", "tip"),
        ),
        P.Param(
            "wrench_damping",
            0.05,
            "Largest damping of the pseudo-inverse of J^T, "
            "applied only to singular values below singular_threshold (keeps the estimate "
            "bounded near singularities), >= 0.",
            P.DOUBLE,
            fn(0.0),
        ),
        P.Param(
            "singular_threshold",
            0.01,
            "Singular values of the tip Jacobian below this "
            "are damped; the estimate then counts as near a singularity (warning in the "
            "log and on /diagnostics), >= 0.",
            P.DOUBLE,
            fn(0.0),
        ),
        P.Param(
            "reference_timeout",
            0.5,
            "A ~/reference older than this is ignored and the "
            "feed-forward uses the measured state [s]; 0 = never expires.",
            P.DOUBLE,
            fn(0.0),
        ),
        P.Param(
            "publish_effort_command",
            False,
            "Publish ~/effort_command (it moves a real "
            "robot when remapped onto a JointGroupEffortController).",
            P.BOOL,
        ),
        P.Param(
            "effort_command_source",
            "gravity",
            'What ~/effort_command carries: "gravity" or "feedforward".',
            P.STRING,
            P.one_of("gravity", "feedforward"),
        ),
        P.Param(
            "command_joints",
            [],
            "Joint order of ~/effort_command (the controller's "
            '"joints" list); empty = model order.',
            P.STRING_ARRAY,
            P.unique_strings,
        ),
        P.Param(
            "clamp_effort_command",
            True,
            "Clamp ~/effort_command to the URDF effort limits.",
            P.BOOL,
        ),
        P.Param(
            "diagnostics_period",
            1.0,
            "Period of the /diagnostics status [s], > 0 (read at start-up).",
            P.DOUBLE,
            fn(0.0, strict_minimum=True),
            read_only=True,
        ),
        P.Param(
            "max_simulation_duration",
            60.0,
            "Longest simulated time ~/simulate accepts [s], > 0.",
            P.DOUBLE,
            fn(0.0, strict_minimum=True),
        ),
        P.Param(
            "max_simulation_samples",
            100000,
            "Most output samples ~/simulate returns, > 0.",
            P.INTEGER,
            P.positive_int,
        ),
        P.Param(
            "simulation_sample_period",
            0.01,
            "Output sample period of ~/simulate when the request gives 0 [s], > 0.",
            P.DOUBLE,
            fn(0.0, strict_minimum=True),
        ),
    ]


def _inertia_matrix(six):
    """ixx ixy ixz iyy iyz izz -> symmetric (3, 3)."""
    ixx, ixy, ixz, iyy, iyz, izz = six
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])


class _Active:
    """Everything that belongs to one loaded model; swapped as a whole (one reference)."""

    def __init__(self, parsed, model, urdf, values, previous=None):
        self.parsed = parsed  # model as parsed (base/tip/gravity applied)
        self.model = model  # + armature + payload
        self.urdf = urdf
        self.names = tuple(model.joint_names)
        self.n = model.n
        self.has_tip = model.tip_link is not None
        self.merger = JointStateMerger(self.names)
        self.wire = JointStateWire(self.names)  # fast reads of a repeating layout
        if previous is not None:  # keep the measured state of joints that still exist
            self.merger.carry_over(previous.merger)
        self.observer = MomentumObserver(model, gain=values["observer_gain"])
        self.observer_primed = False
        self.differentiator = FilteredDifferentiator(
            self.n, values["acceleration_filter_time_constant"]
        )
        self.last_stamp = None
        self.effort_upper = np.asarray(model.effort_limits, dtype=float)
        self.effort_lower = -self.effort_upper
        self.zero_velocity = np.zeros(self.n)


def _model_service(echo=None):
    """Decorate a service callback ``(self, active, request, response)``: answer "no robot
    model loaded" without a model, and turn a RobotDynamicsError/ValueError into a failed
    response (logged). ``echo(request, response)`` fills the response first in every case."""

    def decorate(method):
        @functools.wraps(method)
        def handler(self, request, response):
            if echo is not None:
                echo(request, response)
            active = self._active
            if active is None:
                response.success = False
                response.message = "no robot model loaded"
                return response
            try:
                return method(self, active, request, response)
            except (RobotDynamicsError, ValueError) as error:
                response.success = False
                response.message = f"{type(error).__name__}: {error}"
                self.get_logger().warn(response.message)
                return response

        return handler

    return decorate


class DynamicsNode(Node):
    """ROS 2 adapter of the dynamics core; see the module docstring and the README."""

    def __init__(self, node_name="dynamics_node", **kwargs):
        super().__init__(node_name, **kwargs)
        specs = _param_specs()
        self._specs = {p.name: p for p in specs}
        self._values = P.declare(self, specs)
        self._active = None
        self._state_lock = threading.Lock()  # the merged joint state (read by services)
        # The joint_states thread and the executor's parameter / robot_description callbacks
        # change or read the active model and the parameter values: one at a time.
        self._hot_lock = threading.Lock()
        self._last_error = ""
        self._model_source = ""
        self._model_loads = 0
        self._model_rejections = 0
        # counters (written by the joint_states callback, read by diagnostics)
        self._received = 0
        self._processed = 0
        self._rejected = 0
        self._last_rejection = ""
        self._singular_warnings = 0
        self._near_singular = False
        self._min_singular_value = math.nan
        self._reference = None  # (q, qd, qdd, receive time [s]) in model order
        self._reference_ff = None  # (reference, model, friction, its feed-forward torques)
        self._reference_rejected = 0
        self._rate_window = (time.monotonic(), 0)
        self._command_index = None
        self._command_limits = None  # (lower, upper) effort limits of command_joints
        self._command_error = ""
        self._reported_unknown = set()

        # Group for the hot path and parameter changes (the node's default group is mutually
        # exclusive: the parameter services run in it, so a parameter change never races with
        # a joint_states message). Services have groups of their own.
        self._sim_group = MutuallyExclusiveCallbackGroup()
        self._query_group = MutuallyExclusiveCallbackGroup()
        self._diag_group = MutuallyExclusiveCallbackGroup()

        # Outputs (reused messages: publish() serialises synchronously). Every QoS event
        # handler is an entity rclpy's executor scans on every wake-up, at 1 kHz: the outputs
        # go without the default incompatible-QoS handlers (a subscriber with incompatible QoS
        # still gets the warning from its own side).
        quiet = PublisherEventCallbacks(use_default_callbacks=False)

        def output(msg_type, topic):
            return self.create_publisher(msg_type, topic, 10, event_callbacks=quiet)

        self._pub_gravity = output(JointState, "~/gravity_torques")
        self._pub_ff = output(JointState, "~/feedforward_torques")
        self._pub_ext = output(JointState, "~/external_torques")
        self._pub_wrench = output(WrenchStamped, "~/external_wrench")
        self._pub_cmd = output(Float64MultiArray, "~/effort_command")
        self._pub_diag = output(DiagnosticArray, "/diagnostics")
        self._msg_gravity = JointState()
        self._msg_ff = JointState()
        self._msg_ext = JointState()
        self._msg_wrench = WrenchStamped()
        self._msg_cmd = Float64MultiArray()

        # Initial model from the parameter (the topic is always subscribed; its messages are
        # used while the robot_description parameter is empty).
        if self._values["robot_description"]:
            try:
                self._install(self._build(self._values), "parameter robot_description")
            except (RobotDynamicsError, ValueError) as error:
                self._model_rejected("parameter robot_description", error)
        self.add_on_set_parameters_callback(self._on_set_parameters)

        self.create_subscription(
            String, "robot_description", self._on_description, robot_description_qos()
        )
        # Best effort matches every publisher's reliability, so no QoS event handler needed.
        # joint_states is served by a thread of its own (SubscriptionThread: a wait set on this
        # one subscription instead of the executor's wait set over every entity of the node),
        # and taken serialized: JointStateWire reads a driver's repeating layout without
        # building the message (anything else is deserialized, see _handle_joint_states).
        self._joint_states_sub = self.create_subscription(
            JointState,
            "joint_states",
            self._on_joint_states,
            joint_states_qos(),
            raw=True,
            qos_overriding_options=QoSOverridingOptions.with_default_policies(),
            event_callbacks=SubscriptionEventCallbacks(use_default_callbacks=False),
            callback_group=DedicatedThreadGroup(),
        )
        self.create_subscription(
            JointTrajectory,
            "~/reference",
            self._on_reference,
            10,
            event_callbacks=SubscriptionEventCallbacks(use_default_callbacks=False),
        )

        self.create_service(
            GetMassMatrix,
            "~/get_mass_matrix",
            self._srv_mass_matrix,
            callback_group=self._query_group,
        )
        self.create_service(
            ComputeInverseDynamics,
            "~/compute_inverse_dynamics",
            self._srv_inverse_dynamics,
            callback_group=self._query_group,
        )
        self.create_service(
            SimulateForwardDynamics,
            "~/simulate",
            self._srv_simulate,
            callback_group=self._sim_group,
        )
        self.create_timer(
            self._values["diagnostics_period"],
            self._publish_diagnostics,
            callback_group=self._diag_group,
        )
        if self._active is None and not self._values["robot_description"]:
            self.get_logger().info(
                "waiting for a URDF on the robot_description topic "
                "(or set the robot_description parameter)"
            )
        self._joint_states_thread = SubscriptionThread(
            self._joint_states_sub, on_error=self._on_hot_path_error, name="joint_states"
        )
        self._joint_states_thread.start(self.context)

    def destroy_node(self):
        self._joint_states_thread.stop()
        return super().destroy_node()

    # ------------------------------------------------------------------ model management
    def _build(self, values, parsed=None, urdf=None):
        """Build (parsed, model, urdf) from parameter values; raises on any problem."""
        if parsed is None:
            urdf = values["robot_description"] if urdf is None else urdf
            if not urdf or not urdf.strip():
                raise ValueError("the robot description is empty")
            parsed = RobotModel.from_urdf(
                urdf,
                base_link=values["base_link"] or None,
                tip_link=values["tip_link"] or None,
                gravity=tuple(float(v) for v in values["gravity"]),
            )
        model = parsed
        armature = list(values["armature"])
        if armature:
            if len(armature) != parsed.n:
                raise ValueError(
                    f"armature has {len(armature)} values, the model has "
                    f"{parsed.n} joints {list(parsed.joint_names)}"
                )
            model = model.with_armature(np.array(armature, dtype=float))
        mass = float(values["payload.mass"])
        if mass > 0.0:
            frame = values["payload.frame"] or None
            if frame is None and parsed.tip_link is None:
                raise ValueError(
                    "payload.frame is empty and the model has no tip_link "
                    f"(leaves: {list(parsed.leaf_links)})"
                )
            model = model.with_payload(
                mass,
                np.array(values["payload.com"], dtype=float),
                inertia=_inertia_matrix(values["payload.inertia"]),
                frame=frame,
            )
        return parsed, model, urdf

    @staticmethod
    def _command_indices(joint_names, command_joints):
        """Model indices of command_joints (model order when empty); raises naming joints."""
        joint_names = list(joint_names)
        if not command_joints:
            return np.arange(len(joint_names))
        unknown = [name for name in command_joints if name not in joint_names]
        if unknown:
            raise ValueError(f"command_joints {unknown} are not joints of the model {joint_names}")
        return np.array([joint_names.index(name) for name in command_joints], dtype=np.intp)

    def _install(self, built, source, values=None):
        values = self._values if values is None else values
        parsed, model, urdf = built
        active = _Active(parsed, model, urdf, values, previous=self._active)
        for msg in (self._msg_gravity, self._msg_ff, self._msg_ext):
            msg.name = list(active.names)
            msg.position = to_array(np.zeros(0))
            msg.velocity = to_array(np.zeros(0))
        self._msg_wrench.header.frame_id = self._wrench_frame_id(active, values)
        try:
            self._command_index = self._command_indices(active.names, values["command_joints"])
            self._command_error = ""
        except ValueError as error:
            self._command_index = None
            self._command_error = str(error)
            self.get_logger().error(f"~/effort_command disabled: {error}")
        self._set_command_limits(active)
        previous = self._active
        with self._state_lock:
            self._active = active
        if previous is None or previous.names != active.names:
            self._reference = None  # joint vectors of another order/size
        self._reported_unknown = set()
        self._model_source = source
        self._model_loads += 1
        self.get_logger().info(
            f"model loaded from {source}: {active.n} joints {list(active.names)}, base "
            f"{model.base_link!r}, tip {model.tip_link!r}, payload "
            f"{float(values['payload.mass'])} kg"
        )

    def _set_command_limits(self, active):
        """Effort limits of command_joints, for clamping the effort command. The command is a
        plain vector in command_joints order (empty layout, as ros2_control's
        JointGroupEffortController expects and as ``ros2 topic pub`` sends)."""
        if self._command_index is None:
            return
        self._command_limits = (
            active.effort_lower[self._command_index],
            active.effort_upper[self._command_index],
        )

    @staticmethod
    def _wrench_frame_id(active, values):
        if values["wrench_frame"] == "tip":
            return active.model.tip_link or ""
        return active.model.base_link

    def _model_rejected(self, source, error):
        self._model_rejections += 1
        self._last_error = f"{source} rejected: {type(error).__name__}: {error}"
        keep = "keeping the previous model" if self._active is not None else "no model loaded"
        self.get_logger().error(f"{self._last_error} ({keep})")

    def _on_description(self, msg):
        with self._hot_lock:
            self._handle_description(msg)

    def _handle_description(self, msg):
        if self._values["robot_description"]:
            self.get_logger().info(
                "robot_description topic ignored: the robot_description parameter is set"
            )
            return
        if self._active is not None and msg.data == self._active.urdf:
            return
        try:
            self._install(self._build(self._values, urdf=msg.data), "topic robot_description")
        except (RobotDynamicsError, ValueError) as error:
            self._model_rejected("topic robot_description", error)

    def _on_set_parameters(self, parameters):
        with self._hot_lock:
            return self._apply_parameters(parameters)

    def _apply_parameters(self, parameters):
        result = P.validate(self._specs, parameters)
        if not result.successful:
            self.get_logger().warn(f"parameter change refused: {result.reason}")
            return result
        new_values = dict(self._values)
        changed = set()
        for parameter in parameters:
            if parameter.name in self._specs:
                new_values[parameter.name] = parameter.value
                changed.add(parameter.name)
        if not changed:
            return result
        active = self._active
        try:
            built = None
            if changed & set(PARSE_PARAMS):
                if new_values["robot_description"] or active is not None:
                    urdf = new_values["robot_description"] or active.urdf
                    built = self._build(new_values, urdf=urdf)
            elif changed & set(DERIVE_PARAMS) and active is not None:
                built = self._build(new_values, parsed=active.parsed, urdf=active.urdf)
            if built is None and active is not None and "command_joints" in changed:
                self._command_indices(active.names, new_values["command_joints"])
            if built is not None and new_values["command_joints"]:
                self._command_indices(built[1].joint_names, new_values["command_joints"])
        except (RobotDynamicsError, ValueError) as error:
            if "robot_description" in changed:
                self._model_rejected("parameter robot_description", error)
            reason = f"{type(error).__name__}: {error}"
            self.get_logger().warn(f"parameter change refused: {reason}")
            return type(result)(successful=False, reason=reason)
        # Accepted: apply.
        self._values = new_values
        if built is not None:
            source = (
                "parameter robot_description"
                if "robot_description" in changed
                else f"parameters {sorted(changed)}"
            )
            self._install(built, source, new_values)
        elif active is not None:
            if changed & {"observer_gain", "acceleration_filter_time_constant"}:
                active.observer = MomentumObserver(active.model, gain=new_values["observer_gain"])
                active.observer_primed = False
                active.differentiator = FilteredDifferentiator(
                    active.n, new_values["acceleration_filter_time_constant"]
                )
            if changed & {"wrench_estimation", "static_acceleration"}:
                active.observer_primed = False
                active.differentiator.reset()
            if "wrench_frame" in changed:
                self._msg_wrench.header.frame_id = self._wrench_frame_id(active, new_values)
            if "command_joints" in changed:
                self._command_index = self._command_indices(
                    active.names, new_values["command_joints"]
                )
                self._command_error = ""
                self._set_command_limits(active)
        if "robot_description" in changed and not new_values["robot_description"]:
            self.get_logger().info(
                "robot_description parameter cleared: the topic is used for new descriptions"
            )
        return result

    # ------------------------------------------------------------------ hot path
    def _reject(self, reason):
        self._rejected += 1
        self._last_rejection = reason
        self.get_logger().warn(
            f"joint_states message rejected: {reason} ({self._rejected} rejected so far)",
            throttle_duration_sec=5.0,
        )

    def _on_joint_states(self, raw):
        with self._hot_lock:
            self._handle_joint_states(raw)

    def _on_hot_path_error(self, error):
        # Not one of the errors the handler turns into a rejection: a bug, but one message
        # must not stop the node. Logged with its type, counted, and the thread goes on.
        self._reject(f"unexpected {type(error).__name__}: {error}")

    def _handle_joint_states(self, raw):
        """One serialized sensor_msgs/JointState."""
        active = self._active
        self._received += 1
        if active is None:
            return
        merger = active.merger
        unknown = ()
        fast = active.wire.read(raw)  # (sec, nanosec, (3, n) values) or None
        if fast is not None:
            with self._state_lock:
                merged = merger.merge_values(fast[2])
            if merged:
                sec, nanosec = fast[0], fast[1]
        if fast is None or not merged:
            # Any other layout (partial, reordered, unknown joints, first message) or a
            # non-finite value: the message itself, merged by name, errors naming the culprit.
            try:
                msg = deserialize_message(raw, JointState)
            except Exception as error:  # noqa: BLE001 - rclpy raises several types here
                self._reject(f"joint_states message that cannot be deserialized: {error}")
                return
            try:
                with self._state_lock:
                    unknown = merger.merge(msg)
            except JointStateError as error:
                self._reject(str(error))
                return
            active.wire.learn(raw, msg)
            sec, nanosec = msg.header.stamp.sec, msg.header.stamp.nanosec
        if unknown:
            new = set(unknown) - self._reported_unknown
            if new:
                self._reported_unknown |= new
                self.get_logger().info(
                    f"joint_states: ignoring joints the model does not have: {sorted(new)}"
                )
        if not merger.complete_position:
            self.get_logger().warn(
                f"waiting for positions of joints {merger.missing('position')}",
                throttle_duration_sec=5.0,
            )
            return
        values = self._values
        model = active.model
        if sec == 0 and nanosec == 0:
            sec, nanosec = self.get_clock().now().seconds_nanoseconds()
        t = sec + nanosec * 1e-9
        q = merger.position
        have_velocity = merger.complete_velocity
        qd = merger.velocity  # zeros for joints never measured; only used when complete
        static = values["wrench_estimation"] == "static"
        estimate = merger.complete_effort and have_velocity and active.has_tip

        reference = self._reference
        if (
            reference is not None
            and values["reference_timeout"] > 0.0
            and (time.monotonic() - reference[3] > values["reference_timeout"])
        ):
            reference = None
        dt = None
        if active.last_stamp is not None:
            dt = t - active.last_stamp
            if not 0.0 < dt <= values["observer_max_dt"]:
                dt = None
        active.last_stamp = t
        axes = "local" if values["wrench_frame"] == "tip" else "base"
        friction = values["friction_compensation"]
        try:
            # One kinematics pass at the measured state; each term is computed when first
            # read: gravity, C qd + g (the feed-forward without a reference, and the static
            # estimator's model torque at zero acceleration), the observer's momentum terms
            # and the tip Jacobian. The command path comes first (the effort command, what
            # moves the robot, with only the term it needs), then the feed-forward and gravity
            # torques, then the estimation.
            terms = model.state_terms(
                q, qd if have_velocity else active.zero_velocity, axes=axes, jacobian=estimate
            )
            have_ff = reference is not None or have_velocity
            ff = measured_friction = None
            if values["publish_effort_command"] and self._command_index is not None:
                if values["effort_command_source"] == "gravity":
                    source = terms.gravity
                else:
                    if have_ff:
                        ff, measured_friction = self._feedforward(
                            model, terms, reference, qd, friction
                        )
                    source = ff
                if source is not None:
                    command = source[self._command_index]  # a copy
                    if values["clamp_effort_command"]:
                        lower, upper = self._command_limits
                        np.minimum(np.maximum(command, lower, out=command), upper, out=command)
                    self._msg_cmd.data = to_array(command)
                    self._pub_cmd.publish(self._msg_cmd)
            stamp = Time(sec=sec, nanosec=nanosec)  # of the outputs
            if have_ff:
                if ff is None:
                    ff, measured_friction = self._feedforward(model, terms, reference, qd, friction)
                self._publish_joint_values(self._msg_ff, self._pub_ff, stamp, ff)
            self._publish_joint_values(self._msg_gravity, self._pub_gravity, stamp, terms.gravity)
            if estimate:
                tau_measured = merger.effort
                if friction:
                    if measured_friction is None:
                        measured_friction = model.friction_torques(qd)
                    tau_measured = tau_measured - measured_friction
                if static:
                    if values["static_acceleration"] == "differentiated":
                        qdd = active.differentiator.update(qd, dt if dt is not None else 0.0)
                        tau_model = model.inverse_dynamics(q, qd, qdd)
                    else:
                        tau_model = terms.nonlinear_effects
                    tau_ext = tau_model - tau_measured
                elif not active.observer_primed or dt is None:
                    active.observer.reset(q, qd)
                    active.observer_primed = True
                    tau_ext = None
                else:
                    tau_ext = active.observer.update(q, qd, tau_measured, dt, terms=terms)
                if tau_ext is not None:
                    self._publish_joint_values(self._msg_ext, self._pub_ext, stamp, tau_ext)
                    est = model.estimate_external_wrench(
                        q,
                        tau_ext,
                        axes=axes,
                        damping=values["wrench_damping"],
                        singular_threshold=values["singular_threshold"],
                        jacobian=terms.jacobian,
                    )
                    smin = float(est.min_singular_value)
                    self._min_singular_value = smin
                    near = bool(est.near_singular)
                    if near:
                        self._singular_warnings += 1
                        if not self._near_singular:
                            self.get_logger().warn(
                                f"near a singularity: smallest singular value of the tip "
                                f"Jacobian {smin:.3g}; the wrench estimate is damped"
                            )
                    self._near_singular = near
                    if self._pub_wrench.get_subscription_count():
                        wmsg = self._msg_wrench
                        wmsg.header.stamp = stamp
                        wrench_to_msg(est.wrench, wmsg.wrench)
                        self._pub_wrench.publish(wmsg)
        except (RobotDynamicsError, ValueError, FloatingPointError) as error:
            self._reject(f"{type(error).__name__}: {error}")
            return
        self._processed += 1

    def _feedforward(self, model, terms, reference, qd, friction):
        """M qdd_d + C qd_d + g at the reference (q, qd, qdd), or C qd + g at the measured
        state (terms) without one; + the URDF friction at that velocity when ``friction``.
        The reference's torques are computed once per reference message (and model).
        Returns ``(ff, friction at the measured qd when it was added, else None)``."""
        if reference is not None:
            cached = self._reference_ff
            if (
                cached is not None
                and cached[0] is reference
                and cached[1] is model
                and cached[2] == friction
            ):
                return cached[3], None
            ff = model.inverse_dynamics(reference[0], reference[1], reference[2])
            if friction:
                ff = ff + model.friction_torques(reference[1])
            self._reference_ff = (reference, model, friction, ff)
            return ff, None
        if not friction:
            return terms.nonlinear_effects, None
        measured_friction = model.friction_torques(qd)
        return terms.nonlinear_effects + measured_friction, measured_friction

    @staticmethod
    def _publish_joint_values(msg, publisher, stamp, values):
        if publisher.get_subscription_count() == 0:
            return  # nobody listens: skip the serialisation
        msg.header.stamp = stamp
        msg.effort = to_array(values)
        publisher.publish(msg)

    def _on_reference(self, msg):
        active = self._active
        if active is None:
            return
        if not msg.points:
            self._reference = None
            return
        point = msg.points[0]
        try:
            q = vector_in_model_order(
                msg.joint_names,
                point.positions,
                active.merger.joint_index,
                active.n,
                "~/reference",
                "positions",
            )
            zeros = np.zeros(active.n)
            qd = (
                vector_in_model_order(
                    msg.joint_names,
                    point.velocities,
                    active.merger.joint_index,
                    active.n,
                    "~/reference",
                    "velocities",
                    default=zeros,
                )
                if len(point.velocities)
                else zeros
            )
            qdd = (
                vector_in_model_order(
                    msg.joint_names,
                    point.accelerations,
                    active.merger.joint_index,
                    active.n,
                    "~/reference",
                    "accelerations",
                    default=zeros,
                )
                if len(point.accelerations)
                else zeros
            )
        except JointStateError as error:
            self._reference_rejected += 1
            self.get_logger().warn(f"reference rejected: {error}", throttle_duration_sec=5.0)
            return
        self._reference = (q, qd, qdd, time.monotonic())

    # ------------------------------------------------------------------ diagnostics
    def _publish_diagnostics(self):
        now = time.monotonic()
        start, processed_then = self._rate_window
        processed = self._processed
        rate = (processed - processed_then) / max(now - start, 1e-9)
        rejected_before = getattr(self, "_rejected_at_last_diag", 0)
        self._rejected_at_last_diag = self._rejected
        self._rate_window = (now, processed)
        active = self._active
        status = DiagnosticStatus()
        status.name = f"{self.get_fully_qualified_name()}: dynamics"
        status.hardware_id = active.model.base_link if active is not None else ""
        problems = []
        level = DiagnosticStatus.OK
        if not self._joint_states_thread.alive:
            level = DiagnosticStatus.ERROR
            problems.append("the joint_states thread has stopped")
        if active is None:
            level = DiagnosticStatus.ERROR
            problems.append("no robot model loaded")
        else:
            if not active.merger.complete_position:
                level = max(level, DiagnosticStatus.WARN)
                problems.append(f"no position yet for {active.merger.missing('position')}")
            if self._rejected > rejected_before:
                level = max(level, DiagnosticStatus.WARN)
                problems.append(
                    f"{self._rejected - rejected_before} joint_states messages rejected"
                )
            if self._near_singular:
                level = max(level, DiagnosticStatus.WARN)
                problems.append("near a singularity")
            if self._command_error and self._values["publish_effort_command"]:
                level = max(level, DiagnosticStatus.WARN)
                problems.append("effort command disabled")
        status.level = level
        status.message = "; ".join(problems) if problems else "ok"
        kv = [
            ("model_loaded", str(active is not None).lower()),
            ("model_source", self._model_source),
            ("joints", " ".join(active.names) if active is not None else ""),
            ("base_link", active.model.base_link if active is not None else ""),
            ("tip_link", (active.model.tip_link or "") if active is not None else ""),
            ("model_loads", str(self._model_loads)),
            ("model_rejections", str(self._model_rejections)),
            ("last_error", self._last_error),
            ("message_rate_hz", f"{rate:.1f}"),
            ("joint_states_thread", "running" if self._joint_states_thread.alive else "stopped"),
            ("messages_received", str(self._received)),
            ("messages_processed", str(processed)),
            ("rejected_messages", str(self._rejected)),
            ("last_rejection", self._last_rejection),
            ("reference_rejected", str(self._reference_rejected)),
            ("wrench_estimation", self._values["wrench_estimation"]),
            ("min_singular_value", f"{self._min_singular_value:.6g}"),
            ("near_singular", str(self._near_singular).lower()),
            ("singularity_warnings", str(self._singular_warnings)),
            ("payload_mass", str(float(self._values["payload.mass"]))),
            ("effort_command", "on" if self._values["publish_effort_command"] else "off"),
        ]
        status.values = [KeyValue(key=k, value=v) for k, v in kv]
        array_msg = DiagnosticArray()
        array_msg.header.stamp = self.get_clock().now().to_msg()
        array_msg.status = [status]
        self._pub_diag.publish(array_msg)

    # ------------------------------------------------------------------ services
    def _request_state(self, active, joint_state, context):
        """(q, qd) in model order: latest measured state overridden by ``joint_state``."""
        with self._state_lock:
            q0, qd0, _ = active.merger.snapshot()
        if not joint_state.name:
            missing = active.merger.missing("position")
            if missing:
                raise JointStateError(
                    f"{context}: no joint state given and no position measured yet for {missing}"
                )
            return q0, qd0
        idx = active.merger.joint_index
        if len(joint_state.position) == 0:
            raise JointStateError(f"{context}: joint_state has names but no positions")
        q = vector_in_model_order(
            joint_state.name, joint_state.position, idx, active.n, context, "position", default=q0
        )
        qd = (
            vector_in_model_order(
                joint_state.name,
                joint_state.velocity,
                idx,
                active.n,
                context,
                "velocity",
                default=np.zeros(active.n),
            )
            if len(joint_state.velocity)
            else np.zeros(active.n)
        )
        return q, qd

    @_model_service()
    def _srv_mass_matrix(self, active, request, response):
        model = active.model
        q, qd = self._request_state(active, request.joint_state, "get_mass_matrix")
        terms = model.state_terms(q, qd, jacobian=active.has_tip)  # g, C qd + g, J: one pass
        response.joint_names = list(active.names)
        response.mass_matrix = matrix_to_multiarray(model.mass_matrix(q), "rows", "cols")
        response.gravity_torques = to_array(terms.gravity)
        response.coriolis_torques = to_array(terms.nonlinear_effects - terms.gravity)
        if active.has_tip:
            response.jacobian = matrix_to_multiarray(terms.jacobian, "rows", "cols")
            response.jacobian_frame = model.tip_link
            response.jacobian_base_frame = model.base_link
        response.success = True
        response.message = "ok"
        return response

    @_model_service(
        echo=lambda request, response: setattr(response, "trajectory", request.trajectory)
    )
    def _srv_inverse_dynamics(self, active, request, response):
        traj = request.trajectory
        if not traj.points:
            raise JointStateError("compute_inverse_dynamics: the trajectory has no points")
        msg_idx, model_idx, unknown = name_index(
            traj.joint_names, active.merger.joint_index, "compute_inverse_dynamics"
        )
        if len(model_idx) != active.n:
            missing = [name for name in active.names if name not in traj.joint_names]
            raise JointStateError(
                f"compute_inverse_dynamics: trajectory.joint_names lacks model joints {missing}"
            )
        k, m = len(traj.points), len(traj.joint_names)
        Q = np.zeros((k, active.n))
        QD = np.zeros((k, active.n))
        QDD = np.zeros((k, active.n))
        for i, point in enumerate(traj.points):
            for field, target, required in (
                ("positions", Q, True),
                ("velocities", QD, False),
                ("accelerations", QDD, False),
            ):
                values = as_numpy(getattr(point, field))
                if len(values) == 0 and not required:
                    continue
                if len(values) != m:
                    raise JointStateError(
                        f"compute_inverse_dynamics: point {i} has {len(values)} {field} "
                        f"for {m} joint names"
                    )
                sub = values[msg_idx]
                if not np.isfinite(sub).all():
                    bad = int(msg_idx[np.argmax(~np.isfinite(sub))])
                    raise JointStateError(
                        f"compute_inverse_dynamics: point {i} {field} of joint "
                        f"{traj.joint_names[bad]!r} is not finite"
                    )
                target[i, model_idx] = sub
        tau = active.model.inverse_dynamics(Q, QD, QDD)  # (k, n), one batched call
        if request.include_friction:
            tau = tau + active.model.friction_torques(QD)
        out = np.zeros((k, m))
        out[:, msg_idx] = tau[:, model_idx]
        for i, point in enumerate(traj.points):
            point.effort = to_array(out[i])
        response.trajectory = traj
        response.success = True
        response.message = (
            "ok" if not unknown else (f"ok; joints not in the model got effort 0: {unknown}")
        )
        return response

    @_model_service()
    def _srv_simulate(self, active, request, response):
        model = active.model
        values = self._values
        q0, qd0 = self._request_state(active, request.initial_state, "simulate")
        duration = float(request.duration)
        max_duration = values["max_simulation_duration"]
        if not (math.isfinite(duration) and duration > 0.0):
            raise ValueError(f"simulate: duration must be > 0 s, got {duration}")
        if duration > max_duration:
            raise ValueError(
                f"simulate: duration {duration} s exceeds max_simulation_duration {max_duration} s"
            )
        sample = float(request.sample_period) or values["simulation_sample_period"]
        if not (math.isfinite(sample) and sample > 0.0):
            raise ValueError(f"simulate: sample_period must be >= 0 s, got {request.sample_period}")
        samples = int(math.floor(duration / sample + 1e-9)) + 1
        if samples > values["max_simulation_samples"]:
            raise ValueError(
                f"simulate: {samples} samples (duration {duration} s / "
                f"sample_period {sample} s) exceed max_simulation_samples "
                f"{values['max_simulation_samples']}"
            )
        mode = SIM_TORQUE_MODES.get(request.torque_mode)
        if mode is None:
            raise ValueError(f"simulate: unknown torque_mode {request.torque_mode}")
        idx = active.merger.joint_index
        if mode == "zero":
            tau = None
        elif mode == "constant":
            names = list(request.torque_joint_names) or list(active.names)
            tau = vector_in_model_order(
                names, request.constant_torque, idx, active.n, "simulate", "constant_torque"
            )
        elif mode == "trajectory":
            tt = request.torque_trajectory
            if not tt.points:
                raise ValueError("simulate: torque_trajectory has no points")
            times = np.array([duration_to_seconds(p.time_from_start) for p in tt.points])
            if np.any(np.diff(times) <= 0.0):
                raise ValueError("simulate: torque_trajectory times must increase")
            efforts = np.array(
                [
                    vector_in_model_order(
                        tt.joint_names,
                        p.effort,
                        idx,
                        active.n,
                        "simulate",
                        f"torque_trajectory point {i} effort",
                    )
                    for i, p in enumerate(tt.points)
                ]
            )
            tau = (times, efforts)
        else:
            tau = _GravityCompensation(model)
        method = request.integrator or "RK45"
        if method not in SIM_INTEGRATORS:
            raise ValueError(
                f"simulate: unknown integrator {method!r}; one of {list(SIM_INTEGRATORS)}"
            )
        f_ext, frame = None, None
        if request.apply_external_wrench:
            f_ext = wrench_from_msg(request.external_wrench)
            frame = request.external_wrench_frame or None
            if frame is None and not active.has_tip:
                raise ValueError(
                    "simulate: external_wrench_frame is empty and the model has no tip_link"
                )
        result = model.simulate(
            q0,
            qd0,
            duration,
            tau=tau,
            f_ext=f_ext,
            frame=frame,
            method=method,
            rtol=request.rtol or 1e-8,
            atol=request.atol or 1e-10,
            sample_dt=sample,
            friction=bool(request.include_friction),
            fixed_step=request.fixed_step or 1e-3,
        )
        traj = JointTrajectory()
        traj.header.stamp = self.get_clock().now().to_msg()
        traj.header.frame_id = model.base_link
        traj.joint_names = list(active.names)
        points = []
        for i in range(len(result.t)):
            point = JointTrajectoryPoint()
            point.positions = to_array(result.q[i])
            point.velocities = to_array(result.qd[i])
            point.accelerations = to_array(result.qdd[i])
            point.effort = to_array(result.tau[i])
            point.time_from_start = seconds_to_duration(float(result.t[i]))
            points.append(point)
        traj.points = points
        response.trajectory = traj
        response.energy = to_array(result.energy)
        response.final_energy = float(result.energy[-1])
        response.success = True
        response.message = (
            f"ok: {len(points)} samples over {float(result.t[-1]):.6g} s with {method}"
        )
        return response


class _GravityCompensation:
    """Torque callable ``tau(t, q, qd) = g(q)`` for the simulate service."""

    def __init__(self, model):
        self._model = model

    def __call__(self, t, q, qd):
        return self._model.gravity_torques(q)


def main(args=None):
    """Console script ``dynamics_node``.

    joint_states is handled in the node's own thread (a SubscriptionThread, started with the
    node). Everything else spins on a multi-threaded executor: the parameter, robot_description
    and ~/reference callbacks (the node's default callback group) inline in the spinning thread,
    the services (~/simulate, ~/get_mass_matrix, ~/compute_inverse_dynamics) and the diagnostics
    timer in worker threads, each in a callback group of its own. A long simulation never blocks
    the joint_states processing; a parameter or model change waits for the message in hand (one
    lock) and applies from the next.
    """

    def freeze_heap(node):
        # Everything allocated so far (modules, the model) lives for the whole run: keep it out
        # of the garbage collector's full passes, which would otherwise stall the 1 kHz loop.
        gc.collect()
        gc.freeze()

    return spin_node(
        DynamicsNode,
        lambda node: HotPathExecutor([node.default_callback_group], num_threads=3),
        args=args,
        before_spin=freeze_heap,
    )


if __name__ == "__main__":
    sys.exit(main())
