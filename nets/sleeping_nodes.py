"""Sleeping nodes on any model built on ``nets.puppet.compose`` (PuPPET,
TOPPER, the DVFS thesis policies): the setting a model takes as
``sleeping=``, its scheduler's planning with booting nodes, and the
energy-saving module it attaches.  ``nets/energy_saving.py`` runs it and
says what sleeping means on each model."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from cpn import Net
from modules.batch_scheduling import SchedulingConfig
from modules.energy_saving.ledger_monitor import LedgerMonitor
from modules.energy_saving.module import attach
from modules.energy_saving.policy import EnergySavingPolicy
from modules.energy_saving.scheduling import FifoQueues, scheduling_module, with_booting_nodes
from modules.job import Job
from modules.node_counts import NodeCounts
from modules.node_ledger import NodeLedger
from modules.node_power import NodePower

from .puppet import PuppetConfig

if TYPE_CHECKING:
    from modules.dvfs_thesis.plan import RunningJob


def idle_cpus(end: float, cpus: int) -> RunningJob:
    """A DVFS thesis *Runtime Info* value for CPUs still booting: free at
    ``end``, drawing nothing from a power budget meanwhile."""
    from modules.dvfs_thesis.plan import RunningJob

    return RunningJob(end, cpus, 0.0)


@dataclass(frozen=True)
class BootAwarePolicy:
    """A DVFS thesis scheduling policy (``(queue, arrivals, running, free,
    now, state) -> (started, waiting, state)``) that plans with the CPUs
    about to boot (:func:`modules.energy_saving.scheduling.with_booting_nodes`):
    without them the head's reservation does not exist while it is larger
    than the powered-on CPUs."""

    policy: Any
    boot_delay: float

    def initial_state(self):
        return self.policy.initial_state()

    def __call__(self, queue, arrivals, running, free, now, state):
        running = with_booting_nodes(queue, running, free, now, self.boot_delay, idle_cpus)
        return self.policy(queue, arrivals, running, free, now, state)


def check_parts(policy: Any, node: Any) -> None:
    """Refuse a ``policy`` that is no :class:`EnergySavingPolicy`, a ``node``
    that is no :class:`NodePower` (or None): each was an AttributeError of
    the run, or of the configuration (``'int' object has no attribute
    'initially_on'``)."""
    if not isinstance(policy, EnergySavingPolicy):
        raise ValueError(f"policy must be an EnergySavingPolicy, not {policy!r}")
    if not isinstance(node, (NodePower, type(None))):
        raise ValueError(f"node must be a NodePower, not {node!r}")


def checked_sleeping(sleeping: Any) -> SleepingNodes | None:
    """``sleeping`` as the models take it: None (nodes never sleep) or a
    :class:`SleepingNodes`; anything else (``sleeping=True``, a policy) was
    an AttributeError of building the net (``'int' object has no attribute
    'scheduler'``)."""
    if sleeping is None or isinstance(sleeping, SleepingNodes):
        return sleeping
    fix = (f"SleepingNodes({sleeping!r})" if isinstance(sleeping, EnergySavingPolicy)
           else "SleepingNodes() for the paper's policy")
    raise ValueError(f"sleeping must be a SleepingNodes (nets.energy_saving) or None, not "
                     f"{sleeping!r}: give {fix}")


@dataclass(frozen=True)
class SleepingNodes:
    """Nodes that sleep, for any model built on ``nets.puppet.compose``:
    the energy-saving ``policy`` and the nodes' power states ``node``
    (``None``: the paper's node scaled to the model's idle and full power,
    :meth:`node_power`).  ``timeline`` and ``per_node`` as in
    :class:`EnergySavingConfig`.

    A model takes it in two steps: its scheduler plans with the nodes about
    to boot (:meth:`scheduler` for PuPPET's batch scheduling, :meth:`planning`
    for a DVFS thesis policy), and :meth:`attach` adds the module to its
    net.  :meth:`monitor` names the nodes (pass it to the run's monitors)."""

    policy: EnergySavingPolicy = field(default_factory=EnergySavingPolicy)
    node: NodePower | None = None
    timeline: bool = True
    per_node: bool = True

    def __post_init__(self):
        check_parts(self.policy, self.node)
        if self.timeline and not self.per_node:
            raise ValueError("a node state timeline needs the nodes named: per_node=True "
                             "or timeline=False")

    @property
    def boot_delay(self) -> float:
        """The longest a job waits for booting nodes: the next tick, then a boot."""
        return self.policy.period_s + (self.node or NodePower()).power_on_s

    def node_power(self, puppet: PuppetConfig) -> NodePower:
        """The power states of the model's nodes.  The module moves *Power*
        by the states' differences, so a given ``node`` must idle at the
        model's idle power."""
        idle = puppet.power.idle_node_watts
        if not idle > 0:
            raise ValueError("idle nodes draw nothing in this model (the DVFS thesis' 'zero' "
                             "idle scenario): sleeping cannot save energy; use 'lowest_gear'")
        if self.node is None:
            return NodePower().scaled(idle, puppet.node_watts)
        if not math.isclose(self.node.idle_w, idle, rel_tol=1e-9):
            raise ValueError(f"the sleeping nodes idle at {self.node.idle_w:g} W, the model's "
                             f"at {idle:g} W: give NodePower(idle_w={idle:g}, ...)")
        return self.node

    def scheduler(self, scheduling: SchedulingConfig | FifoQueues,
                  machine_nodes: int) -> Net:
        """A batch scheduling module planning with booting nodes, on a
        machine of ``machine_nodes``."""
        return scheduling_module(scheduling, self.boot_delay, machine_nodes)

    def planning(self, policy) -> BootAwarePolicy:
        """A DVFS thesis policy planning with booting CPUs."""
        return BootAwarePolicy(policy, self.boot_delay)

    def attach(self, net: Net, jobs: Sequence[Job], puppet: PuppetConfig,
               unit_nodes: int = 1) -> Net:
        """Add the module to ``net`` (built by ``compose`` with ``puppet``);
        the tick may stop after the last of ``jobs`` has arrived.  Nodes
        sleep by whole units of ``unit_nodes``.  Under ``CpuScaling`` the
        level is chosen as if every node not busy were idle (an upper bound
        on the power when some sleep: the cap still holds)."""
        until = max((job.st for job in jobs), default=0.0)
        return attach(net, self.policy, puppet.machine_nodes, self.node_power(puppet), until,
                      unit_nodes=unit_nodes)

    def monitor(self, puppet: PuppetConfig, jobs: int) -> LedgerMonitor:
        """The nodes' ledger (their counts without ``per_node``), closed after ``jobs`` jobs."""
        policy = self.policy
        on = policy.initially_on if policy.enabled else None
        ledger = (NodeLedger(puppet.machine_nodes, on, power_on_order=policy.power_on_order,
                             timeline=self.timeline)
                  if self.per_node else NodeCounts(puppet.machine_nodes, on))
        return LedgerMonitor(ledger, self.node_power(puppet), jobs=jobs)
