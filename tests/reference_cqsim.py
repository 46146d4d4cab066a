"""Independent reference of CQSim's EASY scheduling, for the tests.

Written from CQSim's rules as its users know them, not from the net's code;
it shares nothing with ``cpn/``, ``nets/`` or ``modules/`` but the ``Job``
record it takes as input.  Where ``reference_easy.py`` computes a shadow
time and a count of extra nodes, this one keeps an *availability profile*
(free nodes over future time, as CQSim's node module does): the head job is
reserved at the first instant it fits, and a backfill candidate starts if
it fits everywhere in ``[now, now + its runtime)``.  The two formulations
agree only if the net's shadow/extra arithmetic is right.

Rules:

* Input (:func:`cqsim_jobs`): with ``overrun="clamp"`` a runtime longer
  than the requested walltime is cut to it (the job is killed at its
  limit); jobs whose runtime, requested walltime or size is <= 0 are
  dropped.
* Events: a job arrives at ``st`` and finishes at ``start + rt``.  At one
  time, finishes come before submissions; finishes in the order their jobs
  started, submissions in input order.  The scheduler runs after every
  single event.
* Queue order: arrival (FCFS), or descending WFP score
  ``js * (int(now - st) / wt) ** 3``, equal scores in arrival order.
* A pass: start jobs in queue order while the next one fits.  If one does
  not (the head) and jobs wait behind it, build the profile of free nodes:
  each running job gives its nodes back at ``start + wt`` (its requested
  walltime; an end already past counts as now).  The head is reserved from
  the first instant the profile holds its size; each later job, in queue
  order, starts now if the profile minus the reservation holds its size at
  every instant of ``[now, now + rt)`` (its *actual* runtime), and the
  profile then gives its nodes back at ``now + rt``.
"""

from __future__ import annotations

import bisect
import gzip
import heapq
import math
from collections.abc import Sequence

from modules.job import Job

POLICIES = ("fcfs", "wfp")
OVERRUNS = ("clamp", "keep")


def cqsim_jobs(jobs: Sequence[Job], overrun: str = "clamp") -> list[Job]:
    """The jobs CQSim runs: killed at their limit with ``overrun="clamp"``,
    and none with a runtime, requested walltime or size <= 0."""
    if overrun not in OVERRUNS:
        raise ValueError(f"overrun must be one of {OVERRUNS}, not {overrun!r}")
    kept = []
    for job in jobs:
        if overrun == "clamp" and job.rt > job.wt:
            job = job._replace(rt=job.wt)
        if job.rt > 0 and job.wt > 0 and job.js > 0:
            kept.append(job)
    return kept


def read_trace(path, procs_per_node: int = 1, machine: int | None = None,
               unknown_walltime: str = "reject") -> tuple[list[Job], int]:
    """A plain SWF reading: ``(jobs, machine size)`` on the trace's clock.

    Size is field 8 (requested processors), else field 5, in nodes of
    ``procs_per_node`` rounded up; ``machine`` defaults to MaxNodes (or
    MaxProcs with one processor a node).  A later line repeating a job id,
    and jobs larger than the machine, are left out.  An unknown requested
    time (field 9 <= 0) stays as it is (CQSim then drops the job) or, with
    ``unknown_walltime="runtime"``, becomes the runtime.
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    header, rows, seen = {}, [], set()
    with opener(path, "rt") as lines:
        for line in lines:
            if line.startswith(";"):
                key, _, value = line[1:].partition(":")
                header.setdefault(key.strip(), value.strip())
                continue
            field = line.split()
            if len(field) < 18 or int(field[0]) in seen:
                continue
            seen.add(int(field[0]))
            procs = int(field[7]) if int(field[7]) > 0 else int(field[4])
            walltime = float(field[8])
            if walltime <= 0 and unknown_walltime == "runtime":
                walltime = float(field[3])
            rows.append(Job(int(field[0]), float(field[1]), float(field[3]),
                            -(-procs // procs_per_node), walltime))
    if machine is None:
        machine = int(header["MaxNodes"] if procs_per_node > 1 else header.get(
            "MaxProcs", header.get("MaxNodes")))
    rows.sort(key=lambda job: job.st)
    return [job for job in rows if job.js <= machine], machine


class Profile:
    """Free nodes over future time, from ``now``: the nodes free now, given
    back at each running job's planned end (an end already past counts as
    now), less the reservations ``(start, end, nodes)``."""

    def __init__(self, now: float, free: int, releases: list[tuple[float, int]]):
        self.now = now
        self.free = free
        releases = sorted((max(end, now), nodes) for end, nodes in releases)
        self.release_times = [end for end, _ in releases]
        self.released = [0]  # nodes given back by each release time, cumulated
        for _, nodes in releases:
            self.released.append(self.released[-1] + nodes)
        self.started: list[tuple[float, int]] = []  # jobs started now: (end, nodes)
        self.reservations: list[tuple[float, float, int]] = []

    def available(self, at: float) -> int:
        """Free nodes at instant ``at``, after every release due by then."""
        return (self.free + self.released[bisect.bisect_right(self.release_times, at)]
                + sum(nodes for end, nodes in self.started if end <= at)
                - sum(nodes for start, end, nodes in self.reservations if start <= at < end))

    def fits(self, nodes: int, end: float) -> bool:
        """Whether ``nodes`` are free at every instant of ``[now, end)``:
        now, before anything ends, and where a reservation begins (the only
        instants at which the free count drops)."""
        return nodes <= self.free and all(
            self.available(start) >= nodes
            for start, _, _ in self.reservations if start < end)

    def earliest(self, nodes: int) -> float:
        """The first instant from which ``nodes`` stay free (ends only add
        nodes, and nothing is reserved yet when the head asks)."""
        for at in [self.now] + self.release_times:
            if self.available(at) >= nodes:
                return at
        raise ValueError(f"a job of {nodes} nodes never fits")

    def start(self, nodes: int, end: float) -> None:
        """A job starts now on ``nodes`` and gives them back at ``end``."""
        self.free -= nodes
        self.started.append((end, nodes))

    def reserve(self, nodes: int, start: float, end: float) -> None:
        self.reservations.append((start, end, nodes))


def simulate(jobs: Sequence[Job], nodes: int, policy: str = "fcfs",
             overrun: str = "clamp") -> dict[int, tuple[float, float]]:
    """Run CQSim's EASY over ``jobs``; return ``id -> (start, end)``."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
    jobs = cqsim_jobs(jobs, overrun)
    for job in jobs:
        if job.js > nodes:
            raise ValueError(f"job {job.id}: {job.js} nodes on a machine of {nodes}")
    arrivals = sorted(range(len(jobs)), key=lambda index: (jobs[index].st, index))
    schedule: dict[int, tuple[float, float]] = {}
    running: dict[int, tuple[float, int]] = {}  # start order -> (planned end, nodes)
    finishes: list[tuple[float, int, int]] = []  # (end, start order, job index)
    queue: list[int] = []  # job indices in arrival order
    free = nodes
    started_count = 0

    def start(index: int, now: float) -> None:
        nonlocal free, started_count
        job = jobs[index]
        free -= job.js
        schedule[job.id] = (now, now + job.rt)
        running[started_count] = (now + job.wt, job.js)
        heapq.heappush(finishes, (now + job.rt, started_count, index))
        started_count += 1

    def order(now: float) -> list[int]:
        if policy == "fcfs":
            return list(queue)
        return sorted(queue, key=lambda i: -jobs[i].js * (int(now - jobs[i].st) / jobs[i].wt) ** 3)

    def schedule_pass(now: float) -> None:
        nonlocal queue
        waiting = order(now)
        position = 0
        while position < len(waiting) and jobs[waiting[position]].js <= free:
            start(waiting[position], now)
            position += 1
        behind = waiting[position + 1:]
        if behind:
            head = jobs[waiting[position]]
            profile = Profile(now, free, list(running.values()))
            reserved_at = profile.earliest(head.js)
            profile.reserve(head.js, reserved_at, reserved_at + head.wt)
            for index in behind:
                job = jobs[index]
                if profile.fits(job.js, now + job.rt):
                    start(index, now)
                    profile.start(job.js, now + job.rt)
        queue = [index for index in queue if jobs[index].id not in schedule]

    next_arrival = 0
    while next_arrival < len(arrivals) or finishes:
        arrival_time = (jobs[arrivals[next_arrival]].st if next_arrival < len(arrivals)
                        else math.inf)
        if finishes and finishes[0][0] <= arrival_time:
            now, order_started, index = heapq.heappop(finishes)
            del running[order_started]
            free += jobs[index].js
        else:
            now = arrival_time
            queue.append(arrivals[next_arrival])
            next_arrival += 1
        schedule_pass(now)
    return schedule
