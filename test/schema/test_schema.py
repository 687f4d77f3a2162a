"""The parameter declarations (robot_dynamics.schema), ROS-free: what is derived from them (the
pipeline config, its validation and the mapping from node parameters) agrees with them; written
parameters files carry their units.
"""

import dataclasses
import math
import os

import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.errors import InvalidInputError
from robot_dynamics.estimation import EstimationPipeline, PipelineConfig
from robot_dynamics.estimation.config import ContactConfig, pipeline_config
from robot_dynamics.schema import (
    ARM_SIMULATOR,
    DYNAMICS_NODE,
    MODEL_PARAMS,
    SCHEMAS,
    NodeSchema,
    Param,
    Section,
    Type,
    comment_problems,
)
from robot_dynamics.schema.derive import config_values
from robot_dynamics.schema.model import locked_joints
from robot_dynamics.schema.param import ARRAY_TYPES, NUMBER_TYPES
from robot_dynamics.tools.params_file import parameters_yaml, read_parameters_file

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG_PARAMS = [p for p in DYNAMICS_NODE.params if p.config is not None]


@pytest.fixture(scope="module")
def panda():
    return RobotModel.from_urdf_file(os.path.join(REPO, "urdf", "panda_arm.urdf"))


def _fields(cls, prefix=""):
    out = {}
    for f in dataclasses.fields(cls):
        if dataclasses.is_dataclass(f.type):
            out.update(_fields(f.type, f"{prefix}{f.name}."))
        else:
            out[prefix + f.name] = f
    return out


# ------------------------------------------------------------------ declarations
def test_declarations_refuse_a_number_without_range_and_a_bad_default():
    with pytest.raises(ValueError, match="x: a number needs a range"):
        Param("x", 1.0, "d", Type.DOUBLE)
    with pytest.raises(ValueError, match="x: default 2.0: must be <= 1.0"):
        Param("x", 2.0, "d", Type.DOUBLE, range=(0.0, 1.0))
    with pytest.raises(ValueError, match="x: default 1: must be a float"):
        Param("x", 1, "d", Type.DOUBLE, range=(0.0, 1.0))
    with pytest.raises(ValueError, match="must be one of"):
        Param("x", "c", "d", Type.STRING, choices=("a", "b"))
    p = Param("x", 1.0, "d", Type.DOUBLE, range=(0.0, 1.0))
    with pytest.raises(ValueError, match="x declared twice"):
        NodeSchema("n", (Section("a", "A", (p,)), Section("b", "B", (p,))))


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: s.node)
def test_every_declaration_is_complete(schema):
    """Numbers have a finite range and units text without brackets; a description ends a
    sentence; read-only parameters are not pipeline config fields (the config changes live)."""
    for p in schema.params:
        assert p.description.endswith((".", ")")), p.name
        assert "[" not in p.units and "]" not in p.units, p.name
        if p.type in NUMBER_TYPES or p.type == Type.DOUBLE_ARRAY:
            assert all(math.isfinite(v) for v in p.range), p.name
        assert not (p.read_only and p.config), p.name


def test_both_nodes_declare_the_same_model_parameters():
    for schema in SCHEMAS:
        model = schema.section("model")
        assert model.names == MODEL_PARAMS
        assert {p.name for p in schema.params} >= MODEL_PARAMS
    a, b = (s.section("model").params for s in SCHEMAS)
    assert [(p.name, p.default, p.type, p.range, p.units) for p in a] == [
        (p.name, p.default, p.type, p.range, p.units) for p in b
    ]


def test_both_nodes_declare_the_same_friction_parameters():
    from robot_dynamics.core.friction import FRICTION_PARAMETERS

    declared = [[p for p in schema.params if p.name.startswith("friction.")] for schema in SCHEMAS]
    for params in declared:
        assert tuple(p.name for p in params) == FRICTION_PARAMETERS
    a, b = declared
    assert [(p.name, p.default, p.type, p.range, p.low_open, p.units) for p in a] == [
        (p.name, p.default, p.type, p.range, p.low_open, p.units) for p in b
    ]


def test_no_parameter_name_is_the_dotted_prefix_of_another():
    """A parameters file (and ``ros2 param dump``) nests ``a.b`` under ``a``: a parameter ``a``
    beside ``a.b`` would have to be a value and a mapping at once."""
    for schema in SCHEMAS:
        names = {p.name for p in schema.params}
        nested = {".".join(n.split(".")[:k]) for n in names for k in range(1, n.count(".") + 1)}
        assert not names & nested, (schema.node, sorted(names & nested))


def test_a_schema_refuses_a_name_that_is_the_dotted_prefix_of_another():
    flag = Param("friction", True, "on/off", Type.BOOL)
    level = Param("friction.level", 1.0, "level", Type.DOUBLE, range=(0.0, 2.0))
    with pytest.raises(
        ValueError, match="parameter friction is the prefix of parameter friction.level"
    ):
        NodeSchema("n", (Section("s", "S", (flag, level)),))


def test_reason_names_the_entry_or_the_label():
    p = DYNAMICS_NODE["effort_offset"]
    assert p.reason([0.0, 2.0e6]) == "entry 1: must be <= 1000000.0, got 2000000.0"
    assert p.reason([0.0, math.inf], labels=["a", "b"]) == "b: must be finite, got inf"
    assert DYNAMICS_NODE["gravity"].reason([0.0, 1.0]) == "needs 3 values or none, got 2"
    assert DYNAMICS_NODE["gravity"].reason([]) is None
    assert "not among" in DYNAMICS_NODE["wrench_components"].reason(["fx", "fq"])
    assert "appears twice" in DYNAMICS_NODE["command_joints"].reason(["a", "a"])
    assert DYNAMICS_NODE["observer_gain"].reason("50") == "must be a number, got '50'"
    assert DYNAMICS_NODE["observer_gain"].type_reason(50) == "must be a float, got 50"


@pytest.mark.parametrize("schema", [DYNAMICS_NODE, ARM_SIMULATOR], ids=lambda s: s.node)
def test_locked_joints_entries_are_joint_or_joint_equals_position(schema):
    assert locked_joints([" finger_joint = 0.02", "wrist"]) == {"finger_joint": 0.02, "wrist": None}
    p = schema["locked_joints"]
    assert p.reason(["finger_joint=0.02", "wrist"]) is None
    for entry, words in (
        ("=0.1", "names no joint"),
        ("finger_joint=", "must be a number"),
        ("finger_joint=nan", "must be a number within +-1000"),
        ("finger_joint=2e3", "'finger_joint=2e3'"),
        ("finger_joint=open", "(JOINT=POSITION, or JOINT alone for its default)"),
    ):
        assert words in (p.reason([entry]) or ""), entry
    assert p.reason(["a", "a=0"]) == "joint 'a' is locked twice"


# ------------------------------------------------------------------ the pipeline config
def test_pipeline_config_fields_are_the_declared_ones():
    """One field per parameter with a config path, of its type, with its default."""
    fields = _fields(PipelineConfig)
    assert set(fields) == {p.config for p in CONFIG_PARAMS}
    python_types = {Type.DOUBLE: float, Type.BOOL: bool, Type.STRING: str, Type.INTEGER: int}
    for p in CONFIG_PARAMS:
        f = fields[p.config]
        assert f.type is (tuple if p.type in ARRAY_TYPES else python_types[p.type]), p.name
        assert f.default == p.config_value(p.default), p.name
        assert (
            f"parameter ``{p.name}``"
            in (ContactConfig if p.config.startswith("contact.") else PipelineConfig).__doc__
        )
    assert PipelineConfig().contact == ContactConfig()
    assert ContactConfig(force_on=1.0).enabled and not ContactConfig().enabled


def test_pipeline_config_from_node_values():
    """The node's values (lists as rclpy gives them) map onto every field, renamed ones too."""
    values = {p.name: p.default for p in DYNAMICS_NODE.params}
    assert pipeline_config(values) == PipelineConfig()
    values.update(
        {
            "effort_command_source": "feedforward",
            "contact.torque_on": [1.0] * 7,
            "effort_scale": [2.0] * 7,
            "observer_gain": 20.0,
        }
    )
    config = pipeline_config(values)
    assert config.command_source == "feedforward" and config.observer_gain == 20.0
    assert config.contact.torque_on == (1.0,) * 7 and config.effort_scale == (2.0,) * 7
    seen = {p.name: v for p, v in config_values(config, DYNAMICS_NODE.params)}
    assert seen == {p.name: p.config_value(values[p.name]) for p in CONFIG_PARAMS}


def _outside(p):
    """A value of the parameter's type that its declaration refuses."""
    if p.type in NUMBER_TYPES:
        return p.range[1] * 2 + 1
    if p.type == Type.DOUBLE_ARRAY:
        return (p.range[1] * 2 + 1,) * 7
    if p.choices is not None:
        return "not_a_choice"
    return None


def _with(config, path, value):
    if "." in path:
        head, rest = path.split(".", 1)
        return dataclasses.replace(config, **{head: _with(getattr(config, head), rest, value)})
    return dataclasses.replace(config, **{path: value})


@pytest.mark.parametrize(
    "param", [p for p in CONFIG_PARAMS if _outside(p) is not None], ids=lambda p: p.name
)
def test_validate_config_refuses_what_the_declaration_refuses(panda, param):
    """The library refuses every out-of-range or unknown choice, naming the field (and the
    joint for per-joint values), as the node refuses the parameter."""
    config = _with(PipelineConfig(), param.config, _outside(param))
    match = param.config.split(".")[-1]
    with pytest.raises(InvalidInputError, match=match):
        EstimationPipeline(panda, config)


def test_validate_config_names_the_joint_of_an_entry_out_of_range(panda):
    with pytest.raises(InvalidInputError, match="effort_offset: joint 'panda_joint3'"):
        EstimationPipeline(panda, PipelineConfig(effort_offset=(0.0, 0.0, 2.0e6, 0, 0, 0, 0)))
    with pytest.raises(InvalidInputError, match="observer_gain must be a number"):
        EstimationPipeline(panda, PipelineConfig(observer_gain="50"))


# ------------------------------------------------------------------ parameters files
def test_written_files_carry_the_units_and_read_back(tmp_path):
    values = {
        "effort_offset": [0.1, -0.2, 0.0, 0.0, 0.0, 0.0, 1.5],
        "tip_link": "tool",
        "payload.mass": 2,
        "payload.frame": "tool",
        "contact.force_on": 5.0,
        "publish_effort_command": True,
    }
    text = parameters_yaml(values)
    assert '      mass: 2.0  # [kg]\n      frame: "tool"\n' in text
    assert "    effort_offset: [0.1, -0.2, 0.0, 0.0, 0.0, 0.0, 1.5]  # [N m or N]\n" in text
    names = [line.split(":")[0].strip() for line in text.splitlines()[2:]]
    assert names == ["tip_link", "payload", "mass", "frame", "effort_offset", "contact"] + [
        "force_on",
        "publish_effort_command",
    ]  # declaration order
    assert comment_problems(DYNAMICS_NODE, text) == []
    path = tmp_path / "p.yaml"
    path.write_text(text)
    read = read_parameters_file(str(path))
    assert {name: read.values[name] for name in values} == {**values, "payload.mass": 2.0}


def test_comment_problems_finds_missing_and_wrong_units():
    text = (
        "# header: [kg] here is no parameter\n"
        "/**:\n"
        "  ros__parameters:\n"
        "    observer_gain: 50.0  # [1/s] fine\n"
        "    observer_max_dt: 0.5  # s, no brackets\n"
        "    payload:\n"
        "      mass: 0.0\n"
        "      frame: ''  # [m] a link has no units\n"
        "    wrench_frame: 'a#b'  # [s] wrong\n"
        "other:\n"
        "  tare_duration: 1.0\n"
    )
    problems = comment_problems(DYNAMICS_NODE, text, "f.yaml")
    assert problems == [
        "f.yaml:5: observer_max_dt: the comment must start with [s]",
        "f.yaml:7: payload.mass: the comment must start with [kg]",
        "f.yaml:8: payload.frame: has no units, the comment claims [m]",
        "f.yaml:9: wrench_frame: has no units, the comment claims [s]",
    ]
