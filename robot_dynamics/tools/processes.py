"""Child processes started in their own process group (nodes the demo and the tests launch)."""

import os
import signal
import subprocess


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
