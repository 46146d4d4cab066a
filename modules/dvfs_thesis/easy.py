"""EASY backfilling with a gear per job (thesis section 1.3.1), with or
without a power budget (section 5.2.2.1).

One pass over the wait queue in arrival order (:func:`easy_pass_with_gears`;
the backfilling queue is FCFS too): while no job holds the reservation, a job starts now if it can
(*MakeJobReservation*), else it gets the one reservation at the earliest
time its CPUs (and power) are free, planned with the requested times of
the running jobs; every later job starts now only if that does not delay
the reservation (*BackfillJob*).  A job's requested time and runtime are
scaled by its gear; the CPUs it asks for are those the trace allocated.
A running job past its planned end counts as ending now: the reservation
may be now, yet the job waits until that job has really ended.

Policies change only which gear *MakeJobReservation* and *BackfillJob*
pick (``reserve`` and ``backfill``); :class:`EasyBackfilling` runs every
job at the gear it already carries, the nominal one unless a policy set it
at arrival (UPAS).  With a budget (the baseline of chapter 5) a job starts
only if the busy CPUs' power, running jobs at their measured power and the
new one at its maximum, stays within it (the policy "does not allow a job
to start if it would violate the power budget"): a job of no CPUs (852
lines of the Atlas portion) draws nothing, so it starts even while a job
over the budget alone keeps the power above it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from ..job import Job
from .plan import Plan, Planner, RunningJob


def easy_pass_with_gears(queue: Sequence[Job], plan: Plan, policy) -> list[Job]:
    """One EASY pass in arrival order in which ``policy`` picks each job's
    gear (its ``reserve`` and ``backfill``), within the CPUs and power of
    ``plan``: the jobs it starts now, each with its gear; ``plan`` is
    updated.  ``waiting`` given to the policy: the other jobs still in
    the wait queue (the thesis' WQsize)."""
    started: list[Job] = []
    for job in queue:
        waiting = len(queue) - len(started) - 1
        if plan.reservation is None:
            gear, start = policy.reserve(job, plan, waiting)
            if start <= plan.now and plan.fits_now(job, gear):
                started.append(plan.start(job, gear))
            else:
                plan.reserve(job, gear, start)
        elif job.js <= plan.free:
            gear = policy.backfill(job, plan, waiting)
            if gear is not None:
                started.append(plan.start(job, gear))
    return started


def remaining(queue: Sequence[Job], started: Sequence[Job]) -> tuple[Job, ...]:
    """The queue without the started jobs, in arrival order."""
    chosen = {job.id for job in started}
    return tuple(job for job in queue if job.id not in chosen)


@dataclass(frozen=True)
class EasyConfig:
    """EASY backfilling at the nominal gear (section 1.3.1); with
    ``budget_fraction`` the power-constrained EASY of section 5.2.2.1: the
    budget is that share of every CPU at the nominal gear running
    sequential code (the thesis' default: 70 %).  ``oversized``: see
    ``plan.Planner``."""

    budget_fraction: float | None = None
    oversized: str = "unchecked"

    def __post_init__(self):
        if self.budget_fraction is not None and not self.budget_fraction > 0:
            raise ValueError(f"budget_fraction must be positive, not {self.budget_fraction}")

    @property
    def beta(self) -> str:
        return "oracle"  # jobs run at their gear: no beta is guessed

    def build(self, planner: Planner, machine_cpus: int) -> "EasyBackfilling":
        return EasyBackfilling(planner)


@dataclass(frozen=True)
class EasyBackfilling:
    """The scheduler of *Schedule*: ``(queue, arrivals, running, free,
    now, state) -> (started, waiting, state)``."""

    planner: Planner

    def initial_state(self):
        return None

    def __call__(self, queue: tuple[Job, ...], arrivals: tuple[Job, ...],
                 running: Mapping[int, RunningJob], free: int, now: float, state):
        started = easy_pass_with_gears(queue, Plan(self.planner, running, free, now), self)
        return started, remaining(queue, started), state

    def gear(self, job: Job) -> int:
        return self.planner.power.gear_of(job.pf)

    def reserve(self, job: Job, plan: Plan, waiting: int) -> tuple[int, float]:
        gear = self.gear(job)
        return gear, plan.earliest(job.js, self.planner.demand(job, gear))

    def backfill(self, job: Job, plan: Plan, waiting: int) -> int | None:
        gear = self.gear(job)
        return gear if plan.can_backfill(job, gear) else None
