"""Building a net with arguments of the wrong kind is refused where they
are given, naming the net and the node: each was a TypeError or an
AttributeError from deep inside (often only once a simulator was built),
or was misread (``timed="no"`` made a timed place)."""

from __future__ import annotations

import re

import pytest

import cpn
from cpn import Net, NetError, Simulator
from cpn.netfile import NetFileError


def _net() -> Net:
    net = Net("n")
    net.place("P", int, initial=[1])
    return net


@pytest.mark.parametrize("build, message", [
    (lambda: Net(None), "a net's name is a str, not None"),
    (lambda: Net("n", env=[("f", print)]), "net 'n': env maps names to the functions"),
    (lambda: _net().place(5, int), "net 'n': invalid node name 5 (must be a non-empty str"),
    (lambda: _net().transition(7), "net 'n': invalid node name 7"),
    (lambda: _net().place("Q", int, timed="no"),
     "net 'n', place 'Q': timed must be True or False, not 'no'"),
    (lambda: _net().place("Q", int, fusion=5),
     "net 'n', place 'Q': a fusion set is named by a non-empty str, not 5"),
    (lambda: _net().transition("T", guard=lambda x: x < 10),
     "net 'n', transition 'T': guard is text, compiled once (e.g. guard='x < 10'), not <function"),
    (lambda: _net().transition("T", code=print),
     "net 'n', transition 'T': code is text, compiled once (e.g. code='y = f(x)')"),
    (lambda: _net().transition("T", inputs=["P"]),
     "net 'n', transition 'T': give arcs as a dict of place -> inscription, e.g. "
     "inputs={'P': 'x'}, not ['P']"),
    (lambda: _net().substitution("S", "module", {}),
     "net 'n', substitution 'S': the module must be a Net, not 'module'"),
    (lambda: _net().substitution("S", Net("m"), "P"),
     "net 'n', substitution 'S': sockets map each port to a place (a dict, or (port, place) "
     "pairs), not 'P'"),
])
def test_a_net_argument_of_the_wrong_kind_is_refused_where_given(build, message):
    with pytest.raises(NetError, match=re.escape(message)):
        build()


def test_replacing_a_module_checks_its_sockets_alike():
    module = Net("m")
    module.place("In", int, port="in")
    net = _net()
    net.substitution("S", module, [("In", "P")])
    with pytest.raises(NetError, match=re.escape("net 'n', substitution 'S': sockets map each "
                                                 "port to a place")):
        net.replace_module("S", module, sockets=5)


def test_a_net_of_the_right_kinds_runs():
    net = _net()
    net.transition("T", guard="x < 10", inputs={"P": "x"}, outputs={"P": "x + 1"})
    assert Simulator(net).run().steps == 9


def test_loading_refuses_a_path_or_registry_of_the_wrong_kind(tmp_path):
    """Each was a TypeError naming neither (a module given as functions=,
    as ``cpn step --functions`` takes it: "'module' object is not iterable")."""
    import nets.puppet

    with pytest.raises(NetFileError, match=re.escape("path must be a net file's path (a str "
                                                     "or a Path), not None")):
        cpn.load(None)
    _net().save(tmp_path / "n.toml")
    with pytest.raises(NetFileError, match="functions is the registry a file may name, a dict "
                                           r"of names \(nets.puppet.FUNCTIONS\), not <module"):
        cpn.load(tmp_path / "n.toml", functions=nets.puppet)
