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
batches, ``idle_pool.py``), *Waits* (per-group mean wait of started jobs),
*Clock* (the tick's timer) and *Tick Clock* (its version, what the last
idle tick saw, and whether a *Clock* token waits).  Loaded nodes are
*Runtime Info*'s.

Transitions:

* *Sync* (priority 40, before anything else): after allocation or *Finish*
  changed *Nodes*, the idle pool follows -- a starting job takes the most
  recently idle nodes, a job's end adds a batch idle since now.
* *Tick* (every ``period_s``, after everything else of the instant): the
  energy-saving scheduler, ``decisions.decide``; switches off (-> *Powering
  Off*) or boots (-> *Powering On*).  It stops when no job is left to
  come, wait or run.  It skips the ticks that would decide nothing: after
  one, *Clock* waits until the clock could change the decision, and
  *Wake*, when the marking changes (but for changes that leave the
  machine blocked: ``tick_clock.blocked``), decides for the tick due next
  on the period's grid whether it must fire; *Drop* removes a superseded
  *Clock* token (``tick_clock.py``).
* *Booted*, *Halted*: the end of a transition.
* *Observe* (only when a group has a ``min_wait_s``): reads the jobs the
  scheduler selects, before *Allocate* takes them, for the mean waits.

Whole units: on a machine that allocates whole compute units (TOPPER's
racks), ``unit_nodes`` makes every switch-off and boot a whole number of
units, so *Nodes* stays a whole number of units and a job never waits for
a unit that is only partly on (see ``decisions.decide``).
"""

from __future__ import annotations

import math
from functools import partial

from cpn import P_LOW, Net, timed
from cpn.colours import FrozenDict

from ..batch_scheduling import P_FINISH, TRIGGER_FUSION
from ..node_power import NodePower
from .decisions import (BootBatch, Decision, HaltBatch, boots, decide, halts, is_tail,
                        power_change, quiet_until, record_waits)
from .idle_pool import IdlePool, follow, merge_before, take_oldest
from .policy import EnergySavingPolicy
from .tick_clock import (BLOCKED, TickClock, after_tick, blocked, due, seen_by, unchanged,
                         woken)

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
#: *Wake* once every change of the instant is in (after fault tolerance's
#: *Retime*, P_LOW + 2, which changes nothing a decision reads); *Drop*
#: only removes a superseded token.  Priorities no other transition has,
#: so no tie draws a random number.
P_WAKE = P_LOW + 3
P_DROP = P_LOW + 4


def energy_saving(policy: EnergySavingPolicy, machine_nodes: int,
                  node: NodePower = NodePower(), active_until: float = math.inf,
                  unit_nodes: int = 1) -> Net:
    """The module; ports Nodes, Power, Queuing, Runtime Info, Selected (all
    in/out) and the *Trigger* fusion place.  ``active_until``: the last
    arrival, after which the tick stops once no job waits or runs.
    ``unit_nodes``: nodes sleep by whole units of that many (``decide``).

    With ``policy.enabled`` False only *Sync* is left: nodes stay on and the
    ledger still follows them.  ``node`` gives the transitions' durations
    and powers; the idle and loaded power of *Power* are the enclosing
    model's (``nets/energy_saving.py`` sets them from ``node``)."""
    on = machine_nodes if policy.initially_on is None else policy.initially_on
    cold = _nodes_initially_off(machine_nodes, on, unit_nodes)
    module = Net("EnergySaving", env=_environment(policy, machine_nodes, node, active_until,
                                                  unit_nodes))
    _add_idle_pool(module, on)
    if not policy.enabled:
        return module
    _add_node_states(module, cold)
    if cold:  # the machine starts with some nodes in standby
        _add_start(module, cold, node)
    _add_tick(module, policy, node)
    _add_transition_ends(module, node)
    if policy.watches_waits:
        _add_wait_observer(module)
    return module


def _nodes_initially_off(machine_nodes: int, on: int, unit_nodes: int) -> int:
    """How many nodes start in standby; refused unless they, and the
    machine, are whole units."""
    if on > machine_nodes:
        raise ValueError(f"initially_on ({on}) exceeds the machine's {machine_nodes} nodes")
    cold = machine_nodes - on
    if unit_nodes < 1 or machine_nodes % unit_nodes or cold % unit_nodes:
        raise ValueError(f"nodes sleep by whole {unit_nodes}-node units: the machine's "
                         f"{machine_nodes} nodes and the {cold} initially off must be "
                         "whole units")
    return cold


def _environment(policy: EnergySavingPolicy, machine_nodes: int, node: NodePower,
                 active_until: float, unit_nodes: int) -> dict:
    """The functions and constants the inscriptions use, with this
    machine's policy and node bound."""
    return {
        "follow": follow, "decide": partial(decide, machine_nodes=machine_nodes, policy=policy,
                                            unit_nodes=unit_nodes),
        "take_oldest": take_oldest, "merge_before": merge_before,
        "boots": partial(boots, node=node), "halts": partial(halts, node=node),
        "power_change": partial(power_change, node=node), "is_tail": is_tail,
        "record_waits": partial(record_waits, smoothing=policy.wait_smoothing),
        "until": float(active_until), "idle_threshold": float(policy.idle_threshold_s),
        "quiet_until": partial(quiet_until, policy=policy, unit_nodes=unit_nodes),
        "period": float(policy.period_s), "after_tick": after_tick,
        "seen_by": partial(seen_by, unit_nodes=unit_nodes),
        "unchanged": unchanged, "woken": woken, "due": due,
        "blocked": blocked, "unit_nodes": unit_nodes, "BLOCKED": BLOCKED}


def _add_idle_pool(module: Net, on: int) -> None:
    """The ports, the idle pool (all ``on`` nodes idle since 0) and *Sync*,
    which keeps the pool following *Nodes*."""
    for port, colour in (("Nodes", int), ("Power", float), ("Queuing", tuple),
                         ("RuntimeInfo", FrozenDict), ("Selected", tuple)):
        module.place(port, colour, port="inout")
    module.place("Trigger", bool, fusion=TRIGGER_FUSION)
    module.place("IdlePool", IdlePool, initial=[IdlePool(on, ((0.0, on),) if on else ())])
    module.transition("Sync", guard="free != pool.count", priority=P_SYNC,
                      inputs={"Nodes": "free", "IdlePool": "pool"},
                      outputs={"Nodes": "free", "IdlePool": "follow(pool, free, now)"})


def _add_node_states(module: Net, cold: int) -> None:
    """The places of the nodes that are not on and idle, and of the tick."""
    module.place("Standby", int, initial=[cold])
    module.place("Halting", int, initial=[0])
    module.place("Booting", tuple, initial=[()])
    module.place("PoweringOn", BootBatch, timed=True)
    module.place("PoweringOff", HaltBatch, timed=True)
    module.place("Clock", int, initial=[timed(0, 0.0)], timed=True)
    module.place("TickClock", TickClock, initial=[TickClock(0, 0.0)])
    module.place("LastDecision", Decision, initial=[Decision(-math.inf)])
    module.place("Waits", FrozenDict, initial=[FrozenDict()])


def _add_start(module: Net, cold: int, node: NodePower) -> None:
    """*Start*: the ``cold`` nodes leave *Nodes* and draw standby power."""
    module.place("Cold", bool, initial=[True])
    module.transition("Start", priority=P_START,
                      inputs={"Cold": "True", "Nodes": "free", "Power": "watts"},
                      outputs={"Nodes": f"free - {cold}", "Power":
                               f"watts - {cold * (node.idle_w - node.standby_w)!r}"})


def _add_tick(module: Net, policy: EnergySavingPolicy, node: NodePower) -> None:
    """*Tick*: every ``period_s``, one decision; its switch-offs leave the
    idle pool, its boots and halts begin.  While ticks would decide nothing
    it sleeps, *Wake* wakes it when the marking changes and *Drop* removes
    a superseded *Clock* token (``tick_clock.py``)."""
    read = {"Selected": "sel", "Queuing": "queue", "RuntimeInfo": "running", "Waits": "waits"}
    module.transition(
        "Tick", priority=P_TICK,
        guard="clock.armed and tick == clock.version and not sel "
              "and (now <= until or queue or running or booting)",
        code="decision = decide(now, queue, free, idle, standby, booting, halting, waits)\n"
             "pool = take_oldest(merge_before(idle, now - idle_threshold), "
             "decision.power_off)\n"
             "clock_now, ticks = after_tick(clock, decision, now, period, "
             "seen_by(queue, free, pool, standby, booting, halting, waits, running), "
             "quiet_until(now, queue, pool, standby))",
        inputs={"Clock": "tick", "TickClock": "clock", **read, "Nodes": "free",
                "IdlePool": "idle", "Standby": "standby", "Booting": "booting",
                "Halting": "halting", "Power": "watts", "LastDecision": "last"},
        outputs={"Clock": "*ticks", "TickClock": "clock_now", **read,
                 "Nodes": "free - decision.power_off", "IdlePool": "pool",
                 "Standby": "standby - decision.power_on",
                 "Booting": "booting + tuple(boots(decision))",
                 "Halting": "halting + decision.power_off",
                 "PoweringOn": f"*boots(decision)@+{node.power_on_s!r}",
                 "PoweringOff": f"*halts(decision)@+{node.power_off_s!r}",
                 "Power": "watts + power_change(decision)", "LastDecision": "decision"})
    # What blocked() reads first: a search of a blocked machine reads no more.
    seen = {"RuntimeInfo": "running", "Standby": "standby", "Queuing": "queue",
            "IdlePool": "idle", "Selected": "sel", "Nodes": "free", "Booting": "booting",
            "Halting": "halting", "Waits": "waits"}
    module.transition(
        "Wake", priority=P_WAKE,
        guard="clock.seen is not None "
              "and not (clock.seen is BLOCKED "
              "and blocked(queue, idle, standby, running, sel, unit_nodes)) "
              "and (clock.seen is BLOCKED or not unchanged(clock.seen, queue, free, idle, "
              "standby, booting, halting, waits, running))",
        code="at = due(clock, now, period)\n"
             "decision = decide(at, queue, free, idle, standby, booting, halting, waits)\n"
             "clock_now, ticks = woken(clock, now, at, period, decision, "
             "not sel and (at <= until or bool(queue) or bool(running) or bool(booting)), "
             "seen_by(queue, free, idle, standby, booting, halting, waits, running), "
             "quiet_until(at, queue, idle, standby))",
        inputs={"TickClock": "clock", **seen},
        outputs={"TickClock": "clock_now", "Clock": "*ticks", **seen})
    module.transition("Drop", priority=P_DROP, guard="tick != clock.version",
                      inputs={"Clock": "tick", "TickClock": "clock"},
                      outputs={"TickClock": "clock"})


def _add_transition_ends(module: Net, node: NodePower) -> None:
    """*Booted* (nodes join *Nodes* and raise *Trigger*) and *Halted*
    (nodes reach standby)."""
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


def _add_wait_observer(module: Net) -> None:
    """*Observe*: the waits of the jobs the scheduler selects, per group."""
    module.place("Observed", tuple, initial=[()])
    module.transition("Observe", guard="sel and not is_tail(sel, seen)",
                      priority=P_OBSERVE,
                      inputs={"Selected": "sel", "Observed": "seen", "Waits": "waits"},
                      outputs={"Selected": "sel", "Observed": "sel",
                               "Waits": "record_waits(waits, sel, now)"})


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


