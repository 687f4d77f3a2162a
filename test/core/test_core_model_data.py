"""The model's data in the open: the compiled tree (``model.tree``) is frozen and read-only and
its compiled masks, levels and sums agree with their definitions; the model cannot be changed
after construction (derived models are new models); the unchecked entry points give what the
checked methods give; no core module reads another object's private attributes."""

import copy
import dataclasses
import glob
import os
import pickle
import re

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import robot_urdfs
from core_helpers import load_model, random_state, robot_params
from robot_dynamics.core import dynamics
from robot_dynamics.core.errors import (
    AmbiguousTipError,
    InvalidInputError,
    UnknownFrameError,
)
from robot_dynamics.core.inertia import INDEFINITE_MASS_MATRIX, TRIANGLE
from robot_dynamics.core.spatial import skew, spatial_inertia
from robot_dynamics.core.friction import FrictionModel
from robot_dynamics.core.estimation import external_wrench, resolve_wrench_components
from robot_dynamics.core.simulate import semi_implicit_euler_step
from robot_dynamics.core.state_terms import StateTerms

ROBOTS = robot_params(["double_pendulum", "mixed", "ytree", "panda_arm", "baxter"])
CORE = os.path.join(robot_urdfs.REPO_ROOT, "robot_dynamics", "core")


def _arrays(tree):
    for field in dataclasses.fields(tree):
        value = getattr(tree, field.name)
        if isinstance(value, np.ndarray):
            yield field.name, value
        elif isinstance(value, tuple):
            for k, item in enumerate(value):
                for part in item if isinstance(item, tuple) else (item,):
                    if isinstance(part, np.ndarray):
                        yield f"{field.name}[{k}]", part


@pytest.mark.parametrize("name", ROBOTS)
def test_every_array_of_the_tree_is_read_only(name):
    tree = load_model(name).tree
    arrays = dict(_arrays(tree))
    assert {"parent", "ancestors", "descendants", "axis", "inertia", "gravity"} <= set(arrays)
    for what, arr in arrays.items():
        assert not arr.flags.writeable, what
    with pytest.raises(ValueError):
        tree.inertia[0, 0, 0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        tree.gravity = np.zeros(3)
    with pytest.raises(TypeError):
        tree.frames["new_link"] = tree.frames[tree.base_link]
    for info in tree.frames.values():
        assert not info.T_body_frame.flags.writeable


@pytest.mark.parametrize("name", ROBOTS)
def test_compiled_tree_agrees_with_its_definitions(name):
    tree = load_model(name).tree
    nb = tree.nb
    anc = tree.ancestors
    for i in range(nb):  # ancestors-or-self by walking the parent array
        chain, b = set(), i
        while b >= 0:
            chain.add(b)
            b = tree.parent[b]
        assert set(np.nonzero(anc[i])[0]) == chain
    np.testing.assert_array_equal(tree.descendants, anc.T)
    np.testing.assert_array_equal(tree.strict_ancestors, anc - np.eye(nb))
    np.testing.assert_array_equal(tree.depth, anc.sum(axis=1))
    assert [tree.body_of_joint[name] for name in tree.body_joint_names] == list(range(nb))
    with pytest.raises(TypeError):
        tree.body_of_joint["x"] = 0  # read-only
    np.testing.assert_array_equal(tree.prismatic, tree.joint_type == 1)
    np.testing.assert_array_equal(tree.GT, tree.G.T)
    # the base's acceleration enters once on the way to every body (trees with several bodies on
    # the base included: baxter, ytree)
    a0 = np.concatenate([-tree.gravity, np.zeros(3)])
    np.testing.assert_array_equal(anc @ tree.base_acceleration, np.tile(a0, (nb, 1)))
    assert np.count_nonzero(tree.base_acceleration.any(axis=1)) == np.count_nonzero(tree.parent < 0)


def test_the_model_is_immutable_and_derived_models_are_new(rng):
    model = load_model("mixed")
    for name, value in (("tip_link", "tool"), ("tree", None), ("gravity", np.zeros(3))):
        with pytest.raises(AttributeError):
            setattr(model, name, value)
    with pytest.raises(AttributeError):
        del model.tip_link
    q, qd, qdd = random_state(model, "mixed", rng)
    g0, tau0 = model.gravity_torques(q), model.inverse_dynamics(q, qd, qdd)
    derived = [
        model.with_gravity([0.0, 9.81, 0.0]),
        model.with_armature(0.1),
        model.with_friction(FrictionModel(np.full(model.n, 0.2), np.full(model.n, 0.3))),
        model.with_payload(1.5, [0.0, 0.0, 0.1], frame="tool"),
        model.with_body_inertias(2.0 * model.tree.inertia),
    ]
    for new in derived:
        assert new is not model
        # a frozen tree is shared when it does not change (another friction model)
        assert (new.tree is model.tree) == (new is derived[2])
        assert new.tip_link == model.tip_link
        assert new.inertia_adjustments == model.inertia_adjustments
    np.testing.assert_array_equal(model.gravity_torques(q), g0)
    np.testing.assert_array_equal(model.inverse_dynamics(q, qd, qdd), tau0)
    np.testing.assert_array_equal(derived[2].friction.viscous, 0.2)
    np.testing.assert_array_equal(derived[2].friction.coulomb, 0.3)
    assert all(new.friction is model.friction for new in derived if new is not derived[2])
    # the body inertias scale every inertial term: M and g double
    doubled = derived[4]
    np.testing.assert_allclose(doubled.mass_matrix(q), 2.0 * model.mass_matrix(q), rtol=1e-12)
    np.testing.assert_allclose(doubled.gravity_torques(q), 2.0 * g0, rtol=1e-12, atol=1e-12)


def test_with_body_inertias_refuses_a_wrong_shape_or_non_finite_values():
    model = load_model("double_pendulum")
    bad = model.tree.inertia.copy()
    bad[1, 0, 0] = np.nan
    for inertia in (np.zeros((3, 6, 6)), bad, "heavy"):
        with pytest.raises(InvalidInputError) as ei:
            model.with_body_inertias(inertia)
        assert "body inertias" in str(ei.value)


def test_with_body_inertias_judges_them_as_a_urdf_s(rng):
    """New body inertias: what is no spatial inertia, a negative mass, or makes M(q) indefinite
    is refused naming the body's link and joint; a body that breaks the triangle inequality
    loads with the warning a URDF link would get; consistent ones load without warning."""
    model = load_model("double_pendulum")
    link, joint = model.tree.body_link_names[1], model.tree.body_joint_names[1]
    assert model.with_body_inertias(2.0 * model.tree.inertia).inertia_warnings == ()
    mass, com, I_c = model.link_inertial(joint)
    cases = {
        "negative mass": -model.tree.inertia[1],
        "not symmetric": model.tree.inertia[1] + np.eye(6, k=1),
        "mass block": model.tree.inertia[1] + np.diag([0.5, 0, 0, 0, 0, 0]),
        INDEFINITE_MASS_MATRIX: spatial_inertia(mass, com, np.diag([1e-3, 1e-3, -5.0])),
    }
    for what, body in cases.items():
        inertia = model.tree.inertia.copy()
        inertia[1] = body
        with pytest.raises(InvalidInputError) as ei:
            model.with_body_inertias(inertia)
        message = str(ei.value)
        assert repr(link) in message and repr(joint) in message, (what, message)
        assert {
            "negative mass": "negative mass",
            INDEFINITE_MASS_MATRIX: INDEFINITE_MASS_MATRIX,
        }.get(what, "not a spatial inertia") in message, (what, message)
    inertia = model.tree.inertia.copy()
    inertia[1] = spatial_inertia(mass, com, np.diag([1e-3, 1e-3, 5e-3]))  # 5 > 1 + 1
    (warning,) = model.with_body_inertias(inertia).inertia_warnings
    assert (warning.link, warning.rule, warning.joint) == (link, TRIANGLE, joint)


def test_link_inertial_names_the_joint_a_link_needs():
    model = load_model("mixed")
    mass, com, I_c = model.link_inertial("j2")
    assert mass == model.tree.inertia[1, 0, 0] and com.shape == (3,) and I_c.shape == (3, 3)
    assert model.link_inertial("j5")[0] > 0.0  # a mimic joint's body
    for name, hint in (("l2", "link 'l2' is on the body moved by joint 'j2'"), ("nope", None)):
        with pytest.raises(InvalidInputError) as ei:
            model.link_inertial(name)
        assert repr(name) in str(ei.value) and "'j1', 'j2'" in str(ei.value)
        assert hint is None or hint in str(ei.value)


@pytest.mark.parametrize("name", ["mixed", "panda_gripper", "ytree"])
def test_a_model_pickles_and_copies_as_itself(name, rng):
    """A model goes through pickle (multiprocessing, joblib) whole: its tree, tip, friction,
    payload, locked joints and load notes; copy and deepcopy return the immutable model."""
    base = load_model(name)
    model = base.with_friction(
        FrictionModel(np.full(base.n, 0.2), np.full(base.n, 0.1), joint_names=base.joint_names)
    ).with_payload(0.7, [0.01, 0.0, 0.05], frame=base.tree.leaf_links[0])
    assert copy.copy(model) is model and copy.deepcopy(model) is model
    clone = pickle.loads(pickle.dumps(model))
    assert clone is not model and clone.tree is not model.tree
    for field in ("tip_link", "inertia_warnings", "locked_joints", "joint_warnings", "joint_names"):
        assert getattr(clone, field) == getattr(model, field), field
    assert dict(clone.tree.frames).keys() == dict(model.tree.frames).keys()
    q, qd, qdd = random_state(model, name, rng)
    np.testing.assert_array_equal(clone.mass_matrix(q), model.mass_matrix(q))
    np.testing.assert_array_equal(
        clone.inverse_dynamics(q, qd, qdd), model.inverse_dynamics(q, qd, qdd)
    )
    np.testing.assert_array_equal(clone.friction_torques(qd), model.friction_torques(qd))
    with pytest.raises(ValueError, match="read-only"):
        clone.tree.inertia[0, 0, 0] = 1.0


def test_resolve_frame():
    model = load_model("mixed")
    assert model.resolve_frame(None) == model.tip_link == "tool"
    assert model.resolve_frame("mount") == "mount"
    with pytest.raises(UnknownFrameError) as ei:
        model.resolve_frame("tol")
    assert "'tool'" in str(ei.value)  # a suggestion
    tree_model = load_model("ytree")
    assert tree_model.tip_link is None
    with pytest.raises(AmbiguousTipError):
        tree_model.resolve_frame(None)


@pytest.mark.parametrize("name", ROBOTS)
def test_unchecked_entry_points_give_what_the_checked_methods_give(name, rng):
    model = load_model(name).with_armature(0.05)
    tree = model.tree
    frame = robot_urdfs.default_frame(name)
    q, qd, qdd = random_state(model, name, rng, shape=(3,))
    tau = rng.normal(size=q.shape)
    f_ext = rng.normal(size=(3, 6))
    kin = dynamics.kinematics(tree, q)

    def same(a, b):  # a shared kinematics pass may form S another way: rounding differs
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)

    same(dynamics.gravity_torques(tree, kin), model.gravity_torques(q))
    same(
        dynamics.inverse_dynamics(tree, kin, qd, qdd, f_ext, frame),
        model.inverse_dynamics(q, qd, qdd, f_ext=f_ext, frame=frame),
    )
    same(dynamics.nonlinear_effects(tree, kin, qd), model.nonlinear_effects(q, qd))
    same(dynamics.mass_matrix(tree, kin), model.mass_matrix(q))
    same(dynamics.coriolis_matrix(tree, kin, qd), model.coriolis_matrix(q, qd))
    same(
        dynamics.forward_dynamics(tree, kin, qd, tau, f_ext, frame),
        model.forward_dynamics(q, qd, tau, f_ext=f_ext, frame=frame),
    )
    for a, b in zip(dynamics.momentum_terms(tree, kin, qd), model.momentum_terms(q, qd)):
        same(a, b)
    for axes in ("base", "local"):
        same(dynamics.frame_jacobian(tree, kin, frame, axes), model.jacobian(q, frame, axes))
        same(
            dynamics.jacobian_dot_qd(tree, kin, qd, frame, axes),
            model.jacobian_dot_qd(q, qd, frame, axes),
        )
    same(dynamics.frame_pose(tree, kin, frame), model.frame_pose(q, frame))
    same(dynamics.potential_energy(tree, kin), model.potential_energy(q))
    terms = StateTerms(tree, kin, qd, frame, "local")
    checked = model.state_terms(q, qd, frame=frame, axes="local")
    for attribute in ("gravity", "nonlinear_effects", "momentum", "coriolis_transpose_qd"):
        same(getattr(terms, attribute), getattr(checked, attribute))
    same(terms.jacobian, checked.jacobian)
    tau_ext = rng.normal(size=q.shape)
    names = resolve_wrench_components(None, model.n)
    est = external_wrench(tree, q, tau_ext, frame, model.base_link, names, 0.05, 0.01)
    ref = model.estimate_external_wrench(q, tau_ext, frame=frame, sensor_frame=model.base_link)
    same(est.wrench, ref.wrench)
    same(est.singular_values, ref.singular_values)
    for a, b in zip(
        semi_implicit_euler_step(tree, q, qd, tau, 1e-3, f_ext, frame),
        model.step(q, qd, tau, 1e-3, f_ext=f_ext, frame=frame),
    ):
        same(a, b)


@pytest.mark.parametrize("name", ROBOTS)
def test_a_batch_in_chunks_gives_what_one_pass_gives(name, rng):
    model = load_model(name).with_armature(0.05)
    tree = model.tree
    shape = (3, 2 * dynamics.CHUNK_BYTES // (8 * 36 * tree.nb) + 5)  # several chunks
    q, qd, qdd = random_state(model, name, rng, shape=shape)
    qd = qd[0, 0]  # one velocity for the whole batch: broadcast
    f_ext = rng.normal(size=shape + (6,))
    frame = robot_urdfs.default_frame(name)
    kin = dynamics.kinematics(tree, q)
    chunked = dynamics.in_chunks(
        tree, shape, dynamics.inverse_dynamics, q, qd, qdd, f_ext, frame=frame
    )
    assert chunked.shape == shape + (model.n,)
    np.testing.assert_allclose(
        chunked, dynamics.inverse_dynamics(tree, kin, qd, qdd, f_ext, frame), rtol=1e-12, atol=1e-12
    )
    for a, b in zip(
        dynamics.in_chunks(tree, shape, dynamics.momentum_terms, q, qd),
        dynamics.momentum_terms(tree, kin, qd),
    ):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        model.jacobian(q, frame, "local")[2, 7],
        model.jacobian(q[2, 7], frame, "local"),
        rtol=1e-12,
        atol=1e-12,
    )


@pytest.mark.parametrize("name", ROBOTS)
def test_the_kinematics_pass_is_the_books_definitions(name, rng):
    # each pose the parent's times the joint's placement times its motion; S the joint axis
    # moved to the base origin by the pose's motion transform; I = F I_B F^T
    model = load_model(name)
    tree = model.tree
    q, _, _ = random_state(model, name, rng, shape=(4,))
    q_full = tree.body_positions(q)
    kin = dynamics.kinematics(tree, q)
    for b in range(4):
        for i in range(tree.nb):
            motion = np.eye(4)
            if tree.prismatic[i]:
                motion[:3, 3] = tree.axis[i] * q_full[b, i]
            else:
                motion[:3, :3] = Rotation.from_rotvec(tree.axis[i] * q_full[b, i]).as_matrix()
            parent = np.eye(4) if tree.parent[i] < 0 else kin.T[b, tree.parent[i]]
            expected = parent @ tree.T_parent_joint[i] @ motion
            np.testing.assert_allclose(kin.T[b, i], expected, rtol=0, atol=1e-12)
            R, p = expected[:3, :3], expected[:3, 3]
            X = np.block([[R, skew(p) @ R], [np.zeros((3, 3)), R]])
            zero = np.zeros(3)
            parts = (tree.axis[i], zero) if tree.prismatic[i] else (zero, tree.axis[i])
            s_body = np.concatenate(parts)
            np.testing.assert_allclose(kin.S[b, i], X @ s_body, rtol=0, atol=1e-12)
            F = np.linalg.inv(X).T
            np.testing.assert_allclose(kin.F[b, i], F, rtol=0, atol=1e-12)
            np.testing.assert_allclose(
                kin.I[b, i], F @ tree.inertia[i] @ F.T, rtol=1e-12, atol=1e-12
            )


def test_no_core_module_reads_private_attributes_of_another_object():
    # an attribute with a leading underscore is read only through ``self`` (or ``cls``)
    private = re.compile(r"\b(?!self\b|cls\b)([a-z_][a-z0-9_]*)\._[a-z]\w*")
    offenders = []
    for path in sorted(glob.glob(os.path.join(CORE, "*.py"))):
        with open(path) as f:
            for number, line in enumerate(f, 1):
                code = line.split("#")[0]
                for match in private.finditer(code):
                    if match.group(1).startswith("_") or match.group(1) in ("np", "scipy"):
                        continue  # module aliases (``_dynamics.kinematics``), numpy internals
                    offenders.append(f"{os.path.basename(path)}:{number}: {match.group(0)}")
    assert not offenders, offenders


def test_no_core_module_exceeds_700_lines():
    for path in glob.glob(os.path.join(CORE, "*.py")):
        with open(path) as f:
            assert sum(1 for _ in f) <= 700, path
