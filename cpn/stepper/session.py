"""Stepping through a net by hand, from a terminal, a notebook or a script.

The :class:`Stepper` is a command interpreter over a simulator: it reads
one command per line (fire binding 3, run to time 100, set a breakpoint,
undo, save the trace, ...) and *shows* what happened as a sequence of
:class:`Message` and :class:`Table` items, handed to a ``show`` callable.
It never reads the keyboard nor decides how things look: by default each
item is printed as plain text, and ``cpn step NET`` (``cli/terminal.py``)
renders them with colours and wrapped tables and adds line editing.  So a
test, a notebook or a file of commands can script a whole session.

Every firing, by hand or during a run, is recorded; ``save FILE`` writes
the trace as JSON lines and :func:`replay` fires it again on a fresh
simulator, stopping with the step number at the first firing that is not
enabled (the net changed, or the trace is from another net).

>>> from cpn import Net
>>> net = Net("loop")
>>> _ = net.place("P", int, initial=[0])
>>> _ = net.transition("Inc", guard="x < 2")
>>> net.arc("P", "Inc", "x"); net.arc("Inc", "P", "x + 1")
>>> shown = []
>>> stepper = Stepper(net, show=shown.append)
>>> stepper.session(["1", "1", "q"])
>>> stepper.simulator.tokens("P")
[2]
>>> print(shown[-1])
nothing is enabled at time 0, nor ever will be (a dead marking): u to undo, q to quit
"""

from __future__ import annotations

import builtins
import dataclasses
import math
import random
import shlex
import typing
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal

from ..errors import BindingError, ColourError, NetError
from ..flatten import FlatNet
from ..marking import Marking
from ..monitors import Breakpoint, Monitor
from ..net import Net
from ..simulator import Binding, Simulator, StopReason
from ..trace import FiringRecord, ReplayError, replay, save_trace

__all__ = ["Stepper", "Message", "Table", "replay", "ReplayError", "FiringRecord"]

STATUS_BINDINGS = 20

# Builtins a breakpoint condition may use; it sees `tokens` (place) or the
# binding's variables (transition), nothing else from the session.
_CONDITION_BUILTINS = {name: getattr(builtins, name)
                       for name in ("len", "sum", "min", "max", "any", "all", "abs",
                                    "sorted", "set", "list", "tuple", "round", "int",
                                    "float", "str", "bool", "isinstance", "getattr")}


#: What a message is, so a front end can style it: ``heading`` (the clock
#: line, a table's title), ``info`` (what a command did), ``hint`` (bad
#: input, starting with ``?``), ``error`` (a failure of the net),
#: ``breakpoint`` (one was hit), ``waiting`` (why nothing is enabled),
#: ``changes`` (the marking diff), ``note`` (an aside), ``command`` (an
#: echoed command line) and ``help``.
Kind = Literal["heading", "info", "hint", "error", "breakpoint", "waiting", "changes",
               "note", "command", "help"]


@dataclass(frozen=True)
class Message:
    """One line (or a few) of text the stepper shows."""

    text: str
    kind: Kind = "info"

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Table:
    """Rows of text cells under optional column headers.  Only the last
    column may be long (a binding's values, a place's tokens): a front end
    wraps it and keeps the others on one line."""

    headers: tuple[str, ...] | None
    rows: tuple[tuple[str, ...], ...]
    right_aligned: frozenset[int] = frozenset()  # column numbers, from 0

    def __str__(self) -> str:
        lines = ([self.headers] if self.headers else []) + list(self.rows)
        if not lines:
            return ""
        widths = [max(len(line[c]) for line in lines) for c in range(len(lines[0]))]
        return "\n".join(
            "  " + "  ".join(cell.rjust(width) if c in self.right_aligned
                             else cell.ljust(width)
                             for c, (cell, width) in enumerate(zip(line, widths))).rstrip()
            for line in lines)


class _Hint(Exception):
    """Bad input: shown to the user as one line, never as a traceback."""


@dataclass
class _Breakpoint:
    """A breakpoint as the user typed it, and the engine's monitor for it."""

    text: str
    monitor: Breakpoint
    watched: frozenset[int]
    error: str | None = field(default=None)


class _Recorder(Monitor):
    """Records every firing and checks the session's breakpoints, so that
    breakpoints can be added and removed at any time (the simulator has no
    way to detach a monitor)."""

    transitions = None  # all

    def __init__(self):
        self.trace: list[FiringRecord] = []
        self.breakpoints: list[_Breakpoint] = []
        self.hit: list[_Breakpoint] = []

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


def _condition(text: str, where: str) -> Callable[[dict], bool]:
    """Compile a breakpoint condition once; a failure while evaluating it
    stops the run (and is reported) rather than crashing the session."""
    try:
        code = compile(text, f"<breakpoint {where}>", "eval")
    except SyntaxError as error:
        raise _Hint(f"cannot parse the condition {text!r}: {error.msg}") from None

    def holds(names: dict) -> bool:
        return bool(eval(code, {"__builtins__": _CONDITION_BUILTINS}, dict(names)))

    return holds


_HELP = """\
Commands (one per line):
  3           fire binding number 3 of the enabled list
  r           fire one enabled binding chosen at random (seeded)
  n N         run N steps, the clock advancing by itself
  t T         run until the clock would pass time T
  a           advance the clock to the next event (when nothing is enabled now)
  l           list every enabled binding (the status shows the first 20)
  m [PLACE]   the tokens with their timestamps (value@time); PLACE's in full
  diff        toggle showing what each command changed in the marking
  u           undo the last command (one firing, a whole n or t run, an a)
  save FILE   write the firings so far as JSON lines (cpn replay NET FILE)
  b                         list the breakpoints (n and t stop at them)
  b place NAME CONDITION    stop when CONDITION on `tokens` (the place's
                            token values) holds, e.g.
                              b place {place}
  b transition NAME [COND]  stop after NAME fires (with COND on its
                            variables holding), e.g.
                              b transition {transition}
  b del K / b clear         remove breakpoint K / every breakpoint
  help        this text
  q           quit
{names}
Bad input only prints a hint; the marking is left as it was."""


def _help_text(sim: Simulator) -> str:
    """The commands, their examples naming nodes of the net being stepped
    (a help that names nodes the net lacks only misleads)."""
    net = sim.net
    counts = sim.marking.counts()
    place_paths = [p.path for p in net.places]
    transition_paths = [t.path for t in net.transitions]
    # A place that starts empty fills up as the net runs: stop once it holds two.
    place = next((p.path for p in net.places if not counts[p.path]),
                 place_paths[0] if place_paths else "NAME")
    transition = _transition_example(sim)
    nested = next((path for path in transition_paths + place_paths if "/" in path), None)
    if nested is None:
        names = "NAME is the name of a place or transition."
    else:
        names = (f"NAME is a full path ({nested}) or its last part when that is "
                 "unique.")
    return _HELP.format(place=f"{_short_name(place, place_paths)} len(tokens) >= 2",
                        transition=transition, names=names)


def _transition_example(sim: Simulator) -> str:
    """A transition and a condition on one of its variables: the first
    variable taken whole from a place of integers (``n == 2``) or of
    records with an integer field (``job.id == 2``); the first transition
    alone when no variable is such."""
    paths = [t.path for t in sim.net.transitions]
    for transition in sim.net.transitions:
        variables = sim.transitions[transition.index].variables
        for place, inscription in transition.inputs:
            variable = inscription.strip()
            if variable in variables:
                value = _integer_expression(variable, sim.net.places[place].place.colour)
                if value is not None:
                    return f"{_short_name(transition.path, paths)} {value} == 2"
    return _short_name(paths[0], paths) if paths else "NAME"


def _integer_expression(variable: str, colour: Any) -> str | None:
    """``variable`` itself, or its first integer field, if its colour says
    it is an integer (or a record with one); else None."""
    if colour is int:
        return variable
    if isinstance(colour, type) and (dataclasses.is_dataclass(colour)
                                     or hasattr(colour, "_fields")):
        try:
            fields = typing.get_type_hints(colour)
        except Exception:  # noqa: BLE001 - an annotation that does not resolve
            return None
        return next((f"{variable}.{name}" for name, kind in fields.items()
                     if kind is int), None)
    return None


def _short_name(path: str, paths: list[str]) -> str:
    """The last part of ``path`` when no other path ends with it (what the
    breakpoint commands accept), else the full path."""
    last = path.rsplit("/", 1)[-1]
    return last if sum(p.rsplit("/", 1)[-1] == last for p in paths) == 1 else path


class Stepper:
    """An interactive session over a simulator (or a net, simulated with
    ``seed``).  Call :meth:`session` with lines of commands, or
    :meth:`execute` one command at a time; :meth:`help` lists the commands.
    Everything shown goes to ``show`` (default: printed as plain text).
    """

    def __init__(self, net: Net | FlatNet | Simulator, seed: int | None = 0,
                 show: Callable[[Message | Table], None] = print,
                 run_limit: int = 1_000_000, show_diff: bool = False):
        self.simulator = net if isinstance(net, Simulator) else Simulator(net, seed=seed)
        self.show = show
        self.seed = seed if not isinstance(net, Simulator) else net.seed
        self.run_limit = run_limit
        self.show_diff = show_diff
        self.random = random.Random(self.seed)
        self.recorder = self.simulator.add_monitor(_Recorder())
        # One entry per command that can be undone: the simulator's state and
        # the trace length before it.
        self._undo: list[tuple[tuple, int]] = []
        self._help = _help_text(self.simulator)

    # -- driving -------------------------------------------------------------
    def session(self, lines: Iterable[str], echo: bool = False) -> None:
        """Show the status, then execute ``lines`` until ``q`` or their end.
        With ``echo``, each command is printed after the prompt (for
        scripted sessions, so the output reads like a terminal)."""
        self.show_status()
        for line in lines:
            if echo:
                self._say(self.prompt() + line.rstrip("\n"), "command")
            if not self.execute(line):
                break

    def prompt(self) -> str:
        """What to show before reading a command: the clock and step."""
        return f"[t={self.simulator.now:g} step {self.simulator.steps}]> "

    def help(self) -> str:
        """The commands, with examples naming this net's places and transitions."""
        return self._help

    @property
    def trace(self) -> list[FiringRecord]:
        return list(self.recorder.trace)

    def execute(self, line: str) -> bool:
        """Run one command; False once the user quits.  Bad input and
        failures of the net are reported in one line, never raised."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        try:
            return self._dispatch(line)
        except _Hint as hint:
            self._say(f"? {hint}", "hint")
        except (BindingError, ColourError, NetError) as error:
            self._say(f"error: {error}", "error")
        except Exception as error:  # noqa: BLE001 - a session must survive anything
            self._say(f"error: {type(error).__name__}: {error}", "error")
        except KeyboardInterrupt:
            self._say("interrupted: the command was undone", "error")
        return True

    def _say(self, text: str, kind: Kind = "info") -> None:
        self.show(Message(text, kind))

    def _dispatch(self, line: str) -> bool:
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        command = word.lower()
        if command.isdigit():
            self._fire_number(int(command), rest)
        elif command in ("q", "quit", "exit"):
            return False
        elif command in ("h", "help", "?"):
            self._say(self._help, "help")
        elif command == "r":
            self._no_argument(command, rest)
            self._fire_random()
        elif command == "n":
            self._run_steps(rest)
        elif command == "t":
            self._run_until(rest)
        elif command == "a":
            self._no_argument(command, rest)
            self._advance()
        elif command == "u":
            self._no_argument(command, rest)
            self._undo_last()
        elif command == "l":
            self._show_bindings(limit=None)
        elif command == "m":
            self.show_marking(rest or None)
        elif command == "diff":
            self.show_diff = not self.show_diff
            self._say(f"marking diff after each command: "
                      f"{'on' if self.show_diff else 'off'}")
        elif command == "b":
            self._breakpoint(rest)
        elif command == "save":
            self._save(rest)
        else:
            raise _Hint(f"unknown command {word!r}; type help for the commands")
        return True

    @staticmethod
    def _no_argument(command: str, rest: str) -> None:
        if rest:
            raise _Hint(f"'{command}' takes no argument; type help for the commands")

    # -- commands that change the marking -----------------------------------
    def _change(self, action: Callable[[], str | None]) -> None:
        """Run ``action`` as one undoable command; on a failure of the net,
        go back to before it so the session stays usable."""
        sim = self.simulator
        before = sim.marking if self.show_diff else None
        state, trace_length = sim.checkpoint(), len(self.recorder.trace)
        self.recorder.hit.clear()
        try:
            message = action()
        except BaseException:  # a failure of the net, or Ctrl-C during a long run
            sim.restore(state)
            del self.recorder.trace[trace_length:]
            raise
        self._undo.append((state, trace_length))
        if message:
            self._say(message)
        for bp in self.recorder.hit:
            self._say(f"breakpoint hit: {bp.text}", "breakpoint")
            if bp.error:
                self._say(f"  (its condition failed: {bp.error})", "error")
                bp.error = None
        if before is not None:
            self._show_diff(before, sim.marking)
        self.show_status()

    def _fire_number(self, number: int, rest: str) -> None:
        if rest:
            raise _Hint("to fire a binding, type its number alone (e.g. 2)")
        bindings = self._current_bindings()
        if not bindings:
            raise _Hint(self._why_nothing_enabled())
        if not 1 <= number <= len(bindings):
            raise _Hint(f"no binding {number}: choose 1..{len(bindings)} "
                        "(l lists them all)")
        binding = bindings[number - 1]
        self._change(lambda: self._fire(binding))

    def _fire_random(self) -> None:
        bindings = self._current_bindings()
        if not bindings:
            raise _Hint(self._why_nothing_enabled())
        binding = self.random.choice(bindings)
        self._change(lambda: self._fire(binding))

    def _fire(self, binding: Binding) -> str:
        self.simulator.fire(binding)
        return f"fired {binding} at time {self.simulator.now:g}"

    def _run_steps(self, rest: str) -> None:
        try:
            count = int(rest)
        except ValueError:
            raise _Hint("n takes a number of steps, e.g. n 10") from None
        if count < 1:
            raise _Hint("n takes a positive number of steps, e.g. n 10")
        self._change(lambda: self._run(max_steps=count))

    def _run_until(self, rest: str) -> None:
        try:
            until = float(rest)
        except ValueError:
            raise _Hint("t takes a time, e.g. t 100") from None
        if math.isnan(until):
            raise _Hint("t takes a time, e.g. t 100")
        if until < self.simulator.now:
            raise _Hint(f"time {until:g} is in the past (the clock is at "
                        f"{self.simulator.now:g})")
        self._change(lambda: self._run(until_time=until, max_steps=self.run_limit))

    def _run(self, until_time: float | None = None, max_steps: int | None = None) -> str:
        sim = self.simulator
        start = sim.steps
        result = sim.run(until_time=until_time, max_steps=max_steps)
        fired = result.steps - start
        reason = {
            StopReason.STEPS: (f"; stopped at the limit of {max_steps} steps before "
                               f"time {until_time:g}" if until_time is not None else ""),
            StopReason.BREAKPOINT: "; stopped at a breakpoint",
            StopReason.DEAD: "; the marking is dead: nothing enabled now or later",
        }.get(result.reason, "")
        return (f"fired {fired} step{'s' if fired != 1 else ''}{reason}; "
                f"time {result.time:g}")

    def _advance(self) -> None:
        sim = self.simulator
        if self._current_bindings():
            raise _Hint("bindings are enabled now: fire one (or use n/t to run on)")
        following = sim.next_event_time()
        if following is None:
            raise _Hint(self._why_nothing_enabled())

        def advance() -> str:
            sim.advance()
            return f"clock advanced to {sim.now:g}"

        self._change(advance)

    def _undo_last(self) -> None:
        if not self._undo:
            raise _Hint("nothing to undo")
        state, trace_length = self._undo.pop()
        self.simulator.restore(state)
        del self.recorder.trace[trace_length:]
        self._say(f"undone; back at time {self.simulator.now:g}, "
                  f"step {self.simulator.steps}")
        self.show_status()

    # -- breakpoints ---------------------------------------------------------
    def _resolve(self, name: str, kind: str) -> str:
        """A full path, or a last path component that names one node."""
        sim = self.simulator
        paths = ([p.path for p in sim.net.places] if kind == "place"
                 else [t.path for t in sim.net.transitions])
        if name in paths:
            return name
        matches = [p for p in paths if p.rsplit("/", 1)[-1] == name]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise _Hint(f"{kind} {name!r} is ambiguous: {', '.join(matches)}")
        shown = ", ".join(paths[:12]) + (" …" if len(paths) > 12 else "")
        raise _Hint(f"no {kind} {name!r} (known: {shown})")

    def _breakpoint(self, rest: str) -> None:
        recorder = self.recorder
        if not rest:
            if not recorder.breakpoints:
                self._say("no breakpoints")
            for k, bp in enumerate(recorder.breakpoints, 1):
                self._say(f"  {k}  {bp.text}")
            return
        kind, _, rest = rest.partition(" ")
        rest = rest.strip()
        if kind == "clear":
            recorder.breakpoints.clear()
            self._say("breakpoints cleared")
            return
        if kind == "del":
            try:
                removed = recorder.breakpoints.pop(int(rest) - 1)
            except (ValueError, IndexError):
                raise _Hint(f"b del takes a breakpoint number from 1 to "
                            f"{len(recorder.breakpoints)}") from None
            self._say(f"removed breakpoint: {removed.text}")
            return
        if kind not in ("place", "transition"):
            raise _Hint("usage: b place NAME CONDITION, b transition NAME [CONDITION], "
                        "b del K, b clear, or b alone to list")
        name, _, condition = rest.partition(" ")
        condition = condition.strip()
        if not name:
            raise _Hint(f"b {kind} needs a {kind} name")
        path = self._resolve(name, kind)
        entry = _Breakpoint("", None, frozenset())  # type: ignore[arg-type]
        if kind == "place":
            if not condition:
                raise _Hint("a place breakpoint needs a condition on tokens, "
                            f"e.g. b place {name} len(tokens) > 3")
            holds = _condition(condition, path)
            monitor = Breakpoint(place=path,
                                 when=self._guarded(entry, lambda t: holds({"tokens": t})))
        else:
            holds = _condition(condition, path) if condition else None
            monitor = Breakpoint(transition=path,
                                 when=None if holds is None else self._guarded(entry, holds))
        entry.text = f"{kind} {path}" + (f" when {condition}" if condition else "")
        entry.monitor = monitor
        entry.watched = frozenset(monitor.watched_transitions(self.simulator))
        recorder.breakpoints.append(entry)
        self._say(f"breakpoint {len(recorder.breakpoints)}: {entry.text}")

    @staticmethod
    def _guarded(entry: _Breakpoint, holds: Callable[[Any], bool]) -> Callable[[Any], bool]:
        def when(argument) -> bool:
            try:
                return holds(argument)
            except Exception as error:  # noqa: BLE001 - shown to the user
                entry.error = f"{type(error).__name__}: {error}"
                return True
        return when

    # -- showing -------------------------------------------------------------
    def _current_bindings(self) -> list[Binding]:
        return self.simulator.enabled()

    def _why_nothing_enabled(self) -> str:
        sim = self.simulator
        following = sim.next_event_time()
        if following is None:
            return (f"nothing is enabled at time {sim.now:g}, nor ever will be "
                    "(a dead marking): u to undo, q to quit")
        return (f"nothing is enabled at time {sim.now:g}; the next event is at time "
                f"{following:g}: type a to advance the clock")

    def show_status(self) -> None:
        """The clock, the token count of each place, the enabled bindings."""
        sim = self.simulator
        self._say(f"time {sim.now:g}   step {sim.steps}   net {sim.net.name}", "heading")
        counts = sim.marking.counts()
        self.show(Table(("place", "tokens", "colour"),
                        tuple((place.path, str(counts[place.path]),
                               place.place.colour_name + (" (timed)" if place.timed else ""))
                              for place in sim.net.places),
                        right_aligned=frozenset({1})))
        try:
            self._show_bindings(limit=STATUS_BINDINGS)
        except BindingError as error:
            self._say(f"error: {error}", "error")

    def _show_bindings(self, limit: int | None) -> None:
        bindings = self._current_bindings()
        if not bindings:
            self._say(self._why_nothing_enabled(), "waiting")
            return
        self._say(f"enabled ({len(bindings)}):", "heading")
        shown = bindings if limit is None else bindings[:limit]
        self.show(Table(None, tuple(
            (str(number), binding.transition,
             ", ".join(f"{k}={v!r}" for k, v in binding.values.items()))
            for number, binding in enumerate(shown, 1)), right_aligned=frozenset({0})))
        if len(bindings) > len(shown):
            self._say(f"  … and {len(bindings) - len(shown)} more (l lists them all)",
                      "note")

    def show_marking(self, name: str | None = None) -> None:
        """The tokens with their timestamps, of every place or (in full) of
        the place ``name``."""
        marking = self.simulator.marking
        paths = [self._resolve(name, "place")] if name else list(marking)
        self._say(f"marking at time {marking.time:g} (count`value@timestamp)", "heading")
        self.show(Table(("place", "tokens", "multiset"), tuple(
            (path, str(len(marking.timed(path))),
             Marking.format_tokens(marking.timed(path), limit=10**9 if name else 12))
            for path in paths), right_aligned=frozenset({1})))

    def _show_diff(self, before: Marking, after: Marking) -> None:
        lines = []
        for path in after:
            old = Counter((repr(v), s) for v, s in before.timed(path))
            new = Counter((repr(v), s) for v, s in after.timed(path))
            removed, added = old - new, new - old
            if not removed and not added:
                continue
            parts = [f"-{n}`{v}" + ("" if s is None else f"@{s:g}")
                     for (v, s), n in removed.items()]
            parts += [f"+{n}`{v}" + ("" if s is None else f"@{s:g}")
                      for (v, s), n in added.items()]
            lines.append(f"  {path}: {' '.join(parts)}")
        self._say("changes:\n" + "\n".join(lines) if lines else "changes: none", "changes")

    # -- the trace -----------------------------------------------------------
    def _save(self, rest: str) -> None:
        if not rest:
            raise _Hint("save takes a file name, e.g. save run.jsonl")
        try:
            (name,) = shlex.split(rest)
        except ValueError:
            raise _Hint("save takes one file name (quote it if it has spaces)") from None
        try:
            count = save_trace(self.recorder.trace, name, net=self.simulator.net.name,
                               seed=self.seed, end_time=self.simulator.now)
        except OSError as error:
            raise _Hint(f"cannot write {name}: {error.strerror or error}") from None
        self._say(f"saved {count} firing{'' if count == 1 else 's'} to {name}")
