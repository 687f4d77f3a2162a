"""Parameters of the dynamics node (declared with :mod:`robot_dynamics.ros.parameters`) and
their translation into the estimation pipeline's :class:`~robot_dynamics.estimation.PipelineConfig`.

Every number has a documented range in its descriptor; ranges are bounded so that nothing
non-finite can follow from an accepted value (gravity within +-100 m/s^2, a payload within
1e4 kg and 10 m of its frame, ...).
"""

import numpy as np

from robot_dynamics.core.estimation import WRENCH_COMPONENTS
from robot_dynamics.estimation import ContactConfig, PipelineConfig

from . import parameters as P
from .description import model_param_specs
from .executors import EXECUTOR_KINDS

# Parameters of a model derived from the parsed URDF (those that change the model itself are
# description.MODEL_PARAMS); the others are the pipeline's (a new pipeline carrying the measured
# joint state over).
DERIVE_PARAMS = frozenset(
    ("payload.mass", "payload.com", "payload.inertia", "payload.frame", "armature")
)


def _components(value):
    unknown = [c for c in value if c not in WRENCH_COMPONENTS]
    if unknown:
        return f"{unknown} are not among {list(WRENCH_COMPONENTS)}"
    return P.unique_strings(value)


def specs():
    """The node's parameters, in declaration order.

    Returns:
        list: :class:`~robot_dynamics.ros.parameters.Param` entries.
    """
    D, DA, S, SA, B, I = P.DOUBLE, P.DOUBLE_ARRAY, P.STRING, P.STRING_ARRAY, P.BOOL, P.INTEGER
    return [
        # ---- model
        *model_param_specs(
            "Used as the default wrench_frame, the Jacobian of ~/get_mass_matrix "
            "and the payload frame."
        ),
        P.Param(
            "payload.mass",
            0.0,
            "Payload mass on payload.frame [kg]; 0 = none.",
            D,
            range=(0.0, 1.0e4),
        ),
        P.Param(
            "payload.com",
            [0.0, 0.0, 0.0],
            "Payload centre of mass in payload.frame [m].",
            DA,
            range=(-10.0, 10.0),
            length=3,
        ),
        P.Param(
            "payload.inertia",
            [0.0] * 6,
            "Payload inertia about its centre of mass, "
            "payload.frame axes [kg m^2]: ixx ixy ixz iyy iyz izz (zeros = point mass).",
            DA,
            range=(-1.0e3, 1.0e3),
            length=6,
        ),
        P.Param("payload.frame", "", "Link carrying the payload; empty = tip_link.", S),
        P.Param(
            "armature",
            [],
            "Rotor inertia reflected at each joint, model order [kg m^2 or kg]; empty = none.",
            DA,
            range=(0.0, 1.0e3),
        ),
        # ---- estimation pipeline
        P.Param(
            "wrench_estimation",
            "momentum_observer",
            '"momentum_observer" or "static" '
            "(tau_ext = M qdd + C qd + g - tau_measured, qdd per static_acceleration).",
            S,
            choices=("momentum_observer", "static"),
        ),
        P.Param(
            "observer_gain",
            50.0,
            "Momentum observer gain K_O [1/s] (time constant 1/K_O).",
            D,
            range=(0.0, 1.0e4),
            low_open=True,
        ),
        P.Param(
            "static_acceleration",
            "zero",
            '"zero" (quasi-static) or "differentiated" '
            "(filtered derivative of the measured velocity).",
            S,
            choices=("zero", "differentiated"),
        ),
        P.Param(
            "acceleration_filter_time_constant",
            0.01,
            "Low-pass time constant of the differentiated velocity [s].",
            D,
            range=(0.0, 10.0),
        ),
        P.Param(
            "observer_max_dt",
            0.5,
            "A joint_states stamp gap longer than this (or a stamp "
            "going backwards) restarts the observer and filter [s].",
            D,
            range=(0.0, 60.0),
            low_open=True,
        ),
        P.Param(
            "friction_compensation",
            False,
            "Add the URDF joint friction (damping qd + "
            "friction tanh(qd / friction_velocity_threshold)) to the feed-forward and remove it "
            "from the measured torques before estimating.",
            B,
        ),
        P.Param(
            "friction_velocity_threshold",
            0.01,
            "Velocity scale of the smooth Coulomb sign [rad/s or m/s]; 0 = sign(qd).",
            D,
            range=(0.0, 10.0),
        ),
        P.Param(
            "wrench_frame",
            "",
            "Link whose frame ~/external_wrench is given in (components in "
            "its axes, moment about its origin, frame_id = it), as a force-torque sensor "
            "mounted there would read; empty = tip_link.",
            S,
        ),
        P.Param(
            "wrench_components",
            [],
            "Components estimated, a subset of fx fy fz tx ty tz in "
            "wrench_frame axes (the others are published as 0); empty = all six with >= 6 "
            "joints, fx fy fz otherwise.",
            SA,
            check=_components,
        ),
        P.Param(
            "wrench_damping",
            0.05,
            "Largest damping of the pseudo-inverse, applied to singular "
            "values below singular_threshold.",
            D,
            range=(0.0, 10.0),
        ),
        P.Param(
            "singular_threshold",
            0.01,
            "Singular values of the selected problem below this are "
            "damped and reported as near-singular.",
            D,
            range=(0.0, 10.0),
        ),
        P.Param(
            "reference_timeout",
            0.5,
            "A ~/reference older than this is ignored [s]; 0 = never expires.",
            D,
            range=(0.0, 3600.0),
        ),
        P.Param(
            "effort_timeout",
            0.1,
            "Efforts older than this are not used for estimation "
            "(no phantom wrench; diagnostics WARN) [s]; 0 = never stale.",
            D,
            range=(0.0, 3600.0),
        ),
        P.Param(
            "velocity_timeout",
            0.1,
            "Velocities older than this are not used [s]; 0 = never stale.",
            D,
            range=(0.0, 3600.0),
        ),
        P.Param(
            "effort_scale",
            [],
            "Per joint, model order: tau = effort_scale * effort + "
            "effort_offset (drivers reporting current or another sign); empty = all 1.",
            DA,
            range=(-1.0e6, 1.0e6),
        ),
        P.Param(
            "effort_offset",
            [],
            "Per joint, model order [Nm or N]; empty = all 0.",
            DA,
            range=(-1.0e6, 1.0e6),
        ),
        P.Param(
            "effort_limit_factor",
            10.0,
            "A measured |effort| beyond this times the URDF effort limit refuses the message.",
            D,
            range=(1.0, 1.0e6),
        ),
        P.Param(
            "velocity_limit_factor",
            10.0,
            "A measured |velocity| beyond this times the URDF velocity limit refuses the message.",
            D,
            range=(1.0, 1.0e6),
        ),
        P.Param(
            "tare_duration",
            1.0,
            "~/tare averages the external torques over this long [s].",
            D,
            range=(0.0, 60.0),
            low_open=True,
        ),
        P.Param(
            "contact.torque_on",
            [],
            "Per-joint |external torque| contact levels, model order "
            "[Nm or N]; empty = per-joint detection off.",
            DA,
            range=(0.0, 1.0e6),
        ),
        P.Param(
            "contact.torque_off",
            [],
            "Per-joint release levels (<= on); empty = the on levels.",
            DA,
            range=(0.0, 1.0e6),
        ),
        P.Param(
            "contact.force_on",
            0.0,
            "|force| contact level [N]; 0 = not used.",
            D,
            range=(0.0, 1.0e6),
        ),
        P.Param(
            "contact.force_off",
            0.0,
            "|force| release level [N] (<= on; 0 = the on level).",
            D,
            range=(0.0, 1.0e6),
        ),
        P.Param(
            "contact.moment_on",
            0.0,
            "|moment| contact level [Nm]; 0 = not used.",
            D,
            range=(0.0, 1.0e6),
        ),
        P.Param(
            "contact.moment_off", 0.0, "|moment| release level [Nm] (<= on).", D, range=(0.0, 1.0e6)
        ),
        P.Param(
            "contact.min_duration",
            0.02,
            "A contact or release condition must hold this long to switch [s].",
            D,
            range=(0.0, 60.0),
        ),
        P.Param(
            "contact_publish_period",
            1.0,
            "~/contact is published on every change and at "
            "this period in between [s] (read at start-up).",
            D,
            range=(0.01, 3600.0),
            read_only=True,
        ),
        # ---- effort command
        P.Param(
            "publish_effort_command",
            False,
            "Publish ~/effort_command (it moves a real robot "
            "when remapped onto a JointGroupEffortController).",
            B,
        ),
        P.Param(
            "effort_command_source",
            "gravity",
            '"gravity" or "feedforward".',
            S,
            choices=("gravity", "feedforward"),
        ),
        P.Param(
            "command_joints",
            [],
            "Joint order of ~/effort_command (the controller's joints); empty = model order.",
            SA,
            check=P.unique_strings,
        ),
        P.Param(
            "clamp_effort_command", True, "Clamp ~/effort_command to the URDF effort limits.", B
        ),
        # ---- node
        P.Param(
            "diagnostics_period",
            1.0,
            "Period of the /diagnostics status [s] (read at start-up).",
            D,
            range=(0.01, 3600.0),
            read_only=True,
        ),
        P.Param(
            "executor",
            "split",
            "Threading model (read at start-up): split (hot path on a "
            "single-threaded executor, the rest on a multi-threaded one in another thread), "
            "split_events (the same with rclpy's EventsExecutor for the hot path: less CPU, "
            "but its event queue grows without bound while the node is overloaded), "
            "multi_threaded, events (rclpy.experimental.EventsExecutor, one thread).",
            S,
            choices=EXECUTOR_KINDS,
            read_only=True,
        ),
        P.Param(
            "max_simulation_duration",
            60.0,
            "Longest simulated time ~/simulate accepts [s].",
            D,
            range=(0.0, 3600.0),
            low_open=True,
        ),
        P.Param(
            "max_simulation_samples",
            100000,
            "Most output samples of ~/simulate.",
            I,
            range=(1, 10_000_000),
        ),
        P.Param(
            "simulation_sample_period",
            0.01,
            "Sample period of ~/simulate when the request gives 0 [s].",
            D,
            range=(1.0e-6, 10.0),
        ),
        P.Param(
            "max_simulation_steps",
            2_000_000,
            "Most fixed steps / right-hand-side evaluations of one ~/simulate.",
            I,
            range=(1, 100_000_000),
        ),
        P.Param(
            "max_simulation_wall_time",
            20.0,
            "Longest wall time of one ~/simulate [s]; it then answers success false.",
            D,
            range=(0.0, 600.0),
            low_open=True,
        ),
        P.Param(
            "max_simulation_torque",
            1.0e5,
            "Largest |torque| a ~/simulate request may give [Nm or N].",
            D,
            range=(0.0, 1.0e7),
            low_open=True,
        ),
    ]


def pipeline_config(values):
    """PipelineConfig from the node's parameter values.

    Args:
        values: parameter name -> value.

    Returns:
        PipelineConfig: the pipeline's config.
    """
    contact = ContactConfig(
        torque_on=tuple(values["contact.torque_on"]),
        torque_off=tuple(values["contact.torque_off"]),
        force_on=values["contact.force_on"],
        force_off=values["contact.force_off"],
        moment_on=values["contact.moment_on"],
        moment_off=values["contact.moment_off"],
        min_duration=values["contact.min_duration"],
    )
    return PipelineConfig(
        wrench_estimation=values["wrench_estimation"],
        observer_gain=values["observer_gain"],
        static_acceleration=values["static_acceleration"],
        acceleration_filter_time_constant=values["acceleration_filter_time_constant"],
        observer_max_dt=values["observer_max_dt"],
        friction_compensation=values["friction_compensation"],
        friction_velocity_threshold=values["friction_velocity_threshold"],
        wrench_frame=values["wrench_frame"],
        wrench_components=tuple(values["wrench_components"]),
        wrench_damping=values["wrench_damping"],
        singular_threshold=values["singular_threshold"],
        reference_timeout=values["reference_timeout"],
        effort_timeout=values["effort_timeout"],
        velocity_timeout=values["velocity_timeout"],
        effort_scale=tuple(values["effort_scale"]),
        effort_offset=tuple(values["effort_offset"]),
        effort_limit_factor=values["effort_limit_factor"],
        velocity_limit_factor=values["velocity_limit_factor"],
        tare_duration=values["tare_duration"],
        contact=contact,
        command_source=values["effort_command_source"],
        clamp_effort_command=values["clamp_effort_command"],
    )


def build_model(text, values):
    """Models of URDF text and parameter values.

    Args:
        text: URDF XML text.
        values: parameter name -> value (base_link, tip_link, gravity, armature, payload.*).

    Returns:
        tuple: ``(parsed model, model with armature and payload)``.

    Raises:
        RobotDynamicsError: the URDF or a value cannot make a model.
        ValueError: see :func:`derive_model`.
    """
    from .description import model_from_parameters

    parsed = model_from_parameters(text, values)
    return parsed, derive_model(parsed, values)


def derive_model(parsed, values):
    """The parsed model with the armature and payload parameters applied.

    Args:
        parsed: the model from the URDF.
        values: parameter name -> value.

    Returns:
        RobotModel: the derived model.

    Raises:
        ValueError: an armature of the wrong length; a payload without a frame on a model
            without a tip link.
    """
    model = parsed
    armature = list(values["armature"])
    if armature:
        if len(armature) != parsed.n:
            raise ValueError(
                f"armature has {len(armature)} values, the model has {parsed.n} joints "
                f"{list(parsed.joint_names)}"
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
        ixx, ixy, ixz, iyy, iyz, izz = values["payload.inertia"]
        inertia = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        model = model.with_payload(
            mass, np.array(values["payload.com"], dtype=float), inertia=inertia, frame=frame
        )
    return model


def command_indices(joint_names, command_joints):
    """Model indices of the command joints.

    Args:
        joint_names: the model's joints, in order.
        command_joints: the ``command_joints`` parameter (empty: model order).

    Returns:
        ndarray: model indices (intp).

    Raises:
        ValueError: naming unknown joints.
    """
    joint_names = list(joint_names)
    if not command_joints:
        return np.arange(len(joint_names))
    unknown = [name for name in command_joints if name not in joint_names]
    if unknown:
        raise ValueError(f"command_joints {unknown} are not joints of the model {joint_names}")
    return np.array([joint_names.index(name) for name in command_joints], dtype=np.intp)
