"""Properties of the PuPPET and TOPPER nets, as state space predicates.

They read the places every PuPPET net has (``nets.puppet.compose``):
*Power* (system watts), *Queuing* (waiting jobs, arrival order),
*Selected* (jobs the scheduler picked, not yet allocated), *Nodes* (free
nodes), *Runtime Info* (job id -> planned end and nodes of every running
job) and *Finished* (``(job, end)`` records).  ``nets/checking.py``
checks them on small configurations; ``docs/verification.md`` explains
them.
"""

from __future__ import annotations

from typing import Sequence

from cpn.marking import Marking
from cpn.query import Predicate, Step, step, where

from .job import Job
from .power import under_cap

def power_within(cap_watts: float) -> Predicate:
    """System power is at or under the cap."""
    return where(lambda m: under_cap(m["Power"][0], cap_watts),
                 f"Power <= {cap_watts:g} W")


def running(job_id: int) -> Predicate:
    """The job holds its nodes (allocated and not yet finished)."""
    return where(lambda m: job_id in m["RuntimeInfo"][0], f"job {job_id} runs")


def queued(job_id: int) -> Predicate:
    """The job waits in the queue."""
    return where(lambda m: any(job.id == job_id for job in m["Queuing"][0]),
                 f"job {job_id} is queued")


def all_finished(count: int) -> Predicate:
    return where(lambda m: len(m["Finished"]) == count, f"all {count} jobs finished")


def started_in_order(jobs: Sequence[Job]) -> Predicate:
    """No job has started while a job submitted before it still waits
    (FCFS without backfilling).  Jobs submitted at the same instant may
    start in either order: their submissions are interleaved too."""
    order = {job.id: job.st for job in jobs}

    def holds(marking: Marking) -> bool:
        waiting = [job.id for job in marking["Queuing"][0] + marking["Selected"][0]]
        if "Allocation/WaitQueue" in marking:
            waiting += [job.id for job in marking["Allocation/WaitQueue"][0]]
        started = list(marking["RuntimeInfo"][0]) + [job.id for job, _ in marking["Finished"]]
        return not waiting or not started or \
            max(order[j] for j in started) <= min(order[j] for j in waiting)
    return where(holds, "jobs start in submission order")


def reservation(marking: Marking, estimate: str = "requested") -> tuple[int, float] | None:
    """The queue's head and the earliest time it can start: when enough
    nodes are free, counting running jobs (and jobs picked but not yet
    allocated) as ending at their planned ends.  None when nothing waits."""
    queue = marking["Queuing"][0]
    if not queue:
        return None
    head, now = queue[0], marking.time
    selected = marking["Selected"][0]
    free = marking["Nodes"][0] - sum(job.js for job in selected)
    ends = sorted([*marking["RuntimeInfo"][0].values(),
                   *((now + job.estimate(estimate), job.js) for job in selected)])
    if head.js <= free:
        return head.id, now
    for end, nodes in ends:
        free += nodes
        if free >= head.js:
            return head.id, max(end, now)
    return head.id, float("inf")


def reservation_kept(estimate: str = "requested") -> Step:
    """No step delays the queue head's reservation (EASY's promise: a
    backfilled job never delays the head job)."""
    def holds(before: Marking, firing, after: Marking) -> bool:
        old, new = reservation(before, estimate), reservation(after, estimate)
        return old is None or new is None or old[0] != new[0] or new[1] <= old[1]
    return step(holds, "the head job's reservation never moves later")
