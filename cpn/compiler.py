"""Compiling each transition into two Python functions: search and fire.

Inscription text is turned, once, into the source of a binding search that
walks the input places in a pattern-directed order (constants and closed
expressions first, then binding arcs, each guard conjunct as soon as its
variables are bound, equality lookups with ``list.index``), and of a firing
function that removes the chosen tokens and produces the output tokens.
Nothing is ``eval``'d per candidate binding.

The generated code reads the marking through globals bound to one
simulator's place lists (``_cpn_R3`` is place 3's available tokens,
``_cpn_S3`` their timestamps), so a compiled transition serves exactly one
simulator; the source is cached per flat net.

Generated search functions take ``(now, out)``: with ``out=None`` they
return the first binding found, else they append every binding to ``out``.
A binding is ``(picks, values)``: the indices of the consumed tokens in
search order, and the values of the transition's variables.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field

from .errors import NetError
from .flatten import FlatNet, FlatTransition
from .inscription import (INTERNAL_PREFIX, RESERVED, CodeSegment, Term,
                          check_expression, free_names, is_pattern, parse_terms,
                          pattern_names, split_conjuncts)


@dataclass
class CompiledTransition:
    """What the simulator needs to know about one transition."""

    index: int
    path: str
    priority: int
    variables: list[str]  # order of the values in a binding
    input_places: list[int]  # the place of each pick, in search order
    output_places: list[int]
    changed_places: list[int]  # places a firing changes (read arcs excluded)
    uses_time: bool  # its enabling depends on the clock (reads ``now``)
    source: str  # generated Python code (search and fire)
    env: dict
    input_texts: list[tuple[int, str]] = field(default_factory=list)
    # Singleton places whose token's value cannot change whether this
    # transition is enabled (bound by a bare variable used by no guard or
    # other input arc): their changes need not wake it while it is disabled.
    value_blind: list[int] = field(default_factory=list)


def _context(t: FlatTransition, what: str) -> str:
    return f"transition '{t.path}', {what}"


def singleton_places(net: FlatNet) -> set[int]:
    """Places that always hold exactly one token: one initially, and every
    transition puts back as many as it takes (one at most).  A search binds
    them first: they offer one choice, so the loops over places of many
    tokens come innermost, with every guard on singletons already decided,
    and the bindings are found in the same order as before."""
    balance: dict[int, int] = {p.index: 0 for p in net.places if len(p.place.initial) == 1}
    irregular: set[int] = set()

    def count(place: int, text: str, sign: int, taken: dict) -> None:
        try:
            terms = parse_terms(text)
        except SyntaxError:
            irregular.add(place)
            return
        for term in terms:
            if term.splat or not isinstance(term.multiplicity, int):
                irregular.add(place)
            else:
                taken[place] = taken.get(place, 0) + sign * term.multiplicity

    for t in net.transitions:
        taken: dict[int, int] = {}
        for place, text in t.inputs:
            count(place, text, 1, taken)
        consumed = {place: n for place, n in taken.items() if n}
        for place, text in t.outputs:
            count(place, text, -1, taken)
        irregular.update(place for place, n in taken.items() if n)
        irregular.update(place for place, n in consumed.items() if n > 1)
    return set(balance) - irregular


class _TransitionCompiler:
    def __init__(self, net: FlatNet, t: FlatTransition, singletons: frozenset = frozenset()):
        self.net, self.t, self.singletons = net, t, singletons
        self.env_names = set(t.env)
        self.lines: list[str] = []

    def fail(self, what: str, message: str) -> NetError:
        return NetError(f"{_context(self.t, what)}: {message}")

    def parse(self, text: str, what: str) -> list[Term]:
        try:
            return parse_terms(text)
        except SyntaxError as error:
            raise self.fail(what, f"cannot parse {text!r}: {error.msg}") from None

    def arc_name(self, place: int, output: bool) -> str:
        path = self.net.places[place].path
        return (f"arc {self.t.path} -> {path}" if output else f"arc {path} -> {self.t.path}")

    # -- the search ----------------------------------------------------------
    def find_read_arcs(self) -> None:
        """Pair an input arc ``v`` with an output arc ``v`` to the same untimed
        place: the firing only reads that token, so it stays where it is and
        the place does not count as changed (CPN Tools draws these as double
        arcs).  Sets ``read_inputs`` and ``outputs`` (the rest)."""
        self.read_inputs: set[int] = set()
        outputs = list(self.t.outputs)
        for position, (place, text) in enumerate(self.t.inputs):
            name = text.strip()
            if not name.isidentifier() or name in self.env_names or \
                    self.net.places[place].timed:
                continue
            for other, (out_place, out_text) in enumerate(outputs):
                if out_place == place and out_text.strip() == name:
                    self.read_inputs.add(position)
                    del outputs[other]
                    break
        self.outputs = outputs

    def input_items(self):
        """Input terms expanded by multiplicity:
        (place, node, text, arc name, consumed)."""
        items = []
        for position, (place, text) in enumerate(self.t.inputs):
            consumed = position not in self.read_inputs
            what = self.arc_name(place, output=False) + f" '{text}'"
            for term in self.parse(text, what):
                if term.delay is not None:
                    raise self.fail(what, "an input arc cannot carry a @+ delay")
                if term.splat:
                    raise self.fail(what, "'*' (an iterable of tokens) is only "
                                          "allowed on output arcs")
                if not isinstance(term.multiplicity, int):
                    raise self.fail(what, "the multiplicity of an input term must be "
                                          f"an integer constant, not {term.multiplicity!r}")
                node = check_expression(term.expr)
                items += [(place, node, term.expr, what, consumed)] * term.multiplicity
        return sorted(items, key=lambda item: item[0] not in self.singletons)

    def binds(self, node, bound: set[str]) -> list[str]:
        """Variables a term would bind (empty if it is a lookup)."""
        if not is_pattern(node):
            return []
        return [n for n in pattern_names(node)
                if n not in bound and n not in self.env_names]

    def plan(self):
        """Order the search: closed lookups, then binders each followed by
        the lookups and guard conjuncts its variables make closed."""
        items = self.input_items()
        guards = [(g, check_expression(g)) for g in
                  (split_conjuncts(self.t.guard) if self.t.guard else [])]
        bound: set[str] = set()
        steps: list[tuple] = []
        pending = [("match", item) for item in items] + [("guard", g) for g in guards]

        def closed(kind, item) -> bool:
            node = item[1]
            names = free_names(node) - RESERVED - self.env_names
            return names <= bound and (kind == "guard" or not self.binds(node, bound))

        def flush():
            for entry in list(pending):
                kind, item = entry
                if entry[0] == "match" and self.binds(item[1], bound):
                    continue
                if closed(kind, item):
                    steps.append(entry)
                    pending.remove(entry)

        flush()
        for item in items:
            if ("match", item) not in pending:
                continue
            new = self.binds(item[1], bound)
            if not new:
                continue
            pending.remove(("match", item))
            steps.append(("bind", item))
            bound.update(new)
            flush()
        for kind, item in pending:
            names = sorted(free_names(item[1]) - RESERVED - self.env_names - bound)
            where = item[3] if kind == "match" else f"guard '{self.t.guard}'"
            raise self.fail(where, f"unknown variable{'s' if len(names) > 1 else ''} "
                                   f"{', '.join(map(repr, names))} (only a variable or a "
                                   "tuple pattern on an input arc binds a variable)")
        return steps, bound

    def search_source(self, steps, variables) -> str:
        lines = ["def _cpn_search(now, _cpn_out):"]
        used: dict[int, list[str]] = {}
        depth, indent = 0, "    "
        picks: list[str] = []

        def emit(text):
            lines.append(indent + text)

        def fail_stmt():
            return "continue" if depth else "return None"

        # A place holding fewer tokens than the transition takes from it
        # disables it at once, before any other place is scanned.
        needed: dict[int, int] = {}
        for kind, item in steps:
            if kind != "guard":
                needed[item[0]] = needed.get(item[0], 0) + 1
        if len(needed) > 1 or any(count > 1 for count in needed.values()):
            short = " or ".join(f"len(_cpn_R{place}) < {count}" if count > 1
                                else f"not _cpn_R{place}" for place, count in needed.items())
            emit(f"if {short}: return None")

        bound: set[str] = set()
        for kind, item in steps:
            if kind == "guard":
                emit(f"if not ({ast.unparse(item[1])}): {fail_stmt()}")
                continue
            place, node, text, _, _ = item
            index = f"_cpn_i{len(picks)}"
            others = used.setdefault(place, [])
            if kind == "match":
                value = ast.unparse(node)
                emit(f"_cpn_v = {value}")
                if not others:  # two C-level scans beat raising ValueError
                    emit(f"if _cpn_v not in _cpn_R{place}: {fail_stmt()}")
                    emit(f"{index} = _cpn_R{place}.index(_cpn_v)")
                else:
                    emit(f"for {index}, _cpn_t in enumerate(_cpn_R{place}):")
                    skip = " and ".join(f"{index} != {o}" for o in others)
                    emit(f"    if _cpn_t == _cpn_v and {skip}: break")
                    emit("else:")
                    emit(f"    {fail_stmt()}")
            else:
                emit(f"for {index}, _cpn_t in enumerate(_cpn_R{place}):")
                depth += 1
                indent += "    "
                for other in others:
                    emit(f"if {index} == {other}: continue")
                for check in self.pattern_checks(node, "_cpn_t", bound):
                    emit(check)
                bound.update(self.binds(node, bound))
            others.append(index)
            picks.append(index)
        values = "".join(f"{v}, " for v in variables)
        emit(f"_cpn_b = (({''.join(p + ', ' for p in picks)}), ({values}))")
        emit("if _cpn_out is None: return _cpn_b")
        emit("_cpn_out.append(_cpn_b)")
        lines.append("    return None")
        return "\n".join(lines)

    def pattern_checks(self, node, source: str, bound: set[str]) -> list[str]:
        """Statements that match ``source`` against a pattern and bind it."""
        if isinstance(node, ast.Name) and node.id not in bound and node.id not in self.env_names:
            bound.add(node.id)
            return [f"{node.id} = {source}"]
        if isinstance(node, ast.Tuple):
            checks = [f"if not isinstance({source}, tuple) or len({source}) != "
                      f"{len(node.elts)}: continue"]
            for position, element in enumerate(node.elts):
                checks += self.pattern_checks(element, f"{source}[{position}]", bound)
            return checks
        return [f"if {source} != {ast.unparse(node)}: continue"]

    # -- the firing ----------------------------------------------------------
    def fire_source(self, steps, variables, code: CodeSegment | None) -> str:
        """Evaluate every output first, then consume and produce: a firing
        whose inscription raises leaves the marking untouched."""
        lines = ["def _cpn_fire(_cpn_picks, _cpn_vals, now):"]
        emit = lambda text: lines.append("    " + text)  # noqa: E731
        if variables:
            emit(f"{''.join(v + ', ' for v in variables)}= _cpn_vals")
        if code is not None:
            for line in textwrap.dedent(code.text).strip("\n").splitlines():
                emit(line)
        emit(f"_cpn_d = now + ({self.t.delay})" if self.t.delay else "_cpn_d = now")
        inserts = []
        for place, text in self.outputs:
            what = self.arc_name(place, output=True) + f" '{text}'"
            timed = self.net.places[place].timed
            for term in self.parse(text, what):
                if term.delay is not None and not timed:
                    raise self.fail(what, f"place '{self.net.places[place].path}' is "
                                          "untimed: its tokens cannot carry a @+ delay")
                k = len(inserts)
                value, stamp = f"_cpn_o{k}", f"_cpn_e{k}"
                emit(f"{value} = list({term.expr})" if term.splat else f"{value} = {term.expr}")
                if timed:
                    emit(f"{stamp} = _cpn_d + ({term.delay})" if term.delay
                         else f"{stamp} = _cpn_d")
                check = self.colour_check(place, "_cpn_t")
                if check:
                    if term.splat:
                        emit(f"for _cpn_t in {value}:")
                        if timed:  # a Delayed element carries its own delay
                            emit("    if type(_cpn_t) is _cpn_Delayed: _cpn_t = _cpn_t.value")
                    else:
                        emit(f"_cpn_t = {value}")
                    emit(("    " if term.splat else "") + check
                         + f"_cpn_colour_error({self.t.index}, {place}, {text!r}, _cpn_t)")
                inserts.append((place, term, value, stamp, timed))
        by_place: dict[int, list[int]] = {}
        for position, (kind, item) in enumerate(s for s in steps if s[0] != "guard"):
            if item[4]:  # consumed, not just read
                by_place.setdefault(item[0], []).append(position)
        for place, positions in by_place.items():
            timed = self.net.places[place].timed
            if len(positions) == 1:
                emit(f"_cpn_i = _cpn_picks[{positions[0]}]")
                emit(f"del _cpn_R{place}[_cpn_i]")
                if timed:
                    emit(f"del _cpn_S{place}[_cpn_i]")
            else:
                picked = ", ".join(f"_cpn_picks[{p}]" for p in positions)
                emit(f"for _cpn_i in sorted(({picked}), reverse=True):")
                emit(f"    del _cpn_R{place}[_cpn_i]")
                if timed:
                    emit(f"    del _cpn_S{place}[_cpn_i]")
        for place, term, value, stamp, timed in inserts:
            body = (f"_cpn_put({place}, _cpn_t, {stamp}, now)" if timed
                    else f"_cpn_R{place}.append(_cpn_t)")
            if term.splat:
                emit(f"for _cpn_t in {value}:")
                if timed:
                    emit(f"    if type(_cpn_t) is _cpn_Delayed: _cpn_put({place}, "
                         f"_cpn_t.value, {stamp} + _cpn_t.delay, now)")
                    emit(f"    else: {body}")
                else:
                    emit(f"    {body}")
            elif term.multiplicity != 1:
                emit(f"for _cpn_k in range({term.multiplicity}):")
                emit(f"    _cpn_t = {value}")
                emit(f"    {body}")
            elif timed:
                emit(f"if {stamp} <= now: _cpn_R{place}.append({value}); "
                     f"_cpn_S{place}.append({stamp})")
                emit(f"else: _cpn_push(_cpn_heap, ({stamp}, _cpn_next(), {place}, {value}))")
            else:
                emit(f"_cpn_R{place}.append({value})")
        return "\n".join(lines)

    def colour_check(self, place: int, name: str) -> str:
        colour = self.net.places[place].place.colour
        if colour is None:
            return ""
        if isinstance(colour, (type, tuple)):
            return f"if not isinstance({name}, _cpn_C{place}): "
        return f"if not _cpn_C{place}({name}): "

    # -- checks and assembly -------------------------------------------------
    def check_constant(self, place: int, term: Term, what: str) -> None:
        """A constant term must belong to its place's colour set."""
        tree = check_expression(term.expr)
        if term.splat or free_names(tree) - self.env_names:
            return
        try:
            value = eval(compile(ast.Expression(tree), what, "eval"), dict(self.t.env))
        except Exception as error:  # noqa: BLE001 - reported with its context
            raise self.fail(what, f"evaluating {term.expr!r} failed: {error!r}") from None
        flat = self.net.places[place]
        if not flat.accepts(value):
            raise self.fail(what, f"constant {value!r} is not of colour "
                                  f"{flat.place.colour_name} of place '{flat.path}'")

    def check_names(self, text: str, tree, available: set[str], what: str) -> None:
        unknown = sorted(free_names(tree) - available - RESERVED - self.env_names)
        if unknown:
            raise self.fail(what, f"{'variables' if len(unknown) > 1 else 'variable'} "
                                  f"{', '.join(map(repr, unknown))} in {text!r} "
                                  f"{'are' if len(unknown) > 1 else 'is'} never bound "
                                  "(not on an input arc, not set by the code segment, "
                                  "not in the environment)")

    def value_blind(self, steps) -> list[int]:
        """The untimed singleton input places whose every term is a bare
        variable that no guard and no other input term reads."""
        terms: dict[int, list] = {}
        for kind, item in steps:
            if kind != "guard":
                terms.setdefault(item[0], []).append(item[1])
        guard_names = (free_names(check_expression(self.t.guard)) if self.t.guard else set())
        blind = []
        for place, nodes in terms.items():
            if place not in self.singletons or self.net.places[place].timed:
                continue
            if not all(isinstance(node, ast.Name) and node.id not in self.env_names
                       for node in nodes):
                continue
            names = {node.id for node in nodes}
            read_elsewhere = set(guard_names)
            for other, others in terms.items():
                if other != place:
                    for node in others:
                        read_elsewhere |= free_names(node)
            if not names & read_elsewhere:
                blind.append(place)
        return blind

    def compile(self) -> CompiledTransition:
        self.find_read_arcs()
        steps, bound = self.plan()
        for name in bound | self.env_names:
            if name.startswith(INTERNAL_PREFIX) or name in RESERVED:
                raise self.fail("variables", f"the name '{name}' is reserved")
        variables = [v for kind, item in steps if kind == "bind"
                     for v in pattern_names(item[1]) if v in bound]
        variables = list(dict.fromkeys(variables))
        available = set(bound)
        code = None
        if self.t.code:
            code = CodeSegment(self.t.code)
            try:
                code.check()
                tree = code.tree
            except SyntaxError as error:
                raise self.fail("code segment", f"{error.msg}: {self.t.code!r}") from None
            self.check_names(self.t.code, tree, bound | set(code.outputs), "code segment")
            clobbered = sorted(set(code.outputs) & bound)
            if clobbered:
                raise self.fail("code segment", f"it assigns {', '.join(clobbered)}, "
                                                "already bound by an input arc")
            available |= set(code.outputs)
        if self.t.delay:
            try:
                self.check_names(self.t.delay, check_expression(self.t.delay), bound,
                                 f"delay '@+{self.t.delay}'")
            except SyntaxError as error:
                raise self.fail("delay", f"cannot parse {self.t.delay!r}: {error.msg}") from None
        for place, text in self.t.outputs:
            what = self.arc_name(place, output=True)
            for term in self.parse(text, what + f" '{text}'"):
                for part in (term.expr, term.delay, term.multiplicity):
                    if isinstance(part, str):
                        self.check_names(part, check_expression(part), available, what)
                self.check_constant(place, term, f"{what} '{text}'")
        for place, text in self.t.inputs:
            for term in self.parse(text, self.arc_name(place, output=False)):
                self.check_constant(place, term, self.arc_name(place, False) + f" '{text}'")
        source = (self.search_source(steps, variables) + "\n\n"
                  + self.fire_source(steps, variables, code) + "\n")
        uses_time = any("now" in free_names(item[1]) for kind, item in steps)
        return CompiledTransition(
            self.t.index, self.t.path, self.t.priority, variables,
            [item[0] for kind, item in steps if kind != "guard"],
            [place for place, _ in self.t.outputs],
            sorted({item[0] for kind, item in steps if kind != "guard" and item[4]}
                   | {place for place, _ in self.outputs}),
            uses_time, source, self.t.env,
            list(self.t.inputs), self.value_blind(steps))


def compile_net(net: FlatNet) -> list[CompiledTransition]:
    """Compile every transition; raises :class:`NetError` on the first fault."""
    singletons = frozenset(singleton_places(net))
    return [_TransitionCompiler(net, t, singletons).compile() for t in net.transitions]
