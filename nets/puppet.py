"""PuPPET: batch scheduling and power on one net (PuPPET paper, Fig. 4).

The top level holds the five states of Fig. 4 — *Queuing*, *Running*,
*Power*, *Runtime Info*, *Nodes* — plus *Selected* (jobs the scheduler
picked, waiting for allocation), *Finished* (per-job records) and the
*Trigger* fusion place.  Its modules come in through substitution
transitions: batch scheduling (``modules/batch_scheduling.py``) and
allocation (``modules/allocation.py``); power capping and CPU scaling plug
in through the same sockets.  *Finish* ends a job at its timestamp: its
nodes return idle, power drops, and scheduling is triggered.

>>> from modules.job import Job
>>> jobs = [Job(1, 0, 100, 3, 100), Job(2, 1, 100, 4, 100), Job(3, 2, 1000, 1, 1000)]
>>> result = simulate(jobs, PuppetConfig(machine_nodes=4, node_watts=100))
>>> list(result.jobs["start"])
[0.0, 100.0, 200.0]
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

import pandas as pd

from cpn import Net, Simulator, StopReason, timed
from cpn.monitors import PlaceIntegral
from modules.allocation import power_allocation
from modules.cpu_scaling import CpuScaling, cpu_scaling
from modules.batch_scheduling import (P_FINISH, TRIGGER_FUSION, SchedulingConfig,
                                      batch_scheduling)
from modules.job import Job
from modules.metrics import summary_metrics
from modules.power import PowerModel
from modules.power_capping import PowerCap


def remove_running(running: dict, job_id: int) -> dict:
    """Runtime Info without the entry of ``job_id``."""
    running = dict(running)
    del running[job_id]
    return running


@dataclass(frozen=True)
class PuppetConfig:
    """A PuPPET model: the machine, its power, and batch scheduling.

    ``node_watts`` is a node's power at full speed; idle nodes draw
    ``idle_fraction`` of it (PuPPET section 5: 30 %); ``core_share`` of a
    job's power scales with frequency as f^``alpha`` (section 2.2).
    ``cap`` chooses the power capping: none (the default), power-aware
    allocation (``PowerCap``: BLOCK or WAIT) or DVFS (``CpuScaling``).
    """

    machine_nodes: int
    node_watts: float = 65_760 / 1024  # Mira: 65.76 kW per 1,024-node rack
    idle_fraction: float = 0.3
    scheduling: SchedulingConfig = field(default_factory=SchedulingConfig)
    cap: PowerCap | CpuScaling = field(default_factory=PowerCap)  # no cap by default
    alpha: float = 2.0
    core_share: float = 0.65

    def __post_init__(self):
        if self.machine_nodes <= 0:
            raise ValueError(f"machine size must be a positive number of nodes, "
                             f"not {self.machine_nodes}")
        self.power  # validates

    @property
    def power(self) -> PowerModel:
        return PowerModel(self.node_watts, self.idle_fraction, self.core_share, self.alpha)

    @property
    def cap_watts(self) -> float:
        return self.cap.cap_watts


def build_net(config: PuppetConfig) -> Net:
    """The PuPPET net for ``config``; jobs are the marking of
    ``Scheduler/User`` (see :func:`simulate`)."""
    return compose("PuPPET", config, started="Running", ended="Running")


def compose(name: str, config: PuppetConfig, started: str, ended: str,
            scheduler: Net | None = None, allocation: Net | None = None) -> Net:
    """The states of Fig. 4, the scheduling and allocation modules, and
    *Finish*.  Allocation puts each starting job in place ``started``;
    *Finish* takes ended jobs from place ``ended``.  In PuPPET both are
    *Running* (a job's token is delayed by its runtime); TOPPER puts its
    fault tolerance module between two different places.

    Other policies plug in as modules with the same ports: ``scheduler``
    (ports Queuing, RuntimeInfo, Nodes, Selected) replaces batch
    scheduling, ``allocation`` (ports Selected, Queuing, Nodes, Power,
    RuntimeInfo, Running) replaces the one ``config.cap`` chooses."""
    net = Net(name, env={"busy_delta": config.power.busy_delta,
                         "remove_running": remove_running})
    net.place("Queuing", tuple, initial=[()])
    net.place("Power", float, initial=[config.power.idle_system(config.machine_nodes)])
    net.place("RuntimeInfo", dict, initial=[{}])
    net.place("Nodes", int, initial=[config.machine_nodes])
    net.place("Selected", tuple, initial=[()])
    net.place("Finished", tuple)
    net.place("Trigger", bool, initial=[False], fusion=TRIGGER_FUSION)
    for place in dict.fromkeys((started, ended)):
        net.place(place, Job, timed=True)

    net.substitution("Scheduler", scheduler or batch_scheduling(config.scheduling), {
        "Queuing": "Queuing", "RuntimeInfo": "RuntimeInfo", "Nodes": "Nodes",
        "Selected": "Selected"})
    if allocation is None:
        allocation = default_allocation(config, fault_tolerant=started != ended)
    net.substitution("Allocation", allocation, {
        "Selected": "Selected", "Queuing": "Queuing", "Nodes": "Nodes", "Power": "Power",
        "RuntimeInfo": "RuntimeInfo", "Running": started})

    net.transition("Finish", priority=P_FINISH,
                   inputs={ended: "job", "Nodes": "free", "Power": "watts",
                           "RuntimeInfo": "running", "Trigger": "signal"},
                   outputs={"Nodes": "free + job.js", "Power": "watts - busy_delta(job)",
                            "RuntimeInfo": "remove_running(running, job.id)",
                            "Trigger": "True", "Finished": "(job, now)"})
    return net


def default_allocation(config: PuppetConfig, fault_tolerant: bool) -> Net:
    """The allocation module ``config.cap`` asks for: power-aware (none,
    BLOCK, WAIT) or CPU scaling.  Under fault tolerance a started job's
    token is not delayed: that module decides when it ends."""
    estimate = config.scheduling.estimate
    if isinstance(config.cap, CpuScaling):
        return cpu_scaling(config.power, config.cap, estimate, retime_jobs=not fault_tolerant)
    return power_allocation(config.power, config.cap, estimate,
                            runtime="0" if fault_tolerant else "job.rt")


@dataclass
class PuppetResult:
    """Per-job records, the power series, and the summary metrics."""

    jobs: pd.DataFrame  # job_id, submit, start, end, nodes, power (+ wait, runtime)
    power_times: list[float]
    power_watts: list[float]
    end: float
    metrics: dict
    energy_step: dict[float, float]  # step (s) -> fixed-step energy estimate (J)
    interrupted: bool = False


def job_records(finished: Sequence[tuple[Job, float]], time_offset: float = 0.0) -> pd.DataFrame:
    """Flat per-job records; times shifted back by ``time_offset`` so they
    read as in the trace."""
    rows = [(job.id, job.st + time_offset, job.et + time_offset, end + time_offset,
             job.js, job.jp, job.wt, job.rt) for job, end in finished]
    frame = pd.DataFrame(rows, columns=["job_id", "submit", "start", "end", "nodes",
                                        "power", "requested", "runtime"])
    return frame.sort_values("job_id", kind="stable").reset_index(drop=True)


def simulate(jobs: Sequence[Job], config: PuppetConfig, seed: int = 0,
             energy_steps: Sequence[float] = (), time_offset: float = 0.0,
             progress: Callable[[float, int], None] | None = None,
             chunk: float = 86_400.0) -> PuppetResult:
    """Run the PuPPET net over ``jobs`` until every job has finished.

    ``energy_steps`` (seconds) adds the paper's fixed-step energy estimates
    beside the exact integral.  ``progress(now, finished)`` is called every
    ``chunk`` simulated seconds; a ``KeyboardInterrupt`` stops the run and
    returns what finished so far, marked ``interrupted``.
    """
    result, _ = run_model(build_net(config), jobs, config, seed, energy_steps,
                          time_offset, progress, chunk)
    return result


def run_model(net: Net, jobs: Sequence[Job], config: PuppetConfig, seed: int = 0,
              energy_steps: Sequence[float] = (), time_offset: float = 0.0,
              progress: Callable[[float, int], None] | None = None,
              chunk: float = 86_400.0, monitors: Sequence = ()) -> tuple[PuppetResult, Simulator]:
    """Run a net built by :func:`compose` (see :func:`simulate`); also
    returns the simulator, for the places a richer model adds.  Extra
    ``monitors`` (``cpn.monitors``) are attached before the run."""
    too_big = [job.id for job in jobs if job.js > config.machine_nodes]
    if too_big:
        raise ValueError(f"{len(too_big)} jobs need more than the machine's "
                         f"{config.machine_nodes} nodes (first: {too_big[:5]})")
    sim = Simulator(net, seed=seed, marking={
        "Scheduler/User": [timed(job, job.st) for job in jobs]})
    for monitor in monitors:
        sim.add_monitor(monitor)
    exact = sim.add_monitor(PlaceIntegral("Power", lambda tokens: tokens[0], record=True))
    estimates = {step: sim.add_monitor(PlaceIntegral("Power", lambda tokens: tokens[0],
                                                     step=step))
                 for step in energy_steps}
    finished = sim.view("Finished")
    interrupted = False
    try:
        while True:
            result = sim.run(until_time=sim.now + chunk)
            if progress is not None:
                progress(sim.now, len(finished))
            if result.reason is StopReason.DEAD:
                break
    except KeyboardInterrupt:
        interrupted = True
    records = job_records(sim.tokens("Finished"), time_offset)
    metrics = (summary_metrics(records, exact.times, exact.values, sim.now,
                               config.machine_nodes) if len(records) else {})
    metrics.update({f"energy_step_{step:g}s_j": m.sampled for step, m in estimates.items()})
    metrics["rejected_jobs"] = 0
    metrics["config"] = {**asdict(config)}
    return PuppetResult(records, [t + time_offset for t in exact.times], exact.values,
                        sim.now + time_offset, metrics,
                        {step: m.sampled for step, m in estimates.items()},
                        interrupted), sim
