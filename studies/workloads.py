"""The jobs an experiment runs: its window of a trace, with power, scaled.

Reading and parsing a trace, and drawing its jobs' power, is the slow part
of a short run, so both are cached per process: every experiment of a sweep
on the same trace (and power options) in one worker reads it once.  Job
power is drawn over the whole trace, so a job's power does not depend on
the window it is simulated in.  A "month" is a 30-day window of submit
times counted from the first submit; the jobs of a window run to
completion.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from modules.job import Job
from modules.power_profile import assign_constant_power, assign_rack_power, scaled_to_node
from modules.swf import read_swf
from modules.swf_header import header_number
from modules.synthetic import SyntheticConfig, mira_load, synthetic_month
from modules.tables import columns_of, stored

from .experiment import Experiment
from .experiment_fields import SYNTHETIC

#: Length of a "month" of a trace: a window of submit times.
MONTH_SECONDS = 30 * 86_400.0
#: LLNL-Atlas in ``../shared/data`` beside the checkout: the trace of the
#: DVFS thesis studies.
ATLAS = Path(__file__).resolve().parents[2] / "shared" / "data" / "swf" / \
    "LLNL-Atlas-2006-2.1-cln.swf"


@dataclass(frozen=True)
class PreparedWorkload:
    """Jobs ready for ``simulate`` (times from 0 at the window's start), the
    machine size, the local time of day (seconds) at simulation time 0, and
    the job lines the reader rejected (a job larger than the machine, one
    cancelled before it started: ``cpn run`` lists them): ``trace_rejected``
    counts those submitted in the window (:func:`rejected_in_window`),
    ``trace_rejected_undated`` those of the whole trace that no window can
    hold, having no submit time of their own in the trace's log."""

    jobs: tuple[Job, ...]
    machine_nodes: int
    day_offset: float
    months: int  # windows in the whole trace (0 for the synthetic workload)
    trace_rejected: int = 0
    trace_rejected_undated: int = 0


def _window_seed(seed: int, month: int | None) -> int:
    if not month:
        return seed
    return int(np.random.SeedSequence([seed, month]).generate_state(1)[0])


@functools.lru_cache(maxsize=8)
def refuse_cobalt_log(trace: str) -> None:
    """Sweeps and studies read SWF traces: a Cobalt log is refused by name,
    which the SWF reader would refuse for its machine size or its fields."""
    from modules.cobalt_log import is_cobalt_log

    if is_cobalt_log(trace):
        raise ValueError(f"{trace}: a Cobalt log (Mira's); sweeps and studies take SWF "
                         "traces: run a Cobalt log with cpn run or cpn validate")


def _read_trace(trace: str, procs_per_node, allocation_unit, machine_nodes, size_unit):
    """The trace as read by ``read_swf`` (``size_unit`` None: nodes)."""
    refuse_cobalt_log(trace)
    return read_swf(trace, procs_per_node=procs_per_node, allocation_unit=allocation_unit,
                    machine_nodes=machine_nodes, size_unit=size_unit or "nodes")


@functools.lru_cache(maxsize=8)
def _trace_jobs(trace: str, procs_per_node, allocation_unit, machine_nodes, size_unit,
                power: str, node_watts: float, seed: int):
    """The whole trace with job powers (drawn over the whole trace, so a
    job's power does not depend on the window it is simulated in)."""
    workload = _read_trace(trace, procs_per_node, allocation_unit, machine_nodes, size_unit)
    if power == "constant":
        jobs = assign_constant_power(workload.jobs, node_watts)
    else:
        jobs = scaled_to_node(assign_rack_power(workload.jobs, seed=seed), node_watts)
    return tuple(jobs), workload


@functools.lru_cache(maxsize=8)
def _rejected_submits(trace: str, procs_per_node, allocation_unit, machine_nodes, size_unit):
    """The submit times, on the jobs' clock, of the rejected job lines that
    have one in the trace's log, and how many have none: an unknown submit
    (-1), or a repeated job id, whose later lines the log (one row per id)
    leaves out."""
    workload = _read_trace(trace, procs_per_node, allocation_unit, machine_nodes, size_unit)
    lines = np.asarray(columns_of(stored(workload, "rejected"))["line"], dtype=np.int64)
    log = columns_of(stored(workload, "log"))
    logged, submits = np.asarray(log["line"], dtype=np.int64), np.asarray(log["submit"], float)
    row = np.searchsorted(logged, lines)  # read_swf logs the lines in file order
    dated = row < len(logged)
    dated[dated] = (logged[row[dated]] == lines[dated]) & (submits[row[dated]] != -1)
    return submits[row[dated]] - workload.time_offset, int((~dated).sum())


def rejected_in_window(submits: np.ndarray, month: int | None, months: int) -> int:
    """How many of the rejected lines submitted at ``submits`` (the jobs'
    clock) belong to window ``month`` of ``months`` (None: the whole trace),
    as its jobs do; a line before the first accepted submit belongs to the
    first window, one after the last window to the last, so that the windows
    share out every dated line.

    >>> rejected_in_window(np.array([-5.0, 10.0, MONTH_SECONDS, 9 * MONTH_SECONDS]), 0, 2)
    2
    """
    if month is None:
        return len(submits)
    windows = np.clip(np.floor_divide(submits, MONTH_SECONDS), 0, months - 1)
    return int((windows == month).sum())


def _local_day_offset(header: Mapping[str, str], trace_seconds: float) -> float:
    """Local time of day (s) of the trace time ``trace_seconds`` (SWF times
    count from the header's ``UnixStartTime``, in ``TimeZoneString``)."""
    epoch = header_number(header, "UnixStartTime") or 0
    moment = datetime.fromtimestamp(epoch + trace_seconds, tz=timezone.utc)
    zone = header.get("TimeZoneString", "").strip()
    if zone:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:  # the tz database comes with the tzdata package where the system lacks one
            moment = moment.astimezone(ZoneInfo(zone))
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"the header's TimeZoneString {zone!r} is no time zone (e.g. "
                             "Europe/Paris): a day's hours would be counted in UTC") from None
    midnight = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return (moment - midnight) / timedelta(seconds=1)


def scale_jobs(jobs, walltime: float | None, size: float | None,
               machine_nodes: int) -> tuple[Job, ...]:
    """Jobs whose runtime and requested walltime are ``walltime`` times
    longer, and whose nodes (and power) ``size`` times more, rounded, at
    least 1 and at most the machine (TOPPER Figs. 16-17)."""
    walltime, size = walltime or 1.0, size or 1.0
    scaled = []
    for job in jobs:
        nodes = job.js if size == 1.0 else min(machine_nodes, max(1, round(job.js * size)))
        scaled.append(job._replace(rt=job.rt * walltime, wt=job.wt * walltime, js=nodes,
                                   jp=job.jp * nodes / job.js))
    return tuple(scaled)


def prepare_workload(exp: Experiment) -> PreparedWorkload:
    """The jobs of ``exp``'s trace window, with power, shifted to start at 0,
    and scaled as ``exp`` asks."""
    workload = trace_window(exp)
    if exp.walltime_scale is None and exp.size_scale is None:
        return workload
    return replace(workload, jobs=scale_jobs(workload.jobs, exp.walltime_scale,
                                             exp.size_scale, workload.machine_nodes))


def trace_window(exp: Experiment) -> PreparedWorkload:
    """The jobs of ``exp``'s 30-day window (or whole trace), with power,
    shifted to start at 0, as the trace has them."""
    if exp.trace == SYNTHETIC:
        workload = synthetic_month(_window_seed(exp.seed, exp.month),
                                   SyntheticConfig(load=mira_load(exp.month))).starting_at_zero()
        jobs = workload.jobs
        jobs = (assign_constant_power(jobs, exp.node_watts) if exp.power == "constant"
                else scaled_to_node(jobs, exp.node_watts))
        return PreparedWorkload(tuple(jobs), workload.machine_nodes, workload.time_offset, 0)
    jobs, workload = _trace_jobs(*trace_shape(exp), exp.power, exp.node_watts, exp.seed)
    last = max((job.st for job in jobs), default=0.0)
    months = int(last // MONTH_SECONDS) + 1
    start = 0.0
    if exp.month is not None:
        if exp.month >= months:
            raise _beyond(exp.trace, months, exp.month)
        start = exp.month * MONTH_SECONDS
        jobs = tuple(job._replace(st=job.st - start) for job in jobs
                     if start <= job.st < start + MONTH_SECONDS)
    day_offset = _local_day_offset(workload.header, workload.time_offset + start)
    rejected, undated = _rejected_submits(*trace_shape(exp))
    return PreparedWorkload(jobs, workload.machine_nodes, day_offset, months,
                            rejected_in_window(rejected, exp.month, months), undated)


def study_months(exp: Experiment, months: Sequence[int | None] | str | None = None
                 ) -> list[int | None]:
    """The months a study runs on ``exp``'s workload: ``months`` as listed,
    every month of the trace (``"all"``), the whole trace as one run
    (``"none"``), or by default months 0-3 of a trace and 0-1 of the
    synthetic workload (seeded draws at Mira's January and March loads)."""
    if months is None and exp.trace == SYNTHETIC:
        return [0, 1]
    if months is None or months == "all":
        count = trace_months(*trace_shape(exp))
        return list(range(count if months == "all" else min(4, count)))
    if months == "none":
        return [None]
    return list(months)


def trace_shape(exp: Experiment) -> tuple:
    """What reading ``exp``'s trace depends on: the trace and how its job
    sizes map onto the machine (so windows, months and rejected lines are
    counted in the run's unit)."""
    return exp.trace, exp.procs_per_node, exp.allocation_unit, exp.machine_nodes, exp.size_unit


def trace_months(trace: str, procs_per_node: int | None = None, allocation_unit: int = 1,
                 machine_nodes: int | None = None, size_unit: str | None = None) -> int:
    """How many 30-day windows the trace's submit times span."""
    if os.fspath(trace) == SYNTHETIC:
        raise ValueError("the synthetic workload has as many months as you ask for: "
                         "give them (e.g. 0,1,2,3)")
    return trace_window(Experiment(trace=os.fspath(trace), procs_per_node=procs_per_node,
                                   allocation_unit=allocation_unit, machine_nodes=machine_nodes,
                                   size_unit=size_unit)).months


def refuse_months_beyond_traces(runs) -> None:
    """Refuse, before any runs, an experiment whose month its trace does not
    have (each trace read once): every such run failed on its own, after
    the sweep had started, and a study of 100 months on a one-month trace
    reported 792 failures."""
    months_of: dict[tuple, int] = {}
    for run in runs:
        if not isinstance(run, Experiment) or run.month is None or run.trace == SYNTHETIC:
            continue
        shape = trace_shape(run)
        if shape not in months_of:
            months_of[shape] = trace_months(*shape)
        if run.month >= months_of[shape]:
            raise _beyond(run.trace, months_of[shape], run.month)


def _beyond(trace: str, months: int, month: int) -> ValueError:
    windows = "1 window" if months == 1 else f"{months} windows"
    return ValueError(f"{trace} has {windows} of 30 days (months 0 to {months - 1}), "
                      f"not month {month}")


def parse_months(text: str):
    """``"all"``, ``"none"`` or a list of month indices from ``"0,1,2"`` or ``"0-3"``.

    >>> parse_months("0-2,5")
    [0, 1, 2, 5]
    """
    text = text.strip()
    if text in ("all", "none"):
        return text
    months: list[int] = []
    for item in text.split(","):
        item = item.strip()
        if "-" in item:
            first, last = item.split("-")
            if int(last) < int(first):  # an empty range would run nothing, and say little
                raise ValueError(f"the range {item} ends before it starts")
            months += range(int(first), int(last) + 1)
        elif item:
            months.append(int(item))
    if not months:
        raise ValueError(f"no month in {text!r}")
    return months
