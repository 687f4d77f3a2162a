"""``robot-dynamics``: the dynamics of a URDF from the command line, no ROS needed.

Each subcommand takes a robot: a URDF file, a xacro file (``arm.urdf.xacro``, expanded with
``--xacro-arg name:=value``, repeatable, or ``--xacro-arg "a:=1 b:=2"``), ``package://pkg/path``
for a file of a ROS package, ``-`` for a URDF on standard input, or the name of a bundled robot
(``panda``, ``double_pendulum``)::

    robot-dynamics info ROBOT                       tree, joints, masses, total mass, fixed/mimic
    robot-dynamics gravity ROBOT --q ...            g(q): joint torques that hold the arm [N m]
    robot-dynamics mass-matrix ROBOT --q ...        M(q) [kg m^2]
    robot-dynamics jacobian ROBOT --q ... --frame F J(q) of frame F, rows [vx vy vz wx wy wz]
    robot-dynamics pose ROBOT --q ... --frame F     forward kinematics of frames (or 'all')
    robot-dynamics inverse-dynamics ROBOT --q --qd --qdd [--f-ext ...]   tau and its terms
    robot-dynamics simulate ROBOT --duration 10 [--tau gravity] --plot out.png   simulation
    robot-dynamics wrench ROBOT --q ... --tau ...   external wrench on the tip from joint torques
    robot-dynamics excite ROBOT --duration 30 --out P   an excitation trajectory for identify
    robot-dynamics identify ROBOT DATA --out ID.urdf    inertials, friction, offsets of a recording
    robot-dynamics identify-payload ROBOT DATA --frame F   a load's mass, COM (and inertia)
    robot-dynamics estimate ROBOT DATA --out P [--params YAML]   the node's estimator on a recording

Joint vectors (``--q``, ``--qd``, ``--qdd``, ``--tau``) are given in the model's joint order
(``info`` lists it) as numbers separated by spaces or commas, or as ``name=value`` pairs (joints
not named are 0). Common options: ``--base-link``, ``--tip-link``, ``--gravity GX GY GZ``,
``--json`` (one JSON object on stdout, for programs).

Exit codes (from the error's type, see :func:`exit_code_of`): 0 success; 2 bad command-line
argument (wrong vector length, unknown joint or frame, non-finite number, bad xacro argument);
3 the robot description cannot be read or turned into a model; 1 any other error.
"""

from .errors import EXIT_BAD_URDF, EXIT_ERROR, EXIT_OK, EXIT_USAGE, CLIError, exit_code_of
from .main import build_parser, main

__all__ = [
    "CLIError",
    "EXIT_BAD_URDF",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_USAGE",
    "build_parser",
    "exit_code_of",
    "main",
]
