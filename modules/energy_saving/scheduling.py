"""Scheduling a machine whose nodes sleep (Dolz et al., section 2.4).

EASY's shadow time does not exist while the head job is larger than the
powered-on machine, so :func:`scheduling_module` lets EASY see the nodes
about to boot (:func:`with_booting_nodes`); :func:`fifo_per_queue` is the
paper's own scheduler, FIFO within each queue.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from operator import attrgetter, itemgetter
from typing import Callable, Mapping, Sequence

from cpn import Net

from ..batch_scheduling import P_SCHEDULE, SchedulingConfig, batch_scheduling
from ..easy import ESTIMATES, easy_pass_on_nodes
from ..job import Job


QUEUE_KEYS: dict[str, Callable[[Job], object] | None] = {
    "single": None, "group": lambda job: job.group, "user": lambda job: job.user}


@dataclass(frozen=True)
class FifoQueues:
    """The paper's queueing scheduler (section 2.4, SGE-like): FIFO within
    each queue, no backfilling.  SWF traces rarely fill the queue field
    (NASA's is empty, and ``Job`` does not carry it), so ``queue`` says what
    a queue is: ``"single"`` (one queue: plain FCFS), ``"group"`` or
    ``"user"``.  ``trigger`` and ``estimate`` as in ``SchedulingConfig``."""

    queue: str = "single"
    trigger: str = "event"
    estimate: str = "requested"

    def __post_init__(self):
        if self.queue not in QUEUE_KEYS:
            raise ValueError(f"queue must be one of {tuple(QUEUE_KEYS)}, not {self.queue!r}")
        if self.trigger not in P_SCHEDULE:
            raise ValueError(f"trigger must be one of {tuple(P_SCHEDULE)}, not {self.trigger!r}")
        if self.estimate not in ESTIMATES:
            raise ValueError(f"estimate must be one of {ESTIMATES}, not {self.estimate!r}")

    @property
    def scheduling(self) -> SchedulingConfig:
        """The batch scheduling options allocation and *Schedule* share."""
        return SchedulingConfig(policy="fcfs", estimate=self.estimate, trigger=self.trigger,
                                backfill=False)


def batch_options(scheduling: SchedulingConfig | FifoQueues) -> SchedulingConfig:
    """The batch scheduling options allocation plans with and a run records."""
    return scheduling.scheduling if isinstance(scheduling, FifoQueues) else scheduling


def fifo_per_queue(queue: tuple[Job, ...], running: Mapping, free: int, now: float,
                   queue_of: Callable[[Job], object] | None = None
                   ) -> tuple[list[Job], tuple[Job, ...]]:
    """One pass of FIFO per queue: in arrival order, a job starts when it
    fits and no earlier job of its queue is still waiting; a job that does
    not fit blocks its queue only.  Same signature as
    ``easy.easy_pass_on_nodes``.

    >>> jobs = (Job(1, 0, 10, 3, 10, group=1), Job(2, 1, 10, 1, 10, group=1),
    ...         Job(3, 2, 10, 1, 10, group=2))
    >>> [job.id for job in fifo_per_queue(jobs, {}, 2, 5)[0]]
    []
    >>> [job.id for job in fifo_per_queue(jobs, {}, 2, 5, lambda job: job.group)[0]]
    [3]
    """
    started: list[Job] = []
    blocked: set = set()
    for job in queue:
        key = None if queue_of is None else queue_of(job)
        if key in blocked:
            continue
        if job.js <= free:
            started.append(job)
            free -= job.js
        else:
            blocked.add(key)
            if queue_of is None:
                break
    if not started:
        return started, queue
    chosen = {job.id for job in started}
    return started, tuple(job for job in queue if job.id not in chosen)


def fifo_scheduling(config: FifoQueues = FifoQueues()) -> Net:
    """A scheduler module for ``compose(scheduler=...)``: PuPPET's batch
    scheduling net (*Submit*, *Trigger*, *Schedule*) running
    :func:`fifo_per_queue` instead of EASY."""
    return batch_scheduling(config.scheduling, name="FifoQueues", checked=False,
                            schedule=partial(fifo_per_queue, queue_of=QUEUE_KEYS[config.queue]))


BOOTING = "booting nodes"  # the key of the phantom entry in Runtime Info
_NODES, _SIZE = itemgetter(1), attrgetter("js")


def pair(end: float, nodes: int) -> tuple[float, int]:
    """A *Runtime Info* value of PuPPET's allocation: planned end, nodes."""
    return end, nodes


def with_booting_nodes(queue: Sequence[Job], running: Mapping, free: int, now: float,
                       boot_delay: float, entry: Callable[[float, int], tuple] = pair,
                       machine_nodes: float = math.inf) -> Mapping:
    """*Runtime Info* as EASY should see it when nodes sleep: if a queued
    job is larger than the idle and loaded nodes, the missing nodes appear
    as a phantom job ending ``boot_delay`` from now (when the nodes the
    energy-saving tick boots for it are ready at the latest).  Without it
    the head's shadow time does not exist (``easy.shadow`` raises).
    ``entry(end, nodes)`` makes the phantom's value in the layout of the
    model's *Runtime Info*, whose values hold the nodes second.  With every
    one of the ``machine_nodes`` on (no job is larger), the queue is not read."""
    if not queue:
        return running
    on = free + sum(map(_NODES, running.values()))
    if on >= machine_nodes:
        return running
    biggest = max(map(_SIZE, queue))  # at C speed: every pass reads the whole queue
    if biggest <= on:
        return running
    return {**running, BOOTING: entry(now + boot_delay, biggest - on)}


def easy_with_sleeping_nodes(boot_delay: float, machine_nodes: float = math.inf,
                             policy: str = "fcfs", estimate: str = "requested",
                             backfill: bool = True) -> Callable:
    """``easy.easy_pass_on_nodes`` (with these options) on
    :func:`with_booting_nodes`, as a ``schedule(queue, running, free, now)``:
    the head keeps its reservation while its nodes boot, and backfilling
    fills the wait.  A closure, options bound once and passed by position
    (a partial of keywords builds them again at each call): it runs at every pass."""
    def schedule(queue, running, free, now):
        return easy_pass_on_nodes(queue, with_booting_nodes(queue, running, free, now, boot_delay,
                                                            pair, machine_nodes),
                                  free, now, policy, estimate, backfill)

    return schedule


def scheduling_module(scheduling: SchedulingConfig | FifoQueues, boot_delay: float,
                      machine_nodes: float = math.inf) -> Net:
    """The scheduler module for a machine of ``machine_nodes`` whose nodes
    sleep: the paper's FIFO per queue, or PuPPET's batch scheduling
    (FCFS/WFP with EASY) planning with booting nodes
    (:func:`easy_with_sleeping_nodes`)."""
    if isinstance(scheduling, FifoQueues):
        return fifo_scheduling(scheduling)
    return batch_scheduling(scheduling, checked=False, schedule=easy_with_sleeping_nodes(
        boot_delay, machine_nodes, policy=scheduling.policy, estimate=scheduling.estimate,
        backfill=scheduling.backfill))
