"""PuPPET with sleeping nodes: the EnergySaving cluster policy on the PuPPET
net (Dolz et al., "A simulator to assess energy saving strategies and
policies in HPC workloads", sections 2-3).

The net is ``nets.puppet.compose`` -- batch scheduling (EASY/WFP, or the
paper's FIFO per queue), allocation (with or without a power cap), *Finish*
-- plus the energy-saving module of ``modules/energy_saving.py`` on the
same places.  Power follows the paper's node model (``NodePower``): a
loaded node draws ``loaded_w``, an idle one ``idle_w``, so PuPPET's
``node_watts`` and ``idle_fraction`` are set from it, and jobs draw
``loaded_w`` per node unless ``job_power="trace"`` keeps their own ``jp``.

>>> from modules.job import Job
>>> from modules.energy_saving import EnergySavingPolicy
>>> config = EnergySavingConfig(2, policy=EnergySavingPolicy(idle_threshold_s=600))
>>> result = simulate([Job(1, 0, 100, 1, 100), Job(2, 2000, 100, 2, 100)], config)
>>> list(result.jobs["start"]), result.metrics["shutdowns"]
([0.0, 2595.0], 2)

Both nodes were switched off after 600 s idle; job 2 arrives at 2000, the
tick at 2040 boots two nodes, and it starts 555 s later.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Sequence

import pandas as pd

from modules.batch_scheduling import SchedulingConfig
from modules.cpu_scaling import CpuScaling
from modules.energy_saving import (Decision, EnergySavingPolicy, FifoQueues, LedgerMonitor,
                                   attach, scheduling_module)
from modules.job import Job
from modules.metrics import summary_metrics
from modules.node_power import NodeLedger, NodePower, format_dhms
from modules.power_capping import PowerCap

from .puppet import PuppetConfig, PuppetResult, compose, run_model

JOB_POWER = ("loaded", "trace")


@dataclass(frozen=True)
class EnergySavingConfig:
    """A machine of ``machine_nodes`` identical nodes (``node``: the paper's
    power states), the energy-saving ``policy``, batch ``scheduling``
    (``SchedulingConfig``: FCFS/WFP with EASY; ``FifoQueues``: the paper's
    FIFO per queue) and an optional power ``cap`` (as in PuPPET).
    ``timeline`` keeps every node state interval for the plot (one record
    per node and change: turn it off for long runs on large machines)."""

    machine_nodes: int
    node: NodePower = field(default_factory=NodePower)
    policy: EnergySavingPolicy = field(default_factory=EnergySavingPolicy)
    scheduling: SchedulingConfig | FifoQueues = field(default_factory=SchedulingConfig)
    cap: PowerCap | CpuScaling = field(default_factory=PowerCap)
    job_power: str = "loaded"
    timeline: bool = True

    def __post_init__(self):
        if self.job_power not in JOB_POWER:
            raise ValueError(f"job_power must be one of {JOB_POWER}, not {self.job_power!r}")
        on = self.policy.initially_on
        if on is not None and on > self.machine_nodes:
            raise ValueError(f"initially_on ({on}) exceeds the machine's "
                             f"{self.machine_nodes} nodes")
        self.puppet  # validates the machine

    @property
    def puppet(self) -> PuppetConfig:
        """The PuPPET configuration underneath: node power from ``node``."""
        scheduling = (self.scheduling.scheduling if isinstance(self.scheduling, FifoQueues)
                      else self.scheduling)
        return PuppetConfig(self.machine_nodes, node_watts=self.node.loaded_w,
                            idle_fraction=self.node.idle_w / self.node.loaded_w,
                            scheduling=scheduling, cap=self.cap)

    def always_on(self) -> "EnergySavingConfig":
        """The same machine and scheduling with every node always on."""
        return replace(self, policy=replace(self.policy, enabled=False, initially_on=None))


def prepare_jobs(jobs: Sequence[Job], config: EnergySavingConfig) -> list[Job]:
    """Jobs with the power the configuration asks for."""
    if config.job_power == "trace":
        return list(jobs)
    watts = config.node.loaded_w
    return [job._replace(jp=job.js * watts) for job in jobs]


def build_net(config: EnergySavingConfig, jobs: Sequence[Job], name: str = "EnergySavingPuPPET"):
    """The PuPPET net of ``config`` with the energy-saving module attached;
    ``jobs`` give the last arrival, after which the tick may stop."""
    boot_delay = config.policy.period_s + config.node.power_on_s
    scheduler = scheduling_module(config.scheduling, boot_delay)
    net = compose(name, config.puppet, started="Running", ended="Running",
                  scheduler=scheduler)
    until = max((job.st for job in jobs), default=0.0)
    return attach(net, config.policy, config.machine_nodes, config.node, until)


@dataclass
class EnergySavingResult:
    """Per-job records, metrics, per-node times, the state timeline and the
    energy-saving decisions (those that switched something)."""

    jobs: pd.DataFrame
    metrics: dict
    nodes: pd.DataFrame
    timeline: pd.DataFrame
    decisions: list[Decision]
    power_times: list[float]
    power_watts: list[float]
    ledger: NodeLedger
    puppet: PuppetResult


def simulate(jobs: Sequence[Job], config: EnergySavingConfig, seed: int = 0,
             time_offset: float = 0.0, **options) -> EnergySavingResult:
    """Run the net until every job has finished (options as
    ``nets.puppet.run_model``: ``energy_steps``, ``progress``, ``chunk``).

    Energy and per-node times are counted up to the end of the last job
    (the makespan, as the paper's Table 1): ``energy_mwh`` integrates the
    *Power* place, ``energy_accounting_mwh`` adds residency x power per
    state and a fixed charge per transition started (``node_power``); the
    two agree unless a transition is under way at the end."""
    jobs = prepare_jobs(jobs, config)
    policy = config.policy
    ledger = NodeLedger(config.machine_nodes, policy.initially_on if policy.enabled else None,
                        power_on_order=policy.power_on_order, timeline=config.timeline)
    monitor = LedgerMonitor(ledger, config.node, jobs=len(jobs))
    net = build_net(config, jobs)
    result, sim = run_model(net, jobs, config.puppet, seed, time_offset=time_offset,
                            monitors=[monitor], **options)
    ledger.close(sim.now)  # already closed at the last end unless interrupted
    end = ledger.closed_at
    metrics = dict(result.metrics)
    if len(result.jobs):
        metrics.update(summary_metrics(result.jobs, result.power_times, result.power_watts,
                                       end + time_offset, config.machine_nodes))
    nodes = ledger.per_node()
    energy_j = metrics.get("energy_j", float("nan"))
    metrics.update({
        "energy_mwh": energy_j / 3.6e9,
        "energy_accounting_mwh": ledger.energy_wh(config.node) / 1e6,
        "makespan": format_dhms(metrics.get("makespan_s", float("nan"))),
        "shutdowns": int(nodes["shutdowns"].sum()),
        "power_ons": int(nodes["power_ons"].sum()),
        "max_active_nodes": int(ledger.max_active),
        "active_node_s": float(nodes["active_s"].sum()),
        "inactive_node_s": float(nodes["inactive_s"].sum()),
        "energy_saving": config.policy.enabled,
    })
    metrics["config"] = {**metrics.get("config", {}), "energy_saving": {
        "node": vars(config.node), "policy": repr(config.policy),
        "scheduling": repr(config.scheduling), "job_power": config.job_power}}
    timeline = ledger.timeline()
    if time_offset and len(timeline):
        timeline[["start", "end"]] += time_offset
    return EnergySavingResult(result.jobs, metrics, nodes, timeline, monitor.decisions,
                              result.power_times, result.power_watts, ledger, result)


COMPARED = ("makespan_s", "makespan", "energy_mwh", "energy_accounting_mwh", "shutdowns",
            "max_active_nodes", "active_node_s", "inactive_node_s", "wait_mean_s",
            "utilization")


def compare(jobs: Sequence[Job], config: EnergySavingConfig, **options
            ) -> tuple[pd.DataFrame, EnergySavingResult, EnergySavingResult]:
    """Always on against energy saving on the same jobs: a two-row table
    (the paper's Table 1 shape) and both results."""
    always = simulate(jobs, config.always_on(), **options)
    saving = simulate(jobs, config, **options)
    table = pd.DataFrame([{key: run.metrics.get(key) for key in COMPARED}
                          for run in (always, saving)], index=["always on", "energy saving"])
    return table, always, saving
