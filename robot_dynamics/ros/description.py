"""robot_description for the nodes: URDF text from the parameter or the topic, built aside.

Both nodes (``dynamics_node``, ``arm_simulator``) take their model this way:

- The ``robot_description`` parameter, when it is not empty, is the description. Otherwise the
  latest message of the ``robot_description`` topic (``std_msgs/String``, reliable, transient
  local, as robot_state_publisher publishes it) is. The topic is always subscribed: clearing the
  parameter switches to the topic's latest description (or waits for one).
- A node takes URDF **text** only: a description that is not XML (after an optional UTF-8
  byte-order mark and white space, it must start with ``<``) is refused, never read as a file
  path (``/proc/self/mem`` on the topic must not make a node read files); so is one longer than
  :data:`MAX_DESCRIPTION_CHARS`.
- A new description, or a change of a parameter the model depends on (``base_link``,
  ``tip_link``, ``gravity``, ...), builds the new model with the node's ``build`` function in the
  thread of the callback that asked for it (the parameter service's or the topic's, never the
  joint_states path); the old model keeps serving until ``install`` swaps the new one in (one
  reference). A description that cannot be built is refused with its reason (logged, counted,
  ``last_error``, naming the parameter at fault: ``robot_description``, or ``tip_link`` /
  ``base_link`` when the model names them as the culprit) and the old model is kept.
- A start-up ``robot_description`` that is refused is kept all the same (the parameter holds
  it): a later change of another model parameter (``balance_inertia``, ``strict_inertia``,
  ``tip_link``, ...) builds it again.
"""

import threading

from std_msgs.msg import String

from robot_dynamics.core.errors import RobotDynamicsError
from robot_dynamics.core.inertia import inertia_warning_lines
from robot_dynamics.core.joint_warnings import joint_warning_lines
from robot_dynamics.core.precompile import compile_kernels
from robot_dynamics.core.tip import no_tip_reason
from robot_dynamics.schema.model import locked_joints

from .qos import robot_description_qos

MAX_DESCRIPTION_CHARS = 20_000_000
"""Longest robot_description a node accepts (characters)."""

PARAMETER = "parameter robot_description"
TOPIC = "topic robot_description"


class DescriptionError(RobotDynamicsError, ValueError):
    """A robot_description that is not URDF text a node can use (empty, too long, a path)."""


def urdf_text(value, source):
    """Check that ``value`` is URDF XML text.

    Args:
        value: the description (str).
        source: where it came from, for the message (e.g. "topic robot_description").

    Returns:
        str: the text without BOM and outer white space.

    Raises:
        DescriptionError: naming the source and the problem.
    """
    if not isinstance(value, str):
        raise DescriptionError(f"{source}: not text ({type(value).__name__})")
    if len(value) > MAX_DESCRIPTION_CHARS:
        raise DescriptionError(
            f"{source}: {len(value)} characters, more than the limit {MAX_DESCRIPTION_CHARS}"
        )
    text = value.lstrip("\ufeff").strip()
    if not text:
        raise DescriptionError(f"{source} is empty")
    if not text.startswith("<"):
        raise DescriptionError(
            f"{source} is not URDF XML text (it must start with '<'; a node never reads a "
            f"file path): {text[:60]!r}"
        )
    return text


def model_from_parameters(text, values):
    """The :class:`~robot_dynamics.RobotModel` of URDF text with the model parameters both nodes
    declare (:func:`robot_dynamics.schema.model.model_section`: ``base_link``, ``tip_link``,
    ``locked_joints``, ``gravity``, ``balance_inertia``, ``strict_inertia``), its compiled
    kernels run once (:func:`~robot_dynamics.core.precompile.compile_kernels`): a node compiles
    or loads them while it loads the model, not at its first message or physics step.

    Args:
        text: URDF XML text.
        values: parameter name -> value.

    Returns:
        RobotModel: the model.

    Raises:
        RobotDynamicsError: the URDF or a value cannot make a model.
    """
    from robot_dynamics import RobotModel

    model = RobotModel.from_urdf_string(
        text,
        base_link=values["base_link"] or None,
        tip_link=values["tip_link"] or None,
        locked_joints=locked_joints(values["locked_joints"]),
        gravity=tuple(float(v) for v in values["gravity"]) or None,
        balance_inertia=bool(values["balance_inertia"]),
        strict_inertia=bool(values["strict_inertia"]),
    )
    compile_kernels(model.tree)
    return model


def locked_joints_text(model):
    """The model's locked joints as ``name=position`` words, for logs and diagnostics.

    Args:
        model: a :class:`~robot_dynamics.RobotModel`.

    Returns:
        str: e.g. ``"finger_joint=0 left_inner_knuckle_joint=0"``; '' when none is locked.
    """
    return " ".join(f"{name}={position:g}" for name, position in model.locked_joints)


def gravity_text(model):
    """The model's gravity for a log line, e.g. ``"gravity [0, 6.32, -7.503] m/s^2"``.

    Args:
        model: a :class:`~robot_dynamics.RobotModel`.

    Returns:
        str: the text (base frame; 4 significant digits).
    """
    return "gravity [" + ", ".join(f"{g:.4g}" for g in model.gravity) + "] m/s^2"


def log_model_notes(logger, model, without_tip):
    """Log what a node should know about a model built from a URDF: each inertia balanced
    (``balance_inertia``), each inertia and each joint loaded with a warning, at WARN; with no
    tip link, a WARN naming the candidate leaves and the parameter to set.

    Args:
        logger: the node's logger.
        model: the :class:`~robot_dynamics.RobotModel` just built from a URDF.
        without_tip: what the node cannot do without a tip link (ends the no-tip warning).
    """
    for note in model.inertia_adjustments:
        logger.warn(f"balance_inertia: {note}")
    for line in inertia_warning_lines(model.inertia_warnings):
        logger.warn(f"inertia loaded as given (strict_inertia refuses it): {line}")
    for line in joint_warning_lines(model.joint_warnings):
        logger.warn(f"URDF joint warning: {line}")
    if model.tip_link is None:
        logger.warn(f"{no_tip_reason(model.tree)}; set the parameter tip_link. {without_tip}")


class _Prepared:
    """A model built for a parameter batch, installed by :meth:`RobotDescription.commit`."""

    __slots__ = ("built", "source", "parameter_text", "text")

    def __init__(self, built, source, parameter_text, text):
        self.built, self.source = built, source
        self.parameter_text, self.text = parameter_text, text


UNCHANGED = object()


class RobotDescription:
    """A node's robot description: parameter or topic, rebuilt on change, built aside.

    Args:
        node: the rclpy node (subscribes ``robot_description`` in ``callback_group``).
        build: ``build(text, values) -> built``: the node's model objects from URDF text and
            parameter values (raises RobotDynamicsError/ValueError to refuse).
        install: ``install(built, source)``: swap the built model in (one reference).
        values: ``() -> dict`` of the node's current parameter values (for topic messages).
        callback_group: group of the topic subscription (never the hot path's).

    Attributes:
        rejections: model builds refused so far (a description, or model parameters).
        last_error: the latest refusal, naming the parameter at fault.
        source: the source of the installed model.
    """

    def __init__(self, node, build, install, values, callback_group=None):
        self._node = node
        self._build = build
        self._install = install
        self._values = values
        self._lock = threading.Lock()  # one build / install at a time
        self.parameter_text = ""
        self.topic_text = ""
        self.text = ""  # of the installed model
        self.rejections = 0
        self.last_error = ""
        self.source = ""
        node.create_subscription(
            String,
            "robot_description",
            self._on_topic,
            robot_description_qos(),
            callback_group=callback_group,
        )

    def start(self, parameter_value):
        """Build from the start-up parameter value; a refusal is counted and logged.

        Args:
            parameter_value: the robot_description parameter (URDF XML text; empty: wait for the
                topic).
        """
        try:
            prepared = self.prepare(self._values(), parameter_value)
        except (RobotDynamicsError, ValueError):  # refused and logged by prepare
            try:  # the parameter holds it all the same: a model parameter change rebuilds it
                self.parameter_text = urdf_text(parameter_value, PARAMETER)
            except DescriptionError:
                pass
            return
        self.commit(prepared)
        if prepared.built is None:
            self._node.get_logger().info(
                "waiting for a URDF on the robot_description topic "
                "(or set the robot_description parameter)"
            )

    def prepare(self, values, parameter_value=UNCHANGED, rebuild=True):
        """Build the model a parameter batch asks for, without installing it.

        Args:
            values: the parameter values after the batch.
            parameter_value: the new robot_description parameter value, if the batch sets it.
            rebuild: False when only the description could have changed.

        Returns:
            a prepared model for :meth:`commit` (its ``built`` is None when there is no
            description yet, or nothing changed).

        Raises:
            DescriptionError, RobotDynamicsError, ValueError: refused (counted, logged); the
            old model stays.
        """
        parameter_text = self.parameter_text
        if parameter_value is not UNCHANGED:
            try:
                parameter_text = urdf_text(parameter_value, PARAMETER) if parameter_value else ""
            except DescriptionError as error:
                self._refused(PARAMETER, error)
                raise
        if parameter_text:
            text, source = parameter_text, PARAMETER
        elif self.topic_text:
            text, source = self.topic_text, TOPIC
        else:
            return _Prepared(None, "", parameter_text, "")
        if text == self.text and not rebuild:
            return _Prepared(None, source, parameter_text, text)
        try:
            built = self._build(text, values)
        except Exception as error:  # noqa: BLE001 - untrusted input: any failure refuses it
            argument = getattr(error, "argument", None)
            self._refused(f"parameter {argument}" if argument else source, error)
            if isinstance(error, (RobotDynamicsError, ValueError)):
                raise
            raise DescriptionError(f"{type(error).__name__}: {error}") from error
        return _Prepared(built, source, parameter_text, text)

    def commit(self, prepared, source=None):
        """Install a prepared model (if any) and remember the accepted parameter text.

        Args:
            prepared: from :meth:`prepare`.
            source: the source to report (default: the prepared one).
        """
        with self._lock:
            cleared = self.parameter_text and not prepared.parameter_text
            self.parameter_text = prepared.parameter_text
            if prepared.built is not None:
                self._install(prepared.built, source or prepared.source)
                self.text = prepared.text
                self.source = prepared.source
        if cleared:
            self._node.get_logger().info(
                "robot_description parameter cleared: the topic is used for new descriptions"
            )

    def _refused(self, source, error):
        self.rejections += 1
        self.last_error = f"{source} rejected: {type(error).__name__}: {error}"
        keep = "keeping the previous model" if self.text else "no model loaded"
        self._node.get_logger().error(f"{self.last_error} ({keep})")

    def _on_topic(self, msg):
        try:
            text = urdf_text(msg.data, TOPIC)
        except DescriptionError as error:
            self._refused(TOPIC, error)
            return
        self.topic_text = text
        if self.parameter_text:
            self._node.get_logger().info(
                "robot_description topic ignored: the robot_description parameter is set"
            )
            return
        if text == self.text:
            return
        try:
            built = self._build(text, self._values())
        except Exception as error:  # noqa: BLE001 - untrusted input: any failure refuses it
            self._refused(TOPIC, error)
            return
        self.commit(_Prepared(built, TOPIC, "", text))
