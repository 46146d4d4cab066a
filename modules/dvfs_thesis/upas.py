"""UPAS: utilization-driven power-aware scheduling (thesis section 4.2).

A job gets its gear at arrival, from the utilization of the previous
interval of ``T`` seconds (eq. 4.1) and the wait queue's length (eq. 4.2):
the nominal gear when ``U >= U_upper`` or more than ``WQ_threshold`` jobs
wait, ``f_upper`` when ``U_lower <= U < U_upper``, ``f_lower`` below
``U_lower``.  EASY then schedules it at that gear (``easy.py``).

Decisions the thesis leaves open, taken here: the arriving job does not
count in the wait queue's length; during the first interval, which has no
previous one, jobs run at the nominal gear; utilization is measured from
the busy CPUs the scheduler sees at each of its passes (every arrival and
every end), which is exact because CPUs change only then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple

from ..job import Job
from .easy import EasyBackfilling, easy_pass_with_gears, remaining
from .plan import Plan, Planner, RunningJob


@dataclass(frozen=True)
class UpasConfig:
    """Section 4.2.2.1's parameters: T = 10 min, U_upper 80 %, U_lower
    50 %, f_upper 2.0 GHz, f_lower 1.4 GHz; ``wq_threshold`` one of 0, 4,
    16 or ``None`` (the thesis' "NO": no limit)."""

    interval_s: float = 600.0
    u_upper: float = 0.8
    u_lower: float = 0.5
    f_upper_ghz: float = 2.0
    f_lower_ghz: float = 1.4
    wq_threshold: int | None = None

    def __post_init__(self):
        if not self.interval_s > 0:
            raise ValueError(f"interval_s must be positive, not {self.interval_s}")
        if not 0 <= self.u_lower <= self.u_upper <= 1:
            raise ValueError(f"need 0 <= u_lower <= u_upper <= 1, "
                             f"not {self.u_lower}, {self.u_upper}")
        if self.wq_threshold is not None and self.wq_threshold < 0:
            raise ValueError(f"wq_threshold must be >= 0 or None, not {self.wq_threshold}")

    @property
    def beta(self) -> str:
        return "oracle"  # section 4.2.1: requested times scaled by the model

    def build(self, planner: Planner, machine_cpus: int) -> "Upas":
        gears = [gear.frequency_ghz for gear in planner.power.gears]
        for frequency in (self.f_upper_ghz, self.f_lower_ghz):
            if frequency not in gears:
                raise ValueError(f"{frequency} GHz is not a gear of {gears}")
        return Upas(planner, self, machine_cpus, gears.index(self.f_upper_ghz),
                    gears.index(self.f_lower_ghz))


class UtilizationMeter(NamedTuple):
    """Busy CPU-seconds of the current interval, and the previous one's
    utilization (``None`` before one has ended)."""

    interval: int
    busy_cpu_seconds: float
    since: float
    busy_cpus: int
    previous: float | None

    def advance(self, now: float, length: float, machine_cpus: int) -> "UtilizationMeter":
        """The meter at ``now``, the same CPUs busy since ``since``."""
        interval, busy, since, previous = (self.interval, self.busy_cpu_seconds, self.since,
                                           self.previous)
        while now >= (interval + 1) * length:
            boundary = (interval + 1) * length
            busy += self.busy_cpus * (boundary - since)
            previous = busy / (machine_cpus * length)
            interval, busy, since = interval + 1, 0.0, boundary
        busy += self.busy_cpus * (now - since)
        return UtilizationMeter(interval, busy, now, self.busy_cpus, previous)


@dataclass(frozen=True)
class Upas(EasyBackfilling):
    config: UpasConfig
    machine_cpus: int
    upper_gear: int
    lower_gear: int

    def initial_state(self) -> UtilizationMeter:
        return UtilizationMeter(0, 0.0, 0.0, 0, None)

    def arrival_gear(self, utilization: float | None, waiting: int) -> int:
        """Eq. 4.2."""
        config, nominal = self.config, self.planner.power.nominal
        if utilization is None or utilization >= config.u_upper:
            return nominal
        if config.wq_threshold is not None and waiting > config.wq_threshold:
            return nominal
        return self.upper_gear if utilization >= config.u_lower else self.lower_gear

    def __call__(self, queue: tuple[Job, ...], arrivals: tuple[Job, ...],
                 running: Mapping[int, RunningJob], free: int, now: float,
                 meter: UtilizationMeter):
        meter = meter.advance(now, self.config.interval_s, self.machine_cpus)
        new = {job.id for job in arrivals}
        queue = tuple(self.planner.at_gear(job, self.arrival_gear(
            meter.previous, position)) if job.id in new else job
            for position, job in enumerate(queue))
        plan = Plan(self.planner, running, free, now)
        started = easy_pass_with_gears(queue, plan, self)
        meter = meter._replace(busy_cpus=self.machine_cpus - plan.free)
        return started, remaining(queue, started), meter
