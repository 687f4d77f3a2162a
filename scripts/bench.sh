#!/usr/bin/env bash
# Run every benchmarks/*.py with the venv python (each prints its own table). Benchmarks measure
# speed as ratios against Pinocchio/KDL in the same run; they are not tests. A failing benchmark
# makes the target fail.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$REPO/.venv}"
: "${ROS_DOMAIN_ID:?set ROS_DOMAIN_ID}"
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
cd "$REPO"
shopt -s nullglob
benches=(benchmarks/*.py)
if (( ${#benches[@]} == 0 )); then
    echo "[bench] no benchmarks/*.py yet"
    exit 0
fi
for b in "${benches[@]}"; do
    echo "[bench] ==== $b (ROS_DOMAIN_ID=$ROS_DOMAIN_ID) ===="
    "$VENV/bin/python" "$b"
done
