"""Scripted stepper sessions, trace save/replay, and ``cpn step``/``replay``."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from cli.main import main
from cli.net_loading import load_net
from cli.step import main_step
from cpn import Net, Simulator, timed
from cpn.stepper import Message, ReplayError, Stepper, replay
from cpn.stepper.breakpoints import Recorder

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from fusion_nets import logging_workers
except ImportError:  # run as a package
    from tests.fusion_nets import logging_workers


def buffer_net() -> Net:
    """Items 1..3 go through a 2-slot buffer; consuming takes 5 time units."""
    net = Net("buffer")
    net.place("Ready", int, initial=[1, 2, 3])
    net.place("Buffer", int)
    net.place("Slots", str, initial=["slot", "slot"])
    net.place("Consumer", str, initial=["c"], timed=True)
    net.place("Done", int)
    net.transition("Produce")
    net.arc("Ready", "Produce", "x")
    net.arc("Slots", "Produce", "'slot'")
    net.arc("Produce", "Buffer", "x")
    net.transition("Consume")
    net.arc("Buffer", "Consume", "y")
    net.arc("Consumer", "Consume", "c")
    net.arc("Consume", "Slots", "'slot'")
    net.arc("Consume", "Consumer", "c@+5")
    net.arc("Consume", "Done", "y")
    return net


class Transcript(list):
    """What a stepper showed, and as the plain text a notebook prints."""

    @property
    def text(self) -> str:
        return "\n".join(map(str, self))


def session(net, lines, seed=0):
    shown = Transcript()
    stepper = Stepper(net, seed=seed, show=shown.append)
    stepper.session(lines, echo=True)
    return stepper, shown.text


def shown_by(stepper, command):
    """The items a stepper shows for one more command."""
    shown = []
    stepper.show = shown.append
    assert stepper.execute(command) is True
    return shown


def test_fire_by_number_fires_that_binding():
    stepper, text = session(buffer_net(), ["2"])
    sim = stepper.simulator
    # The list is Produce x=1, x=2, x=3: number 2 produces item 2.
    assert "  2  Produce  x=2" in text
    assert sim.tokens("Buffer") == [2]
    assert sorted(sim.tokens("Ready")) == [1, 3]
    assert "fired Produce<x=2>" in text
    assert [(r.transition, r.values) for r in stepper.trace] == [("Produce", {"x": 2})]


def test_undo_restores_marking_and_trace():
    net = buffer_net()
    stepper, text = session(net, ["1", "2", "u"])
    sim = stepper.simulator
    assert sim.tokens("Buffer") == [1]
    assert sim.steps == 1
    assert len(stepper.trace) == 1
    stepper.execute("u")
    assert sim.marking.freeze() == Simulator(net).marking.freeze()
    assert stepper.trace == []
    assert shown_by(stepper, "u") == [Message("? nothing to undo", "hint")]


def test_undo_takes_back_a_whole_run():
    stepper, _ = session(buffer_net(), ["1", "n 3"])
    assert stepper.simulator.steps == 4
    stepper.execute("u")
    assert stepper.simulator.steps == 1
    assert stepper.simulator.tokens("Buffer") == [1]


def test_a_run_that_fires_nothing_is_not_an_undo_point():
    # On a dead marking "n 5" and "t 50" fired nothing, yet each was one
    # more "undone; back at time 12, step 8" before the undo of the run.
    stepper, text = session(buffer_net(), ["n 100", "n 5", "t 50"])
    sim = stepper.simulator
    assert "fired 0 steps" in text
    stepper.execute("u")
    assert (sim.steps, sim.now) == (0, 0.0)
    assert shown_by(stepper, "u") == [Message("? nothing to undo", "hint")]


def test_place_breakpoint_stops_run():
    stepper, text = session(buffer_net(), ["b place Buffer len(tokens) >= 2", "n 100"])
    sim = stepper.simulator
    assert "breakpoint 1: place Buffer when len(tokens) >= 2" in text
    assert "stopped at a breakpoint" in text
    assert "breakpoint hit: place Buffer" in text
    assert len(sim.tokens("Buffer")) == 2  # stopped right when it held
    assert sim.steps < 6  # the whole run would fire 6 times


def test_transition_breakpoint_with_condition_on_variables():
    stepper, text = session(buffer_net(), ["b transition Consume y == 2", "t 100"])
    last = stepper.trace[-1]
    assert (last.transition, last.values["y"]) == ("Consume", 2)
    assert "breakpoint hit: transition Consume when y == 2" in text
    # Removing it lets the run finish: all three items consumed.
    stepper.execute("b del 1")
    stepper.execute("t 100")
    assert sorted(stepper.simulator.tokens("Done")) == [1, 2, 3]


def test_failing_breakpoint_condition_stops_and_reports():
    stepper, text = session(buffer_net(), ["b place Buffer tokens[3] > 0", "n 5"])
    assert stepper.simulator.steps == 1
    # A condition that fails is no hit: the run stopped for it, and says so.
    assert ("breakpoint place Buffer when tokens[3] > 0: its condition failed (IndexError: "
            "list index out of range); the run stopped there") in text
    assert "breakpoint hit" not in text and "Traceback" not in text


@pytest.mark.parametrize("command, hint", [
    ("99", "no binding 99: choose 1..3"),
    ("0", "no binding 0"),
    ("frobnicate", "unknown command 'frobnicate'"),
    ("n", "n takes a number of steps"),
    ("n -2", "n takes a positive number of steps"),
    ("n 1.5", "n takes a number of steps"),
    ("t soon", "t takes a time"),
    ("t -1", "is in the past"),
    ("r now", "'r' takes no argument"),
    ("a", "bindings are enabled now"),
    ("b place Nowhere len(tokens) > 1", "no place 'Nowhere'"),
    ("b place Buffer", "needs a condition"),
    ("b place Buffer len(tokens", "cannot parse the condition"),
    ("b place Buffer len(tokenz) > 1",
     "the condition reads tokenz, which it cannot see: a place condition sees tokens"),
    ("b transition Consume x == 2",
     "the condition reads x, which it cannot see: a condition of Consume sees its "
     "variables: "),
    ("b place Buffer __import__('os')",
     "the condition calls __import__, which it cannot: it may use len, sum, "),
    ("b place Buffer open('x') or len(tokens) > 1", "the condition calls open, which it "),
    ("b transition Nothing", "no transition 'Nothing'"),
    ("b del 4", "b del takes a breakpoint number"),
    ("b sometimes", "usage: b place"),
    ("m Nowhere", "no place 'Nowhere'"),
    ("save", "save takes a file name"),
    ("save /nonexistent-dir/x.jsonl", "cannot write"),
])
def test_bad_input_gives_one_line_hint(command, hint):
    net = buffer_net()
    stepper, _ = session(net, [])
    (message,) = shown_by(stepper, command)
    assert message.kind == "hint" and message.text.startswith("? ")
    assert "\n" not in message.text
    assert hint in message.text
    assert stepper.simulator.marking.freeze() == Simulator(net).marking.freeze()


def test_help_documents_every_command():
    stepper, text = session(buffer_net(), ["help"])
    for command in ["  3 ", "  r ", "n N", "t T", "  a ", "  l ", "m [PLACE]", "diff",
                    "b place NAME CONDITION", "b transition NAME", "  u ", "redo", "save FILE",
                    "  q "]:
        assert command in stepper.help() and command in text


def test_help_on_a_narrow_screen_puts_each_description_under_its_command():
    # At 40 columns the two columns wrapped into each other (the terminal
    # broke every line in the middle of its description).
    shown = []
    stepper = Stepper(buffer_net(), show=shown.append, width=lambda: 40)
    stepper.execute("help")
    lines = shown[-1].text.splitlines()
    assert max(map(len, lines)) <= 40
    commands = [line.strip() for line in lines if re.fullmatch(r"  \S.*", line)]
    assert commands == ["3", "r", "n N", "t T", "a", "l", "m [PLACE]", "diff", "u / undo",
                        "redo", "save FILE", "b", "b place NAME CONDITION",
                        "b transition NAME [COND]", "b del K / b clear", "help", "q / quit"]
    assert "        b place Buffer len(tokens) >= 2" in lines
    assert stepper.help(80).splitlines()[1] == (
        "  3           fire binding number 3 of the enabled list")


def test_advance_when_nothing_enabled_now_but_later():
    net = Net("late")
    net.place("P", int, initial=[timed(7, 4)], timed=True)
    net.place("Q", int)
    net.transition("Move")
    net.arc("P", "Move", "x")
    net.arc("Move", "Q", "x")
    stepper, text = session(net, ["1", "a", "m P", "1"])
    assert "the next event is at time 4: type a to advance the clock" in text
    assert "? nothing is enabled at time 0" in text  # "1" before advancing
    assert "clock advanced to 4" in text
    assert "1`7@4" in text  # m shows the timestamp
    assert stepper.simulator.tokens("Q") == [7]
    assert "nor ever will be" in text  # dead at the end
    assert stepper.trace[0].time == 4.0


def test_diff_shows_removed_and_added_tokens():
    _, text = session(buffer_net(), ["diff", "1", "n 1"])
    assert "marking diff after each command: on" in text
    assert "Ready: -1`1" in text and "Buffer: +1`1" in text
    assert "Consumer: -1`'c'@0 +1`'c'@5" in text


def test_saved_trace_replays_to_the_same_marking(tmp_path):
    # Delays drawn from the model's rng: the replay must reuse the seed.
    net = buffer_net()
    net.transitions["Consume"].delay = "int(rng.integers(1, 10))"
    trace = tmp_path / "run.jsonl"
    commands = ["2", "r", "n 2", "t 12", "a", "1", "n 1", "u", f"save {trace}"]
    stepper, text = session(net, commands, seed=7)
    assert "clock advanced to" in text and stepper.simulator.now > 12
    assert f"saved {len(stepper.trace)} firings to {trace}" in text
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert lines[0]["format"] == "cpn-trace/1" and lines[0]["seed"] == 7
    assert lines[1] == {"step": 1, "time": 0.0, "transition": "Produce",
                        "values": {"x": "2"}}
    replayed = replay(net, trace)
    original = stepper.simulator
    assert replayed.now == original.now
    assert replayed.steps == original.steps
    assert replayed.marking.freeze(with_time=True) == original.marking.freeze(with_time=True)


def test_replay_mismatch_names_the_step(tmp_path):
    net = buffer_net()
    trace = tmp_path / "run.jsonl"
    session(net, ["1", "1", "1", f"save {trace}"])
    lines = trace.read_text().splitlines()
    record = json.loads(lines[2])  # step 2
    record["values"] = {"x": "42"}
    lines[2] = json.dumps(record)
    trace.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError, match=r"step 2: Produce<x=42> at time 0 is not "
                                          r"enabled \(enabled: .*\)"):
        replay(net, trace)
    # A trace of another net says so where it fails (cpn step --trace and the
    # browser said nothing of it)
    lines[0] = json.dumps({**json.loads(lines[0]), "net": "shop"})
    trace.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError, match=r"is not enabled \(enabled: .*\); the trace was "
                                          r"saved from net 'shop', this is 'buffer'$"):
        replay(net, trace)


@pytest.mark.parametrize("text, refused", [
    ("", "not a saved trace: it has no header line"),
    ('{"step": 1, "time": 0.0, "transition": "Produce", "values": {"x": "1"}}\n',
     "not a saved trace: it has no header line"),
    ('{"format": "cpn-trace/1", "net": "buffer", "seed": "abc"}\n',
     "the header's seed 'abc' is not a whole number >= 0")])
def test_a_file_that_is_no_saved_trace_is_refused_with_its_name(tmp_path, text, refused):
    # An empty file, or one cut at its head, replayed as nothing at all.
    trace = tmp_path / "run.jsonl"
    trace.write_text(text)
    with pytest.raises(ReplayError, match=re.escape(f"{trace}: {refused}")):
        replay(buffer_net(), trace)


def test_cpn_replay_notes_a_trace_saved_from_another_net(tmp_path, capsys):
    trace = tmp_path / "run.jsonl"
    trace.write_text('{"format": "cpn-trace/1", "net": "Other", "seed": 0}\n')
    assert main(["replay", "puppet", str(trace)]) == 0
    assert f"note: {trace} was saved from net 'Other'; this is 'PuPPET'" in " ".join(
        capsys.readouterr().out.split())
    trace.write_text("")
    assert main(["replay", "puppet", str(trace)]) == 2


def test_a_net_that_is_a_directory_or_a_registry_for_the_built_in_is_refused(tmp_path,
                                                                            capsys):
    assert main(["step", str(tmp_path)]) == 2
    assert (f"{tmp_path} is a directory: give a net's .py or .toml file"
            in " ".join(capsys.readouterr().err.split()))
    assert main(["step", "puppet", "--functions", "nets.puppet"]) == 2
    assert "takes a registry; puppet is built in" in " ".join(capsys.readouterr().err.split())


NET_FILE = textwrap.dedent("""
    from cpn import Net

    net = Net("counter")
    net.place("P", int, initial=[0])
    net.transition("Inc", guard="x < 3")
    net.arc("P", "Inc", "x")
    net.arc("Inc", "P", "x + 1")
""")


def test_cpn_step_on_a_python_file(tmp_path, capsys):
    path = tmp_path / "counter_net.py"
    path.write_text(NET_FILE)
    script = tmp_path / "commands.txt"
    trace = tmp_path / "counter.jsonl"
    script.write_text(f"1\n1\n99\nsave {trace}\nq\n")
    assert main_step(["step", str(path), "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert "net counter" in out
    assert "fired Inc<x=1>" in out
    assert "? no binding 99: choose 1..1" in out
    assert "Traceback" not in out

    assert main_step(["replay", str(path), str(trace)]) == 0
    out = capsys.readouterr().out
    assert "replayed 2 firings" in out
    assert "1`2" in out  # the marking reached: P holds 2


def test_cpn_step_with_build_net_and_bad_nets(tmp_path, capsys):
    path = tmp_path / "built.py"
    path.write_text(NET_FILE.replace('net = Net("counter")', 'def build_net():\n'
                                     '    net = Net("built")')
                    .replace("\nnet.", "\n    net.") + "    return net\n")
    script = tmp_path / "q.txt"
    script.write_text("q\n")
    assert main_step(["step", str(path), "--script", str(script)]) == 0
    assert "net built" in capsys.readouterr().out

    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    assert main_step(["step", str(empty)]) == 2
    assert "neither a 'net' attribute nor a build_net()" in capsys.readouterr().err
    assert main_step(["step", str(tmp_path / "missing.py")]) == 2
    said = capsys.readouterr()
    assert said.err.startswith("cpn step: error: ") and "no such file" in said.err
    assert said.out == ""  # errors on stderr, apart from a session's output


def test_a_failing_inscription_is_reported_and_its_command_undone():
    net = Net("divide")
    net.place("P", int, initial=[2, 0])
    net.place("Q", int)
    net.transition("Divide")
    net.arc("P", "Divide", "x")
    net.arc("Divide", "Q", "10 // x")
    stepper, text = session(net, ["n 5"])
    assert "error: net 'divide': firing Divide<x=0>" in text and "ZeroDivisionError" in text
    assert "Traceback" not in text
    # The whole run is undone, including the firing that worked.
    assert stepper.simulator.tokens("P") == [2, 0] and stepper.trace == []
    stepper.execute("1")  # x=2 alone still fires
    assert stepper.simulator.tokens("Q") == [5]


def test_cpn_step_puppet_steps_the_built_in_net_to_the_easy_schedule(tmp_path, capsys):
    """``cpn step puppet``: the three-job case whose EASY schedule is 0, 100,
    200 (job 3 must not delay job 2), reached by running to the end; the
    trace saved on the way replays to the same marking."""
    script = tmp_path / "commands.txt"
    trace = tmp_path / "puppet.jsonl"
    script.write_text(f"1\nt 5000\nm Finished\nsave {trace}\nq\n")
    assert main_step(["step", "puppet", "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert "net PuPPET" in out and "Traceback" not in out
    flat = re.sub(r"\s+", " ", out)  # the table wraps long tokens
    finished = re.findall(r"Job\(id=(\d)[^)]*\), ([\d.]+)\)", flat)
    assert {int(job): float(end) for job, end in finished} == {1: 100.0, 2: 200.0, 3: 1200.0}

    assert main_step(["replay", "puppet", str(trace)]) == 0
    assert "time 1200" in capsys.readouterr().out


def test_without_a_front_end_the_stepper_prints_plain_text(capsys):
    stepper = Stepper(buffer_net())
    stepper.session(["m Slots"])
    out = capsys.readouterr().out
    assert out.startswith("time 0   step 0   net buffer\n"
                          "  place     tokens  colour\n"
                          "  Ready          3  int\n")
    assert "  1  Produce  x=1\n" in out
    assert out.endswith("marking at time 0 (count`value@timestamp)\n"
                        "  place  tokens  multiset\n"
                        "  Slots       2  2`'slot'\n")


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("net, place, transition, nested", [
    ("puppet", "Finished len(tokens) >= 2", "Submit job.id == 2",
     "NAME is a full path (Scheduler/Submit) or its last part when that is unique."),
    ("producer_consumer", "Buffer len(tokens) >= 2", "Produce n == 2",
     "NAME is the name of a place or transition."),
    ("buffer", "Buffer len(tokens) >= 2", "Produce x == 2",
     "NAME is the name of a place or transition."),
])
def test_help_examples_name_nodes_of_the_net_being_stepped(net, place, transition, nested):
    """The breakpoint examples of ``help`` use a place and a transition of
    the net (a short name where it is unique), and they work as typed."""
    if net == "producer_consumer":
        net = str(ROOT / "examples" / "producer_consumer.py")
    stepper = Stepper(buffer_net() if net == "buffer" else load_net(net),
                      show=lambda item: None)
    help_text = stepper.help()
    examples = re.findall(r"^ {4,}(b (?:place|transition) .*)$", help_text, re.MULTILINE)
    assert examples == [f"b place {place}", f"b transition {transition}"]
    assert nested in help_text.splitlines()
    paths = ({p.path for p in stepper.simulator.net.places}
             | {t.path for t in stepper.simulator.net.transitions})
    named = [example.split()[2] for example in examples]
    named += re.findall(r"full path \((\S+)\)", help_text)
    assert all(any(path == name or path.endswith("/" + name) for path in paths)
               for name in named)
    for number, example in enumerate(examples, 1):
        (message,) = shown_by(stepper, example)
        assert message.kind == "info" and message.text.startswith(f"breakpoint {number}: ")


def test_redo_goes_forward_again_until_a_new_command():
    net = buffer_net()
    stepper, _ = session(net, ["1", "n 3"])
    sim = stepper.simulator
    reached, trace, time = sim.marking.freeze(), stepper.trace, sim.now
    stepper.execute("u")
    stepper.execute("u")
    assert sim.steps == 0 and stepper.trace == []
    stepper.execute("redo")
    assert sim.steps == 1 and sim.tokens("Buffer") == [1]
    assert shown_by(stepper, "redo")[0] == Message(f"redone; forward to time {time:g}, "
                                                   "step 4")
    assert sim.marking.freeze() == reached and stepper.trace == trace
    stepper.execute("u")
    stepper.execute("2")  # a new command: what was undone cannot come back
    assert shown_by(stepper, "redo") == [Message("? nothing to redo", "hint")]


def test_undo_redo_and_quit_are_spelled_out_too(tmp_path, capsys):
    """A script of ``cpn replay --script`` said "unknown command 'undo'"
    while ``redo`` and ``help`` were words; the help shows both spellings."""
    path = tmp_path / "counter_net.py"
    path.write_text(NET_FILE)
    trace = tmp_path / "counter.jsonl"
    stepper, _ = session(load_net(str(path)), ["1", f"save {trace}"])
    script = tmp_path / "commands.txt"
    script.write_text("1\nundo\nredo\nundo now\nquit\n1\n")
    assert main(["replay", str(path), str(trace), "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert "[t=0 step 2]> undo\nundone; back at time 0, step 1\n" in out
    assert "[t=0 step 1]> redo\nredone; forward to time 0, step 2\n" in out
    assert "? 'undo' takes no argument" in out
    assert out.rstrip().endswith("[t=0 step 2]> quit")  # the 1 after it is not read
    assert "unknown command" not in out
    assert "  u / undo    undo the last command" in stepper.help(80)
    assert "  q / quit    quit" in stepper.help(80)


def test_stop_ends_a_run_after_the_firing_in_progress():
    stepper, _ = session(buffer_net(), [])
    stepper.recorder.fired = lambda sim, t, values, fired=stepper.recorder.fired: (
        fired(sim, t, values) or (stepper.stop() if sim.steps == 2 else False))
    shown = shown_by(stepper, "n 100")
    assert shown[0] == Message("fired 2 steps; stopped on request (Ctrl-C or Stop); time 0")
    assert stepper.simulator.steps == 2
    stepper.execute("n 100")  # the request was for that run only
    assert stepper.simulator.steps == 6
    stepper.execute("u")
    stepper.stop()  # while no run goes on: ignored
    stepper.recorder.fired = Recorder.fired.__get__(stepper.recorder)
    stepper.execute("n 100")
    assert stepper.simulator.steps == 6


def test_after_an_undo_the_same_commands_choose_and_draw_the_same():
    """Undo puts back the random streams too: the binding a step picks
    among ties, and what inscriptions draw from ``rng``."""
    net = Net("dice", env={})
    net.place("Cups", int, initial=list(range(20)))
    net.place("Rolls", tuple)
    net.transition("Roll")
    net.arc("Cups", "Roll", "cup")
    net.arc("Roll", "Rolls", "(cup, int(rng.integers(1_000_000)))")
    stepper, _ = session(net, ["n 3"])
    first = stepper.simulator.tokens("Rolls")
    stepper.execute("u")
    assert stepper.simulator.tokens("Rolls") == []
    stepper.execute("n 3")
    assert stepper.simulator.tokens("Rolls") == first
    sim = Simulator(net, seed=4)
    state = sim.checkpoint()
    sim.run(max_steps=5)
    rolled = sim.tokens("Rolls")
    sim.restore(state)
    sim.run(max_steps=5)
    assert sim.tokens("Rolls") == rolled and len(set(rolled)) == 5


def test_times_past_a_million_are_shown_in_full():
    # Six significant digits showed 1234566 and 1234570.5 alike, 1.23457e+06:
    # a clock in seconds passes a million after 11.6 days.
    net = Net("tick")
    net.place("P", int, initial=[timed(0, 0.5)], timed=True)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "P", "x + 1@+10")
    stepper, text = session(net, ["t 1234566", "m P"])
    assert stepper.prompt() == "[t=1234566 step 123457]> "
    assert "1`123457@1234570.5" in text and "e+06" not in text


def test_commands_without_arguments_refuse_them_and_save_reads_a_home_directory(
        tmp_path, monkeypatch):
    # "l 5" listed every binding, ignoring the 5; "save ~/run.jsonl" looked
    # for a directory named ~
    monkeypatch.setenv("HOME", str(tmp_path))
    stepper, text = session(buffer_net(), ["l 5", "diff on", "1", "save ~/run.jsonl"])
    assert "? 'l' takes no argument" in text and "? 'diff' takes no argument" in text
    assert "saved 1 firing to ~/run.jsonl" in text
    assert (tmp_path / "run.jsonl").exists()


def test_a_place_whose_name_has_spaces_takes_a_quoted_breakpoint():
    # "b place My Buffer ..." read the place 'My'; quoting gave '"My'
    net = Net("spaces")
    net.place("My Buffer", int, initial=[1, 2])
    net.place("Out", int)
    net.transition("Move")
    net.arc("My Buffer", "Move", "x")
    net.arc("Move", "Out", "x")
    stepper, text = session(net, ['b place "My Buffer" len(tokens) <= 1', "n 5"])
    assert "breakpoint 1: place My Buffer when len(tokens) <= 1" in text
    assert "fired 1 step; stopped at a breakpoint" in text
    _, text = session(net, ['b place "My Buffer len(tokens) <= 1'])
    assert "? the place name \"My has no closing quote" in text


def two_logging_workers() -> Net:
    """W1 and W2, each on its own queue, their Logs fused with AllLog."""
    return logging_workers({"Queue": [1, 2, 3], "Other": [4]})


@pytest.mark.parametrize("name", ["log", "AllLog", "W1/Log", "W2/Log", "Log"])
def test_a_fused_place_answers_to_every_name_the_simulator_takes(name):
    # "m W1/Log" and "b place AllLog ..." said "? no place 'W1/Log' (known: log, ...)",
    # though sim.tokens("W1/Log") and Breakpoint(place="W1/Log") found it.
    stepper, text = session(two_logging_workers(), ["1", f"m {name}",
                                                f"b place {name} len(tokens) >= 3", "n 10"])
    assert "? no place" not in text
    assert "  log         1  1`1" in text  # m, after the first firing
    assert "breakpoint 1: place log when len(tokens) >= 3" in text
    assert "breakpoint hit: place log" in text
    assert len(stepper.simulator.tokens("AllLog")) == 3


def test_a_port_answers_to_its_path_in_the_module_and_an_unknown_name_lists_the_places():
    stepper, _ = session(two_logging_workers(), [])
    assert shown_by(stepper, "m W1/Jobs")[1].rows[0][0] == "Queue"
    hint, = shown_by(stepper, "m W3/Log")
    assert hint == Message("? no place 'W3/Log' (known: log, Queue, Other)", "hint")
