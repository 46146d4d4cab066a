"""What a PNML file holds for this engine beside SNAKES' untimed view.

SNAKES has no time, no priorities and no code segments, so what
:func:`cpn.snakes_bridge.to_snakes` makes of a net is its untimed view:
that view is written first, for SNAKES and other PNML tools.  What it
lacks goes into ``<toolspecific tool="cpn" version="1">`` elements, the
place PNML keeps for one tool's own data, which other tools skip:

- in a place: ``<timed/>``, and its initial tokens in their order, each
  with its timestamp (``<token at="5.0">``) when it has one;
- in a transition: its ``<delay>``, ``<priority>`` and ``<code>`` segment;
- in an arc whose SNAKES label is not its inscription as written (a
  delay, a ``*iterable``, or the result of a code segment, which SNAKES
  reaches through a helper function): ``<inscription>``.

:mod:`cpn.pnml` reads these back, so a net comes back as it was, time,
priorities and code segments included.  It reads text in the expression
language of ``cpn.expressions`` and never unpickles; what it would refuse
is refused here first, naming the node, rather than written into a file
that cannot be read back.
"""

from __future__ import annotations

from typing import Any

from snakes.pnml import Tree

from .colours import FrozenDict
from .errors import NetError
from .expressions import is_plain, refused, same, text_trees
from .flatten import FlatNet, FlatPlace, FlatTransition
from .inscription import parse_terms
from .net import P_NORMAL, TimedToken
from .pnml import ENGINE_TOOL, ENGINE_VERSION


def check_readable(flat: FlatNet) -> None:
    """Refuse what :mod:`cpn.pnml` would not read back as this net: initial
    tokens that are not plain values, text outside the expression
    language, a name two modules bind differently."""
    for place in flat.places:
        for token in place.initial:
            value = token.value if isinstance(token, TimedToken) else token
            if not is_plain(value):
                raise NetError(
                    f"place '{place.path}': initial token {value!r} is not a plain value "
                    "(a number, string, boolean or None, or a tuple, list, set, frozenset, "
                    "dict or FrozenDict of them): PNML would hold it pickled, and cpn.pnml "
                    "never unpickles; give it in the marking the simulator starts from "
                    "(Simulator(net, marking=...)) instead")
    bound: dict[str, tuple[Any, str]] = {}
    for t in flat.transitions:
        _check_texts(flat, t)
        for name, value in t.env.items():
            first, where = bound.setdefault(name, (value, t.path))
            if not same(first, value):
                raise NetError(f"transitions '{where}' and '{t.path}': their modules bind "
                               f"{name!r} to different values, but a PNML net has one "
                               "namespace, so it would not read back as this net: give "
                               "them different names")


def _check_texts(flat: FlatNet, t: FlatTransition) -> None:
    """The reader's rule (``cpn.pnml``): no text reaching outside the net."""
    texts = [("guard", "guard", t.guard), ("delay", "delay", t.delay),
             ("code segment", "code", t.code)]
    texts += [(f"arc {flat.places[p].path} -> {t.path}", "inscription", text)
              for p, text in t.inputs]
    texts += [(f"arc {t.path} -> {flat.places[p].path}", "inscription", text)
              for p, text in t.outputs]
    for what, kind, text in texts:
        try:
            trees = text_trees(text, kind) if text else []
        except SyntaxError as error:
            raise NetError(f"transition '{t.path}', {what}: {text!r} is not valid Python "
                           f"({error.msg})") from None
        for bad in filter(None, (refused(tree, set(t.env)) for tree in trees)):
            raise NetError(f"transition '{t.path}', {what}: {bad[0]} in {text!r} would not "
                           f"read back from PNML, whose reader (cpn.pnml) refuses it: "
                           f"{bad[1]}")


def add_engine_data(net: Tree, flat: FlatNet) -> None:
    """Append to the places, transitions and arcs of SNAKES' ``<net>``
    tree what its untimed view lacks."""
    places = {place.path: place for place in flat.places}
    transitions = {t.path: t for t in flat.transitions}
    for child in net.children:
        if child.name == "place":
            data = _place_data(places[child["id"]])
        elif child.name == "transition":
            data = _transition_data(transitions[child["id"]])
        elif child.name == "arc":
            data = _arc_data(flat, transitions, child["source"], child["target"])
        else:
            continue
        if data:
            child.add_child(Tree("toolspecific", None, *data, tool=ENGINE_TOOL,
                                 version=ENGINE_VERSION))


def _place_data(place: FlatPlace) -> list[Tree]:
    """Whether it is timed, and its tokens, all of them in order: SNAKES'
    multiset groups equal tokens (and takes ``True`` for ``1``), and holds
    no timestamp, frozenset or ``FrozenDict``."""
    data = [Tree("timed", None)] if place.timed else []
    tokens = []
    for token in place.initial:
        if isinstance(token, TimedToken):
            tokens.append(Tree("token", None, _object(token.value), at=repr(token.time)))
        else:
            tokens.append(Tree("token", None, _object(token)))
    return data + ([Tree("tokens", None, *tokens)] if tokens else [])


def _transition_data(t: FlatTransition) -> list[Tree]:
    data = [Tree("delay", t.delay)] if t.delay else []
    if t.priority != P_NORMAL:
        data.append(Tree("priority", str(t.priority)))
    if t.code:
        data.append(Tree("code", t.code))
    return data


def _arc_data(flat: FlatNet, transitions: dict[str, FlatTransition], source: str,
              target: str) -> list[Tree]:
    """The inscription as written, when SNAKES' label is not it (parallel
    arcs joined into one multiset, as SNAKES joins them)."""
    output = source in transitions
    t = transitions[source if output else target]
    place = target if output else source
    text = " ++ ".join(text for p, text in (t.outputs if output else t.inputs)
                       if flat.places[p].path == place)
    if (output and t.code) or any(term.delay or term.splat for term in parse_terms(text)):
        return [Tree("inscription", text)]
    return []


def _object(value: Any) -> Tree:
    """A plain value as SNAKES writes one; a ``FrozenDict`` or a
    ``frozenset``, which SNAKES would pickle, alike."""
    kind = type(value)
    if kind in (dict, FrozenDict):
        return Tree("object", None, *(Tree("item", None, Tree("key", None, _object(key)),
                                           Tree("value", None, _object(item)))
                                      for key, item in value.items()), type=kind.__name__)
    if kind in (tuple, list, set, frozenset):
        return Tree("object", None, *map(_object, value), type=kind.__name__)
    return Tree.from_obj(value)  # a number, a string, a boolean, None
