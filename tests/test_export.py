"""Our nets to SNAKES and PNML, and PNML back to a net: the untimed
semantics must survive (same enabled bindings, same successor markings),
and a hostile or damaged file must be refused by name, never run."""

from __future__ import annotations

import math
import pickle
import random
import re
import warnings
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpn import P_HIGH, ColourError, Net, NetError, Simulator
from cpn.pnml import PnmlError, from_pnml, read_pnml
from cpn.snakes_bridge import to_pnml, to_snakes

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from test_engine_properties import binding_key, net_specs
except ImportError:  # tests/ imported as a package
    from tests.test_engine_properties import binding_key, net_specs


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


def halve(value: int) -> int:
    return value // 2


def with_env_function() -> Net:
    """A net whose inscriptions call a function of its environment."""
    net = Net("calls", env={"halve": halve})
    net.place("P", int, initial=[8])
    net.transition("Halve", guard="x > 1")
    net.arc("P", "Halve", "x")
    net.arc("Halve", "P", "halve(x)")
    return net


def marking_of(sim: Simulator) -> dict[str, Counter]:
    marking = sim.marking
    return {path: marking.multiset(path) for path in marking}


def keyed(sim: Simulator) -> dict:
    return {binding_key(b): b for b in sim.enabled()}


def canonical(key) -> tuple:
    """A binding key in an order that does not depend on how its frozenset
    of variables happens to iterate (``repr`` of a frozenset does)."""
    transition, variables = key
    return transition, sorted(map(repr, variables))


#: A random net whose tokens multiply can enable 10**5 bindings at once:
#: the successors of this many of them are compared.
SUCCESSORS_CHECKED = 50


def walk_together(ours: Simulator, back: Simulator, steps: int, pick) -> int:
    """Fire the same bindings in both, checking at every state that the
    same bindings are enabled and that each (or, among many, an evenly
    spread :data:`SUCCESSORS_CHECKED` of them) leads to the same
    successor; returns how many firings were made."""
    for step in range(steps):
        assert marking_of(back) == marking_of(ours), f"after {step} firings"
        ours_now, back_now = keyed(ours), keyed(back)
        keys = sorted(ours_now, key=canonical)
        assert keys == sorted(back_now, key=canonical), f"after {step} firings"
        if not keys:
            return step
        for key in keys[::max(1, len(keys) // SUCCESSORS_CHECKED)]:
            ours.fire(ours_now[key])
            back.fire(back_now[key])
            assert marking_of(back) == marking_of(ours), f"successor {key}"
            ours.undo()
            back.undo()
        key = pick(keys)
        ours.fire(ours_now[key])
        back.fire(back_now[key])
    return steps


def test_pnml_round_trip_keeps_the_structure():
    back = from_pnml(to_pnml(untimed_net()))
    assert back.name == "roundtrip"
    assert back.env == {"LIMIT": 4}
    assert {name: Counter(place.initial) for name, place in back.places.items()} == {
        "A": Counter({1: 1, 2: 1, 3: 2}),
        "B": Counter({(1, "x"): 1, (2, "y"): 1, (5, "z"): 1}),
        "C": Counter({"go": 2, "stop": 1}), "D": Counter()}
    assert {name: t.guard for name, t in back.transitions.items()} == {
        "Pair": "x < y", "Double": None, "Sum": "x + y < LIMIT"}
    # Parallel arcs come back as one multiset arc; 2`x as it was written.
    assert [(a.source, a.target, a.inscription) for a in back.arcs] == [
        ("A", "Pair", "x"), ("B", "Pair", "(y, s)"), ("Pair", "D", "(x, s)"),
        ("Pair", "B", "(y + 1, s)"), ("A", "Double", "2`x"), ("C", "Double", "'go'"),
        ("Double", "A", "x * 10 ++ x"), ("A", "Sum", "x ++ y"), ("Sum", "C", "str(x + y)")]


def test_pnml_round_trip_keeps_enabled_bindings_and_successors():
    net = untimed_net()
    choose = random.Random(3)
    steps = walk_together(Simulator(net), Simulator(from_pnml(to_pnml(net))), 30,
                          choose.choice)
    assert steps >= 4  # the walk went somewhere


def test_a_net_read_back_runs_the_same_firings():
    net = untimed_net()
    back = from_pnml(to_pnml(net))
    for seed in range(3):
        ours, theirs = Simulator(net, seed=seed), Simulator(back, seed=seed)
        fired = [str(b) for b in iter(ours.step, None)]
        assert [str(b) for b in iter(theirs.step, None)] == fired
        assert len(fired) >= 3 and marking_of(theirs) == marking_of(ours)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(spec=net_specs(timed_ok=False, priorities=False, exprs_ok=False), data=st.data())
def test_random_nets_survive_the_round_trip(spec, data):
    net = spec.build()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an untimed one-priority net loses nothing
        text = to_pnml(net)
    walk_together(Simulator(net), Simulator(from_pnml(text)), 6,
                  lambda keys: data.draw(st.sampled_from(keys)))


def test_plain_tokens_and_constants_come_back_exactly():
    tokens = ["é", " padded ", "", "two\nlines", "<&>", None, True, 2.5,
              float("inf"), (1, ("x",)), ()]
    constants = {"D": {1: (2, "a"), "k": None}, "S": {1, 2}, "L": [1.5, False]}
    net = Net("values", env=constants)
    net.place("P", initial=tokens)
    net.place("Q")
    net.transition("T")
    net.arc("P", "T", "float('inf')")
    net.arc("T", "Q", "1")
    back = from_pnml(to_pnml(net))
    assert back.places["P"].initial == tokens
    assert back.env == constants
    assert back.arcs[0].inscription == "float('inf')"
    assert [b.transition for b in Simulator(back).enabled()] == ["T"]


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
    back = from_pnml(to_pnml(top))
    assert set(back.places) == {"P", "Q", "Twice/Seen"}
    assert set(back.transitions) == {"Twice/Step"}
    sim = Simulator(back)
    assert [str(b) for b in sim.enabled()] == ["Twice/Step<x=1>"]
    sim.step()
    assert sim.marking.counts() == {"P": 0, "Q": 1, "Twice/Seen": 1}


def test_snakes_gets_the_untimed_view_and_pnml_keeps_time_and_priorities():
    net = Net("timed")
    net.place("P", int, initial=[0], timed=True)
    net.transition("Tick", delay=1, priority=P_HIGH)
    net.arc("P", "Tick", "x")
    net.arc("Tick", "P", "x + 1@+2")
    with pytest.warns(UserWarning, match="without its priorities and time"):
        to_snakes(net)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        to_snakes(net, warn=False)
        to_snakes(untimed_net())  # nothing to drop, no warning
        text = to_pnml(net)  # the file keeps them: nothing to warn about
    back = from_pnml(text)
    assert back.places["P"].timed
    assert (back.transitions["Tick"].delay, back.transitions["Tick"].priority) == \
        ("1", P_HIGH)
    assert [a.inscription for a in back.arcs] == ["x", "x + 1@+2"]
    ours, theirs = Simulator(net), Simulator(back)
    ours.run(until_time=30)
    theirs.run(until_time=30)
    assert theirs.marking.timed("P") == ours.marking.timed("P") == [(11, 33.0)]


def test_functions_come_from_env_never_from_the_file(tmp_path):
    path = tmp_path / "calls.pnml"
    path.write_text(to_pnml(with_env_function()))
    # SNAKES pickles a function of ours (by name): refused, never unpickled.
    with pytest.raises(PnmlError, match=rf"^{path}, line 4, <global name='halve'>: "
                                        r"pickled Python data: a PNML file carries no code; "
                                        r"pass it as from_pnml\(\.\.\., env=\{'halve'"):
        read_pnml(path)
    sim = Simulator(read_pnml(path, env={"halve": halve}))
    sim.run()
    assert sim.marking["P"] == [1]
    # A library function is written by name: still not imported from the file.
    net = with_env_function()
    net.env["halve"] = math.floor
    with pytest.raises(PnmlError, match=r"<global name='halve'>: a function \(math\.floor\)"):
        from_pnml(to_pnml(net))
    # SNAKES leaves out a lambda: the net read back names what is missing.
    net.env["halve"] = lambda v: v // 2
    with pytest.raises(PnmlError, match=r"^<pnml>: net 'calls', transition 'Halve', arc "
                                        r"Halve -> P: function 'halve' in 'halve\(x\)' is not "
                                        "in the environment"):
        from_pnml(to_pnml(net))


def test_a_code_segment_becomes_a_function_its_output_arcs_call():
    net = Net("code")
    net.place("P", int, initial=[1])
    net.place("Q", int)
    net.transition("T", code="y = x + 1\nz = 2 * y", guard="x < 3")
    net.arc("P", "T", "x")
    net.arc("T", "P", "y")
    net.arc("T", "Q", "z ++ x")
    exported = to_snakes(net)
    transition = exported.transition("T")
    [mode] = transition.modes()
    transition.fire(mode)
    sim = Simulator(net)
    sim.fire(sim.enabled()[0])
    assert {place.name: Counter(place.tokens) for place in exported.place()} == \
        {"P": Counter({2: 1}), "Q": Counter({4: 1, 1: 1})} == \
        {path: Counter(sim.tokens(path)) for path in ("P", "Q")}


def test_what_snakes_cannot_express_is_refused_by_name():
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


class Planted:
    """Unpickling this would create a file: the reader must never do it."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def small_pnml() -> str:
    net = Net("small")
    net.place("P", int, initial=[1])
    net.transition("T", guard="x > 0")
    net.arc("P", "T", "x")
    net.arc("T", "P", "x")
    return to_pnml(net)


def test_a_pickled_token_is_refused_not_unpickled(tmp_path):
    planted = tmp_path / "planted"
    payload = repr(pickle.dumps(Planted(planted)))
    text = small_pnml().replace('<object type="int">1</object>',
                                f'<object type="pickle">{payload}</object>')
    # In the engine's tokens (line 20); in SNAKES' marking, read without them.
    without_engine_data = re.sub(r"\s*<toolspecific.*</toolspecific>", "", text, flags=re.S)
    for planted_text, line in ((text, 20), (without_engine_data, 10)):
        with pytest.raises(PnmlError, match=rf"^evil\.pnml, line {line}, <object type="
                                            r"'pickle'>: place 'P': a pickled Python object; "
                                            r"this reader never unpickles"):
            from_pnml(planted_text, source="evil.pnml")
    assert not planted.exists()


@pytest.mark.parametrize("guard, refused", [
    ("__import__('os').system('true')", "'__import__'"),
    ("eval('x') > 0", "'eval'"),
    ("open('/etc/passwd')", "'open'"),
    ("x.__class__.__subclasses__()", "'.__subclasses__'"),
    ("getattr(x, 'real')", "'getattr'"),
])
def test_a_guard_reaching_outside_the_net_is_refused(guard, refused):
    text = small_pnml().replace("x &gt; 0", guard.replace("'", "&apos;"))
    with pytest.raises(PnmlError, match=rf"^evil\.pnml, line 25, <transition id='T'>: "
                                        rf"{refused} in .* reaches outside the net"):
        from_pnml(text, source="evil.pnml")


def test_an_arc_reaching_outside_the_net_is_refused():
    text = small_pnml().replace("<expression>x</expression>",
                                "<expression>x + len(_cpn_heap)</expression>")
    with pytest.raises(PnmlError, match=r"line 35, <arc id='T:P'>: '_cpn_heap' in "
                                        r"'x \+ len\(_cpn_heap\)' reaches outside the net"):
        from_pnml(text, source="evil.pnml")


LAUGHS = ('<?xml version="1.0"?><!DOCTYPE p [<!ENTITY a "aaaaaaaaaa">'
          '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><pnml>&b;</pnml>')
OUTSIDE = ('<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
           '<pnml>&e;</pnml>')


@pytest.mark.parametrize("text, message", [
    (LAUGHS, r"line 1: a DTD \(<!DOCTYPE \.\.\.>\) is refused"),
    (OUTSIDE, r"line 2: a DTD \(<!DOCTYPE \.\.\.>\) is refused"),
    ("", r"line 1: not well-formed XML \(no element found\)"),
    ("<pnml>\n<net id='n'>\n<place id='P'>\n</net>", r"line 4: not well-formed XML "
                                                     r"\(mismatched tag\)"),
    ("<html/>", r"line 1, <html>: not PNML"),
    ("<pnml><net id='n'/><net id='m'/></pnml>", r"line 1, <pnml>: expected one <net>"),
    ("<pnml><net id='n'>\n<page id='g'/></net></pnml>",
     r"line 2, <page id='g'>: unsupported element"),
    ("<pnml><net id='n'><place id='P'/>\n<place id='P'/></net></pnml>",
     r"line 2, <place id='P'>: a second node with id 'P' \(the first is on line 1\)"),
    ("<pnml><net id='n'><place id='P'/><transition id='T'/>\n"
     "<arc source='P' target='Q'><inscription><variable>x</variable></inscription></arc>"
     "</net></pnml>", r"line 2, <arc>: an arc must join a place and a transition of the "
                      r"net \('P' -> 'Q'\)"),
    ("<pnml><net id='n'><place id='P'><initialMarking><multiset><item>"
     "<value><object type='int'>one</object></value><multiplicity>1</multiplicity>"
     "</item></multiset></initialMarking></place></net></pnml>",
     r"line 1, <object type='int'>: place 'P': not a valid int: invalid literal"),
    ("<pnml><net id='n'><place id='P'><initialMarking><multiset><item>"
     "<value><object type='int'>1</object></value><multiplicity>99999999999</multiplicity>"
     "</item></multiset></initialMarking></place></net></pnml>",
     r"line 1, <multiplicity>: place 'P': more than 10,000,000 tokens"),
    ("<pnml><net id='n'><place id='P'/><transition id='T'><guard>"
     "<expression>y ></expression></guard></transition></net></pnml>",
     r"line 1, <expression>: 'y >' is not a Python expression"),
    ("<pnml><net id='n'><place id='P'/><transition id='T'><guard>"
     "<expression>y > 0</expression></guard></transition></net></pnml>",
     r"transition 'T', guard 'y > 0': unknown variable 'y'"),
    ("<pnml><net id='n'><place id='P'><initialMarking><multiset><item><value>"
     + "<object type='tuple'>" * 5000 + "</object>" * 5000
     + "</value><multiplicity>1</multiplicity></item></multiset></initialMarking>"
       "</place></net></pnml>", r"elements nested too deeply"),
])
def test_a_damaged_or_hostile_file_is_refused_by_name(text, message):
    with pytest.raises(PnmlError, match=r"^evil\.pnml(, |: )" + r".*" + message):
        from_pnml(text, source="evil.pnml")
