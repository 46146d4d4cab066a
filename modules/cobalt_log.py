"""Read Cobalt accounting logs (Mira's job logs) into job tokens.

Cobalt, the resource manager of Argonne's Blue Gene/Q Mira, writes one
record per event: ``MM/DD/YYYY HH:MM:SS;T;jobid;key=value ...`` with ``T``
``S`` when a job started and ``E`` when it ended.  The ``E`` record carries
everything a replay needs:

================================  ============================================
``qtime``                         when the job became eligible (submit, ``st``)
``Resource_List.nodect``          nodes asked for (``js``)
``Resource_List.walltime``        requested walltime ``HH:MM:SS`` (``wt``)
``start``, ``end``, ``runtime``   what happened (``rt`` is ``runtime``)
``exec_host``                     the block it ran on (``MIR-48840-7BB71-512``)
``queue_name``                    its queue: ``prod-short``, ``backfill``,
                                  reservation queues ``R.*`` ...
``hold``                          held time (0 on Mira's logs: ``qtime``
                                  already leaves it out)
================================  ============================================

A log covers a *window* of whole days: the records of the jobs submitted
in it, and of those still queued or running when it opened.  It opens at
00:00 UTC of the day of the first end record and closes at 24:00 UTC of
the day of the last submission (:attr:`CobaltWorkload.window_opens`,
``window_closes``); after it closes, the log holds only the jobs still
queued or running then, so the machine's utilization is known only inside
it.  The window's initial state is real:

- a job that started before the window opened was running then; it is
  *replayed*: it starts at its logged start on its logged block;
- a job of a reservation queue (``R.*``) ran inside a reservation an
  operator made on its logged block, which the log does not record; it is
  replayed too;
- a job queued before the window opened waits from its ``qtime``, so its
  wait counts from then, but it cannot start before the window opens (the
  run knows nothing of the machine before).

Bad records are never dropped silently: each is rejected with its line and
reason (``Workload.rejected``; :attr:`CobaltWorkload.problems` gives
``file:line: reason`` lines) and counted, and the rest is read.  A file
with no record at all is an error (:class:`CobaltLogError`).
"""

from __future__ import annotations

import gzip
import math
import re
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from .job import Job
from .words import counted
from .swf import LOG_COLUMNS, Workload
from .workload import LARGER_THAN_MACHINE
from .trace_file import open_trace

__all__ = ["CobaltLogError", "CobaltWorkload", "read_cobalt_log", "is_cobalt_log",
           "MIRA_NODES", "RESERVATION_PREFIX"]

#: Nodes of Mira (48 racks of 1,024).
MIRA_NODES = 49_152
#: Queues whose jobs ran inside an operator's reservation.
RESERVATION_PREFIX = "R."
#: Fields an end record must carry.
REQUIRED = ("qtime", "Resource_List.nodect", "Resource_List.walltime", "start", "end",
            "runtime", "exec_host", "queue_name")
SECONDS_PER_DAY = 86_400
_RECORD = re.compile(r"(\d\d/\d\d/\d{4} \d\d:\d\d:\d\d);([A-Z]);([^;]+);(.*)")


class CobaltLogError(ValueError):
    """A file that is no Cobalt accounting log."""


@dataclass(frozen=True, eq=False)
class CobaltWorkload(Workload):
    """A Cobalt log read as a :class:`modules.swf.Workload`, plus what Mira's
    model needs: each job's ``queues`` and logged ``blocks`` (job id ->
    name) and logged ``starts`` (job id -> time, on the clock of the jobs,
    ``job.st``; the trace's is ``+ time_offset``), the jobs ``replayed`` at
    their logged start (running when the window opened, or in a
    reservation), ``window_opens`` on the jobs' clock, and ``problems``,
    one ``file:line: reason`` per rejected record.  The model reads these
    fields, never ``log``: that is the record a validation measures
    against, which ``cpn run`` drops (``cli.workload.load_workload``)."""

    queues: dict[int, str] = field(default_factory=dict, repr=False)
    blocks: dict[int, str] = field(default_factory=dict, repr=False)
    starts: dict[int, float] = field(default_factory=dict, repr=False)
    replayed: frozenset[int] = frozenset()
    window_opens: float = 0.0
    window_closes: float = 0.0
    problems: tuple[str, ...] = ()

    def window_on_trace_clock(self) -> tuple[float, float]:
        """When the window opens and closes, on the log's clock."""
        return self.window_opens + self.time_offset, self.window_closes + self.time_offset

    def logged_start(self, job_id: int) -> float:
        """When the log started ``job_id``, on the jobs' clock."""
        return self.starts[job_id]

    def replayed_starts(self) -> dict[int, float]:
        """Job id -> logged start (jobs' clock) of the replayed jobs, in
        the log's order."""
        return {job_id: start for job_id, start in self.starts.items()
                if job_id in self.replayed}

    def clock_note(self) -> str:
        """A log's run starts at its first logged start, not its first submit."""
        return (f"  the run's clock starts at the first logged start, {self.time_offset:,.0f} "
                "s in the log; the files keep the log's times")

    def summary(self) -> str:
        lines = super().summary().splitlines()
        opens, closes = (time.strftime("%Y-%m-%d %H:%M", time.gmtime(when))
                         for when in self.window_on_trace_clock())
        before = sum(job.st < self.window_opens and job.id not in self.replayed
                     for job in self.jobs)
        running = sum(job.st < self.window_opens and job.id in self.replayed
                      for job in self.jobs)
        reserved = len(self.replayed) - running
        lines.append(f"  window {opens} to {closes} UTC: {counted(running, 'job')} running as "
                     f"it opens and {counted(reserved, 'reservation job')} started as logged; "
                     f"{counted(before, 'job')} queued before it, waiting from their qtime")
        lines += [f"  {problem}" for problem in self.problems[:10]]
        if len(self.problems) > 10:
            lines.append(f"  ... {len(self.problems) - 10:,} more bad records")
        return "\n".join(lines)


def is_cobalt_log(path: str | Path) -> bool:
    """Whether the first non-empty line of ``path`` is a Cobalt record (a
    file that cannot be read is none: the SWF reader then says why)."""
    try:
        with open_trace(Path(path)) as stream:
            for raw in stream:
                line = raw.decode("utf-8", "replace").strip()
                if line:
                    return _RECORD.fullmatch(line) is not None
    except (EOFError, zlib.error, gzip.BadGzipFile):
        return False
    return False


def _walltime(text: str) -> float:
    """``HH:MM:SS`` (or ``MM:SS``, or minutes) -> seconds."""
    parts = [float(part) for part in text.split(":")]
    if len(parts) == 1:
        return 60 * parts[0]  # Cobalt's plain walltimes are minutes
    seconds = 0.0
    for part in parts:
        seconds = 60 * seconds + part
    return seconds


@dataclass
class _Record:
    line: int
    job_id: int
    fields: dict[str, str]


def _parse(path: Path) -> tuple[list[_Record], dict[int, int], list[tuple[int, str, str]]]:
    """End records, the line of each job's start record, and the bad lines
    (line, job id text, reason)."""
    ends: list[_Record] = []
    starts: dict[int, int] = {}
    bad: list[tuple[int, str, str]] = []
    with open_trace(path) as stream:
        for number, raw in enumerate(stream, start=1):
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            match = _RECORD.fullmatch(line)
            if match is None:
                bad.append((number, "", "not a Cobalt record (date;type;jobid;fields)"))
                continue
            _, kind, job_text, rest = match.groups()
            try:
                job_id = int(job_text)
            except ValueError:
                bad.append((number, job_text, f"job id {job_text!r} is not a number"))
                continue
            if kind == "S":
                starts.setdefault(job_id, number)
            elif kind == "E":
                pairs = [item.split("=", 1) for item in rest.split()]
                broken = [item for item, *value in pairs if not value]
                if broken:
                    bad.append((number, job_text, f"field {broken[0]!r} has no '='"))
                    continue
                ends.append(_Record(number, job_id, dict(pairs)))
    return ends, starts, bad


def _job(record: _Record) -> tuple[Job, dict]:
    """The job of an end record and its logged schedule; ValueError naming
    the field when one is missing or not a number."""
    fields = record.fields
    missing = [name for name in REQUIRED if name not in fields]
    if missing:
        raise ValueError(f"missing field {missing[0]}")
    values = {}
    for name in ("qtime", "start", "end", "runtime", "Resource_List.nodect"):
        try:
            values[name] = float(fields[name])
        except ValueError:
            raise ValueError(f"field {name}={fields[name]!r} is not a number") from None
        if not math.isfinite(values[name]):
            raise ValueError(f"field {name}={fields[name]!r} is not a finite number")
    try:
        walltime = _walltime(fields["Resource_List.walltime"])
    except ValueError:
        raise ValueError(f"field Resource_List.walltime={fields['Resource_List.walltime']!r}"
                         " is not HH:MM:SS") from None
    if values["runtime"] <= 0:
        raise ValueError(f"non-positive runtime ({fields['runtime']})")
    if values["Resource_List.nodect"] <= 0:
        raise ValueError(f"non-positive size (Resource_List.nodect="
                         f"{fields['Resource_List.nodect']})")
    if walltime <= 0:
        raise ValueError(f"non-positive walltime ({fields['Resource_List.walltime']})")
    if values["start"] < values["qtime"]:
        raise ValueError(f"start {fields['start']} before qtime {fields['qtime']}")
    if values["end"] < values["start"]:  # the window and the replay read both
        raise ValueError(f"end {fields['end']} before start {fields['start']}")
    job = Job(record.job_id, values["qtime"], values["runtime"],
              int(values["Resource_List.nodect"]), walltime)
    return job, values


def _accepted(ends: list[_Record], starts: dict[int, int], machine_nodes: int,
              rejected: list[tuple[int, int, str]]):
    """The jobs of the end records, their logged schedule (``job_id, line,
    qtime, wait, runtime, nodes, start, end``), queues and blocks; the
    records refused join ``rejected``, as do start records without an end."""
    jobs, logged, queues, blocks, seen = [], [], {}, {}, {}
    for record in ends:
        if record.job_id in seen:
            rejected.append((record.job_id, record.line,
                             f"duplicate job id, first at line {seen[record.job_id]}"))
            continue
        seen[record.job_id] = record.line
        try:
            job, values = _job(record)
        except ValueError as error:
            rejected.append((record.job_id, record.line, str(error)))
            continue
        if job.js > machine_nodes:
            rejected.append((job.id, record.line, f"{LARGER_THAN_MACHINE}, "
                             f"{job.js:,} > {machine_nodes:,} nodes"))
            continue
        jobs.append(job)
        queues[job.id] = record.fields["queue_name"]
        blocks[job.id] = record.fields["exec_host"]
        logged.append((job.id, record.line, values["qtime"], values["start"] - values["qtime"],
                       values["runtime"], job.js, values["start"], values["end"]))
    for job_id, line in starts.items():
        if job_id not in seen:
            rejected.append((job_id, line, "start record without an end record"))
    return jobs, logged, queues, blocks


def read_cobalt_log(path: str | Path, machine_nodes: int = MIRA_NODES) -> CobaltWorkload:
    """Read a Cobalt accounting log (plain or gzip) into a :class:`CobaltWorkload`.

    Jobs come from the end records (which carry all a job's fields); a
    start record without an end (a job still running when the log was
    cut) is rejected and counted, as is any record that is malformed,
    misses a field, repeats a job id, or holds a job larger than
    ``machine_nodes``.  Times are shifted so that 0 is the earliest logged
    start (the first event the run must replay); jobs queued earlier have
    negative submit times.
    """
    import pandas as pd  # here, not at the top: is_cobalt_log serves every cpn run

    path = Path(path)
    ends, starts, bad = _parse(path)
    if not ends and not starts and not bad:
        raise CobaltLogError(f"{path}: no Cobalt record (an empty log)")
    if not ends and not starts:
        raise CobaltLogError(f"{path}: line {bad[0][0]}: {bad[0][2]}: not a Cobalt "
                             "accounting log")
    rejected = [(int(job) if job.isdigit() else -1, line, reason) for line, job, reason in bad]
    jobs, logged, queues, blocks = _accepted(ends, starts, machine_nodes, rejected)
    if not jobs:
        raise CobaltLogError(f"{path}: no job with a valid end record "
                             f"({len(rejected):,} bad records, first at line "
                             f"{min(line for _, line, _ in rejected)})")
    first_end = min(row[7] for row in logged)
    window_opens = first_end - first_end % SECONDS_PER_DAY
    last_submit = max(row[2] for row in logged)
    window_closes = last_submit - last_submit % SECONDS_PER_DAY + SECONDS_PER_DAY
    origin = min(row[6] for row in logged)
    replayed = frozenset(row[0] for row in logged
                         if row[6] < window_opens
                         or queues[row[0]].startswith(RESERVATION_PREFIX))
    jobs.sort(key=lambda job: job.st)
    jobs = [job._replace(st=job.st - origin) for job in jobs]
    rejected.sort(key=lambda row: row[1])
    table = pd.DataFrame(rejected, columns=["job_id", "line", "reason"]).astype(
        {"job_id": "int64", "line": "int64", "reason": "object"})
    log = pd.DataFrame([row[:6] for row in logged], columns=list(LOG_COLUMNS))
    return CobaltWorkload(
        jobs=jobs, rejected=table, header={"Computer": "Mira", "Format": "Cobalt"},
        machine_nodes=machine_nodes, path=path, time_offset=origin,
        allocation_unit=512, log=log, queues=queues, blocks=blocks,
        starts={row[0]: row[6] - origin for row in logged}, replayed=replayed,
        window_opens=window_opens - origin, window_closes=window_closes - origin,
        problems=tuple(f"{path}:{line}: {reason}" for _, line, reason in rejected))

