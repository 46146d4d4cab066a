"""Batch scheduling policies as plain functions: queue order and EASY.

The batch scheduling net (``batch_scheduling.py``) calls
:func:`easy_pass_on_nodes` from its *Schedule* transition; keeping the
policy here, outside the net, lets it be tested on its own and read like
the textbook algorithm.

Running jobs are described by *Runtime Info*: a mapping ``job id ->
(estimated_end, nodes)``, in the net an immutable ``cpn.colours.FrozenDict``
(a mapping because a job's entry is removed when it ends, and copying a
dict without one key is much cheaper than filtering a tuple).  A job's
estimate is its requested walltime or its actual runtime
(``Job.estimate``); an estimate already exceeded counts as ending now.

Estimate modes: ``"requested"`` plans every job with its requested walltime
(what a real scheduler knows), ``"actual"`` with its actual runtime (the
PuPPET job tuple), and ``"mixed"`` is CQSim's rule: running jobs end at
start + requested walltime when the head's shadow time is planned, but a
backfill candidate is judged by its actual runtime, and WFP counts the
queued time in whole seconds.
"""

from __future__ import annotations

import threading
from collections import Counter
from itertools import chain
from operator import attrgetter, le
from typing import Callable, Iterable, Mapping, Sequence

from .job import Job

POLICIES = ("fcfs", "wfp")
ESTIMATES = ("requested", "actual", "mixed")
_size = attrgetter("js")


def wfp_scores(queue: Sequence[Job], now: float, estimate: str,
               exponent: float = 3) -> list[float]:
    """WFP utility (PuPPET eq. 4) of each job: size x (queued time /
    walltime)^3; it favours large and old jobs, old ones the more the
    higher ``exponent``.  CQSim (``"mixed"``) truncates the queued time to
    whole seconds.  One comprehension per mode: a pass scores every
    waiting job, and a function call per job would cost more than the sort.
    A float exponent and the float multiplied first spare the conversion
    and int's refusal of float at each job; IEEE products commute, so the
    scores are the same to the last bit."""
    exponent = float(exponent)
    if estimate == "actual":
        return [((now - job.st) / job.rt) ** exponent * job.js for job in queue]
    if estimate == "mixed":
        return [(int(now - job.st) / job.wt) ** exponent * job.js for job in queue]
    return [((now - job.st) / job.wt) ** exponent * job.js for job in queue]


def wfp_score(job: Job, now: float, estimate: str, exponent: float = 3) -> float:
    """One job's WFP utility (:func:`wfp_scores`)."""
    return wfp_scores((job,), now, estimate, exponent)[0]


#: How long a backfill candidate is expected to run, as a getter per
#: estimate mode: its plan (``Job.estimate``), except under CQSim's
#: ``"mixed"`` rule, which judges it by its actual runtime.
BACKFILL_RUNTIMES = {"requested": attrgetter("wt"), "actual": attrgetter("rt"),
                     "mixed": attrgetter("rt")}


def order_queue(queue: Sequence[Job], policy: str, now: float, estimate: str,
                wfp_exponent: float = 3) -> list[Job]:
    """The queue in scheduling order: arrival order (FCFS) or descending
    WFP score, equal scores kept in arrival order (:func:`wfp_order`)."""
    _check_names(policy, estimate)
    if policy == "fcfs":
        return list(queue)
    return [queue[i] for i in wfp_order(queue, now, estimate, wfp_exponent)]


def _check_names(policy: str, estimate: str) -> None:
    """Refuse a policy or an estimate of no known name: a net file's typo of
    "fcfs" would have ordered the queue by WFP."""
    if policy not in POLICIES or estimate not in ESTIMATES:
        raise ValueError(f"the policy is one of {', '.join(POLICIES)} and the estimate one of "
                         f"{', '.join(ESTIMATES)}, not {policy!r} and {estimate!r}")


def wfp_order(queue: Sequence[Job], now: float, estimate: str,
              wfp_exponent: float = 3) -> list[int]:
    """The positions of ``queue``'s jobs by descending WFP score, equal
    scores in queue order (``reverse=True`` keeps a sort stable).  Jobs are
    sorted by position, their scores computed once; a pass also needs the
    positions, to take the jobs it starts out of the queue."""
    scores = wfp_scores(queue, now, estimate, wfp_exponent)
    return sorted(range(len(queue)), key=scores.__getitem__, reverse=True)


def shadow(head_nodes: int, free: int, running: Iterable[tuple[float, int]],
           now: float) -> tuple[float, int]:
    """When the head job can start, and the nodes it leaves over then.

    Running jobs ``(estimated_end, nodes)`` are released in order of
    estimated end (an end already past counts as now); every job ending
    exactly at the shadow time counts (several may end at one instant).
    """
    available = free
    ends = sorted(running)  # clamping to now afterwards keeps this order
    for position, (end, nodes) in enumerate(ends):
        available += nodes
        if available >= head_nodes:
            when = max(end, now)
            for later_end, later_nodes in ends[position + 1:]:
                if max(later_end, now) != when:
                    break
                available += later_nodes
            return when, available - head_nodes
    raise ValueError(f"a job of {head_nodes} nodes can never start: only "
                     f"{available} nodes exist")


def easy_pass_on_nodes(queue: tuple[Job, ...], running: Mapping[int, tuple[float, int]],
                       free: int, now: float, policy: str = "fcfs",
                       estimate: str = "requested", backfill: bool = True,
                       wfp_exponent: float = 3, order: Callable | None = None
                       ) -> tuple[list[Job], tuple[Job, ...]]:
    """One scheduling pass over free nodes: the jobs to start now, and the
    queue left.  Only node counts decide (power is the allocation module's
    business, frequency the CPU scaling's); the policy is the queue order.

    Jobs start in policy order (FCFS or WFP) while they fit.  When the head does not fit,
    it gets a reservation at its shadow time, and later jobs may start now
    (backfill) if they fit in the free nodes and either end by the shadow
    time or use only the nodes the head leaves over at that time.  The
    queue left keeps arrival order.  ``wfp_exponent`` is the exponent of
    the WFP score (the paper's 3).  ``order(queue, now)``, when given, is
    the queue order instead of ``policy``'s: the positions of ``queue``'s
    jobs, first to start first (shortest first, by user...), so that a
    policy of one's own keeps EASY's backfilling.
    """
    _check_names(policy, estimate)
    if not queue:
        return [], queue
    smallest = _smallest(queue)
    if free < smallest:
        return [], queue  # nothing fits: the order and the shadow time change nothing
    # FCFS order is the queue's own: no copy, and the queue left is its tail
    if order is not None:
        where = list(order(queue, now))
    else:
        where = None if policy == "fcfs" else wfp_order(queue, now, estimate, wfp_exponent)
    ordered = queue if where is None else [queue[i] for i in where]
    position, length = 0, len(ordered)
    while position < length and ordered[position].js <= free:
        free -= ordered[position].js
        position += 1
    started = list(ordered[:position])
    backfilled = []
    if position < length and backfill and free > 0 and free >= smallest:
        ends = list(running.values())
        ends += [(now + job.estimate(estimate), job.js) for job in started]
        backfilled = _backfilled(ordered, position, ends, free, smallest, now, estimate)
    # Where the jobs that start were in the queue: in FCFS the head's run is
    # its head and the backfilled are where the scan found them; in WFP the
    # order says where each was.
    if where is None:
        taken_at = None
        waiting = _without_at(queue, backfilled, position)
    else:
        taken_at = where[:position]
        taken_at += map(where.__getitem__, backfilled)
        waiting = _without_at(queue, sorted(taken_at))
    started += map(ordered.__getitem__, backfilled)
    if started:
        _left(queue, waiting, started, taken_at)
    return started, waiting


class _Remembered:
    """The queue the last pass saw or left, kept so the next pass need not
    scan it again: the fewest nodes a job of it needs, how many of its jobs
    need each size (changed as the queue grows by a submission or loses the
    jobs a pass started), whether it is in arrival order (then id), and,
    when a pass left it, the queue that pass saw, the jobs it started and
    where they were in that queue (so jobs held back can be put back
    without a sort or a search).  Its fields are set in place: a pass
    changes them twice."""

    __slots__ = ("queue", "smallest", "sizes", "in_order", "taken_from", "taken", "taken_at")

    def __init__(self):
        self.queue, self.smallest, self.sizes, self.in_order = (), 0, {}, True
        self.taken_from, self.taken, self.taken_at = None, (), None


class _ThreadMemory(threading.local):
    """Each thread's own pass memory (``seen``): simulations that run at
    once in threads of one process (a Dask worker's, a web server's) would
    otherwise change one memory under each other, mid-pass."""

    def __init__(self):
        self.seen = _Remembered()


_memory = _ThreadMemory()


def _in_arrival_order(queue: Sequence[Job]) -> bool:
    """Each job arrived after the one before it, or with it and a higher id."""
    keys = [(job.st, job.id) for job in queue]
    return all(map(le, keys, keys[1:]))


def _smallest(queue: tuple[Job, ...]) -> int:
    """The fewest nodes a job of ``queue`` needs.  A pass sees the queue
    the pass before left (after a job's end) or that queue plus a job
    (after a submission): neither is scanned again (a scan is most of a
    pass that starts nothing), the count of each size says what is left
    (:func:`_left`).  Only tuples are remembered: they cannot change."""
    seen = _memory.seen
    if type(queue) is not tuple:  # a list may have changed since
        return min(map(_size, queue))
    if queue is not seen.queue:
        old = seen.queue
        if old and len(queue) == len(old) + 1 and queue[:-1] == old:
            job, last, sizes = queue[-1], old[-1], seen.sizes
            sizes[job.js] = sizes.get(job.js, 0) + 1
            seen.smallest = min(seen.smallest, job.js)
            if seen.in_order and (last.st, last.id) > (job.st, job.id):  # _in_arrival_order
                seen.in_order = False
        else:
            seen.sizes = sizes = dict(Counter(map(_size, queue)))  # deletes at C speed
            seen.smallest, seen.in_order = min(sizes), _in_arrival_order(queue)
        seen.queue, seen.taken_from = queue, None
    return seen.smallest


def _left(queue: tuple[Job, ...], waiting: tuple[Job, ...], started: list[Job],
          taken_at: list[int] | None) -> None:
    """Remember the queue a pass over ``queue`` leaves, which the next pass
    sees: the sizes of ``queue`` less those of the ``started`` jobs, which
    were at ``taken_at`` in ``queue`` (None: found by a search if needed,
    as in FCFS, where they are at its head)."""
    seen = _memory.seen
    if seen.queue is not queue or type(waiting) is not tuple:
        return
    sizes = seen.sizes
    for job in started:
        if (left := sizes[job.js] - 1):
            sizes[job.js] = left
        else:
            del sizes[job.js]
    if seen.smallest not in sizes and sizes:
        seen.smallest = min(sizes)
    seen.queue, seen.taken_from, seen.taken = waiting, queue, tuple(started)
    seen.taken_at = taken_at


def put_back(queue: tuple[Job, ...], jobs: tuple[Job, ...]) -> tuple[Job, ...] | None:
    """``queue`` with ``jobs`` back in it in arrival order (then id), if
    that is known without a sort, else None.  It is when the last pass left
    ``queue`` of a queue in that order and ``jobs`` are the last it started
    (what the power cap held of them; under a cap most passes end so): the
    answer is then the queue that pass saw, less the jobs it started that
    are not put back."""
    seen = _memory.seen
    source, taken = seen.taken_from, seen.taken
    if (seen.queue is not queue or source is None or not seen.in_order
            or len(jobs) > len(taken) or jobs != taken[len(taken) - len(jobs):]):
        return None
    still_started, taken_at = len(taken) - len(jobs), seen.taken_at
    if still_started:
        kept = (taken_at[:still_started] if taken_at is not None
                else map(source.index, taken[:still_started]))
        merged = _without_at(source, sorted(kept))
    else:
        merged = source
    returned(queue, jobs, merged)
    return merged


def returned(queue: tuple[Job, ...], jobs: Sequence[Job], merged: tuple[Job, ...]) -> None:
    """Remember that ``merged``, in arrival order, is ``queue`` with
    ``jobs`` put back in it (jobs a pass started that the power cap then
    held): under a cap most passes see such a queue, and it would be
    counted afresh each time."""
    seen = _memory.seen
    if seen.queue is not queue:
        return
    sizes = seen.sizes
    for job in jobs:
        sizes[job.js] = sizes.get(job.js, 0) + 1
    seen.smallest = min(sizes, default=seen.smallest)
    seen.queue, seen.in_order, seen.taken_from = merged, True, None


def _without_at(queue: tuple[Job, ...], positions: Sequence[int],
                begin: int = 0) -> tuple[Job, ...]:
    """``queue[begin:]`` in its order without the jobs at ``positions``
    (ascending, none before ``begin``): joined from the slices between
    them, so a long queue is copied at C speed rather than tested job by
    job (a few slices added, many chained: adding each copies what came
    before)."""
    if not positions:
        return queue[begin:]  # the very queue when begin is 0
    slices = []
    for position in positions:
        slices.append(queue[begin:position])
        begin = position + 1
    slices.append(queue[begin:])
    if len(slices) <= 4 and type(queue) is tuple:
        return sum(slices, ())
    return tuple(chain.from_iterable(slices))


def _backfilled(ordered: Sequence[Job], head: int, ends: list[tuple[float, int]], free: int,
                smallest: int, now: float, estimate: str) -> list[int]:
    """Where in ``ordered`` the jobs behind the blocked head ``ordered[head]``
    are that start now: they fit in the ``free`` nodes and end by the head's
    shadow time or use only the nodes it leaves over then.  Positions, not
    jobs: the queue left is cut at them without a search.  The scan stops
    once fewer nodes are free than the ``smallest`` job of the queue needs."""
    shadow_time, extra = shadow(ordered[head].js, free, ends, now)
    runtime = BACKFILL_RUNTIMES[estimate]
    started = []
    for at, job in enumerate(ordered[head + 1:], head + 1):
        if job.js > free:
            continue
        ends_in_time = now + runtime(job) <= shadow_time
        if ends_in_time or job.js <= extra:
            started.append(at)
            free -= job.js
            if not ends_in_time:
                extra -= job.js
            if free == 0 or free < smallest:
                break
    return started
