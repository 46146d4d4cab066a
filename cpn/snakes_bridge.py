"""Our nets as SNAKES nets: the reference for untimed semantics and the
road to PNML.

SNAKES has no time and no priorities, so the export is the *untimed* view
of a flat net: timestamps, ``@+`` delays and priorities are dropped (with a
warning when the net uses them).  Input arcs may carry variables,
constants, tuple patterns and multisets of those; SNAKES allows no
expression on an input arc, so such an arc is refused with its name.
"""

from __future__ import annotations

import ast
import warnings

import snakes.nets as sn
import snakes.pnml

from .errors import NetError
from .flatten import FlatNet
from .inscription import check_expression, parse_terms
from .net import Net, P_NORMAL, TimedToken


def _input_label(node: ast.expr, env: dict, what: str):
    if isinstance(node, ast.Name) and node.id not in env:
        return sn.Variable(node.id)
    if isinstance(node, ast.Tuple):
        return sn.Tuple([_input_label(e, env, what) for e in node.elts])
    try:
        return sn.Value(eval(compile(ast.Expression(node), what, "eval"), dict(env)))
    except NameError:
        raise NetError(f"{what}: SNAKES allows no expression over variables on an "
                       f"input arc ({ast.unparse(node)!r})") from None


def _arc_label(text: str, output: bool, env: dict, what: str):
    labels = []
    for term in parse_terms(text):
        if term.splat or not isinstance(term.multiplicity, int):
            raise NetError(f"{what}: '{term}' has no SNAKES equivalent")
        label = (sn.Expression(term.expr) if output
                 else _input_label(check_expression(term.expr), env, what))
        labels += [label] * term.multiplicity
    return labels[0] if len(labels) == 1 else sn.MultiArc(labels)


def _joined(arcs: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Parallel arcs between one place and one transition as one multiset
    arc (``x`` and ``y`` become ``x ++ y``): SNAKES allows one arc per pair."""
    texts: dict[int, list[str]] = {}
    for place, text in arcs:
        texts.setdefault(place, []).append(text)
    return [(place, " ++ ".join(parts)) for place, parts in texts.items()]


def to_snakes(net: Net | FlatNet, warn: bool = True) -> sn.PetriNet:
    """The untimed view of ``net`` as a ``snakes.nets.PetriNet``."""
    flat = net.flatten() if isinstance(net, Net) else net
    result = sn.PetriNet(flat.name)
    dropped = set()
    for place in flat.places:
        tokens = [t.value if isinstance(t, TimedToken) else t for t in place.initial]
        result.add_place(sn.Place(place.path, tokens))  # hashable: flatten checked
        if place.timed:
            dropped.add("time")
    for t in flat.transitions:
        if t.code:
            raise NetError(f"transition '{t.path}': a code segment has no SNAKES equivalent")
        for name, value in t.env.items():
            result.globals[name] = value
        guard = sn.Expression(t.guard) if t.guard else None
        result.add_transition(sn.Transition(t.path, guard))
        if t.delay:
            dropped.add("time")
        if t.priority != P_NORMAL:
            dropped.add("priorities")
        for place, text in _joined(t.inputs):
            what = f"arc {flat.places[place].path} -> {t.path} '{text}'"
            result.add_input(flat.places[place].path, t.path,
                             _arc_label(text, False, t.env, what))
        for place, text in _joined(t.outputs):
            what = f"arc {t.path} -> {flat.places[place].path} '{text}'"
            if any(term.delay for term in parse_terms(text)):
                dropped.add("time")
            result.add_output(flat.places[place].path, t.path,
                              _arc_label(text, True, t.env, what))
    if warn and dropped:
        warnings.warn(f"net '{flat.name}' exported to SNAKES without its "
                      f"{' and '.join(sorted(dropped))}", stacklevel=2)
    return result


def to_pnml(net: Net | FlatNet, warn: bool = True) -> str:
    """PNML text of the untimed view (through SNAKES); ``cpn.pnml.from_pnml``
    reads it back."""
    return snakes.pnml.dumps(to_snakes(net, warn=warn))
