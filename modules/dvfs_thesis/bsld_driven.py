"""The BSLD-driven policy (thesis section 4.3, Figs. 4.9-4.10).

EASY backfilling that picks each job's gear when it is scheduled: from the
lowest gear up, the first at which the job can be scheduled and its
predicted BSLD (eq. 4.3, wait according to the current schedule,
requested time scaled by ``Coef(f, beta)``) is below ``BSLD_threshold``;
when more than ``WQ_threshold`` other jobs wait, or no reduced gear
qualifies, the nominal gear.  A job is only started now, so its predicted
wait is its wait so far; a job that gets the reservation keeps the
nominal gear until it starts (without a budget its gear does not change
when the reservation is).  Backfilling may reject a low gear, whose longer
time would delay the reservation, and accept a higher one.

"Below" is strict, as the thesis writes it ("lower than"); the scheduler
knows each job's beta (the thesis' assumption in section 4.3.1).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..job import Job
from .easy import EasyBackfilling
from .plan import Plan, Planner


@dataclass(frozen=True)
class BsldDrivenConfig:
    """Section 4.3.2.1: ``bsld_threshold`` 1.5, 2 or 3; ``wq_threshold``
    0, 4, 16 or ``None`` (no limit)."""

    bsld_threshold: float = 2.0
    wq_threshold: int | None = None
    beta: str = "oracle"

    def __post_init__(self):
        if not self.bsld_threshold >= 1:
            raise ValueError(f"bsld_threshold must be >= 1, not {self.bsld_threshold}")
        if self.wq_threshold is not None and self.wq_threshold < 0:
            raise ValueError(f"wq_threshold must be >= 0 or None, not {self.wq_threshold}")

    def build(self, planner: Planner, machine_cpus: int) -> "BsldDriven":
        return BsldDriven(planner, self)


@dataclass(frozen=True)
class BsldDriven(EasyBackfilling):
    config: BsldDrivenConfig

    def may_scale(self, waiting: int) -> bool:
        threshold = self.config.wq_threshold
        return threshold is None or waiting <= threshold

    def satisfies_bsld(self, job: Job, gear: int, start: float) -> bool:
        return self.planner.predicted_bsld(job, gear, start) < self.config.bsld_threshold

    def reserve(self, job: Job, plan: Plan, waiting: int) -> tuple[int, float]:
        nominal = self.planner.power.nominal
        start = plan.earliest(job.js, self.planner.demand(job, nominal))
        if start <= plan.now and self.may_scale(waiting):
            for gear in range(nominal):
                if self.satisfies_bsld(job, gear, plan.now):
                    return gear, start
        return nominal, start

    def backfill(self, job: Job, plan: Plan, waiting: int) -> int | None:
        nominal = self.planner.power.nominal
        if self.may_scale(waiting):
            for gear in range(nominal):
                if plan.can_backfill(job, gear) and self.satisfies_bsld(job, gear, plan.now):
                    return gear
        return nominal if plan.can_backfill(job, nominal) else None
