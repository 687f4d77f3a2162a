"""The demo's own rclpy node: records what the two nodes publish and pushes the tool (DDS)."""

from __future__ import annotations

import bisect
import threading
from typing import List, Optional, Sequence, Tuple

import numpy as np

from robot_dynamics.tools.demo.analysis import Recording, estimates_in_base_at_tip


def _ns(stamp) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


class Monitor:
    """An rclpy node in a private context, its executor spinning in a background thread.

    Subscribes ``joint_states``, the simulator's ``~/applied_wrench``, the dynamics node's
    ``~/external_wrench`` (and ``~/external_torques`` when asked); publishes on the simulator's
    ``~/external_wrench`` (:meth:`push`) and ``~/commands`` (:meth:`command`). Everything received
    goes into :attr:`rec` (a :class:`~robot_dynamics.tools.demo.analysis.Recording`) under
    :attr:`lock`. The applied wrench arrives in its link's axes (as a sensor there reads it) and
    is recorded in base axes, rotated with the joint state of its stamp (the simulator publishes
    both with one stamp).

    Args:
        namespace: namespace of the demo's nodes.
        model: the :class:`~robot_dynamics.core.model.RobotModel` the simulator runs.
        external_torques: also subscribe ``~/external_torques``.
    """

    def __init__(self, namespace: str, model, external_torques: bool = False):
        import rclpy
        from geometry_msgs.msg import WrenchStamped
        from rclpy.executors import SingleThreadedExecutor

        from robot_dynamics.ros.executors import spin_forever
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Float64MultiArray

        self.context = rclpy.context.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(
            "robot_dynamics_demo", namespace=namespace or None, context=self.context
        )
        self.lock = threading.Lock()
        self.rec = Recording()
        self.model = model
        self.names = list(model.joint_names)
        self._index: Optional[List[int]] = None
        self._unrotated: List[Tuple[int, str, np.ndarray]] = []  # applied, its state not yet in
        ns = (namespace or "").rstrip("/")
        self.wrench_pub = self.node.create_publisher(
            WrenchStamped, f"{ns}/arm_simulator/external_wrench", 10
        )
        self.command_pub = self.node.create_publisher(
            Float64MultiArray, f"{ns}/arm_simulator/commands", 10
        )
        # deep queues (4 s at 250 Hz): a CPU-starved monitor takes the samples late, not never
        depth = 1000
        self.node.create_subscription(JointState, f"{ns}/joint_states", self._on_js, depth)
        self.node.create_subscription(
            WrenchStamped, f"{ns}/arm_simulator/applied_wrench", self._on_applied, depth
        )
        self.node.create_subscription(
            WrenchStamped, f"{ns}/dynamics_node/external_wrench", self._on_est, depth
        )
        if external_torques:
            self.node.create_subscription(
                JointState, f"{ns}/dynamics_node/external_torques", self._on_ext, depth
            )
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._halt = threading.Event()
        self._thread = threading.Thread(
            target=spin_forever,
            args=(self.executor, self.context, self.node.get_logger(), None, self._halt),
            daemon=True,
        )
        self._thread.start()

    def _on_js(self, msg) -> None:
        if self._index is None:
            try:
                self._index = [list(msg.name).index(n) for n in self.names]
            except ValueError:
                return
        idx = self._index
        with self.lock:
            self.rec.js_stamp.append(_ns(msg.header.stamp))
            self.rec.js_q.append(np.asarray(msg.position, dtype=float)[idx])
            self.rec.js_qd.append(np.asarray(msg.velocity, dtype=float)[idx])
            self.rec.js_effort.append(
                np.asarray(msg.effort, dtype=float)[idx] if len(msg.effort) else np.zeros(len(idx))
            )
            waiting, self._unrotated = self._unrotated, []
        for sample in waiting:
            self._record_applied(*sample)

    @staticmethod
    def _w(msg) -> np.ndarray:
        from robot_dynamics.ros.conversions import wrench_from_msg

        return wrench_from_msg(msg.wrench)

    def _on_applied(self, msg) -> None:
        self._record_applied(_ns(msg.header.stamp), msg.header.frame_id, self._w(msg))

    def _record_applied(self, stamp: int, link: str, wrench: np.ndarray) -> None:
        """Record an applied wrench (its link's axes) in base axes, or keep it until the joint
        state of its stamp arrives."""
        with self.lock:
            states = self.rec.js_stamp
            i = bisect.bisect_left(states, stamp)
            if i == len(states) or states[i] != stamp:
                newest = states[-1] if states else stamp
                if stamp > newest - 1_000_000_000 and len(self._unrotated) < 1000:
                    self._unrotated.append((stamp, link, wrench))  # (else its state was lost)
                return
            q = self.rec.js_q[i]
        in_base = estimates_in_base_at_tip(self.model, wrench, link, link, q)
        with self.lock:  # in stamp order (one that waited for its state comes late)
            i = bisect.bisect_right(self.rec.app_stamp, stamp)
            self.rec.app_stamp.insert(i, stamp)
            self.rec.app_wrench.insert(i, in_base)

    def _on_ext(self, msg) -> None:
        try:
            idx = [list(msg.name).index(n) for n in self.names]
        except ValueError:
            return
        with self.lock:
            self.rec.ext_stamp.append(_ns(msg.header.stamp))
            self.rec.ext_tau.append(np.asarray(msg.effort, dtype=float)[idx])

    def _on_est(self, msg) -> None:
        with self.lock:
            self.rec.est_stamp.append(_ns(msg.header.stamp))
            self.rec.est_wrench.append(self._w(msg))
            self.rec.est_frame = msg.header.frame_id

    def push(self, wrench: np.ndarray, frame: str) -> None:
        """Apply a wrench on a link through the simulator.

        Args:
            wrench: (6,) ``[fx fy fz tx ty tz]`` [N, N m], base axes.
            frame: the link.
        """
        from geometry_msgs.msg import WrenchStamped

        from robot_dynamics.ros.conversions import wrench_to_msg

        msg = WrenchStamped()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.header.frame_id = frame
        wrench_to_msg(wrench, msg.wrench)
        self.wrench_pub.publish(msg)

    def command(self, values: Sequence[float]) -> None:
        """Publish joint torques on the simulator's ``~/commands``.

        Args:
            values: (n,) torques [N m], model joint order.
        """
        from std_msgs.msg import Float64MultiArray

        self.command_pub.publish(Float64MultiArray(data=[float(v) for v in values]))

    def counts(self) -> Tuple[int, int, int]:
        """Messages received so far.

        Returns:
            tuple: ``(joint states, applied wrenches, estimates)``.
        """
        with self.lock:
            return len(self.rec.js_stamp), len(self.rec.app_stamp), len(self.rec.est_stamp)

    def latest(self):
        """The latest messages.

        Returns:
            tuple: ``(js stamp, q, qd, effort, estimate stamp, estimate, estimate frame, q at the
            estimate's stamp)``, each None before the first message.
        """
        with self.lock:
            r = self.rec
            est_stamp = r.est_stamp[-1] if r.est_stamp else None
            q_est = None
            if est_stamp is not None and r.js_stamp:
                stamps = np.asarray(r.js_stamp[-400:])
                i = int(np.searchsorted(stamps, est_stamp, side="right")) - 1
                q_est = r.js_q[-400:][max(i, 0)]
            return (
                r.js_stamp[-1] if r.js_stamp else None,
                r.js_q[-1] if r.js_q else None,
                r.js_qd[-1] if r.js_qd else None,
                r.js_effort[-1] if r.js_effort else None,
                est_stamp,
                r.est_wrench[-1] if r.est_wrench else None,
                r.est_frame,
                q_est,
            )

    def applied_at(self, stamp: int) -> Optional[np.ndarray]:
        """The applied wrench at the last applied-wrench stamp <= ``stamp``.

        Args:
            stamp: [ns].

        Returns:
            ndarray or None: (6,) wrench [N, N m], or None.
        """
        with self.lock:
            st = self.rec.app_stamp
            if not st:
                return None
            i = int(np.searchsorted(np.asarray(st[-400:]), stamp, side="right")) - 1
            return self.rec.app_wrench[-400:][max(i, 0)]

    def first_applied(self, wrench: np.ndarray, since_ns: int) -> Optional[int]:
        """Stamp of the first applied-wrench sample at or after ``since_ns`` equal to ``wrench``.

        Args:
            wrench: (6,) wrench [N, N m].
            since_ns: [ns].

        Returns:
            int or None: the stamp [ns], or None if none was received yet.
        """
        with self.lock:
            stamps = np.asarray(self.rec.app_stamp[-4000:], dtype=np.int64)
            values = self.rec.app_wrench[-4000:]
        start = int(np.searchsorted(stamps, since_ns, side="left"))
        for i in range(start, len(stamps)):
            if np.allclose(values[i], wrench, atol=1e-9):
                return int(stamps[i])
        return None

    def close(self) -> None:
        """Stop the spin thread and join it, shut the executor down, destroy the node, shut the
        private context down (the nodes' order, :func:`robot_dynamics.ros.executors.spin_node`).
        """
        self._halt.set()
        self._thread.join(timeout=5.0)
        try:
            if not self._thread.is_alive():  # never destroy the node under its spin thread
                self.executor.shutdown(timeout_sec=1.0)
                self.node.destroy_node()
        finally:
            self.context.try_shutdown()
