"""A saved trace edited by hand: every field of every line is checked
when the file is read, and a wrong one is named with its file and line,
never met as a traceback in the middle of a replay."""

import json
import re
import sys
from pathlib import Path

import pytest

from cli.main import main
from cpn import Simulator
from cpn.trace import TraceFileError, load_trace, replay, replay_on

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
import producer_consumer  # noqa: E402

HEADER = {"format": "cpn-trace/1", "net": "producer_consumer", "seed": 0}
FIRING = {"step": 1, "time": 0.0, "transition": "Produce", "values": {"n": "1"}}


def write(path: Path, *lines: dict) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_an_unedited_trace_replays(tmp_path):
    trace = write(tmp_path / "run.jsonl", HEADER, FIRING)
    assert replay(producer_consumer.build_net(), trace).steps == 1


@pytest.mark.parametrize("field, value, expected", [
    ("values", "n=1", "an object of variable -> the repr of its value"),
    ("values", {"n": None}, "an object of variable -> the repr of its value"),
    ("time", None, "a finite number"),
    ("time", "zero", "a finite number"),
    ("time", True, "a finite number"),
    ("transition", 3, "a transition's name"),
    ("step", 1.5, "a whole number >= 1"),
    ("draws", "abc", "an array of outcome indices"),
    ("draws", [0, -1], "an array of outcome indices"),
    ("draw", [0], None),
])
def test_a_field_of_the_wrong_type_is_named_with_its_line(tmp_path, field, value, expected):
    trace = write(tmp_path / "run.jsonl", HEADER, FIRING, {**FIRING, field: value})
    said = (f"unknown field 'draw'" if expected is None
            else f"'{field}' must be {expected}")
    with pytest.raises(TraceFileError, match=re.escape(f"{trace}, line 3: {said}")):
        load_trace(trace)
    with pytest.raises(TraceFileError, match=re.escape(f"{trace}, line 3: {said}")):
        replay_on(Simulator(producer_consumer.build_net()), trace)


@pytest.mark.parametrize("field, value", [("end_time", "late"), ("end_time", float("inf")),
                                          ("net", 7)])
def test_a_header_field_of_the_wrong_type_is_named(tmp_path, field, value):
    trace = write(tmp_path / "run.jsonl", {**HEADER, field: value}, FIRING)
    with pytest.raises(TraceFileError, match=re.escape(f"{trace}: the header's {field} ")):
        load_trace(trace)


def test_cpn_replay_names_the_line_of_a_wrong_field(tmp_path, capsys):
    trace = write(tmp_path / "run.jsonl", HEADER, {**FIRING, "time": None})
    net = ROOT / "examples" / "producer_consumer.py"
    assert main(["replay", str(net), str(trace)]) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert f"{trace}, line 2: 'time' must be a finite number, not null" in out
    assert "Traceback" not in out
