"""SNAKES as an oracle for the untimed semantics.

For random flat untimed nets (one priority, since SNAKES has none; inputs
that SNAKES can express: variables, constants, pair patterns, ``2`x``
multiplicities; at most one arc per place and transition, as SNAKES
requires), along random firing sequences:

- our enabled bindings (``Simulator.enabled()``) are exactly the modes
  SNAKES finds (``transition.modes()``) on ``to_snakes(net)``;
- firing any of them gives the same successor marking in both.
"""

from __future__ import annotations

import warnings
from collections import Counter

import snakes.nets as sn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpn import Net, Simulator
from cpn.snakes_bridge import to_snakes

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from test_engine_properties import binding_key, net_specs
except ImportError:  # tests/ imported as a package
    from tests.test_engine_properties import binding_key, net_specs

SNAKES_NETS = net_specs(timed_ok=False, priorities=False, exprs_ok=False,
                        parallel_arcs=False)
MAX_TOKENS = 30
MAX_SUCCESSORS = 12  # bindings whose successor marking is compared, per state


def our_marking(sim: Simulator) -> dict[str, Counter]:
    marking = sim.marking
    return {path: marking.multiset(path) for path in marking if marking[path]}


def snakes_marking(net: sn.PetriNet) -> dict[str, Counter]:
    return {path: Counter(dict(tokens)) for path, tokens in net.get_marking().items()
            if len(tokens)}


def snakes_bindings(net: sn.PetriNet) -> set:
    return {(t.name, frozenset(mode.dict().items()))
            for t in net.transition() for mode in t.modes()}


def export(net: Net) -> sn.PetriNet:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an untimed one-priority net loses nothing
        return to_snakes(net)


def compare(net: Net, steps: int, pick, sample) -> int:
    """Walk ``steps`` firings (``pick(keys)`` chooses the next binding,
    ``sample(keys)`` those whose successors are compared when there are
    many), comparing with SNAKES at each state; returns how many states had
    something enabled."""
    sim = Simulator(net, seed=0)
    snet = export(net)
    assert snakes_marking(snet) == our_marking(sim)
    lively = 0
    for _ in range(steps):
        if sum(sim.marking.counts().values()) > MAX_TOKENS:
            break
        enabled = {binding_key(b): b for b in sim.enabled()}
        assert set(enabled) == snakes_bindings(snet)
        if not enabled:
            break
        lively += 1
        before = snet.get_marking()
        keys = sorted(enabled, key=repr)
        checked = keys if len(keys) <= MAX_SUCCESSORS else sample(keys)
        for key in checked:
            binding = {binding_key(b): b for b in sim.enabled()}[key]
            sim.fire(binding)
            ours = our_marking(sim)
            assert sim.undo()
            snet.transition(key[0]).fire(sn.Substitution(dict(key[1])))
            theirs = snakes_marking(snet)
            snet.set_marking(before)
            assert ours == theirs, f"successor of {binding} differs"
        key = pick(keys)
        sim.fire({binding_key(b): b for b in sim.enabled()}[key])
        snet.transition(key[0]).fire(sn.Substitution(dict(key[1])))
        assert our_marking(sim) == snakes_marking(snet)
    return lively


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(spec=SNAKES_NETS, data=st.data())
def test_enabled_bindings_and_successors_match_snakes(spec, data):
    compare(spec.build(), steps=10,
            pick=lambda keys: data.draw(st.sampled_from(keys)),
            sample=lambda keys: data.draw(st.lists(st.sampled_from(keys), min_size=1,
                                                   max_size=MAX_SUCCESSORS, unique=True)))


def _hand_net() -> Net:
    """Inscriptions both tools support, all on one net: repeated variables
    across arcs, ``2`x``, constants, a pair pattern with a constant, a
    guard of two conjuncts, multiset outputs."""
    net = Net("hand")
    net.place("A", int, initial=[0, 1, 1, 2, 2, 2, 3])
    net.place("B", int, initial=[1, 2, 2, 3])
    net.place("C", tuple, initial=[(1, 0), (2, 0), (2, 1), (3, 0)])
    net.transition("Pair", guard="x % 2 == 0 and y < 3")
    net.arc("A", "Pair", "2`x ++ 0")
    net.arc("C", "Pair", "(y, 0)")
    net.arc("B", "Pair", "y")
    net.arc("Pair", "B", "x ++ 2`(x + y) % 4")
    net.transition("Same")
    net.arc("B", "Same", "x ++ x")
    net.arc("A", "Same", "x")
    net.arc("Same", "C", "(x, x)")
    return net


def test_hand_written_net_matches_snakes():
    net = _hand_net()
    sim = Simulator(net)
    assert {b.transition for b in sim.enabled()} == {"Pair", "Same"}
    for which in (0, -1, 1):  # three deterministic walks
        lively = compare(net, steps=8, pick=lambda keys: keys[which % len(keys)],
                         sample=lambda keys: keys[:MAX_SUCCESSORS])
        assert lively >= 2
