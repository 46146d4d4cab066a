"""Declaring a net: places, transitions, arcs, and modules.

A :class:`Net` is a declarative description; nothing runs until it is
flattened (``flatten.py``) and compiled by a :class:`~cpn.Simulator`.  A net
with port places is a module, usable any number of times through
substitution transitions; each use gets its own internal places.

>>> net = Net("loop")
>>> _ = net.place("P", int, initial=[0], timed=True)
>>> _ = net.transition("Tick")
>>> net.arc("P", "Tick", "x")
>>> net.arc("Tick", "P", "x + 1@+5")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, NamedTuple

from .colour_sets import Colour, accepts, colour_name, declared
from .errors import NetError
from .net_arguments import check_token_list, checked_priority, checked_text, socket_pairs

P_HIGH = 100
P_NORMAL = 1000
P_LOW = 10000

PORT_KINDS = ("in", "out", "inout")


#: The timestamp of a token that never becomes available (an infinite
#: delay): the clock never gets there; a net left with only such tokens is
#: dead.
NEVER = float("inf")


class TimedToken(NamedTuple):
    """A token with the time from which it is available."""

    value: Any
    time: float


def timed(value: Any, at: float) -> TimedToken:
    """Mark an initial token as available from time ``at``.  Made without
    the named tuple's ``__new__`` (a Python function): a trace marks every
    job this way."""
    return tuple.__new__(TimedToken, (value, float(at)))


class Delayed(NamedTuple):
    """An element of a ``*iterable`` output into a timed place that gets
    its own ``@+`` delay: CPN Tools' timed multisets, where each token of
    one arc expression may carry a different timestamp."""

    value: Any
    delay: float


#: Names every net's inscriptions know without its ``env`` giving them (an
#: ``env`` entry of the same name wins): ``Delayed`` is how a ``*iterable``
#: output gives its tokens their own delays, in a Python net as in a net file.
BUILT_IN_NAMES = {"Delayed": Delayed}


@dataclass
class Place:
    """A place: a colour set (a type, a union, a parameterised tuple,
    frozenset or FrozenDict, or a predicate: see ``colour_sets.py``),
    whether its tokens carry time, its initial marking, and optionally a
    fusion set or a port kind (``in``: the module takes or reads its tokens,
    ``out``: the module puts tokens there, ``inout``: both; checked where
    the module is used, see ``flatten.py``)."""

    name: str
    colour: Colour = None
    initial: list = field(default_factory=list)
    timed: bool = False
    fusion: str | None = None
    port: str | None = None

    def accepts(self, token: Any) -> bool:
        colour = self.colour  # a type or none at all, written out: a trace's million jobs
        if colour is None:
            return True
        if isinstance(colour, type):  # True is an int in Python, not in an int colour
            return isinstance(token, colour) and (colour is not int or type(token) is not bool)
        return accepts(colour, token)

    @property
    def colour_name(self) -> str:
        return colour_name(self.colour)


@dataclass
class Transition:
    """A transition: guard, ``@+`` delay, priority (lower fires first) and
    an optional code segment, all as text compiled once.

    The guard must be pure, as must input arc inscriptions: they are
    evaluated any number of times while bindings are searched, and not again
    while nothing they read changes, so they may not draw from ``rng``
    (refused when the net is built) and should call no function that
    changes anything.  Output arcs and the code segment run once per firing.

    A guard holds when Python's ``if`` takes it as true, not only when it
    is ``True`` as CPN Tools demands: ``"sel and sel[0].js <= free"`` (a
    queue ``sel`` that is not empty) reads as Python, and testing each
    value for a bool would cost every search.  So a function that forgets
    to ``return`` gives None, a guard that never holds.
    """

    name: str
    guard: str | None = None
    delay: str | None = None
    priority: int = P_NORMAL
    code: str | None = None


@dataclass
class Arc:
    """An arc from a place to a transition (input) or back (output)."""

    source: str
    target: str
    inscription: str


@dataclass
class Substitution:
    """A substitution transition: an instance of ``module`` whose port
    places are the ``sockets``, (port name, place of the enclosing net)
    pairs in the order given."""

    name: str
    module: "Net"
    sockets: list[tuple[str, str]]


class Net:
    """A coloured Petri net, or a module when it has port places.

    ``env`` holds the functions and constants its inscriptions may use:
    nothing else is visible to them but bound variables, ``now`` (the
    clock), ``rng`` (the model's seeded ``numpy.random.Generator``) and
    :data:`BUILT_IN_NAMES` (``Delayed``).
    """

    def __init__(self, name: str, env: dict[str, Any] | None = None):
        if not isinstance(name, str):
            raise NetError(f"a net's name is a str, not {name!r}")
        if not isinstance(env, (Mapping, type(None))):  # else a TypeError of dict()
            raise NetError(f"net '{name}': env maps names to the functions and constants "
                           f"its inscriptions use (a dict), not {env!r}")
        self.name = name
        self.env: dict[str, Any] = dict(env or {})
        self.places: dict[str, Place] = {}
        self.transitions: dict[str, Transition] = {}
        self.arcs: list[Arc] = []
        self.substitutions: dict[str, Substitution] = {}

    def _check_new_name(self, name: str) -> None:
        if not isinstance(name, str) or not name or "/" in name:
            raise NetError(f"net '{self.name}': invalid node name {name!r} "
                           "(must be a non-empty str, without '/')")
        if name in self.places or name in self.transitions or name in self.substitutions:
            raise NetError(f"net '{self.name}': a node named '{name}' already exists")

    def place(self, name: str, colour: Colour = None, initial: Iterable = (),
              timed: bool = False, fusion: str | None = None,
              port: str | None = None) -> Place:
        self._check_new_name(name)
        if port is not None and port not in PORT_KINDS:
            raise NetError(f"net '{self.name}', place '{name}': port must be one of "
                           f"{PORT_KINDS}, not {port!r}")
        if port is not None and fusion is not None:
            raise NetError(f"net '{self.name}', place '{name}': a port place cannot be in "
                           f"fusion set {fusion!r}: where the module is used, it is its "
                           "socket (put the socket in the fusion set instead)")
        where = f"net '{self.name}', place '{name}'"
        if not isinstance(timed, bool):  # timed="no" is true: the place was timed
            raise NetError(f"{where}: timed must be True or False, not {timed!r}")
        if not (fusion is None or isinstance(fusion, str) and fusion):
            raise NetError(f"{where}: a fusion set is named by a non-empty str, not {fusion!r}")
        colour = declared(colour, where)
        check_token_list(initial, where, f"initial=[{initial!r}]")
        place = Place(name, colour, list(initial), timed, fusion, port)
        self.places[name] = place
        return place

    def transition(self, name: str, guard: str | None = None,
                   delay: str | float | None = None, priority: int = P_NORMAL,
                   code: str | None = None, inputs: dict[str, str] | None = None,
                   outputs: dict[str, str] | None = None) -> Transition:
        """A transition; ``inputs`` / ``outputs`` (place -> inscription)
        declare its arcs at once, as :meth:`arc` would one by one."""
        self._check_new_name(name)
        where = f"net '{self.name}', transition '{name}'"
        priority = checked_priority(priority, where)
        for arcs, example in ((inputs, "inputs={'P': 'x'}"), (outputs, "outputs={'P': 'x + 1'}")):
            if not isinstance(arcs, (Mapping, type(None))):  # a list of places: an AttributeError
                raise NetError(f"{where}: give arcs as a dict of place -> inscription, e.g. "
                               f"{example}, not {arcs!r}")
        transition = Transition(name, checked_text(guard, "guard='x < 10'", where),
                                None if delay is None else str(delay), priority,
                                checked_text(code, "code='y = f(x)'", where))
        self.transitions[name] = transition
        for place, inscription in (inputs or {}).items():
            self.arc(place, name, inscription)
        for place, inscription in (outputs or {}).items():
            self.arc(name, place, inscription)
        return transition

    def arc(self, source: str, target: str, inscription: str | int | float) -> None:
        """An arc ``place -> transition`` (input) or ``transition -> place``
        (output); which one is checked when the net is built."""
        self.arcs.append(Arc(source, target, str(inscription)))

    def substitution(self, name: str, module: "Net",
                     sockets: dict[str, str] | Iterable[tuple[str, str]]) -> Substitution:
        """Instantiate ``module`` here, its ports assigned to ``sockets``
        (a dict port -> socket, or (port, socket) pairs)."""
        self._check_new_name(name)
        if not isinstance(module, Net):  # else an AttributeError of flattening
            raise NetError(f"net '{self.name}', substitution '{name}': the module must be a "
                           f"Net, not {module!r}")
        pairs = socket_pairs(sockets, f"net '{self.name}', substitution '{name}'")
        sub = Substitution(name, module, pairs)
        self.substitutions[name] = sub
        return sub

    def flatten(self):
        """The flat net a simulator runs (see ``flatten.py``)."""
        from .flatten import flatten
        return flatten(self)

    def __repr__(self) -> str:
        """A summary a notebook shows when Graphviz is missing: the counts,
        then the first nodes of each kind by name."""
        places = [f"{name}: {place.colour_name}"
                  + (" timed" if place.timed else "")
                  + (f" ({_count(len(place.initial), 'token')})" if place.initial else "")
                  for name, place in self.places.items()]
        transitions = [name + (f" [{t.guard}]" if t.guard else "")
                       for name, t in self.transitions.items()]
        modules = [f"{name}: {sub.module.name}" for name, sub in self.substitutions.items()]
        lines = [f"Net {self.name!r}: {_count(len(self.places), 'place')}, "
                 f"{_count(len(self.transitions), 'transition')}, "
                 f"{_count(len(self.arcs), 'arc')}"
                 + (f", {_count(len(modules), 'substitution transition')}" if modules else "")]
        for heading, names in (("places", places), ("transitions", transitions),
                               ("modules", modules)):
            if names:
                lines.append(f"  {heading:<12} {_listed(names)}")
        return "\n".join(lines)

    def _repr_html_(self) -> str | None:
        """Jupyter draws the net (top level, as ``cpn.drawing`` does), inline
        in HTML as a ``Simulator`` draws itself, so that a large net scales
        to the cell (an SVG output keeps its own size, and scrolls); None
        when Graphviz's ``dot`` is missing, so Jupyter shows the text."""
        from .drawing import DrawingError, render, to_graphviz  # drawing imports net
        try:
            svg = render(to_graphviz(self)).decode("utf-8")
        except DrawingError:
            return None
        return svg[svg.index("<svg"):]

    # -- editing: each method checks and validates as editing.py says ---------
    def copy(self) -> "Net":
        """A copy to edit on its own (modules copied, tokens and functions shared)."""
        from .editing import copy_net
        return copy_net(self)

    def edit(self):
        """``with net.edit():`` validate once at the end; undo every edit if invalid."""
        from .editing import editing
        return editing(self)

    def remove_place(self, path: str) -> list[Arc]:
        """Remove a place and the arcs joining it (returned)."""
        from .editing import remove_place
        return remove_place(self, path)

    def remove_transition(self, path: str) -> list[Arc]:
        """Remove a (substitution) transition and the arcs joining it (returned)."""
        from .editing import remove_transition
        return remove_transition(self, path)

    def remove_arc(self, source: str, target: str, inscription: str | None = None) -> Arc:
        """Remove the arc ``source -> target`` (the one inscribed ``inscription``)."""
        from .editing import remove_arc
        return remove_arc(self, source, target, inscription)

    def set_inscription(self, source: str, target: str, text: str | int | float,
                        old: str | None = None) -> None:
        """Change the inscription of the arc ``source -> target`` (the one inscribed ``old``)."""
        from .editing import set_inscription
        set_inscription(self, source, target, text, old)

    def set_guard(self, path: str, guard: str | None) -> None:
        from .editing import change_transition
        change_transition(self, path, guard=guard)

    def set_delay(self, path: str, delay: str | float | None) -> None:
        from .editing import change_transition
        change_transition(self, path, delay=delay)

    def set_priority(self, path: str, priority: int) -> None:
        from .editing import change_transition
        change_transition(self, path, priority=priority)

    def set_code(self, path: str, code: str | None) -> None:
        from .editing import change_transition
        change_transition(self, path, code=code)

    def set_colour(self, path: str, colour: Colour) -> None:
        from .editing import change_place
        change_place(self, path, colour=colour)

    def set_initial(self, path: str, tokens: Iterable) -> None:
        from .editing import change_place
        change_place(self, path, initial=tokens)

    def set_env(self, path: str, value: Any) -> None:
        """Bind a name of the environment (``"Scheduler/schedule"``: a module's)."""
        from .editing import set_env
        set_env(self, path, value)

    def rename(self, path: str, new: str) -> None:
        """Rename a node; its arcs, socket and port maps follow."""
        from .editing import rename
        rename(self, path, new)

    def replace_module(self, path: str, module: "Net",
                       sockets: dict[str, str] | Iterable[tuple[str, str]] | None = None) -> None:
        """Instantiate ``module`` at substitution ``path`` (ports checked against sockets)."""
        from .editing import replace_module
        replace_module(self, path, module, sockets)

    def save(self, path, functions: dict[str, Any] | None = None) -> None:
        """Write the net to a TOML data file (``cpn.load`` reads it; see netfile.py)."""
        from .netfile import save
        save(self, path, functions)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _listed(names: list[str], limit: int = 8) -> str:
    """The first ``limit`` names, then how many more."""
    shown = ", ".join(names[:limit])
    return shown + (f", … ({len(names) - limit} more)" if len(names) > limit else "")
