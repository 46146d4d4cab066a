"""The energy-saving scheduler's decisions (Dolz et al., sections 2.5.1
and 2.5.2), as plain functions of the marking: each tick either boots
standby nodes for the queue (:func:`nodes_to_power_on`) or switches off
idle nodes it does not need (:func:`nodes_to_power_off`); :func:`decide`
chooses.  The functions the *Tick* and *Observe* transitions call to turn
a decision into tokens and power, and to follow the groups' waits, are
here too.
"""

from __future__ import annotations

import math
from operator import attrgetter
from typing import Mapping, NamedTuple, Sequence

from cpn.colours import FrozenDict

from ..job import Job
from ..node_power import NodePower
from .idle_pool import IdlePool, idle_since_before
from .policy import EnergySavingPolicy

_size = attrgetter("js")


class BootBatch(NamedTuple):
    """Nodes powering on together: ready at ``ready``, for the ``jobs``
    (ids) whose demand decided it."""

    nodes: int
    ready: float
    jobs: tuple = ()


class HaltBatch(NamedTuple):
    nodes: int
    ready: float


class Decision(NamedTuple):
    """One tick of the energy-saving scheduler."""

    time: float
    power_on: int = 0
    power_off: int = 0
    jobs: tuple = ()  # ids of the jobs the power-on serves
    reasons: tuple[str, ...] = ()


def urgent_jobs(now: float, queue: Sequence[Job], policy: EnergySavingPolicy
                ) -> dict[int, str]:
    """Jobs that ask for nodes (section 2.5.1), by id, with the reason: the
    oldest queued job of each group whose queued jobs waited longer than its
    ``max_wait_s`` on average, and of each user with more than its group's
    ``max_queued`` jobs queued.  In queue order."""
    by_group: dict[int, list[Job]] = {}
    by_user: dict[int, list[Job]] = {}
    for job in queue:
        by_group.setdefault(job.group, []).append(job)
        by_user.setdefault(job.user, []).append(job)
    urgent: dict[int, str] = {}
    for group, jobs in by_group.items():
        mean_wait = now - sum(job.st for job in jobs) / len(jobs)
        if mean_wait > policy.for_group(group).max_wait_s:
            urgent.setdefault(jobs[0].id, "group wait")
    for jobs in by_user.values():
        if len(jobs) > policy.for_group(jobs[0].group).max_queued:
            urgent.setdefault(jobs[0].id, "user queue")
    order = {job.id: position for position, job in enumerate(queue)}
    return dict(sorted(urgent.items(), key=lambda item: order[item[0]]))


def nodes_to_power_on(now: float, queue: Sequence[Job], free: int, booting: int,
                      on: int, standby: int, policy: EnergySavingPolicy
                      ) -> tuple[int, tuple, tuple[str, ...]]:
    """How many standby nodes to boot, for which jobs, and why (2.5.1).

    *Lacking*: a queued job larger than all powered-on nodes (``on``:
    idle, loaded and booting) gets the difference.  *Urgent* jobs
    (:func:`urgent_jobs`) are served in queue order from the idle and
    booting nodes; what they still lack is booted.  The larger of the two
    needs is booted (they overlap), at most the nodes in standby.
    """
    if standby <= 0 or not queue:
        return 0, (), ()
    jobs, reasons, lacking = [], [], 0
    biggest = max(queue, key=lambda job: job.js)
    if biggest.js > on:
        lacking = biggest.js - on
        jobs.append(biggest.id)
        reasons.append("lacking")
    urgent = urgent_jobs(now, queue, policy)
    sizes = {job.id: job.js for job in queue}
    supply, short = free + booting, 0
    for job_id, reason in urgent.items():
        if sizes[job_id] <= supply:
            supply -= sizes[job_id]
            continue
        short += sizes[job_id] - supply
        supply = 0
        if job_id not in jobs:
            jobs.append(job_id)
        if reason not in reasons:
            reasons.append(reason)
    count = min(standby, max(lacking, short))
    return (count, tuple(jobs), tuple(reasons)) if count else (0, (), ())


def spare_nodes(queue: Sequence[Job], pool: IdlePool, unit_nodes: int = 1) -> int:
    """Idle nodes the queue does not ask for (all it asks for: see
    :func:`nodes_to_power_off`); below ``unit_nodes`` as soon as that is
    known, without summing the rest of the queue."""
    spare = pool.count
    if spare < unit_nodes:  # nothing idle to switch off: the queue need not be summed
        return spare
    for size in map(_size, queue):  # the head of a long queue usually asks for them all
        spare -= size
        if spare < unit_nodes:
            break
    return spare


def nodes_to_power_off(now: float, queue: Sequence[Job], pool: IdlePool,
                       waits: Mapping[int, float], policy: EnergySavingPolicy,
                       unit_nodes: int = 1) -> tuple[int, tuple[str, ...]]:
    """How many idle nodes to switch off, least recently used first (2.5.2).

    Idle nodes that queued jobs may still need -- as many as the queue
    asks for in total, which covers the EASY head's reservation and jobs
    waiting for booting nodes -- are kept: a node is never switched off
    while assigned.  Of the others, those idle for ``idle_threshold_s`` go,
    and one more for each group whose started jobs waited less than its
    ``min_wait_s`` on average.  With ``unit_nodes`` > 1 nodes go by whole
    units: those of the units idle long enough, one more unit per group.
    """
    spare = spare_nodes(queue, pool, unit_nodes)
    if spare < unit_nodes:
        return 0, ()
    old = min(spare, idle_since_before(pool, now - policy.idle_threshold_s))
    count = old - old % unit_nodes
    reasons = ("idle",) if count else ()
    quick = sum(1 for group, wait in waits.items() if wait < policy.for_group(group).min_wait_s)
    extra = min(spare - count, quick * unit_nodes)
    extra -= extra % unit_nodes
    if extra:
        reasons += ("short waits",)
    return count + extra, reasons


def decide(now: float, queue: Sequence[Job], free: int, pool: IdlePool, standby: int,
           booting: Sequence[BootBatch], halting: int, waits: Mapping[int, float],
           machine_nodes: int, policy: EnergySavingPolicy, unit_nodes: int = 1) -> Decision:
    """One tick of the energy-saving scheduler: boot for the queue if it
    needs nodes, otherwise switch off what it does not need.  ``free`` (the
    *Nodes* place) equals ``pool.count``; ``machine_nodes - standby -
    halting`` nodes are on.

    ``unit_nodes``: nodes switch on and off by whole units of that many.
    Jobs are whole units (TOPPER allocates whole compute units), so the
    nodes a job lacks are rounded up to whole units, and only whole idle
    units are switched off: every count in the module stays a multiple of
    ``unit_nodes``."""
    if not policy.enabled:
        return Decision(now)
    booting_nodes = sum(batch.nodes for batch in booting)
    on = machine_nodes - standby - halting
    count, jobs, reasons = nodes_to_power_on(now, queue, free, booting_nodes, on,
                                             standby, policy)
    if count:
        count = min(standby, -(-count // unit_nodes) * unit_nodes)
        return Decision(now, power_on=count, jobs=jobs, reasons=reasons)
    count, reasons = nodes_to_power_off(now, queue, pool, waits, policy, unit_nodes)
    return Decision(now, power_off=count, reasons=reasons)


def quiet_until(now: float, queue: Sequence[Job], pool: IdlePool, standby: int,
                policy: EnergySavingPolicy, unit_nodes: int = 1) -> float:
    """When a decision that did nothing at ``now`` could first do
    something if the marking stayed as it is (``inf``: never).  Only the
    clock moves then, and :func:`decide` reads it in two places: a group's
    mean wait passing its ``max_wait_s`` (possible boots, with nodes in
    standby) and an idle batch passing the idle threshold (possible
    switch-offs, unless the queue asks for every idle node: then none is
    ever switched off, however long it idles).  Lets the tick sleep
    through the instants in between."""
    wake = math.inf
    if standby > 0 and queue:
        by_group: dict[int, list[Job]] = {}
        for job in queue:
            by_group.setdefault(job.group, []).append(job)
        for group, jobs in by_group.items():
            mean_submit = sum(job.st for job in jobs) / len(jobs)  # as urgent_jobs has it
            limit = policy.for_group(group).max_wait_s
            if not now - mean_submit > limit:  # not urgent yet
                wake = min(wake, mean_submit + limit)
    if spare_nodes(queue, pool, unit_nodes) < unit_nodes:
        return wake
    cutoff = now - policy.idle_threshold_s
    for since, _ in pool.batches:
        if since > cutoff:  # the oldest batch not yet idle long enough
            wake = min(wake, since + policy.idle_threshold_s)
            break
    return wake


def boots(decision: Decision, node: NodePower) -> list[BootBatch]:
    if not decision.power_on:
        return []
    return [BootBatch(decision.power_on, decision.time + node.power_on_s, decision.jobs)]


def halts(decision: Decision, node: NodePower) -> list[HaltBatch]:
    if not decision.power_off:
        return []
    return [HaltBatch(decision.power_off, decision.time + node.power_off_s)]


def power_change(decision: Decision, node: NodePower) -> float:
    """Change of system power when the decision's transitions begin."""
    return (decision.power_on * (node.power_on_w - node.standby_w)
            - decision.power_off * (node.idle_w - node.power_off_w))


def is_tail(selected: tuple, seen: tuple) -> bool:
    """Whether ``selected`` is what is left of ``seen`` after allocation
    took jobs from its head."""
    return len(selected) <= len(seen) and seen[len(seen) - len(selected):] == selected


def record_waits(waits: Mapping[int, float], selected: Sequence[Job], now: float,
                 smoothing: float) -> FrozenDict:
    """Per-group mean wait of started jobs, exponentially smoothed (the
    paper keeps per-user waits "updated periodically")."""
    waits = dict(waits)
    for job in selected:
        wait = now - job.st
        old = waits.get(job.group)
        waits[job.group] = wait if old is None else old + smoothing * (wait - old)
    return FrozenDict(waits)
