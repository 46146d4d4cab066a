"""The allocation modules of data-driven power-aware scheduling (Wallace et
al., sections V and VIII-C); each plugs into :func:`nets.puppet.compose`
as ``allocation=``.

:func:`measured_allocation` (with the window scheduler)
    Starts the selected jobs at once (the scheduler already checked power)
    and samples each running job every ``period`` (on a common grid from
    time 0, as a monitoring system polls every rack at once): a timed
    :class:`~modules.power_samples.PowerSample` token per job, available
    at the end of the period it measures.  *Learn* takes it, updates the
    job's estimate (t-test after ``min_samples``), raises *Trigger* when
    the estimate fell (power was freed), emits the next sample while the
    job still runs a whole period, and hands the run to the learner after
    the last one.  One firing per job per period.

:func:`naive_allocation` (with PuPPET's batch scheduling)
    The paper's baseline (section VIII-C): "a simple augmentation of the
    traditional one-to-one scheduling design such that it is able to know
    what the current power consumption of the system is.  It assumes that
    the power consumption of a job is the theoretical maximum."  Each
    selected job is assumed to draw the device's peak on every node; the
    system's measured power (*Power*) is known.  The head job starts when
    that keeps power at or under the cap, else it and its successors go
    back to the queue (``rule="block"``: one by one, PuPPET's BLOCK with
    every job at peak power; strictly so without EASY backfilling), or it
    alone and the next selected job is tried (``"skip"``).

    A job that at peak would break the cap even alone cannot pass that
    test.  With ``over_cap="reject"`` (jobs whose *true* power alone
    breaks the cap are rejected before the run) it starts once nothing
    else runs: its true power then fits, so the cap holds, but the machine
    drains for it.  With ``"run"`` it starts as soon as its nodes are free,
    as the paper's own scheduler does with a deadlocked window ("the only
    time we allow those jobs to run and violate the power cap is when we
    have no other options"): no drain, and the cap breaks whenever its
    true power does not fit beside what runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple

from cpn import Delayed, Net

from .allocation import allocation_ports
from .batch_scheduling import P_ALLOCATE, P_FINISH, TRIGGER_FUSION
from .job import Job
from .power import PowerModel
from .power_cap_schedule import PowerCapSchedule, add_power_cap
from .power_capping import requeue
from .power_learning import LearnerConfig, PowerLearner, RunningEstimates
from .power_samples import NoisyProfile, PowerSample, RunSamples, SampleTable
from .window_scheduling import ESTIMATES_FUSION, LEARNER_FUSION, OVER_CAP_RULES

__all__ = ["ProfileChange", "Sampler", "measured_allocation", "naive_allocation",
           "NAIVE_RULES", "P_LEARN"]

#: Learning comes after a cap change, before job ends (see batch_scheduling).
P_LEARN = P_FINISH - 50


class ProfileChange(NamedTuple):
    """A running job's estimate changed after ``samples`` samples."""

    time: float
    job_id: int
    source: str
    watts_per_node: float
    samples: int


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


def _allocation_places(module: Net) -> None:
    allocation_ports(module)
    module.place("Trigger", bool, fusion=TRIGGER_FUSION)


def _start_outputs(estimate: str) -> dict[str, str]:
    planned = f"job.estimate({estimate!r})"
    return {"Nodes": "free - job.js", "Power": "watts + busy_delta(job)",
            "RuntimeInfo": f"running | {{job.id: (now + {planned}, job.js)}}",
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
    """The naive test: measured power plus the job at peak power per node;
    for a job that at peak breaks the cap alone, the ``over_cap`` rule
    (see the module docstring)."""

    power: PowerModel
    max_node_watts: float
    machine_nodes: int
    over_cap: str = "reject"

    def fits(self, job: Job, watts: float, running: Mapping, cap: float) -> bool:
        delta = job.js * (self.max_node_watts - self.power.idle_node_watts)
        if watts + delta <= cap:
            return True
        over_alone = self.power.idle_system(self.machine_nodes) + delta > cap
        return over_alone and (self.over_cap == "run" or not running)


NAIVE_RULES = ("block", "skip")


def naive_allocation(power: PowerModel, estimate: str, cap: PowerCapSchedule,
                     max_node_watts: float, machine_nodes: int, rule: str = "block",
                     over_cap: str = "reject") -> Net:
    """The naive capping baseline (section VIII-C); ports as
    :func:`measured_allocation`.  Use with PuPPET's batch scheduling.
    ``rule``: a selected job that would break the cap goes back to the
    queue with every job behind it (``"block"``: strictly one by one from
    the head) or alone, the next selected job being tried (``"skip"``: the
    power test joins the node test of a scheduler that lets later jobs
    pass).  ``over_cap``: when a job that at peak breaks the cap alone
    starts (``OVER_CAP_RULES``)."""
    if rule not in NAIVE_RULES:
        raise ValueError(f"naive rule must be one of {NAIVE_RULES}, not {rule!r}")
    if over_cap not in OVER_CAP_RULES:
        raise ValueError(f"over_cap must be one of {OVER_CAP_RULES}, not {over_cap!r}")
    fits = NaiveRule(power, max_node_watts, machine_nodes, over_cap).fits
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
