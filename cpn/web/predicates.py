"""Breakpoints a page sets from a fixed form, never from text to run.

The terminal's ``b place NAME CONDITION`` compiles a Python condition the
user typed; a page must not run text a browser sent.  Here a place
breakpoint is a token count compared with a number (``len(tokens) >= 2``,
with the operator chosen from :data:`OPERATORS`), a transition breakpoint
stops after the transition fires.  Both become the stepper's own
breakpoints, listed and removed like the ones typed in a terminal.
"""

from __future__ import annotations

import operator
from typing import Any

from ..monitors import Breakpoint
from ..simulator import Simulator
from ..stepper.breakpoints import SessionBreakpoint
from .errors import SessionError

#: The comparisons a place breakpoint may make of its token count.
OPERATORS = {">=": operator.ge, ">": operator.gt, "==": operator.eq,
             "!=": operator.ne, "<=": operator.le, "<": operator.lt}


def place_breakpoint(sim: Simulator, place: Any, op: Any, count: Any) -> SessionBreakpoint:
    """Stop a run once ``place`` holds a number of tokens that compares
    with ``count`` by ``op`` (a key of :data:`OPERATORS`)."""
    path = _path(sim, place, "place", [p.path for p in sim.net.places])
    if op not in OPERATORS:
        raise SessionError(f"op: expected one of {' '.join(OPERATORS)}, not {op!r}")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise SessionError(f"count: expected a whole number of tokens, not {count!r}")
    compare = OPERATORS[op]
    monitor = Breakpoint(place=path, when=lambda tokens: compare(len(tokens), count))
    return _entry(sim, f"place {path} when len(tokens) {op} {count}", monitor)


def transition_breakpoint(sim: Simulator, transition: Any) -> SessionBreakpoint:
    """Stop a run after ``transition`` fires."""
    path = _path(sim, transition, "transition", [t.path for t in sim.net.transitions])
    return _entry(sim, f"transition {path}", Breakpoint(transition=path))


def _entry(sim: Simulator, text: str, monitor: Breakpoint) -> SessionBreakpoint:
    return SessionBreakpoint(text, monitor, frozenset(monitor.watched_transitions(sim)))


def _path(sim: Simulator, name: Any, kind: str, paths: list[str]) -> str:
    if name not in paths:
        raise SessionError(f"{kind}: no {kind} {name!r} in net {sim.net.name!r}")
    return name
