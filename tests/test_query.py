"""Each query operator on tiny nets whose state spaces are checked by hand,
with the counterexamples they give, printed and replayed."""

from __future__ import annotations

import pytest

from cpn import Net, timed
from cpn.query import (QueryError, after, always, changes, clock, count, dead, eventually,
                       fires, leads_to, never, reachable, step, token, tokens, where)
from cpn.statespace import state_space
from cpn.trace import replay

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from fusion_nets import logging_workers
except ImportError:  # run as a package
    from tests.fusion_nets import logging_workers


def counter_with_reset() -> Net:
    """P counts 0 -> 1 -> 2 -> 3 (dead); at 2 it may also reset to 0."""
    net = Net("counter")
    net.place("P", int, initial=[0])
    net.transition("Inc", guard="x < 3")
    net.arc("P", "Inc", "x")
    net.arc("Inc", "P", "x + 1")
    net.transition("Reset", guard="x == 2")
    net.arc("P", "Reset", "x")
    net.arc("Reset", "P", "0")
    return net


def fork() -> Net:
    """A token goes Left (then Done) or Right, where it is stuck."""
    net = Net("fork")
    for place in ("Start", "Left", "Right", "Done"):
        net.place(place, int, initial=[1] if place == "Start" else [])
    for name, source, target in (("GoLeft", "Start", "Left"), ("GoRight", "Start", "Right"),
                                 ("Finish", "Left", "Done")):
        net.transition(name)
        net.arc(source, name, "x")
        net.arc(name, target, "x")
    return net


def transitions(path) -> list[str]:
    return [firing.transition for firing in path.firings]


def test_always_gives_the_shortest_path_to_a_bad_state():
    space = state_space(counter_with_reset())
    verdict = always(token("P") < 3).check(space)
    assert verdict.holds is False
    assert transitions(verdict.counterexample) == ["Inc", "Inc", "Inc"]
    assert verdict.counterexample.end["P"] == [3]
    assert str(verdict) == "always P < 3: FAILS: state 3, after 3 firings, at time 0"
    assert always(token("P") <= 3).check(space).holds is True
    assert always(count("P") == 1).check(space).holds is True


def test_never_and_reachable_are_each_others_mirror():
    space = state_space(counter_with_reset())
    failed, found = never(token("P") == 3).check(space), reachable(token("P") == 3).check(space)
    assert failed.holds is False and found.holds is True
    assert transitions(failed.path) == transitions(found.path) == ["Inc"] * 3
    assert found.counterexample is None  # a witness, not a counterexample
    missing = reachable(token("P") == 4).check(space)
    assert (missing.holds, missing.path, missing.reason) == (False, None, "none of the 4 states")
    assert never(token("P") == 4).check(space).holds is True


def test_eventually_fails_on_a_cycle_that_avoids_it():
    space = state_space(counter_with_reset())
    verdict = eventually(token("P") == 3).check(space)
    assert verdict.holds is False
    path = verdict.counterexample
    assert transitions(path) == ["Inc", "Inc", "Reset"] and path.loop_from == 0
    assert "goes round a cycle for ever (back to the state after 0 firings)" in verdict.reason
    assert "-- from here the run repeats for ever --" in path.timeline()
    assert eventually(token("P") >= 1).check(space).holds is True
    assert eventually(dead).check(space).holds is False


def test_eventually_fails_on_a_run_that_stops_short():
    space = state_space(fork())
    verdict = eventually(count("Done") == 1).check(space)
    assert verdict.holds is False and verdict.path.loop_from is None
    assert transitions(verdict.path) == ["GoRight"]
    assert str(verdict) == ("eventually count(Done) == 1: FAILS: a run that stops at time 0 "
                            "without it")
    assert eventually(dead).check(space).holds is True
    assert reachable(count("Done") == 1).check(space).holds is True


def test_leads_to_starts_its_counterexample_where_the_cause_holds():
    space = state_space(counter_with_reset())
    assert leads_to(token("P") == 1, token("P") == 2).check(space).holds is True
    verdict = leads_to(token("P") == 2, token("P") == 3).check(space)
    assert verdict.holds is False
    assert transitions(verdict.path) == ["Inc", "Inc", "Reset", "Inc", "Inc"]
    assert verdict.path.loop_from == 2  # the cycle starts at the state where P is 2
    fork_space = state_space(fork())
    stuck = leads_to(count("Start") == 0, count("Done") == 1).check(fork_space)
    assert stuck.holds is False and transitions(stuck.path) == ["GoRight"]


def test_step_properties_name_the_arc_that_breaks_them():
    space = state_space(counter_with_reset())
    verdict = always(changes(token("P")).implies(after(token("P") > 0))).check(space)
    assert verdict.holds is False
    assert transitions(verdict.path) == ["Inc", "Inc", "Reset"]
    assert "the step Reset<x=2> from state 2 to 0" in verdict.reason
    assert never(fires("Reset") & after(token("P") != 0)).check(space).holds is True


def test_predicates_print_as_they_read():
    assert str((count("Finished") == 4) & ~dead) == "count(Finished) == 4 and not dead"
    assert str(always(token("Power") <= 350)) == "always Power <= 350"
    assert str(leads_to(tokens("Queue").contains(3), clock >= 10)) == \
        "3 in tokens(Queue) leads to now >= 10"
    assert str(where(lambda m: True, "anything").implies(token("P") + 1 > 2)) == \
        "anything implies (P + 1) > 2"


def test_token_refuses_a_place_of_several_tokens():
    space = state_space(fork())
    with pytest.raises(ValueError, match=r"token\('Left'\): the place holds 0 tokens at "
                                         r"time 0; token\(\) reads a place of exactly one"):
        always(token("Left") == 1).check(space)


def test_a_predicate_that_fails_names_the_query_and_the_state():
    space = state_space(fork())
    with pytest.raises(QueryError, match=r"^reachable Start > 'x': in state 0, at time 0: "
                                         r"TypeError: '>' not supported") as error:
        reachable(token("Start") > "x").check(space)
    assert error.value.detail.startswith("in state 0, at time 0: TypeError")
    oops = step(lambda before, firing, after: after["Done"][0], "oops")
    with pytest.raises(QueryError, match=r"^always oops: in the step GoLeft<x=1> from state 0 "
                                         r"to 1: IndexError"):
        always(oops).check(space)


def test_an_incomplete_graph_leaves_a_holding_query_unknown():
    net = Net("grow")
    net.place("P", int, initial=[0])
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "P", "x + 1")
    space = state_space(net, max_states=5)
    assert not space.complete
    unknown = always(token("P") >= 0).check(space)
    assert unknown.holds is None
    assert unknown.reason == ("no state breaks it among the 5 states explored, but the graph "
                              "is incomplete (stopped at the maximum of 5 states (max_states))")
    assert always(token("P") < 3).check(space).holds is False  # found: settled
    assert eventually(token("P") == 100).check(space).holds is None


def test_an_unknown_verdict_says_what_was_found():
    # eventually said 'every path reaches it among the 5 states explored' of
    # states that no explored state satisfied
    net = Net("upto")
    net.place("P", int, initial=[0])
    net.transition("Inc", guard="x < 1000")
    net.arc("P", "Inc", "x")
    net.arc("Inc", "P", "x + 1")
    space = state_space(net, max_states=5)
    incomplete = "the graph is incomplete (stopped at the maximum of 5 states (max_states))"
    for query, reason in [
            (eventually(token("P") == 100), "none of the 5 states explored satisfies it"),
            (eventually(dead), "none of the 5 states explored satisfies it"),
            (leads_to(token("P") >= 1, token("P") >= 9), "no path explored avoids it for ever"),
            (leads_to(token("P") == 1, token("P") == 3),
             "every such state among the 5 explored reaches it")]:
        verdict = query.check(space)
        assert (verdict.holds, verdict.reason) == (None, f"{reason}, and the states not "
                                                         f"explored are not known: {incomplete}")
    settled = eventually(token("P") == 3).check(space)  # every path reaches it, explored
    assert settled.holds is True and settled.reason.startswith("every path reaches it within "
                                                               "the 5 states explored")


def ticker() -> Net:
    """A timed token ticks every 5 until 15, then Stop fires."""
    net = Net("ticker")
    net.place("Clock", int, initial=[timed(0, 0)], timed=True)
    net.place("Stopped", float)
    net.transition("Tick", guard="n < 3")
    net.arc("Clock", "Tick", "n")
    net.arc("Tick", "Clock", "n + 1@+5")
    net.transition("Stop", guard="n == 3")
    net.arc("Clock", "Stop", "n")
    net.arc("Stop", "Stopped", "now")
    return net


def test_a_timed_counterexample_replays_to_the_same_marking(tmp_path):
    net = ticker()
    space = state_space(net)
    assert space.timed and space.complete and space.states == 8  # 4 ticks, 3 waits, stop
    verdict = never(count("Stopped") == 1).check(space)
    path = verdict.counterexample
    assert [str(f) for f in path.firings] == [
        "Tick<n=0>", "time advances to 5", "Tick<n=1>", "time advances to 10",
        "Tick<n=2>", "time advances to 15", "Stop<n=3>"]
    assert path.timeline().splitlines()[-1] == "        15      4  Stop<n=3>"
    trace = tmp_path / "counterexample.jsonl"
    assert path.save(trace, net="ticker") == 4
    replayed = replay(net, trace)
    assert replayed.now == 15 and replayed.marking["Stopped"] == [15.0]
    assert eventually(count("Stopped") == 1).check(space).holds is True


def logged_work() -> Net:
    """W1 on a queue of two jobs, its Log fused with AllLog."""
    return logging_workers({"Queue": [1, 2]})


@pytest.mark.parametrize("name", ["log", "AllLog", "W1/Log"])
def test_a_query_names_a_fused_place_by_any_name_the_simulator_takes(name):
    # count("W1/Log") was "QueryError ... the net has no place 'W1/Log'".
    space = state_space(logged_work())
    assert always(count(name) <= 2).check(space).holds is True
    assert never(count(name) > 2).check(space).holds is True
    assert reachable(tokens(name).contains(2)).check(space).holds is True
    assert space.place_bound(name) == 2
    assert always(count("W1/Jobs") + count(name) == 2).check(space).holds is True


def test_a_query_text_takes_every_name_of_a_place_and_refuses_another():
    from cli.check import chosen_queries
    from cpn.query.text import QuerySyntaxError

    net = logged_work()
    names = net.flatten().place_names()
    chosen = chosen_queries(["always count(W1/Log) <= 2", "reachable count(AllLog) == 2"],
                            {}, names)
    space = state_space(net)
    assert [query.check(space).holds for query in chosen.values()] == [True, True]
    with pytest.raises(QuerySyntaxError, match="the net has no place 'W2/Log'"):
        chosen_queries(["always count(W2/Log) <= 2"], {}, names)
    with pytest.raises(QueryError, match="the net has no place 'W2/Log'"):
        always(count("W2/Log") <= 2).check(space)
