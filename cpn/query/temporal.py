"""Temporal operators over the paths of a state space, and their verdicts.

=====================  ====================================================
``always(p)``          p holds in every reachable state (an invariant); p
                       may be a :class:`Step`: it holds of every arc
``never(p)``           no reachable state satisfies p
``reachable(p)``       some path leads to a state where p holds
``eventually(p)``      every path from the initial marking reaches p
                       (a run that stops, or goes round for ever, without
                       p is a counterexample)
``leads_to(p, q)``     from every reachable state where p holds, every path
                       reaches q
=====================  ====================================================

:func:`check` returns a :class:`Verdict`: whether the query holds (None
when the graph is incomplete and nothing found settles it), and a path:
the counterexample of a failing query (shortest to a bad state or arc), or
the witness of ``reachable``.  A predicate that cannot be evaluated in a
state (a place the net lacks, values that do not compare) raises
:class:`QueryError`, naming the query and the state.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterator

from ..times import time_text
from ..statespace import Path, StateSpace
from .predicates import Predicate, State, Step


@dataclass
class Verdict:
    query: "Query"
    holds: bool | None  # None: unknown (the graph is incomplete)
    path: Path | None  # the counterexample (failing) or witness (reachable)
    reason: str

    @property
    def counterexample(self) -> Path | None:
        return self.path if self.holds is False else None

    def __str__(self) -> str:
        word = {True: "holds", False: "FAILS", None: "unknown"}[self.holds]
        return f"{self.query}: {word}: {self.reason}"


class QueryError(ValueError):
    """A query's predicate failed to evaluate: ``detail`` says where and
    why, the message also names the query."""

    def __init__(self, detail: str, query: "Query | None" = None):
        super().__init__(detail if query is None else f"{query}: {detail}")
        self.detail, self.query = detail, query


class Query:
    """A temporal property; :meth:`check` (or :func:`check`) decides it."""

    text: str

    def __str__(self) -> str:
        return self.text

    def check(self, space: StateSpace) -> Verdict:
        try:
            return self.decide(space)
        except QueryError as error:
            raise QueryError(error.detail, self) from error.__cause__

    def decide(self, space: StateSpace) -> Verdict:
        raise NotImplementedError


def check(space: StateSpace, query: Query) -> Verdict:
    return query.check(space)


def _holds(space: StateSpace, predicate: Predicate, node: int) -> bool:
    data = space.graph.nodes[node]
    stable = data["expanded"] and all(
        firing.transition is None for _, _, firing in space.graph.out_edges(node, data="firing"))
    try:
        return bool(predicate.test(State(data["marking"], data["dead"], stable)))
    except Exception as error:  # a predicate is any Python: say where it failed
        raise QueryError(f"in state {node}, at time {time_text(data['marking'].time)}: "
                         f"{_said(error)}") from error


def _said(error: Exception) -> str:
    """An error as a line: the messages of ours speak for themselves,
    Python's own (TypeError...) need their kind."""
    return str(error) if type(error) is ValueError else f"{type(error).__name__}: {error}"


def _nothing_found(query: Query, space: StateSpace, found: str) -> Verdict:
    """It holds, unless the graph is incomplete: then it is unknown."""
    if space.complete:
        return Verdict(query, True, None, found)
    return Verdict(query, None, None, f"{found} among the {space.states:,} states "
                                      f"explored, but the graph is incomplete ({space.stopped})")


def _firings(count: int) -> str:
    return f"{count} firing{'' if count == 1 else 's'}"


class _Always(Query):
    def __init__(self, prop: Predicate | Step, text: str):
        self.prop, self.text = prop, text

    def decide(self, space: StateSpace) -> Verdict:
        if isinstance(self.prop, Step):
            return self._check_steps(space)
        for node in sorted(space.graph):
            if not _holds(space, self.prop, node):
                path = space.path(space.path_to(node))
                return Verdict(self, False, path, f"state {node}, after "
                               f"{_firings(len(path.records()))}, at time {time_text(path.end_time)}")
        return _nothing_found(self, space, "no state breaks it")

    def _check_steps(self, space: StateSpace) -> Verdict:
        for source in sorted(space.graph):
            before = space.marking(source)
            for target, key in space.successors(source):
                firing = space.graph.edges[source, target, key]["firing"]
                try:
                    holds = self.prop.test(before, firing, space.marking(target))
                except Exception as error:
                    raise QueryError(f"in the step {firing} from state {source} to "
                                     f"{target}: {_said(error)}") from error
                if not holds:
                    path = space.path(space.path_to(source) + [(source, target, key)])
                    return Verdict(self, False, path, f"the step {firing} from state "
                                   f"{source} to {target}, at time {time_text(path.end_time)}")
        return _nothing_found(self, space, "no step breaks it")


def always(prop: Predicate | Step) -> Query:
    """``prop`` holds in every reachable state (or of every arc)."""
    return _Always(prop, f"always {prop}")


def never(prop: Predicate | Step) -> Query:
    """No reachable state satisfies ``prop`` (no arc, for a step)."""
    return _Always(~prop, f"never {prop}")


class _Reachable(Query):
    def __init__(self, predicate: Predicate):
        self.predicate, self.text = predicate, f"reachable {predicate}"

    def decide(self, space: StateSpace) -> Verdict:
        for node in sorted(space.graph):
            if _holds(space, self.predicate, node):
                path = space.path(space.path_to(node))
                return Verdict(self, True, path, f"state {node}, after "
                               f"{_firings(len(path.records()))}, at time {time_text(path.end_time)}")
        if space.complete:
            return Verdict(self, False, None, f"none of the {space.states:,} states")
        return Verdict(self, None, None, f"none of the {space.states:,} states explored, "
                                         f"but the graph is incomplete ({space.stopped})")


def reachable(predicate: Predicate) -> Query:
    """Some path from the initial marking leads to a state where
    ``predicate`` holds (CTL's EF; the witness is a shortest path)."""
    return _Reachable(predicate)


def inevitable(space: StateSpace, predicate: Predicate, optimistic: bool = True) -> set[int]:
    """The states from which every path reaches ``predicate`` (least fixed
    point), counting states left unexpanded as such when ``optimistic``
    (what is outside the set surely fails), as failing otherwise (what is
    inside surely holds)."""
    graph = space.graph
    good = {n for n in graph if (optimistic and not space.expanded(n))
            or _holds(space, predicate, n)}
    waiting = {n: len(set(graph.successors(n))) for n in graph
               if n not in good and not graph.nodes[n]["dead"] and space.expanded(n)}
    queue = deque(good)
    while queue:
        node = queue.popleft()
        for parent in set(graph.predecessors(node)):
            if parent in waiting:
                waiting[parent] -= 1
                if waiting[parent] == 0:
                    del waiting[parent]
                    good.add(parent)
                    queue.append(parent)
    return good


def _avoiding(space: StateSpace, start: int, good: set[int]) -> tuple[list, bool]:
    """Arcs of a run from ``start`` (outside ``good``) that never enters
    it: a shortest one to a dead state, else one that closes a cycle;
    and whether it ends in a cycle."""
    parents: dict[int, tuple] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if space.graph.nodes[node]["dead"]:
            return _back(parents, node), False
        for target, key in space.successors(node):
            if target not in good and target not in parents:
                parents[target] = (node, target, key)
                queue.append(target)
    arcs, seen, node = [], {start}, start
    while True:  # every state outside good has a successor outside good
        target, key = next((t, k) for t, k in space.successors(node) if t not in good)
        arcs.append((node, target, key))
        if target in seen:
            return arcs, True
        seen.add(target)
        node = target


def _back(parents: dict, node: int) -> list:
    arcs = []
    while parents[node] is not None:
        arcs.append(parents[node])
        node = parents[node][0]
    return arcs[::-1]


def _run_without(space: StateSpace, start: int, good: set[int]) -> Path:
    arcs, loop = _avoiding(space, start, good)
    return space.path(space.path_to(start) + arcs, loop=loop)


def _describe(path: Path) -> str:
    if path.loop_from is not None:
        return (f"a run that goes round a cycle for ever (back to the state after "
                f"{_firings(path.cycle_start)})")
    return f"a run that stops at time {time_text(path.end_time)}"


class _Eventually(Query):
    def __init__(self, predicate: Predicate):
        self.predicate, self.text = predicate, f"eventually {predicate}"

    def decide(self, space: StateSpace) -> Verdict:
        good = inevitable(space, self.predicate)
        if 0 not in good:
            path = _run_without(space, 0, good)
            return Verdict(self, False, path, f"{_describe(path)} without it")
        if space.complete:
            return Verdict(self, True, None, "every path reaches it")
        if 0 in inevitable(space, self.predicate, optimistic=False):
            return Verdict(self, True, None, f"every path reaches it within the "
                                             f"{space.states:,} states explored (the graph "
                                             f"is incomplete, but that settles it)")
        if any(_holds(space, self.predicate, node) for node in space.graph):
            found = f"some paths reach it among the {space.states:,} states explored"
        else:
            found = f"none of the {space.states:,} states explored satisfies it"
        return Verdict(self, None, None, f"{found}, and the states not explored are not "
                                         f"known: the graph is incomplete ({space.stopped})")


def eventually(predicate: Predicate) -> Query:
    """Every path from the initial marking reaches a state where
    ``predicate`` holds (CTL's AF)."""
    return _Eventually(predicate)


class _LeadsTo(Query):
    def __init__(self, cause: Predicate, effect: Predicate):
        self.cause, self.effect = cause, effect
        self.text = f"{_part(cause)} leads to {_part(effect)}"

    def decide(self, space: StateSpace) -> Verdict:
        good = inevitable(space, self.effect)
        for node in self._causes(space):
            if node not in good:
                path = _run_without(space, node, good)
                return Verdict(self, False, path, f"from state {node}, {_describe(path)} "
                                                  f"without {self.effect}")
        if space.complete:
            return Verdict(self, True, None, "every such state reaches it")
        sure = inevitable(space, self.effect, optimistic=False)
        if all(node in sure for node in self._causes(space)):
            found = f"every such state among the {space.states:,} explored reaches it"
        else:
            found = "no path explored avoids it for ever"
        return Verdict(self, None, None, f"{found}, and the states not explored are not "
                                         f"known: the graph is incomplete ({space.stopped})")

    def _causes(self, space: StateSpace) -> Iterator[int]:
        return (n for n in sorted(space.graph) if _holds(space, self.cause, n))


def _part(predicate: Predicate) -> str:
    text = str(predicate)
    return f"({text})" if " and " in text or " implies " in text else text


def leads_to(cause: Predicate, effect: Predicate) -> Query:
    """From every reachable state where ``cause`` holds, every path reaches
    ``effect`` (CTL's AG(cause -> AF effect))."""
    return _LeadsTo(cause, effect)
