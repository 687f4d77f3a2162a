"""Child processes started in their own process group (nodes the demo and the tests launch)."""

import os
import signal
import subprocess
import sys
from typing import Dict, List, Optional, Sequence


def start_process_group(argv, log, env=None, preexec_fn=None):
    """Start ``argv`` in a session (process group) of its own, so that :func:`stop_process_group`
    stops it and its children; stdin comes from /dev/null.

    Args:
        argv: the command line.
        log: open binary file that receives stdout and stderr.
        env: environment (default: this process's).
        preexec_fn: optional callable run in the child before exec.

    Returns:
        subprocess.Popen: the started process.
    """
    return subprocess.Popen(
        argv,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
        preexec_fn=preexec_fn,
    )


def stop_process_group(popen, timeout=5.0):
    """Stop ``popen``'s process group: SIGINT (rclpy shuts down cleanly), then SIGTERM, then
    SIGKILL, waiting up to ``timeout`` seconds after each.

    Args:
        popen: a process started by :func:`start_process_group`.
        timeout: wait after each signal [s].

    Returns:
        int: the exit code.
    """
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        if popen.poll() is not None:
            break
        try:
            os.killpg(popen.pid, sig)
        except ProcessLookupError:
            break
        try:
            popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            continue
    return popen.wait()


class Child:
    """A node process of the demo; output to a log file; stopped with SIGINT then SIGKILL.

    Args:
        name: name for messages.
        argv: the command line.
        log_path: file that receives stdout and stderr.
        env: the process's environment.
    """

    def __init__(self, name: str, argv: List[str], log_path: str, env: Dict[str, str]):
        self.name = name
        self.log_path = log_path
        self._log = open(log_path, "wb")
        self.popen = start_process_group(argv, self._log, env=env)

    def alive(self) -> bool:
        """Whether the process runs.

        Returns:
            bool: True while the process runs.
        """
        return self.popen.poll() is None

    def tail(self, lines: int = 15) -> str:
        """The end of the process's log.

        Args:
            lines: number of lines.

        Returns:
            str: the last ``lines`` lines ("" when the log cannot be read).
        """
        try:
            with open(self.log_path, "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 5.0) -> Optional[int]:
        """Stop its process group.

        Args:
            timeout: wait after each signal [s].

        Returns:
            int or None: the exit code.
        """
        code = stop_process_group(self.popen, timeout)
        self._log.close()
        return code


def node_argv(
    module: str, name: str, params_file: str, namespace: str, remaps: Sequence[str]
) -> List[str]:
    """Command line of a node process (``python -m module --ros-args ...``).

    Args:
        module: the node's Python module.
        name: the node's name (``__node:=``).
        params_file: ROS 2 parameter file.
        namespace: the node's namespace ("" for none).
        remaps: extra ``from:=to`` remappings.

    Returns:
        list: argv.
    """
    argv = [sys.executable, "-m", module, "--ros-args", "-r", f"__node:={name}"]
    argv += ["--params-file", params_file]
    if namespace:
        argv += ["-r", f"__ns:={namespace}"]
    for remap in remaps:
        argv += ["-r", remap]
    return argv
