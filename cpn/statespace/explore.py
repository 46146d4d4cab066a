"""Building the reachability graph of a net, breadth first.

A state is a marking; in a timed state space (CPN Tools' timed state
spaces) it is also the clock and, for each token of a timed place, its
timestamp relative to the clock.  Two things are deliberately merged:

- tokens already available are equal whatever their past timestamps (an
  available token behaves the same whenever it became available);
- with ``merge_shifts=True``, states equal up to a shift of the clock (the
  same tokens, the same timestamps relative to the clock).  That is exact
  only for nets that never read the clock (``now``) in a guard, an arc or
  a code segment, so such nets are refused.

Every binding enabled in a state is an arc (ties between bindings at one
instant are explored, not drawn).  When none is enabled, the clock moves to
the next instant at which one is (one arc, ``transition`` None).  A
firing that draws from the model's ``rng`` is an arc per outcome of its
draws (``rng.choice``, ``rng.integers``: ``cpn.draws``), recorded in the
arc's ``draws``; a draw with infinitely many outcomes (``rng.exponential``),
or with more than ``max_states`` (which the graph could never hold),
stops the exploration, naming the firing.

Exploration stops at ``max_states`` states or after ``time_limit``
seconds, looked at after every firing (the outcomes of one binding's draws
may be many), or when ``stop()`` turns true or a ``KeyboardInterrupt``
arrives (Ctrl-C: "interrupted"); the graph then says it is incomplete, and
why.  The state being expanded when it stopped is left unexpanded.
``progress(states)`` is told how many states were found, a few times a
second.
"""

from __future__ import annotations

import re
import time
from collections import deque
from typing import Any, Callable

import networkx as nx

from ..times import time_text
from ..draws import Choices, DrawRefused, alternatives
from ..errors import BindingError
from ..flatten import FlatNet
from ..net import Net
from ..simulator import Binding, Simulator
from .paths import Firing
from .space import StateSpace


class StateSpaceError(ValueError):
    """The state space cannot be built as asked; the message says why."""


#: Seconds between two calls of ``progress``.
PROGRESS_EVERY = 0.1


class _Stopped(Exception):
    """A bound was reached: exploration ends, incomplete, for ``reason``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def clock_readers(net: FlatNet) -> list[str]:
    """The transitions whose guard, arcs, delay or code read ``now``."""
    reads = re.compile(r"(?<![\w.])now\b")
    return [t.path for t in net.transitions
            if any(text and reads.search(str(text)) for text in
                   (t.guard, t.delay, t.code, *(a for _, a in t.inputs),
                    *(a for _, a in t.outputs)))]


def state_space(net: Net | FlatNet, max_states: int = 10_000,
                time_limit: float | None = None, timed: bool | None = None,
                merge_shifts: bool = False, progress: Callable[[int], None] | None = None,
                stop: Callable[[], bool] | None = None,
                **simulator_options: Any) -> StateSpace:
    """The reachability graph of ``net`` from its initial marking (or the
    ``marking`` given, as for :class:`Simulator`).  ``timed`` defaults to
    whether the net has a timed place; ``merge_shifts`` merges timed states
    equal up to a shift of the clock; ``progress`` and ``stop`` watch and
    end a long exploration (see the module's docstring)."""
    flat = net.flatten() if isinstance(net, Net) else net
    has_time = any(place.timed for place in flat.places)
    if timed is None:
        timed = has_time
    elif has_time and not timed:
        raise StateSpaceError("timed=False: the net has timed places, whose tokens would "
                              "never become available without the clock; explore it timed")
    if merge_shifts:
        readers = clock_readers(flat)
        if not timed:
            raise StateSpaceError("merge_shifts applies to timed state spaces only")
        if readers:
            raise StateSpaceError(
                f"merge_shifts: transition '{readers[0]}' reads the clock (now), so "
                "states a clock shift apart may behave differently; explore without "
                "merge_shifts")
    sim = Simulator(flat, **simulator_options)
    explorer = _Explorer(sim, timed, merge_shifts, max_states, time_limit)
    explorer.progress, explorer.stop = progress, stop
    return explorer.run()


class _Explorer:
    """One breadth-first exploration; :meth:`run` returns the graph."""

    def __init__(self, sim: Simulator, timed: bool, merge_shifts: bool,
                 max_states: int, time_limit: float | None):
        self.sim, self.timed, self.merge_shifts = sim, timed, merge_shifts
        self.max_states, self.time_limit = max_states, time_limit
        self.graph = nx.MultiDiGraph()
        self.index: dict[tuple, int] = {}
        self.parents: dict[int, tuple[int, int]] = {}
        self.frontier: deque = deque()
        self.choices = Choices(most=max_states)
        self.deadline: float | None = None
        self.progress: Callable[[int], None] | None = None
        self.stop: Callable[[], bool] | None = None
        self.next_progress = 0.0

    def key(self) -> tuple:
        frozen = self.sim.freeze(with_time=self.timed)
        return frozen[1:] if self.merge_shifts else frozen

    def run(self) -> StateSpace:
        with self.sim.drawing_from(self.choices):
            return self.explore()

    def explore(self) -> StateSpace:
        started = time.perf_counter()
        if self.time_limit is not None:
            self.deadline = started + self.time_limit
        self.add_state(self.key(), self.sim.marking, self.sim.checkpoint(random_streams=False))
        stopped = None
        while self.frontier:
            node, state = self.frontier.popleft()
            try:
                self.check_bounds(0)
                self.expand(node, state)
            except _Stopped as stop:
                self.frontier.appendleft((node, state))  # left unexpanded
                stopped = stop.reason
                break
            except KeyboardInterrupt:  # between two steps of one expansion: still a graph
                stopped = self.interrupted()
                break
        return StateSpace(self.graph, stopped is None, stopped, self.parents,
                          time.perf_counter() - started, self.timed, self.merge_shifts,
                          [t.path for t in self.sim.net.transitions],
                          [p.path for p in self.sim.net.places], self.sim.net.alias_paths)

    def check_bounds(self, new_states: int) -> None:
        """Raise :class:`_Stopped` when ``new_states`` more states would
        pass max_states, the time limit has passed or a stop was asked;
        tell ``progress`` how many states were found, when it is due."""
        if self.stop is not None and self.stop():
            raise _Stopped(self.interrupted())
        if self.progress is not None and time.perf_counter() >= self.next_progress:
            self.next_progress = time.perf_counter() + PROGRESS_EVERY
            self.progress(len(self.index))
        if len(self.index) + new_states > self.max_states:
            raise _Stopped(f"stopped at the maximum of {self.max_states:,} states "
                           "(max_states)")
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Stopped(f"stopped at the time limit of {self.time_limit:g} s with "
                           f"{self._states()}")

    def add_state(self, key: tuple, marking, state: tuple) -> int:
        node = self.index[key] = len(self.index)
        self.graph.add_node(node, marking=marking, dead=False, expanded=False)
        self.frontier.append((node, state))
        return node

    def interrupted(self) -> str:
        return f"interrupted with {self._states()}"

    def _states(self) -> str:
        count = len(self.index)
        return f"{count:,} state{'' if count == 1 else 's'}"

    def expand(self, node: int, state: tuple) -> None:
        """Add the successors of ``node``; a bound reached on the way
        raises :class:`_Stopped` before any is added."""
        sim = self.sim
        sim.restore(state)
        bindings, before = sim.enabled(), sim.now
        new: dict[tuple, tuple] = {}  # key -> (marking, checkpoint) of new states
        if not bindings and self.timed and sim.next_event_time() is not None:
            while sim.advance() and not sim.enabled():
                pass  # to the next instant at which something is enabled
            arcs = [(Firing(None, (), sim.now), self.successor(new))]
            self.check_bounds(len(new))
        else:
            arcs = [arc for binding in bindings for arc in self.fire(state, binding, new)]
        for firing, key in arcs:
            target = self.index.get(key)
            if target is None:
                target = self.add_state(key, *new[key])
            edge = self.graph.add_edge(node, target, firing=firing, delay=firing.time - before)
            if target:  # the initial state has no parent
                self.parents.setdefault(target, (node, edge))
        self.graph.nodes[node].update(dead=not arcs, expanded=True)

    def successor(self, new: dict) -> tuple:
        """The key of the simulator's state, kept in ``new`` when unseen."""
        key = self.key()
        if key not in self.index and key not in new:
            new[key] = (self.sim.marking, self.sim.checkpoint(random_streams=False))
        return key

    def fire(self, state: tuple, binding: Binding, new: dict) -> list[tuple[Firing, tuple]]:
        """An arc per outcome of the binding's draws (one if it draws none),
        the bounds looked at after each."""
        sim, arcs = self.sim, []
        values = tuple(binding.values.items())
        pending = [iter([()])]  # scripts of the draws' outcomes still to try
        while pending:
            script = next(pending[-1], None)
            if script is None:
                pending.pop()
                continue
            sim.restore(state)
            self.choices.restart(script)
            try:
                sim.fire(binding, undoable=False)
            except BindingError as error:
                if isinstance(error.__cause__, DrawRefused):
                    raise StateSpaceError(f"firing {binding} at time {time_text(sim.now)}: "
                                          f"{error.__cause__}") from None
                raise
            pending.append(alternatives(self.choices))
            firing = Firing(binding.transition, values, sim.now, tuple(self.choices.taken))
            arcs.append((firing, self.successor(new)))
            self.check_bounds(len(new))
        return arcs
