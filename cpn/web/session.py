"""A stepping session as a browser (or a notebook widget) drives it.

:class:`WebSession` wraps a :class:`~cpn.stepper.Stepper` and offers its
commands as methods taking plain numbers and names, never text to run:
a binding is chosen by its number in the enabled list, a place predicate
from a fixed form (:mod:`cpn.web.predicates`).  It answers with what a
page draws: :meth:`state` (the clock, the places, the enabled bindings,
the breakpoints, the drawing of one module) and :meth:`tokens` (one
place's tokens as a table).

Long runs go on in a thread of their own, so the page can show their
progress (:meth:`progress`) and stop them (:meth:`stop`); a lock keeps
every other command out until the run ends.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Mapping

from ..errors import BindingError, ColourError, NetError
from ..flatten import FlatNet
from ..net import Net
from ..stepper import Message, Stepper, Table
from ..stepper.breakpoints import SessionBreakpoint
from ..times import time_text
from ..trace import load_trace, replay_on, save_trace
from . import fields
from .errors import SessionError
from .predicates import check_named, named_breakpoint, place_breakpoint, transition_breakpoint
from .views import bindings_view, drawing, places_view, token_table, waiting_text

#: What the page's log keeps of what the stepper shows (the status it
#: repeats after each command is drawn by the page itself).
LOGGED = frozenset({"info", "hint", "error", "breakpoint", "changes"})

#: How many enabled bindings the page lists.
BINDINGS_SHOWN = 200
#: Lines of the log kept for views that read it later (a page shows its own).
LOG_KEPT = 1000


class WebSession:
    """One net being stepped, for a page.  ``net`` is kept whole so that
    each module of the hierarchy can be drawn."""

    def __init__(self, net: Net | FlatNet, seed: int | None = 0, run_limit: int = 1_000_000,
                 named: Mapping[str, tuple[str, Callable]] | None = None):
        """``named`` are the place predicates a net file offers as
        breakpoints: name -> (place path, function of its token values)."""
        self.net = net
        self.named = dict(named or {})
        self.run_limit = run_limit
        self._lock = threading.Lock()
        self._runner: threading.Thread | None = None
        self._run_goal: dict[str, float] = {}
        # What the commands did, for every view: each reads on from where it
        # left (``state``'s ``log_from``), the last LOG_KEPT lines kept.
        self._log: list[dict[str, str]] = []
        self._log_start = 0  # the position of _log[0] in the whole log
        self._log_read = 0  # where a reader that gives no log_from goes on
        # Counts changes of state, never going back: the binding numbers a
        # page shows are those of one version.
        self.version = 0
        self._start(seed)
        check_named(self.simulator, self.named)

    def _start(self, seed: int | None) -> None:
        self.stepper = Stepper(self.net, seed=seed, show=self._shown,
                               run_limit=self.run_limit)

    @property
    def simulator(self):
        return self.stepper.simulator

    def _shown(self, item: Message | Table) -> None:
        if isinstance(item, Message) and item.kind in LOGGED:
            self._logged({"text": item.text, "kind": item.kind})

    def _logged(self, line: dict[str, str]) -> None:
        self._log.append(line)
        if len(self._log) > LOG_KEPT:
            self._log_start += len(self._log) - LOG_KEPT
            del self._log[:-LOG_KEPT]

    # -- commands ------------------------------------------------------------
    def _execute(self, line: str) -> None:
        """Run one stepper command made here from checked numbers, in a
        state where the stepper takes it (its refusals would be hints in
        the terminal's words)."""
        before = (self.simulator.steps, self.simulator.now, len(self.stepper.trace))
        self.stepper.execute(line)
        if (self.simulator.steps, self.simulator.now, len(self.stepper.trace)) != before:
            self.version += 1

    def _locked(self):
        if not self._lock.acquire(blocking=False):
            raise SessionError("a run is in progress: stop it or wait for it", conflict=True)
        return _Held(self._lock)

    def fire(self, number: Any, version: Any = None) -> None:
        """Fire binding ``number`` (from 1) of the enabled list the page
        showed at ``version``; refused if the state has changed since."""
        number = fields.whole(number, "number")
        shown = None if version is None else fields.whole(version, "version")
        with self._locked():
            if shown is not None and shown != self.version:
                raise SessionError("the marking changed since this list was shown; "
                                   "it has been refreshed", conflict=True)
            enabled = len(self.simulator.enabled())
            if not enabled:
                raise SessionError(f"number: no binding {number} to fire: "
                                   f"{self._nothing_enabled()}")
            if not 1 <= number <= enabled:
                raise SessionError(f"number: no binding {number}: choose 1 to {enabled}")
            self._execute(str(number))

    def step(self) -> None:
        """Fire the binding an automatic run would choose, advancing the
        clock first if nothing is enabled now."""
        with self._locked():
            self._refuse_dead()
            self._execute("n 1")

    def advance(self) -> None:
        """Move the clock to the next event (nothing is enabled now)."""
        with self._locked():
            if self.simulator.enabled():
                raise SessionError("bindings are enabled now: fire one, or run")
            self._refuse_dead()
            self._execute("a")

    def _refuse_dead(self) -> None:
        sim = self.simulator
        if sim.next_event_time() is None and not sim.enabled():
            raise SessionError(self._nothing_enabled())

    def _nothing_enabled(self) -> str:
        """Why nothing can fire, and which button helps, in the page's
        words: the stepper's hints speak of its keys (type a to advance
        the clock; u to undo, q to quit)."""
        sim = self.simulator
        if sim.next_event_time() is not None:
            return f"{waiting_text(sim)}: Advance clock moves to it"
        return waiting_text(sim) + ("; Undo goes back" if self.stepper.can_undo else "")

    def undo(self) -> None:
        with self._locked():
            if not self.stepper.can_undo:
                raise SessionError("nothing to undo")
            self._execute("u")

    def redo(self) -> None:
        with self._locked():
            if not self.stepper.can_redo:
                raise SessionError("nothing to redo: Redo does again what Undo took back")
            self._execute("redo")

    def run(self, steps: Any = None, until: Any = None) -> None:
        """Start a run in the background: ``steps`` firings, until the
        clock would pass ``until``, or (neither given) until a breakpoint
        or the run limit; :meth:`progress` follows it."""
        if steps is not None and until is not None:
            raise SessionError("give steps or until, not both")
        if steps is not None:
            count = fields.whole(steps, "steps")
            if count < 1:
                raise SessionError(f"steps: run at least 1 step, not {count}")
            if count > self.run_limit:  # the cap of a run to a time or to the end
                raise SessionError(f"steps: run at most {self.run_limit} steps at a time, "
                                   f"not {fields.shown(count)}")
            line, goal = f"n {count}", {"goal_steps": count}
        elif until is not None:
            time = fields.number(until, "until")
            if time < self.simulator.now:
                raise SessionError(f"until: time {time_text(time)} is in the past (the clock "
                                   f"is at {time_text(self.simulator.now)})")
            line, goal = f"t {time!r}", {"goal_time": time}
        else:
            line, goal = f"n {self.run_limit}", {}
        held = self._locked()
        sim = self.simulator
        self._run_goal = {"from_steps": sim.steps, "from_time": sim.now, **goal}

        def work() -> None:
            with held:
                self._execute(line)

        self._runner = threading.Thread(target=work, name="cpn-web-run", daemon=True)
        self._runner.start()

    def stop(self) -> None:
        """Stop the run in progress after its current firing (nothing if none)."""
        if self.running:
            self.stepper.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the run in progress to end; False if it has not by ``timeout``."""
        runner = self._runner
        if runner is not None:
            runner.join(timeout)
        return not self.running

    @property
    def running(self) -> bool:
        return self._runner is not None and self._runner.is_alive()

    def progress(self) -> dict[str, Any]:
        """How far the run in progress has got (read without the lock:
        the clock and the step count are single values)."""
        sim = self.simulator
        return {"running": self.running, "steps": sim.steps, "time": sim.now,
                "from_steps": sim.steps, "from_time": sim.now, **self._run_goal}

    # -- breakpoints ---------------------------------------------------------
    def add_breakpoint(self, form: dict[str, Any]) -> None:
        """A breakpoint from the page's form: ``{"kind": "transition",
        "transition": PATH}`` or ``{"kind": "place", "place": PATH, "op":
        ">=", "count": 2}`` or ``{"kind": "named", "name": NAME}`` (a
        predicate of the net file)."""
        kind = form.get("kind")
        if kind == "transition":
            entry = transition_breakpoint(self.simulator, form.get("transition"))
        elif kind == "place":
            entry = place_breakpoint(self.simulator, form.get("place"), form.get("op"),
                                     form.get("count"))
        elif kind == "named":
            entry = named_breakpoint(self.simulator, form.get("name"), self.named)
        else:
            raise SessionError(f"kind: expected 'place', 'transition' or 'named', "
                               f"not {kind!r}")
        with self._locked():
            self._add(entry)

    def _add(self, entry: SessionBreakpoint) -> None:
        breakpoints = self.stepper.recorder.breakpoints
        breakpoints.append(entry)
        self._logged({"text": f"breakpoint {len(breakpoints)}: {entry.text}", "kind": "info"})

    def remove_breakpoint(self, number: Any) -> None:
        """Remove breakpoint ``number`` (from 1)."""
        number = fields.whole(number, "number")
        with self._locked():
            count = len(self.stepper.recorder.breakpoints)
            if not 1 <= number <= count:
                raise SessionError(f"number: there is no breakpoint {number} ("
                                   f"{'none is set' if not count else f'1 to {count} are set'})")
            self._execute(f"b del {number}")

    # -- traces --------------------------------------------------------------
    def trace_text(self) -> str:
        """The firings from the initial marking to this one, in the format
        of ``cpn replay`` (JSON lines)."""
        with self._locked(), tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "trace.jsonl")
            save_trace(self.stepper.trace, path, net=self.simulator.net.name,
                       seed=self.stepper.seed, end_time=self.simulator.now)
            return path.read_text(encoding="utf-8")

    def load_trace(self, text: Any, name: Any = None) -> None:
        """Start again from the initial marking and fire the trace ``text``
        (as ``cpn replay --step`` does), keeping the breakpoints; on a trace
        that does not fit, say why (naming the file ``name``) and keep the
        session as it was."""
        if not isinstance(text, str):
            raise SessionError("text: expected the trace file's text")
        if name is not None:
            fields.name(name, "name", "the trace file's name")
        name = name or "the trace"
        with self._locked(), tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "trace.jsonl")
            path.write_text(text, encoding="utf-8")
            try:
                header, records = load_trace(path)
                previous = self.stepper
                self._start(header.get("seed") or 0)
                self.stepper.recorder.breakpoints[:] = previous.recorder.breakpoints
                try:
                    replay_on(self.simulator, path)
                except BaseException:
                    self.stepper = previous
                    raise
            except (BindingError, ColourError, NetError) as error:
                message = str(error)
                raise SessionError(message.replace(str(path), name) if str(path) in message
                                   else f"{name}: {message}") from None
            self.version += 1
        self._logged({"text": f"replayed {len(records)} firing"
                               f"{'' if len(records) == 1 else 's'} of {name}: time "
                               f"{time_text(self.simulator.now)}, step {self.simulator.steps}",
                       "kind": "info"})

    # -- what the page shows -------------------------------------------------
    def state(self, module: Any = None, svg: bool = True,
              log_from: Any = None) -> dict[str, Any]:
        """Everything the page draws, with the drawing of ``module`` (a
        substitution path; the top level when empty) unless ``svg`` is
        False, and the log from position ``log_from`` on (a view's own
        place in it, so that two views each show every line; by default,
        from where the last call that gave none stopped) with the position
        after it, ``log_next``."""
        if module is not None:
            fields.name(module, "module", "a module's path")
        if log_from is not None:
            log_from = fields.whole(int(log_from) if isinstance(log_from, str)
                                    and log_from.isdigit() else log_from, "log_from")
        with self._locked():
            sim, stepper = self.simulator, self.stepper
            bindings, total = bindings_view(sim, BINDINGS_SHOWN)
            svg_text = drawing(self.net, sim, module) if svg else None  # may refuse module
            log_next = self._log_start + len(self._log)
            log = self._log[max((self._log_read if log_from is None else log_from)
                                - self._log_start, 0):]
            if log_from is None:  # read once nothing can fail: else lost
                self._log_read = log_next
            return {
                "net": sim.net.name, "time": sim.now, "step": sim.steps,
                "version": self.version, "module": module or "",
                "modules": modules_of(self.net),
                "places": places_view(sim),
                "transitions": [t.path for t in sim.net.transitions],
                "bindings": bindings, "enabled": total,
                "waiting": "" if total else waiting_text(sim),
                "breakpoints": [bp.text for bp in stepper.recorder.breakpoints],
                "named": list(self.named),
                "can_undo": stepper.can_undo, "can_redo": stepper.can_redo,
                "log": log, "log_next": log_next,
                "svg": svg_text,
            }

    def tokens(self, place: Any) -> dict[str, Any]:
        """The tokens of one place (a flat path) as a table."""
        with self._locked():
            return token_table(self.simulator, _place_path(self.simulator, place))


def modules_of(net: Net | FlatNet) -> list[str]:
    """Every module instance of ``net`` by substitution path, depth first
    (none for a flat net)."""
    if isinstance(net, FlatNet):
        return []
    found: list[str] = []

    def walk(module: Net, prefix: str) -> None:
        for name, sub in module.substitutions.items():
            found.append(prefix + name)
            walk(sub.module, prefix + name + "/")

    walk(net, "")
    return found


def _place_path(sim, place: Any) -> str:
    """The path of the place named ``place`` (as ``Simulator.tokens`` finds it)."""
    if fields.name(place, "place", "a place's name") not in sim.net.place_names():
        raise SessionError(f"place: no place {fields.shown(place)} in net {sim.net.name!r}")
    return sim.net.place_path(place)


class _Held:
    """A lock already taken, released at the end of a ``with`` block."""

    def __init__(self, lock: threading.Lock):
        self.lock = lock

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.lock.release()
