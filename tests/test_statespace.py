"""The reachability graph against brute force, its bounds, and its report.

Random small nets (``test_engine_properties.net_specs``, timed or not,
with guards on the clock): every state the engine explored has exactly
the successors a brute-force reading of the net's spec gives (all enabled
bindings of the highest priority, or the clock moving to the next instant
at which something is enabled), no two states are equal, and when the
graph is complete, brute-force breadth-first search finds the same states.
"""

from __future__ import annotations

import itertools
from collections import Counter, deque

import pytest
from hypothesis import given, settings

from cpn import Net, timed
from cpn.statespace import StateSpaceError, state_space
from cpn.trace import replay

try:
    from test_engine_properties import (SETTINGS, consumed_values, net_specs,
                                        produced_tokens, reference_bindings)
except ImportError:
    from tests.test_engine_properties import (SETTINGS, consumed_values, net_specs,
                                              produced_tokens, reference_bindings)

MAX_STATES = 60
FEW = settings(SETTINGS, max_examples=20)


# -- the reference: the spec's own semantics, state by state ---------------------------
def canonical(now: float, tokens: dict, shifts: bool = False) -> tuple:
    """A state as brute force sees it: available tokens without their past
    timestamps, future ones relative to the clock (and the clock, unless
    states a shift apart are merged)."""
    frozen = tuple(sorted(
        (place, frozenset(Counter((value, None if stamp is None else max(stamp - now, 0.0))
                                  for value, stamp in held).items()))
        for place, held in tokens.items()))
    return frozen if shifts else (now, frozen)


def fire(spec, tokens: dict, now: float, name: str, env: dict) -> dict:
    after = {place: list(held) for place, held in tokens.items()}
    for place, values in consumed_values(spec.transition(name), env).items():
        for value in values.elements():
            held = after[place]
            held.remove(next(token for token in held if token[0] == value
                             and (token[1] is None or token[1] <= now)))
    for place, produced in produced_tokens(spec, spec.transition(name), env, now).items():
        after[place].extend(produced.elements())
    return after


def successors(spec, now: float, tokens: dict) -> list[tuple]:
    """``(label, now, tokens)`` of every arc out of a state."""
    bindings = reference_bindings(spec, tokens, now)
    if bindings:
        return [((name, env), now, fire(spec, tokens, now, name, dict(env)))
                for name, env in bindings]
    stamps = sorted({s for held in tokens.values() for _, s in held
                     if s is not None and s > now})
    for stamp in stamps:
        if reference_bindings(spec, tokens, stamp) or stamp == stamps[-1]:
            return [("advance", stamp, tokens)]
    return []


def brute_force_states(spec, shifts: bool) -> set:
    initial = {p.name: [(v, s if p.timed else None) for v, s in p.initial] for p in spec.places}
    seen = {canonical(0.0, initial, shifts)}
    queue = deque([(0.0, initial)])
    while queue:
        now, tokens = queue.popleft()
        for _, after_now, after in successors(spec, now, tokens):
            key = canonical(after_now, after, shifts)
            if key not in seen:
                seen.add(key)
                queue.append((after_now, after))
    return seen


def ours(marking) -> tuple[float, dict]:
    return marking.time, {path: marking.timed(path) for path in marking}


def label(firing) -> object:
    return "advance" if firing.transition is None else (
        firing.transition, frozenset(firing.values))


def check_against_brute_force(spec, shifts: bool = False) -> None:
    space = state_space(spec.build(), max_states=MAX_STATES, timed=True, merge_shifts=shifts)
    keys = {node: canonical(*ours(space.marking(node)), shifts) for node in space.graph}
    assert len(set(keys.values())) == space.states, "two states of the graph are equal"
    for node in space.graph:
        if not space.expanded(node):
            continue
        now, tokens = ours(space.marking(node))
        expected = Counter((lbl, canonical(t, after, shifts))
                           for lbl, t, after in successors(spec, now, tokens))
        found = Counter((label(data["firing"]), keys[target])
                        for _, target, data in space.graph.out_edges(node, data=True))
        assert found == expected, f"successors of state {node} at time {now}"
        assert space.graph.nodes[node]["dead"] == (not expected)
    if space.complete:
        assert set(keys.values()) == brute_force_states(spec, shifts)


@FEW
@given(spec=net_specs(now_guards=True))
def test_timed_reachability_graph_equals_brute_force(spec):
    check_against_brute_force(spec)


@FEW
@given(spec=net_specs(timed_ok=False))
def test_untimed_reachability_graph_equals_brute_force(spec):
    check_against_brute_force(spec)


@FEW
@given(spec=net_specs())  # no guard reads the clock: shifts may be merged
def test_graph_with_shifts_merged_equals_brute_force(spec):
    check_against_brute_force(spec, shifts=True)


# -- what a state is, the bounds, draws ------------------------------------------------
def periodic(reads_clock: bool = False) -> Net:
    """A timed token that comes back every 5: infinitely many clocks, one
    state up to a shift of the clock."""
    net = Net("periodic")
    net.place("P", int, initial=[timed(0, 0)], timed=True)
    net.transition("Tick", guard="now >= 0" if reads_clock else None)
    net.arc("P", "Tick", "x")
    net.arc("Tick", "P", "x@+5")
    return net


def test_states_a_clock_shift_apart_are_merged_only_when_asked():
    space = state_space(periodic(), max_states=50)
    assert not space.complete and space.states == 50
    assert space.stopped == "stopped at the maximum of 50 states (max_states)"
    merged = state_space(periodic(), merge_shifts=True)
    assert merged.complete and (merged.states, merged.arcs) == (2, 2)
    assert sorted(str(f) for _, _, f in merged.graph.edges(data="firing")) == [
        "Tick<x=0>", "time advances to 5"]
    # a path through merged states keeps counting the clock
    arcs = merged.path_to(1) + [(1, 0, 0)] + merged.path_to(1)
    assert [f.time for f in merged.path(arcs).firings] == [0.0, 5.0, 5.0]


def test_merging_shifts_is_refused_for_a_net_that_reads_the_clock():
    with pytest.raises(StateSpaceError, match=r"merge_shifts: transition 'Tick' reads the "
                                              r"clock \(now\), so states a clock shift apart"):
        state_space(periodic(reads_clock=True), merge_shifts=True)


def test_the_time_limit_stops_the_exploration_with_a_message():
    space = state_space(periodic(), max_states=10**9, time_limit=0.2)
    assert not space.complete and space.states > 10
    assert space.stopped == f"stopped at the time limit of 0.2 s with {space.states:,} states"


def random_allocation() -> Net:
    """Two jobs, each put on a node drawn at random among the free ones."""
    net = Net("allocation")
    net.place("Free", tuple, initial=[(1, 2, 3)])
    net.place("Jobs", int, initial=[10, 20])
    net.place("Placed", tuple)
    net.transition("Allocate", code="node = rng.choice(free)")
    net.arc("Jobs", "Allocate", "j")
    net.arc("Free", "Allocate", "free")
    net.arc("Allocate", "Free", "tuple(n for n in free if n != node)")
    net.arc("Allocate", "Placed", "(j, node)")
    return net


def test_every_outcome_of_a_random_choice_is_explored(tmp_path):
    space = state_space(random_allocation())
    # 2 jobs first x 3 nodes, then the other job on one of the 2 left
    assert (space.states, space.arcs) == (1 + 6 + 6, 6 + 12)
    finals = {frozenset(space.marking(n)["Placed"]) for n in space.dead_markings}
    assert finals == {frozenset({(10, a), (20, b)}) for a in (1, 2, 3) for b in (1, 2, 3)
                      if a != b}
    drawn = sorted(str(f) for _, _, f in space.graph.out_edges(0, data="firing"))
    assert drawn[:3] == ["Allocate<free=(1, 2, 3), j=10> drawing outcomes [0]",
                         "Allocate<free=(1, 2, 3), j=10> drawing outcomes [1]",
                         "Allocate<free=(1, 2, 3), j=10> drawing outcomes [2]"]
    # a path through the draws replays with the same outcomes
    [target] = [n for n in space.dead_markings
                if set(space.marking(n)["Placed"]) == {(10, 2), (20, 3)}]
    path = space.path(space.path_to(target))
    trace = tmp_path / "path.jsonl"
    path.save(trace)
    assert '"draws": [1]' in trace.read_text()
    assert replay(random_allocation(), trace).marking["Placed"] == path.end["Placed"]


def test_a_draw_of_infinitely_many_outcomes_is_refused_not_sampled():
    net = Net("failures")
    net.place("P", int, initial=[0])
    net.place("Q", float)
    net.transition("Fail")
    net.arc("P", "Fail", "x")
    net.arc("Fail", "Q", "float(rng.exponential(10.0))")
    with pytest.raises(StateSpaceError, match=r"firing Fail<x=0> at time 0: it draws "
                                              r"rng.exponential\(\): a state space explores "
                                              r"every outcome of a draw, and this one has "
                                              r"infinitely many"):
        state_space(net)


def test_a_stop_or_ctrl_c_ends_the_exploration_with_the_graph_so_far():
    # a long exploration could neither be watched nor stopped: Ctrl-C lost it
    told = []
    space = state_space(periodic(), max_states=10**9, stop=lambda: len(told) > 2,
                        progress=told.append)
    assert space.stopped == f"interrupted with {space.states:,} states"
    assert not space.complete and told[0] == 1 and told == sorted(told)

    def ctrl_c(states: int) -> None:
        if states > 1:
            raise KeyboardInterrupt
    space = state_space(periodic(), max_states=10**9, progress=ctrl_c)
    assert space.stopped == f"interrupted with {space.states:,} states" and space.states > 1
    at_once = state_space(periodic(), stop=lambda: True)
    assert at_once.stopped == "interrupted with 1 state"  # not "1 states"


def drawing(outcomes: int, draws: int = 1) -> Net:
    """One firing that draws ``draws`` integers of ``outcomes`` each."""
    net = Net("draws")
    net.place("P", int, initial=[0])
    net.place("Q", tuple)
    net.transition("Draw")
    net.arc("P", "Draw", "x")
    net.arc("Draw", "Q", "(" + "".join(f"int(rng.integers(0, {outcomes}))," for _ in
                                       range(draws)) + ")")
    return net


def test_a_draw_of_more_outcomes_than_states_allowed_is_refused():
    # it was explored outcome by outcome (10**9 of them took 23 GB, then were killed)
    with pytest.raises(StateSpaceError, match=r"firing Draw<x=0> at time 0: it draws "
                                              r"rng.integers\(\) of 100,000 outcomes, "
                                              r"more than the 1,000 states the state space "
                                              r"may hold \(max_states\)"):
        state_space(drawing(10**5), max_states=1000)
    assert state_space(drawing(1000), max_states=1001).states == 1001


def test_the_bounds_stop_a_firing_of_many_outcomes():
    # 1,000 x 1,000 outcomes of one binding: all were tried before the bounds
    space = state_space(drawing(1000, draws=2), max_states=5000, time_limit=30)
    assert space.states == 1 and space.seconds < 5  # it left the state unexpanded
    assert space.stopped == "stopped at the maximum of 5,000 states (max_states)"
    space = state_space(drawing(1000, draws=2), max_states=10**7, time_limit=0.2)
    assert space.seconds < 2 and space.stopped.startswith("stopped at the time limit of 0.2 s")


def test_ties_at_one_instant_are_all_explored():
    net = Net("race")
    net.place("Jobs", int, initial=[timed(1, 2), timed(2, 2), timed(3, 2)], timed=True)
    net.place("Order", tuple, initial=[()])
    net.transition("Take")
    net.arc("Jobs", "Take", "j")
    net.arc("Order", "Take", "order")
    net.arc("Take", "Order", "order + (j,)")
    space = state_space(net)
    finals = sorted(space.marking(n)["Order"][0] for n in space.dead_markings)
    assert finals == sorted(itertools.permutations([1, 2, 3]))
    assert space.marking(space.dead_markings[0]).time == 2.0


def test_an_untimed_state_space_of_a_timed_net_is_refused():
    with pytest.raises(StateSpaceError, match=r"timed=False: the net has timed places, whose "
                                              r"tokens would never become available"):
        state_space(periodic(), timed=False)


def test_the_standard_report_is_called_as_the_docs_write_it():
    """``from cpn.statespace import report; report(space)``: the function,
    not its module (docs/verification.md)."""
    from cpn.statespace import Report, report
    space = state_space(periodic(), merge_shifts=True)
    made = report(space)
    assert isinstance(made, Report) and (made.states, made.arcs, made.complete) == (2, 2, True)
    assert made.home_markings == [0, 1] and "Home markings\n  2 (0, 1)" in str(made)
