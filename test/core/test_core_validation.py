"""Model-build validation of every number a URDF gives, the size limit, structure checks
(cycles not connected to the root), reading without global state, and the input bounds of
RobotModel (magnitudes that would overflow, frames that are not names, payload and gravity
bounds). Each case names the culprit in the message."""

import glob
import os
import subprocess
import sys
import threading
import tracemalloc

import numpy as np
import pytest

import robot_urdfs
from robot_dynamics import RobotModel
from robot_dynamics.core.friction import FrictionModel
from robot_dynamics.core.joint_warnings import joint_warning_lines
from robot_dynamics.core.errors import (
    InvalidInputError,
    InvalidURDFValueError,
    KinematicTreeError,
    ModelTooLargeError,
    URDFError,
)

INERTIA = 'ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"'


def two_link(**f):
    """A base and two revolute links; keyword arguments replace attribute strings (``limit=None``:
    j2 without ``<limit>``)."""
    v = dict(
        j1_xyz="0 0 0.1",
        j1_rpy="0 0 0",
        j1_axis="0 0 1",
        j2_xyz="0 0 0.5",
        j2_rpy="0 0 0",
        j2_axis="0 1 0",
        j2_type="revolute",
        limit='lower="-1" upper="1" effort="10" velocity="2"',
        dynamics='damping="0.1" friction="0.2"',
        mimic="",
        l1_mass="2.0",
        l1_com="0 0 0.2",
        l1_com_rpy="0 0 0",
        l1_inertia=INERTIA,
        l2_mass="1.0",
        l2_inertia=INERTIA,
    )
    v.update(f)
    mimic = f"<mimic {v['mimic']}/>" if v["mimic"] else ""
    limit = "" if v["limit"] is None else f"<limit {v['limit']}/>"
    return (
        '<robot name="t"><link name="base"/>'
        f'<link name="l1"><inertial><origin xyz="{v["l1_com"]}" rpy="{v["l1_com_rpy"]}"/>'
        f'<mass value="{v["l1_mass"]}"/><inertia {v["l1_inertia"]}/></inertial></link>'
        f'<link name="l2"><inertial><mass value="{v["l2_mass"]}"/>'
        f"<inertia {v['l2_inertia']}/></inertial></link>"
        '<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>'
        f'<origin xyz="{v["j1_xyz"]}" rpy="{v["j1_rpy"]}"/><axis xyz="{v["j1_axis"]}"/>'
        f'<limit lower="-2" upper="2" effort="5" velocity="1"/></joint>'
        f'<joint name="j2" type="{v["j2_type"]}"><parent link="l1"/><child link="l2"/>'
        f'<origin xyz="{v["j2_xyz"]}" rpy="{v["j2_rpy"]}"/><axis xyz="{v["j2_axis"]}"/>'
        f"{limit}<dynamics {v['dynamics']}/>{mimic}</joint>"
        "</robot>"
    )


def test_template_is_valid():
    m = RobotModel.from_urdf_string(two_link())
    assert m.joint_names == ("j1", "j2")
    assert np.all(np.isfinite(m.mass_matrix([0.3, -0.2])))


LIM = 'lower="-1" upper="1" effort="10" velocity="2"'
BAD_VALUES = [
    # (id, fields, culprit, field named in the message)
    ("joint xyz nan", dict(j2_xyz="0 nan 0.5"), "j2", "origin xyz"),
    ("joint xyz inf", dict(j1_xyz="inf 0 0"), "j1", "origin xyz"),
    ("joint xyz huge", dict(j2_xyz="0 0 1e300"), "j2", "origin xyz"),
    ("joint rpy nan", dict(j2_rpy="0 NaN 0"), "j2", "origin rpy"),
    ("joint rpy inf", dict(j1_rpy="-inf 0 0"), "j1", "origin rpy"),
    ("joint xyz two values", dict(j2_xyz="0 0"), "j2", "origin xyz"),
    ("joint xyz not numbers", dict(j2_xyz="a b c"), "j2", "origin xyz"),
    ("axis nan", dict(j2_axis="0 nan 1"), "j2", "axis"),
    ("axis zero", dict(j2_axis="0 0 0"), "j2", "axis"),
    ("inertial origin nan", dict(l1_com="nan 0 0"), "l1", "origin xyz"),
    ("inertial rpy inf", dict(l1_com_rpy="0 0 inf"), "l1", "origin rpy"),
    ("mass nan", dict(l1_mass="nan"), "l1", "mass"),
    ("mass negative", dict(l2_mass="-1"), "l2", "mass"),
    ("mass huge", dict(l2_mass="1e300"), "l2", "mass"),
    ("inertia nan", dict(l1_inertia=INERTIA.replace('iyy="0.1"', 'iyy="nan"')), "l1", "inertia"),
    (  # negative about j1's axis: M(q) is indefinite at every configuration
        "inertia negative",
        dict(l1_inertia=INERTIA.replace('izz="0.1"', 'izz="-0.2"')),
        "l1",
        "positive",
    ),
    ("inertia huge", dict(l2_inertia=INERTIA.replace('ixx="0.1"', 'ixx="1e300"')), "l2", "inertia"),
    ("effort nan", dict(limit=LIM.replace('effort="10"', 'effort="nan"')), "j2", "effort"),
    ("effort negative", dict(limit=LIM.replace('effort="10"', 'effort="-10"')), "j2", "effort"),
    ("effort inf", dict(limit=LIM.replace('effort="10"', 'effort="inf"')), "j2", "effort"),
    (
        "velocity negative",
        dict(limit=LIM.replace('velocity="2"', 'velocity="-2"')),
        "j2",
        "velocity",
    ),
    ("lower nan", dict(limit=LIM.replace('lower="-1"', 'lower="nan"')), "j2", "lower"),
    ("upper inf", dict(limit=LIM.replace('upper="1"', 'upper="inf"')), "j2", "upper"),
    ("damping nan", dict(dynamics='damping="nan"'), "j2", "damping"),
    ("friction inf", dict(dynamics='friction="inf"'), "j2", "friction"),
    ("damping huge", dict(dynamics='damping="-1e9"'), "j2", "damping"),
    ("mimic multiplier nan", dict(mimic='joint="j1" multiplier="nan"'), "j2", "multiplier"),
    ("mimic offset inf", dict(mimic='joint="j1" offset="inf"'), "j2", "offset"),
    ("mimic multiplier huge", dict(mimic='joint="j1" multiplier="1e200"'), "j2", "multiplier"),
]


@pytest.mark.parametrize("case", BAD_VALUES, ids=[c[0] for c in BAD_VALUES])
def test_invalid_urdf_value(case):
    _, fields, culprit, field = case
    with pytest.raises(InvalidURDFValueError) as ei:
        RobotModel.from_urdf_string(two_link(**fields))
    msg = str(ei.value)
    assert repr(culprit) in msg and field in msg, msg


JOINT_WARNINGS = [
    # (id, fields, rule, what the model has instead)
    ("damping negative", dict(dynamics='damping="-0.1" friction="0.2"'), "negative_damping", {}),
    ("friction negative", dict(dynamics='damping="0.1" friction="-1"'), "negative_friction", {}),
    (
        "lower above upper",
        dict(limit=LIM.replace('lower="-1"', 'lower="2"')),
        "inverted_limits",
        dict(lower=-np.inf, upper=np.inf),
    ),
    (
        "effort zero",
        dict(limit=LIM.replace('effort="10"', 'effort="0"')),
        "zero_limit",
        dict(effort=np.inf),
    ),
    (
        "velocity zero",
        dict(limit=LIM.replace('velocity="2"', 'velocity="0.0"')),
        "zero_limit",
        dict(velocity=np.inf),
    ),
    (
        "effort and velocity zero",
        dict(limit=LIM.replace('effort="10" velocity="2"', 'effort="0" velocity="0"')),
        "zero_limit",
        dict(effort=np.inf, velocity=np.inf),
    ),
    (
        "revolute without limit",
        dict(limit=None),
        "missing_limit",
        dict(lower=-np.inf, upper=np.inf, effort=np.inf, velocity=np.inf),
    ),
]


@pytest.mark.parametrize("case", JOINT_WARNINGS, ids=[c[0] for c in JOINT_WARNINGS])
def test_what_is_not_physical_in_a_joint_loads_with_a_warning(case, rng):
    """A negative damping or friction loads as 0, lower > upper without position limits, an effort
    or velocity limit of 0 as no such limit: a JointWarning names the joint, the field and the
    rule; the rigid-body dynamics are the URDF's."""
    _, fields, rule, instead = case
    model = RobotModel.from_urdf_string(two_link(**fields))
    (warning,) = model.joint_warnings
    assert (warning.joint, warning.rule) == ("j2", rule)
    assert "'j2'" in str(warning) and rule in str(warning)
    reference = RobotModel.from_urdf_string(two_link())
    assert reference.joint_warnings == ()
    q, qd, qdd = rng.uniform(-1, 1, (3, 2))
    np.testing.assert_allclose(model.mass_matrix(q), reference.mass_matrix(q), rtol=1e-15)
    np.testing.assert_allclose(
        model.inverse_dynamics(q, qd, qdd), reference.inverse_dynamics(q, qd, qdd), rtol=1e-15
    )
    viscous = 0.0 if rule == "negative_damping" else 0.1
    coulomb = 0.0 if rule == "negative_friction" else 0.2
    assert (model.friction.viscous[1], model.friction.coulomb[1]) == (viscous, coulomb)
    lower, upper = model.position_limits
    expected = (instead.get("lower", -1.0), instead.get("upper", 1.0))
    assert (lower[1], upper[1]) == expected
    assert model.effort_limits[1] == instead.get("effort", 10.0)
    assert model.velocity_limits[1] == instead.get("velocity", 2.0)
    if rule == "zero_limit":
        for field in ("effort", "velocity"):
            assert (f'{field}="0"' in warning.message) == (field in instead), warning.message


def test_a_mimic_joint_s_zero_limit_is_not_said():
    """j5 mimics j3 with effort="0" velocity="0": its limits are j3's, no warning; the same j5
    whose <mimic> names no joint is actuated: its zero limits are said."""
    limit = '<limit lower="-3" upper="3" effort="20" velocity="3"/>\n    <mimic joint="j3"'
    assert limit in robot_urdfs.MIXED_URDF
    xml = robot_urdfs.MIXED_URDF.replace(
        limit, limit.replace('effort="20" velocity="3"', 'effort="0" velocity="0"')
    )
    assert RobotModel.from_urdf_string(xml).joint_warnings == ()
    independent = RobotModel.from_urdf_string(
        xml.replace('<mimic joint="j3"', '<mimic joint="gone"')
    )
    rules = {(w.joint, w.rule) for w in independent.joint_warnings}
    assert ("j5", "zero_limit") in rules and ("j5", "mimic_target_missing") in rules


def test_joint_warning_lines_name_every_joint_of_one_message_once():
    """Both joints with effort="0": one line naming both; j2's other zero field, a negative
    damping: lines of their own; the order is the first warning's of each."""
    both = two_link(limit='lower="-1" upper="1" effort="0" velocity="2"').replace(
        'effort="5"', 'effort="0"'
    )
    model = RobotModel.from_urdf_string(both)
    assert [w.joint for w in model.joint_warnings] == ["j1", "j2"]
    message = '<limit effort="0">: loaded as no effort limit'
    assert joint_warning_lines(model.joint_warnings) == [
        f"joints 'j1', 'j2': {message} (zero_limit)"
    ]
    mixed = RobotModel.from_urdf_string(
        two_link(limit='lower="-1" upper="1" effort="10" velocity="0"', dynamics='damping="-1"')
    )
    lines = joint_warning_lines(mixed.joint_warnings)
    assert lines == [str(w) for w in mixed.joint_warnings] and len(lines) == 2
    assert lines[0].startswith("joint 'j2': <limit velocity=\"0\">")


def test_joint_warnings_are_for_the_model_s_joints():
    """A warning on a joint above the base link is not the model's (gravity given: the root's
    down would name the joint above, which turns the base)."""
    model = RobotModel.from_urdf_string(
        two_link(dynamics='damping="-0.1"').replace(
            '<limit lower="-2" upper="2" effort="5" velocity="1"/></joint>',
            '<limit lower="-2" upper="2" effort="5" velocity="1"/><dynamics friction="-3"/>'
            "</joint>",
        ),
        base_link="l1",
        gravity=(0.0, 0.0, -9.81),
    )
    assert [(w.joint, w.rule) for w in model.joint_warnings] == [("j2", "negative_damping")]


def test_missing_required_numbers_are_urdf_errors():
    with pytest.raises(URDFError) as ei:
        RobotModel.from_urdf_string(two_link(limit='lower="-1" upper="1" velocity="2"'))
    assert "'j2'" in str(ei.value) and "effort" in str(ei.value)
    with pytest.raises(URDFError) as ei:
        RobotModel.from_urdf_string(
            two_link(l1_inertia='ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0"')
        )
    assert "'l1'" in str(ei.value) and "izz" in str(ei.value)


def test_fixed_joint_axis_is_not_used():
    # zero axes on fixed joints are common in real files (sensor frames): accepted
    m = RobotModel.from_urdf_string(two_link(j2_type="fixed", j2_axis="0 0 0"))
    assert m.joint_names == ("j1",)


def test_inertia_tolerance_accepts_rounding():
    # a thin rod: izz = ixx + iyy up to the file's rounding is physical
    rod = 'ixx="0.0833333" ixy="0" ixz="0" iyy="0.0833334" iyz="0" izz="0.1666667"'
    assert RobotModel.from_urdf_string(two_link(l2_inertia=rod)).inertia_warnings == ()
    # a point mass (zero inertia) is fine
    point = RobotModel.from_urdf_string(
        two_link(l2_inertia='ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"')
    )
    assert point.inertia_warnings == ()


def test_cycle_disconnected_from_the_root():
    xml = two_link().replace(
        "</robot>",
        '<link name="ring_a"/><link name="ring_b"/>'
        '<joint name="ja" type="fixed"><parent link="ring_a"/><child link="ring_b"/></joint>'
        '<joint name="jb" type="fixed"><parent link="ring_b"/><child link="ring_a"/></joint>'
        "</robot>",
    )
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(xml)
    assert "ring_a" in str(ei.value) and "cycle" in str(ei.value)


def _chain(n):
    parts = ['<robot name="c"><link name="l0"/>']
    for i in range(1, n + 1):
        parts.append(
            f'<link name="l{i}"><inertial><origin xyz="0 0 0.05"/><mass value="1"/>'
            f'<inertia {INERTIA}/></inertial><visual><geometry><box size="0.1 0.1 0.1"/>'
            "</geometry></visual></link>"
            f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/>'
            f'<child link="l{i}"/><origin xyz="0 0 0.1"/><axis xyz="0 1 0"/>'
            '<limit lower="-1" upper="1" effort="10" velocity="1"/></joint>'
        )
    return "".join(parts) + "</robot>"


def test_size_limit_refuses_a_14000_link_chain_in_linear_memory():
    xml = _chain(14000)  # ~5 MB
    tracemalloc.start()
    try:
        with pytest.raises(ModelTooLargeError) as ei:
            RobotModel.from_urdf_string(xml)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "max_links = 1000" in str(ei.value)
    # a 14000 x 14000 float matrix is 1.5 GB; the refusal parses at most max_links links
    assert peak < 3 * len(xml), f"peak {peak / 1e6:.1f} MB while refusing"


def test_max_links_argument():
    xml = _chain(5)  # 6 links
    with pytest.raises(ModelTooLargeError):
        RobotModel.from_urdf_string(xml, max_links=5)
    assert RobotModel.from_urdf_string(xml, max_links=6).n == 5
    with pytest.raises(URDFError):
        RobotModel.from_urdf_string(xml, max_links=0)


def test_model_build_memory_is_bounded_up_to_the_limit():
    # the model keeps dense (nb, nb) ancestor masks: bounded by max_links (1000: 8 MB each)
    peaks = []
    for n in (100, 400):
        xml = _chain(n)
        tracemalloc.start()
        try:
            RobotModel.from_urdf_string(xml)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert peaks[1] < 40e6, peaks


def test_unreadable_path_is_a_urdf_error():
    # a path that exists but cannot be read (or a device): a typed error, not OSError
    if os.path.exists("/proc/self/mem"):
        with pytest.raises(URDFError):
            RobotModel.from_urdf_file("/proc/self/mem")
    with pytest.raises(URDFError):
        RobotModel.from_urdf_string(b"\xff\xfe<robot/>")


def test_reading_has_no_global_side_effects():
    """No urdf_parser_py error hook, no redirected stderr: parse in threads while sys.stderr
    is a sentinel, and urdf_parser_py is never imported."""
    code = (
        "import sys, threading\n"
        "sentinel = sys.stderr\n"
        "from robot_dynamics import RobotModel\n"
        f"xml = open({robot_urdfs.DOUBLE_PENDULUM_URDF!r}).read()\n"
        "changed = []\n"
        "def work():\n"
        "    for _ in range(20):\n"
        "        RobotModel.from_urdf_string(xml)\n"
        "        changed.append(sys.stderr is not sentinel)\n"
        "ts = [threading.Thread(target=work) for _ in range(4)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "print(any(changed), 'urdf_parser_py' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split() == ["False", "False"], out.stdout + out.stderr


def test_parse_in_threads_gives_the_same_models():
    xmls = [robot_urdfs.urdf_xml("double_pendulum"), robot_urdfs.urdf_xml("mixed")]
    expected = [
        RobotModel.from_urdf_string(x).mass_matrix(np.full(RobotModel.from_urdf_string(x).n, 0.3))
        for x in xmls
    ]
    errors = []

    def work(k):
        try:
            for _ in range(10):
                m = RobotModel.from_urdf_string(xmls[k % 2])
                np.testing.assert_allclose(m.mass_matrix(np.full(m.n, 0.3)), expected[k % 2])
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_bundled_urdfs_load():
    paths = sorted(glob.glob(os.path.join(robot_urdfs.REPO_ROOT, "urdf", "*.urdf")))
    assert {"double_pendulum.urdf", "panda_arm.urdf"} <= {os.path.basename(p) for p in paths}
    for path in paths:
        model = RobotModel.from_urdf_file(path)
        assert model.n > 0 and model.inertia_warnings == () and model.joint_warnings == ()


# ------------------------------------------------------------------ RobotModel input bounds
@pytest.fixture(scope="module")
def dp():
    return RobotModel.from_urdf_file(
        robot_urdfs.DOUBLE_PENDULUM_URDF, gravity=robot_urdfs.DP_GRAVITY
    )


HUGE = [
    ("gravity_torques 1e308", lambda m: m.gravity_torques([1e308, 1e308]), "q"),
    ("mass_matrix 1e308", lambda m: m.mass_matrix([1e308, -1e308]), "q"),
    ("inverse_dynamics qd 1e200", lambda m: m.inverse_dynamics([0, 0], [1e200, 0], [0, 0]), "qd"),
    ("inverse_dynamics qdd 1e300", lambda m: m.inverse_dynamics([0, 0], [0, 0], [0, 1e300]), "qdd"),
    (
        "forward_dynamics tau 1e308",
        lambda m: m.forward_dynamics([0, 0], [0, 0], [1e308] * 2),
        "tau",
    ),
    ("nonlinear_effects qd 1e10", lambda m: m.nonlinear_effects([0, 0], [1e10, 0]), "qd"),
    ("batch q 1e308", lambda m: m.gravity_torques([[0, 0], [1e308, 1e308]]), "q"),
    (
        "f_ext 1e300",
        lambda m: m.inverse_dynamics([0, 0], [0, 0], [0, 0], f_ext=[1e300, 0, 0, 0, 0, 0]),
        "f_ext",
    ),
]


@pytest.mark.parametrize("case", HUGE, ids=[c[0] for c in HUGE])
def test_huge_inputs_are_refused_by_name(dp, case):
    _, call, name = case
    with pytest.raises(InvalidInputError) as ei:
        call(dp)
    msg = str(ei.value)
    assert msg.startswith(name + " ") and "bound" in msg, msg


def test_large_but_bounded_inputs_give_finite_results(dp):
    q = np.array([1e9, -1e9])
    assert np.all(np.isfinite(dp.gravity_torques(q)))
    assert np.all(np.isfinite(dp.inverse_dynamics(q, [1e9, 1e9], [1e9, -1e9])))


def test_gravity_bounds(dp):
    for g in ([0, 0, 1e308], [0, 0, 1001.0], [np.nan, 0, 0]):
        with pytest.raises(InvalidInputError) as ei:
            dp.with_gravity(g)
        assert "gravity" in str(ei.value)
        with pytest.raises(InvalidInputError):
            RobotModel.from_urdf_file(robot_urdfs.DOUBLE_PENDULUM_URDF, gravity=g)
    with pytest.raises(InvalidInputError):
        dp.with_gravity("down")
    assert np.all(np.isfinite(dp.with_gravity([0, 0, -999.0]).gravity_torques([0.1, 0.2])))


PAYLOAD = [
    ("com 1e308", dict(mass=1.0, com=[1e308, 0, 0]), "payload com"),
    ("com 101 m", dict(mass=1.0, com=[0, 101, 0]), "payload com"),
    ("mass 1e308", dict(mass=1e308, com=[0, 0, 0]), "payload mass"),
    ("mass nan", dict(mass=float("nan"), com=[0, 0, 0]), "payload mass"),
    ("mass text", dict(mass="heavy", com=[0, 0, 0]), "payload mass"),
    ("inertia negative", dict(mass=1.0, com=[0, 0, 0], inertia=-np.eye(3)), "inertia"),
    (
        "inertia triangle",
        dict(mass=1.0, com=[0, 0, 0], inertia=np.diag([0.01, 0.01, 1.0])),
        "triangle",
    ),
]


@pytest.mark.parametrize("case", PAYLOAD, ids=[c[0] for c in PAYLOAD])
def test_payload_bounds(dp, case):
    _, kwargs, name = case
    with pytest.raises(InvalidInputError) as ei:
        dp.with_payload(frame="tip", **kwargs)
    assert name in str(ei.value), str(ei.value)


def test_payload_within_bounds_is_finite(dp):
    m = dp.with_payload(1e5, [100.0, 0, 0], np.diag([1.0, 1.0, 1.5]), frame="tip")
    assert np.all(np.isfinite(m.gravity_torques([0.3, 0.4])))


def test_armature_and_friction_bounds(dp):
    with pytest.raises(InvalidInputError) as ei:
        dp.with_armature([1e300, 0])
    assert "armature" in str(ei.value) and "'joint1'" in str(ei.value)
    with pytest.raises(InvalidInputError) as ei:
        dp.with_friction(FrictionModel([0, 1e308], [0, 0], joint_names=dp.joint_names))
    assert "friction.viscous of joint 'joint2'" in str(ei.value)
    with pytest.raises(InvalidInputError, match="needs a FrictionModel"):
        dp.with_friction([0.1, 0.2])
    with pytest.raises(InvalidInputError, match="has 3 joints"):
        dp.with_friction(FrictionModel.zeros(3))


@pytest.mark.parametrize("frame", [["tip"], {"tip": 1}, 3, ("tip",)])
def test_frame_that_is_not_a_name(dp, frame):
    for call in (
        lambda: dp.frame_pose([0, 0], frame=frame),
        lambda: dp.jacobian([0, 0], frame=frame),
        lambda: dp.with_payload(1.0, [0, 0, 0], frame=frame),
    ):
        with pytest.raises(InvalidInputError) as ei:
            call()
        assert "frame" in str(ei.value)
    with pytest.raises(InvalidInputError):
        RobotModel.from_urdf_file(robot_urdfs.DOUBLE_PENDULUM_URDF, tip_link=["tip"])
    with pytest.raises(InvalidInputError):
        dp.joint_index(["joint1"])


def test_min_singular_value_is_a_float_for_one_configuration(dp):
    est = dp.estimate_external_wrench([0.3, 0.5], [1.0, 2.0])
    assert type(est.min_singular_value) is float
    batch = dp.estimate_external_wrench(np.full((3, 2), 0.3), np.ones((3, 2)))
    assert isinstance(batch.min_singular_value, np.ndarray)
    assert batch.min_singular_value.shape == (3,)


def test_model_without_movable_joints():
    xml = (
        '<robot name="still"><link name="base"/><link name="plate"><inertial><mass value="1"/>'
        f"<inertia {INERTIA}/></inertial></link>"
        '<joint name="weld" type="fixed"><parent link="base"/><child link="plate"/></joint>'
        "</robot>"
    )
    m = RobotModel.from_urdf_string(xml)
    assert m.n == 0
    assert m.forward_dynamics(np.zeros(0), np.zeros(0), np.zeros(0)).shape == (0,)
    assert m.mass_matrix(np.zeros(0)).shape == (0, 0)
    assert m.gravity_torques(np.zeros(0)).shape == (0,)
    with pytest.raises(InvalidInputError) as ei:
        m.simulate(np.zeros(0), np.zeros(0), 0.1)
    assert "no movable joint" in str(ei.value)
    # nothing to solve: a zero wrench, no singular value, and nothing printed by LAPACK (which
    # writes to the process's stderr, outside Python: a process of its own)
    for q in (np.zeros(0), np.zeros((3, 0))):
        est = m.estimate_external_wrench(q, q, frame="plate")
        np.testing.assert_array_equal(est.wrench, np.zeros(q.shape[:-1] + (6,)))
        assert est.singular_values.shape == q.shape[:-1] + (0,)
    code = (
        "import numpy as np; from robot_dynamics import RobotModel; "
        f"m = RobotModel.from_urdf_string({xml!r}); "
        "print(m.estimate_external_wrench(np.zeros(0), np.zeros(0), frame='plate').wrench)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[0. 0. 0. 0. 0. 0.]" and run.stderr == "", run.stderr
