"""The joint friction model's parameters, declared the same in both nodes: ``friction.viscous``,
``friction.coulomb``, ``friction.asymmetry``, ``friction.stribeck``,
``friction.stribeck_velocity``, per joint in model order, ``[]`` = the model's own (the URDF's
``<dynamics damping friction>``, no asymmetry, no Stribeck). They follow
:class:`~robot_dynamics.core.friction.FrictionModel`, which checks them against each other and
the model (:meth:`~robot_dynamics.core.friction.FrictionModel.with_parameters`)."""

from robot_dynamics.core.friction import MAX_FRICTION_COEFFICIENT, MAX_STRIBECK_VELOCITY

from .param import Param, Type


def friction_params(use):
    """The declarations of the friction model's parameters.

    Args:
        use: what the friction does in the node (ends the viscous and Coulomb descriptions).

    Returns:
        tuple: :class:`~robot_dynamics.schema.Param` entries, in
        :data:`~robot_dynamics.core.friction.FRICTION_PARAMETERS` order.
    """
    DA = Type.DOUBLE_ARRAY
    big = MAX_FRICTION_COEFFICIENT
    return (
        Param(
            "friction.viscous",
            [],
            f"Viscous friction {use}, per joint, model order; empty = the URDF <dynamics damping>.",
            DA,
            units="N m s/rad or N s/m",
            range=(0.0, big),
        ),
        Param(
            "friction.coulomb",
            [],
            f"Coulomb friction level {use}, per joint, model order; empty = the URDF <dynamics "
            "friction>.",
            DA,
            units="N m or N",
            range=(0.0, big),
        ),
        Param(
            "friction.asymmetry",
            [],
            "Friction asymmetry: the Coulomb level is coulomb + asymmetry moving forward, "
            "coulomb - asymmetry backward (|asymmetry| <= coulomb), nothing at rest; per joint, "
            "model order; empty = 0.",
            DA,
            units="N m or N",
            range=(-big, big),
        ),
        Param(
            "friction.stribeck",
            [],
            "Stribeck friction: breakaway friction above the Coulomb level near rest, decaying "
            "as exp(-(qd / friction.stribeck_velocity)^2); per joint, model order; empty = 0.",
            DA,
            units="N m or N",
            range=(0.0, big),
        ),
        Param(
            "friction.stribeck_velocity",
            [],
            "Stribeck velocity, per joint, model order; empty = 0.1.",
            DA,
            units="rad/s or m/s",
            range=(0.0, MAX_STRIBECK_VELOCITY),
            low_open=True,
        ),
    )


__all__ = ["friction_params"]
