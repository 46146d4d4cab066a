"""Hand-checked behaviour of the engine, one feature at a time."""

import re

import numpy as np
import pytest

from cpn import (P_HIGH, P_LOW, BindingError, ColourError, Delayed, MonitorError, Net, NetError,
                 Simulator, StopReason, UnknownNameError, timed)
from cpn.monitors import Breakpoint, FiringCounter, FiringLog, Monitor, PlaceIntegral
from cpn.marking import TokenView
from cpn.statespace import state_space


def loop(delay="1", initial=(0,)):
    net = Net("loop")
    net.place("P", int, initial=list(initial), timed=True)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "P", f"x + 1@+{delay}")
    return net


def test_timed_token_is_not_available_before_its_timestamp():
    net = Net("wait")
    net.place("P", int, initial=[timed(7, at=5)], timed=True)
    net.place("Q", int)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "x")
    sim = Simulator(net)
    assert sim.enabled() == []
    assert sim.next_event_time() == 5
    fired = sim.step()
    assert fired.transition == "T" and fired.values == {"x": 7}
    assert sim.now == 5
    assert sim.marking["Q"] == [7]


def test_clock_jumps_to_the_earliest_enabling_not_just_the_next_token():
    # A token in A at 2 is useless without one in B, which arrives at 9.
    net = Net("join")
    net.place("A", int, initial=[timed(1, 2)], timed=True)
    net.place("B", int, initial=[timed(2, 9)], timed=True)
    net.place("C", int)
    net.transition("T")
    net.arc("A", "T", "a")
    net.arc("B", "T", "b")
    net.arc("T", "C", "a + b")
    sim = Simulator(net)
    sim.step()
    assert sim.now == 9 and sim.marking["C"] == [3]


def test_transition_and_arc_delays_add_up():
    net = Net("delays")
    net.place("P", int, initial=[1], timed=True)
    net.place("Q", int, timed=True)
    net.transition("T", delay="x * 10")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "x@+3 ++ 2`x + 1")
    sim = Simulator(net)
    sim.run(until_time=0)
    assert sorted(sim.marking.timed("Q")) == [(1, 13.0), (2, 10.0), (2, 10.0)]


DELAYED_FILE = """
name = "spread"
[places.P]
initial = [1]
timed = true
[places.Q]
timed = true
[transitions.T]
inputs = { P = "x" }
outputs = { Q = "*[Delayed(x, 2), x + 1, Delayed(x + 2, 5)]" }
"""


def test_every_net_knows_delayed_without_its_env_naming_it():
    """A Python net uses ``Delayed`` as a net file does, undeclared; a net
    whose env gives the name something else means that instead."""
    from cpn import loads
    net = Net("spread")
    net.place("P", int, initial=[1], timed=True)
    net.place("Q", int, timed=True)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "*[Delayed(x, 2), x + 1, Delayed(x + 2, 5)]")
    assert net.env == {}  # known to the net, not written into its env
    for each in (net, loads(DELAYED_FILE)):
        sim = Simulator(each)
        sim.step()
        assert sorted(sim.marking.timed("Q")) == [(1, 2.0), (2, 0.0), (3, 5.0)]
    net.env["Delayed"] = lambda value, delay: value * 10
    sim = Simulator(net)
    sim.step()
    assert sorted(sim.marking.timed("Q")) == [(2, 0.0), (10, 0.0), (30, 0.0)]


def delayed_once(arc: str, delay=None) -> Net:
    net = Net("delays", env={"Delayed": Delayed})
    net.place("P", int, initial=[1], timed=True)
    net.place("Q", int, timed=True)
    net.transition("T", delay=delay)
    net.arc("P", "T", "x")
    net.arc("T", "Q", arc)
    return net


@pytest.mark.parametrize("arc, delay, refused", [
    ("x@+-5", None, "arc T -> Q 'x@+-5': a delay must be a number >= 0, not -5"),
    ("x", -5, "delay '@+-5': a delay must be a number >= 0, not -5"),
    ("x@+float('nan')", None, "a delay must be a number >= 0, not nan"),
    ("x@+'5'", None, "a delay must be a number >= 0, not '5'")])
def test_a_delay_known_when_the_net_is_built_must_be_a_number_at_least_0(arc, delay, refused):
    with pytest.raises(NetError, match=re.escape(refused)):
        Simulator(delayed_once(arc, delay))


@pytest.mark.parametrize("arc, delay, said", [
    ("x@+(x - 3)", None, "arc T -> Q 'x@+(x - 3)': a delay must be a number >= 0, not -2"),
    ("x", "x - 3", "delay '@+x - 3': a delay must be a number >= 0, not -2"),
    ("x@+1", "x - 3", "delay '@+x - 3': a delay must be a number >= 0, not -2"),
    ("x@+(x * float('nan'))", None,
     "arc T -> Q \"x@+(x * float('nan'))\": a delay must be a number >= 0, not nan"),
    ("*[Delayed(x, -3)]", None,
     "arc T -> Q '*[Delayed(x, -3)]': a delay must be a number >= 0, not -3"),
    ("x@+minus(x)", None, "arc T -> Q 'x@+minus(x)': a delay must be a number >= 0: token 1 "
                          "would be available at -1.0, before the clock (0.0)"),
    ("x@+1", "minus(x) - 1", "delay '@+minus(x) - 1': a delay must be a number >= 0: token 1 "
                             "would be available at -1.0, before the clock (0.0)")])
def test_a_computed_delay_below_0_or_nan_fails_its_firing(arc, delay, said):
    # A token before the clock was put as available now; NaN made the clock NaN.
    # Then the message said ValueError("token 1 for place 'Q' would be available at -2.0, ...")
    # naming neither the arc nor the transition's delay.
    net = delayed_once(arc, delay)
    net.env["minus"] = lambda x: -x  # a function's value is not computed again for a message
    sim = Simulator(net)
    with pytest.raises(BindingError, match=re.escape(
            f"firing T<x=1> at time 0.0 failed: {said}")):
        sim.run()
    assert sim.now == 0 and sim.marking["P"] == [1] and sim.marking["Q"] == []


def test_a_token_delayed_for_ever_never_becomes_available():
    # The clock went to inf, where the token was taken and a monitor's
    # integral became NaN.
    net = delayed_once("x@+forever(x)", None)
    net.env["forever"] = lambda x: float("inf")
    net.place("R", int)
    net.transition("U")
    net.arc("Q", "U", "y")
    net.arc("U", "R", "y")
    sim = Simulator(net)
    integral = sim.add_monitor(PlaceIntegral("R", len))
    result = sim.run()
    assert (result.reason, result.time, result.steps) == (StopReason.DEAD, 0.0, 1)
    assert sim.run(until_time=50).reason == StopReason.DEAD and sim.now == 0
    assert sim.marking.timed("Q") == [(1, float("inf"))] and sim.marking["R"] == []
    assert sim.next_event_time() is None and integral.value == 0.0


def test_an_unknown_function_is_called_one_and_a_quoted_constant_is_quoted_once():
    # "variable 'foo' in 'foo(x)' is never bound"; "arc T -> Q ''hello''"
    net = counted_once("foo(x)")
    with pytest.raises(NetError, match=re.escape(
            "arc T -> Q: function 'foo' in 'foo(x)' is not in the environment (give it in "
            "the net's env)")):
        Simulator(net)
    with pytest.raises(NetError, match=re.escape(
            "arc T -> Q \"'hello'\": constant 'hello' is not of colour int")):
        net.set_inscription("T", "Q", "'hello'")


def test_an_initial_token_at_time_nan_is_refused():
    # The clock became NaN when it came in.
    net = Net("nan")
    net.place("P", int, initial=[timed(1, float("nan"))], timed=True)
    with pytest.raises(NetError, match=r"place 'P': initial token 1 at time nan: a "
                                       "timestamp is a number"):
        Simulator(net)


def counted_once(arc: str, initial: int = 1) -> Net:
    net = Net("counts", env={"MINUS": -1})
    net.place("P", int, initial=[initial])
    net.place("Q", int)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Q", arc)
    return net


@pytest.mark.parametrize("arc, refused", [
    ("(-1)`x", "arc T -> Q '(-1)`x': a multiplicity must be an integer >= 0, not -1"),
    ("x ++ MINUS`x", "arc T -> Q 'x ++ MINUS`x': a multiplicity must be an integer >= 0, "
                     "not -1"),
    ("1.5`x", "arc T -> Q '1.5`x': a multiplicity must be an integer >= 0, not 1.5")])
def test_a_multiplicity_known_when_the_net_is_built_must_be_an_integer_at_least_0(arc, refused):
    # A negative one put no token, without a word.
    with pytest.raises(NetError, match=re.escape(f"transition 'T', {refused}")):
        Simulator(counted_once(arc))


def test_a_computed_multiplicity_below_0_fails_before_a_token_is_taken():
    # It put no token, without a word.
    sim = Simulator(counted_once("x`7", initial=-2))
    with pytest.raises(BindingError, match=re.escape(
            "firing T<x=-2> at time 0.0 failed: ValueError(\"arc to 'Q' 'x`7': multiplicity "
            "'x' is -2, not an integer >= 0\")")):
        sim.run()
    assert sim.marking["P"] == [-2] and sim.marking["Q"] == []
    sim = Simulator(counted_once("x`7 ++ 0`x", initial=2))
    sim.run()
    assert sim.marking["Q"] == [7, 7]


def test_a_computed_multiplicity_that_is_no_integer_fails_before_a_token_is_taken():
    # It failed after the firing had taken x: the token was lost.
    sim = Simulator(counted_once("7 ++ (x / 2)`x", initial=2))
    with pytest.raises(BindingError, match=re.escape(
            "firing T<x=2> at time 0.0 failed: arc T -> Q '7 ++ (x / 2)`x': TypeError(\"'float' "
            "object cannot be interpreted as an integer\")")):
        sim.run()
    assert sim.marking["P"] == [2] and sim.marking["Q"] == []


def test_a_splat_term_takes_no_multiplicity():
    # 2`*[x, x] put each element once, the 2 dropped without a word.
    with pytest.raises(NetError, match=re.escape(
            "transition 'T', arc T -> Q '2`*[x, x]': cannot parse '2`*[x, x]': a '*' term "
            "puts each element once: it takes no multiplicity")):
        Simulator(counted_once("2`*[x, x]"))

def test_a_transition_delay_with_no_timed_output_is_refused():
    net = Net("untimed")
    net.place("P", int, initial=[1])
    net.place("Q", int)
    net.transition("T", delay=5)
    net.arc("P", "T", "x")
    net.arc("T", "Q", "x")
    with pytest.raises(NetError, match="'@\\+5' would delay nothing: no output place"):
        Simulator(net)


def test_run_until_time_and_steps():
    sim = Simulator(loop("5"))
    result = sim.run(until_time=12)
    assert result.reason is StopReason.TIME and result.time == 12
    # firings at 0, 5, 10
    assert result.steps == 3 and sim.marking.timed("P") == [(3, 15.0)]
    result = sim.run(max_steps=2)
    assert result.reason is StopReason.STEPS and sim.now == 20


def test_dead_marking_stops_the_run():
    net = Net("once")
    net.place("P", int, initial=[1])
    net.place("Q", int)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "x")
    result = Simulator(net).run()
    assert result.reason is StopReason.DEAD and result.steps == 1


def test_only_the_highest_priority_fires():
    net = Net("priorities")
    net.place("P", int, initial=[1, 2])
    net.place("Low", int)
    net.place("High", int)
    net.transition("L", priority=P_LOW)
    net.transition("H", priority=P_HIGH, guard="x == 2")
    net.arc("P", "L", "x")
    net.arc("L", "Low", "x")
    net.arc("P", "H", "x")
    net.arc("H", "High", "x")
    sim = Simulator(net)
    assert [str(b) for b in sim.enabled()] == ["H<x=2>"]
    everything = sim.enabled(all_priorities=True)
    assert {str(b) for b in everything} == {"H<x=2>", "L<x=1>", "L<x=2>"}
    low = next(b for b in everything if str(b) == "L<x=1>")
    with pytest.raises(BindingError, match="higher priority"):
        sim.fire(low)  # listed, but pre-empted by H
    sim.run()
    assert sim.marking["High"] == [2] and sim.marking["Low"] == [1]



@pytest.mark.parametrize("priority", ["high", 1.5, True, None])
def test_a_priority_that_is_not_an_integer_is_refused_naming_the_transition(priority):
    # 'high' failed with a bare ValueError from int(); 1.5 was truncated to 1.
    net = Net("n")
    with pytest.raises(NetError, match=re.escape(
            f"net 'n', transition 'T': a priority is an integer, not {priority!r}")):
        net.transition("T", priority=priority)
    assert "T" not in net.transitions
    assert net.transition("T", priority=np.int64(5)).priority == 5
    assert type(net.transitions["T"].priority) is int

def test_multiset_input_needs_distinct_tokens():
    net = Net("pairs")
    net.place("P", int, initial=[3, 3, 4])
    net.place("Q", int)
    net.transition("T")
    net.arc("P", "T", "2`x")
    net.arc("T", "Q", "x")
    sim = Simulator(net)
    assert [b.values for b in sim.enabled()] == [{"x": 3}]
    sim.fire()
    assert sim.marking["P"] == [4] and sim.enabled() == []


def test_tuple_pattern_with_constant_and_repeated_variable():
    net = Net("patterns")
    net.place("P", tuple, initial=[("a", 1, 1), ("b", 2, 3), ("b", 4, 4)])
    net.place("Q", int)
    net.transition("T")
    net.arc("P", "T", "('b', x, x)")
    net.arc("T", "Q", "x")
    sim = Simulator(net)
    assert [b.values for b in sim.enabled()] == [{"x": 4}]


def test_input_expression_over_a_variable_bound_elsewhere():
    net = Net("successor")
    net.place("A", int, initial=[1, 5])
    net.place("B", int, initial=[2, 9])
    net.place("C", int)
    net.transition("T")
    net.arc("B", "T", "y + 1")  # declared first: must wait for y
    net.arc("A", "T", "y")
    net.arc("T", "C", "y")
    assert [b.values for b in Simulator(net).enabled()] == [{"y": 1}]


def test_code_segment_computes_output_variables_with_the_environment():
    net = Net("code", env={"halve": lambda v: (v // 2, v - v // 2)})
    net.place("P", int, initial=[7])
    net.place("Q", int)
    net.transition("Split", code="small, big = halve(n)\ntotal = small + big")
    net.arc("P", "Split", "n")
    net.arc("Split", "Q", "small ++ big ++ total")
    sim = Simulator(net)
    sim.run()
    assert sorted(sim.marking["Q"]) == [3, 4, 7]


def test_a_code_segment_sets_its_outputs_in_branches_and_loops_too():
    # Only top-level assignments counted: 'y' set on both branches was
    # refused as "never bound".
    net = Net("code")
    net.place("P", int, initial=[3, 1])
    net.place("Q", int)
    net.transition("T", code="if x > 2:\n    y = 1\nelse:\n    y = 2\n"
                             "for step in range(x):\n    total = step\n"
                             "names = [inner for inner in 'ab']")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "y + 10 * total")
    sim = Simulator(net)
    sim.run()
    assert sorted(sim.marking["Q"]) == [2, 21]
    net.arc("T", "Q", "inner")  # a comprehension's name is its own
    with pytest.raises(NetError, match="variable 'inner' in 'inner' is never bound"):
        Simulator(net)


def test_splat_output_and_now():
    net = Net("splat")
    net.place("P", tuple, initial=[(1, 2, 3)])
    net.place("Q", tuple)
    net.transition("T")
    net.arc("P", "T", "xs")
    net.arc("T", "Q", "*[(x, now) for x in xs]")
    sim = Simulator(net)
    sim.run()
    assert sim.marking["Q"] == [(1, 0.0), (2, 0.0), (3, 0.0)]


def test_guard_reading_now_is_rechecked_when_time_advances():
    net = Net("deadline")
    net.place("Job", int, initial=[1])
    net.place("Clock", int, initial=[timed(0, 10)], timed=True)
    net.place("Late", int)
    net.transition("Expire", guard="now >= 10")
    net.arc("Job", "Expire", "j")
    net.arc("Expire", "Late", "j")
    net.transition("Tick")
    net.arc("Clock", "Tick", "c")
    sim = Simulator(net, order="declared")
    sim.run()
    assert sim.marking["Late"] == [1]


@pytest.mark.parametrize("guard, passed", [
    ("sel", [(1,), (2, 3)]), ("sel and sel[0] > 1", [(2, 3)]), ("len(sel)", [(1,), (2, 3)]),
    ("forgot(sel)", [])])
def test_a_guard_holds_as_python_takes_it(guard, passed):
    # As documented (Transition): not only True, unlike CPN Tools' guards.
    net = Net("queues", env={"forgot": lambda sel: None})
    net.place("Q", tuple[int, ...], initial=[(), (1,), (2, 3)])
    net.place("Out", tuple[int, ...])
    net.transition("T", guard=guard, inputs={"Q": "sel"}, outputs={"Out": "sel"})
    sim = Simulator(net)
    sim.run()
    assert sorted(sim.tokens("Out")) == passed


def module_counter():
    """A module that counts what passes from In to Out in its own place."""
    module = Net("Counter")
    module.place("In", int, port="in")
    module.place("Out", int, port="out")
    module.place("Count", int, initial=[0])
    module.transition("Pass")
    module.arc("In", "Pass", "x")
    module.arc("Count", "Pass", "n")
    module.arc("Pass", "Out", "x")
    module.arc("Pass", "Count", "n + 1")
    return module


def test_two_instances_of_a_module_have_their_own_places():
    module = module_counter()
    top = Net("top")
    top.place("A", int, initial=[1, 2, 3])
    top.place("B", int)
    top.place("C", int)
    top.substitution("First", module, {"In": "A", "Out": "B"})
    top.substitution("Second", module, {"In": "B", "Out": "C"})
    sim = Simulator(top)
    assert {p.path for p in sim.net.places} == {"A", "B", "C", "First/Count", "Second/Count"}
    sim.run(max_steps=4)
    counts = sim.marking
    assert counts["First/Count"][0] + counts["Second/Count"][0] == 4
    sim.run()
    assert sim.marking["First/Count"] == [3] and sim.marking["Second/Count"] == [3]
    assert sorted(sim.marking["C"]) == [1, 2, 3]


def test_nested_modules_keep_their_paths():
    inner = module_counter()
    outer = Net("Outer")
    outer.place("In", int, port="in")
    outer.place("Out", int, port="out")
    outer.substitution("Inner", inner, {"In": "In", "Out": "Out"})
    top = Net("top")
    top.place("A", int, initial=[1])
    top.place("B", int)
    top.substitution("Stage", outer, {"In": "A", "Out": "B"})
    sim = Simulator(top)
    assert [t.path for t in sim.transitions] == ["Stage/Inner/Pass"]
    sim.run()
    assert sim.marking["Stage/Inner/Count"] == [1]


def test_fusion_places_share_one_marking():
    module = Net("M")
    module.place("Trigger", int, port="in")
    module.place("Shared", int, fusion="power")
    module.transition("Add")
    module.arc("Trigger", "Add", "x")
    module.arc("Add", "Shared", "x")
    top = Net("top")
    top.place("T1", int, initial=[1])
    top.place("T2", int, initial=[2])
    top.place("Power", int, fusion="power")
    top.substitution("A", module, {"Trigger": "T1"})
    top.substitution("B", module, {"Trigger": "T2"})
    sim = Simulator(top)
    sim.run()
    # One place, named by its fusion set; each member's path names it too.
    assert [p.path for p in sim.net.places] == ["T1", "T2", "power"]
    assert sorted(sim.marking["power"]) == [1, 2]
    assert sorted(sim.tokens("Power")) == sorted(sim.tokens("B/Shared")) == [1, 2]


def test_a_fusion_set_has_one_initial_marking_whichever_member_gives_it():
    def net(first, second):
        top = Net("top")
        top.place("A", int, initial=first, fusion="f")
        top.place("B", int, initial=second, fusion="f")
        return top

    assert Simulator(net([], [1, 2])).tokens("f") == [1, 2]  # the first member has none
    assert Simulator(net([1, 2], [1, 2])).tokens("f") == [1, 2]
    with pytest.raises(NetError, match=r"place 'B': its initial marking \[3\] differs from "
                                       r"\[1, 2\], given by 'A' of the same fusion set 'f'"):
        Simulator(net([1, 2], [3]))
    clash = net([], [])
    clash.place("f", int)
    with pytest.raises(NetError, match="fusion set 'f' has the name of a place"):
        Simulator(clash)
    # both are int: "whose colour set differs" sent the reader to the colours
    timing = Net("timing")
    timing.place("F", int, fusion="g", timed=True)
    timing.place("G", int, fusion="g")
    with pytest.raises(NetError, match=r"place 'G' \(colour int, untimed\): fusion set 'g' "
                                       r"joins it to 'F' \(colour int, timed\)"):
        Simulator(timing)


def test_a_port_place_cannot_join_a_fusion_set():
    module = Net("M")
    with pytest.raises(NetError, match="net 'M', place 'In': a port place cannot be in "
                                       "fusion set 'shared'"):
        module.place("In", int, port="in", fusion="shared")


def directed_module(kind: str, inputs: dict, outputs: dict) -> Net:
    module = Net("Directed")
    module.place("Port", int, port=kind)
    module.place("Other", int, initial=[5])
    module.transition("Use", inputs={"Other": "y", **inputs}, outputs=outputs)
    return module


@pytest.mark.parametrize("kind, inputs, outputs, problem", [
    ("in", {"Port": "x"}, {"Other": "x + y"}, None),            # takes: fine
    ("in", {"Port": "x"}, {"Port": "x", "Other": "y"}, None),   # reads (double arc): fine
    ("in", {}, {"Port": "y", "Other": "y"},
     r"substitution 'Sub': port 'Port' is an input port \(port='in'\) but transition "
     r"'Sub/Use' puts tokens into it \(socket 'S'\)"),
    ("in", {"Port": "x"}, {"Port": "x + 1", "Other": "y"}, "puts tokens into it"),
    ("out", {}, {"Port": "y", "Other": "y"}, None),             # puts: fine
    ("out", {"Port": "x"}, {"Port": "x", "Other": "y"},
     r"substitution 'Sub': port 'Port' is an output port \(port='out'\) but transition "
     r"'Sub/Use' takes or reads its tokens"),
    ("inout", {"Port": "x"}, {"Port": "x + 1", "Other": "y"}, None),
])
def test_port_directions_are_checked_where_a_module_is_used(kind, inputs, outputs, problem):
    top = Net("top")
    top.place("S", int, initial=[1])
    top.substitution("Sub", directed_module(kind, inputs, outputs), {"Port": "S"})
    if problem is None:
        Simulator(top)
    else:
        with pytest.raises(NetError, match=problem):
            Simulator(top)
    Simulator(directed_module(kind, inputs, outputs))  # on its own, a port is a place


def test_a_nested_module_counts_as_its_parent_for_port_directions():
    inner = directed_module("inout", {}, {"Port": "y", "Other": "y"})
    outer = Net("Outer")
    outer.place("Port", int, port="in")
    outer.substitution("Inner", inner, {"Port": "Port"})
    top = Net("top")
    top.place("S", int)
    top.substitution("Sub", outer, {"Port": "S"})
    with pytest.raises(NetError, match=r"substitution 'Sub': port 'Port' is an input port "
                                       r"\(port='in'\) but transition 'Sub/Inner/Use'"):
        Simulator(top)


@pytest.mark.parametrize("build, message", [
    (lambda n: n.arc("P", "T", "x") or n.arc("T", "Q", "y"),
     "transition 'T', arc T -> Q: variable 'y' in 'y' is never bound"),
    (lambda n: n.arc("P", "T", "x + z") or n.arc("T", "Q", "x"),
     "unknown variables 'x', 'z'"),
    (lambda n: n.arc("P", "Missing", "x"), "no place or transition named 'Missing'"),
    (lambda n: n.arc("P", "Q", "x"), "an arc must join a place and a transition"),
    (lambda n: n.arc("P", "T", "x") or n.arc("T", "Q", "'text'"),
     "constant 'text' is not of colour int of place 'Q'"),
    (lambda n: n.arc("P", "T", "x") or n.arc("T", "Q", "x@+1"),
     "place 'Q' is untimed: its tokens cannot carry a @+ delay"),
    (lambda n: n.arc("P", "T", "x +") , "cannot parse 'x +'"),
])
def test_construction_errors_name_the_transition_arc_and_text(build, message):
    net = Net("bad")
    net.place("P", int, initial=[1])
    net.place("Q", int)
    net.transition("T")
    build(net)
    with pytest.raises(NetError, match=message.replace("(", r"\(").replace("+", r"\+")):
        Simulator(net)


@pytest.mark.parametrize("part, text, message", [
    ("guard", "x >", "transition 'T', guard 'x >': cannot parse it: invalid syntax"),
    ("code", "y = = 1", "transition 'T', code segment: invalid syntax: 'y = = 1'"),
    ("delay", "1 +", "transition 'T', delay: cannot parse '1 \\+': invalid syntax"),
])
def test_syntax_errors_name_the_transition_and_the_part(part, text, message):
    net = Net("bad")
    net.place("P", int, initial=[1])
    net.transition("T", **{part: text})
    net.arc("P", "T", "x")
    with pytest.raises(NetError, match=message):
        Simulator(net)


def test_guard_with_unknown_variable_is_rejected():
    net = Net("bad")
    net.place("P", int, initial=[1])
    net.transition("T", guard="x > limit")
    net.arc("P", "T", "x")
    with pytest.raises(NetError, match="guard 'x > limit': unknown variable 'limit'"):
        Simulator(net)


def test_code_segment_reading_unknown_variable_is_rejected():
    net = Net("bad")
    net.place("P", int, initial=[1])
    net.place("Q", int)
    net.transition("T", code="y = x + offset")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "y")
    with pytest.raises(NetError, match="code segment: variable 'offset'"):
        Simulator(net)


def test_colour_is_checked_when_a_token_enters():
    net = Net("colours")
    net.place("P", int, initial=[1])
    net.place("Even", lambda v: v % 2 == 0)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Even", "x * 3")
    with pytest.raises(ColourError, match="arc to 'Even' 'x \\* 3': token 3"):
        Simulator(net).run()
    bad = Net("initial")
    bad.place("P", int, initial=["one"])
    with pytest.raises(ColourError, match="initial token 'one'"):
        Simulator(bad)



@pytest.mark.parametrize("colour, shown", [
    ("int", "the string 'int'"), ((int, "str"), "the string 'str'"), (3, "3")])
def test_a_colour_that_is_no_type_tuple_of_types_or_predicate_is_refused(colour, shown):
    # A string colour failed at the first token with "'str' object is not callable".
    net = Net("n")
    message = re.escape(f"net 'n', place 'P': a colour is a type, a union of types "
                        f"(int | None), a tuple, frozenset or FrozenDict of them "
                        f"(tuple[int, ...]), or a predicate (callable), not {shown}")
    with pytest.raises(NetError, match=message):
        net.place("P", colour, initial=[1])
    net.place("P", int, initial=[1])
    with pytest.raises(NetError, match=message):
        net.set_colour("P", colour)
    assert net.places["P"].colour is int


def test_a_predicate_colour_that_fails_on_an_initial_token_names_the_place_and_token():
    net = Net("n")
    net.place("P", lambda token: token > 0, initial=[1, "a"])
    with pytest.raises(ColourError, match=re.escape(
            "place 'P': initial token 'a': testing it against colour <lambda> failed: "
            "TypeError(\"'>' not supported between instances of 'str' and 'int'\")")):
        Simulator(net)

def test_module_errors():
    module = module_counter()
    top = Net("top")
    top.place("A", int)
    top.place("S", str)
    top.substitution("Sub", module, {"In": "A"})
    with pytest.raises(NetError, match="port 'Out' is not assigned"):
        Simulator(top)
    top = Net("top")
    top.place("A", int)
    top.place("S", str)
    top.substitution("Sub", module, {"In": "A", "Out": "S"})
    with pytest.raises(NetError, match="socket 'S' .* does not match port 'Out'"):
        Simulator(top)
    top = Net("top")
    top.place("A", int)
    top.substitution("Sub", module, [("In", "A"), ("In", "A")])
    with pytest.raises(NetError, match="port 'In' is assigned twice"):
        Simulator(top)
    top = Net("top")
    top.place("A", int)
    top.substitution("Sub", module, {"In": "A", "Nope": "A"})
    with pytest.raises(NetError, match="has no port named 'Nope'"):
        Simulator(top)



def test_a_module_that_contains_itself_is_refused_naming_the_substitution():
    looped = Net("M")
    looped.place("P", int, port="inout")
    looped.substitution("Again", looped, {"P": "P"})
    one, other = Net("A"), Net("B")
    one.place("P", int, port="inout")
    other.place("Q", int, port="inout")
    one.substitution("ToB", other, {"Q": "P"})
    other.substitution("ToA", one, {"P": "Q"})
    for module, port, message in [
            (looped, "P", "substitution 'S/Again' of module 'M': module 'M' contains itself"),
            (one, "P", "substitution 'S/ToB/ToA' of module 'B': module 'A' contains itself")]:
        top = Net("top")
        top.place("X", int)
        top.substitution("S", module, {port: "X"})
        with pytest.raises(NetError, match=re.escape(message)):
            Simulator(top)
    itself = Net("n")
    itself.substitution("S", itself, {})
    with pytest.raises(NetError, match=re.escape(
            "net 'n', substitution 'S': module 'n' contains itself")):
        Simulator(itself)



def test_initial_tokens_of_a_port_are_refused_naming_module_port_and_socket():
    # They were dropped without a word: the socket's marking is the port's.
    module = module_counter()
    module.set_initial("In", [5])
    top = Net("top")
    top.place("A", int, initial=[1])
    top.place("B", int)
    top.substitution("Sub", module, {"In": "A", "Out": "B"})
    with pytest.raises(NetError, match=re.escape(
            "module 'Counter' at 'Sub': port 'In' has initial tokens [5], but a port's "
            "marking is its socket's, 'A': give them to the socket")):
        Simulator(top)
    assert Simulator(module).marking["In"] == [5]  # run on its own, a port is a place

def test_runtime_failure_names_the_binding_and_leaves_the_marking():
    net = Net("fails", env={"inverse": lambda v: 1 / v})
    net.place("P", int, initial=[0])
    net.place("Q", float)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "inverse(x)")
    sim = Simulator(net)
    with pytest.raises(BindingError, match=r"firing T<x=0> at time 0"):
        sim.run()
    assert sim.marking["P"] == [0]


def test_fire_undo_and_stale_bindings():
    sim = Simulator(loop("0"))
    first = sim.enabled()[0]
    sim.fire(first)
    assert sim.marking["P"] == [1]
    with pytest.raises(BindingError, match="stale"):
        sim.fire(first)
    assert sim.undo() and sim.marking["P"] == [0]
    assert not sim.undo()


def test_a_binding_listed_by_another_simulator_is_refused():
    # Both simulators start at their first marking: a version counted by
    # each from 0 let one fire the other's binding, with tokens it never had.
    listed, other = Simulator(loop()), Simulator(loop(initial=(5,)))
    binding = listed.enabled()[0]
    with pytest.raises(BindingError, match="another simulator's"):
        other.fire(binding)
    assert other.marking["P"] == [5] and listed.fire(binding) == binding


def test_same_seed_same_run_different_seed_can_differ():
    def build():
        net = Net("race")
        net.place("P", int, initial=list(range(20)))
        net.place("A", int)
        net.place("B", int)
        for name in "AB":
            net.transition("To" + name)
            net.arc("P", "To" + name, "x")
            net.arc("To" + name, name, "x")
        return net

    def run(seed):
        sim = Simulator(build(), seed=seed)
        sim.run()
        return sim.marking["A"]

    assert run(1) == run(1)
    assert any(run(seed) != run(1) for seed in range(2, 6))


def test_model_randomness_is_seeded_and_separate():
    net = Net("draw")
    net.place("P", int, initial=[0])
    net.place("Q", float)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "float(rng.exponential(10.0))")
    values = [Simulator(net, seed=s).run() and Simulator(net, seed=s) for s in (3, 3)]
    for sim in values:
        sim.run()
    assert values[0].marking["Q"] == values[1].marking["Q"]


def test_monitors_count_log_integrate_and_break():
    sim = Simulator(loop("2"))
    counter = sim.add_monitor(FiringCounter("T"))
    log = sim.add_monitor(FiringLog("T"))
    area = sim.add_monitor(PlaceIntegral("P", lambda ts: ts[0], step=3, record=True))
    sim.add_monitor(Breakpoint(transition="T", when=lambda v: v["x"] == 3))
    result = sim.run(until_time=100)
    assert result.reason is StopReason.BREAKPOINT and sim.now == 6
    assert counter.counts == {"T": 4}
    assert list(log.to_dataframe()["x"]) == [0, 1, 2, 3]
    # value 1 on [0,2), 2 on [2,4), 3 on [4,6): exact 12; samples at 0, 3 -> (1+2)*3
    assert area.value == 12.0 and area.sampled == 9.0
    assert area.times == [0.0, 2.0, 4.0] and area.values == [1.0, 2.0, 3.0]



def test_an_unknown_place_or_transition_is_named_plainly_with_those_that_exist():
    # KeyError showed its text repr-quoted; place_bound gave a bare KeyError: 'Nope'.
    sim = Simulator(loop("1"))
    place = "no place 'Nope' in net 'loop' (places: P)"
    transition = "no transition 'Nope' in net 'loop' (transitions: T)"
    for lookup, message in [
            (lambda: sim.tokens("Nope"), place),
            (lambda: sim.add_monitor(PlaceIntegral("Nope")), place),
            (lambda: sim.add_monitor(FiringCounter("Nope")), transition),
            (lambda: state_space(loop("1"), max_states=5).place_bound("Nope"),
             "no place 'Nope' in the state space (places: P)")]:
        with pytest.raises(UnknownNameError) as raised:
            lookup()
        assert str(raised.value) == message
        assert isinstance(raised.value, KeyError) and isinstance(raised.value, NetError)

class Follower(Monitor):
    """Follows T's firings with a function (``Monitor.follows``), never stopping a run."""

    def __init__(self):
        self.seen: list[tuple] = []

    def follows(self, sim):
        return {sim.transition_index("T"): lambda t, values: self.seen.append((sim.now, values))}


def test_a_monitor_that_follows_a_transition_is_told_of_each_firing_as_fired_is():
    sim = Simulator(loop("2"))
    follower = sim.add_monitor(Follower())
    log = sim.add_monitor(FiringLog("T"))
    assert sim.run(until_time=7).steps == 4
    assert follower.seen == [(r["time"], (r["x"],)) for r in log.records] == [
        (0.0, (0,)), (2.0, (1,)), (4.0, (2,)), (6.0, (3,))]


def test_a_follower_does_not_stop_a_breakpoint_or_a_predicate_from_stopping_the_run():
    sim = Simulator(loop("2"))
    follower = sim.add_monitor(Follower())
    sim.add_monitor(Breakpoint(transition="T", when=lambda v: v["x"] == 1))
    assert sim.run().reason is StopReason.BREAKPOINT and sim.now == 2
    assert sim.run(stop_when=lambda s: s.now >= 6).reason is StopReason.PREDICATE
    assert [now for now, _ in follower.seen] == [0.0, 2.0, 4.0, 6.0]


def test_place_breakpoint():
    sim = Simulator(loop("1"))
    sim.add_monitor(Breakpoint(place="P", when=lambda tokens: tokens[0] >= 5))
    assert sim.run().reason is StopReason.BREAKPOINT
    assert sim.marking["P"] == [5]


def test_state_space_of_a_bounded_buffer():
    net = Net("buffer")
    net.place("Free", int, initial=[1, 1])
    net.place("Full", int)
    net.transition("Produce")
    net.transition("Consume")
    net.arc("Free", "Produce", "x")
    net.arc("Produce", "Full", "x")
    net.arc("Full", "Consume", "x")
    net.arc("Consume", "Free", "x")
    space = state_space(net)
    assert space.complete and space.graph.number_of_nodes() == 3
    assert space.dead_markings == [] and space.place_bound("Full") == 2
    assert space.is_bounded("Full", 2)


def test_state_space_reports_dead_markings_and_incompleteness():
    net = Net("counter")
    net.place("P", int, initial=[0])
    net.transition("Inc", guard="x < 3")
    net.arc("P", "Inc", "x")
    net.arc("Inc", "P", "x + 1")
    space = state_space(net)
    assert space.graph.number_of_nodes() == 4 and len(space.dead_markings) == 1
    unbounded = Net("grow")
    unbounded.place("P", int, initial=[0])
    unbounded.transition("T")
    unbounded.arc("P", "T", "x")
    unbounded.arc("T", "P", "x ++ x")
    space = state_space(unbounded, max_states=5)
    assert not space.complete and space.is_bounded("P", 100) is None


def test_delayed_elements_of_a_splat_get_their_own_timestamps():
    from cpn import Delayed
    net = Net("timed multiset", env={"Delayed": Delayed})
    net.place("P", tuple, initial=[(3, 1, 2)])
    net.place("Q", int, timed=True)
    net.transition("T", delay="10")
    net.arc("P", "T", "xs")
    net.arc("T", "Q", "*[Delayed(x, x) for x in xs] ++ 0@+1")
    sim = Simulator(net)
    sim.run(until_time=0)
    assert sorted(sim.marking.timed("Q"), key=lambda t: (t[1], t[0])) == [
        (0, 11.0), (1, 11.0), (2, 12.0), (3, 13.0)]


def test_transition_declares_its_arcs_at_once():
    net = Net("compact")
    net.place("P", int, initial=[2])
    net.place("Q", int)
    net.transition("T", inputs={"P": "x"}, outputs={"Q": "x * 10", "P": "x - 1"},
                   guard="x > 0")
    sim = Simulator(net)
    sim.run()
    assert sim.marking["Q"] == [20, 10] and sim.marking["P"] == [0]


def test_singleton_places_are_those_that_always_hold_one_token():
    """The search binds them first (one choice each), so a loop over a place
    of many tokens runs innermost; the analysis must not take a place that
    can gain or lose tokens for one."""
    from cpn.singletons import singleton_places

    net = Net("singletons")
    net.place("Free", int, initial=[4])              # taken and put back: singleton
    net.place("Queue", int, initial=[1, 2, 3])       # many tokens
    net.place("Log", int, initial=[0])               # Start adds to it: grows
    net.place("Clock", int, initial=[0])             # read (double arc): singleton
    net.place("Done", int)
    net.transition("Start", guard="size <= free")
    net.arc("Queue", "Start", "size")
    net.arc("Free", "Start", "free")
    net.arc("Clock", "Start", "c")
    net.arc("Start", "Clock", "c")
    net.arc("Start", "Free", "free - size")
    net.arc("Start", "Done", "size")
    net.arc("Start", "Log", "size")
    flat = net.flatten()
    assert {flat.places[i].path for i in singleton_places(flat)} == {"Free", "Clock"}
    # Binding Free first changes nothing of what is enabled, nor its order.
    sim = Simulator(net, order="declared")
    assert [dict(b.values) for b in sim.enabled()] == [
        {"size": size, "free": 4, "c": 0} for size in (1, 2, 3)]


def test_a_change_a_transition_is_blind_to_still_refreshes_its_binding():
    """Take binds S's token by a bare variable no guard reads: a change of S
    cannot enable or disable it, so it is not searched again while disabled,
    but when it is enabled its binding must see S's new value.  Put makes
    Q's token at s == 2; Inc (before Take by priority) then moves S to 3, and
    Take must fire with s = 3."""
    net = Net("blind")
    net.place("S", int, initial=[0])
    net.place("Once", initial=[()])
    net.place("Q", int)
    net.place("Done", tuple)
    net.transition("Put", priority=P_HIGH, guard="s == 2")
    net.arc("Once", "Put", "()")
    net.arc("S", "Put", "s")
    net.arc("Put", "S", "s")
    net.arc("Put", "Q", "s")
    net.transition("Inc", guard="s < 3")
    net.arc("S", "Inc", "s")
    net.arc("Inc", "S", "s + 1")
    net.transition("Take", priority=P_LOW)
    net.arc("Q", "Take", "q")
    net.arc("S", "Take", "s")
    net.arc("Take", "S", "s")
    net.arc("Take", "Done", "(q, s)")
    sim = Simulator(net)
    take = sim.transitions[sim.transition_index("Take")]
    assert [sim.net.places[p].path for p in take.value_blind] == ["S"]
    sim.run()
    assert sim.marking["Done"] == [(2, 3)]


def test_view_follows_the_marking_and_cannot_change_it():
    sim = Simulator(loop("2", initial=(0, 10)))
    view = sim.view("P")
    assert list(view) == [0, 10] and len(view) == 2
    sim.run(max_steps=3)
    # Firings at 0 (x=0), 0 (x=10), 2 (x=1): the view follows, timed tokens included.
    assert list(view) == sim.tokens("P") == [11, 2] and view[0] == 11
    assert not hasattr(view, "append") and not hasattr(view, "__setitem__")
    with pytest.raises(KeyError, match="no place 'Nope'"):
        sim.view("Nope")


def test_view_of_an_untimed_place_reads_its_tokens_without_a_call_and_follows_undo():
    net = Net("count")
    net.place("N", int, initial=[0])
    net.transition("Add", guard="n < 3", inputs={"N": "n"}, outputs={"N": "n + 1"})
    sim = Simulator(net, history=True)  # the run is an undo point too
    view = sim.view("N")
    assert type(view).__getitem__ is not TokenView.__getitem__  # no callable behind it
    sim.fire()
    sim.run()
    assert list(view) == [3] and view[0] == 3 and len(view) == 1
    while sim.undo():
        pass
    assert list(view) == sim.tokens("N") == [0] and view[-1] == 0  # before the fire()
    assert not hasattr(view, "append") and not hasattr(view, "__setitem__")


def test_a_monitor_that_fails_raises_its_own_error():
    sim = Simulator(loop("1"))
    sim.add_monitor(Breakpoint(transition="T", when=lambda values: values["missing"]))
    with pytest.raises(MonitorError, match="breakpoint on transition T") as raised:
        sim.run(max_steps=5)
    assert isinstance(raised.value.__cause__, KeyError)  # what it raised, named
    assert sim.steps == 1  # the firing happened; the monitor's error is not a binding's


def test_a_guard_failing_after_the_last_firing_is_reported_by_the_next_call():
    net = Net("fails later", env={"check": lambda v: 1 / (1 - v) > 0})
    net.place("P", int, initial=[0])
    net.transition("T", guard="check(x)")
    net.arc("P", "T", "x")
    net.arc("T", "P", "x + 1")
    sim = Simulator(net)
    assert str(sim.step()) == "T<x=0>"  # P now holds 1: the guard divides by zero
    with pytest.raises(BindingError, match=re.escape(
            "transition 'T': evaluating its guard 'check(x)' failed with x=1: "
            "ZeroDivisionError")):
        sim.enabled()
    with pytest.raises(BindingError, match="ZeroDivisionError"):
        sim.run()


def test_a_delayed_value_into_an_untimed_place_is_refused():
    from cpn import Delayed
    net = Net("untimed", env={"Delayed": Delayed})
    net.place("P", tuple, initial=[(1, 2)])
    net.place("Q")  # any colour: only the missing time refuses the Delayed
    net.transition("T")
    net.arc("P", "T", "xs")
    net.arc("T", "Q", "*[Delayed(x, 5) for x in xs]")
    with pytest.raises(ColourError, match=r"transition 'T', arc to 'Q' .*: token "
                                          r"Delayed\(value=1, delay=5\): place 'Q' is "
                                          "untimed: its tokens cannot carry a delay"):
        Simulator(net).run()
    net.arcs[-1].inscription = "Delayed(1, 5)"
    with pytest.raises(NetError, match="arc T -> Q 'Delayed\\(1, 5\\)': place 'Q' is untimed"):
        Simulator(net)
    start = Net("initial")
    start.place("P", initial=[Delayed(1, 5)], timed=True)
    with pytest.raises(NetError, match=r"place 'P': initial token Delayed\(value=1, "
                                       r"delay=5\): a Delayed is an output arc's token"):
        Simulator(start)


@pytest.mark.parametrize("guard, inscription, where", [
    ("rng.random() < 0.5", "x", "guard 'rng.random\\(\\) < 0.5'"),
    (None, "int(rng.integers(2))", "arc P -> T 'int\\(rng.integers\\(2\\)\\)'"),
])
def test_guards_and_input_arcs_are_pure(guard, inscription, where):
    net = Net("impure")
    net.place("P", int, initial=[0, 1])
    net.transition("T", guard=guard)
    net.arc("P", "T", inscription)
    with pytest.raises(NetError, match=f"transition 'T', {where}: it draws from 'rng', but "
                                       "guards and input arcs are evaluated any number of "
                                       "times"):
        Simulator(net)


class Rules:
    """Helpers an inscription reaches through the env."""

    limit = 3

    def __init__(self):
        self.nested = Nested()

    def ok(self, x):
        return x < self.limit

    @property
    def computed(self):
        return self


class Nested:
    def twice(self, x):
        return 2 * x


class Dynamic:
    def __getattr__(self, name):
        return lambda x: x


@pytest.mark.parametrize("spot, text, problem", [
    ("guard", "rules.okk(x)", "guard 'rules.okk\\(x\\)': 'rules' has no attribute 'okk'"),
    ("output", "rules.nested.twise(x)",
     "arc T -> Q 'rules.nested.twise\\(x\\)': 'rules.nested' has no attribute 'twise'"),
    ("output", "math.sqroot(x)", "arc T -> Q 'math.sqroot\\(x\\)': 'math' has no attribute "
                                 "'sqroot'"),
    ("output", "Rules.limitt", "arc T -> Q 'Rules.limitt': 'Rules' has no attribute 'limitt'"),
    ("code", "y = rules.okk(x)", "code segment: 'rules' has no attribute 'okk' "
                                 "\\(in 'y = rules.okk\\(x\\)'\\)"),
    ("delay", "rules.limmit", "delay '@\\+rules.limmit': 'rules' has no attribute 'limmit'"),
    ("input", "rules.limt", "arc P -> T 'rules.limt': 'rules' has no attribute 'limt'"),
    # static and present, or not static: accepted
    ("guard", "rules.ok(x) and rules.limit > 0 and math.pi > 3", None),
    ("output", "rules.nested.twice(x) + Rules.limit", None),
    ("output", "rules.computed.anything(x)", None),  # a property: only running it tells
    ("output", "dynamic.anything(x)", None),  # computes its attributes
    ("output", "[rules.okk for rules in (1, 2)][0] * x", None),  # a local 'rules'
])
def test_misspelt_attributes_of_env_objects_are_refused_when_built(spot, text, problem):
    import math
    net = Net("helpers", env={"rules": Rules(), "Rules": Rules, "math": math,
                              "dynamic": Dynamic()})
    net.place("P", int, initial=[1])
    net.place("Q", timed=True)
    net.transition("T", guard=text if spot == "guard" else None,
                   delay=text if spot == "delay" else None,
                   code=text if spot == "code" else None)
    net.arc("P", "T", text if spot == "input" else "x")
    net.arc("T", "Q", {"output": text, "code": "y", "input": "0"}.get(spot, "x"))
    if problem is None:
        Simulator(net)
    else:
        with pytest.raises(NetError, match=f"transition 'T', {problem}"):
            Simulator(net)


def test_an_unhashable_initial_token_is_refused_naming_the_place():
    net = Net("dicts")
    net.place("P", initial=[{"a": 1}])
    with pytest.raises(ColourError, match=r"place 'P': initial token \{'a': 1\} is not "
                                          "hashable: tokens are immutable values"):
        Simulator(net)
    net = Net("nested")
    net.place("P", tuple)
    with pytest.raises(ColourError, match=r"place 'P': initial token \(1, \[2\]\) is not "
                                          "hashable"):
        Simulator(net, marking={"P": [(1, [2])]})



@pytest.mark.parametrize("tokens", ["job", b"job", 5])
def test_initial_tokens_must_be_a_list_not_a_string_or_a_lone_value(tokens):
    # A string was taken for its characters ('j', 'o', 'b'); 5 failed with a bare TypeError.
    net = Net("n")
    with pytest.raises(NetError, match=re.escape(
            f"net 'n', place 'Jobs': give a list of tokens, e.g. initial=[{tokens!r}], "
            f"not {tokens!r}")):
        net.place("Jobs", initial=tokens)
    assert "Jobs" not in net.places
    net.place("Jobs", initial=[tokens])
    with pytest.raises(NetError, match=re.escape(
            f"net 'n', place 'Jobs': give a list of tokens, e.g. set_initial('Jobs', "
            f"[{tokens!r}]), not {tokens!r}")):
        net.set_initial("Jobs", tokens)
    with pytest.raises(NetError, match=re.escape(
            f"initial marking of place 'Jobs': give a list of tokens, e.g. "
            f"marking={{'Jobs': [{tokens!r}]}}, not {tokens!r}")):
        Simulator(net, marking={"Jobs": tokens})
    assert Simulator(net).marking["Jobs"] == [tokens]
    assert Simulator(net, marking={"Jobs": (t for t in (tokens, tokens))}).marking["Jobs"] == [
        tokens, tokens]

def test_an_unhashable_produced_token_is_refused_naming_transition_arc_and_place():
    net = Net("dicts")
    net.place("P", int, initial=[1])
    net.place("Q")
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "{x: 2}")
    sim = Simulator(net)
    with pytest.raises(ColourError, match=r"transition 'T', arc to 'Q' '\{x: 2\}': token "
                                          r"\{1: 2\} is not hashable: tokens are immutable"):
        sim.run()
    assert sim.marking["P"] == [1] and sim.marking["Q"] == []
    net.arcs[-1].inscription = "[1, 2]"
    with pytest.raises(NetError, match=r"arc T -> Q '\[1, 2\]': constant \[1, 2\] is not "
                                       "hashable"):
        Simulator(net)


def test_a_colour_of_builtin_types_needs_no_extra_hash_test_but_any_other_does():
    net = Net("colours")
    net.place("P", int, initial=[1])
    net.place("Ints", int)
    net.place("Any")
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Ints", "x")
    net.arc("T", "Any", "x")
    source = Simulator(net).transitions[0].source
    assert source.count("__hash__ is None") == 1  # into Any only


@pytest.mark.parametrize("seed", ["1", 1.5, -1, True, float("nan")])
def test_a_seed_of_no_whole_number_is_refused_naming_it(seed):
    # '1' seeded a run without a word; -1 and 1.5 were numpy's errors naming no seed
    net = Net("n")
    net.place("P", int, initial=[0])
    with pytest.raises(ValueError, match=re.escape(
            f"seed must be a whole number >= 0 or None, not {seed!r}")):
        Simulator(net, seed=seed)
    assert Simulator(net, seed=np.int64(3)).seed == 3  # was a TypeError of random.Random
