#!/usr/bin/env python3
"""Identification on perturbed-parameter ground truth: torque RMS before/after, and time.

For each robot the "true" robot differs from its URDF: every body's mass and rotational inertia
scaled by 0.8-1.25, its centre of mass moved by up to 3 cm, viscous (0.1-1 N m s/rad) and Coulomb
(0.2-1 N m) friction on every joint, and a 1 kg load 5 cm off the last body. An optimised
Fourier excitation (period 10 s) runs for 40 s; the "recording" is sampled at 500 Hz (20,000
samples) with torque noise (0.1 N m) and encoder noise (1e-5 rad), velocities and accelerations
differentiated from the noisy positions by the same Savitzky-Golay path as `robot-dynamics
identify`. Identification time = data preparation + base parameters + weighted least squares +
the physically consistent fit. Validation: a second excitation (another seed) of 20 s at 500 Hz,
noisy like the first; torque RMS of the nominal URDF and of the identified model against the
measured torques, per joint (mean and max over joints), and of the true parameters on the same
(differentiated, filtered) data: the floor that noise and differentiation leave. Per-body mass
error max |dm| [kg]: single masses are not all identifiable, the base parameters are.

Usage: python benchmarks/bench_identification.py [--quick]
Single-threaded BLAS (OPENBLAS_NUM_THREADS=1 unless set) for times that do not depend on what
else runs on the machine.
"""

import argparse
import os
import sys
import time

os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "test", "core"))

from robot_dynamics import RobotModel  # noqa: E402
from robot_dynamics.core.excitation import optimize_excitation  # noqa: E402
from robot_dynamics.core.identification import apply_parameters, identify  # noqa: E402
from robot_dynamics.core.pseudo_inertia import is_physically_consistent  # noqa: E402
from robot_dynamics.core.regressor import (  # noqa: E402
    ParameterLayout,
    inertia_to_parameters,
    regressor,
)
from robot_dynamics.core.spatial import inertia_parameters, spatial_inertia  # noqa: E402
from robot_dynamics.core.joint_data import JointSamples, prepare  # noqa: E402

import robot_urdfs  # noqa: E402  (test/core/robot_urdfs.py: example-robot-data location)

RATE = 500.0
TAU_NOISE = 0.1
Q_NOISE = 1e-5


def robots():
    out = [
        (
            "Panda (bundled)",
            RobotModel.from_urdf_file(os.path.join(REPO, "urdf", "panda_arm.urdf")),
        ),
        (
            "double pendulum",
            RobotModel.from_urdf_file(
                os.path.join(REPO, "urdf", "double_pendulum.urdf"), gravity=(0, -9.81, 0)
            ),
        ),
    ]
    if robot_urdfs.has_erd():
        out.insert(1, ("UR5", RobotModel.from_urdf_string(robot_urdfs.urdf_xml("ur5"))))
    return out


def truth_of(model, layout, rng):
    theta = layout.nominal(model).copy()
    bodies = []
    for b in range(model.tree.nb):
        m, c, Ic = inertia_parameters(model.tree.inertia[b])
        m2 = m * rng.uniform(0.8, 1.25) + 0.05
        c2 = c + rng.uniform(-0.03, 0.03, 3)
        I2 = spatial_inertia(m2, c2, Ic * rng.uniform(0.8, 1.25) + 1e-4 * np.eye(3))
        if b == model.tree.nb - 1:  # a 1 kg load, 5 cm along the last body's z
            I2 = I2 + spatial_inertia(1.0, np.array([0.0, 0.0, 0.05]), np.eye(3) * 1e-3)
        bodies.append(inertia_to_parameters(I2))
    theta[: layout.n_inertial] = np.concatenate(bodies)
    theta[layout.group_slice("viscous")] = rng.uniform(0.1, 1.0, model.n)
    theta[layout.group_slice("coulomb")] = rng.uniform(0.2, 1.0, model.n)
    return theta


def record(model, layout, theta, traj, duration, rng):
    t = np.arange(0.0, duration, 1.0 / RATE)
    q, qd, qdd = traj.evaluate(t)
    tau = regressor(model, q, qd, qdd, layout) @ theta
    return JointSamples(
        t=t,
        position=q + Q_NOISE * rng.normal(size=q.shape),
        velocity=None,
        effort=tau + TAU_NOISE * rng.normal(size=tau.shape),
    )


def run(name, model, quick):
    rng = np.random.default_rng(7)
    layout = ParameterLayout.for_model(model)
    theta = truth_of(model, layout, rng)
    iters = 5 if quick else 20
    traj, excitation_condition = optimize_excitation(model, maxiter=iters, seed=1)
    validation, _ = optimize_excitation(model, maxiter=2, seed=2)
    samples = record(model, layout, theta, traj, 40.0, rng)
    held_out = record(model, layout, theta, validation, 20.0, rng)
    start = time.perf_counter()
    data = prepare(samples)
    result = identify(model, data.q, data.qd, data.qdd, data.tau, layout=layout)
    elapsed = time.perf_counter() - start
    test = prepare(held_out)
    Y = regressor(model, test.q, test.qd, test.qdd, layout)
    rms_nominal = np.sqrt(((Y @ result.theta_nominal - test.tau) ** 2).mean(axis=0))
    rms_identified = np.sqrt(((Y @ result.theta - test.tau) ** 2).mean(axis=0))
    rms_truth = np.sqrt(((Y @ theta - test.tau) ** 2).mean(axis=0))  # the floor
    identified = apply_parameters(model, layout, result.theta)
    true_model = apply_parameters(model, layout, theta)
    mass_error = np.abs(identified.tree.inertia[:, 0, 0] - true_model.tree.inertia[:, 0, 0])
    consistent = bool(np.all(is_physically_consistent(result.body_parameters())))
    return {
        "robot": name,
        "n": model.n,
        "base": result.base.count,
        "p": layout.size,
        "cond": result.condition_number,
        "excitation_cond": excitation_condition,
        "samples": len(data.t),
        "time": elapsed,
        "nominal_mean": rms_nominal.mean(),
        "nominal_max": rms_nominal.max(),
        "identified_mean": rms_identified.mean(),
        "identified_max": rms_identified.max(),
        "truth_mean": rms_truth.mean(),
        "truth_max": rms_truth.max(),
        "mass_error_max": mass_error.max(),
        "consistent": consistent,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer optimiser iterations")
    args = parser.parse_args()
    rows = [run(name, model, args.quick) for name, model in robots()]
    print(
        f"Identification: 40 s excitation at {RATE:.0f} Hz, torque noise {TAU_NOISE} N m, "
        f"encoder noise {Q_NOISE} rad; held-out 20 s. Torque RMS per joint [N m]: mean / max."
    )
    header = (
        f"{'robot':<16} {'n':>2} {'base/all':>8} {'cond':>7} {'samples':>7} {'time [s]':>8} "
        f"{'RMS nominal':>15} {'RMS identified':>15} {'RMS truth':>15} {'max |dm|':>8} "
        f"{'consistent':>10}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['robot']:<16} {r['n']:>2} {r['base']:>4}/{r['p']:<3} {r['cond']:>7.1f} "
            f"{r['samples']:>7} {r['time']:>8.2f} "
            f"{r['nominal_mean']:>7.3f}/{r['nominal_max']:<7.3f} "
            f"{r['identified_mean']:>7.3f}/{r['identified_max']:<7.3f} "
            f"{r['truth_mean']:>7.3f}/{r['truth_max']:<7.3f} "
            f"{r['mass_error_max']:>8.3f} {str(r['consistent']):>10}"
        )


if __name__ == "__main__":
    main()
