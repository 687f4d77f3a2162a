"""The dynamics node's parameters: the model, the estimation pipeline (each with the
:class:`~robot_dynamics.estimation.PipelineConfig` field it sets), the effort command, the node
and its services.

Every number has a finite, documented range: nothing non-finite can follow from an accepted value
(gravity within +-100 m/s^2, a payload within 1e4 kg and 10 m of its frame, ...).
"""

from robot_dynamics.core.estimation import (
    OBSERVER_GAIN,
    SINGULAR_THRESHOLD,
    WRENCH_COMPONENTS,
    WRENCH_DAMPING,
)
from robot_dynamics.core.friction import DEFAULT_VELOCITY_THRESHOLD

from .friction import friction_params
from .model import model_section
from .param import NodeSchema, Param, Section, Type, nonzero_entries, unique_strings

EXECUTOR_KINDS = ("split", "split_events", "multi_threaded", "events")
"""The node's threading models (parameter ``executor``)."""

D, DA, S, SA, B, I = (
    Type.DOUBLE,
    Type.DOUBLE_ARRAY,
    Type.STRING,
    Type.STRING_ARRAY,
    Type.BOOL,
    Type.INTEGER,
)


def _components(value):
    unknown = [c for c in value if c not in WRENCH_COMPONENTS]
    if unknown:
        return f"{unknown} are not among {list(WRENCH_COMPONENTS)}"
    return unique_strings(value)


MODEL = model_section(
    "Used as the default wrench_frame, the Jacobian of ~/get_mass_matrix and the payload frame."
)

DERIVED = Section(
    "derived",
    "Payload, armature and joint friction model (applied to the parsed model)",
    (
        Param(
            "payload.mass",
            0.0,
            "Payload mass on payload.frame; 0 = none.",
            D,
            units="kg",
            range=(0.0, 1.0e4),
        ),
        Param(
            "payload.com",
            [0.0, 0.0, 0.0],
            "Payload centre of mass in payload.frame.",
            DA,
            units="m",
            range=(-10.0, 10.0),
            length=3,
        ),
        Param(
            "payload.inertia",
            [0.0] * 6,
            "Payload inertia about its centre of mass, payload.frame axes: ixx ixy ixz iyy iyz "
            "izz (zeros = point mass).",
            DA,
            units="kg m^2",
            range=(-1.0e3, 1.0e3),
            length=6,
        ),
        Param("payload.frame", "", "Link carrying the payload; empty = tip_link.", S),
        Param(
            "armature",
            [],
            "Rotor inertia reflected at each joint (added to the diagonal of M), model order; "
            "empty = none.",
            DA,
            units="kg m^2 or kg",
            range=(0.0, 1.0e3),
        ),
        *friction_params("of the joint friction model (friction_compensation)"),
    ),
)

ESTIMATION = Section(
    "estimation",
    "Estimation",
    (
        Param(
            "wrench_estimation",
            "momentum_observer",
            '"momentum_observer" (no acceleration needed) or "static" '
            "(tau_ext = M qdd + C qd + g - tau_measured, qdd per static_acceleration).",
            S,
            choices=("momentum_observer", "static"),
            config="wrench_estimation",
        ),
        Param(
            "observer_gain",
            OBSERVER_GAIN,
            "Momentum observer gain K_O (time constant 1/K_O).",
            D,
            units="1/s",
            range=(0.0, 1.0e4),
            low_open=True,
            config="observer_gain",
        ),
        Param(
            "static_acceleration",
            "zero",
            '"zero" (quasi-static) or "differentiated" '
            "(filtered derivative of the measured velocity).",
            S,
            choices=("zero", "differentiated"),
            config="static_acceleration",
        ),
        Param(
            "acceleration_filter_time_constant",
            0.01,
            "Low-pass time constant of the differentiated velocity.",
            D,
            units="s",
            range=(0.0, 10.0),
            config="acceleration_filter_time_constant",
        ),
        Param(
            "observer_max_dt",
            0.5,
            "A joint_states stamp gap longer than this (or a driver's stamp going back by more) "
            "restarts the observer and filter; another driver's message stamped up to this much "
            "before the newest is merged without an observer step, the same driver's is dropped "
            "(delivered late).",
            D,
            units="s",
            range=(0.0, 60.0),
            low_open=True,
            config="observer_max_dt",
        ),
        Param(
            "friction_compensation",
            False,
            "Add the joint friction model (friction.*; default the URDF damping qd + friction "
            "tanh(qd / friction_velocity_threshold)) to the feed-forward and remove it from the "
            "measured torques before estimating.",
            B,
            config="friction_compensation",
        ),
        Param(
            "friction_velocity_threshold",
            DEFAULT_VELOCITY_THRESHOLD,
            "Velocity scale of the smooth Coulomb sign; 0 = sign(qd).",
            D,
            units="rad/s or m/s",
            range=(0.0, 10.0),
            config="friction_velocity_threshold",
        ),
        Param(
            "friction_rest_velocity",
            0.0,
            "While every joint's measured |velocity| is below it, the arm is at rest and the "
            "friction compensation adds and removes nothing: friction at rest is static, anywhere "
            "within its breakaway level, and velocities that small are the driver's noise, which "
            "the smooth sign would turn into chatter of the feed-forward and the estimate; "
            "0 = off (identify sets it from a recording's velocities at rest).",
            D,
            units="rad/s or m/s",
            range=(0.0, 10.0),
            config="friction_rest_velocity",
        ),
        Param(
            "wrench_frame",
            "",
            "Link whose frame ~/external_wrench is given in (components in its axes, moment "
            "about its origin, frame_id = it), as a force-torque sensor mounted there would "
            "read; empty = tip_link.",
            S,
            config="wrench_frame",
        ),
        Param(
            "wrench_components",
            [],
            "Components estimated of the wrench at the tip_link origin, a subset of fx fy fz tx "
            "ty tz in wrench_frame axes (the others 0 there; a wrench_frame other than tip_link "
            "adds the force's moment about its origin); empty = all six when >= 6 joints move "
            "tip_link, fx fy fz otherwise.",
            SA,
            check=_components,
            config="wrench_components",
        ),
        Param(
            "wrench_damping",
            WRENCH_DAMPING,
            "Largest damping of the pseudo-inverse, applied to singular values below "
            "singular_threshold.",
            D,
            range=(0.0, 10.0),
            config="wrench_damping",
        ),
        Param(
            "singular_threshold",
            SINGULAR_THRESHOLD,
            "Singular values of the selected problem below this are damped and reported as "
            "near-singular.",
            D,
            range=(0.0, 10.0),
            config="singular_threshold",
        ),
        Param(
            "reference_timeout",
            0.5,
            "A ~/reference received longer ago than this is ignored (simulated time under "
            "use_sim_time); 0 = never expires.",
            D,
            units="s",
            range=(0.0, 3600.0),
            config="reference_timeout",
        ),
        Param(
            "effort_timeout",
            0.1,
            "Efforts older than this are not used for estimation (no phantom wrench; "
            "diagnostics WARN); 0 = never stale.",
            D,
            units="s",
            range=(0.0, 3600.0),
            config="effort_timeout",
        ),
        Param(
            "velocity_timeout",
            0.1,
            "Velocities older than this are not used; 0 = never stale.",
            D,
            units="s",
            range=(0.0, 3600.0),
            config="velocity_timeout",
        ),
        Param(
            "effort_scale",
            [],
            "Per joint, model order: tau = effort_scale * effort + effort_offset (drivers "
            "reporting current or another sign); nonzero; empty = all 1.",
            DA,
            range=(-1.0e6, 1.0e6),
            check=nonzero_entries,
            config="effort_scale",
        ),
        Param(
            "effort_offset",
            [],
            "Per joint, model order, the offset of effort_scale; empty = all 0.",
            DA,
            units="N m or N",
            range=(-1.0e6, 1.0e6),
            config="effort_offset",
        ),
        Param(
            "effort_limit_factor",
            10.0,
            "A measured |effort| beyond this times the URDF effort limit refuses the message.",
            D,
            range=(1.0, 1.0e6),
            config="effort_limit_factor",
        ),
        Param(
            "velocity_limit_factor",
            10.0,
            "A measured |velocity| beyond this times the URDF velocity limit refuses the message, "
            "as does a position farther from the joint's latest than that velocity reaches in "
            "the time between (another publisher of the same joints).",
            D,
            range=(1.0, 1.0e6),
            config="velocity_limit_factor",
        ),
        Param(
            "tare_duration",
            1.0,
            "~/tare averages the external torques over this long.",
            D,
            units="s",
            range=(0.0, 60.0),
            low_open=True,
            config="tare_duration",
        ),
        Param(
            "contact.torque_on",
            [],
            "Per-joint |external torque| contact levels, model order (> 0); empty = per-joint "
            "detection off.",
            DA,
            units="N m or N",
            range=(0.0, 1.0e6),
            config="contact.torque_on",
        ),
        Param(
            "contact.torque_off",
            [],
            "Per-joint release levels (<= on); empty = the on levels.",
            DA,
            units="N m or N",
            range=(0.0, 1.0e6),
            config="contact.torque_off",
        ),
        Param(
            "contact.force_on",
            0.0,
            "|force| contact level; 0 = not used.",
            D,
            units="N",
            range=(0.0, 1.0e6),
            config="contact.force_on",
        ),
        Param(
            "contact.force_off",
            0.0,
            "|force| release level (<= on; 0 = the on level).",
            D,
            units="N",
            range=(0.0, 1.0e6),
            config="contact.force_off",
        ),
        Param(
            "contact.moment_on",
            0.0,
            "|moment| contact level; 0 = not used.",
            D,
            units="N m",
            range=(0.0, 1.0e6),
            config="contact.moment_on",
        ),
        Param(
            "contact.moment_off",
            0.0,
            "|moment| release level (<= on; 0 = the on level).",
            D,
            units="N m",
            range=(0.0, 1.0e6),
            config="contact.moment_off",
        ),
        Param(
            "contact.min_duration",
            0.02,
            "A contact or release condition must hold this long to switch.",
            D,
            units="s",
            range=(0.0, 60.0),
            config="contact.min_duration",
        ),
        Param(
            "contact_publish_period",
            1.0,
            "~/contact is published on every change and at this period in between (read at "
            "start-up).",
            D,
            units="s",
            range=(0.01, 3600.0),
            read_only=True,
        ),
    ),
)

COMMAND = Section(
    "command",
    "Effort command",
    (
        Param(
            "publish_effort_command",
            False,
            "Publish ~/effort_command (it moves a real robot when remapped onto a "
            "JointGroupEffortController).",
            B,
        ),
        Param(
            "effort_command_source",
            "gravity",
            '"gravity" or "feedforward".',
            S,
            choices=("gravity", "feedforward"),
            config="command_source",
        ),
        Param(
            "command_joints",
            [],
            "Joint order of ~/effort_command (the controller's joints); empty = model order.",
            SA,
            check=unique_strings,
        ),
        Param(
            "clamp_effort_command",
            True,
            "Clamp ~/effort_command to the URDF effort limits (a joint whose limit is 0 or "
            "missing: not clamped).",
            B,
            config="clamp_effort_command",
        ),
    ),
)

NODE = Section(
    "node",
    "Node and services",
    (
        Param(
            "diagnostics_period",
            1.0,
            "Period of the /diagnostics status (read at start-up).",
            D,
            units="s",
            range=(0.01, 3600.0),
            read_only=True,
        ),
        Param(
            "executor",
            "split_events",
            "Threading model (read at start-up): split_events (the topics on rclpy's "
            "EventsExecutor, the rest on a multi-threaded executor in another thread), split "
            "(the same with a single-threaded executor for the topics: more CPU per message), "
            "multi_threaded, events (rclpy.experimental.EventsExecutor, one thread). Whichever, "
            "a node that falls behind serves the newest joint_states and sheds older ones.",
            S,
            choices=EXECUTOR_KINDS,
            read_only=True,
        ),
        Param(
            "max_simulation_duration",
            60.0,
            "Longest simulated time ~/simulate accepts.",
            D,
            units="s",
            range=(0.0, 3600.0),
            low_open=True,
        ),
        Param(
            "max_simulation_samples",
            100000,
            "Most output samples of ~/simulate.",
            I,
            range=(1, 10_000_000),
        ),
        Param(
            "simulation_sample_period",
            0.01,
            "Sample period of ~/simulate when the request gives 0.",
            D,
            units="s",
            range=(1.0e-6, 10.0),
        ),
        Param(
            "max_simulation_steps",
            2_000_000,
            "Most fixed steps / right-hand-side evaluations of one ~/simulate.",
            I,
            range=(1, 100_000_000),
        ),
        Param(
            "max_simulation_wall_time",
            20.0,
            "Longest wall time of one ~/simulate; it then answers success false.",
            D,
            units="s",
            range=(0.0, 600.0),
            low_open=True,
        ),
        Param(
            "max_simulation_torque",
            1.0e5,
            "Largest |torque| a ~/simulate request may give.",
            D,
            units="N m or N",
            range=(0.0, 1.0e7),
            low_open=True,
        ),
    ),
)

PAYLOAD_IDENTIFICATION = Section(
    "payload_identification",
    "~/identify_payload",
    (
        Param(
            "payload_identification.window",
            10.0,
            "~/identify_payload: seconds of the latest joint states used when the request's "
            "window is 0.",
            D,
            units="s",
            range=(0.0, 3600.0),
            low_open=True,
        ),
        Param(
            "payload_identification.buffer_samples",
            20000,
            "~/identify_payload: joint-state samples kept (a ring buffer; 20000 = 20 s at 1 kHz).",
            I,
            range=(100, 2_000_000),
            read_only=True,
        ),
    ),
)

DYNAMICS_NODE = NodeSchema(
    "dynamics_node", (MODEL, DERIVED, ESTIMATION, COMMAND, NODE, PAYLOAD_IDENTIFICATION)
)
"""Every parameter of the dynamics node (``PAYLOAD_IDENTIFICATION``'s are declared by its
``~/identify_payload`` service)."""
