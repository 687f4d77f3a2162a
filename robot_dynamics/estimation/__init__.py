"""The ROS-free estimation pipeline: from joint_states arrays to what the dynamics node
publishes (gravity and feed-forward torques, effort command, external torques and wrench,
contact state, diagnostics), with its policy. numpy/scipy only; see
:class:`~robot_dynamics.estimation.pipeline.EstimationPipeline`."""

from .config import ContactConfig, PipelineConfig, validate_config
from .contact import ContactDetector, ContactState
from .filters import FilteredDifferentiator
from .joint_state import MergedJointState
from .output import PipelineOutput, Sample
from .pipeline import EstimationPipeline

__all__ = [
    "ContactConfig",
    "ContactDetector",
    "ContactState",
    "EstimationPipeline",
    "FilteredDifferentiator",
    "MergedJointState",
    "PipelineConfig",
    "PipelineOutput",
    "Sample",
    "validate_config",
]
