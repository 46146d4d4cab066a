"""What a run says when the net's own code fails: the guard, arc, delay or
monitor that raised, and the values it had.

The simulator's loop catches what a search, a firing or a monitor raises
in the try blocks it has anyway; the functions here run only then, so a
run that does not fail costs nothing more.  They read the failure's
traceback: the frame of a transition's generated search (``_cpn_search``,
see ``codegen.py``) holds the values bound so far; the line that failed,
of the search or of the firing (``_cpn_fire``, see ``firing_code.py``),
is never shown in a message (a traceback shows it: ``codegen.compiled``),
but its origin (``codegen.Origin``, recorded as the code was generated)
names the net's own text it ran: the guard's conjunct, the
arc, the code segment's line, the delay; and the first frame past the
engine's own names the monitor.
"""

from __future__ import annotations

import ast
import builtins
from types import FrameType, TracebackType
from typing import Any, Callable, Iterator

from .codegen import Origin
from .errors import BindingError, ColourError, MonitorError

#: Modules whose frames lie between the loop and a monitor it calls.
_ENGINE = ("cpn.simulator", "cpn.monitoring")


def search_failure(sim, t: int, error: Exception) -> BindingError:
    """A search of transition ``t`` raised ``error``: name the guard (the
    part of it) or the input arc that raised, and the variables bound
    when it did."""
    flat = sim.net.transitions[t]
    entry, origin = _origin(sim, t, error, "_cpn_search")
    bound = {} if entry is None else {name: entry.tb_frame.f_locals[name]
                                      for name in sim.transitions[t].variables
                                      if name in entry.tb_frame.f_locals}
    if origin is not None and origin.kind == "guard":
        part = f" (at {origin.text!r})" if origin.text != flat.guard.strip() else ""
        parts = [f"its guard {flat.guard!r}{part}"]
    elif origin is not None:
        parts = [f"its input {origin.text}"]
    else:  # the engine's own line: everything it may have evaluated
        arcs = ", ".join(f"{sim.net.places[place].path} -> {flat.path} {text!r}"
                         for place, text in flat.inputs)
        parts = ([f"its guard {flat.guard!r}"] if flat.guard else []) + (
            [f"its input arcs {arcs}" if len(flat.inputs) > 1 else f"its input arc {arcs}"]
            if arcs else [])
    values = ", ".join(f"{name}={value!r}" for name, value in bound.items())
    return BindingError(f"net '{sim.net.name}', transition '{flat.path}': evaluating "
                        f"{' or '.join(parts) or 'it'} failed"
                        f"{' with ' + values if values else ''}: {error!r}")


def firing_failure(sim, t: int, firing: str, error: Exception) -> Exception:
    """A firing (``firing``: the binding and the time) raised ``error``: a
    refused token as it is (it names the arc already), a delay that is no
    number or below 0 as the net's check of a literal delay says it,
    anything else with the code segment's line, the delay or the output
    arc that raised it."""
    if isinstance(error, ColourError):
        return error
    entry, origin = _origin(sim, t, error, "_cpn_fire")
    said = (_delay_fault(sim, t, entry, origin, error)
            or (repr(error) if origin is None else f"{_part(sim, t, origin)}: {error!r}"))
    failure = BindingError(f"net '{sim.net.name}': firing {firing} failed: {said}")
    failure.__cause__ = error
    return failure


def _origin(sim, t: int, error: Exception,
            function: str) -> tuple[TracebackType | None, Origin | None]:
    """The traceback entry of transition ``t``'s generated ``function``
    (``_cpn_search``, ``_cpn_fire``) that ``error`` passed, and the net's
    text its line runs (``codegen.Origin``; None for the engine's own)."""
    entry = next((tb for tb in _entries(error.__traceback__)
                  if tb.tb_frame.f_code.co_name == function), None)
    origins = sim.transitions[t].origins
    if entry is None or not 0 < entry.tb_lineno <= len(origins):
        return entry, None
    return entry, origins[entry.tb_lineno - 1]


def _part(sim, t: int, origin: Origin) -> str:
    """How a message names the part of transition ``t`` a line runs."""
    flat = sim.net.transitions[t]
    if origin.kind == "code":
        return f"code segment, line {origin.index} {origin.text!r}"
    if origin.kind == "delay":
        return f"delay '@+{flat.delay}'"
    output = sim.transitions[t].outputs[origin.index]
    return f"arc {flat.path} -> {sim.net.places[output.place].path} {output.text!r}"


def _delay_fault(sim, t: int, entry: TracebackType | None, origin: Origin | None,
                 error: Exception) -> str | None:
    """When the firing's own code (not a function it called) failed to add
    a delay to the clock, or to compare the sum with it, or found the sum
    before the clock: the transition's delay or the arc, with the delay's
    value; else None."""
    if origin is None or origin.kind not in ("stamp", "element", "delay"):
        return None
    late = (isinstance(error, ValueError) and entry.tb_next is not None
            and entry.tb_next.tb_frame.f_code is type(sim)._late.__code__)
    if not late and not (isinstance(error, TypeError) and entry.tb_next is None):
        return None
    delays = _delays(sim, t, origin, entry.tb_frame)
    if late:  # the one below 0, or those that may be
        below = [each for each in delays if _below_zero(each[1])]
        unknown = [where for where, value in delays if value is _UNKNOWN]
        where, value = below[0] if below else (" or ".join(
            unknown or [where for where, _ in delays]), _UNKNOWN)
    else:  # the first sum that failed
        where, value = delays[0]
    if value is not _UNKNOWN:
        return f"{where}: a delay must be a number >= 0, not {value!r}"  # as compiler.py says
    if not late:
        return f"{where}: a delay must be a number >= 0: {type(error).__name__}: {error}"
    put = entry.tb_next.tb_frame.f_locals  # what the firing told _late
    return (f"{where}: a delay must be a number >= 0: token {put['token']!r} would be "
            f"available at {put['stamp']!r}, before the clock ({put['now']!r})")


def _delays(sim, t: int, origin: Origin, frame: FrameType) -> list[tuple[str, Any]]:
    """The delays a timestamp's line adds, as a message names them, with
    their values (:func:`_evaluated`): an element's own, or the arc's and
    then the transition's."""
    flat = sim.net.transitions[t]
    if origin.kind == "element":
        return [(_part(sim, t, origin), frame.f_locals["_cpn_t"].delay)]
    own = [(f"delay '@+{flat.delay}'", _evaluated(flat.delay, frame))] if flat.delay else []
    output = None if origin.kind == "delay" else sim.transitions[t].outputs[origin.index]
    if output is None or not output.term.delay:
        return own
    return [(_part(sim, t, origin), _evaluated(output.term.delay, frame))] + own


def _below_zero(value: Any) -> bool:
    return isinstance(value, (int, float)) and not value >= 0  # nan too


_UNKNOWN = object()


def _evaluated(text: str, frame: FrameType) -> Any:
    """``text`` evaluated again where the firing evaluated it, when that
    has no effect (it calls builtins only, and draws nothing from
    ``rng``: an output arc runs once per firing); else, or if it fails
    this time, ``_UNKNOWN``."""
    try:
        tree = ast.parse(f"(\n{text}\n)", mode="eval")
    except SyntaxError:
        return _UNKNOWN
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "rng" or isinstance(node, ast.Call) and not (
                isinstance(node.func, ast.Name) and node.func.id not in frame.f_globals
                and hasattr(builtins, node.func.id)):
            return _UNKNOWN
    try:
        return eval(compile(tree, "<delay>", "eval"), frame.f_globals, dict(frame.f_locals))
    except Exception:  # noqa: BLE001 - only a message depends on it
        return _UNKNOWN


def monitor_failure(sim, error: Exception, stop_when: Callable | None,
                    last: tuple | None) -> Exception:
    """What a run raises for ``error`` from its loop: a
    :class:`MonitorError` naming the monitor (or ``stop_when``) that
    raised it and the firing (``last``) or clock move it was told of;
    ``error`` itself when no monitor raised it."""
    frame = next((tb.tb_frame for tb in _entries(error.__traceback__)
                  if tb.tb_frame.f_globals.get("__name__") not in _ENGINE), None)
    name = None if frame is None else _owner(sim, frame, stop_when)
    if name is None or isinstance(error, (BindingError, ColourError)):
        return error
    if frame.f_code.co_name == "advanced" and frame.f_code.co_argcount == 4:
        _, _, old, new = (frame.f_locals.get(arg) for arg in frame.f_code.co_varnames[:4])
        what = f"as the clock moved from {old!r} to {new!r}"
    elif last is not None:
        what = f"after the firing {sim._binding(*last)} at time {sim.now}"
    else:
        what = f"at time {sim.now}"
    failure = MonitorError(f"{name}: evaluating it {what} failed: {error!r}")
    failure.__cause__ = error
    return failure


def _owner(sim, frame: FrameType, stop_when: Callable | None) -> str | None:
    """``stop_when``, or the monitor whose code ``frame`` runs (a method,
    or a function its ``follows`` gave), as a message names it."""
    code, owner = frame.f_code, frame.f_locals.get("self")
    if stop_when is not None and (owner is stop_when or _code(stop_when) is code):
        return "stop_when"
    monitor = next((m for m in sim._monitors if m is owner), None)
    if monitor is None:
        monitor = next((m for m, functions in sim._follow_owners
                        if any(_code(function) is code for function in functions)), None)
    if monitor is None:
        return None
    named = type(monitor).__str__ is not object.__str__
    return f"monitor {monitor if named else type(monitor).__name__}"


def _code(function: Any) -> Any:
    return getattr(getattr(function, "__func__", function), "__code__", None)


def _entries(traceback: TracebackType | None) -> Iterator[TracebackType]:
    """The traceback's entries, outermost first."""
    while traceback is not None:
        yield traceback
        traceback = traceback.tb_next
