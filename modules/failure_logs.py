"""Failure traces to replay in TOPPER instead of drawing failures.

A failure trace maps a compute unit to the times it fails (seconds).  Two
formats, told apart by their content (:func:`failure_format`):

- ``csv``: columns ``time`` and ``unit`` (any trace a user prepares), times
  on the workload trace's clock;
- ``ras``: Mira's clustered fatal RAS events
  (``mira_fatal_ras_events_2013_2018.cor``, from the LogAider study): a
  ``#count=`` line, then one ``event`` line per cluster (indented lines are
  its members), located at a rack (``R1C-M0-N05-J12`` is rack row 1, column
  C: one of Mira's 48 racks), at an I/O drawer (``Q..``, not a compute rack)
  or nowhere (``NULL``); events off the racks are skipped and counted.

:func:`read_failure_trace` reads either onto a run's clock.  A row that
cannot be replayed (a time that is not a finite number of seconds from 0, a
unit outside the machine, bytes that are not UTF-8) is an error naming the
file, the line and the field, as a failure silently lost or invented would
change every result.  A UTF-8 byte order mark is skipped.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .trace_file import decoded_lines
from .words import counted

#: The formats :func:`read_failure_trace` reads.
FAILURE_FORMATS = ("csv", "ras")
#: Mira's compute racks, the units of its RAS log: rows 0..2, columns 0..F.
MIRA_RACKS = 48


class FailureTraceError(ValueError):
    """A malformed failure trace, named by file and line."""


@dataclass(frozen=True)
class FailureTrace:
    """Sorted failure times per unit, and the events left out, by reason.

    ``origin`` is the wall-clock time of time 0 for a log of dated events
    (Mira's RAS log), ``None`` for a CSV on the workload trace's own clock.
    """

    failures: dict[int, list[float]]
    origin: datetime | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    path: Path | None = None

    @property
    def events(self) -> int:
        return sum(len(times) for times in self.failures.values())

    @property
    def felt(self) -> dict[int, list[float]]:
        """The failures from time 0 on: those before are never felt
        (:meth:`summary` counts them)."""
        return {unit: [time for time in times if time >= 0]
                for unit, times in self.failures.items()}

    def summary(self) -> str:
        """One line saying what will be replayed and what will not."""
        name = self.path.name if self.path is not None else "failure trace"
        replayed = (f"{name}: {counted(self.events, 'failure')} of "
                    f"{counted(len(self.failures), 'unit')}")
        if self.origin is not None:
            replayed += f", the first ({self.origin:%Y-%m-%d %H:%M:%S} UTC) at time 0"
        parts = [replayed]
        early = sum(time < 0 for times in self.failures.values() for time in times)
        if early:
            parts.append(f"{counted(early, 'failure')} before time 0 (the first submit), "
                         "never felt")
        parts += [f"skipped {counted(count, 'event')}: {reason}"
                  for reason, count in self.skipped.items()]
        return "; ".join(parts)


def failure_format(path: str | Path) -> str:
    """``"ras"`` when the first line that is not blank opens Mira's RAS log
    (``#count=`` or ``event``), else ``"csv"``."""
    path = Path(path)
    with path.open("rb") as stream:
        for _, text in decoded_lines(stream, path, FailureTraceError):
            if text.strip():
                return "ras" if text.startswith(("#count", "event")) else "csv"
    return "csv"


def read_failure_trace(path: str | Path, units: int, time_offset: float = 0.0,
                       format: str | None = None) -> FailureTrace:
    """The failures of ``path`` on a run's clock, for a machine of ``units``.

    ``format`` is one of :data:`FAILURE_FORMATS`, or ``None`` to detect it.
    A CSV is on the workload trace's clock, so ``time_offset`` (the trace's
    time at the run's 0, ``Workload.time_offset``) is subtracted.  Mira's RAS
    log replays its racks, so the machine must have 48 units, from its first
    rack failure at time 0.
    """
    path = Path(path)
    format = format or failure_format(path)
    if format == "csv":
        failures = read_failure_csv(path, units=units)
        return FailureTrace({unit: [time - time_offset for time in times]
                             for unit, times in failures.items()}, path=path)
    if format == "ras":
        if units != MIRA_RACKS:
            raise FailureTraceError(
                f"{path}: Mira's RAS log fails its {MIRA_RACKS} racks, but the machine has "
                f"{units:,} units: it replays on a machine of {MIRA_RACKS} equal units (Mira's "
                f"49,152 nodes in racks of 1,024), so its nodes must divide by {MIRA_RACKS}; "
                "another machine takes a failure CSV or drawn failures")
        return read_mira_ras(path)
    raise ValueError(f"unknown failure trace format {format!r}: "
                     f"one of {', '.join(FAILURE_FORMATS)}")


def read_failure_csv(path: str | Path, units: int | None = None) -> dict[int, list[float]]:
    """``unit -> sorted failure times`` from a CSV with ``time,unit`` columns
    (others are ignored), one row per line; ``units``, when given, bounds
    the unit numbers."""
    path = Path(path)
    failures: dict[int, list[float]] = {}
    header: list[str] | None = None  # the column names, from the first row
    with path.open("rb") as stream:
        for number, text in decoded_lines(stream, path, FailureTraceError):
            where = f"{path}:{number}"
            try:
                row = [cell.strip() for cell in next(csv.reader([text]), [])]
            except csv.Error as error:
                # the csv module's own hint ("- do you need to open the file
                # ...?") speaks to programmers and changes between Pythons
                reason = str(error).split(" - ")[0]
                raise FailureTraceError(f"{where}: not CSV text ({reason})") from None
            if not any(row):
                continue
            if header is None:
                header = row
                missing = {"time", "unit"} - set(header)
                if missing:
                    raise FailureTraceError(
                        f"{path}: missing column(s) {', '.join(sorted(missing))} "
                        f"(found: {', '.join(header)})")
                continue
            cell = dict(zip(header, row))
            time = _failure_time(where, cell.get("time", ""))
            failures.setdefault(_unit(where, cell.get("unit", ""), units), []).append(time)
    if header is None:
        raise FailureTraceError(f"{path}: the file is empty")
    return {unit: sorted(times) for unit, times in failures.items()}


def _failure_time(where: str, text: str) -> float:
    """A CSV's time: a finite number of seconds, not before the clock's 0."""
    if not text:
        raise FailureTraceError(f"{where}: time is missing")
    try:
        time = float(text)
    except ValueError:
        raise FailureTraceError(f"{where}: time {text!r} is not a number") from None
    if not math.isfinite(time):
        raise FailureTraceError(f"{where}: time {text!r} is not a finite number")
    if time < 0:
        raise FailureTraceError(f"{where}: time {text!r} is negative")
    return time


def _unit(where: str, text: str, units: int | None) -> int:
    """A CSV's unit: a unit number of the machine, from 0."""
    if not text:
        raise FailureTraceError(f"{where}: unit is missing")
    try:
        unit = int(text)
    except ValueError:
        raise FailureTraceError(f"{where}: unit {text!r} is not an integer") from None
    if unit < 0:
        raise FailureTraceError(f"{where}: unit {unit} is negative")
    if units is not None and unit >= units:
        raise FailureTraceError(f"{where}: unit {unit} is outside 0..{units - 1}")
    return unit


def rack_index(location: str) -> int | None:
    """Mira rack number of a RAS location, or None if not a compute rack."""
    if len(location) < 3 or location[0] != "R":
        return None
    row, column = location[1], location[2]
    if row not in "012" or column.upper() not in "0123456789ABCDEF":
        return None
    return int(row) * 16 + int(column, 16)


def read_mira_ras(path: str | Path, origin: datetime | None = None) -> FailureTrace:
    """Rack failures from Mira's clustered fatal RAS events; times are
    seconds since ``origin`` (default: the first rack failure)."""
    path = Path(path)
    events: list[tuple[datetime, int]] = []
    skipped: dict[str, int] = {}
    with path.open("rb") as stream:
        for line_number, line in decoded_lines(stream, path, FailureTraceError):
            if not line.startswith("event"):
                continue  # header, or a member of the cluster above
            fields = line.split()
            try:
                stamp = fields[7]  # fractional seconds are sometimes left out
                layout = "%Y-%m-%d;%H:%M:%S.%f" if "." in stamp else "%Y-%m-%d;%H:%M:%S"
                when = datetime.strptime(stamp, layout).replace(tzinfo=timezone.utc)
                # a location type of NULL comes with an empty location column
                location = "" if fields[10] == "NULL" else fields[11]
            except (IndexError, ValueError):
                raise FailureTraceError(f"{path}:{line_number}: not a RAS event line: "
                                        f"{line.strip()[:80]!r}") from None
            rack = rack_index(location)
            if rack is None:
                reason = f"not a compute rack ({location[:1]}..)" if location else "no location"
                skipped[reason] = skipped.get(reason, 0) + 1
                continue
            events.append((when, rack))
    if not events:
        raise FailureTraceError(f"{path}: no rack failure events")
    start = origin or min(when for when, _ in events)
    failures: dict[int, list[float]] = {}
    for when, rack in events:
        failures.setdefault(rack, []).append((when - start).total_seconds())
    return FailureTrace({rack: sorted(times) for rack, times in failures.items()}, start,
                        skipped, path)
