#!/usr/bin/env python3
"""Point the ROS 2 wheels' CMake export files at this interpreter and this numpy.

The ros-jazzy-* wheels were built in a manylinux container whose Python lives in
/opt/python/cp311-cp311. Their CMake export files (share/<pkg>/cmake/*Export.cmake, the
``<pkg>__rosidl_generator_py`` targets) list that container's Python include directory and its
numpy include directory in INTERFACE_INCLUDE_DIRECTORIES. CMake refuses to generate a build that
links an imported target whose include directory does not exist, so building any message package
(robot_dynamics_interfaces) against the wheels fails at the generate step.

This script rewrites, in the virtual environment's own copies only, exactly those two directories:
  /opt/python/cp311-cp311/include/python3.11                          -> sysconfig include dir
  /opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include -> numpy.get_include()
It must run with the venv's python. It is idempotent; it prints one line per patched file and a
summary, and exits non-zero if a reference to /opt/python remains in any CMake file afterwards
(an unknown reference that must be looked at, not silently ignored).
"""

import pathlib
import re
import sys
import sysconfig

import numpy

BUILD_PREFIX = "/opt/python/cp311-cp311"
OLD_PY_INCLUDE = BUILD_PREFIX + "/include/python3.11"
NUMPY_INCLUDE_RE = re.compile(
    re.escape(BUILD_PREFIX) + r"/lib/python3\.11/site-packages/numpy/(?:_core|core)/include"
)


def main() -> int:
    prefix = pathlib.Path(sys.prefix)
    py_include = sysconfig.get_paths()["include"]
    np_include = numpy.get_include()
    for needed, what in ((py_include, "Python include dir"), (np_include, "numpy include dir")):
        if not pathlib.Path(needed, "Python.h" if what.startswith("Python") else "numpy").exists():
            print(
                f"patch_wheel_cmake: ERROR: {what} {needed} is missing (install the Python "
                "development headers)",
                file=sys.stderr,
            )
            return 1
    share = prefix / "share"
    if not share.is_dir():
        print(
            f"patch_wheel_cmake: ERROR: {share} does not exist: are the ROS wheels installed?",
            file=sys.stderr,
        )
        return 1
    patched = 0
    leftovers = []
    for path in sorted(share.glob("*/cmake/*.cmake")):
        text = path.read_text()
        if BUILD_PREFIX not in text:
            continue
        new = text.replace(OLD_PY_INCLUDE, py_include)
        new = NUMPY_INCLUDE_RE.sub(np_include, new)
        if new != text:
            path.write_text(new)
            patched += 1
            print(
                f"patch_wheel_cmake: {path.relative_to(prefix)}: "
                f"{OLD_PY_INCLUDE} -> {py_include}; numpy include -> {np_include}"
            )
        if BUILD_PREFIX in new:
            leftovers.append(path)
    if leftovers:
        for path in leftovers:
            for line in path.read_text().splitlines():
                if BUILD_PREFIX in line:
                    print(
                        f"patch_wheel_cmake: ERROR: unhandled build-machine path in {path}: "
                        f"{line.strip()}",
                        file=sys.stderr,
                    )
        return 1
    print(
        f"patch_wheel_cmake: patched {patched} CMake export file(s) under {share} "
        "(wheel build-machine include dirs -> this interpreter / this numpy)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
