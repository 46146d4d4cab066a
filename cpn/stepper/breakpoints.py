"""Breakpoints as the user types them (``b place Buffer len(tokens) > 3``,
``b transition Consume y == 2``), and the monitor that records every
firing and checks them.

A condition is compiled once and sees only ``tokens`` (a place's token
values) or the binding's variables, with a few harmless builtins; a
condition that fails while the net runs stops the run and is reported,
rather than ending the session.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Any, Callable

from ..inscription import free_names
from ..monitors import Breakpoint, Monitor
from ..simulator import Simulator
from ..trace import FiringRecord
from .messages import Hint
from .node_names import resolve

# Builtins a breakpoint condition may use; it sees `tokens` (place) or the
# binding's variables (transition), nothing else from the session.
_CONDITION_BUILTINS = {name: getattr(builtins, name)
                       for name in ("len", "sum", "min", "max", "any", "all", "abs",
                                    "sorted", "set", "list", "tuple", "round", "int",
                                    "float", "str", "bool", "isinstance", "getattr")}

USAGE = ("usage: b place NAME CONDITION, b transition NAME [CONDITION], "
         "b del K, b clear, or b alone to list")


@dataclass
class SessionBreakpoint:
    """A breakpoint as the user typed it, and the engine's monitor for it."""

    text: str
    monitor: Breakpoint
    watched: frozenset[int]
    error: str | None = field(default=None)


class Recorder(Monitor):
    """Records every firing and checks the session's breakpoints, so that
    breakpoints can be added and removed at any time (the simulator has no
    way to detach a monitor)."""

    transitions = None  # all

    def __init__(self):
        self.trace: list[FiringRecord] = []
        self.breakpoints: list[SessionBreakpoint] = []
        self.hit: list[SessionBreakpoint] = []

    def fired(self, sim, transition, values):
        path = sim.transitions[transition].path
        names = sim.transitions[transition].variables
        self.trace.append(FiringRecord(len(self.trace) + 1, sim.now, path,
                                       dict(zip(names, values))))
        stop = False
        for bp in self.breakpoints:
            if transition in bp.watched and bp.monitor.fired(sim, transition, values):
                self.hit.append(bp)
                stop = True
        return stop


def new_breakpoint(sim: Simulator, kind: str, rest: str) -> SessionBreakpoint:
    """The breakpoint ``b KIND REST`` asks for (KIND ``place`` or
    ``transition``, REST a node name and its condition)."""
    if kind not in ("place", "transition"):
        raise Hint(USAGE)
    if rest[:1] in ("'", '"'):  # a name with spaces, quoted
        end = rest.find(rest[0], 1)
        if end < 0:
            raise Hint(f"the {kind} name {rest.split()[0]} has no closing quote")
        name, condition = rest[1:end], rest[end + 1:]
    else:
        name, _, condition = rest.partition(" ")
    condition = condition.strip()
    if not name:
        raise Hint(f"b {kind} needs a {kind} name")
    path = resolve(sim, name, kind)
    entry = SessionBreakpoint("", None, frozenset())  # type: ignore[arg-type]
    if kind == "place":
        if not condition:
            raise Hint("a place breakpoint needs a condition on tokens, "
                       f"e.g. b place {name} len(tokens) > 3")
        holds = _condition(condition, path, ["tokens"], "a place condition sees tokens")
        monitor = Breakpoint(place=path,
                             when=guarded(entry, lambda t: holds({"tokens": t})))
    else:
        variables = sim.transitions[sim.transition_index(path)].variables
        sees = (f"a condition of {path} sees its variables: {', '.join(variables)}"
                if variables else f"{path} has no variables for a condition to see")
        holds = _condition(condition, path, variables, sees) if condition else None
        monitor = Breakpoint(transition=path,
                             when=None if holds is None else guarded(entry, holds))
    entry.text = f"{kind} {path}" + (f" when {condition}" if condition else "")
    entry.monitor = monitor
    entry.watched = frozenset(monitor.watched_transitions(sim))
    return entry


def _condition(text: str, where: str, names: list[str], sees: str) -> Callable[[dict], bool]:
    """Compile a breakpoint condition once, refusing one that reads a name
    it cannot see or a builtin it may not use (either would fail at every
    firing it watches, and stop the run at the first); a failure
    while evaluating it stops the run (and is reported) rather than
    crashing the session."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise Hint(f"cannot parse the condition {text!r}: {error.msg}") from None
    read = free_names(tree, with_builtins=True) - set(names)
    if unknown := sorted(name for name in read if not hasattr(builtins, name)):
        raise Hint(f"the condition reads {', '.join(unknown)}, which it cannot see: {sees}")
    if barred := sorted(read - _CONDITION_BUILTINS.keys()):
        raise Hint(f"the condition calls {', '.join(barred)}, which it cannot: it may use "
                   f"{', '.join(_CONDITION_BUILTINS)}")
    code = compile(tree, f"<breakpoint {where}>", "eval")

    def holds(names: dict) -> bool:
        return bool(eval(code, {"__builtins__": _CONDITION_BUILTINS}, dict(names)))

    return holds


def guarded(entry: SessionBreakpoint, holds: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """``holds``, stopping the run (True) and keeping the error for the
    user when the condition itself fails."""
    def when(argument) -> bool:
        try:
            return holds(argument)
        except Exception as error:  # noqa: BLE001 - shown to the user
            entry.error = f"{type(error).__name__}: {error}"
            return True
    return when
