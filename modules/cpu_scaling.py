"""CPU scaling: capping power with DVFS (PuPPET section 3.3, Fig. 7).

All running jobs share one of ``m`` frequency levels f1 > ... > fm
(relative to nominal).  Whenever the system's power changes, *Rescale*
picks the highest level whose system power stays at or under ``Pcap``
(the paper's transitions T1...Tm, one per level, are one transition here
whose code picks the level).  A job's power scales as in ``power.py``; its
time as ``t ~ 1 / f^beta`` (eq. 3; beta = 0.5 by default), so when the
level changes every running job keeps the work it has done and its end
moves: its token in *Running* is re-issued with the new end and a higher
``version``, and *Discard* removes the superseded token when its time comes
(a timed token cannot be taken back before it is available).

Admission (``CpuScaling.admission``): with ``"lowest"`` (the default) a job
starts when the system could hold the cap with it at the lowest level
(otherwise it and its successors wait, as with BLOCK), so the cap holds at
all times.  With ``"nodes"`` a job starts as soon as it has nodes, as in
the paper's net (Fig. 7: CPU scaling only re-times running jobs): the cap
then holds only while the lowest level suffices, and the power series
shows when it did not.  A job that alone breaks the cap even at the lowest
level is rejected or runs alone (see ``power_capping.py``).  An optional
``latency`` (seconds) is paid by every running job at each change of level.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Mapping

from cpn import Delayed, Net, P_LOW
from cpn.colours import FrozenDict

from .allocation import allocation_ports
from .batch_scheduling import P_ALLOCATE, P_FINISH
from .dvfs_bounds import LOWEST_LEVEL, MAX_BETA, MAX_LATENCY, MAX_LEVELS
from .job import POSITION, Job, replaced_at
from .last_answer import keeps_last_answer
from .power import PowerModel, cap_limit
from .power_capping import requeue
from .values import is_number

P_DISCARD = P_FINISH - 1  # superseded ends go before real ones
P_RESCALE = P_LOW + 1  # once all events of an instant are in
DVFS_LEVEL = "dvfs_level"  # fusion set of the level, for modules that follow it
#: When a job may start under DVFS: if the cap holds with it at the lowest
#: level, or whenever it has nodes (the paper's net).
ADMISSIONS = ("lowest", "nodes")


def even_levels(count: int = 6, lowest: float = 0.5) -> tuple[float, ...]:
    """``count`` frequency levels evenly spaced from nominal down to ``lowest``."""
    if count < 1 or not 0 < lowest <= 1:
        raise ValueError(f"need at least one level and 0 < lowest <= 1, "
                         f"not {count} levels down to {lowest}")
    if count == 1:
        return (1.0,)
    return tuple(round(1.0 - k * (1.0 - lowest) / (count - 1), 12) for k in range(count))


@dataclass(frozen=True)
class CpuScaling:
    """DVFS parameters (PuPPET sections 2.2, 3.3): the cap in watts, the
    frequency levels (default 1.0, 0.9, ..., 0.5 of nominal), beta (eq. 3),
    an optional latency per change of level, and the ``admission`` rule
    (``ADMISSIONS``)."""

    cap_watts: float
    levels: tuple[float, ...] = field(default_factory=even_levels)
    beta: float = 0.5
    latency: float = 0.0
    admission: str = "lowest"

    def __post_init__(self):
        for name in ("cap_watts", "beta", "latency"):  # else a str failed in a comparison
            if not is_number(getattr(self, name)):
                raise ValueError(f"{name} must be a number, not {getattr(self, name)!r}")
        if isinstance(self.levels, Iterable) and not isinstance(self.levels, (str, bytes)):
            object.__setattr__(self, "levels", tuple(self.levels))  # a generator: read once
        if not isinstance(self.levels, tuple) or not all(map(is_number, self.levels)):
            raise ValueError(f"frequency levels must be numbers, e.g. (1.0, 0.5), "
                             f"not {self.levels!r}")
        if not self.cap_watts > 0:
            raise ValueError(f"the power cap must be positive watts, not {self.cap_watts}")
        if (not self.levels or len(self.levels) > MAX_LEVELS
                or any(not LOWEST_LEVEL <= f <= 1 for f in self.levels)):
            raise ValueError(f"frequency levels: 1 to {MAX_LEVELS}, each within "
                             f"[{LOWEST_LEVEL:g}, 1], not {self.levels}")
        object.__setattr__(self, "levels", tuple(sorted(self.levels, reverse=True)))
        if not 0 <= self.beta <= MAX_BETA:
            raise ValueError(f"beta must be within [0, {MAX_BETA:g}], not {self.beta}")
        if not 0 <= self.latency <= MAX_LATENCY:
            raise ValueError(f"latency must be within [0, {MAX_LATENCY:g}] s, not {self.latency}")
        if self.admission not in ADMISSIONS:
            raise ValueError(f"admission must be one of {ADMISSIONS}, not {self.admission!r}")

    def duration(self, work: float, frequency: float) -> float:
        """Time to do ``work`` (seconds at nominal frequency) at ``frequency``."""
        return work / frequency ** self.beta


@dataclass(frozen=True)
class ScalingRules:
    """The decisions of the CPU scaling net, over its *Progress* place:
    job id -> (job token, work left in nominal seconds, since when)."""

    power: PowerModel
    scaling: CpuScaling

    def _busy(self, progress: Mapping, running: Mapping) -> float:
        """The running jobs' power at nominal frequency, summed in
        *Progress* order (the order every sum of it must keep)."""
        return sum([job.jp for job_id, (job, _, _) in progress.items() if job_id in running])

    def watts_at(self, jobs: list, watts: float, current: float, frequency: float) -> float:
        """System power if the running ``jobs`` moved from level ``current``
        to ``frequency``: *Power* changes by their power only, so nodes that
        other modules put to sleep or boot count at what they really draw."""
        return watts + sum(job.jp for job, _, _ in jobs) * (
            self._scale(frequency) - self._scale(current))

    def _scale(self, frequency: float) -> float:
        """``power.scale(frequency)``, looked up for a level."""
        scale = self._scale_of.get(frequency)
        return self.power.scale(frequency) if scale is None else scale

    @cached_property
    def _scale_of(self) -> dict[float, float]:
        """Each level's power scale by frequency, computed once (the level
        is searched after every change of power)."""
        return {frequency: self.power.scale(frequency) for frequency in self.scaling.levels}

    def _steps(self, current: float) -> tuple[tuple[float, float], ...]:
        """Every level (highest first) with the change of scale to it from
        ``current``: ``scale(level) - scale(current)``, done once per level
        of this configuration (:meth:`level` asks after every change of power)."""
        steps = self._steps_from.get(current)
        return self._steps_at(self.power.scale(current)) if steps is None else steps

    def _steps_at(self, at_current: float) -> tuple[tuple[float, float], ...]:
        return tuple((frequency, scale - at_current)
                     for frequency, scale in self._scale_of.items())

    @cached_property
    def _steps_from(self) -> dict[float, tuple[tuple[float, float], ...]]:
        return {current: self._steps_at(scale) for current, scale in self._scale_of.items()}

    @cached_property
    def _limit(self) -> float:
        """The cap with the running sum's rounding slack (``under_cap``)."""
        return cap_limit(self.scaling.cap_watts)

    @keeps_last_answer
    def level(self, progress: Mapping, running: Mapping, watts: float, current: float) -> float:
        """The highest level that keeps the system under the cap (else the
        lowest): the first where ``watts + busy * (scale(level) -
        scale(current))`` (:meth:`watts_at`) is ``under_cap``, the running
        jobs' power ``busy`` summed once for every level.  *Rescale*'s
        guard and code ask it twice of the same tokens: the last answer is
        kept for them."""
        busy, limit = self._busy(progress, running), self._limit
        for frequency, step in self._steps(current):
            if watts + busy * step <= limit:
                return frequency
        return self.scaling.levels[-1]

    @keeps_last_answer
    def admits(self, job: Job, progress: Mapping, running: Mapping, watts: float,
               current: float) -> bool:
        """``job`` may start: always when admitting on nodes; else if with it
        the cap holds at the lowest level (or nothing else runs).  The
        guards of *Allocate* and *Hold* ask it twice of the same tokens: the
        last answer is kept for them."""
        if not running or self._by_nodes:
            return True
        _, step = self._steps(current)[-1]  # to the lowest level
        return (watts + self._busy(progress, running) * step
                + self.power.busy_delta_at(job, self.scaling.levels[-1]) <= self._limit)

    @cached_property
    def _by_nodes(self) -> bool:
        return self.scaling.admission == "nodes"

    def rescale(self, progress: Mapping, running: Mapping, watts: float, old: float,
                new: float, now: float, estimate: str):
        """Move every running job to frequency ``new``: work done so far is
        kept, the rest takes ``duration(work left, new)`` (+ latency).
        Returns the new Power, Progress, Runtime Info and re-issued tokens.
        *Power* moves by the change of the running jobs' power only
        (:meth:`watts_at`), so what other modules put there (nodes asleep or
        booting) is kept."""
        scaling = self.scaling
        latency, beta = scaling.latency, scaling.beta
        # Per level rather than per job: old ** beta, and new ** beta (duration()).
        old_rate, new_rate, resumed = old ** beta, new ** beta, now + latency
        progress_now, running_now, tokens = {}, dict(running), []
        for job_id, (job, work, since) in progress.items():
            if job_id not in running:
                continue  # ended: forget it
            # a job still paused by the last change's latency (since > now) did none
            left = max(work - max(now - since, 0.0) * old_rate, 0.0)
            moved = replaced_at(job, {_PF: new, _VERSION: job.version + 1})
            progress_now[job_id] = (moved, left, resumed)
            tokens.append(Delayed(moved, latency + left / new_rate))
            planned_left = max(job.estimate(estimate) - (job.rt - left), 0.0)
            running_now[job_id] = (resumed + planned_left / new_rate, job.js)
        watts = self.watts_at(list(progress_now.values()), watts, old, new)
        return watts, FrozenDict(progress_now), FrozenDict(running_now), tokens

    @staticmethod
    def start(job: Job, now: float, frequency: float) -> Job:
        """``job`` as it starts at ``now`` at ``frequency``:
        ``_replace(et=now, pf=frequency)`` made directly (``replaced_at``)."""
        return replaced_at(job, {_ET: now, _PF: frequency})

    @staticmethod
    def started(progress: Mapping, running: Mapping, job: Job, now: float,
                forget_ended: bool) -> FrozenDict:
        """*Progress* with ``job`` started at ``now``.  With ``forget_ended``
        the jobs no longer running leave it (otherwise only a change of level
        drops them, and every level search would read every job that ended
        since); their order, which the power sums follow, is kept.  Only
        where an ended job never runs again: a requeued job keeps its place."""
        if forget_ended and len(progress) > len(running):
            progress = {job_id: entry for job_id, entry in progress.items() if job_id in running}
        return FrozenDict({**progress, job.id: (job, job.rt, now)})


_ET, _PF, _VERSION = POSITION["et"], POSITION["pf"], POSITION["version"]


def cpu_scaling(power: PowerModel, scaling: CpuScaling, estimate: str,
                retime_jobs: bool = True) -> Net:
    """The DVFS allocation module; same ports as ``allocation.power_allocation``.

    Without ``retime_jobs`` it only chooses the level and the power, and
    starts jobs undelayed: a fault tolerance module, which owns the
    executions, follows the level (the ``dvfs_level`` fusion place)."""
    rules = ScalingRules(power, scaling)
    planned = f"job.estimate({estimate!r})"
    module = Net("CpuScaling", env={
        "rules": rules, "busy_delta": power.busy_delta, "duration": scaling.duration,
        "requeue": requeue, "estimate": estimate})
    allocation_ports(module, running="inout")
    module.place("Level", float, initial=[scaling.levels[0]], fusion=DVFS_LEVEL)
    module.place("Progress", FrozenDict, initial=[FrozenDict()])

    state = {"Nodes": "free", "Power": "watts", "RuntimeInfo": "running",
             "Progress": "progress", "Level": "f"}
    module.transition(
        "Allocate", priority=P_ALLOCATE, code="job = rules.start(sel[0], now, f)",
        guard="sel and sel[0].js <= free and rules.admits(sel[0], progress, running, watts, f)",
        inputs={"Selected": "sel", **state},
        outputs={"Selected": "sel[1:]", "Nodes": "free - job.js",
                 "Power": "watts + busy_delta(job)",
                 "RuntimeInfo": f"running | {{job.id: (now + duration({planned}, f), job.js)}}",
                 "Progress": f"rules.started(progress, running, job, now, {retime_jobs})",
                 "Level": "f",
                 "Running": "job@+duration(job.rt, f)" if retime_jobs else "job"})
    module.transition(
        "Hold", priority=P_ALLOCATE,
        guard="sel and not (sel[0].js <= free and "
              "rules.admits(sel[0], progress, running, watts, f))",
        inputs={"Selected": "sel", "Queuing": "queue", **state},
        outputs={"Selected": "()", "Queuing": "requeue(queue, sel)", **state})
    module.transition(
        "Rescale", priority=P_RESCALE, guard="rules.level(progress, running, watts, f) != f",
        code="new = rules.level(progress, running, watts, f)\n"
             "watts_now, progress_now, running_now, moved = rules.rescale("
             "progress, running, watts, f, new, now, estimate)",
        inputs={"Power": "watts", "RuntimeInfo": "running", "Progress": "progress",
                "Level": "f"},
        outputs={"Power": "watts_now", "RuntimeInfo": "running_now",
                 "Progress": "progress_now", "Level": "new",
                 **({"Running": "*moved"} if retime_jobs else {})})
    if retime_jobs:
        module.transition("Discard", priority=P_DISCARD,
                          # a Running token superseded by a re-issued one
                          guard="job.id not in running or "
                                "progress[job.id][0].version != job.version",
                          inputs={"Running": "job", "Progress": "progress",
                                  "RuntimeInfo": "running"},
                          outputs={"Progress": "progress", "RuntimeInfo": "running"})
    return module
