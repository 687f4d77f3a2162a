"""ROS 2 adapters of robot_dynamics (rclpy): thin nodes over :mod:`robot_dynamics.core`.

- :mod:`robot_dynamics.ros.dynamics_node`: gravity / feed-forward torques, external wrench
  estimation, mass-matrix, inverse-dynamics and simulation services.
- :mod:`robot_dynamics.ros.relay_node`: a bare JointState -> Float64MultiArray relay, the
  baseline of the node benchmark.
- :mod:`robot_dynamics.ros.conversions`, :mod:`robot_dynamics.ros.parameters`,
  :mod:`robot_dynamics.ros.filters`, :mod:`robot_dynamics.ros.executors`: message conversion
  and the joint-state merger, parameter declaration/validation, signal helpers, and the
  multi-threaded executor that runs a node's hot path inline.

Importing this package does not import rclpy; the modules do.
"""
