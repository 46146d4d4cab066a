"""Failure traces to replay in TOPPER instead of drawing failures.

A failure trace maps a compute unit to the times it fails (seconds, on the
simulation's clock).  Two sources:

- a CSV with columns ``time`` and ``unit`` (any trace a user prepares);
- Mira's clustered fatal RAS events (``mira_fatal_ras_events_2013_2018.cor``,
  from the LogAider study): one ``event`` line per cluster, located at a
  rack (``R1C-M0-N05-J12`` is rack row 1, column C) or at an I/O drawer
  (``Q..``), which is not a compute rack and is skipped (and counted).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path


class FailureTraceError(ValueError):
    """A malformed failure trace, named by file and line."""


def read_failure_csv(path: str | Path, units: int | None = None) -> dict[int, list[float]]:
    """``unit -> sorted failure times`` from a CSV with ``time,unit`` columns."""
    path = Path(path)
    failures: dict[int, list[float]] = {}
    with path.open(newline="") as stream:
        reader = csv.DictReader(stream)
        missing = {"time", "unit"} - set(reader.fieldnames or ())
        if missing:
            raise FailureTraceError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
        for line, row in enumerate(reader, start=2):
            try:
                time, unit = float(row["time"]), int(row["unit"])
            except (TypeError, ValueError):
                raise FailureTraceError(f"{path}:{line}: time {row['time']!r} and unit "
                                        f"{row['unit']!r} must be a number and an integer") from None
            if units is not None and not 0 <= unit < units:
                raise FailureTraceError(f"{path}:{line}: unit {unit} is outside 0..{units - 1}")
            failures.setdefault(unit, []).append(time)
    return {unit: sorted(times) for unit, times in failures.items()}


@dataclass
class RasTrace:
    """Failures per Mira rack (0..47, row-major: R00..R0F, R10.., R20..)."""

    failures: dict[int, list[float]]
    origin: datetime  # time 0 of the failure times
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> events

    @property
    def events(self) -> int:
        return sum(len(times) for times in self.failures.values())


def rack_index(location: str) -> int | None:
    """Mira rack number of a RAS location, or None if not a compute rack."""
    if len(location) < 3 or location[0] != "R":
        return None
    row, column = location[1], location[2]
    if row not in "012" or column.upper() not in "0123456789ABCDEF":
        return None
    return int(row) * 16 + int(column, 16)


def read_mira_ras(path: str | Path, origin: datetime | None = None) -> RasTrace:
    """Rack failures from Mira's clustered fatal RAS events; times are
    seconds since ``origin`` (default: the first event)."""
    path = Path(path)
    events: list[tuple[datetime, int]] = []
    skipped: dict[str, int] = {}
    with path.open() as stream:
        for line_number, line in enumerate(stream, start=1):
            if not line.startswith("event"):
                continue  # header, or a member of the cluster above
            fields = line.split()
            try:
                stamp = fields[7]  # fractional seconds are sometimes left out
                layout = "%Y-%m-%d;%H:%M:%S.%f" if "." in stamp else "%Y-%m-%d;%H:%M:%S"
                when = datetime.strptime(stamp, layout).replace(tzinfo=timezone.utc)
                location = fields[11]
            except (IndexError, ValueError):
                raise FailureTraceError(f"{path}:{line_number}: not a RAS event line: "
                                        f"{line.strip()[:80]!r}") from None
            rack = rack_index(location)
            if rack is None:
                reason = f"not a compute rack ({location[:1]}..)"
                skipped[reason] = skipped.get(reason, 0) + 1
                continue
            events.append((when, rack))
    if not events:
        raise FailureTraceError(f"{path}: no rack failure events")
    start = origin or min(when for when, _ in events)
    failures: dict[int, list[float]] = {}
    for when, rack in events:
        failures.setdefault(rack, []).append((when - start).total_seconds())
    return RasTrace({rack: sorted(times) for rack, times in failures.items()}, start, skipped)
