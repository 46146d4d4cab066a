"""A ``#`` comment in any inscription text is a comment, nothing more: the
compiler must not let it swallow the code it writes around the text, nor
split a multiset on a ``++`` or an ``@+`` written in it."""

from __future__ import annotations

from cpn import Net, Simulator
from cpn.inscription import parse_terms


def commented_net() -> Net:
    net = Net("commented")
    net.place("Jobs", tuple, initial=[(1, 3), (2, 5)])
    net.place("Free", int, initial=[4])
    net.place("Running", tuple, timed=True)
    net.place("Log", str)
    net.transition("Start", guard="size <= free  # it fits",
                   delay="size  # one time unit per node\n",
                   code="waited = now  # the clock, read when it fires\n")
    net.arc("Jobs", "Start", "(job, size)  # one job")
    net.arc("Free", "Start", "free")
    net.arc("Start", "Free", "free - size  # nodes left ++ none @+ never")
    net.arc("Start", "Running", "(job, waited)@+1  # a 'quoted' word")
    net.arc("Start", "Log", "*[str(job)] # every job's name\n ++ 2`'start'  # twice")
    return net


def test_comments_in_guards_delays_code_and_arcs_compile_and_run():
    sim = Simulator(commented_net(), order="declared")
    sim.run()
    # job 1 (size 3) fits in 4 nodes, job 2 (size 5) never does; the
    # token is delayed by the transition's size 3 plus the arc's 1
    assert sim.marking.timed("Running") == [((1, 0.0), 4.0)]
    assert sim.tokens("Free") == [1]
    assert sorted(sim.tokens("Log")) == ["1", "start", "start"]


def test_a_comment_does_not_split_a_multiset():
    terms = parse_terms("x  # not ++ y, nor @+ 3, and don't\n ++ 2`y@+1  # it's y")
    assert [(t.expr.split("#")[0].strip(), t.multiplicity, t.delay and t.delay.split("#")[0].strip())
            for t in terms] == [("x", 1, None), ("y", 2, "1")]
