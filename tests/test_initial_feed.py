"""The initial marking's future tokens join the heap of future tokens one
at a time, in their order: a trace of a million jobs does not make every
release sift through a million entries, and nothing a user sees changes."""

import random

from cpn import Net, Simulator, timed


def arrivals(times, seed=1):
    """Jobs (numbered by arrival time) that arrive in place Waiting at
    ``times``, given shuffled; Start moves each to Done with its clock."""
    order = list(enumerate(times))
    random.Random(seed).shuffle(order)
    net = Net("arrivals")
    net.place("Waiting", int, timed=True, initial=[timed(job, at) for job, at in order])
    net.place("Done", tuple)
    net.transition("Start", inputs={"Waiting": "job"}, outputs={"Done": "(job, now)"})
    return net


def test_only_the_next_initial_future_token_waits_in_the_heap():
    sim = Simulator(arrivals([float(t) for t in range(1, 1001)]))
    assert len(sim._heap) == 1  # the one at 1: the 999 others wait in order
    sim.run(until_time=500)
    assert len(sim._heap) == 1 and sim.next_event_time() == 501
    assert len(sim._initial) == 499  # those released are let go (a million jobs' worth)


def test_every_future_token_is_in_the_marking_and_released_in_time_order():
    times = [float(t // 3) for t in range(3, 300)]  # three arrivals an instant
    sim = Simulator(arrivals(times))
    assert sorted(sim.tokens("Waiting")) == list(range(len(times)))
    assert [at for _, at in sim.marking.timed("Waiting")] == sorted(times)
    sim.run()
    done = sim.tokens("Done")
    assert sorted(done) == [(job, at) for job, at in enumerate(times)]
    assert [at for _, at in done] == sorted(times)


def test_a_checkpoint_taken_midway_gives_back_the_initial_tokens_not_yet_released():
    sim = Simulator(arrivals([float(t) for t in range(1, 201)]), seed=3)
    sim.run(until_time=80)
    checkpoint, frozen, marking = sim.checkpoint(), sim.freeze(), sim.marking
    sim.run()
    end = sim.freeze()
    assert sim.tokens("Waiting") == []
    sim.restore(checkpoint)
    assert sim.freeze() == frozen and sim.marking == marking
    assert len(sim.tokens("Waiting")) == 120
    sim.run()
    assert sim.freeze() == end
