"""The demo's push script: which wrench the demo applies on the tool, and when (simulated time)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

import numpy as np


@dataclass
class Phase:
    """One step of the push script: from ``start`` to ``end`` apply ``wrench``.

    Attributes:
        name: phase name.
        start: [s after the start].
        end: [s after the start].
        wrench: (6,) ``[fx fy fz tx ty tz]`` [N, N m]; base axes, moment about the tip-frame
            origin.
    """

    name: str
    start: float
    end: float
    wrench: np.ndarray

    @property
    def is_push(self) -> bool:
        """True when the phase applies a non-zero wrench."""
        return bool(np.any(self.wrench))


def push_script(duration: float, force: float, side_force: float, twist: float) -> List[Phase]:
    """The push sequence, scaled to ``duration``: hold, push ``force`` down, release, push
    ``side_force`` along +y with a ``twist`` about +z, release (proportions 2:3:2:3:2 of the
    12 s default).

    Args:
        duration: length [s].
        force: downward push [N].
        side_force: push along +y [N].
        twist: moment about +z [N m].

    Returns:
        list: the :class:`Phase` list.
    """
    unit = duration / 12.0
    marks = np.cumsum([0.0, 2.0, 3.0, 2.0, 3.0, 2.0]) * unit
    down = np.array([0.0, 0.0, -force, 0.0, 0.0, 0.0])
    side = np.array([0.0, side_force, 0.0, 0.0, 0.0, twist])
    names = [
        "hold (gravity compensation)",
        f"push {force:g} N down",
        "released",
        f"push {side_force:g} N sideways + {twist:g} N m twist",
        "released",
    ]
    wrenches = [np.zeros(6), down, np.zeros(6), side, np.zeros(6)]
    return [
        Phase(n, float(marks[i]), float(marks[i + 1]), w)
        for i, (n, w) in enumerate(zip(names, wrenches))
    ]


def phase_at(script: Sequence[Phase], t: float) -> Phase:
    """The phase at a time.

    Args:
        script: the phases.
        t: time [s after the start].

    Returns:
        Phase: the phase at ``t`` (the last one after the end).
    """
    for phase in script:
        if t < phase.end:
            return phase
    return script[-1]


class Schedule:
    """Runs a script on the phases as they were applied, so that every phase lasts its full length
    in simulated time however late the demo process (CPU-starved) sees and sends things.

    Phase k+1 starts once phase k has been applied for its length: its start is the stamp of the
    first applied-wrench sample showing phase k's wrench after the demo began sending it. The
    first phase (a hold) starts at 0.

    Args:
        script: the phases, nominal times (only their lengths and wrenches are used).
    """

    def __init__(self, script: Sequence[Phase]):
        self.script = list(script)
        self.index = 0
        self.sent_at = 0.0  # when the current phase was first sent [s]
        self.starts: List[float] = [0.0]  # applied start of each phase begun so far [s]

    @property
    def phase(self) -> Phase:
        """The phase to send now."""
        return self.script[min(self.index, len(self.script) - 1)]

    @property
    def done(self) -> bool:
        """True once the last phase has lasted its length."""
        return self.index >= len(self.script)

    def update(self, t: float, applied_start: Optional[float]) -> Phase:
        """Advance to time ``t`` [s] (the latest joint-state stamp).

        Args:
            t: simulated time now [s after the start].
            applied_start: for the current phase (when not yet known): the first applied-wrench
                stamp [s] at or after ``sent_at`` showing its wrench, or None if not seen yet.

        Returns:
            the phase to send.
        """
        while not self.done:
            if len(self.starts) <= self.index:  # started, but not yet seen applied
                if applied_start is None:
                    break
                self.starts.append(applied_start)
                applied_start = None
            phase = self.script[self.index]
            if t < self.starts[self.index] + (phase.end - phase.start):
                break
            self.index += 1
            self.sent_at = t
        return self.phase

    def as_run(self) -> List[Phase]:
        """The phases with the times they were applied (a phase not begun keeps its nominal place
        after the last one).

        Returns:
            list: the :class:`Phase` list.
        """
        out, shift = [], 0.0
        for k, phase in enumerate(self.script):
            start = self.starts[k] if k < len(self.starts) else phase.start + shift
            shift = start - phase.start
            out.append(Phase(phase.name, start, start + (phase.end - phase.start), phase.wrench))
        return out
