"""Power-aware allocation (PuPPET section 3.2, Fig. 6).

The jobs the scheduler selected (*Selected*, in its order) are allocated
one by one.  *Allocate* starts the head job when its power keeps the system
at or under the cap ``Pcap``; otherwise *Wait* moves it to the *Wait Queue*
while that holds fewer than ``l`` jobs, and *Hold* returns it and its
successors to the queue (BLOCK).  *Allocate W*, of higher priority, starts
a waiting job as soon as one fits — whenever system power changes, which is
what the paper's *Power Change* transition detects: here the engine
re-examines *Allocate W* after every change of *Power*, so the two are one
transition.  A job that has waited longer than ``w`` blocks everything
behind it until it is allocated (the paper's *Block* signal, here the
``blocked`` test in the guards).

With ``Pcap = inf`` (the default) nothing ever waits or is held: this is
plain allocation, and the net leaves out the transitions that could never
fire.  So does BLOCK (``l = 0``): its *Wait Queue* stays empty, *Wait* and
*Allocate W* never fire and are left out, and *Allocate* and *Hold* test
nodes and power alone (no job can have waited, so none blocks; their
guards do not read the clock, and a clock tick searches them no more).
The decisions are plain functions (``power_capping.py``).
"""

from __future__ import annotations

import math

from cpn import Net
from cpn.colours import FrozenDict

from .batch_scheduling import P_ALLOCATE
from .job import Job
from .power import PowerModel
from .power_capping import AllocationRules, PowerCap, requeue

P_ALLOCATE_WAITING = P_ALLOCATE // 2  # Allocate W before Allocate (Fig. 6)


def allocation_ports(module: Net, running: str = "out") -> None:
    """The ports every allocation module has (``nets.puppet.compose``
    connects them): the selected jobs, the queue they may go back to, free
    nodes, system power, the scheduler's view of running jobs, and the
    place started jobs go to (``running``: ``"inout"`` for a module that
    also takes them back, as DVFS re-times them)."""
    module.place("Selected", tuple, port="inout")
    module.place("Queuing", tuple, port="inout")
    module.place("Nodes", int, port="inout")
    module.place("Power", float, port="inout")
    module.place("RuntimeInfo", FrozenDict, port="inout")
    module.place("Running", Job, timed=True, port=running)


def power_allocation(power: PowerModel, cap: PowerCap, estimate: str,
                     runtime: str = "job.rt") -> Net:
    """Ports Selected, Queuing, Nodes, Power, Runtime Info, Running; a
    started job's token is delayed by ``runtime`` (an inscription: its
    runtime, or ``0`` when a fault tolerance module decides when it ends)."""
    rules = AllocationRules(power, cap)
    module = Net("PowerAllocation", env={
        "busy_delta": power.busy_delta, "fits": rules.fits, "blocked": rules.blocked,
        "pick_waiting": rules.pick_waiting, "requeue": requeue,
        "wait_room": cap.wait_queue_length})
    allocation_ports(module)
    module.place("WaitQueue", tuple, initial=[()])

    planned = f"job.estimate({estimate!r})"
    resources = {"Nodes": "free", "Power": "watts", "RuntimeInfo": "running"}
    started = {"Nodes": "free - job.js", "Power": "watts + busy_delta(job)",
               "RuntimeInfo": f"running | {{job.id: (now + {planned}, job.js)}}",
               "Running": f"job.entered(now)@+{runtime}"}
    if math.isinf(cap.cap_watts):  # nothing can wait or be held: leave them out
        module.transition("Allocate", priority=P_ALLOCATE, guard="sel", code="job = sel[0]",
                          inputs={"Selected": "sel", **resources},
                          outputs={"Selected": "sel[1:]", **started})
        return module
    if cap.wait_queue_length == 0:  # BLOCK: nothing waits, nothing has waited too long
        _block(module, resources, started)
    else:
        _wait(module, resources, started)
    return module


def _block(module: Net, resources: dict, started: dict) -> None:
    """BLOCK's *Allocate* and *Hold*: nodes and power decide alone."""
    module.transition(
        "Allocate", priority=P_ALLOCATE, code="job = sel[0]",
        guard="sel and sel[0].js <= free and fits(sel[0], watts, running)",
        inputs={"Selected": "sel", **resources}, outputs={"Selected": "sel[1:]", **started})
    module.transition(
        "Hold", priority=P_ALLOCATE,
        guard="sel and (sel[0].js > free or not fits(sel[0], watts, running))",
        inputs={"Selected": "sel", "Queuing": "queue", **resources},
        outputs={"Selected": "()", "Queuing": "requeue(queue, sel)", **resources})


def _wait(module: Net, resources: dict, started: dict) -> None:
    """WAIT's *Allocate*, *Wait*, *Hold* and *Allocate W* (Fig. 6)."""
    head = {"Selected": "sel", "WaitQueue": "waiting", **resources}
    module.transition(
        "Allocate", priority=P_ALLOCATE, code="job = sel[0]",
        guard="sel and not blocked(waiting, now) and sel[0].js <= free "
              "and fits(sel[0], watts, running)",
        inputs=head, outputs={"Selected": "sel[1:]", "WaitQueue": "waiting", **started})
    module.transition(
        "Wait", priority=P_ALLOCATE,
        guard="sel and not blocked(waiting, now) and sel[0].js <= free "
              "and not fits(sel[0], watts, running) and len(waiting) < wait_room",
        inputs=head, outputs={"Selected": "sel[1:]",
                              "WaitQueue": "waiting + (sel[0].entered(now),)",
                              **resources})
    module.transition(
        "Hold", priority=P_ALLOCATE,
        guard="sel and (blocked(waiting, now) or sel[0].js > free or "
              "(not fits(sel[0], watts, running) and len(waiting) >= wait_room))",
        inputs={**head, "Queuing": "queue"},
        outputs={"Selected": "()", "WaitQueue": "waiting", "Queuing": "requeue(queue, sel)",
                 **resources})
    module.transition(
        "AllocateW", priority=P_ALLOCATE_WAITING,
        guard="pick_waiting(waiting, free, watts, running, now) is not None",
        code="slot = pick_waiting(waiting, free, watts, running, now)\njob = waiting[slot]",
        inputs={"WaitQueue": "waiting", **resources},
        outputs={"WaitQueue": "waiting[:slot] + waiting[slot + 1:]", **started})
