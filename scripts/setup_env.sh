#!/usr/bin/env bash
# Create/refresh the project virtual environment (.venv) with ROS 2 Jazzy from PyPI wheels, the
# runtime and the test dependencies. Idempotent: a stamp file keyed on the CONTENT of the
# requirement files (and of this script and the patch script, and the interpreter version) makes a
# second run a no-op that takes well under a second.
#
# Environment: VENV (default <repo>/.venv), PYTHON (default python3, must be CPython 3.11: the
# ros-jazzy-* wheels are cp311).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$REPO/.venv}"
PYTHON="${PYTHON:-python3}"
REQS=("$REPO/requirements-ros.txt" "$REPO/requirements.txt" "$REPO/requirements-test.txt")
STAMP="$VENV/.stamp-requirements"

log() { echo "[setup_env] $*"; }
die() { echo "[setup_env] ERROR: $*" >&2; exit 1; }

for f in "${REQS[@]}"; do [[ -f "$f" ]] || die "missing $f"; done

# shellcheck source=venv_lock.sh
source "$REPO/scripts/venv_lock.sh"

# A venv whose interpreter went away (python upgraded, copied tree) is rebuilt from scratch.
if [[ -e "$VENV/bin/python" ]] && ! "$VENV/bin/python" -c 'pass' >/dev/null 2>&1; then
    log "existing $VENV is broken; recreating it"
    find "$VENV" -mindepth 1 -maxdepth 1 ! -name .setup.lock -exec rm -rf {} +
fi

if [[ ! -x "$VENV/bin/python" ]]; then
    command -v "$PYTHON" >/dev/null || die "$PYTHON not found (Python 3.11 is required)"
    ver="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    [[ "$ver" == "3.11" ]] || die "$PYTHON is Python $ver; the ROS 2 Jazzy wheels need CPython 3.11 (set PYTHON=...)"
    log "creating virtual environment $VENV with $("$PYTHON" -c 'import sys; print(sys.executable)')"
    "$PYTHON" -m venv "$VENV"
fi

key="$( { cat "${REQS[@]}" "$REPO/scripts/setup_env.sh" "$REPO/scripts/patch_wheel_cmake.py" \
              "$REPO/scripts/venv_env_hook.py" "$REPO/scripts/venv_lock.sh"; "$VENV/bin/python" -VV; } | sha256sum | cut -d' ' -f1)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$key" ]]; then
    log "environment up to date ($VENV)"
    exit 0
fi

rm -f "$STAMP"
log "installing pinned requirements into $VENV (one resolver run for all three files)"
# _ROS_WHEELS_BOOTSTRAP_COMPLETE would stop the venv's bootstrapper from setting LD_LIBRARY_PATH
# if this script is started from another bootstrapped python; unset it for our children.
unset _ROS_WHEELS_BOOTSTRAP_COMPLETE
"$VENV/bin/python" -m pip install --disable-pip-version-check --no-input \
    -r "$REPO/requirements-ros.txt" -r "$REPO/requirements.txt" -r "$REPO/requirements-test.txt"

# Fix the wheels' CMake exports (build-machine include dirs) so rosidl builds work; loud on
# anything unexpected.
"$VENV/bin/python" "$REPO/scripts/patch_wheel_cmake.py"

# No-source runtime: AMENT_PREFIX_PATH gets the venv prefix at interpreter start-up (see the hook).
site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
cp "$REPO/scripts/venv_env_hook.py" "$site/_robot_dynamics_venv_env.py"
echo "import _robot_dynamics_venv_env" > "$site/_robot_dynamics_venv_env.pth"
log "installed $site/_robot_dynamics_venv_env.pth (AMENT_PREFIX_PATH += $VENV)"

# Proof the environment is real before stamping it.
"$VENV/bin/python" - <<'PY'
import os
import rclpy
from sensor_msgs.msg import JointState  # noqa: F401
from ament_index_python.packages import get_package_prefix
import numpy
assert rclpy.get_rmw_implementation_identifier() == 'rmw_fastrtps_cpp', rclpy.get_rmw_implementation_identifier()
print('[setup_env] rclpy OK (rmw %s), numpy %s, sensor_msgs from %s' % (
    rclpy.get_rmw_implementation_identifier(), numpy.__version__, get_package_prefix('sensor_msgs')))
PY

echo "$key" > "$STAMP"
log "environment ready ($VENV)"
