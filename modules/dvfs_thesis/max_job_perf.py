"""MaxJobPerf: CPUs and power allocated together by optimisation (thesis
section 5.3, eqs. 5.2-5.9).

At a job's arrival (a pass that sees arrivals) the job starts now, if
CPUs and power allow, at the highest gear the power allows; other queued
jobs wait for the next end.  At a job's end the queue is cut in chunks of
``chunk_size`` jobs in arrival order, and for each chunk in turn
``chunk_solver.best_gears`` chooses which jobs start and at which gears,
maximising ``sum P(F_i) Wait(J_i)`` with the CPUs and power left by the
chunks before.  A job's power before it starts is its maximum at the gear
(assumption 3); running jobs count at their measured power (assumption
1); idle CPUs count for nothing (assumption 2).  The budget is never
exceeded: a job that would break it alone even at the lowest gear never
starts (an error at build time, since the run could not end).

Reservations (eqs. 5.7-5.9): the first job in the queue gets one when it
has waited longer than ``wait_time_limit`` or, with ``reservations="size"``
(the default), asks for more than ``job_size_limit`` of the CPUs; the
thesis' default limit of 10^7 s makes the wait a backstop, its "time"
reservations (``reservations="time"``) use the 95th percentile of the
power-constrained baseline's waits as the limit, and ``"none"`` makes no
reservation (the thesis' noRes).  The reservation is the earliest time
(now or a planned end) when its CPUs, and the power for it at the lowest
gear, are free; its gear is the highest the power then allows.  It is
recomputed at each pass (jobs started since never delay it); when its
time has come and its CPUs and power are really free, the job starts at
its gear before any other.  The reserved job itself is exempt from eqs.
5.7-5.8: starting it early cancels the reservation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple, Sequence

from ..job import Job
from .chunk_solver import Capacity, Option, best_gears
from .easy import remaining
from .plan import Plan, Planner, RunningJob

RESERVATION_RULES = ("size", "time", "none")


@dataclass(frozen=True)
class MaxJobPerfConfig:
    """Section 5.3.2.1's defaults: budget 70 %, chunks of 7, reservations
    by size (more than 50 % of the CPUs) or a wait above 10^7 s."""

    budget_fraction: float = 0.7
    chunk_size: int = 7
    reservations: str = "size"
    job_size_limit: float = 0.5
    wait_time_limit: float = 1e7
    beta: str = "one"

    def __post_init__(self):
        if not self.budget_fraction > 0:
            raise ValueError(f"budget_fraction must be positive, not {self.budget_fraction}")
        if self.chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, not {self.chunk_size}")
        if self.reservations not in RESERVATION_RULES:
            raise ValueError(f"reservations must be one of {RESERVATION_RULES}, "
                             f"not {self.reservations!r}")
        if not 0 < self.job_size_limit <= 1 or not self.wait_time_limit >= 0:
            raise ValueError(f"need 0 < job_size_limit <= 1 and wait_time_limit >= 0, not "
                             f"{self.job_size_limit}, {self.wait_time_limit}")

    def build(self, planner: Planner, machine_cpus: int) -> "MaxJobPerf":
        return MaxJobPerf(planner, self, machine_cpus)


class HeldReservation(NamedTuple):
    """The head's reservation: when, its CPUs, its power at its gear."""

    start: float
    cpus: int
    watts: float
    gear: int


@dataclass(frozen=True)
class MaxJobPerf:
    planner: Planner
    config: MaxJobPerfConfig
    machine_cpus: int

    def initial_state(self):
        return None

    def check(self, jobs: Sequence[Job]) -> None:
        """Every job fits the budget alone at the lowest gear."""
        stuck = [job.id for job in jobs
                 if self.planner.estimate_watts(job, 0) > self.planner.budget_watts]
        if stuck:
            raise ValueError(f"{len(stuck)} jobs exceed the power budget alone even at the "
                             f"lowest gear and could never start (first: {stuck[:5]})")

    def __call__(self, queue: tuple[Job, ...], arrivals: tuple[Job, ...],
                 running: Mapping[int, RunningJob], free: int, now: float, state):
        plan = Plan(self.planner, running, free, now)
        new = {job.id for job in arrivals}
        waiting = [job for job in queue if job.id not in new]
        started: list[Job] = []
        reservation = self.reservation(waiting, plan)
        if reservation is not None and reservation.start <= now and self.fits_now(
                waiting[0], reservation, plan):
            head = waiting.pop(0)
            started.append(plan.start(head, reservation.gear))
            reservation = None
        capacity = self.capacity(plan, reservation)
        if arrivals:
            for job in arrivals:
                gear, capacity = self.arrival_gear(job, plan, reservation, capacity)
                if gear is not None:
                    started.append(plan.start(job, gear))
        else:
            exempt = waiting[0].id if reservation is not None else None
            for first in range(0, len(waiting), self.config.chunk_size):
                if capacity.cpus_now <= 0:
                    break
                chunk = waiting[first:first + self.config.chunk_size]
                options = [(job.js, self.options(job, plan, reservation, exempt))
                           for job in chunk]
                for job, (cpus, choices), gear in zip(chunk, options,
                                                      best_gears(options, capacity)):
                    if gear is not None:
                        option = next(o for o in choices if o.gear == gear)
                        capacity = capacity.take(cpus, option)
                        started.append(plan.start(job, gear))
        return started, remaining(queue, started), state

    def fits_now(self, job: Job, reservation: HeldReservation, plan: Plan) -> bool:
        """The reserved job's CPUs and power are free now (not only planned
        to be: a job past its planned end still holds its CPUs)."""
        return (job.js <= plan.free
                and plan.watts_now + reservation.watts <= self.planner.budget_watts)

    def wants_reservation(self, job: Job, now: float) -> bool:
        config = self.config
        if now - job.st > config.wait_time_limit:
            return True
        return config.reservations == "size" and job.js > config.job_size_limit * self.machine_cpus

    def reservation(self, waiting: Sequence[Job], plan: Plan) -> HeldReservation | None:
        """The head's reservation, if it gets one."""
        if not waiting or self.config.reservations == "none":
            return None
        head, planner = waiting[0], self.planner
        if not self.wants_reservation(head, plan.now):
            return None
        start = plan.earliest(head.js, planner.estimate_watts(head, 0))
        drawn = plan.watts_at(start)
        gear = max(g for g in range(len(planner.power.gears))
                   if g == 0 or drawn + planner.estimate_watts(head, g) <= planner.budget_watts)
        return HeldReservation(start, head.js, planner.estimate_watts(head, gear), gear)

    def capacity(self, plan: Plan, reservation) -> Capacity:
        budget = self.planner.budget_watts
        if reservation is None:
            return Capacity(plan.free, budget - plan.watts_now, plan.free, budget)
        return Capacity(plan.free, budget - plan.watts_now,
                        plan.free_at(reservation.start) - reservation.cpus,
                        budget - plan.watts_at(reservation.start) - reservation.watts)

    def options(self, job: Job, plan: Plan, reservation, exempt: int | None) -> list[Option]:
        """Eq. 5.2's choices for ``job``, with eqs. 5.6 and 5.9."""
        planner, wait = self.planner, plan.now - job.st
        return [Option(gear, planner.power.sequential_watts(gear) * wait,
                       planner.estimate_watts(job, gear),
                       reservation is not None and job.id != exempt
                       and plan.now + planner.planned(job, gear) >= reservation.start)
                for gear in range(len(planner.power.gears))]

    def arrival_gear(self, job: Job, plan: Plan, reservation, capacity: Capacity):
        """The highest gear at which ``job`` starts at its arrival, and the
        capacity left; ``None`` when it must wait."""
        for option in reversed(self.options(job, plan, reservation, None)):
            left = capacity.take(job.js, option)
            if left is not None:
                return option.gear, left
        return None, capacity
