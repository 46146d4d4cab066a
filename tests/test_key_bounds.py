"""The lower bound of a queue's key (``cpn/keybounds.py``): a search with
the guard ``size <= free`` gives up before walking the queue when ``free``
is below every job's size, and finds exactly the bindings, in the same
order, that a walk finds.  Each test runs a net twice, with the bound and
with the compiler told to see none, and compares every firing and the
``enabled()`` lists; each adds the tokens a stale bound would miss (a
small job coming after the bound rose), by one of the ways tokens come."""

from __future__ import annotations

import random

import pytest

import cpn.compiler
from cpn import Net, Simulator, timed


def firings(sim: Simulator, steps: int) -> list:
    """Each firing with the enabled bindings before it and the clock (moved
    by :meth:`Simulator.advance` in declared order, else by the firing)."""
    seen = []
    for _ in range(steps):
        enabled = [(b.transition, b.values) for b in sim.enabled()]
        if not enabled and sim.order == "declared" and sim.advance():
            continue
        fired = sim.step()
        if fired is None:
            break
        seen.append((sim.now, enabled, fired.transition, fired.values))
    return seen


def both_ways(make, monkeypatch, steps: int = 400, **options) -> tuple[list, list]:
    """The firings with the bound, then without it."""
    sim = Simulator(make(), **options)
    assert any(t.key is not None for t in sim.transitions), "the bound is not used"
    with_bound = firings(sim, steps)
    with monkeypatch.context() as patch:
        patch.setattr(cpn.compiler, "key_test", lambda steps, held, env: None)
        plain = Simulator(make(), **options)
        assert all(t.key is None for t in plain.transitions)
        without = firings(plain, steps)
    return with_bound, without


def cluster(submit: str = "append", guard: str = "size <= free", nodes: int = 8,
            seed: int = 0) -> Net:
    """Jobs wait in Queue until ``size <= free``; they arrive at their
    submit time: as timed tokens of Queue (``timed``), put by Submit one by
    one into an untimed Queue (``append``) or five at a time into a timed
    one (``splat``)."""
    rng = random.Random(seed)
    jobs = [(i, rng.randint(1, nodes), rng.randint(1, 9)) for i in range(40)]
    net = Net("cluster")
    net.place("Free", int, initial=[nodes])
    net.place("Running", tuple, timed=True)
    net.place("Done", int)
    if submit == "timed":
        net.place("Queue", tuple, timed=True,
                  initial=[timed(job, rng.randint(0, 60)) for job in jobs])
    else:
        net.place("Queue", tuple, initial=jobs[:5], timed=submit == "splat")
        net.place("Source", tuple, timed=True, initial=[
            timed(job, rng.randint(0, 60)) for job in (
                jobs[5:] if submit == "append"
                else [tuple(jobs[k:k + 5]) for k in range(5, 40, 5)])])
        net.transition("Submit")
        net.arc("Source", "Submit", "job" if submit == "append" else "batch")
        net.arc("Submit", "Queue", "job" if submit == "append" else "*batch")
    net.transition("Start", guard=guard)
    net.arc("Queue", "Start", "(job, size, runtime)")
    net.arc("Free", "Start", "free")
    net.arc("Start", "Running", "(job, size, runtime)@+runtime")
    net.arc("Start", "Free", "free - size")
    net.transition("Finish")
    net.arc("Running", "Finish", "(job, size, runtime)")
    net.arc("Free", "Finish", "free")
    net.arc("Finish", "Done", "job")
    net.arc("Finish", "Free", "free + size")
    return net


@pytest.mark.parametrize("submit", ["append", "timed", "splat"])
@pytest.mark.parametrize("order", ["random", "declared"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_same_firings_and_enabled_lists_as_walking_the_queue(submit, order, seed,
                                                                 monkeypatch):
    with_bound, without = both_ways(lambda: cluster(submit, seed=seed), monkeypatch,
                                    seed=seed, order=order)
    assert with_bound == without
    assert sorted(v["job"] for *_, t, v in with_bound if t == "Start") == list(range(40))


def test_the_bound_stays_below_every_waiting_size_and_refuses_a_full_machine():
    sim = Simulator(cluster("timed"), order="declared")
    slot = next(t.key.slot for t in sim.transitions if t.key is not None)
    refused, available = 0, sim._R[sim.place_index("Queue")]  # not those yet to come
    while sim.step() is not None:
        sizes = [size for _, size, _ in available]
        assert sim._lo[slot] <= min(sizes, default=float("inf"))
        refused += sim.tokens("Free")[0] < sim._lo[slot]
    assert sorted(sim.tokens("Done")) == list(range(40))
    assert refused > 10  # searches the bound cut short (without a walk)


def test_a_restored_checkpoint_and_an_undo_bring_the_bound_back_down():
    net = Net("restore")
    net.place("Queue", tuple, initial=[(0, 1, 5), (1, 6, 5), (2, 7, 5)])
    net.place("Free", int, initial=[1])
    net.place("Done", tuple)
    net.transition("Start", guard="size <= free")
    net.arc("Queue", "Start", "(job, size, runtime)")
    net.arc("Free", "Start", "free")
    net.arc("Start", "Done", "(job, size, runtime)")
    net.arc("Start", "Free", "free")
    sim = Simulator(net)
    state = sim.checkpoint()
    first = {"free": 1, "job": 0, "size": 1, "runtime": 5}
    assert sim.fire().values == first
    assert sim.enabled() == [] and sim._lo == [6]  # exact after a vain walk
    sim.restore(state)
    assert [b.values for b in sim.enabled()] == [first]
    sim.fire()
    assert sim.undo() and [b.values for b in sim.enabled()] == [first]


@pytest.mark.parametrize("guard, keyed", [
    ("size <= free", True), ("free >= size", True), ("size < free + 1", False),
    ("size + 0 <= free", False), ("free > size and size > 0", True),
    ("size > 0 and size <= free", False), ("size <= free <= 64", False)])
def test_only_a_plain_comparison_tested_first_is_keyed_and_the_others_fall_back(
        guard, keyed, monkeypatch):
    def make() -> Net:
        return cluster("append", guard)

    sim = Simulator(make())
    assert (sim.transitions[1].key is not None) == keyed
    assert ("_cpn_lo[" in sim.transitions[1].source) == keyed
    if keyed:
        with_bound, without = both_ways(make, monkeypatch)
        assert with_bound == without


def test_a_key_that_is_not_a_number_turns_the_bound_off():
    net = Net("strings")
    net.place("Queue", str, initial=["b", "c"])
    net.place("Limit", str, initial=["a"])
    net.place("Later", str, initial=["a"], timed=True)
    net.place("Done", str)
    net.transition("Take", guard="x <= limit")
    net.arc("Queue", "Take", "x")
    net.arc("Limit", "Take", "limit")
    net.arc("Take", "Done", "x")
    net.arc("Take", "Limit", "limit")
    net.transition("Add")
    net.arc("Later", "Add", "y")
    net.arc("Add", "Queue", "y")
    sim = Simulator(net, order="declared")
    assert sim.transitions[0].key is not None and sim._lo == [float("-inf")]
    sim.run()
    assert sim.tokens("Done") == ["a"]
