"""The Python source of a transition's two functions: search and fire.

The compiler (``compiler.py``) decides the order of a binding search as a
list of :class:`SearchStep`; this file writes it out as Python, and the
firing that follows.  Nothing is ``eval``'d per candidate binding.

The generated code reads the marking through globals bound to one
simulator's place lists (``_cpn_R3`` is place 3's available tokens,
``_cpn_S3`` their timestamps), so a compiled transition serves exactly one
simulator; the source is cached per flat net.

``_cpn_search(now, out)``: with ``out=None`` it returns the first binding
found, else it appends every binding to ``out``.  A binding is ``(picks,
values)``: the indices of the taken tokens in search order, and the values
of the transition's variables.  ``_cpn_fire(picks, values, now)``
evaluates every output first, then takes and puts tokens: a firing whose
inscription raises, or whose token is refused, leaves the marking as it
was.  It returns the transitions to search again, which the simulator
binds: ``_cpn_woken`` (itself included), or ``_cpn_others`` when it left
a place it takes from empty, since no search of it can then succeed.
"""

from __future__ import annotations

import ast
import textwrap
from typing import NamedTuple

from .flatten import FlatPlace
from .inscription import Term, binds
from .net import Delayed
from .syntax_trees import is_literal, literal

LOOKUP, BIND, TEST = "lookup", "bind", "test"


class InputToken(NamedTuple):
    """One token an input arc takes (``2`x`` takes two)."""

    place: int
    node: ast.expr  # the pattern it binds, or the expression it must equal
    arc: str  # ``arc P -> T 'x'``, for messages
    consumed: bool  # False for the input half of a read (double) arc


class SearchStep(NamedTuple):
    """One step of a binding search, in the order it runs: LOOKUP a token
    equal to a closed expression, BIND a pattern by looping over a place's
    tokens, or TEST a guard conjunct."""

    kind: str
    node: ast.expr  # the expression, the pattern, or the conjunct
    token: InputToken | None = None  # what a LOOKUP or a BIND takes


class Output(NamedTuple):
    """One output term of an arc inscription ``text`` into ``place``."""

    place: int
    term: Term
    text: str


def _pasted(text: str | int) -> str:
    """Inscription text as it goes into the generated code: in parentheses,
    so that text over several lines stays one expression, and the closing
    one on a line of its own after a ``#`` comment, which would swallow it."""
    return f"(\n{text}\n)" if "#" in str(text) else f"({text})"


def _indented(lines: list[str], prefix: str = "    ") -> list[str]:
    return [prefix + line for line in lines]


# -- the search ----------------------------------------------------------------

def search_source(steps: list[SearchStep], variables: list[str], env_names: set[str],
                  places: list[FlatPlace], held: frozenset = frozenset(),
                  key: tuple[int, int, str, bool] | None = None) -> str:
    """``held``: places that hold exactly one available token whatever
    fires (see ``compiler.py``); their token is read, not looped over.
    ``key``: see :func:`_bound_test`."""
    tokens = [step.token for step in steps if step.kind != TEST]
    lines = ["def _cpn_search(now, _cpn_out):"]
    lines += _indented(_shortage_test(tokens, held))
    picked: dict[int, list[str]] = {}  # place -> pick variables so far
    picks: list[str] = []
    bound: set[str] = set()
    depth = 0

    def emit(text: str) -> None:
        lines.append("    " * (depth + 1) + text)

    def give_up() -> str:
        return "continue" if depth else "return None"

    for position, step in enumerate(steps):
        if step.kind == TEST:
            emit(f"if not ({ast.unparse(step.node)}): {give_up()}")
            continue
        place = step.token.place
        if key is not None and key[0] == position:
            emit(_bound_test(key, steps, give_up())[0])
        index = f"_cpn_i{len(picks)}"
        others = picked.setdefault(place, [])
        if step.kind == LOOKUP:
            found, index = _lookup(step.node, place, index, others, place in held, give_up())
            for line in found:
                emit(line)
        else:
            token, loop = _token_source(step.node, place, index, others, place in held,
                                        bound, env_names)
            if loop is None:
                index = "0"
            else:
                emit(loop)
                depth += 1
                for other in others:
                    emit(f"if {index} == {other}: continue")
            for check in ([] if token in bound else
                          _pattern_checks(step.node, token, bound, env_names,
                                          _tuple_colour(places[place].place.colour),
                                          give_up())):
                emit(check)
            bound.update(binds(step.node, bound, env_names))
        others.append(index)
        picks.append(index)
    values = "".join(f"{v}, " for v in variables)
    emit(f"_cpn_b = (({''.join(p + ', ' for p in picks)}), ({values}))")
    emit("if _cpn_out is None: return _cpn_b")
    emit("_cpn_out.append(_cpn_b)")
    if key is not None:
        lines.append("    " + _bound_test(key, steps, "")[1])
    lines.append("    return None")
    return "\n".join(lines)


def _bound_test(key: tuple[int, int, str, bool], steps: list[SearchStep],
                give_up: str) -> tuple[str, str]:
    """``key`` is ``(step, slot, name, strict)`` when the loop of that step
    fails for every token whose key is above (``strict``: not below)
    ``name``: the line that gives up before the loop when ``name`` is below
    the bound in ``_cpn_lo[slot]`` (see ``keybounds.py``), and the line
    that, after a search that walked the place in vain since tokens left
    it, makes the bound exact again."""
    position, slot, name, strict = key
    place = steps[position].token.place
    return (f"if (type({name}) is int or type({name}) is float) and "
            f"{name} {'<=' if strict else '<'} _cpn_lo[{slot}]: {give_up}",
            f"if len(_cpn_R{place}) < _cpn_exact[{slot}]: _cpn_lowest({slot})")


def _lookup(node, place: int, index: str, others: list[str], held: bool,
            give_up: str) -> tuple[list[str], str]:
    """The lines that find a token equal to ``node`` in ``place`` (other
    than those picked there already), and its index."""
    lines = [f"_cpn_v = {ast.unparse(node)}"]
    if held and not others:  # its one token, tested as ``in`` would
        return lines + [f"_cpn_t = _cpn_R{place}[0]",
                        f"if _cpn_t is not _cpn_v and not _cpn_t == _cpn_v: {give_up}"], "0"
    if not others:  # two C-level scans beat raising ValueError
        return lines + [f"if _cpn_v not in _cpn_R{place}: {give_up}",
                        f"{index} = _cpn_R{place}.index(_cpn_v)"], index
    skip = " and ".join(f"{index} != {o}" for o in others)
    return lines + [f"for {index}, _cpn_t in enumerate(_cpn_R{place}):",
                    f"    if _cpn_t == _cpn_v and {skip}: break", "else:",
                    f"    {give_up}"], index


def _token_source(node, place: int, index: str, others: list[str], held: bool,
                  bound: set[str], env_names: set[str]) -> tuple[str, str | None]:
    """Where a binding pattern's token comes from: ``(expression, None)``
    for a held place's one token, else ``(loop variable, loop header)``; a
    fresh bare name is the loop's own variable, bound here."""
    if held and not others:
        return f"_cpn_R{place}[0]", None
    fresh = (isinstance(node, ast.Name) and not others
             and binds(node, bound, env_names) == [node.id])
    token = node.id if fresh else "_cpn_t"
    if fresh:
        bound.add(token)
    return token, f"for {index}, {token} in enumerate(_cpn_R{place}):"


def _shortage_test(tokens: list[InputToken], held: frozenset) -> list[str]:
    """A place holding fewer tokens than the transition takes from it
    disables it at once, before any other place is scanned (a held place
    never lacks its one token)."""
    needed: dict[int, int] = {}
    for token in tokens:
        needed[token.place] = needed.get(token.place, 0) + 1
    needed = {place: count for place, count in needed.items()
              if count > 1 or place not in held}
    if len(needed) <= 1 and all(count == 1 for count in needed.values()):
        return []
    short = " or ".join(f"len(_cpn_R{place}) < {count}" if count > 1
                        else f"not _cpn_R{place}" for place, count in needed.items())
    return [f"if {short}: return None"]


def _pattern_checks(node, source: str, bound: set[str], env_names: set[str],
                    tuples: bool = False, give_up: str = "continue") -> list[str]:
    """Statements that match ``source`` against a pattern and bind it, or
    ``give_up``; ``tuples`` when ``source`` is known to be a tuple (its
    place's colour)."""
    if isinstance(node, ast.Name) and node.id not in bound and node.id not in env_names:
        bound.add(node.id)
        return [f"{node.id} = {source}"]
    if isinstance(node, ast.Tuple):
        names = [element.id for element in node.elts if isinstance(element, ast.Name)]
        fresh = (len(names) == len(node.elts) == len(set(names))
                 and not (set(names) & (bound | env_names)))
        if fresh and tuples:  # a tuple of another length fails to unpack
            bound.update(names)
            return [f"try: {', '.join(names)}, = {source}", f"except ValueError: {give_up}"]
        checks = [f"if not isinstance({source}, tuple) or len({source}) != "
                  f"{len(node.elts)}: {give_up}"]
        if fresh:  # one unpacking
            bound.update(names)
            return checks + [f"{', '.join(names)}, = {source}"]
        for position, element in enumerate(node.elts):
            checks += _pattern_checks(element, f"{source}[{position}]", bound, env_names,
                                      give_up=give_up)
        return checks
    return [f"if {source} != {ast.unparse(node)}: {give_up}"]


def _tuple_colour(colour) -> bool:
    """Whether every token of a place of this colour is a tuple (the colour
    is checked as each token enters)."""
    types = colour if isinstance(colour, tuple) else (colour,)
    return all(isinstance(kind, type) and issubclass(kind, tuple) for kind in types)


# -- the firing ----------------------------------------------------------------

def fire_source(transition: int, steps: list[SearchStep], variables: list[str],
                code: str | None, delay: str | None, outputs: list[Output],
                places: list[FlatPlace], held: frozenset = frozenset(),
                keyed: frozenset = frozenset()) -> str:
    """``transition`` is the index the simulator's ``_cpn_refuse`` reports;
    a held place (see :func:`search_source`) that it takes from gets its
    new token in place of the old one; a token put into a ``keyed`` place
    lowers its keys' bounds (``_cpn_lower``, see ``compiler.KeyBound``)."""
    names = [(f"_cpn_o{k}", f"_cpn_e{k}") for k in range(len(outputs))]
    body = _bind_variables(variables, code, delay)
    base = "_cpn_d" if delay else "now"  # the time the firing's tokens start from
    computed = bool(delay) and not is_literal(delay)  # a literal was checked >= 0
    for output, (value, stamp) in zip(outputs, names):
        body += _evaluate(transition, output, value, stamp, places[output.place], base, computed)
    taken = [step.token.place for step in steps if step.kind != TEST and step.token.consumed]
    replaced = {place for place in held if taken.count(place) == 1
                and [(o.term.splat, o.term.multiplicity) for o in outputs
                     if o.place == place] == [(False, 1)]}
    body += _consume(steps, places, replaced)
    for output, (value, stamp) in zip(outputs, names):
        body += ([f"_cpn_R{output.place}[0] = {value}"] if output.place in replaced
                 else _produce(output, value, stamp, places[output.place].timed,
                               output.place in keyed))
    emptied = [f"_cpn_R{place}" for place in dict.fromkeys(taken) if place not in held]
    body.append("return _cpn_others" if _disables_itself(steps, outputs, replaced)
                else f"return _cpn_woken if {' and '.join(emptied)} else _cpn_others"
                if emptied else "return _cpn_woken")
    return "\n".join(["def _cpn_fire(_cpn_picks, _cpn_vals, now):", *_indented(body)])


def _disables_itself(steps: list[SearchStep], outputs: list[Output], replaced: set[int]) -> bool:
    """Whether a firing leaves its own search failing: it takes a literal
    from a held place (a ``True`` trigger) and puts another there (``False``)."""
    wanted = {step.token.place: step.node for step in steps
              if step.kind == LOOKUP and step.token.consumed and step.token.place in replaced}
    try:
        return any(literal(wanted[o.place]) != literal(o.term.expr.strip())
                   for o in outputs
                   if o.place in wanted and not o.term.delay and is_literal(o.term.expr))
    except ValueError:  # a closed expression, not a literal
        return False


def _bind_variables(variables: list[str], code: str | None, delay: str | None) -> list[str]:
    """Unpack the binding, run the code segment, and compute the
    transition's ``@+`` delay into ``_cpn_d`` (if it has one)."""
    lines = []
    if variables:
        lines.append(f"{''.join(v + ', ' for v in variables)}= _cpn_vals")
    if code is not None:
        lines += textwrap.dedent(code).strip("\n").splitlines()
    if delay:
        lines.append(f"_cpn_d = now + {_pasted(delay)}")
    return lines


def _evaluate(transition: int, output: Output, value: str, stamp: str,
              place: FlatPlace, base: str, computed: bool = False) -> list[str]:
    """Compute an output's token(s) into ``value`` and, into a timed place,
    the timestamp into ``stamp``; refuse what cannot enter the place, and a
    time before the clock or NaN (``_cpn_late``; a literal delay was checked)."""
    term = output.term
    expression = _pasted(term.expr)
    lines = [f"{value} = list{expression}" if term.splat else f"{value} = {expression}"]
    if place.timed:
        lines.append(f"{stamp} = {base} + {_pasted(term.delay)}" if term.delay
                     else f"{stamp} = {base}")
        if computed or not (term.delay is None or is_literal(term.delay)):
            lines.append(f"if not {stamp} >= now: "
                         f"_cpn_late({output.place}, {value}, {stamp}, now)")

    def refuse(token: str) -> str:
        return (f"if {' or '.join(_refusals(place, token))}: "
                f"_cpn_refuse({transition}, {output.place}, {output.text!r}, {token})")

    if not term.splat:  # a literal's colour was checked by the compiler
        return lines + ([] if is_literal(term.expr) else [refuse(value)])
    lines.append(f"for _cpn_t in {value}:")
    if place.timed:  # a Delayed element carries its own delay
        lines += ["    if type(_cpn_t) is _cpn_Delayed:",
                  "        if not _cpn_t.delay >= 0: "
                  f"_cpn_late({output.place}, _cpn_t.value, {stamp} + _cpn_t.delay, now)",
                  "        _cpn_t = _cpn_t.value"]
    return lines + ["    " + refuse("_cpn_t")]


def _refusals(place: FlatPlace, token: str) -> list[str]:
    """Tests of ``token`` that make the simulator refuse it (see
    ``Simulator._refuse``): not hashable, outside the place's colour set,
    or a ``Delayed`` into an untimed place.  Hashability is checked on the
    token's type (a dict, a list, a set, a mutable dataclass), so that a
    firing costs the same whatever the size of its tokens."""
    colour = place.place.colour
    tests = [] if _hashable_colour(colour) else [f"type({token}).__hash__ is None"]
    if isinstance(colour, (type, tuple)):
        tests.append(f"not isinstance({token}, _cpn_C{place.index})")
    elif colour is not None:
        tests.append(f"not _cpn_C{place.index}({token})")
    if not place.timed and (colour is None or not isinstance(colour, (type, tuple))
                            or issubclass(Delayed, colour)):
        tests.insert(0, f"type({token}) is _cpn_Delayed")  # else the colour refuses it
    return tests


def _hashable_colour(colour) -> bool:
    """Whether the colour check alone keeps out unhashable types: a colour
    of built-in hashable types (int, str, tuple, ...) admits only their
    instances, hashable by type (a subclass removing ``__hash__`` aside),
    and the firing is spared a test per token."""
    types = colour if isinstance(colour, tuple) else (colour,)
    return all(isinstance(kind, type) and kind.__module__ == "builtins"
               and kind.__hash__ is not None for kind in types)


def _consume(steps: list[SearchStep], places: list[FlatPlace],
             replaced: set[int]) -> list[str]:
    """Delete the picked tokens (read arcs keep theirs, ``replaced``
    places have theirs overwritten)."""
    by_place: dict[int, list[int]] = {}
    tokens = [step.token for step in steps if step.kind != TEST]
    for position, token in enumerate(tokens):
        if token.consumed and token.place not in replaced:
            by_place.setdefault(token.place, []).append(position)
    lines = []
    for place, positions in by_place.items():
        timed = places[place].timed
        if len(positions) == 1:
            lines.append(f"_cpn_i = _cpn_picks[{positions[0]}]")
            lines.append(f"del _cpn_R{place}[_cpn_i]")
            if timed:
                lines.append(f"del _cpn_S{place}[_cpn_i]")
        else:
            picked = ", ".join(f"_cpn_picks[{p}]" for p in positions)
            lines.append(f"for _cpn_i in sorted(({picked}), reverse=True):")
            lines.append(f"    del _cpn_R{place}[_cpn_i]")
            if timed:
                lines.append(f"    del _cpn_S{place}[_cpn_i]")
    return lines


def _produce(output: Output, value: str, stamp: str, timed: bool,
             keyed: bool = False) -> list[str]:
    """Put the evaluated token(s) into the place: a timed token available
    now joins the place's list, a later one waits in the simulator's heap
    (``_cpn_put`` and the clock's advance lower a keyed place's bounds)."""
    place, term = output.place, output.term
    lower = f"; _cpn_lower({place}, {{}})" if keyed else ""
    put = (f"_cpn_put({place}, _cpn_t, {stamp}, now)" if timed
           else f"_cpn_R{place}.append(_cpn_t)" + lower.format("_cpn_t"))
    if term.splat:
        if not timed:
            return [f"for _cpn_t in {value}:", f"    {put}"]
        return [f"for _cpn_t in {value}:",
                f"    if type(_cpn_t) is _cpn_Delayed: _cpn_put({place}, "
                f"_cpn_t.value, {stamp} + _cpn_t.delay, now)",
                f"    else: {put}"]
    if term.multiplicity != 1:
        return [f"for _cpn_k in range{_pasted(term.multiplicity)}:",
                f"    _cpn_t = {value}", f"    {put}"]
    if timed:
        return [f"if {stamp} <= now: _cpn_R{place}.append({value}); "
                f"_cpn_S{place}.append({stamp})" + lower.format(value),
                f"else: _cpn_push(_cpn_heap, ({stamp}, _cpn_next(), {place}, {value}))"]
    return [f"_cpn_R{place}.append({value})" + lower.format(value)]
