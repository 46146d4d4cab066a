"""The stepper in a terminal: ``rich`` draws what it shows, ``prompt_toolkit``
reads what the user types.

:class:`cpn.stepper.Stepper` only says *what* to show (messages of a kind,
tables of text cells) and takes commands as lines; this is the front end
that ``cpn step`` and ``cpn replay --step`` put on it.  Messages are
coloured by kind; in tables only the last column (a binding's values, a
place's tokens) wraps, under itself, so a long job record stays readable at
80 columns (on a narrower screen it goes under its row, and the numbers
stay whole: ``cli/terminal_tables.py``).  In a terminal the prompt has line
editing and history (the arrow keys), Ctrl-C drops the line being typed and
Ctrl-D quits; when the input or output is not a terminal, lines are read
plainly.
"""

from __future__ import annotations

import sys
from typing import Callable, Iterator

from rich.console import Console
from rich.text import Text

from cpn.stepper import Message, Stepper, Table

from .terminal_tables import fitted

#: The style of each kind of message (kinds not listed are plain).
STYLES = {"heading": "bold", "hint": "yellow", "error": "red", "breakpoint": "magenta",
          "waiting": "cyan", "changes": "green", "note": "dim"}

GREETING = "type help for the commands, q (or Ctrl-D) to quit"


def make_console(stderr: bool = False) -> Console:
    """A console that prints values as they are (no guessing of numbers or
    paths to colour), on standard output or ``stderr``."""
    return Console(highlight=False, stderr=stderr)


def show_on(console: Console) -> Callable[[Message | Table], None]:
    """The ``show`` of a stepper that draws on ``console``."""
    def show(item: Message | Table) -> None:
        if isinstance(item, Table):
            console.print(fitted(item, console.width))
        else:
            console.print(Text(item.text, style=STYLES.get(item.kind, "")))
    return show


def interact(stepper: Stepper, console: Console) -> None:
    """A stepping session on the terminal, until ``q`` or the end of input."""
    stepper.session(typed_commands(stepper, console))


def typed_commands(stepper: Stepper, console: Console) -> Iterator[str]:
    """Lines typed by the user, each read after the previous one ran (so the
    prompt shows the current clock)."""
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    if terminal:
        # Imported here: it takes a noticeable time, which the other
        # commands of ``cpn`` need not pay.
        from prompt_toolkit import PromptSession

        read = PromptSession().prompt
        console.print(Text(GREETING, style=STYLES["note"]))
    else:
        def read(prompt: str) -> str:
            console.print(Text(prompt), end="")
            return input()
    while True:
        try:
            yield read(stepper.prompt())
        except KeyboardInterrupt:
            if not terminal:  # no line being typed to drop: stop
                console.print()
                return
            console.print(Text("(q or Ctrl-D quits)", style=STYLES["note"]))
        except EOFError:
            console.print()
            return
