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
- ``deadlock_starts``: jobs started by the deadlock rule;
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
from modules.job import Job
from modules.power_steps import binned_power, collapse_step_series, power_at
from modules.power_learning import LearnerConfig, PowerLearner, learning_rate
from modules.power_samples import NoisyProfile, SampleTable
from modules.data_driven_allocation import (NAIVE_RULES, Sampler, measured_allocation,
                                            naive_allocation)
from modules.power_cap_schedule import PowerCapSchedule
from modules.window_scheduling import WindowConfig, window_scheduling

from .puppet import PuppetConfig, PuppetResult, compose, run_model

__all__ = ["DataDrivenConfig", "DataDrivenResult", "PowerCapSchedule", "WindowConfig",
           "LearnerConfig", "METHODS", "build_net", "simulate", "compare",
           "capping_success_rate", "monthly_metrics", "window_utilization"]

METHODS = ("knapsack", "naive", "uncapped")
MONTH_SECONDS = 30 * 86_400.0


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
    naive baseline's rule (``"block"`` or ``"skip"``).
    """

    machine_nodes: int
    method: str = "knapsack"
    cap: PowerCapSchedule = field(default_factory=PowerCapSchedule)
    scheduling: SchedulingConfig = field(default_factory=SchedulingConfig)
    window: WindowConfig = field(default_factory=WindowConfig)
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    sample_noise: float = 0.03
    samples: SampleTable | None = None
    node_watts: float = 65_760 / 1024
    idle_fraction: float = 0.3
    csr_interval: float = 240.0
    naive: str = "block"

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {self.method!r}")
        if not self.csr_interval > 0:
            raise ValueError(f"csr_interval must be positive, not {self.csr_interval}")
        if self.naive not in NAIVE_RULES:
            raise ValueError(f"naive must be one of {NAIVE_RULES}, not {self.naive!r}")
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
                                                   config.naive))
    source = config.samples if config.samples is not None else NoisyProfile(config.sample_noise)
    scheduler = window_scheduling(config.scheduling, config.window, power,
                                  config.machine_nodes, config.cap,
                                  learner if learner is not None else config.learner)
    allocation = measured_allocation(power, estimate, Sampler(config.learner, source))
    return compose("DataDriven", puppet, started="Running", ended="Running",
                   scheduler=scheduler, allocation=allocation)


@dataclass
class DataDrivenResult:
    """PuPPET's result plus what the data-driven design adds: per-job
    estimate at start (``jobs`` columns ``source``, ``estimate_w``,
    ``deadlock``), changes of running jobs' estimates, the learning rate
    per day, and the learner at the end."""

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


def simulate(jobs: Sequence[Job], config: DataDrivenConfig, seed: int = 0,
             learner: PowerLearner | None = None, **options) -> DataDrivenResult:
    """Run ``config.method`` over ``jobs`` (times from 0, as the SWF reader
    gives them; ``options`` as ``nets.puppet.run_model``)."""
    result, sim = run_model(build_net(config, learner), jobs, config.puppet, seed, **options)
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
    finished = set(result.jobs["job_id"])
    unfinished = [job.id for job in jobs if job.id not in finished]
    result.metrics.update(_capping_metrics(result, config, decisions, profile_changes,
                                           unfinished, sim.steps,
                                           options.get("time_offset", 0.0)))
    return DataDrivenResult(result, decisions, profile_changes, learning_rate(decisions),
                            final_learner, unfinished)


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
    if config.method == "knapsack":
        rate = learning_rate(decisions)
        period = config.learner.period
        first = np.ceil((result.jobs["start"] - offset) / period) * period + period
        samples = np.floor((result.jobs["end"] - offset - first) / period) + 1
        metrics.update({
            "deadlock_starts": int(decisions["deadlock"].sum()),
            "profile_changes": int(len(profile_changes)),
            "power_samples": int(np.clip(samples, 0, None).sum()),
            "learning_rate": float(rate["cumulative_known"].iloc[-1]) if len(rate) else math.nan,
            "learning_rate_own": float(rate["cumulative_own"].iloc[-1]) if len(rate) else math.nan,
        })
    metrics["config_data_driven"] = {
        "method": config.method, "window": asdict(config.window),
        "learner": asdict(config.learner), "sample_noise": config.sample_noise,
        "csr_interval": config.csr_interval, "naive": config.naive}
    return metrics


def capping_success_rate(times, watts, end: float, cap: PowerCapSchedule, interval: float,
                         details: bool = False):
    """Section VII-C: the share of scheduling intervals ``[start + k
    interval, ...)`` from the series' start up to ``end`` in which the system power (a step series,
    see ``modules/power_steps.py``) never exceeds ``Pcap(t)``.  With
    ``details``, a dict that also gives the intervals, the time spent over
    the cap (``cap_exceeded_s``) and the worst excess (``max_excess_w``)."""
    t, w = collapse_step_series(times, watts, end)
    changes = [at for at, _ in cap.steps if t[0] < at < end]
    grid = np.union1d(t, changes)
    excess = power_at(t, w, grid) - cap.at_times(grid)
    excess = np.where(np.isfinite(excess), excess, -1.0)
    bins = binned_power(grid, excess, end, interval)
    tolerance = 1e-6  # watts: sums of floats in the Power place
    within = bins["max"].to_numpy() <= tolerance
    rate = float(within.mean())
    if not details:
        return rate
    over = np.diff(np.append(grid, end)) * (excess > tolerance)
    return {"capping_success_rate": rate, "scheduling_intervals": int(len(within)),
            "intervals_over_cap": int((~within).sum()), "cap_exceeded_s": float(over.sum()),
            "max_excess_w": float(max(excess.max(), 0.0))}


def monthly_metrics(jobs: pd.DataFrame, machine_nodes: int,
                    month: float = MONTH_SECONDS) -> pd.DataFrame:
    """Per month (``month`` seconds from time 0): jobs submitted, their
    average wait, and utilization (node-seconds run within the month over
    the machine's)."""
    submit, start, end = (jobs[c].to_numpy(dtype=float) for c in ("submit", "start", "end"))
    nodes = jobs["nodes"].to_numpy(dtype=float)
    months = int(end.max() // month) + 1 if len(jobs) else 0
    rows = []
    for m in range(months):
        low, high = m * month, (m + 1) * month
        mine = (submit >= low) & (submit < high)
        busy = np.clip(np.minimum(end, high) - np.maximum(start, low), 0, None)
        rows.append({"month": m, "jobs": int(mine.sum()),
                     "wait_mean_s": float((start - submit)[mine].mean()) if mine.any() else math.nan,
                     "utilization": float((busy * nodes).sum() / (machine_nodes * month))})
    return pd.DataFrame(rows, columns=["month", "jobs", "wait_mean_s", "utilization"])


def window_utilization(jobs: pd.DataFrame, machine_nodes: int, start: float,
                       end: float) -> float:
    """Node-seconds run within ``[start, end)`` over the machine's."""
    begin = np.maximum(jobs["start"].to_numpy(dtype=float), start)
    finish = np.minimum(jobs["end"].to_numpy(dtype=float), end)
    busy = np.clip(finish - begin, 0, None) * jobs["nodes"].to_numpy(dtype=float)
    return float(busy.sum() / (machine_nodes * (end - start)))


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
