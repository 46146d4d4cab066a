"""TOPPER: scheduling, power and resilience on one net (TOPPER paper, Fig. 2).

PuPPET's states and modules (``puppet.compose``) with the fault tolerance
module between allocation and *Finish*: allocated jobs enter *Started*,
run in *Running* under failures and checkpoint/restart or replication, and
reach *Free* when they complete, where *Finish* releases their nodes and
power.  Jobs occupy whole compute units (racks by default), replicas
included (a job too large for ``r`` replicas gets those that fit); the
scheduler plans with their walltime stretched by the expected overheads.

A failed job keeps its units and resumes in place (``on_failure="keep"``,
the paper's model), or, with ``on_failure="requeue"``, reaches *Requeued*,
where *Resubmit* releases its nodes and power like *Finish* and puts it back
in *Queuing* at its original submit order (``power_capping.requeue``), with
its requested walltime unchanged; it resumes from its last checkpoint when
it starts again.  Its record's ``start`` is then the start of the run that
completed (the time lost before counts as waiting); ``first_start`` and
``requeues`` say when it first ran and how often it went back.

>>> from modules.job import Job
>>> from modules.resilience import FaultTolerance
>>> jobs = [Job(1, 0, 3600, 1024, 3600), Job(2, 10, 3600, 2048, 3600)]
>>> config = TopperConfig(PuppetConfig(machine_nodes=2048, node_watts=60),
...                       FaultTolerance(unit_mttf=float("inf")))
>>> list(simulate(jobs, config).jobs["start"])
[0.0, 3600.0]
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass, field
from numbers import Real
from typing import Iterable, Mapping, Sequence

from cpn import Net
from modules.batch_scheduling import P_FINISH
from modules.cpu_scaling import CpuScaling
from modules.fault_plans import Plan, partially_replicated, plan_jobs, slowest_job
from modules.fault_tolerance import Execution, FailureSource, FaultRules, fault_tolerance
from modules.job import Job, checked_jobs, some_jobs
from modules.power_capping import requeue
from modules.resilience import FaultTolerance
from modules.tables import columns_of, stored
from modules.values import is_number
from modules.words import counted

from .puppet import PuppetConfig, PuppetResult, compose, run_model


@dataclass(frozen=True)
class TopperConfig:
    """A PuPPET configuration plus fault tolerance.  ``failure_multiplier``
    scales every unit's failure rate; ``dvfs_failure_multiplier`` scales it
    while DVFS runs a unit below nominal frequency (TOPPER Fig. 15:
    "DVFS-double" is 2, "DVFS-triple" 3; only under DVFS);
    ``failure_trace`` replays failures (unit -> failure times) instead of
    drawing them (neither multiplier then has a rate to scale)."""

    puppet: PuppetConfig
    resilience: FaultTolerance = field(default_factory=FaultTolerance)
    failure_multiplier: float = 1.0
    dvfs_failure_multiplier: float = 1.0
    failure_trace: Mapping[int, Sequence[float]] | None = None

    def __post_init__(self):
        if not isinstance(self.puppet, PuppetConfig):
            raise ValueError(f"puppet must be a PuppetConfig, not {self.puppet!r}")
        if not isinstance(self.resilience, FaultTolerance):
            raise ValueError(f"resilience must be a FaultTolerance, not {self.resilience!r}")
        if self.puppet.machine_nodes % self.resilience.unit_nodes:
            raise ValueError(f"the machine's {self.puppet.machine_nodes} nodes are not a "
                             f"whole number of {self.resilience.unit_nodes}-node units")
        if not all(is_number(m) and 0 < m < math.inf  # inf: failures without end
                   for m in (self.failure_multiplier, self.dvfs_failure_multiplier)):
            raise ValueError("failure multipliers must be positive and finite, not "
                             f"{self.failure_multiplier}, {self.dvfs_failure_multiplier}")
        if self.failure_trace is not None:
            _check_failure_trace(self.failure_trace, self.units)
        self._refuse_what_the_run_would_ignore()

    def _refuse_what_the_run_would_ignore(self) -> None:
        """A multiplier given (not 1) where no drawn failure rate is
        scaled, or a DVFS latency, is refused naming both settings, as
        ``cpn run`` refuses its flags: the run would not be the one asked for."""
        scaled = {name: getattr(self, name) for name in ("failure_multiplier",
                                                         "dvfs_failure_multiplier")
                  if getattr(self, name) != 1.0}
        if scaled and self.failure_trace is not None:
            name, value = next(iter(scaled.items()))
            raise ValueError(f"{name}={value:g} scales the rate of drawn failures: those "
                             "replayed from failure_trace have none")
        scaling = self.puppet.cap if isinstance(self.puppet.cap, CpuScaling) else None
        if "dvfs_failure_multiplier" in scaled and scaling is None:
            raise ValueError(f"dvfs_failure_multiplier={self.dvfs_failure_multiplier:g} "
                             "applies under DVFS only (puppet.cap a CpuScaling): it scales "
                             "failure rates while DVFS runs below nominal frequency")
        if scaling is not None and scaling.latency:  # else refused once the net was built
            raise ValueError(f"a DVFS latency ({scaling.latency:g} s) is not modelled under "
                             "fault tolerance: use latency=0")

    @property
    def units(self) -> int:
        return self.puppet.machine_nodes // self.resilience.unit_nodes


def _check_failure_trace(trace: Mapping[int, Sequence[float]], units: int) -> None:
    """A replayed failure of a unit the machine lacks, or at no time, is
    refused: it would never be felt.  One before time 0 is warned of, as
    ``cpn run`` says of it: a log's window may start before the run's."""
    if not isinstance(trace, Mapping):
        raise ValueError(f"the failure trace maps each unit to its failure times "
                         f"({{0: [5.0]}}), not {type(trace).__name__} {trace!r:.60}")
    unknown = [unit for unit in trace if unit not in range(units)]
    if unknown:
        raise ValueError(f"the failure trace names {len(unknown)} units the machine's "
                         f"{units} units (0 to {units - 1}) do not include; first: "
                         f"{unknown[:5]}")
    early = 0
    for unit, times in trace.items():
        if isinstance(times, (str, bytes)) or not isinstance(times, Iterable):
            raise ValueError(f"the failure trace's unit {unit} fails at {times!r}: give its "
                             "failure times as a list, e.g. [5.0]")
        for time in times:
            if not isinstance(time, Real) or math.isnan(time):
                raise ValueError(f"the failure trace's unit {unit} fails at {time!r}, "
                                 "which is not a time in seconds")
            early += time < 0
    if early:
        warnings.warn(f"{early} failures of the failure trace are before time 0 and are "
                      "never felt", stacklevel=4)


class SlowRunWarning(UserWarning):
    """Failures so frequent that some job is expected to run for ages."""


#: How many times its work a job may be expected to take before a run is
#: warned of (TOPPER's own settings stretch Mira's jobs by 1.01-1.14).
SLOW_STRETCH = 100.0


def warn_of_a_slow_run(planned: Sequence[tuple[Job, Plan]], config: TopperConfig) -> None:
    """Warn (:class:`SlowRunWarning`) when the failures drawn make some job
    expected to take over :data:`SLOW_STRETCH` times its work: as a unit's
    MTTF falls below the checkpoint and recovery times, a job's expected
    time grows exponentially, and the run, firing every failure, seems to
    hang.  A replayed failure trace has no rate to judge by."""
    if config.failure_trace is not None:
        return
    rate = config.failure_multiplier / config.resilience.unit_mttf
    slowest = slowest_job(planned, config.resilience, rate)
    if slowest is None or slowest[2] <= SLOW_STRETCH:
        return
    job, plan, stretch = slowest
    units = len(plan.replicas)
    expected = "forever" if math.isinf(stretch) else f"{_times(stretch)} times as long"
    checkpoints = ("no checkpoints" if math.isinf(plan.interval)
                   else f"a {_duration(plan.overhead)} checkpoint")
    warnings.warn(
        f"job {job.id} ({counted(job.js, 'node')}, {_duration(plan.work)} of work) is expected "
        f"to take {expected} under these failures (Daly's expected time): "
        f"{'its unit fails' if units == 1 else f'one of its {units:,} units fails'} every "
        f"{_duration(1 / (units * rate))} on average, against {checkpoints} and a "
        f"{_duration(config.resilience.recovery)} recovery, so "
        "the run may take very long; Ctrl-C stops it and keeps what finished",
        SlowRunWarning, stacklevel=3)


def _times(stretch: float) -> str:
    """``157``, ``12,345``; from a million up ``7.5e+31``: a number of
    thirty digits is read by its size alone."""
    return f"{stretch:,.0f}" if stretch < 1e6 else f"{stretch:.2g}"


def _duration(seconds: float) -> str:
    return f"{seconds:,.0f} s" if seconds < 3600 else f"{seconds / 3600:,.2f} h"


def build_net(jobs: Sequence[Job], config: TopperConfig,
              sleeping=None) -> tuple[Net, list[Job]]:
    """The TOPPER net for ``jobs``, and the jobs as its scheduler sees them
    (whole units, replicas included, walltime stretched: ``plan_job``),
    which go in ``Scheduler/User``.  ``sleeping``: see :func:`simulate`."""
    planned = plan_jobs(jobs, config.resilience, config.units)
    too_big = [job.id for job, _ in planned if job.js > config.puppet.machine_nodes]
    if too_big:
        raise ValueError(
            f"{len(too_big)} jobs need more than the machine's {config.puppet.machine_nodes} "
            f"nodes once rounded to {config.resilience.unit_nodes}-node units; "
            f"first: {too_big[:5]}")
    warn_of_a_slow_run(planned, config)
    plans = {job.id: plan for job, plan in planned}
    failures = FailureSource(config.resilience.unit_mttf, config.failure_multiplier,
                             config.failure_trace)
    scaling = config.puppet.cap if isinstance(config.puppet.cap, CpuScaling) else None
    rules = FaultRules(plans, failures, beta=scaling.beta if scaling else 0.5,
                       dvfs_boost=config.dvfs_failure_multiplier)
    scheduler = None
    if sleeping is not None:
        from .sleeping_nodes import checked_sleeping  # loaded by runs with sleeping nodes alone

        scheduler = checked_sleeping(sleeping).scheduler(config.puppet.scheduling,
                                                         config.puppet.machine_nodes)
    net = compose("TOPPER", config.puppet, started="Started", ended="Free", scheduler=scheduler)
    net.place("Running", Execution, timed=True)
    sockets = {"Started": "Started", "Running": "Running", "Free": "Free"}
    if config.resilience.on_failure == "requeue":
        add_requeue(net)
        sockets["Requeued"] = "Requeued"
    net.substitution("FaultTolerance",
                     fault_tolerance(config.resilience, rules, config.units,
                                     scaled=scaling is not None), sockets)
    if sleeping is not None:
        sleeping.attach(net, jobs, config.puppet, unit_nodes=config.resilience.unit_nodes)
    return net, [job for job, _ in planned]


def simulate(jobs: Sequence[Job], config: TopperConfig, seed: int = 0,
             sleeping=None, **options) -> PuppetResult:
    """Run TOPPER over ``jobs`` (options as ``nets.puppet.run_model``).

    Adds to the metrics: failures, lost node-hours, and system efficiency
    (useful node-hours, the trace's own work, over elapsed node-hours:
    replicas, overheads and lost work are not useful; TOPPER section 5);
    with replication, ``partially_replicated_jobs``: the jobs too large for
    r full replicas on the machine, which ran with the replicas that fit.

    ``sleeping`` (``nets.energy_saving.SleepingNodes``) lets idle compute
    units sleep: the scheduler plans with booting ones and the energy-saving
    module switches whole units (``nets.energy_saving.simulate_topper``
    adds the per-node report; that module's docstring says what sleeping
    means here).
    """
    if not isinstance(config, TopperConfig):  # else an AttributeError of building the net
        raise ValueError(f"config must be a TopperConfig, not {type(config).__name__}")
    # read twice, so a list; a job's size is checked on units by build_net
    jobs = some_jobs(checked_jobs(jobs, machine_nodes=math.inf))
    net, scheduled = build_net(jobs, config, sleeping)
    result, sim = run_model(net, scheduled, config.puppet, seed, **options)
    requeuing = config.resilience.on_failure == "requeue"
    log = sim.tokens("FaultTolerance/Failures")
    useful = {job.id: job.js * job.rt for job in jobs}
    metrics = result.metrics
    finished = columns_of(stored(result, "jobs"))["job_id"].tolist()  # no DataFrame yet
    if finished:
        span = metrics["makespan_s"] * config.puppet.machine_nodes
        metrics["system_efficiency"] = sum(useful[i] for i in finished) / span
    if requeuing:
        describe_requeues(result.jobs, metrics, log, {job.id: job.js for job in scheduled},
                          config.puppet.machine_nodes, options.get("time_offset", 0.0))
    metrics["failures"] = len(log)
    metrics["lost_node_hours"] = sum(entry.lost_node_seconds for entry in log) / 3600
    if config.resilience.method == "replication":
        metrics["partially_replicated_jobs"] = len(partially_replicated(
            jobs, config.resilience, config.units))
    metrics["config"] = {**metrics["config"],  # run_model's: what the net hosted, as PuPPET's
                         "resilience": asdict(config.resilience),
                         "failure_multiplier": config.failure_multiplier,
                         "dvfs_failure_multiplier": config.dvfs_failure_multiplier}
    return result


def add_requeue(net) -> None:
    """*Resubmit*: a failed job that the fault tolerance module requeued releases
    its nodes, power and runtime entry as *Finish* would, and goes back to
    *Queuing* at its original submit order; scheduling is triggered."""
    net.env["requeue"] = requeue
    net.place("Requeued", Job)
    net.transition("Resubmit", priority=P_FINISH,
                   inputs={"Requeued": "job", "Nodes": "free", "Power": "watts",
                           "RuntimeInfo": "running", "Queuing": "queue",
                           "Trigger": "signal"},
                   outputs={"Nodes": "free + job.js", "Power": "watts - busy_delta(job)",
                            "RuntimeInfo": "running.without(job.id)",
                            "Queuing": "requeue(queue, (job,))", "Trigger": "True"})


def describe_requeues(frame, metrics: dict, log, nodes: Mapping[int, int],
                      machine_nodes: int, time_offset: float) -> None:
    """Per job, ``requeues`` and ``first_start``; in the metrics,
    ``requeues``, and utilization counting the nodes the failed runs held."""
    counts: dict[int, int] = {}
    first: dict[int, float] = {}
    held = 0.0
    for entry in log:
        counts[entry.job_id] = counts.get(entry.job_id, 0) + 1
        first[entry.job_id] = min(first.get(entry.job_id, entry.started), entry.started)
        held += nodes[entry.job_id] * (entry.time - entry.started)
    frame["requeues"] = [counts.get(i, 0) for i in frame["job_id"]]
    frame["first_start"] = [first[i] + time_offset if i in first else start
                            for i, start in zip(frame["job_id"], frame["start"])]
    metrics["requeues"] = len(log)
    if len(frame) and metrics["makespan_s"] > 0:
        metrics["utilization"] += held / (machine_nodes * metrics["makespan_s"])
