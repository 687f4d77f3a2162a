#!/usr/bin/env bash
# `make demo`: runs the demo once robot_dynamics.tools.demo exists; until then, says what exists.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$REPO/.venv}"
: "${ROS_DOMAIN_ID:?set ROS_DOMAIN_ID}"
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
cd "$REPO"
if [[ -f robot_dynamics/tools/demo.py ]]; then
    exec "$VENV/bin/robot-dynamics-demo" "$@"
fi
echo "[demo] the demo (robot_dynamics.tools.demo) is not written yet. What exists now:"
echo "  environment : $VENV (ROS 2 Jazzy wheels; python: $VENV/bin/python)"
"$VENV/bin/python" - <<'PY'
import glob
import os

from ament_index_python.packages import get_package_share_directory
import rclpy

print('  rclpy        : rmw %s' % rclpy.get_rmw_implementation_identifier())
from robot_dynamics_interfaces import srv
names = sorted(n for n in dir(srv) if not n.startswith('_') and n[0].isupper())
print('  interfaces   : robot_dynamics_interfaces.srv.{%s}' % ', '.join(names))
share = get_package_share_directory('robot_dynamics')
print('  package share: %s' % share)
for sub in ('launch', 'config', 'urdf'):
    files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(share, sub, '*')))
    print('    %-8s: %s' % (sub, ', '.join(files) or '-'))
from importlib.metadata import entry_points
from importlib.util import find_spec
import sys
for ep in sorted(entry_points(group='console_scripts'), key=lambda e: e.name):
    if not ep.value.startswith('robot_dynamics.'):
        continue
    module = ep.value.split(':')[0]
    try:
        ready = find_spec(module) is not None
    except ImportError:
        ready = False
    path = os.path.join(sys.prefix, 'bin', ep.name)
    print('  console script %-20s -> %-40s %s' % (
        ep.name, ep.value, path if ready else '(module not written yet)'))
PY
echo "  tests        : make test    (pytest over test/)"
