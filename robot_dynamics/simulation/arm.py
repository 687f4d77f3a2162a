"""A simulated torque-controlled arm: physics, command handling and clock, without ROS.

:class:`SimulatedArm` integrates the core's forward dynamics (``RobotModel.step``: semi-implicit
Euler at a fixed step) and behaves like the driver of a torque-controlled arm behind ros2_control's
``effort_controllers/JointGroupEffortController``: it holds the last torque command (optionally
only for ``command_timeout``), saturates it at the URDF effort limits, adds an optional drive-level
joint impedance, applies an external wrench for a while, and reports the drives' torque averaged
over the steps since the previous sample, as a driver reports its filtered joint torque.

Simulated time is kept in integer nanoseconds (the step ``dt`` rounded to whole nanoseconds), so
changing the integration rate changes the step, never the clock: stamps stay monotonic.

:class:`ArmSettings` is the validated, model-dependent configuration, built once from the
simulator's parameter values by :meth:`ArmSettings.from_values`: the options taken as they are
(:class:`ArmOptions`, derived from the ``arm_simulator`` declarations with a ``config`` field) and
what the other parameters give for the model. The ``arm_simulator`` node
(:mod:`robot_dynamics.ros.arm_simulator`) converts messages, paces the loop against the wall clock
(:class:`~robot_dynamics.simulation.pacing.Pacer`) and publishes; everything else is here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from robot_dynamics.core.actuation import (
    end_stop_gains,
    end_stop_stable,
    impedance_gain_scale,
    impedance_max_step,
    impedance_modes,
    impedance_stable,
    impedance_step_gains,
    impedance_torques,
    limit_stop_torques,
    saturate,
)
from robot_dynamics.core.errors import InvalidInputError
from robot_dynamics.core.friction import FrictionModel
from robot_dynamics.core.locked_joints import default_positions
from robot_dynamics.core.spatial import wrench_in_frame
from robot_dynamics.schema import ARM_SIMULATOR
from robot_dynamics.schema.derive import config_class, config_from_values

_PARAMETER_NAMES = frozenset(p.name for p in ARM_SIMULATOR.params)

NANO = 1_000_000_000
_PARAMS = ARM_SIMULATOR.params
_OPTIONS = tuple(p for p in _PARAMS if p.config is not None)  # the fields of ArmOptions


class CommandError(ValueError):
    """A torque command or an external wrench that the arm refuses.

    Attributes:
        kind: a short key for counting and log throttling ("length", "nan", "frame", ...).
    """

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _per_joint(values, n: int, name: str, default: float, allow_scalar: bool = False):
    """(n,) float array from a parameter value ([] = ``default`` for every joint)."""
    if values is None or len(values) == 0:
        return np.full(n, default, dtype=float)
    arr = np.asarray(list(values), dtype=float)
    if allow_scalar and arr.size == 1:
        return np.full(n, float(arr[0]))
    if arr.size != n:
        raise InvalidInputError(
            f"{name} has {arr.size} values, the model has {n} joints"
            + (" (or give 1 value)" if allow_scalar else ""),
            argument=name,
        )
    if not np.all(np.isfinite(arr)):
        raise InvalidInputError(f"{name} has a NaN or infinite entry", argument=name)
    return arr


def _check_end_stops(values, rate, names, q0, lower, upper):
    """InvalidInputError when the end stops cannot work: unstable at the step, or a joint that
    starts beyond its limits (nothing to check when no joint has a finite limit)."""
    if not (np.isfinite(lower).any() or np.isfinite(upper).any()):
        return
    frequency, zeta = float(values["limit_frequency"]), float(values["limit_damping_ratio"])
    if not end_stop_stable(frequency, zeta, 1.0 / rate):
        raise InvalidInputError(
            f"limit_frequency: end stops at {frequency:g} Hz (limit_damping_ratio {zeta:g}) are "
            f"unstable at integration_rate {rate:g} Hz (2 pi f / rate = "
            f"{2 * np.pi * frequency / rate:.3g}; stable while below 0.83 at a damping ratio of "
            "1): lower limit_frequency, raise integration_rate, or set position_limits false",
            argument="limit_frequency",
        )
    outside = (q0 < lower) | (q0 > upper)
    if outside.any():
        j = int(np.argmax(outside))
        raise InvalidInputError(
            f"initial_positions: joint {names[j]} starts at {q0[j]:g}, outside its limits "
            f"[{lower[j]:g}, {upper[j]:g}], against an end stop (position_limits is on)",
            argument="initial_positions",
        )


def _round(value: float, up: bool) -> float:
    """``value`` to 3 significant digits, rounded up or down."""
    scale = 10.0 ** (np.floor(np.log10(value)) - 2)
    return float((np.ceil if up else np.floor)(value / scale) * scale)


def _values_text(values, unit=""):
    """One value when they are all equal, else each, with the unit (4 significant digits)."""
    shown = [f"{v:.4g}" for v in values]
    return (shown[0] if len(set(shown)) == 1 else ", ".join(shown)) + unit


def _check_impedance(model, names, places, stiffness, damping, viscous, dt):
    """InvalidInputError when the joint impedance is unstable at the step at one of ``places``
    (label -> configuration), naming the joints of the unstable modes and what is stable.

    The test is :func:`impedance_stable` with M at each place: the exact stability of the step
    for the joints held by the impedance together (with the viscous friction, which the step
    treats as damping). A joint is named when it carries a tenth or more of the gain of an
    unstable mode."""
    for label, q in places.items():
        mass = model.mass_matrix(q)
        if impedance_stable(mass, stiffness, damping + viscous, dt):
            continue
        gains = impedance_step_gains(stiffness, damping + viscous, dt)
        lam, modes = impedance_modes(mass, gains)
        share = gains[:, None] * modes[:, lam >= 4.0] ** 2
        involved = np.flatnonzero(np.any(share >= 0.1 * share.sum(axis=0), axis=1))
        fixes = []
        for name, values, unit, scaled, fixed in (
            ("damping", damping, " N m s/rad", (0.0, damping), (stiffness, viscous)),
            ("stiffness", stiffness, " N m/rad", (stiffness, 0.0), (0.0, damping + viscous)),
        ):
            scale = impedance_gain_scale(
                mass, impedance_step_gains(*fixed, dt), impedance_step_gains(*scaled, dt)
            )
            if np.any(values) and scale > 0.0:
                scale = _round(scale, up=False)
                fixes.append(
                    f"joint_impedance.{name} at most {scale:g} times it "
                    f"({_values_text(scale * values[involved], unit)})"
                )
        rate = _round(1.0 / impedance_max_step(mass, stiffness, damping + viscous), up=True)
        fixes.append(f"integration_rate {rate:g} Hz or more")
        joints = ", ".join(names[j] for j in involved)
        raise InvalidInputError(
            f"joint_impedance: unstable at integration_rate {1.0 / dt:g} Hz at {label}: "
            f"{joints} with stiffness {_values_text(stiffness[involved], ' N m/rad')} and damping "
            f"{_values_text(damping[involved], ' N m s/rad')} would ring at the step's Nyquist "
            "rate, growing up to the effort limits (a stable step needs 4 M - dt^2 K - 2 dt D "
            f"positive definite, M the mass matrix there); stable with {', or '.join(fixes)}",
            argument="joint_impedance",
        )


ArmOptions = config_class(
    "ArmOptions",
    _PARAMS,
    "The simulated arm's options that are its parameters' values as they are (the "
    "``arm_simulator`` declarations with a ``config`` field).",
    __name__,
)


@dataclass(frozen=True, kw_only=True)
class ArmSettings(ArmOptions):
    """The simulator's validated configuration for one model: the fields of :class:`ArmOptions`
    (parameter values as they are) and what the other parameters give for the model.

    Attributes:
        joints: joint names in the order of a command vector.
        command_index: (len(joints),) model indices of those joints.
        q0: (n,) initial positions [rad or m].
        qd0: (n,) initial velocities [rad/s or m/s].
        stiffness: (n,) joint-impedance stiffness [N m/rad or N/m].
        damping: (n,) joint-impedance damping [N m s/rad or N s/m].
        setpoint: (n,) joint-impedance setpoint [rad or m].
        friction_model: :class:`~robot_dynamics.core.friction.FrictionModel`: the model's own
            (URDF) with the ``friction.*`` parameters over it (acting with ``friction``).
        lower: (n,) lower position limits [rad or m].
        upper: (n,) upper position limits [rad or m].
        effort_limits: (n,) effort limits [N m or N] (``saturation`` clips at them).
        effort_scale: (n,) nonzero; the reported effort is ``(torque + noise - effort_offset)
            / effort_scale`` (a driver whose efforts convert as ``tau = scale * effort +
            offset``).
        effort_offset: (n,) [N m or N], the offset above.
        dt_ns: the fixed step [ns].
        publish_every: steps between two samples.
    """

    joints: tuple
    command_index: np.ndarray
    q0: np.ndarray
    qd0: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray
    setpoint: np.ndarray
    friction_model: FrictionModel
    lower: np.ndarray
    upper: np.ndarray
    effort_limits: np.ndarray
    effort_scale: np.ndarray
    effort_offset: np.ndarray
    dt_ns: int
    publish_every: int

    @property
    def dt(self) -> float:
        """The fixed step [s] (``dt_ns`` in seconds)."""
        return self.dt_ns / NANO

    @property
    def impedance(self) -> bool:
        """True when the joint impedance adds any torque."""
        return bool(np.any(self.stiffness) or np.any(self.damping))

    @classmethod
    def from_values(cls, model, values) -> "ArmSettings":
        """Settings of ``model`` from the simulator's parameter values.

        Args:
            model: the :class:`~robot_dynamics.core.model.RobotModel` to simulate.
            values: parameter name -> value (the ``arm_simulator`` parameters: ``joints``,
                ``initial_positions``, ``integration_rate``, ``joint_impedance.*``, ...), each
                already of its declared type and range.

        Returns:
            ArmSettings: the validated settings.

        Raises:
            InvalidInputError: naming the parameter (also as its ``argument``): an unknown or
                repeated joint, a per-joint value of the wrong length, a negative impedance, an
                option outside its declaration (an unknown wrench axes choice), friction
                coefficients the friction model refuses, a zero effort_scale; end stops or
                joint-impedance gains unstable at the step (the impedance at the initial
                positions and the setpoint: the joints, and the damping and rate that are
                stable).
            ValueError: a name that is not an ``arm_simulator`` parameter.
        """
        unknown_params = sorted(set(values) - _PARAMETER_NAMES)
        if unknown_params:
            raise ValueError(
                f"not arm_simulator parameters: {', '.join(unknown_params)} (see "
                "robot_dynamics.schema.ARM_SIMULATOR)"
            )
        n = model.n
        names = list(model.joint_names)
        joints = list(values["joints"] or names)
        unknown = [j for j in joints if j not in names]
        if unknown:
            raise InvalidInputError(
                f"joints: unknown joint(s) {', '.join(unknown)}; the model's joints are "
                f"{', '.join(names)}",
                argument="joints",
            )
        if len(set(joints)) != len(joints):
            raise InvalidInputError("joints: a joint is listed twice", argument="joints")
        if values["initial_positions"]:
            q0 = _per_joint(values["initial_positions"], n, "initial_positions", 0.0)
        else:
            q0, _ = default_positions(*model.position_limits)
        qd0 = _per_joint(values["initial_velocities"], n, "initial_velocities", 0.0)
        stiffness = _per_joint(
            values["joint_impedance.stiffness"], n, "joint_impedance.stiffness", 0.0, True
        )
        damping = _per_joint(
            values["joint_impedance.damping"], n, "joint_impedance.damping", 0.0, True
        )
        if np.any(stiffness < 0) or np.any(damping < 0):
            raise InvalidInputError(
                "joint_impedance stiffness and damping must be >= 0", argument="joint_impedance"
            )
        setpoint = values["joint_impedance.setpoint"]
        setpoint = (
            q0.copy() if not setpoint else _per_joint(setpoint, n, "joint_impedance.setpoint", 0.0)
        )
        friction_model = model.friction.with_parameters(values)
        effort_scale = _per_joint(values["effort_scale"], n, "effort_scale", 1.0)
        if np.any(effort_scale == 0.0):
            raise InvalidInputError(
                "effort_scale must not be 0 (the effort would be infinite)", argument="effort_scale"
            )
        effort_offset = _per_joint(values["effort_offset"], n, "effort_offset", 0.0)
        for param in _OPTIONS:
            reason = param.reason(values[param.name])
            if reason:
                raise InvalidInputError(f"{param.name}: {reason}", argument=param.name)
        rate = float(values["integration_rate"])
        lower, upper = (np.asarray(v, dtype=float) for v in model.position_limits)
        if values["position_limits"]:
            _check_end_stops(values, rate, names, q0, lower, upper)
        dt_ns = max(1, int(round(NANO / rate)))
        if np.any(stiffness) or np.any(damping):
            places = {"the initial positions": q0}
            if not np.array_equal(setpoint, q0):
                places["joint_impedance.setpoint"] = setpoint
            viscous = friction_model.viscous if values["joint_friction"] else np.zeros(n)
            _check_impedance(model, names, places, stiffness, damping, viscous, dt_ns / NANO)
        return config_from_values(
            cls,
            _PARAMS,
            values,
            more=dict(
                joints=tuple(joints),
                command_index=np.array([names.index(j) for j in joints], dtype=np.intp),
                q0=q0,
                qd0=qd0,
                stiffness=stiffness,
                damping=damping,
                setpoint=setpoint,
                friction_model=friction_model,
                lower=lower,
                upper=upper,
                effort_limits=np.asarray(model.effort_limits, dtype=float),
                effort_scale=effort_scale,
                effort_offset=effort_offset,
                dt_ns=dt_ns,
                publish_every=max(1, int(round(rate / float(values["publish_rate"])))),
            ),
        )


@dataclass(frozen=True)
class ArmSample:
    """What the arm reports at one instant of simulated time.

    Attributes:
        t_ns: simulated time [ns].
        position: (n,) joint positions [rad or m], model order.
        velocity: (n,) joint velocities [rad/s or m/s].
        effort: (n,) drive torques averaged over the steps since the previous sample, plus the
            effort noise [N m or N] (not friction, not end stops), converted as a driver with
            ``effort_scale`` and ``effort_offset`` reports them.
        wrench_link: the link the external wrench of the last step acted on (the tip link, or the
            base when the model has no tip, when none acted).
        wrench: (6,) that wrench, force first, base axes, moment about the link's origin
            [N, N m]; zeros when none acted.
        wrench_in_link: (6,) the same wrench in the link's own axes at ``position`` (what a
            force-torque sensor at the link reads; ``~/applied_wrench`` publishes it).
    """

    t_ns: int
    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray
    wrench_link: str
    wrench: np.ndarray
    wrench_in_link: np.ndarray


@dataclass
class _Wrench:
    link: str
    wrench: np.ndarray
    until_ns: int


@dataclass
class ArmCounters:
    """How many of each event the arm has seen.

    Attributes:
        commands: accepted torque commands.
        wrenches: accepted external wrenches.
        steps: integration steps (braked steps not counted).
        diverged: steps whose result was not finite (the arm was reset).
    """

    commands: int = 0
    wrenches: int = 0
    steps: int = 0
    diverged: int = 0


class SimulatedArm:
    """A torque-controlled arm integrated at a fixed step.

    Not thread-safe: a caller that steps in one thread and commands in another holds a lock.

    Args:
        model: the :class:`~robot_dynamics.core.model.RobotModel` to simulate.
        settings: its :class:`ArmSettings`.
        t_ns: simulated time to start at [ns] (a rebuilt arm carries the clock over).
        rng: numpy Generator for the effort noise (default: a fresh unseeded one).
    """

    def __init__(self, model, settings: ArmSettings, t_ns: int = 0, rng=None):
        self.model = model
        self.settings = settings
        self._physics = model.with_friction(settings.friction_model)
        self.counters = ArmCounters()
        self._rng = rng if rng is not None else np.random.default_rng()
        self._t_ns = int(t_ns)
        self._k = 0
        self.reset()

    # ------------------------------------------------------------------ state
    @property
    def t_ns(self) -> int:
        """Simulated time [ns]."""
        return self._t_ns

    @property
    def q(self) -> np.ndarray:
        """(n,) joint positions [rad or m] (a copy)."""
        return self._q.copy()

    @property
    def qd(self) -> np.ndarray:
        """(n,) joint velocities [rad/s or m/s] (a copy)."""
        return self._qd.copy()

    @property
    def braked(self) -> bool:
        """True while the brakes hold the joints (until the first command)."""
        return self._braked

    def reset(self, rng=None) -> None:
        """Back to the initial configuration at rest; clears the command and the wrench.

        Simulated time keeps running (clocks never go backwards).

        Args:
            rng: numpy Generator for the effort noise from now on (None: the current one runs
                on).
        """
        if rng is not None:
            self._rng = rng
        n = self.model.n
        self._q = self.settings.q0.copy()
        self._qd = self.settings.qd0.copy()
        self._cmd = np.zeros(n)
        self._cmd_t_ns: Optional[int] = None
        self._applied = np.zeros(n)
        self._applied_sum = np.zeros(n)
        self._applied_count = 0
        self._wrench: Optional[_Wrench] = None
        self._wrench_in_step: Optional[_Wrench] = None
        self._braked = self.settings.brakes

    def reconfigure(self, settings: ArmSettings) -> None:
        """Take new settings of the same model; the state, command and clock are kept.

        Args:
            settings: settings built for ``self.model``.
        """
        if settings.friction_model is not self.settings.friction_model:
            self._physics = self.model.with_friction(settings.friction_model)
        self.settings = settings

    def rebuilt(self, model, settings: ArmSettings) -> "SimulatedArm":
        """The arm of a rebuilt model: at the initial configuration of ``settings`` at rest, the
        command and the wrench cleared, with this arm's clock and noise generator, and its
        brakes as they are: released by a command, they stay released (they engage again only
        at :meth:`reset`).

        Args:
            model: the new :class:`~robot_dynamics.core.model.RobotModel`.
            settings: its :class:`ArmSettings`.

        Returns:
            SimulatedArm: the new arm (new counters).
        """
        arm = SimulatedArm(model, settings, t_ns=self._t_ns, rng=self._rng)
        arm._braked = arm._braked and self._braked
        return arm

    # ------------------------------------------------------------------ inputs
    def command(self, torques: Sequence[float]) -> None:
        """Take a torque command (held until the next one or ``command_timeout``).

        Args:
            torques: (len(settings.joints),) torques [N m or N] in the order of
                ``settings.joints``; joints not listed get 0.

        Raises:
            CommandError: the wrong number of values ("length"), or a NaN/inf ("nan"), naming
                the joints; the previous command stays.
        """
        s = self.settings
        data = np.asarray(torques, dtype=float)
        if data.shape != (len(s.joints),):
            raise CommandError(
                "length",
                f"~/commands has {data.size} values, expected {len(s.joints)} "
                f"(ordered by parameter joints: {', '.join(s.joints)})",
            )
        bad = np.flatnonzero(~np.isfinite(data))
        if bad.size:
            names = ", ".join(s.joints[i] for i in bad)
            raise CommandError("nan", f"~/commands has NaN/inf for {names}")
        cmd = np.zeros(self.model.n)
        cmd[s.command_index] = data
        self._cmd = cmd
        self._cmd_t_ns = self._t_ns
        self._braked = False
        self.counters.commands += 1

    def apply_wrench(self, link: Optional[str], wrench: Sequence[float]) -> None:
        """Apply an external wrench from now on (replacing the previous one).

        Args:
            link: the link it acts on, at its origin (None or "": the tip link).
            wrench: (6,) ``[fx, fy, fz, tx, ty, tz]`` the environment applies on the robot
                [N, N m], in ``settings.wrench_axes`` (the link's own axes, or base axes).
                All zeros removes the wrench.

        Raises:
            CommandError: no link and no tip ("no_frame"), an unknown link ("frame"), a NaN/inf
                component ("nan"); the previous wrench stays.
        """
        model, s = self.model, self.settings
        link = link or model.tip_link
        w = np.asarray(wrench, dtype=float).reshape(6)
        if link is None:
            raise CommandError(
                "no_frame", "~/external_wrench without frame_id and the model has no tip link"
            )
        if link not in model.link_names:
            raise CommandError(
                "frame",
                f"~/external_wrench frame_id {link!r} is not a link of the model "
                f"(links: {', '.join(model.link_names)})",
            )
        if not np.all(np.isfinite(w)):
            raise CommandError("nan", "~/external_wrench has a NaN/inf component")
        if s.wrench_axes == "link":
            rot = np.asarray(model.frame_pose(self._q, frame=link), dtype=float)[:3, :3]
            w = np.concatenate([rot @ w[:3], rot @ w[3:]])
        duration = s.wrench_duration if s.wrench_duration > 0 else s.wrench_timeout
        until = self._t_ns + max(s.dt_ns, int(round(duration * NANO)))
        self._wrench = _Wrench(link, w, until) if np.any(w) else None
        self.counters.wrenches += 1

    # ------------------------------------------------------------------ physics
    def _drive_torques(self) -> np.ndarray:
        """The drives' torque this step: command (or 0 after the timeout) + impedance, clipped."""
        s = self.settings
        cmd = self._cmd
        if (
            s.command_timeout > 0
            and self._cmd_t_ns is not None
            and (self._t_ns - self._cmd_t_ns) > s.command_timeout * NANO
        ):
            cmd = np.zeros_like(cmd)
        tau = cmd
        if s.impedance:
            tau = tau + impedance_torques(self._q, self._qd, s.setpoint, s.stiffness, s.damping)
        if s.saturation:
            tau = saturate(tau, s.effort_limits)
        return tau

    def step(self) -> None:
        """One fixed step of ``settings.dt``.

        A step whose result is not finite, or whose state or torque the model refuses as beyond
        its bounds, resets the arm to its initial configuration (counted
        in ``counters.diverged``); simulated time advances either way.
        """
        s = self.settings
        if self._braked:
            self._applied = np.zeros(self.model.n)
            self._wrench_in_step = None
            self._applied_count += 1
            self._advance()
            return
        tau = self._drive_torques()
        self._applied = tau
        self._applied_sum += tau
        self._applied_count += 1
        if s.position_limits:
            tau = tau + self._end_stop_torques()
        if self._wrench is not None and self._t_ns >= self._wrench.until_ns:
            self._wrench = None
        self._wrench_in_step = self._wrench
        w, link = (self._wrench.wrench, self._wrench.link) if self._wrench else (None, None)
        try:
            q, qd = self._physics.step(
                self._q, self._qd, tau, s.dt, f_ext=w, frame=link, friction=s.friction
            )
        except InvalidInputError:  # the state left the model's bounds
            q = qd = np.full(self.model.n, np.nan)
        if np.all(np.isfinite(q)) and np.all(np.isfinite(qd)):
            self._q, self._qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
            self.counters.steps += 1
        else:
            self.counters.diverged += 1
            self.reset()
        self._advance()

    def _end_stop_torques(self):
        """The end stops' torques (n,) on the joints beyond their limits, with gains for the
        joints against their stops at the current configuration (:func:`end_stop_gains`)."""
        s, q = self.settings, self._q
        beyond = (q < s.lower) | (q > s.upper)
        if not beyond.any():
            return 0.0
        k, d = end_stop_gains(self.model, q, s.limit_frequency, s.limit_damping_ratio, beyond)
        return limit_stop_torques(q, self._qd, s.lower, s.upper, k, d)

    def _advance(self) -> None:
        self._k += 1
        self._t_ns += self.settings.dt_ns

    def _steps_to_next_sample(self) -> int:
        every = self.settings.publish_every
        return every - (self._k % every)

    @property
    def next_sample_ns(self) -> int:
        """Simulated time [ns] that :meth:`run_to_next_sample` reaches with the current settings."""
        return self._t_ns + self._steps_to_next_sample() * self.settings.dt_ns

    def run_to_next_sample(self) -> None:
        """Step up to the next multiple of ``settings.publish_every`` steps."""
        for _ in range(self._steps_to_next_sample()):
            self.step()

    def sample(self) -> ArmSample:
        """What the arm reports now; starts a new effort average.

        Returns:
            ArmSample: the state, the averaged drive torques (with noise) and the wrench of the
            last step.
        """
        s = self.settings
        effort = self._applied_sum / self._applied_count if self._applied_count else self._applied
        if s.effort_noise > 0.0:
            effort = effort + self._rng.normal(0.0, s.effort_noise, effort.shape)
        effort = (effort - s.effort_offset) / s.effort_scale
        self._applied_sum = np.zeros(self.model.n)
        self._applied_count = 0
        if self._wrench_in_step is not None:
            link, wrench = self._wrench_in_step.link, self._wrench_in_step.wrench.copy()
            pose = np.asarray(self.model.frame_pose(self._q, frame=link), dtype=float)
            in_link = wrench_in_frame(wrench, pose, point=pose[:3, 3])
        else:
            link, wrench = self.model.tip_link or self.model.base_link, np.zeros(6)
            in_link = np.zeros(6)
        return ArmSample(self._t_ns, self.q, self.qd, effort, link, wrench, in_link)


__all__ = [
    "ArmCounters",
    "ArmOptions",
    "ArmSample",
    "ArmSettings",
    "CommandError",
    "NANO",
    "SimulatedArm",
]
