"""RobotModel's algorithm methods: each validates its arguments once, then calls the unchecked
entry points of :mod:`robot_dynamics.core.dynamics` (and of :mod:`~robot_dynamics.core.estimation`
and :mod:`~robot_dynamics.core.simulate`) on the model's compiled tree.

Conventions and units: see :mod:`robot_dynamics.core.model`.
"""

import numpy as np

from . import dynamics as _dynamics
from . import estimation as _estimation
from . import friction as _friction
from . import simulate as _simulate
from .errors import InvalidInputError
from .state_terms import StateTerms
from .validation import check_axes, check_batch, check_vector


class CheckedAlgorithms:
    """The checked dynamics, kinematics, estimation and simulation methods of
    :class:`~robot_dynamics.core.model.RobotModel` (a base class of it).

    They read the model's ``tree`` (:class:`~robot_dynamics.core.tree.KinematicTree`),
    ``tip_link`` and :meth:`~robot_dynamics.core.model.RobotModel.resolve_frame`.
    """

    __slots__ = ()

    def _wrench(self, f_ext, frame, shape):
        """``(f_ext, frame, batch shape)`` of a wrench argument: the checked (..., 6) wrench and
        its resolved frame, the batch shape broadcast with the wrench's; ``(None, None, shape)``
        without a wrench."""
        if f_ext is None:
            return None, None, shape
        frame = self.resolve_frame(frame)
        f_ext = check_vector(f_ext, "f_ext", self.tree.joint_names, size=6)
        if f_ext.shape[:-1] != shape:
            try:
                shape = np.broadcast_shapes(shape, f_ext.shape[:-1])
            except ValueError:
                raise InvalidInputError(
                    f"f_ext has batch shape {f_ext.shape[:-1]}, which does not broadcast with "
                    f"the joint vectors' {shape}"
                ) from None
        return f_ext, frame, shape

    # ---------------------------------------------------------------- dynamics
    def gravity_torques(self, q):
        """Generalised gravity g(q): the joint torques that hold the robot still.

        Args:
            q: (..., n) joint positions [rad or m].

        Returns:
            ndarray: (..., n) torques [N m or N].

        Raises:
            InvalidInputError: wrong shape, non-finite or out-of-bound values (names the joint).
        """
        q = check_vector(q, "q", self.tree.joint_names)
        if q.ndim == 1:  # one configuration (the controllers' call): straight to it
            return _dynamics.gravity_torques(self.tree, _dynamics.kinematics(self.tree, q))
        return _dynamics.in_chunks(
            self.tree, q.shape[:-1], _dynamics.gravity_torques, q, entries=16
        )

    def inverse_dynamics(self, q, qd, qdd, f_ext=None, frame=None):
        """Inverse dynamics by RNEA: ``tau = M qdd + C qd + g - J_frame^T f_ext``.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            qdd: (..., n) joint accelerations [rad/s^2 or m/s^2].
            f_ext: (..., 6) wrench ``[fx fy fz tx ty tz]`` [N, N m] the environment applies to
                ``frame``, base-frame axes, moment about the frame origin; None for no wrench.
            frame: the link ``f_ext`` acts on (default: the tip).

        Returns:
            ndarray: (..., n) joint torques [N m or N].

        Raises:
            InvalidInputError: bad shapes, non-broadcasting batches, non-finite values.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        names = self.tree.joint_names
        q = check_vector(q, "q", names)
        qd = check_vector(qd, "qd", names)
        qdd = check_vector(qdd, "qdd", names)
        shape = check_batch(q=q, qd=qd, qdd=qdd)
        f_ext, frame, shape = self._wrench(f_ext, frame, shape)
        return _dynamics.in_chunks(
            self.tree, shape, _dynamics.inverse_dynamics, q, qd, qdd, f_ext, frame=frame
        )

    def nonlinear_effects(self, q, qd):
        """Nonlinear effects h(q, qd) = C(q, qd) qd + g(q).

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].

        Returns:
            ndarray: (..., n) torques [N m or N].

        Raises:
            InvalidInputError: bad shapes, non-broadcasting batches, non-finite values.
        """
        names = self.tree.joint_names
        q = check_vector(q, "q", names)
        qd = check_vector(qd, "qd", names)
        shape = check_batch(q=q, qd=qd)
        return _dynamics.in_chunks(self.tree, shape, _dynamics.nonlinear_effects, q, qd)

    def mass_matrix(self, q):
        """Joint-space inertia matrix M(q) by CRBA, armature included.

        Args:
            q: (..., n) joint positions [rad or m].

        Returns:
            ndarray: (..., n, n) symmetric positive definite M [kg m^2 / kg].

        Raises:
            InvalidInputError: wrong shape or non-finite values.
        """
        q = check_vector(q, "q", self.tree.joint_names)
        return _dynamics.in_chunks(self.tree, q.shape[:-1], _dynamics.mass_matrix, q)

    def coriolis_matrix(self, q, qd):
        """Coriolis matrix C(q, qd): C qd are the Coriolis/centrifugal torques and Mdot - 2C is
        skew-symmetric (the Christoffel-symbol C).

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].

        Returns:
            ndarray: (..., n, n) C [kg m^2/s or kg/s].

        Raises:
            InvalidInputError: bad shapes, non-broadcasting batches, non-finite values.
        """
        names = self.tree.joint_names
        q = check_vector(q, "q", names)
        qd = check_vector(qd, "qd", names)
        shape = check_batch(q=q, qd=qd)
        return _dynamics.in_chunks(self.tree, shape, _dynamics.coriolis_matrix, q, qd)

    def momentum_terms(self, q, qd):
        """Generalised momentum, C^T qd and gravity from one kinematics pass, without forming M or C
        (what the momentum observer needs on every sample).

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].

        Returns:
            tuple: ``(p, C^T qd, g)``, each (..., n): generalised momentum ``p = M qd``
            [kg m^2/s], ``C(q, qd)^T qd`` [N m] and ``g(q)`` [N m].

        Raises:
            InvalidInputError: bad shapes, non-broadcasting batches, non-finite values.
        """
        names = self.tree.joint_names
        q = check_vector(q, "q", names)
        qd = check_vector(qd, "qd", names)
        shape = check_batch(q=q, qd=qd)
        return _dynamics.in_chunks(self.tree, shape, _dynamics.momentum_terms, q, qd)

    def state_terms(self, q, qd, frame=None, axes="base", jacobian=True):
        """Everything a controller or estimator needs at one joint state, from one kinematics pass
        (cf. Pinocchio's ``computeAllTerms``).

        The forward kinematics runs here; each term is evaluated when first read (the three
        velocity terms together), so a controller pays only for what it reads, in the order it
        needs it.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s] (copied).
            frame: link of the Jacobian (default: the tip).
            axes: "base" (base-frame axes) or "local" (the frame's own axes) for the Jacobian.
            jacobian: False to skip the Jacobian.

        Returns:
            StateTerms: gravity g(q), nonlinear_effects C qd + g, momentum M qd,
            coriolis_transpose_qd C^T qd (all (..., n)), and jacobian (..., 6, n) of ``frame`` in
            ``axes`` (None when ``jacobian`` is False, or when frame is None and the model has no
            tip).

        Raises:
            InvalidInputError: bad shapes, non-finite values, unknown ``axes``.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        names = self.tree.joint_names
        q = check_vector(q, "q", names)
        qd = check_vector(qd, "qd", names)
        check_batch(q=q, qd=qd)
        check_axes(axes)
        if jacobian and (frame is not None or self.tip_link is not None):
            frame = self.resolve_frame(frame)
        else:
            frame = None
        # qd is copied: it may be a buffer the caller overwrites before reading the terms
        kin = _dynamics.kinematics(self.tree, q)
        return StateTerms(self.tree, kin, qd.copy(), frame, axes)

    def forward_dynamics(self, q, qd, tau, f_ext=None, frame=None):
        """Forward dynamics: qdd solving ``M qdd = tau + J^T f_ext - C qd - g``.

        CRBA matrix, Cholesky or LU solve; :meth:`aba` gives the same by the articulated-body
        algorithm.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            tau: (..., n) joint torques [N m or N].
            f_ext: (..., 6) wrench [N, N m] the environment applies to ``frame``, base-frame axes,
                moment about the frame origin; None for no wrench.
            frame: the link ``f_ext`` acts on (default: the tip).

        Returns:
            ndarray: (..., n) joint accelerations [rad/s^2 or m/s^2].

        Raises:
            InvalidInputError: bad shapes, non-broadcasting batches, non-finite values.
            SingularInertiaError: M is singular (names a joint that moves little or no inertia).
        """
        names = self.tree.joint_names
        q = check_vector(q, "q", names)
        qd = check_vector(qd, "qd", names)
        tau = check_vector(tau, "tau", names)
        shape = check_batch(q=q, qd=qd, tau=tau)
        f_ext, frame, shape = self._wrench(f_ext, frame, shape)
        return _dynamics.in_chunks(
            self.tree, shape, _dynamics.forward_dynamics, q, qd, tau, f_ext, frame=frame
        )

    def aba(self, q, qd, tau, f_ext=None, frame=None):
        """Forward dynamics by the articulated-body algorithm (O(n)).

        Only for models without mimic joints.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            tau: (..., n) joint torques [N m or N].
            f_ext: (..., 6) wrench [N, N m] the environment applies to ``frame``, base-frame axes,
                moment about the frame origin; None for no wrench.
            frame: the link ``f_ext`` acts on (default: the tip).

        Returns:
            ndarray: (..., n) joint accelerations [rad/s^2 or m/s^2].

        Raises:
            InvalidInputError: the model has mimic joints; bad shapes or values.
            SingularInertiaError: M is singular (names a joint that moves little or no inertia).
        """
        tree = self.tree
        if tree.has_mimic:
            raise InvalidInputError("aba does not handle mimic joints; use forward_dynamics")
        q = check_vector(q, "q", tree.joint_names)
        qd = check_vector(qd, "qd", tree.joint_names)
        tau = check_vector(tau, "tau", tree.joint_names)
        shape = check_batch(q=q, qd=qd, tau=tau)
        f_ext, frame, shape = self._wrench(f_ext, frame, shape)
        return _dynamics.in_chunks(tree, shape, _dynamics.aba, q, qd, tau, f_ext, frame=frame)

    def friction_torques(self, qd, velocity_threshold=_friction.DEFAULT_VELOCITY_THRESHOLD):
        """Joint friction torques of the model's :class:`~robot_dynamics.core.friction.
        FrictionModel` ``friction`` (URDF ``<dynamics damping friction>`` or
        :meth:`with_friction`).

        Args:
            qd: (..., n) joint velocities [rad/s or m/s].
            velocity_threshold: ``v_eps`` [rad/s or m/s] of the smooth sign
                (:func:`robot_dynamics.core.friction.smooth_sign`), scalar or (n,), >= 0; 0 gives
                the discontinuous ``sign(qd)``.

        Returns:
            ndarray: (..., n) friction torques [N m or N].

        Raises:
            InvalidInputError: wrong shape or non-finite values.
        """
        qd = check_vector(qd, "qd", self.tree.joint_names)
        return self.friction.torques(qd, velocity_threshold)

    # ---------------------------------------------------------------- energy
    def kinetic_energy(self, q, qd):
        """Kinetic energy 1/2 qd^T M qd.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].

        Returns:
            ndarray: (...,) energy [J].

        Raises:
            InvalidInputError: wrong shapes, non-broadcasting batches or non-finite values.
        """
        names = self.tree.joint_names
        q = check_vector(q, "q", names)
        qd = check_vector(qd, "qd", names)
        check_batch(q=q, qd=qd)
        M = self.mass_matrix(q)
        return 0.5 * np.einsum("...i,...ij,...j->...", qd, M, qd)

    def potential_energy(self, q):
        """Potential energy -sum_i m_i gravity . c_i, zero at the base origin.

        Args:
            q: (..., n) joint positions [rad or m].

        Returns:
            ndarray: (...,) energy [J].

        Raises:
            InvalidInputError: wrong shape or non-finite values.
        """
        q = check_vector(q, "q", self.tree.joint_names)
        return _dynamics.in_chunks(
            self.tree, q.shape[:-1], _dynamics.potential_energy, q, entries=16
        )

    def total_energy(self, q, qd):
        """Kinetic plus potential energy.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].

        Returns:
            ndarray: (...,) energy [J].

        Raises:
            InvalidInputError: wrong shapes, non-broadcasting batches or non-finite values.
        """
        return self.kinetic_energy(q, qd) + self.potential_energy(q)

    # ---------------------------------------------------------------- kinematics
    def frame_pose(self, q, frame=None):
        """Pose ``B_T_F`` of a link frame in the base frame.

        Args:
            q: (..., n) joint positions [rad or m].
            frame: link name (default: the tip).

        Returns:
            ndarray: (..., 4, 4) homogeneous transform [m].

        Raises:
            InvalidInputError: bad q, or ``frame`` not a string.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        frame = self.resolve_frame(frame)
        q = check_vector(q, "q", self.tree.joint_names)
        return _dynamics.in_chunks(
            self.tree, q.shape[:-1], _dynamics.frame_pose, q, frame=frame, entries=16
        )

    def jacobian(self, q, frame=None, axes="base"):
        """Geometric Jacobian of a frame: rows ``[vx vy vz wx wy wz]`` of the frame origin.

        Args:
            q: (..., n) joint positions [rad or m].
            frame: link name (default: the tip).
            axes: "base": base-frame axes (Pinocchio's LOCAL_WORLD_ALIGNED); "local": the frame's
                own axes.

        Returns:
            ndarray: (..., 6, n) J, mapping qd to ``[v; w]`` [m/s; rad/s].

        Raises:
            InvalidInputError: bad q or unknown ``axes``.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        frame = self.resolve_frame(frame)
        check_axes(axes)
        q = check_vector(q, "q", self.tree.joint_names)
        if q.ndim == 1:  # one configuration (the controllers' call): straight to it
            kin = _dynamics.kinematics(self.tree, q)
            return _dynamics.frame_jacobian(self.tree, kin, frame, axes)
        return _dynamics.in_chunks(
            self.tree, q.shape[:-1], _dynamics.frame_jacobian, q, frame=frame, axes=axes, entries=16
        )

    def jacobian_dot_qd(self, q, qd, frame=None, axes="base"):
        """``Jdot qd``: classical acceleration of the frame origin at zero joint acceleration.

        No gravity.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            frame: link name (default: the tip).
            axes: "base" (base-frame axes) or "local" (the frame's own axes).

        Returns:
            ndarray: (..., 6) ``[m/s^2; rad/s^2]``.

        Raises:
            InvalidInputError: bad q, qd or unknown ``axes``.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        frame = self.resolve_frame(frame)
        check_axes(axes)
        q = check_vector(q, "q", self.tree.joint_names)
        qd = check_vector(qd, "qd", self.tree.joint_names)
        shape = check_batch(q=q, qd=qd)
        return _dynamics.in_chunks(
            self.tree, shape, _dynamics.jacobian_dot_qd, q, qd, frame=frame, axes=axes
        )

    def task_space_inertia(self, q, frame=None, rcond=1e-10):
        """Task-space inertia ``Lambda = (J M^-1 J^T)^-1`` of a frame, base axes; a pseudo-inverse
        (relative cutoff ``rcond``) where J is not full row rank.

        Args:
            q: (..., n) joint positions [rad or m].
            frame: link name (default: the tip).
            rcond: relative singular-value cutoff of the pseudo-inverse.

        Returns:
            ndarray: (..., 6, 6) Lambda [kg, kg m, kg m^2].

        Raises:
            InvalidInputError: bad q.
            UnknownFrameError: ``frame`` is not a link of the model.
        """
        frame = self.resolve_frame(frame)
        q = check_vector(q, "q", self.tree.joint_names)
        return _dynamics.in_chunks(
            self.tree, q.shape[:-1], _dynamics.task_space_inertia, q, frame=frame, rcond=rcond
        )

    # ---------------------------------------------------------------- estimation
    def estimate_external_wrench(
        self,
        q,
        tau_ext,
        frame=None,
        components=None,
        damping=_estimation.WRENCH_DAMPING,
        singular_threshold=_estimation.SINGULAR_THRESHOLD,
        jacobian=None,
        sensor_frame=None,
    ):
        """The external wrench f_ext (..., 6) that the environment applies at ``frame`` (on its
        link, at its origin), from the external joint torques ``tau_ext = J^T f_ext``, as a
        force-torque sensor at ``sensor_frame`` (default: ``frame``) reads it: components in
        the sensor frame's axes, moment about its origin (a ROS ``WrenchStamped`` with
        ``frame_id = sensor_frame``).

        Only the selected components S are solved for, ``tau_ext = J_S^T f_S`` with the rows
        J_S of the Jacobian of ``frame``'s origin in the sensor frame's axes; the others are 0.
        The solve is a pseudo-inverse of J_S^T damped only near a singularity (singular values
        below ``singular_threshold``, damping up to ``damping``). The moment is then carried
        from ``frame``'s origin to the sensor's (``n_s = n + (p - p_s) x f``).

        Args:
            q: (..., n) joint positions.
            tau_ext: (..., n) external joint torques [N m or N].
            frame: the link the wrench acts on, at its origin (default: the tip).
            components: subset of ``fx fy fz tx ty tz`` in the sensor frame's axes (string or
                sequence; the moments about ``frame``'s origin), or None: all six when >= 6
                joints move ``frame``, else the force only (a point contact at ``frame``'s origin; a
                minimum-norm 6-D solve would spread a pure force over moments).
            damping: largest damping of the damped pseudo-inverse.
            singular_threshold: singular value below which the damping fades in.
            jacobian: optional (..., 6, n) Jacobian of ``frame`` in its own axes, already
                computed at q (``state_terms(q, qd, frame=frame, axes="local").jacobian``).
            sensor_frame: any link (default: ``frame``); e.g. the base link for the wrench
                about the base origin in base axes.

        Returns:
            :class:`WrenchEstimate` (singular values of J_S; ``min_singular_value`` a float for
            one configuration).

        Raises:
            InvalidInputError: bad shapes, non-finite values, unknown components.
            UnknownFrameError: ``frame`` or ``sensor_frame`` is not a link of the model.
        """
        frame = self.resolve_frame(frame)
        sensor = frame if sensor_frame is None else self.resolve_frame(sensor_frame)
        moving = int(self.tree.moving_joints(frame).sum())
        names = _estimation.resolve_wrench_components(components, moving)
        q = check_vector(q, "q", self.tree.joint_names)
        tau_ext = check_vector(tau_ext, "tau_ext", self.tree.joint_names)
        check_batch(q=q, tau_ext=tau_ext)
        if jacobian is not None:
            jacobian = np.asarray(jacobian, dtype=float)
            if jacobian.shape[-2:] != (6, self.n):
                raise InvalidInputError(
                    f"jacobian has shape {jacobian.shape}, expected (..., 6, {self.n})"
                )
        return _estimation.external_wrench(
            self.tree, q, tau_ext, frame, sensor, names, damping, singular_threshold, jacobian
        )

    # ---------------------------------------------------------------- simulation
    def step(self, q, qd, tau, dt, f_ext=None, frame=None, friction=False):
        """One semi-implicit (symplectic) Euler step.

        Args:
            q: (..., n) joint positions [rad or m].
            qd: (..., n) joint velocities [rad/s or m/s].
            tau: (..., n) joint torques [N m or N].
            dt: step length [s], ``0 < dt <= 1e3``.
            f_ext: (..., 6) wrench [N, N m] on ``frame``, base-frame axes; None for no wrench.
            frame: the link ``f_ext`` acts on (default: the tip).
            friction: subtract the joint friction (:meth:`friction_torques`) from tau.

        Returns:
            tuple: ``(q, qd)`` after the step, (..., n) each.

        Raises:
            InvalidInputError: bad dt, shapes or values.
        """
        if not (isinstance(dt, (int, float, np.floating)) and 0 < dt <= 1e3):
            raise InvalidInputError(f"step: dt must be a number in (0, 1e3] s, got {dt!r}")
        names = self.tree.joint_names
        q = check_vector(q, "q", names)
        qd = check_vector(qd, "qd", names)
        tau = check_vector(tau, "tau", names)
        shape = check_batch(q=q, qd=qd, tau=tau)
        if friction:
            tau = tau - self.friction_torques(qd)
        f_ext, frame, _ = self._wrench(f_ext, frame, shape)
        return _simulate.semi_implicit_euler_step(self.tree, q, qd, tau, dt, f_ext, frame)

    def simulate(
        self,
        q0,
        qd0,
        duration,
        tau=None,
        f_ext=None,
        frame=None,
        method="RK45",
        rtol=1e-8,
        atol=1e-10,
        sample_dt=None,
        friction=False,
        fixed_step=1e-3,
        max_torque=_simulate.MAX_TORQUE,
        max_steps=_simulate.MAX_STEPS,
        max_samples=_simulate.MAX_SAMPLES,
        max_rhs_evaluations=_simulate.MAX_RHS_EVALUATIONS,
        max_wall_time=None,
        stop=None,
    ):
        """Integrate the dynamics from ``(q0, qd0)`` for ``duration`` seconds.

        The bounds (``max_*``, ``max_wall_time``) and the input ranges are those of
        :func:`robot_dynamics.core.simulate.simulate`.

        Args:
            q0: (n,) initial joint positions [rad or m].
            qd0: (n,) initial joint velocities [rad/s or m/s].
            duration: simulated time [s], finite and >= 1e-6 (``simulate.MIN_STEP``).
            tau: None (zero), (n,) constant, ``(times (k,), values (k, n))`` sampled (linear in
                between), or a callable ``tau(t, q, qd) -> (n,)`` [N m or N].
            f_ext: constant (6,) wrench [N, N m] on ``frame``, base-frame axes.
            frame: the link ``f_ext`` acts on (default: the tip).
            method: a solve_ivp method (RK45, RK23, DOP853, Radau, BDF, LSODA) or
                "semi_implicit_euler" (fixed step ``fixed_step``).
            rtol: relative tolerance of solve_ivp.
            atol: absolute tolerance of solve_ivp.
            sample_dt: output sample period [s]: samples at 0, sample_dt, 2 sample_dt, ... and
                at ``duration`` (default: the integrator's steps).
            friction: include joint friction.
            fixed_step: step [s] of "semi_implicit_euler".
            max_torque: bound on |tau| [N m or N].
            max_steps: bound on the number of integration steps.
            max_samples: bound on the number of output samples.
            max_rhs_evaluations: bound on the number of dynamics evaluations.
            max_wall_time: wall-clock bound [s], or None.
            stop: ``() -> bool`` asked at every step (e.g. ``threading.Event().is_set``): True
                ends the simulation with a SimulationError; or None.

        Returns:
            SimulationResult: see :class:`~robot_dynamics.core.simulate.SimulationResult`.

        Raises:
            InvalidInputError: see :func:`robot_dynamics.core.simulate.simulate`.
            SimulationError: the integration failed or ``stop`` ended it (SimulationLimitError: a
                bound was exceeded).
        """
        return _simulate.simulate(
            self,
            q0,
            qd0,
            duration,
            tau=tau,
            f_ext=f_ext,
            frame=frame,
            method=method,
            rtol=rtol,
            atol=atol,
            sample_dt=sample_dt,
            friction=friction,
            fixed_step=fixed_step,
            max_torque=max_torque,
            max_steps=max_steps,
            max_samples=max_samples,
            max_rhs_evaluations=max_rhs_evaluations,
            max_wall_time=max_wall_time,
            stop=stop,
        )
