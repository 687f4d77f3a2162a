"""``python -m robot_dynamics.tools.demo``: the demo (see the package's docstring)."""

import sys

from robot_dynamics.tools.demo.main import main

sys.exit(main())
