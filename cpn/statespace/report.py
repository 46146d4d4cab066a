"""The standard report of a state space, as CPN Tools gives it.

Statistics (states, arcs, dead markings, whether the graph is complete,
the time it took), boundedness (the fewest and most tokens each place held
in a reachable marking), dead transitions (those no reachable binding
fires) and home markings (markings reachable from every reachable marking:
those of the only terminal strongly connected component, when there is
just one).  Bounds and dead transitions of an incomplete graph only
describe the states explored; home markings are then not computed.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from .space import StateSpace


@dataclass
class Report:
    states: int
    arcs: int
    dead_markings: list[int]
    seconds: float
    complete: bool
    stopped: str | None
    bounds: dict[str, tuple[int, int]]  # place -> (fewest, most) tokens
    dead_transitions: list[str]
    home_markings: list[int] | None  # None: not computed (incomplete graph)

    def summary_rows(self) -> list[tuple[str, str]]:
        return [("states", f"{self.states:,}"), ("arcs", f"{self.arcs:,}"),
                ("dead markings", _listed(self.dead_markings) + (
                    "" if self.complete else " (of the states explored)")),
                ("complete", "yes" if self.complete else f"no: {self.stopped}"),
                ("time", f"{self.seconds:.2f} s")]

    def __str__(self) -> str:
        width = max(len(place) for place in self.bounds) if self.bounds else 0
        lines = ["Statistics"] + [f"  {name:<14} {value}" for name, value in self.summary_rows()]
        lines += ["Boundedness (tokens" + ("" if self.complete else
                                           ", in the states explored") + ")",
                  f"  {'place':<{width}}  fewest   most"]
        lines += [f"  {place:<{width}}  {low:>6} {high:>6}"
                  for place, (low, high) in self.bounds.items()]
        lines.append("Dead transitions" + ("" if self.complete else
                                            " (of the states explored)"))
        lines.append("  " + (", ".join(self.dead_transitions) or "none"))
        lines.append("Home markings")
        lines.append("  " + ("not computed: the graph is incomplete"
                             if self.home_markings is None
                             else _listed(self.home_markings)))
        return "\n".join(lines)


def report(space: StateSpace) -> Report:
    markings = [marking for _, marking in space.graph.nodes(data="marking")]
    bounds = {place: (min(len(m[place]) for m in markings),
                      max(len(m[place]) for m in markings)) for place in space.places}
    fired = {firing.transition for _, _, firing in space.graph.edges(data="firing")}
    return Report(space.states, space.arcs, space.dead_markings, space.seconds,
                  space.complete, space.stopped, bounds,
                  [t for t in space.transitions if t not in fired],
                  home_markings(space) if space.complete else None)


def home_markings(space: StateSpace) -> list[int]:
    """The states reachable from every reachable state (none when the graph
    has several terminal strongly connected components)."""
    condensed = nx.condensation(space.graph)
    terminal = [c for c in condensed if condensed.out_degree(c) == 0]
    if len(terminal) != 1:
        return []
    return sorted(condensed.nodes[terminal[0]]["members"])


def _listed(nodes: list[int], limit: int = 8) -> str:
    if not nodes:
        return "none"
    shown = ", ".join(str(n) for n in nodes[:limit])
    return f"{len(nodes)} ({shown}{', …' if len(nodes) > limit else ''})"
