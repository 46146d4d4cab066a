"""Colours written as Python writes types: unions, parameterised tuples,
frozensets and FrozenDicts, literals; checked alike for initial tokens,
produced tokens and a data file's colours."""

from __future__ import annotations

import re
import typing

import pytest

from cpn import Delayed, Net, Simulator
from cpn.colour_sets import accepts, declared
from cpn.colours import FrozenDict
from cpn.errors import ColourError, NetError
from cpn.firing_code import _refusals
from cpn.netfile import dumps, loads


def simulated(colour, initial):
    net = Net("n")
    net.place("P", colour, initial=initial)
    return Simulator(net)


@pytest.mark.parametrize("colour, tokens", [
    (tuple[int, ...], [(), (1, 2, 3)]),
    (typing.Tuple[int, ...], [()]),
    (tuple[int, str], [(3, "a")]),
    (tuple[()], [()]),
    (typing.Optional[int], [3, None]),
    (typing.Union[int, str], [3, "a"]),
    (int | str, [3, "a"]),
    (frozenset[int], [frozenset(), frozenset({1, 2})]),
    (FrozenDict[str, int], [FrozenDict(), FrozenDict(a=1)]),
    (tuple[int | None, ...], [(1, None)]),
    (tuple[int, ...] | None, [(), None]),
    (typing.Literal["on", "off"], ["on", "off"]),
    (typing.NewType("JobId", int), [0]),
    (typing.Any, [[1]]),
])
def test_a_colour_of_python_types_accepts_its_tokens(colour, tokens):
    # tuple[int, ...] refused (), tuple and Optional failed or were called as
    # predicates, int | str was refused when declared.
    sim = simulated(colour, tokens) if colour is not typing.Any else None
    if sim is not None:
        assert sim.tokens("P") == tokens
    assert all(accepts(colour, token) for token in tokens)


@pytest.mark.parametrize("colour, token, name", [
    (tuple[int, ...], ("a",), "tuple[int, ...]"),
    (tuple[int, str], "ab", "tuple[int, str]"),
    (tuple[int, str], ("a", 3), "tuple[int, str]"),
    (tuple[int, str], (3, "a", 4), "tuple[int, str]"),
    (tuple[()], (1,), "tuple[()]"),
    (typing.Optional[int], 3.5, "int | None"),
    (int | str, 2.0, "int | str"),
    (frozenset[int], frozenset({"a"}), "frozenset[int]"),
    (frozenset[int], (1,), "frozenset[int]"),
    (FrozenDict[str, int], FrozenDict(a="x"), "FrozenDict[str, int]"),
    (typing.Literal["on", "off"], "dim", "Literal['on', 'off']"),
    (typing.Literal[1], True, "Literal[1]"),
    (typing.NewType("JobId", int), "7", "JobId"),
])
def test_a_token_outside_the_colour_is_refused_naming_it(colour, token, name):
    with pytest.raises(ColourError, match=re.escape(
            f"place 'P': initial token {token!r} is not of colour {name}")):
        simulated(colour, [token])


@pytest.mark.parametrize("colour, kept", [
    (int | str, (int, str)), (typing.Optional[int], (int, type(None))),
    ((int, None), (int, type(None))), (int | (str | None), (int, str, type(None))),
    (typing.Tuple, tuple), (typing.Any, None), (tuple[int, ...], tuple[int, ...])])
def test_a_union_is_kept_as_the_tuple_of_its_members(colour, kept):
    net = Net("n")
    assert net.place("P", colour).colour == kept
    net.set_colour("P", colour)
    assert net.places["P"].colour == kept


@pytest.mark.parametrize("colour, message", [
    (list[int], "list[int]: its tokens could change, and a marking holds immutable ones: "
                "use tuple[...]"),
    (dict[str, int], "use FrozenDict[...]"),
    (typing.Sequence[int], "Sequence[int]: the engine reads the brackets of tuple, "
                           "frozenset and FrozenDict colours only: use Sequence"),
    (typing.TypeVar("T"), "or a predicate (callable), not ~T"),
    (frozenset[int, str], "frozenset[int, str] has 2 colours in its brackets, not 1"),
    (FrozenDict[str], "FrozenDict[str] has 1 colours in its brackets, not 2"),
    (tuple[..., int], "'...' stands second in a tuple of any length"),
    (tuple["Job", ...], "not the string 'Job'"),
    ((int, lambda token: True), "a predicate (<lambda>) is a colour on its own"),
])
def test_a_colour_the_engine_cannot_check_is_refused_when_declared(colour, message):
    with pytest.raises(NetError, match="^net 'n', place 'P': .*" + re.escape(message)):
        Net("n").place("P", colour)
    net = Net("n")
    net.place("P", int)
    with pytest.raises(NetError, match=re.escape(message)):
        net.set_colour("P", colour)


def producer(colour, inscription, timed=False) -> Net:
    net = Net("n")
    net.place("In", int, initial=[1])
    net.place("P", colour, timed=timed)
    net.transition("T", inputs={"In": "x"}, outputs={"P": inscription})
    return net


@pytest.mark.parametrize("colour, inscription, token", [
    (tuple[int, ...], "()", ()), (tuple[int, ...], "(x, x)", (1, 1)),
    (tuple[int, str], "(x, 'a')", (1, "a")), (int | None, "None", None),
    (typing.Optional[int], "x", 1), (frozenset[int], "frozenset({x})", frozenset({1})),
])
def test_a_produced_token_of_the_colour_enters(colour, inscription, token):
    sim = Simulator(producer(colour, inscription))
    sim.run()
    assert sim.tokens("P") == [token]


@pytest.mark.parametrize("colour, inscription, said", [
    (tuple[int, ...], "(x, 'a')", "token (1, 'a') is not of colour tuple[int, ...]"),
    (tuple[int, str], "('a', x)", "token ('a', 1) is not of colour tuple[int, str]"),
    (int | None, "str(x)", "token '1' is not of colour int | None"),
    (frozenset[int], "frozenset({str(x)})", "token frozenset({'1'}) is not of colour "
                                           "frozenset[int]"),
    (tuple[int, ...], "Delayed((x,), 1)", "token Delayed(value=(1,), delay=1): place 'P' is "
                                          "untimed"),
])
def test_a_produced_token_is_checked_as_an_initial_one(colour, inscription, said):
    net = producer(colour, inscription)
    net.env["Delayed"] = Delayed
    with pytest.raises(ColourError, match=re.escape(f"transition 'T', arc to 'P' "
                                                    f"{inscription!r}: {said}")):
        Simulator(net).run()


def test_a_firing_tests_a_plain_colour_as_before():
    flat = producer(str, "str(x)").flatten()
    place = flat.places[flat.place_index("P")]
    assert _refusals(place, "v") == [f"not _cpn_isinstance(v, _cpn_C{place.index})"]
    flat = producer(int, "x").flatten()  # a plain int passes its first test
    place = flat.places[flat.place_index("P")]
    assert _refusals(place, "v") == [f"(_cpn_type(v) is not _cpn_int and (not _cpn_isinstance("
                                     f"v, _cpn_C{place.index}) or v is True or v is False))"]
    flat = producer(tuple[int, ...], "(x,)").flatten()
    place = flat.places[flat.place_index("P")]
    assert _refusals(place, "v") == ["_cpn_type(v) is _cpn_Delayed",
                                     f"not _cpn_C{place.index}(v)"]  # no hash test: a tuple


def test_a_tuple_colour_lets_a_pattern_unpack_its_tokens():
    net = Net("n")
    net.place("P", tuple[int, str], initial=[(1, "a")])
    net.place("Q", int)
    net.transition("T", inputs={"P": "(n, s)"}, outputs={"Q": "n"})
    sim = Simulator(net)
    assert "try: n, s, = " in sim.transitions[0].source
    sim.run()
    assert sim.tokens("Q") == [1]


def test_a_data_file_reads_the_colours_python_writes():
    net = Net("n")
    net.place("A", tuple[int, ...], initial=[(), (1, 2)])
    net.place("B", int | None, initial=[3])
    net.place("C", FrozenDict[str, int], initial=[FrozenDict(a=1)])
    net.place("D", tuple[int | None, str])
    net.place("E", tuple[()], initial=[()])
    text = dumps(net)
    for line in ('colour = "tuple[int, ...]"', 'colour = "int | None"',
                 'colour = "FrozenDict[str, int]"', 'colour = "tuple[int | None, str]"',
                 'colour = "tuple[()]"'):
        assert line in text
    back = loads(text)
    for name, place in net.places.items():
        assert back.places[name].colour == place.colour
        assert back.places[name].initial == place.initial


def test_a_data_file_union_is_the_python_union():
    read = loads('[places.P]\ncolour = "int | float"\n').places["P"]
    assert read.colour == Net("n").place("P", int | float).colour == (int, float)


@pytest.mark.parametrize("colour, message", [
    ("list[int]", "unknown colour 'list'"),
    ("dict[str, int]", "colour 'dict[str, int]': dict[str, int]: its tokens could change"),
    ("int[str]", "colour 'int[str]': int takes no colours in brackets"),
    ("tuple[int, ...] | 3", "cannot read colour 'tuple[int, ...] | 3'"),
    ("tuple[int, ...]", None),
])
def test_a_data_file_colour_is_checked_with_its_line(colour, message):
    text = f'[places.P]\ncolour = "{colour}"\ninitial = [[1]]\n'
    if message is None:
        assert loads(text).places["P"].initial == [(1,)]
        return
    with pytest.raises(NetError, match=r"line 2: place 'P': " + re.escape(message)):
        loads(text)


def test_saving_a_colour_a_file_cannot_write_names_it():
    net = Net("n")
    net.place("P", tuple[typing.Literal["on", "off"], ...])
    with pytest.raises(NetError, match=re.escape("its colour \"Literal['on', 'off']\" is not "
                                                 "in the registry")):
        dumps(net)


def test_a_data_file_writes_and_reads_frozenset_colours():
    # They were refused: "its colour 'frozenset[int]' is not in the registry".
    net = Net("n")
    net.place("P", frozenset[int])
    net.place("Q", frozenset | None)
    text = dumps(net)
    assert 'colour = "frozenset[int]"' in text and 'colour = "frozenset | None"' in text
    back = loads(text)
    assert [place.colour for place in back.places.values()] == [frozenset[int],
                                                                (frozenset, type(None))]


def test_a_module_port_and_its_socket_agree_on_a_union_however_written():
    module = Net("m")
    module.place("In", int | str, port="in")
    module.place("Out", typing.Optional[int])
    module.transition("T", inputs={"In": "x"}, outputs={"Out": "None"})
    top = Net("top")
    top.place("A", (int, str), initial=[1])
    top.substitution("M", module, {"In": "A"})
    sim = Simulator(top)
    sim.run()
    assert sim.tokens("M/Out") == [None]


def test_declared_names_where_the_colour_is():
    with pytest.raises(NetError, match="^place 'Q': "):
        declared(list[int], "place 'Q'")


BOOL_HINT = ("(True and False are no ints in a colour set, as in CPN Tools: int(...) makes "
             "one an int; a colour int | bool holds both)")


@pytest.mark.parametrize("colour, name", [(int, "int"), (int | None, "int | None"),
                                          (typing.NewType("JobId", int), "JobId")])
def test_an_int_colour_holds_no_bool(colour, name):
    # bool is a subclass of int in Python: True entered an int place, initial or produced.
    with pytest.raises(ColourError, match=re.escape(
            f"place 'P': initial token True is not of colour {name} {BOOL_HINT}")):
        simulated(colour, [True])
    with pytest.raises(ColourError, match=re.escape(
            f"transition 'T', arc to 'P' 'x > 0': token True is not of colour {name} "
            f"{BOOL_HINT}")):
        Simulator(producer(colour, "x > 0")).run()
    with pytest.raises(NetError, match=re.escape(
            f"transition 'T', arc T -> P 'False': constant False is not of colour {name} of "
            f"place 'P' {BOOL_HINT}")):
        Simulator(producer(colour, "False"))
    assert not accepts(colour, True) and accepts(colour, 3)


@pytest.mark.parametrize("colour, inscription", [
    (tuple[int, ...], "(x > 0,)"), (frozenset[int], "frozenset({x > 0})"),
    (FrozenDict[str, int], "FrozenDict(a=x > 0)")])
def test_an_int_element_is_no_bool_either(colour, inscription):
    net = producer(colour, inscription)
    net.env["FrozenDict"] = FrozenDict
    with pytest.raises(ColourError, match="token .*True.* is not of colour"):
        Simulator(net).run()


@pytest.mark.parametrize("colour", [int | bool, bool, object, typing.Any, float | int | bool])
def test_a_colour_naming_bool_holds_bools(colour):
    sim = Simulator(producer(colour, "x > 0"))
    sim.run()
    assert sim.tokens("P") == [True]


def test_a_float_colour_holds_no_int_as_before():
    # As CPN Tools' REAL: 2 is not 2.0 (a data file's record field alone takes one).
    with pytest.raises(ColourError, match="initial token 2 is not of colour float$"):
        simulated(float, [2])
    sim = Simulator(producer(float, "x / 2"))
    sim.run()
    assert sim.tokens("P") == [0.5]
