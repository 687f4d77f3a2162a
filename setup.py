"""ament_python package robot_dynamics: rigid-body dynamics of URDF arms, with ROS 2 nodes.

Installs, the ament way, into <prefix>/share/robot_dynamics: package.xml, launch/*.launch.py,
config/*.yaml, urdf/*.urdf and rviz/*.rviz (globbed, so files added later are picked up), and
the package marker into <prefix>/share/ament_index/resource_index/packages/.
"""

from glob import glob
import os

from setuptools import find_packages, setup

package_name = "robot_dynamics"
here = os.path.dirname(os.path.abspath(__file__))


def _files(pattern):
    """Repo-relative paths of the files matching pattern (sorted, stable across runs)."""
    return sorted(os.path.relpath(p, here) for p in glob(os.path.join(here, pattern)))


setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(
        exclude=["test", "test.*", "benchmarks", "benchmarks.*", "scripts", "scripts.*"]
    ),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/launch", _files("launch/*.launch.py")),
        ("share/" + package_name + "/config", _files("config/*.yaml")),
        ("share/" + package_name + "/urdf", _files("urdf/*.urdf") + _files("urdf/LICENSE*")),
        ("share/" + package_name + "/rviz", _files("rviz/*.rviz")),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="robot_dynamics maintainers",
    maintainer_email="robot-dynamics@example.com",
    description=(
        "Rigid-body dynamics of URDF serial arms (gravity, inverse/forward dynamics, "
        "mass matrix, external wrench estimation) with ROS 2 nodes and services."
    ),
    license="Apache-2.0",
    extras_require={"test": ["pytest"]},
    entry_points={
        "console_scripts": [
            "dynamics_node = robot_dynamics.ros.process:dynamics_node",
            "arm_simulator = robot_dynamics.ros.process:arm_simulator",
            "relay_node = robot_dynamics.ros.process:relay_node",
            "robot-dynamics = robot_dynamics.tools.cli:main",
            "robot-dynamics-demo = robot_dynamics.tools.demo:main",
        ],
    },
)
