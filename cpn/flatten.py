"""Flattening a hierarchical net into the one flat net a simulator runs.

Every substitution transition is replaced by a copy of its module whose
port places are the sockets, and whose other nodes are named by their path
(``Scheduler/EASY``).  Places of one fusion set become a single place.  All
structural errors (missing nodes, unassigned or doubly assigned ports,
colour mismatches between a port and its socket) are raised here, before
anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import ColourError, NetError
from .net import Net, Place, TimedToken


@dataclass
class FlatPlace:
    index: int
    path: str
    place: Place  # the declaration that created it (colour, timed, initial)

    @property
    def timed(self) -> bool:
        return self.place.timed

    def accepts(self, token: Any) -> bool:
        return self.place.accepts(token)


@dataclass
class FlatTransition:
    index: int
    path: str
    guard: str | None
    delay: str | None
    priority: int
    code: str | None
    env: dict[str, Any]
    inputs: list[tuple[int, str]] = field(default_factory=list)
    outputs: list[tuple[int, str]] = field(default_factory=list)

    def read_arcs(self, places: list[FlatPlace]) -> tuple[set[int], list[tuple[int, str]]]:
        """Pair an input arc ``v`` with an output arc ``v`` to the same untimed
        place: the firing only reads that token, so it stays where it is (CPN
        Tools draws these as double arcs).  Returns the positions of the read
        input arcs and the output arcs that really produce (the rest)."""
        read: set[int] = set()
        produced = list(self.outputs)
        for position, (place, text) in enumerate(self.inputs):
            name = text.strip()
            if not name.isidentifier() or name in self.env or places[place].timed:
                continue
            for other, (out_place, out_text) in enumerate(produced):
                if out_place == place and out_text.strip() == name:
                    read.add(position)
                    del produced[other]
                    break
        return read, produced


@dataclass
class FlatNet:
    name: str
    places: list[FlatPlace]
    transitions: list[FlatTransition]
    compiled: list | None = field(default=None, repr=False)  # set by the simulator

    def place_index(self, path: str) -> int:
        for place in self.places:
            if place.path == path:
                return place.index
        raise KeyError(f"no place '{path}' in net '{self.name}' "
                       f"(places: {', '.join(p.path for p in self.places)})")

    def transition_index(self, path: str) -> int:
        for transition in self.transitions:
            if transition.path == path:
                return transition.index
        raise KeyError(f"no transition '{path}' in net '{self.name}'")


def flatten(net: Net) -> FlatNet:
    builder = _Flattener(net.name)
    builder.expand(net, prefix="", sockets={})
    flat = FlatNet(net.name, builder.places, builder.transitions)
    for place in flat.places:
        for token in place.place.initial:
            value = token.value if isinstance(token, TimedToken) else token
            if not place.accepts(value):
                raise ColourError(f"place '{place.path}': initial token {value!r} "
                                  f"is not of colour {place.place.colour_name}")
    return flat


def _same_colour(port: Place, socket: Place) -> bool:
    return port.colour == socket.colour and port.timed == socket.timed


class _Flattener:
    def __init__(self, name: str):
        self.name = name
        self.places: list[FlatPlace] = []
        self.transitions: list[FlatTransition] = []
        self.fusion: dict[str, FlatPlace] = {}

    def new_place(self, path: str, place: Place) -> int:
        if place.fusion is not None and place.fusion in self.fusion:
            member = self.fusion[place.fusion]
            if not _same_colour(member.place, place):
                raise NetError(f"place '{path}': fusion set '{place.fusion}' joins it to "
                               f"'{member.path}', whose colour set differs")
            if place.initial and place.initial != member.place.initial:
                raise NetError(f"place '{path}': fusion set '{place.fusion}' already has "
                               f"an initial marking from '{member.path}'")
            return member.index
        flat = FlatPlace(len(self.places), path, place)
        self.places.append(flat)
        if place.fusion is not None:
            self.fusion[place.fusion] = flat
        return flat.index

    def expand(self, net: Net, prefix: str, sockets: dict[str, int]) -> None:
        where = prefix.rstrip("/") or net.name
        local: dict[str, int] = {}
        for name, place in net.places.items():
            if prefix and place.port is not None:
                if name not in sockets:
                    raise NetError(f"module '{net.name}' at '{where}': port '{name}' "
                                   "is not assigned to a socket")
                local[name] = sockets[name]
            else:
                local[name] = self.new_place(prefix + name, place)

        for name, sub in net.substitutions.items():
            self.expand_substitution(net, prefix, sub, local)

        transitions: dict[str, FlatTransition] = {}
        for name, transition in net.transitions.items():
            flat = FlatTransition(len(self.transitions), prefix + name, transition.guard,
                                  transition.delay, transition.priority, transition.code,
                                  net.env)
            self.transitions.append(flat)
            transitions[name] = flat

        for arc in net.arcs:
            text = f"arc {arc.source} -> {arc.target} in '{where}'"
            if arc.source in local and arc.target in transitions:
                transitions[arc.target].inputs.append((local[arc.source], arc.inscription))
            elif arc.source in transitions and arc.target in local:
                transitions[arc.source].outputs.append((local[arc.target], arc.inscription))
            else:
                for end in (arc.source, arc.target):
                    if end in net.substitutions:
                        raise NetError(f"{text}: '{end}' is a substitution transition; "
                                       "connect its module through sockets instead")
                    if end not in local and end not in transitions:
                        raise NetError(f"{text}: no place or transition named '{end}'")
                raise NetError(f"{text}: an arc must join a place and a transition")

    def expand_substitution(self, net: Net, prefix: str, sub, local: dict[str, int]) -> None:
        module, path = sub.module, prefix + sub.name
        pairs = sub.sockets
        assigned: dict[str, int] = {}
        used_sockets: dict[str, str] = {}
        for port, socket in pairs:
            if port not in module.places or module.places[port].port is None:
                raise NetError(f"substitution '{path}': module '{module.name}' has no "
                               f"port named '{port}'")
            if port in assigned:
                raise NetError(f"substitution '{path}': port '{port}' is assigned twice")
            if socket in used_sockets:
                raise NetError(f"substitution '{path}': socket '{socket}' is assigned to "
                               f"both ports '{used_sockets[socket]}' and '{port}'")
            if socket not in net.places:
                raise NetError(f"substitution '{path}': socket '{socket}' for port "
                               f"'{port}' is not a place of '{net.name}'")
            port_place, socket_place = module.places[port], net.places[socket]
            if not _same_colour(port_place, socket_place):
                raise NetError(
                    f"substitution '{path}': socket '{socket}' (colour "
                    f"{socket_place.colour_name}, {'timed' if socket_place.timed else 'untimed'})"
                    f" does not match port '{port}' (colour {port_place.colour_name}, "
                    f"{'timed' if port_place.timed else 'untimed'})")
            assigned[port] = local[socket]
            used_sockets[socket] = port
        self.expand(module, path + "/", assigned)
