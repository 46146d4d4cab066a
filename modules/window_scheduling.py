"""Data-driven power-aware scheduling: the window scheduler (Wallace et
al., sections IV and VI), a module of the PuPPET net that plugs into
:func:`nets.puppet.compose` as ``scheduler=``.

Jobs enter the queue on submission, then a *sticky window* of ``w`` jobs
(20) taken from the head of the queue in FCFS or WFP order: a job stays in
the window until it starts, whatever the queue's order later says.
*Schedule* fills the window and solves a 0-1 knapsack over it
(``knapsack.py``): the subset using the most nodes whose estimated power
fits ``Pcap(now) - P_used`` (``power_cap_schedule.py``) and whose nodes
fit the free ones.  It repeats (refill, solve) while jobs start.
``P_used`` and each job's power are the learner's estimates
(``power_learning.py``; ``data_driven_allocation.measured_allocation``
teaches it), not the measured *Power* (the paper's eq. 2); with
``WindowConfig(budget="measured")`` ``P_used`` is the measured *Power*
instead (idle nodes and running jobs at their true power), the jobs to
start still planned by their estimates.  Jobs in the window are tokens of
its *Window* place, no longer of *Queuing*; each start leaves a
:class:`Decision` record in *Decisions* (the estimate it was planned with,
and its source).

Deadlock (section VIII-B): when every job in the window would break the
cap alone (on an otherwise idle machine, by its estimate), and the window
is full, the first job that entered it runs anyway (``deadlock=
"run_first"``), at most one per pass; with ``deadlock="wait"`` it waits
for the cap to rise.  The paper speaks of a full window only; a window
that cannot fill (the end of a trace) would then wait for ever on an idle
machine, so an idle machine counts as deadlocked too.

When it runs is the policy's ``over_cap`` rule.  ``"reject"`` (the
default, with jobs whose true power alone breaks the cap rejected before
the run, ``nets.data_driven``): once nothing else runs, so the cap holds
(an estimate may say the job breaks the cap alone, but its true power
does not).  ``"run"`` (the paper's: "the first job which entered the
window is allowed to temporarily violate the cap and run"): as soon as
its nodes are free, whatever runs beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple, Sequence

from cpn import Net

from .batch_scheduling import P_SCHEDULE, SchedulingConfig, scheduler_base
from .easy import order_queue
from .job import Job
from .knapsack import SOLVERS, knapsack_eq2
from .power import PowerModel
from .power_cap_schedule import PowerCapSchedule, add_power_cap
from .power_learning import LearnerConfig, PowerLearner, RunningEstimates

__all__ = ["WindowConfig", "Decision", "WindowPolicy", "fill_window", "window_scheduling",
           "LEARNER_FUSION", "ESTIMATES_FUSION", "OVER_CAP_RULES", "BUDGETS"]

#: The fusion sets that the scheduler shares with ``measured_allocation``.
LEARNER_FUSION = "power_learner"
ESTIMATES_FUSION = "power_estimates"
DEADLOCK_RULES = ("run_first", "wait")
#: What becomes of jobs whose power alone breaks the cap: rejected before
#: the run, a deadlock then waiting for an idle machine (the cap holds), or
#: run, a deadlock breaking the cap at once (the paper's rule).
OVER_CAP_RULES = ("reject", "run")
#: What the knapsack's budget subtracts from the cap for the running jobs:
#: their estimates (the paper's eq. 2) or the measured power.
BUDGETS = ("estimates", "measured")


@dataclass(frozen=True)
class WindowConfig:
    """Section VI: the window size ``w`` (20), the knapsack ``solver``
    (``"exact"``; ``"eq2"`` the paper's eq. 2 as printed, with powers in
    whole ``power_unit`` watts; ``"in_order"`` one by one from the window's
    head), the ``deadlock`` rule (``"run_first"``, section VIII-B, or
    ``"wait"``), and the ``budget``: the cap minus the idle nodes and the
    running jobs' estimates (``"estimates"``, eq. 2) or minus the measured
    system power (``"measured"``)."""

    size: int = 20
    solver: str = "exact"
    deadlock: str = "run_first"
    power_unit: float = 1000.0
    budget: str = "estimates"

    def __post_init__(self):
        if self.size < 1:
            raise ValueError(f"the window holds at least one job, not {self.size}")
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {tuple(SOLVERS)}, not {self.solver!r}")
        if self.deadlock not in DEADLOCK_RULES:
            raise ValueError(f"deadlock must be one of {DEADLOCK_RULES}, not {self.deadlock!r}")
        if not self.power_unit > 0:
            raise ValueError(f"power_unit must be positive, not {self.power_unit}")
        if self.budget not in BUDGETS:
            raise ValueError(f"budget must be one of {BUDGETS}, not {self.budget!r}")


class Decision(NamedTuple):
    """A job started by the window scheduler: when, the estimate it was
    planned with (watts per node) and its source, and whether it ran by the
    deadlock rule."""

    time: float
    job_id: int
    source: str
    watts_per_node: float
    deadlock: bool


def fill_window(window: tuple[Job, ...], queue: tuple[Job, ...], size: int, policy: str,
                now: float, estimate: str) -> tuple[tuple[Job, ...], tuple[Job, ...]]:
    """Move jobs from the head of the queue (in ``policy`` order) into the
    window until it holds ``size``; the queue left keeps arrival order."""
    room = size - len(window)
    if room <= 0 or not queue:
        return window, queue
    if policy == "fcfs":
        return window + queue[:room], queue[room:]
    entering = order_queue(queue, policy, now, estimate)[:room]
    ids = {job.id for job in entering}
    return window + tuple(entering), tuple(job for job in queue if job.id not in ids)


@dataclass(frozen=True)
class WindowPolicy:
    """One scheduling pass of the window scheduler, as a plain function
    (called by *Schedule*)."""

    window: WindowConfig
    power: PowerModel
    machine_nodes: int
    policy: str = "fcfs"
    estimate: str = "requested"
    over_cap: str = "reject"

    def solve(self, nodes: Sequence[int], weights: Sequence[float], free: int,
              budget: float) -> tuple[int, ...]:
        if self.window.solver == "eq2":
            return knapsack_eq2(nodes, weights, free, budget, self.window.power_unit)
        return SOLVERS[self.window.solver](nodes, weights, free, budget)

    def __call__(self, window: tuple[Job, ...], queue: tuple[Job, ...],
                 running: Mapping[int, tuple], free: int, estimates: RunningEstimates,
                 learner: PowerLearner, cap: float, now: float, watts: float):
        """``(started, window, queue, estimates, decisions)``; ``watts``:
        the measured system power."""
        estimates = estimates.pruned(running)
        idle = self.power.idle_node_watts
        used = watts if self.window.budget == "measured" else idle * free + estimates.total
        budget = cap - used
        idle_machine = self.power.idle_system(self.machine_nodes)
        started: list[Job] = []
        decisions: list[Decision] = []
        while True:
            window, queue = fill_window(window, queue, self.window.size, self.policy, now,
                                        self.estimate)
            if not window:
                break
            profiles = [learner.estimate(job) for job in window]
            weights = [(watts - idle) * job.js for job, (watts, _) in zip(window, profiles)]
            chosen = self.solve([job.js for job in window], weights, free, budget)
            deadlock = False
            if not chosen:
                stuck = (self.window.deadlock == "run_first"
                         and (len(window) == self.window.size or not running and not started)
                         and all(idle_machine + weight > cap for weight in weights))
                alone = not running and not started
                if (not stuck or window[0].js > free
                        or (self.over_cap == "reject" and not alone)):
                    break
                chosen, deadlock = (0,), True
            for index in chosen:
                job = window[index]
                watts, source = profiles[index]
                started.append(job)
                free -= job.js
                budget -= weights[index]
                estimates = estimates.started(job, watts, source)
                decisions.append(Decision(now, job.id, source, watts, deadlock))
            taken = set(chosen)
            window = tuple(job for index, job in enumerate(window) if index not in taken)
            if deadlock:
                break
        return started, window, queue, estimates, decisions


def window_scheduling(scheduling: SchedulingConfig, window: WindowConfig, power: PowerModel,
                      machine_nodes: int, cap: PowerCapSchedule,
                      learner: PowerLearner | LearnerConfig | None = None,
                      over_cap: str = "reject") -> Net:
    """The window scheduler; ports Queuing, Runtime Info, Nodes and
    Selected, like ``batch_scheduling``, and reads Power.  ``learner``: the initial learner
    (or its configuration); pair it with :func:`measured_allocation`, which
    teaches it.  ``over_cap``: when a deadlocked window's first job runs
    (see the module docstring)."""
    if over_cap not in OVER_CAP_RULES:
        raise ValueError(f"over_cap must be one of {OVER_CAP_RULES}, not {over_cap!r}")
    if not isinstance(learner, PowerLearner):
        learner = PowerLearner(learner or LearnerConfig())
    select = WindowPolicy(window, power, machine_nodes, scheduling.policy, scheduling.estimate,
                          over_cap)
    module = Net("WindowScheduling", env={"select": select})
    scheduler_base(module, overrun=scheduling.overrun)
    module.place("Window", tuple, initial=[()])
    module.place("Learner", PowerLearner, initial=[learner], fusion=LEARNER_FUSION)
    module.place("Estimates", RunningEstimates, initial=[RunningEstimates()],
                 fusion=ESTIMATES_FUSION)
    module.place("Decisions", Decision)
    module.place("Power", float, port="inout")
    add_power_cap(module, cap)

    module.transition("Schedule", priority=P_SCHEDULE[scheduling.trigger], code=(
        "started, window2, queue2, estimates2, decisions = "
        "select(window, queue, running, free, estimates, learner, cap, now, watts)"))
    for place, variable in (("Trigger", "True"), ("Queuing", "queue"), ("Window", "window"),
                            ("RuntimeInfo", "running"), ("Nodes", "free"),
                            ("Estimates", "estimates"), ("Learner", "learner"),
                            ("Cap", "cap"), ("Power", "watts"),
                            ("Selected", "()")):
        module.arc(place, "Schedule", variable)
    for place, inscription in (("Trigger", "False"), ("Queuing", "queue2"),
                               ("Window", "window2"), ("RuntimeInfo", "running"),
                               ("Nodes", "free"), ("Estimates", "estimates2"),
                               ("Learner", "learner"), ("Cap", "cap"), ("Power", "watts"),
                               ("Selected", "tuple(started)"), ("Decisions", "*decisions")):
        module.arc("Schedule", place, inscription)
    return module
