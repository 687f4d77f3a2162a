"""The dynamics node's ``~/identify_payload`` service (robot_dynamics_interfaces/IdentifyPayload).

The node keeps the joint states it processes in a bounded ring buffer
(:class:`~robot_dynamics.estimation.sample_buffer.JointSampleBuffer`, filled from the hot path
by :meth:`PayloadService.record`: three array copies per message). A request takes the last
``window`` seconds of it, merges partial messages by name, applies the node's effort scale and
offset, resamples and differentiates it as ``robot-dynamics identify-payload`` does
(:func:`robot_dynamics.core.joint_data.clean`, then
:func:`robot_dynamics.core.filter_window.smooth_with_window`: the Savitzky-Golay window chosen by
the payload fit, velocity and acceleration 0 where the arm is at rest), and identifies the
payload with :func:`robot_dynamics.core.payload.identify_payload` against the node's model
WITHOUT its payload.* parameters (so the answer is the whole load on the frame, ready to apply).
``apply`` sets payload.mass/com/inertia/frame through the node's own parameter mechanism
(the node rebuilds its model as for any parameter change).

Parameters (declared in :data:`robot_dynamics.schema.dynamics_node.PAYLOAD_IDENTIFICATION`,
beside the node's own): ``payload_identification.window``, the window when a request gives 0,
and ``payload_identification.buffer_samples`` (read-only), the samples kept.
"""

import math
import time

import numpy as np

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.parameter import Parameter

from robot_dynamics.core.filter_window import smooth_with_window
from robot_dynamics.core.payload import identify_payload, payload_fit, payload_warnings
from robot_dynamics.core.urdf import URDFError, check_inertia_tensor
from robot_dynamics.estimation import validate_config
from robot_dynamics.estimation.sample_buffer import JointSampleBuffer
from robot_dynamics.core.joint_data import DataError, JointSamples, clean
from robot_dynamics.schema.dynamics_node import DYNAMICS_NODE, PAYLOAD_IDENTIFICATION
from robot_dynamics_interfaces.srv import IdentifyPayload

from . import dynamics_parameters as DP
from . import parameters as P
from .services import REFUSAL_LOG_PERIOD
from .throttled_log import ThrottledLog

WINDOW = "payload_identification.window"
BUFFER_SAMPLES = "payload_identification.buffer_samples"
MAX_WINDOW = DYNAMICS_NODE[WINDOW].range[1]
"""Longest window a request may give [s] (the window parameter's bound)."""
MAX_FIT_SAMPLES = 3000
"""Resampled samples the fit uses at most (evenly thinned beyond: the data are filtered)."""

#: regressor order [Ixx Ixy Iyy Ixz Iyz Izz] -> payload.inertia order [ixx ixy ixz iyy iyz izz]
_INERTIA_ORDER = [0, 1, 3, 2, 4, 5]


class PayloadService:
    """Creates ``~/identify_payload`` on ``node`` and records its samples.

    Args:
        node: the dynamics node (parameters are declared on it).
        active: () -> the node's active model bundle (``.names``, ``.parsed``, ``.pipeline``)
            or None.
        values: () -> the node's current parameter values (payload.*, armature, friction).
        locked: ``locked(call)`` runs ``call(pipeline)`` under the node's pipeline lock (the
            lock :meth:`record` is called under); None without a model.
    """

    def __init__(self, node, active, values, locked):
        self._node = node
        self._active = active
        self._node_values = values
        self._locked = locked
        self._specs = {p.name: p for p in PAYLOAD_IDENTIFICATION.params}
        self._values = P.declare(node, list(self._specs.values()))
        self._buffer = None
        self._names = None
        self._received = None  # time.monotonic() of the latest recorded message
        self._log = ThrottledLog(node.get_logger())
        node.add_on_set_parameters_callback(self._on_set_parameters)
        node.create_service(
            IdentifyPayload,
            "~/identify_payload",
            self._identify,
            callback_group=MutuallyExclusiveCallbackGroup(),
        )

    def _on_set_parameters(self, parameters):
        result = P.validate(self._specs, parameters)
        if result.successful:
            for parameter in parameters:
                if parameter.name in self._specs:
                    self._values[parameter.name] = parameter.value
        return result

    # ------------------------------------------------------------------ hot path
    def record(self, names, t_ns, position, velocity, effort):
        """Store one processed joint_states message (call under the node's pipeline lock).

        Args:
            names: the model's joint names (a tuple; a new tuple of other names restarts the
                buffer).
            t_ns: stamp [ns].
            position: (n,) positions [rad or m], model order, NaN for joints the message does
                not carry, or None for an empty field.
            velocity: (n,) velocities [rad/s or m/s], the same way.
            effort: (n,) efforts, the same way.
        """
        if names is not self._names:
            if self._names is None or tuple(names) != self._names or self._buffer is None:
                self._buffer = JointSampleBuffer(len(names), self._values[BUFFER_SAMPLES])
            self._names = names
        self._buffer.append(t_ns, position, velocity, effort)
        self._received = time.monotonic()

    def latest_efforts(self, count):
        """The efforts of the latest ``count`` recorded messages (call under the node's pipeline
        lock).

        Args:
            count: most messages.

        Returns:
            tuple or None: ``(joint names, (k, n) efforts as received, model order, NaN for
            joints a message does not carry)``; None before the first message.
        """
        if self._buffer is None:
            return None
        return self._names, self._buffer.latest_efforts(count)

    # ------------------------------------------------------------------ service
    def _identify(self, request, response):
        try:
            self._answer(request, response)
        except Exception as error:  # noqa: BLE001 - a request must never end the node
            response.success = False
            response.message = f"{type(error).__name__}: {error}"
            response.applied = False
        if not response.success:
            self._log(
                "refused", REFUSAL_LOG_PERIOD, "warning", f"identify_payload: {response.message}"
            )
        return response

    def _answer(self, request, response):
        active = self._active()
        if active is None:
            response.message = "no robot model loaded"
            return
        window = float(request.window) or float(self._values[WINDOW])
        if not (math.isfinite(window) and 0.0 < window <= MAX_WINDOW):
            response.message = f"window must be in (0, {MAX_WINDOW:g}] s, got {request.window}"
            return
        snapshot = self._locked(
            lambda pipeline: (
                self._names,
                None if self._buffer is None else self._buffer.window(window),
                pipeline.config,
            )
        )
        if snapshot is None:
            response.message = "no robot model loaded"
            return
        names, data, config = snapshot
        if data is None or len(data[0]) == 0:
            response.message = "no joint states received yet"
            return
        age = time.monotonic() - self._received
        if age > window:
            response.message = (
                f"no joint states in the last {window:g} s (the latest came {age:.1f} s ago): "
                "the payload is identified from the arm as it is now"
            )
            return
        if tuple(names) != tuple(active.names):
            response.message = "the model changed since the samples were taken; try again"
            return
        values = self._node_values()
        model = DP.derive_model(active.parsed, dict(values, **{"payload.mass": 0.0}))
        resolved = validate_config(model, config)
        t, position, velocity, effort = data
        tau = resolved.effort_scale * effort + resolved.effort_offset
        if np.isnan(velocity).all():
            velocity = None
        frame = request.frame or values["payload.frame"] or None
        threshold = values["friction_velocity_threshold"]
        try:
            cleaned = clean(JointSamples(t, position, velocity, tau))
            fit = payload_fit(model, cleaned, frame=frame, velocity_threshold=threshold)
            prepared = smooth_with_window(cleaned, fit, holdout=0.0, rest=True)
        except DataError as error:
            response.message = (
                f"{error} ({len(t)} joint-state samples in the last {window:g} s; a pose needs "
                f"a steady stream of at least the filter window)"
            )
            return
        stride = max(1, math.ceil(len(prepared.t) / MAX_FIT_SAMPLES))
        estimate = identify_payload(
            model,
            prepared.q[::stride],
            prepared.qd[::stride],
            prepared.qdd[::stride],
            prepared.tau[::stride],
            frame=frame,
            friction=True,
            velocity_threshold=threshold,
            effort_mask=prepared.effort_mask,
        )
        self._fill(response, estimate, model, prepared, stride)
        com_ok = bool(np.all(estimate.determined[1:4]))
        response.success = com_ok
        used = f"{response.samples} samples over {response.duration:.3g} s"
        if not com_ok:
            response.message = f"the centre of mass is not determined ({used}): " + "; ".join(
                estimate.undetermined
            )
            return
        if not estimate.mass > 0.0:
            response.success = False
            response.message = (
                f"the identified mass {float(estimate.mass):.4g} kg (std "
                f"{float(estimate.mass_std):.2g}) is not positive ({used}): the joint torques do "
                f"not fit a load on '{estimate.frame}'; check effort_scale/effort_offset and the "
                "model, and that nothing else touches the arm"
            )
            return
        warnings = payload_warnings(
            model,
            estimate,
            prepared.qd[::stride],
            effort_mask=prepared.effort_mask,
            velocity_threshold=threshold,
            friction=True,
            scaled=bool(np.any(resolved.effort_scale != 1.0)),
        )
        for warning in warnings:
            self._node.get_logger().warn(f"identify_payload: {warning}")
        response.message = "; ".join(
            [f"payload identified from {used}", *estimate.undetermined]
            + [f"warning {warning}" for warning in warnings]
        )
        if request.apply:
            self._apply(request, response, estimate)

    @staticmethod
    def _fill(response, estimate, model, prepared, stride):
        response.frame = estimate.frame
        response.samples = int(estimate.samples)
        response.duration = float(prepared.t[-1] - prepared.t[0]) if len(prepared.t) else 0.0
        response.mass = _finite(estimate.mass)
        response.mass_std = _finite(estimate.mass_std)
        determined = np.isfinite(estimate.com)
        com = np.where(determined, estimate.com, 0.0)
        com_std = np.where(np.isfinite(estimate.com_std), estimate.com_std, 0.0)
        response.com.x, response.com.y, response.com.z = (float(v) for v in com)
        response.com_std.x, response.com_std.y, response.com_std.z = (float(v) for v in com_std)
        response.com_determined = [bool(v) for v in determined]
        response.inertia_determined = estimate.inertia is not None
        if estimate.inertia is not None:
            response.inertia = _inertia_entries(estimate.inertia)
            response.inertia_std = [
                _finite(v) for v in np.asarray(estimate.inertia_std)[_INERTIA_ORDER]
            ]
        response.undetermined = list(estimate.undetermined)
        response.joint_names = list(model.joint_names)
        response.residual_rms = [_finite(v) for v in estimate.residual_rms]

    def _apply(self, request, response, estimate):
        inertia = [0.0] * 6
        note = ""
        if estimate.inertia is not None:
            try:
                check_inertia_tensor(np.asarray(estimate.inertia), "payload", "inertia")
                inertia = list(response.inertia)
            except URDFError as error:
                note = f"; identified inertia not physically valid ({error}): applied as zeros"
        else:
            note = "; inertia not determined: applied as zeros (a point mass)"
        parameters = [
            Parameter("payload.mass", Parameter.Type.DOUBLE, float(estimate.mass)),
            Parameter(
                "payload.com",
                Parameter.Type.DOUBLE_ARRAY,
                [response.com.x, response.com.y, response.com.z],
            ),
            Parameter("payload.inertia", Parameter.Type.DOUBLE_ARRAY, inertia),
        ]
        if request.frame:
            parameters.append(Parameter("payload.frame", Parameter.Type.STRING, request.frame))
        result = self._node.set_parameters_atomically(parameters)
        if not result.successful:
            response.success = False
            response.message += f"; apply refused: {result.reason}"
            return
        response.applied = True
        response.message += "; applied to payload.*" + note


def _finite(value):
    value = float(value)
    return value if math.isfinite(value) else 0.0


def _inertia_entries(inertia):
    m = np.asarray(inertia, dtype=float)
    return [_finite(v) for v in (m[0, 0], m[0, 1], m[0, 2], m[1, 1], m[1, 2], m[2, 2])]


__all__ = ["BUFFER_SAMPLES", "PayloadService", "WINDOW"]
