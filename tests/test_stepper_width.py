"""The stepper drawn in a terminal of a given width: a binding's number (what
the user types to fire it) and its values are shown at every width from 30
columns, however long the names; so are a place's count and tokens."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from cli.terminal import show_on
from cli.terminal_tables import shortened
from cpn import Net
from cpn.stepper import Stepper

LONG_TRANSITION = "Look_at_the_very_long_tuple_token_with_a_long_name"
LONG_PLACE = "Tokens_waiting_for_the_very_long_transition_to_fire"


def long_names_net() -> Net:
    """Two tuple tokens for a transition of a 50-character name, and a
    short-named counter beside it."""
    net = Net("long_names")
    net.place(LONG_PLACE, tuple, initial=[(1, "alpha", 3.5), (2, "beta", 4.25)])
    net.place("Spun", int, initial=[0])
    net.place("Out", tuple)
    net.transition(LONG_TRANSITION)
    net.arc(LONG_PLACE, LONG_TRANSITION, "token")
    net.arc(LONG_TRANSITION, "Out", "token")
    net.transition("Spin", guard="n < 3")
    net.arc("Spun", "Spin", "n")
    net.arc("Spin", "Spun", "n + 1")
    return net


def drawn(net: Net, width: int, commands: list[str]) -> list[str]:
    """The lines a terminal of ``width`` columns shows for ``commands``."""
    out = io.StringIO()
    stepper = Stepper(net, show=show_on(Console(width=width, file=out, highlight=False)),
                      width=lambda: width)
    stepper.session(commands, echo=True)
    return [line.rstrip() for line in out.getvalue().splitlines()]


def after(lines: list[str], command: str) -> list[str]:
    """The lines shown for ``command`` (up to the next prompt)."""
    start = next(i for i, line in enumerate(lines) if line.endswith("]> " + command))
    end = next((i for i in range(start + 1, len(lines)) if "]> " in lines[i]), len(lines))
    return lines[start + 1:end]


@pytest.mark.parametrize("width", [30, 40, 100])
def test_every_binding_shows_its_number_and_values_at_any_width(width):
    # At 40 columns `l` showed "   Spin" and "   Look_at_the_very_long_tuple_token_wi…":
    # no numbers, no values.
    lines = drawn(long_names_net(), width, ["l"])
    listed = after(lines, "l")
    assert max(map(len, lines)) <= width
    numbered = [line for line in listed if re.match(r"  \d  ", line)]
    assert [line[:5] for line in numbered] == ["  1  ", "  2  ", "  3  "]
    assert numbered[0][5:].startswith("Look_at_the_") and numbered[2][5:].startswith("Spin")
    text = " ".join(" ".join(listed).split())
    for values in ["token=(1, 'alpha', 3.5)", "token=(2, 'beta', 4.25)", "n=0"]:
        assert values in text
    # Each binding's values come before the next binding's number.
    assert text.index("3.5)") < text.index(" 2 ") < text.index("4.25)") < text.index(" 3 ")


def test_a_wide_screen_shows_a_binding_on_one_line_with_its_whole_name():
    listed = after(drawn(long_names_net(), 100, ["l"]), "l")
    assert f"  1  {LONG_TRANSITION}  token=(1, 'alpha', 3.5)" in listed
    assert any(re.fullmatch(r"  3  Spin +n=0", line) for line in listed)


@pytest.mark.parametrize("width", [30, 40, 100])
def test_the_marking_keeps_its_counts_and_tokens_at_any_width(width):
    # At 40 columns `m` dropped the count and multiset columns (the header read "t…").
    lines = drawn(long_names_net(), width, ["m"])
    shown = after(lines, "m")
    assert max(map(len, lines)) <= width
    header = next(line for line in shown if line.lstrip().startswith("place"))
    assert header.split()[:2] == ["place", "tokens"]
    assert any(re.match(r"  Tokens_wa\S* +2( |$)", line) for line in shown)
    assert any(re.fullmatch(r"  Spun +1( +1`0)?", line) for line in shown)
    text = " ".join(" ".join(shown).split())
    assert "1`(1, 'alpha', 3.5) ++ 1`(2, 'beta', 4.25)" in text


def test_short_names_stay_side_by_side_at_40_columns():
    net = Net("short")
    net.place("P", int, initial=[1, 2])
    net.place("Q", int)
    net.transition("Move")
    net.arc("P", "Move", "x")
    net.arc("Move", "Q", "x")
    lines = drawn(net, 40, ["l", "m"])
    assert after(lines, "l")[1:] == ["  1  Move  x=1", "  2  Move  x=2"]
    assert "  P           2  1`1 ++ 1`2" in after(lines, "m")


def test_a_long_name_is_shortened_in_the_middle():
    assert shortened("Scheduler/Allocation/Allocate", 20) == "Scheduler…n/Allocate"
    assert shortened("Spin", 4) == "Spin"
    assert len(shortened(LONG_TRANSITION, 33)) == 33
