"""Property-based fuzzing of the core (hypothesis): URDF documents with random, sometimes
invalid numbers, and RobotModel / simulate inputs with extreme floats. Every case ends in a
typed RobotDynamicsError or a finite result: never another exception type, never a hang
(simulate runs under small work bounds). Bounded: a few hundred examples, well under 60 s."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import robot_urdfs
from robot_dynamics import RobotModel
from robot_dynamics.core.errors import InvalidURDFValueError, RobotDynamicsError
from robot_dynamics.core.simulate import FIXED_STEP_METHODS, IVP_METHODS

SETTINGS = dict(
    deadline=None,  # no timed assertions on a noisy machine; bounded by max_examples
    derandomize=True,  # reproducible in CI
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

EXTREME = st.sampled_from(
    [math.nan, math.inf, -math.inf, 1e308, -1e308, 1e200, -1e10, 5e-324, -5e-324, 0.0, -0.0, -1.0]
)
ANY_FLOAT = st.one_of(EXTREME, st.floats(allow_nan=True, allow_infinity=True))
SANE = st.floats(-2.0, 2.0)


def _text(draw, sane, bad_rate):
    """A number as URDF text: sane, or with probability bad_rate an extreme or any float, or
    (rarely) not a number at all."""
    kind = draw(st.floats(0.0, 1.0))
    if kind < bad_rate:
        return repr(draw(ANY_FLOAT))
    if kind < bad_rate * 1.1:
        return draw(st.sampled_from(["abc", "", "1 2", "0x10"]))
    return repr(draw(sane))


@st.composite
def urdf_documents(draw):
    n = draw(st.integers(1, 4))
    # per document: all sane (valid models), or each number bad with a small probability
    rate = draw(st.sampled_from([0.0, 0.0, 0.01, 0.03, 0.1]))

    def _num(draw, sane):
        return _text(draw, sane, rate)

    parts = ['<robot name="fuzz"><link name="l0"/>']
    names = []
    for i in range(1, n + 1):
        jtype = draw(st.sampled_from(["revolute", "continuous", "prismatic", "fixed"]))
        m = _num(draw, st.floats(0.0, 10.0))
        # principal-like moments a, b, c: ixx = b + c, ... satisfy the triangle inequality;
        # sometimes a, b, c themselves (a placeholder that may break it: a warning)
        a, b, c = (draw(st.floats(0.01, 1.0)) for _ in range(3))
        moments = (a, b, c) if draw(st.integers(0, 3)) == 0 else (b + c, a + c, a + b)
        d = [_num(draw, st.just(x)) for x in moments]
        off = [_num(draw, st.floats(-1e-3, 1e-3)) for _ in range(3)]
        com = " ".join(_num(draw, SANE) for _ in range(3))
        crpy = " ".join(_num(draw, SANE) for _ in range(3))
        parts.append(
            f'<link name="l{i}"><inertial><origin xyz="{com}" rpy="{crpy}"/>'
            f'<mass value="{m}"/><inertia ixx="{d[0]}" ixy="{off[0]}" ixz="{off[1]}" '
            f'iyy="{d[1]}" iyz="{off[2]}" izz="{d[2]}"/></inertial></link>'
        )
        xyz = " ".join(_num(draw, SANE) for _ in range(3))
        rpy = " ".join(_num(draw, SANE) for _ in range(3))
        axis = " ".join(_num(draw, SANE) for _ in range(3))
        lo, hi = _num(draw, st.floats(-3, 0)), _num(draw, st.floats(0, 3))
        eff, vel = _num(draw, st.floats(0, 100)), _num(draw, st.floats(0, 10))
        damp, fric = _num(draw, st.floats(0, 1)), _num(draw, st.floats(0, 1))
        mimic = ""
        if names and draw(st.booleans()) and draw(st.booleans()):
            mult, moff = _num(draw, SANE), _num(draw, SANE)
            mimic_of = draw(st.sampled_from(names))
            mimic = f'<mimic joint="{mimic_of}" multiplier="{mult}" offset="{moff}"/>'
        parts.append(
            f'<joint name="j{i}" type="{jtype}"><parent link="l{i - 1}"/><child link="l{i}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>'
            f'<limit lower="{lo}" upper="{hi}" effort="{eff}" velocity="{vel}"/>'
            f'<dynamics damping="{damp}" friction="{fric}"/>{mimic}</joint>'
        )
        if jtype != "fixed":
            names.append(f"j{i}")
    return "".join(parts) + "</robot>"


@settings(max_examples=200, **SETTINGS)
@given(xml=urdf_documents(), data=st.data())
def test_fuzz_urdf_documents(xml, data):
    """A typed error, or a model whose gravity and mass matrix are finite at random q; with
    strict_inertia, the same model exactly when it loaded without inertia warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow along the way either
        try:
            model = RobotModel.from_urdf_string(xml)
        except RobotDynamicsError as err:
            event(type(err).__name__)
            return
        event("model built" + (" with inertia warnings" if model.inertia_warnings else ""))
        try:
            RobotModel.from_urdf_string(xml, strict_inertia=True)
        except InvalidURDFValueError:
            assert model.inertia_warnings, xml
        else:
            assert model.inertia_warnings == (), xml
        q = np.array(data.draw(st.lists(st.floats(-1e3, 1e3), min_size=model.n, max_size=model.n)))
        g = model.gravity_torques(q)
        M = model.mass_matrix(q)
        assert np.all(np.isfinite(g)) and np.all(np.isfinite(M)), xml
        assert np.all(np.isfinite(model.inverse_dynamics(q, q, q)))
        try:
            qdd = model.forward_dynamics(q, q, q)
        except RobotDynamicsError:
            return
        assert np.all(np.isfinite(qdd))


@pytest.fixture(scope="module")
def models():
    dp = RobotModel.from_urdf_file(robot_urdfs.DOUBLE_PENDULUM_URDF, gravity=robot_urdfs.DP_GRAVITY)
    return {"dp": dp, "mixed": RobotModel.from_urdf_string(robot_urdfs.urdf_xml("mixed"))}


def _vector(n):
    """Mostly n entries (any float), sometimes the wrong length or a batch."""
    return st.one_of(
        st.lists(ANY_FLOAT, min_size=n, max_size=n),
        st.lists(ANY_FLOAT, min_size=0, max_size=n + 2),
        st.lists(st.lists(ANY_FLOAT, min_size=n, max_size=n), min_size=1, max_size=3),
    )


CALLS = {
    "gravity_torques": (1, lambda m, a: m.gravity_torques(a[0])),
    "mass_matrix": (1, lambda m, a: m.mass_matrix(a[0])),
    "inverse_dynamics": (3, lambda m, a: m.inverse_dynamics(a[0], a[1], a[2])),
    "forward_dynamics": (3, lambda m, a: m.forward_dynamics(a[0], a[1], a[2])),
    "nonlinear_effects": (2, lambda m, a: m.nonlinear_effects(a[0], a[1])),
    "momentum_terms": (2, lambda m, a: m.momentum_terms(a[0], a[1])),
    "jacobian": (1, lambda m, a: m.jacobian(a[0])),
    "kinetic_energy": (2, lambda m, a: m.kinetic_energy(a[0], a[1])),
}


@settings(max_examples=400, **SETTINGS)
@given(name=st.sampled_from(sorted(CALLS)), robot=st.sampled_from(["dp", "mixed"]), data=st.data())
def test_fuzz_model_inputs(models, name, robot, data):
    model = models[robot]
    count, call = CALLS[name]
    # in range (up to the MAX_INPUT bound: results must be finite), else anything
    inside = st.lists(st.floats(-1e9, 1e9), min_size=model.n, max_size=model.n)
    args = [_maybe(data, inside, _vector(model.n)) for _ in range(count)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            out = call(model, args)
        except RobotDynamicsError as err:
            event(type(err).__name__)
            return
    event("computed")
    for part in out if isinstance(out, tuple) else (out,):
        assert np.all(np.isfinite(part)), (name, args)


SIM_FLOAT = st.one_of(EXTREME, st.floats(1e-7, 10.0), st.floats(allow_nan=True))


def _maybe(data, sane, bad):
    """sane, or with probability ~1/4 bad."""
    return data.draw(bad) if data.draw(st.integers(0, 3)) == 0 else data.draw(sane)


@settings(max_examples=80, **SETTINGS)
@given(data=st.data())
def test_fuzz_simulate_arguments(models, data):
    model = models["dp"]
    valid = IVP_METHODS + FIXED_STEP_METHODS
    kwargs = dict(
        method=_maybe(data, st.sampled_from(valid), st.sampled_from(["leapfrog", None, 3])),
        rtol=_maybe(data, st.floats(1e-10, 1e-3), SIM_FLOAT),
        atol=_maybe(data, st.floats(1e-12, 1e-3), SIM_FLOAT),
        fixed_step=_maybe(data, st.floats(1e-4, 0.05), SIM_FLOAT),
        sample_dt=_maybe(data, st.one_of(st.none(), st.floats(1e-3, 0.1)), SIM_FLOAT),
        tau=_maybe(
            data,
            st.one_of(st.none(), st.lists(st.floats(-50, 50), min_size=2, max_size=2)),
            st.lists(ANY_FLOAT, min_size=2, max_size=2),
        ),
        friction=data.draw(st.booleans()),
    )
    q0 = _maybe(data, st.lists(SANE, min_size=2, max_size=2), _vector(2))
    qd0 = _maybe(data, st.lists(SANE, min_size=2, max_size=2), _vector(2))
    duration = _maybe(data, st.floats(1e-3, 0.3), ANY_FLOAT)
    try:
        result = model.simulate(
            q0,
            qd0,
            duration,
            max_wall_time=0.5,
            max_rhs_evaluations=5000,
            max_steps=5000,
            **kwargs,
        )
    except RobotDynamicsError as err:
        event(type(err).__name__)
        return
    event("simulated")
    for part in (result.t, result.q, result.qd, result.qdd, result.tau, result.energy):
        assert np.all(np.isfinite(part))
