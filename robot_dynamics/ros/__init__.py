"""ROS 2 adapters of robot_dynamics (rclpy): thin nodes over :mod:`robot_dynamics.core`.

- :mod:`robot_dynamics.ros.dynamics_node`: gravity / feed-forward torques, external wrench
  estimation, mass-matrix, inverse-dynamics and simulation services.
- :mod:`robot_dynamics.ros.relay_node`: a bare JointState -> Float64MultiArray relay, the
  baseline of the node benchmark.
- :mod:`robot_dynamics.ros.conversions`, :mod:`robot_dynamics.ros.parameters`,
  :mod:`robot_dynamics.ros.filters`: message conversion, parameter declaration/validation and
  signal helpers shared by the nodes.

Importing this package does not import rclpy; the modules do.
"""
