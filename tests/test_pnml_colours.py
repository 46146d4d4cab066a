"""A place's colour set survives PNML: written in the engine's data as a
net data file writes it (``cpn.colour_text``), read back with the types
and predicates it names taken from ``env``, so the net read back refuses
the tokens the original refuses.  A file without colours (an older one,
SNAKES' own) still reads, its places untyped."""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass

import pytest

from cpn import ColourError, Net, NetError, Simulator
from cpn.colours import FrozenDict
from cpn.netfile import dumps
from cpn.pnml import PnmlError, from_pnml
from cpn.snakes_bridge import to_pnml
from modules.job import Job


@dataclass(frozen=True)
class Checkpoint:
    job: int
    work: float


def positive(token) -> bool:
    """A colour set of the user's: a predicate."""
    return isinstance(token, int) and token > 0


JobId = typing.NewType("JobId", int)
Switch = typing.Literal["on", "off"]

COLOURS = {  # place -> colour, and its text in the file
    "Int": (int, "int"), "Float": (float, "float"), "Str": (str, "str"),
    "Bool": (bool, "bool"), "Tuple": (tuple, "tuple"), "Set": (frozenset, "frozenset"),
    "Map": (FrozenDict, "FrozenDict"), "NoneOnly": (type(None), "None"),
    "Maybe": (int | None, "int | None"), "Either": ((int, str), "int | str"),
    "MaybeJob": (typing.Optional[Job], "Job | None"),
    "Jobs": (tuple[Job, ...], "tuple[Job, ...]"), "Pair": (tuple[int, str], "tuple[int, str]"),
    "Empty": (tuple[()], "tuple[()]"), "Ids": (frozenset[int], "frozenset[int]"),
    "Table": (FrozenDict[str, int | None], "FrozenDict[str, int | None]"),
    "Job": (Job, "Job"), "Checkpoint": (Checkpoint, "Checkpoint"),
    "Positive": (positive, "positive"), "JobId": (JobId, "JobId"),
    "Switch": (Switch, "Switch"),  # no name of its own: the env's
}
ENV = {"Switch": Switch}
READER_ENV = {"Job": Job, "Checkpoint": Checkpoint, "positive": positive, "JobId": JobId,
              "Switch": Switch}


def every_colour() -> Net:
    net = Net("colours", env=dict(ENV))
    for name, (colour, _) in COLOURS.items():
        net.place(name, colour)
    return net


def test_every_colour_comes_back_written_as_a_data_file_writes_it():
    net = every_colour()
    text = to_pnml(net)
    for name, (_, written) in COLOURS.items():
        assert f"<colour>{written}</colour>" in text, name
    back = from_pnml(text, env=READER_ENV)
    for name, place in net.places.items():
        assert back.places[name].colour == place.colour, name
    netfile = dumps(net, READER_ENV)  # the same text in both formats
    for name in ("Maybe", "Jobs", "Table", "Ids", "Positive"):
        assert f'colour = "{COLOURS[name][1]}"' in netfile


def wrong_colours() -> Net:
    net = Net("wrong")
    net.place("P", int, initial=[1, 2])
    net.place("Q", Job | None, initial=[None])
    net.place("R", positive)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("Q", "T", "j")
    net.arc("T", "R", "x - 2")
    return net


def refusals(net: Net) -> list[str]:
    """What the net says of a token of the wrong colour: in its initial
    marking, in a simulator's, and produced by a firing."""
    said = []
    for attempt in (lambda: net.set_initial("P", ["x"]),
                    lambda: Simulator(net, marking={"Q": [Checkpoint(1, 1.0)]}),
                    lambda: Simulator(net).run()):
        with pytest.raises(ColourError) as raised:
            attempt()
        said.append(str(raised.value))
    return said


def test_the_net_read_back_refuses_a_token_of_the_wrong_colour_as_the_original_does():
    # It read back untyped and took them: P's colour int held "x".
    net = wrong_colours()
    back = from_pnml(to_pnml(net), env={"Job": Job, "positive": positive})
    assert refusals(back) == refusals(net)
    assert refusals(back)[0].endswith("place 'P': initial token 'x' is not of colour int")
    assert "token -1 is not of colour positive" in refusals(back)[2]


def test_a_colour_needs_its_type_from_env():
    with pytest.raises(PnmlError, match=re.escape(
            "place 'Q': colour 'Job | None' names Job, which env does not give: "
            "from_pnml(..., env={'Job': Job})")) as raised:
        from_pnml(to_pnml(wrong_colours()), env={"positive": positive}, source="jobs.pnml")
    assert re.match(r"jobs\.pnml, line \d+, <colour>: ", str(raised.value))
    with pytest.raises(PnmlError, match=re.escape(
            "place 'R': colour 'positive' names positive, which env gives as 3, neither a "
            "type nor a predicate")):
        from_pnml(to_pnml(wrong_colours()), env={"Job": Job, "positive": 3})


@pytest.mark.parametrize("colour, refused", [
    ("list[int]", "colour 'list[int]': list is no colour (built in: int, float"),
    ("dict[str, int]", "dict[str, int]: its tokens could change"),
    ("int |", "cannot read colour 'int |'"),
    ("str", "net 'wrong', place 'P': initial token 1 is not of colour str"),
])
def test_a_colour_in_a_file_is_held_to_the_data_files_rules(colour, refused):
    text = to_pnml(wrong_colours()).replace("<colour>int</colour>", f"<colour>{colour}</colour>")
    with pytest.raises(PnmlError, match=r"^evil\.pnml.*" + re.escape(refused)):
        from_pnml(text, env={"Job": Job, "positive": positive}, source="evil.pnml")


def test_a_file_without_colours_reads_untyped_as_before():
    text = to_pnml(wrong_colours())
    old = re.sub(r"\s*<colour>.*?</colour>", "", text).replace('version="2"', 'version="1"')
    assert "<colour>" in text and "<colour>" not in old
    back = from_pnml(old, env={"positive": positive})  # no Job: no colour names it
    assert [place.colour for place in back.places.values()] == [None, None, None]
    back.set_initial("P", ["x"])
    snakes_only = re.sub(r"\s*<toolspecific.*?</toolspecific>", "", text, flags=re.S)
    assert all(place.colour is None for place in from_pnml(snakes_only).places.values())


def unnamed() -> Net:
    net = Net("unnamed")
    net.place("P", lambda token: token != 0)
    return net


def same_name() -> Net:
    net = Net("clash", env={"Job": len})
    net.place("P", Job)
    net.transition("T", guard="Job(x) > 0")
    net.arc("P", "T", "x")
    return net


@pytest.mark.parametrize("build, refused", [
    (unnamed, "place 'P': its colour '<lambda>' has no name PNML can write: bind it to one "
              "in the net's env, and give from_pnml(..., env=) the same"),
    (same_name, "place 'P': its colour Job has the name of the net's 'Job' (<built-in "
                "function len>), which the reader of PNML, finding colours by their names in "
                "env, would take: rename one"),
])
def test_a_colour_the_reader_could_not_find_is_refused_on_export(build, refused):
    with pytest.raises(NetError, match="^" + re.escape(refused)):
        to_pnml(build())


def test_a_colour_bound_in_env_is_written_by_that_name():
    net = Net("named", env={"nonzero": lambda token: token != 0})
    net.place("P", net.env["nonzero"], initial=[1])
    text = to_pnml(net)
    assert "<colour>nonzero</colour>" in text
    back = from_pnml(text, env={"nonzero": net.env["nonzero"]})
    assert back.places["P"].colour is net.env["nonzero"]


def test_a_record_token_whose_type_name_env_binds_elsewhere_is_refused_on_export():
    # It was written as the term Job(...), which the reader builds with env's Job: the net
    # read back started from another token, or failed, with no word on export.
    net = Net("tokens", env={"Job": Checkpoint})
    net.place("P", initial=[Job(1, 0.0, 10.0, 1, 10.0)])
    net.place("Q", Checkpoint, initial=[Checkpoint(1, 2.0)])
    with pytest.raises(NetError, match=r"^place 'P': initial token Job\(id=1.* is built by "
                                       r"its type's name, Job, which the net's env binds to "
                                       r"<class .*Checkpoint'>: the net read back would build "
                                       r"that; rename one"):
        to_pnml(net)
    net.env.pop("Job")  # the name is free: Job's term reads back with the reader's Job
    back = from_pnml(to_pnml(net), env={"Job": Job, "Checkpoint": Checkpoint})
    assert back.places["P"].initial == [Job(1, 0.0, 10.0, 1, 10.0)]
