"""The simulator: a timed marking, a clock, and next-event time advance.

Semantics follow CPN Tools.  A token of a timed place is available once the
clock reaches its timestamp; a binding is enabled when its guard holds and
its input tokens are available now; of the enabled bindings only those of
the highest priority (lowest number) may fire, ties broken by a seeded
random choice (or by declaration order with ``order="declared"``).  When
nothing is enabled the clock jumps to the next token timestamp.

What makes it fast (see ``bench/engine.py``): each place keeps its available
tokens in a list and its future tokens in one global heap keyed by
``(timestamp, sequence)``, which the initial marking's future tokens join
one at a time, in their order (a trace's jobs do not all sift there); each
transition's last found binding is cached and only transitions next to a
changed place are searched again (not the one that fired if it emptied a
place it takes from), and one of priority below P_LOW only once nothing of
higher priority is enabled; automatic runs take the first binding a transition's
compiled search finds; the token of an untimed place that always holds one
is read by a search, not looped over, and overwritten by a firing.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import random
from heapq import heappop
from typing import Any, Callable, Iterable, Iterator, Mapping

import numpy as np

from .codegen import compiled
from .colour_sets import bool_hint, membership
from .compiler import compiled_for
from .errors import BindingError, ColourError
from .flatten import IMMUTABLE, FlatNet
from .initial_marking import InitialMarking
from .interactive import Interactive
from .keybounds import KeyBounds
from .marking_views import MarkingViews
from .monitoring import Monitoring
from .net import NEVER, P_LOW, Delayed, Net
from .results import Binding, RunResult, StopReason
from .run_limits import checked_seed, step_limit, stop_time
from .staleness import staleness
from .undo import Undoable

__all__ = ["Binding", "RunResult", "Simulator", "StopReason"]

#: The versions of markings, shared by every simulator (see ``_version``).
_VERSIONS = itertools.count(1)


class Simulator(InitialMarking, MarkingViews, Interactive, Undoable, KeyBounds, Monitoring):
    """Runs a net.  ``marking`` overrides initial markings by place path;
    ``seed`` drives both the choice between enabled bindings and, through
    a separate stream, the model's ``rng`` that inscriptions may use.
    :meth:`fire` is an undo point (:meth:`undo`); with ``history`` every
    :meth:`run`, :meth:`step` and :meth:`advance` is one too."""

    def __init__(self, net: Net | FlatNet, seed: int | None = 0,
                 marking: Mapping[str, Iterable] | None = None,
                 order: str = "random", history: bool = False):
        if order not in ("random", "declared"):
            raise ValueError(f"order must be 'random' or 'declared', not {order!r}")
        self.net = net.flatten() if isinstance(net, Net) else net
        # As declared, modules and all (None when given flat): notebooks draw it.
        self.hierarchy = net if isinstance(net, Net) else None
        self.order = order
        self.seed = seed = checked_seed(seed)
        self._choice = random.Random(seed)
        self.rng = np.random.default_rng(None if seed is None else [seed, 1])
        self.now = 0.0
        self.steps = 0
        self.history = history
        self._undo: list[tuple] = []
        # Every change of state gets a version never used before, by any
        # simulator of the process, so a restored checkpoint can take back
        # its own version and the bindings listed there become valid again,
        # and only those (never another simulator's).
        self._new_version = _VERSIONS.__next__
        self._version = self._new_version()
        places = self.net.places
        self._R: list[list] = [[] for _ in places]
        self._S: list[list | None] = [[] if p.timed else None for p in places]
        self._heap: list[tuple] = []
        self._next = itertools.count().__next__
        self._initial: list[tuple] = []  # see initial_marking.py
        self._feeding: tuple | None = None
        self._keys: list[tuple] = [() for _ in places]  # place -> its KeyBounds
        self._load_marking(marking or {})
        self._held, self.transitions = compiled_for(self.net, self._R, self._S)
        self._bounds()
        # Transitions of priority below P_LOW, searched only once nothing of
        # higher priority is enabled (:meth:`_search_later`); those waiting for it.
        self._deferred = frozenset(t.index for t in self.transitions if t.priority > P_LOW)
        self._later: set[int] = set(self._deferred)
        self._stale = staleness(self.transitions, len(places), self._deferred)
        self._priority = [t.priority for t in self.transitions]
        self._search, self._fire = self._bind_code()
        self._found: dict[int, tuple] = {}
        self._dirty: set[int] = set(range(len(self.transitions))) - self._deferred
        self._monitors: list = []
        self._advancing: list = []  # their ``advanced`` methods, called as the clock moves
        # Per transition, the monitors told of its firings, the functions
        # that follow them (``Monitor.follows``) and, for the loop, those
        # functions alone (a tuple) or, when a monitor may stop the run, True.
        self._hooks: list[list] = [[] for _ in self.transitions]
        self._follows: list[list] = [[] for _ in self.transitions]
        self._follow_owners: list[tuple] = []  # (monitor, its follows' functions)
        self._told: list[tuple | bool] = [() for _ in self.transitions]
        self._last: tuple | None = None
        # What the hot loop reads (the same objects, changed in place).
        stale = self._stale
        self._hot = (self._found, self._dirty, self._search, self._fire, self._heap, self._R,
                     self._S, stale.consumers, stale.waiting, stale.stale_later, stale.refreshed,
                     stale.clocked, stale.clocked_later, self._keys, self._advancing,
                     self._deferred, self._later)

    # -- set-up --------------------------------------------------------------
    def _bind_code(self):
        searches, fires = [], []
        for t in self.transitions:
            scope = dict(t.env)
            for p, place in enumerate(self.net.places):
                scope[f"_cpn_R{p}"] = self._R[p]
                scope[f"_cpn_S{p}"] = self._S[p]
                scope[f"_cpn_C{p}"] = membership(place.place.colour)
            scope["_cpn_woken"], scope["_cpn_others"] = self._stale.woken[t.index]
            scope.update(_cpn_heap=self._heap, _cpn_push=heapq.heappush,
                         _cpn_next=self._next, _cpn_put=self._put, _cpn_late=self._late,
                         _cpn_refuse=self._refuse, _cpn_Delayed=Delayed,
                         _cpn_lo=self._lo, _cpn_exact=self._exact,
                         _cpn_lowest=self._lowest, _cpn_lower=self._lower, rng=self.rng)
            exec(compiled(t.source, f"net '{self.net.name}', transition {t.path}"), scope)
            searches.append(scope["_cpn_search"])
            fires.append(scope["_cpn_fire"])
        return searches, fires

    def _put(self, place: int, token: Any, stamp: float, now: float) -> None:
        if stamp <= now:
            self._R[place].append(token)
            self._S[place].append(stamp)
            if self._keys[place]:
                self._lower(place, token)
        else:
            heapq.heappush(self._heap, (stamp, self._next(), place, token))

    def _late(self, place: int, token: Any, stamp: Any, now: float):
        """Raised by a firing whose token would be available before the
        clock (a negative delay) or never (NaN), before it takes a token:
        time never runs back."""
        raise ValueError(f"token {token!r} for place '{self.net.places[place].path}' would be "
                         f"available at {stamp!r}, not at or after the clock ({now!r}): "
                         "a delay must be a number >= 0")

    def _refuse(self, transition: int, place: int, text: str, token: Any):
        """Raised by a firing whose output token cannot enter its place; the
        firing leaves the marking as it was."""
        flat = self.net.places[place]
        where = (f"net '{self.net.name}', transition '{self.transitions[transition].path}', "
                 f"arc to '{flat.path}' {text!r}: token {token!r}")
        if isinstance(token, Delayed):
            raise ColourError(f"{where}: place '{flat.path}' is untimed: its tokens cannot "
                              "carry a delay")
        if type(token).__hash__ is None:
            raise ColourError(f"{where} is not hashable: {IMMUTABLE}")
        raise ColourError(f"{where} is not of colour {flat.place.colour_name}"
                          + bool_hint(flat.place.colour, token))

    @contextlib.contextmanager
    def drawing_from(self, rng: Any) -> Iterator[Any]:
        """Inscriptions draw from ``rng`` instead of the model's stream
        while the context lasts: a state space explores every outcome of a
        draw, a replay repeats the outcomes its trace recorded."""
        scopes = {id(f.__globals__): f.__globals__ for f in self._fire}.values()
        saved, self.rng = self.rng, rng
        for scope in scopes:
            scope["rng"] = rng
        try:
            yield rng
        finally:
            self.rng = saved
            for scope in scopes:
                scope["rng"] = saved

    def place_index(self, path: str) -> int:
        return self.net.place_index(path)

    def transition_index(self, path: str) -> int:
        return self.net.transition_index(path)

    # -- enabling ------------------------------------------------------------
    def _refresh(self) -> None:
        """Search again every transition whose binding may have changed,
        deferred ones too (a person stepping sees every priority)."""
        self._loop(limit=self.steps)
        self._search_later()

    def _search_later(self) -> None:
        """Search the deferred transitions waiting in ``later``.  One of
        priority below P_LOW (the housekeeping that follows an instant's
        work) that needs a search waits there while a transition of higher
        priority is found: it could not fire before the instant has nothing
        else to do, and each firing before then would make it search again.
        :meth:`_loop` searches them once ``found`` holds deferred transitions
        only (some perhaps stale), so the binding chosen is the one an eager
        search would give; a stale one beside a higher priority is never chosen."""
        found, search, now = self._found, self._search, self.now
        try:
            for t in self._later:
                if (binding := search[t](now, None)) is None:
                    found.pop(t, None)
                else:
                    found[t] = binding
        except Exception as error:  # noqa: BLE001 - reported with context
            raise self._search_failed(t, error) from error
        self._later.clear()

    def _search_failed(self, t: int, error: Exception) -> BindingError:
        from .failures import search_failure  # the error path alone loads it

        return search_failure(self, t, error)

    def _monitor_failed(self, error: Exception, stop_when, last) -> Exception:
        from .failures import monitor_failure

        return monitor_failure(self, error, stop_when, last)

    def _firing_failed(self, t: int, picks: tuple, values: tuple,
                       error: Exception) -> Exception:
        """What a firing that raised ``error`` raises (``failures.py``). The
        marking is unchanged: the binding is found again."""
        self._dirty.add(t)
        from .failures import firing_failure

        return firing_failure(self, t, f"{self._binding(t, picks, values)} at time {self.now}",
                              error)

    def _choose(self) -> int:
        found = self._found
        if len(found) == 1:
            return next(iter(found))
        priority = self._priority
        if len(found) == 2:  # the usual pair (a job's start and its bookkeeping)
            first, second = found
            if priority[first] != priority[second]:
                return first if priority[first] < priority[second] else second
        best = min(map(priority.__getitem__, found))
        candidates = [t for t in found if priority[t] == best]
        if len(candidates) == 1:
            return candidates[0]
        if self.order == "declared":
            return min(candidates)
        candidates.sort()
        return candidates[self._choice.randrange(len(candidates))]

    # -- time ----------------------------------------------------------------
    def _advance(self, until_time: float) -> StopReason | None:
        """Move the clock to the next token timestamp (None if it moved)."""
        heap = self._heap
        if not heap or heap[0][0] == NEVER:
            return StopReason.DEAD
        stamp = heap[0][0]
        if stamp > until_time:
            self._set_clock(max(until_time, self.now))
            return StopReason.TIME
        self._set_clock(stamp)
        R, S, (consumers, waiting, *_), dirty = self._R, self._S, self._stale, self._dirty
        while heap and heap[0][0] <= stamp:
            when, _, place, token = entry = heapq.heappop(heap)
            if entry is self._feeding:
                self._feed()
            R[place].append(token)
            S[place].append(when)
            dirty.update(consumers[place])
            self._later.update(waiting[place])
            if self._keys[place]:
                self._lower(place, token)
        return None

    def _set_clock(self, new: float) -> None:
        """Guards and inscriptions that read the clock must be re-searched
        whenever it moves, whether or not a token became available."""
        old, self.now = self.now, new
        if new != old:
            self._version = self._new_version()
            self._dirty.update(self._stale.clocked)
            self._later.update(self._stale.clocked_later)
            for monitor in self._monitors:
                monitor.advanced(self, old, new)

    def advance(self, until_time: float | None = None) -> bool:
        """Move the clock to the next token timestamp without firing, making
        the tokens due then available: True.  False when none became
        available: no token lies ahead (the clock stays), or the next lies
        beyond ``until_time`` (refused if NaN), and the clock moved to
        ``until_time`` (never back).  So ``while sim.advance(t): ...`` visits
        every timestamp up to ``t`` and leaves the clock at ``t``.  An undo
        point with ``history``; without, it drops the undo points."""
        stop = stop_time(until_time)
        with self._change(recorded=self.history):
            try:
                return self._advance(stop) is None
            except Exception as error:  # a monitor's, told of the move (failures.py)
                raise self._monitor_failed(error, None, None)

    def next_event_time(self) -> float | None:
        """When the next timed token becomes available (None if never)."""
        return self._heap[0][0] if self._heap and self._heap[0][0] != NEVER else None

    # -- running -------------------------------------------------------------
    def step(self) -> Binding | None:
        """Fire one binding, advancing the clock if needed; None if dead.
        A run of one step, :meth:`undo` included."""
        before = self.steps
        self.run(max_steps=1)
        if self.steps == before:
            return None
        t, picks, values = self._last
        return self._binding(t, picks, values)

    def run(self, until_time: float | None = None, max_steps: int | None = None,
            stop_when: Callable[["Simulator"], bool] | None = None) -> RunResult:
        """Fire until the clock would pass ``until_time``, ``max_steps``
        firings are done, ``stop_when(sim)`` holds after a firing, a monitor
        breaks, or the marking is dead.  Stopping at ``until_time`` leaves the
        clock there, so monitors integrate up to it.  With ``history`` the
        whole run is one undo point; without, it drops the undo points
        (:meth:`undo`).  ``until_time`` must be a number (not NaN), an int
        taken as a float, and ``max_steps`` a whole number >= 0 (ValueError)."""
        limit, stop = step_limit(self.steps, max_steps), stop_time(until_time)
        with self._change(recorded=self.history):
            return RunResult(self._loop(limit, stop, stop_when), self.now, self.steps)

    def _loop(self, limit: int, until_time: float = NEVER,
              stop_when: Callable[["Simulator"], bool] | None = None) -> StopReason:
        """The hot loop of run, fire, enabled (deferred transitions: :meth:`_search_later`)."""
        (found, dirty, search, fire, heap, R, S, consumers, waiting, stale_later, refreshed,
         clocked, clocked_later, keys, advancing, deferred, later) = self._hot
        steps, last, now, began, feeding = self.steps, self._last, self.now, self.now, self._fed()
        observed = self._told if stop_when is None else [True] * len(self._told)
        try:
            while True:
                try:
                    for t in dirty:
                        if (binding := search[t](now, None)) is None: found.pop(t, None)  # noqa
                        else: found[t] = binding  # noqa: E701
                except Exception as error:  # noqa: BLE001 - reported with context
                    raise self._search_failed(t, error) from error
                dirty.clear()
                if later and deferred.issuperset(found): self._search_later()  # noqa: E701
                if steps >= limit: return StopReason.STEPS  # noqa: E701
                if len(found) == 1: t, (picks, values) = found.popitem()  # noqa: E701
                elif found:
                    picks, values = found.pop(t := self._choose())
                elif not heap or heap[0][0] > until_time or heap[0][0] == NEVER:
                    return self._advance(until_time)  # dead, or the clock stops at until_time
                else:  # the clock moves to the next timestamp (:meth:`_advance` written out)
                    if (stamp := heap[0][0]) != now:  # :meth:`_set_clock` written out
                        self.now = stamp  # the version changes on the way out
                        if clocked: dirty |= clocked  # noqa: E701 (guards read the clock)
                        if clocked_later: later |= clocked_later  # noqa: E701
                        if advancing:  # monitors integrate up to the move
                            for advanced in advancing: advanced(self, now, stamp)  # noqa: E701
                        now = stamp
                    while True:  # every token of that timestamp becomes available
                        when, sequence, place, token = heappop(heap)
                        if sequence is feeding:  # the initial marking's next one comes in
                            feeding = self._feed()
                        R[place].append(token)
                        S[place].append(when)
                        dirty |= consumers[place]
                        if waiting[place]: later |= waiting[place]  # noqa: E701
                        if keys[place]: self._lower(place, token)  # noqa: E701 (keybounds.py)
                        if not heap or heap[0][0] > stamp: break  # noqa: E701
                    continue  # search what it made available
                try: woken = fire[t](picks, values, now)  # noqa: E701
                except Exception as error: raise self._firing_failed(t, picks, values, error)  # noqa
                if woken: dirty |= woken  # noqa: E701
                if stale := stale_later[t]: later |= stale  # noqa: E701
                if found and refreshed[t]: dirty.update(found.keys() & refreshed[t])  # noqa: E701
                steps, last = steps + 1, (t, picks, values)
                if observed[t]:
                    if (told := observed[t]) is not True:  # only functions that cannot stop it
                        for follow in told: follow(t, values)  # noqa: E701
                    elif (reason := self._observed(t, values, stop_when, steps, last)) is not None:
                        return reason
                    else: now, feeding = self.now, self._fed()  # noqa: E701 (it may restore)
                if steps >= limit: return StopReason.STEPS  # noqa: E701 (no search after it)
        except Exception as error:  # a monitor's or stop_when's is named (failures.py)
            raise self._monitor_failed(error, stop_when, last)
        finally:
            if steps != self.steps or now != began: self._version = self._new_version()  # noqa
            self.steps, self._last = steps, last
