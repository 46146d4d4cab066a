"""Breakpoints a page sets from a fixed form, never from text to run.

The terminal's ``b place NAME CONDITION`` compiles a Python condition the
user typed; a page must not run text a browser sent.  Here a place
breakpoint is a token count compared with a number (``len(tokens) >= 2``,
with the operator chosen from :data:`OPERATORS`), or a predicate the net
file defines, chosen by its name (*named*: name -> place path and a
function of its token values); a transition breakpoint stops after the
transition fires.  All become the stepper's own breakpoints, listed and
removed like the ones typed in a terminal.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Mapping

from ..monitors import Breakpoint
from ..simulator import Simulator
from ..stepper.breakpoints import SessionBreakpoint, guarded
from . import fields
from .errors import SessionError

#: The comparisons a place breakpoint may make of its token count.
OPERATORS = {">=": operator.ge, ">": operator.gt, "==": operator.eq,
             "!=": operator.ne, "<=": operator.le, "<": operator.lt}


def place_breakpoint(sim: Simulator, place: Any, op: Any, count: Any) -> SessionBreakpoint:
    """Stop a run once ``place`` holds a number of tokens that compares
    with ``count`` by ``op`` (a key of :data:`OPERATORS`)."""
    path = sim.net.place_path(_path(sim, place, "place", sim.net.place_names()))
    if not isinstance(op, str) or op not in OPERATORS:
        raise SessionError(f"op: expected one of {' '.join(OPERATORS)}, "
                           f"not {fields.shown(op)}")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise SessionError(f"count: expected a whole number of tokens, "
                           f"not {fields.shown(count)}")
    compare = OPERATORS[op]
    monitor = Breakpoint(place=path, when=lambda tokens: compare(len(tokens), count))
    return _entry(sim, f"place {path} when len(tokens) {op} {count}", monitor)


def check_named(sim: Simulator, named: Mapping[str, tuple[str, Callable]]) -> None:
    """Refuse named predicates on places the net does not have (by any
    name ``Simulator.tokens`` takes)."""
    paths = sim.net.place_names()
    for name, (place, _) in named.items():
        if place not in paths:
            raise SessionError(f"BREAKPOINTS[{name!r}]: no place {place!r} in net "
                               f"{sim.net.name!r}")


def named_breakpoint(sim: Simulator, name: Any,
                     named: Mapping[str, tuple[str, Callable]]) -> SessionBreakpoint:
    """Stop a run once the predicate the net file calls ``name`` holds of
    its place's token values (a predicate that fails stops it too, and
    says why)."""
    if fields.name(name, "name", "the name of a breakpoint of the net file") not in named:
        known = ", ".join(map(repr, named)) or "none"
        raise SessionError(f"name: no breakpoint {fields.shown(name)} in the net file "
                           f"(it has: {known})")
    place, holds = named[name]
    entry = SessionBreakpoint(f"place {place} when {name}", None,  # type: ignore[arg-type]
                              frozenset())
    entry.monitor = Breakpoint(place=place, when=guarded(entry, holds))
    entry.watched = frozenset(entry.monitor.watched_transitions(sim))
    return entry


def transition_breakpoint(sim: Simulator, transition: Any) -> SessionBreakpoint:
    """Stop a run after ``transition`` fires."""
    path = _path(sim, transition, "transition", [t.path for t in sim.net.transitions])
    return _entry(sim, f"transition {path}", Breakpoint(transition=path))


def _entry(sim: Simulator, text: str, monitor: Breakpoint) -> SessionBreakpoint:
    return SessionBreakpoint(text, monitor, frozenset(monitor.watched_transitions(sim)))


def _path(sim: Simulator, name: Any, kind: str, paths: list[str]) -> str:
    if fields.name(name, kind, f"a {kind}'s name") not in paths:
        raise SessionError(f"{kind}: no {kind} {fields.shown(name)} in net {sim.net.name!r}")
    return name
