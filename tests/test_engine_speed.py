"""What keeps the engine's hot loop short, held as behaviour: no search
that cannot succeed, tuple patterns bound in one unpacking, the token
of a place that always holds one read without a loop, and a transition of
priority below P_LOW searched once its instant has nothing else to do."""

from __future__ import annotations

import pytest

from cpn import P_LOW, Net, NetError, Simulator
from cpn.errors import BindingError
from cpn.monitors import FiringLog


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


def summing_net() -> Net:
    net = Net("sum")
    net.place("Jobs", int, initial=[1, 2, 3])
    net.place("Total", int, initial=[0])
    net.transition("Add")
    net.arc("Jobs", "Add", "x")
    net.arc("Total", "Add", "n")
    net.arc("Add", "Total", "n + x")
    return net


def test_a_place_that_always_holds_one_token_is_read_not_looped_over():
    sim = Simulator(summing_net(), order="declared")
    total = sim.place_index("Total")
    assert f"n = _cpn_R{total}[0]" in sim.transitions[0].source
    assert sim.run().steps == 3 and sim.tokens("Total") == [6]


def test_given_more_tokens_such_a_place_is_looped_over_and_no_checkpoint_crosses():
    two = Simulator(summing_net(), order="declared", marking={"Total": [0, 10]})
    total = two.place_index("Total")
    assert f"enumerate(_cpn_R{total})" in two.transitions[0].source
    state = two.checkpoint()
    assert two.run().steps == 3 and two.tokens("Total") == [12, 4]
    one = Simulator(summing_net(), order="declared")
    with pytest.raises(NetError, match="2 tokens in place 'Total'"):
        one.restore(state)
    assert one.run().steps == 3 and one.tokens("Total") == [6]


def test_a_firing_that_puts_back_another_literal_than_it_took_is_not_searched_again():
    # Go takes the trigger True and leaves False: its own search would fail
    # until Arm (three times) puts True back
    net = Net("trigger")
    net.place("Trigger", bool, initial=[True])
    net.place("Count", int, initial=[0])
    net.place("Ticks", int, initial=[3])
    net.transition("Go", inputs={"Trigger": "True", "Count": "n"},
                   outputs={"Trigger": "False", "Count": "n + 1"})
    net.transition("Arm", guard="k > 0", inputs={"Trigger": "False", "Ticks": "k"},
                   outputs={"Trigger": "True", "Ticks": "k - 1"})
    sim = Simulator(net)
    go = sim.transition_index("Go")
    searched = []
    search = sim._search[go]
    sim._search[go] = lambda now, out: searched.append(now) or search(now, out)
    assert sim.run().steps == 7
    assert (sim.tokens("Count"), sim.tokens("Trigger"), sim.tokens("Ticks")) == ([4], [False], [0])
    assert len(searched) == 4  # at the start and after each Arm, never after Go


def counted_work() -> Net:
    """Do takes ten jobs one by one at time 0; Tidy (below P_LOW) reads the
    count Do changes and fires once all ten are done."""
    net = Net("work")
    net.place("Work", int, initial=list(range(10)))
    net.place("Done", int, initial=[0])
    net.place("Untidy", bool, initial=[True])
    net.transition("Do", inputs={"Work": "x", "Done": "n"}, outputs={"Done": "n + 1"})
    net.transition("Tidy", guard="n == 10", priority=P_LOW + 1,
                   inputs={"Done": "n", "Untidy": "True"}, outputs={"Done": "n"})
    return net


def test_a_transition_below_p_low_is_searched_once_its_instant_has_nothing_else_to_do():
    sim = Simulator(counted_work())
    tidy = sim.transition_index("Tidy")
    searched = []
    search = sim._search[tidy]
    sim._search[tidy] = lambda now, out: searched.append(sim.steps) or search(now, out)
    log = sim.add_monitor(FiringLog())
    assert sim.run().steps == 11
    assert [r["transition"] for r in log.records] == ["Do"] * 10 + ["Tidy"]
    # once, when the ten are done: not at the start and after each Do (eleven
    # searches), nor after it fired (it took the one Untidy token)
    assert searched == [10]


def test_a_step_by_step_user_still_sees_and_cannot_fire_a_deferred_transition_too_early():
    net = counted_work()
    net.transition("Rest", priority=P_LOW + 2, inputs={"Untidy": "u"}, outputs={"Untidy": "u"})
    sim = Simulator(net)
    listed = {b.transition for b in sim.enabled(all_priorities=True)}
    assert listed == {"Do", "Rest"}
    rest = next(b for b in sim.enabled(all_priorities=True) if b.transition == "Rest")
    with pytest.raises(BindingError, match="higher priority"):
        sim.fire(rest)


def test_a_deferred_transition_pending_a_search_is_not_pre_empted_by_a_lower_one_found():
    # Early (P_LOW + 1) enables Step (P_NORMAL), which enables Late
    # (P_LOW + 1); Last (P_LOW + 2), found beside Early, must still wait
    net = Net("deferred")
    for place, tokens in (("A", [1]), ("B", []), ("C", []), ("D", [1]), ("Out", [])):
        net.place(place, int, initial=tokens)
    net.transition("Early", priority=P_LOW + 1, inputs={"A": "x"}, outputs={"B": "x"})
    net.transition("Step", inputs={"B": "x"}, outputs={"C": "x"})
    net.transition("Late", priority=P_LOW + 1, inputs={"C": "x"}, outputs={"Out": "x"})
    net.transition("Last", priority=P_LOW + 2, inputs={"D": "x"}, outputs={"Out": "x"})
    sim = Simulator(net)
    log = sim.add_monitor(FiringLog())
    sim.run()
    assert [r["transition"] for r in log.records] == ["Early", "Step", "Late", "Last"]
