"""What keeps the engine's hot loop short, held as behaviour: no search
that cannot succeed, and tuple patterns bound in one unpacking."""

from __future__ import annotations

from cpn import Net, Simulator


def one_token_loop() -> Net:
    net = Net("loop")
    net.place("P", int, initial=[0], timed=True)
    net.transition("T", guard="x < 10")
    net.arc("P", "T", "x")
    net.arc("T", "P", "x + 1@+5")
    return net


def test_a_firing_that_empties_its_input_place_is_not_followed_by_a_doomed_search():
    sim = Simulator(one_token_loop())
    searched = []
    search = sim._search[0]
    sim._search[0] = lambda now, out: searched.append(now) or search(now, out)
    result = sim.run()
    assert (result.steps, result.time, sim.tokens("P")) == (10, 50.0, [10])
    # one search per clock value, when the token becomes available; none
    # right after a firing, while the new token lies in the future
    assert searched == [0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0]


def test_a_tuple_of_fresh_names_is_bound_in_one_unpacking_and_others_are_still_matched():
    net = Net("patterns")
    net.place("Jobs", tuple, initial=[(1, 2, 3), (4, 4), (5, 5, 6)])
    net.place("Pairs", tuple)
    net.place("Triples", tuple)
    net.transition("Triple")
    net.arc("Jobs", "Triple", "(job, size, runtime)")
    net.arc("Triple", "Triples", "(runtime, size, job)")
    net.transition("Pair")
    net.arc("Jobs", "Pair", "(a, a)")
    net.arc("Pair", "Pairs", "(a,)")
    sim = Simulator(net, order="declared")
    triple = next(t for t in sim.transitions if t.path == "Triple")
    assert "job, size, runtime, = _cpn_t" in triple.source
    sim.run()
    assert sorted(sim.tokens("Triples")) == [(3, 2, 1), (6, 5, 5)]
    assert sim.tokens("Pairs") == [(4,)]
