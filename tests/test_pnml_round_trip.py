"""A net written to PNML reads back as the same net: code segments,
``*iterable`` outputs with ``Delayed``, time, priorities and the order of
initial tokens survive (the engine's ``<toolspecific tool="cpn">`` data,
``cpn.pnml_engine``), so the PuPPET net read back schedules as the
original.  What the reader would refuse, the exporter refuses first, by
name; the engine's data is held to the reader's rules like the rest."""

from __future__ import annotations

import random
import re
import sys
from dataclasses import dataclass, make_dataclass

import pytest
from hypothesis import HealthCheck, given, settings

from cpn import P_HIGH, Net, NetError, Simulator, timed
from cpn.colours import FrozenDict
from cpn.pnml import PnmlError, from_pnml
from cpn.snakes_bridge import to_pnml
from modules.job import Job
from nets.puppet import PuppetConfig, build_net, run_model

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from test_engine_properties import net_specs
except ImportError:  # tests/ imported as a package
    from tests.test_engine_properties import net_specs


def firings(net: Net, steps: int = 200, seed: int = 1, marking=None) -> list[tuple]:
    sim = Simulator(net, seed=seed, marking=marking)
    fired = []
    while len(fired) < steps and (binding := sim.step()) is not None:
        fired.append((sim.now, str(binding)))
    return fired


def test_a_code_segment_comes_back_and_runs_the_same():
    net = Net("m4")
    net.place("A", int, initial=[3])
    net.place("B", int)
    net.transition("T", code="y = x*2")
    net.arc("A", "T", "x")
    net.arc("T", "B", "y")
    back = from_pnml(to_pnml(net))
    assert back.transitions["T"].code == "y = x*2"
    assert [(a.source, a.target, a.inscription) for a in back.arcs] == [
        ("A", "T", "x"), ("T", "B", "y")]
    sim = Simulator(back)
    sim.run()
    assert sim.marking["B"] == [6]
    # Several results, a guard, the clock: the code runs as the engine runs it.
    net = Net("code", env={"LIMIT": 9})
    net.place("P", int, initial=[1, 2], timed=True)
    net.place("Q", tuple)
    net.transition("T", guard="x < LIMIT", code="y = x + 1\nz = (y, now)", delay="x")
    net.arc("P", "T", "x")
    net.arc("T", "P", "y * 2")
    net.arc("T", "Q", "z ++ (x, 0)")
    back = from_pnml(to_pnml(net))
    assert back.transitions["T"].code == "y = x + 1\nz = (y, now)"
    assert firings(back) == firings(net) and len(firings(net)) == 4


def test_a_delayed_iterable_comes_back_with_its_delays():
    net = Net("spread")
    net.place("P", int, initial=[1, 4], timed=True)
    net.place("Q", int, timed=True)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "Q", "*[Delayed(x, 2), x + 1, Delayed(x + 2, 5)]")
    text = to_pnml(net)
    assert "<flush>_cpn_untimed_all(" in text  # SNAKES' view: the delays stripped
    back = from_pnml(text)
    assert back.arcs[1].inscription == "*[Delayed(x, 2), x + 1, Delayed(x + 2, 5)]"
    ours, theirs = Simulator(net), Simulator(back)
    ours.run()
    theirs.run()
    assert sorted(theirs.marking.timed("Q")) == sorted(ours.marking.timed("Q")) == [
        (1, 2.0), (2, 0.0), (3, 5.0), (4, 2.0), (5, 0.0), (6, 5.0)]


def test_time_priorities_and_the_order_of_tokens_come_back():
    tokens = [timed(2, 5.0), timed(1, 0.0), timed(2, 1.5), timed(1, 9.0)]
    net = Net("order")
    net.place("Jobs", int, initial=tokens, timed=True)
    net.place("Seen", initial=[(), FrozenDict({1: frozenset({2})})])
    net.place("Flags", initial=[True, 1, 1.0, "1"], timed=True)
    net.transition("Take", priority=P_HIGH)
    net.arc("Jobs", "Take", "j")
    net.arc("Seen", "Take", "seen")
    net.arc("Take", "Seen", "seen + (j, now) if isinstance(seen, tuple) else seen")
    net.transition("Flip", delay=2)
    net.arc("Flags", "Flip", "f")
    net.arc("Flip", "Flags", "f")
    back = from_pnml(to_pnml(net))
    for name, place in net.places.items():
        assert back.places[name].initial == place.initial
        assert back.places[name].timed == place.timed
    assert [type(token) for token in back.places["Flags"].initial] == [bool, int, float, str]
    assert type(back.places["Seen"].initial[1]) is FrozenDict
    assert back.transitions["Take"].priority == P_HIGH
    assert back.transitions["Flip"].delay == "2"
    for seed in range(3):
        assert firings(back, 40, seed) == firings(net, 40, seed)


def puppet_jobs(count: int, seed: int = 7) -> list[Job]:
    """Jobs arriving about a minute apart on a 64-node machine: enough of
    them wait that EASY backfills."""
    choose = random.Random(seed)
    jobs, submit = [], 0.0
    for number in range(1, count + 1):
        submit += choose.expovariate(1 / 60)
        runtime = round(choose.uniform(30, 3000), 1)
        jobs.append(Job(number, round(submit, 1), runtime, choose.choice([1, 4, 16, 32, 64]),
                        round(runtime * choose.uniform(1, 3), 1), jp=100.0))
    return jobs


def test_the_puppet_net_comes_back_with_the_same_schedule():
    config = PuppetConfig(64)
    net = build_net(config)
    env = {name: value for t in net.flatten().transitions for name, value in t.env.items()}
    back = from_pnml(to_pnml(net), env={**env, "Job": Job})
    assert back.transitions["Scheduler/Schedule"].code == \
        "started, waiting = schedule(queue, running, free, now)"
    colours = {place.path: place.place.colour for place in net.flatten().places}
    assert {name: place.colour for name, place in back.places.items()} == colours
    assert colours["Scheduler/User"] is Job and colours["Power"] is float
    jobs = puppet_jobs(300)
    ours, _ = run_model(net, jobs, config)
    theirs, _ = run_model(back, jobs, config)
    starts = list(ours.jobs["start"])
    assert list(theirs.jobs["start"]) == starts and len(starts) == 300
    assert list(theirs.jobs["end"]) == list(ours.jobs["end"])
    assert sum(start > job.st for start, job in zip(starts, jobs)) > 100  # jobs waited


@dataclass(frozen=True)
class Checkpoint:
    job: int
    work: float


def record_net() -> Net:
    net = Net("records", env={"later": lambda job: job.st + 1})
    net.place("P", Job, initial=[timed(Job(1, 0, 10, 1, 10), 2.5), Job(2, 0, 5, 4, 9)],
              timed=True)
    net.place("Q", Job, timed=True)
    net.place("Held", tuple, initial=[(Job(3, 1, 2, 1, 2), Checkpoint(3, float("nan"))), ()])
    net.place("Saved", FrozenDict, initial=[FrozenDict({3: Checkpoint(3, float("inf"))})])
    net.place("Set", frozenset, initial=[frozenset({Checkpoint(4, 1.0)})])
    net.transition("T", inputs={"P": "job"}, outputs={"Q": "job@+later(job)"})
    return net


def test_record_tokens_come_back_as_the_terms_that_build_them():
    # They were refused: "initial token Job(...) is not a plain value ... PNML would
    # hold it pickled, and cpn.pnml never unpickles".
    net = record_net()
    text = to_pnml(net)
    assert "<term>Job(id=1, st=0, rt=10, js=1, wt=10" in text
    back = from_pnml(text, env={"later": net.env["later"], "Job": Job, "Checkpoint": Checkpoint})
    for name, place in net.places.items():
        assert repr(back.places[name].initial) == repr(place.initial)  # nan included
    assert firings(back) == firings(net)


def test_a_record_token_needs_its_type_from_env():
    untyped = re.sub(r"\s*<colour>.*?</colour>", "", to_pnml(record_net()))  # P's is Job too
    with pytest.raises(PnmlError, match=re.escape(
            "place 'P': token 'Job(id=1, st=0, rt=10, js=1, wt=10")) as raised:
        from_pnml(untyped, env={"Checkpoint": Checkpoint}, source="jobs.pnml")
    assert str(raised.value).startswith("jobs.pnml, line ")
    assert str(raised.value).endswith("is built by Job, which env does not give: "
                                      "from_pnml(..., env={'Job': Job})")


class Opaque:
    """Hashable, but no record: no fields to write."""


def record_token() -> Net:
    net = Net("records")
    net.place("P", initial=[Opaque()])
    return net


def same_names() -> Net:
    other = make_dataclass("Checkpoint", ["job"], frozen=True)  # as a notebook may make
    net = Net("records")
    net.place("P", initial=[(Checkpoint(1, 1.0), other(2))])
    return net


def local_record() -> Net:
    @dataclass(frozen=True)
    class Local:
        n: int

    net = Net("records")
    net.place("P", initial=[Local(1)])
    return net


def comprehension() -> Net:
    net = Net("spread")
    net.place("A", int, initial=[3])
    net.place("B", int, timed=True)
    net.transition("T")
    net.arc("A", "T", "n")
    net.arc("T", "B", "*[Delayed(i, 1) for i in range(n)]")
    return net


def two_modules_one_name() -> Net:
    top = Net("top")
    top.place("P", int, initial=[1])
    for name, step in (("Half", 2), ("Third", 3)):
        module = Net(name, env={"step": step})
        module.place("In", int, port="in")
        module.transition("Go")
        module.arc("In", "Go", "x")
        module.place("Out", int)
        module.arc("Go", "Out", "x // step")
        top.substitution(name, module, {"In": "P"})
    return top


@pytest.mark.parametrize("build, refused", [
    (record_token, r"^place 'P': initial token <.*Opaque object at .*>: its type, Opaque, is "
                   r"neither plain .* so PNML has no term for it; or give it in the marking "
                   r"the simulator of the net read back starts from"),
    (same_names, r"^place 'P': initial token .*: two record types are named Checkpoint, which "
                 r"a term of PNML cannot tell apart: rename one"),
    (local_record, r"^place 'P': initial token .*Local\(n=1\): SNAKES' view of the net holds "
                   r"it pickled, and pickle says: .*local.* \(define its type at the top level "
                   r"of a module\)"),
    (comprehension, r"^transition 'T', arc T -> B: a comprehension in "
                    r"'\*\[Delayed\(i, 1\) for i in range\(n\)\]' would not read back from "
                    r"PNML, whose reader \(cpn\.pnml\) refuses it: a net read from a file "
                    r"defines no functions"),
    (two_modules_one_name, r"^transitions 'Half/Go' and 'Third/Go': their modules bind 'step' "
                           r"to different values, but a PNML net has one namespace"),
])
def test_what_the_reader_would_refuse_the_exporter_refuses_first(build, refused):
    with pytest.raises(NetError, match=refused):
        to_pnml(build())


def coded() -> str:
    net = Net("coded")
    net.place("P", int, initial=[timed(1, 0.5)], timed=True)
    net.transition("T", code="y = x + 1", delay="1", priority=P_HIGH)
    net.arc("P", "T", "x")
    net.arc("T", "P", "y@+2")
    return to_pnml(net)


@pytest.mark.parametrize("old, new, refused", [
    ("<code>y = x + 1</code>", "<code>y = __import__('os').system('true')</code>",
     r"<transition id='T'>: '__import__' in .* reaches outside the net"),
    ("<code>y = x + 1</code>", "<code>for y in (x,): pass</code>",
     r"<transition id='T'>: 'For' in .* reaches outside the net"),
    ("<delay>1</delay>", "<delay>eval('1')</delay>",
     r"<transition id='T'>: 'eval' in .* reaches outside the net"),
    ("<priority>100</priority>", "<priority>high</priority>",
     r"<priority>: 'high' is not a whole number"),
    ("<inscription>y@+2</inscription>", "<inscription>y@+len(_cpn_heap)</inscription>",
     r"<arc id='T:P'>: '_cpn_heap' in 'y@\+len\(_cpn_heap\)' reaches outside the net"),
    ('<token at="0.5">', '<token at="soon">', r"<token>: place 'P': timestamp 'soon' is not"),
    ('tool="cpn"', 'tool="other"', r"<toolspecific>: unsupported: this reader reads one "
                                   r"<toolspecific tool='cpn'> of version '1' or '2', not "
                                   r"tool='other' version='2'"),
    ('version="2"', 'version="3"', r"<toolspecific>: unsupported: .* not tool='cpn' "
                                   r"version='3'"),
])
def test_the_engine_data_is_held_to_the_readers_rules(old, new, refused):
    text = coded()
    assert old in text
    with pytest.raises(PnmlError, match=r"^evil\.pnml, line \d+, " + refused):
        from_pnml(text.replace(old, new, 1), source="evil.pnml")


def test_without_the_engine_data_the_snakes_helpers_are_refused():
    """A file that lost the engine's data reads as SNAKES' view, where the
    helper a code segment's results come from is outside the net."""
    text = re.sub(r"\s*<toolspecific.*?</toolspecific>", "", coded(), flags=re.S)
    with pytest.raises(PnmlError, match=r"<arc id='T:P'>: '_cpn_code_0' in '_cpn_code_0\(x\)"
                                        r"\[0\]' reaches outside the net"):
        from_pnml(text)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="snakes.pnml.loads needs "
                                                        "pkgutil.ImpImporter (gone in 3.12)")
def test_snakes_skips_the_engine_data():
    import snakes.pnml
    loaded = snakes.pnml.loads(coded())
    assert [place.name for place in loaded.place()] == ["P"]
    assert [transition.name for transition in loaded.transition()] == ["T"]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(spec=net_specs(exprs_ok=False, parallel_arcs=False, now_guards=True))
def test_random_timed_nets_come_back_firing_the_same(spec):
    """Timed places and tokens, delays, priorities, guards on the clock:
    the same firings at the same times."""
    net = spec.build()
    assert firings(from_pnml(to_pnml(net)), 30) == firings(net, 30)
