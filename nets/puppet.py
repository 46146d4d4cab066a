"""PuPPET: batch scheduling and power on one net (PuPPET paper, Fig. 4).

The top level holds the five states of Fig. 4 — *Queuing*, *Running*,
*Power*, *Runtime Info*, *Nodes* — plus *Selected* (jobs the scheduler
picked, waiting for allocation), *Finished* (per-job records) and the
*Trigger* fusion place.  Its modules come in through substitution
transitions: batch scheduling (``modules/batch_scheduling.py``) and
allocation (``modules/allocation.py``); power capping and CPU scaling plug
in through the same sockets.  *Finish* ends a job at its timestamp: its
nodes return idle, power drops, and scheduling is triggered.  Every token
is immutable and hashable (*Runtime Info* is one ``FrozenDict``, job id ->
planned end and nodes; ``docs/tokens.md`` says why), so the net has a
state space.

>>> from modules.job import Job
>>> jobs = [Job(1, 0, 100, 3, 100), Job(2, 1, 100, 4, 100), Job(3, 2, 1000, 1, 1000)]
>>> result = simulate(jobs, PuppetConfig(machine_nodes=4, node_watts=100))
>>> list(result.jobs["start"])
[0.0, 100.0, 200.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from cpn import Net, Simulator, StopReason, timed
from cpn.collector import cyclic_gc_paused
from cpn.interrupts import ctrl_c_requests
from cpn.colours import FrozenDict
from cpn.monitors import PlaceIntegral
from modules.allocation import power_allocation
from modules.cpu_scaling import CpuScaling, ScalingRules, cpu_scaling
from modules.batch_scheduling import (P_FINISH, TRIGGER_FUSION, SchedulingConfig,
                                      batch_scheduling, checked_answer)
from modules.easy import easy_pass_on_nodes
from modules.job import Job, checked_jobs, some_jobs
from modules.metrics import summary_metrics
from modules.power_profile import MIRA_NODE_WATTS
from modules.policy_record import config_record
from modules.power_cap_schedule import cap_in_force
from modules.power_steps import cap_excess, collapse_step_series, energy_fixed_step
from modules.power import PowerModel
from modules.power_capping import (OVER_CAP, AllocationRules, PowerCap, over_cap_alone,
                                   requeue)
from modules.tables import row_count
from modules.values import checked_run_options, is_number, is_whole_number

from .puppet_results import PuppetResult, job_table, rejected_records, unfinished_records

#: What the environments of PuPPET nets name besides plain values: the
#: registry a PuPPET net is saved and loaded with (``net.save(path,
#: FUNCTIONS)``, ``cpn.load(path, functions=FUNCTIONS)``), so a data file
#: names these and never carries code.
FUNCTIONS = {f.__name__: f for f in (easy_pass_on_nodes, checked_answer, requeue, Job,
                                     PowerModel, PowerCap, AllocationRules, CpuScaling,
                                     ScalingRules)}


@dataclass(frozen=True)
class PuppetConfig:
    """A PuPPET model: the machine, its power, and batch scheduling.

    ``node_watts`` is a node's power at full speed; idle nodes draw
    ``idle_fraction`` of it (PuPPET section 5: 30 %); ``core_share`` of a
    job's power scales with frequency as f^``alpha`` (section 2.2).
    ``cap`` chooses the power capping: none (the default), power-aware
    allocation (``PowerCap``: BLOCK or WAIT) or DVFS (``CpuScaling``).
    ``over_cap``: a job whose power alone exceeds the cap (at the lowest
    level under DVFS) is rejected before the run (``"reject"``, the
    default: the cap holds) or runs when nothing else does (``"run_alone"``:
    the cap breaks while it runs); see ``modules/power_capping.py``.
    """

    machine_nodes: int
    node_watts: float = MIRA_NODE_WATTS  # Mira: 65.76 kW per 1,024-node rack
    idle_fraction: float = 0.3
    scheduling: SchedulingConfig = field(default_factory=SchedulingConfig)
    cap: PowerCap | CpuScaling = field(default_factory=PowerCap)  # no cap by default
    alpha: float = 2.0
    core_share: float = 0.65
    over_cap: str = "reject"

    def __post_init__(self):
        if not (is_whole_number(self.machine_nodes) and self.machine_nodes > 0):
            raise ValueError(f"machine size must be a positive whole number of nodes, "
                             f"not {self.machine_nodes!r}")
        object.__setattr__(self, "machine_nodes", int(self.machine_nodes))  # numpy's: no int token
        for name in ("node_watts", "idle_fraction", "alpha", "core_share"):
            value = getattr(self, name)
            if not is_number(value):
                raise ValueError(f"{name} must be a number, not {value!r}")
        if not isinstance(self.cap, (PowerCap, CpuScaling)):
            raise ValueError(f"cap must be a PowerCap (BLOCK, WAIT) or a CpuScaling (DVFS), "
                             f"not {self.cap!r}")
        if not isinstance(self.scheduling, SchedulingConfig):
            raise ValueError(f"scheduling must be a SchedulingConfig, not {self.scheduling!r}")
        if self.over_cap not in OVER_CAP:
            raise ValueError(f"over_cap must be one of {OVER_CAP}, not {self.over_cap!r}")
        if not math.isfinite(self.machine_nodes * self.node_watts):  # else found at the end
            raise ValueError(f"node_watts {self.node_watts:g} on {self.machine_nodes} nodes "
                             "is no finite power")
        self.power  # validates

    @property
    def power(self) -> PowerModel:
        return PowerModel(self.node_watts, self.idle_fraction, self.core_share, self.alpha)

    @property
    def cap_watts(self) -> float:
        return self.cap.cap_watts

    def over_cap_alone(self, jobs: Sequence[Job]) -> list[Job]:
        """The ``jobs`` that break the cap even alone on an idle machine (at
        the lowest frequency level under DVFS)."""
        lowest = min(self.cap.levels) if isinstance(self.cap, CpuScaling) else 1.0
        return over_cap_alone(jobs, self.power, self.machine_nodes, self.cap_watts, lowest)

    def rejected_jobs(self, jobs: Sequence[Job]) -> list[Job]:
        """The jobs a run rejects: those over the cap alone, unless
        ``over_cap`` lets them run alone."""
        return self.over_cap_alone(jobs) if self.over_cap == "reject" else []


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
    (ports Queuing, RuntimeInfo, Nodes, Selected, and Power if it reads
    the system power) replaces batch scheduling, ``allocation`` (ports Selected, Queuing, Nodes, Power,
    RuntimeInfo, Running) replaces the one ``config.cap`` chooses."""
    net = Net(name, env={"busy_delta": config.power.busy_delta})
    net.place("Queuing", tuple, initial=[()])
    net.place("Power", float, initial=[config.power.idle_system(config.machine_nodes)])
    net.place("RuntimeInfo", FrozenDict, initial=[FrozenDict()])
    net.place("Nodes", int, initial=[config.machine_nodes])
    net.place("Selected", tuple, initial=[()])
    net.place("Finished", tuple)
    net.place("Trigger", bool, initial=[False], fusion=TRIGGER_FUSION)
    for place in dict.fromkeys((started, ended)):
        net.place(place, Job, timed=True)

    scheduler = scheduler or batch_scheduling(config.scheduling)
    sockets = {"Queuing": "Queuing", "RuntimeInfo": "RuntimeInfo", "Nodes": "Nodes",
               "Selected": "Selected"}
    if "Power" in scheduler.places:  # a scheduler that reads the measured power
        sockets["Power"] = "Power"
    net.substitution("Scheduler", scheduler, sockets)
    if allocation is None:
        allocation = default_allocation(config, fault_tolerant=started != ended)
    net.substitution("Allocation", allocation, {
        "Selected": "Selected", "Queuing": "Queuing", "Nodes": "Nodes", "Power": "Power",
        "RuntimeInfo": "RuntimeInfo", "Running": started})

    net.transition("Finish", priority=P_FINISH,
                   inputs={ended: "job", "Nodes": "free", "Power": "watts",
                           "RuntimeInfo": "running", "Trigger": "signal"},
                   outputs={"Nodes": "free + job.js", "Power": "watts - busy_delta(job)",
                            "RuntimeInfo": "running.without(job.id)",
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


def simulate(jobs: Sequence[Job], config: PuppetConfig, seed: int = 0,
             energy_steps: Sequence[float] = (), time_offset: float = 0.0,
             progress: Callable[[float, int], None] | None = None,
             chunk: float = 86_400.0, stop: Callable[[], bool] | None = None) -> PuppetResult:
    """Run the PuPPET net over ``jobs`` until every job has finished.

    ``energy_steps`` (seconds) adds the paper's fixed-step energy estimates
    beside the exact integral.  ``progress(now, finished)`` is called every
    ``chunk`` simulated seconds.  Ctrl-C, ``stop()`` turning true (checked
    every few thousand firings) or a ``KeyboardInterrupt`` raised by
    ``progress`` stops the run between two firings and returns what
    finished so far, marked ``interrupted``, and the jobs that had not.
    """
    if not isinstance(config, PuppetConfig):  # else an AttributeError of building the net
        raise ValueError(f"config must be a PuppetConfig, not {type(config).__name__}")
    result, _ = run_model(build_net(config), some_jobs(jobs), config, seed, energy_steps,
                          time_offset, progress, chunk, stop=stop)
    return result


#: Firings between two looks at a stop request: a few milliseconds.
FIRINGS_PER_CHECK = 10_000


@cyclic_gc_paused()  # the run's tokens and records: millions of tuples, no cycles
def run_model(net: Net, jobs: Sequence[Job], config: PuppetConfig, seed: int = 0,
              energy_steps: Sequence[float] = (), time_offset: float = 0.0,
              progress: Callable[[float, int], None] | None = None,
              chunk: float = 86_400.0, monitors: Sequence = (),
              stop: Callable[[], bool] | None = None) -> tuple[PuppetResult, Simulator]:
    """Run a net built by :func:`compose` (see :func:`simulate`); also
    returns the simulator, for the places a richer model adds.  Extra
    ``monitors`` (``cpn.monitors``) are attached before the run.

    The power series, and every metric over it, ends at the last job's end
    whatever the net does after (a superseded end that CPU scaling or
    fault tolerance left in *Running*, a node's shutdown, a later change
    of a power cap still move the clock), or where the run stopped.  Jobs
    over the cap alone are rejected first (``config.rejected_jobs``): they
    are listed in the result's ``rejected`` and counted in its metrics; a
    run of them all is refused.  No jobs are refused by the models'
    ``simulate`` (``modules.job.some_jobs``), not here: a model that rejects
    its own (``nets.data_driven``) may leave none.  The run is measured
    against the cap in force, the configuration's and the net's *Cap*
    places' (``power_cap_schedule.cap_in_force``); ``metrics["config"]``
    names a policy swapped in (``modules.policy_record``)."""
    energy_steps = checked_run_options(energy_steps, time_offset, chunk, progress, stop)
    jobs, rejected = _under_the_cap(checked_jobs(jobs, config.machine_nodes), config)
    cap = cap_in_force(net, config.cap_watts)  # the config's and the Cap places': checked now
    sim = Simulator(net, seed=seed, marking={
        "Scheduler/User": (timed(job, job.st) for job in jobs)})  # one at a time: no copy
    for monitor in monitors:
        sim.add_monitor(monitor)
    power = sim.add_monitor(PlaceIntegral("Power", lambda tokens: tokens[0], record=True))
    with ctrl_c_requests() as ctrl_c:
        interrupted = _run(sim, stop or ctrl_c, progress, chunk)
    finished = sim.tokens("Finished")
    end = sim.now if interrupted or not finished else max(end for _, end in finished)
    times, watts = ((power.times, power.values) if power.times
                    else ([sim.now], [sim.tokens("Power")[0]]))  # the clock never moved
    times, watts = collapse_step_series(times, watts, end)
    times, end = times + time_offset, end + time_offset
    records = job_table(finished, time_offset)
    metrics = (summary_metrics(records, times, watts, end, config.machine_nodes)
               if finished else {})
    if finished and cap is not None:  # run_alone, or a policy of one's own, breaks it: how much
        metrics["cap_exceeded_s"], metrics["cap_excess_max_w"] = cap_excess(
            times, watts, end, cap.on_clock(time_offset))
    estimates = {step: energy_fixed_step(times, watts, end, step) for step in energy_steps}
    metrics.update({f"energy_step_{step:g}s_j": joules for step, joules in estimates.items()})
    unfinished = unfinished_records(sim, jobs, time_offset)
    metrics["complete"] = not row_count(unfinished)
    metrics["unfinished_jobs"] = row_count(unfinished)
    metrics["rejected_jobs"] = len(rejected)
    metrics["config"] = config_record(net, config, cap, [
        default_allocation(config, fault_tolerant) for fault_tolerant in (False, True)])
    return PuppetResult(records, times.tolist(), watts.tolist(), end, metrics, estimates,
                        interrupted, unfinished, rejected_records(rejected, time_offset)), sim


def _under_the_cap(jobs: list[Job], config: PuppetConfig) -> tuple[list[Job], list[Job]]:
    """The jobs that run, and those rejected (over the cap alone); all
    rejected is refused: a run of nothing would look like a result."""
    rejected = config.rejected_jobs(jobs)
    if not rejected:
        return jobs, rejected
    if len(rejected) == len(jobs):
        raise ValueError(
            f"every one of the {len(jobs):,} jobs draws more than the power cap of "
            f"{config.cap_watts:,.0f} W alone (the idle machine draws "
            f"{config.power.idle_system(config.machine_nodes):,.0f} W): nothing would run")
    refused = {job.id for job in rejected}
    return [job for job in jobs if job.id not in refused], rejected


def _run(sim: Simulator, stop: Callable[[], bool],
         progress: Callable[[float, int], None] | None, chunk: float) -> bool:
    """Fire until the marking is dead (False) or a stop is asked for (True),
    calling ``progress`` every ``chunk`` simulated seconds in which
    something happens (a quiet year is one step, not 365)."""
    finished = sim.view("Finished")
    report_at = sim.now + chunk
    try:
        while True:
            outcome = sim.run(until_time=report_at, max_steps=FIRINGS_PER_CHECK)
            if outcome.reason is not StopReason.DEAD and stop():
                return True
            if outcome.reason is StopReason.STEPS:
                continue
            if progress is not None:
                progress(sim.now, len(finished))
            if outcome.reason is StopReason.DEAD:
                return False
            report_at = max(sim.now + chunk, sim.next_event_time() or 0.0)
    except KeyboardInterrupt:  # from ``progress``, or where Ctrl-C could not be deferred
        return True
