"""Machine-wide maintenance windows (Mira's weekly maintenance).

Mira stopped most Mondays for maintenance: an operator's reservation of
the whole machine.  ``mira_maintenance_periods.txt`` lists them, one
``YYYY-MM-DD HH:MM:SS,YYYY-MM-DD HH:MM:SS`` (start, end, UTC) a line.  As
Cobalt treats a reservation, no job starts that would still run when one
begins (judged by its requested walltime: the scheduler cannot know the
runtime), and nothing starts inside one; running jobs therefore end before
it.  :class:`Calendar` answers both questions for a scheduler.
"""

from __future__ import annotations

import bisect
import calendar
import time
from dataclasses import dataclass
from pathlib import Path

from .trace_file import decoded_lines

__all__ = ["Calendar", "MaintenanceFileError", "read_maintenance"]


class MaintenanceFileError(ValueError):
    """A maintenance file that is not text, has no window, or a line that is
    not two UTC times."""


@dataclass(frozen=True)
class Calendar:
    """Windows ``(start, end)`` when no job may run, sorted, on one clock."""

    windows: tuple[tuple[float, float], ...] = ()

    def shifted(self, offset: float) -> "Calendar":
        """The windows on a clock whose 0 is ``offset`` on this one."""
        return Calendar(tuple((start - offset, end - offset) for start, end in self.windows))

    def within(self, first: float, last: float) -> "Calendar":
        """The windows that overlap ``[first, last]``."""
        return Calendar(tuple(window for window in self.windows
                              if window[1] > first and window[0] < last))

    def next_start(self, now: float) -> float:
        """When the first window that has not ended by ``now`` begins
        (``now`` or earlier inside one; infinity when none is left)."""
        position = bisect.bisect_right([end for _, end in self.windows], now)
        return self.windows[position][0] if position < len(self.windows) else float("inf")

    def allows(self, now: float, walltime: float) -> bool:
        """Whether a job started at ``now`` for ``walltime`` seconds ends
        before the next window begins (so not inside one either)."""
        return now + walltime <= self.next_start(now)

    @property
    def ends(self) -> tuple[float, ...]:
        """When each window ends: a scheduler looks at its queue again then."""
        return tuple(end for _, end in self.windows)


def _unix(text: str) -> float:
    return float(calendar.timegm(time.strptime(text.strip(), "%Y-%m-%d %H:%M:%S")))


def read_maintenance(path: str | Path) -> Calendar:
    """The windows of a maintenance file, in Unix seconds."""
    path = Path(path)
    with open(path, "rb") as stream:
        lines = list(decoded_lines(stream, path, MaintenanceFileError))
    windows = []
    for number, line in lines:
        if not line.strip():
            continue
        try:
            start, end = (_unix(part) for part in line.split(","))
        except ValueError:
            raise MaintenanceFileError(f"{path}:{number}: expected 'YYYY-MM-DD HH:MM:SS,"
                                       f"YYYY-MM-DD HH:MM:SS', got {line.strip()!r}") from None
        if end <= start:
            raise MaintenanceFileError(f"{path}:{number}: the window ends before it starts")
        windows.append((start, end))
    if not windows:  # asked for maintenance, a run without any would not say so
        raise MaintenanceFileError(f"{path}: no maintenance window in the file")
    return Calendar(tuple(sorted(windows)))
