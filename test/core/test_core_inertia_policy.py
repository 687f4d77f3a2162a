"""The indefinite-body rule (core/inertia.py): a moving body whose composite inertia is
indefinite beyond the file's rounding loads with an ``indefinite_body`` warning when it cannot
make M(q) indefinite (exact: its kinetic energy is >= 0 in every motion its joints can give it)
or when M(q) has no negative eigenvalue at the sampled configurations; it is refused when M(q)
is indefinite at one of them, naming the link, the joint and the rule. Motion spans against
closed forms and against the velocities of a model with every joint kind. An actuated joint that
moves no mass or inertia (a description without ``<inertial>``) loads with a
``moves_no_inertia`` warning. Inertias that no mass distribution realises (the triangle
inequality, negative moments at the file's rounding) load with a warning, ``strict_inertia``
refuses them and ``balance_inertia`` makes them consistent; a link fixed to the base is
never refused for its inertia. An ``<inertial>`` without ``<inertia>`` (a point mass), an
inertia without mass, and an inertia metres across for its mass (kg cm^2 exported as kg m^2)
load with a warning each."""

import glob
import os

import numpy as np
import pytest

import robot_urdfs
from robot_dynamics import RobotModel
from robot_dynamics.core.errors import (
    InvalidURDFValueError,
    RobotDynamicsError,
    SingularInertiaError,
)
from robot_dynamics.core.inertia import (
    INDEFINITE_BODY,
    INERTIA_WITHOUT_MASS,
    LARGE_INERTIA,
    POINT_MASS,
    INERTIA_ROUNDING,
    NEGATIVE,
    ROUNDING,
    InertiaWarning,
    balanced_inertia,
    body_moments,
    inertia_inconsistency,
    INDEFINITE_MASS_MATRIX,
    MOVES_NO_INERTIA,
    SAMPLED_CONFIGURATIONS,
    TRIANGLE,
    inertia_warning_lines,
    motion_spans,
    sampled_configurations,
)
from robot_dynamics.core.kinematics import Kinematics
from test_core_validation import two_link

# the thigh of Romeo's hip (example-robot-data romeo_laas_small.urdf, LHipPitch_link): principal
# moments -0.0027, 0.0395, 0.054 kg m^2 about its centre of mass, 0.147 m below the hip
THIGH = (
    '<mass value="4.71096"/><origin xyz="-0.02138 -0.00255 -0.14577"/>'
    '<inertia ixx="0.0390706" ixy="-2.41786e-05" ixz="0.0250104" iyy="0.0395116" '
    'iyz="0.000712271" izz="0.0122599"/>'
)
SMALL = '<mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/>'


def _diag(a, b, c):
    return f'ixx="{a!r}" ixy="0" ixz="0" iyy="{b!r}" iyz="0" izz="{c!r}"'


def _hip(thigh=THIGH, pitch_xyz="0 0 0"):
    """A hip: yaw (z), roll (x), pitch (y) axes meeting in one point, then the thigh."""
    joints = [("yaw", "pelvis", "l_yaw", "0 0 1", "0 0 -0.3"), ("roll", "l_yaw", "l_roll", "1 0 0")]
    joints = [j + ("0 0 0",) if len(j) == 4 else j for j in joints]
    joints.append(("pitch", "l_roll", "thigh", "0 1 0", pitch_xyz))
    links = f'<link name="pelvis"/><link name="l_yaw"><inertial>{SMALL}</inertial></link>'
    links += f'<link name="l_roll"><inertial>{SMALL}</inertial></link>'
    links += f'<link name="thigh"><inertial>{thigh}</inertial></link>'
    xml = "".join(
        f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}"/><axis xyz="{axis}"/>'
        '<limit lower="-0.5" upper="0.5" effort="40" velocity="2"/></joint>'
        for name, parent, child, axis, xyz in joints
    )
    return f'<robot name="hip">{links}{xml}</robot>'


def _world_motion(T):
    """Motion transforms [[R, [p]x R], [0, R]] ([v; w] order) of poses (..., 4, 4)."""
    R, p = T[..., :3, :3], T[..., :3, 3]
    X = np.zeros(T.shape[:-2] + (6, 6))
    X[..., :3, :3] = X[..., 3:, 3:] = R
    X[..., :3, 3:] = np.cross(p[..., None, :], np.swapaxes(R, -1, -2)).swapaxes(-1, -2)
    return X


def _neutral_kinematics(model):
    return Kinematics(model.tree, model.tree.q_offset.copy())


def test_motion_spans_closed_forms():
    """A planar 2R arm's second link moves in the plane (v_x, v_y, w_z); three axes meeting in
    h move the last link by rotations about h (v = h x w); one joint spans its own axis."""
    z = np.array([0.0, 0.0, 1.0])

    def revolute(axis, point):
        return np.concatenate([np.cross(point, axis), axis])

    planar = np.array([revolute(z, np.zeros(3)), revolute(z, np.array([1.0, 0.0, 0.0]))])
    spans = motion_spans(planar, np.array([-1, 0]), [0, 1])
    assert spans[0].shape == (6, 1) and spans[1].shape == (6, 3)
    plane = np.eye(6)[:, [0, 1, 5]]
    np.testing.assert_allclose(spans[1] @ spans[1].T @ plane, plane, atol=1e-12)
    h = np.array([0.1, 0.2, -0.3])
    spherical = np.array(
        [revolute(a, h) for a in (z, np.array([1.0, 0, 0]), np.array([0, 1.0, 0]))]
    )
    (U,) = motion_spans(spherical, np.array([-1, 0, 1]), [2]).values()
    assert U.shape == (6, 3)
    np.testing.assert_allclose(U[:3], np.cross(h, U[3:].T).T, atol=1e-12)


def test_motion_spans_hold_every_body_velocity(rng):
    """Every body's velocity at random configurations and joint velocities, carried to the
    neutral configuration's coordinates, lies in its motion span, and those velocities fill it
    (mixed: revolute, prismatic, non-unit axes, fixed links, a mimic joint)."""
    model = RobotModel.from_urdf_string(robot_urdfs.urdf_xml("mixed"))
    tree = model.tree
    kin0 = _neutral_kinematics(model)
    spans = motion_spans(kin0.S, tree.parent, range(tree.nb))
    q = rng.uniform(-2.0, 2.0, (20, model.n))
    qd = rng.normal(size=(20, model.n))
    kin = Kinematics(model.tree, q @ tree.G.T + tree.q_offset)
    V = tree.ancestors @ (kin.S * (qd @ tree.G.T)[..., None])  # (20, nb, 6) base axes at q
    back = _world_motion(kin0.T @ np.linalg.inv(kin.T))  # base axes at q -> at neutral
    V0 = (back @ V[..., None])[..., 0]
    for b, U in spans.items():
        residual = V0[:, b] - V0[:, b] @ U @ U.T
        assert np.abs(residual).max() <= 1e-12 * np.abs(V0[:, b]).max(), b
        # and no larger: the sampled velocities fill it
        assert np.linalg.matrix_rank(V0[:, b], tol=1e-9) == U.shape[1], b
    assert [spans[b].shape[1] for b in range(tree.nb)][:2] == [1, 3]  # revolute, + prismatic


def test_indefinite_body_that_cannot_make_M_indefinite_loads_with_an_exact_warning(rng):
    """Romeo's thigh on a hip whose three axes meet: it moves only by rotations about the hip,
    where its inertia (with 4.7 kg at 0.147 m) is positive definite. It loads with an exact
    indefinite_body warning (and no second warning for the same link); its kinetic energy is
    >= 0 in random motions at random configurations, M(q) positive definite; strict_inertia
    refuses it, balance_inertia balances it. The same thigh on a pitch axis 5 cm off the hip
    point is no longer exact: the warning says sampled."""
    model = RobotModel.from_urdf_string(_hip())
    (warning,) = model.inertia_warnings
    assert (warning.link, warning.rule, warning.joint, warning.exact) == (
        "thigh",
        INDEFINITE_BODY,
        "pitch",
        True,
    )
    np.testing.assert_allclose(warning.moments, [-0.00272, 0.0395, 0.0540], atol=1e-4)
    text = str(warning)
    assert "'thigh'" in text and "'pitch'" in text and "exact" in text and "-0.00272" in text
    tree = model.tree
    q = rng.uniform(-np.pi, np.pi, (200, 3))
    kin = Kinematics(model.tree, q)
    V = tree.ancestors @ (kin.S * rng.normal(size=(200, 3))[..., None])
    energy = np.einsum("ki,kij,kj->k", V[:, 2], kin.I[:, 2], V[:, 2])
    assert energy.min() > 0.0
    assert np.linalg.eigvalsh(model.mass_matrix(q))[:, 0].min() > 0.0
    with pytest.raises(InvalidURDFValueError, match="strict_inertia") as ei:
        RobotModel.from_urdf_string(_hip(), strict_inertia=True)
    assert INDEFINITE_BODY in str(ei.value) and "'thigh'" in str(ei.value)
    assert RobotModel.from_urdf_string(_hip(), balance_inertia=True).inertia_warnings == ()
    (off,) = RobotModel.from_urdf_string(_hip(pitch_xyz="0.05 0 0")).inertia_warnings
    assert (off.rule, off.exact) == (INDEFINITE_BODY, False) and "sampled" in str(off)


def test_indefinite_body_loads_when_M_stays_positive_at_the_sampled_configurations():
    """two_link's l2 with a negative moment about its x axis: its motion span is every rotation
    about its centre of mass, so no exact guarantee; M_11 = 0.1 - 0.09 sin^2 q2 + 0.1 cos^2 q2
    stays positive: it loads with a sampled indefinite_body warning, and M has no negative
    eigenvalue at the sampled configurations (the neutral one, the limits, the seeded ones)."""
    model = RobotModel.from_urdf_string(two_link(l2_inertia=_diag(-0.09, 0.1, 0.1)))
    (warning,) = model.inertia_warnings
    assert (warning.link, warning.rule, warning.joint, warning.exact) == (
        "l2",
        INDEFINITE_BODY,
        "j2",
        False,
    )
    assert f"at the {SAMPLED_CONFIGURATIONS} configurations" in str(warning)
    assert "not a guarantee" in str(warning)
    Q = sampled_configurations(model.tree)
    assert Q.shape == (SAMPLED_CONFIGURATIONS, 2)
    np.testing.assert_array_equal(Q[:3], [[0.0, 0.0], [-2.0, -1.0], [2.0, 1.0]])
    assert np.all((Q >= [-2.0, -1.0]) & (Q <= [2.0, 1.0]))
    M = model.mass_matrix(Q)
    s, c = np.sin(Q[:, 1]), np.cos(Q[:, 1])
    np.testing.assert_allclose(M[:, 0, 0], 0.1 - 0.09 * s**2 + 0.1 * c**2, rtol=1e-12)
    assert np.linalg.eigvalsh(M)[:, 0].min() > 0.0
    np.testing.assert_array_equal(sampled_configurations(model.tree), Q)  # seeded


@pytest.mark.parametrize(
    "inertia, where, q",
    [
        # M_11(0) = 0.01 - 0.09: indefinite at the neutral configuration
        (_diag(0.1, 0.1, -0.09), "the neutral configuration", "[0. 0.]"),
        # M_11 = 0.01 - 0.09 sin^2 q2 + 0.1 cos^2 q2 < 0 only for |q2| > 0.87: at the limits
        (_diag(-0.09, 0.1, 0.1), "the lower joint limits", "[-2. -1.]"),
    ],
)
def test_indefinite_body_that_makes_M_indefinite_is_refused(inertia, where, q):
    """With a light l1 the same indefinite l2 makes M(q) indefinite: refused, naming the link,
    the joint, the rule and the configuration; balance_inertia loads it."""
    xml = two_link(l1_inertia=_diag(0.01, 0.01, 0.01), l2_inertia=inertia)
    with pytest.raises(InvalidURDFValueError) as ei:
        RobotModel.from_urdf_string(xml)
    msg = str(ei.value)
    for word in ("link 'l2'", "joint 'j2'", INDEFINITE_MASS_MATRIX, where, q, "balance_inertia"):
        assert word in msg, (word, msg)
    assert RobotModel.from_urdf_string(xml, balance_inertia=True).inertia_warnings == ()


def test_an_indefinite_M_that_no_sample_meets_is_found_by_the_local_search():
    """With a light l1 and l2's moment about x at -0.01001, M_11 = 0.01 - 0.01001 sin^2 q2
    + 0.1 cos^2 q2 is negative only within 0.0095 rad of q2 = pi/2, which none of the sampled
    configurations meets (q2 in [0, 3.1]); the local search from the lowest of them finds it:
    refused, naming that configuration. At -0.0099 M stays positive everywhere: loaded."""
    limit = 'lower="0" upper="3.1" effort="10" velocity="2"'
    l1 = _diag(0.01, 0.01, 0.01)
    xml = two_link(l1_inertia=l1, l2_inertia=_diag(-0.01001, 0.1, 0.1), limit=limit)
    Q = sampled_configurations(RobotModel.from_urdf_string(xml, balance_inertia=True).tree)
    assert np.all(0.01 - 0.01001 * np.sin(Q[:, 1]) ** 2 + 0.1 * np.cos(Q[:, 1]) ** 2 > 0.0)
    with pytest.raises(InvalidURDFValueError) as ei:
        RobotModel.from_urdf_string(xml)
    msg = str(ei.value)
    assert "at a configuration a local search found from sampled configuration" in msg, msg
    assert "link 'l2'" in msg and "joint 'j2'" in msg and INDEFINITE_MASS_MATRIX in msg
    q2 = float(msg.split("q = [")[1].split("]")[0].split()[1])
    assert abs(q2 - np.pi / 2) < 0.0095
    positive = two_link(l1_inertia=l1, l2_inertia=_diag(-0.0099, 0.1, 0.1), limit=limit)
    (warning,) = RobotModel.from_urdf_string(positive).inertia_warnings
    assert (warning.rule, warning.exact) == (INDEFINITE_BODY, False)
    assert "nor where a local search" in str(warning)


def _chain(inertials, mimic=None):
    """A chain base -> l1 -> l2 -> l3 of revolute joints j1..j3 (axes z, y, y), each link's
    ``<inertial>`` content from ``inertials`` ("" for none); ``mimic``: j3 mimics j2."""
    links = '<link name="base"/>' + "".join(
        f'<link name="l{i}">' + (f"<inertial>{c}</inertial>" if c else "") + "</link>"
        for i, c in enumerate(inertials, 1)
    )
    joints = "".join(
        f'<joint name="j{i}" type="revolute"><parent link="{parent}"/><child link="l{i}"/>'
        f'<origin xyz="0.1 0 0.3"/><axis xyz="{axis}"/>'
        '<limit lower="-2" upper="2" effort="0" velocity="2"/>'
        + ('<mimic joint="j2" multiplier="-1"/>' if mimic and i == 3 else "")
        + "</joint>"
        for i, (parent, axis) in enumerate(
            zip(("base", "l1", "l2"), ("0 0 1", "0 1 0", "0 1 0")), 1
        )
    )
    return f'<robot name="chain">{links}{joints}</robot>'


def test_joints_that_move_no_inertia_load_with_a_warning():
    """A ROS-Industrial description has no <inertial> at all: every joint moves nothing. Each
    loads with a moves_no_inertia warning; its torques are 0, M(q) is 0, forward dynamics
    refuses it, strict_inertia refuses the model, balance_inertia leaves the warning."""
    xml = _chain(["", "", ""])
    model = RobotModel.from_urdf_string(xml)
    assert [(w.joint, w.link, w.rule) for w in model.inertia_warnings] == [
        ("j1", "l1", MOVES_NO_INERTIA),
        ("j2", "l2", MOVES_NO_INERTIA),
        ("j3", "l3", MOVES_NO_INERTIA),
    ]
    assert "'j1'" in str(model.inertia_warnings[0]) and MOVES_NO_INERTIA in str(
        model.inertia_warnings[0]
    )
    (line,) = inertia_warning_lines(model.inertia_warnings)  # one report line for the three
    assert line.startswith(
        f"joints 'j1', 'j2', 'j3' move no mass or inertia ({MOVES_NO_INERTIA}): links 'l1', "
        "'l2', 'l3' and every link they carry have no <inertial>"
    )
    q = np.array([0.3, -0.7, 1.1])
    assert np.all(model.gravity_torques(q) == 0.0) and np.all(model.mass_matrix(q) == 0.0)
    with pytest.raises(SingularInertiaError):
        model.forward_dynamics(q, np.zeros(3), np.ones(3))
    with pytest.raises(InvalidURDFValueError) as ei:
        RobotModel.from_urdf_string(xml, strict_inertia=True)
    assert "strict_inertia" in str(ei.value) and MOVES_NO_INERTIA in str(ei.value)
    assert "balance_inertia" not in str(ei.value)  # balancing gives no link a mass
    balanced = RobotModel.from_urdf_string(xml, balance_inertia=True)
    assert [w.rule for w in balanced.inertia_warnings] == [MOVES_NO_INERTIA] * 3
    # a payload on the last link gives every joint something to move: no warning is left
    loaded = model.with_payload(2.0, (0.1, 0.0, 0.0), frame="l3")
    assert loaded.inertia_warnings == ()
    assert np.all(np.linalg.eigvalsh(loaded.mass_matrix(q)) >= 0.0)
    # other changes of the model keep the warnings
    assert model.with_gravity((0.0, 0.0, -1.0)).inertia_warnings == model.inertia_warnings


def test_only_the_joints_whose_bodies_and_descendants_carry_nothing_are_warned():
    """l1 massless but carrying l2: j1 moves inertia (M_11 > 0), no warning; l3 massless at the
    end: j3 moves nothing (its row and column of M are 0 at every q). A massless j3 that
    mimics j2 adds nothing to warn about: j2 moves l2."""
    xml = _chain(["", SMALL, ""])
    model = RobotModel.from_urdf_string(xml)
    assert [(w.joint, w.rule) for w in model.inertia_warnings] == [("j3", MOVES_NO_INERTIA)]
    rng = np.random.default_rng(7)
    for q in rng.uniform(-2.0, 2.0, (5, 3)):
        M = model.mass_matrix(q)
        assert np.all(M[2] == 0.0) and np.all(M[:, 2] == 0.0)
        assert np.linalg.eigvalsh(M[:2, :2])[0] > 0.0
    assert RobotModel.from_urdf_string(_chain([SMALL, SMALL, SMALL])).inertia_warnings == ()
    mimic = RobotModel.from_urdf_string(_chain(["", SMALL, ""], mimic=True))
    assert mimic.joint_names == ("j1", "j2") and mimic.inertia_warnings == ()
    tail = RobotModel.from_urdf_string(_chain([SMALL, "", ""], mimic=True))
    assert [(w.joint, w.link) for w in tail.inertia_warnings] == [("j2", "l2")]
    assert inertia_warning_lines(tail.inertia_warnings) == [str(tail.inertia_warnings[0])]


def test_massless_joints_share_one_report_line_beside_the_other_warnings():
    """l1 breaks the triangle inequality, l2 and l3 carry nothing: the triangle warning keeps its
    line, the two massless joints share the next."""
    triangle = (
        '<mass value="1"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.01"/>'
    )
    model = RobotModel.from_urdf_string(_chain([triangle, "", ""]))
    warnings = model.inertia_warnings
    assert [(w.rule, w.link) for w in warnings] == [
        (TRIANGLE, "l1"),
        (MOVES_NO_INERTIA, "l2"),
        (MOVES_NO_INERTIA, "l3"),
    ]
    lines = inertia_warning_lines(warnings)
    assert len(lines) == 2 and lines[0] == str(warnings[0])
    assert lines[1].startswith("joints 'j2', 'j3' move no mass or inertia")


# ------------------------------------------------------------------ rounding, triangle, balancing
def _sensor(inertia, parent="l2", mass="0.01"):
    """two_link() with a link 'sensor' fixed to ``parent``."""
    return two_link().replace(
        "</robot>",
        f'<link name="sensor"><inertial><mass value="{mass}"/><inertia {inertia}/></inertial>'
        f'</link><joint name="sensor_joint" type="fixed"><parent link="{parent}"/>'
        '<child link="sensor"/><origin xyz="0 0 0.05"/></joint></robot>',
    )


def _strict_refuses(xml, *names):
    with pytest.raises(InvalidURDFValueError) as ei:
        RobotModel.from_urdf_string(xml, strict_inertia=True)
    msg = str(ei.value)
    assert "strict_inertia" in msg and "balance_inertia" in msg, msg
    for name in names:
        assert name in msg, msg
    return msg


def test_triangle_inequality_loads_with_a_warning_and_strict_refuses_it():
    """Positive semi-definite but not realisable by any mass distribution: loaded as given."""
    xml = two_link(l2_inertia=_diag(0.01, 0.01, 0.5))
    model = RobotModel.from_urdf_string(xml)
    (warning,) = model.inertia_warnings
    assert isinstance(warning, InertiaWarning)
    assert (warning.link, warning.rule, warning.joint) == ("l2", TRIANGLE, "j2")
    np.testing.assert_allclose(warning.moments, [0.01, 0.01, 0.5])
    assert "'l2'" in str(warning) and "triangle inequality" in str(warning)
    assert "'j2'" in str(warning)
    # the dynamics uses the file's tensor: the mass matrix has it
    _, _, I_c = model.link_inertial("j2")
    np.testing.assert_allclose(np.diag(I_c), [0.01, 0.01, 0.5])
    _strict_refuses(xml, "'l2'", "triangle inequality")
    assert RobotModel.from_urdf_string(two_link()).inertia_warnings == ()
    assert RobotModel.from_urdf_string(two_link(), strict_inertia=True).n == 2


@pytest.mark.parametrize("scale", [1e-5, 1.0, 1e3])
def test_negative_moment_at_the_files_rounding_loads_with_a_warning(scale):
    """A principal moment down to -INERTIA_ROUNDING of the trace loads (at any scale); below,
    the moving body is indefinite: it loads with an indefinite_body warning when M(q) stays
    positive (here at every configuration: M_11 = 0.1 + l2's moment about j1's axis), and
    strict_inertia refuses it (test_core_inertia_policy.py has the refusals). (At 1e3 the
    tensor is also large for the link's mass: that warning is another rule's.)"""

    def judged(xml, **kw):
        warnings = RobotModel.from_urdf_string(xml, **kw).inertia_warnings
        return tuple(w for w in warnings if w.rule != LARGE_INERTIA)

    a = 0.1 * scale
    trace = 2 * a
    at_rounding = two_link(l2_inertia=_diag(-0.4 * INERTIA_ROUNDING * trace, a, a))
    (warning,) = judged(at_rounding)
    assert (warning.link, warning.rule, warning.joint) == ("l2", ROUNDING, "j2")
    assert "rounding" in str(warning)
    _strict_refuses(at_rounding, "'l2'", "rounding")
    beyond = two_link(l2_inertia=_diag(-2 * INERTIA_ROUNDING * trace, a, a))
    (warning,) = judged(beyond)
    assert (warning.link, warning.rule, warning.joint) == ("l2", INDEFINITE_BODY, "j2")
    _strict_refuses(beyond, "'l2'", "'j2'", INDEFINITE_BODY)
    assert judged(beyond, balance_inertia=True) == ()
    balanced = RobotModel.from_urdf_string(beyond, balance_inertia=True)
    assert len(balanced.inertia_adjustments) == 1


I_001 = '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>'


@pytest.mark.parametrize(
    "inertial, rule, words",
    [
        ('<mass value="2"/>', POINT_MASS, ("no <inertia>", "point mass of 2 kg")),
        ('<mass value="0"/>' + I_001, INERTIA_WITHOUT_MASS, ("mass 0", "0.01 kg m^2")),
        ('<mass value="3.7"/><inertia ixx="102" ixy="0" ixz="0" iyy="102" iyz="0" izz="40"/>',
         LARGE_INERTIA, ("102 kg m^2 for 3.7 kg", "kg cm^2")),  # UR5's shoulder in kg cm^2
    ],
)  # fmt: skip
def test_what_an_inertial_says_that_a_rigid_body_cannot_quite_be_is_named(inertial, rule, words):
    """Loaded as given (the numbers as the file says), with a warning naming the link, its
    joint and what the element says; strict_inertia refuses it. A link of 0.5 kg with 0.01 kg m^2
    (a radius of gyration of 0.14 m) is no such link."""
    xml = _chain([inertial, '<mass value="0.5"/>' + I_001, SMALL])
    model = RobotModel.from_urdf_string(xml)
    assert [(w.link, w.rule, w.joint) for w in model.inertia_warnings] == [("l1", rule, "j1")]
    for word in (*words, "'l1'", "'j1'", rule):
        assert word in str(model.inertia_warnings[0]), str(model.inertia_warnings[0])
    with pytest.raises(InvalidURDFValueError, match=f"strict_inertia is set: link 'l1'.*{rule}"):
        RobotModel.from_urdf_string(xml, strict_inertia=True)


def test_link_fixed_to_the_base_is_never_refused_for_its_inertia():
    """A link that never moves: any finite tensor loads, with a warning naming it."""
    xml = two_link().replace(
        '<link name="base"/>',
        '<link name="base"><inertial><mass value="1"/>'
        f"<inertia {_diag(-0.5, 0.1, 0.1)}/></inertial></link>",
    )
    model = RobotModel.from_urdf_string(xml)
    (warning,) = model.inertia_warnings
    assert (warning.link, warning.rule, warning.joint) == ("base", NEGATIVE, None)
    assert "fixed to the base" in str(warning)
    _strict_refuses(xml, "'base'")
    # the same beside the model: links above base_link do not move either
    above = RobotModel.from_urdf_string(two_link(l1_inertia=_diag(-0.5, 0.1, 0.1)), base_link="l1")
    assert [(w.link, w.joint) for w in above.inertia_warnings] == [("l1", None)]


def test_moving_body_is_judged_as_a_whole():
    """A small link whose own tensor is indefinite, fixed to a moving link: the body (the
    link plus every link fixed to it) is positive semi-definite, so it loads with a warning;
    a sensor heavy enough to make the body indefinite, and M(q) with it, is refused, naming the
    body's links."""
    small = _sensor(_diag(-1e-4, 1e-4, 1e-4))
    model = RobotModel.from_urdf_string(small)
    (warning,) = model.inertia_warnings
    assert (warning.link, warning.rule, warning.joint) == ("sensor", NEGATIVE, "j2")
    assert "its body is positive semi-definite" in str(warning)
    _strict_refuses(small, "'sensor'")
    heavy = _sensor(_diag(-1.0, 1.0, 1.0))
    with pytest.raises(InvalidURDFValueError) as ei:
        RobotModel.from_urdf_string(heavy)
    msg = str(ei.value)
    assert "'l2'" in msg and "'sensor'" in msg and "'j2'" in msg, msg
    # the body's composite is what the dynamics uses: the same tensors in one link or split
    # over two give the same model
    one = RobotModel.from_urdf_string(
        two_link(l2_inertia=_diag(0.1 - 1e-4, 0.1 + 1e-4, 0.1 + 1e-4))
    )
    split = RobotModel.from_urdf_string(
        _sensor(_diag(-1e-4, 1e-4, 1e-4), mass="0").replace(
            '<origin xyz="0 0 0.05"/></joint>', "</joint>"
        )
    )
    q = np.array([0.3, -0.4])
    np.testing.assert_allclose(split.mass_matrix(q), one.mass_matrix(q), rtol=1e-12)


def test_body_moments_are_the_composite_inertias_about_each_centre_of_mass():
    from robot_dynamics.core.spatial import inertia_parameters

    model = RobotModel.from_urdf_string(robot_urdfs.urdf_xml("mixed"))
    moments = body_moments(model.tree)
    assert moments.shape == (model.tree.nb, 3)
    for b in range(model.tree.nb):
        _, _, I_c = inertia_parameters(model.tree.inertia[b])
        np.testing.assert_allclose(moments[b], np.linalg.eigvalsh(I_c), rtol=0, atol=1e-15)
    still = RobotModel.from_urdf_string(_sensor(_diag(0.1, 0.1, 0.1)), base_link="sensor")
    assert body_moments(still.tree).shape == (0, 3)


@pytest.mark.skipif(not robot_urdfs.has_erd(), reason="example-robot-data not installed")
def test_real_placeholder_inertias_load_with_warnings_strict_refuses_balance_balances():
    """pr2's sensor_mount_link (moments 0.001 0.001 0.01, moves with the head) and TIAGo's
    antenna (indefinite, fixed to the base) load with warnings; strict_inertia refuses them;
    balance_inertia balances every inconsistent tensor of example-robot-data, leaving no
    warning but the joints that move no inertia (Romeo's grippers: balancing gives no link a
    mass) and a positive semi-definite mass matrix."""
    pr2 = os.path.join(robot_urdfs.robots_dir(), "pr2_description", "urdf", "pr2.urdf")
    model = RobotModel.from_urdf_file(pr2)
    mount = next(w for w in model.inertia_warnings if w.link == "sensor_mount_link")
    assert (mount.rule, mount.joint) == (TRIANGLE, "head_tilt_joint")
    with pytest.raises(InvalidURDFValueError, match="sensor_mount_link.*balance_inertia"):
        RobotModel.from_urdf_file(pr2, strict_inertia=True)
    balanced = RobotModel.from_urdf_file(pr2, balance_inertia=True, strict_inertia=True)
    assert any("sensor_mount_link" in note for note in balanced.inertia_adjustments)
    assert balanced.inertia_warnings == ()
    tiago = os.path.join(robot_urdfs.robots_dir(), "tiago_description", "robots", "tiago.urdf")
    antenna = {w.link: w for w in RobotModel.from_urdf_file(tiago).inertia_warnings}
    assert antenna["base_antenna_left_link"].rule == NEGATIVE
    assert antenna["base_antenna_left_link"].joint is None
    assert RobotModel.from_urdf_file(robot_urdfs.DOUBLE_PENDULUM_URDF).inertia_adjustments == ()
    rng = np.random.default_rng(3)
    files = sorted(
        glob.glob(os.path.join(robot_urdfs.robots_dir(), "**", "*.urdf"), recursive=True)
    )
    balanced_files = 0
    for path in files:
        try:
            RobotModel.from_urdf_file(path, max_links=5000, strict_inertia=True)
            continue
        except RobotDynamicsError as err:
            if not (isinstance(err, InvalidURDFValueError) and "<inertia>" in str(err)):
                continue
        model = RobotModel.from_urdf_file(path, max_links=5000, balance_inertia=True)
        assert model.inertia_adjustments, path
        assert all(w.rule == MOVES_NO_INERTIA for w in model.inertia_warnings), path
        balanced_files += 1
        if model.n:
            q = np.clip(rng.uniform(-1.0, 1.0, model.n), *model.position_limits)
            eig = np.linalg.eigvalsh(model.mass_matrix(q))  # massless chains may give 0
            assert eig[0] >= -1e-12 * eig[-1], path
    assert balanced_files >= 10


def test_balanced_inertia_is_consistent_and_keeps_consistent_tensors():
    good = np.diag([0.1, 0.2, 0.25])
    np.testing.assert_allclose(balanced_inertia(good), good, atol=1e-15)
    for bad in (np.diag([0.001, 0.001, 0.01]), np.diag([-1e-3, 0.2, 0.2])):
        assert inertia_inconsistency(bad) is not None
        fixed = balanced_inertia(bad)
        assert inertia_inconsistency(fixed) is None
        np.testing.assert_allclose(fixed, fixed.T)
    R = np.linalg.qr(np.random.default_rng(0).normal(size=(3, 3)))[0]
    rotated = R @ np.diag([0.001, 0.002, 0.01]) @ R.T
    fixed = balanced_inertia(rotated)
    moments = np.linalg.eigvalsh(fixed)
    np.testing.assert_allclose(moments, [0.0045, 0.0055, 0.01], rtol=1e-9)
