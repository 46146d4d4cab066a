"""A built state space: the graph, whether it is complete, and the paths
through it.

Nodes are numbered from 0 (the initial marking) in the order breadth-first
exploration found them, with attributes ``marking`` (a
:class:`~cpn.marking.Marking`, clock included), ``dead`` (nothing enabled,
now or later) and ``expanded`` (its successors are known: False only for
states left when a bound stopped the exploration).  Arcs carry ``firing``
(a :class:`~cpn.statespace.paths.Firing`, which prints as the binding) and
``delay`` (how far the clock moved).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import networkx as nx

from ..errors import UnknownNameError
from .paths import Firing, Path


@dataclass
class StateSpace:
    graph: nx.MultiDiGraph
    complete: bool  # False when max_states or time_limit stopped the exploration
    stopped: str | None  # why it stopped early, in words
    parents: dict[int, tuple[int, int]]  # node -> (parent, arc key) on a shortest path
    seconds: float  # time spent exploring
    timed: bool
    merge_shifts: bool
    transitions: list[str]  # every transition of the net, by path
    places: list[str]
    # The paths places were declared by -> their path (``FlatNet.alias_paths``).
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def states(self) -> int:
        return self.graph.number_of_nodes()

    @property
    def arcs(self) -> int:
        return self.graph.number_of_edges()

    @property
    def dead_markings(self) -> list[int]:
        return [n for n, dead in self.graph.nodes(data="dead") if dead]

    def marking(self, node: int):
        return self.graph.nodes[node]["marking"]

    def expanded(self, node: int) -> bool:
        return self.graph.nodes[node]["expanded"]

    def successors(self, node: int) -> Iterator[tuple[int, int]]:
        """``(successor, arc key)`` of every arc out of ``node``."""
        for _, target, key in self.graph.out_edges(node, keys=True):
            yield target, key

    def place_bound(self, path: str) -> int:
        """Most tokens ``path`` held in any explored marking."""
        if path not in self.places and path not in self.aliases:
            raise UnknownNameError(f"no place '{path}' in the state space (places: "
                                   f"{', '.join(self.places)})")
        return max(len(m[path]) for _, m in self.graph.nodes(data="marking"))

    def is_bounded(self, path: str, bound: int) -> bool | None:
        """True/False when the graph is complete; None (unknown) otherwise,
        unless an explored marking already exceeds ``bound``."""
        if self.place_bound(path) > bound:
            return False
        return True if self.complete else None

    def path_to(self, node: int) -> list[tuple[int, int, int]]:
        """The arcs ``(source, target, key)`` of a shortest path from the
        initial marking to ``node``."""
        arcs = []
        while node in self.parents:
            parent, key = self.parents[node]
            arcs.append((parent, node, key))
            node = parent
        return arcs[::-1]

    def path(self, arcs: list[tuple[int, int, int]], loop: bool = False) -> Path:
        """A :class:`Path` along ``arcs`` (consecutive, from the initial
        marking); with ``loop``, the last arc closes a cycle.  Times are
        counted along the path, so they stay right when states a clock
        shift apart were merged."""
        nodes = [arcs[0][0] if arcs else 0]
        clock = self.marking(nodes[0]).time
        firings = []
        for source, target, key in arcs:
            data = self.graph.edges[source, target, key]
            clock += data["delay"]
            firing: Firing = data["firing"]
            firings.append(Firing(firing.transition, firing.values, clock, firing.draws))
            nodes.append(target)
        loop_from = None
        if loop:
            loop_from = nodes.index(nodes.pop())
        return Path(nodes, firings, [self.marking(n) for n in nodes], loop_from)
