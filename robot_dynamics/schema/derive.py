"""Configuration dataclasses derived from parameter declarations.

A :class:`~robot_dynamics.schema.param.Param` with ``config="observer_gain"`` is the field
``observer_gain`` of a configuration dataclass, with the parameter's default and a docstring line
from its units and description; ``config="contact.torque_on"`` is the field ``torque_on`` of the
nested dataclass in field ``contact``. :func:`config_class` makes such a class,
:func:`config_from_values` fills it from ``{parameter name: value}`` and :func:`config_values`
walks an instance's values with their declarations.
"""

import dataclasses

from .param import PYTHON_TYPES


def _own(params, prefix):
    """(field name, Param) of the parameters whose config path is ``prefix`` + one name."""
    for p in params:
        if p.config is not None and p.config.startswith(prefix):
            rest = p.config[len(prefix) :]
            yield rest.split(".", 1)[0], p, "." in rest


def config_class(name, params, doc, module, prefix="", nested=None, namespace=None):
    """A frozen dataclass with one field per parameter whose ``config`` is ``prefix`` + a name.

    Args:
        name: the class name.
        params: the :class:`~robot_dynamics.schema.param.Param` declarations.
        doc: the class docstring's summary (the Attributes section is generated).
        module: the module the class belongs to (its ``__module__``).
        prefix: the config path of this class (e.g. ``"contact."``; "" for the top level).
        nested: ``{field name: dataclass}`` of the nested classes (fields whose parameters'
            config paths continue below them; their default is the nested class's default).
        namespace: extra class attributes (properties, methods).

    Returns:
        type: the dataclass.

    Raises:
        ValueError: a config path continues below a field not given in ``nested``, or a field
            set by two parameters.
    """
    nested = dict(nested or {})
    fields, lines, seen = [], [], set()
    for field_name, p, below in _own(params, prefix):
        if below:
            if field_name not in nested:
                raise ValueError(f"{name}: config path {p.config} needs a nested class")
            if field_name in seen:
                continue
            cls = nested[field_name]
            fields.append((field_name, cls, dataclasses.field(default_factory=cls)))
            lines.append(f"    {field_name}: :class:`{cls.__name__}`.")
        else:
            if field_name in seen:
                raise ValueError(f"{name}: field {field_name} set by two parameters")
            value = p.config_value(p.default)
            fields.append((field_name, PYTHON_TYPES[p.type], dataclasses.field(default=value)))
            units = f"[{p.units}] " if p.units else ""
            domain = "; ".join(filter(None, [f"parameter ``{p.name}``", p.constraints()]))
            lines.append(f"    {field_name}: {units}{p.description} ({domain})")
        seen.add(field_name)
    cls = dataclasses.make_dataclass(name, fields, namespace=namespace, frozen=True)
    cls.__module__ = module
    cls.__doc__ = f"{doc}\n\nAttributes:\n" + "\n".join(lines) + "\n"
    return cls


def config_from_values(cls, params, values, prefix="", more=None):
    """An instance of a :func:`config_class` class (or of a dataclass derived from one) from
    parameter values.

    Args:
        cls: the class (made from ``params`` with ``prefix``, or a subclass of it).
        params: the declarations.
        values: ``{parameter name: value}`` holding every parameter with a config path below
            ``prefix``.
        prefix: the config path of ``cls``.
        more: ``{field name: value}`` of the fields no parameter sets (a subclass's own).

    Returns:
        the instance (arrays as tuples).

    Raises:
        KeyError: a parameter missing from ``values``.
    """
    kwargs = {}
    types = {f.name: f.type for f in dataclasses.fields(cls)}
    for field_name, p, below in _own(params, prefix):
        if below:
            if field_name not in kwargs:
                kwargs[field_name] = config_from_values(
                    types[field_name], params, values, f"{prefix}{field_name}."
                )
        else:
            kwargs[field_name] = p.config_value(values[p.name])
    return cls(**kwargs, **(more or {}))


def config_values(config, params):
    """The values of a configuration instance with their declarations.

    Args:
        config: an instance of a :func:`config_class` class (top level).
        params: the declarations it was made from.

    Yields:
        tuple: ``(Param, value)`` for every parameter with a config path, in declaration order.
    """
    for p in params:
        if p.config is None:
            continue
        value = config
        for part in p.config.split("."):
            value = getattr(value, part)
        yield p, value
