"""The simulated arm's parameters (``arm_simulator``). A ``config`` path makes a parameter a field
of :class:`~robot_dynamics.simulation.arm.ArmOptions` (the simulated arm's options taken as they
are); the others give model-dependent settings (:class:`~robot_dynamics.simulation.ArmSettings`)
or pace the node."""

from .friction import friction_params
from .model import model_section
from .param import NodeSchema, Param, Section, Type, nonzero_entries, unique_strings

D, DA, S, SA, B = Type.DOUBLE, Type.DOUBLE_ARRAY, Type.STRING, Type.STRING_ARRAY, Type.BOOL

SIMULATION = Section(
    "simulation",
    "Simulation",
    (
        Param(
            "joints",
            [],
            "Order of the ~/commands vector (the effort controller's joints); empty: all joints "
            "in model order. Joints not listed get zero torque.",
            SA,
            check=unique_strings,
        ),
        Param(
            "initial_positions",
            [],
            "Initial joint positions, model order; empty: each joint at 0, or mid-range when 0 is "
            "outside its limits.",
            DA,
            units="rad or m",
            range=(-1.0e3, 1.0e3),
        ),
        Param(
            "initial_velocities",
            [],
            "Initial joint velocities, model order; empty: zeros.",
            DA,
            units="rad/s or m/s",
            range=(-1.0e3, 1.0e3),
        ),
        Param(
            "integration_rate",
            1000.0,
            "Fixed integration rate (step = 1/rate, rounded to whole nanoseconds), "
            "semi-implicit Euler of the core.",
            D,
            units="Hz",
            range=(1.0, 100000.0),
        ),
        Param(
            "publish_rate",
            500.0,
            "joint_states publication rate; rounded to a whole number of integration steps.",
            D,
            units="Hz",
            range=(0.1, 100000.0),
        ),
        Param(
            "real_time_factor",
            1.0,
            "Simulated seconds per wall-clock second; 0 = as fast as possible (only with "
            "publish_clock). A change acts at once: the simulated time reached goes on at the new "
            "factor.",
            D,
            range=(0.0, 1000.0),
        ),
        Param(
            "publish_clock",
            False,
            "Publish /clock and stamp messages with simulated time from 0 (others "
            "use_sim_time); read at start-up.",
            B,
            read_only=True,
        ),
        Param(
            "max_lag",
            0.25,
            "Falling this far behind the wall clock stops catching up and counts an overrun.",
            D,
            units="s",
            range=(0.0, 60.0),
        ),
        Param(
            "joint_friction",
            True,
            "Apply the joint friction model (friction.*; default the URDF damping and friction).",
            B,
            config="friction",
        ),
        *friction_params("acting on the joints"),
        Param(
            "effort_limit_saturation",
            True,
            "Clip commands at the URDF effort limits (a joint whose limit is 0 or missing: not "
            "clipped).",
            B,
            config="saturation",
        ),
        Param(
            "effort_noise",
            0.0,
            "Standard deviation of Gaussian noise added to each published effort (a "
            "joint-torque sensor's noise); 0 = none.",
            D,
            units="N m or N",
            range=(0.0, 1.0e3),
            config="effort_noise",
        ),
        Param(
            "effort_noise_seed",
            -1,
            "Seed of the effort noise: the same seed gives the same noise from the start and "
            "again after each ~/reset (a reproducible recording); -1 = a fresh seed at every "
            "start, and the noise runs on across resets. Read at start-up.",
            Type.INTEGER,
            range=(-1, 2**31 - 1),
            read_only=True,
        ),
        Param(
            "effort_scale",
            [],
            "Per joint, model order: the published effort is what a driver reports whose "
            "efforts convert as tau = effort_scale * effort + effort_offset (the dynamics node's "
            "parameters of the same names undo it); nonzero; empty = all 1.",
            DA,
            range=(-1.0e6, 1.0e6),
            check=nonzero_entries,
        ),
        Param(
            "effort_offset",
            [],
            "Per joint, model order: the offset above (a torque sensor's offset); empty = all 0.",
            DA,
            units="N m or N",
            range=(-1.0e6, 1.0e6),
        ),
        Param(
            "position_limits",
            True,
            "URDF position limits act as stiff end stops (false: the joints pass through their "
            "limits).",
            B,
            config="position_limits",
        ),
        Param(
            "limit_frequency",
            100.0,
            "End stops: natural frequency of the joints against their stops (the stiffest "
            "mode, the rest of the arm free); with "
            "a = 2 pi f / integration_rate and zeta = limit_damping_ratio, the step is stable "
            "while a^2 + 4 zeta a < 4 and zeta a < 1 (0.83 at zeta = 1).",
            D,
            units="Hz",
            range=(0.0, 1.0e4),
            config="limit_frequency",
        ),
        Param(
            "limit_damping_ratio",
            1.0,
            "End stops: damping ratio (1 = critical).",
            D,
            range=(0.0, 100.0),
            config="limit_damping_ratio",
        ),
        Param(
            "joint_impedance.stiffness",
            [],
            "Drive-level joint stiffness, one value or one per joint; empty: off. With "
            "joint_impedance.damping D and step dt, refused unless 4 M - dt^2 K - 2 dt D is "
            "positive definite (M the mass matrix at the initial positions and the setpoint): "
            "the step would ring at its Nyquist rate.",
            DA,
            units="N m/rad",
            range=(0.0, 1.0e7),
        ),
        Param(
            "joint_impedance.damping",
            [],
            "Drive-level joint damping, one value or one per joint; empty: off. Refused when the "
            "step is unstable with it (see joint_impedance.stiffness).",
            DA,
            units="N m s/rad",
            range=(0.0, 1.0e5),
        ),
        Param(
            "joint_impedance.setpoint",
            [],
            "Joint-impedance setpoint, model order; empty: the initial positions.",
            DA,
            units="rad",
            range=(-1.0e3, 1.0e3),
        ),
        Param(
            "hold_until_first_command",
            False,
            "Keep the joints braked (frozen at rest, effort 0) until the first ~/commands "
            "message (also after ~/reset; a model rebuild keeps released brakes released).",
            B,
            config="brakes",
        ),
        Param(
            "command_timeout",
            0.0,
            "Zero the command when none arrived for this long (simulated time); 0 holds the "
            "last command forever.",
            D,
            units="s",
            range=(0.0, 3600.0),
            config="command_timeout",
        ),
        Param(
            "external_wrench_duration",
            0.0,
            "Apply each ~/external_wrench message for this long (simulated time); 0: while "
            "messages keep coming.",
            D,
            units="s",
            range=(0.0, 3600.0),
            config="wrench_duration",
        ),
        Param(
            "external_wrench_timeout",
            0.2,
            "With external_wrench_duration 0: remove the wrench when no message came for this "
            "long (simulated time).",
            D,
            units="s",
            range=(0.0, 3600.0),
            config="wrench_timeout",
        ),
        Param(
            "external_wrench_axes",
            "link",
            "Axes of incoming wrenches: link (the axes of header.frame_id when the message "
            "arrives, as ROS reads a WrenchStamped at its time; held in base axes from then on, "
            "so a force that turns with the link comes as a stream of messages) or base; the "
            "moment is always about that link's origin.",
            S,
            choices=("base", "link"),
            config="wrench_axes",
        ),
    ),
)

ARM_SIMULATOR = NodeSchema(
    "arm_simulator",
    (model_section("External wrenches without frame_id act here."), SIMULATION),
)
"""Every parameter of the simulated arm."""
