"""The demo's push script: which wrench the demo applies on the tool, and when (simulated time)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence

import numpy as np


@dataclass
class Phase:
    """One step of the push script: from ``start`` to ``end`` [s after the start] apply ``wrench``
    [fx fy fz tx ty tz] (N, Nm; base axes, moment about the tip-frame origin)."""

    name: str
    start: float
    end: float
    wrench: np.ndarray

    @property
    def is_push(self) -> bool:
        """True when the phase applies a non-zero wrench."""
        return bool(np.any(self.wrench))


def push_script(duration: float, force: float, side_force: float, twist: float) -> List[Phase]:
    """The push sequence, scaled to ``duration`` [s]: hold, push ``force`` [N] down, release, push
    ``side_force`` [N] along +y with a ``twist`` [Nm] about +z, release (proportions 2:3:2:3:2 of
    the 12 s default)."""
    unit = duration / 12.0
    marks = np.cumsum([0.0, 2.0, 3.0, 2.0, 3.0, 2.0]) * unit
    down = np.array([0.0, 0.0, -force, 0.0, 0.0, 0.0])
    side = np.array([0.0, side_force, 0.0, 0.0, 0.0, twist])
    names = [
        "hold (gravity compensation)",
        f"push {force:g} N down",
        "released",
        f"push {side_force:g} N sideways + {twist:g} Nm twist",
        "released",
    ]
    wrenches = [np.zeros(6), down, np.zeros(6), side, np.zeros(6)]
    return [
        Phase(n, float(marks[i]), float(marks[i + 1]), w)
        for i, (n, w) in enumerate(zip(names, wrenches))
    ]


def phase_at(script: Sequence[Phase], t: float) -> Phase:
    """The phase at time ``t`` [s] (the last one after the end)."""
    for phase in script:
        if t < phase.end:
            return phase
    return script[-1]
