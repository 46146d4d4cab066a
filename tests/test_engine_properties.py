"""Property tests of the engine on random small flat nets.

A net is generated as a :class:`NetSpec`: places of ``int`` tokens (some
timed, one optionally of pairs), transitions whose input arcs carry
variables, constants, pair patterns, closed expressions and ``2`x``
multiplicities, optional guards, outputs over the bound variables with
optional ``@+`` delays, and priorities from {P_HIGH, P_NORMAL, P_LOW}.
The spec knows the meaning of every inscription, so the checks below do
not trust the engine's compiler: a brute-force enumerator over the
available tokens is the reference for enabled bindings, and each firing's
effect on the (timed) marking is recomputed from the spec.

``test_snakes_oracle.py`` reuses the generator for its untimed nets.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cpn import P_HIGH, P_LOW, P_NORMAL, Net, NetWarning, Simulator, StopReason, timed
from cpn.monitors import FiringLog

PRIORITIES = (P_HIGH, P_NORMAL, P_LOW, P_LOW + 1, P_LOW + 2)  # the last two deferred
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.data_too_large])


# ---------------------------------------------------------------------------
# Net specifications: inscription text plus its meaning
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class InTerm:
    """One summand of an input inscription.

    ``pattern`` is ``("var", name)``, ``("const", k)``, ``("pair", p, q)``
    (p, q var or const patterns) or ``("expr", text)`` (an expression over
    variables bound by other terms)."""

    pattern: tuple
    mult: int = 1

    @property
    def text(self) -> str:
        body = _pattern_text(self.pattern)
        return body if self.mult == 1 else f"{self.mult}`{body}"


@dataclass(frozen=True)
class OutTerm:
    expr: str
    mult: int = 1
    delay: int | None = None

    @property
    def text(self) -> str:
        body = self.expr if self.mult == 1 else f"{self.mult}`{self.expr}"
        return body if self.delay is None else f"{body}@+{self.delay}"


@dataclass
class PlaceSpec:
    name: str
    pair: bool  # tokens are 2-tuples of ints (else ints)
    timed: bool
    initial: list  # (value, timestamp) pairs; timestamp None when untimed
    weight: int = 1  # for P-invariants


@dataclass
class TransitionSpec:
    name: str
    priority: int
    inputs: list  # (place name, [InTerm]) per arc
    outputs: list  # (place name, [OutTerm]) per arc
    guard: str | None = None
    delay: int | None = None


@dataclass
class NetSpec:
    places: list[PlaceSpec]
    transitions: list[TransitionSpec] = field(default_factory=list)

    def place(self, name: str) -> PlaceSpec:
        return next(p for p in self.places if p.name == name)

    def transition(self, name: str) -> TransitionSpec:
        return next(t for t in self.transitions if t.name == name)

    def build(self, name: str = "random") -> Net:
        net = Net(name)
        for p in self.places:
            initial = [timed(v, s) if p.timed else v for v, s in p.initial]
            net.place(p.name, tuple if p.pair else int, initial=initial, timed=p.timed)
        for t in self.transitions:
            net.transition(t.name, guard=t.guard, delay=t.delay, priority=t.priority)
            for place, terms in t.inputs:
                net.arc(place, t.name, " ++ ".join(term.text for term in terms))
            for place, terms in t.outputs:
                net.arc(t.name, place, " ++ ".join(term.text for term in terms))
        return net

    def __repr__(self) -> str:  # readable falsifying examples
        lines = ["NetSpec:"]
        for p in self.places:
            lines.append(f"  place {p.name} {'pair' if p.pair else 'int'}"
                         f"{' timed' if p.timed else ''} w={p.weight} {p.initial}")
        for t in self.transitions:
            ins = "; ".join(f"{pl} -> '{' ++ '.join(x.text for x in ts)}'" for pl, ts in t.inputs)
            outs = "; ".join(f"'{' ++ '.join(x.text for x in ts)}' -> {pl}"
                             for pl, ts in t.outputs)
            lines.append(f"  transition {t.name} prio={t.priority} guard={t.guard!r} "
                         f"delay={t.delay} | in: {ins} | out: {outs}")
        return "\n".join(lines)


def _pattern_text(pattern: tuple) -> str:
    kind = pattern[0]
    if kind == "var":
        return pattern[1]
    if kind == "const":
        return repr(pattern[1])
    if kind == "pair":
        return f"({_pattern_text(pattern[1])}, {_pattern_text(pattern[2])})"
    return pattern[1]  # expr


def _pattern_vars(pattern: tuple) -> list[str]:
    if pattern[0] == "var":
        return [pattern[1]]
    if pattern[0] == "pair":
        return _pattern_vars(pattern[1]) + _pattern_vars(pattern[2])
    return []


# ---------------------------------------------------------------------------
# The reference semantics, computed from the spec
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _code(text: str):
    return compile(text, "<oracle>", "eval")


def evaluate(text: str, env: dict):
    """The test's own reading of an inscription (not the engine's compiler)."""
    return eval(_code(text), {}, dict(env))  # noqa: S307 - test oracle


def _unify(pattern: tuple, token, env: dict) -> dict | None:
    kind = pattern[0]
    if kind == "var":
        name = pattern[1]
        if name in env:
            return env if env[name] == token else None
        return {**env, name: token}
    if kind == "const":
        return env if token == pattern[1] and type(token) is type(pattern[1]) else None
    if kind == "pair":
        if not (isinstance(token, tuple) and len(token) == 2):
            return None
        env = _unify(pattern[1], token[0], env)
        return None if env is None else _unify(pattern[2], token[1], env)
    raise AssertionError(kind)


def _value(pattern: tuple, env: dict):
    """The token an input term stands for under a full binding."""
    kind = pattern[0]
    if kind == "var":
        return env[pattern[1]]
    if kind == "const":
        return pattern[1]
    if kind == "pair":
        return (_value(pattern[1], env), _value(pattern[2], env))
    return evaluate(pattern[1], env)


def available(tokens: list, now: float) -> Counter:
    return Counter(v for v, s in tokens if s is None or s <= now)


def reference_bindings(spec: NetSpec, tokens: dict, now: float,
                       all_priorities: bool = False) -> set:
    """Every enabled binding ``(transition, frozenset(variables))`` at
    ``now``, by brute force over the available tokens (``tokens`` maps a
    place to ``(value, timestamp)`` pairs, future tokens included)."""
    per_transition = {}
    for t in spec.transitions:
        items = [(place, term.pattern) for place, terms in t.inputs
                 for term in terms for _ in range(term.mult)]
        # binders first, closed expressions last
        items.sort(key=lambda item: item[1][0] == "expr")
        free = {place: available(tokens[place], now) for place, _ in items}
        found = set()

        def search(i: int, env: dict) -> None:
            if i == len(items):
                if t.guard is None or evaluate(t.guard, {**env, "now": now}):
                    found.add(frozenset(env.items()))
                return
            place, pattern = items[i]
            bag = free[place]
            for value in list(bag):
                if bag[value] <= 0:
                    continue
                if pattern[0] == "expr":
                    new = env if _value(pattern, env) == value else None
                else:
                    new = _unify(pattern, value, env)
                if new is None:
                    continue
                bag[value] -= 1
                search(i + 1, new)
                bag[value] += 1

        search(0, {})
        if found:
            per_transition[t.name] = found
    if not per_transition:
        return set()
    best = min(spec.transition(name).priority for name in per_transition)
    return {(name, b) for name, found in per_transition.items() for b in found
            if all_priorities or spec.transition(name).priority == best}


def consumed_values(t: TransitionSpec, env: dict) -> dict[str, Counter]:
    result: dict[str, Counter] = {}
    for place, terms in t.inputs:
        bag = result.setdefault(place, Counter())
        for term in terms:
            bag[_value(term.pattern, env)] += term.mult
    return result


def produced_tokens(spec: NetSpec, t: TransitionSpec, env: dict,
                    now: float) -> dict[str, Counter]:
    result: dict[str, Counter] = {}
    for place, terms in t.outputs:
        bag = result.setdefault(place, Counter())
        is_timed = spec.place(place).timed
        for term in terms:
            value = evaluate(term.expr, env)
            stamp = (float(now + (t.delay or 0) + (term.delay or 0)) if is_timed else None)
            bag[(value, stamp)] += term.mult
    return result


def timed_marking(sim: Simulator) -> dict[str, list]:
    marking = sim.marking
    return {path: marking.timed(path) for path in marking}


def check_firing(spec: NetSpec, before: dict, after: dict, transition: str,
                 env: dict, now: float) -> None:
    """The marking changed exactly by the binding's consumption and
    production, and every consumed token was available at ``now``."""
    t = spec.transition(transition)
    consumed = consumed_values(t, env)
    produced = produced_tokens(spec, t, env, now)
    for place in before:
        old, new = Counter(before[place]), Counter(after[place])
        gained = old + produced.get(place, Counter())
        appeared = new - gained
        assert not appeared, f"{transition}<{env}> created {dict(appeared)} in {place}"
        removed = gained - new
        invented = removed - old  # a consumed token must have been there before
        assert not invented, (f"{transition}<{env}>: {dict(invented)} in {place} was "
                              "not produced as the output arcs say")
        assert Counter(v for v, _ in removed.elements()) == consumed.get(place, Counter()), (
            f"{transition}<{env}> removed {dict(removed)} from {place}, "
            f"expected values {dict(consumed.get(place, {}))}")
        late = [(v, s) for v, s in removed.elements() if s is not None and s > now]
        assert not late, f"{transition}<{env}> consumed unavailable tokens {late} at {now}"


def binding_key(binding) -> tuple:
    return (binding.transition, frozenset(binding.values.items()))


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

SMALL = st.integers(0, 3)
MULTIPLICITY = st.sampled_from([1, 1, 1, 2])  # weights keep nets alive


@st.composite
def place_specs(draw, timed_ok: bool = True, pair_ok: bool = True,
                min_places: int = 2, max_places: int = 5) -> list[PlaceSpec]:
    n = draw(st.integers(min_places, max_places))
    with_pair = pair_ok and draw(st.booleans())
    places = []
    for i in range(n):
        pair = with_pair and i == n - 1
        is_timed = timed_ok and draw(st.booleans())
        value = st.tuples(SMALL, SMALL) if pair else SMALL
        stamp = st.sampled_from([0.0, 0.0, 1.0, 2.0, 3.0]) if is_timed else st.none()
        initial = draw(st.lists(st.tuples(value, stamp), min_size=2, max_size=6))
        places.append(PlaceSpec(f"P{i}", pair, is_timed, initial))
    return places


@st.composite
def input_term(draw, place: PlaceSpec, bound: list[str], fresh,
               exprs_ok: bool) -> InTerm:
    def element():
        kinds = ["fresh", "fresh", "fresh", "const"] + (["old"] if bound else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "fresh":
            name = fresh()
            bound.append(name)
            return ("var", name)
        if kind == "old":
            return ("var", draw(st.sampled_from(bound)))
        return ("const", draw(SMALL))

    if place.pair:
        first = element()
        return InTerm(("pair", first, element()), draw(MULTIPLICITY))
    kinds = ["elem", "elem", "elem"] + (["expr"] if exprs_ok and bound else [])
    if draw(st.sampled_from(kinds)) == "expr":
        v = draw(st.sampled_from(bound))
        text = draw(st.sampled_from([f"{v} + 1", f"{v} - 1", f"{v} * 0 + 1"]))
        return InTerm(("expr", text), draw(MULTIPLICITY))
    return InTerm(element(), draw(MULTIPLICITY))


def int_expressions(bound: list[str]) -> st.SearchStrategy[str]:
    options = [SMALL.map(str)]
    if bound:
        var = st.sampled_from(bound)
        options += [var, var, var.map(lambda v: f"{v} + 1"),  # plain: read arcs
                    st.tuples(var, var).map(lambda ab: f"({ab[0]} + {ab[1]}) % 4")]
    return st.one_of(options)


@st.composite
def guards(draw, bound: list[str], now_guards: bool = False) -> str | None:
    """Optional guards over the bound variables; with ``now_guards``, some
    conjuncts test the clock (``now >= 2``), so enabling changes with time."""
    if not bound or draw(st.integers(0, 2)):
        return None
    var = st.sampled_from(bound)

    def conjunct():
        if now_guards and not draw(st.integers(0, 3)):
            return draw(st.sampled_from(["now >= 1", "now >= 3", "now < 2", "now % 2 == 0"]))
        a = draw(var)
        others = [v for v in bound if v != a]
        if not others:
            return draw(st.sampled_from([f"{a} % 2 == 0", f"{a} < 3", f"{a} != 1"]))
        b = draw(st.sampled_from(others))
        return draw(st.sampled_from([f"{a} > {b}", f"{a} % 2 == 0", f"{a} != {b}",
                                     f"{a} + {b} < 4"]))

    parts = [conjunct() for _ in range(draw(st.integers(1, 2)))]
    return " and ".join(parts)


@st.composite
def output_term(draw, place: PlaceSpec, bound: list[str], timed_ok: bool) -> OutTerm:
    if place.pair:
        expr = "({}, {})".format(draw(int_expressions(bound)), draw(int_expressions(bound)))
    else:
        expr = draw(int_expressions(bound))
    delay = (draw(st.one_of(st.none(), st.integers(1, 2)))
             if timed_ok and place.timed else None)
    return OutTerm(expr, draw(st.integers(1, 2)), delay)


@st.composite
def net_specs(draw, timed_ok: bool = True, priorities: bool = True,
              exprs_ok: bool = True, parallel_arcs: bool = True,
              pair_ok: bool = True, now_guards: bool = False) -> NetSpec:
    """Flat random nets.  ``parallel_arcs=False`` gives at most one arc per
    (place, transition) pair and direction, as SNAKES requires."""
    places = draw(place_specs(timed_ok=timed_ok, pair_ok=pair_ok))
    spec = NetSpec(places)
    for k in range(draw(st.sampled_from([2, 3, 1, 4]))):
        counter = itertools.count()
        fresh = lambda: f"x{next(counter)}"  # noqa: E731
        bound: list[str] = []
        arcs: dict = {}
        inputs = []
        for _ in range(draw(st.sampled_from([1, 1, 2, 2, 3]))):
            place = draw(st.sampled_from(places))
            terms = [draw(input_term(place, bound, fresh, exprs_ok))
                     for _ in range(draw(st.sampled_from([1, 1, 1, 2])))]
            if not parallel_arcs and place.name in arcs:
                arcs[place.name].extend(terms)
                continue
            arcs[place.name] = terms
            inputs.append((place.name, terms))
        inputs = draw(st.permutations(inputs))  # the engine must not depend on order
        guard = draw(guards(bound, now_guards and timed_ok))
        outputs, seen = [], set()
        # most transitions give tokens back to some of their input places,
        # so that random nets live long enough to be interesting
        feedback = [spec.place(name) for name, _ in inputs
                    if draw(st.sampled_from([True, False]))]
        extra = [draw(st.sampled_from(places))
                 for _ in range(draw(st.sampled_from([0, 1, 1, 2])))]
        for place in feedback + extra:
            if not parallel_arcs and place.name in seen:
                continue
            seen.add(place.name)
            terms = [draw(output_term(place, bound, timed_ok))
                     for _ in range(draw(st.integers(1, 2)))]
            outputs.append((place.name, terms))
        priority = draw(st.sampled_from(PRIORITIES)) if priorities else P_NORMAL
        # a transition's delay needs a timed output place to delay
        delays = timed_ok and any(spec.place(name).timed for name, _ in outputs)
        delay = draw(st.one_of(st.none(), st.integers(1, 2))) if delays else None
        spec.transitions.append(
            TransitionSpec(f"T{k}", priority, inputs, outputs, guard, delay))
    return spec


@st.composite
def conservative_specs(draw) -> NetSpec:
    """Nets where every transition consumes and produces the same weighted
    number of tokens: the weighted token count is a P-invariant."""
    places = draw(place_specs(timed_ok=True, pair_ok=False, max_places=4))
    for i, place in enumerate(places):
        place.weight = 1 if i == 0 else draw(st.integers(1, 2))
    spec = NetSpec(places)
    for k in range(draw(st.sampled_from([2, 3, 1, 4]))):
        counter = itertools.count()
        fresh = lambda: f"x{next(counter)}"  # noqa: E731
        bound: list[str] = []
        inputs = []
        for _ in range(draw(st.sampled_from([1, 2, 3]))):
            place = draw(st.sampled_from(places))
            inputs.append((place.name, [draw(input_term(place, bound, fresh, True))]))
        weight = sum(spec.place(p).weight * term.mult for p, terms in inputs for term in terms)
        outputs = []
        for name, (term,) in inputs:  # mostly give back to the input places
            if draw(st.sampled_from([True, False])):
                out = draw(output_term(spec.place(name), bound, True))
                outputs.append((name, [OutTerm(out.expr, term.mult, out.delay)]))
                weight -= spec.place(name).weight * term.mult
        while weight > 0:
            place = draw(st.sampled_from([p for p in places if p.weight <= weight]))
            mult = 2 if 2 * place.weight <= weight and draw(st.booleans()) else 1
            term = draw(output_term(place, bound, True))
            outputs.append((place.name, [OutTerm(term.expr, mult, term.delay)]))
            weight -= mult * place.weight
        delays = any(spec.place(name).timed for name, _ in outputs)
        spec.transitions.append(TransitionSpec(
            f"T{k}", draw(st.sampled_from(PRIORITIES)), inputs, outputs, draw(guards(bound)),
            draw(st.one_of(st.none(), st.integers(1, 2))) if delays else None))
    return spec


RANDOM_NETS = net_specs(now_guards=True)


def weighted_count(spec: NetSpec, sim: Simulator) -> int:
    counts = sim.marking.counts()  # future tokens included
    return sum(p.weight * counts[p.name] for p in spec.places)


# ---------------------------------------------------------------------------
# (a) firing only consumes available tokens, exactly as the arcs say
# ---------------------------------------------------------------------------

MAX_TOKENS = 40  # keep enumeration cheap on nets that grow


def _too_big(sim: Simulator) -> bool:
    return sum(sim.marking.counts().values()) > MAX_TOKENS


@SETTINGS
@given(spec=RANDOM_NETS, data=st.data())
def test_fired_bindings_consume_only_available_tokens(spec, data):
    sim = Simulator(spec.build(), seed=data.draw(st.integers(0, 3)))
    for _ in range(12):
        if _too_big(sim):
            break
        before = timed_marking(sim)
        enabled = sim.enabled()
        if enabled:
            binding = data.draw(st.sampled_from(enabled))
            fired = sim.fire(binding)
        else:
            fired = sim.step()  # advances the clock first
            if fired is None:
                break
        check_firing(spec, before, timed_marking(sim), fired.transition,
                     dict(fired.values), sim.now)


# ---------------------------------------------------------------------------
# (b) priorities, and enabled bindings against brute force
# ---------------------------------------------------------------------------

@SETTINGS
@given(spec=RANDOM_NETS, data=st.data())
def test_enabled_bindings_match_brute_force(spec, data):
    sim = Simulator(spec.build(), seed=0)
    for _ in range(10):
        if _too_big(sim):
            break
        tokens = timed_marking(sim)
        listed = [binding_key(b) for b in sim.enabled()]
        assert len(listed) == len(set(listed)), "equal bindings are listed once"
        ours = set(listed)
        assert ours == reference_bindings(spec, tokens, sim.now)
        everything = {binding_key(b) for b in sim.enabled(all_priorities=True)}
        assert everything == reference_bindings(spec, tokens, sim.now, all_priorities=True)
        if ours:
            sim.fire(data.draw(st.sampled_from(sim.enabled())))
        elif sim.step() is None:
            break


@SETTINGS
@given(spec=RANDOM_NETS, data=st.data())
def test_only_the_highest_priority_fires(spec, data):
    sim = Simulator(spec.build(), seed=data.draw(st.integers(0, 3)))
    for _ in range(12):
        if _too_big(sim):
            break
        everything = sim.enabled(all_priorities=True)
        listed = sim.enabled()
        if everything:
            best = min(spec.transition(b.transition).priority for b in everything)
            assert listed and all(
                spec.transition(b.transition).priority == best for b in listed)
            assert {binding_key(b) for b in listed} == {
                binding_key(b) for b in everything
                if spec.transition(b.transition).priority == best}
        else:
            assert listed == []
        tokens, now = timed_marking(sim), sim.now
        if listed and data.draw(st.booleans()):
            sim.fire(data.draw(st.sampled_from(listed)))
            continue
        fired = sim.step()  # the automatic choice, maybe after a clock jump
        if fired is None:
            break
        # the automatic choice is a highest-priority binding at the (new) time
        assert binding_key(fired) in reference_bindings(spec, tokens, sim.now)
        if sim.now != now:
            assert not everything
            # the clock jumped to the first timestamp at which something is enabled
            stamps = {s for ts in tokens.values() for _, s in ts
                      if s is not None and now < s < sim.now}
            assert all(not reference_bindings(spec, tokens, s) for s in stamps)


# ---------------------------------------------------------------------------
# run(until_time=...): the clock stops at the horizon, the cache follows it
# ---------------------------------------------------------------------------

def check_runs_until_horizons(spec: NetSpec, horizons: list[float]) -> None:
    sim = Simulator(spec.build(), seed=0)
    for horizon in horizons:
        if _too_big(sim):
            break
        result = sim.run(until_time=horizon, max_steps=30)
        if result.reason.value != "time":
            continue
        assert sim.now == horizon
        assert sim.next_event_time() is None or sim.next_event_time() > horizon
        # the enabled bindings at the new clock are what brute force says
        # (only clock guards can have changed since the last event)
        assert {binding_key(b) for b in sim.enabled()} == \
            reference_bindings(spec, timed_marking(sim), sim.now)


HORIZONS = st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0]),
                    min_size=1, max_size=4).map(sorted)


@SETTINGS
@given(spec=net_specs(), horizons=HORIZONS)
def test_run_until_time_stops_at_the_horizon(spec, horizons):
    check_runs_until_horizons(spec, horizons)


# A regression the property test once found: stopping the clock at a
# horizon must re-examine transitions that read ``now``.  An untimed token,
# a guard ``now >= 1`` and a timed token far in the future: run(until_time=2)
# stops the clock at 2, where the guard holds.
NOW_GUARD_BUG = NetSpec(
    [PlaceSpec("P0", False, False, [(0, None)]),
     PlaceSpec("P1", False, True, [(0, 5.0)])],
    [TransitionSpec("T0", P_NORMAL, [("P0", [InTerm(("var", "x0"))])], [],
                    guard="now >= 1")])


@settings(SETTINGS, max_examples=30)
@example(spec=NOW_GUARD_BUG, horizons=[2.0])
@given(spec=RANDOM_NETS, horizons=HORIZONS)
def test_run_until_time_stops_at_the_horizon_with_clock_guards(spec, horizons):
    check_runs_until_horizons(spec, horizons)


def test_clock_guard_is_seen_after_stopping_at_a_horizon():
    """The same case without the property machinery."""
    sim = Simulator(NOW_GUARD_BUG.build())
    assert sim.run(until_time=2).reason == StopReason.TIME and sim.now == 2
    assert [b.transition for b in sim.enabled()] == ["T0"]  # now >= 1 holds at 2


def test_clock_guard_fires_in_the_next_run():
    sim = Simulator(NOW_GUARD_BUG.build())
    sim.run(until_time=2)
    # T0 is enabled from time 2 on: the next run must fire it before time 3
    assert sim.run(until_time=3).steps == 1


# ---------------------------------------------------------------------------
# (c) P-invariants of conservative nets
# ---------------------------------------------------------------------------

@SETTINGS
@given(spec=conservative_specs(), seed=st.integers(0, 10**6),
       chunk=st.integers(1, 7))
def test_conservative_nets_keep_weighted_token_count_in_runs(spec, seed, chunk):
    sim = Simulator(spec.build(), seed=seed)
    invariant = weighted_count(spec, sim)
    for _ in range(6):
        result = sim.run(max_steps=chunk)
        assert weighted_count(spec, sim) == invariant
        if result.reason.value == "dead":
            break


@SETTINGS
@given(spec=conservative_specs(), data=st.data())
def test_conservative_nets_keep_weighted_token_count_step_by_step(spec, data):
    sim = Simulator(spec.build(), seed=data.draw(st.integers(0, 3)))
    invariant = weighted_count(spec, sim)
    for _ in range(15):
        enabled = sim.enabled()
        if enabled and data.draw(st.booleans()):
            sim.fire(data.draw(st.sampled_from(enabled)))
        elif sim.step() is None:
            break
        assert weighted_count(spec, sim) == invariant


# ---------------------------------------------------------------------------
# (d) reproducibility
# ---------------------------------------------------------------------------

def _logged_run(net, seed: int, steps: int) -> tuple[list, dict]:
    sim = Simulator(net, seed=seed)
    log = sim.add_monitor(FiringLog())
    sim.run(max_steps=steps)
    return log.records, timed_marking(sim)


@settings(SETTINGS, max_examples=40)
@given(spec=RANDOM_NETS, seed=st.integers(0, 10**6))
def test_same_net_and_seed_give_the_same_firing_sequence(spec, seed):
    net = spec.build()
    first = _logged_run(net, seed, 25)
    assert _logged_run(net, seed, 25) == first  # the same Net object
    assert _logged_run(spec.build(), seed, 25) == first  # an identical new one
    flat = spec.build().flatten()
    assert _logged_run(flat, seed, 25) == first  # a flat net, compiled once...
    assert _logged_run(flat, seed, 25) == first  # ...and reused


def test_different_seeds_can_choose_differently():
    """Sanity check that the seed matters (so the test above is not vacuous)."""
    net = Net("choice")
    net.place("P", int, initial=[0])
    for name in ("A", "B", "C"):
        net.transition(name)
        net.arc("P", name, "x")
        net.arc(name, "P", "x + 1")
    sequences = {tuple(r["transition"] for r in _logged_run(net, seed, 20)[0])
                 for seed in range(5)}
    assert len(sequences) > 1


# ---------------------------------------------------------------------------
# (e) undo
# ---------------------------------------------------------------------------

@SETTINGS
@given(spec=RANDOM_NETS, data=st.data())
def test_undo_restores_the_exact_marking(spec, data):
    sim = Simulator(spec.build(), seed=0)
    history = []
    for _ in range(8):
        if _too_big(sim):
            break
        enabled = sim.enabled()
        if not enabled:
            break
        state = (sim.now, sim.steps, timed_marking(sim),
                 {binding_key(b) for b in enabled})
        sim.fire(data.draw(st.sampled_from(enabled)))
        history.append(state)
        if data.draw(st.booleans()):  # undo at once, check, then go on
            assert sim.undo()
            assert (sim.now, sim.steps, timed_marking(sim),
                    {binding_key(b) for b in sim.enabled()}) == history.pop()
    while history:  # unwind everything, newest first
        assert sim.undo()
        assert (sim.now, sim.steps, timed_marking(sim),
                {binding_key(b) for b in sim.enabled()}) == history.pop()
    assert not sim.undo()


@SETTINGS
@given(spec=RANDOM_NETS, seed=st.integers(0, 100), steps=st.integers(1, 10))
def test_undo_of_a_run_with_history_restores_time_and_marking(spec, seed, steps):
    sim = Simulator(spec.build(), seed=seed, history=True)
    before = (sim.now, sim.steps, timed_marking(sim))
    sim.run(max_steps=steps)
    assert sim.undo()
    assert (sim.now, sim.steps, timed_marking(sim)) == before


# ---------------------------------------------------------------------------
# Regressions: engine bugs found by the properties, as minimal cases
# ---------------------------------------------------------------------------

# A transition without input places was dropped from the cache after it
# fired and never searched again (fixed in e6d13b9: a firing now always
# re-examines its own transition).
def test_transition_without_inputs_stays_enabled():
    net = Net("source")
    net.place("P", int)
    net.transition("Gen")
    net.arc("Gen", "P", "1")
    with pytest.warns(NetWarning, match="'Gen' has no input arcs"):
        sim = Simulator(net)
    assert [b.transition for b in sim.enabled()] == ["Gen"]
    sim.fire(sim.enabled()[0])
    # the marking of Gen's (empty) preset did not change: still enabled
    assert [b.transition for b in sim.enabled()] == ["Gen"]
    assert sim.run(max_steps=5).steps == 6


# Read arcs (``x`` in and ``x`` out) leave an untimed token in place; on a
# timed place the token must come back with a new timestamp.
def test_self_loop_on_a_timed_place_restamps_the_token():
    spec = NetSpec([PlaceSpec("P0", False, True, [(1, 0.0)])],
                   [TransitionSpec("T0", P_NORMAL, [("P0", [InTerm(("var", "x0"))])],
                                   [("P0", [OutTerm("x0")])], delay=2)])
    sim = Simulator(spec.build())
    for expected in ([(1, 2.0)], [(1, 4.0)]):
        before = timed_marking(sim)
        fired = sim.step()
        check_firing(spec, before, timed_marking(sim), "T0", dict(fired.values), sim.now)
        assert timed_marking(sim)["P0"] == expected
