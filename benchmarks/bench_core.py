#!/usr/bin/env python3
"""Speed of the dynamics core against Pinocchio (and KDL where installed), measured in one run.

For UR5 (6 DOF) and the Panda arm (7 DOF, example-robot-data's panda.urdf without its fingers):
each API call on one configuration, and on a batch of 1000 configurations (ours: one batched
call; Pinocchio: called once per configuration in a Python loop), plus the 10 s double-pendulum
simulation at rtol 1e-8 (ours vs the same solve_ivp driving pin.aba).

KDL (Debian's python3-pykdl) runs in the system interpreter /usr/bin/python3 in a subprocess
(the chain is built from the URDF there, as kdl_parser does); it is skipped with a note when
missing. Times: timeit, `repeat` repetitions, the minimum (and the median) per call, in µs.

Usage: python benchmarks/bench_core.py [--quick]
Needs: numpy, scipy, pin, example-robot-data (test-only oracles), robot_dynamics on the path.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import textwrap
import timeit

# no ROS here, but keep any accidental DDS traffic on this machine
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import numpy as np  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "test", "core"))

from robot_dynamics import RobotModel  # noqa: E402

import robot_urdfs  # noqa: E402  (test/core/robot_urdfs.py: example-robot-data location, Panda arm URDF)
import urdf_reader  # noqa: E402  (test/core/urdf_reader.py: joint limits for random states)

try:
    import pinocchio as pin
except ImportError:  # pragma: no cover
    pin = None

SYSTEM_PYTHON = "/usr/bin/python3"

# call -> (single-configuration target ratio, batch-1000 per-configuration target ratio)
TARGETS = {
    "gravity_torques": (30.0, 2.0),
    "jacobian": (30.0, None),
    "mass_matrix": (40.0, None),
    "inverse_dynamics": (40.0, 2.0),
    "forward_dynamics": (50.0, None),
    "coriolis_matrix": (None, None),
    "nonlinear_effects": (None, None),
}
CALLS = list(TARGETS)

ROBOTS = {"UR5": ("ur5", "tool0"), "Panda arm": ("panda_arm", "panda_hand")}


def timeit_us(fn, number, repeat):
    """(min, median) time of one call in µs."""
    fn()  # warm-up
    times = [t / number * 1e6 for t in timeit.repeat(fn, number=number, repeat=repeat)]
    return min(times), statistics.median(times)


def timeit_pair(fn_a, fn_b, number, repeat):
    """Interleaved timing of two callables (a, b, a, b, ...: both see the same machine load).
    Returns ((min, median) of a, (min, median) of b) per call in µs."""
    fn_a(), fn_b()  # warm-up
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(timeit.timeit(fn_a, number=number) / number * 1e6)
        tb.append(timeit.timeit(fn_b, number=number) / number * 1e6)
    return (min(ta), statistics.median(ta)), (min(tb), statistics.median(tb))


def ours_calls(model, frame, q, qd, qdd, tau):
    return {
        "gravity_torques": lambda: model.gravity_torques(q),
        "jacobian": lambda: model.jacobian(q, frame=frame),
        "mass_matrix": lambda: model.mass_matrix(q),
        "inverse_dynamics": lambda: model.inverse_dynamics(q, qd, qdd),
        "forward_dynamics": lambda: model.forward_dynamics(q, qd, tau),
        "coriolis_matrix": lambda: model.coriolis_matrix(q, qd),
        "nonlinear_effects": lambda: model.nonlinear_effects(q, qd),
    }


def pin_setup(xml, joint_names):
    pm = pin.buildModelFromXML(xml)
    pd = pm.createData()
    # every benchmark robot has 1-dof revolute joints: a permutation maps our order to pin's
    perm = np.array([pm.joints[pm.getJointId(n)].idx_v for n in joint_names])
    assert pm.nq == pm.nv == len(joint_names)
    return pm, pd, perm


def pin_calls(pm, pd, fid, q, qd, qdd, tau):
    L = pin.LOCAL_WORLD_ALIGNED
    return {
        "gravity_torques": lambda: pin.computeGeneralizedGravity(pm, pd, q),
        "jacobian": lambda: pin.computeFrameJacobian(pm, pd, q, fid, L),
        "mass_matrix": lambda: pin.crba(pm, pd, q),
        "inverse_dynamics": lambda: pin.rnea(pm, pd, q, qd, qdd),
        "forward_dynamics": lambda: pin.aba(pm, pd, q, qd, tau),
        "coriolis_matrix": lambda: pin.computeCoriolisMatrix(pm, pd, q, qd),
        "nonlinear_effects": lambda: pin.nonLinearEffects(pm, pd, q, qd),
    }


def pin_loop_calls(pm, pd, fid, Q, QD, QDD, TAU):
    """Pinocchio called once per configuration over a batch (a Python loop)."""
    single = lambda i: pin_calls(pm, pd, fid, Q[i], QD[i], QDD[i], TAU[i])  # noqa: E731
    L = pin.LOCAL_WORLD_ALIGNED
    B = len(Q)
    return {
        "gravity_torques": lambda: [pin.computeGeneralizedGravity(pm, pd, Q[i]) for i in range(B)],
        "jacobian": lambda: [pin.computeFrameJacobian(pm, pd, Q[i], fid, L) for i in range(B)],
        "mass_matrix": lambda: [pin.crba(pm, pd, Q[i]) for i in range(B)],
        "inverse_dynamics": lambda: [pin.rnea(pm, pd, Q[i], QD[i], QDD[i]) for i in range(B)],
        "forward_dynamics": lambda: [pin.aba(pm, pd, Q[i], QD[i], TAU[i]) for i in range(B)],
        "coriolis_matrix": lambda: [
            pin.computeCoriolisMatrix(pm, pd, Q[i], QD[i]) for i in range(B)
        ],
        "nonlinear_effects": lambda: [pin.nonLinearEffects(pm, pd, Q[i], QD[i]) for i in range(B)],
    }, single


# ---------------------------------------------------------------------------------------------
# KDL: a script for the system interpreter (no numpy there); builds a chain like kdl_parser
# ---------------------------------------------------------------------------------------------
KDL_SCRIPT = textwrap.dedent(r"""
    import json, math, sys, timeit, statistics
    import xml.etree.ElementTree as ET
    import PyKDL as kdl

    req = json.load(sys.stdin)
    root = ET.fromstring(req["urdf"])

    def floats(s, d):
        return [float(x) for x in s.split()] if s is not None else list(d)

    def frame_of(el):
        o = el.find("origin")
        xyz = floats(o.get("xyz") if o is not None else None, (0, 0, 0))
        rpy = floats(o.get("rpy") if o is not None else None, (0, 0, 0))
        return kdl.Frame(kdl.Rotation.RPY(*rpy), kdl.Vector(*xyz))

    links = {l.get("name"): l for l in root.findall("link")}
    joints = {j.find("child").get("link"): j for j in root.findall("joint")}

    def inertia(link):
        i = link.find("inertial")
        if i is None:
            return kdl.RigidBodyInertia()
        F = frame_of(i)
        m = float(i.find("mass").get("value"))
        t = i.find("inertia")
        g = lambda k: float(t.get(k, 0.0))
        I = [
            [g("ixx"), g("ixy"), g("ixz")],
            [g("ixy"), g("iyy"), g("iyz")],
            [g("ixz"), g("iyz"), g("izz")],
        ]
        R = [[F.M[r, c] for c in range(3)] for r in range(3)]
        RI = [[sum(R[r][k] * I[k][c] for k in range(3)) for c in range(3)] for r in range(3)]
        Ic = [[sum(RI[r][k] * R[c][k] for k in range(3)) for c in range(3)] for r in range(3)]
        return kdl.RigidBodyInertia(m, F.p, kdl.RotationalInertia(Ic[0][0], Ic[1][1], Ic[2][2],
                                                                  Ic[0][1], Ic[0][2], Ic[1][2]))

    path = []
    ln = req["tip"]
    while ln != req["base"]:
        j = joints[ln]
        path.append(j)
        ln = j.find("parent").get("link")
    path.reverse()
    chain = kdl.Chain()
    FIXED = getattr(kdl.Joint, "Fixed", None) or getattr(kdl.Joint, "None")
    names = []
    for j in path:
        F = frame_of(j)
        typ = j.get("type")
        if typ in ("revolute", "continuous", "prismatic"):
            a = j.find("axis")
            ax = floats(a.get("xyz") if a is not None else None, (1, 0, 0))
            nrm = math.sqrt(sum(x * x for x in ax))
            ax = kdl.Vector(*[x / nrm for x in ax])
            kind = kdl.Joint.TransAxis if typ == "prismatic" else kdl.Joint.RotAxis
            jnt = kdl.Joint(j.get("name"), F.p, F.M * ax, kind)
            names.append(j.get("name"))
        else:
            jnt = kdl.Joint(j.get("name"), FIXED)
        child = j.find("child").get("link")
        chain.addSegment(kdl.Segment(child, jnt, F, inertia(links[child])))
    n = chain.getNrOfJoints()
    assert names == req["joint_names"], (names, req["joint_names"])

    def arr(v):
        a = kdl.JntArray(n)
        for i, x in enumerate(v):
            a[i] = x
        return a

    grav = kdl.Vector(*req["gravity"])
    dyn = kdl.ChainDynParam(chain, grav)
    rne = kdl.ChainIdSolver_RNE(chain, grav)
    jac = kdl.ChainJntToJacSolver(chain)
    q, qd, qdd = arr(req["q"]), arr(req["qd"]), arr(req["qdd"])
    g_out, c_out, tau_out = kdl.JntArray(n), kdl.JntArray(n), kdl.JntArray(n)
    M_out = kdl.JntSpaceInertiaMatrix(n)
    J_out = kdl.Jacobian(n)
    wrenches = [kdl.Wrench() for _ in range(chain.getNrOfSegments())]
    calls = {
        "gravity_torques": lambda: dyn.JntToGravity(q, g_out),
        "jacobian": lambda: jac.JntToJac(q, J_out),
        "mass_matrix": lambda: dyn.JntToMass(q, M_out),
        "inverse_dynamics": lambda: rne.CartToJnt(q, qd, qdd, wrenches, tau_out),
        "nonlinear_effects": lambda: (dyn.JntToCoriolis(q, qd, c_out), dyn.JntToGravity(q, g_out)),
    }
    out = {"times": {}, "note": "forward_dynamics and coriolis_matrix: no PyKDL solver"}
    for k, fn in calls.items():
        fn()
        reps = timeit.repeat(fn, number=req["number"], repeat=req["repeat"])
        ts = [t / req["number"] * 1e6 for t in reps]
        out["times"][k] = [min(ts), statistics.median(ts)]
    dyn.JntToGravity(q, g_out)
    rne.CartToJnt(q, qd, qdd, wrenches, tau_out)
    dyn.JntToMass(q, M_out)
    jac.JntToJac(q, J_out)
    out["gravity"] = [g_out[i] for i in range(n)]
    out["tau"] = [tau_out[i] for i in range(n)]
    out["M"] = [[M_out[i, j] for j in range(n)] for i in range(n)]
    out["J"] = [[J_out[r, c] for c in range(n)] for r in range(6)]
    print(json.dumps(out))
""")


def kdl_available():
    if not os.path.exists(SYSTEM_PYTHON):
        return False, f"{SYSTEM_PYTHON} not found"
    r = subprocess.run([SYSTEM_PYTHON, "-c", "import PyKDL"], capture_output=True, text=True)
    if r.returncode != 0:
        apt = shutil.which("apt")
        hint = " (apt list --installed python3-pykdl shows nothing)" if apt else ""
        return (
            False,
            "PyKDL not importable by the system python3: install Debian's python3-pykdl" + hint,
        )
    return True, ""


def run_kdl(xml, base, tip, model, q, qd, qdd, number, repeat):
    req = dict(
        urdf=xml,
        base=base,
        tip=tip,
        joint_names=list(model.joint_names),
        gravity=list(model.gravity),
        q=list(map(float, q)),
        qd=list(map(float, qd)),
        qdd=list(map(float, qdd)),
        number=number,
        repeat=repeat,
    )
    r = subprocess.run(
        [SYSTEM_PYTHON, "-c", KDL_SCRIPT],
        input=json.dumps(req),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "KDL script failed"
    return json.loads(r.stdout), ""


# ---------------------------------------------------------------------------------------------
def fmt(x):
    return "-" if x is None else (f"{x:9.2f}" if x < 1e4 else f"{x:9.0f}")


def verdict(ratio, target):
    if target is None or ratio is None:
        return "-"
    return "pass" if ratio <= target else "MISS"


def bench_robot(label, name, frame, args, rng, kdl_ok):
    xml = robot_urdfs.urdf_xml(name)
    model = RobotModel.from_urdf_string(xml, tip_link=frame)
    n = model.n
    info = urdf_reader.parse_urdf(xml)
    q = urdf_reader.random_q(info, model.joint_names, rng)
    qd, qdd, tau = rng.normal(size=(3, n))
    B = 1000
    Q = urdf_reader.random_q(info, model.joint_names, rng, (B,))
    QD, QDD, TAU = rng.normal(size=(3, B, n))

    pm, pd, perm = pin_setup(xml, model.joint_names)
    fid = pm.getFrameId(frame, pin.FrameType.BODY)
    qp, qdp, qddp, taup = (np.zeros(n) for _ in range(4))
    qp[perm], qdp[perm], qddp[perm], taup[perm] = q, qd, qdd, tau
    Qp, QDp, QDDp, TAUp = (np.zeros((B, n)) for _ in range(4))
    Qp[:, perm], QDp[:, perm], QDDp[:, perm], TAUp[:, perm] = Q, QD, QDD, TAU

    # sanity: same numbers before timing
    chk = {
        "gravity_torques": (
            model.gravity_torques(q),
            pin.computeGeneralizedGravity(pm, pd, qp)[perm],
        ),
        "inverse_dynamics": (
            model.inverse_dynamics(q, qd, qdd),
            pin.rnea(pm, pd, qp, qdp, qddp)[perm],
        ),
        "forward_dynamics": (
            model.forward_dynamics(q, qd, tau),
            pin.aba(pm, pd, qp, qdp, taup)[perm],
        ),
    }
    agree = max(float(np.max(np.abs(a - b))) for a, b in chk.values())

    number, repeat = args.number, args.repeat
    ours_f = ours_calls(model, frame, q, qd, qdd, tau)
    pin_f = pin_calls(pm, pd, fid, qp, qdp, qddp, taup)
    ours1, pin1 = {}, {}
    for k in CALLS:
        ours1[k], pin1[k] = timeit_pair(ours_f[k], pin_f[k], number, repeat)
    bn, br = max(1, number // 100), max(3, repeat // 2)
    oursB_f = ours_calls(model, frame, Q, QD, QDD, TAU)
    pinB_f, _ = pin_loop_calls(pm, pd, fid, Qp, QDp, QDDp, TAUp)
    oursB, pinB = {}, {}
    for k in CALLS:
        a, b = timeit_pair(oursB_f[k], pinB_f[k], bn, br)
        oursB[k], pinB[k] = tuple(t / B for t in a), tuple(t / B for t in b)

    kdl, kdl_note = None, ""
    if kdl_ok:
        base = urdf_reader.parse_urdf(xml).root
        kdl, kdl_note = run_kdl(xml, base, frame, model, q, qd, qdd, number, repeat)
        if kdl is not None:
            kdl_err = max(
                float(np.max(np.abs(np.array(kdl["gravity"]) - model.gravity_torques(q)))),
                float(np.max(np.abs(np.array(kdl["tau"]) - model.inverse_dynamics(q, qd, qdd)))),
                float(np.max(np.abs(np.array(kdl["M"]) - model.mass_matrix(q)))),
                float(np.max(np.abs(np.array(kdl["J"]) - model.jacobian(q)))),
            )
            kdl_note = (
                f"KDL chain {base} -> {frame}: max |KDL - ours| (g, tau, M, J) = {kdl_err:.1e}"
            )

    print(f"\n=== {label} ({n} DOF, frame {frame}); max |ours - pin| (g, tau, qdd) = {agree:.1e}")
    if kdl_note:
        print("    " + kdl_note)
    print("  single configuration (µs per call, min of interleaved repeats; median in brackets)")
    hdr = f"  {'call':18s} {'ours':>9s} {'(med)':>9s} {'pin':>9s} {'ratio':>7s} {'target':>7s}"
    hdr += f" {'':5s}"
    hdr += f" {'KDL':>9s} {'ours/KDL':>8s}" if kdl else ""
    print(hdr)
    rows = []
    for k in CALLS:
        o, p = ours1[k][0], pin1[k][0]
        ratio = o / p
        tgt = TARGETS[k][0]
        line = (
            f"  {k:18s} {fmt(o)} {fmt(ours1[k][1])} {fmt(p)} {ratio:7.1f} "
            f"{('<=' + format(tgt, 'g')) if tgt else '-':>7s} {verdict(ratio, tgt):5s}"
        )
        if kdl:
            kt = kdl["times"].get(k)
            line += (
                f" {fmt(kt[0]) if kt else '      n/a'} {(o / kt[0]) if kt else float('nan'):8.1f}"
            )
        print(line)
        rows.append(
            dict(
                robot=label,
                mode="single",
                call=k,
                ours=o,
                pin=p,
                ratio=ratio,
                target=tgt,
                kdl=(kdl["times"].get(k, [None])[0] if kdl else None),
            )
        )
    print(f"  batch of {B} (µs per configuration: ours one batched call / pin in a Python loop)")
    print(f"  {'call':18s} {'ours':>9s} {'(med)':>9s} {'pin':>9s} {'ratio':>7s} {'target':>7s}")
    for k in CALLS:
        o, p = oursB[k][0], pinB[k][0]
        ratio = o / p
        tgt = TARGETS[k][1]
        print(
            f"  {k:18s} {fmt(o)} {fmt(oursB[k][1])} {fmt(p)} {ratio:7.2f} "
            f"{('<=' + format(tgt, 'g')) if tgt else '-':>7s} {verdict(ratio, tgt):5s}"
        )
        rows.append(
            dict(robot=label, mode="batch1000", call=k, ours=o, pin=p, ratio=ratio, target=tgt)
        )
    return rows


def bench_simulation(args):
    model = RobotModel.from_urdf_file(
        robot_urdfs.DOUBLE_PENDULUM_URDF, gravity=robot_urdfs.DP_GRAVITY
    )
    pm = pin.buildModelFromUrdf(robot_urdfs.DOUBLE_PENDULUM_URDF)
    pm.gravity.linear = np.array(robot_urdfs.DP_GRAVITY)
    pd = pm.createData()
    perm = np.array([pm.joints[pm.getJointId(nm)].idx_v for nm in model.joint_names])
    zero = np.zeros(2)
    nfev = {"n": 0}

    def rhs(t, x):
        nfev["n"] += 1
        qp, vp = np.empty(2), np.empty(2)
        qp[perm], vp[perm] = x[:2], x[2:]
        return np.concatenate([x[2:], pin.aba(pm, pd, qp, vp, zero)[perm]])

    def run_pin():
        return solve_ivp(rhs, (0.0, 10.0), np.zeros(4), method="RK45", rtol=1e-8, atol=1e-10)

    def run_ours():
        return model.simulate(np.zeros(2), np.zeros(2), 10.0, method="RK45", rtol=1e-8, atol=1e-10)

    rep = max(3, args.repeat // 2)
    (t_ours, _), (t_pin, _) = timeit_pair(run_ours, run_pin, 1, rep)
    t_ours, t_pin = t_ours * 1e-6, t_pin * 1e-6
    nfev["n"] = 0
    sol = run_pin()
    res = run_ours()
    E = model.total_energy(res.q, res.qd)
    ratio = t_ours / t_pin
    print(
        "\n=== double pendulum, 10 s, zero torque from q = [0, 0], "
        "solve_ivp RK45 rtol 1e-8 atol 1e-10"
    )
    print(
        f"  ours {t_ours * 1e3:8.1f} ms ({len(res.t)} samples)   "
        f"pin.aba + solve_ivp {t_pin * 1e3:8.1f} ms "
        f"({sol.nfev} rhs evaluations)   ratio {ratio:5.2f}  target <=3  {verdict(ratio, 3.0)}"
    )
    print(
        f"  energy drift ours: {np.max(np.abs(E - E[0])):.2e} J;  "
        f"final q ours {res.q[-1]}, pin {sol.y[:2, -1]}"
        " (chaotic: differ at 10 s)"
    )
    return dict(
        robot="double pendulum",
        mode="simulate 10 s",
        call="simulate",
        ours=t_ours * 1e6,
        pin=t_pin * 1e6,
        ratio=ratio,
        target=3.0,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--json", help="also write the rows to this JSON file")
    args = ap.parse_args()
    args.number, args.repeat = (200, 5) if args.quick else (1000, 7)
    if pin is None:
        print("pinocchio (PyPI 'pin') is not installed: nothing to compare against")
        return 1
    if robot_urdfs.robots_dir() is None:
        print("example-robot-data is not installed: UR5 and Panda URDFs unavailable")
        return 1
    import scipy

    print(
        f"numpy {np.__version__}, scipy {scipy.__version__}, pinocchio {pin.__version__}, "
        f"python {sys.version.split()[0]}, "
        f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '')}"
    )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{os.cpu_count()} CPUs, load average {load:.2f} "
        "(ours and pin are timed interleaved: the ratios "
        "see the same load)"
    )
    kdl_ok, why = kdl_available()
    print("KDL: " + ("PyKDL via " + SYSTEM_PYTHON if kdl_ok else f"skipped: {why}"))
    rng = np.random.default_rng(0)
    rows = []
    for label, (name, frame) in ROBOTS.items():
        rows += bench_robot(label, name, frame, args, rng, kdl_ok)
    rows.append(bench_simulation(args))
    missed = [r for r in rows if r.get("target") and r["ratio"] > r["target"]]
    print(
        "\nsummary: "
        + (
            "all targets met"
            if not missed
            else "missed: "
            + ", ".join(
                f"{r['robot']} {r['mode']} {r['call']} ({r['ratio']:.1f}x > {r['target']:g}x)"
                for r in missed
            )
        )
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
