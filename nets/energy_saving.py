"""Sleeping nodes: the EnergySaving cluster policy on PuPPET, TOPPER and the
DVFS thesis policies (Dolz et al., "A simulator to assess energy saving
strategies and policies in HPC workloads", sections 2-3).

The net is ``nets.puppet.compose`` -- batch scheduling (EASY/WFP, or the
paper's FIFO per queue), allocation (with or without a power cap), *Finish*
-- plus the energy-saving module of ``modules/energy_saving/`` on the
same places.  Power follows the paper's node model (``NodePower``): a
loaded node draws ``loaded_w``, an idle one ``idle_w``, so PuPPET's
``node_watts`` and ``idle_fraction`` are set from it, and jobs draw
``loaded_w`` per node unless ``job_power="trace"`` keeps their own ``jp``.

>>> from modules.job import Job
>>> from modules.energy_saving.policy import EnergySavingPolicy
>>> config = EnergySavingConfig(2, policy=EnergySavingPolicy(idle_threshold_s=600))
>>> result = simulate([Job(1, 0, 100, 1, 100), Job(2, 2000, 100, 2, 100)], config)
>>> list(result.jobs["start"]), result.metrics["shutdowns"]
([0.0, 2595.0], 2)

Both nodes were switched off after 600 s idle; job 2 arrives at 2000, the
tick at 2040 boots two nodes, and it starts 555 s later.

The same module runs on the other models built on ``compose``, through a
:class:`SleepingNodes` setting that ``nets.topper.simulate`` and
``nets.dvfs_thesis.simulate`` accept (``sleeping=``);
:func:`simulate_topper` and :func:`simulate_thesis` add the per-node
report.  What sleeping means there:

* **TOPPER**: nodes sleep by whole compute units.  A job holds whole units
  and a unit is the granularity of failures and allocation, so a partly
  sleeping unit could serve no job yet would draw idle power; switching
  whole units keeps *Nodes* a whole number of units, and a unit is
  allocatable exactly when all its nodes are on.  (On a Blue Gene a rack
  is also what powers down as one.)  A failure matters only to the job on
  the unit: TOPPER draws a unit's failure time when a job is assigned to
  it and repairs a unit that failed while free before it is used, and a
  sleeping unit is a free unit -- its failures are as invisible as an idle
  unit's, and a boot never fails.  Which units sleep is a count, as every
  state of the module: the ledger's node names are its own, not the fault
  tolerance module's unit ids, which matters only to a failure trace
  (whose failures hit the units that module assigned).
* **DVFS thesis**: a node is a CPU, and a CPU sleeps on its own.  An idle
  CPU draws the thesis' idle power; standby is below it.  In the
  ``"lowest_gear"`` idle scenario (the lowest gear with communication
  activity, 25.7 W of a 100 W CPU) the paper's node is scaled to that idle
  power (``NodePower.scaled``: standby 0.34 W, the same 555 s / 480 s
  transitions and break-even time); the ``"zero"`` scenario is refused, as
  idle CPUs draw nothing there and sleeping could only cost.  A policy
  with a power budget counts booting CPUs as drawing nothing from it (the
  budget is on busy CPUs).  UPAS measures utilization as the CPUs not
  free, so it counts sleeping CPUs as busy.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from cpn import Net
from modules.batch_scheduling import SchedulingConfig
from modules.cpu_scaling import CpuScaling
from modules.energy_saving.decisions import Decision
from modules.energy_saving.ledger_monitor import LedgerMonitor
from modules.energy_saving.policy import EnergySavingPolicy
from modules.energy_saving.scheduling import FifoQueues, batch_options
from modules.job import Job, some_jobs
from modules.power_steps import energy_exact
from modules.node_counts import NodeCounts
from modules.node_ledger import NodeLedger
from modules.node_power import WH, NodePower, format_dhms
from modules.power_capping import PowerCap
from modules.tables import FrameField, columns_of, stored

from .puppet import PuppetConfig, compose, run_model
from .sleeping_nodes import SleepingNodes, check_parts, checked_sleeping

if TYPE_CHECKING:  # the other models are imported by the functions that run them
    import pandas as pd

    from modules.dvfs_thesis.profiles import JobProfile

    from . import dvfs_thesis, topper

JOB_POWER = ("loaded", "trace")


@dataclass(frozen=True)
class EnergySavingConfig:
    """A machine of ``machine_nodes`` identical nodes (``node``: the paper's
    power states), the energy-saving ``policy``, batch ``scheduling``
    (``SchedulingConfig``: FCFS/WFP with EASY; ``FifoQueues``: the paper's
    FIFO per queue) and an optional power ``cap`` (as in PuPPET,
    DVFS included, see :meth:`SleepingNodes.attach`).
    ``timeline`` keeps every node state interval for the plot (one record
    per node and change: turn it off for long runs on large machines).
    ``per_node`` False counts the nodes in each state without naming them
    (``modules.node_counts``): the same totals, no per-node table or
    timeline, and a cost per job that does not grow with its size."""

    machine_nodes: int
    node: NodePower = field(default_factory=NodePower)
    policy: EnergySavingPolicy = field(default_factory=EnergySavingPolicy)
    scheduling: SchedulingConfig | FifoQueues = field(default_factory=SchedulingConfig)
    cap: PowerCap | CpuScaling = field(default_factory=PowerCap)
    job_power: str = "loaded"
    timeline: bool = True
    per_node: bool = True

    def __post_init__(self):
        check_parts(self.policy, self.node)
        if self.job_power not in JOB_POWER:
            raise ValueError(f"job_power must be one of {JOB_POWER}, not {self.job_power!r}")
        on = self.policy.initially_on
        if on is not None and on > self.machine_nodes:
            raise ValueError(f"initially_on ({on}) exceeds the machine's "
                             f"{self.machine_nodes} nodes")
        self.puppet  # validates the machine

    @property
    def sleeping(self) -> SleepingNodes:
        return SleepingNodes(self.policy, self.node, self.timeline, self.per_node)

    @property
    def puppet(self) -> PuppetConfig:
        """The PuPPET configuration underneath: node power from ``node``."""
        return PuppetConfig(self.machine_nodes, node_watts=self.node.loaded_w,
                            idle_fraction=self.node.idle_w / self.node.loaded_w,
                            scheduling=batch_options(self.scheduling), cap=self.cap)

    def always_on(self) -> "EnergySavingConfig":
        """The same machine and scheduling with every node always on."""
        return replace(self, policy=replace(self.policy, enabled=False, initially_on=None))


def prepare_jobs(jobs: Sequence[Job], config: EnergySavingConfig) -> list[Job]:
    """Jobs with the power the configuration asks for."""
    if config.job_power == "trace":
        return list(jobs)
    watts = config.node.loaded_w
    return [job._replace(jp=job.js * watts) for job in jobs]


def build_net(config: PuppetConfig, sleeping: SleepingNodes, jobs: Sequence[Job],
              scheduling: SchedulingConfig | FifoQueues | None = None) -> Net:
    """The PuPPET net of ``config`` with sleeping nodes: its scheduler plans
    with booting nodes, and the tick may stop after the last of ``jobs``
    has arrived."""
    net = compose("EnergySavingPuPPET", config, started="Running", ended="Running",
                  scheduler=sleeping.scheduler(scheduling or config.scheduling,
                                               config.machine_nodes))
    return sleeping.attach(net, jobs, config)


@dataclass
class EnergySavingResult:
    """Per-job records, metrics, per-node times, the state timeline and the
    energy-saving decisions (those that switched something); ``model`` is
    the model's own result (``PuppetResult``, ``ThesisResult``).  The
    tables are built as DataFrames when first read (``modules.tables``):
    ``cpn run`` never reads them."""

    jobs: pd.DataFrame = FrameField()
    metrics: dict
    nodes: pd.DataFrame = FrameField()
    timeline: pd.DataFrame = FrameField()
    decisions: list[Decision]
    power_times: list[float]
    power_watts: list[float]
    ledger: NodeLedger | NodeCounts
    model: Any


def simulate(jobs: Sequence[Job], config: EnergySavingConfig, seed: int = 0,
             time_offset: float = 0.0, **options) -> EnergySavingResult:
    """Run the net until every job has finished (options as
    ``nets.puppet.run_model``: ``energy_steps``, ``progress``, ``chunk``).

    Energy and per-node times are counted up to the end of the last job
    (the makespan, as the paper's Table 1): ``energy_mwh`` integrates the
    *Power* place, ``energy_accounting_mwh`` adds residency x power per
    state and a fixed charge per transition started (``node_power``); the
    two agree unless a transition is under way at the end, or DVFS slowed
    jobs down (the accounting charges loaded nodes their nominal power)."""
    return simulate_puppet(prepare_jobs(jobs, config), config.puppet, config.sleeping, seed,
                           time_offset, scheduling=config.scheduling,
                           job_power=config.job_power, **options)


def simulate_puppet(jobs: Sequence[Job], config: PuppetConfig,
                    sleeping: SleepingNodes = SleepingNodes(), seed: int = 0,
                    time_offset: float = 0.0,
                    scheduling: SchedulingConfig | FifoQueues | None = None,
                    job_power: str = "trace", **options) -> EnergySavingResult:
    """Any PuPPET configuration (its cap included) with sleeping nodes; jobs
    keep their own power.  ``scheduling`` (the paper's FIFO per queue)
    replaces ``config.scheduling``, in the run's record too; metrics as :func:`simulate`."""
    checked_sleeping(sleeping)
    if not isinstance(scheduling, (SchedulingConfig, FifoQueues, type(None))):
        raise ValueError(f"scheduling must be a SchedulingConfig, a FifoQueues or None, not "
                         f"{scheduling!r}")
    scheduling = scheduling or config.scheduling
    config = replace(config, scheduling=batch_options(scheduling))
    monitor = sleeping.monitor(config, len(jobs := some_jobs(jobs)))  # a generator: listed
    result, _ = run_model(build_net(config, sleeping, jobs, scheduling), jobs, config, seed,
                          time_offset=time_offset,
                          monitors=[*options.pop("monitors", ()), monitor], **options)
    monitor.ledger.close(result.end - time_offset)  # already closed unless interrupted
    return report(result, monitor, sleeping, time_offset,
                  scheduling=repr(scheduling), job_power=job_power)


def simulate_topper(jobs: Sequence[Job], config: topper.TopperConfig,
                    sleeping: SleepingNodes = SleepingNodes(), seed: int = 0,
                    time_offset: float = 0.0, **options) -> EnergySavingResult:
    """TOPPER (``nets.topper.simulate``, options as there) with sleeping
    nodes, switched by whole compute units (see the module's docstring);
    the metrics are TOPPER's and those of :func:`simulate`."""
    from . import topper

    checked_sleeping(sleeping)
    monitor = sleeping.monitor(config.puppet, len(jobs := some_jobs(jobs)))  # a generator: listed
    result = topper.simulate(jobs, config, seed, sleeping=sleeping, time_offset=time_offset,
                             monitors=[*options.pop("monitors", ()), monitor], **options)
    monitor.ledger.close(result.end - time_offset)
    return report(result, monitor, sleeping, time_offset,
                  unit_nodes=config.resilience.unit_nodes)


def simulate_thesis(jobs: Sequence[Job], config: dvfs_thesis.ThesisConfig,
                    profiles: Mapping[int, JobProfile],
                    sleeping: SleepingNodes = SleepingNodes(), seed: int = 0
                    ) -> EnergySavingResult:
    """A DVFS thesis policy (``nets.dvfs_thesis.simulate``) with CPUs that
    sleep (see the module's docstring); the metrics are the thesis' and
    those of :func:`simulate`, whose accounting charges busy CPUs their
    job's power at its gear.  The thesis' ``energy_total_j`` keeps its
    formula (idle CPUs always on): ``energy_j`` is the net's, sleep
    included."""
    from . import dvfs_thesis  # here only: it needs pandas

    checked_sleeping(sleeping)
    monitor = sleeping.monitor(config.puppet, len(jobs := some_jobs(jobs)))  # a generator: listed
    result = dvfs_thesis.simulate(jobs, config, profiles, seed, sleeping=sleeping,
                                  monitors=[monitor])
    end = result.jobs["end"].max() if len(result.jobs) else 0.0
    monitor.ledger.close(end)
    return report(result, monitor, sleeping, power="watts", size="cpus")


def report(model, monitor: LedgerMonitor, sleeping: SleepingNodes, time_offset: float = 0.0,
           power: str = "power", size: str = "nodes", **settings) -> EnergySavingResult:
    """The energy-saving result of a run: the model's metrics, energy and
    per-node times up to the end of the last job (``monitor``'s ledger,
    closed there, where the model's power series ends), and the nodes'
    accounting, loaded nodes charged their jobs' own power (columns
    ``power`` and ``size`` of the model's job records) for every run, a
    requeued job's failed runs too; ``settings`` join the configuration in
    the metrics."""
    ledger, node = monitor.ledger, monitor.node
    end = ledger.closed_at + time_offset
    frame, metrics = stored(model, "jobs"), dict(model.metrics)
    energy_j = (energy_exact(model.power_times, model.power_watts, end)
                if len(model.power_times) else float("nan"))
    columns = columns_of(frame)
    per_node = dict(zip(columns["job_id"].tolist(), (columns[power] / columns[size]).tolist()))
    busy_wh = sum(ledger.job_node_s.get(job, 0.0) * watts for job, watts in per_node.items()) / WH
    totals = ledger.machine_totals()
    metrics.update({
        "energy_j": energy_j,
        "energy_mwh": energy_j / 3.6e9,
        "energy_accounting_mwh": ledger.energy_wh(node, loaded_wh=busy_wh) / 1e6,
        "makespan": format_dhms(metrics.get("makespan_s", float("nan"))),
        "shutdowns": totals["shutdowns"],
        "power_ons": totals["power_ons"],
        "max_active_nodes": int(ledger.max_active),
        "active_node_s": totals["active_node_s"],
        "inactive_node_s": totals["inactive_node_s"],
        "energy_saving": sleeping.policy.enabled,
    })
    metrics["config"] = {**metrics.get("config", {}), "energy_saving": {
        "node": vars(node), "policy": repr(sleeping.policy), **settings}}
    timeline = ledger.timeline_columns(time_offset)
    return EnergySavingResult(frame, metrics, ledger.per_node_columns(), timeline,
                              monitor.decisions, model.power_times, model.power_watts, ledger,
                              model)


COMPARED = ("makespan_s", "makespan", "energy_mwh", "energy_accounting_mwh", "shutdowns",
            "max_active_nodes", "active_node_s", "inactive_node_s", "wait_mean_s",
            "utilization")


def compare(jobs: Sequence[Job], config: EnergySavingConfig, **options
            ) -> tuple[pd.DataFrame, EnergySavingResult, EnergySavingResult]:
    """Always on against energy saving on the same jobs: a two-row table
    (the paper's Table 1 shape) and both results."""
    import pandas as pd

    always = simulate(jobs, config.always_on(), **options)
    saving = simulate(jobs, config, **options)
    table = pd.DataFrame([{key: run.metrics.get(key) for key in COMPARED}
                          for run in (always, saving)], index=["always on", "energy saving"])
    return table, always, saving
