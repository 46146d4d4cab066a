"""The batch scheduling module (PuPPET section 3.1, Fig. 5).

Jobs leave *User* at their arrival time (*Submit*) and join the queue; each
submission and each job end (the *Finish* of the enclosing net) raises
*Trigger*, a fusion place, which lets *Schedule* run one pass of the policy
(FCFS or WFP ordering with EASY backfilling, ``easy.py``) against *Runtime
Info* and the free *Nodes*.  The jobs it picks go to *Selected*, where the
allocation module takes them.

When scheduling happens is a choice users of other simulators need:
``trigger="event"`` (PuPPET: after every submission and every finish) or
``"timestamp"`` (once per instant, after all finishes then all
submissions).  At equal times, finishes come before submissions.

So is what happens to a job that runs longer than it asked for:
``overrun="clamp"`` kills it at its requested walltime (*Submit* queues it
with its runtime cut to the request), as Slurm, Cobalt and CQSim do;
``"keep"`` lets it run to the end its trace gives, and EASY then counts it
as ending at every instant until it does.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable
from functools import partial

from cpn import P_LOW, Net
from cpn.colours import FrozenDict

from .easy import ESTIMATES, POLICIES, easy_pass_on_nodes
from .job import Job

TRIGGER_FUSION = "trigger"
#: Priorities of the transitions around scheduling: allocation first, then
#: job ends, then submissions; Schedule either right after each event or
#: once all events of the instant are in.
P_ALLOCATE = 100
P_FINISH = 500
P_SUBMIT = 1000
P_SCHEDULE = {"event": 300, "timestamp": P_LOW}
#: What becomes of a job that runs past its requested walltime.
OVERRUNS = ("keep", "clamp")


@dataclass(frozen=True)
class SchedulingConfig:
    """Batch scheduling options (PuPPET section 2.3 and 3.1)."""

    policy: str = "fcfs"  # "fcfs" or "wfp" (eq. 4)
    estimate: str = "requested"  # runtime plan: "requested" walltime or "actual" runtime
    trigger: str = "event"  # "event" (PuPPET) or "timestamp"
    backfill: bool = True  # EASY backfilling
    overrun: str = "keep"  # a job past its walltime: "keep" it running or "clamp" (kill) it

    def __post_init__(self):
        for name, value, allowed in (("policy", self.policy, POLICIES),
                                     ("estimate", self.estimate, ESTIMATES),
                                     ("trigger", self.trigger, tuple(P_SCHEDULE)),
                                     ("overrun", self.overrun, OVERRUNS)):
            if value not in allowed:
                raise ValueError(f"scheduling {name} must be one of {allowed}, not {value!r}")
        if getattr(getattr(self.backfill, "dtype", None), "kind", None) == "b":  # numpy's bool
            object.__setattr__(self, "backfill", bool(self.backfill))
        if not isinstance(self.backfill, bool):  # "no" is true: it backfilled
            raise ValueError(f"scheduling backfill must be True or False, not {self.backfill!r}")


def scheduler_base(module: Net, submit: bool = True, overrun: str = "keep") -> None:
    """The places every scheduler module has: jobs not yet submitted
    (*User*, released at their submit times), the *Trigger* shared with
    the rest of the net, and the ports ``nets.puppet.compose`` connects;
    with ``submit``, PuPPET's *Submit*, which queues each job as it arrives
    (killed at its limit with ``overrun="clamp"``) and triggers scheduling."""
    module.place("User", Job, timed=True)
    module.place("Trigger", bool, fusion=TRIGGER_FUSION)
    module.place("Queuing", tuple, port="inout")
    module.place("RuntimeInfo", FrozenDict, port="inout")
    module.place("Nodes", int, port="inout")
    module.place("Selected", tuple, port="inout")
    if submit:
        queued = "job.killed_at_limit()" if overrun == "clamp" else "job"
        module.transition("Submit", priority=P_SUBMIT,
                          inputs={"User": "job", "Queuing": "queue", "Trigger": "signal"},
                          outputs={"Queuing": f"queue + ({queued},)", "Trigger": "True"})


def batch_scheduling(config: SchedulingConfig = SchedulingConfig(),
                     schedule: Callable | None = None, name: str = "BatchScheduling",
                     checked: bool = True) -> Net:
    """The module; ports Queuing, Runtime Info, Nodes (read) and Selected.

    ``schedule(queue, running, free, now) -> (started, waiting)`` is the
    policy *Schedule* runs: by default EASY as ``config`` says; another
    paper's policy (FIFO per queue, EASY with booting nodes...) or one's
    own plugs in here and keeps Submit, Trigger and the ports.  Its answer
    is ``checked`` (:func:`checked_answer`) unless the caller says it is
    one of the project's own, tested against references."""
    own = schedule is None
    if own:
        schedule = easy_policy(config)
    call = "schedule(queue, running, free, now)"
    check = checked and not own
    module = Net(name, env={"schedule": schedule,
                            **({"checked_answer": checked_answer} if check else {})})
    scheduler_base(module, overrun=config.overrun)
    module.transition(
        "Schedule", priority=P_SCHEDULE[config.trigger],
        code=f"started, waiting = {f'checked_answer({call}, queue, free)' if check else call}",
        inputs={"Trigger": "True", "Queuing": "queue", "RuntimeInfo": "running",
                "Nodes": "free", "Selected": "()"},
        outputs={"Trigger": "False", "Queuing": "waiting", "RuntimeInfo": "running",
                 "Nodes": "free", "Selected": "tuple(started)"})
    return module


def easy_policy(config: SchedulingConfig) -> Callable:
    """EASY as ``config`` sets it: the policy the module runs by default."""
    return partial(easy_pass_on_nodes, policy=config.policy, estimate=config.estimate,
                   backfill=config.backfill)


def checked_answer(answer, queue: tuple[Job, ...], free: int) -> tuple[tuple, tuple]:
    """A policy's ``(started, waiting)`` for ``queue`` with ``free`` nodes,
    refused unless the started jobs fit together and every queued job is in
    exactly one of the two: allocation without a cap starts what it is
    given, so a policy that ignored ``free`` over-allocated the machine
    unsaid, and one that left a started job queued started it again and
    again, for ever."""
    started, waiting = (tuple(part) for part in answer)
    needed = sum(job.js for job in started)
    if needed > free:
        raise ValueError(f"the policy started jobs of {needed:,} nodes together "
                         f"({', '.join(str(job.id) for job in started)}) with {free:,} free")
    given = Counter(job.id for job in queue)
    returned = Counter(job.id for job in (*started, *waiting))
    if returned != given:
        twice, lost = sorted(returned - given), sorted(given - returned)
        raise ValueError("the policy must return each queued job once, started or waiting: "
                         + "; ".join(part for part in (
                             f"jobs {twice} came back more often than queued" if twice else "",
                             f"jobs {lost} were lost" if lost else "") if part))
    return started, waiting
