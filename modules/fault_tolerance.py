"""The fault tolerance module (TOPPER section 3.2, Fig. 4).

Compute units (racks, nodes, ...) carry their next failure time.  When a
job starts, *Assign* gives it its units (``r`` times as many with
replication), plans its checkpoints (Daly's interval, or a fixed one), and
puts it in *Running* until its next event: its completion, or the failure
of one of its units (with replication: of every replica of one process).  *Fail*
rolls it back to its last checkpoint (the work since is lost) and repairs
the failed units (new failure times); then, as ``on_failure`` says, either
*Rollback* adds the recovery overhead and puts it back on its units, or
*Requeue* returns its units, keeps its checkpoint (*Checkpoints*) and hands
the job to *Requeued*, where the enclosing net releases its nodes and power
and puts it back in the queue; when it is assigned again it resumes from
that checkpoint after the recovery.  *Done* hands a completed job to
*Free*, where the enclosing net releases its nodes and power, and returns
its units.

Failure times are exponential draws from the model's seeded ``rng``
(Poisson failures of each unit), or the next entry of a failure trace.
How each job runs (its units, replicas, checkpoint interval) is planned
when the workload is read (``fault_plans.py``).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Mapping, NamedTuple, Sequence

from cpn import P_LOW, Delayed, Net
from cpn.colours import FrozenDict

from .batch_scheduling import P_ALLOCATE, P_FINISH
from .cpu_scaling import DVFS_LEVEL
from .fault_plans import Plan
from .job import Job
from .last_answer import keeps_last_answer
from .resilience import FaultTolerance, checkpoint_overhead

P_DISCARD = P_FINISH - 3  # superseded tokens go first
P_FAIL = P_FINISH - 2
P_DONE = P_FINISH - 1
P_RETIME = P_LOW + 2  # after CPU scaling has chosen the level of the instant
_FAILURE_TIME = itemgetter(1)  # of a (unit, next failure time) pair


class Execution(NamedTuple):
    """A running job's progress: ``work`` left from ``since`` on, done at
    ``rate`` (compute seconds per second: ``f ** beta`` under DVFS)."""

    job: Job
    plan: Plan
    work: float
    since: float
    units: tuple[tuple[int, float], ...]  # (unit id, next failure time)
    rate: float = 1.0
    version: int = 0  # bumped when re-timed, so a superseded token is known

    def finish(self) -> float:
        """When it completes if nothing fails: work plus checkpoints (eq. 3)."""
        checkpoints = checkpoint_overhead(self.work, self.plan.interval, self.plan.overhead)
        return self.since + self.work / self.rate + checkpoints

    def failure(self) -> float:
        """When it fails: the first process all of whose replicas failed
        (without replication, each unit is a process: the first failure)."""
        if len(self.plan.replicas) == len(self.units):  # one replica each (or no unit)
            return min(map(_FAILURE_TIME, self.units), default=math.inf)
        times, position = [], 0
        for count in self.plan.replicas:
            times.append(max(map(_FAILURE_TIME, self.units[position:position + count])))
            position += count
        return min(times)

    def next_event(self) -> float:
        return min(self.finish(), self.failure())

    def progress(self, now: float) -> tuple[float, float]:
        """Work saved by checkpoints, and work done, since ``since``: none
        saved without checkpoints, all of it when they are free (taken
        continuously)."""
        plan, elapsed = self.plan, max(now - self.since, 0.0)
        if math.isinf(plan.interval):
            return 0.0, min(elapsed * self.rate, self.work)
        if not plan.overhead:
            done = min(elapsed * self.rate, self.work)
            return done, done
        period = plan.interval / self.rate + plan.overhead
        checkpoints = math.floor(elapsed / period)
        saved = min(checkpoints * plan.interval, self.work)
        partial = min(elapsed - checkpoints * period, plan.interval / self.rate) * self.rate
        return saved, min(saved + partial, self.work)


class Checkpoint(NamedTuple):
    """What a requeued job keeps while it waits: the work left after its
    last checkpoint, and the version of its last execution (versions only
    grow, so a token of the old run can never pass for the new one)."""

    work: float
    version: int


class FailureLog(NamedTuple):
    time: float
    job_id: int
    lost_node_seconds: float  # compute since the last checkpoint, times nodes
    units: tuple[int, ...]  # units that failed
    started: float  # when the failed run started (its latest assignment)


@dataclass
class FailureSource:
    """Next failure times of units: exponential draws with the unit's MTTF
    divided by ``multiplier`` (and by a ``boost`` while DVFS runs below
    nominal frequency), or a trace of (time, unit) failures."""

    mttf: float
    multiplier: float = 1.0
    trace: Mapping[int, Sequence[float]] | None = None
    _sorted: dict = field(default_factory=dict, repr=False)

    def next(self, unit: int, after: float, rng, boost: float = 1.0) -> float:
        if self.trace is not None:
            times = self._sorted.setdefault(unit, sorted(self.trace.get(unit, ())))
            k = bisect.bisect_right(times, after)
            return times[k] if k < len(times) else math.inf
        return after + float(rng.exponential(self.mttf / (self.multiplier * boost)))


def _fails_first(execution: Execution) -> bool:
    return execution.failure() < execution.finish()


@dataclass(frozen=True)
class FaultRules:
    """The decisions of the module's transitions.  ``beta`` turns a job's
    frequency rate into its speed (``pf ** beta``); ``dvfs_boost``
    multiplies the failure rate of units running below nominal frequency
    (TOPPER Fig. 15: DVFS-double, DVFS-triple)."""

    plans: Mapping[int, Plan]
    failures: FailureSource
    beta: float = 0.5
    dvfs_boost: float = 1.0

    def boost(self, frequency: float) -> float:
        return self.dvfs_boost if frequency < 1.0 else 1.0

    def assign(self, job: Job, free_units: tuple, now: float, rng,
               checkpoints: Mapping[int, Checkpoint], recovery: float):
        """Give ``job`` its units (repairing those that failed while idle).
        A requeued job resumes from its checkpoint after the ``recovery``."""
        plan = self.plans[job.id]
        count = sum(plan.replicas)
        if count > len(free_units):
            raise ValueError(f"job {job.id} needs {count} units, {len(free_units)} are free")
        units = free_units[:count]
        if count and min(map(_FAILURE_TIME, units)) <= now:  # some failed while idle
            boost = self.boost(job.pf)
            units = tuple((unit, ft if ft > now else self.failures.next(unit, now, rng, boost))
                          for unit, ft in units)
        execution = Execution(job, plan, plan.work, now, units, job.pf ** self.beta)
        saved = checkpoints.get(job.id)
        if saved is not None:
            execution = execution._replace(work=saved.work, since=now + recovery,
                                           version=saved.version + 1)
        return execution, free_units[count:]

    @keeps_last_answer
    def failed(self, execution: Execution) -> bool:
        """It fails before it completes.  The guards of *Fail* and *Done*
        ask it of the same token in turn: the last answer is kept."""
        return _fails_first(execution)

    @staticmethod
    def stale(execution: Execution, current: Mapping[int, Execution]) -> bool:
        """A token superseded by a re-timed one (or of a job already gone)."""
        latest = current.get(execution.job.id)
        return latest is None or latest.version != execution.version

    def rollback(self, execution: Execution, now: float, recovery: float, rng):
        """Back to the last checkpoint; failed units repaired; recovery paid."""
        saved, done = execution.progress(now)
        boost = self.boost(execution.job.pf)
        broken = tuple(unit for unit, ft in execution.units if ft <= now)
        units = tuple((unit, self.failures.next(unit, now, rng, boost) if ft <= now else ft)
                      for unit, ft in execution.units)
        log = FailureLog(now, execution.job.id, (done - saved) * execution.job.js, broken,
                         execution.job.et)
        return execution._replace(work=execution.work - saved, since=now + recovery,
                                  units=units, version=execution.version + 1), log

    def requeue(self, execution: Execution, now: float, rng):
        """Back to the last checkpoint, failed units repaired, and out: the
        checkpoint to resume from, the units to return, the failure's log."""
        rolled, log = self.rollback(execution, now, 0.0, rng)
        return Checkpoint(rolled.work, rolled.version), rolled.units, log

    def retime(self, current: Mapping[int, Execution], frequency: float, now: float, rng):
        """Every execution to ``frequency``: the work done so far is kept
        (checkpointing restarts its cycle now), units' failure times are
        redrawn when the failure rate changes (memoryless).  Returns the new
        executions and their tokens."""
        executions, tokens = {}, []
        for job_id, execution in current.items():
            _, done = execution.progress(now)
            units = execution.units
            if self.boost(frequency) != self.boost(execution.job.pf):
                units = tuple((unit, self.failures.next(unit, now, rng, self.boost(frequency)))
                              for unit, _ in units)
            moved = execution._replace(
                job=execution.job._replace(pf=frequency), work=execution.work - done,
                since=max(now, execution.since), units=units,
                rate=frequency ** self.beta, version=execution.version + 1)
            executions[job_id] = moved
            tokens.append(Delayed(moved, moved.next_event() - now))
        return FrozenDict(executions), tokens


def fault_tolerance(settings: FaultTolerance, rules: FaultRules, units: int,
                    scaled: bool = False) -> Net:
    """Ports Started (jobs whose resources were allocated), Running (their
    executions), Free (jobs that completed) and, when failed jobs are
    requeued, Requeued (failed jobs to put back in the queue); the units,
    the failure log and, with requeueing, *Checkpoints* (the saved work of
    requeued jobs) are its own.
    With ``scaled``, *Retime* follows the DVFS level (fusion place
    ``dvfs_level``) and re-times every running job when it changes, from
    *Current* (the latest execution of each running job), and *Discard*
    removes the superseded tokens.  Nothing else reads *Current* or
    supersedes a token: without ``scaled`` the module has neither *Current*
    nor *Discard*."""
    requeue = settings.on_failure == "requeue"
    module = Net("FaultTolerance", env={"rules": rules, "recovery": settings.recovery,
                                        "nothing_saved": FrozenDict()})
    _add_places(module, units, scaled)
    _add_assign(module, requeue, scaled)
    _add_failure(module, requeue, scaled)
    module.transition(
        "Done", priority=P_DONE, guard="not rules.failed(execution)",
        **_current({"Running": "execution", "Units": "free_units"},
                   {"Free": "execution.job", "Units": "free_units + execution.units"},
                   "current.without(execution.job.id)", scaled))
    if scaled:
        _add_retime(module)
    return module


def _current(inputs: dict, outputs: dict, change: str, scaled: bool) -> dict:
    """A transition's arcs, with *Current* changed by ``change`` when the
    module keeps it (under DVFS: only *Retime* and *Discard* read it)."""
    if scaled:
        inputs, outputs = {**inputs, "Current": "current"}, {**outputs, "Current": change}
    return {"inputs": inputs, "outputs": outputs}


def _add_places(module: Net, units: int, scaled: bool) -> None:
    """The ports, the ``units`` compute units, the failures and, when
    ``scaled``, *Current*."""
    module.place("Started", Job, timed=True, port="in")
    module.place("Free", Job, timed=True, port="out")
    module.place("Running", Execution, timed=True, port="inout")
    # Units start with no failure time drawn (-inf): drawn when first
    # assigned, which is the same for memoryless exponential failures.
    module.place("Units", tuple, initial=[tuple((unit, -math.inf) for unit in range(units))])
    if scaled:
        module.place("Current", FrozenDict, initial=[FrozenDict()])
    module.place("FailedJobs", Execution)
    module.place("Failures", FailureLog)


def _add_assign(module: Net, requeue: bool, scaled: bool) -> None:
    """*Assign*: a started job gets its units and its execution (resumed
    from its checkpoint when it was requeued)."""
    assign = _current({"Started": "job", "Units": "free_units"},
                      {"Units": "rest", "Running": "execution@+(execution.next_event() - now)"},
                      "current | {job.id: execution}", scaled)
    if requeue:  # a requeued job resumes from its checkpoint, which is then used up
        module.place("Checkpoints", FrozenDict, initial=[FrozenDict()])
        assign["inputs"]["Checkpoints"] = "saved"
        assign["outputs"]["Checkpoints"] = "saved.without(job.id)"
    module.transition(
        "Assign", priority=P_ALLOCATE,
        code="execution, rest = rules.assign(job, free_units, now, rng, "
             f"{'saved' if requeue else 'nothing_saved'}, recovery)", **assign)


def _add_failure(module: Net, requeue: bool, scaled: bool) -> None:
    """*Discard* (executions superseded by *Retime*, so only when
    ``scaled``), *Fail*, and what follows a failure: *Requeue* (the job
    goes back to the queue, its checkpoint kept) or *Rollback* (it resumes
    on its units after the recovery)."""
    if scaled:
        module.transition(
            "Discard", priority=P_DISCARD, guard="rules.stale(execution, current)",
            inputs={"Running": "execution", "Current": "current"},
            outputs={"Current": "current"})
    module.transition(
        "Fail", priority=P_FAIL, guard="rules.failed(execution)",
        inputs={"Running": "execution"}, outputs={"FailedJobs": "execution"})
    if requeue:
        module.place("Requeued", Job, port="out")
        module.transition(
            "Requeue", priority=P_FAIL,
            code="checkpoint, returned, log = rules.requeue(failed, now, rng)",
            **_current({"FailedJobs": "failed", "Units": "free_units", "Checkpoints": "saved"},
                       {"Requeued": "failed.job", "Units": "free_units + returned",
                        "Checkpoints": "saved | {failed.job.id: checkpoint}",
                        "Failures": "log"},
                       "current.without(failed.job.id)", scaled))
    else:
        module.transition(
            "Rollback", priority=P_FAIL,
            code="resumed, log = rules.rollback(failed, now, recovery, rng)",
            **_current({"FailedJobs": "failed"},
                       {"Running": "resumed@+(resumed.next_event() - now)", "Failures": "log"},
                       "current | {failed.job.id: resumed}", scaled))


def _add_retime(module: Net) -> None:
    """*Retime*: every running job follows a change of the DVFS level."""
    module.place("Level", float, fusion=DVFS_LEVEL)  # marked by CPU scaling
    module.place("Applied", float, initial=[1.0])
    module.transition(
        "Retime", priority=P_RETIME, guard="level != applied",
        code="retimed, moved = rules.retime(current, level, now, rng)",
        inputs={"Level": "level", "Applied": "applied", "Current": "current"},
        outputs={"Level": "level", "Applied": "level", "Current": "retimed",
                 "Running": "*moved"})
