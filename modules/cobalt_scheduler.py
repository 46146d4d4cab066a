"""Cobalt's scheduler as a module of the PuPPET net (Mira).

Same ports as ``batch_scheduling`` (Queuing, Runtime Info, Nodes,
Selected), so ``nets.puppet.compose`` takes it in its place; the policy is
:class:`modules.cobalt_policy.CobaltPolicy`.  What it adds to PuPPET's
scheduler, each as places and transitions of its own:

- *Blocks*: the block each running job holds (job id -> block number, one
  immutable ``FrozenDict``); *Schedule* reads and updates it, and drops
  the jobs that left *Runtime Info*;
- *Replay*: jobs the log says started at a given time on a given block
  (running when the window opened, or in a reservation): *Hold For Replay*
  takes them from *User* and *Start Replayed* selects them at their logged
  start on their logged block, as they ran (never cut at their walltime);
- *Calendar*: times at which nothing ends or arrives but the scheduler
  must look again (the window opening, the end of each maintenance
  window, and with Cobalt's pass interval the next tick); *Wake* raises
  *Trigger* then;
- *Last Start*: when *Schedule* last started a job; with Cobalt's pass
  interval it starts none again at that instant (one job a pass, however
  many wakes fall on the tick).
"""

from __future__ import annotations

from typing import Iterable, Mapping

from cpn import Net, timed
from cpn.colours import FrozenDict

from .batch_scheduling import P_FINISH, P_SCHEDULE, P_SUBMIT, scheduler_base
from .cobalt_policy import CobaltPolicy
from .job import Job

#: Replayed starts come after the ends of their instant, before submissions.
P_REPLAY = (P_FINISH + P_SUBMIT) // 2
#: The fusion set of *Blocks*, which a net's failures read.
BLOCKS_FUSION = "blocks"


def cobalt_scheduling(policy: CobaltPolicy, replay_starts: Mapping[int, float],
                      replay_blocks: Mapping[int, int], wake_times: Iterable[float],
                      trigger: str = "event", overrun: str = "keep") -> Net:
    """The module for ``policy``.  ``replay_starts`` (job id -> start) and
    ``replay_blocks`` (job id -> block number, for the replayed jobs whose
    block the machine knows) say which jobs start as logged;
    ``wake_times`` when *Schedule* must run although nothing happens."""
    module = Net("CobaltScheduling", env={
        "schedule": policy.schedule, "next_passes": policy.next_passes,
        "one_a_pass": bool(policy.interval),
        "replay_starts": dict(replay_starts),
        "replay_blocks": dict(replay_blocks), "FrozenDict": FrozenDict})
    scheduler_base(module, submit=False)
    module.place("Blocks", FrozenDict, initial=[FrozenDict()], fusion=BLOCKS_FUSION)
    module.place("Replay", Job, timed=True)
    module.place("LastStart", float, initial=[float("-inf")])
    module.place("Calendar", float, timed=True,
                 initial=[timed(float(when), when) for when in sorted(set(wake_times))])

    queued = "job.killed_at_limit()" if overrun == "clamp" else "job"
    module.transition("Submit", priority=P_SUBMIT, guard="job.id not in replay_starts",
                      inputs={"User": "job", "Queuing": "queue", "Trigger": "signal"},
                      outputs={"Queuing": f"queue + ({queued},)", "Trigger": "True"})
    module.transition("HoldForReplay", priority=P_SUBMIT, guard="job.id in replay_starts",
                      inputs={"User": "job"},
                      outputs={"Replay": "job@+(replay_starts[job.id] - now)"})
    module.transition(
        "StartReplayed", priority=P_REPLAY,
        inputs={"Replay": "job", "Selected": "()", "Blocks": "placed"},
        outputs={"Selected": "(job,)",
                 "Blocks": "placed | {job.id: replay_blocks[job.id]} "
                           "if job.id in replay_blocks else placed"})
    module.transition("Wake", priority=P_SUBMIT, inputs={"Calendar": "when", "Trigger": "signal"},
                      outputs={"Trigger": "True"})
    module.transition(
        "Schedule", priority=P_SCHEDULE[trigger],
        code="started, waiting, placed = (schedule(queue, running, before, free, now)\n"
             "    if now != last or not one_a_pass else\n"
             "    ([], queue, {job: block for job, block in before.items() if job in running}))",
        inputs={"Trigger": "True", "Queuing": "queue", "RuntimeInfo": "running",
                "Nodes": "free", "Selected": "()", "Blocks": "before", "LastStart": "last"},
        outputs={"Trigger": "False", "Queuing": "waiting", "RuntimeInfo": "running",
                 "Nodes": "free", "Selected": "tuple(started)", "Blocks": "FrozenDict(placed)",
                 "Calendar": "*next_passes(started, now)",
                 "LastStart": "now if started else last"})
    return module
