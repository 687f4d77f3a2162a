"""The ROS-free simulated arm against the core, without DDS.

* free fall with zero torque (no end stops) equals the core's fixed-step ``simulate``
  (semi-implicit Euler, 1 ms) to 1e-12 rad: the arm adds nothing of its own to the physics;
* end stops are on by default and hold a falling arm; stops unstable at the step and a start
  beyond the limits are refused; the default start is 0, or mid-range beyond the limits;
* commands in another joint order and a subset land on the right joints; saturation at the URDF
  effort limits; wrong-length and NaN commands refused by name, the previous command kept;
* the reported effort is the average of the drive torques since the previous sample;
* an external wrench equals the core's ``step`` with ``f_ext`` (base and link axes) and ends
  after its duration; brakes hold until the first command (again after a reset, not after a
  model rebuild); the command timeout zeroes it;
* the clock counts whole nanoseconds: a new rate changes the step, never the time so far;
  ``next_sample_ns`` is where ``run_to_next_sample`` lands;
* a diverging step resets the arm and is counted;
* the friction parameters (asymmetric, Stribeck) act as the core's friction model does; the
  reported effort carries the effort_scale / effort_offset a driver would report with;
* the options (``ArmOptions``) are the ``arm_simulator`` declarations with a config path, taken as
  they are; settings outside their declarations are refused by name;
* joint-impedance gains unstable at the step (at the initial positions, at the setpoint) are
  refused naming the joints and the damping and rate that are stable, which are taken; refused
  gains forced in ring at the Nyquist rate, accepted ones settle.
"""

import dataclasses
import re

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.schema import ARM_SIMULATOR
from robot_dynamics.simulation import ArmOptions, ArmSettings, CommandError, SimulatedArm
from robot_dynamics.tools.bundled import BUNDLED, bundled_urdf_path

NANO = 1_000_000_000

DEFAULTS = {p.name: p.default for p in ARM_SIMULATOR.params}


@pytest.fixture(scope="module")
def panda():
    return RobotModel.from_urdf_file(bundled_urdf_path("panda"), tip_link="panda_link8")


def make_arm(model, **changes):
    values = {**DEFAULTS, **changes}
    return SimulatedArm(model, ArmSettings.from_values(model, values))


def test_free_fall_equals_the_core_fixed_step_integration(panda):
    q0 = np.array(BUNDLED["panda"].home)
    arm = make_arm(panda, initial_positions=list(q0), joint_friction=False, position_limits=False)
    q, qd = q0.copy(), np.zeros(panda.n)
    for _ in range(300):
        arm.step()
        q, qd = panda.step(q, qd, np.zeros(panda.n), 1e-3)
    np.testing.assert_allclose(arm.q, q, atol=1e-12)
    np.testing.assert_allclose(arm.qd, qd, atol=1e-12)
    assert arm.t_ns == 300 * 1_000_000
    assert arm.counters.steps == 300


def test_commands_land_on_named_joints_and_saturate(panda):
    arm = make_arm(panda, joints=["panda_joint3", "panda_joint1"])
    arm.command([2.0, -500.0])
    arm.step()
    effort = arm.sample().effort
    expected = np.zeros(panda.n)
    expected[2] = 2.0
    expected[0] = -panda.effort_limits[0]
    np.testing.assert_allclose(effort, expected)


@pytest.mark.parametrize(
    "torques, kind, named",
    [([1.0], "length", "panda_joint3, panda_joint1"), ([np.nan, 1.0], "nan", "panda_joint3")],
)
def test_bad_commands_are_refused_by_name_and_the_previous_one_kept(panda, torques, kind, named):
    arm = make_arm(panda, joints=["panda_joint3", "panda_joint1"])
    arm.command([1.0, 0.5])
    with pytest.raises(CommandError, match=named) as err:
        arm.command(torques)
    assert err.value.kind == kind
    arm.step()
    assert arm.sample().effort[2] == 1.0
    assert arm.counters.commands == 1


def test_effort_is_the_average_of_the_drive_torques_since_the_last_sample(panda):
    arm = make_arm(panda, joint_friction=False)
    arm.command(np.full(panda.n, 1.0))
    arm.step()
    arm.command(np.full(panda.n, 3.0))
    arm.step()
    np.testing.assert_allclose(arm.sample().effort, 2.0)
    arm.step()
    np.testing.assert_allclose(arm.sample().effort, 3.0)


@pytest.mark.parametrize("axes", ["base", "link"])
def test_external_wrench_equals_the_core_step_and_ends(panda, axes):
    q0 = np.array(BUNDLED["panda"].home)
    arm = make_arm(
        panda,
        initial_positions=list(q0),
        joint_friction=False,
        external_wrench_axes=axes,
        external_wrench_duration=0.0025,
    )
    w = np.array([5.0, -3.0, 10.0, 0.2, 0.0, -0.4])
    arm.apply_wrench("panda_link8", w)
    w_base = w
    if axes == "link":
        rot = panda.frame_pose(q0, frame="panda_link8")[:3, :3]
        w_base = np.concatenate([rot @ w[:3], rot @ w[3:]])
    q, qd = q0.copy(), np.zeros(panda.n)
    for _ in range(3):
        arm.step()
        q, qd = panda.step(q, qd, np.zeros(panda.n), 1e-3, f_ext=w_base, frame="panda_link8")
    np.testing.assert_allclose(arm.q, q, atol=1e-12)
    sample = arm.sample()
    assert sample.wrench_link == "panda_link8"
    np.testing.assert_allclose(sample.wrench, w_base)
    # the link's axes at the sample's positions: what a sensor there reads (the link has turned)
    rot = panda.frame_pose(q, frame="panda_link8")[:3, :3]
    np.testing.assert_allclose(
        sample.wrench_in_link, np.concatenate([rot.T @ w_base[:3], rot.T @ w_base[3:]]), atol=1e-12
    )
    assert not np.allclose(rot, panda.frame_pose(q0, frame="panda_link8")[:3, :3], atol=1e-9)
    arm.step()  # 3 ms >= 2.5 ms: gone
    after = arm.sample()
    assert not np.any(after.wrench) and not np.any(after.wrench_in_link)


def test_wrench_on_an_unknown_link_is_refused(panda):
    arm = make_arm(panda)
    with pytest.raises(CommandError, match="'nolink' is not a link") as err:
        arm.apply_wrench("nolink", np.ones(6))
    assert err.value.kind == "frame"


def test_brakes_hold_until_the_first_command_and_again_after_reset(panda):
    q0 = np.array(BUNDLED["panda"].home)
    arm = make_arm(panda, hold_until_first_command=True, initial_positions=list(q0))
    for _ in range(10):
        arm.step()
    assert arm.braked and np.all(arm.q == q0) and arm.counters.steps == 0
    arm.command(np.zeros(panda.n))
    arm.step()
    assert not arm.braked and arm.counters.steps == 1 and not np.all(arm.q == q0)
    arm.reset()
    assert arm.braked and np.all(arm.q == q0)


def test_command_timeout_zeroes_the_command(panda):
    arm = make_arm(panda, command_timeout=0.002, effort_limit_saturation=False)
    arm.command(np.full(panda.n, 1.0))
    for _ in range(3):
        arm.step()
    np.testing.assert_allclose(arm.sample().effort, 1.0)
    arm.step()
    np.testing.assert_allclose(arm.sample().effort, 0.0)


def test_a_new_rate_changes_the_step_never_the_clock(panda):
    arm = make_arm(panda, integration_rate=3000.0)
    arm.run_to_next_sample()  # 500 Hz samples: 6 steps of 333333 ns
    assert arm.t_ns == 6 * 333333
    before = arm.t_ns
    arm.reconfigure(ArmSettings.from_values(panda, {**DEFAULTS, "integration_rate": 1000.0}))
    arm.step()
    assert arm.t_ns == before + 1_000_000


def test_next_sample_ns_is_where_run_to_next_sample_lands(panda):
    arm = make_arm(panda, integration_rate=1000.0, publish_rate=250.0)  # a sample every 4 steps
    assert arm.next_sample_ns == 4_000_000
    arm.step()
    assert arm.next_sample_ns == 4_000_000
    # a new rate between two samples: the rest of the period in the new step
    arm.reconfigure(
        ArmSettings.from_values(
            panda, {**DEFAULTS, "integration_rate": 2000.0, "publish_rate": 250.0}
        )
    )
    assert arm.next_sample_ns == 1_000_000 + 7 * 500_000
    expected = arm.next_sample_ns
    arm.run_to_next_sample()
    assert arm.t_ns == expected
    assert arm.next_sample_ns == expected + 8 * 500_000


def test_impedance_torque_is_part_of_the_effort(panda):
    q0 = np.array(BUNDLED["panda"].home)
    arm = make_arm(
        panda,
        initial_positions=list(q0 + 0.01),
        effort_limit_saturation=False,
        **{
            "joint_impedance.stiffness": [400.0],
            "joint_impedance.damping": [10.0],
            "joint_impedance.setpoint": list(q0),
        },
    )
    arm.command(np.full(panda.n, 0.5))
    arm.step()  # at rest: the drive adds K (setpoint - q)
    np.testing.assert_allclose(arm.sample().effort, 0.5 - 400.0 * 0.01, atol=1e-12)


def test_a_diverging_step_resets_the_arm(panda):
    arm = make_arm(panda, effort_limit_saturation=False, joint_friction=False)
    arm.command(np.full(panda.n, 1e9))
    for _ in range(50):
        arm.step()
        if arm.counters.diverged:
            break
    assert arm.counters.diverged == 1
    assert np.all(np.isfinite(arm.q))
    np.testing.assert_allclose(arm.q, arm.settings.q0)


def test_the_default_start_is_zero_or_mid_range_within_the_limits(panda):
    lower, upper = panda.position_limits
    q0 = make_arm(panda).settings.q0
    inside = (np.asarray(lower) <= 0.0) & (0.0 <= np.asarray(upper))
    assert not inside.all()  # the Panda's joint 4 has 0 beyond its upper limit
    np.testing.assert_allclose(q0[inside], 0.0)
    np.testing.assert_allclose(q0[~inside], ((np.asarray(lower) + upper) / 2)[~inside])


def test_end_stops_are_on_by_default_and_hold_a_falling_arm(panda):
    lower, upper = (np.asarray(v) for v in panda.position_limits)
    arm = make_arm(panda, joint_friction=False)
    free = make_arm(panda, joint_friction=False, position_limits=False)
    for _ in range(3000):
        arm.step()
        free.step()
    assert arm.counters.diverged == 0
    # a few hundredths of a radian into a 100 Hz stop under gravity, never through it
    assert np.all(arm.q > lower - 0.05) and np.all(arm.q < upper + 0.05)
    assert np.any((free.q < lower - 0.5) | (free.q > upper + 0.5))


@pytest.mark.parametrize(
    "frequency, damping_ratio, rate, stable",
    [(100.0, 1.0, 1000.0, True), (100.0, 1.0, 700.0, False), (150.0, 0.0, 500.0, True)],
)
def test_end_stops_unstable_at_the_step_are_refused(panda, frequency, damping_ratio, rate, stable):
    values = {
        **DEFAULTS,
        "limit_frequency": frequency,
        "limit_damping_ratio": damping_ratio,
        "integration_rate": rate,
    }
    if stable:
        ArmSettings.from_values(panda, values)
    else:
        with pytest.raises(ValueError, match="limit_frequency: end stops at 100 Hz"):
            ArmSettings.from_values(panda, values)
    # without end stops the same rates are taken
    ArmSettings.from_values(panda, {**values, "position_limits": False})


@pytest.mark.parametrize(
    "changes, named",
    [
        ({"joints": ["panda_joint1", "panda_joint1"]}, "listed twice"),
        ({"joints": ["elbow"]}, "unknown joint"),
        ({"initial_positions": [0.0, 1.0]}, "initial_positions has 2 values"),
        ({"effort_scale": [1.0] * 6 + [0.0]}, "effort_scale must not be 0"),
        ({"effort_offset": [1.0]}, "effort_offset has 1 values"),
        ({"friction.coulomb": [1.0] * 3}, "friction.coulomb must have 7 values"),
        ({"friction.asymmetry": [0.5] * 7}, "friction.asymmetry of joint 'panda_joint1'"),
        ({"external_wrench_axes": "tool"}, "external_wrench_axes: must be one of"),
        ({"command_timeout": -1.0}, "command_timeout: must be >= 0.0"),
        ({"initial_positions": [0.0] * 7}, "joint panda_joint4 starts at 0, outside its limits"),
    ],
)
def test_bad_settings_are_refused_by_name(panda, changes, named):
    with pytest.raises(ValueError, match=named):
        ArmSettings.from_values(panda, {**DEFAULTS, **changes})


def test_the_options_are_the_declared_parameters_as_they_are(panda):
    """ArmOptions has one field per arm_simulator parameter with a config path, of its type, with
    its default; ArmSettings carries them with the parameters' values."""
    options = {p.config: p for p in ARM_SIMULATOR.params if p.config is not None}
    fields = {f.name: f for f in dataclasses.fields(ArmOptions)}
    assert set(fields) == set(options)
    for name, p in options.items():
        assert fields[name].default == p.default, name
        assert fields[name].type is type(p.default), name
    changes = {"hold_until_first_command": True, "external_wrench_axes": "link"}
    changes.update(command_timeout=0.5, effort_noise=0.01, joint_friction=False)
    settings = ArmSettings.from_values(panda, {**DEFAULTS, **changes})
    for name, p in options.items():
        assert getattr(settings, name) == changes.get(p.name, p.default), name
    assert isinstance(settings, ArmOptions)


def test_effort_noise_is_on_the_reported_effort_only(panda):
    values = {**DEFAULTS, "effort_noise": 0.5, "joint_friction": False}
    arm = SimulatedArm(panda, ArmSettings.from_values(panda, values), rng=np.random.default_rng(3))
    quiet = make_arm(panda, joint_friction=False)
    samples = []
    for _ in range(400):
        arm.step()
        quiet.step()
        samples.append(arm.sample().effort)
    np.testing.assert_allclose(arm.q, quiet.q, atol=0)
    assert 0.45 < np.std(samples) < 0.55


def test_a_reset_with_a_generator_draws_the_noise_from_it(panda):
    """reset(rng=...) starts the effort noise again from that generator; reset() keeps drawing
    from the current one."""
    values = {**DEFAULTS, "effort_noise": 0.5, "hold_until_first_command": True}
    settings = ArmSettings.from_values(panda, values)

    def efforts(arm, count=20):
        out = []
        for _ in range(count):
            arm.run_to_next_sample()
            out.append(arm.sample().effort)
        return np.array(out)

    arm = SimulatedArm(panda, settings, rng=np.random.default_rng(7))
    first = efforts(arm)
    arm.reset(rng=np.random.default_rng(7))
    np.testing.assert_array_equal(efforts(arm), first)
    arm.reset()
    assert not np.any(efforts(arm) == first)
    other = SimulatedArm(panda, settings, rng=np.random.default_rng(8))
    assert not np.any(efforts(other) == first)


def test_friction_parameters_act_as_the_core_friction_model(panda):
    n = panda.n
    friction = {
        "friction.viscous": [0.5] * n,
        "friction.coulomb": [1.0] * n,
        "friction.asymmetry": [0.4, -0.4, 0.2, 0.0, 0.3, -0.1, 0.05],
        "friction.stribeck": [0.6] * n,
        "friction.stribeck_velocity": [0.05] * n,
    }
    arm = make_arm(panda, initial_velocities=[0.3, -0.2, 0.1, 0.02, -0.01, 0.0, 0.04], **friction)
    truth = panda.with_friction(panda.friction.with_parameters(friction))
    assert truth.friction.asymmetry[0] == 0.4
    q, qd = arm.q, arm.qd
    for _ in range(200):
        arm.step()
        q, qd = truth.step(q, qd, np.zeros(n), 0.001, friction=True)
    np.testing.assert_allclose(arm.q, q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(arm.qd, qd, rtol=0, atol=1e-12)
    # a new friction model at run time: the state stays, the new friction acts
    values = {**DEFAULTS, **friction, "friction.asymmetry": []}
    arm.reconfigure(ArmSettings.from_values(panda, values))
    truth = panda.with_friction(panda.friction.with_parameters(values))
    q, qd = arm.q, arm.qd
    for _ in range(50):
        arm.step()
        q, qd = truth.step(q, qd, np.zeros(n), 0.001, friction=True)
    np.testing.assert_allclose(arm.q, q, rtol=0, atol=1e-12)


def test_effort_scale_and_offset_of_the_reported_effort(panda):
    n = panda.n
    scale = np.array([2.0, -1.0, 0.5, 1.0, 1.0, 4.0, -2.0])
    offset = np.linspace(-0.3, 0.3, n)
    arm = make_arm(
        panda, joint_friction=False, effort_scale=list(scale), effort_offset=list(offset)
    )
    plain = make_arm(panda, joint_friction=False)
    tau = np.linspace(1.0, 7.0, n)
    for a in (arm, plain):
        a.command(tau)
        a.step()
        a.step()
    effort = arm.sample().effort
    np.testing.assert_allclose(effort, (tau - offset) / scale, rtol=0, atol=1e-12)
    # the dynamics node's conversion tau = scale * effort + offset gives the torque back
    np.testing.assert_allclose(scale * effort + offset, plain.sample().effort, atol=1e-12)
    np.testing.assert_allclose(arm.q, plain.q, atol=0)


def test_a_name_that_is_not_a_parameter_is_refused(panda):
    with pytest.raises(ValueError, match="not arm_simulator parameters: friction "):
        ArmSettings.from_values(panda, {**DEFAULTS, "friction": False})


def test_a_model_without_finite_limits_takes_any_rate_with_end_stops_on():
    with open(bundled_urdf_path("double_pendulum")) as f:
        urdf = f.read().replace('type="revolute"', 'type="continuous"')
    model = RobotModel.from_urdf_string(urdf)
    values = {**DEFAULTS, "integration_rate": 100.0, "initial_positions": [10.0, -10.0]}
    assert ArmSettings.from_values(model, values).position_limits


IMPEDANCE = {"joint_impedance.stiffness": [2000.0], "joint_impedance.damping": [40.0]}


def test_joint_impedance_unstable_at_the_step_is_refused_with_what_is_stable(panda):
    """At the Panda's home pose, 2000 N m/rad and 40 N m s/rad are unstable at 1 kHz on joint 7;
    the message names it and the damping and rate that are stable, and both are taken."""
    home = list(BUNDLED["panda"].home)
    values = {**DEFAULTS, **IMPEDANCE, "initial_positions": home}
    with pytest.raises(ValueError) as err:
        ArmSettings.from_values(panda, values)
    message = str(err.value)
    assert message.startswith(
        "joint_impedance: unstable at integration_rate 1000 Hz at the initial positions: "
        "panda_joint7 with stiffness 2000 N m/rad and damping 40 N m s/rad would ring"
    )
    found = re.search(
        r"joint_impedance.damping at most ([\d.]+) times it \(([\d.]+) N m s/rad\)", message
    )
    assert found and float(found.group(2)) == pytest.approx(40.0 * float(found.group(1)))
    rate = float(re.search(r"integration_rate (\d+) Hz or more", message).group(1))
    ArmSettings.from_values(panda, {**values, "joint_impedance.damping": [float(found.group(2))]})
    ArmSettings.from_values(panda, {**values, "integration_rate": rate})
    # a run-time change to a lower rate is refused the same way
    stable = {**values, "joint_impedance.damping": [10.0]}
    ArmSettings.from_values(panda, stable)
    with pytest.raises(ValueError, match="unstable at integration_rate 800 Hz"):
        ArmSettings.from_values(panda, {**stable, "integration_rate": 800.0})


def test_joint_impedance_is_checked_at_the_setpoint_too(panda):
    """The inertia changes with q: stable at the home pose, the same gains are unstable at the
    default start, where joint 7 sees less inertia."""
    home = list(BUNDLED["panda"].home)
    values = {**DEFAULTS, **IMPEDANCE, "joint_impedance.damping": [10.0]}
    ArmSettings.from_values(panda, {**values, "initial_positions": home})
    setpoint = list(make_arm(panda).settings.q0)
    with pytest.raises(ValueError, match="at joint_impedance.setpoint: panda_joint7 with "):
        ArmSettings.from_values(
            panda, {**values, "initial_positions": home, "joint_impedance.setpoint": setpoint}
        )


@pytest.mark.parametrize("damping, rings", [(11.9, False), (12.1, True), (40.0, True)])
def test_joint_impedance_is_refused_where_the_arm_rings_at_the_nyquist_rate(damping, rings):
    """The refusal is the arm's behaviour: a nudge of joint 7 at the home pose (no gravity: the
    arm stays there) settles at 11.9 N m s/rad, which is taken; at 12.1 and 40, which are
    refused (the limit at the home pose is 11.96), the gains forced in make it grow into an
    oscillation that flips every step, up to the effort limits."""
    weightless = RobotModel.from_urdf_file(
        bundled_urdf_path("panda"), tip_link="panda_link8", gravity=(0.0, 0.0, 0.0)
    )
    values = {
        **DEFAULTS,
        **IMPEDANCE,
        "initial_positions": list(BUNDLED["panda"].home),
        "initial_velocities": [0.0] * 6 + [1e-3],
        "joint_impedance.damping": [damping],
    }
    if rings:
        with pytest.raises(ValueError, match="initial positions: panda_joint7 with "):
            ArmSettings.from_values(weightless, values)
        values["joint_impedance.damping"] = [1.0]
    settings = ArmSettings.from_values(weightless, values)
    arm = SimulatedArm(weightless, dataclasses.replace(settings, damping=np.full(7, damping)))
    arm.command(np.zeros(7))
    for _ in range(2000):
        arm.step()
    last = []
    for _ in range(100):
        arm.step()
        last.append(arm.qd[6])
    last = np.array(last)
    if rings:
        assert np.all(last[1:] * last[:-1] < 0) and np.abs(last).min() > 0.5
    else:
        assert np.abs(last).max() < 1e-9


def test_a_rebuilt_model_keeps_the_brakes_released(panda):
    """Released by a command, the brakes stay released on a model rebuild (the state is reset,
    the clock runs on); an arm still braked stays braked; reset brakes again."""
    values = {**DEFAULTS, "hold_until_first_command": True}
    arm = SimulatedArm(panda, ArmSettings.from_values(panda, values))
    heavier = RobotModel.from_urdf_file(
        bundled_urdf_path("panda"), tip_link="panda_link8", gravity=(0.0, 0.0, -9.0)
    )
    settings = ArmSettings.from_values(heavier, values)
    assert arm.rebuilt(heavier, settings).braked
    arm.command(np.zeros(panda.n))
    arm.run_to_next_sample()
    new = arm.rebuilt(heavier, settings)
    assert not new.braked and new.t_ns == arm.t_ns and new.model is heavier
    np.testing.assert_array_equal(new.q, settings.q0)
    new.step()
    assert new.counters.steps == 1 and np.any(new.sample().effort == 0.0)
    new.reset()
    assert new.braked
