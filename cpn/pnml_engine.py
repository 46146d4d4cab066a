"""What a PNML file holds for this engine beside SNAKES' untimed view.

SNAKES has no time, no priorities and no code segments, so what
:func:`cpn.snakes_bridge.to_snakes` makes of a net is its untimed view:
that view is written first, for SNAKES and other PNML tools.  What it
lacks goes into ``<toolspecific tool="cpn" version="2">`` elements, the
place PNML keeps for one tool's own data, which other tools skip:

- in a place: its ``<colour>`` as the net data files write it
  (``cpn.colour_text``: ``int | None``, ``tuple[Job, ...]``), whose
  names of types and predicates the reader takes from its ``env``;
  ``<timed/>``; and its initial tokens in their order, each
  with its timestamp (``<token at="5.0">``) when it has one; a token that
  holds records (frozen dataclasses, named tuples) as the term that builds
  it, ``<term>Job(id=1, js=4)</term>``, whose types the reader takes from
  its ``env`` as it takes functions (SNAKES' view holds such a token
  pickled, as SNAKES writes any object; ``cpn.pnml`` never reads that);
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

import dataclasses
import pickle
import types
import typing
from typing import Any

from snakes.pnml import Tree

from .colour_sets import colour_name
from .colour_text import SCALARS, ColourSpec, UnnamedColour, written_colour
from .colours import FrozenDict
from .errors import NetError
from .expressions import is_plain, literal, refused, same, text_trees
from .flatten import FlatNet, FlatPlace, FlatTransition
from .inscription import parse_terms
from .net import P_NORMAL, TimedToken
from .pnml import ENGINE_TOOL, ENGINE_VERSION


def check_readable(flat: FlatNet) -> None:
    """Refuse what :mod:`cpn.pnml` would not read back as this net: initial
    tokens that are neither plain values nor terms of records, text
    outside the expression language, a name two modules bind differently."""
    for place in flat.places:
        for token in place.initial:
            value = token.value if isinstance(token, TimedToken) else token
            if not is_plain(value):
                _check_record_token(place, value)
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


def _check_record_token(place: FlatPlace, value: Any) -> None:
    """A token that is no plain value is written as its term, and pickled
    in SNAKES' view: refuse it, naming the place, if either cannot be."""
    try:
        term(value, {})
        pickle.dumps(value)
        return
    except NetError as error:
        why = str(error)
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        why = (f"SNAKES' view of the net holds it pickled, and pickle says: {error} "
               "(define its type at the top level of a module)")
    raise NetError(f"place '{place.path}': initial token {value!r}: {why}; or give it in "
                   "the marking the simulator of the net read back starts from "
                   "(Simulator(net, marking=...))")


def term(value: Any, types: dict[str, type]) -> str:
    """``value`` as the expression that builds it: plain values as
    literals, tuples, frozensets and ``FrozenDict`` s of terms, records by
    their type's name and fields (``types`` collects the names, which
    must be distinct, and not start with ``_``: the reader's language
    refuses those); ``NetError`` for anything else."""
    kind = type(value)
    if is_plain(value):
        return literal(value)
    if kind is tuple:
        return f"({', '.join(term(item, types) for item in value)}{',' * (len(value) == 1)})"
    if kind is frozenset:
        return f"frozenset({{{', '.join(term(item, types) for item in value)}}})"
    if kind is FrozenDict:
        pairs = ", ".join(f"{term(k, types)}: {term(v, types)}" for k, v in value.items())
        return f"FrozenDict({{{pairs}}})"
    fields = ([f.name for f in dataclasses.fields(value) if f.init]
              if dataclasses.is_dataclass(value) else getattr(kind, "_fields", None))
    if fields is None or kind.__name__.startswith("_"):
        raise NetError(f"its type, {kind.__name__}, is neither plain (a number, a string, "
                       "...) nor a record with a public name (a frozen dataclass or a named "
                       "tuple), so PNML has no term for it")
    if types.setdefault(kind.__name__, kind) is not kind:
        raise NetError(f"two record types are named {kind.__name__}, which a term of PNML "
                       "cannot tell apart: rename one")
    arguments = ", ".join(f"{field}={term(getattr(value, field), types)}" for field in fields)
    return f"{kind.__name__}({arguments})"


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


def add_engine_data(net: Tree, flat: FlatNet, envs: list[dict[str, Any]]) -> None:
    """Append to the places, transitions and arcs of SNAKES' ``<net>``
    tree what its untimed view lacks; ``envs``, the environments of the
    nets it was flattened from, name colours (see :func:`place_colours`)."""
    places = {place.path: place for place in flat.places}
    transitions = {t.path: t for t in flat.transitions}
    env = _names(flat, envs)
    colours = place_colours(flat, env)
    for child in net.children:
        if child.name == "place":
            data = _place_data(places[child["id"]], colours.get(child["id"]), env)
        elif child.name == "transition":
            data = _transition_data(transitions[child["id"]])
        elif child.name == "arc":
            data = _arc_data(flat, transitions, child["source"], child["target"])
        else:
            continue
        if data:
            child.add_child(Tree("toolspecific", None, *data, tool=ENGINE_TOOL,
                                 version=ENGINE_VERSION))


def place_colours(flat: FlatNet, env: dict[str, Any]) -> dict[str, str]:
    """The colour of each place that has one, as text (``cpn.colour_text``)
    whose names the reader looks up in its ``env``: a type or a predicate
    by the name the net gives it (``env``, :func:`_names`),
    else by its own (a class's or a function's, as a record token's term
    names its type).  ``NetError``, naming the place, for a colour without
    a name (a lambda), or with a name the reader would take for something
    else."""
    taken: dict[str, Any] = {**env, **SCALARS, "any": typing.Any, "None": type(None)}
    texts = {}
    for place in flat.places:
        if place.place.colour is None:
            continue
        where = f"place '{place.path}'"
        try:
            texts[place.path] = written_colour(
                place.place.colour, lambda kind: _named(kind, env, taken, where)).text
        except UnnamedColour as error:
            raise NetError(f"{where}: its colour {colour_name(error.colour)!r} has no name "
                           "PNML can write: bind it to one in the net's env, and give "
                           "from_pnml(..., env=) the same") from None
    return texts


def _names(flat: FlatNet, envs: list[dict[str, Any]]) -> dict[str, Any]:
    """What each name stands for in the net (its nets' and transitions'
    environments): what the reader's ``env`` must give it."""
    return {name: value for each in [*envs, *(t.env for t in flat.transitions)]
            for name, value in each.items()}


def _named(kind: Any, env: dict[str, Any], taken: dict[str, Any],
           where: str) -> ColourSpec | None:
    """A colour that is neither built in nor made of others, by its name
    (see :func:`place_colours`); None when it has none."""
    name = next((name for name, value in env.items() if value is kind), None)
    if name is None and isinstance(kind, (type, types.FunctionType, typing.NewType)):
        name = kind.__name__
    if name is None or not name.isidentifier() or name.startswith("_"):
        return None
    if taken.setdefault(name, kind) is not kind:
        raise NetError(f"{where}: its colour {colour_name(kind)} has the name of the "
                       f"net's {name!r} ({taken[name]!r:.60}), which the reader of PNML, "
                       "finding colours by their names in env, would take: rename one")
    return ColourSpec(name, kind)


def _place_data(place: FlatPlace, colour: str | None, env: dict[str, Any]) -> list[Tree]:
    """Its colour, whether it is timed, and its tokens, all of them in
    order: SNAKES' multiset groups equal tokens (and takes ``True`` for
    ``1``), and holds no timestamp, frozenset or ``FrozenDict``, and
    records pickled.  A record is written as its term, whose types the
    reader takes from ``env`` by name: one the net's ``env`` binds to
    something else would be read back as that."""
    data = [Tree("colour", colour)] if colour is not None else []
    data += [Tree("timed", None)] if place.timed else []
    tokens = []
    for token in place.initial:
        at_time = isinstance(token, TimedToken)
        value = token.value if at_time else token
        types: dict[str, type] = {}
        written = _object(value) if is_plain(value) else Tree("term", term(value, types))
        for name, kind in types.items():
            if env.get(name, kind) is not kind:
                raise NetError(f"place '{place.path}': initial token {value!r:.60} is built "
                               f"by its type's name, {name}, which the net's env binds to "
                               f"{env[name]!r:.60}: the net read back would build that; "
                               "rename one")
        tokens.append(Tree("token", None, written, **({"at": repr(token.time)} if at_time
                                                       else {})))
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
