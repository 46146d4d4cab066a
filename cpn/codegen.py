"""The Python source of a transition's binding search.

The compiler (``compiler.py``) decides the order of a binding search as a
list of :class:`SearchStep`; this file writes it out as Python, and
``firing_code.py`` the firing that follows.  Nothing is ``eval``'d per
candidate binding.

The generated code reads the marking through globals bound to one
simulator's place lists (``_cpn_R3`` is place 3's available tokens,
``_cpn_S3`` their timestamps), so a compiled transition serves exactly one
simulator; the source is cached per flat net.

``_cpn_search(now, out)``: with ``out=None`` it returns the first binding
found, else it appends every binding to ``out``.  A binding is ``(picks,
values)``: the indices of the taken tokens in search order, and the values
of the transition's variables.

The builtins the generated code calls are its own globals, imported from
``builtins`` (``_cpn_len``, see :data:`GENERATED_BUILTINS`): a net's
constant named ``len`` or ``type`` then means that constant in its
inscriptions, as in Python, and nothing in the code around them.
"""

from __future__ import annotations

import ast
import hashlib
import linecache
from types import CodeType
from typing import NamedTuple

from .colour_sets import instance_types
from .flatten import FlatPlace
from .inscription import binds

LOOKUP, BIND, TEST = "lookup", "bind", "test"

#: The builtins that generated code (here and in ``firing_code.py``) uses,
#: imported as its own globals beside the net's constants.
GENERATED_BUILTINS = ("enumerate", "float", "int", "isinstance", "len", "list", "range",
                      "repr", "sorted", "tuple", "type", "ValueError")
_IMPORT_BUILTINS = ("from builtins import "
                    + ", ".join(f"{name} as _cpn_{name}" for name in GENERATED_BUILTINS))


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
    text: str = ""  # a TEST's conjunct as the guard writes it


class Origin(NamedTuple):
    """The net's own text that a line of generated code runs, so that a
    failure names it rather than the engine's line: ``kind`` is "guard"
    (``text`` the conjunct), "input" (``text`` the arc), "code" (the code
    segment's line ``index``, counted from its first line that is not
    blank, and its ``text``), "delay" (the transition's), "output" (the
    output ``index``'s token), "stamp" (its timestamp) or "element" (the
    delay of a ``Delayed`` element of its ``*iterable``)."""

    kind: str
    text: str = ""
    index: int = 0


class Code(NamedTuple):
    """Generated source, and the :class:`Origin` of each of its lines
    (None for the engine's own)."""

    source: str
    origins: list


class Lines:
    """Lines of generated code as they are written, each with its origin
    (an entry of several lines, text pasted over lines, counts for each)."""

    def __init__(self, lines: list[str] = (), origin: Origin | None = None):
        self.lines: list[str] = []
        self.origins: list[Origin | None] = []
        self.add(lines, origin)

    def add(self, lines: list[str], origin: Origin | None = None) -> None:
        for line in lines:
            self.lines.append(line)
            self.origins += [origin] * (line.count("\n") + 1)

    def extend(self, other: "Lines") -> None:
        self.lines += other.lines
        self.origins += other.origins

    def code(self) -> Code:
        return Code("\n".join(self.lines), self.origins)


def indented(lines: list[str], prefix: str = "    ") -> list[str]:
    return [prefix + line for line in lines]


def search_source(steps: list[SearchStep], variables: list[str], env_names: set[str],
                  places: list[FlatPlace], held: frozenset = frozenset(),
                  key: tuple[int, int, str, bool] | None = None) -> Code:
    """``held``: places that hold exactly one available token whatever
    fires (see ``compiler.py``); their token is read, not looped over.
    ``key``: see :func:`_bound_test`."""
    tokens = [step.token for step in steps if step.kind != TEST]
    lines = Lines([_IMPORT_BUILTINS, "", "def _cpn_search(now, _cpn_out):"])
    lines.add(indented(_shortage_test(tokens, held)))
    picked: dict[int, list[str]] = {}  # place -> pick variables so far
    picks: list[str] = []
    bound: set[str] = set()
    depth = 0

    def emit(text: str, origin: Origin | None = None) -> None:
        lines.add(["    " * (depth + 1) + text], origin)

    def give_up() -> str:
        return "continue" if depth else "return None"

    for position, step in enumerate(steps):
        if step.kind == TEST:
            emit(f"if not ({ast.unparse(step.node)}): {give_up()}", Origin("guard", step.text))
            continue
        place, arc = step.token.place, Origin("input", step.token.arc)
        if key is not None and key[0] == position:
            emit(_bound_test(key, steps, give_up())[0])
        index = f"_cpn_i{len(picks)}"
        others = picked.setdefault(place, [])
        if step.kind == LOOKUP:
            found, index = _lookup(step.node, place, index, others, place in held, give_up())
            for line in found:
                emit(line, arc)
        else:
            token, loop = _token_source(step.node, place, index, others, place in held,
                                        bound, env_names)
            if loop is None:
                index = "0"
            else:
                emit(loop, arc)
                depth += 1
                for other in others:
                    emit(f"if {index} == {other}: continue")
            for check in ([] if token in bound else
                          _pattern_checks(step.node, token, bound, env_names,
                                          _tuple_colour(places[place].place.colour),
                                          give_up())):
                emit(check, arc)
            bound.update(binds(step.node, bound, env_names))
        others.append(index)
        picks.append(index)
    values = "".join(f"{v}, " for v in variables)
    emit(f"_cpn_b = (({''.join(p + ', ' for p in picks)}), ({values}))")
    emit("if _cpn_out is None: return _cpn_b")
    emit("_cpn_out.append(_cpn_b)")
    if key is not None:
        lines.add(["    " + _bound_test(key, steps, "")[1]])
    lines.add(["    return None"])
    return lines.code()


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
    return (f"if (_cpn_type({name}) is _cpn_int or _cpn_type({name}) is _cpn_float) and "
            f"{name} {'<=' if strict else '<'} _cpn_lo[{slot}]: {give_up}",
            f"if _cpn_len(_cpn_R{place}) < _cpn_exact[{slot}]: _cpn_lowest({slot})")


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
    return lines + [f"for {index}, _cpn_t in _cpn_enumerate(_cpn_R{place}):",
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
    return token, f"for {index}, {token} in _cpn_enumerate(_cpn_R{place}):"


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
    short = " or ".join(f"_cpn_len(_cpn_R{place}) < {count}" if count > 1
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
            return [f"try: {', '.join(names)}, = {source}", f"except _cpn_ValueError: {give_up}"]
        checks = [f"if not _cpn_isinstance({source}, _cpn_tuple) or _cpn_len({source}) != "
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
    kinds = instance_types(colour)
    return kinds is not None and all(issubclass(kind, tuple) for kind in kinds)


def compiled(source: str, name: str) -> CodeType:
    """``source`` compiled, its lines kept in ``linecache``, so that a
    traceback through it shows the generated line that raised (holding the
    guard's, arc's or code segment's text), not a bare ``File "<transition
    T>"``.  Its file name holds ``name`` (the net and the transition) and a
    digest of the source: two nets' transitions of one name never show
    each other's lines, and a source compiled again (a sweep builds a
    simulator per run) is kept once, so the cache grows with the distinct
    nets, never with the runs.  Its modification time is None, as for
    source that has no file, which ``linecache.checkcache`` keeps for a
    traceback printed later."""
    digest = hashlib.blake2b(source.encode(), digest_size=6).hexdigest()
    filename = f"<{name} {digest}>"
    linecache.cache.setdefault(filename, (len(source), None, source.splitlines(True),
                                          filename))
    return compile(source, filename, "exec")
