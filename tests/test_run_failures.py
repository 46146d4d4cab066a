"""A run that fails says which guard, arc, delay or monitor failed, and with
what values; the original error is the ``__cause__``."""

from __future__ import annotations

import linecache
import re
import traceback

import pytest

from cpn import BindingError, Delayed, MonitorError, Net, NetError, Simulator
from cpn.monitors import Breakpoint, Monitor, PlaceIntegral


def guarded() -> Net:
    net = Net("g")
    net.place("A", int, initial=[3])
    net.place("B", str, initial=["b"])
    net.transition("T", guard="1/(x-3) > 0", inputs={"A": "x", "B": "y"})
    return net


@pytest.mark.parametrize("call", [lambda sim: sim.run(), lambda sim: sim.enabled()])
def test_a_failing_guard_is_named_with_the_values_bound(call):
    # It said "evaluating its guard or input arcs failed: ZeroDivisionError(...)", then
    # "its guard '1/(x-3) > 0' or its input arcs A -> T 'x', B -> T 'y' failed".
    sim = Simulator(guarded())
    with pytest.raises(BindingError, match=re.escape(
            "transition 'T': evaluating its guard '1/(x-3) > 0' failed with x=3: "
            "ZeroDivisionError('division by zero')")) as raised:
        call(sim)
    assert isinstance(raised.value.__cause__, ZeroDivisionError)


def test_a_failing_input_arc_is_named_alone():
    # It said "evaluating its input arcs K -> T 'k', P -> T 'half(k)' failed".
    net = Net("arcs", env={"half": lambda k: {2: 1}[k]})
    net.place("K", int, initial=[3])
    net.place("P", int, initial=[1])
    net.transition("T", guard="k > 0 and k < 9", inputs={"K": "k", "P": "half(k)"})
    with pytest.raises(BindingError, match=re.escape(
            "transition 'T': evaluating its input arc P -> T 'half(k)' failed with k=3: "
            "KeyError(3)")):
        Simulator(net).run()


@pytest.mark.parametrize("guard, part", [
    ("x > 0 and  10 // (x-1) > 2", "'10 // (x-1) > 2'"),  # as written, not as Python prints it
    ("x > 0 and (x < 5 and\n  10 // (x-1) > 2)", "'x < 5 and\\n  10 // (x-1) > 2'")])
def test_the_part_of_a_guard_that_failed_is_named_as_written(guard, part):
    net = Net("g")
    net.place("P", int, initial=[1])
    net.transition("G", guard=guard, inputs={"P": "x"})
    with pytest.raises(BindingError, match=re.escape(
            f"transition 'G': evaluating its guard {guard!r} (at {part}) failed with x=1: "
            "ZeroDivisionError")):
        Simulator(net).run()


def coded(code: str, colour: type = int, **env) -> Net:
    net = Net("coded", env=env)
    net.place("P", int, initial=[1])
    net.place("Q", colour)
    net.transition("T", code=code, inputs={"P": "x"}, outputs={"Q": "w"})
    return net


@pytest.mark.parametrize("code, said", [
    ("y = x + 1\nz = 10 // (x - 1)\nw = z", "line 2 'z = 10 // (x - 1)'"),
    ("\ny = x + 1  # one\n\nw = half(y)\n", "line 3 'w = half(y)'"),
    ("\n        y = x + 1\n        w = half(y)\n    ", "line 2 'w = half(y)'"),
    ("w = (x +\n     half(x))", "line 2 'half(x))'")])
def test_a_failing_code_segment_is_named_by_its_own_line(code, said):
    # It said "firing T<x=1> at time 0.0 failed: ZeroDivisionError(...)", and the
    # traceback named line 13 of the engine's generated code.
    sim = Simulator(coded(code, half=lambda k: {4: 2}[k]))
    with pytest.raises(BindingError, match=re.escape(
            f"firing T<x=1> at time 0.0 failed: code segment, {said}: ")):
        sim.run()
    assert sim.tokens("P") == [1]


def delayed(arc: str, delay: str | None = None, **env) -> Net:
    net = Net("d", env={"Delayed": Delayed, **env})
    net.place("A", int, initial=[3])
    net.place("P", int, timed=True)
    net.transition("T", delay=delay, inputs={"A": "x"}, outputs={"P": arc})
    return net


@pytest.mark.parametrize("arc, delay, said", [
    ("x@+str(x)", None, "arc T -> P 'x@+str(x)': a delay must be a number >= 0, not '3'"),
    ("x", "str(x)", "delay '@+str(x)': a delay must be a number >= 0, not '3'"),
    ("x@+1", "str(x)", "delay '@+str(x)': a delay must be a number >= 0, not '3'"),
    ("x", "complex(x)", "delay '@+complex(x)': a delay must be a number >= 0, not (3+0j)"),
    ("*[Delayed(x, str(x))]", None,
     "arc T -> P '*[Delayed(x, str(x))]': a delay must be a number >= 0, not '3'"),
    ("x@+name(x)", None, "arc T -> P 'x@+name(x)': a delay must be a number >= 0: TypeError: "
                         "unsupported operand type(s) for +: 'float' and 'str'"),
])
def test_a_delay_that_is_no_number_is_said_as_a_negative_one_is(arc, delay, said):
    # It said "firing T<x=3> ... failed: TypeError("unsupported operand type(s) for +:
    # 'float' and 'str'")", naming neither the arc nor the delay.
    sim = Simulator(delayed(arc, delay, name=str))
    with pytest.raises(BindingError, match=re.escape(
            f"firing T<x=3> at time 0.0 failed: {said}")) as raised:
        sim.run()
    assert isinstance(raised.value.__cause__, TypeError)
    assert sim.tokens("A") == [3] and sim.tokens("P") == []  # nothing taken


def test_a_random_delay_is_not_drawn_again_for_its_message():
    sim = Simulator(delayed("x@+str(rng.random())"))
    with pytest.raises(BindingError, match="a delay must be a number >= 0: TypeError"):
        sim.run()
    fresh = Simulator(delayed("x"))
    fresh.rng.random()  # the firing's one draw
    assert sim.rng.random() == fresh.rng.random()


def test_a_function_that_fails_in_an_output_arc_keeps_its_own_message():
    net = delayed("x@+late(x)", late=lambda x: x + "s")
    with pytest.raises(BindingError, match=re.escape(
            "firing T<x=3> at time 0.0 failed: arc T -> P 'x@+late(x)': TypeError(\"unsupported "
            "operand type(s) for +: 'int' and 'str'\")")):
        Simulator(net).run()


def loop() -> Net:
    net = Net("loop")
    net.place("P", int, initial=[0], timed=True)
    net.transition("T", inputs={"P": "x"}, outputs={"P": "x + 1@+1"})
    return net


@pytest.mark.parametrize("monitor, said", [
    (Breakpoint("T", when=lambda values: values["zz"] > 1),
     "monitor breakpoint on transition T: evaluating it after the firing T<x=0> at time 0.0 "
     "failed: KeyError('zz')"),
    (Breakpoint(place="P", when=lambda tokens: tokens[3]),
     "monitor breakpoint on place P: evaluating it after the firing T<x=0> at time 0.0 "
     "failed: IndexError('list index out of range')"),
    (PlaceIntegral("P", lambda tokens: 1 / (tokens[0] - 2)),
     "monitor PlaceIntegral of place P: evaluating it as the clock moved from 1.0 to 2.0 "
     "failed: ZeroDivisionError('division by zero')"),
])
def test_a_failing_monitor_is_named_with_what_it_was_told(monitor, said):
    # A bare KeyError, IndexError or ZeroDivisionError named no monitor.
    sim = Simulator(loop())
    sim.add_monitor(monitor)
    with pytest.raises(MonitorError, match=re.escape(said)) as raised:
        sim.run(max_steps=5)
    assert type(raised.value.__cause__).__name__ in said


def test_a_failing_stop_when_is_named():
    sim = Simulator(loop())
    with pytest.raises(MonitorError, match=re.escape(
            "stop_when: evaluating it after the firing T<x=0> at time 0.0 failed: "
            "ZeroDivisionError('division by zero')")):
        sim.run(stop_when=lambda s: 1 / (s.tokens("P")[0] - 1))
    assert sim.steps == 1  # the firing happened: the predicate's error is not a binding's


class Follower(Monitor):
    """Follows T with a function that fails on its third firing."""

    def follows(self, sim):
        return {sim.transition_index("T"): lambda t, values: 1 / (values[0] - 2)}


def test_a_failing_function_a_monitor_follows_with_is_named_by_its_monitor():
    sim = Simulator(loop())
    sim.add_monitor(Follower())
    with pytest.raises(MonitorError, match=re.escape(
            "monitor Follower: evaluating it after the firing T<x=2> at time 2.0 failed: "
            "ZeroDivisionError")):
        sim.run(max_steps=5)


def test_a_monitor_failing_as_the_clock_is_advanced_by_hand_is_named():
    sim = Simulator(loop())
    sim.add_monitor(PlaceIntegral("P", lambda tokens: 1 / (tokens[0] - 1)))
    sim.step()
    with pytest.raises(MonitorError, match=re.escape(
            "monitor PlaceIntegral of place P: evaluating it as the clock moved from 0.0 to "
            "1.0 failed")):
        sim.advance()


def test_the_stepper_reports_a_failing_monitor_in_one_line():
    from cpn.stepper import Message, Stepper

    shown = []
    stepper = Stepper(loop(), show=shown.append)
    stepper.simulator.add_monitor(Breakpoint("T", when=lambda values: values["zz"]))
    assert stepper.execute("n 3") is True
    assert Message("error: monitor breakpoint on transition T: evaluating it after the "
                   "firing T<x=0> at time 0.0 failed: KeyError('zz')", "error") in shown


def test_an_indented_code_segment_runs_as_the_firing_runs_it():
    # A triple-quoted segment in indented Python was refused when the net was built
    # ("code segment: unexpected indent"), though a firing dedents it.
    sim = Simulator(coded("""
        y = x + 1
        if y > 1:
            w = y * 10
        else:
            w = 0
    """))
    sim.run()
    assert sim.tokens("Q") == [20]
    with pytest.raises(NetError, match=re.escape(
            "transition 'T', code segment: variable 'u' in ")):
        Simulator(coded("""
            y = x + 1
            w = y + u
        """))


def test_a_string_over_lines_in_a_code_segment_keeps_its_text():
    # The firing indented every line of the segment, those inside a string too:
    # w = """a\nb""" put 'a\n    b'.
    sim = Simulator(coded('w = """a\nb""" + f"""{x}\n  c"""\nw = w + half(x)', str, half=str))
    sim.run()
    assert sim.tokens("Q") == ["a\nb1\n  c1"]
    with pytest.raises(BindingError, match=re.escape(
            "failed: code segment, line 4 'w = half(y)': KeyError")):
        Simulator(coded('y = """a\nb""" + f"""{x}\n  c"""\nw = half(y)', str,
                        half=lambda k: {}[k])).run()


def generated_line(error: BindingError) -> tuple[str, str]:
    """The file name and the line of the firing's frame in its traceback."""
    frame, = (frame for frame in traceback.extract_tb(error.__cause__.__traceback__)
              if frame.name == "_cpn_fire")
    return frame.filename, frame.line


def test_a_traceback_shows_the_generated_line_holding_the_nets_text():
    # The frame of generated code was 'File "<transition T>", line 13, in _cpn_fire'
    # and no line under it.
    with pytest.raises(BindingError) as raised:
        Simulator(coded("y = x + 1\nz = 10 // (x - 1)\nw = z")).run()
    shown = "".join(traceback.format_exception(raised.value))
    assert re.search(r'File "<net \'coded\', transition T \w+>", line \d+, in _cpn_fire\n'
                     r" +z = 10 // \(x - 1\)\n", shown), shown
    linecache.checkcache()  # what a traceback printed later meets: the lines are kept
    assert generated_line(raised.value)[1] == "z = 10 // (x - 1)"


def test_nets_with_a_transition_of_one_name_each_show_their_own_lines():
    said = {}
    for code in ("w = 10 // (x - 1)", "w = half(x)", "w = 10 // (x - 1)"):
        for _ in range(3):  # compiled again: kept once
            with pytest.raises(BindingError) as raised:
                Simulator(coded(code, half=lambda k: {}[k])).run()
            filename, line = generated_line(raised.value)
            assert line == code
            said.setdefault(code, set()).add(filename)
    assert [len(names) for names in said.values()] == [1, 1]
    assert said["w = half(x)"] != said["w = 10 // (x - 1)"]
