"""The DVFS thesis' policies on the PuPPET net (Etinski, chapters 3-5).

Every policy is a scheduler module plus the gear allocation module
(``modules/dvfs_thesis/scheduler_net.py``) plugged into
:func:`nets.puppet.compose`: the same states (Queuing, Running, Power,
Runtime Info, Nodes) and *Finish* as PuPPET, so a run compares directly
with PuPPET's capping on the same trace.  A "node" of the PuPPET net is a
CPU here; its *Power* place holds the CPUs' power (busy CPUs at their
job's eq. 3.12 power, idle CPUs per the idle scenario).

>>> from modules.job import Job
>>> jobs = [Job(1, 0, 1000, 2, 1000), Job(2, 0, 1000, 2, 1000)]
>>> profiles = {1: JobProfile(1.0, 1.0), 2: JobProfile(1.0, 1.0)}
>>> result = simulate(jobs, ThesisConfig(2), profiles)
>>> list(result.jobs["start"]), list(result.jobs["frequency_ghz"])
([0.0, 1000.0], [2.3, 2.3])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence, Union, get_args

import numpy as np
import pandas as pd

from cpn import Net
from modules.dvfs_thesis.bsld_driven import BsldDrivenConfig
from modules.dvfs_thesis.easy import EasyConfig
from modules.dvfs_thesis.gears import CpuPowerModel
from modules.dvfs_thesis.max_job_perf import MaxJobPerfConfig
from modules.dvfs_thesis.metrics import thesis_metrics
from modules.dvfs_thesis.pb_guided import PbGuidedConfig
from modules.dvfs_thesis.plan import Planner
from modules.dvfs_thesis.profiles import JobProfile
from modules.dvfs_thesis.scheduler_net import gear_allocation, thesis_scheduling
from modules.dvfs_thesis.upas import UpasConfig
from modules.job import Job, some_jobs
from modules.values import is_whole_number
from modules.swf import SWF_FIELDS, read_swf
from modules.trace_file import open_trace

from .puppet import PuppetConfig, compose, run_model

__all__ = ["ThesisConfig", "ThesisResult", "PolicyConfig", "EasyConfig", "UpasConfig",
           "BsldDrivenConfig", "PbGuidedConfig", "MaxJobPerfConfig", "CpuPowerModel",
           "JobProfile", "build_net", "simulate", "job_records", "busy_power", "thesis_portion"]

PolicyConfig = Union[EasyConfig, UpasConfig, BsldDrivenConfig, PbGuidedConfig,
                     MaxJobPerfConfig]
POLICY_NAMES = tuple(policy.__name__ for policy in get_args(PolicyConfig))


@dataclass(frozen=True)
class ThesisConfig:
    """A machine of ``machine_cpus`` CPUs, a policy and the power model.
    The power budget, for the policies of chapter 5, is the policy's
    ``budget_fraction`` of every CPU at the nominal gear running
    sequential code."""

    machine_cpus: int
    policy: PolicyConfig = field(default_factory=EasyConfig)
    power: CpuPowerModel = field(default_factory=CpuPowerModel)

    def __post_init__(self):
        """Refuse fields of the wrong kind, naming them: ``machine_cpus="4"``
        was a TypeError of ``<=``, ``4.5`` CPUs a run of half a CPU, a
        policy or power model of the wrong kind an AttributeError deep in
        the net's construction."""
        if not (is_whole_number(self.machine_cpus) and self.machine_cpus > 0):
            raise ValueError(f"machine_cpus must be a positive whole number of CPUs, "
                             f"not {self.machine_cpus!r}")
        object.__setattr__(self, "machine_cpus", int(self.machine_cpus))  # numpy's: no int token
        if not (callable(getattr(self.policy, "build", None)) and hasattr(self.policy, "beta")):
            raise ValueError(f"policy must be a policy's configuration ({', '.join(POLICY_NAMES)}"
                             f", or one with their beta and build), not {self.policy!r:.60}")
        if not isinstance(self.power, CpuPowerModel):
            raise ValueError(f"power must be a CpuPowerModel, not {self.power!r:.60}")

    @property
    def budget_watts(self) -> float:
        fraction = getattr(self.policy, "budget_fraction", None)
        if fraction is None:
            return math.inf
        return fraction * self.machine_cpus * self.power.nominal_cpu_watts

    @property
    def puppet(self) -> PuppetConfig:
        """The shared states' configuration: a CPU is a node; its power
        does not scale with ``pf`` there (``core_share=0``): the job's
        ``jp`` already holds its power at its gear."""
        power = self.power
        return PuppetConfig(machine_nodes=self.machine_cpus, node_watts=power.nominal_cpu_watts,
                            idle_fraction=power.idle_cpu_watts / power.nominal_cpu_watts,
                            core_share=0.0)

    def planner(self, profiles: Mapping[int, JobProfile]) -> Planner:
        return Planner(self.power, profiles, self.policy.beta, self.budget_watts,
                       getattr(self.policy, "oversized", "unchecked"))


def build_net(config: ThesisConfig, profiles: Mapping[int, JobProfile],
              jobs: Sequence[Job] = (), sleeping=None) -> Net:
    """The net of ``config``; jobs go in ``Scheduler/User``.  ``jobs`` are
    checked against the policy's limits when it has any.  ``sleeping``
    (``nets.energy_saving.SleepingNodes``) lets idle CPUs sleep: the policy
    plans with booting ones and the energy-saving module switches them
    (the docstring of ``nets/energy_saving.py`` says what sleeping means
    here; ``simulate_thesis`` there adds the per-node report)."""
    planner = config.planner(profiles)
    policy = config.policy.build(planner, config.machine_cpus)
    if hasattr(policy, "check"):
        policy.check(jobs)
    if sleeping is not None:
        from .sleeping_nodes import checked_sleeping  # loaded by runs with sleeping nodes alone

        policy = checked_sleeping(sleeping).planning(policy)
    net = compose("DvfsThesis", config.puppet, started="Running", ended="Running",
                  scheduler=thesis_scheduling(policy),
                  allocation=gear_allocation(planner, config.puppet.power))
    if sleeping is not None:
        sleeping.attach(net, jobs, config.puppet)
    return net


@dataclass
class ThesisResult:
    jobs: pd.DataFrame  # job_id, submit, start, end, cpus, requested, runtime_nominal, ...
    metrics: dict
    power_times: list[float]
    power_watts: list[float]


def simulate(jobs: Sequence[Job], config: ThesisConfig, profiles: Mapping[int, JobProfile],
             seed: int = 0, sleeping=None, monitors: Sequence = ()) -> ThesisResult:
    """Run ``config`` over ``jobs`` (``js`` in CPUs) until all have ended.

    Metrics: those of section 3.4 (``modules/dvfs_thesis/metrics.py``),
    and ``busy_power_peak_w``, ``budget_exceeded_s`` (time the busy CPUs
    drew more than the budget), ``energy_system_j`` (the integral of the
    net's *Power* place: the total or the computational energy, as the
    idle scenario says) and ``unfinished_jobs``.  ``sleeping``: see
    :func:`build_net`; ``monitors`` (``cpn.monitors``) watch the run."""
    jobs = some_jobs(jobs)  # read more than once: a generator would be used up
    missing = [job.id for job in jobs if job.id not in profiles]
    if missing:
        raise ValueError(f"{len(missing)} jobs have no DVFS profile (first: {missing[:5]})")
    for job in jobs:  # shares, as read_profiles checks a file's (NaN is no share)
        profile = profiles[job.id]
        if not (0 <= profile[0] <= 1 and 0 <= profile[1] <= 1):
            raise ValueError(f"job {job.id}'s DVFS profile {profile}: p and beta_comp are "
                             "shares within [0, 1]")
    run, sim = run_model(build_net(config, profiles, jobs, sleeping), jobs, config.puppet,
                         seed, monitors=monitors)
    frame = job_records(sim.tokens("Finished"), config.power, profiles)
    metrics = thesis_metrics(frame, config.machine_cpus, config.power) if len(frame) else {}
    times, watts = busy_power(frame)
    budget = config.budget_watts
    metrics.update({"unfinished_jobs": len(jobs) - len(frame), "budget_w": budget,
                    "busy_power_peak_w": float(watts.max()) if len(watts) else 0.0,
                    "budget_exceeded_s": float((np.diff(times)[watts[:-1] > budget + 1e-6])
                                               .sum()) if len(times) else 0.0,
                    "energy_system_j": run.metrics.get("energy_j")})
    return ThesisResult(frame, metrics, run.power_times, run.power_watts)


def job_records(finished, power: CpuPowerModel,
                profiles: Mapping[int, JobProfile]) -> pd.DataFrame:
    """One row per ended job: its times, CPUs, gear and power."""
    rows = []
    for job, end in finished:
        gear = power.gear_of(job.pf)
        rows.append((job.id, job.st, job.et, end, job.js, job.wt, job.rt, end - job.et,
                     power.gears[gear].frequency_ghz, gear, profiles[job.id].beta, job.jp))
    frame = pd.DataFrame(rows, columns=["job_id", "submit", "start", "end", "cpus",
                                        "requested", "runtime_nominal", "runtime",
                                        "frequency_ghz", "gear", "beta", "watts"])
    return frame.sort_values("job_id", kind="stable").reset_index(drop=True)


def busy_power(jobs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The busy CPUs' power as a step series: ``watts[i]`` holds from
    ``times[i]`` to ``times[i + 1]`` (ends before starts at equal times)."""
    if not len(jobs):
        return np.array([]), np.array([])
    events = pd.concat([pd.DataFrame({"time": jobs["end"], "order": 0, "delta": -jobs["watts"]}),
                        pd.DataFrame({"time": jobs["start"], "order": 1,
                                      "delta": jobs["watts"]})])
    events = events.sort_values(["time", "order"], kind="stable")
    times = events["time"].to_numpy(float)
    watts = np.cumsum(events["delta"].to_numpy(float))
    last = np.r_[times[1:] != times[:-1], True]  # the value once an instant is over
    return times[last], np.maximum(watts[last], 0.0)


def thesis_portion(path, machine_cpus: int, first: int = 10_001,
                   last: int = 15_000) -> list[Job]:
    """Jobs numbered ``first``..``last`` of an SWF trace on a machine of
    ``machine_cpus`` processors (the thesis simulated 5,000-job portions,
    Table 3.4; Atlas: 10K-15K on 9,216 CPUs), submit times from 0.

    Every job line is kept, as in the thesis: its Table 3.3 averages for
    Atlas (539.45 CPUs, 1,523 s run) are those of all 5,000 lines with -1
    read as 0.  A job asks for the processors it was allocated (field 5;
    section 3.5), the requested ones (field 8) when that is unknown, 0 when
    both are; it runs ``max(run time, 0)``, so a job cancelled before it
    started arrives and leaves at once (BSLD 1).  Without a requested time
    the scheduler plans with the runtime."""
    read_swf(path, procs_per_node=1, machine_nodes=machine_cpus)  # checks every line's format
    # Opened as read_swf opens it, gzip told by its magic bytes: pandas would
    # go by the name, failing on a plain trace named .gz and a gzip one not.
    with open_trace(Path(path)) as stream:
        fields = pd.read_csv(stream, sep=r"\s+", comment=";", header=None, compression=None,
                             usecols=[0, 1, 3, 4, 7, 8])
    portion = fields[fields[0].between(first, last)]
    if portion.empty:
        raise ValueError(f"{path}: no job numbered {first}..{last}")
    origin = portion[1].min()
    jobs = []
    for job_id, submit, runtime, allocated, requested, requested_time in portion.itertuples(
            index=False):
        runtime = max(float(runtime), 0.0)
        source, cpus = (5, allocated) if allocated > 0 else (8, max(requested, 0))
        if cpus > machine_cpus:
            raise ValueError(f"{path}:{_line_of(path, job_id)}: field {source} "
                             f"({SWF_FIELDS[source - 1]}): job {job_id} needs {cpus} CPUs, more "
                             f"than the machine's {machine_cpus}")
        jobs.append(Job(int(job_id), float(submit - origin), runtime, int(cpus),
                        float(requested_time) if requested_time > 0 else runtime))
    return sorted(jobs, key=lambda job: job.st)


def _line_of(path, job_id: int) -> int:
    """The line of an SWF file (plain or gzip) that holds job ``job_id``:
    looked up only to name it in an error."""
    with open_trace(Path(path)) as lines:
        return next(number for number, line in enumerate(lines, 1)
                    if line.split(maxsplit=1)[:1] == [str(job_id).encode()])
