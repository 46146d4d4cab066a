"""Stepping through a net by hand, in a terminal or from a script.

The :class:`Stepper` shows the clock, the marking and the numbered enabled
bindings, and reads one command per line.  It never reads the keyboard
itself: it is driven by any iterable of lines and writes to a ``rich``
console, so a test (or a file of commands) can script a whole session, and
``cpn step NET`` (``cli/step.py``) only adds line editing on top.

Every firing, by hand or during a run, is recorded; ``save FILE`` writes
the trace as JSON lines and :func:`replay` fires it again on a fresh
simulator, stopping with the step number at the first firing that is not
enabled (the net changed, or the trace is from another net).

>>> import io
>>> from rich.console import Console
>>> from cpn import Net
>>> net = Net("loop")
>>> _ = net.place("P", int, initial=[0])
>>> _ = net.transition("Inc", guard="x < 2")
>>> net.arc("P", "Inc", "x"); net.arc("Inc", "P", "x + 1")
>>> out = io.StringIO()
>>> stepper = Stepper(net, console=Console(file=out, width=100))
>>> stepper.session(["1", "1", "q"])
>>> stepper.simulator.tokens("P")
[2]
"""

from __future__ import annotations

import builtins
import math
import random
import shlex
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .errors import BindingError, ColourError, NetError
from .flatten import FlatNet
from .marking import Marking
from .monitors import Breakpoint, Monitor
from .net import Net
from .simulator import Binding, Simulator, StopReason
from .trace import FiringRecord, ReplayError, replay, save_trace

__all__ = ["Stepper", "replay", "ReplayError", "FiringRecord", "HELP"]

HELP = """\
Commands (one per line):
  3           fire binding number 3 of the enabled list
  r           fire one enabled binding chosen at random (seeded)
  n N         run N steps, the clock advancing by itself
  t T         run until the clock would pass time T
  a           advance the clock to the next event (when nothing is enabled now)
  l           list every enabled binding (the status shows the first 20)
  m [PLACE]   the tokens with their timestamps (value@time), or one place's
  diff        toggle showing what each command changed in the marking
  u           undo the last command (one firing, a whole n or t run, an a)
  save FILE   write the firings so far as JSON lines (cpn replay NET FILE)
  b                         list the breakpoints (n and t stop at them)
  b place NAME CONDITION    stop when CONDITION on `tokens` (the place's
                            token values) holds: b place Queue len(tokens) > 3
  b transition NAME [COND]  stop after NAME fires (with COND on its
                            variables holding): b transition Start job.js > 4
  b del K / b clear         remove breakpoint K / every breakpoint
  help        this text
  q           quit
NAME is a full path (Scheduler/User) or its last part when that is unique.
Bad input only prints a hint; the marking is left as it was."""

STATUS_BINDINGS = 20

# Builtins a breakpoint condition may use; it sees `tokens` (place) or the
# binding's variables (transition), nothing else from the session.
_CONDITION_BUILTINS = {name: getattr(builtins, name)
                       for name in ("len", "sum", "min", "max", "any", "all", "abs",
                                    "sorted", "set", "list", "tuple", "round", "int",
                                    "float", "str", "bool", "isinstance", "getattr")}


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


class Stepper:
    """An interactive session over a simulator (or a net, simulated with
    ``seed``).  Call :meth:`session` with lines of commands, or
    :meth:`execute` one command at a time; see ``HELP`` for the commands.
    """

    def __init__(self, net: Net | FlatNet | Simulator, seed: int | None = 0,
                 console: Console | None = None, run_limit: int = 1_000_000,
                 show_diff: bool = False):
        self.simulator = net if isinstance(net, Simulator) else Simulator(net, seed=seed)
        self.console = console or Console(highlight=False)
        self.seed = seed if not isinstance(net, Simulator) else net.seed
        self.run_limit = run_limit
        self.show_diff = show_diff
        self.random = random.Random(self.seed)
        self.recorder = self.simulator.add_monitor(_Recorder())
        # One entry per command that can be undone: the simulator's state and
        # the trace length before it.
        self._undo: list[tuple[tuple, int]] = []
        self.finished = False

    # -- driving -------------------------------------------------------------
    def session(self, lines: Iterable[str], echo: bool = False) -> None:
        """Show the status, then execute ``lines`` until ``q`` or their end.
        With ``echo``, each command is printed after the prompt (for
        scripted sessions, so the output reads like a terminal)."""
        self.show_status()
        for line in lines:
            if echo:
                self.console.print(Text(self.prompt() + line.rstrip("\n")))
            if not self.execute(line):
                break

    def interact(self) -> None:
        """A terminal session: line editing and history with
        ``prompt_toolkit`` when the input is a terminal, plain lines otherwise."""
        self.session(_terminal_lines(self))

    def prompt(self) -> str:
        return f"[t={self.simulator.now:g} step {self.simulator.steps}]> "

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
            self.console.print(Text(f"? {hint}", style="yellow"))
        except (BindingError, ColourError, NetError) as error:
            self.console.print(Text(f"error: {error}", style="red"))
        except Exception as error:  # noqa: BLE001 - a session must survive anything
            self.console.print(Text(f"error: {type(error).__name__}: {error}", style="red"))
        except KeyboardInterrupt:
            self.console.print(Text("interrupted: the command was undone", style="red"))
        return True

    def _dispatch(self, line: str) -> bool:
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        command = word.lower()
        if command.isdigit():
            self._fire_number(int(command), rest)
        elif command in ("q", "quit", "exit"):
            self.finished = True
            return False
        elif command in ("h", "help", "?"):
            self.console.print(Text(HELP))
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
            self._show_timed_marking(rest or None)
        elif command == "diff":
            self.show_diff = not self.show_diff
            self.console.print(f"marking diff after each command: "
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
            self.console.print(Text(message))
        for bp in self.recorder.hit:
            self.console.print(Text(f"breakpoint hit: {bp.text}", style="magenta"))
            if bp.error:
                self.console.print(Text(f"  (its condition failed: {bp.error})",
                                        style="red"))
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
        self.console.print(Text(f"undone; back at time {self.simulator.now:g}, "
                                f"step {self.simulator.steps}"))
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
                self.console.print("no breakpoints")
            for k, bp in enumerate(recorder.breakpoints, 1):
                self.console.print(Text(f"  {k}  {bp.text}"))
            return
        kind, _, rest = rest.partition(" ")
        rest = rest.strip()
        if kind == "clear":
            recorder.breakpoints.clear()
            self.console.print("breakpoints cleared")
            return
        if kind == "del":
            try:
                removed = recorder.breakpoints.pop(int(rest) - 1)
            except (ValueError, IndexError):
                raise _Hint(f"b del takes a breakpoint number from 1 to "
                            f"{len(recorder.breakpoints)}") from None
            self.console.print(Text(f"removed breakpoint: {removed.text}"))
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
        self.console.print(Text(f"breakpoint {len(recorder.breakpoints)}: {entry.text}"))

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
        console = self.console
        console.print(Text(f"time {sim.now:g}   step {sim.steps}   net {sim.net.name}",
                           style="bold"))
        table = Table(box=None, padding=(0, 2), show_header=True, header_style="dim")
        table.add_column("place")
        table.add_column("tokens", justify="right")
        table.add_column("colour", style="dim")
        counts = sim.marking.counts()
        for place in sim.net.places:
            table.add_row(place.path, str(counts[place.path]),
                          place.place.colour_name + (" (timed)" if place.timed else ""))
        console.print(table)
        try:
            self._show_bindings(limit=STATUS_BINDINGS)
        except BindingError as error:
            console.print(Text(f"error: {error}", style="red"))

    def _show_bindings(self, limit: int | None) -> None:
        bindings = self._current_bindings()
        if not bindings:
            self.console.print(Text(self._why_nothing_enabled(), style="cyan"))
            return
        self.console.print(Text(f"enabled ({len(bindings)}):", style="bold"))
        shown = bindings if limit is None else bindings[:limit]
        for number, binding in enumerate(shown, 1):
            values = ", ".join(f"{k}={v!r}" for k, v in binding.values.items())
            self.console.print(Text(f"  {number:>3}  {binding.transition}"
                                    + (f"  {values}" if values else "")))
        if len(bindings) > len(shown):
            self.console.print(Text(f"  … and {len(bindings) - len(shown)} more "
                                    "(l lists them all)", style="dim"))

    def _show_timed_marking(self, name: str | None) -> None:
        marking = self.simulator.marking
        paths = [self._resolve(name, "place")] if name else list(marking)
        self.console.print(Text(f"marking at time {marking.time:g} "
                                "(count`value@timestamp)", style="bold"))
        table = Table(box=None, padding=(0, 2), show_header=True, header_style="dim")
        table.add_column("place", no_wrap=True)
        table.add_column("tokens", justify="right")
        table.add_column("multiset", overflow="fold")
        for path in paths:
            tokens = marking.timed(path)
            table.add_row(path, str(len(tokens)),
                          Marking.format_tokens(tokens, limit=10**9 if name else 12))
        self.console.print(table)

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
        self.console.print(Text("changes:\n" + "\n".join(lines) if lines
                                else "changes: none", style="green"))

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
        self.console.print(f"saved {count} firing{'' if count == 1 else 's'} to {name}")


def _terminal_lines(stepper: Stepper) -> Iterable[str]:
    """Lines typed by the user, each read after the previous one ran (so the
    prompt shows the current clock); ends on end of input or Ctrl-C."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        from prompt_toolkit import PromptSession

        session: PromptSession = PromptSession()
        read = session.prompt
    else:
        def read(prompt: str) -> str:
            stepper.console.print(Text(prompt), end="")
            return input()
    while not stepper.finished:
        try:
            yield read(stepper.prompt())
        except (EOFError, KeyboardInterrupt):
            stepper.console.print()
            return
