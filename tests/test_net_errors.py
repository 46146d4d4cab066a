"""A user composing a net in Python: each mistake is named with the net, the
transition or place, and the text, when the simulator is built or when the
firing that meets it fails (the messages named no net before)."""

from __future__ import annotations

import re

import pytest

from cpn import BindingError, ColourError, Net, NetError, NetWarning, Simulator


def user(inputs=None, outputs=None, guard=None, delay=None, code=None, initial=(1,)) -> Net:
    net = Net("user")
    net.place("P", int, initial=list(initial))
    net.place("Q", int, timed=True)
    net.transition("T", guard=guard, delay=delay, code=code,
                   inputs={"P": "x"} if inputs is None else inputs,
                   outputs={"Q": "x"} if outputs is None else outputs)
    return net


def fused(module_colour, module_timed=False) -> Net:
    module = Net("mod")
    module.place("X", module_colour, fusion="F", timed=module_timed)
    top = Net("top")
    top.place("A", int, fusion="F", initial=[1])
    top.substitution("M", module, {})
    return top


@pytest.mark.parametrize("net, said", [
    (user(outputs={"Q": "x + yy"}), "net 'user', transition 'T', arc T -> Q: variable 'yy' in "
                                    "'x + yy' is never bound"),
    (user(guard="x > limit"), "net 'user', transition 'T', guard 'x > limit': unknown "
                              "variable 'limit'"),
    (user(code="y = x + zz", outputs={"Q": "y"}), "net 'user', transition 'T', code segment: "
                                                  "variable 'zz' in 'y = x + zz' is never bound"),
    (user(inputs={"P": "(x,"}), "net 'user', transition 'T', arc P -> T '(x,': cannot parse "
                                "'(x,': '(' was never closed"),
    (user(guard="x >"), "net 'user', transition 'T', guard 'x >': cannot parse it"),
    (user(outputs={"Q": "x@+-1"}), "net 'user', transition 'T', arc T -> Q 'x@+-1': a delay "
                                   "must be a number >= 0, not -1"),
    (user(delay="-1"), "net 'user', transition 'T', delay '@+-1': a delay must be a number "
                       ">= 0, not -1"),
    (fused(str), "net 'top', place 'M/X' (colour str, untimed): fusion set 'F' joins it to "
                 "'A' (colour int, untimed)"),
    (fused(int, module_timed=True), "net 'top', place 'M/X' (colour int, timed): fusion set "
                                    "'F' joins it to 'A' (colour int, untimed)"),
])
def test_a_mistake_is_named_when_the_simulator_is_built(net, said):
    with pytest.raises(NetError, match="^" + re.escape(said)):
        Simulator(net)


def test_an_initial_token_of_the_wrong_colour_names_the_net_and_the_place():
    with pytest.raises(ColourError, match=re.escape(
            "net 'user', place 'P': initial token 'a' is not of colour int")):
        Simulator(user(initial=["a"]))


@pytest.mark.parametrize("net, error, said", [
    (user(outputs={"Q": "x@+(x - 3)"}), BindingError,
     "net 'user': firing T<x=1> at time 0.0 failed: arc T -> Q 'x@+(x - 3)': a delay must be "
     "a number >= 0, not -2"),
    (user(outputs={"Q": "str(x)"}), ColourError,
     "net 'user', transition 'T', arc to 'Q' 'str(x)': token '1' is not of colour int"),
    (user(guard="1 // (x - 1) > 0"), BindingError,
     "net 'user', transition 'T': evaluating its guard '1 // (x - 1) > 0' failed with x=1"),
])
def test_a_mistake_met_by_a_firing_names_the_net(net, error, said):
    sim = Simulator(net)
    with pytest.raises(error, match="^" + re.escape(said)):
        sim.run()
    assert sim.tokens("P") == [1]


def test_a_transition_without_input_arcs_is_warned_of():
    # It ran for ever at time 0 without a word (CPN Tools' semantics: it stays enabled).
    net = Net("user")
    net.place("Q", int, timed=True)
    net.transition("Gen", outputs={"Q": "1@+1"})
    with pytest.warns(NetWarning, match=re.escape(
            "net 'user', transition 'Gen' has no input arcs: once its guard holds it stays "
            "enabled, firing for ever without the clock moving; run it with max_steps")):
        sim = Simulator(net)
    assert sim.run(max_steps=5).steps == 5 and sim.now == 0.0
