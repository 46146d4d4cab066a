"""How a job runs under fault tolerance, fixed when the workload is read
(TOPPER section 3.2): its units and replicas, its work stretched by
replication, its checkpoint interval (Daly's, or the one fixed) and cost,
and the job as the scheduler sees it; and the job whose failures are
expected to make it the slowest (:func:`slowest_job`)."""

from __future__ import annotations

from typing import NamedTuple, Sequence

from .job import POSITION, Job, replaced_at
from .resilience import (FaultTolerance, checkpoint_overhead, expected_stretch, replica_counts,
                         replicated_failure_rate)

_JS, _JP, _WT = POSITION["js"], POSITION["jp"], POSITION["wt"]


class Plan(NamedTuple):
    """How a job runs under fault tolerance, fixed when the workload is read."""

    replicas: tuple[int, ...]  # replicas of each process (one process per unit)
    work: float  # compute time: rt stretched by replication's communication
    interval: float  # compute seconds between checkpoints (Daly's, or the one fixed)
    overhead: float  # O_c, one checkpoint


def plan_job(job: Job, settings: FaultTolerance,
             machine_units: int | None = None) -> tuple[Job, Plan]:
    """The job as the scheduler sees it (whole units, replicas included,
    walltime stretched by the expected overheads) and its plan.  A job too
    large to be replicated ``r`` times on the machine's ``machine_units``
    gets the replicas that fit (partial replication, eq. 4 with that degree)."""
    return _planned(job, settings, _layout(job.js, settings, machine_units))


def plan_jobs(jobs: Sequence[Job], settings: FaultTolerance,
              machine_units: int | None = None) -> list[tuple[Job, Plan]]:
    """:func:`plan_job` of every job; what depends on a job's size alone
    is worked out once per size (a trace has few sizes and many jobs)."""
    layouts: dict[int, tuple] = {}
    planned = []
    for job in jobs:
        layout = layouts.get(job.js)
        if layout is None:
            layout = layouts[job.js] = _layout(job.js, settings, machine_units)
        planned.append(_planned(job, settings, layout))
    return planned


def _layout(size: int, settings: FaultTolerance, machine_units: int | None) -> tuple:
    """A job of ``size`` nodes: its replica counts, walltime stretch,
    checkpoint overhead and nodes once replicated."""
    if not size:  # a job cancelled before it started: no units, no failures
        return (), 1.0, settings.checkpoint_cost(size), 0
    processes = settings.units_for(size)
    replicas = tuple(replica_counts(processes, _fitting_degree(processes, settings,
                                                               machine_units)))
    degree = sum(replicas) / processes
    stretch = 1.0 + settings.communication * (degree - 1)
    return replicas, stretch, settings.checkpoint_cost(size), sum(replicas) * settings.unit_nodes


def _fitting_degree(processes: int, settings: FaultTolerance,
                    machine_units: int | None) -> float:
    """The redundancy degree r, or the replicas that fit when r copies of
    a job's ``processes`` would not fit the machine's ``machine_units``."""
    if machine_units is None or processes > machine_units:
        return settings.degree
    return min(settings.degree, machine_units / processes)


def partially_replicated(jobs: Sequence[Job], settings: FaultTolerance,
                         machine_units: int | None) -> list[int]:
    """The ids of the ``jobs`` too large for r full replicas on the
    machine's ``machine_units``, which :func:`plan_job` gives the replicas
    that fit: a run reports them, since their degree is not the r asked for."""
    short = {size for size in {job.js for job in jobs} if size and _fitting_degree(
        settings.units_for(size), settings, machine_units) < settings.degree}
    return [job.id for job in jobs if job.js in short]


def _planned(job: Job, settings: FaultTolerance, layout: tuple) -> tuple[Job, Plan]:
    replicas, stretch, overhead, nodes = layout
    work = job.rt * stretch
    rate = replicated_failure_rate(work, 1.0 / settings.unit_mttf, replicas)
    interval = settings.interval(overhead, rate)
    expected = job.wt * stretch
    expected = expected + checkpoint_overhead(expected, interval, overhead)
    power = job.jp * nodes / job.js if job.js else job.jp
    scheduled = replaced_at(job, {_JS: nodes, _JP: power, _WT: expected})
    return scheduled, Plan(replicas, work, interval, overhead)


def slowest_job(planned: Sequence[tuple[Job, Plan]], settings: FaultTolerance,
                unit_rate: float) -> tuple[Job, Plan, float] | None:
    """The planned job expected to take the most times its work when its
    units fail at ``unit_rate`` (:func:`~modules.resilience.expected_stretch`),
    its plan, and that many times; None for no jobs.  Of the jobs of one
    layout the one with the most work is the slowest: with replication its
    failure rate grows with its work, and so do its restarts without
    checkpoints."""
    longest: dict[tuple, tuple[Job, Plan]] = {}
    for job, plan in planned:
        layout = (plan.replicas, plan.overhead)
        if layout not in longest or plan.work > longest[layout][1].work:
            longest[layout] = job, plan
    slowest = None
    for job, plan in longest.values():
        rate = replicated_failure_rate(plan.work, unit_rate, plan.replicas)
        stretch = expected_stretch(rate, plan.interval, plan.overhead, settings.recovery,
                                   plan.work)
        if slowest is None or stretch > slowest[2]:
            slowest = job, plan, stretch
    return slowest
