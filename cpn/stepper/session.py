"""The :class:`Stepper`: a command interpreter over a simulator.

It parses one command per line, fires or runs the net, keeps what undo
needs (the simulator's state before each command) and shows what happened
through ``show``.  Breakpoints, the help text and the views of the state
it shows live beside it in this package.
"""

from __future__ import annotations

import math
import os
import random
import shlex
import threading
from typing import Callable, Iterable

from ..errors import BindingError, ColourError, MonitorError, NetError
from ..flatten import FlatNet
from ..interrupts import ctrl_c_requests
from ..net import Net
from ..simulator import Binding, Simulator, StopReason
from ..times import time_text
from ..trace import FiringRecord, save_trace
from .breakpoints import Recorder, new_breakpoint
from .help import Help
from .messages import Hint, Kind, Message, Table
from .node_names import resolve
from .views import (bindings_table, marking_changes, marking_table, places_table,
                    why_nothing_enabled)

#: How many enabled bindings the status lists (``l`` lists them all).
STATUS_BINDINGS = 20


class Stepper:
    """An interactive session over a simulator (or a net, simulated with
    ``seed``).  Call :meth:`session` with lines of commands, or
    :meth:`execute` one command at a time; :meth:`help` lists the commands.
    Everything shown goes to ``show`` (default: printed as plain text);
    ``width`` says how wide the screen is when the help is shown.
    """

    def __init__(self, net: Net | FlatNet | Simulator, seed: int | None = 0,
                 show: Callable[[Message | Table], None] = print,
                 run_limit: int = 1_000_000, show_diff: bool = False,
                 width: Callable[[], int] = lambda: 80):
        self.simulator = net if isinstance(net, Simulator) else Simulator(net, seed=seed)
        self.show = show
        self.seed = seed if not isinstance(net, Simulator) else net.seed
        self.run_limit = run_limit
        self.show_diff = show_diff
        self.random = random.Random(self.seed)
        self.recorder = self.simulator.add_monitor(Recorder())
        # One entry per command that can be undone: the simulator's state and
        # the trace length before it.
        self._undo: list[tuple[tuple, int]] = []
        # One entry per undone command, until a new command: the state it
        # reached and the firings it recorded.
        self._redo: list[tuple[tuple, list[FiringRecord]]] = []
        self._stop = threading.Event()
        self.width = width  # of the screen, read when the help is shown
        self._help = Help(self.simulator)

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
        return f"[t={time_text(self.simulator.now)} step {self.simulator.steps}]> "

    def help(self, width: int = 80) -> str:
        """The commands, with examples naming this net's places and
        transitions, laid out in ``width`` columns."""
        return self._help.text(width)

    @property
    def trace(self) -> list[FiringRecord]:
        return list(self.recorder.trace)

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def execute(self, line: str) -> bool:
        """Run one command; False once the user quits.  Bad input and
        failures of the net are reported in one line, never raised."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        try:
            return self._dispatch(line)
        except Hint as hint:
            self._say(f"? {hint}", "hint")
        except (BindingError, ColourError, MonitorError, NetError) as error:
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
            self._say(self._help.text(self.width()), "help")
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
        elif command in ("u", "undo"):
            self._no_argument(command, rest)
            self._undo_last()
        elif command == "redo":
            self._no_argument(command, rest)
            self._redo_last()
        elif command == "l":
            self._no_argument(command, rest)
            self._show_bindings(limit=None)
        elif command == "m":
            self.show_marking(rest or None)
        elif command == "diff":
            self._no_argument(command, rest)
            self.show_diff = not self.show_diff
            self._say(f"marking diff after each command: "
                      f"{'on' if self.show_diff else 'off'}")
        elif command == "b":
            self._breakpoint(rest)
        elif command == "save":
            self._save(rest)
        else:
            raise Hint(f"unknown command {word!r}; type help for the commands")
        return True

    @staticmethod
    def _no_argument(command: str, rest: str) -> None:
        if rest:
            raise Hint(f"'{command}' takes no argument; type help for the commands")

    # -- commands that change the marking -----------------------------------
    def _change(self, action: Callable[[], str | None]) -> None:
        """Run ``action`` as one undoable command (unless it fired nothing
        and left the clock: an undo would seem to do nothing); on a failure
        of the net, go back to before it so the session stays usable."""
        sim = self.simulator
        before = sim.marking if self.show_diff else None
        state, trace_length = sim.checkpoint(), len(self.recorder.trace)
        where = (sim.steps, sim.now)
        self.recorder.hit.clear()
        try:
            message = action()
        except BaseException:  # a failure of the net, or Ctrl-C during a long run
            sim.restore(state)
            del self.recorder.trace[trace_length:]
            raise
        if (sim.steps, sim.now) != where:
            self._undo.append((state, trace_length))
            self._redo.clear()
        if message:
            self._say(message)
        for bp in self.recorder.hit:
            if bp.error:  # not a hit: the run stopped where the condition failed
                self._say(f"breakpoint {bp.text}: its condition failed ({bp.error}); "
                          "the run stopped there", "error")
                bp.error = None
            else:
                self._say(f"breakpoint hit: {bp.text}", "breakpoint")
        if before is not None:
            self._say(marking_changes(before, sim.marking), "changes")
        self.show_status()

    def _fire_number(self, number: int, rest: str) -> None:
        if rest:
            raise Hint("to fire a binding, type its number alone (e.g. 2)")
        bindings = self._current_bindings()
        if not bindings:
            raise Hint(why_nothing_enabled(self.simulator))
        if not 1 <= number <= len(bindings):
            raise Hint(f"no binding {number}: choose 1..{len(bindings)} "
                        "(l lists them all)")
        binding = bindings[number - 1]
        self._change(lambda: self._fire(binding))

    def _fire_random(self) -> None:
        bindings = self._current_bindings()
        if not bindings:
            raise Hint(why_nothing_enabled(self.simulator))
        binding = self.random.choice(bindings)
        self._change(lambda: self._fire(binding))

    def _fire(self, binding: Binding) -> str:
        self.simulator.fire(binding)
        return f"fired {binding} at time {time_text(self.simulator.now)}"

    def _run_steps(self, rest: str) -> None:
        try:
            count = int(rest)
        except ValueError:
            raise Hint("n takes a number of steps, e.g. n 10") from None
        if count < 1:
            raise Hint("n takes a positive number of steps, e.g. n 10")
        self._change(lambda: self._run(max_steps=count))

    def _run_until(self, rest: str) -> None:
        try:
            until = float(rest)
        except ValueError:
            raise Hint("t takes a time, e.g. t 100") from None
        if math.isnan(until):
            raise Hint("t takes a time, e.g. t 100")
        if until < self.simulator.now:
            raise Hint(f"time {time_text(until)} is in the past (the clock is at "
                        f"{time_text(self.simulator.now)})")
        self._change(lambda: self._run(until_time=until, max_steps=self.run_limit))

    def _run(self, until_time: float | None = None, max_steps: int | None = None) -> str:
        sim = self.simulator
        start = sim.steps
        self._stop.clear()  # a stop asked for before this run was for none
        try:  # Ctrl-C stops the run between firings, keeping them; a second abandons it
            with ctrl_c_requests(second_interrupts=True) as ctrl_c:
                result = sim.run(until_time=until_time, max_steps=max_steps,
                                 stop_when=lambda _: self._stop.is_set() or ctrl_c())
        finally:
            self._stop.clear()
        fired = result.steps - start
        reason = {
            StopReason.STEPS: (f"; stopped at the limit of {max_steps} steps before "
                               f"time {time_text(until_time)}" if until_time is not None else ""),
            StopReason.BREAKPOINT: "; stopped at a breakpoint",
            StopReason.PREDICATE: "; stopped on request (Ctrl-C or Stop)",
            StopReason.DEAD: "; the marking is dead: nothing enabled now or later",
        }.get(result.reason, "")
        return (f"fired {fired} step{'s' if fired != 1 else ''}{reason}; "
                f"time {time_text(result.time)}")

    def _advance(self) -> None:
        sim = self.simulator
        if self._current_bindings():
            raise Hint("bindings are enabled now: fire one (or use n/t to run on)")
        following = sim.next_event_time()
        if following is None:
            raise Hint(why_nothing_enabled(self.simulator))

        def advance() -> str:
            sim.advance()
            return f"clock advanced to {time_text(sim.now)}"

        self._change(advance)

    def stop(self) -> None:
        """Ask the run in progress (``n``, ``t``) to stop after its current
        firing; it keeps what it fired.  Safe to call from another thread
        (a browser's or a notebook's Stop button)."""
        self._stop.set()

    def _undo_last(self) -> None:
        if not self._undo:
            raise Hint("nothing to undo")
        sim, trace = self.simulator, self.recorder.trace
        state, trace_length = self._undo.pop()
        self._redo.append((sim.checkpoint(), trace[trace_length:]))
        sim.restore(state)
        del trace[trace_length:]
        self._say(f"undone; back at time {time_text(sim.now)}, step {sim.steps}")
        self.show_status()

    def _redo_last(self) -> None:
        if not self._redo:
            raise Hint("nothing to redo")
        sim, trace = self.simulator, self.recorder.trace
        state, firings = self._redo.pop()
        self._undo.append((sim.checkpoint(), len(trace)))
        sim.restore(state)
        trace.extend(firings)
        self._say(f"redone; forward to time {time_text(sim.now)}, step {sim.steps}")
        self.show_status()

    # -- breakpoints ---------------------------------------------------------
    def _breakpoint(self, rest: str) -> None:
        """``b`` alone lists the breakpoints; ``b clear``, ``b del K`` remove
        them; ``b place ...`` and ``b transition ...`` add one."""
        breakpoints = self.recorder.breakpoints
        if not rest:
            if not breakpoints:
                self._say("no breakpoints")
            for k, bp in enumerate(breakpoints, 1):
                self._say(f"  {k}  {bp.text}")
            return
        kind, _, rest = rest.partition(" ")
        rest = rest.strip()
        if kind == "clear":
            breakpoints.clear()
            self._say("breakpoints cleared")
        elif kind == "del":
            try:
                removed = breakpoints.pop(int(rest) - 1)
            except (ValueError, IndexError):
                raise Hint(f"b del takes a breakpoint number from 1 to "
                           f"{len(breakpoints)}") from None
            self._say(f"removed breakpoint: {removed.text}")
        else:
            entry = new_breakpoint(self.simulator, kind, rest)
            breakpoints.append(entry)
            self._say(f"breakpoint {len(breakpoints)}: {entry.text}")

    # -- showing -------------------------------------------------------------
    def _current_bindings(self) -> list[Binding]:
        return self.simulator.enabled()

    def show_status(self) -> None:
        """The clock, the token count of each place, the enabled bindings."""
        sim = self.simulator
        self._say(f"time {time_text(sim.now)}   step {sim.steps}   net {sim.net.name}", "heading")
        self.show(places_table(sim))
        try:
            self._show_bindings(limit=STATUS_BINDINGS)
        except BindingError as error:
            self._say(f"error: {error}", "error")

    def _show_bindings(self, limit: int | None) -> None:
        bindings = self._current_bindings()
        if not bindings:
            self._say(why_nothing_enabled(self.simulator), "waiting")
            return
        self._say(f"enabled ({len(bindings)}):", "heading")
        shown = bindings if limit is None else bindings[:limit]
        self.show(bindings_table(shown))
        if len(bindings) > len(shown):
            self._say(f"  … and {len(bindings) - len(shown)} more (l lists them all)",
                      "note")

    def show_marking(self, name: str | None = None) -> None:
        """The tokens with their timestamps, of every place or (in full) of
        the place ``name``."""
        marking = self.simulator.marking
        paths = [resolve(self.simulator, name, "place")] if name else list(marking)
        self._say(f"marking at time {time_text(marking.time)} (count`value@timestamp)", "heading")
        self.show(marking_table(marking, paths, full=bool(name)))

    # -- the trace -----------------------------------------------------------
    def _save(self, rest: str) -> None:
        if not rest:
            raise Hint("save takes a file name, e.g. save run.jsonl")
        try:
            (name,) = shlex.split(rest)
        except ValueError:
            raise Hint("save takes one file name (quote it if it has spaces)") from None
        try:
            count = save_trace(self.recorder.trace, os.path.expanduser(name),  # ~ too
                               net=self.simulator.net.name, seed=self.seed,
                               end_time=self.simulator.now)
        except OSError as error:
            raise Hint(f"cannot write {name}: {error.strerror or error}") from None
        self._say(f"saved {count} firing{'' if count == 1 else 's'} to {name}")
