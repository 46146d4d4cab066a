"""Draws of the model's ``rng`` as choices: explored, recorded, repeated.

A simulation samples each draw.  A state space must instead explore every
outcome of it, and a counterexample must repeat the outcomes its path
took.  :class:`Choices` stands in for the model's ``rng`` (through
``Simulator.drawing_from``): each draw with finitely many outcomes
(``rng.choice``, ``rng.integers``) takes the outcome its ``script`` names
(the first one past the script) and records how many outcomes it had, so
that an explorer can try the others.  A draw with infinitely many outcomes
(``rng.exponential``, ``rng.random``...) cannot be explored and raises
:class:`DrawRefused`, and so does a draw of more outcomes than a state
space may hold (``most``): ``rng.integers(0, 10**9)`` is as good as
infinite to an explorer, which would try its outcomes one by one.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence


class DrawRefused(RuntimeError):
    """A draw that cannot be explored (a continuous distribution)."""


class Choices:
    """The model's ``rng`` as a sequence of choices: ``taken`` are the
    outcome indices the draws took so far, ``counts`` how many outcomes
    each had.  A draw of more than ``most`` outcomes (None: no limit) is
    refused."""

    def __init__(self, script: Sequence[int] = (), most: int | None = None):
        self.most = most
        self.restart(script)

    def restart(self, script: Sequence[int] = ()) -> None:
        """Forget the draws made: the next ones follow ``script``."""
        self.script = tuple(script)
        self.taken: list[int] = []
        self.counts: list[int] = []

    def _pick(self, count: int, what: str) -> int:
        position = len(self.taken)
        if self.most is not None and count > self.most:
            raise DrawRefused(f"it draws {what} of {count:,} outcomes, more than the "
                              f"{self.most:,} states the state space may hold (max_states): "
                              "a state space explores every outcome of a draw (draw from "
                              "fewer outcomes, or allow more states)")
        index = self.script[position] if position < len(self.script) else 0
        if not 0 <= index < count:
            raise DrawRefused(f"draw {position + 1} has {count} outcomes: outcome "
                              f"{index} does not exist (the trace is of another run)")
        self.taken.append(index)
        self.counts.append(count)
        return index

    def choice(self, options, size=None, replace=True, p=None, shuffle=True):
        """One of ``options`` (a sequence, or ``range(options)`` for an int)."""
        if size is not None:
            raise DrawRefused("rng.choice(..., size=...) draws several at once: draw them "
                              "one by one so that each can be explored")
        options = range(options) if isinstance(options, int) else list(options)
        if not options:
            raise ValueError("rng.choice: no options to choose from")
        return options[self._pick(len(options), "rng.choice()")]

    def integers(self, low, high=None, size=None, endpoint=False):
        """An integer of ``[low, high)`` (``[0, low)`` without ``high``)."""
        if size is not None:
            raise DrawRefused("rng.integers(..., size=...) draws several at once: draw "
                              "them one by one so that each can be explored")
        low, high = (0, low) if high is None else (low, high)
        high += 1 if endpoint else 0
        if high <= low:
            raise ValueError(f"rng.integers: empty range [{low}, {high})")
        return low + self._pick(high - low, "rng.integers()")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise DrawRefused(f"it draws rng.{name}(): a state space explores every outcome "
                          "of a draw, and this one has infinitely many (only rng.choice "
                          "and rng.integers can be explored; replace the others by data, "
                          "e.g. a trace of the random events)")


def alternatives(choices: Choices) -> Iterator[tuple[int, ...]]:
    """The scripts of the runs not tried yet whose draws agree with this
    one's up to some draw past its script, and differ there: the last
    draw's last outcome first.  Generated one at a time, so that a draw of
    many outcomes costs no memory until its outcomes are tried."""
    taken, counts, start = tuple(choices.taken), tuple(choices.counts), len(choices.script)
    return (taken[:position] + (other,)
            for position in range(len(taken) - 1, start - 1, -1)
            for other in range(counts[position] - 1, 0, -1))
