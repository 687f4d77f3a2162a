"""Every node parameter of the package, declared once and ROS-free.

Each parameter is a :class:`Param` (name, type, default, range or choices, units, description,
read-only, the configuration field it sets) in a :class:`Section` of its node's
:class:`NodeSchema`: :data:`DYNAMICS_NODE` and :data:`ARM_SIMULATOR`. From these declarations come
the nodes' ``ParameterDescriptor`` and set-request validation
(:mod:`robot_dynamics.ros.parameters`), the estimation pipeline's
:class:`~robot_dynamics.estimation.PipelineConfig` (fields, defaults, docstring, validation and
the mapping from node parameters: :mod:`robot_dynamics.schema.derive`), parameters files
(walked as rcl reads them, and their units comments: :mod:`robot_dynamics.schema.files`; checked
against a node's declarations and written: :mod:`robot_dynamics.tools.params_file`) and the
parameter tables of ``docs/parameters.md`` (``python -m robot_dynamics.tools.params_doc``, checked
current by a test).

A new parameter is one declaration here (in the section whose behaviour it changes: ``model``
rebuilds the model, ``derived`` re-derives it, a ``config`` path makes it a field of the
configuration it feeds: the pipeline config of the dynamics node, the simulated arm's options of
``arm_simulator``), plus the code that uses it and its test; then regenerate ``docs/parameters.md``.
"""

from .arm_simulator import ARM_SIMULATOR
from .dynamics_node import DYNAMICS_NODE, EXECUTOR_KINDS
from .files import comment_problems
from .model import MODEL_PARAMS
from .param import NodeSchema, Param, Section, Type, as_declared_type, unique_strings

SCHEMAS = (DYNAMICS_NODE, ARM_SIMULATOR)
"""The schema of every node of the package."""

__all__ = [
    "ARM_SIMULATOR",
    "DYNAMICS_NODE",
    "EXECUTOR_KINDS",
    "MODEL_PARAMS",
    "NodeSchema",
    "Param",
    "SCHEMAS",
    "Section",
    "Type",
    "as_declared_type",
    "comment_problems",
    "unique_strings",
]
