"""The thesis' schedulers as modules of the PuPPET net (``nets.puppet.compose``).

:func:`thesis_scheduling` (``scheduler=``, ports Queuing, Runtime Info,
Nodes, Selected as ``batch_scheduling``): *Submit* queues each arriving job
and notes it in *Arrivals*; *Schedule*, after every submission and every
end (PuPPET's event trigger; ends first at equal times), calls the policy
with the queue, the arrivals since the last pass, *Runtime Info*, the free
CPUs, the time and the policy's own state (*PolicyState*: UPAS's
utilization meter).  The jobs it picks go to *Selected*, each with its gear
as ``pf``.

:func:`gear_allocation` (``allocation=``): starts each selected job at its
gear.  Its token gets its measured CPU power (eq. 3.12, ``jp``) and is
delayed by its runtime at the gear (eq. 3.1 with its own beta); *Runtime
Info* gets its planned end (requested time scaled with the beta the
scheduler plans with), CPUs and power; *Power* rises by its power over
that of idle CPUs.  The enclosing net's *Finish* undoes it.
"""

from __future__ import annotations

from cpn import Net

from ..allocation import allocation_ports
from ..batch_scheduling import P_ALLOCATE, P_SCHEDULE, P_SUBMIT, scheduler_base
from ..job import Job
from ..power import PowerModel
from .gears import CpuPowerModel
from .plan import Planner, RunningJob
from .profiles import JobProfile


def thesis_scheduling(policy) -> Net:
    """The scheduler module for ``policy`` (see ``easy.EasyBackfilling``)."""
    module = Net("ThesisScheduling", env={"schedule": policy})
    scheduler_base(module, submit=False)  # its Submit also notes arrivals
    module.place("Arrivals", tuple, initial=[()])
    state = policy.initial_state()  # None, or a policy's own immutable state
    module.place("PolicyState", type(state), initial=[state])

    module.transition("Submit", priority=P_SUBMIT,
                      inputs={"User": "job", "Queuing": "queue", "Arrivals": "new",
                              "Trigger": "signal"},
                      outputs={"Queuing": "queue + (job,)", "Arrivals": "new + (job,)",
                               "Trigger": "True"})
    module.transition(
        "Schedule", priority=P_SCHEDULE["event"],
        code="started, waiting, state2 = schedule(queue, new, running, free, now, state)",
        inputs={"Trigger": "True", "Queuing": "queue", "Arrivals": "new",
                "RuntimeInfo": "running", "Nodes": "free", "PolicyState": "state",
                "Selected": "()"},
        outputs={"Trigger": "False", "Queuing": "waiting", "Arrivals": "()",
                 "RuntimeInfo": "running", "Nodes": "free", "PolicyState": "state2",
                 "Selected": "tuple(started)"})
    return module


class GearExecution:
    """A started job's measured power and runtime at its gear (the model),
    and its planned end (the scheduler's view)."""

    def __init__(self, planner: Planner):
        self.planner = planner
        self.power: CpuPowerModel = planner.power

    def profile(self, job: Job) -> JobProfile:
        return self.planner.profile(job)

    def started(self, job: Job, now: float, free: int) -> Job:
        if job.js > free:
            raise RuntimeError(f"the scheduler started job {job.id} on {job.js} CPUs "
                               f"at {now} with only {free} free")
        profile, gear = self.profile(job), self.power.gear_of(job.pf)
        return job._replace(et=now, jp=self.power.job_watts(job.js, gear, profile.p,
                                                            profile.beta))

    def runtime(self, job: Job) -> float:
        return job.rt * self.power.coef(self.power.gear_of(job.pf), self.profile(job).beta)

    def running(self, job: Job, now: float) -> RunningJob:
        planned = self.planner.planned(job, self.power.gear_of(job.pf))
        return RunningJob(now + planned, job.js, job.jp)


def gear_allocation(planner: Planner, system: PowerModel) -> Net:
    """The allocation module; ``system`` is the enclosing net's power model
    (a CPU's power is its job's ``jp`` share; idle CPUs per the scenario)."""
    execution = GearExecution(planner)
    module = Net("GearAllocation", env={"execution": execution,
                                        "busy_delta": system.busy_delta})
    allocation_ports(module)
    module.transition(
        "Allocate", priority=P_ALLOCATE, guard="sel",
        code="job = execution.started(sel[0], now, free)",
        inputs={"Selected": "sel", "Nodes": "free", "Power": "watts",
                "RuntimeInfo": "running"},
        outputs={"Selected": "sel[1:]", "Nodes": "free - job.js",
                 "Power": "watts + busy_delta(job)",
                 "RuntimeInfo": "running | {job.id: execution.running(job, now)}",
                 "Running": "job@+execution.runtime(job)"})
    return module
