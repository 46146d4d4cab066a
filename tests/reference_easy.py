"""Independent reference scheduler (FCFS/WFP, optional EASY backfilling).

Used only by the tests, as an oracle against the Petri-net model.  It is
deliberately plain -- one event loop over a heap of finishes and a sorted
list of submissions -- and shares no code with ``cpn/``, ``nets/`` or
``modules/`` (only the ``Job`` record is used, as input).

Spec (the net implements the same one; both must agree on every start):

* Events: a job arrives at ``job.st`` and finishes at ``start + job.rt``
  (actual runtime, always).  At equal times finishes come before
  submissions; finishes at the same time go in order of start time, then
  in the order the jobs were started; submissions at the same time go in
  input order.
* ``trigger="timestamp"``: at each distinct event time process every
  finish, then every submission of that time, then run the scheduler once.
  ``trigger="event"``: run the scheduler after each single finish and
  after each single submission.
* Queue order: ``"fcfs"`` is arrival order; ``"wfp"`` sorts the queue (from
  arrival order, stably) at every scheduler run by descending
  ``js * ((now - st) / est) ** 3``.
* A scheduler pass at ``now`` with ``free`` nodes:
  1. while the head fits (``js <= free``), start it;
  2. if jobs remain and ``backfill``: the head's shadow time is the
     estimated end (``max(start + est, now)``) of the running job at which
     the accumulated free nodes first reach the head's size, counting every
     running job that ends exactly at the shadow time; ``extra`` is the
     surplus over the head's size.  Each remaining job, in queue order,
     starts now if ``js <= free`` and (``now + est <= shadow`` or
     ``js <= extra``); if it runs past the shadow time it uses up ``extra``.

``est`` is ``job.wt`` (``estimate="requested"``) or ``job.rt``
(``estimate="actual"``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence

from modules.job import Job

POLICIES = ("fcfs", "wfp")
ESTIMATES = ("requested", "actual")
TRIGGERS = ("event", "timestamp")


def simulate(
    jobs: Sequence[Job],
    nodes: int,
    policy: str = "fcfs",
    estimate: str = "requested",
    backfill: bool = True,
    trigger: str = "event",
) -> dict[int, float]:
    """Schedule ``jobs`` on a machine of ``nodes`` nodes; return id -> start.

    A job's end is ``start + job.rt`` (see :func:`intervals`).
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
    if estimate not in ESTIMATES:
        raise ValueError(f"estimate must be one of {ESTIMATES}, not {estimate!r}")
    if trigger not in TRIGGERS:
        raise ValueError(f"trigger must be one of {TRIGGERS}, not {trigger!r}")
    jobs = list(jobs)
    if len({j.id for j in jobs}) != len(jobs):
        raise ValueError("job ids must be unique")
    for j in jobs:
        if not 1 <= j.js <= nodes:
            raise ValueError(f"job {j.id}: size {j.js} not in 1..{nodes}")
        if j.rt < 0:
            raise ValueError(f"job {j.id}: negative runtime")
    est = [j.wt if estimate == "requested" else j.rt for j in jobs]
    if policy == "wfp" and any(e <= 0 for e in est):
        raise ValueError("wfp needs every estimate > 0 (it divides by it)")

    starts: dict[int, float] = {}
    free = nodes
    queue: list[int] = []  # job indices, in arrival order
    running: dict[int, tuple[int, float]] = {}  # start seq -> (job idx, est end)
    finishes: list[tuple[float, float, int, int]] = []  # (end, start, seq, idx)
    seq = 0

    def start(i: int, now: float) -> None:
        nonlocal free, seq
        free -= jobs[i].js
        starts[jobs[i].id] = now
        running[seq] = (i, now + est[i])
        heapq.heappush(finishes, (now + jobs[i].rt, now, seq, i))
        seq += 1

    def schedule(now: float) -> None:
        nonlocal queue
        if not queue or free == 0:  # every job needs >= 1 node
            return
        if policy == "wfp":
            order = sorted(
                queue,
                key=lambda i: jobs[i].js * ((now - jobs[i].st) / est[i]) ** 3,
                reverse=True,  # Python's sort stays stable with reverse=True
            )
        else:
            order = list(queue)
        started: set[int] = set()
        # 1. start the head while it fits
        k = 0
        while k < len(order) and jobs[order[k]].js <= free:
            start(order[k], now)
            started.add(order[k])
            k += 1
        # 2. EASY backfilling behind a blocked head
        if backfill and k < len(order) and free > 0:
            head = jobs[order[k]]
            ends = sorted((max(e, now), jobs[i].js) for i, e in running.values())
            avail = free
            shadow = math.inf
            for e, js in ends:
                if avail >= head.js and e > shadow:
                    break
                # add until the head fits, then every job tied at the shadow
                avail += js
                shadow = e
            extra = avail - head.js
            for i in order[k + 1:]:
                if free == 0:
                    break
                j = jobs[i]
                if j.js <= free and (now + est[i] <= shadow or j.js <= extra):
                    start(i, now)
                    started.add(i)
                    if now + est[i] > shadow:
                        extra -= j.js
        if started:
            queue = [i for i in queue if i not in started]

    subs = sorted(range(len(jobs)), key=lambda i: (jobs[i].st, i))
    p = 0
    while p < len(subs) or finishes:
        if finishes and (p == len(subs) or finishes[0][0] <= jobs[subs[p]].st):
            now, _, s, i = heapq.heappop(finishes)
            del running[s]
            free += jobs[i].js
        else:
            i = subs[p]
            p += 1
            now = jobs[i].st
            queue.append(i)
        if trigger == "event":
            schedule(now)
        else:
            nxt = min(
                finishes[0][0] if finishes else math.inf,
                jobs[subs[p]].st if p < len(subs) else math.inf,
            )
            if nxt > now:
                schedule(now)
    return starts


def intervals(jobs: Iterable[Job], starts: dict[int, float]) -> dict[int, tuple[float, float]]:
    """id -> (start, end) with end = start + actual runtime."""
    return {j.id: (starts[j.id], starts[j.id] + j.rt) for j in jobs}
