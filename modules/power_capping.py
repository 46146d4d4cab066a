"""Power capping decisions, as plain functions the allocation net calls.

PuPPET section 3.2: a job may start when its power keeps the system at or
under the cap ``Pcap``.  BLOCK holds it (and everything behind it) until
power frees up; WAIT parks up to ``l`` such jobs in a wait queue and lets
others pass, until one of them has waited ``w``, which blocks the rest until
it starts.

A job that alone would break the cap (on an otherwise idle machine) could
never start, and would stall the queue for ever.  By default (``over_cap
= "reject"``) such a job is rejected before the run (:func:`over_cap_alone`
finds them; the run lists them with ``OVER_CAP_REASON``), so the cap holds
at all times.  With ``"run_alone"`` it starts when nothing else runs: the
power series then exceeds the cap while it runs, which the run's metrics
report (``cap_exceeded_s``), and the machine drains before it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter
from typing import Mapping, Sequence

from . import easy
from .job import Job
from .last_answer import keeps_last_answer
from .power import PowerModel, cap_limit
from .values import is_number, is_whole_number

#: What to do with a job whose power alone exceeds the cap: reject it (the
#: cap holds), or run it when nothing else runs (the cap breaks meanwhile).
OVER_CAP = ("reject", "run_alone")
OVER_CAP_REASON = "power alone above the cap"
_ID, _ARRIVAL = attrgetter("id"), attrgetter("st")


def over_cap_alone(jobs: Sequence[Job], power: PowerModel, machine_nodes: int,
                   cap_watts: float, frequency: float = 1.0) -> list[Job]:
    """The ``jobs`` that exceed ``cap_watts`` even on an otherwise idle
    machine of ``machine_nodes`` nodes, run at ``frequency`` (the lowest
    level under DVFS): the cap cannot hold while they run."""
    floor = power.idle_system(machine_nodes)
    scale = 1.0 if frequency == 1.0 else power.scale(frequency)
    idle, limit = power.idle_node_watts, cap_limit(cap_watts)
    # PowerModel.busy_delta_at and under_cap written out, the scale computed once.
    return [job for job in jobs
            if not floor + float((job.jp if scale == 1.0 else job.jp * scale)
                                 - job.js * idle) <= limit]


@dataclass(frozen=True)
class PowerCap:
    """``cap_watts``: Pcap (``inf``: no capping).  ``wait_queue_length``:
    ``l`` (0 is BLOCK; the paper's WAIT uses 10).  ``max_wait``: ``w`` in
    seconds (the paper's 500 minutes)."""

    cap_watts: float = math.inf
    wait_queue_length: int = 10
    max_wait: float = 500 * 60.0

    def __post_init__(self):
        if not (is_number(self.cap_watts) and self.cap_watts > 0):
            raise ValueError(f"the power cap must be positive watts, not {self.cap_watts!r}")
        if not (is_whole_number(self.wait_queue_length) and self.wait_queue_length >= 0):
            raise ValueError(f"the wait queue length l must be a whole number >= 0, "
                             f"not {self.wait_queue_length!r}")
        if not (is_number(self.max_wait) and self.max_wait >= 0):
            raise ValueError(f"the maximum wait w must be >= 0 s, not {self.max_wait}")

    @classmethod
    def block(cls, cap_watts: float) -> "PowerCap":
        return cls(cap_watts, wait_queue_length=0)

    @classmethod
    def wait(cls, cap_watts: float, l: int = 10, w_minutes: float = 500) -> "PowerCap":
        if not is_number(w_minutes):  # else a TypeError of its * 60, or '5' * 60
            raise ValueError(f"the maximum wait w must be a number of minutes, not {w_minutes!r}")
        return cls(cap_watts, wait_queue_length=l, max_wait=w_minutes * 60.0)


def requeue(queue: tuple[Job, ...], returned: Sequence[Job]) -> tuple[Job, ...]:
    """The queue with held jobs back in it, in arrival order (then id).
    Usually the last scheduling pass took them from a queue in that order,
    which is then the answer less the jobs it started (``easy.put_back``);
    else the queue is sorted: by id, then stably by arrival, which gives
    the order of one sort by (arrival, id), on keys that are plain numbers
    read at C speed rather than a tuple built for every job."""
    if type(returned) is tuple and (merged := easy.put_back(queue, returned)) is not None:
        return merged
    jobs = sorted(queue + tuple(returned), key=_ID)
    jobs.sort(key=_ARRIVAL)
    merged = tuple(jobs)
    easy.returned(queue, returned, merged)
    return merged


@dataclass(frozen=True)
class AllocationRules:
    power: PowerModel
    cap: PowerCap

    @keeps_last_answer
    def fits(self, job: Job, watts: float, running: Mapping) -> bool:
        """Starting ``job`` keeps system power at or under the cap, or
        nothing else runs (a job alone over the cap must not stall the queue).
        The guards of *Allocate* and *Hold* ask it in turn of the same
        tokens: the last answer is kept for them (``under_cap`` written out,
        on the cap's limit computed once)."""
        return watts + self.power.busy_delta(job) <= self._limit or not running

    @cached_property
    def _limit(self) -> float:
        """The cap with the running sum's rounding slack (``under_cap``)."""
        return cap_limit(self.cap.cap_watts)

    def blocked(self, waiting: Sequence[Job], now: float) -> bool:
        """A waiting job has waited longer than ``w``."""
        return bool(waiting) and any(now - job.et > self.cap.max_wait for job in waiting)

    def pick_waiting(self, waiting: Sequence[Job], free: int, watts: float,
                     running: Mapping, now: float) -> int | None:
        """Position of the waiting job to start now, if any: the first one
        that fits nodes and power, unless one has waited too long, in which
        case only the first such job may start."""
        for slot, job in enumerate(waiting):
            if now - job.et > self.cap.max_wait:
                return slot if job.js <= free and self.fits(job, watts, running) else None
        for slot, job in enumerate(waiting):
            if job.js <= free and self.fits(job, watts, running):
                return slot
        return None
