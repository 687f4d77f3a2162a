"""``robot-dynamics-demo``: the whole product on a simulated arm, over real DDS, in ~20 s.

What it runs (three processes, talking over DDS as they would on a robot):

* ``arm_simulator`` (robot_dynamics.ros.arm_simulator): the bundled Franka Panda (or your URDF)
  integrated at 1 kHz, publishing ``/joint_states`` (effort = applied joint torque). Its drives
  hold the start pose with a soft joint impedance, on top of the torque command, as the joint-
  impedance mode of a torque-controlled arm does; without gravity compensation that impedance
  alone would let the arm sag (the summary says by how much).
* ``dynamics_node`` (robot_dynamics.ros.dynamics_node): computes the gravity torques from
  ``/joint_states`` and publishes them on ``~/effort_command``, remapped onto the simulator's
  ``~/commands`` (as onto a ros2_control JointGroupEffortController), and estimates the external
  wrench on the tool with the momentum observer (``~/external_wrench``).
* this process: pushes the tool through the simulator's ``~/external_wrench`` on a script
  (10 N down, release, 5 N sideways with a 1 N m twist, release), shows live what was applied and
  what the dynamics node estimates, then prints a summary and writes a plot.

``--robot double_pendulum`` instead releases the planar double pendulum of the reference from
horizontal with zero torque: it swings chaotically; the summary reports energy conservation of
the simulator's fixed-step integrator and the (ideally zero) wrench the estimator reports.

Usage::

    robot-dynamics-demo                         # Panda, 12 s of pushes, plot out/demo.png
    robot-dynamics-demo --robot double_pendulum --duration 10
    robot-dynamics-demo --scenario identify     # identify a perturbed Panda, pushes before/after
    robot-dynamics-demo --urdf my_arm.urdf --tip-link tool0
    robot-dynamics-demo --urdf my_arm.urdf.xacro --xacro-arg prefix:=left_ --tip-link tool0
    python -m robot_dynamics.tools.demo --help

Set ROS_DOMAIN_ID (and ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST) to keep it to yourself;
``make demo`` does. Exit code 0 when the estimate met the stated tolerance (or, for the
pendulum, energy was conserved within it), 1 when not, 2 for bad arguments, 3 when the nodes did
not come up.

Modules: ``script`` (the push phases), ``settings`` (robot and node parameters, shared with
launch/demo.launch.py), ``monitor`` (the demo's rclpy node), ``analysis`` (the summary numbers,
plain numpy), ``display`` (live table and summary text), ``plots`` (the PNG), ``main`` (the entry
point). The robot is resolved as the CLI resolves it (:mod:`robot_dynamics.tools.robots`).
"""

from robot_dynamics.tools.demo.main import main, run
from robot_dynamics.tools.demo.options import build_parser
from robot_dynamics.tools.demo.settings import DemoError, RobotSetup, demo_settings

__all__ = ["DemoError", "RobotSetup", "build_parser", "demo_settings", "main", "run"]
