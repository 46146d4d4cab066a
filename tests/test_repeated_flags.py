"""An option that keeps one value, given twice with different values, is
refused by argparse naming the flag and both values (exit code 2): the last
one won without a word (``cpn run --cap 50% --cap 70%`` ran at 70 %).  The
same value twice is taken; options that gather values still gather them."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import build_parser, main
from cli.step import main_step

SWF = "; MaxNodes: 4\n; MaxProcs: 4\n1 1000 -1 100 1 -1 -1 1 200 -1 1 1 1 1 1 -1 -1 -1\n"
NET = '''
from cpn import Net

net = Net("counter")
net.place("P", int, initial=[0])
net.transition("Inc", guard="x < 3")
net.arc("P", "Inc", "x")
net.arc("Inc", "P", "x + 1")
'''


@pytest.fixture
def files(tmp_path) -> dict[str, Path]:
    (tmp_path / "t.swf").write_text(SWF)
    (tmp_path / "net.py").write_text(NET)
    (tmp_path / "run.jsonl").write_text("")
    return {"trace": tmp_path / "t.swf", "net": tmp_path / "net.py",
            "saved": tmp_path / "run.jsonl"}


def refused(capsys, entry, argv) -> str:
    """The last stderr line of an argparse refusal (exit code 2)."""
    with pytest.raises(SystemExit) as exit_:
        entry(list(map(str, argv)))
    assert exit_.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("argv, said", [
    (["run", "--trace", "{trace}", "--cap", "50%", "--cap", "70%", "--no-plots"],
     "cpn run: error: argument --cap: given twice with different values, 50% and 70%"),
    (["run", "--trace", "{trace}", "--capping", "wait", "--capping=dvfs"],
     "cpn run: error: argument --capping: given twice with different values, wait and dvfs"),
    (["sweep", "--trace", "{trace}", "--policy", "fcfs,wfp", "--policy", "wfp"],
     "cpn sweep: error: argument --policy: given twice with different values, fcfs,wfp "
     "and wfp"),
    (["sweep", "--trace", "{trace}", "--capping", "wait", "--l", "5", "--wait-queue", "6"],
     "cpn sweep: error: argument --wait-queue: given twice with different values, --l 5 "
     "and --wait-queue 6"),  # a former spelling is named as typed
    (["study", "fig10", "--trace", "{trace}", "--workers", "1", "--workers", "2"],
     "cpn study: error: argument --workers: given twice with different values, 1 and 2"),
    (["validate", "--trace", "{trace}", "--period", "day", "--period", "week"],
     "cpn validate: error: argument --period: given twice with different values, day "
     "and week"),
    (["check", "{net}", "--max-states", "10", "--max-states", "20"],
     "cpn check: error: argument --max-states: given twice with different values, 10 "
     "and 20"),
    (["step", "{net}", "--seed", "1", "--seed", "2"],
     "cpn step: error: argument --seed: given twice with different values, 1 and 2"),
    (["replay", "{net}", "{saved}", "--script", "a", "--script", "b"],
     "cpn replay: error: argument --script: given twice with different values, a and b"),
])
def test_a_single_valued_option_given_twice_is_refused_naming_both_values(
        files, capsys, argv, said):
    argv = [word.format(**files) for word in argv]
    assert refused(capsys, main, argv) == f"{said.format(**files)}: give it once"


def test_the_stepper_entry_point_refuses_it_too(files, capsys):
    assert refused(capsys, main_step, [files["net"], "--seed", "1", "--seed", "2"]) == (
        "cpn step: error: argument --seed: given twice with different values, 1 and 2: "
        "give it once")


def test_the_same_value_twice_is_taken(files):
    parse = build_parser().parse_args
    args = parse(["run", "--cap", "50%", "--cap", "50.0%", "--no-plots", "--no-plots",
                  "--seed", "3", "--seed", "3"])
    assert (str(args.cap), args.no_plots, args.seed) == ("50 %", True, 3)
    args = parse(["sweep", "--capping", "wait", "--l", "5", "--wait-queue", "5"])
    assert args.wait_queue == [5]


def test_options_that_gather_values_still_gather_them(files):
    parse = build_parser().parse_args
    assert parse(["check", str(files["net"]), "--query", "always P <= 3", "--query",
                  "eventually dead"]).query == ["always P <= 3", "eventually dead"]
    assert [str(cap) for cap in parse(["sweep", "--cap", "50%", "--cap", "70%"]).cap] == [
        "50 %", "70 %"]


def test_each_parse_starts_afresh():
    parser = build_parser()
    assert parser.parse_args(["run", "--seed", "1"]).seed == 1
    assert parser.parse_args(["run", "--seed", "2"]).seed == 2
