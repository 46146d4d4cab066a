"""A trace's jobs ready for a net, with the jobs left out and why.

:func:`modules.swf.read_swf` returns a :class:`Workload`;
:func:`modules.synthetic.synthetic_month` builds one too.  Jobs that cannot
run in a simulation are never dropped silently: they come back in
:attr:`Workload.rejected` with the reason, so that ``accepted + rejected``
always equals the job lines of the file.  The trace's own schedule comes
along in :attr:`Workload.log`, so that a simulated schedule can be measured
against the one that happened (``modules/validation.py``).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from modules.job import Job
from modules.tables import Columns, FrameField, columns_of, replace, row_count, stored

if TYPE_CHECKING:
    import pandas as pd

DUPLICATE_JOB_ID = "duplicate job id"
UNKNOWN_SUBMIT = "unknown submit time"
NEGATIVE_SUBMIT = "negative submit time"
CANCELLED_BEFORE_START = "cancelled before start"
NON_POSITIVE_RUNTIME = "non-positive runtime"
NON_POSITIVE_SIZE = "non-positive size"
LARGER_THAN_MACHINE = "size larger than the machine"
UNKNOWN_WALLTIME = "unknown requested time"
#: Why a job line may be rejected, in the order the checks are made.  A
#: rejected row's reason may add a detail after it ("duplicate job id,
#: first at line 12", "size larger than the machine (1,024 > 1,000
#: nodes)"); :meth:`Workload.rejection_counts` counts by the reason it
#: starts with.
REJECT_REASONS = (
    DUPLICATE_JOB_ID,
    UNKNOWN_SUBMIT,
    NEGATIVE_SUBMIT,
    CANCELLED_BEFORE_START,
    NON_POSITIVE_RUNTIME,
    NON_POSITIVE_SIZE,
    LARGER_THAN_MACHINE,
    UNKNOWN_WALLTIME,
)
#: What a job's size counts: nodes (processors grouped ``procs_per_node``
#: to a node) or processors, for machines whose processors are not a whole
#: number of nodes.
SIZE_UNITS = ("nodes", "procs")
#: Columns of :attr:`Workload.log`, the schedule the trace records.
LOG_COLUMNS = ("job_id", "line", "submit", "wait", "runtime", "nodes")


def rejected_columns(ids=(), lines=(), reasons=()) -> Columns:
    """The table of :attr:`Workload.rejected`: one row per job id, line and
    reason (integers, integers, text)."""
    return Columns({"job_id": np.asarray(ids, dtype=np.int64),
                    "line": np.asarray(lines, dtype=np.int64),
                    "reason": np.asarray(reasons, dtype=object)})


def _known_reason(reason: str) -> str:
    """The reason of :data:`REJECT_REASONS` that ``reason`` states, with
    or without a detail after it, else ``reason`` itself."""
    for known in REJECT_REASONS:
        if reason.startswith(known) and reason[len(known):][:1] in ("", ",", " "):
            return known
    return reason


@dataclass(frozen=True, eq=False)
class Workload:
    """A list of jobs ready for a net, with what was left out and why.

    ``jobs`` are in order of submit time (file order among equal times).
    ``rejected`` has one row per job line that cannot run (columns
    ``job_id, line, reason``).  ``header`` maps each ``; Key: value`` of the
    trace to its text (repeated keys such as ``Note`` are joined by newlines).
    ``time_offset`` is what was subtracted from every submit time, so
    ``job.st + time_offset`` is the time in the trace.  ``log`` is the
    schedule the trace records (:data:`LOG_COLUMNS`): one row per job line
    with an id of its own, times on the trace's clock, ``wait`` -1 where
    unknown, ``nodes`` the size in the workload's ``size_unit`` before any
    cut to the machine (``sizes_clipped`` counts the cut ones).  Both tables
    may be given as ``modules.tables.Columns``: they are DataFrames once read.
    ``job_lines`` (``job_id, line``, as Columns) gives the trace line of each
    accepted job, so that a job a run refuses later (its power alone above a
    cap) is listed at its line as the file's rejections are; it outlives the
    log, which a run drops.  ``None`` for a workload no file gave.
    """

    jobs: list[Job]
    rejected: pd.DataFrame = FrameField()
    header: dict[str, str]
    machine_nodes: int
    path: Path | None = None
    time_offset: float = 0.0
    walltimes_substituted: int = 0
    procs_per_node: int = 1
    allocation_unit: int = 1
    size_unit: str = "nodes"
    sizes_clipped: int = 0
    log: pd.DataFrame = field(default=FrameField(Columns.from_rows([], LOG_COLUMNS)),
                              repr=False)
    job_lines: Columns | None = field(default=None, repr=False)

    @property
    def unit_name(self) -> str:
        """What sizes count, in words: ``nodes`` or ``processors``."""
        return "processors" if self.size_unit == "procs" else "nodes"

    @property
    def jobs_read(self) -> int:
        """Job lines seen: accepted plus rejected."""
        return len(self.jobs) + row_count(stored(self, "rejected"))

    def rejection_counts(self) -> dict[str, int]:
        """Rejected jobs per reason (of :data:`REJECT_REASONS` when the
        text starts with one, its detail left out; else the whole text),
        in that order, then reasons added by a run.  A detail is never cut
        at a comma: "1,024" has one."""
        reasons = columns_of(stored(self, "rejected"))["reason"]
        counts = Counter(map(_known_reason, reasons.tolist()))
        later = [reason for reason, _ in counts.most_common() if reason not in REJECT_REASONS]
        return {reason: counts[reason] for reason in (*REJECT_REASONS, *later)
                if counts[reason]}

    def reject(self, ids, reason: str) -> "Workload":
        """This workload without the jobs ``ids``, which join the rejected
        table with ``reason`` (refused by a setting of the run, such as a
        power cap, not by the file) at their trace lines."""
        ids = sorted(set(ids))
        if not ids:
            return self
        before = columns_of(stored(self, "rejected"))
        added = rejected_columns(ids, self.trace_lines(ids), [reason] * len(ids)).columns
        rejected = Columns({name: np.concatenate([before[name], added[name]])
                            for name in added})
        refused = set(ids)
        return replace(self, jobs=[job for job in self.jobs if job.id not in refused],
                       rejected=rejected)

    def starting_at_zero(self) -> "Workload":
        """This workload with its first submit at the clock's zero, where a
        run and its power series begin, as ``read_swf`` shifts a trace (the
        shift joins ``time_offset``, so the times shown stay the workload's
        own): ``cpn run`` and a study of the same jobs then count energy
        over the same span."""
        first = min((job.st for job in self.jobs), default=0.0)
        if not first:
            return self
        return replace(self, jobs=[job._replace(st=job.st - first) for job in self.jobs],
                       time_offset=self.time_offset + first)

    def trace_lines(self, ids: list[int]) -> list[int]:
        """The trace line of each accepted job of ``ids`` (:attr:`job_lines`),
        -1 where the workload has none (no file gave it)."""
        if self.job_lines is None:
            return [-1] * len(ids)
        known = self.job_lines.columns
        wanted = np.isin(known["job_id"], ids)
        line_of = dict(zip(known["job_id"][wanted].tolist(), known["line"][wanted].tolist()))
        return [line_of.get(job_id, -1) for job_id in ids]

    def frame(self) -> pd.DataFrame:
        """The accepted jobs as a DataFrame, one column per ``Job`` field."""
        import pandas as pd

        return pd.DataFrame(self.jobs, columns=list(Job._fields))

    def offered_load(self, span: float | None = None) -> float:
        """Node-seconds of work asked for over node-seconds available.

        ``sum(js * rt) / (machine_nodes * span)``; ``span`` defaults to the
        time from the first to the last submit.  Above 1 the machine cannot
        keep up whatever the scheduler does.
        """
        if span is None:
            if not self.jobs:
                return 0.0
            span = max(j.st for j in self.jobs) - min(j.st for j in self.jobs)
        if span <= 0:
            raise ValueError(f"span must be positive, got {span}")
        work = math.fsum(j.js * j.rt for j in self.jobs)
        return work / (self.machine_nodes * span)

    def summary(self) -> str:
        """A few lines saying what was read, kept and substituted."""
        name = self.path.name if self.path is not None else self.header.get("Computer", "workload")
        rejected = row_count(stored(self, "rejected"))
        lines = [
            f"{name}: {self.jobs_read:,} jobs read, {len(self.jobs):,} accepted, "
            f"{rejected:,} rejected; machine of {self.machine_nodes:,} "
            f"{self.unit_name}"
        ]
        for reason, count in self.rejection_counts().items():
            lines.append(f"  rejected, {reason}: {count:,}")
        if self.walltimes_substituted:
            lines.append(
                f"  requested walltime unknown for {self.walltimes_substituted:,} "
                "accepted jobs: the run time was used instead"
            )
        if self.sizes_clipped:
            lines.append(f"  {self.sizes_clipped:,} jobs larger than the machine run on all "
                         f"of its {self.machine_nodes:,} {self.unit_name}")
        if self.time_offset:
            lines.append(self.clock_note())
        return "\n".join(lines)

    def clock_note(self) -> str:
        """Where the run's clock starts on the trace's: a run counts its
        days from there, while every file it writes keeps the trace's times."""
        return (f"  the run's clock starts at the first submit, {self.time_offset:,.0f} s "
                "in the trace; the files keep the trace's times")
