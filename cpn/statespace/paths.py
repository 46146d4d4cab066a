"""Arcs and paths of a state space: what fired when, as people and the
stepper read it.

An arc is a :class:`Firing`: a binding fired at a time, or the clock
moving on (``transition`` None).  A :class:`Path` is a firing sequence
from the initial marking, as a query's counterexample or witness: it
prints as a timeline and saves as a trace that ``cpn replay`` (and
:func:`cpn.trace.replay`) fires again.  A path that ends in a cycle (a
run that goes round for ever) says where the cycle starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any

from ..times import time_text
from ..marking import Marking
from ..trace import FiringRecord, save_trace

TIME_ADVANCE = "time advances"


@dataclass(frozen=True)
class Firing:
    """One arc: ``transition`` fired with ``values`` at ``time`` (its draws
    from the model's ``rng`` taking outcomes ``draws``, see ``cpn.draws``),
    or (when ``transition`` is None) the clock moved on to ``time``."""

    transition: str | None
    values: tuple[tuple[str, Any], ...]
    time: float
    draws: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.transition is None:
            return f"{TIME_ADVANCE} to {time_text(self.time)}"
        values = ", ".join(f"{name}={value!r}" for name, value in self.values)
        drawn = f" drawing outcomes {list(self.draws)}" if self.draws else ""
        return f"{self.transition}<{values}>{drawn}"


@dataclass
class Path:
    """States ``nodes[0] -> nodes[1] -> ...`` of a state space, joined by
    ``firings`` (one fewer), their times on the path's own clock;
    ``markings`` are the states' markings.  When ``loop_from`` is set,
    one more firing leads from the last state back to
    ``nodes[loop_from]``: the run repeats from there for ever."""

    nodes: list[int]
    firings: list[Firing]
    markings: list[Marking]
    loop_from: int | None = None

    def __len__(self) -> int:
        return len(self.firings)

    @property
    def end(self) -> Marking:
        return self.markings[-1]

    @property
    def end_time(self) -> float:
        """The clock after the last firing (or clock move) of the path."""
        return self.firings[-1].time if self.firings else self.markings[0].time

    def records(self) -> list[FiringRecord]:
        """The firings (clock moves left out) as stepper trace records."""
        fired = [firing for firing in self.firings if firing.transition is not None]
        return [FiringRecord(step, firing.time, firing.transition, dict(firing.values),
                             firing.draws) for step, firing in enumerate(fired, 1)]

    def save(self, path: str | FilePath, net: str = "") -> int:
        """Write the path as a trace for ``cpn replay NET FILE``; the clock
        ends where the path's last state is.  Returns how many firings."""
        return save_trace(self.records(), path, net=net, seed=0, end_time=self.end_time)

    def timeline(self, width: int = 100) -> str:
        """One line per arc: the clock, the step, what fired (values cut to
        ``width`` characters), and where a final cycle starts."""
        lines, step = [], 0
        for position, firing in enumerate(self.firings):
            if position == self.loop_from:
                lines.append("      -- from here the run repeats for ever --")
            if firing.transition is None:
                lines.append(f"{firing.time:>10g}         {TIME_ADVANCE}")
                continue
            step += 1
            text = str(firing)
            if len(text) > width:
                text = text[:width - 1] + "…"
            lines.append(f"{firing.time:>10g}  {step:>5}  {text}")
        if self.loop_from is not None:
            lines.append(f"      -- back to the state after step {self.cycle_start} --")
        return "\n".join(lines) if lines else "(the initial marking)"

    @property
    def cycle_start(self) -> int | None:
        """After how many firings the final cycle starts (None: no cycle)."""
        if self.loop_from is None:
            return None
        return sum(1 for firing in self.firings[:self.loop_from]
                   if firing.transition is not None)
