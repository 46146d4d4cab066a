"""Flattening a hierarchical net into the one flat net a simulator runs.

Every substitution transition is replaced by a copy of its module whose
port places are the sockets, and whose other nodes are named by their path
(``Scheduler/EASY``).  Places of one fusion set become a single place,
named by the fusion set.  All structural errors (missing nodes, unassigned
or doubly assigned ports, ports used against their direction, colour
mismatches between a port and its socket or within a fusion set) are raised
here, before anything runs.

Port directions follow CPN Tools, where an input port is assigned to a
socket the substitution transition takes from, an output port to one it
puts into, an input/output port to one it does both with.  Here the
substitution transition is the module itself, so the rule applies to the
module's own arcs (those of nested modules included): the module may take
or read the tokens of an ``in`` port but never put any there (the outside
does), may put tokens into an ``out`` port but never take or read them;
``inout`` allows both.  A read arc (the same variable in and out of an
untimed place) puts nothing: it leaves the token where it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .colour_sets import bool_hint
from .errors import ColourError, NetError, UnknownNameError
from .net import BUILT_IN_NAMES, Delayed, Net, Place, TimedToken

#: Why a token must be hashable, for messages.
IMMUTABLE = ("tokens are immutable values (a tuple, a frozenset, a frozen dataclass), "
             "so that markings can be compared, stored and undone")


def hashable(value: Any) -> bool:
    """Whether ``value`` can be a token (nested values included)."""
    try:
        hash(value)
    except TypeError:
        return False
    return True


@dataclass
class FlatPlace:
    index: int
    path: str
    place: Place  # the declaration that created it (colour, timed)
    initial: list = field(default_factory=list)  # of the whole fusion set, if fused
    net: str = ""  # the name of the net it is a place of, for messages

    @property
    def timed(self) -> bool:
        return self.place.timed

    def accepts(self, token: Any) -> bool:
        return self.place.accepts(token)

    @property
    def where(self) -> str:
        """How a message names the place (and its net, when known)."""
        return f"net '{self.net}', place '{self.path}'" if self.net else f"place '{self.path}'"

    def initial_token(self, token: Any) -> tuple[Any, float]:
        """An initial token as ``(value, timestamp)``, refused, naming the
        place, if it cannot be one of its tokens: a ``Delayed``, not
        hashable, not of the place's colour, or timed in an untimed place."""
        # (the place's own tests written out: a trace's million jobs come this way)
        at_time = isinstance(token, TimedToken)
        value, stamp = token if at_time else (token, 0.0)
        if isinstance(value, Delayed):
            raise NetError(f"{self.where}: initial token {value!r}: a Delayed is an output "
                           "arc's token with its delay; an initial token takes its time from "
                           "timed(value, at)")
        try:
            hash(value)
        except TypeError:
            raise ColourError(f"{self.where}: initial token {value!r} is not hashable: "
                              f"{IMMUTABLE}") from None
        place = self.place
        try:
            accepted = place.accepts(value)
        except Exception as error:  # noqa: BLE001 - a predicate colour's own fault
            raise ColourError(f"{self.where}: initial token {value!r}: testing it against "
                              f"colour {place.colour_name} failed: {error!r}") from error
        if not accepted:
            raise ColourError(f"{self.where}: initial token {value!r} is not of colour "
                              f"{place.colour_name}" + bool_hint(place.colour, value))
        if at_time and not place.timed:
            raise NetError(f"{self.where} is untimed: its initial tokens cannot carry a "
                           "timestamp")
        stamp = float(stamp)
        if stamp != stamp:  # NaN: the clock would become NaN when it came in
            raise NetError(f"{self.where}: initial token {value!r} at time nan: a timestamp "
                           "is a number")
        return value, stamp


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
    # The declared paths of places that became another one: a port is its
    # socket, a member of a fusion set is the fused place.
    aliases: dict[str, int] = field(default_factory=dict)
    # Set by the simulator: its places of one token (``singletons.singleton_places``),
    # and its compiled transitions for each set of them that a marking holds.
    singletons: frozenset | None = field(default=None, repr=False)
    compiled: dict = field(default_factory=dict, repr=False)

    def place_index(self, path: str) -> int:
        """The place named ``path``, or declared as ``path`` (a port, a
        member of a fusion set)."""
        for place in self.places:
            if place.path == path:
                return place.index
        if path in self.aliases:
            return self.aliases[path]
        raise UnknownNameError(f"no place '{path}' in net '{self.name}' "
                               f"(places: {', '.join(p.path for p in self.places)})")

    def place_path(self, name: str) -> str:
        """The path of the place :meth:`place_index` finds by ``name``: how
        the stepper, the web page and queries read a name a user gives."""
        return self.places[self.place_index(name)].path

    def place_names(self) -> list[str]:
        """Every name :meth:`place_index` knows: the places' paths, then
        the paths they were declared by (ports, fusion set members)."""
        return [place.path for place in self.places] + list(self.aliases)

    @cached_property
    def alias_paths(self) -> dict[str, str]:
        """Each declared path of :attr:`aliases` -> :meth:`place_path` of
        it: what a marking also answers to (``Marking``)."""
        return {name: self.place_path(name) for name in self.aliases}

    def transition_index(self, path: str) -> int:
        for transition in self.transitions:
            if transition.path == path:
                return transition.index
        raise UnknownNameError(f"no transition '{path}' in net '{self.name}' "
                               f"(transitions: {', '.join(t.path for t in self.transitions)})")


def flatten(net: Net) -> FlatNet:
    builder = _Flattener(net.name)
    builder.expand(net, prefix="", sockets={})
    flat = FlatNet(net.name, builder.places, builder.transitions, builder.aliases)
    names: dict[str, int] = {}
    for place in flat.places:
        if names.setdefault(place.path, place.index) != place.index:
            raise NetError(f"net '{net.name}': fusion set '{place.path}' has the name of "
                           "a place: rename one")
    for path, index in flat.aliases.items():
        if names.get(path, index) != index:
            raise NetError(f"net '{net.name}': fusion set '{path}' has the name of a "
                           "place: rename one")
    for place in flat.places:
        for token in place.initial:
            place.initial_token(token)
    return flat


def _same_colour(port: Place, socket: Place) -> bool:
    return port.colour == socket.colour and port.timed == socket.timed


def _kind(place: Place) -> str:
    """What must agree between fused places, or a port and its socket."""
    return f"colour {place.colour_name}, {'timed' if place.timed else 'untimed'}"


class _Flattener:
    def __init__(self, name: str):
        self.name = name
        self.places: list[FlatPlace] = []
        self.transitions: list[FlatTransition] = []
        self.aliases: dict[str, int] = {}
        self.fusion: dict[str, FlatPlace] = {}
        self.first_member: dict[str, str] = {}  # fusion set -> its first member's path
        self.marked_by: dict[str, str] = {}  # fusion set -> the member giving its marking
        self.expanding: list[Net] = []  # the nets being expanded, outermost first

    def fail(self, message: str) -> NetError:
        return NetError(f"net '{self.name}', {message}")

    def new_place(self, path: str, place: Place) -> int:
        if place.fusion is None:
            flat = FlatPlace(len(self.places), path, place, list(place.initial), self.name)
            self.places.append(flat)
            return flat.index
        fused = self.fusion.get(place.fusion)
        if fused is None:
            fused = FlatPlace(len(self.places), place.fusion, place, net=self.name)
            self.places.append(fused)
            self.fusion[place.fusion] = fused
            self.first_member[place.fusion] = path
        elif not _same_colour(fused.place, place):
            raise self.fail(f"place '{path}' ({_kind(place)}): fusion set "
                           f"'{place.fusion}' joins it to '{self.first_member[place.fusion]}' "
                           f"({_kind(fused.place)})")
        if place.initial:
            if place.fusion not in self.marked_by:
                fused.initial = list(place.initial)
                self.marked_by[place.fusion] = path
            elif place.initial != fused.initial:
                raise self.fail(
                    f"place '{path}': its initial marking {place.initial!r} differs from "
                    f"{fused.initial!r}, given by '{self.marked_by[place.fusion]}' of the "
                    f"same fusion set '{place.fusion}' (one place, one initial marking)")
        if path != fused.path:
            self.aliases[path] = fused.index
        return fused.index

    def expand(self, net: Net, prefix: str, sockets: dict[str, int]) -> None:
        where = prefix.rstrip("/") or net.name
        self.expanding.append(net)
        local: dict[str, int] = {}
        for name, place in net.places.items():
            if prefix and place.port is not None:
                if name not in sockets:
                    raise self.fail(f"module '{net.name}' at '{where}': port '{name}' "
                                   "is not assigned to a socket")
                if place.initial:
                    raise self.fail(f"module '{net.name}' at '{where}': port '{name}' has "
                                   f"initial tokens {place.initial!r}, but a port's marking "
                                   f"is its socket's, '{self.places[sockets[name]].path}': "
                                   "give them to the socket")
                local[name] = sockets[name]
                self.aliases[prefix + name] = sockets[name]
            else:
                local[name] = self.new_place(prefix + name, place)

        for name, sub in net.substitutions.items():
            self.expand_substitution(net, prefix, sub, local)

        transitions: dict[str, FlatTransition] = {}
        env = {**BUILT_IN_NAMES, **net.env}
        for name, transition in net.transitions.items():
            flat = FlatTransition(len(self.transitions), prefix + name, transition.guard,
                                  transition.delay, transition.priority, transition.code,
                                  env)
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
        self.expanding.pop()

    def expand_substitution(self, net: Net, prefix: str, sub, local: dict[str, int]) -> None:
        module, path = sub.module, prefix + sub.name
        if any(module is outer for outer in self.expanding):  # it would expand forever
            inside = f" of module '{net.name}'" if prefix else ""
            raise self.fail(f"substitution '{path}'{inside}: module '{module.name}' contains "
                            "itself")
        assigned: dict[str, int] = {}
        used_sockets: dict[str, str] = {}
        for port, socket in sub.sockets:
            if port not in module.places or module.places[port].port is None:
                raise self.fail(f"substitution '{path}': module '{module.name}' has no "
                               f"port named '{port}'")
            if port in assigned:
                raise self.fail(f"substitution '{path}': port '{port}' is assigned twice")
            if socket in used_sockets:
                raise self.fail(f"substitution '{path}': socket '{socket}' is assigned to "
                               f"both ports '{used_sockets[socket]}' and '{port}'")
            if socket not in net.places:
                raise self.fail(f"substitution '{path}': socket '{socket}' for port "
                               f"'{port}' is not a place of '{net.name}'")
            port_place, socket_place = module.places[port], net.places[socket]
            if not _same_colour(port_place, socket_place):
                raise self.fail(
                    f"substitution '{path}': socket '{socket}' ({_kind(socket_place)}) does "
                    f"not match port '{port}' ({_kind(port_place)})")
            assigned[port] = local[socket]
            used_sockets[socket] = port
        first = len(self.transitions)
        self.expand(module, path + "/", assigned)
        self.check_port_directions(path, module, assigned, self.transitions[first:])

    def check_port_directions(self, path: str, module: Net, assigned: dict[str, int],
                              transitions: list[FlatTransition]) -> None:
        """The module instance at ``path`` (its ``transitions``) uses each
        port the way its kind allows (see the module docstring)."""
        for port, index in assigned.items():
            kind = module.places[port].port
            if kind == "inout":
                continue
            socket = self.places[index].path
            for t in transitions:
                if kind == "in":
                    _, produced = t.read_arcs(self.places)
                    if any(place == index for place, _ in produced):
                        raise self.fail(
                            f"substitution '{path}': port '{port}' is an input port "
                            f"(port='in') but transition '{t.path}' puts tokens into it "
                            f"(socket '{socket}'); only the outside may: make it "
                            "port='inout'")
                elif any(place == index for place, _ in t.inputs):
                    raise self.fail(
                        f"substitution '{path}': port '{port}' is an output port "
                        f"(port='out') but transition '{t.path}' takes or reads its tokens "
                        f"(socket '{socket}'); only the outside may: make it port='inout'")
