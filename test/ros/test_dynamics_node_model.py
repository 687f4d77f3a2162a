"""The dynamics node's model over DDS: inertia warnings and strict_inertia, a description
refused at start-up built again by a later model parameter, refusals naming the parameter at
fault, what ``model_loads`` counts, and the tip link of a description with several leaves."""

import pytest

from small_arms import ARM3_URDF, UR_SHAPE_URDF

pytestmark = pytest.mark.ros

# ARM3 with a placeholder inertia on its last moving link: positive semi-definite, but it breaks
# the triangle inequality (loads with a warning; strict_inertia refuses it)
PLACEHOLDER = ARM3_URDF.replace(
    '<inertia ixx="0.003" iyy="0.01" izz="0.01"', '<inertia ixx="0.001" iyy="0.001" izz="0.01"'
)


def _value(node, key, predicate):
    """The diagnostics value ``key`` once ``predicate(value)`` holds."""
    return node.diagnostics(lambda s, v: predicate(v[key]))[1][key]


def test_refused_description_strict_inertia_and_model_loads(dynamics_node):
    """Started with strict_inertia, the placeholder is refused and no model loads; setting
    strict_inertia false builds the kept description (the inertia warning logged at WARN and
    in the diagnostics). model_loads counts every model swapped in, payload rebuilds
    included; a tip_link typo is refused naming tip_link; balance_inertia clears the
    warning."""
    node = dynamics_node(
        urdf=PLACEHOLDER, wait_loaded=False, strict_inertia=True, diagnostics_period=0.2
    )
    node.proc.wait_for_output(r"parameter robot_description rejected", timeout=60.0)
    status, values = node.diagnostics()
    assert values["model_loaded"] == "false" and "strict_inertia" in values["last_error"]
    assert "'l3'" in values["last_error"] and values["model_loads"] == "0"

    result = node.set_parameters(strict_inertia=False)[0]
    assert result.successful, result.reason
    node.proc.wait_for_output(r"model loaded from parameter robot_description", timeout=60.0)
    node.proc.wait_for_output(r"WARN.*inertia loaded as given.*link 'l3'.*triangle", timeout=60.0)
    warnings = _value(node, "inertia_warnings", lambda v: "'l3'" in v)
    assert "triangle inequality" in warnings and "'elbow'" in warnings
    assert _value(node, "model_loads", lambda v: v != "0") == "1"

    # a payload rebuilds the model from the parsed URDF: one more model, no second warning
    assert node.set_parameters(payload__mass=0.5)[0].successful
    assert _value(node, "model_loads", lambda v: v != "1") == "2"
    assert node.set_parameters(payload__mass=0.8)[0].successful
    assert _value(node, "model_loads", lambda v: v != "2") == "3"
    assert node.proc.output().count("inertia loaded as given") == 1

    # a tip_link typo: refused with a suggestion, logged and kept as the tip_link's refusal
    result = node.set_parameters(tip_link="tol")[0]
    assert not result.successful and "did you mean 'tool'" in result.reason, result.reason
    node.proc.wait_for_output(r"parameter tip_link rejected: KinematicTreeError", timeout=60.0)
    last_error = _value(node, "last_error", lambda v: "tip_link" in v)
    assert last_error.startswith("parameter tip_link rejected") and "'tol'" in last_error

    result = node.set_parameters(balance_inertia=True)[0]
    assert result.successful, result.reason
    node.proc.wait_for_output(r"balance_inertia: link 'l3': inertia balanced", timeout=60.0)
    assert _value(node, "model_loads", lambda v: v != "3") == "4"
    assert _value(node, "inertia_warnings", lambda v: True) == ""
    node.proc.assert_alive()


def test_tip_link_of_a_description_with_several_leaves(dynamics_node):
    """The official UR description's shape (leaves ft_frame, tool0, base): tool0 is the tip
    and the wrench frame. Without tool0 no tip can be chosen: a WARN names the candidates
    and tip_link."""
    no_tool0 = UR_SHAPE_URDF.replace('"tool0"', '"tcp"')
    node = dynamics_node(urdf=no_tool0, diagnostics_period=0.2)
    match = node.proc.wait_for_output(r"WARN.*no tip link.*", timeout=60.0)
    for word in ("tcp", "ft_frame", "set the parameter tip_link", "no external wrench"):
        assert word in match.group(0), match.group(0)
    assert _value(node, "tip_link", lambda v: True) == ""

    result = node.set_parameters(robot_description=UR_SHAPE_URDF)[0]
    assert result.successful, result.reason
    node.proc.wait_for_output(r"tip 'tool0'.*wrench_frame 'tool0'", timeout=60.0)
    assert _value(node, "tip_link", lambda v: v != "") == "tool0"
    node.proc.assert_alive()
