"""ROS 2 adapters of robot_dynamics (rclpy): thin nodes over :mod:`robot_dynamics.estimation`
and :mod:`robot_dynamics.core`.

- :mod:`robot_dynamics.ros.dynamics_node`: gravity / feed-forward torques, external wrench
  estimation, contact detection, effort command (the pipeline does the work);
  :mod:`robot_dynamics.ros.services` its mass-matrix, inverse-dynamics and simulation services,
  :mod:`robot_dynamics.ros.dynamics_parameters` what it builds from its parameters (declared in
  :mod:`robot_dynamics.schema`),
  :mod:`robot_dynamics.ros.diagnostics` its /diagnostics status.
- :mod:`robot_dynamics.ros.arm_simulator`: a simulated torque-controlled arm.
- :mod:`robot_dynamics.ros.relay_node`: a bare JointState -> Float64MultiArray relay, the
  baseline of the node benchmark.
- Shared by the nodes: :mod:`robot_dynamics.ros.description` (robot_description from the
  parameter or the topic, URDF text only, built aside), :mod:`robot_dynamics.ros.parameters`
  (declared, ranged, validated parameters), :mod:`robot_dynamics.ros.executors` (executors and
  a spin loop that survives callback exceptions), :mod:`robot_dynamics.ros.conversions`,
  :mod:`robot_dynamics.ros.qos`.

Importing this package does not import rclpy; the modules do.
"""
