"""Bad input: each case raises the named exception of robot_dynamics.core.errors and the message
names the culprit (argument, joint, link or frame)."""

import warnings

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.errors import (
    AmbiguousTipError,
    InvalidInputError,
    KinematicTreeError,
    RobotDynamicsError,
    SingularInertiaError,
    UnknownFrameError,
    UnsupportedJointError,
    URDFError,
)

import robot_urdfs
from core_helpers import load_model

DP_XML = robot_urdfs.urdf_xml("double_pendulum")


@pytest.fixture(scope="module")
def dp():
    return RobotModel.from_urdf_file(
        robot_urdfs.DOUBLE_PENDULUM_URDF, gravity=robot_urdfs.DP_GRAVITY
    )


def test_exception_hierarchy():
    for e in (
        URDFError,
        UnsupportedJointError,
        KinematicTreeError,
        UnknownFrameError,
        AmbiguousTipError,
        InvalidInputError,
    ):
        assert issubclass(e, RobotDynamicsError)
    assert issubclass(UnsupportedJointError, URDFError)
    assert issubclass(KinematicTreeError, URDFError)


# ------------------------------------------------------------------ vector sizes
def _assert_invalid_input_names(model, case):
    """case = (id, call, argname): call(model) raises InvalidInputError naming argname."""
    _, call, argname = case
    with pytest.raises(InvalidInputError) as ei:
        call(model)
    assert argname in str(ei.value), f"message does not name {argname!r}: {ei.value}"


Z2 = np.zeros(2)
Z3 = np.zeros(3)

WRONG_SIZE = [
    ("gravity_torques", lambda m: m.gravity_torques(Z3), "q"),
    ("mass_matrix", lambda m: m.mass_matrix(np.zeros(1)), "q"),
    ("inverse_dynamics q", lambda m: m.inverse_dynamics(Z3, Z2, Z2), "q"),
    ("inverse_dynamics qd", lambda m: m.inverse_dynamics(Z2, Z3, Z2), "qd"),
    ("inverse_dynamics qdd", lambda m: m.inverse_dynamics(Z2, Z2, Z3), "qdd"),
    (
        "inverse_dynamics f_ext",
        lambda m: m.inverse_dynamics(Z2, Z2, Z2, f_ext=np.zeros(5), frame="tip"),
        "f_ext",
    ),
    ("forward_dynamics tau", lambda m: m.forward_dynamics(Z2, Z2, Z3), "tau"),
    (
        "forward_dynamics f_ext",
        lambda m: m.forward_dynamics(Z2, Z2, Z2, f_ext=np.zeros(3), frame="tip"),
        "f_ext",
    ),
    ("coriolis_matrix qd", lambda m: m.coriolis_matrix(Z2, Z3), "qd"),
    ("nonlinear_effects qd", lambda m: m.nonlinear_effects(Z2, np.zeros(1)), "qd"),
    ("jacobian", lambda m: m.jacobian(Z3), "q"),
    ("frame_pose", lambda m: m.frame_pose(np.zeros(4)), "q"),
    ("kinetic_energy qd", lambda m: m.kinetic_energy(Z2, Z3), "qd"),
    ("friction_torques", lambda m: m.friction_torques(Z3), "qd"),
    ("estimate_external_wrench", lambda m: m.estimate_external_wrench(Z2, Z3), "tau_ext"),
    (
        "batch mismatch",
        lambda m: m.inverse_dynamics(np.zeros((3, 2)), np.zeros((4, 2)), np.zeros((3, 2))),
        "qd",
    ),
    (
        "energy batch mismatch",
        lambda m: m.kinetic_energy(np.zeros((2, 2)), np.zeros((3, 2))),
        "qd",
    ),
    (
        "total energy batch mismatch",
        lambda m: m.total_energy(np.zeros((2, 2)), np.zeros((3, 2))),
        "qd",
    ),
    ("scalar q", lambda m: m.gravity_torques(0.5), "q"),
]


@pytest.mark.parametrize("case", WRONG_SIZE, ids=[c[0] for c in WRONG_SIZE])
def test_wrong_vector_size(dp, case):
    _assert_invalid_input_names(dp, case)


NON_FINITE = [
    ("q nan", lambda m: m.gravity_torques(np.array([0.1, np.nan])), "q"),
    ("q inf", lambda m: m.mass_matrix(np.array([np.inf, 0.0])), "q"),
    ("qd nan", lambda m: m.inverse_dynamics(Z2, np.array([np.nan, 0.0]), Z2), "qd"),
    ("qdd inf", lambda m: m.inverse_dynamics(Z2, Z2, np.array([0.0, -np.inf])), "qdd"),
    ("tau nan", lambda m: m.forward_dynamics(Z2, Z2, np.array([np.nan, 1.0])), "tau"),
    (
        "f_ext nan",
        lambda m: m.inverse_dynamics(
            Z2, Z2, Z2, f_ext=np.array([0, 0, np.nan, 0, 0, 0.0]), frame="tip"
        ),
        "f_ext",
    ),
    ("batch q nan", lambda m: m.gravity_torques(np.array([[0.1, 0.2], [0.0, np.nan]])), "q"),
    ("jacobian q nan", lambda m: m.jacobian(np.array([np.nan, 0.0])), "q"),
    ("tau_ext inf", lambda m: m.estimate_external_wrench(Z2, np.array([np.inf, 0.0])), "tau_ext"),
]


@pytest.mark.parametrize("case", NON_FINITE, ids=[c[0] for c in NON_FINITE])
def test_non_finite_input(dp, case):
    _assert_invalid_input_names(dp, case)


def test_non_numeric_input(dp):
    with pytest.raises(InvalidInputError) as ei:
        dp.gravity_torques(["a", "b"])
    assert "q" in str(ei.value)
    for call, name in (
        (lambda z: dp.gravity_torques(z), "q"),
        (lambda z: dp.inverse_dynamics(Z2, z, Z2), "qd"),
        (lambda z: dp.inverse_dynamics(Z2, Z2, Z2, f_ext=np.zeros(6, complex)), "f_ext"),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # not cast to its real part with a warning
            with pytest.raises(InvalidInputError, match=f"^{name} must be real"):
                call(np.array([0.1 + 1e-20j, 0.2]))
    with pytest.raises(InvalidInputError, match="^q must be real numbers, got an array of bool"):
        dp.gravity_torques(np.array([True, False]))  # not 1 and 0 rad


# ------------------------------------------------------------------ frames
UNKNOWN_FRAME = [
    ("jacobian", lambda m: m.jacobian(Z2, frame="no_such_link")),
    ("jacobian_dot_qd", lambda m: m.jacobian_dot_qd(Z2, Z2, frame="no_such_link")),
    ("frame_pose", lambda m: m.frame_pose(Z2, frame="no_such_link")),
    (
        "inverse_dynamics",
        lambda m: m.inverse_dynamics(Z2, Z2, Z2, f_ext=np.zeros(6), frame="no_such_link"),
    ),
    (
        "forward_dynamics",
        lambda m: m.forward_dynamics(Z2, Z2, Z2, f_ext=np.zeros(6), frame="no_such_link"),
    ),
    ("task_space_inertia", lambda m: m.task_space_inertia(Z2, frame="no_such_link")),
    (
        "estimate_external_wrench",
        lambda m: m.estimate_external_wrench(Z2, Z2, frame="no_such_link"),
    ),
    ("with_payload", lambda m: m.with_payload(1.0, (0, 0, 0), frame="no_such_link")),
]


@pytest.mark.parametrize("case", UNKNOWN_FRAME, ids=[c[0] for c in UNKNOWN_FRAME])
def test_unknown_frame(dp, case):
    with pytest.raises(UnknownFrameError) as ei:
        case[1](dp)
    assert "no_such_link" in str(ei.value)


def test_bad_axes_argument(dp):
    with pytest.raises((InvalidInputError, ValueError)) as ei:
        dp.jacobian(Z2, axes="world_sideways")
    assert "axes" in str(ei.value) or "world_sideways" in str(ei.value)


def test_ambiguous_tip_lists_leaves():
    tree = load_model("ytree")
    assert tree.tip_link is None
    q = np.zeros(tree.n)
    for call in (
        lambda: tree.jacobian(q),
        lambda: tree.frame_pose(q),
        lambda: tree.estimate_external_wrench(q, q),
        lambda: tree.inverse_dynamics(q, q, q, f_ext=np.zeros(6)),
    ):
        with pytest.raises(AmbiguousTipError) as ei:
            call()
        assert "left_l3" in str(ei.value) and "right_l2" in str(ei.value), str(ei.value)
    # naming a frame works
    assert tree.jacobian(q, frame="left_l3").shape == (6, tree.n)


# ------------------------------------------------------------------ malformed URDFs
def _joint(name, parent, child, jtype="revolute", extra=""):
    return (
        f'<joint name="{name}" type="{jtype}"><parent link="{parent}"/><child link="{child}"/>'
        f'<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>{extra}</joint>'
    )


def _link(name, mass=1.0):
    return (
        f'<link name="{name}"><inertial><mass value="{mass}"/>'
        '<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>'
    )


def _robot(*parts):
    return '<?xml version="1.0"?><robot name="bad">' + "".join(parts) + "</robot>"


def test_bad_xml():
    with pytest.raises(URDFError):
        RobotModel.from_urdf_string("<robot name='x'><link name='a'></robot>")


def test_not_a_robot_document():
    with pytest.raises(URDFError):
        RobotModel.from_urdf_string("<?xml version='1.0'?><notarobot/>")


def test_missing_file():
    with pytest.raises(URDFError) as ei:
        RobotModel.from_urdf_file("/nonexistent/dir/robot_xyz.urdf")
    assert "robot_xyz.urdf" in str(ei.value)


def test_a_path_is_not_urdf_text_and_text_is_not_a_path():
    with pytest.raises(URDFError) as ei:
        RobotModel.from_urdf_string(robot_urdfs.DOUBLE_PENDULUM_URDF)
    assert "not URDF XML text" in str(ei.value) and "from_urdf_file" in str(ei.value)
    assert "double_pendulum.urdf" in str(ei.value)
    with pytest.raises(URDFError) as ei:
        RobotModel.from_urdf_file(DP_XML)
    assert "no URDF file" in str(ei.value)
    for empty in ("", "  \n"):
        with pytest.raises(URDFError) as ei:
            RobotModel.from_urdf_string(empty)
        assert "empty" in str(ei.value)
    for wrong in (None, 3, ["<robot/>"]):
        with pytest.raises(URDFError):
            RobotModel.from_urdf_string(wrong)
        with pytest.raises(URDFError):
            RobotModel.from_urdf_file(wrong)


def test_unknown_joint_type():
    xml = _robot(_link("base"), _link("a"), _joint("odd_joint", "base", "a", jtype="helical"))
    with pytest.raises(URDFError) as ei:
        RobotModel.from_urdf_string(xml)
    assert "odd_joint" in str(ei.value)


def test_joint_naming_missing_link():
    xml = _robot(
        _link("base"), _link("a"), _joint("j1", "base", "a"), _joint("j2", "a", "ghost_link")
    )
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(xml)
    assert "ghost_link" in str(ei.value)


def test_duplicate_link_names():
    xml = _robot(
        _link("base"),
        _link("twin_link"),
        _link("twin_link", 2.0),
        _joint("j1", "base", "twin_link"),
    )
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(xml)
    assert "twin_link" in str(ei.value)


def test_duplicate_joint_names():
    xml = _robot(
        _link("base"),
        _link("a"),
        _link("b"),
        _joint("same_joint", "base", "a"),
        _joint("same_joint", "a", "b"),
    )
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(xml)
    assert "same_joint" in str(ei.value)


def test_cycle():
    xml = _robot(
        _link("base"),
        _link("ring_a"),
        _link("ring_b"),
        _joint("j0", "base", "ring_a"),
        _joint("j1", "ring_a", "ring_b"),
        _joint("close_ring", "ring_b", "ring_a"),
    )
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(xml)
    msg = str(ei.value)
    assert any(s in msg for s in ("ring_a", "ring_b", "close_ring")), msg


def test_pure_cycle_without_root():
    xml = _robot(
        _link("loop_a"),
        _link("loop_b"),
        _joint("j1", "loop_a", "loop_b"),
        _joint("j2", "loop_b", "loop_a"),
    )
    with pytest.raises(KinematicTreeError):
        RobotModel.from_urdf_string(xml)


def test_several_roots():
    xml = _robot(_link("base"), _link("a"), _link("island_link"), _joint("j1", "base", "a"))
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(xml)
    assert "island_link" in str(ei.value) or "base" in str(ei.value)


def test_tip_not_below_base():
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(DP_XML, base_link="link2", tip_link="link1")
    msg = str(ei.value)
    assert "link1" in msg, msg
    assert ei.value.argument == "tip_link"


def test_unknown_base_and_tip_links_name_the_argument():
    """The error names the link and, in ``argument``, the argument at fault."""
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(DP_XML, tip_link="lnk2")
    assert "lnk2" in str(ei.value) and "did you mean 'link2'" in str(ei.value)
    assert ei.value.argument == "tip_link"
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(DP_XML, base_link="plinth")
    assert "plinth" in str(ei.value) and ei.value.argument == "base_link"
    with pytest.raises(InvalidInputError) as ei:
        RobotModel.from_urdf_string(DP_XML, tip_link=3)
    assert ei.value.argument == "tip_link"
    # an error of the description itself names no argument
    with pytest.raises(KinematicTreeError) as ei:
        RobotModel.from_urdf_string(DP_XML.replace('link="link1"', 'link="nowhere"', 1))
    assert ei.value.argument is None


def test_mimic_of_unknown_joint_is_a_warning():
    xml = _robot(
        _link("base"),
        _link("a"),
        _link("b"),
        _joint("j1", "base", "a"),
        _joint("j2", "a", "b", extra='<mimic joint="phantom_joint" multiplier="1"/>'),
    )
    model = RobotModel.from_urdf_string(xml)  # loads, j2 independent, with a named warning
    assert model.joint_names == ("j1", "j2")
    (warning,) = model.joint_warnings
    assert "phantom_joint" in str(warning) and "'j2'" in str(warning)


def test_bad_gravity_and_armature():
    with pytest.raises(InvalidInputError) as ei:
        RobotModel.from_urdf_string(DP_XML, gravity=(0.0, -9.81))
    assert "gravity" in str(ei.value)
    with pytest.raises(InvalidInputError) as ei:
        RobotModel.from_urdf_string(DP_XML, armature=[0.1, 0.2, 0.3])
    assert "armature" in str(ei.value)


def test_frame_above_rerooted_base():
    m = RobotModel.from_urdf_string(DP_XML, base_link="link1", gravity=robot_urdfs.DP_GRAVITY)
    with pytest.raises(UnknownFrameError) as ei:
        m.frame_pose(np.zeros(1), frame="base_link")
    assert "base_link" in str(ei.value)


def test_simulate_bad_arguments(dp):
    with pytest.raises(InvalidInputError) as ei:
        dp.simulate(Z2, Z2, 0.1, method="leapfrog_of_doom")
    assert "leapfrog_of_doom" in str(ei.value)
    with pytest.raises(InvalidInputError) as ei:
        dp.simulate(Z2, Z2, 0.1, tau=(np.array([0.0, 0.1]), np.zeros((3, 2))))
    assert "tau" in str(ei.value)
    with pytest.raises(InvalidInputError) as ei:
        dp.simulate(np.zeros(3), Z2, 0.1)
    assert "q0" in str(ei.value)
    with pytest.raises(InvalidInputError) as ei:
        dp.simulate(Z2, Z2, -1.0)
    assert "duration" in str(ei.value)
    for dt in (float("nan"), -1e-3, float("inf")):
        with pytest.raises(InvalidInputError) as ei:
            dp.step(Z2, Z2, Z2, dt=dt)
        assert "dt" in str(ei.value)


def test_payload_bad_arguments(dp):
    with pytest.raises(InvalidInputError) as ei:
        dp.with_payload(-1.0, (0, 0, 0))
    assert "mass" in str(ei.value)
    with pytest.raises(InvalidInputError) as ei:
        dp.with_payload(1.0, (0, 0))
    assert "com" in str(ei.value)
    with pytest.raises(InvalidInputError) as ei:
        dp.with_payload(1.0, (0, 0, 0), inertia=np.eye(2))
    assert "inertia" in str(ei.value)


def test_observer_bad_arguments(dp):
    from robot_dynamics import MomentumObserver

    for gain in (np.ones(3), -5.0, float("nan")):
        with pytest.raises(InvalidInputError) as ei:
            MomentumObserver(dp, gain=gain)
        assert "gain" in str(ei.value)
    for first in (True, False):  # the first call (it initialises) checks its arguments too
        obs = MomentumObserver(dp, gain=10.0)
        if not first:
            obs.reset(Z2, Z2)
        with pytest.raises(InvalidInputError) as ei:
            obs.update(Z2, Z2, np.zeros(3), 1e-3)
        assert "tau" in str(ei.value)
        for dt in (0.0, -1e-3, float("nan")):
            with pytest.raises(InvalidInputError, match="dt"):
                obs.update(Z2, Z2, Z2, dt)


# ------------------------------------------------------------------ singular inertia
_INERTIA = 'ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"'
# the prismatic joint moves a body of 5e-324 kg (the smallest subnormal): M is singular to
# working precision, and solving with it overflows
NEAR_MASSLESS_SLIDER = (
    '<robot name="r"><link name="l0"/>'
    f'<link name="l1"><inertial><mass value="0"/><inertia {_INERTIA}/></inertial></link>'
    '<joint name="j1" type="revolute"><parent link="l0"/><child link="l1"/>'
    '<axis xyz="0 0 -1"/><limit lower="0" upper="0" effort="0" velocity="0"/></joint>'
    f'<link name="l2"><inertial><mass value="5e-324"/><inertia {_INERTIA}/></inertial></link>'
    '<joint name="j2" type="prismatic"><parent link="l1"/><child link="l2"/>'
    '<origin rpy="0 0 1"/><axis xyz="0 1 0"/>'
    '<limit lower="0" upper="0" effort="0" velocity="0"/></joint></robot>'
)


@pytest.mark.parametrize("method", ["forward_dynamics", "aba"])
def test_a_singular_inertia_matrix_names_the_joint_without_warnings(method):
    model = RobotModel.from_urdf_string(NEAR_MASSLESS_SLIDER)
    q = np.array([0.0, 241.0])
    for args in ((q, q, q), (np.stack([q, q]), np.stack([q, q]), np.stack([q, q]))):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(SingularInertiaError) as ei:
                getattr(model, method)(*args)
        assert "'j2'" in str(ei.value)
