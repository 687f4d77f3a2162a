#!/usr/bin/env bash
# Install robot_dynamics (this repository, ament_python layout) into the venv, editable, so the
# venv python, the console scripts in <venv>/bin (dynamics_node, arm_simulator, relay_node,
# robot-dynamics, robot-dynamics-demo) and their subprocesses all run the working tree's code.
# data_files (package.xml, resource marker, launch/config/urdf/rviz) are COPIED to <venv>/share, so the
# stamp is keyed on the content of every installed data file and of setup.py/setup.cfg: a new or
# changed urdf/launch/config file triggers a reinstall (a few seconds); otherwise this is a no-op.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$REPO/.venv}"
PY="$VENV/bin/python"
STAMP="$VENV/.stamp-install"

log() { echo "[install_package] $*"; }
die() { echo "[install_package] ERROR: $*" >&2; exit 1; }

# shellcheck source=venv_lock.sh
source "$REPO/scripts/venv_lock.sh"

[[ -x "$PY" ]] || die "$PY missing: run scripts/setup_env.sh (make venv) first"
cd "$REPO"
shopt -s nullglob
data=(package.xml resource/robot_dynamics launch/*.launch.py config/*.yaml urdf/*.urdf urdf/LICENSE* rviz/*.rviz)
shopt -u nullglob
# The package list matters too (the editable finder maps the top-level packages at install time).
pkgs="$(find robot_dynamics -name __init__.py -not -path '*/__pycache__/*' 2>/dev/null | sort)"
key="$( { echo "$pkgs"; for f in setup.py setup.cfg "${data[@]}" scripts/install_package.sh "$VENV/.stamp-requirements"; do
              echo "== $f"; cat "$f"; done; } | sha256sum | cut -d' ' -f1)"
# `import robot_dynamics` is checked only once the package exists (robot_dynamics/__init__.py).
import_check='pass'
[[ -f robot_dynamics/__init__.py ]] && import_check='import robot_dynamics'
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$key" ]] && "$PY" -c "$import_check" 2>/dev/null; then
    log "robot_dynamics up to date (editable install in $VENV)"
    exit 0
fi
rm -f "$STAMP"
unset _ROS_WHEELS_BOOTSTRAP_COMPLETE
# Old copies of data files that were removed from the repo must not linger in share/.
rm -rf "$VENV/share/robot_dynamics"
log "pip install --no-deps --no-build-isolation -e $REPO"
"$PY" -m pip install --disable-pip-version-check --no-input --quiet \
    --no-deps --no-build-isolation -e "$REPO"
# A PEP 660 editable install puts code and console scripts in place but not setup.py's
# data_files; install those (package.xml, ament marker, launch/config/urdf) with setup.py's own
# list, so there is one list of data files: setup.py.
log "installing data_files into $VENV/share (setup.py install_data)"
if ! "$PY" setup.py --quiet install_data --install-dir="$VENV" --force >"$VENV/.install_data.log" 2>&1; then
    cat "$VENV/.install_data.log" >&2
    die "setup.py install_data failed"
fi
"$PY" - "$import_check" <<'PY' || die "robot_dynamics is not importable / not in the ament index after install"
from ament_index_python.packages import get_package_share_directory
import sys
exec(sys.argv[1])
share = get_package_share_directory('robot_dynamics')
print('[install_package] robot_dynamics share: %s' % share)
PY
echo "$key" > "$STAMP"
log "done"
