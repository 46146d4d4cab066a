"""Mira's fatal RAS events replayed on the hardware they name.

``mira_fatal_ras_events_2013_2018.cor`` (the LogAider study's clustering
of Mira's RAS log) lists each cluster of FATAL events on a line of its
own, ``event RECID MSG_ID ... FATAL CATEGORY COMPONENT first last count
TYPE LOCATION 0``, followed by its member messages (indented lines, not
read here).  A location such as ``R0C-M1-N03-J04`` names a rack, a
midplane, a node board and a part of it; ``Q..`` locations are I/O
drawers, which the partition file does not tie to blocks, so those events
are counted and left out.

A failure makes every block that contains the failed hardware unusable
until it is repaired: a node board's failure takes the node board (every
block holding it), a midplane's part (``R09-M0-S``, a service card) the
midplane.  How long a repair takes is not in the RAS log.  We measured
it on Mira's own job logs (``wk1.log``, ``wk2.log``) as the time from an
event to the next job Cobalt started on a block containing its
location: 5 to 28 hours after a compute-chip or memory fault (median
about 11 h), about half an hour after an optical link fault (``BQL``:
0.2 to 1 h), minutes after a software error (a reboot; 0 to 0.1 h, one
8.6 h).  :data:`REPAIR_HOURS` keeps those medians, one value per kind of
fault, for every week.

A job running on a block when its hardware fails fails with it
(:func:`jobs_hit`): ``nets.mira`` applies TOPPER's failure handling
without checkpoints (Mira had none at the system level): the job gives
back its block, nodes and power and goes back to the queue in its submit
order, to run again from the start.  Jobs replayed from the log are left
alone: their logged runtimes already end where the real failure stopped
them (about a minute after the event).
"""

from __future__ import annotations

import calendar
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Container, Mapping

from .bgq_blocks import BlockMachine
from .trace_file import decoded_lines

__all__ = ["Failure", "Outage", "REPAIR_HOURS", "read_ras_failures", "outages",
           "RasFileError", "jobs_hit"]

#: Hours until the hardware of a fatal event is usable again, by the
#: event's category (medians measured on Mira's logs; see the module's
#: docstring); any other category is hardware: :data:`HARDWARE_REPAIR_HOURS`.
REPAIR_HOURS = {"Software_Error": 0.1, "BQL": 0.5}
HARDWARE_REPAIR_HOURS = 11.0


class RasFileError(ValueError):
    """A RAS file that cannot be read, or that fails no compute rack."""


@dataclass(frozen=True)
class Failure:
    """A fatal event: when (Unix seconds), what kind, and where."""

    time: float
    category: str
    location: str

    @property
    def repair_s(self) -> float:
        return 3600 * REPAIR_HOURS.get(self.category, HARDWARE_REPAIR_HOURS)

    @property
    def hardware(self) -> str:
        """The unit that fails: a node board (``R0C-M1-N03``) or, for a part
        of the midplane itself, the midplane (``R09-M0``)."""
        parts = self.location.split("-")
        if len(parts) >= 3 and parts[2].startswith("N"):
            return "-".join(parts[:3])
        return "-".join(parts[:2])


@dataclass(frozen=True)
class Outage:
    """Blocks (a bit set) unusable from ``start`` to ``end``."""

    start: float
    end: float
    blocks: int


def _unix(text: str) -> float:
    """``2018-01-22;07:10:44.271375`` (UTC) -> Unix seconds."""
    return float(calendar.timegm(time.strptime(text.split(".")[0], "%Y-%m-%d;%H:%M:%S")))


def read_ras_failures(path: str | Path) -> tuple[list[Failure], int]:
    """The fatal events of the RAS file on compute racks, and how many
    events name no compute hardware (I/O drawers, no location)."""
    path = Path(path)
    failures, elsewhere = [], 0
    with open(path, "rb") as stream:
        for number, line in decoded_lines(stream, path, RasFileError):
            if not line.startswith("event"):
                continue
            fields = line.split()
            if len(fields) < 13 or not fields[11].startswith("R"):
                elsewhere += 1
                continue
            try:
                when = _unix(fields[7])
            except ValueError:
                raise RasFileError(f"{path}:{number}: event time {fields[7]!r} is not "
                                   "YYYY-MM-DD;HH:MM:SS") from None
            failures.append(Failure(when, fields[5], fields[11]))
    if not failures:  # asked for failures, a run without any would not say so
        raise RasFileError(f"{path}: no fatal event on a compute rack ('event ... R..-M.-..' "
                           f"lines; {elsewhere:,} elsewhere): not Mira's RAS log?")
    return failures, elsewhere


def outages(failures: list[Failure], machine: BlockMachine, first: float,
            last: float) -> tuple[Outage, ...]:
    """The outages of the ``failures`` that overlap ``[first, last]``."""
    return tuple(Outage(failure.time, failure.time + failure.repair_s,
                        machine.containing(failure.hardware))
                 for failure in failures
                 if failure.time <= last and failure.time + failure.repair_s >= first)


def jobs_hit(blocks: int, placed: Mapping[int, int], running: Mapping,
             spared: Container[int] = ()) -> list[int]:
    """The running jobs (ids in ``running``) whose block (``placed``) is
    among ``blocks``, except the ``spared`` ones."""
    return [job_id for job_id, block in placed.items()
            if blocks >> block & 1 and job_id in running and job_id not in spared]
