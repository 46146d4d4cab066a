"""The stepper's tables laid out for the width of the terminal.

A table's last column (a binding's values, a place's tokens) is the long
one; the others are a number and a name.  Rich, asked to fit a table that
is too wide, narrows every column, so at 40 columns beside a long name a
binding lost its number (what the user types to fire it) and its values,
and ``m`` its count and tokens.  So the layout is chosen here: side by side
when the names fit whole beside :data:`LAST_COLUMN_MIN` columns of the last
cell; otherwise each row's last cell goes under it, and a name too long for
its line is shortened in the middle.  A right-aligned column (a number) is
never shortened.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table as RichTable
from rich.text import Text

from cpn.stepper import Table

#: The narrowest the last column may be beside the others before it goes under them.
LAST_COLUMN_MIN = 20
#: The spaces before each column.
GAP = 2


def fitted(table: Table, width: int) -> RenderableType:
    """``table`` drawn in ``width`` columns, side by side or stacked."""
    lines = ([table.headers] if table.headers else []) + list(table.rows)
    if not lines:
        return Text("")
    natural = [max(cell_len(line[c]) for line in lines) for c in range(len(lines[0]))]
    *leading, last = natural
    if GAP * len(natural) + sum(leading) + min(last, LAST_COLUMN_MIN) <= width:
        return _side_by_side(table, leading)
    return _stacked(table, leading, width)


def _side_by_side(table: Table, widths: list[int]) -> RichTable:
    """The leading columns whole on one line, the last wrapping under itself."""
    rich = RichTable(box=None, padding=(0, 0, 0, GAP),
                     show_header=table.headers is not None, header_style="dim")
    for column, width in enumerate(widths + [None]):
        rich.add_column(table.headers[column] if table.headers else "",
                        justify="right" if column in table.right_aligned else "left",
                        width=width, no_wrap=width is not None, overflow="fold")
    for row in table.rows:
        rich.add_row(*(Text(cell) for cell in row))  # Text: a value's [..] is no markup
    return rich


def _stacked(table: Table, leading: list[int], width: int) -> Group:
    """Each row's leading cells on a line, names shortened in the middle to
    fit it, and its last cell under them, indented past the numbers;
    ``leading`` are the natural widths of the leading columns."""
    numbers = [c for c in range(len(leading)) if c in table.right_aligned]
    names = [c for c in range(len(leading)) if c not in table.right_aligned]
    room = width - GAP * len(leading) - sum(leading[c] for c in numbers)
    widths = dict(zip(names, _narrowed([leading[c] for c in names], room)))
    widths.update((c, leading[c]) for c in numbers)
    first_name = names[0] if names else len(leading)
    indent = GAP * (first_name + 2) + sum(widths[c] for c in range(first_name))
    shown: list[RenderableType] = []
    for number, line in enumerate(([table.headers] if table.headers else []) + list(table.rows)):
        cells = [line[c].rjust(widths[c]) if c in table.right_aligned
                 else shortened(line[c], widths[c]).ljust(widths[c])
                 for c in range(len(leading))]
        style = "dim" if table.headers and number == 0 else ""
        shown.append(Text(" " * GAP + (" " * GAP).join(cells).rstrip(), style=style))
        if line[-1]:
            shown.append(Padding(Text(line[-1], style=style, overflow="fold"),
                                 (0, 0, 0, indent), expand=False))
    return Group(*shown)


def _narrowed(widths: list[int], room: int) -> list[int]:
    """``widths`` narrowed, the widest first, until they fit in ``room``."""
    widths = list(widths)
    while widths and sum(widths) > room and max(widths) > 1:
        widths[widths.index(max(widths))] -= 1
    return widths


def shortened(name: str, width: int) -> str:
    """``name`` in ``width`` characters, its middle replaced by ``…`` if too
    long: both ends of a path (``Scheduler/…/Allocate``) say the most."""
    if len(name) <= width:
        return name
    if width <= 1:
        return "…"[:width]
    end = width // 2
    return name[:width - 1 - end] + "…" + name[len(name) - end:]
