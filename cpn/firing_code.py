"""The Python source of a transition's firing.

``_cpn_fire(picks, values, now)`` fires a binding its search
(``codegen.py``) found: it evaluates every output first, then takes and
puts tokens, so a firing whose inscription raises, or whose token is
refused, leaves the marking as it was.  It returns the transitions to
search again, which the simulator binds: ``_cpn_woken`` (itself
included), or ``_cpn_others`` when it left a place it takes from empty,
since no search of it can then succeed.
"""

from __future__ import annotations

from typing import NamedTuple

from .codegen import LOOKUP, TEST, Code, Lines, Origin, SearchStep, indented
from .colour_sets import instance_types, membership, refuses_bools
from .flatten import FlatPlace
from .inscription import CodeSegment, Term
from .net import Delayed
from .syntax_trees import is_literal, literal


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


def fire_source(transition: int, steps: list[SearchStep], variables: list[str],
                code: str | None, delay: str | None, outputs: list[Output],
                places: list[FlatPlace], held: frozenset = frozenset(),
                keyed: frozenset = frozenset()) -> Code:
    """``transition`` is the index the simulator's ``_cpn_refuse`` reports;
    a held place (see ``codegen.search_source``) that it takes from gets its
    new token in place of the old one; a token put into a ``keyed`` place
    lowers its keys' bounds (``_cpn_lower``, see ``compiler.KeyBound``)."""
    names = [(f"_cpn_o{k}", f"_cpn_e{k}") for k in range(len(outputs))]
    body = _bind_variables(variables, code, delay)
    base = "_cpn_d" if delay else "now"  # the time the firing's tokens start from
    computed = bool(delay) and not is_literal(delay)  # a literal was checked >= 0
    for k, (output, (value, stamp)) in enumerate(zip(outputs, names)):
        body.extend(_evaluate(transition, k, output, value, stamp, places[output.place], base,
                              computed))
    counting, counts = _counts(outputs, places)
    body.extend(counting)
    taken = [step.token.place for step in steps if step.kind != TEST and step.token.consumed]
    replaced = {place for place in held if taken.count(place) == 1
                and [(o.term.splat, o.term.multiplicity) for o in outputs
                     if o.place == place] == [(False, 1)]}
    body.add(_consume(steps, places, replaced))
    for output, (value, stamp), count in zip(outputs, names, counts):
        body.add([f"_cpn_R{output.place}[0] = {value}"] if output.place in replaced
                 else _produce(output, value, stamp, count, places[output.place].timed,
                               output.place in keyed))
    emptied = [f"_cpn_R{place}" for place in dict.fromkeys(taken) if place not in held]
    body.add(["return _cpn_others" if _disables_itself(steps, outputs, replaced)
              else f"return _cpn_woken if {' and '.join(emptied)} else _cpn_others"
              if emptied else "return _cpn_woken"])
    return Code("\n".join(["def _cpn_fire(_cpn_picks, _cpn_vals, now):",
                           *indented(body.lines)]), [None] + body.origins)


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


def _bind_variables(variables: list[str], code: str | None, delay: str | None) -> Lines:
    """Unpack the binding, run the code segment, and compute the
    transition's ``@+`` delay into ``_cpn_d`` (if it has one)."""
    lines = Lines([f"{''.join(v + ', ' for v in variables)}= _cpn_vals"] if variables else [])
    if code is not None:
        for number, unit in CodeSegment(code).lines():
            lines.add([unit], Origin("code", unit.split("\n")[0].strip(), number))
    if delay:
        lines.add([f"_cpn_d = now + {_pasted(delay)}"], Origin("delay"))
    return lines


def _evaluate(transition: int, k: int, output: Output, value: str, stamp: str,
              place: FlatPlace, base: str, computed: bool = False) -> Lines:
    """Compute output ``k``'s token(s) into ``value`` and, into a timed
    place, the timestamp into ``stamp``; refuse what cannot enter the
    place, and a time before the clock or NaN (``_cpn_late``; a literal
    delay was checked)."""
    term, made, timing = output.term, Origin("output", index=k), Origin("stamp", index=k)
    expression = _pasted(term.expr)
    lines = Lines([f"{value} = _cpn_list{expression}" if term.splat
                   else f"{value} = {expression}"], made)
    if place.timed:
        lines.add([f"{stamp} = {base} + {_pasted(term.delay)}" if term.delay
                   else f"{stamp} = {base}"], timing)
        if computed or not (term.delay is None or is_literal(term.delay)):
            lines.add([f"if not {stamp} >= now: "
                       f"_cpn_late({output.place}, {value}, {stamp}, now)"], timing)

    def refuse(token: str) -> str:
        return (f"if {' or '.join(_refusals(place, token))}: "
                f"_cpn_refuse({transition}, {output.place}, {output.text!r}, {token})")

    if not term.splat:  # a literal's colour was checked by the compiler
        lines.add([] if is_literal(term.expr) else [refuse(value)], made)
        return lines
    lines.add([f"for _cpn_t in {value}:"], made)
    if place.timed:  # a Delayed element carries its own delay
        lines.add(["    if _cpn_type(_cpn_t) is _cpn_Delayed:"], made)
        lines.add(["        if not _cpn_t.delay >= 0: "
                   f"_cpn_late({output.place}, _cpn_t.value, {stamp} + _cpn_t.delay, now)"],
                  Origin("element", index=k))
        lines.add(["        _cpn_t = _cpn_t.value"], made)
    lines.add(["    " + refuse("_cpn_t")], made)
    return lines


def _counts(outputs: list[Output], places: list[FlatPlace]) -> tuple[Lines, list[str]]:
    """The ``range`` each output's tokens are put by: ``range(n)`` for a
    literal (checked >= 0 when the net was built), else ``_cpn_mK``, and
    the lines that compute those before any token is taken, after every
    output's tokens (the order the inscriptions were always evaluated
    in): one that is no integer fails, a negative one is refused (its
    ``range`` would put no token)."""
    lines, counts = Lines(), []
    for k, output in enumerate(outputs):
        multiplicity = output.term.multiplicity
        if isinstance(multiplicity, int) or is_literal(multiplicity):
            counts.append(f"_cpn_range{_pasted(multiplicity)}")
            continue
        count = f"_cpn_m{k}"
        counts.append(count)
        refused = (f"arc to '{places[output.place].path}' {output.text!r}: multiplicity "
                   f"{multiplicity!r} is ")
        lines.add([f"{count} = _cpn_range{_pasted(multiplicity)}"], Origin("output", index=k))
        lines.add([f"if {count}.stop < 0: raise _cpn_ValueError({refused!r} + "
                   f"_cpn_repr({count}.stop) + ', not an integer >= 0')"])  # names the arc
    return lines, counts


def _refusals(place: FlatPlace, token: str) -> list[str]:
    """Tests of ``token`` that make the simulator refuse it (see
    ``Simulator._refuse``): not hashable, outside the place's colour set
    (``_cpn_C3``, its ``colour_sets.membership``; an ``int`` colour's test
    passes a plain ``int`` at once, as cheaply as ``isinstance``, and
    refuses ``True`` and ``False``), or a ``Delayed`` into an untimed
    place.  Hashability is checked on the token's type (a dict, a list, a
    set, a mutable dataclass), so that a firing costs the same whatever the
    size of its tokens."""
    colour = place.place.colour
    test, kinds = membership(colour), instance_types(colour)
    tests = [] if _hashable_colour(kinds) else [f"_cpn_type({token}).__hash__ is None"]
    if isinstance(test, (type, tuple)) and refuses_bools(test):  # an int is no bool
        tests.append(f"(_cpn_type({token}) is not _cpn_int and (not _cpn_isinstance("
                     f"{token}, _cpn_C{place.index}) or {token} is True or {token} is False))")
    elif isinstance(test, (type, tuple)):
        tests.append(f"not _cpn_isinstance({token}, _cpn_C{place.index})")
    elif test is not None:
        tests.append(f"not _cpn_C{place.index}({token})")
    if not place.timed and (kinds is None or issubclass(Delayed, kinds)):
        tests.insert(0, f"_cpn_type({token}) is _cpn_Delayed")  # else the colour refuses it
    return tests


def _hashable_colour(kinds: tuple[type, ...] | None) -> bool:
    """Whether the colour check alone keeps out unhashable types: a colour
    whose tokens are instances of built-in hashable types (int, str,
    tuple, ...) admits nothing else, hashable by type (a subclass removing
    ``__hash__`` aside), and the firing is spared a test per token."""
    return kinds is not None and all(kind.__module__ == "builtins"
                                     and kind.__hash__ is not None for kind in kinds)


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
            lines.append(f"for _cpn_i in _cpn_sorted(({picked}), reverse=True):")
            lines.append(f"    del _cpn_R{place}[_cpn_i]")
            if timed:
                lines.append(f"    del _cpn_S{place}[_cpn_i]")
    return lines


def _produce(output: Output, value: str, stamp: str, count: str, timed: bool,
             keyed: bool = False) -> list[str]:
    """Put the evaluated token(s) into the place, ``count`` times (see
    :func:`_counts`): a timed token available now joins the place's list,
    a later one waits in the simulator's heap (``_cpn_put`` and the
    clock's advance lower a keyed place's bounds)."""
    place, term = output.place, output.term
    lower = f"; _cpn_lower({place}, {{}})" if keyed else ""
    put = (f"_cpn_put({place}, _cpn_t, {stamp}, now)" if timed
           else f"_cpn_R{place}.append(_cpn_t)" + lower.format("_cpn_t"))
    if term.splat:
        if not timed:
            return [f"for _cpn_t in {value}:", f"    {put}"]
        return [f"for _cpn_t in {value}:",
                f"    if _cpn_type(_cpn_t) is _cpn_Delayed: _cpn_put({place}, "
                f"_cpn_t.value, {stamp} + _cpn_t.delay, now)",
                f"    else: {put}"]
    if term.multiplicity != 1:
        return [f"for _cpn_k in {count}:",
                f"    _cpn_t = {value}", f"    {put}"]
    if timed:
        return [f"if {stamp} <= now: _cpn_R{place}.append({value}); "
                f"_cpn_S{place}.append({stamp})" + lower.format(value),
                f"else: _cpn_push(_cpn_heap, ({stamp}, _cpn_next(), {place}, {value}))"]
    return [f"_cpn_R{place}.append({value})" + lower.format(value)]
