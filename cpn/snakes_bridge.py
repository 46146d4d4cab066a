"""Our nets as SNAKES nets: the reference for untimed semantics and the
road to PNML.

SNAKES has no time and no priorities, so the export is the *untimed* view
of a flat net: timestamps, ``@+`` delays and priorities are dropped (with a
warning when the net uses them), and ``now`` reads 0.  Input arcs may carry
variables, constants, tuple patterns and multisets of those; SNAKES allows
no expression on an input arc, so such an arc is refused with its name.
SNAKES has no code segments either: a transition's code segment becomes a
function of the variables it reads, and each output arc that uses one of
its results calls it (the code is the net's own, run as the engine runs
it); a ``*iterable`` output becomes a SNAKES flush arc.

:func:`to_pnml` writes that view and, beside it, what the view lacks
(``cpn.pnml_engine``), so that ``cpn.pnml`` reads the net back whole.
"""

from __future__ import annotations

import ast
import builtins
import re
import warnings

import snakes.nets as sn
import snakes.pnml

from .editing import hierarchy
from .errors import NetError
from .flatten import FlatNet
from .inscription import CodeSegment, check_expression, parse_terms
from .net import BUILT_IN_NAMES, Delayed, Net, P_NORMAL, TimedToken
from .pnml_engine import add_engine_data, check_readable
from .syntax_trees import compile_expression, parse

#: The clock in the untimed view.
UNTIMED_NOW = 0.0


def _input_label(node: ast.expr, env: dict, what: str):
    if isinstance(node, ast.Name) and node.id not in env:
        return sn.Variable(node.id)
    if isinstance(node, ast.Tuple) and node.elts:  # () is a constant
        return sn.Tuple([_input_label(e, env, what) for e in node.elts])
    try:
        return sn.Value(eval(compile_expression(node, what), dict(env)))
    except NameError:
        raise NetError(f"{what}: SNAKES allows no expression over variables on an "
                       f"input arc ({ast.unparse(node)!r})") from None


def _arc_label(text: str, output: bool, env: dict, what: str, rewrite=lambda expr: expr,
               timed: bool = False):
    """The SNAKES annotation of an arc; into a ``timed`` place, the elements
    of a ``*iterable`` are stripped of the delays ``Delayed`` gives them."""
    labels = []
    for term in parse_terms(text):
        if (term.splat and not output) or not isinstance(term.multiplicity, int):
            raise NetError(f"{what}: '{term}' has no SNAKES equivalent")
        expr = rewrite(term.expr)
        if term.splat:
            label = sn.Flush(f"_cpn_untimed_all({expr})" if timed else expr)
        elif output:
            label = sn.Expression(expr)
        else:
            label = _input_label(check_expression(term.expr), env, what)
        labels += [label] * term.multiplicity
    return labels[0] if len(labels) == 1 else sn.MultiArc(labels)


def _untimed_all(values) -> list:
    """Tokens as the untimed view holds them: without their own delays."""
    return [value.value if type(value) is Delayed else value for value in values]


class _CodeSegment:
    """A transition's code segment as a function of the variables it reads,
    returning the values of those it sets: what SNAKES' output arcs call."""

    def __init__(self, text: str, env: dict, path: str):
        segment = CodeSegment(text)
        self.outputs = segment.outputs
        assigned = set(self.outputs)
        self.reads = sorted({node.id for node in ast.walk(segment.tree)
                             if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
                             and node.id not in env and node.id not in assigned
                             and node.id != "now" and not hasattr(builtins, node.id)})
        self.code = compile(segment.source, f"<code segment of {path}>", "exec")
        self.env = env

    def __call__(self, *values) -> tuple:
        scope = {**self.env, "now": UNTIMED_NOW, **dict(zip(self.reads, values))}
        exec(self.code, scope)  # the net's own code, as the engine runs it
        return tuple(scope[name] for name in self.outputs)

    def rewrite(self, function: str):
        """Output expressions with each result of the code segment replaced
        by a call of ``function`` on the variables it reads."""
        call = f"{function}({', '.join(self.reads)}{',' if len(self.reads) == 1 else ''})"

        class Results(ast.NodeTransformer):
            def visit_Name(inner, node):  # noqa: N805 - the transformer's own self
                if isinstance(node.ctx, ast.Load) and node.id in self.outputs:
                    index = self.outputs.index(node.id)
                    return parse(f"{call}[{index}]", mode="eval").body
                return node

        return lambda expr: ast.unparse(Results().visit(parse(expr, mode="eval")))


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
    if any(flat.places[place].timed and any(term.splat for term in parse_terms(text))
           for t in flat.transitions for place, text in t.outputs):
        result.globals["_cpn_untimed_all"] = _untimed_all
    texts = [text for t in flat.transitions
             for text in (t.guard, t.code, *(text for _, text in t.inputs + t.outputs))
             if text]
    if any(re.search(r"\bnow\b", text) for text in texts):
        result.globals["now"] = UNTIMED_NOW
        dropped.add("time")
    for index, t in enumerate(flat.transitions):
        for name, value in t.env.items():
            if value is not BUILT_IN_NAMES.get(name) or any(
                    re.search(rf"\b{name}\b", text) for text in texts):  # a built-in if used
                result.globals[name] = value
        rewrite = lambda expr: expr  # noqa: E731
        if t.code:
            segment = _CodeSegment(t.code, t.env, t.path)
            result.globals[f"_cpn_code_{index}"] = segment
            rewrite = segment.rewrite(f"_cpn_code_{index}")
        guard = sn.Expression(t.guard) if t.guard else None
        result.add_transition(sn.Transition(t.path, guard))
        if t.delay:
            dropped.add("time")
        if t.priority != P_NORMAL:
            dropped.add("priorities")
        for place, text in _joined(t.inputs):
            what = f"arc {flat.places[place].path} -> {t.path} {text!r}"
            result.add_input(flat.places[place].path, t.path,
                             _arc_label(text, False, t.env, what))
        for place, text in _joined(t.outputs):
            what = f"arc {t.path} -> {flat.places[place].path} {text!r}"
            if any(term.delay for term in parse_terms(text)):
                dropped.add("time")
            result.add_output(flat.places[place].path, t.path,
                              _arc_label(text, True, t.env, what, rewrite,
                                         flat.places[place].timed))
    if warn and dropped:
        warnings.warn(f"net '{flat.name}' exported to SNAKES without its "
                      f"{' and '.join(sorted(dropped))}", stacklevel=2)
    return result


def to_pnml(net: Net | FlatNet) -> str:
    """PNML text of the flat net: SNAKES' untimed view, and beside it what
    the view lacks (``cpn.pnml_engine``), so ``cpn.pnml.from_pnml`` reads
    the net back as it was.  What that reader would refuse (text outside
    the language of ``cpn.expressions``, initial tokens that are not plain
    values, a name two modules bind differently, a colour without a name)
    is refused here, naming the node."""
    flat = net.flatten() if isinstance(net, Net) else net
    check_readable(flat)
    tree = snakes.pnml.Tree.from_obj(to_snakes(flat, warn=False))
    # the names of the colours: the nets' own (a net may have no transitions)
    envs = [each.env for each in hierarchy(net).values()] if isinstance(net, Net) else []
    add_engine_data(tree, flat, envs)
    return tree.to_pnml()
