"""Compiling each transition into two Python functions: search and fire.

Inscription text is checked and planned once: the binding search walks the
input places in a pattern-directed order (constants and closed expressions
first, then binding arcs, each guard conjunct as soon as its variables are
bound, places that always hold one token before the others), and
``codegen.py`` writes that plan, and the firing, as Python.  Every fault the
text can have without running -- a syntax error, an unknown variable or
attribute, a constant of the wrong colour, a guard drawing from ``rng`` --
is raised here, naming the transition, the arc or guard and the text.
"""

from __future__ import annotations

import ast
import textwrap
import warnings
from dataclasses import dataclass, field
from typing import Any

from .codegen import BIND, LOOKUP, TEST, InputToken, SearchStep, search_source
from .colour_sets import bool_hint
from .firing_code import Output, fire_source
from .singletons import singleton_places, value_blind
from .errors import NetError, NetWarning
from .flatten import IMMUTABLE, FlatNet, FlatTransition, hashable
from .keybounds import KeyBound, key_test
from .inscription import (INTERNAL_PREFIX, RESERVED, CodeSegment, Term, binds,
                          check_expression, free_names, parse_terms, pattern_names,
                          split_conjuncts)
from .names import unbound_names, unknown_attribute
from .net import Delayed
from .syntax_trees import compile_expression, parse


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
    # The key (see ``KeyBound``) whose lower bound its search reads, if any.
    key: KeyBound | None = None
    outputs: list[Output] = field(default_factory=list)  # ``_cpn_oK``'s: for messages
    origins: list = field(default_factory=list)  # each line's ``codegen.Origin``: for messages


class _TransitionCompiler:
    def __init__(self, net: FlatNet, t: FlatTransition, singletons: frozenset = frozenset(),
                 held: frozenset = frozenset()):
        self.net, self.t, self.singletons, self.held = net, t, singletons, held
        self.env_names = set(t.env)
        self.read_inputs, self.produced = t.read_arcs(net.places)

    def fail(self, what: str, message: str) -> NetError:
        return NetError(f"net '{self.net.name}', transition '{self.t.path}', {what}: {message}")

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
            what = self.arc_name(place, output=False) + f" {text!r}"
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
        return binds(node, bound, self.env_names)

    def unbound(self, node, bound: set[str]) -> set[str]:
        return free_names(node) - RESERVED - self.env_names - bound

    def plan(self) -> tuple[list[SearchStep], set[str]]:
        """Order the search: closed lookups, then binders each followed by
        the lookups and guard conjuncts its variables make closed."""
        tokens = self.input_tokens()
        try:
            conjuncts = {check_expression(text): written for text, written in
                         (split_conjuncts(self.t.guard) if self.t.guard else [])}
            tests = list(conjuncts)
        except SyntaxError as error:
            raise self.fail(f"guard '{self.t.guard}'", f"cannot parse it: {error.msg}") from None
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
                    steps.append(SearchStep(TEST, item, text=conjuncts[item]))
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

    # -- checks ---------------------------------------------------------------
    def check_constant(self, place: int, term: Term, what: str) -> None:
        """A constant term must belong to its place's colour set."""
        if term.splat:
            return
        known, value = self.constant(term.expr, check_expression(term.expr), what)
        if not known:
            return
        flat = self.net.places[place]
        if not hashable(value):
            raise self.fail(what, f"constant {value!r} is not hashable: {IMMUTABLE}")
        if isinstance(value, Delayed) and not flat.timed:
            raise self.fail(what, f"place '{flat.path}' is untimed: its tokens cannot "
                                  f"carry a delay ({value!r})")
        if not flat.accepts(value):
            raise self.fail(what, f"constant {value!r} is not of colour "
                                  f"{flat.place.colour_name} of place '{flat.path}'"
                                  + bool_hint(flat.place.colour, value))

    def check_names(self, text: str, tree, available: set[str], what: str) -> None:
        unknown = free_names(tree) - available - RESERVED - self.env_names
        if unknown:
            raise self.fail(what, unbound_names(text, tree, unknown))

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
            what = self.arc_name(place, output=False) + f" {text!r}"
            texts += [(what, term.expr) for term in self.parse(text, what)]
        for place, text in self.t.outputs:
            what = self.arc_name(place, output=True) + f" {text!r}"
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
            try:
                tree = parse(textwrap.dedent(text).strip())
            except SyntaxError:
                continue  # reported with its context by the check of that text
            problem = unknown_attribute(tree, self.t.env, free_names(tree) & self.env_names)
            if problem:
                raise self.fail(what, f"{problem} (in {text.strip()!r})")

    def check_code(self, bound: set[str]) -> CodeSegment | None:
        """The code segment, reading only bound variables and the env and
        assigning no bound variable."""
        if not self.t.code:
            return None
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
        return code

    def check_delay(self, bound: set[str]) -> None:
        if not self.t.delay:
            return
        try:
            tree = check_expression(self.t.delay)
        except SyntaxError as error:
            raise self.fail("delay", f"cannot parse {self.t.delay!r}: {error.msg}") from None
        self.check_names(self.t.delay, tree, bound, f"delay '@+{self.t.delay}'")
        self.check_constant_delay(self.t.delay, tree, f"delay '@+{self.t.delay}'")
        if not any(self.net.places[place].timed for place, _ in self.produced):
            raise self.fail("delay", f"'@+{self.t.delay}' would delay nothing: no output "
                                     "place of the transition is timed")

    def constant(self, text: str, tree, what: str) -> tuple[bool, Any]:
        """``(True, value)`` for an expression that reads only the
        environment, evaluated now; ``(False, None)`` for one known only
        when the transition fires."""
        if free_names(tree) - self.env_names:
            return False, None
        try:
            return True, eval(compile_expression(tree, what), dict(self.t.env))
        except Exception as error:  # noqa: BLE001 - reported with its context
            raise self.fail(what, f"evaluating {text!r} failed: {error!r}") from None

    def check_constant_delay(self, text: str, tree, what: str) -> None:
        """A delay known when the net is built is a number >= 0 (a firing
        checks the others): the clock never runs back."""
        known, value = self.constant(text, tree, what)
        if known and (isinstance(value, bool) or not isinstance(value, (int, float))
                      or not value >= 0):
            raise self.fail(what, f"a delay must be a number >= 0, not {value!r}")

    def check_constant_multiplicity(self, text: str, what: str) -> None:
        """A multiplicity known when the net is built is an integer >= 0 (a
        firing checks the others): a negative one would put no token."""
        known, value = self.constant(text, check_expression(text), what)
        if known and not (hasattr(value, "__index__") and value >= 0):
            raise self.fail(what, f"a multiplicity must be an integer >= 0, not {value!r}")

    def check_arcs(self, available: set[str]) -> None:
        """Output arcs read only ``available`` names; constants on any arc
        belong to their place's colour."""
        for place, text in self.t.outputs:
            what = self.arc_name(place, output=True)
            for term in self.parse(text, what + f" {text!r}"):
                for part in (term.expr, term.delay, term.multiplicity):
                    if isinstance(part, str):
                        self.check_names(part, check_expression(part), available, what)
                if term.delay is not None:
                    self.check_constant_delay(term.delay, check_expression(term.delay),
                                              f"{what} {text!r}")
                if isinstance(term.multiplicity, str):
                    self.check_constant_multiplicity(term.multiplicity, f"{what} {text!r}")
                self.check_constant(place, term, f"{what} {text!r}")
        for place, text in self.t.inputs:
            for term in self.parse(text, self.arc_name(place, output=False)):
                self.check_constant(place, term, self.arc_name(place, False) + f" {text!r}")

    def outputs(self) -> list[Output]:
        """The terms of the output arcs that put tokens (read arcs put none)."""
        outputs = []
        for place, text in self.produced:
            what = self.arc_name(place, output=True) + f" {text!r}"
            for term in self.parse(text, what):
                if term.delay is not None and not self.net.places[place].timed:
                    raise self.fail(what, f"place '{self.net.places[place].path}' is "
                                          "untimed: its tokens cannot carry a @+ delay")
                outputs.append(Output(place, term, text))
        return outputs

    # -- assembly -------------------------------------------------------------
    def compile(self, slots: dict[tuple, int], keyed: frozenset) -> CompiledTransition:
        """``slots``: the bound slot of each key (see ``KeyBound``) of the
        net, which this transition's may join; ``keyed``: the places with
        a key."""
        steps, bound = self.plan()
        test = key_test(steps, self.held, self.env_names)
        key = None
        if test is not None:
            spec = test[1]
            key = KeyBound(slots.setdefault(spec, len(slots)), *spec)
        self.check_pure(steps)
        self.check_attributes()
        for name in bound | self.env_names:
            if name.startswith(INTERNAL_PREFIX) or name in RESERVED:
                raise self.fail("variables", f"the name '{name}' is reserved")
        variables = list(dict.fromkeys(v for step in steps if step.kind == BIND
                                       for v in pattern_names(step.node) if v in bound))
        code = self.check_code(bound)
        self.check_delay(bound)
        self.check_arcs(bound | set(code.outputs if code else ()))
        outputs = self.outputs()
        search = search_source(steps, variables, self.env_names, self.net.places, self.held,
                               None if key is None else (test[0], key.slot, *test[2:]))
        fire = fire_source(self.t.index, steps, variables, self.t.code, self.t.delay,
                           outputs, self.net.places, self.held, keyed)
        tokens = [step.token for step in steps if step.kind != TEST]
        return CompiledTransition(
            self.t.index, self.t.path, self.t.priority, variables,
            input_places=[token.place for token in tokens],
            changed_places=sorted({token.place for token in tokens if token.consumed}
                                  | {output.place for output in outputs}),
            uses_time=any("now" in free_names(step.node) for step in steps),
            source=f"{search.source}\n\n{fire.source}\n", env=self.t.env,
            value_blind=value_blind(steps, self.net, self.singletons, self.t.env,
                                    self.t.guard), key=key, outputs=outputs,
            origins=[*search.origins, None, *fire.origins])


def compile_net(net: FlatNet, held: frozenset = frozenset()) -> list[CompiledTransition]:
    """Compile every transition; raises :class:`NetError` on the first fault.
    ``held``: untimed singleton places (see :func:`singleton_places`) that
    hold their one token in the marking the simulator starts from, so hold
    one whatever fires: a search reads that token instead of looping over
    the place."""
    singletons = frozenset(singleton_places(net))
    compilers = [_TransitionCompiler(net, t, singletons, held) for t in net.transitions]
    keyed = set()  # every firing that puts a token there must lower the bound
    for compiler in compilers:
        try:
            test = key_test(compiler.plan()[0], held, compiler.env_names)
        except NetError:
            continue  # raised again, in its order, by compile()
        if test is not None:
            keyed.add(test[1][0])
    slots: dict[tuple, int] = {}
    compiled = [compiler.compile(slots, frozenset(keyed)) for compiler in compilers]
    for t in net.transitions:
        if not t.inputs:  # CPN Tools' semantics, most likely not what was meant
            warnings.warn(f"net '{net.name}', transition '{t.path}' has no input arcs: once "
                          "its guard holds it stays enabled, firing for ever without the clock "
                          "moving; run it with max_steps, or give it a place to take a token "
                          "from (one of a timed place, put back @+delay, spaces its firings "
                          "in time)", NetWarning, stacklevel=4)
    return compiled


def compiled_for(net: FlatNet, available: list[list],
                 stamps: list[list | None]) -> tuple[frozenset, list[CompiledTransition]]:
    """Compile a flat net once, however many simulators run it from
    markings whose untimed singleton places hold one token (the searches
    read that token, see ``compile_net``): ``(those places, the
    transitions)``."""
    if net.singletons is None:
        net.singletons = frozenset(singleton_places(net))
    held = frozenset(p for p in net.singletons if stamps[p] is None and len(available[p]) == 1)
    if held not in net.compiled:
        net.compiled[held] = compile_net(net, held)
    return held, net.compiled[held]
