"""``python -m robot_dynamics.tools.cli``: the ``robot-dynamics`` command."""

import sys

from .main import main

sys.exit(main())
