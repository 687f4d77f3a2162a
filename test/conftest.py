"""Session-wide test set-up and shared fixtures for robot_dynamics.

DDS isolation
    Every test run keeps DDS discovery on this machine (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST)
    and in a domain of its own: ROS_DOMAIN_ID from the environment (``make test`` exports it,
    default 42; ``make test ROS_DOMAIN_ID=17`` picks another), else 42 for a direct ``pytest``.
    Both are set here at import time, before any test module imports rclpy, and are inherited by
    every subprocess the fixtures start.

Shared fixtures and helpers (use them rather than ad-hoc ``subprocess.Popen``):
    ``ros_env()``              environment for a ROS subprocess (copy of os.environ + the above).
    ``console_script(name)``   argv of a console script installed in the venv (``dynamics_node``).
    ``python_module(mod)``     argv of ``<venv python> -m mod``.
    ``start_process`` fixture  factory: start_process(argv, name=...) -> ManagedProcess; output
                               goes to a file (no pipe dead-locks), ``wait_for_output(regex)`` waits
                               for a readiness line, every process is stopped (SIGINT, then SIGTERM,
                               then SIGKILL) at the end of the test and its output is shown if the
                               test failed.
    ``rclpy_context`` fixture  an initialised, private rclpy Context (shut down afterwards).
    ``ros_node`` fixture       a node in that context + executor: ``ros_node.spin_until(pred)``.
    ``unique_name`` fixture    a short unique token for node names / namespaces, so processes of
                               different tests never talk to each other by accident.

Launch files: mark launch_pytest tests ``@pytest.mark.launch_test`` (skipped where launch_pytest
is missing, as in the wheel environment) and import launch_pytest with
``pytest.importorskip('launch_pytest')`` at the top of the module.

A node under test is started like this::

    def test_something(start_process, console_script, ros_node, unique_name):
        ns = '/' + unique_name
        proc = start_process(console_script('dynamics_node') +
                             ['--ros-args', '-r', '__ns:=' + ns, '-p', 'robot_description:=...'],
                             name='dynamics_node')
        ...  # talk to it over DDS with ros_node; proc.assert_alive(); proc.output()

How the subprocesses find ROS: the venv's ros-wheels-bootstrapper has already re-executed this
pytest with LD_LIBRARY_PATH set (and _ROS_WHEELS_BOOTSTRAP_COMPLETE=1); children of the same venv
inherit both, and AMENT_PREFIX_PATH (set by the venv's start-up hook), so nothing is sourced.
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
import uuid

import pytest

DEFAULT_ROS_DOMAIN_ID = "42"

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
os.environ.setdefault("ROS_DOMAIN_ID", DEFAULT_ROS_DOMAIN_ID)
# No stdout buffering in child pythons: readiness lines must reach the log file at once.
os.environ.setdefault("PYTHONUNBUFFERED", "1")
# Colour-free, one-line ROS log output in the captured files.
os.environ.setdefault("RCUTILS_COLORIZED_OUTPUT", "0")

VENV_BIN = os.path.dirname(sys.executable)

MARKERS = {
    "ros": "needs rclpy / DDS (separate processes over real DDS)",
    "slow": "takes more than a few seconds (still part of make test)",
    "launch_test": "a launch_pytest test (skipped where launch_pytest is not installed)",
    "lint": "a linter run as a test",
}


def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", "%s: %s" % (name, text))
    # A run stopped with SIGTERM (`timeout`, a CI job's time limit) unwinds as Ctrl-C does: the
    # fixtures' teardown stops the node processes the tests started (each in a session of its
    # own, they would otherwise go on publishing at 1 kHz after the run).
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def _launch_pytest_available():
    try:
        import launch_pytest  # noqa: F401
    except ImportError:
        return False
    return True


def pytest_collection_modifyitems(config, items):
    # launch_pytest is not on PyPI: tests marked launch_test skip cleanly without it. (A module
    # that imports launch_pytest at top level should start with
    # `launch_pytest = pytest.importorskip('launch_pytest')` instead.)
    if _launch_pytest_available():
        return
    skip = pytest.mark.skip(reason="launch_pytest is not installed (not on PyPI; see README)")
    for item in items:
        if "launch_test" in item.keywords:
            item.add_marker(skip)


# ``from conftest import helper`` in a test module: test/, test/core/ and test/ros/ each have a
# conftest.py, none is in a package, so all of them are the module "conftest" and sys.modules holds
# only the one pytest loaded last -- a test module would import the wrong directory's helpers.
# Bind "conftest" to the test module's nearest conftest.py before the module is imported and
# before each of its tests runs. (Better still: put shared helpers in a uniquely named module,
# as test/ros/node_test_helpers.py does.)
def _bind_nearest_conftest(config, path):
    loaded = {}
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, types.ModuleType) and getattr(plugin, "__file__", None):
            loaded[os.path.realpath(plugin.__file__)] = plugin
    directory = os.path.dirname(os.path.realpath(str(path)))
    root = os.path.realpath(str(config.rootpath))
    while True:
        module = loaded.get(os.path.join(directory, "conftest.py"))
        if module is not None:
            sys.modules["conftest"] = module
            return
        if directory == root or os.path.dirname(directory) == directory:
            return
        directory = os.path.dirname(directory)


def pytest_collectstart(collector):
    if isinstance(collector, pytest.Module):
        _bind_nearest_conftest(collector.config, collector.path)


def pytest_runtest_setup(item):
    _bind_nearest_conftest(item.config, item.path)


def pytest_report_header(config):
    return "ROS_DOMAIN_ID=%s ROS_AUTOMATIC_DISCOVERY_RANGE=%s python=%s" % (
        os.environ["ROS_DOMAIN_ID"],
        os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"],
        sys.executable,
    )


# --------------------------------------------------------------------------------------------
# subprocess helpers


def ros_env(extra=None):
    """Environment for a ROS subprocess: os.environ (discovery settings included) + extra."""
    env = dict(os.environ)
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env.setdefault("ROS_DOMAIN_ID", DEFAULT_ROS_DOMAIN_ID)
    env["PYTHONUNBUFFERED"] = "1"
    if extra:
        env.update({k: str(v) for k, v in extra.items()})
    return env


def console_script_argv(name):
    """argv of a console script of the venv (e.g. 'dynamics_node'); fails if it is missing."""
    path = os.path.join(VENV_BIN, name)
    if not os.path.exists(path):
        raise FileNotFoundError(
            "console script %r not found in %s (run `make install`)" % (name, VENV_BIN)
        )
    return [path]


def python_module_argv(module):
    """argv that runs `module` with the venv python (python -m module)."""
    return [sys.executable, "-m", module]


class ManagedProcess:
    """A subprocess whose combined stdout/stderr goes to a temporary file."""

    def __init__(self, argv, name=None, env=None, cwd=None):
        self.argv = [str(a) for a in argv]
        self.name = name or os.path.basename(self.argv[0])
        self._log = tempfile.NamedTemporaryFile(
            mode="w+b", prefix="rd-%s-" % re.sub(r"\W", "_", self.name), suffix=".log", delete=False
        )
        self.log_path = self._log.name
        self.popen = subprocess.Popen(
            self.argv,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env if env is not None else ros_env(),
            cwd=cwd,
            start_new_session=True,
        )

    @property
    def pid(self):
        return self.popen.pid

    @property
    def returncode(self):
        return self.popen.poll()

    def is_alive(self):
        return self.popen.poll() is None

    def output(self):
        """Everything the process printed so far (stdout and stderr), decoded."""
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def assert_alive(self):
        if not self.is_alive():
            raise AssertionError(
                "%s exited with code %s; output:\n%s"
                % (self.name, self.popen.returncode, self.output())
            )

    def wait_for_output(self, pattern, timeout=30.0):
        """Wait until the output matches regex `pattern`; return the match.

        Raises AssertionError (with the output) if the process exits or `timeout` seconds pass
        first. The timeout only bounds a hang; it is not a speed requirement.
        """
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.output())
            if match:
                return match
            if not self.is_alive():
                raise AssertionError(
                    "%s exited (code %s) before printing %r; output:\n%s"
                    % (self.name, self.popen.returncode, pattern, self.output())
                )
            if time.monotonic() > deadline:
                raise AssertionError(
                    "%s did not print %r within %.0f s; output:\n%s"
                    % (self.name, pattern, timeout, self.output())
                )
            time.sleep(0.05)

    def wait(self, timeout=60.0):
        """Wait for the process to exit by itself; return its exit code."""
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                "%s still running after %.0f s; output:\n%s" % (self.name, timeout, self.output())
            )

    def terminate(self, timeout=10.0):
        """Stop the process: SIGINT (rclpy shuts down cleanly), then SIGTERM, then SIGKILL.

        Signals go to the process group, so children of the process stop too.
        Returns the exit code.
        """
        from robot_dynamics.tools.processes import stop_process_group

        code = stop_process_group(self.popen, timeout)
        self._log.close()
        return code

    def cleanup(self):
        try:
            os.unlink(self.log_path)
        except OSError:
            pass


@pytest.fixture
def start_process(request):
    """Factory fixture: start_process(argv, name=None, env=None, cwd=None) -> ManagedProcess.

    Every process is terminated at teardown; if the test failed, the output of each is printed
    (pytest shows it in the report).
    """
    procs = []

    def _start(argv, name=None, env=None, cwd=None):
        proc = ManagedProcess(argv, name=name, env=env, cwd=cwd)
        procs.append(proc)
        return proc

    yield _start
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    for proc in reversed(procs):
        code = proc.terminate()
        if failed:
            sys.stdout.write(
                "\n----- output of %s (pid %d, exit %s) -----\n%s\n"
                % (proc.name, proc.pid, code, proc.output())
            )
        proc.cleanup()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # Expose the call-phase report to fixtures (start_process prints outputs on failure).
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


@pytest.fixture
def console_script():
    """console_script('dynamics_node') -> argv of the venv's console script."""
    return console_script_argv


@pytest.fixture
def python_module():
    """python_module('robot_dynamics.ros.dynamics_node') -> [venv python, '-m', module]."""
    return python_module_argv


@pytest.fixture
def unique_name():
    """A short token unique to this test, usable in ROS names (letters, digits, underscores)."""
    return "t" + uuid.uuid4().hex[:10]


# --------------------------------------------------------------------------------------------
# rclpy fixtures (in the test process)


@pytest.fixture
def rclpy_context():
    """An initialised private rclpy Context; shut down after the test."""
    rclpy = pytest.importorskip("rclpy")
    context = rclpy.context.Context()
    rclpy.init(context=context)
    try:
        yield context
    finally:
        if context.ok():
            rclpy.shutdown(context=context)


class TestNode:
    """A node of the test process with its own executor.

    ``node`` is the rclpy Node; ``spin_until(predicate, timeout)`` spins until predicate() is
    true (returns True) or the timeout passes (returns False); ``spin_for(seconds)`` spins.
    ``call(client, request, timeout)`` waits for the service and calls it, returning the result.
    """

    RESEND_S = 10.0  # a service call without an answer is sent again after this long [s]

    __test__ = False  # not a pytest test class

    def __init__(self, context, name):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        self.node = rclpy.create_node(name, context=context)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)

    def spin_until(self, predicate, timeout=20.0):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                return False
            self.executor.spin_once(timeout_sec=0.05)
        return True

    def spin_for(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.05)

    def call(self, client, request, timeout=20.0):
        if not self.spin_until(lambda: client.service_is_ready(), timeout):
            raise AssertionError(
                "service %s not available within %.0f s" % (client.srv_name, timeout)
            )
        # Fast DDS can drop the response to a call made right after discovery ("failed to send
        # response (timeout)": the client's response reader was not matched yet). The services
        # under test are idempotent, so a call with no answer is sent again every RESEND_S; the
        # first answer to any of them is the result.
        deadline = time.monotonic() + timeout
        futures = []
        while True:
            futures.append(client.call_async(request))
            left = deadline - time.monotonic()
            if self.spin_until(lambda: any(f.done() for f in futures), min(self.RESEND_S, left)):
                return next(f for f in futures if f.done()).result()
            if time.monotonic() >= deadline:
                raise AssertionError(
                    "service %s did not answer within %.0f s" % (client.srv_name, timeout)
                )

    def destroy(self):
        self.executor.remove_node(self.node)
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()


@pytest.fixture
def ros_node(rclpy_context, unique_name):
    """A TestNode (rclpy node + executor) named after the test, in a private context."""
    test_node = TestNode(rclpy_context, "test_" + unique_name)
    try:
        yield test_node
    finally:
        test_node.destroy()
