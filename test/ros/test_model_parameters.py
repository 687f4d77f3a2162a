"""A model the dynamics node's parameters cannot make names the parameter at fault (no DDS):
derive_model's errors carry it as ``argument`` (armature, friction.<field>, payload.*), and a
description refused at start-up for it is labelled with that parameter, not with
robot_description."""

import pytest

from small_arms import ARM3_URDF

from robot_dynamics.core.errors import RobotDynamicsError
from robot_dynamics.ros import dynamics_parameters as DP
from robot_dynamics.ros.description import RobotDescription

pytestmark = pytest.mark.ros

DEFAULTS = {p.name: p.default for p in DP.specs()}
NOT_PSD = [1.0, 0.0, 0.0, -1.0, 0.0, 1.0]  # ixx ixy ixz iyy iyz izz

CASES = [
    # (id, parameter values over the defaults, the parameter at fault, words of the message)
    ("armature length", {"armature": [0.1, 0.1]}, "armature", "3 joints"),
    ("friction length", {"friction.viscous": [0.1]}, "friction.viscous", "3 values"),
    (
        "friction asymmetry",
        {"friction.coulomb": [1.0] * 3, "friction.asymmetry": [0.0, 2.0, 0.0]},
        "friction.asymmetry",
        "'shoulder'",
    ),
    ("payload frame", {"payload.mass": 1.0, "payload.frame": "nope"}, "payload.frame", "nope"),
    ("payload frame without mass", {"payload.frame": "nope"}, "payload.frame", "'nope' is not"),
    ("payload inertia", {"payload.mass": 1.0, "payload.inertia": NOT_PSD}, "payload.inertia", ""),
    ("payload com", {"payload.mass": 1.0, "payload.com": [200.0, 0.0, 0.0]}, "payload.com", ""),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_derive_model_names_the_parameter_at_fault(case):
    _, changes, parameter, words = case
    with pytest.raises(RobotDynamicsError) as ei:
        DP.build_model(ARM3_URDF, dict(DEFAULTS, **changes))
    assert ei.value.argument == parameter, (ei.value.argument, str(ei.value))
    assert words in str(ei.value)


class _Logger:
    def __init__(self):
        self.lines = []

    def error(self, text):
        self.lines.append(text)

    info = warn = error


class _Node:
    """What RobotDescription uses of a node: a subscription and a logger."""

    def __init__(self):
        self.logger = _Logger()

    def create_subscription(self, *args, **kwargs):
        return None

    def get_logger(self):
        return self.logger


@pytest.mark.parametrize(
    "changes, label",
    [
        ({"armature": [0.1, 0.1]}, "parameter armature rejected: InvalidInputError"),
        ({"payload.mass": 1.0, "payload.inertia": NOT_PSD}, "parameter payload.inertia rejected"),
        ({"tip_link": "l9"}, "parameter tip_link rejected: KinematicTreeError"),
    ],
)
def test_start_up_refusal_is_labelled_with_the_parameter(changes, label):
    node = _Node()
    values = dict(DEFAULTS, **changes)
    installed = []
    description = RobotDescription(
        node, DP.build_model, lambda built, source: installed.append(built), lambda: values
    )
    description.start(ARM3_URDF)
    assert installed == [] and description.rejections == 1
    assert description.last_error.startswith(label), description.last_error
    assert node.logger.lines[0].startswith(label)
    assert description.parameter_text  # kept: a later parameter change builds it again
