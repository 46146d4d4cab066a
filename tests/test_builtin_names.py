"""A net's constant may take the name of a Python builtin (``len``,
``type``, ``max``): it means that constant in the net's inscriptions, as
in Python, and the code the engine generates around them still calls the
builtins (it called ``len``, ``isinstance``, ``type`` ... by their names, so
every firing of such a net failed with "'int' object is not callable")."""

import builtins
import sys
from pathlib import Path

import pytest

from cpn import Net, Simulator
from cpn.net import Delayed
from cpn.editing import hierarchy
from cpn.netfile import dumps, loads
from nets.demo import build_net as puppet_demo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
import producer_consumer  # noqa: E402

#: Every builtin a constant could be named after.
BUILTIN_NAMES = sorted(name for name in dir(builtins) if not name.startswith("_"))


def many_terms() -> Net:
    """Tuple patterns, multiplicities, '*' into timed and untimed places,
    a keyed guard, timed tokens: the shapes of code the engine generates."""
    net = Net("many_terms", env={"LIMIT": 3, "Delayed": Delayed})
    net.place("Pairs", tuple, initial=[(1, 2), (2, 3), (3, 4)])
    net.place("Counts", int, initial=[1, 2, 3], timed=True)
    net.place("Wanted", int, initial=[2])
    net.place("Out", int)
    net.place("Later", int, timed=True)
    net.transition("Split", guard="a < LIMIT")
    net.arc("Pairs", "Split", "(a, b)")
    net.arc("Split", "Out", "b`a ++ *(a, b)")
    net.arc("Split", "Later", "*(Delayed(a, b), a)")
    net.transition("Match", guard="n == w")
    net.arc("Counts", "Match", "n")
    net.arc("Wanted", "Match", "w")
    net.arc("Match", "Wanted", "w + 1")
    net.arc("Match", "Later", "n@+n")
    return net


def firings(net) -> list:
    sim = Simulator(net, seed=3)
    out = []
    while len(out) < 300 and (binding := sim.step()) is not None:
        out.append((sim.now, str(binding)))
    return out


@pytest.mark.parametrize("build", [producer_consumer.build_net, many_terms, puppet_demo],
                         ids=["producer_consumer", "many_terms", "puppet"])
def test_constants_named_as_builtins_change_nothing_the_net_does_not_say(build):
    expected = firings(build())
    assert len(expected) > 3
    net = build()
    for each in hierarchy(net).values():  # leave what the inscriptions call
        used = " ".join([*(t.guard or "" for t in each.transitions.values()),
                         *(t.code or "" for t in each.transitions.values()),
                         *(arc.inscription for arc in each.arcs)])
        each.env = {**{name: 3 for name in BUILTIN_NAMES if name not in used}, **each.env}
    assert firings(net) == expected


def test_a_data_file_s_constant_named_len_runs():
    text = dumps(producer_consumer.build_net()).replace("ITEMS = 4", "ITEMS = 4\nlen = 3")
    assert firings(loads(text)) == firings(producer_consumer.build_net())


def test_an_inscription_reads_the_constant_that_shadows_a_builtin():
    net = Net("shadow", env={"max": 10})
    net.place("P", int, initial=[1])
    net.place("Q", int)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "x + max")
    sim = Simulator(net)
    sim.step()
    assert list(sim.marking["Q"]) == [11]
