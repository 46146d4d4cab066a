"""Mira: the PuPPET net with Cobalt's scheduler, BG/Q blocks and maintenance.

PuPPET's claim is that its model was validated on Mira.  Mira did not run
node-count EASY: Cobalt started each job on a whole BG/Q block, ordered
its queue by WFP utility, drained blocks for the jobs it could not start
and backfilled only into their drain windows, and the machine stopped for
weekly maintenance.  This net is PuPPET's (``nets.puppet.compose``) with
the scheduler module replaced by ``modules.cobalt_scheduler``; each part
of the Mira model is switched by :class:`MiraConfig`, so a validation can
show what each one buys:

- ``blocks``: jobs run on blocks of ``mira.xml`` (``None``: node counts);
- ``drain``: Cobalt's drain-and-backfill-window rule (with blocks);
- ``maintenance``: the weekly maintenance windows (``Calendar()``: none);
- ``failures``: fatal RAS events, each taking the blocks that contain its
  hardware out until repaired (with blocks; ``modules.mira_failures``);
- ``slop``, ``accumulate``, ``backfill``, ``interval``, ``held_targets``:
  five rules of Cobalt's source (with blocks; ``modules.cobalt_policy``):
  reservations' 180 s slack, the utility summed over the scheduler's
  passes, every queue drains, one start a pass every 10 s, no drain when
  the block to drain is held for a reservation;
- ``scheduled``: the blocks Cobalt was allowed to schedule (a block's
  ``scheduled`` flag and queue list are site settings; the logs show which
  blocks Mira's jobs used: :func:`scheduled_blocks`).

Whatever the switches, the window's initial state is the log's: jobs
running when it opened, and reservation jobs, start at their logged start
on their logged block (``modules.cobalt_log``).

>>> from modules.bgq_blocks import read_blocks
>>> from modules.cobalt_log import read_cobalt_log
>>> workload = read_cobalt_log("wk1.log")                                 # doctest: +SKIP
>>> result = simulate(workload, MiraConfig(blocks=read_blocks("mira.xml")))  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from cpn import timed
from cpn.colours import FrozenDict
from modules.batch_scheduling import P_FINISH, SchedulingConfig
from modules.bgq_blocks import BlockMachine, block_size_of_name
from modules.cobalt_log import RESERVATION_PREFIX, CobaltWorkload
from modules.cobalt_policy import (RESERVATION_SLOP_S, SCHEDULE_INTERVAL_S, CobaltPolicy,
                                   Reservation, on_block)
from modules.cobalt_scheduler import BLOCKS_FUSION, cobalt_scheduling
from modules.maintenance import Calendar
from modules.mira_failures import Failure, Outage, jobs_hit, outages
from modules.power_capping import requeue
from nets.puppet import PuppetConfig, PuppetResult, compose, run_model

#: Mira's scheduling as Cobalt ran it: WFP utility, jobs planned with their
#: requested walltime and killed at it.
MIRA_SCHEDULING = SchedulingConfig(policy="wfp", estimate="requested", overrun="clamp")


@dataclass(frozen=True)
class MiraConfig:
    """The parts of the Mira model, each switchable.

    ``blocks``: the BG/Q blocks (``read_blocks("mira.xml")``), or None for
    node counts; ``drain``: Cobalt's drain rule (only with blocks);
    ``maintenance``: machine-wide windows in Unix seconds (the log's clock);
    ``failures``: fatal RAS events (only with blocks).  Three rules of
    Cobalt's source, with blocks: ``slop``, a job overlaps a reservation
    or maintenance window when its walltime plus 180 s reaches it;
    ``accumulate``, the queue is ordered by the utility summed over the
    scheduler's passes; ``backfill``, what the ``backfill`` queue does
    (``"cobalt"``: it drains as every queue does; ``"no-drain"``: it never
    drains; ``"last"``: after every other job); ``interval``, the
    scheduler passes every 10 s and starts one job a pass;
    ``held_targets``, a job whose drain block (the earliest free of all,
    a block of an active reservation free at its end) is held for a
    reservation drains nothing.  ``scheduled``: the names of the blocks
    jobs may run on (empty: every block of ``blocks``), Cobalt's
    scheduled blocks (:func:`scheduled_blocks`).
    ``puppet``: the machine's power and the scheduling estimate and
    overrun; its ``machine_nodes`` is the workload's."""

    blocks: BlockMachine | None = None
    drain: bool = True
    maintenance: Calendar = field(default_factory=Calendar)
    failures: tuple[Failure, ...] = ()
    slop: bool = True
    accumulate: bool = True
    backfill: str = "cobalt"
    interval: bool = True
    held_targets: bool = True
    scheduled: frozenset[str] = frozenset()
    puppet: PuppetConfig = field(
        default_factory=lambda: PuppetConfig(machine_nodes=49_152, scheduling=MIRA_SCHEDULING))

    def __post_init__(self):
        if self.failures and self.blocks is None:
            raise ValueError("failures take blocks out of service: they need blocks")
        if self.scheduled and self.blocks is None:
            raise ValueError("scheduled blocks restrict blocks: they need blocks")
        unknown = sorted(self.scheduled - set(self.blocks.index)) if self.scheduled else []
        if unknown:
            raise ValueError(f"scheduled blocks not in the partition file: "
                             f"{', '.join(unknown[:5])}")

    def describe(self) -> str:
        """The configuration in a few words, for tables."""
        if self.blocks is None:
            parts = ["node-count EASY"]
        else:
            parts = ["blocks", "drain" if self.drain else "first fit"]
        if self.maintenance.windows:
            parts.append("maintenance")
        if self.failures:
            parts.append("failures")
        if self.blocks is not None:
            parts += [name for name, on in (("slop", self.slop),
                                            ("summed utility", self.accumulate),
                                            (BACKFILL_PARTS[self.backfill], True),
                                            ("10 s passes", self.interval),
                                            ("held drain targets", self.held_targets),
                                            ("scheduled blocks", bool(self.scheduled)))
                      if on and name]
        return " + ".join(parts)


#: How :meth:`MiraConfig.describe` names each ``backfill`` rule (none: our
#: own reading of the queue's name, where the ladder starts).
BACKFILL_PARTS = {"no-drain": "", "cobalt": "every queue drains", "last": "backfill queue last"}


def ladder(full: MiraConfig) -> list[MiraConfig]:
    """Node-count EASY, then the parts of ``full`` added one at a time
    (blocks, the drain rule, maintenance, failures, then Cobalt's rules:
    slop, summed utility, the backfill queue's rule, 10 s passes, held
    drain targets, scheduled blocks): what a validation runs to show what
    each part buys."""
    steps = [replace(full, blocks=None, drain=False, maintenance=Calendar(), failures=(),
                     slop=False, accumulate=False, backfill="no-drain", interval=False,
                     held_targets=False, scheduled=frozenset())]
    if full.blocks is not None:
        steps.append(replace(steps[-1], blocks=full.blocks))
        if full.drain:
            steps.append(replace(steps[-1], drain=True))
    if full.maintenance.windows:
        steps.append(replace(steps[-1], maintenance=full.maintenance))
    if full.failures:
        steps.append(replace(steps[-1], failures=full.failures))
    if full.blocks is not None:
        for part, value in (("slop", full.slop), ("accumulate", full.accumulate),
                            ("backfill", full.backfill), ("interval", full.interval),
                            ("held_targets", full.held_targets),
                            ("scheduled", full.scheduled)):
            if value != getattr(steps[-1], part):
                steps.append(replace(steps[-1], **{part: value}))
    return steps


def logged_block(workload: CobaltWorkload, machine: BlockMachine, job_id: int) -> int:
    """The number of the block ``job_id`` ran on; a block the partition
    file does not define (some reservations used blocks of their own) is
    stood in for by a defined block of its size with the same first
    corner, else the first of its size."""
    name = workload.blocks[job_id]
    if name in machine.index:
        return machine.index[name]
    size = machine.size_for(block_size_of_name(name) or 512)
    corner = name.split("-")[1] if name.count("-") >= 2 else ""
    same_size = machine.by_size[size]
    for number in same_size:
        if machine.blocks[number].name.split("-")[1] == corner:
            return number
    return same_size[0]


def unknown_blocks(workload: CobaltWorkload, machine: BlockMachine) -> dict[int, str]:
    """Replayed jobs whose logged block is not in the partition file."""
    return {job_id: workload.blocks[job_id] for job_id in sorted(workload.replayed)
            if workload.blocks[job_id] not in machine.index}


#: Queues confined to some racks, as Mira's logs show them: ``prod-long``
#: jobs ran only on the first row (R00 to R0F) in both ``wk1.log`` and
#: ``wk2.log`` (32 midplanes, every block they used), every other queue
#: anywhere.
QUEUE_RACKS = {"prod-long": tuple(f"R0{digit}" for digit in "0123456789ABCDEF")}


def queue_blocks(machine: BlockMachine) -> dict[str, int]:
    """The blocks (a bit set) each confined queue may use: those whose
    midplanes are all in its racks."""
    confined = {}
    for queue, racks in QUEUE_RACKS.items():
        mask = 0
        for number, block in enumerate(machine.blocks):
            if all(midplane.split("-")[0] in racks for midplane in block.midplanes):
                mask |= 1 << number
        confined[queue] = mask
    return confined


def scheduled_blocks(workloads: Sequence[CobaltWorkload]) -> frozenset[str]:
    """The blocks Cobalt scheduled on, as the logs show them: every block a
    job of ``workloads`` ran on, reservations' jobs aside (a reservation
    names its own blocks).  Cobalt offers a queue only the blocks marked
    ``scheduled`` with the queue in their list (``bgq_base_system``'s
    location cache), a site setting the logs alone record: on Mira's two
    logs the blocks of each size up to 8,192 nodes tile the machine once
    (plus two 1,024-node torus blocks), and of the 30 larger blocks 8
    were used."""
    return frozenset(workload.blocks[job.id] for workload in workloads for job in workload.jobs
                     if not workload.queues[job.id].startswith(RESERVATION_PREFIX))


def scheduled_mask(machine: BlockMachine, names: frozenset[str]) -> int | None:
    """The bit set of the blocks named (None: no restriction)."""
    if not names:
        return None
    return sum(1 << machine.index[name] for name in names)


#: Jobs of one reservation queue that start less than this after the
#: previous ones ended ran in one reservation (the log's R.* queues run
#: their jobs back to back; a longer gap means another reservation).
RESERVATION_GAP_S = 2 * 3600.0


def reservations_of(workload: CobaltWorkload, machine: BlockMachine) -> tuple[Reservation, ...]:
    """The reservations the log's ``R.*`` jobs ran in: per queue, from the
    first logged start to the last logged end of jobs run back to back
    (:data:`RESERVATION_GAP_S`), over every block they used."""
    starts = workload.replayed_starts()
    runtimes = {job.id: job.rt for job in workload.jobs}
    by_queue: dict[str, list[tuple[float, float, int]]] = {}
    for job_id in starts:
        queue = workload.queues[job_id]
        if queue.startswith(RESERVATION_PREFIX):
            block = logged_block(workload, machine, job_id)
            by_queue.setdefault(queue, []).append(
                (starts[job_id], starts[job_id] + runtimes[job_id], block))
    reservations = []
    for queue, runs in sorted(by_queue.items()):
        runs.sort()
        first, last, blocks = runs[0][0], runs[0][1], machine.conflicts[runs[0][2]]
        for start, end, block in runs[1:]:
            if start > last + RESERVATION_GAP_S:
                reservations.append(Reservation(queue, first, last, blocks))
                first, last, blocks = start, end, 0
            last = max(last, end)
            blocks |= machine.conflicts[block]
        reservations.append(Reservation(queue, first, last, blocks))
    return tuple(reservations)


def policy_for(workload: CobaltWorkload, config: MiraConfig) -> CobaltPolicy:
    """The scheduling policy of ``config`` for the window of ``workload``."""
    machine = config.blocks
    reservations, down = (), ()
    if machine is not None:
        first, last = workload.window_on_trace_clock()
        down = tuple(Outage(outage.start - workload.time_offset,
                            outage.end - workload.time_offset, outage.blocks)
                     for outage in outages(list(config.failures), machine, first,
                                           last + 30 * 86_400))
        reservations = reservations_of(workload, machine)
    return CobaltPolicy(machine=machine, drain=config.drain,
                        maintenance=config.maintenance.shifted(workload.time_offset),
                        reservations=reservations, queues=workload.queues,
                        opens=workload.window_opens,
                        estimate=config.puppet.scheduling.estimate,
                        policy=config.puppet.scheduling.policy, outages=down,
                        queue_blocks={} if machine is None else queue_blocks(machine),
                        slop=RESERVATION_SLOP_S if config.slop and machine else 0.0,
                        accumulate=config.accumulate and machine is not None,
                        backfill=config.backfill if machine else "no-drain",
                        interval=SCHEDULE_INTERVAL_S if config.interval and machine else 0.0,
                        held_targets=config.held_targets,
                        scheduled=None if machine is None else scheduled_mask(machine,
                                                                              config.scheduled))


def build_net(workload: CobaltWorkload, config: MiraConfig):
    """The Mira net for ``workload``'s window."""
    policy = policy_for(workload, config)
    starts = workload.replayed_starts()
    blocks = ({} if config.blocks is None else
              {job_id: logged_block(workload, config.blocks, job_id) for job_id in starts})
    last = max(job.st + job.rt for job in workload.jobs) if workload.jobs else 0.0
    repaired = (outage.end for outage in policy.outages)
    wake = [workload.window_opens, *(end for end in (*policy.maintenance.ends, *repaired)
                                     if workload.window_opens < end < last + 30 * 86_400)]
    scheduling = config.puppet.scheduling
    scheduler = cobalt_scheduling(policy, starts, blocks, wake, scheduling.trigger,
                                  scheduling.overrun)
    net = compose("Mira", config.puppet, "Running", "Running", scheduler=scheduler)
    if policy.outages:
        add_job_failures(net, policy.outages, workload, config)
    return net


#: A failure strikes after the ends of its instant and before anything
#: starts; a superseded end is dropped before *Finish* could take it.
P_FAIL = P_FINISH + 1
P_DISCARD = P_FINISH - 1


def add_job_failures(net, down: tuple[Outage, ...], workload: CobaltWorkload,
                     config: MiraConfig) -> None:
    """*Fail*: at each outage's start, the jobs on its blocks (not those
    replayed from the log) fail: TOPPER's ``on_failure="requeue"`` without
    checkpoints.  Each gives back its nodes and power, leaves *Runtime
    Info*, and goes back to the queue in its submit order with its
    ``version`` raised; *Killed* (job id -> failures so far) lets
    *Discard* drop the end its failed run left in *Running*, and
    *Failed Runs* keeps each run cut short (``(start, end, nodes)``: its
    nodes were busy)."""
    clamp = config.puppet.scheduling.overrun == "clamp"
    originals = {job.id: job.killed_at_limit() if clamp else job for job in workload.jobs}
    busy_delta = config.puppet.power.busy_delta

    estimate = config.puppet.scheduling.estimate

    def cut_short(job_ids, running, now) -> tuple:
        """The runs the failure ends: ``(start, now, nodes)`` each (a run's
        planned end is its start plus its estimate)."""
        return tuple((running[job_id][0] - originals[job_id].estimate(estimate), now,
                      running[job_id][1]) for job_id in job_ids)

    def failed(job_ids, running, killed) -> tuple:
        """The failed jobs as they go back to the queue, with the size and
        power of their block: what their nodes and power counted."""
        return tuple(on_block(originals[job_id], running[job_id][1])._replace(
                         version=killed.get(job_id, 0) + 1) for job_id in job_ids)

    net.env.update({
        "jobs_hit": jobs_hit, "replayed": workload.replayed, "failed": failed,
        "cut_short": cut_short,
        "requeue": requeue, "freed_nodes": lambda jobs: sum(job.js for job in jobs),
        "freed_watts": lambda jobs: sum(busy_delta(job) for job in jobs),
        "counted": lambda killed, jobs: killed | {job.id: job.version for job in jobs},
        "forget": lambda running, job_ids: FrozenDict(
            {job_id: plan for job_id, plan in running.items() if job_id not in job_ids})})
    net.place("Failures", tuple, timed=True,
              initial=[timed((outage.start, outage.blocks), outage.start) for outage in down])
    net.place("Killed", FrozenDict, initial=[FrozenDict()])
    net.place("FailedRuns", tuple, initial=[()])
    net.place("Blocks", FrozenDict, fusion=BLOCKS_FUSION)
    net.transition(
        "Fail", priority=P_FAIL,
        code="hit = jobs_hit(outage[1], placed, running, replayed)\n"
             "lost = failed(hit, running, killed)",
        inputs={"Failures": "outage", "Blocks": "placed", "RuntimeInfo": "running",
                "Nodes": "free", "Power": "watts", "Queuing": "queue", "Killed": "killed",
                "FailedRuns": "runs", "Trigger": "signal"},
        outputs={"Blocks": "placed", "RuntimeInfo": "forget(running, hit)",
                 "Nodes": "free + freed_nodes(lost)", "Power": "watts - freed_watts(lost)",
                 "Queuing": "requeue(queue, lost)",
                 "Killed": "counted(killed, lost)",
                 "FailedRuns": "runs + cut_short(hit, running, now)",
                 "Trigger": "True"})
    net.transition("Discard", priority=P_DISCARD, guard="job.version < killed.get(job.id, 0)",
                   inputs={"Running": "job", "Killed": "killed"}, outputs={"Killed": "killed"})


def simulate(workload: CobaltWorkload, config: MiraConfig = MiraConfig(), seed: int = 0,
             energy_steps=(), progress: Callable[[float, int], None] | None = None,
             stop: Callable[[], bool] | None = None) -> PuppetResult:
    """Run the Mira net over the jobs of ``workload`` (with their powers:
    ``modules.power_profile``) until all have finished; times in the result
    are the log's (Unix seconds).  The machine is the workload's, which
    must be that of ``config.blocks``: nodes outside every block would
    stand idle and count."""
    if config.blocks is not None and config.blocks.nodes != workload.machine_nodes:
        raise ValueError(f"the blocks are a machine of {config.blocks.nodes:,} nodes, the "
                         f"workload's has {workload.machine_nodes:,} (read_cobalt_log's "
                         "machine_nodes)")
    config = replace(config, puppet=replace(config.puppet,
                                            machine_nodes=workload.machine_nodes))
    net = build_net(workload, config)
    result, sim = run_model(net, workload.jobs, config.puppet, seed, energy_steps,
                            workload.time_offset, progress, stop=stop)
    result.metrics["mira"] = config.describe()
    if config.blocks is not None:
        result.metrics["replayed_on_undefined_blocks"] = len(unknown_blocks(workload,
                                                                            config.blocks))
    if "Killed" in net.places:
        result.metrics["job_failures"] = sum(sim.tokens("Killed")[0].values())
        result.metrics["failed_runs"] = [[start + workload.time_offset,
                                          end + workload.time_offset, nodes]
                                         for start, end, nodes in sim.tokens("FailedRuns")[0]]
    return result
