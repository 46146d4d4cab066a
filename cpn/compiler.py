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
from typing import NamedTuple

from .errors import NetError
from .flatten import FlatNet, FlatTransition
from .inscription import (INTERNAL_PREFIX, RESERVED, CodeSegment, Term,
                          check_expression, free_names, is_pattern, parse_terms,
                          pattern_names, split_conjuncts)
from .names import unknown_attribute
from .net import Delayed


@dataclass
class CompiledTransition:
    """What the simulator needs to know about one transition."""

    index: int
    path: str
    priority: int
    variables: list[str]  # order of the values in a binding
    input_places: list[int]  # the place of each pick, in search order
    changed_places: list[int]  # places a firing changes (read arcs excluded)
    uses_time: bool  # its enabling depends on the clock (reads ``now``)
    source: str  # generated Python code (search and fire)
    env: dict
    # Singleton places whose token's value cannot change whether this
    # transition is enabled (bound by a bare variable used by no guard or
    # other input arc): their changes need not wake it while it is disabled.
    value_blind: list[int] = field(default_factory=list)


class InputToken(NamedTuple):
    """One token an input arc takes (``2`x`` takes two)."""

    place: int
    node: ast.expr  # the pattern it binds, or the expression it must equal
    arc: str  # ``arc P -> T 'x'``, for messages
    consumed: bool  # False for the input half of a read (double) arc


LOOKUP, BIND, TEST = "lookup", "bind", "test"


class SearchStep(NamedTuple):
    """One step of a binding search, in the order it runs: LOOKUP a token
    equal to a closed expression, BIND a pattern by looping over a place's
    tokens, or TEST a guard conjunct."""

    kind: str
    node: ast.expr  # the expression, the pattern, or the conjunct
    token: InputToken | None = None  # what a LOOKUP or a BIND takes


class Output(NamedTuple):
    """One output term, evaluated into ``value`` (and, into a timed place,
    its timestamp into ``stamp``) before the firing changes the marking."""

    place: int
    term: Term
    value: str  # name of the generated local holding the token(s)
    stamp: str  # name of the generated local holding the timestamp
    timed: bool


def _context(t: FlatTransition, what: str) -> str:
    return f"transition '{t.path}', {what}"


def _indented(lines: list[str], prefix: str = "    ") -> list[str]:
    return [prefix + line for line in lines]


def singleton_places(net: FlatNet) -> set[int]:
    """Places that always hold exactly one token: one initially, and every
    transition puts back as many as it takes (one at most).  A search binds
    them first: they offer one choice, so the loops over places of many
    tokens come innermost, with every guard on singletons already decided,
    and the bindings are found in the same order as before."""
    balance: dict[int, int] = {p.index: 0 for p in net.places if len(p.initial) == 1}
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
        self.read_inputs, self.outputs = t.read_arcs(net.places)

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

    # -- planning the search -------------------------------------------------
    def input_tokens(self) -> list[InputToken]:
        """The input arcs' terms, one per token taken, singleton places
        first."""
        tokens = []
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
                tokens += [InputToken(place, node, what, consumed)] * term.multiplicity
        return sorted(tokens, key=lambda token: token.place not in self.singletons)

    def binds(self, node, bound: set[str]) -> list[str]:
        """Variables a term would bind (empty if it is a lookup)."""
        if not is_pattern(node):
            return []
        return [n for n in pattern_names(node)
                if n not in bound and n not in self.env_names]

    def unbound(self, node, bound: set[str]) -> set[str]:
        return free_names(node) - RESERVED - self.env_names - bound

    def plan(self) -> tuple[list[SearchStep], set[str]]:
        """Order the search: closed lookups, then binders each followed by
        the lookups and guard conjuncts its variables make closed."""
        tokens = self.input_tokens()
        tests = [check_expression(text) for text in
                 (split_conjuncts(self.t.guard) if self.t.guard else [])]
        bound: set[str] = set()
        steps: list[SearchStep] = []
        waiting: list[InputToken | ast.expr] = [*tokens, *tests]

        def add_closed() -> None:
            """Every waiting lookup and test whose names are all bound."""
            for item in list(waiting):
                if isinstance(item, InputToken):
                    if self.binds(item.node, bound) or self.unbound(item.node, bound):
                        continue
                    steps.append(SearchStep(LOOKUP, item.node, item))
                elif self.unbound(item, bound):
                    continue
                else:
                    steps.append(SearchStep(TEST, item))
                waiting.remove(item)

        add_closed()
        for token in tokens:
            if token not in waiting:
                continue
            new = self.binds(token.node, bound)
            if not new:
                continue
            waiting.remove(token)
            steps.append(SearchStep(BIND, token.node, token))
            bound.update(new)
            add_closed()
        for item in waiting:
            node, where = ((item.node, item.arc) if isinstance(item, InputToken)
                           else (item, f"guard '{self.t.guard}'"))
            names = sorted(self.unbound(node, bound))
            raise self.fail(where, f"unknown variable{'s' if len(names) > 1 else ''} "
                                   f"{', '.join(map(repr, names))} (only a variable or a "
                                   "tuple pattern on an input arc binds a variable)")
        return steps, bound

    # -- the search ----------------------------------------------------------
    def search_source(self, steps: list[SearchStep], variables: list[str]) -> str:
        tokens = [step.token for step in steps if step.kind != TEST]
        lines = ["def _cpn_search(now, _cpn_out):"]
        lines += _indented(self.shortage_test(tokens))
        picked: dict[int, list[str]] = {}  # place -> pick variables so far
        picks: list[str] = []
        bound: set[str] = set()
        depth = 0

        def emit(text: str) -> None:
            lines.append("    " * (depth + 1) + text)

        def give_up() -> str:
            return "continue" if depth else "return None"

        for step in steps:
            if step.kind == TEST:
                emit(f"if not ({ast.unparse(step.node)}): {give_up()}")
                continue
            place = step.token.place
            index = f"_cpn_i{len(picks)}"
            others = picked.setdefault(place, [])
            if step.kind == LOOKUP:
                emit(f"_cpn_v = {ast.unparse(step.node)}")
                if not others:  # two C-level scans beat raising ValueError
                    emit(f"if _cpn_v not in _cpn_R{place}: {give_up()}")
                    emit(f"{index} = _cpn_R{place}.index(_cpn_v)")
                else:
                    emit(f"for {index}, _cpn_t in enumerate(_cpn_R{place}):")
                    skip = " and ".join(f"{index} != {o}" for o in others)
                    emit(f"    if _cpn_t == _cpn_v and {skip}: break")
                    emit("else:")
                    emit(f"    {give_up()}")
            else:
                emit(f"for {index}, _cpn_t in enumerate(_cpn_R{place}):")
                depth += 1
                for other in others:
                    emit(f"if {index} == {other}: continue")
                for check in self.pattern_checks(step.node, "_cpn_t", bound):
                    emit(check)
                bound.update(self.binds(step.node, bound))
            others.append(index)
            picks.append(index)
        values = "".join(f"{v}, " for v in variables)
        emit(f"_cpn_b = (({''.join(p + ', ' for p in picks)}), ({values}))")
        emit("if _cpn_out is None: return _cpn_b")
        emit("_cpn_out.append(_cpn_b)")
        lines.append("    return None")
        return "\n".join(lines)

    @staticmethod
    def shortage_test(tokens: list[InputToken]) -> list[str]:
        """A place holding fewer tokens than the transition takes from it
        disables it at once, before any other place is scanned."""
        needed: dict[int, int] = {}
        for token in tokens:
            needed[token.place] = needed.get(token.place, 0) + 1
        if len(needed) <= 1 and all(count == 1 for count in needed.values()):
            return []
        short = " or ".join(f"len(_cpn_R{place}) < {count}" if count > 1
                            else f"not _cpn_R{place}" for place, count in needed.items())
        return [f"if {short}: return None"]

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
    def fire_source(self, steps: list[SearchStep], variables: list[str],
                    code: CodeSegment | None) -> str:
        """Evaluate every output first, then consume and produce: a firing
        whose inscription raises leaves the marking untouched."""
        evaluate, outputs = self.evaluate_outputs()
        body = (self.bind_variables(variables, code) + evaluate
                + self.consume(steps) + self.produce(outputs))
        return "\n".join(["def _cpn_fire(_cpn_picks, _cpn_vals, now):", *_indented(body)])

    def bind_variables(self, variables: list[str], code: CodeSegment | None) -> list[str]:
        """Unpack the binding, run the code segment, and compute the
        transition's ``@+`` delay into ``_cpn_d``."""
        lines = []
        if variables:
            lines.append(f"{''.join(v + ', ' for v in variables)}= _cpn_vals")
        if code is not None:
            lines += textwrap.dedent(code.text).strip("\n").splitlines()
        lines.append(f"_cpn_d = now + ({self.t.delay})" if self.t.delay else "_cpn_d = now")
        return lines

    def evaluate_outputs(self) -> tuple[list[str], list[Output]]:
        """Statements computing every output token and timestamp, each
        checked against its place's colour set."""
        lines: list[str] = []
        outputs: list[Output] = []
        for place, text in self.outputs:
            what = self.arc_name(place, output=True) + f" '{text}'"
            timed = self.net.places[place].timed
            for term in self.parse(text, what):
                if term.delay is not None and not timed:
                    raise self.fail(what, f"place '{self.net.places[place].path}' is "
                                          "untimed: its tokens cannot carry a @+ delay")
                k = len(outputs)
                output = Output(place, term, f"_cpn_o{k}", f"_cpn_e{k}", timed)
                lines.append(f"{output.value} = list({term.expr})" if term.splat
                             else f"{output.value} = {term.expr}")
                if timed:
                    lines.append(f"{output.stamp} = _cpn_d + ({term.delay})" if term.delay
                                 else f"{output.stamp} = _cpn_d")
                lines += self.output_check(output, text)
                outputs.append(output)
        return lines, outputs

    def output_check(self, output: Output, text: str) -> list[str]:
        """Statements refusing an output token that cannot enter its place
        (see ``Simulator._refuse``): outside the place's colour set, or a
        ``Delayed`` into an untimed place."""
        tests = []
        colour = self.net.places[output.place].place.colour
        if isinstance(colour, (type, tuple)):
            tests.append(f"not isinstance(_cpn_t, _cpn_C{output.place})")
        elif colour is not None:
            tests.append(f"not _cpn_C{output.place}(_cpn_t)")
        if not output.timed and (colour is None or not isinstance(colour, (type, tuple))
                                 or issubclass(Delayed, colour)):
            tests.insert(0, "type(_cpn_t) is _cpn_Delayed")  # else the colour refuses it
        if not tests:
            return []
        refuse = (f"if {' or '.join(tests)}: "
                  f"_cpn_refuse({self.t.index}, {output.place}, {text!r}, _cpn_t)")
        if not output.term.splat:
            return [f"_cpn_t = {output.value}", refuse]
        lines = [f"for _cpn_t in {output.value}:"]
        if output.timed:  # a Delayed element carries its own delay
            lines.append("    if type(_cpn_t) is _cpn_Delayed: _cpn_t = _cpn_t.value")
        return lines + ["    " + refuse]

    def consume(self, steps: list[SearchStep]) -> list[str]:
        """Statements deleting the picked tokens (read arcs keep theirs)."""
        by_place: dict[int, list[int]] = {}
        tokens = [step.token for step in steps if step.kind != TEST]
        for position, token in enumerate(tokens):
            if token.consumed:
                by_place.setdefault(token.place, []).append(position)
        lines = []
        for place, positions in by_place.items():
            timed = self.net.places[place].timed
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

    def produce(self, outputs: list[Output]) -> list[str]:
        """Statements putting the evaluated tokens into their places: a
        timed token available now joins the place's list, a later one
        waits in the simulator's heap."""
        lines = []
        for place, term, value, stamp, timed in outputs:
            put = (f"_cpn_put({place}, _cpn_t, {stamp}, now)" if timed
                   else f"_cpn_R{place}.append(_cpn_t)")
            if term.splat:
                lines.append(f"for _cpn_t in {value}:")
                if timed:
                    lines.append(f"    if type(_cpn_t) is _cpn_Delayed: _cpn_put({place}, "
                                 f"_cpn_t.value, {stamp} + _cpn_t.delay, now)")
                    lines.append(f"    else: {put}")
                else:
                    lines.append(f"    {put}")
            elif term.multiplicity != 1:
                lines.append(f"for _cpn_k in range({term.multiplicity}):")
                lines.append(f"    _cpn_t = {value}")
                lines.append(f"    {put}")
            elif timed:
                lines.append(f"if {stamp} <= now: _cpn_R{place}.append({value}); "
                             f"_cpn_S{place}.append({stamp})")
                lines.append(f"else: _cpn_push(_cpn_heap, ({stamp}, _cpn_next(), {place}, "
                             f"{value}))")
            else:
                lines.append(f"_cpn_R{place}.append({value})")
        return lines

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
        if isinstance(value, Delayed) and not flat.timed:
            raise self.fail(what, f"place '{flat.path}' is untimed: its tokens cannot "
                                  f"carry a delay ({value!r})")
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

    def value_blind(self, steps: list[SearchStep]) -> list[int]:
        """The untimed singleton input places whose every term is a bare
        variable that no guard and no other input term reads."""
        terms: dict[int, list] = {}
        for step in steps:
            if step.kind != TEST:
                terms.setdefault(step.token.place, []).append(step.node)
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

    def check_pure(self, steps: list[SearchStep]) -> None:
        """Guards and input arcs are evaluated any number of times while
        bindings are searched (and not again while nothing they read
        changes), so they must not draw from the model's ``rng``."""
        for step in steps:
            if "rng" in free_names(step.node):
                where = step.token.arc if step.token else f"guard '{self.t.guard}'"
                raise self.fail(where, "it draws from 'rng', but guards and input arcs are "
                                       "evaluated any number of times while bindings are "
                                       "searched: draw on an output arc or in the code "
                                       "segment")

    def texts(self) -> list[tuple[str, str]]:
        """Every piece of Python text of the transition, with what it is."""
        texts = [(f"guard '{self.t.guard}'", self.t.guard)] if self.t.guard else []
        for place, text in self.t.inputs:
            what = self.arc_name(place, output=False) + f" '{text}'"
            texts += [(what, term.expr) for term in self.parse(text, what)]
        for place, text in self.t.outputs:
            what = self.arc_name(place, output=True) + f" '{text}'"
            for term in self.parse(text, what):
                texts += [(what, part) for part in (term.expr, term.delay, term.multiplicity)
                          if isinstance(part, str)]
        if self.t.delay:
            texts.append((f"delay '@+{self.t.delay}'", self.t.delay))
        if self.t.code:
            texts.append(("code segment", self.t.code))
        return texts

    def check_attributes(self) -> None:
        """``rules.okk(x)`` with ``rules`` in the env: refused now rather
        than at the first firing (see ``names.py``)."""
        for what, text in self.texts():
            tree = ast.parse(textwrap.dedent(text).strip())
            problem = unknown_attribute(tree, self.t.env, free_names(tree) & self.env_names)
            if problem:
                raise self.fail(what, f"{problem} (in {text.strip()!r})")

    def compile(self) -> CompiledTransition:
        steps, bound = self.plan()
        self.check_pure(steps)
        self.check_attributes()
        for name in bound | self.env_names:
            if name.startswith(INTERNAL_PREFIX) or name in RESERVED:
                raise self.fail("variables", f"the name '{name}' is reserved")
        variables = [v for step in steps if step.kind == BIND
                     for v in pattern_names(step.node) if v in bound]
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
        tokens = [step.token for step in steps if step.kind != TEST]
        return CompiledTransition(
            self.t.index, self.t.path, self.t.priority, variables,
            input_places=[token.place for token in tokens],
            changed_places=sorted({token.place for token in tokens if token.consumed}
                                  | {place for place, _ in self.outputs}),
            uses_time=any("now" in free_names(step.node) for step in steps),
            source=source, env=self.t.env, value_blind=self.value_blind(steps))


def compile_net(net: FlatNet) -> list[CompiledTransition]:
    """Compile every transition; raises :class:`NetError` on the first fault."""
    singletons = frozenset(singleton_places(net))
    return [_TransitionCompiler(net, t, singletons).compile() for t in net.transitions]
