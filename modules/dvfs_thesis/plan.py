"""What a scheduler knows during one pass, and the bookkeeping of it.

*Runtime Info* maps each running job to a :class:`RunningJob`: its planned
end (start plus its requested time scaled to its gear), its CPUs and its
CPU power, measured once it runs (MaxJobPerf's assumption 1, section
5.3.1).  A :class:`Planner` holds what the scheduler knows of jobs: their
requested times scaled by ``Coef(f, beta)`` with the job's own beta
(``beta="oracle"``) or the conservative beta = 1 (``"one"``, section
5.2.2.2), a job's power before it starts estimated at its maximum (every
CPU running sequential code at the gear, section 5.2.2.1), the power
budget, and the predicted BSLD of eq. 4.3.  A :class:`Plan` is one pass's
view of CPUs and power now and at each later planned end, updated as the
pass starts jobs or makes the reservation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple

from ..job import Job
from .gears import CpuPowerModel
from .profiles import JobProfile

SCHEDULER_BETAS = ("oracle", "one")
OVERSIZED_RULES = ("alone", "unchecked")
BSLD_THRESHOLD_S = 600.0  # Th of eqs. 3.14, 3.15 and 4.3: ten minutes (section 3.4)


class RunningJob(NamedTuple):
    """A value of *Runtime Info*."""

    end: float
    cpus: int
    watts: float


class Reservation(NamedTuple):
    """The head job's reservation: when, and the CPUs and power it holds."""

    start: float
    cpus: int
    watts: float


@dataclass(frozen=True)
class Planner:
    """The scheduler's knowledge: the model, the jobs' profiles, the beta
    it plans with, and the power budget (``inf``: none) on the power of
    busy CPUs.  ``oversized``: how a job that alone breaks the budget at
    the nominal gear may start, which the thesis leaves open ("we allow
    these jobs to violate the power budget"): whenever its CPUs are free,
    its power unchecked (``"unchecked"``, the literal reading), or only
    when no other job runs (``"alone"``, PuPPET's rule)."""

    power: CpuPowerModel
    profiles: Mapping[int, JobProfile] = field(default_factory=dict, compare=False)
    beta: str = "oracle"
    budget_watts: float = math.inf
    oversized: str = "unchecked"

    def __post_init__(self):
        if self.beta not in SCHEDULER_BETAS:
            raise ValueError(f"beta must be one of {SCHEDULER_BETAS}, not {self.beta!r}")
        if not self.budget_watts > 0:
            raise ValueError(f"the power budget must be positive, not {self.budget_watts}")
        if self.oversized not in OVERSIZED_RULES:
            raise ValueError(f"oversized must be one of {OVERSIZED_RULES}, "
                             f"not {self.oversized!r}")

    def profile(self, job: Job) -> JobProfile:
        try:
            return self.profiles[job.id]
        except KeyError:
            raise KeyError(f"job {job.id} has no DVFS profile (p, beta_comp)") from None

    def coef(self, job: Job, gear: int) -> float:
        """Coef(f, beta) with the beta the scheduler plans with."""
        beta = 1.0 if self.beta == "one" else self.profile(job).beta
        return self.power.coef(gear, beta)

    def planned(self, job: Job, gear: int) -> float:
        """The job's requested time scaled to ``gear``."""
        return job.wt * self.coef(job, gear)

    def estimate_watts(self, job: Job, gear: int) -> float:
        """The most the job can draw at ``gear``: its power before it starts."""
        return job.js * self.power.sequential_watts(gear)

    def over_budget(self, job: Job) -> bool:
        """The job alone breaks the budget at the nominal gear."""
        return self.estimate_watts(job, self.power.nominal) > self.budget_watts

    def demand(self, job: Job, gear: int) -> float:
        """The power a start at ``gear`` must find under the budget.  A job
        that alone breaks it asks for the whole budget (it starts when no
        other job runs) or, ``"unchecked"``, for nothing."""
        watts = self.estimate_watts(job, gear)
        if watts <= self.budget_watts:
            return watts
        return self.budget_watts if self.oversized == "alone" else 0.0

    def power_allows(self, drawn: float, cpus: int, watts: float) -> bool:
        """A start of ``cpus`` CPUs asking ``watts`` when ``drawn`` watts are
        drawn keeps the budget; a job of no CPUs draws nothing, so it never
        breaks the budget, even one already exceeded by a job over it."""
        return cpus == 0 or drawn + watts <= self.budget_watts

    def predicted_bsld(self, job: Job, gear: int, start: float) -> float:
        """Eq. 4.3: the BSLD the job would get starting at ``start`` at
        ``gear``, its requested time standing for its runtime."""
        wait = start - job.st
        return max((wait + job.wt * self.coef(job, gear)) / max(BSLD_THRESHOLD_S, job.wt), 1.0)

    def at_gear(self, job: Job, gear: int) -> Job:
        return job._replace(pf=self.power.relative(gear))


class Plan:
    """CPUs and power during one pass, from now to the last planned end."""

    def __init__(self, planner: Planner, running: Mapping[int, RunningJob], free: int,
                 now: float):
        self.planner, self.free, self.now = planner, free, now
        self.entries = [(max(entry.end, now), entry.cpus, entry.watts)
                        for entry in running.values()]
        self.watts_now = sum(entry.watts for entry in running.values())
        self.reservation: Reservation | None = None
        self.extra_cpus = self.extra_watts = 0.0

    @property
    def budget(self) -> float:
        return self.planner.budget_watts

    def times(self) -> list[float]:
        """Now, then each later planned end: when resources can change."""
        return sorted({self.now, *(end for end, _, _ in self.entries)})

    def free_at(self, time: float) -> int:
        return self.free + sum(cpus for end, cpus, _ in self.entries if end <= time)

    def watts_at(self, time: float) -> float:
        return sum(watts for end, _, watts in self.entries if end > time)

    def fits_at(self, time: float, cpus: int, watts: float) -> bool:
        return (self.free_at(time) >= cpus
                and self.planner.power_allows(self.watts_at(time), cpus, watts))

    def earliest(self, cpus: int, watts: float) -> float:
        """The first time ``cpus`` CPUs and ``watts`` of budget are free."""
        for time in self.times():
            if self.fits_at(time, cpus, watts):
                return time
        raise ValueError(f"{cpus} CPUs and {watts} W never fit the machine and budget")

    def start(self, job: Job, gear: int) -> Job:
        """Start ``job`` now at ``gear``; the token with its gear."""
        watts = self.planner.estimate_watts(job, gear)
        end = self.now + self.planner.planned(job, gear)
        self.free -= job.js
        self.watts_now += watts
        self.entries.append((end, job.js, watts))
        if self.reservation is not None and end > self.reservation.start:
            self.extra_cpus -= job.js
            self.extra_watts -= watts
        return self.planner.at_gear(job, gear)

    def reserve(self, job: Job, gear: int, start: float) -> None:
        """The reservation of the head job, and what it leaves over then."""
        watts = self.planner.demand(job, gear)
        self.reservation = Reservation(start, job.js, watts)
        self.extra_cpus = self.free_at(start) - job.js
        self.extra_watts = self.budget - self.watts_at(start) - watts

    def fits_now(self, job: Job, gear: int) -> bool:
        return (job.js <= self.free and self.planner.power_allows(
            self.watts_now, job.js, self.planner.demand(job, gear)))

    def can_backfill(self, job: Job, gear: int) -> bool:
        """Starting now at ``gear`` fits and does not delay the reservation:
        the job ends by it, or leaves the CPUs and power it holds."""
        if not self.fits_now(job, gear):
            return False
        if self.now + self.planner.planned(job, gear) <= self.reservation.start:
            return True
        return (job.js <= self.extra_cpus
                and self.planner.demand(job, gear) <= self.extra_watts)
