#!/usr/bin/env bash
# Build robot_dynamics_interfaces (rosidl, ament_cmake) with plain cmake and install it INTO the
# venv prefix, beside the ROS wheels:
#   <venv>/lib/librobot_dynamics_interfaces__*.so      (found via the bootstrapper's LD_LIBRARY_PATH)
#   <venv>/lib/python3.11/site-packages/robot_dynamics_interfaces/   (importable by the venv python)
#   <venv>/share/robot_dynamics_interfaces, <venv>/share/ament_index/... (AMENT_PREFIX_PATH hook)
# Rebuilds only when a srv file, CMakeLists.txt, package.xml, this script or the environment
# (requirements stamp) changed. Fails loudly on any cmake error.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$REPO/.venv}"
PKG="$REPO/robot_dynamics_interfaces"
BUILD="$VENV/build/robot_dynamics_interfaces"
STAMP="$VENV/.stamp-interfaces"
PY="$VENV/bin/python"

log() { echo "[build_interfaces] $*"; }
die() { echo "[build_interfaces] ERROR: $*" >&2; exit 1; }

# shellcheck source=venv_lock.sh
source "$REPO/scripts/venv_lock.sh"

[[ -x "$PY" ]] || die "$PY missing: run scripts/setup_env.sh (make venv) first"
[[ -f "$VENV/.stamp-requirements" ]] || die "environment not set up: run scripts/setup_env.sh (make venv) first"
command -v cmake >/dev/null || die "cmake not found"
shopt -s nullglob
srvs=("$PKG"/srv/*.srv)
msgs_glob=("$PKG"/msg/*.msg)
shopt -u nullglob
(( ${#srvs[@]} > 0 )) || die "no $PKG/srv/*.srv"

# Python names of the generated services, for the import check below.
names=()
for f in "${srvs[@]}"; do names+=("$(basename "$f" .srv)"); done
import_check="from robot_dynamics_interfaces.srv import $(IFS=,; echo "${names[*]}")"

msgs=("${msgs_glob[@]}")
msg_names=()
for f in "${msgs[@]}"; do msg_names+=("$(basename "$f" .msg)"); done
if (( ${#msg_names[@]} > 0 )); then
    import_check="$import_check; from robot_dynamics_interfaces.msg import $(IFS=,; echo "${msg_names[*]}")"
fi

key="$( { for f in "${srvs[@]}" "${msgs[@]}"; do echo "== $(basename "$f")"; cat "$f"; done
          cat "$PKG/CMakeLists.txt" "$PKG/package.xml" "$REPO/scripts/build_interfaces.sh" \
              "$VENV/.stamp-requirements"; } | sha256sum | cut -d' ' -f1)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$key" ]] && "$PY" -c "$import_check" 2>/dev/null; then
    log "robot_dynamics_interfaces up to date (${names[*]})"
    exit 0
fi
rm -f "$STAMP"

unset _ROS_WHEELS_BOOTSTRAP_COMPLETE
export AMENT_PREFIX_PATH="$VENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"

# Remove what a previous build installed (a deleted .srv must not linger in site-packages).
if [[ -f "$BUILD/install_manifest.txt" ]]; then
    log "removing the previous installation ($(wc -l < "$BUILD/install_manifest.txt") files)"
    while IFS= read -r f; do
        [[ "$f" == "$VENV"/* ]] && rm -f -- "$f"
    done < "$BUILD/install_manifest.txt"
fi
rm -rf "$BUILD"
mkdir -p "$BUILD"

run_logged() {  # run_logged <log file> <command...>: quiet on success, loud on failure
    local logfile="$1"; shift
    if ! "$@" >"$logfile" 2>&1; then
        echo "[build_interfaces] ERROR: command failed: $*" >&2
        echo "[build_interfaces] ---- last 80 lines of $logfile ----" >&2
        tail -n 80 "$logfile" >&2
        exit 1
    fi
}

log "configuring (cmake, prefix $VENV)"
run_logged "$BUILD/configure.log" cmake -S "$PKG" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$VENV" \
    -DCMAKE_INSTALL_PREFIX="$VENV" \
    -DPython3_EXECUTABLE="$PY" \
    -DPython3_FIND_VIRTUALENV=ONLY \
    -DBUILD_TESTING=OFF \
    -Wno-dev
if grep -q "/opt/python/cp311-cp311" "$BUILD/configure.log"; then
    die "cmake still sees the wheels' build-machine paths: rerun scripts/patch_wheel_cmake.py"
fi
log "building (${#srvs[@]} services: ${names[*]})"
run_logged "$BUILD/build.log" cmake --build "$BUILD" --parallel "$(nproc)"
log "installing into $VENV"
run_logged "$BUILD/install.log" cmake --install "$BUILD"

# The runtime must find it with no set-up step: plain venv python, through the bootstrapper.
env -u _ROS_WHEELS_BOOTSTRAP_COMPLETE -u AMENT_PREFIX_PATH "$PY" - "${names[@]}" <<'PY' || die "the installed interfaces do not import/work"
import importlib
import sys

from ament_index_python.packages import get_package_share_directory
import rclpy

mod = importlib.import_module('robot_dynamics_interfaces.srv')
for name in sys.argv[1:]:
    srv = getattr(mod, name)
    srv.Request(), srv.Response()
rclpy.init()
try:
    node = rclpy.create_node('build_interfaces_check')
    node.create_client(getattr(mod, sys.argv[1]), 'check')   # loads the typesupport libraries
    node.destroy_node()
finally:
    rclpy.shutdown()
print('[build_interfaces] import OK: robot_dynamics_interfaces.srv.{%s}; share: %s' % (
    ','.join(sys.argv[1:]), get_package_share_directory('robot_dynamics_interfaces')))
PY

echo "$key" > "$STAMP"
log "done"
