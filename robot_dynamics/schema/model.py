"""The parameters a node's model is built from, declared the same in both nodes."""

from robot_dynamics.core.tree import DEFAULT_TIP_RULE

from .param import Param, Section, Type


def model_section(tip_link_use):
    """The model parameters (a change rebuilds the model: the URDF is parsed again).

    Args:
        tip_link_use: what the node uses the tip link for (ends its description).

    Returns:
        Section: key ``"model"``.
    """
    return Section(
        "model",
        "Model",
        (
            Param(
                "robot_description",
                "",
                "URDF of the robot (XML text only, never a path). Empty: the robot_description "
                "topic (std_msgs/String, transient local). A new value rebuilds the model aside; "
                "an invalid one is refused and the old model kept.",
                Type.STRING,
            ),
            Param("base_link", "", "Root link of the model; empty = the URDF root.", Type.STRING),
            Param(
                "tip_link",
                "",
                f"Tip link; empty = {DEFAULT_TIP_RULE}. {tip_link_use}",
                Type.STRING,
            ),
            Param(
                "gravity",
                [0.0, 0.0, -9.81],
                "Gravity in the base frame.",
                Type.DOUBLE_ARRAY,
                units="m/s^2",
                range=(-100.0, 100.0),
                length=3,
            ),
            Param(
                "balance_inertia",
                False,
                "Replace link inertias that are not positive semi-definite or violate the "
                "triangle inequality (CAD placeholders) by balanced ones, each change logged.",
                Type.BOOL,
            ),
            Param(
                "strict_inertia",
                False,
                "Refuse a URDF with inertias that are not physically consistent (link tensors, "
                "an indefinite moving body that leaves M(q) positive); by default they load with "
                "a warning: logged, in the diagnostics.",
                Type.BOOL,
            ),
        ),
    )


MODEL_PARAMS = model_section("").names
"""The names of the model parameters (a change rebuilds the model, the URDF parsed again)."""
