"""Reachability graphs of small nets, as ``networkx`` digraphs.

The graph is explored breadth-first up to ``max_states``; it says whether
it is complete, which markings are dead (nothing enabled, now or later),
and how many tokens each place held at most.  For timed nets a state also
carries each token's timestamp relative to the clock, and "the clock
advances" is an edge of its own; nets whose inscriptions read ``now`` are
then only approximated (two states a clock apart are merged).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import networkx as nx

from .net import Net
from .simulator import Simulator

TIME_ADVANCE = "time advances"


@dataclass
class StateSpace:
    graph: nx.DiGraph  # nodes 0..n-1, attributes 'marking' (Marking) and 'dead'
    complete: bool  # False when max_states stopped the exploration

    @property
    def dead_markings(self) -> list[int]:
        return [n for n, dead in self.graph.nodes(data="dead") if dead]

    def place_bound(self, path: str) -> int:
        """Most tokens ``path`` held in any explored marking."""
        return max(len(m[path]) for _, m in self.graph.nodes(data="marking"))

    def is_bounded(self, path: str, bound: int) -> bool | None:
        """True/False when the graph is complete; None (unknown) otherwise,
        unless an explored marking already exceeds ``bound``."""
        if self.place_bound(path) > bound:
            return False
        return True if self.complete else None


def state_space(net: Net, max_states: int = 10_000, timed: bool = False,
                **simulator_options) -> StateSpace:
    sim = Simulator(net, **simulator_options)
    graph = nx.DiGraph()
    index: dict[tuple, int] = {}

    def visit(sim) -> tuple[int, bool]:
        key = sim.marking.freeze(with_time=timed)
        if key in index:
            return index[key], False
        index[key] = len(index)
        graph.add_node(index[key], marking=sim.marking, dead=False)
        return index[key], True

    start, _ = visit(sim)
    frontier = deque([(start, sim.checkpoint())])
    complete = True
    while frontier:
        node, state = frontier.popleft()
        sim.restore(state)
        bindings = sim.enabled()
        moves = [(str(b), b) for b in bindings]
        if not bindings and timed and sim.next_event_time() is not None:
            moves = [(TIME_ADVANCE, None)]
        graph.nodes[node]["dead"] = not moves
        for label, binding in moves:
            sim.restore(state)
            if binding is None:
                sim.advance()
            else:
                sim.fire(binding, undoable=False)
            if len(index) >= max_states and sim.marking.freeze(with_time=timed) not in index:
                complete = False
                continue
            successor, new = visit(sim)
            graph.add_edge(node, successor, label=label)
            if new:
                frontier.append((successor, sim.checkpoint()))
    return StateSpace(graph, complete)
