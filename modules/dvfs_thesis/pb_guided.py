"""The PB-guided policy: power-budget-guided DVFS (thesis section 5.2,
eq. 5.1, Figs. 5.2-5.3).

Power-constrained EASY (``easy.py`` with a budget) whose gear choice
follows the power draw.  The BSLD threshold depends on ``P_current``, the
busy CPUs' power with the job being scheduled at the gear tried (eq. 5.1):
0 below ``P_lower``, ``BSLD_lower`` up to ``P_upper``, ``BSLD_upper``
above (shares of the budget).  A job runs at a reduced gear when its
predicted BSLD (eq. 4.3) there is below that threshold and the power
allows it; else at the nominal gear, if the power allows it.

*MakeJobReservation* (Fig. 5.2) tries now, then each later planned end:
at each, the reduced gears from the lowest up, then the nominal one; the
first that fits CPUs and power (and, reduced, the BSLD condition) is the
job's start and gear.  *BackfillJob* (Fig. 5.3) does the same for now
only, without delaying the reservation's CPUs and power.

Decisions: the printed pseudo-code never advances ``f`` in its inner loop;
gears are iterated upward, as the text says.  "Below" is strict, as the
text says ("lower than"), so a ``BSLD_lower`` of 1 lets nothing scale in
the middle band (``inclusive=True`` makes it ``<=``).  ``BSLD_lower``
defaults to nothing: the thesis sets it to the workload's mean BSLD
without a budget, which the caller measures (``nets/dvfs_thesis.py``).  A
job that alone breaks the budget at the nominal gear runs at the nominal
gear, starting as the baseline lets it (``oversized``, see
``plan.Planner``); a job of no CPUs draws nothing and is never held for
power (``Planner.power_allows``).  The scheduler plans
with beta = 1 (``beta="oracle"`` gives it each job's beta).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..job import Job
from .easy import EasyBackfilling
from .plan import Plan, Planner


@dataclass(frozen=True)
class PbGuidedConfig:
    """Section 5.2.2.1's defaults: budget 70 %, ``P_lower`` 60 % and
    ``P_upper`` 90 % of it, ``BSLD_upper = 2 BSLD_lower``."""

    bsld_lower: float
    budget_fraction: float = 0.7
    p_lower: float = 0.6
    p_upper: float = 0.9
    bsld_upper: float | None = None
    beta: str = "one"
    inclusive: bool = False
    oversized: str = "unchecked"

    def __post_init__(self):
        if not self.budget_fraction > 0:
            raise ValueError(f"budget_fraction must be positive, not {self.budget_fraction}")
        if not 0 <= self.p_lower <= self.p_upper:
            raise ValueError(f"need 0 <= p_lower <= p_upper, not {self.p_lower}, {self.p_upper}")
        if not 1 <= self.bsld_lower <= self.upper:
            raise ValueError(f"need 1 <= bsld_lower <= bsld_upper, "
                             f"not {self.bsld_lower}, {self.upper}")

    @property
    def upper(self) -> float:
        return 2 * self.bsld_lower if self.bsld_upper is None else self.bsld_upper

    def build(self, planner: Planner, machine_cpus: int) -> "PbGuided":
        return PbGuided(planner, self)


@dataclass(frozen=True)
class PbGuided(EasyBackfilling):
    config: PbGuidedConfig

    def threshold(self, watts: float) -> float:
        """Eq. 5.1: the BSLD threshold at power draw ``watts``."""
        budget, config = self.planner.budget_watts, self.config
        if watts < config.p_lower * budget:
            return 0.0
        return config.bsld_lower if watts < config.p_upper * budget else config.upper

    def satisfies_bsld(self, job: Job, gear: int, start: float, watts: float) -> bool:
        predicted = self.planner.predicted_bsld(job, gear, start)
        limit = self.threshold(watts)
        return predicted <= limit if self.config.inclusive else predicted < limit

    def reduced_gears(self, job: Job) -> range:
        """Gears below nominal, lowest first; none for a job over the budget."""
        return range(0 if self.planner.over_budget(job) else self.planner.power.nominal)

    def reserve(self, job: Job, plan: Plan, waiting: int) -> tuple[int, float]:
        planner, nominal = self.planner, self.planner.power.nominal
        for time in plan.times():
            if plan.free_at(time) < job.js:
                continue
            drawn = plan.watts_at(time)
            for gear in self.reduced_gears(job):
                demand = planner.demand(job, gear)
                if (planner.power_allows(drawn, job.js, demand)
                        and self.satisfies_bsld(job, gear, time, drawn + demand)):
                    return gear, time
            if planner.power_allows(drawn, job.js, planner.demand(job, nominal)):
                return nominal, time
        raise AssertionError("after the last end the machine is idle: the job fits")

    def backfill(self, job: Job, plan: Plan, waiting: int) -> int | None:
        planner = self.planner
        for gear in self.reduced_gears(job):
            watts = plan.watts_now + planner.demand(job, gear)
            if plan.can_backfill(job, gear) and self.satisfies_bsld(job, gear, plan.now, watts):
                return gear
        nominal = planner.power.nominal
        return nominal if plan.can_backfill(job, nominal) else None
