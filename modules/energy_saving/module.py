"""The EnergySaving cluster policy as a module (Dolz et al., sections 2.4-2.6).

Idle nodes are switched off and booted again when demand returns.  The
module sits beside scheduling and allocation on the shared places of
``nets.puppet.compose`` -- *Nodes*, *Power*, *Queuing*, *Runtime Info*,
*Selected* and the *Trigger* fusion place -- so any net ``compose`` builds
(PuPPET with or without a power-aware cap, TOPPER, the DVFS thesis
policies: ``nets/energy_saving.py``) runs with sleeping nodes without a
change to its modules (:func:`attach`).  PuPPET's CPU scaling is the
exception: its *Rescale* sets *Power* as if every node not busy were idle.

* *Nodes* stays what the scheduler plans with, and now means **powered-on
  idle nodes**: a switch-off takes nodes out of it, a finished boot puts
  them back (and raises *Trigger*, so a job waiting for them starts at that
  instant: exactly ``power_on_s`` after the decision).
* *Power* moves with every state change: a node powering on or off draws
  its transition's energy spread over the transition (so the place's
  integral is the accounting of ``node_power.py``), standby 2 W.

Places of the module: *Standby* (count), *Booting* (the batches powering
on: nodes, ready time, jobs they serve), *Powering On* / *Powering Off*
(timed batch tokens, available when the transition ends), *Halting*
(count powering off), *Idle Pool* (the idle nodes' ages: ``(since, count)``
batches), *Waits* (per-group mean wait of started jobs) and *Clock* (the
tick's timer).  Loaded nodes are *Runtime Info*'s.

Why counts and not one token per node: every rule of the policy depends
only on how many nodes are in a state and how long idle ones have been idle
-- nodes are identical -- so batches of nodes are as exact as node tokens
and make a decision cost O(batches), not O(nodes): Mira's 49,152 nodes cost
what NASA's 128 do.  Which node is which matters only for the per-node
reports; :class:`LedgerMonitor` follows the firings and names the nodes
(``node_power.NodeLedger``).  Nodes of different types (the paper's
"appropriate resources") would need one set of counts per type.

Transitions:

* *Sync* (priority 40, before anything else): after allocation or *Finish*
  changed *Nodes*, the idle pool follows -- a starting job takes the most
  recently idle nodes, a job's end adds a batch idle since now.
* *Tick* (every ``period_s``, after everything else of the instant): the
  energy-saving scheduler, :func:`decide`; switches off (-> *Powering Off*)
  or boots (-> *Powering On*).  It stops when no job is left to come, wait
  or run.
* *Booted*, *Halted*: the end of a transition.
* *Observe* (only when a group has a ``min_wait_s``): reads the jobs the
  scheduler selects, before *Allocate* takes them, for the mean waits.

Whole units: on a machine that allocates whole compute units (TOPPER's
racks), ``unit_nodes`` makes every switch-off and boot a whole number of
units, so *Nodes* stays a whole number of units and a job never waits for
a unit that is only partly on (see :func:`decide`).

Scheduling: EASY's shadow time does not exist while the head job is larger
than the powered-on machine, so :func:`scheduling_module` lets EASY see the
nodes about to boot (:func:`with_booting_nodes`); :func:`fifo_per_queue` is
the paper's own scheduler.  Decisions are plain functions of the marking:
:func:`decide` and the functions it calls, tested on their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Mapping, NamedTuple, Sequence

from cpn import P_LOW, Net, timed
from cpn.colours import FrozenDict
from cpn.monitors import Monitor

from ..batch_scheduling import (P_FINISH, P_SCHEDULE, TRIGGER_FUSION, SchedulingConfig,
                               batch_scheduling)
from ..easy import ESTIMATES, easy_pass
from ..job import Job
from ..node_ledger import NodeLedger
from ..node_power import POWER_ON_ORDERS, NodePower

#: Priorities (lower fires first): the start-up switch-off, then the idle
#: pool following *Nodes* (before *Allocate W* = 50 and *Allocate* = 100),
#: the wait observer (before *Allocate*), the ends of transitions (just
#: before *Finish* = 500) and the tick last of all (after a timestamp-mode
#: *Schedule* at P_LOW).
P_START = 1
P_SYNC = 40
P_OBSERVE = 90
P_BOOTED = P_FINISH - 10
P_HALTED = P_FINISH - 5
P_TICK = P_LOW + 1


# -- configuration -------------------------------------------------------------
@dataclass(frozen=True)
class GroupThresholds:
    """A user group's thresholds (section 2.5; the paper publishes none).

    ``max_wait_s``: boot nodes when the group's queued jobs have waited
    longer than this on average (1 h); ``max_queued``: boot nodes when one
    of its users has more jobs queued (10); ``min_wait_s``: switch off one
    idle node per tick while the group's started jobs waited less than
    this on average (0 s: off, the idle threshold alone switches nodes off).
    """

    max_wait_s: float = 3600.0
    min_wait_s: float = 0.0
    max_queued: int = 10

    def __post_init__(self):
        if self.max_wait_s < 0 or self.min_wait_s < 0:
            raise ValueError("group wait thresholds must be >= 0 s")
        if self.max_queued < 0:
            raise ValueError(f"max_queued must be >= 0, not {self.max_queued}")


@dataclass(frozen=True)
class EnergySavingPolicy:
    """The energy-saving scheduler's parameters (section 2.5).

    ``period_s``: how often it runs (60 s).  ``idle_threshold_s``: a node
    idle this long is switched off (1800 s).  Energy alone would switch
    off at once -- a full off/on cycle (24.5 Wh) costs less than the
    17 min it lasts at idle power (43 Wh) -- so the threshold is a latency
    guard: a node idle for half an hour is unlikely to be wanted within
    the next boot.  ``thresholds`` apply to every group, ``groups`` overrides
    them per group id.  ``power_on_order``: ``"name"`` (the paper) or
    ``"wear"`` (fewest shutdowns first).  ``initially_on``: nodes on at
    the start (all by default; the others start in standby).  ``enabled``
    False keeps every node on (the baseline), still followed by the ledger.
    ``wait_smoothing``: weight of a new start in a group's mean wait.
    """

    period_s: float = 60.0
    idle_threshold_s: float = 1800.0
    thresholds: GroupThresholds = field(default_factory=GroupThresholds)
    groups: Mapping[int, GroupThresholds] = field(default_factory=dict)
    power_on_order: str = "name"
    initially_on: int | None = None
    enabled: bool = True
    wait_smoothing: float = 0.2

    def __post_init__(self):
        if not self.period_s > 0:
            raise ValueError(f"the tick period must be positive, not {self.period_s}")
        if self.idle_threshold_s < 0:
            raise ValueError(f"the idle threshold must be >= 0 s, not {self.idle_threshold_s}")
        if self.power_on_order not in POWER_ON_ORDERS:
            raise ValueError(f"power_on_order must be one of {POWER_ON_ORDERS}, "
                             f"not {self.power_on_order!r}")
        if self.initially_on is not None and self.initially_on < 0:
            raise ValueError(f"initially_on must be >= 0, not {self.initially_on}")
        if not 0 < self.wait_smoothing <= 1:
            raise ValueError(f"wait_smoothing must be within (0, 1], not {self.wait_smoothing}")

    def for_group(self, group: int) -> GroupThresholds:
        return self.groups.get(group, self.thresholds)

    @property
    def watches_waits(self) -> bool:
        return any(t.min_wait_s > 0 for t in (self.thresholds, *self.groups.values()))


# -- tokens --------------------------------------------------------------------
class IdlePool(NamedTuple):
    """Idle, unassigned, powered-on nodes: ``count`` of them in ``batches``
    ``(idle since, nodes)``, oldest first."""

    count: int
    batches: tuple[tuple[float, int], ...]


class BootBatch(NamedTuple):
    """Nodes powering on together: ready at ``ready``, for the ``jobs``
    (ids) whose demand decided it."""

    nodes: int
    ready: float
    jobs: tuple = ()


class HaltBatch(NamedTuple):
    nodes: int
    ready: float


class Decision(NamedTuple):
    """One tick of the energy-saving scheduler."""

    time: float
    power_on: int = 0
    power_off: int = 0
    jobs: tuple = ()  # ids of the jobs the power-on serves
    reasons: tuple[str, ...] = ()


# -- the idle pool -------------------------------------------------------------
def idle_added(pool: IdlePool, nodes: int, now: float) -> IdlePool:
    """``nodes`` more idle nodes, idle since ``now``."""
    if nodes <= 0:
        return pool
    batches = pool.batches
    if batches and batches[-1][0] == now:
        batches = batches[:-1] + ((now, batches[-1][1] + nodes),)
    else:
        batches = batches + ((now, nodes),)
    return IdlePool(pool.count + nodes, batches)


def take_recent(pool: IdlePool, nodes: int) -> IdlePool:
    """Without the ``nodes`` most recently idle (a job takes them)."""
    batches, left = list(pool.batches), nodes
    while left > 0:
        since, count = batches.pop()
        if count > left:
            batches.append((since, count - left))
        left -= count
    return IdlePool(pool.count - nodes, tuple(batches))


def take_oldest(pool: IdlePool, nodes: int) -> IdlePool:
    """Without the ``nodes`` least recently used (they are switched off)."""
    if nodes <= 0:
        return pool
    position, left = 0, nodes
    batches = pool.batches
    while left >= batches[position][1]:
        left -= batches[position][1]
        position += 1
        if left == 0:
            break
    rest = batches[position:]
    if left:
        rest = ((rest[0][0], rest[0][1] - left),) + rest[1:]
    return IdlePool(pool.count - nodes, rest)


def idle_since_before(pool: IdlePool, cutoff: float) -> int:
    """How many nodes have been idle since ``cutoff`` or earlier."""
    total = 0
    for since, count in pool.batches:
        if since > cutoff:
            break
        total += count
    return total


def merge_before(pool: IdlePool, cutoff: float) -> IdlePool:
    """Batches idle since ``cutoff`` or earlier merged into one (under its
    earliest time): the policy cannot tell them apart, and merging keeps the
    pool short when idle nodes are kept for a waiting queue."""
    batches = pool.batches
    if len(batches) < 2 or batches[1][0] > cutoff:
        return pool
    old = idle_since_before(pool, cutoff)
    position = sum(1 for since, _ in batches if since <= cutoff)
    return IdlePool(pool.count, ((batches[0][0], old),) + batches[position:])


def follow(pool: IdlePool, free: int, now: float) -> IdlePool:
    """The pool after allocation or *Finish* changed *Nodes* to ``free``:
    started jobs took the most recently idle nodes (which keeps the least
    recently used ones idle long enough to be switched off); ended jobs'
    nodes are idle since now."""
    if free > pool.count:
        return idle_added(pool, free - pool.count, now)
    return take_recent(pool, pool.count - free)


# -- the policy ----------------------------------------------------------------
def urgent_jobs(now: float, queue: Sequence[Job], policy: EnergySavingPolicy
                ) -> dict[int, str]:
    """Jobs that ask for nodes (section 2.5.1), by id, with the reason: the
    oldest queued job of each group whose queued jobs waited longer than its
    ``max_wait_s`` on average, and of each user with more than its group's
    ``max_queued`` jobs queued.  In queue order."""
    by_group: dict[int, list[Job]] = {}
    by_user: dict[int, list[Job]] = {}
    for job in queue:
        by_group.setdefault(job.group, []).append(job)
        by_user.setdefault(job.user, []).append(job)
    urgent: dict[int, str] = {}
    for group, jobs in by_group.items():
        mean_wait = now - sum(job.st for job in jobs) / len(jobs)
        if mean_wait > policy.for_group(group).max_wait_s:
            urgent.setdefault(jobs[0].id, "group wait")
    for jobs in by_user.values():
        if len(jobs) > policy.for_group(jobs[0].group).max_queued:
            urgent.setdefault(jobs[0].id, "user queue")
    order = {job.id: position for position, job in enumerate(queue)}
    return dict(sorted(urgent.items(), key=lambda item: order[item[0]]))


def nodes_to_power_on(now: float, queue: Sequence[Job], free: int, booting: int,
                      on: int, standby: int, policy: EnergySavingPolicy
                      ) -> tuple[int, tuple, tuple[str, ...]]:
    """How many standby nodes to boot, for which jobs, and why (2.5.1).

    *Lacking*: a queued job larger than all powered-on nodes (``on``:
    idle, loaded and booting) gets the difference.  *Urgent* jobs
    (:func:`urgent_jobs`) are served in queue order from the idle and
    booting nodes; what they still lack is booted.  The larger of the two
    needs is booted (they overlap), at most the nodes in standby.
    """
    if standby <= 0 or not queue:
        return 0, (), ()
    jobs, reasons, lacking = [], [], 0
    biggest = max(queue, key=lambda job: job.js)
    if biggest.js > on:
        lacking = biggest.js - on
        jobs.append(biggest.id)
        reasons.append("lacking")
    urgent = urgent_jobs(now, queue, policy)
    sizes = {job.id: job.js for job in queue}
    supply, short = free + booting, 0
    for job_id, reason in urgent.items():
        if sizes[job_id] <= supply:
            supply -= sizes[job_id]
            continue
        short += sizes[job_id] - supply
        supply = 0
        if job_id not in jobs:
            jobs.append(job_id)
        if reason not in reasons:
            reasons.append(reason)
    count = min(standby, max(lacking, short))
    return (count, tuple(jobs), tuple(reasons)) if count else (0, (), ())


def nodes_to_power_off(now: float, queue: Sequence[Job], pool: IdlePool,
                       waits: Mapping[int, float], policy: EnergySavingPolicy,
                       unit_nodes: int = 1) -> tuple[int, tuple[str, ...]]:
    """How many idle nodes to switch off, least recently used first (2.5.2).

    Idle nodes that queued jobs may still need -- as many as the queue
    asks for in total, which covers the EASY head's reservation and jobs
    waiting for booting nodes -- are kept: a node is never switched off
    while assigned.  Of the others, those idle for ``idle_threshold_s`` go,
    and one more for each group whose started jobs waited less than its
    ``min_wait_s`` on average.  With ``unit_nodes`` > 1 nodes go by whole
    units: those of the units idle long enough, one more unit per group.
    """
    spare = pool.count - min(pool.count, sum(job.js for job in queue))
    if spare < unit_nodes:
        return 0, ()
    old = min(spare, idle_since_before(pool, now - policy.idle_threshold_s))
    count = old - old % unit_nodes
    reasons = ("idle",) if count else ()
    quick = sum(1 for group, wait in waits.items() if wait < policy.for_group(group).min_wait_s)
    extra = min(spare - count, quick * unit_nodes)
    extra -= extra % unit_nodes
    if extra:
        reasons += ("short waits",)
    return count + extra, reasons


def decide(now: float, queue: Sequence[Job], free: int, pool: IdlePool, standby: int,
           booting: Sequence[BootBatch], halting: int, waits: Mapping[int, float],
           machine_nodes: int, policy: EnergySavingPolicy, unit_nodes: int = 1) -> Decision:
    """One tick of the energy-saving scheduler: boot for the queue if it
    needs nodes, otherwise switch off what it does not need.  ``free`` (the
    *Nodes* place) equals ``pool.count``; ``machine_nodes - standby -
    halting`` nodes are on.

    ``unit_nodes``: nodes switch on and off by whole units of that many.
    Jobs are whole units (TOPPER allocates whole compute units), so the
    nodes a job lacks are rounded up to whole units, and only whole idle
    units are switched off: every count in the module stays a multiple of
    ``unit_nodes``."""
    if not policy.enabled:
        return Decision(now)
    booting_nodes = sum(batch.nodes for batch in booting)
    on = machine_nodes - standby - halting
    count, jobs, reasons = nodes_to_power_on(now, queue, free, booting_nodes, on,
                                             standby, policy)
    if count:
        count = min(standby, -(-count // unit_nodes) * unit_nodes)
        return Decision(now, power_on=count, jobs=jobs, reasons=reasons)
    count, reasons = nodes_to_power_off(now, queue, pool, waits, policy, unit_nodes)
    return Decision(now, power_off=count, reasons=reasons)


def boots(decision: Decision, node: NodePower) -> list[BootBatch]:
    if not decision.power_on:
        return []
    return [BootBatch(decision.power_on, decision.time + node.power_on_s, decision.jobs)]


def halts(decision: Decision, node: NodePower) -> list[HaltBatch]:
    if not decision.power_off:
        return []
    return [HaltBatch(decision.power_off, decision.time + node.power_off_s)]


def power_change(decision: Decision, node: NodePower) -> float:
    """Change of system power when the decision's transitions begin."""
    return (decision.power_on * (node.power_on_w - node.standby_w)
            - decision.power_off * (node.idle_w - node.power_off_w))


def is_tail(selected: tuple, seen: tuple) -> bool:
    """Whether ``selected`` is what is left of ``seen`` after allocation
    took jobs from its head."""
    return len(selected) <= len(seen) and seen[len(seen) - len(selected):] == selected


def record_waits(waits: Mapping[int, float], selected: Sequence[Job], now: float,
                 smoothing: float) -> FrozenDict:
    """Per-group mean wait of started jobs, exponentially smoothed (the
    paper keeps per-user waits "updated periodically")."""
    waits = dict(waits)
    for job in selected:
        wait = now - job.st
        old = waits.get(job.group)
        waits[job.group] = wait if old is None else old + smoothing * (wait - old)
    return FrozenDict(waits)


# -- the module ----------------------------------------------------------------
def energy_saving(policy: EnergySavingPolicy, machine_nodes: int,
                  node: NodePower = NodePower(), active_until: float = math.inf,
                  unit_nodes: int = 1) -> Net:
    """The module; ports Nodes, Power, Queuing, Runtime Info, Selected (all
    in/out) and the *Trigger* fusion place.  ``active_until``: the last
    arrival, after which the tick stops once no job waits or runs.
    ``unit_nodes``: nodes sleep by whole units of that many (:func:`decide`).

    With ``policy.enabled`` False only *Sync* is left: nodes stay on and the
    ledger still follows them.  ``node`` gives the transitions' durations
    and powers; the idle and loaded power of *Power* are the enclosing
    model's (``nets/energy_saving.py`` sets them from ``node``)."""
    on = machine_nodes if policy.initially_on is None else policy.initially_on
    if on > machine_nodes:
        raise ValueError(f"initially_on ({on}) exceeds the machine's {machine_nodes} nodes")
    cold = machine_nodes - on
    if unit_nodes < 1 or machine_nodes % unit_nodes or cold % unit_nodes:
        raise ValueError(f"nodes sleep by whole {unit_nodes}-node units: the machine's "
                         f"{machine_nodes} nodes and the {cold} initially off must be "
                         "whole units")
    module = Net("EnergySaving", env={
        "follow": follow, "decide": partial(decide, machine_nodes=machine_nodes, policy=policy,
                                            unit_nodes=unit_nodes),
        "take_oldest": take_oldest, "merge_before": merge_before,
        "boots": partial(boots, node=node), "halts": partial(halts, node=node),
        "power_change": partial(power_change, node=node), "is_tail": is_tail,
        "record_waits": partial(record_waits, smoothing=policy.wait_smoothing),
        "until": float(active_until), "idle_threshold": float(policy.idle_threshold_s)})
    for port, colour in (("Nodes", int), ("Power", float), ("Queuing", tuple),
                         ("RuntimeInfo", FrozenDict), ("Selected", tuple)):
        module.place(port, colour, port="inout")
    module.place("Trigger", bool, fusion=TRIGGER_FUSION)
    module.place("IdlePool", IdlePool, initial=[IdlePool(on, ((0.0, on),) if on else ())])

    module.transition("Sync", guard="free != pool.count", priority=P_SYNC,
                      inputs={"Nodes": "free", "IdlePool": "pool"},
                      outputs={"Nodes": "free", "IdlePool": "follow(pool, free, now)"})
    if not policy.enabled:
        return module

    module.place("Standby", int, initial=[cold])
    module.place("Halting", int, initial=[0])
    module.place("Booting", tuple, initial=[()])
    module.place("PoweringOn", BootBatch, timed=True)
    module.place("PoweringOff", HaltBatch, timed=True)
    module.place("Clock", int, initial=[timed(0, 0.0)], timed=True)
    module.place("LastDecision", Decision, initial=[Decision(-math.inf)])
    module.place("Waits", FrozenDict, initial=[FrozenDict()])

    if cold:  # the machine starts with some nodes in standby
        module.place("Cold", bool, initial=[True])
        module.transition("Start", priority=P_START,
                          inputs={"Cold": "True", "Nodes": "free", "Power": "watts"},
                          outputs={"Nodes": f"free - {cold}", "Power":
                                   f"watts - {cold * (node.idle_w - node.standby_w)!r}"})

    read = {"Selected": "sel", "Queuing": "queue", "RuntimeInfo": "running", "Waits": "waits"}
    module.transition(
        "Tick", priority=P_TICK,
        guard="not sel and (now <= until or queue or running or booting)",
        code="decision = decide(now, queue, free, idle, standby, booting, halting, waits)\n"
             "pool = take_oldest(merge_before(idle, now - idle_threshold), "
             "decision.power_off)",
        inputs={"Clock": "tick", **read, "Nodes": "free", "IdlePool": "idle",
                "Standby": "standby", "Booting": "booting", "Halting": "halting",
                "Power": "watts", "LastDecision": "last"},
        outputs={"Clock": f"tick@+{policy.period_s!r}", **read,
                 "Nodes": "free - decision.power_off", "IdlePool": "pool",
                 "Standby": "standby - decision.power_on",
                 "Booting": "booting + tuple(boots(decision))",
                 "Halting": "halting + decision.power_off",
                 "PoweringOn": f"*boots(decision)@+{node.power_on_s!r}",
                 "PoweringOff": f"*halts(decision)@+{node.power_off_s!r}",
                 "Power": "watts + power_change(decision)", "LastDecision": "decision"})

    module.transition(
        "Booted", priority=P_BOOTED,
        inputs={"PoweringOn": "batch", "Booting": "booting", "Nodes": "free",
                "Power": "watts", "Trigger": "signal"},
        outputs={"Booting": "tuple(b for b in booting if b != batch)",
                 "Nodes": "free + batch.nodes",
                 "Power": f"watts + batch.nodes * {node.idle_w - node.power_on_w!r}",
                 "Trigger": "True"})
    module.transition(
        "Halted", priority=P_HALTED,
        inputs={"PoweringOff": "batch", "Halting": "halting", "Standby": "standby",
                "Power": "watts"},
        outputs={"Halting": "halting - batch.nodes", "Standby": "standby + batch.nodes",
                 "Power": f"watts - batch.nodes * {node.power_off_w - node.standby_w!r}"})

    if policy.watches_waits:
        module.place("Observed", tuple, initial=[()])
        module.transition("Observe", guard="sel and not is_tail(sel, seen)",
                          priority=P_OBSERVE,
                          inputs={"Selected": "sel", "Observed": "seen", "Waits": "waits"},
                          outputs={"Selected": "sel", "Observed": "sel",
                                   "Waits": "record_waits(waits, sel, now)"})
    return module


SOCKETS = ("Nodes", "Power", "Queuing", "RuntimeInfo", "Selected")


def attach(net: Net, policy: EnergySavingPolicy, machine_nodes: int,
           node: NodePower = NodePower(), active_until: float = math.inf,
           name: str = "EnergySaving", unit_nodes: int = 1) -> Net:
    """Add the module to a net built by ``nets.puppet.compose`` (its
    sockets are the top-level places of the same names); returns ``net``."""
    net.substitution(name, energy_saving(policy, machine_nodes, node, active_until,
                                         unit_nodes),
                     {socket: socket for socket in SOCKETS})
    return net


# -- the paper's queue scheduler -------------------------------------------------
QUEUE_KEYS: dict[str, Callable[[Job], object] | None] = {
    "single": None, "group": lambda job: job.group, "user": lambda job: job.user}


@dataclass(frozen=True)
class FifoQueues:
    """The paper's queueing scheduler (section 2.4, SGE-like): FIFO within
    each queue, no backfilling.  SWF traces rarely fill the queue field
    (NASA's is empty, and ``Job`` does not carry it), so ``queue`` says what
    a queue is: ``"single"`` (one queue: plain FCFS), ``"group"`` or
    ``"user"``.  ``trigger`` and ``estimate`` as in ``SchedulingConfig``."""

    queue: str = "single"
    trigger: str = "event"
    estimate: str = "requested"

    def __post_init__(self):
        if self.queue not in QUEUE_KEYS:
            raise ValueError(f"queue must be one of {tuple(QUEUE_KEYS)}, not {self.queue!r}")
        if self.trigger not in P_SCHEDULE:
            raise ValueError(f"trigger must be one of {tuple(P_SCHEDULE)}, not {self.trigger!r}")
        if self.estimate not in ESTIMATES:
            raise ValueError(f"estimate must be one of {ESTIMATES}, not {self.estimate!r}")

    @property
    def scheduling(self) -> SchedulingConfig:
        """The batch scheduling options allocation and *Schedule* share."""
        return SchedulingConfig(policy="fcfs", estimate=self.estimate, trigger=self.trigger,
                                backfill=False)


def fifo_per_queue(queue: tuple[Job, ...], running: Mapping, free: int, now: float,
                   queue_of: Callable[[Job], object] | None = None
                   ) -> tuple[list[Job], tuple[Job, ...]]:
    """One pass of FIFO per queue: in arrival order, a job starts when it
    fits and no earlier job of its queue is still waiting; a job that does
    not fit blocks its queue only.  Same signature as ``easy.easy_pass``.

    >>> jobs = (Job(1, 0, 10, 3, 10, group=1), Job(2, 1, 10, 1, 10, group=1),
    ...         Job(3, 2, 10, 1, 10, group=2))
    >>> [job.id for job in fifo_per_queue(jobs, {}, 2, 5)[0]]
    []
    >>> [job.id for job in fifo_per_queue(jobs, {}, 2, 5, lambda job: job.group)[0]]
    [3]
    """
    started: list[Job] = []
    blocked: set = set()
    for job in queue:
        key = None if queue_of is None else queue_of(job)
        if key in blocked:
            continue
        if job.js <= free:
            started.append(job)
            free -= job.js
        else:
            blocked.add(key)
            if queue_of is None:
                break
    if not started:
        return started, queue
    chosen = {job.id for job in started}
    return started, tuple(job for job in queue if job.id not in chosen)


def fifo_scheduling(config: FifoQueues = FifoQueues()) -> Net:
    """A scheduler module for ``compose(scheduler=...)``: PuPPET's batch
    scheduling net (*Submit*, *Trigger*, *Schedule*) running
    :func:`fifo_per_queue` instead of EASY."""
    return batch_scheduling(config.scheduling, name="FifoQueues",
                            schedule=partial(fifo_per_queue, queue_of=QUEUE_KEYS[config.queue]))


BOOTING = "booting nodes"  # the key of the phantom entry in Runtime Info


def pair(end: float, nodes: int) -> tuple[float, int]:
    """A *Runtime Info* value of PuPPET's allocation: planned end, nodes."""
    return end, nodes


def with_booting_nodes(queue: Sequence[Job], running: Mapping, free: int, now: float,
                       boot_delay: float, entry: Callable[[float, int], tuple] = pair
                       ) -> Mapping:
    """*Runtime Info* as EASY should see it when nodes sleep: if a queued
    job is larger than the idle and loaded nodes, the missing nodes appear
    as a phantom job ending ``boot_delay`` from now (when the nodes the
    energy-saving tick boots for it are ready at the latest).  Without it
    the head's shadow time does not exist (``easy.shadow`` raises).
    ``entry(end, nodes)`` makes the phantom's value in the layout of the
    model's *Runtime Info*, whose values hold the nodes second."""
    if not queue:
        return running
    on = free + sum(value[1] for value in running.values())
    biggest = max(job.js for job in queue)
    if biggest <= on:
        return running
    return {**running, BOOTING: entry(now + boot_delay, biggest - on)}


def easy_with_sleeping_nodes(queue: tuple[Job, ...], running: Mapping, free: int,
                             now: float, boot_delay: float, **options):
    """``easy.easy_pass`` on :func:`with_booting_nodes`: the head keeps its
    reservation while its nodes boot, and backfilling fills the wait."""
    return easy_pass(queue, with_booting_nodes(queue, running, free, now, boot_delay),
                     free, now, **options)


def scheduling_module(scheduling: SchedulingConfig | FifoQueues, boot_delay: float) -> Net:
    """The scheduler module for a machine whose nodes sleep: the paper's
    FIFO per queue, or PuPPET's batch scheduling (FCFS/WFP with EASY)
    planning with booting nodes (:func:`easy_with_sleeping_nodes`)."""
    if isinstance(scheduling, FifoQueues):
        return fifo_scheduling(scheduling)
    return batch_scheduling(scheduling, schedule=partial(
        easy_with_sleeping_nodes, boot_delay=boot_delay, policy=scheduling.policy,
        estimate=scheduling.estimate, backfill=scheduling.backfill))


# -- naming the nodes ----------------------------------------------------------
class LedgerMonitor(Monitor):
    """Follows the module's firings and keeps a :class:`NodeLedger` (names,
    per-node times, timeline).  Job starts and ends are read from *Runtime
    Info* when *Sync* fires (a job requeued after a failure ends there and
    starts again later); the ledger closes when *Finished* holds ``jobs``
    jobs (the makespan), so what happens after is not counted."""

    def __init__(self, ledger: NodeLedger, node: NodePower = NodePower(),
                 jobs: int | None = None, name: str = "EnergySaving",
                 runtime_info: str = "RuntimeInfo", finished: str = "Finished"):
        self.ledger, self.node, self.jobs, self.name = ledger, node, jobs, name
        self.runtime_info, self.finished = runtime_info, finished
        self.decisions: list[Decision] = []

    def watched_transitions(self, sim):
        self.kinds: dict[int, str] = {}
        for kind in ("Sync", "Tick", "Booted", "Halted"):
            try:
                self.kinds[sim.transition_index(f"{self.name}/{kind}")] = kind
            except KeyError:
                pass  # an always-on module has only Sync
        # Untimed places read after firings, by index: Simulator.tokens()
        # looks the path up each call (as run_model reads Finished).
        self._running = sim._R[sim.place_index(self.runtime_info)]
        self._finished = sim._R[sim.place_index(self.finished)]
        self._decision = (sim._R[sim.place_index(f"{self.name}/LastDecision")]
                          if "Tick" in self.kinds.values() else None)
        self._batch = {t: sim.transitions[t].variables.index("batch")
                       for t, kind in self.kinds.items() if kind in ("Booted", "Halted")}
        return list(self.kinds)

    def fired(self, sim, transition, values):
        kind, now, ledger = self.kinds[transition], sim.now, self.ledger
        if kind == "Sync":
            running = self._running[0]
            for job_id in ledger.running.keys() - running.keys():
                ledger.job_ended(job_id, now)
            for job_id in running.keys() - ledger.running.keys():
                ledger.job_started(job_id, running[job_id][1], now)
            if self.jobs is not None and len(self._finished) >= self.jobs:
                ledger.close(now)
        elif kind == "Tick":
            decision = self._decision[0]
            if decision.power_off:
                ledger.power_off(decision.power_off, now, now + self.node.power_off_s)
            if decision.power_on:
                ledger.power_on(decision.power_on, now, now + self.node.power_on_s)
            if decision.power_on or decision.power_off:
                self.decisions.append(decision)
        else:
            batch = values[self._batch[transition]]
            (ledger.booted if kind == "Booted" else ledger.halted)(batch.ready, now)
        return False
