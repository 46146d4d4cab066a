"""What a PuPPET run gives back: per-job records, the jobs it rejected or
had not finished, the power series and the metrics (:class:`PuppetResult`).

The tables are built column by column from the net's final marking, with
no row tuples and no pandas: a million jobs' records are where a run's
memory peaks, and ``cpn run`` writes them without a frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from cpn import Simulator
from modules.job import POSITION, Job
from modules.power_capping import OVER_CAP_REASON
from modules.run_files import UNFINISHED_COLUMNS
from modules.tables import Columns, FrameField

if TYPE_CHECKING:
    import pandas as pd


#: Columns of :attr:`PuppetResult.rejected`.
REJECTED_COLUMNS = ("job_id", "submit", "nodes", "power", "reason")


@dataclass
class PuppetResult:
    """Per-job records, the power series, and the summary metrics.

    The power series (``power_times``, ``power_watts``, held until ``end``)
    spans the run: from the clock's zero (where ``read_swf`` puts the first
    submit) to the last job's end, or to the moment the run stopped
    (``interrupted``); all times are on the trace's clock.  ``unfinished``
    lists the jobs that had not finished (``unfinished_records``): none
    when every job did.  The tables are built as DataFrames when first read
    (``modules.tables``): ``cpn run`` writes them without pandas."""

    jobs: pd.DataFrame = FrameField()  # job_id, submit, start, end, nodes, power (+ wait, runtime)
    power_times: list[float]
    power_watts: list[float]
    end: float
    metrics: dict
    energy_step: dict[float, float]  # step (s) -> fixed-step energy estimate (J)
    interrupted: bool = False
    unfinished: pd.DataFrame = FrameField(Columns.from_rows([], UNFINISHED_COLUMNS))
    rejected: pd.DataFrame = FrameField(Columns.from_rows([], REJECTED_COLUMNS))


def rejected_records(jobs: Sequence[Job], time_offset: float = 0.0) -> Columns:
    """The jobs a run rejected (over the cap alone), one row each: id,
    submit time on the trace's clock, nodes, power, and why."""
    rows = [(job.id, job.st + time_offset, job.js, job.jp, OVER_CAP_REASON) for job in jobs]
    return Columns.from_rows(rows, REJECTED_COLUMNS)


def job_records(finished: Sequence[tuple[Job, float]], time_offset: float = 0.0) -> pd.DataFrame:
    """Flat per-job records in order of job id (:func:`job_table`)."""
    return job_table(finished, time_offset).frame()


def job_table(finished: Sequence[tuple[Job, float]], time_offset: float = 0.0) -> Columns:
    """Flat per-job records in order of job id; times shifted back by
    ``time_offset`` so they read as in the trace.

    The jobs are read a slice at a time, each job once for all its fields
    (``zip`` transposes the slice in C): a run ends its jobs in no order of
    memory, and a pass per field over a million scattered tokens cost about
    three times as much.  Slices keep the copy small; the end of a run is where
    its memory peaks.  Each column's type is numpy's reading of the values,
    as pandas would infer it from a list."""
    names = ["job_id", "submit", "start", "end", "nodes", "power", "requested", "runtime"]
    if not finished:
        return Columns.from_rows([], names)
    slices = [_record_slice(finished[first:first + _SLICE], time_offset)
              for first in range(0, len(finished), _SLICE)]
    columns = {}
    for index, name in enumerate(names):  # each slice's part let go once joined
        columns[name] = np.concatenate([parts[index] for parts in slices])
        for parts in slices:
            parts[index] = None
    order = np.argsort(columns["job_id"], kind="stable")
    for name, column in columns.items():
        columns[name] = column[order]
    return Columns(columns)


_SLICE = 1 << 12  # finished jobs read at once by job_table
_FIELDS = [POSITION[name] for name in ("id", "st", "et", "js", "jp", "wt", "rt")]


def _record_slice(finished: Sequence[tuple[Job, float]], time_offset: float) -> list:
    """:func:`job_table`'s columns for some finished jobs, in their order."""
    jobs, ends = zip(*finished)
    fields = list(zip(*jobs))
    ids, submits, starts, sizes, powers, requested, runtimes = (
        np.asarray(fields[position]) for position in _FIELDS)
    return [ids, submits + time_offset, starts + time_offset, np.asarray(ends) + time_offset,
            sizes, powers, requested, runtimes]


def unfinished_records(sim: Simulator, jobs: Sequence[Job],
                       time_offset: float = 0.0) -> Columns:
    """The jobs a stopped run had not finished, one row each
    (``modules.run_files.UNFINISHED_COLUMNS``), times on the trace's clock:
    ``running`` (in *Runtime Info*: it holds its nodes; ``start`` from its
    token, the job itself or an execution carrying it as ``job``, whose
    ``et`` is when it started), ``queued`` (submitted, waiting) or
    ``unsubmitted`` (its submit time not reached)."""
    finished = {job.id for job, _ in sim.view("Finished")}
    if all(job.id in finished for job in jobs):  # a complete run: no marking to copy
        return Columns.from_rows([], UNFINISHED_COLUMNS)
    running = sim.tokens("RuntimeInfo")[0]
    marking = sim.marking
    starts = {}
    for place in marking:
        for token in marking[place]:
            job = token if isinstance(token, Job) else getattr(token, "job", None)
            if isinstance(job, Job) and job.id in running:
                starts[job.id] = job.et + time_offset
    rows = []
    for job in jobs:
        if job.id in finished:
            continue
        if job.id in running:
            state, start = "running", starts.get(job.id, math.nan)
        else:
            state, start = ("queued" if job.st <= sim.now else "unsubmitted"), math.nan
        rows.append((job.id, state, job.st + time_offset, start, job.js))
    return Columns.from_rows(rows, UNFINISHED_COLUMNS)
