"""Runs of data-driven power-aware scheduling (Wallace et al.) declared as
data, for ``run_sweep``.

A :class:`DataDrivenRun` names one run of :func:`nets.data_driven.simulate`
completely: the workload (the synthetic Mira month, seeded by the month
number, or a 30-day window of an SWF trace), the queue order, the method
(``knapsack``, ``naive`` or ``uncapped``), the cap as a share of the
machine's peak (every node at the device's peak, Mira's 4.8 MW) and the
``over_cap`` rule.  Its baseline is the uncapped run of the same workload
and order, which the paper's relative changes are taken against.

The paper's setting, used by every run: "an un-capped system ... enforces
strict job ordering" (section VIII-C), so the queue is FCFS or WFP without
EASY backfilling (the naive baseline is then "the traditional one-to-one
scheduling"); job power is drawn per owner from Table I's percentiles, its
long tail included (``MIRA_2014_TABLE_I``); the learner's defaults (a job
is known by user + executable + size, its profile is the 95th percentile
of its last 100 samples; ``modules/power_learning.py``).

>>> run = DataDrivenRun(method="naive", cap_share=0.417)
>>> run.baseline().method, run.baseline().cap_share
('uncapped', None)
"""

from __future__ import annotations

import functools
import time
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Mapping

from modules.batch_scheduling import SchedulingConfig
from modules.power_cap_measures import MONTH_SECONDS
from modules.power_profile import MIRA_2014_TABLE_I, assign_rack_power
from modules.swf import read_swf
from modules.synthetic import SyntheticConfig, synthetic_month
from modules.window_scheduling import BUDGETS, OVER_CAP_RULES, WindowConfig
from nets.data_driven import (METHODS, DataDrivenConfig, PowerCapSchedule, simulate,
                              window_utilization)

from .run_keys import absolute_path, run_key

MODEL = "data_driven"
SYNTHETIC = "synthetic"
#: The paper's caps: 2,000, 3,000 and 4,000 kW of Mira's 4,800 kW peak.
PAPER_CAPS = (0.417, 0.625, 0.833)


@dataclass(frozen=True)
class DataDrivenRun:
    """One run.  ``month``: the synthetic month's seed, or the 30-day
    window of the trace (``None``: the whole trace); ``cap_share``: the
    cap over the machine's peak (cleared for ``uncapped``, and
    ``over_cap`` set to its default); ``budget``: the knapsack's
    (``WindowConfig.budget``; set to its default for other methods, and
    left out of the key then, so that runs stored before it keep theirs);
    ``procs_per_node``, ``machine_nodes``: as the SWF reader takes them
    (the synthetic machine's size for ``synthetic``)."""

    trace: str = SYNTHETIC
    month: int | None = 0
    policy: str = "fcfs"
    method: str = "knapsack"
    cap_share: float | None = 0.625
    over_cap: str = "reject"
    budget: str = "estimates"
    procs_per_node: int | None = None
    machine_nodes: int | None = None

    def __post_init__(self):
        if self.trace != SYNTHETIC:
            object.__setattr__(self, "trace", absolute_path(self.trace))
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {self.method!r}")
        if self.over_cap not in OVER_CAP_RULES:
            raise ValueError(f"over_cap must be one of {OVER_CAP_RULES}, not {self.over_cap!r}")
        if self.budget not in BUDGETS:
            raise ValueError(f"budget must be one of {BUDGETS}, not {self.budget!r}")
        if self.method != "knapsack":
            object.__setattr__(self, "budget", "estimates")
        if self.method == "uncapped":  # neither acts: one uncapped run for every rule
            object.__setattr__(self, "cap_share", None)
            object.__setattr__(self, "over_cap", "reject")
        elif self.cap_share is None or not 0 < self.cap_share:
            raise ValueError(f"a capped run needs a positive cap_share, not {self.cap_share}")
        if self.trace == SYNTHETIC and self.month is None:
            raise ValueError("the synthetic workload is one month: give its seed as month")
        SchedulingConfig(policy=self.policy)  # validates the policy

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.budget == "estimates":
            del data["budget"]
        return {"model": MODEL, **data}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "DataDrivenRun":
        """A run from :meth:`to_dict`, or from fields a grid varies: a field
        of no known name is refused (``grid(DataDrivenRun(), cap=[0.5])``
        made the one default run, its axis dropped without a word)."""
        if not isinstance(data, Mapping):  # else "'int' object is not iterable"
            raise TypeError(f"DataDrivenRun.from_dict takes a mapping of fields (as to_dict "
                            f"gives), not {type(data).__name__} {data!r:.60}")
        data = dict(data)
        model = data.pop("model", MODEL)
        if model != MODEL:
            raise ValueError(f"not a data-driven run: model {model!r}")
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise ValueError(f"unknown data-driven run fields: {unknown}; known: "
                             f"{', '.join(names)}")
        return cls(**data)

    def key(self) -> str:
        return run_key(self.to_dict(), () if self.trace == SYNTHETIC else ("trace",))

    def label(self) -> str:
        name = Path(self.trace).name.removesuffix(".gz").removesuffix(".swf")
        cap = "" if self.cap_share is None else f" {self.cap_share:.1%}"
        month = "" if self.month is None else f" month {self.month}"
        budget = ", budget measured" if self.budget == "measured" else ""
        return (f"{name}{month}, {self.policy}, {self.method}{cap}, over cap {self.over_cap}"
                f"{budget}")

    def baseline(self) -> "DataDrivenRun":
        """The uncapped run of the same workload and queue order."""
        return replace(self, method="uncapped")

    def prerequisite(self) -> None:
        return None

    def config(self, machine_nodes: int) -> DataDrivenConfig:
        config = DataDrivenConfig(machine_nodes, method=self.method, over_cap=self.over_cap,
                                  window=WindowConfig(budget=self.budget),
                                  scheduling=SchedulingConfig(policy=self.policy,
                                                              backfill=False))
        if self.cap_share is None:
            return config
        return replace(config, cap=PowerCapSchedule.constant(self.cap_share
                                                             * config.peak_watts))

    def run(self, prerequisite: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Simulate; one flat record: ``key``, ``label``, the fields, the
        metrics of :func:`nets.data_driven.simulate` (plain values),
        ``cap_w``, ``peak_w``, the utilization over the submission window
        (``utilization_window``: the month, so that jobs pushed past it
        count less), the learning rate on day 26
        (``learning_rate_day26``), ``baseline_key`` and ``elapsed_s``."""
        started = time.perf_counter()
        jobs, machine_nodes = _workload(self.trace, self.month, self.procs_per_node,
                                        self.machine_nodes)
        config = self.config(machine_nodes)
        result = simulate(list(jobs), config)
        metrics = {k: v for k, v in result.metrics.items() if not isinstance(v, (dict, list))}
        window_end = max((job.st for job in jobs), default=0.0)
        utilization = (window_utilization(result.jobs, machine_nodes, 0.0, window_end)
                       if window_end > 0 and len(result.jobs) else None)
        rate = result.learning_rate
        day26 = rate[rate["day"] <= 25]["cumulative_known"]
        return {"key": self.key(), "label": self.label(), **self.to_dict(), **metrics,
                "simulated_nodes": machine_nodes, "peak_w": config.peak_watts,
                "utilization_window": utilization,
                "cap_w": config.cap.initial if self.cap_share is not None else None,
                "learning_rate_day26": float(day26.iloc[-1]) if len(day26) else None,
                "baseline_key": self.baseline().key(),
                "elapsed_s": time.perf_counter() - started}


@functools.lru_cache(maxsize=4)
def _workload(trace: str, month: int | None, procs_per_node: int | None,
              machine_nodes: int | None) -> tuple[tuple, int]:
    """The jobs of the run's month, with power drawn from Table I's
    percentiles, times from 0; and the machine's nodes."""
    if trace == SYNTHETIC:
        config = SyntheticConfig(power=MIRA_2014_TABLE_I,
                                 **({"machine_nodes": machine_nodes} if machine_nodes else {}))
        workload = synthetic_month(seed=month, config=config)
        return tuple(workload.jobs), workload.machine_nodes
    workload = read_swf(trace, procs_per_node=procs_per_node, machine_nodes=machine_nodes)
    jobs = assign_rack_power(workload.jobs, seed=0, distribution=MIRA_2014_TABLE_I)
    if month is not None:
        last = max((job.st for job in jobs), default=0.0)
        months = int(last // MONTH_SECONDS) + 1
        if month >= months:
            raise ValueError(f"{trace} has {months} windows of 30 days (months 0 to "
                             f"{months - 1}), not month {month}")
        start = month * MONTH_SECONDS
        jobs = [job._replace(st=job.st - start) for job in jobs
                if start <= job.st < start + MONTH_SECONDS]
    return tuple(jobs), workload.machine_nodes
