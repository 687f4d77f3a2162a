"""Choose, per joint, the simplest friction model and the torque offsets that held-out data support.

The friction models (:mod:`robot_dynamics.core.friction`), from the simplest:

- ``"viscous_coulomb"``: ``viscous qd + coulomb s`` (what a URDF holds);
- ``"asymmetric"``: plus ``asymmetry |s|`` (different Coulomb levels forward and backward);
- ``"stribeck"``: plus ``stribeck exp(-(qd / v_s)^2) s`` (breakaway friction near rest).

Every candidate is a weighted least-squares fit of the base parameters on the training data
(:func:`~robot_dynamics.core.identification.weighted_least_squares`, all joints at once; the
friction columns through the filter that smoothed the measured torque, so that their step at a
velocity reversal is as smooth as the torque's) judged by each joint's torque error on the
held-out data. A joint takes a richer model, or a torque offset, only when it lowers that joint's
held-out mean squared error by at least ``relative_gain`` (default :data:`RELATIVE_GAIN`, 10 %,
5 % of the RMS): an unneeded coefficient changes that error by about ``1 / N`` of it, but it
also soaks up a few percent of what no model term explains (filter error, velocity ripple
through the differentiation). Per joint, the simplest model the data support.

1. Offsets: viscous + Coulomb friction without and with an offset on every joint; each joint keeps
   its offset when it pays.
2. Friction: every joint at each model, each with an offset on every joint (an asymmetry acts
   as an offset while the arm moves; a richer model must explain more than an offset). The
   Stribeck velocity enters nonlinearly: it is chosen per joint from a small grid
   (:data:`STRIBECK_VELOCITIES`, or one given value) by the training residual, refined by halving
   steps between grid neighbours (a fitted parameter, profiled: each trial a linear fit), then
   the Stribeck model with those velocities is judged on the held-out data like the others. A
   joint goes from viscous + Coulomb to asymmetric, then to Stribeck, each time only when the
   richer model is physical (Stribeck >= 0, ``|asymmetry| <= coulomb``) and beats the one chosen
   so far by the gain.

3. Offsets again, with the chosen friction (the errors a missing asymmetry or Stribeck term
   left no longer hide what an offset explains): a joint has an offset when step 1 or this step
   finds it pays.

A candidate the data cannot identify (a condition number above ``max_condition``: no samples near
rest tell an asymmetry from an offset) is reported with its reason and not chosen.
"""

from dataclasses import dataclass

import numpy as np

from .base_parameters import base_parameters
from .friction import DEFAULT_VELOCITY_THRESHOLD
from .identification import (
    MAX_CONDITION,
    IdentificationError,
    single_threaded_blas,
    stacked_regressor,
    weighted_least_squares,
)
from .regressor import ParameterLayout, joint_regressor

#: The friction models, from the simplest.
FRICTION_MODELS = ("viscous_coulomb", "asymmetric", "stribeck")
#: Stribeck velocities tried per joint [rad/s or m/s] (then refined around the best).
STRIBECK_VELOCITIES = (0.03, 0.06, 0.12, 0.25, 0.5)
#: Halving steps of the refinement of each joint's Stribeck velocity between grid neighbours.
STRIBECK_REFINEMENTS = 3
#: Smallest relative decrease of a joint's held-out mean squared torque error that makes it take
#: a richer friction model or an offset.
RELATIVE_GAIN = 0.1
#: ``friction`` / ``offset`` value that chooses on the held-out data.
AUTO = "auto"


@dataclass(frozen=True, eq=False)
class Candidate:
    """One fitted candidate.

    Attributes:
        friction: (n,) friction model per joint (of :data:`FRICTION_MODELS`).
        offset: (n,) bool, a torque offset per joint.
        stribeck_velocity: (n,) the Stribeck velocities [rad/s or m/s] of its Stribeck columns.
        rms: (n,) held-out torque RMS per joint [N m or N] (training RMS without held-out data);
            NaN when the data cannot identify it, and on joints without a measured torque.
        physical: (n,) bool, the joint's friction coefficients are a friction (Stribeck >= 0,
            ``|asymmetry| <= coulomb``); a candidate that fits better only with a friction that
            pushes is no evidence for its model.
        error: why the data cannot identify it ("" when they can).
    """

    friction: tuple
    offset: np.ndarray
    stribeck_velocity: np.ndarray
    rms: np.ndarray
    physical: np.ndarray
    error: str = ""

    @property
    def label(self):
        """Short description, e.g. ``"asymmetric + offsets"``."""
        kinds = sorted(set(self.friction), key=FRICTION_MODELS.index)
        text = "/".join(kinds)
        if self.offset.all():
            text += " + offsets"
        elif self.offset.any():
            text += " + some offsets"
        if "stribeck" in kinds:
            vs = np.unique(self.stribeck_velocity[np.array(self.friction) == "stribeck"])
            text += f" (v_s {', '.join(f'{v:g}' for v in vs)})"
        return text


@dataclass(frozen=True, eq=False)
class ModelSelection:
    """The chosen model and its evidence.

    Attributes:
        layout: the :class:`~robot_dynamics.core.regressor.ParameterLayout` to identify with.
        friction: (n,) the chosen friction model per joint.
        offset: (n,) bool, the joints with a torque offset.
        stribeck_velocity: (n,) Stribeck velocity of the joints with the Stribeck model
            [rad/s or m/s] (the layout's value elsewhere, unused).
        candidates: every fitted :class:`Candidate`, in fitting order.
        held_out: the choice was made on held-out data (False: everything was fixed).
    """

    layout: ParameterLayout
    friction: tuple
    offset: np.ndarray
    stribeck_velocity: np.ndarray
    candidates: tuple
    held_out: bool

    def best_rms(self, friction):
        """Each joint's held-out RMS with the given friction model (the candidate of that model
        on that joint fitted last, NaN where none was).

        Args:
            friction: one of :data:`FRICTION_MODELS`.

        Returns:
            ndarray: (n,) [N m or N].
        """
        out = np.full(self.layout.n, np.nan)
        for c in self.candidates:
            on = np.array(c.friction) == friction
            if not c.error:
                out[on] = c.rms[on]
        return out


class _Fitter:
    """Weighted least squares of candidate layouts on prepared data (the inertial columns once)."""

    def __init__(self, model, train, test, velocity_threshold, armature, max_condition):
        self.model = model
        self.train = train
        self.test = test
        self.eps = velocity_threshold
        self.armature = armature
        self.max_condition = max_condition
        mask = getattr(train, "effort_mask", None)
        self.rows = np.ones(model.n, bool) if mask is None else np.asarray(mask, bool)
        self.held = getattr(train, "held", None)
        inertial = ParameterLayout.for_model(model, viscous=False, coulomb=False)
        self.ni = inertial.n_inertial
        self.Y_train = stacked_regressor(model, train.q, train.qd, train.qdd, inertial)
        self.Y_test = (
            None if test is None else stacked_regressor(model, test.q, test.qd, test.qdd, inertial)
        )

    def layout(self, friction, offset, stribeck_velocity):
        friction = np.asarray(friction)
        return ParameterLayout.for_model(
            self.model,
            asymmetry=friction != "viscous_coulomb",
            stribeck=friction == "stribeck",
            offset=np.asarray(offset, dtype=bool),
            armature=self.armature,
            velocity_threshold=self.eps,
            stribeck_velocity=stribeck_velocity,
        )

    def _base_regressor(self, Y_inertial, data, layout, base):
        inertial = base.independent[base.independent < self.ni]
        joint = base.independent[base.independent >= self.ni] - self.ni
        J = data.smoothed(joint_regressor(layout, data.qd, data.qdd)[..., joint])
        return np.concatenate([Y_inertial[..., inertial], J], axis=-1)[:, self.rows]

    def fit(self, friction, offset, stribeck_velocity):
        """Candidate and per-joint training MSE (NaN without a fit)."""
        n = self.model.n
        friction = tuple(friction)
        offset = np.array(offset, dtype=bool)
        vs = np.array(np.broadcast_to(stribeck_velocity, (n,)), dtype=float)
        layout = self.layout(friction, offset, vs)
        base = base_parameters(self.model, layout, effort_mask=self.rows, held=self.held)
        Yb = self._base_regressor(self.Y_train, self.train, layout, base)
        tau = self.train.tau[:, self.rows]
        nan = np.full(n, np.nan)
        try:
            fit = weighted_least_squares(Yb, tau, base, self.max_condition)
        except IdentificationError as error:
            return Candidate(friction, offset, vs, nan, np.zeros(n, bool), str(error)), nan
        mse_train, rms = nan.copy(), nan.copy()
        mse_train[self.rows] = np.mean((tau - Yb @ fit.beta) ** 2, axis=0)
        if self.test is None:
            rms = np.sqrt(mse_train)
        else:
            Yt = self._base_regressor(self.Y_test, self.test, layout, base)
            error = self.test.tau[:, self.rows] - Yt @ fit.beta
            rms[self.rows] = np.sqrt(np.mean(error**2, axis=0))
        return Candidate(friction, offset, vs, rms, _physical(layout, base, fit.beta)), mse_train


def _physical(layout, base, beta):
    """Per joint: the least-squares friction is a friction (see :class:`Candidate`); a
    coefficient the data see only in a combination with others is not judged."""

    def values(group):
        out = np.full(layout.n, np.nan)
        if group in layout.groups:
            columns = range(layout.size)[layout.group_slice(group)]
            for k, column in zip(layout.joints(group), columns):
                rows = np.flatnonzero(base.independent == column)
                if rows.size and np.count_nonzero(base.K[rows[0]]) == 1:
                    out[k] = beta[rows[0]]
        return out

    coulomb, asymmetry, stribeck = (values(g) for g in ("coulomb", "asymmetry", "stribeck"))
    with np.errstate(invalid="ignore"):
        bad = (stribeck < 0) | (np.abs(asymmetry) > coulomb)
    return ~bad


def _better(rich, simple, gain):
    """Per joint: the richer candidate is physical and lowers the mean squared error by at least
    ``gain`` (RMS arrays of the candidates, NaN where unidentified)."""
    best = np.where(np.isfinite(simple), simple**2, np.inf)
    with np.errstate(invalid="ignore"):
        return rich.physical & np.isfinite(rich.rms) & (rich.rms**2 < (1.0 - gain) * best)


def select_model(
    model,
    train,
    test,
    *,
    friction=AUTO,
    offset=AUTO,
    velocity_threshold=DEFAULT_VELOCITY_THRESHOLD,
    stribeck_velocities=STRIBECK_VELOCITIES,
    armature=False,
    max_condition=MAX_CONDITION,
    relative_gain=RELATIVE_GAIN,
):
    """Choose per joint the friction model and torque offset (see the module docstring).

    Args:
        model: the nominal :class:`~robot_dynamics.core.model.RobotModel`.
        train: the training samples, a :class:`~robot_dynamics.core.joint_data.JointData`
            (``q``, ``qd``, ``qdd``, ``tau`` (N, n) each, model order; ``smoothed``: the
            filter that smoothed ``tau``, applied to the per-joint columns as well;
            ``effort_mask`` and ``held``: the joints whose torque is measured and those held
            still).
        test: the held-out samples, the same, or None (then nothing can be ``"auto"``).
        friction: ``"auto"`` or one of :data:`FRICTION_MODELS` for every joint.
        offset: ``"auto"``, True (an offset on every joint) or False (none).
        velocity_threshold: ``v_eps`` of the smooth sign [rad/s or m/s], scalar or (n,).
        stribeck_velocities: the Stribeck velocities tried [rad/s or m/s], each > 0.
        armature: fit armature columns as well (every candidate).
        max_condition: largest accepted condition number of a candidate's weighted base
            regressor (column-normalised).
        relative_gain: smallest relative decrease of a joint's held-out mean squared error that
            makes it take a richer model or an offset, in [0, 1).

    Returns:
        ModelSelection: the chosen layout and the evidence.

    Raises:
        IdentificationError: ``"auto"`` without held-out data; no candidate the data identify
            (the viscous + Coulomb one's reason).
        InvalidInputError: an unknown friction model, a bad offset choice, bad Stribeck
            velocities or velocity threshold.
    """
    from .errors import InvalidInputError

    if friction != AUTO and friction not in FRICTION_MODELS:
        raise InvalidInputError(
            f"friction model must be {AUTO!r} or one of {list(FRICTION_MODELS)}, got {friction!r}"
        )
    if offset != AUTO and not isinstance(offset, bool):
        raise InvalidInputError(f"offset must be {AUTO!r}, True or False, got {offset!r}")
    grid = np.atleast_1d(np.asarray(stribeck_velocities, dtype=float))
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
        raise InvalidInputError(
            f"stribeck_velocities must be numbers > 0, got {stribeck_velocities!r}"
        )
    if not 0.0 <= relative_gain < 1.0:
        raise InvalidInputError(f"relative_gain must be in [0, 1), got {relative_gain!r}")
    if test is None and AUTO in (friction, offset):
        raise IdentificationError(
            "choosing the friction model or the offsets needs held-out data (a hold-out "
            "fraction > 0), or give them"
        )
    with single_threaded_blas():
        return _select(
            model, train, test, friction, offset, velocity_threshold, grid, armature,
            max_condition, relative_gain,
        )  # fmt: skip


def _select(
    model, train, test, friction, offset, velocity_threshold, grid, armature, max_condition,
    relative_gain,
):  # fmt: skip
    n = model.n
    fitter = _Fitter(model, train, test, velocity_threshold, armature, max_condition)
    candidates = []
    default_vs = float(grid[0])

    def fit(levels, offsets, vs=default_vs):
        candidate, mse = fitter.fit(levels, offsets, vs)
        candidates.append(candidate)
        return candidate, mse

    # 1. offsets with viscous + Coulomb friction
    plain = ("viscous_coulomb",) * n
    if offset == AUTO:
        without, _ = fit(plain, np.zeros(n, bool))
        with_all, _ = fit(plain, np.ones(n, bool))
        offsets = _better(with_all, without.rms, relative_gain)
        if without.error and with_all.error:
            raise IdentificationError(without.error)
    else:
        offsets = np.full(n, offset)

    # 2. friction models, each beyond an offset on every joint (with offsets chosen on the data)
    all_offsets = offset == AUTO and not with_all.error
    judged = np.ones(n, bool) if all_offsets else offsets
    vs = np.full(n, default_vs)
    if friction == AUTO:
        levels = {"viscous_coulomb": with_all if all_offsets else fit(plain, judged)[0]}
        levels["asymmetric"] = fit(("asymmetric",) * n, judged)[0]
        levels["stribeck"] = fit(("stribeck",) * n, judged, _stribeck(fitter, n, judged, grid, vs))[
            0
        ]
        chosen = np.array(plain, dtype=object)
        best = levels["viscous_coulomb"].rms
        if levels["viscous_coulomb"].error and levels["asymmetric"].error:
            raise IdentificationError(levels["viscous_coulomb"].error)
        for name in FRICTION_MODELS[1:]:
            take = _better(levels[name], best, relative_gain)
            chosen[take] = name
            best = np.where(take, levels[name].rms, best)
        vs = levels["stribeck"].stribeck_velocity
    else:
        chosen = np.array((friction,) * n, dtype=object)
        if friction == "stribeck":
            vs = _stribeck(fitter, n, judged, grid, vs)
    chosen = tuple(str(c) for c in chosen)

    # 3. offsets again, with the chosen friction (nothing left for an offset to stand in for)
    if offset == AUTO:
        without, _ = fit(chosen, np.zeros(n, bool), vs)
        with_all, _ = fit(chosen, np.ones(n, bool), vs)
        offsets = offsets | _better(with_all, without.rms, relative_gain)

    final, _ = fitter.fit(chosen, offsets, vs)
    if final.error:
        raise IdentificationError(final.error)
    return ModelSelection(
        layout=fitter.layout(chosen, offsets, vs),
        friction=chosen,
        offset=np.asarray(offsets, dtype=bool),
        stribeck_velocity=vs,
        candidates=tuple(candidates),
        held_out=test is not None,
    )


def _stribeck(fitter, n, offsets, grid, vs, refinements=STRIBECK_REFINEMENTS):
    """The Stribeck velocities of the module docstring: each joint's best of the grid by the
    training error, then refined per joint (all joints in one fit: each joint's Stribeck columns
    act on its own torque) by halving steps in log space between the grid's neighbours."""
    levels = ("stribeck",) * n
    if grid.size == 1:
        return np.full(n, grid[0])
    mse = np.full((grid.size, n), np.inf)
    for k, v in enumerate(grid):
        candidate, mse_k = fitter.fit(levels, offsets, v)
        if not candidate.error:
            mse[k] = mse_k
    if not np.isfinite(mse).any():
        return vs
    best = np.argmin(mse, axis=0)
    log_vs, err = np.log(grid[best]), mse[best, np.arange(n)]
    ratios = np.log(grid[1:] / grid[:-1])
    step = 0.5 * float(ratios.min())
    for _ in range(refinements):
        for sign in (-1.0, 1.0):
            trial = np.clip(log_vs + sign * step, np.log(grid[0]), np.log(grid[-1]))
            candidate, mse_t = fitter.fit(levels, offsets, np.exp(trial))
            if not candidate.error:
                better = mse_t < err
                log_vs, err = np.where(better, trial, log_vs), np.where(better, mse_t, err)
        step *= 0.5
    return np.exp(log_vs)


__all__ = [
    "AUTO",
    "Candidate",
    "FRICTION_MODELS",
    "ModelSelection",
    "RELATIVE_GAIN",
    "STRIBECK_VELOCITIES",
    "select_model",
]
