"""``cpn step`` as a person uses it: the installed ``cpn`` command in a
pseudo-terminal of 80 columns, so the line editor (prompt_toolkit) and the
terminal rendering (rich) run as they do for a user."""

from __future__ import annotations

import io
import os
import re
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cli.step import main_step

pexpect = pytest.importorskip("pexpect", reason="pexpect is in the test extra")
pytestmark = pytest.mark.skipif(sys.platform == "win32",
                                reason="pseudo-terminals are POSIX only")

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).parent / "cpn"
# Control sequences (colours, cursor moves, modes), carriage returns and the
# spaces that pad table rows: what is left is the text a person reads.  (The
# space after a prompt is a cursor move, so prompts are waited for without it.)
CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
                     r"|\x1b[@-Z\\-_=>]|\r")
PADDING = re.compile(r"[ \t]+\n")


def readable(output: str) -> str:
    return PADDING.sub("\n", CONTROL.sub("", output))
TIMEOUT = 60  # seconds for one answer: generous, the machine may be busy


def cpn_command() -> tuple[list[str], dict[str, str]]:
    """The ``cpn`` script of the installed package, else ``python -m cli.main``."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm-256color", COLUMNS="80", LINES="40",
               # The test's pseudo-terminal does not answer cursor position
               # requests as a terminal emulator would.
               PROMPT_TOOLKIT_NO_CPR="1")
    if SCRIPT.exists():
        return [str(SCRIPT)], env
    env["PYTHONPATH"] = str(ROOT)
    return [sys.executable, "-m", "cli.main"], env


class Terminal:
    """A ``cpn`` process in a pseudo-terminal: type lines, wait for text."""

    def __init__(self, arguments: list[str], cwd: Path):
        command, env = cpn_command()
        self.child = pexpect.spawn(command[0], command[1:] + arguments, cwd=str(cwd),
                                   env=env, encoding="utf-8", dimensions=(40, 80))
        self.raw = ""
        self.screen = ""  # all output so far, as text
        self.read_up_to = 0

    def wait_for(self, text: str) -> str:
        """Wait until ``text`` is shown after what was waited for before;
        returns the output in between."""
        deadline = time.monotonic() + TIMEOUT
        while (found := self.screen.find(text, self.read_up_to)) < 0:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not shown within {TIMEOUT} s; "
                                     f"the output ends with:\n{self.screen[-1500:]}")
            try:
                self.raw += self.child.read_nonblocking(65536, timeout=0.5)
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                raise AssertionError(f"cpn ended before showing {text!r}; its output "
                                     f"ends with:\n{self.screen[-1500:]}") from None
            self.screen = readable(self.raw)
        between = self.screen[self.read_up_to:found + len(text)]
        self.read_up_to = found + len(text)
        return between

    def type(self, line: str, *shown: str) -> str:
        """Type ``line`` and Enter; wait for each text of ``shown`` in turn
        (not for the echo of ``line``: the line editor redraws it piecemeal);
        returns the output up to the last."""
        self.child.send(line + "\r")
        return "".join(self.wait_for(text) for text in shown)

    def exit_status(self) -> int:
        self.child.expect(pexpect.EOF, timeout=TIMEOUT)
        self.child.close()
        return self.child.exitstatus


@pytest.fixture
def terminals():
    started: list[Terminal] = []
    yield lambda arguments, cwd: started.append(Terminal(arguments, cwd)) or started[-1]
    for terminal in started:
        terminal.child.close(force=True)


def test_a_stepping_session_in_a_terminal(tmp_path, terminals):
    """Every kind of command typed at the prompt of ``cpn step puppet``,
    then ``cpn replay`` of the trace saved on the way."""
    term = terminals(["step", "puppet"], tmp_path)
    status = term.wait_for("type help for the commands, q (or Ctrl-D) to quit")
    term.wait_for("[t=0 step 0]>")
    # At 80 columns a long binding wraps under its own column.
    assert ("\n  1  Scheduler/Submit  queue=(), signal=False, job=Job(id=1, st=0, rt=100, "
            "js=3,\n                       wt=100, jp=300.0)\n") in status

    listed = term.type("l", "enabled (1):", "[t=0 step 0]>")
    assert "\n  1  Scheduler/Submit  queue=(), signal=False" in listed
    term.type("1", "fired Scheduler/Submit<queue=(), signal=False, job=Job(id=1,",
              "[t=0 step 1]>")

    term.type("b transition Submit job.id == 3",
              "breakpoint 1: transition Scheduler/Submit when job.id == 3", "[t=0 step 1]>")
    ran = term.type("t 5000", "breakpoint hit: transition Scheduler/Submit when job.id == 3",
                    "[t=2 step 6]>")  # job 3 arrives at time 2
    assert "fired 5 steps; stopped at a breakpoint; time 2\n" in ran
    term.type("u", "undone; back at time 0, step 1", "[t=0 step 1]>")
    term.type("b clear", "breakpoints cleared", "[t=0 step 1]>")
    term.type("t 150", "fired 9 steps; time 150", "[t=150 step 10]>")

    # Ctrl-C drops the line being typed; the session goes on.
    term.child.send("half a line")
    term.child.sendcontrol("c")
    term.wait_for("(q or Ctrl-D quits)")
    term.wait_for("[t=150 step 10]>")

    help_text = term.type("help", "Bad input only prints a hint", "[t=150 step 10]>")
    assert "b place Finished len(tokens) >= 2" in help_text
    assert "b transition Submit job.id == 2" in help_text
    term.type("save puppet.jsonl", "saved 10 firings to puppet.jsonl", "[t=150 step 10]>")
    term.child.send("q\r")
    assert term.exit_status() == 0
    assert "Traceback" not in term.screen
    assert max(len(line) for line in term.screen.splitlines() if "]>" not in line) <= 80

    # The trace fires again to the same marking; Ctrl-D ends that session.
    again = terminals(["replay", "puppet", "puppet.jsonl", "--step"], tmp_path)
    again.wait_for("replayed 10 firings of puppet.jsonl: time 150, step 10\n")
    again.wait_for("[t=150 step 10]>")
    running = again.type("m Running", "marking at time 150", "[t=150 step 10]>")
    assert ("Running 1 1`Job(id=2, st=1, rt=100, js=4, wt=100, jp=400.0, et=100.0)@200"
            in " ".join(running.split()))  # job 2 runs until 200 (wrapped at 80 columns)
    again.child.sendcontrol("d")
    assert again.exit_status() == 0
    assert "Traceback" not in again.screen


def test_ctrl_c_stops_a_long_run_and_keeps_what_it_fired(tmp_path, terminals):
    """It threw the whole run away ("interrupted: the command was undone")."""
    net = tmp_path / "ticks.py"
    net.write_text(textwrap.dedent("""\
        from cpn import Net
        net = Net("ticks")
        net.place("P", int, initial=[0])
        net.transition("Tick")
        net.arc("P", "Tick", "x")
        net.arc("Tick", "P", "x + 1")
    """))
    term = terminals(["step", str(net)], tmp_path)
    term.wait_for("[t=0 step 0]>")
    term.child.send("n 1000000000\r")
    time.sleep(1.5)  # some firings
    term.child.sendcontrol("c")
    said = term.wait_for("stopped on request (Ctrl-C or Stop); time 0")
    fired = int(re.search(r"fired (\d+) steps", said).group(1))
    assert fired > 0
    term.wait_for(f"[t=0 step {fired}]>")
    term.type("u", "undone; back at time 0, step 0", "[t=0 step 0]>")
    term.child.send("q\r")
    assert term.exit_status() == 0
    assert "Traceback" not in term.screen


def test_values_are_shown_as_they_are_not_as_markup(tmp_path, capsys):
    """Tokens and colour names with square brackets (rich's markup) are
    shown whole."""
    path = tmp_path / "brackets.py"
    path.write_text(textwrap.dedent("""
        from cpn import Net

        net = Net("brackets")
        net.place("Tags", str, initial=["[bold]x", "[red]"])
    """))
    script = tmp_path / "m.txt"
    script.write_text("m\n")
    assert main_step(["step", str(path), "--script", str(script)]) == 0
    assert "1`'[bold]x' ++ 1`'[red]'" in capsys.readouterr().out


def test_piped_input_is_read_line_by_line_without_the_line_editor(tmp_path, monkeypatch,
                                                                  capsys):
    """Standard input that is not a terminal: plain lines, no greeting, the
    end of input ends the session."""
    path = tmp_path / "counter.py"
    path.write_text(textwrap.dedent("""
        from cpn import Net

        net = Net("counter")
        net.place("P", int, initial=[0])
        net.transition("Inc", guard="x < 1")
        net.arc("P", "Inc", "x")
        net.arc("Inc", "P", "x + 1")
    """))
    monkeypatch.setattr("sys.stdin", io.StringIO("1\nzz\n"))
    assert main_step(["step", str(path)]) == 0
    out = capsys.readouterr().out
    assert "[t=0 step 0]> fired Inc<x=0> at time 0\n" in out
    assert "[t=0 step 1]> ? unknown command 'zz'; type help for the commands\n" in out
    assert out.endswith("[t=0 step 1]> \n")
    assert "Ctrl-D" not in out
