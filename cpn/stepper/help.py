"""The stepper's help: its commands, with examples that name nodes of the
net being stepped (a help that names nodes the net lacks only misleads)."""

from __future__ import annotations

import dataclasses
import textwrap
import typing
from typing import Any

from ..simulator import Simulator
from .node_names import short_name

#: The commands: what is typed, what it does, and perhaps an example
#: ({place} and {transition} are filled with nodes of the net), in groups,
#: each with the width of its commands' column when side by side.
_GROUPS = (
    (12, ("3", "fire binding number 3 of the enabled list"),
     ("r", "fire one enabled binding chosen at random (seeded)"),
     ("n N", "run N steps, the clock advancing by itself"),
     ("t T", "run until the clock would pass time T"),
     ("a", "advance the clock to the next event (when nothing is enabled now)"),
     ("l", "list every enabled binding (the status shows the first 20)"),
     ("m [PLACE]", "the tokens with their timestamps (value@time); PLACE's in full"),
     ("diff", "toggle showing what each command changed in the marking"),
     ("u / undo", "undo the last command (one firing, a whole n or t run, an a)"),
     ("redo", "do again the last command undone (until a new command)"),
     ("save FILE", "write the firings so far as JSON lines (cpn replay NET FILE)")),
    (26, ("b", "list the breakpoints (n and t stop at them)"),
     ("b place NAME CONDITION", "stop when CONDITION on `tokens` (the place's token values) "
      "holds, e.g.", "b place {place}"),
     ("b transition NAME [COND]", "stop after NAME fires (with COND on its variables "
      "holding), e.g.", "b transition {transition}"),
     ("b del K / b clear", "remove breakpoint K / every breakpoint")),
    (12, ("help", "this text"),
     ("q / quit", "quit")),
)
#: Below this width the descriptions go under their commands, not beside.
TWO_COLUMNS_FROM = 72


class Help:
    """The commands, with examples naming nodes of ``sim``'s net, chosen
    once (a place that starts empty fills up as the net runs) and laid out
    for the width of the screen each time they are shown."""

    def __init__(self, sim: Simulator):
        net = sim.net
        counts = sim.marking.counts()
        place_paths = [p.path for p in net.places]
        transition_paths = [t.path for t in net.transitions]
        # A place that starts empty fills up as the net runs: stop once it holds two.
        place = next((p.path for p in net.places if not counts[p.path]),
                     place_paths[0] if place_paths else "NAME")
        self.examples = {"place": f"{short_name(place, place_paths)} len(tokens) >= 2",
                         "transition": _transition_example(sim)}
        nested = next((path for path in transition_paths + place_paths if "/" in path), None)
        self.names = ("NAME is the name of a place or transition." if nested is None else
                      f"NAME is a full path ({nested}) or its last part when that is unique.")

    def text(self, width: int = 80) -> str:
        """The help in ``width`` columns: commands and descriptions side by
        side, or on a narrow screen each description under its command."""
        lines = ["Commands (one per line):"]
        for column, *group in _GROUPS:
            for command, description, *example in group:
                lines += _entry(command, description,
                                [text.format(**self.examples) for text in example], column, width)
        lines += textwrap.wrap(self.names, width, break_long_words=False,
                               break_on_hyphens=False)  # a path stays whole
        lines += textwrap.wrap("Bad input only prints a hint; the marking is left as it was.",
                               width)
        return "\n".join(lines)


def _entry(command: str, description: str, example: list[str], column: int,
           width: int) -> list[str]:
    """One command's lines: beside its description, which starts after a
    ``column`` wide, when the screen is wide enough, else above it; its
    example indented under."""
    side_by_side = width >= TWO_COLUMNS_FROM
    indent = " " * (column + 2 if side_by_side else 6)
    wrapped = textwrap.wrap(description, max(width - len(indent), 20))
    if side_by_side:
        lines = [f"  {command:<{column}}{wrapped[0]}", *(indent + rest for rest in wrapped[1:])]
    else:
        lines = [f"  {command}", *(indent + text for text in wrapped)]
    return lines + [indent + "  " + text for text in example]


def _transition_example(sim: Simulator) -> str:
    """A transition and a condition on one of its variables: the first
    variable taken whole from a place of integers (``n == 2``) or of
    records with an integer field (``job.id == 2``); the first transition
    alone when no variable is such."""
    paths = [t.path for t in sim.net.transitions]
    for transition in sim.net.transitions:
        variables = sim.transitions[transition.index].variables
        for place, inscription in transition.inputs:
            variable = inscription.strip()
            if variable in variables:
                value = _integer_expression(variable, sim.net.places[place].place.colour)
                if value is not None:
                    return f"{short_name(transition.path, paths)} {value} == 2"
    return short_name(paths[0], paths) if paths else "NAME"


def _integer_expression(variable: str, colour: Any) -> str | None:
    """``variable`` itself, or its first integer field, if its colour says
    it is an integer (or a record with one); else None."""
    if colour is int:
        return variable
    if isinstance(colour, type) and (dataclasses.is_dataclass(colour)
                                     or hasattr(colour, "_fields")):
        try:
            fields = typing.get_type_hints(colour)
        except Exception:  # noqa: BLE001 - an annotation that does not resolve
            return None
        return next((f"{variable}.{name}" for name, kind in fields.items()
                     if kind is int), None)
    return None
