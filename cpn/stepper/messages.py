"""What the stepper shows: lines of text and tables, each with a kind a
front end may style; and the exception that turns bad input into a hint.

The stepper never decides how things look: a terminal colours them
(``cli/terminal.py``), a notebook or a test prints them as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: What a message is, so a front end can style it: ``heading`` (the clock
#: line, a table's title), ``info`` (what a command did), ``hint`` (bad
#: input, starting with ``?``), ``error`` (a failure of the net),
#: ``breakpoint`` (one was hit), ``waiting`` (why nothing is enabled),
#: ``changes`` (the marking diff), ``note`` (an aside), ``command`` (an
#: echoed command line) and ``help``.
Kind = Literal["heading", "info", "hint", "error", "breakpoint", "waiting", "changes",
               "note", "command", "help"]


@dataclass(frozen=True)
class Message:
    """One line (or a few) of text the stepper shows."""

    text: str
    kind: Kind = "info"

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Table:
    """Rows of text cells under optional column headers.  Only the last
    column may be long (a binding's values, a place's tokens): a front end
    wraps it and keeps the others on one line.  A right-aligned column is
    a number a user reads or types (a binding's): never to be cut."""

    headers: tuple[str, ...] | None
    rows: tuple[tuple[str, ...], ...]
    right_aligned: frozenset[int] = frozenset()  # column numbers, from 0

    def __str__(self) -> str:
        lines = ([self.headers] if self.headers else []) + list(self.rows)
        if not lines:
            return ""
        widths = [max(len(line[c]) for line in lines) for c in range(len(lines[0]))]
        return "\n".join(
            "  " + "  ".join(cell.rjust(width) if c in self.right_aligned
                             else cell.ljust(width)
                             for c, (cell, width) in enumerate(zip(line, widths))).rstrip()
            for line in lines)


class Hint(Exception):
    """Bad input: shown to the user as one line, never as a traceback."""
