"""simulate under bad input and load: every argument validated before work (named), torques
bounded, the work of one call bounded by steps, samples, right-hand-side evaluations and wall
time (SimulationLimitError naming the bound), integrator failures and diverging states as
SimulationError; valid calls keep their results."""

import numpy as np
import pytest

import robot_urdfs
from robot_dynamics import RobotModel
from robot_dynamics.core.errors import (
    InvalidInputError,
    RobotDynamicsError,
    SimulationError,
    SimulationLimitError,
)
from robot_dynamics.core.simulate import IVP_METHODS

Z2 = np.zeros(2)
Q0 = np.array([0.4, -0.3])


@pytest.fixture(scope="module")
def dp():
    return RobotModel.from_urdf_file(
        robot_urdfs.DOUBLE_PENDULUM_URDF, gravity=robot_urdfs.DP_GRAVITY
    )


def test_error_hierarchy():
    assert issubclass(SimulationLimitError, SimulationError)
    assert issubclass(SimulationError, RobotDynamicsError)
    assert issubclass(SimulationError, RuntimeError)  # what integration failures raised before


BAD_ARGUMENTS = [
    ("rtol nan", dict(rtol=float("nan")), "rtol"),
    ("rtol inf", dict(rtol=float("inf")), "rtol"),
    ("rtol zero", dict(rtol=0.0), "rtol"),
    ("rtol below floor", dict(rtol=1e-13), "rtol"),
    ("rtol text", dict(rtol="tight"), "rtol"),
    ("atol nan", dict(atol=float("nan")), "atol"),
    ("atol negative", dict(atol=-1e-9), "atol"),
    ("fixed_step denormal", dict(method="semi_implicit_euler", fixed_step=5e-324), "fixed_step"),
    ("fixed_step 1e-9", dict(method="semi_implicit_euler", fixed_step=1e-9), "fixed_step"),
    ("fixed_step nan", dict(method="semi_implicit_euler", fixed_step=float("nan")), "fixed_step"),
    ("sample_dt denormal", dict(sample_dt=5e-324), "sample_dt"),
    ("sample_dt 1e-9", dict(sample_dt=1e-9), "sample_dt"),
    ("sample_dt inf", dict(sample_dt=float("inf")), "sample_dt"),
    ("duration nan", dict(duration=float("nan")), "duration"),
    ("duration inf", dict(duration=float("inf")), "duration"),
    ("duration 0", dict(duration=0.0), "duration must be a finite number in [1e-06, inf], got 0.0"),
    (
        "duration -1",
        dict(duration=-1.0),
        "duration must be a finite number in [1e-06, inf], got -1.0",
    ),
    ("tau 1e300", dict(tau=[1e300, 0.0]), "tau"),
    ("tau above max_torque", dict(tau=[2e6, 0.0]), "max_torque"),
    ("tau nan", dict(tau=[np.nan, 0.0]), "tau"),
    ("sampled tau 1e200", dict(tau=(np.array([0.0, 1.0]), np.full((2, 2), 1e200))), "tau"),
    ("sampled tau times nan", dict(tau=(np.array([0.0, np.nan]), np.zeros((2, 2)))), "times"),
    ("DOP853 tau 1e200", dict(method="DOP853", tau=[1e200, 0.0]), "tau"),
    ("q0 1e308", dict(q0=[1e308, 1e308]), "q0"),
    ("qd0 1e200", dict(qd0=[0.0, 1e200]), "qd0"),
    ("f_ext 1e300", dict(f_ext=[1e300, 0, 0, 0, 0, 0], frame="tip"), "f_ext"),
    ("max_steps zero", dict(max_steps=0), "max_steps"),
    ("max_wall_time nan", dict(max_wall_time=float("nan")), "max_wall_time"),
    ("method not a name", dict(method=["RK45"]), "method"),
]


@pytest.mark.parametrize("case", BAD_ARGUMENTS, ids=[c[0] for c in BAD_ARGUMENTS])
def test_bad_arguments_are_refused_before_work(dp, case):
    _, kwargs, name = case
    kwargs = dict(kwargs)
    q0 = kwargs.pop("q0", Q0)
    qd0 = kwargs.pop("qd0", Z2)
    duration = kwargs.pop("duration", 60.0)  # long: a refusal must come before any work
    kwargs.setdefault("max_wall_time", 30.0)
    with pytest.raises(InvalidInputError) as ei:
        dp.simulate(q0, qd0, duration, **kwargs)
    assert name in str(ei.value), str(ei.value)


def test_callable_torque_beyond_the_bound_is_named_not_nan(dp):
    # 1e308 + 1e308 overflowed the old finiteness check into a false "NaN" report
    with pytest.raises(InvalidInputError) as ei:
        dp.simulate(Q0, Z2, 0.1, tau=lambda t, q, qd: np.array([1e308, 1e308]))
    msg = str(ei.value)
    assert "NaN" not in msg and "max_torque" in msg and "tau(t, q, qd)" in msg, msg
    with pytest.raises(InvalidInputError) as ei:
        dp.simulate(Q0, Z2, 0.1, tau=lambda t, q, qd: np.array([np.nan, 0.0]))
    assert "NaN" in str(ei.value)


def test_too_many_fixed_steps_is_refused_before_work(dp):
    # 1e-5 s steps for 60 s: 6e6 steps, over the default max_steps
    with pytest.raises(SimulationLimitError) as ei:
        dp.simulate(Q0, Z2, 60.0, method="semi_implicit_euler", fixed_step=1e-5, sample_dt=0.1)
    assert "max_steps" in str(ei.value)
    with pytest.raises(SimulationLimitError) as ei:
        dp.simulate(Q0, Z2, 1.0, method="semi_implicit_euler", fixed_step=1e-3, max_steps=999)
    assert "max_steps = 999" in str(ei.value)
    assert ei.value.t is None  # refused before the integration started


def test_too_many_samples_is_refused_before_work(dp):
    with pytest.raises(SimulationLimitError) as ei:
        dp.simulate(Q0, Z2, 60.0, sample_dt=1e-5)
    assert "max_samples" in str(ei.value)
    with pytest.raises(SimulationLimitError) as ei:
        dp.simulate(Q0, Z2, 1.0, method="semi_implicit_euler", fixed_step=1e-3, max_samples=100)
    assert "max_samples" in str(ei.value) and ei.value.t is None


@pytest.mark.parametrize("method", IVP_METHODS)
def test_rhs_evaluation_bound(dp, method):
    with pytest.raises(SimulationLimitError) as ei:
        dp.simulate(Q0, Z2, 60.0, method=method, rtol=1e-12, atol=1e-14, max_rhs_evaluations=200)
    assert "max_rhs_evaluations = 200" in str(ei.value) and method in str(ei.value)
    assert 0.0 <= ei.value.t < 60.0 and f"t = {ei.value.t:.6g} s" in str(ei.value)
    # what to try: an explicit method is told of the implicit ones
    explicit = method in ("RK45", "RK23", "DOP853")
    assert ("an implicit method (Radau, BDF)" in str(ei.value)) == explicit


def test_wall_time_bound(dp):
    # Radau at rtol 1e-12 over 60 s takes far longer than 50 ms on any machine
    with pytest.raises(SimulationLimitError) as ei:
        dp.simulate(Q0, Z2, 60.0, method="Radau", rtol=1e-12, max_wall_time=0.05)
    assert "max_wall_time" in str(ei.value)
    with pytest.raises(SimulationLimitError) as ei:
        dp.simulate(
            Q0,
            Z2,
            600.0,
            method="semi_implicit_euler",
            fixed_step=1e-3,
            max_wall_time=0.05,
            sample_dt=1.0,
        )
    assert "max_wall_time" in str(ei.value)


def test_diverging_state_is_a_simulation_error(dp):
    # the largest allowed torque for 1e4 s: the velocities leave the model's input range
    with pytest.raises(SimulationError) as ei:
        dp.simulate(
            Q0,
            Z2,
            1e4,
            method="semi_implicit_euler",
            fixed_step=1.0,
            tau=[1e6, -1e6],
            sample_dt=100.0,
        )
    assert "diverged" in str(ei.value) and 0.0 < ei.value.t <= 1e4
    assert "a smaller fixed_step, or if joint damping or friction make the" in str(ei.value)


def test_integrator_failure_is_a_simulation_error(dp, monkeypatch):
    # scipy reports a failed integration in its result (e.g. the step size underflowed);
    # simulate turns it into a SimulationError that says when
    from scipy.optimize import OptimizeResult

    import robot_dynamics.core.simulate as sim

    def failing(*args, **kwargs):
        return OptimizeResult(
            success=False,
            message="Required step size is less than spacing between numbers.",
            t=np.array([0.0, 0.25]),
            status=-1,
        )

    monkeypatch.setattr(sim, "solve_ivp", failing)
    with pytest.raises(SimulationError) as ei:
        dp.simulate(Q0, Z2, 1.0, method="DOP853")
    assert type(ei.value) is SimulationError
    assert "DOP853 failed" in str(ei.value) and "step size" in str(ei.value)
    assert ei.value.t == 0.25


@pytest.mark.parametrize("method", ["semi_implicit_euler", "RK45"])
def test_stop_ends_a_simulation_at_its_next_step(dp, method):
    """The caller's ``stop`` is asked at every step: once it says so the simulation ends with a
    SimulationError saying when; a ``stop`` that is not callable is refused before any work."""
    asked = {"n": 0}

    def stop():
        asked["n"] += 1
        return asked["n"] > 50

    with pytest.raises(SimulationError) as ei:
        dp.simulate(Q0, Z2, 60.0, method=method, sample_dt=0.1, stop=stop)
    assert type(ei.value) is SimulationError and "the caller stopped it" in str(ei.value)
    assert asked["n"] == 51 and 0.0 < ei.value.t < 60.0
    with pytest.raises(InvalidInputError, match="stop must be a callable"):
        dp.simulate(Q0, Z2, 1.0, stop=True)
    assert len(dp.simulate(Q0, Z2, 0.5, sample_dt=0.1, stop=lambda: False).t) == 6


def test_valid_calls_are_unchanged(dp):
    a = dp.simulate(Q0, Z2, 0.5, sample_dt=0.1)
    b = dp.simulate(Q0, Z2, 0.5, sample_dt=0.1, max_wall_time=60.0, max_rhs_evaluations=10**6)
    np.testing.assert_array_equal(a.q, b.q)
    assert a.t.shape == (6,) and np.all(np.isfinite(a.energy))
    c = dp.simulate(Q0, Z2, 0.5, method="semi_implicit_euler", fixed_step=1e-3, max_steps=500)
    assert c.t.shape == (501,)


SLIDER_URDF = """<robot name="slider"><link name="base"/>
<link name="cart"><inertial><mass value="1"/>
<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
<joint name="slide" type="prismatic"><parent link="base"/><child link="cart"/>
<axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""


@pytest.mark.parametrize("method", ["RK45", "Radau", "LSODA"])
def test_an_adaptive_integration_that_diverges_ends_where_it_left_the_range(method):
    """A 1 kg cart pushed by 1e6 N for 1e4 s: x = 5e5 t^2 leaves |q| <= MAX_STATE at
    t = sqrt(2e-3) 1e3 = 44.7 s, an accepted step ends the run there, with a SimulationError
    saying when."""
    slider = RobotModel.from_urdf_string(SLIDER_URDF)
    with pytest.raises(SimulationError) as ei:
        slider.simulate([0.0], [0.0], 1e4, method=method, tau=[1e6], sample_dt=100.0)
    assert "the state left the range" in str(ei.value) and "diverged" in str(ei.value)
    assert 44.0 < ei.value.t < 46.0, ei.value.t


@pytest.mark.skipif(not robot_urdfs.has_erd(), reason="example-robot-data not installed")
def test_an_implicit_method_probing_a_joint_the_dynamics_ignore_integrates():
    """The Panda with a payload, every joint at 3 rad/s: Radau's numerical Jacobian probes
    joint 1 (about the vertical, which the dynamics do not depend on) with ever larger steps,
    positions far beyond any state the arm reaches; those are computed, the run goes on, and it
    conserves energy as the explicit methods do."""
    panda = RobotModel.from_urdf_string(robot_urdfs.urdf_xml("panda_arm")).with_payload(
        1.5, [0.019988021392436068, -0.010006479629177322, 0.04990695755504291], frame="panda_hand"
    )
    q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
    result = panda.simulate(q0, np.full(7, 3.0), 1.3, method="Radau", sample_dt=0.01)
    assert result.t[-1] == 1.3
    assert np.ptp(result.energy) < 1e-4 * np.abs(result.energy).max()
