"""The indefinite-body rule (core/inertia.py): a moving body whose composite inertia is
indefinite beyond the file's rounding loads with an ``indefinite_body`` warning when it cannot
make M(q) indefinite (exact: its kinetic energy is >= 0 in every motion its joints can give it)
or when M(q) has no negative eigenvalue at the sampled configurations; it is refused when M(q)
is indefinite at one of them, naming the link, the joint and the rule. Motion spans against
closed forms and against the velocities of a model with every joint kind. An actuated joint that
moves no mass or inertia (a description without ``<inertial>``) loads with a
``moves_no_inertia`` warning."""

import numpy as np
import pytest

import robot_urdfs
from robot_dynamics import RobotModel
from robot_dynamics.core.errors import InvalidURDFValueError, SingularInertiaError
from robot_dynamics.core.inertia import (
    INDEFINITE_BODY,
    INDEFINITE_MASS_MATRIX,
    MOVES_NO_INERTIA,
    SAMPLED_CONFIGURATIONS,
    TRIANGLE,
    inertia_warning_lines,
    motion_spans,
    sampled_configurations,
)
from robot_dynamics.core.kinematics import Kinematics
from test_core_validation import _diag, two_link

# the thigh of Romeo's hip (example-robot-data romeo_laas_small.urdf, LHipPitch_link): principal
# moments -0.0027, 0.0395, 0.054 kg m^2 about its centre of mass, 0.147 m below the hip
THIGH = (
    '<mass value="4.71096"/><origin xyz="-0.02138 -0.00255 -0.14577"/>'
    '<inertia ixx="0.0390706" ixy="-2.41786e-05" ixz="0.0250104" iyy="0.0395116" '
    'iyz="0.000712271" izz="0.0122599"/>'
)
SMALL = '<mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/>'


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
