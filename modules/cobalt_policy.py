"""Cobalt's scheduling on Mira as a plain function: blocks, utility, drains.

What Cobalt (``bgsched.schedule_jobs`` and the BG/Q system component's
``find_job_location``) did every few seconds, rewritten for a net's
*Schedule* transition:

1. Order the queue by utility.  Mira's queues used WFP,
   ``(queued time / walltime)^3 x size`` (``bqsim``'s ``default1``).
   Cobalt's queue manager adds each pass's utility to a job's score
   (``job.score += score``, as ``bqsim`` notes of it): with
   ``accumulate``, jobs are ordered by that sum, ``size x queued^4 /
   walltime^3`` up to a constant.
2. Walk the queue in that order.  A job starts on an idle block of the
   smallest size that holds it when one is free of every busy block and
   of every draining one, and is not held for a reservation overlapping
   the job's walltime.  Of several, it takes the one whose choice blocks
   the fewest idle larger blocks (Cobalt's score: idle parents).
3. A job that cannot start *drains* a block for itself: of its size, the
   block whose conflicting busy blocks are all expected free earliest
   (each busy block's expected end: start + walltime, at least 5 minutes
   from now).  That block and every block sharing hardware with it are
   draining until then (a block already draining keeps the earlier
   time).  Every job in the queue that cannot start drains a block while
   one is left (``backfill="cobalt"``: Cobalt's source has no queue that
   does not; ``"no-drain"``: the ``backfill`` queue never drains;
   ``"last"``: its jobs come after every other job in the order), and no
   job drains for a start that would run into a reservation or
   maintenance, judged by its walltime plus ``slop`` (``bgsched``'s
   ``SLOP_TIME``, 180 s).
4. A queue may be confined to part of the machine: on Mira, ``prod-long``
   ran only on the first row of racks (R00 to R0F, 16 of 48; both logs
   show it, and no other queue).  With ``scheduled``, only the blocks
   Cobalt was set to schedule are used (a job takes the smallest size of
   them that holds it).
5. When nothing could start, backfill: in the same order, a job may take
   an idle block that is draining if its walltime ends by that block's
   drain time.

Cobalt starts one job per pass and passes every 10 s
(``schedule_jobs_interval``): so does :meth:`CobaltPolicy.schedule` with
``interval`` (the net wakes it at :meth:`CobaltPolicy.next_passes`);
without, it passes again at once until a pass starts nothing.

Where this differs from Cobalt, and why: Cobalt picks the drain block by
a backfill time that is, for a block merely blocked by busy relatives,
"5 minutes from now" whatever runs there (its tie then falls to a set's
iteration order); here each candidate's real expected free time decides,
which is what that code means to do.  Reservations come from the log
(``nets.mira.reservations_of``), because a log does not record
reservation windows.

Without blocks (``machine=None``) the policy is node-count EASY with WFP
(``modules.easy``), under the same maintenance rule: what PuPPET models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from cpn import Delayed

from .bgq_blocks import BlockMachine
from .easy import easy_pass_on_nodes, order_queue
from .job import Job
from .maintenance import Calendar
from .mira_failures import Outage

#: A busy block counts as busy at least this long (Cobalt's minimum for a
#: block that is not idle: 300 s).
MINIMUM_BUSY_S = 300.0
#: The backfill queues, which :data:`BACKFILL_RULES` treat apart.
BACKFILL_QUEUES = ("backfill", "backfill-1024-torus")
#: Cobalt judges a job to overlap a reservation when its walltime plus
#: this slack reaches it (``bgsched``'s ``SLOP_TIME``, 180 s).
RESERVATION_SLOP_S = 180.0
#: Cobalt's scheduler passes every this many seconds and starts one job a
#: pass (``bgsched``'s ``schedule_jobs_interval``, default 10 s).
SCHEDULE_INTERVAL_S = 10.0
#: How a queue's jobs are treated, by name: ``"no-drain"`` (our reading of
#: the ``backfill`` queue's name: they never drain), ``"cobalt"`` (every
#: job drains, as Cobalt's ``find_job_location`` does whatever the queue),
#: ``"last"`` (ALCF's "backfill queues, which have low priority": after
#: every other queue's jobs in the order, and drain as every job does).
BACKFILL_RULES = ("no-drain", "cobalt", "last")


@dataclass(frozen=True)
class Reservation:
    """Blocks (a bit set, with every block sharing their hardware) held
    from ``start`` to ``end`` for the jobs of reservation queue ``queue``."""

    queue: str
    start: float
    end: float
    blocks: int


@dataclass(frozen=True, eq=False)
class CobaltPolicy:
    """Cobalt's scheduling decisions for one window of a log.

    ``machine``: the blocks (``None``: node counts); ``drain``: the drain
    and backfill-window rule (else first fit in utility order);
    ``maintenance``: machine-wide windows (jobs' clock); ``reservations``
    and ``queues`` (job id -> queue name) come from the log; nothing starts
    before ``opens``, when the window opens.  ``estimate`` is what running
    jobs are planned with (``Job.estimate``); ``policy`` orders the queue
    (``"wfp"``, Mira's, or ``"fcfs"``).  ``outages``: blocks down for
    repair after a failure (jobs' clock), which no job starts on.
    ``slop``, ``accumulate`` and ``backfill``: Cobalt's slack before
    reservations and maintenance (s), its summed utility, and what the
    backfill queue does (:data:`BACKFILL_RULES`); ``interval``: seconds
    between passes (0: at every event); ``held_targets``: the drain
    block is chosen among held blocks too, and a held one means no drain
    (:meth:`_cobalt_target`); ``scheduled``: the blocks (a bit set) Cobalt
    may schedule, its blocks' ``scheduled`` flag (None: all; a size it
    names no block of is left whole)."""

    machine: BlockMachine | None = None
    drain: bool = True
    maintenance: Calendar = field(default_factory=Calendar)
    reservations: tuple[Reservation, ...] = ()
    queues: Mapping[int, str] = field(default_factory=dict)
    opens: float = float("-inf")
    estimate: str = "requested"
    policy: str = "wfp"
    outages: tuple[Outage, ...] = ()
    queue_blocks: Mapping[str, int] = field(default_factory=dict)
    slop: float = 0.0
    accumulate: bool = False
    backfill: str = "no-drain"
    interval: float = 0.0
    held_targets: bool = False
    scheduled: int | None = None
    _candidates_of: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.backfill not in BACKFILL_RULES:
            raise ValueError(f"backfill rule {self.backfill!r}: expected one of "
                             f"{', '.join(BACKFILL_RULES)}")

    def startable(self, job: Job, now: float) -> bool:
        """Whether ``job`` may start now as far as the calendar goes (its
        walltime plus ``slop`` ends before the next window)."""
        return self.maintenance.allows(now, job.estimate(self.estimate) + self.slop)

    def schedule(self, queue: tuple[Job, ...], running: Mapping[int, tuple[float, int]],
                 placed: Mapping[int, int], free: int, now: float
                 ) -> tuple[list[Job], tuple[Job, ...], dict[int, int]]:
        """The jobs to start now, the queue left, and the blocks of the
        running and started jobs (job id -> block number).  Started jobs
        carry the size and power of their block (:func:`on_block`)."""
        placed = {job_id: block for job_id, block in placed.items() if job_id in running}
        if now < self.opens or not queue or not self.on_tick(now):
            return [], queue, placed
        eligible = tuple(job for job in queue if self.startable(job, now))
        if self.machine is None:
            started, _ = easy_pass_on_nodes(eligible, running, free, now, policy=self.policy,
                                            estimate=self.estimate)
        else:
            started = self._place_on_blocks(eligible, running, placed, now)
        if not started:
            return [], queue, placed
        chosen = {job.id for job in started}
        return started, tuple(job for job in queue if job.id not in chosen), placed

    def on_tick(self, now: float) -> bool:
        """Whether Cobalt's scheduler passes at ``now``: every ``interval``
        seconds (``bgsched``'s ``schedule_jobs_interval``, 10 s), or at
        every event when ``interval`` is 0."""
        return not self.interval or abs(now - self.interval * round(now / self.interval)) < 1e-6

    def next_passes(self, started: Sequence[Job], now: float) -> list[Delayed]:
        """When the scheduler must pass again although nothing happens: at
        the next tick after an event between ticks, and one interval after
        a pass that started a job (Cobalt starts one job per pass)."""
        if not self.interval or now < self.opens:
            return []
        if not self.on_tick(now):
            tick = self.interval * math.ceil(now / self.interval)
            return [Delayed(tick, tick - now)]
        return [Delayed(now + self.interval, self.interval)] if started else []

    def _place_on_blocks(self, eligible: Sequence[Job], running: Mapping[int, tuple[float, int]],
                         placed: dict[int, int], now: float) -> list[Job]:
        """Start jobs pass after pass (one pass when Cobalt's ``interval``
        is kept); ``placed`` gains their blocks."""
        machine = self.machine
        ordered = self.order(eligible, now)
        ends = {placed[job_id]: max(end, now + MINIMUM_BUSY_S)
                for job_id, (end, _) in running.items() if job_id in placed}
        started: list[Job] = []
        down = self.down(now)
        while ordered:
            busy = machine.blocked_by(ends)
            found = self._one_pass(ordered, busy, down, ends, now)
            if found is None:
                break
            job, block = found
            ordered.remove(job)
            ends[block] = max(now + job.estimate(self.estimate), now + MINIMUM_BUSY_S)
            placed[job.id] = block
            started.append(on_block(job, machine.blocks[block].size))
            if self.interval:
                break
        return started

    def order(self, eligible: Sequence[Job], now: float) -> list[Job]:
        """The queue in Cobalt's order: by utility, highest first (ties in
        arrival order); with ``accumulate``, by the utility summed over
        the scheduler's passes since submission, as Cobalt's queue manager
        keeps it (``job.score += score``, noted in ``bqsim``'s
        ``compute_utility_scores``): for WFP, size x queued^4 / walltime^3
        up to a constant.  With ``backfill="last"`` the backfill queues'
        jobs come after every other job, each part in that order."""
        if self.accumulate and self.policy == "wfp":
            scores = [job.js * (now - job.st) ** 4 / job.estimate(self.estimate) ** 3
                      for job in eligible]
            ordered = [eligible[i] for i in sorted(range(len(eligible)),
                                                   key=scores.__getitem__, reverse=True)]
        else:
            ordered = order_queue(eligible, self.policy, now, self.estimate)
        if self.backfill == "last":
            low = [job for job in ordered if self.queues.get(job.id) in BACKFILL_QUEUES]
            if low:
                ordered = ([job for job in ordered
                            if self.queues.get(job.id) not in BACKFILL_QUEUES] + low)
        return ordered

    def down(self, now: float) -> int:
        """The blocks under repair at ``now``."""
        mask = 0
        for outage in self.outages:
            if outage.start <= now < outage.end:
                mask |= outage.blocks
        return mask

    def _held(self, job: Job, now: float) -> int:
        """Blocks ``job`` may not take: those of reservations its walltime
        would overlap."""
        mask = 0
        last = now + job.estimate(self.estimate) + self.slop
        queue = self.queues.get(job.id)
        for reservation in self.reservations:
            if reservation.queue != queue and reservation.start < last and reservation.end > now:
                mask |= reservation.blocks
        return mask

    def _one_pass(self, ordered: Sequence[Job], busy: int, down: int,
                  ends: Mapping[int, float], now: float) -> tuple[Job, int] | None:
        """Cobalt's ``find_job_location``: the one job to start now and its
        block, or None; no block ``down`` is started or drained."""
        machine = self.machine
        draining = 0
        drain_until: dict[int, float] = {}
        free_at = _FreeTimes(machine, ends)
        for job in ordered:
            held = self._held(job, now)
            candidates = self._candidates(job) & ~down
            idle = candidates & ~held & ~busy & ~draining
            if idle:
                return job, self._least_blocking(idle, busy | draining)
            if not self.drain or (self.backfill == "no-drain"
                                  and self.queues.get(job.id) in BACKFILL_QUEUES):
                continue
            if self.held_targets:
                target = self._cobalt_target(candidates & ~draining, held, busy, free_at, now)
            else:
                target = free_at.earliest(candidates & ~held & ~draining)
            if target is None:
                continue
            block, until = target
            for other in _bits(machine.conflicts[block]):
                drain_until[other] = min(drain_until.get(other, until), until)
            draining |= machine.conflicts[block]
        if not self.drain:
            return None
        for job in ordered:  # the backfill window of the draining blocks
            walltime = job.estimate(self.estimate)
            candidates = (self._candidates(job) & ~busy & ~down & draining
                          & ~self._held(job, now))
            for block in _bits(candidates):
                if now + walltime <= drain_until[block]:
                    return job, block
        return None

    def _cobalt_target(self, open_blocks: int, held: int, busy: int, free_at: "_FreeTimes",
                       now: float) -> tuple[int, float] | None:
        """The block to drain as Cobalt's ``find_job_location`` finds it
        with reservations: the earliest free of every candidate, held or
        not (an idle block is free now; a block of an active reservation
        not before its end, ``bgsched`` counting it busy until then); when
        that block is held, the job drains nothing."""
        if open_blocks & held & ~busy:
            return None  # an idle block held for a reservation frees first
        best = None
        active = [(reservation.blocks, reservation.end) for reservation in self.reservations
                  if reservation.start <= now < reservation.end]
        for block in _bits(open_blocks):
            until = free_at.of(block)
            if until is None:
                continue
            for blocks, end in active:
                if blocks >> block & 1:
                    until = max(until, end)
            if best is None or until < best[1]:
                best = (block, until)
        if best is None or held >> best[0] & 1:
            return None
        return best

    def _candidates(self, job: Job) -> int:
        """The blocks of the smallest size that holds ``job`` of those its
        queue may use and Cobalt schedules (Cobalt's ``possible_locations``
        over the queue's defined sizes)."""
        queue = self.queues.get(job.id)
        key = (job.js, queue)
        if key not in self._candidates_of:
            machine = self.machine
            mask = 0
            for size in machine.sizes:
                if size >= job.js:
                    mask = self._offered(sum(1 << block for block in machine.by_size[size]))
                    mask &= self.queue_blocks.get(queue, mask)
                    if mask:
                        break
            self._candidates_of[key] = mask
        return self._candidates_of[key]

    def _offered(self, same_size: int) -> int:
        """Of blocks of one size, those Cobalt schedules: all of them when
        ``scheduled`` names none of that size (it says nothing of it)."""
        if self.scheduled is None or not same_size & self.scheduled:
            return same_size
        return same_size & self.scheduled

    def _least_blocking(self, idle: int, unavailable: int) -> int:
        """Of the ``idle`` blocks, the one that blocks the fewest idle
        larger blocks (Cobalt's score; the first in file order on a tie)."""
        machine = self.machine
        best, best_score = -1, None
        for block in _bits(idle):
            larger = machine.conflicts[block] & ~unavailable
            score = sum(1 for other in _bits(larger)
                        if machine.blocks[other].size > machine.blocks[block].size)
            if best_score is None or score < best_score:
                best, best_score = block, score
        return best


class _FreeTimes:
    """When each block is expected free of the busy blocks it conflicts
    with, computed once per block and pass."""

    def __init__(self, machine: BlockMachine, ends: Mapping[int, float]):
        self.machine, self.ends = machine, ends
        self.running = sum(1 << block for block in ends)
        self.known: dict[int, float | None] = {}

    def of(self, block: int) -> float | None:
        """The expected free time, None when nothing busy conflicts."""
        if block not in self.known:
            conflicting = self.machine.conflicts[block] & self.running
            self.known[block] = (max(self.ends[other] for other in _bits(conflicting))
                                 if conflicting else None)
        return self.known[block]

    def earliest(self, candidates: int) -> tuple[int, float] | None:
        """The candidate block that frees earliest, and when; candidates
        that nothing busy blocks (held for a reservation) cannot be
        drained."""
        best = None
        for block in _bits(candidates):
            until = self.of(block)
            if until is not None and (best is None or until < best[1]):
                best = (block, until)
        return best


def on_block(job: Job, size: int) -> Job:
    """``job`` on a block of ``size`` nodes: the block's nodes it does not
    fill stay allocated and draw power as the job's nodes do."""
    if size == job.js:
        return job
    return job._replace(js=size, jp=job.jp * size / job.js)


def _bits(mask: int):
    """The positions of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
