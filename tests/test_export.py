"""Our nets through SNAKES and PNML and back: the untimed semantics must
survive (same enabled bindings, same successor markings)."""

from __future__ import annotations

import random
import warnings
from collections import Counter

import pytest
import snakes.pnml

from cpn import P_HIGH, ColourError, Net, NetError, Simulator
from cpn.snakes_bridge import to_pnml, to_snakes


def untimed_net() -> Net:
    """Variables, tuple patterns, constants, multisets, guards, parallel
    arcs, and an environment constant."""
    net = Net("roundtrip", env={"LIMIT": 4})
    net.place("A", int, initial=[1, 2, 3, 3])
    net.place("B", tuple, initial=[(1, "x"), (2, "y"), (5, "z")])
    net.place("C", str, initial=["go", "go", "stop"])
    net.place("D")
    net.transition("Pair", guard="x < y")
    net.arc("A", "Pair", "x")
    net.arc("B", "Pair", "(y, s)")
    net.arc("Pair", "D", "(x, s)")
    net.arc("Pair", "B", "(y + 1, s)")
    net.transition("Double")
    net.arc("A", "Double", "2`x")
    net.arc("C", "Double", "'go'")
    net.arc("Double", "A", "x * 10 ++ x")
    net.transition("Sum", guard="x + y < LIMIT")
    net.arc("A", "Sum", "x")
    net.arc("A", "Sum", "y")  # a second arc from the same place
    net.arc("Sum", "C", "str(x + y)")
    return net


def our_modes(sim: Simulator) -> set:
    return {(b.transition, tuple(sorted(b.values.items()))) for b in sim.enabled()}


def their_modes(net) -> set:
    # SNAKES lists a mode once per way of picking equal tokens: compare sets.
    return {(t.name, tuple(sorted(mode.items())))
            for t in net.transition() for mode in t.modes()}


def our_marking(sim: Simulator) -> dict:
    return {path: Counter(sim.marking[path]) for path in sim.marking}


def their_marking(net) -> dict:
    marking = net.get_marking()
    return {p.name: Counter(list(marking.get(p.name, []))) for p in net.place()}


def test_pnml_round_trip_keeps_enabled_bindings_and_successors():
    net = untimed_net()
    loaded = snakes.pnml.loads(to_pnml(net))
    sim = Simulator(net)
    assert their_marking(loaded) == our_marking(sim)
    choose = random.Random(3)
    steps = 0
    while True:
        modes = our_modes(sim)
        assert modes == their_modes(loaded), f"after {steps} firings"
        if not modes:
            break
        # Every successor agrees, then walk on along one of them.
        start = loaded.get_marking()
        for k in range(len(sim.enabled())):
            binding = sim.enabled()[k]  # listed again: undo makes bindings stale
            sim.fire(binding)
            transition = loaded.transition(binding.transition)
            transition.fire(next(m for m in transition.modes()
                                 if dict(m.items()) == dict(binding.values)))
            assert their_marking(loaded) == our_marking(sim), str(binding)
            sim.undo()
            loaded.set_marking(start)
        binding = choose.choice(sim.enabled())
        sim.fire(binding)
        transition = loaded.transition(binding.transition)
        transition.fire(next(m for m in transition.modes()
                             if dict(m.items()) == dict(binding.values)))
        steps += 1
    assert steps >= 4  # the walk went somewhere


def test_hierarchy_is_exported_flat_with_paths():
    module = Net("Inc")
    module.place("In", int, port="in")
    module.place("Out", int, port="out")
    module.place("Seen", int)
    module.transition("Step")
    module.arc("In", "Step", "x")
    module.arc("Step", "Out", "x + 1")
    module.arc("Step", "Seen", "x")
    top = Net("top")
    top.place("P", int, initial=[1])
    top.place("Q", int)
    top.substitution("Twice", module, {"In": "P", "Out": "Q"})
    loaded = snakes.pnml.loads(to_pnml(top))
    assert {p.name for p in loaded.place()} == {"P", "Q", "Twice/Seen"}
    assert their_modes(loaded) == {("Twice/Step", (("x", 1),))}


def test_exporting_a_timed_net_warns_about_what_is_dropped():
    net = Net("timed")
    net.place("P", int, initial=[0], timed=True)
    net.transition("Tick", delay=1, priority=P_HIGH)
    net.arc("P", "Tick", "x")
    net.arc("Tick", "P", "x + 1@+2")
    with pytest.warns(UserWarning, match="without its priorities and time"):
        text = to_pnml(net)
    loaded = snakes.pnml.loads(text)
    assert their_modes(loaded) == {("Tick", (("x", 0),))}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        to_pnml(net, warn=False)
        to_pnml(untimed_net())  # nothing to drop, no warning


def test_what_snakes_cannot_express_is_refused_by_name():
    net = Net("code")
    net.place("P", int, initial=[1])
    net.transition("T", code="y = x + 1")
    net.arc("P", "T", "x")
    net.arc("T", "P", "y")
    with pytest.raises(NetError, match="transition 'T': a code segment"):
        to_snakes(net)
    net = Net("expression")
    net.place("P", int, initial=[1])
    net.place("Q", int, initial=[2])
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("Q", "T", "x + 1")
    with pytest.raises(NetError, match=r"arc Q -> T 'x \+ 1'"):
        to_snakes(net)
    net = Net("dict")
    net.place("P", dict, initial=[{"a": 1}])
    with pytest.raises(ColourError, match=r"place 'P': initial token \{'a': 1\} is not "
                                          "hashable"):
        to_snakes(net)  # refused by the engine itself
