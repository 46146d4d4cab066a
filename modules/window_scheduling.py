"""Data-driven power-aware scheduling as modules of the PuPPET net
(Wallace et al., sections IV-VI and VIII-B).

Three modules plug into :func:`nets.puppet.compose` through its sockets:

:func:`window_scheduling` (``scheduler=``)
    Jobs enter the queue on submission, then a *sticky window* of ``w``
    jobs (20) taken from the head of the queue in FCFS or WFP order: a job
    stays in the window until it starts, whatever the queue's order later
    says.  *Schedule* fills the window and solves a 0-1 knapsack over it
    (``knapsack.py``): the subset using the most nodes whose estimated power
    fits ``Pcap(now) - P_used`` and whose nodes fit the free ones.  It
    repeats (refill, solve) while jobs start.  ``P_used`` and each job's
    power are the learner's estimates (``power_learning.py``), not the
    measured *Power*.  Jobs in the window are tokens of its *Window* place,
    no longer of *Queuing*; each start leaves a :class:`Decision` record in
    *Decisions* (the estimate it was planned with, and its source).

    Deadlock (section VIII-B): when every job in the window would break
    the cap alone (on an otherwise idle machine, by its estimate), and the
    window is full, the first job that entered it runs anyway once its
    nodes are free (``deadlock="run_first"``), at most one per pass; with
    ``deadlock="wait"`` it waits for the cap to rise.  The paper speaks of a
    full window only; a window that cannot fill (the end of a trace) would
    then wait for ever on an idle machine, so an idle machine counts as
    deadlocked too.

:func:`measured_allocation` (``allocation=``)
    Starts the selected jobs at once (the scheduler already checked power)
    and samples each running job every ``period`` (on a common grid from
    time 0, as a monitoring system polls every rack at once): a timed
    :class:`~modules.power_learning.PowerSample` token per job, available
    at the end of the period it measures.  *Learn* takes it, updates the
    job's estimate (t-test after ``min_samples``), raises *Trigger* when
    the estimate fell (power was freed), emits the next sample while the
    job still runs a whole period, and hands the run to the learner after
    the last one.  One firing per job per period.

:func:`naive_allocation` (``allocation=``, with PuPPET's batch scheduling)
    The paper's baseline: jobs leave the head of the queue one by one and
    each new job is assumed to draw the machine maximum; the system's
    measured power is known.  The head job starts when that keeps power at
    or under the cap, else it and its successors go back to the queue
    (``rule="block"``: PuPPET's BLOCK with every job at peak power), or it
    alone and the next selected job is tried (``"skip"``).  A job that
    alone breaks the cap starts when nothing else runs.

The cap is a step function ``Pcap(t)`` (:class:`PowerCapSchedule`): its
changes are timed tokens that a *ChangeCap* transition moves into the
*Cap* place, raising *Trigger* so scheduling sees the new cap at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple, Sequence

import numpy as np

from cpn import Delayed, Net, timed

from .allocation import allocation_ports
from .batch_scheduling import (P_ALLOCATE, P_FINISH, P_SCHEDULE, TRIGGER_FUSION,
                               SchedulingConfig, scheduler_base)
from .easy import order_queue
from .job import Job
from .knapsack import SOLVERS, knapsack_eq2
from .power import PowerModel
from .power_capping import requeue
from .power_learning import (LearnerConfig, NoisyProfile, PowerLearner, PowerSample,
                             RunningEstimates, RunSamples, SampleTable)

__all__ = [
    "PowerCapSchedule", "WindowConfig", "Decision", "ProfileChange", "WindowPolicy",
    "Sampler", "fill_window", "window_scheduling", "measured_allocation",
    "naive_allocation", "NAIVE_RULES", "P_CAP_CHANGE", "P_LEARN", "LEARNER_FUSION", "ESTIMATES_FUSION",
]

#: A cap change first, then learning, then job ends (see batch_scheduling).
P_CAP_CHANGE = P_FINISH - 100
P_LEARN = P_FINISH - 50
LEARNER_FUSION = "power_learner"
ESTIMATES_FUSION = "power_estimates"
DEADLOCK_RULES = ("run_first", "wait")


@dataclass(frozen=True)
class PowerCapSchedule:
    """``Pcap(t)``, a step function: ``steps`` are ``(time, watts)`` pairs,
    times increasing from 0; each value holds until the next time.

    >>> cap = PowerCapSchedule.of((0, 2e6), (100, 3e6), (200, 4e6), (300, 2e6))
    >>> cap.at(99.0), cap.at(100.0), cap.at(1e9)
    (2000000.0, 3000000.0, 2000000.0)
    """

    steps: tuple[tuple[float, float], ...] = ((0.0, math.inf),)

    def __post_init__(self):
        steps = tuple((float(t), float(w)) for t, w in self.steps)
        object.__setattr__(self, "steps", steps)
        if not steps or steps[0][0] != 0.0:
            raise ValueError(f"a cap schedule starts at time 0, not {steps[:1]}")
        times = [t for t, _ in steps]
        if any(b <= a for a, b in zip(times, times[1:])):
            raise ValueError(f"cap schedule times must increase: {times}")
        if not all(w > 0 for _, w in steps):
            raise ValueError(f"caps must be positive watts: {[w for _, w in steps]}")

    @classmethod
    def constant(cls, watts: float) -> "PowerCapSchedule":
        return cls(((0.0, watts),))

    @classmethod
    def of(cls, *steps: tuple[float, float]) -> "PowerCapSchedule":
        return cls(tuple(steps))

    @property
    def initial(self) -> float:
        return self.steps[0][1]

    @property
    def changes(self) -> tuple[tuple[float, float], ...]:
        return self.steps[1:]

    @property
    def capped(self) -> bool:
        return any(math.isfinite(w) for _, w in self.steps)

    def at(self, time: float) -> float:
        value = self.steps[0][1]
        for t, w in self.steps:
            if t > time:
                break
            value = w
        return value

    def at_times(self, times) -> np.ndarray:
        """The cap at each of ``times`` (after any change at that instant)."""
        starts = np.array([t for t, _ in self.steps])
        values = np.array([w for _, w in self.steps])
        return values[np.searchsorted(starts, np.asarray(times, dtype=float), side="right") - 1]


@dataclass(frozen=True)
class WindowConfig:
    """Section VI: the window size ``w`` (20), the knapsack ``solver``
    (``"exact"``; ``"eq2"`` the paper's eq. 2 as printed, with powers in
    whole ``power_unit`` watts; ``"in_order"`` one by one from the window's
    head), and the ``deadlock`` rule (``"run_first"``, section VIII-B, or
    ``"wait"``)."""

    size: int = 20
    solver: str = "exact"
    deadlock: str = "run_first"
    power_unit: float = 1000.0

    def __post_init__(self):
        if self.size < 1:
            raise ValueError(f"the window holds at least one job, not {self.size}")
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {tuple(SOLVERS)}, not {self.solver!r}")
        if self.deadlock not in DEADLOCK_RULES:
            raise ValueError(f"deadlock must be one of {DEADLOCK_RULES}, not {self.deadlock!r}")
        if not self.power_unit > 0:
            raise ValueError(f"power_unit must be positive, not {self.power_unit}")


class Decision(NamedTuple):
    """A job started by the window scheduler: when, the estimate it was
    planned with (watts per node) and its source, and whether it ran by the
    deadlock rule."""

    time: float
    job_id: int
    source: str
    watts_per_node: float
    deadlock: bool


class ProfileChange(NamedTuple):
    """A running job's estimate changed after ``samples`` samples."""

    time: float
    job_id: int
    source: str
    watts_per_node: float
    samples: int


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

    def solve(self, nodes: Sequence[int], weights: Sequence[float], free: int,
              budget: float) -> tuple[int, ...]:
        if self.window.solver == "eq2":
            return knapsack_eq2(nodes, weights, free, budget, self.window.power_unit)
        return SOLVERS[self.window.solver](nodes, weights, free, budget)

    def __call__(self, window: tuple[Job, ...], queue: tuple[Job, ...],
                 running: Mapping[int, tuple], free: int, estimates: RunningEstimates,
                 learner: PowerLearner, cap: float, now: float):
        """``(started, window, queue, estimates, decisions)``."""
        estimates = estimates.pruned(running)
        idle = self.power.idle_node_watts
        budget = cap - (idle * free + estimates.total)
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
                if not stuck or window[0].js > free:
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


@dataclass(frozen=True)
class Sampler:
    """Samples running jobs and feeds the learner (the *Learn* transition)."""

    config: LearnerConfig
    source: NoisyProfile | SampleTable = field(default_factory=NoisyProfile)

    def first(self, job: Job, rng) -> list:
        """The first sample token of a job that starts now (``job.et``).
        Samples are taken on a common grid, every ``period`` from time 0
        (a monitoring system polls all racks at once); a sample covers a
        whole period of the job's run, so the first one measures the first
        grid period after the start."""
        period = self.config.period
        first = (math.ceil(job.et / period) + 1) * period
        if first > job.et + job.rt:
            return []
        value = self.source.value(job, 0, rng)
        if value is None:
            return []
        return [Delayed(PowerSample(job, 1, value, RunSamples()), first - job.et)]

    def learn(self, sample: PowerSample, learner: PowerLearner,
              estimates: RunningEstimates, now: float, rng):
        """``(learner, estimates, freed, following, changes)``: ``freed``
        when the job's estimate fell, ``following`` the next sample token."""
        config, job = self.config, sample.job
        run = sample.run.add(sample.value, config.window)
        freed, changes = False, ()
        current = estimates.by_id.get(job.id)
        if current is not None:
            decision = learner.decide(job, run)
            if decision is not None and decision != current[:2]:
                estimates = estimates.changed(job.id, *decision)
                freed = decision[0] < current[0]
                changes = (ProfileChange(now, job.id, decision[1], decision[0], run.n),)
        following = ()
        if now + config.period <= job.et + job.rt:
            value = self.source.value(job, sample.index, rng)
            if value is not None:
                following = (Delayed(PowerSample(job, sample.index + 1, value, run),
                                     config.period),)
        if not following:
            learner = learner.commit(job, run)
        return learner, estimates, freed, following, changes


def add_power_cap(module: Net, cap: PowerCapSchedule) -> None:
    """*Cap* (the current Pcap), *CapChanges* (the schedule's later steps as
    timed tokens) and *ChangeCap*, which raises *Trigger*; ``module`` must
    have the *Trigger* place."""
    module.place("Cap", float, initial=[cap.initial])
    module.place("CapChanges", float, timed=True,
                 initial=[timed(watts, at) for at, watts in cap.changes])
    module.transition("ChangeCap", priority=P_CAP_CHANGE)
    module.arc("CapChanges", "ChangeCap", "new")
    module.arc("Cap", "ChangeCap", "old")
    module.arc("Trigger", "ChangeCap", "signal")
    module.arc("ChangeCap", "Cap", "new")
    module.arc("ChangeCap", "Trigger", "True")


def window_scheduling(scheduling: SchedulingConfig, window: WindowConfig, power: PowerModel,
                      machine_nodes: int, cap: PowerCapSchedule,
                      learner: PowerLearner | LearnerConfig | None = None) -> Net:
    """The window scheduler; ports Queuing, Runtime Info, Nodes and
    Selected, like ``batch_scheduling``.  ``learner``: the initial learner
    (or its configuration); pair it with :func:`measured_allocation`, which
    teaches it."""
    if not isinstance(learner, PowerLearner):
        learner = PowerLearner(learner or LearnerConfig())
    select = WindowPolicy(window, power, machine_nodes, scheduling.policy, scheduling.estimate)
    module = Net("WindowScheduling", env={"select": select})
    scheduler_base(module, overrun=scheduling.overrun)
    module.place("Window", tuple, initial=[()])
    module.place("Learner", PowerLearner, initial=[learner], fusion=LEARNER_FUSION)
    module.place("Estimates", RunningEstimates, initial=[RunningEstimates()],
                 fusion=ESTIMATES_FUSION)
    module.place("Decisions", Decision)
    add_power_cap(module, cap)

    module.transition("Schedule", priority=P_SCHEDULE[scheduling.trigger], code=(
        "started, window2, queue2, estimates2, decisions = "
        "select(window, queue, running, free, estimates, learner, cap, now)"))
    for place, variable in (("Trigger", "True"), ("Queuing", "queue"), ("Window", "window"),
                            ("RuntimeInfo", "running"), ("Nodes", "free"),
                            ("Estimates", "estimates"), ("Learner", "learner"),
                            ("Cap", "cap"), ("Selected", "()")):
        module.arc(place, "Schedule", variable)
    for place, inscription in (("Trigger", "False"), ("Queuing", "queue2"),
                               ("Window", "window2"), ("RuntimeInfo", "running"),
                               ("Nodes", "free"), ("Estimates", "estimates2"),
                               ("Learner", "learner"), ("Cap", "cap"),
                               ("Selected", "tuple(started)"), ("Decisions", "*decisions")):
        module.arc("Schedule", place, inscription)
    return module


def _allocation_places(module: Net) -> None:
    allocation_ports(module)
    module.place("Trigger", bool, fusion=TRIGGER_FUSION)


def _start_outputs(estimate: str) -> dict[str, str]:
    planned = f"job.estimate({estimate!r})"
    return {"Nodes": "free - job.js", "Power": "watts + busy_delta(job)",
            "RuntimeInfo": f"{{**running, job.id: (now + {planned}, job.js)}}",
            "Running": "job@+job.rt"}


def measured_allocation(power: PowerModel, estimate: str, sampler: Sampler) -> Net:
    """Starts every selected job now and samples it while it runs; ports
    Selected, Queuing, Nodes, Power, Runtime Info, Running."""
    module = Net("MeasuredAllocation", env={"busy_delta": power.busy_delta,
                                            "sampler": sampler})
    _allocation_places(module)
    module.place("PowerSamples", PowerSample, timed=True)
    module.place("Learner", PowerLearner, fusion=LEARNER_FUSION)
    module.place("Estimates", RunningEstimates, fusion=ESTIMATES_FUSION)
    module.place("ProfileChanges", ProfileChange)

    module.transition("Allocate", priority=P_ALLOCATE, guard="sel",
                      code="job = sel[0]._replace(et=now)\nfirst = sampler.first(job, rng)")
    for place, variable in (("Selected", "sel"), ("Nodes", "free"), ("Power", "watts"),
                            ("RuntimeInfo", "running")):
        module.arc(place, "Allocate", variable)
    module.arc("Allocate", "Selected", "sel[1:]")
    for place, inscription in _start_outputs(estimate).items():
        module.arc("Allocate", place, inscription)
    module.arc("Allocate", "PowerSamples", "*first")

    module.transition("Learn", priority=P_LEARN, code=(
        "learner2, estimates2, freed, following, changes = "
        "sampler.learn(sample, learner, estimates, now, rng)"))
    for place, variable in (("PowerSamples", "sample"), ("Learner", "learner"),
                            ("Estimates", "estimates"), ("Trigger", "signal")):
        module.arc(place, "Learn", variable)
    for place, inscription in (("PowerSamples", "*following"), ("Learner", "learner2"),
                               ("Estimates", "estimates2"), ("Trigger", "signal or freed"),
                               ("ProfileChanges", "*changes")):
        module.arc("Learn", place, inscription)
    return module


@dataclass(frozen=True)
class NaiveRule:
    """The naive test: measured power plus the job at peak power per node."""

    power: PowerModel
    max_node_watts: float

    def fits(self, job: Job, watts: float, running: Mapping, cap: float) -> bool:
        delta = job.js * (self.max_node_watts - self.power.idle_node_watts)
        return watts + delta <= cap or not running


NAIVE_RULES = ("block", "skip")


def naive_allocation(power: PowerModel, estimate: str, cap: PowerCapSchedule,
                     max_node_watts: float, rule: str = "block") -> Net:
    """The naive capping baseline (section VIII-C); ports as
    :func:`measured_allocation`.  Use with PuPPET's batch scheduling.
    ``rule``: a selected job that would break the cap goes back to the
    queue with every job behind it (``"block"``: strictly one by one from
    the head) or alone, the next selected job being tried (``"skip"``: the
    power test joins the node test of a scheduler that lets later jobs
    pass)."""
    if rule not in NAIVE_RULES:
        raise ValueError(f"naive rule must be one of {NAIVE_RULES}, not {rule!r}")
    fits = NaiveRule(power, max_node_watts).fits
    module = Net("NaiveAllocation", env={"busy_delta": power.busy_delta, "fits": fits,
                                         "requeue": requeue})
    _allocation_places(module)
    add_power_cap(module, cap)
    state = {"Selected": "sel", "Nodes": "free", "Power": "watts", "RuntimeInfo": "running",
             "Cap": "cap"}
    module.transition("Allocate", priority=P_ALLOCATE, code="job = sel[0]._replace(et=now)",
                      guard="sel and sel[0].js <= free and fits(sel[0], watts, running, cap)")
    module.transition("Hold", priority=P_ALLOCATE,
                      guard="sel and (sel[0].js > free or not fits(sel[0], watts, running, cap))")
    for name in ("Allocate", "Hold"):
        for place, variable in state.items():
            module.arc(place, name, variable)
        module.arc(name, "Cap", "cap")
    module.arc("Allocate", "Selected", "sel[1:]")
    for place, inscription in _start_outputs(estimate).items():
        module.arc("Allocate", place, inscription)
    module.arc("Queuing", "Hold", "queue")
    held = "sel" if rule == "block" else "sel[:1]"
    module.arc("Hold", "Selected", "()" if rule == "block" else "sel[1:]")
    module.arc("Hold", "Queuing", f"requeue(queue, {held})")
    for place in ("Nodes", "Power", "RuntimeInfo"):
        module.arc("Hold", place, state[place])
    return module
