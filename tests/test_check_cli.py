"""``cpn check``: the summary, the standard report, typed and named
queries, counterexamples saved and replayed, and bad input."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cli.main import main
from cpn import Net
from cpn.query.text import QuerySyntaxError, parse_query
from cpn.statespace import state_space
from cpn.statespace.report import report

ROOT = Path(__file__).resolve().parents[1]
BROKEN = str(ROOT / "examples" / "broken_backfill.py")

COUNTER = '''
from cpn import Net
from cpn.query import always, token

net = Net("counter")
net.place("P", int, initial=[0])
net.place("Spare", int)
net.transition("Inc", guard="x < 3")
net.arc("P", "Inc", "x")
net.arc("Inc", "P", "x + 1")
net.transition("Never", guard="x > 5")
net.arc("P", "Never", "x")
net.arc("Never", "Spare", "x")
QUERIES = {"small": always(token("P") <= 3)}
'''


@pytest.fixture
def counter(tmp_path) -> str:
    path = tmp_path / "counter.py"
    path.write_text(COUNTER)
    return str(path)


def test_the_summary_and_the_standard_report(counter, capsys):
    assert main(["check", counter, "--report"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:6] == [f"state space of {counter}", "  states         4", "  arcs           3",
                       "  dead markings  1 (3)", "  complete       yes", out[5]]
    assert out[5].startswith("  time ") and out[5].endswith(" s")
    assert out[6:14] == ["Boundedness (tokens)", "  place  fewest   most",
                         "  P           1      1", "  Spare       0      0",
                         "Dead transitions", "  Never", "Home markings", "  1 (3)"]
    assert out[14:] == ["queries", "  holds    small: always P <= 3",
                        "           no state breaks it"]


def test_typed_queries_fail_with_their_counterexample(counter, capsys, tmp_path):
    assert main(["check", counter, "--query", "never P == 2", "--query",
                 "eventually dead", "--save", str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out
    assert "  FAILS    never P == 2\n           state 2, after 2 firings, at time 0\n" in out
    assert "  holds    eventually dead\n" in out
    assert "counterexample of never P == 2 (2 firings):\n         0      1  Inc<x=0>\n" \
           "         0      2  Inc<x=1>\n" in out
    saved = tmp_path / "out" / "never_P_eq_2.jsonl"
    assert f"saved as {saved}: replay it with cpn replay {counter} {saved}" in out
    assert main(["replay", counter, str(saved)]) == 0
    assert "replayed 2 firings" in capsys.readouterr().out



def test_the_replay_hint_of_a_data_file_names_its_registry(capsys, tmp_path):
    # the hint left out --functions: pasted, it failed on the file's first function
    demo = str(ROOT / "examples" / "puppet_demo.toml")
    assert main(["check", demo, "--functions", "nets.puppet", "--query",
                 "never count(Finished) == 1", "--save", str(tmp_path)]) == 1
    hint = next(line for line in capsys.readouterr().out.splitlines()
                if line.startswith("saved as"))
    command = hint.split("replay it with cpn ")[1].split()
    assert command[-2:] == ["--functions", "nets.puppet"]
    assert main(command) == 0
    assert "replayed" in capsys.readouterr().out

def test_counterexamples_of_queries_alike_are_saved_apart(counter, capsys, tmp_path):
    # both were saved as always_P_1.jsonl, the second over the first
    assert main(["check", counter, "--query", "always P <= 1", "--query", "always P >= 1",
                 "--query", "always P  >=  1", "--save", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    for name, firings in (("always_P_le_1", 2), ("always_P_ge_1", 0), ("always_P_ge_1_2", 0)):
        assert f"saved as {tmp_path / name}.jsonl: replay it" in out
        assert main(["replay", counter, str(tmp_path / f"{name}.jsonl")]) == 0
        assert f"replayed {firings} firings" in capsys.readouterr().out


def test_the_broken_backfill_is_caught_and_its_counterexample_replays(capsys, tmp_path):
    assert main(["check", BROKEN, "--query", "reservation", "--save", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "  FAILS    reservation: always the head job's reservation never moves later" in out
    assert "counterexample of reservation (7 firings):" in out
    assert main(["replay", BROKEN, str(tmp_path / "reservation.jsonl")]) == 0
    assert "replayed 7 firings" in capsys.readouterr().out


def test_an_incomplete_graph_leaves_queries_unknown(capsys):
    assert main(["check", BROKEN, "--max-states", "10", "--query", "eventually dead"]) == 1
    out = capsys.readouterr().out
    assert "  complete       no: stopped at the maximum of 10 states (max_states)" in out
    assert "  dead markings  none (of the states explored)\n" in out  # it said 'none'
    assert ("  unknown  eventually dead\n           none of the 10 states explored satisfies "
            "it, and the states not explored are not known") in out


def counter_guarded_by(path: Path, name: str, at: int, actions: list[str]) -> Path:
    """The counter net file at ``path``, its guard a function ``name`` that
    does ``actions`` (os, signal and time imported) when the counter is ``at``."""
    body = "".join(f"        {action}\n" for action in actions)
    path.write_text(COUNTER.replace('guard="x < 3"', f'guard="{name}(x)"').replace(
        'net = Net("counter")', f'import os, signal, time\n\ndef {name}(x):\n'
        f'    if x == {at}:\n{body}    return True\n\n'
        f'net = Net("counter", env={{"{name}": {name}}})'))
    return path


def test_a_second_ctrl_c_stops_a_firing_that_does_not_end(capsys, tmp_path):
    """The first Ctrl-C waits for the firing to end; one that builds a
    huge value never did, and cpn check could not be stopped."""
    net = counter_guarded_by(tmp_path / "endless.py", "endless", 5, [
        "os.kill(os.getpid(), signal.SIGINT)", "os.kill(os.getpid(), signal.SIGINT)",
        "time.sleep(30)"])
    started = time.monotonic()
    assert main(["check", str(net), "--query", "never P == 5"]) == 130
    assert time.monotonic() - started < 20
    assert "  complete       no: interrupted with 6 states" in capsys.readouterr().out


def test_ctrl_c_reports_the_states_explored(capsys, tmp_path):
    # Ctrl-C printed a KeyboardInterrupt traceback and lost the exploration
    net = counter_guarded_by(tmp_path / "interrupted.py", "ctrl_c", 50,
                             ["os.kill(os.getpid(), signal.SIGINT)"])
    assert main(["check", str(net), "--query", "never P == 5", "--query",
                 "always count(P) <= 1"]) == 130
    out = capsys.readouterr().out
    assert "  complete       no: interrupted with " in out
    assert "  FAILS    never P == 5\n" in out
    assert "  unknown  always count(P) <= 1\n" in out


@pytest.mark.parametrize("query, message", [
    ("always P <=", "cpn check: error: query 'always P <=': expected a value (a number, "
                    "a place, count(PLACE), now) at the end"),
    ("sometimes P < 3", "cpn check: error: --query 'sometimes P < 3' names none of the "
                        "QUERIES of {net} ('small'), and does not read as a query: unknown "
                        "operator 'sometimes': use always, never, reachable, eventually, or "
                        "'P leads to Q'"),
    ("always Q < 3", "cpn check: error: query 'always Q < 3': the net has no place 'Q' (its "
                     "places: P, Spare)"),
])
def test_bad_queries_are_one_line_errors(counter, capsys, query, message):
    assert main(["check", counter, "--query", query]) == 2
    assert capsys.readouterr().err.strip() == message.format(net=counter)


def test_an_unknown_place_is_refused_before_exploring(capsys, tmp_path):
    # it was found after the whole exploration (4 s on an endless net)
    net = tmp_path / "endless.py"
    net.write_text(COUNTER.replace('guard="x < 3"', 'guard="True"'))
    assert main(["check", str(net), "--time-limit", "20", "--query",
                 "always count(Nope) < 3"]) == 2
    assert capsys.readouterr().err == ("cpn check: error: query 'always count(Nope) < 3': the "
                                       "net has no place 'Nope' (its places: P, Spare)\n")


def test_a_query_that_cannot_be_evaluated_is_an_error_of_its_own(capsys, tmp_path):
    # one such query threw away every verdict and the statistics
    net = tmp_path / "queue.py"
    net.write_text(COUNTER.replace('net.place("Spare", int)', 'net.place("Spare", int)\n'
                                   'net.place("Queuing", tuple, initial=[(1, 2)])').replace(
        'QUERIES = {', 'QUERIES = {"ratio": always(where(lambda m: 1 / (3 - m["P"][0]), '
                       '"ratio")), ').replace("import always,", "import always, where,"))
    assert main(["check", str(net), "--query", "always Queuing <= 3", "--query",
                 "always Spare >= 0", "--query", "never P == 2"]) == 2
    out = capsys.readouterr().out
    assert "  states         4\n" in out
    assert ("  ERROR    always Queuing <= 3\n           in state 0, at time 0: TypeError: "
            "'<=' not supported between instances of 'tuple' and 'int'\n") in out
    assert ("  ERROR    always Spare >= 0\n           in state 0, at time 0: Spare: the place "
            "holds 0 tokens at time 0; a place's name reads its one token (count(Spare) "
            "counts them)\n") in out  # no tokens(): the command line has none
    assert "  FAILS    never P == 2\n" in out and "counterexample of never P == 2" in out
    assert main(["check", str(net)]) == 2  # a QUERIES predicate that raises: no traceback
    out = capsys.readouterr().out
    assert ("  ERROR    ratio: always ratio\n           in state 3, at time 0: "
            "ZeroDivisionError: division by zero\n  holds    small: always P <= 3\n") in out


def test_a_name_that_is_none_of_the_queries_lists_them(capsys):
    # it said only: expected a comparison (< <= == != >= >) at '1'
    assert main(["check", BROKEN, "--query", "job 1 run"]) == 2
    out = capsys.readouterr().err
    assert out.startswith(f"cpn check: error: --query 'job 1 run' names none of the QUERIES "
                          f"of {BROKEN} ('reservation', 'job 1 runs', 'job 2 runs', ")
    assert "and does not read as a query: the net has no place 'job'" in out


@pytest.mark.parametrize("queries, message", [
    ('["always P <= 3"]', "QUERIES in {net} is a list: make it a dict of names and queries"),
    ('{"notq": "always P <= 3"}', "QUERIES['notq'] in {net} is a str, not a query: make it "
                                  "one with cpn.query"),
    ('{3: always(token("P") <= 3)}', "QUERIES in {net}: the name 3 is no string"),
])
def test_bad_queries_of_a_file_are_told_as_such(capsys, tmp_path, queries, message):
    # a list gave 'dictionary update sequence element #0 has length 8; 2 is required',
    # a str '--query notq: ...' though no --query was given
    net = tmp_path / "bad.py"
    net.write_text(COUNTER.replace('QUERIES = {"small": always(token("P") <= 3)}',
                                   f"QUERIES = {queries}"))
    assert main(["check", str(net)]) == 2
    assert capsys.readouterr().err.startswith(f"cpn check: error: {message.format(net=net)}")


@pytest.mark.parametrize("option, value, message", [
    ("--max-states", "-1", "must be at least 1, not -1"),  # stopped at -1 states
    ("--max-states", "0", "must be at least 1, not 0"),
    ("--timeline", "-1", "must be >= 0, not -1"),  # 0 shows none; -1 dropped the first line
    ("--time-limit", "0", "must be positive, not 0"),
])
def test_bounds_of_the_exploration_are_refused_when_parsed(counter, capsys, option, value,
                                                           message):
    with pytest.raises(SystemExit) as exit_:
        main(["check", counter, "--query", "always P <= 400", f"{option}={value}"])
    assert exit_.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == f"cpn check: error: argument {option}: {message}"


def test_a_missing_net_is_a_one_line_error(capsys, tmp_path):
    assert main(["check", str(tmp_path / "none.py")]) == 2
    said = capsys.readouterr()
    assert said.err.strip() == f"cpn check: error: no such file: {tmp_path / 'none.py'}"
    assert said.out == ""  # a report piped to a file does not hide the error in it


def test_query_text_reads_back_what_queries_print():
    for text in ["always Power <= 350", "never count(Allocation/WaitQueue) > 1 and not dead",
                 "reachable count(Finished) == 4", "eventually dead",
                 "count(Scheduler/User) == 0 leads to count(Finished) == 4",
                 "always (P < 3 or P == 'x')", "always stable implies (Power <= 2.5)"]:
        assert str(parse_query(text)) == text
    with pytest.raises(QuerySyntaxError, match=r"expected nothing more at 'P'"):
        parse_query("always P < 3 P")


def test_values_combined_by_arithmetic_read_back_as_they_print():
    # The Python API prints "(count(A) + count(B)) == 2"; typed back, it was
    # "cannot read '+ count(B) == 2'"
    from cpn.query import always, count, token

    for query in [always(count("A") + count("B") == 2), always(token("P") - 100 <= 350),
                  always(2 * count("A") < 5), always(10 / count("A") >= 1)]:
        assert str(parse_query(str(query))) == str(query)
    assert str(parse_query("always Power -100 <= 350")) == "always (Power - 100) <= 350"
    assert str(parse_query("never (count(A) * 2) > 3 or dead")) == \
        "never ((count(A) * 2) > 3 or dead)"
    assert str(parse_query("always count('My Buffer') == 2", ["My Buffer"])) == \
        "always count('My Buffer') == 2"  # a name with spaces, quoted both ways
    space = state_space(_counter_net())
    assert parse_query("always count(P) + count(Spare) == 1").check(space).holds is True
    assert parse_query("always P * 2 <= 4").check(space).holds is False


def _counter_net() -> Net:
    namespace: dict = {}
    exec(COUNTER, namespace)
    return namespace["net"]


def test_the_report_of_an_incomplete_graph_says_so():
    net = Net("grow")
    net.place("P", int, initial=[0])
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "P", "x + 1")
    text = str(report(state_space(net, max_states=3)))
    assert "Boundedness (tokens, in the states explored)" in text
    assert "Home markings\n  not computed: the graph is incomplete" in text


def test_cpn_step_starts_where_a_counterexample_leads(counter, capsys, tmp_path):
    assert main(["check", counter, "--query", "never P == 2", "--save", str(tmp_path)]) == 1
    trace = tmp_path / "never_P_eq_2.jsonl"
    script = tmp_path / "commands.txt"
    script.write_text("m\nq\n")
    capsys.readouterr()
    assert main(["step", counter, "--trace", str(trace), "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert "[t=0 step 2]>" in out and "1`2" in out  # P holds 2, after the 2 firings
    missing = tmp_path / "missing.jsonl"
    assert main(["step", counter, "--trace", str(missing)]) == 2
    said = " ".join(capsys.readouterr().err.split())  # the console wraps long lines
    assert said == f"cpn step: error: --trace {missing}: cannot read it: No such file or directory"
