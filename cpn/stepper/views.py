"""What the stepper shows of the simulator's state: the clock's status,
the enabled bindings, the marking and what a command changed in it, each
as a :class:`Message` text or a :class:`Table`."""

from __future__ import annotations

from collections import Counter

from ..marking import Marking
from ..simulator import Binding, Simulator
from ..times import time_text
from .messages import Table


def why_nothing_enabled(sim: Simulator) -> str:
    """Nothing is enabled now: whether the clock can advance, and to when."""
    following = sim.next_event_time()
    if following is None:
        return (f"nothing is enabled at time {time_text(sim.now)}, nor ever will be "
                "(a dead marking): u to undo, q to quit")
    return (f"nothing is enabled at time {time_text(sim.now)}; the next event is at time "
            f"{time_text(following)}: type a to advance the clock")


def places_table(sim: Simulator) -> Table:
    """Each place with its number of tokens and its colour."""
    counts = sim.marking.counts()
    return Table(("place", "tokens", "colour"),
                 tuple((place.path, str(counts[place.path]),
                        place.place.colour_name + (" (timed)" if place.timed else ""))
                       for place in sim.net.places),
                 right_aligned=frozenset({1}))


def bindings_table(bindings: list[Binding]) -> Table:
    """The bindings numbered from 1, as the user fires them."""
    return Table(None, tuple(
        (str(number), binding.transition,
         ", ".join(f"{k}={v!r}" for k, v in binding.values.items()))
        for number, binding in enumerate(bindings, 1)), right_aligned=frozenset({0}))


def marking_table(marking: Marking, paths: list[str], full: bool) -> Table:
    """The tokens of the places ``paths`` with their timestamps, in
    ``full`` or the first dozen of each."""
    return Table(("place", "tokens", "multiset"), tuple(
        (path, str(len(marking.timed(path))),
         Marking.format_tokens(marking.timed(path), limit=10**9 if full else 12))
        for path in paths), right_aligned=frozenset({1}))


def marking_changes(before: Marking, after: Marking) -> str:
    """The tokens each place lost (``-``) and gained (``+``), with timestamps."""
    lines = []
    for path in after:
        old = Counter((repr(v), s) for v, s in before.timed(path))
        new = Counter((repr(v), s) for v, s in after.timed(path))
        removed, added = old - new, new - old
        if not removed and not added:
            continue
        parts = [f"-{n}`{v}" + ("" if s is None else f"@{time_text(s)}")
                 for (v, s), n in removed.items()]
        parts += [f"+{n}`{v}" + ("" if s is None else f"@{time_text(s)}")
                  for (v, s), n in added.items()]
        lines.append(f"  {path}: {' '.join(parts)}")
    return "changes:\n" + "\n".join(lines) if lines else "changes: none"
