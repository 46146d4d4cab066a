"""Simulator.run checks what it is told to stop at before it fires: a NaN
time or a negative count is refused, not ignored, and the clock stays a
float wherever a run stops."""

import re

import numpy as np
import pytest

from cpn import Net, Simulator, StopReason


def tick():
    """One token counting up, each firing 2 time units after the last."""
    net = Net("tick")
    net.place("P", int, initial=[0], timed=True)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "P", "x + 1@+2")
    return net


def test_a_nan_until_time_is_refused_before_any_firing():
    sim = Simulator(tick())
    with pytest.raises(ValueError, match=r"until_time must be a time on the clock "
                                         r"\(a number\), not nan"):
        sim.run(until_time=float("nan"), max_steps=5)  # it used to run the 5 steps
    assert (sim.now, sim.steps) == (0.0, 0)


@pytest.mark.parametrize("until_time", ["6", True, [6]])
def test_an_until_time_that_is_not_a_number_is_refused(until_time):
    refusal = f"until_time must be .*, not {re.escape(repr(until_time))}"
    with pytest.raises(ValueError, match=refusal):
        Simulator(tick()).run(until_time=until_time)


@pytest.mark.parametrize("max_steps", [-1, 2.5, 5.0, "5", True])
def test_a_max_steps_that_is_not_a_whole_number_0_or_more_is_refused(max_steps):
    sim = Simulator(tick())
    with pytest.raises(ValueError, match=r"max_steps must be a whole number of firings, "
                                         rf"0 or more, not {max_steps!r}"):
        sim.run(max_steps=max_steps)  # -1 used to stop at once, as if the steps were done
    assert (sim.now, sim.steps) == (0.0, 0)


def test_max_steps_of_0_and_any_integer_type_are_taken():
    sim = Simulator(tick())
    assert sim.run(max_steps=0) == sim.run(max_steps=np.int64(0))
    assert sim.run(max_steps=0).reason is StopReason.STEPS and sim.steps == 0
    assert sim.run(max_steps=np.int64(2)).steps == 2


def test_an_int_until_time_leaves_the_clock_a_float():
    sim = Simulator(tick())
    result = sim.run(until_time=6)
    assert result.reason is StopReason.TIME and result.steps == 4
    assert type(result.time) is float and type(sim.now) is float and sim.now == 6.0
    sim.advance(7)  # the next token is due at 8: the clock stops at 7
    assert type(sim.now) is float and sim.now == 7.0
    assert type(sim.run(until_time=np.int64(9)).time) is float


def test_an_infinite_until_time_runs_as_none_does():
    assert Simulator(tick()).run(until_time=float("inf"), max_steps=3) == \
        Simulator(tick()).run(max_steps=3)


def test_advance_says_whether_tokens_became_available():
    # Its docstring said False meant "nothing lies ahead", but it also said False
    # when the clock moved to until_time short of the next token.
    sim = Simulator(tick())
    sim.fire()  # the next token is due at 2
    assert sim.advance(1) is False and sim.now == 1.0 and not sim.enabled()
    assert sim.advance(0.5) is False and sim.now == 1.0  # never back
    assert sim.advance(2) is True and sim.now == 2.0 and sim.enabled()
    visited = []
    sim.run(max_steps=1)
    while sim.advance(9):
        visited.append(sim.now)
        sim.run(max_steps=1)
    assert visited == [4.0, 6.0, 8.0] and sim.now == 9.0
    dead = Net("dead")
    dead.place("P", int, initial=[1])
    sim = Simulator(dead)
    assert sim.advance() is False and sim.advance(5) is False and sim.now == 0.0


def test_advance_refuses_a_nan_until_time():
    sim = Simulator(tick())
    sim.fire()
    with pytest.raises(ValueError, match="until_time must be .*, not nan"):
        sim.advance(float("nan"))  # it used to move the clock to 2 regardless
    assert sim.now == 0.0
