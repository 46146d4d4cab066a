"""Data-driven power-aware scheduling on the PuPPET net (Wallace et al., "A
Data Driven Scheduling Approach for Power Management on HPC Systems").

Three ways to run one trace under a power cap ``Pcap(t)``, all built by
:func:`nets.puppet.compose` on the same states (Queuing, Running, Power,
Runtime Info, Nodes), so their results compare directly with each other
and with PuPPET's own capping (``nets.puppet.simulate`` with a
``PowerCap``):

``method="knapsack"``
    the paper's design: a sticky window of ``w`` jobs at the head of the
    FCFS/WFP queue, a knapsack over it under the learner's estimates, the
    deadlock rule, and jobs sampled every 4 minutes to teach the learner
    (``modules/window_scheduling.py``, ``modules/power_learning.py``,
    ``modules/data_driven_allocation.py``);
``method="naive"``
    the paper's baseline: one by one from the head of the queue (PuPPET's
    batch scheduling, EASY if ``scheduling.backfill``), each new job
    assumed at the machine's peak power per node, measured system power; a
    job that would break the cap holds the queue (``naive="block"``) or
    lets the next selected job try (``naive="skip"``);
``method="uncapped"``
    PuPPET's batch scheduling without a cap: the reference the paper's
    relative changes are taken against ("the same ordering").

A cap holds by default (``over_cap="reject"``): a job whose true power
alone, on an otherwise idle machine, breaks the cap (its highest value,
for a cap that changes) is rejected before the run and listed with the
reason (``DataDrivenResult.rejected``, metric ``rejected_jobs``); a job
that the scheduler only *believes* breaks it alone (an estimate, the
naive peak) starts once nothing else runs.  With ``over_cap="run"``, the
paper's rule, nothing is rejected and such a job starts as soon as its
nodes are free, breaking the cap while it runs.  Two things can still
take power over a cap that holds them: a cap that falls while jobs run
(nothing stops them), and a job the learner underestimates (its project's
profile below its own power, or a power above the device's peak, which
Table I's tail has): both show in ``capping_success_rate`` and
``cap_exceeded_s``.

>>> from modules.job import Job
>>> jobs = [Job(i, 0, 7200, 1024, 7200, jp=60_000.0, user=1, group=1) for i in range(3)]
>>> config = DataDrivenConfig(machine_nodes=3072, idle_fraction=0.0,
...                           cap=PowerCapSchedule.constant(150_000.0))
>>> result = simulate(jobs, config)
>>> list(result.jobs["start"]), list(result.jobs["source"])
([0.0, 7200.0, 7200.0], ['max', 'job', 'job'])

Nothing is known of the first job: it is planned at the peak, 100 kW a
rack, so a second one would break the 150 kW cap.  Its 30 samples teach
the learner about 62 kW (the 95th percentile), and the two others then
run together.

Metrics added to PuPPET's (``modules/metrics.py``):

- ``capping_success_rate`` (section VII-C): the share of scheduling
  intervals, ``csr_interval`` seconds each from time 0 to the last job's
  end, in which the measured system power never exceeds ``Pcap(t)``;
  ``scheduling_intervals``, ``intervals_over_cap``, ``cap_exceeded_s``
  (time over the cap) and ``max_excess_w`` (the worst excess);
- ``deadlock_starts``: jobs started by the deadlock rule (naive: jobs
  that at peak power broke the cap alone, started by its ``over_cap``
  rule; ``jobs`` column ``deadlock`` says which);
  ``underestimated_starts`` (knapsack): jobs planned below their true
  power;
  ``unfinished_jobs``: jobs that never ran (``deadlock="wait"`` under a
  cap that never rises);
- ``learning_rate`` (section VIII-A): the share of started jobs whose
  profile was known (their own or their project's), ``learning_rate_own``
  (their own); per day in ``DataDrivenResult.learning_rate``;
- ``power_samples``, ``profile_changes`` (estimates of running jobs that
  changed), ``firings`` (of the whole net: a measure of cost).

Energy and power metrics stop at the last job's end, even when a later cap
change keeps the net running.  :func:`compare` runs the methods side by
side and computes the paper's relative changes.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Sequence

import numpy as np
import pandas as pd

from modules.batch_scheduling import SchedulingConfig
from modules.job import Job, some_jobs
from modules.power_learning import LearnerConfig, PowerLearner, learning_rate
from modules.power_profile import MIRA_NODE_WATTS
from modules.power_samples import NoisyProfile, SampleTable
from modules.data_driven_allocation import (NAIVE_RULES, Sampler, measured_allocation,
                                            naive_allocation)
from modules.power_cap_measures import (capping_success_rate, monthly_metrics,
                                        window_utilization)
from modules.power_cap_schedule import PowerCapSchedule
from modules.power_capping import over_cap_alone
from modules.window_scheduling import OVER_CAP_RULES, WindowConfig, window_scheduling

from .puppet import PuppetConfig, PuppetResult, compose, rejected_records, run_model

__all__ = ["DataDrivenConfig", "DataDrivenResult", "PowerCapSchedule", "WindowConfig",
           "LearnerConfig", "METHODS", "build_net", "simulate", "compare",
           "capping_success_rate", "monthly_metrics", "window_utilization"]

METHODS = ("knapsack", "naive", "uncapped")


@dataclass(frozen=True)
class DataDrivenConfig:
    """A run of the data-driven scheduling study.

    ``machine_nodes``, ``node_watts``, ``idle_fraction``, ``scheduling``:
    the machine, its power and the queue order as in ``PuppetConfig`` (the
    Power place holds the measured system power: idle nodes at
    ``idle_fraction`` of ``node_watts``, running jobs at their ``jp``; with
    ``idle_fraction=0`` only running jobs count, as in the paper's eq. 1).
    ``cap``: ``Pcap(t)``.  ``window``, ``learner``: sections VI and V.
    ``sample_noise``: relative noise of a job's samples around its power
    (``NoisyProfile``), unless ``samples`` replays measured ones.
    ``csr_interval``: length of a scheduling interval for the capping
    success rate (default the sampling period, 4 minutes).  ``naive``: the
    naive baseline's rule (``"block"`` or ``"skip"``).  ``over_cap``: jobs
    whose power alone breaks the cap are rejected (``"reject"``: the cap
    holds) or run when the scheduler has no other option (``"run"``: the
    paper's rule); see the module docstring.
    """

    machine_nodes: int
    method: str = "knapsack"
    cap: PowerCapSchedule = field(default_factory=PowerCapSchedule)
    scheduling: SchedulingConfig = field(default_factory=SchedulingConfig)
    window: WindowConfig = field(default_factory=WindowConfig)
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    sample_noise: float = 0.03
    samples: SampleTable | None = None
    node_watts: float = MIRA_NODE_WATTS
    idle_fraction: float = 0.3
    csr_interval: float = 240.0
    naive: str = "block"
    over_cap: str = "reject"

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {self.method!r}")
        if not self.csr_interval > 0:
            raise ValueError(f"csr_interval must be positive, not {self.csr_interval}")
        if self.naive not in NAIVE_RULES:
            raise ValueError(f"naive must be one of {NAIVE_RULES}, not {self.naive!r}")
        if self.over_cap not in OVER_CAP_RULES:
            raise ValueError(f"over_cap must be one of {OVER_CAP_RULES}, not {self.over_cap!r}")
        self.puppet  # validates the machine and its power
        NoisyProfile(self.sample_noise)

    @property
    def puppet(self) -> PuppetConfig:
        """The PuPPET configuration of the shared states (no PuPPET cap)."""
        return PuppetConfig(self.machine_nodes, node_watts=self.node_watts,
                            idle_fraction=self.idle_fraction, scheduling=self.scheduling)

    @property
    def peak_watts(self) -> float:
        """The machine's peak: every node at ``learner.max_node_watts``
        (Mira: 4.8 MW, section VIII-B)."""
        return self.machine_nodes * self.learner.max_node_watts

    def with_method(self, method: str) -> "DataDrivenConfig":
        return replace(self, method=method)

    def rejected_jobs(self, jobs: Sequence[Job]) -> list[Job]:
        """The ``jobs`` a capped run rejects under ``over_cap="reject"``:
        those whose power alone, on an otherwise idle machine, breaks the
        cap at its highest."""
        if self.method == "uncapped" or self.over_cap != "reject" or not self.cap.capped:
            return []
        highest = max(watts for _, watts in self.cap.steps)
        return over_cap_alone(jobs, self.puppet.power, self.machine_nodes, highest)


def build_net(config: DataDrivenConfig, learner: PowerLearner | None = None):
    """The net of ``config.method``; jobs go in ``Scheduler/User``.
    ``learner``: an initial learner (e.g. trained on earlier data)."""
    puppet = config.puppet
    power, estimate = puppet.power, config.scheduling.estimate
    if config.method == "uncapped":
        return compose("Uncapped", puppet, started="Running", ended="Running")
    if config.method == "naive":
        return compose("NaiveCapping", puppet, started="Running", ended="Running",
                       allocation=naive_allocation(power, estimate, config.cap,
                                                   config.learner.max_node_watts,
                                                   config.machine_nodes, config.naive,
                                                   config.over_cap))
    source = config.samples if config.samples is not None else NoisyProfile(config.sample_noise)
    scheduler = window_scheduling(config.scheduling, config.window, power,
                                  config.machine_nodes, config.cap,
                                  learner if learner is not None else config.learner,
                                  config.over_cap)
    allocation = measured_allocation(power, estimate, Sampler(config.learner, source))
    return compose("DataDriven", puppet, started="Running", ended="Running",
                   scheduler=scheduler, allocation=allocation)


@dataclass
class DataDrivenResult:
    """PuPPET's result plus what the data-driven design adds: per-job
    estimate at start (``jobs`` columns ``source``, ``estimate_w``,
    ``deadlock``), changes of running jobs' estimates, the learning rate
    per day, and the learner at the end.  ``rejected``: the jobs rejected
    before the run, with the reason."""

    run: PuppetResult
    decisions: pd.DataFrame
    profile_changes: pd.DataFrame
    learning_rate: pd.DataFrame
    learner: PowerLearner | None
    unfinished: list[int]

    @property
    def jobs(self) -> pd.DataFrame:
        return self.run.jobs

    @property
    def metrics(self) -> dict:
        return self.run.metrics

    @property
    def rejected(self) -> pd.DataFrame:
        return self.run.rejected


def simulate(jobs: Sequence[Job], config: DataDrivenConfig, seed: int = 0,
             learner: PowerLearner | None = None, **options) -> DataDrivenResult:
    """Run ``config.method`` over ``jobs`` (times from 0, as the SWF reader
    gives them; ``options`` as ``nets.puppet.run_model``).  Jobs whose
    power alone breaks the cap are rejected first (``config.rejected_jobs``)."""
    offset = options.get("time_offset", 0.0)
    jobs = some_jobs(jobs)  # none given is refused; none left by the cap is a result
    rejected = config.rejected_jobs(jobs)
    refused = {job.id for job in rejected}
    jobs = [job for job in jobs if job.id not in refused]
    result, sim = run_model(build_net(config, learner), jobs, config.puppet, seed, **options)
    result.rejected = rejected_records(rejected, offset)
    result.metrics["rejected_jobs"] = len(rejected)
    decisions = profile_changes = pd.DataFrame()
    final_learner = None
    if config.method == "knapsack":
        decisions = pd.DataFrame(sim.tokens("Scheduler/Decisions"),
                                 columns=["time", "job_id", "source", "watts_per_node",
                                          "deadlock"])
        profile_changes = pd.DataFrame(sim.tokens("Allocation/ProfileChanges"),
                                       columns=["time", "job_id", "source",
                                                "watts_per_node", "samples"])
        final_learner = sim.tokens("Scheduler/Learner")[0]
        if len(result.jobs):
            planned = decisions.set_index("job_id")
            frame = result.jobs
            frame["source"] = frame["job_id"].map(planned["source"])
            frame["estimate_w"] = frame["job_id"].map(planned["watts_per_node"]) * frame["nodes"]
            frame["deadlock"] = frame["job_id"].map(planned["deadlock"]).astype(bool)
    if config.method == "naive" and len(result.jobs):
        result.jobs["deadlock"] = _believed_over_cap_alone(result.jobs, config, offset)
    finished = set(result.jobs["job_id"])
    unfinished = [job.id for job in jobs if job.id not in finished]
    result.metrics.update(_capping_metrics(result, config, decisions, profile_changes,
                                           unfinished, sim.steps, offset))
    return DataDrivenResult(result, decisions, profile_changes, learning_rate(decisions),
                            final_learner, unfinished)


def _believed_over_cap_alone(jobs: pd.DataFrame, config: DataDrivenConfig,
                             offset: float) -> pd.Series:
    """Which of the naive run's ``jobs`` started although, at the peak
    power it assumes, each broke the cap of its start alone: the jobs its
    ``over_cap`` rule let through."""
    power = config.puppet.power
    peak = jobs["nodes"] * (config.learner.max_node_watts - power.idle_node_watts)
    cap = config.cap.at_times(jobs["start"].to_numpy(dtype=float) - offset)
    return power.idle_system(config.machine_nodes) + peak > cap


def _capping_metrics(result: PuppetResult, config: DataDrivenConfig, decisions: pd.DataFrame,
                     profile_changes: pd.DataFrame, unfinished: list, firings: int,
                     offset: float) -> dict:
    metrics: dict = {"method": config.method, "unfinished_jobs": len(unfinished),
                     "firings": int(firings), "peak_watts": config.peak_watts,
                     "cap": [list(step) for step in config.cap.steps]}
    if not len(result.jobs):
        return metrics
    end = result.end  # the last job's end (nets.puppet.run_model)
    times = np.asarray(result.power_times) - offset  # the cap is in simulation time
    metrics.update(capping_success_rate(times, result.power_watts, end - offset,
                                        config.cap, config.csr_interval, details=True))
    if config.method != "uncapped":
        metrics["deadlock_starts"] = int(result.jobs["deadlock"].sum())
    if config.method == "knapsack":
        rate = learning_rate(decisions)
        period = config.learner.period
        first = np.ceil((result.jobs["start"] - offset) / period) * period + period
        samples = np.floor((result.jobs["end"] - offset - first) / period) + 1
        metrics.update({
            "underestimated_starts": int((result.jobs["estimate_w"]
                                          < result.jobs["power"]).sum()),
            "profile_changes": int(len(profile_changes)),
            "power_samples": int(np.clip(samples, 0, None).sum()),
            "learning_rate": float(rate["cumulative_known"].iloc[-1]) if len(rate) else math.nan,
            "learning_rate_own": float(rate["cumulative_own"].iloc[-1]) if len(rate) else math.nan,
        })
    metrics["config_data_driven"] = {
        "method": config.method, "window": asdict(config.window),
        "learner": asdict(config.learner), "sample_noise": config.sample_noise,
        "csr_interval": config.csr_interval, "naive": config.naive,
        "over_cap": config.over_cap}
    return metrics


def compare(jobs: Sequence[Job], config: DataDrivenConfig,
            methods: Sequence[str] = METHODS, seed: int = 0) -> tuple[pd.DataFrame, dict]:
    """Run ``methods`` on the same jobs and configuration; a frame with one
    row per method (capping success rate, utilization, mean wait, and
    their relative change against the uncapped run), and the results.

    ``utilization`` is taken over the submission window, from time 0 to
    the last submission (a month of the trace: the paper's monthly
    utilization), so that jobs pushed past it count less;
    ``utilization_makespan`` is PuPPET's (over the whole schedule).  With
    both naive and knapsack, ``frame.attrs`` gains the paper's "absolute
    improvement" of the knapsack over naive capping: the difference of
    their relative changes (wait: naive minus knapsack; utilization:
    knapsack minus naive)."""
    methods = list(dict.fromkeys(("uncapped", *methods)))
    results = {m: simulate(jobs, config.with_method(m), seed) for m in methods}
    window_end = max(job.st for job in jobs) if jobs else 0.0
    rows = []
    for method, result in results.items():
        m = result.metrics
        utilization = (window_utilization(result.jobs, config.machine_nodes, 0.0, window_end)
                       if window_end > 0 else m["utilization"])
        rows.append({"method": method, "capping_success_rate": m["capping_success_rate"],
                     "utilization": utilization, "utilization_makespan": m["utilization"],
                     "wait_mean_s": m["wait_mean_s"],
                     "power_peak_w": m["power_peak_w"], "energy_kwh": m["energy_kwh"],
                     "unfinished_jobs": m["unfinished_jobs"],
                     "rejected_jobs": m["rejected_jobs"],
                     "deadlock_starts": m.get("deadlock_starts", 0)})
    frame = pd.DataFrame(rows).set_index("method")
    base = frame.loc["uncapped"]
    frame["utilization_change"] = frame["utilization"] / base["utilization"] - 1
    frame["wait_change"] = (frame["wait_mean_s"] / base["wait_mean_s"] - 1
                            if base["wait_mean_s"] > 0 else math.nan)
    if {"naive", "knapsack"} <= set(frame.index):
        frame.attrs["wait_improvement"] = float(frame.loc["naive", "wait_change"]
                                                - frame.loc["knapsack", "wait_change"])
        frame.attrs["utilization_improvement"] = float(
            frame.loc["knapsack", "utilization_change"] - frame.loc["naive", "utilization_change"])
    return frame, results
