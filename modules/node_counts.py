"""The machine's nodes by state, counted rather than named: the totals of a
``NodeLedger`` at a cost per change that does not grow with the nodes it
moves.

A run that reports only the machine's totals (``cpn run``'s node-hours,
shutdowns, boots and energy by state) needs no node's name: on a
Mira-sized machine a job takes thousands of nodes, and naming each of them
at every start and end was most of such a run.  :class:`NodeCounts` takes
the same stream of changes as :class:`~modules.node_ledger.NodeLedger`
and gives the same totals (to the rounding of the sums: it adds node
counts times durations where the ledger adds each node's durations); the
per-node table and the state timeline need the ledger.
"""

from __future__ import annotations

from .node_ledger import (IDLE, LOADED, PER_NODE_COLUMNS, POWERING_OFF, POWERING_ON, STANDBY,
                          accounted_energy_wh, nodes_on)
from .node_power import STATE_NAMES, NodePower, NodeState
from .tables import Columns


class NodeCounts:
    """How many nodes are in each state, and the node-seconds each state
    has held since ``start``; the changes and the totals of a
    ``NodeLedger`` (its rules: an accounting that stops at :meth:`close`,
    a shutdown counted when it starts, a node active until it has halted)."""

    def __init__(self, nodes: int, initially_on: int | None = None, start: float = 0.0):
        on = nodes_on(nodes, initially_on)
        self.nodes, self.start = nodes, float(start)
        self.count = [0] * len(NodeState)
        self.count[IDLE], self.count[STANDBY] = on, nodes - on
        self._node_s = [0.0] * len(NodeState)
        self._last = self.start
        self.running: dict = {}  # job id -> (nodes, start)
        self.job_node_s: dict = {}  # job id -> node-seconds loaded, over all its runs
        self.booting: dict[float, int] = {}  # ready time -> nodes
        self.halting: dict[float, int] = {}
        self.shutdowns = self.power_ons = 0
        self.active = self.max_active = on
        self.closed_at: float | None = None

    def _move(self, count: int, source: int, to: int, now: float) -> None:
        if now != self._last and self.closed_at is None:  # nothing to charge at one instant
            self._elapse(now)
        self.count[source] -= count
        self.count[to] += count

    def _elapse(self, now: float) -> None:
        """Charge each state its nodes for the time since the last change."""
        spent, node_s = now - self._last, self._node_s
        for state, count in enumerate(self.count):
            node_s[state] += count * spent
        self._last = now

    # -- changes (NodeLedger's) --------------------------------------------------
    def job_started(self, job_id, count: int, now: float) -> None:
        if count > self.count[IDLE]:
            raise ValueError(f"job {job_id} needs {count} nodes, only {self.count[IDLE]} idle")
        self._move(count, IDLE, LOADED, now)
        self.running[job_id] = (count, now)

    def job_ended(self, job_id, now: float) -> None:
        count, began = self.running.pop(job_id)
        self.job_node_s[job_id] = self.job_node_s.get(job_id, 0.0) + count * (now - began)
        self._move(count, LOADED, IDLE, now)

    def power_off(self, count: int, now: float, ready: float) -> None:
        if count > self.count[IDLE]:
            raise ValueError(f"cannot switch off {count} nodes, only {self.count[IDLE]} idle")
        self._move(count, IDLE, POWERING_OFF, now)
        if self.closed_at is None:
            self.shutdowns += count
        self.halting[ready] = count

    def halted(self, ready: float, now: float) -> None:
        count = self.halting.pop(ready)
        self._move(count, POWERING_OFF, STANDBY, now)
        if self.closed_at is None:
            self.active -= count

    def power_on(self, count: int, now: float, ready: float) -> None:
        if count > self.count[STANDBY]:
            raise ValueError(f"cannot power on {count} nodes, only {self.count[STANDBY]} "
                             "in standby")
        self._move(count, STANDBY, POWERING_ON, now)
        if self.closed_at is None:
            self.power_ons += count
            self.active += count
            self.max_active = max(self.max_active, self.active)
        self.booting[ready] = count

    def booted(self, ready: float, now: float) -> None:
        self._move(self.booting.pop(ready), POWERING_ON, IDLE, now)

    def close(self, now: float) -> None:
        """End the accounting at ``now`` (the makespan)."""
        if self.closed_at is None:
            self._elapse(now)
            self.closed_at, self._at_close = float(now), list(self.count)

    # -- results -----------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """How many nodes are in each state now, or at the close once closed."""
        return dict(zip(STATE_NAMES, self.count if self.closed_at is None else self._at_close))

    def residency_totals(self) -> dict[NodeState, float]:
        """Node-seconds per state, up to the close (or the last change)."""
        return {state: self._node_s[state] for state in NodeState}

    def energy_wh(self, node: NodePower = NodePower(), loaded_wh: float | None = None
                  ) -> float:
        """As ``NodeLedger.energy_wh``."""
        return accounted_energy_wh(self.residency_totals(), self.power_ons, self.shutdowns,
                                   node, loaded_wh)

    def machine_totals(self) -> dict[str, float]:
        """Shutdowns, power-ons, and node-seconds active (not in standby)
        and inactive, over the machine."""
        node_s = self._node_s
        return {"shutdowns": self.shutdowns, "power_ons": self.power_ons,
                "active_node_s": sum(node_s) - node_s[STANDBY],
                "inactive_node_s": node_s[STANDBY]}

    def per_node_columns(self) -> Columns:
        """No node is named: an empty per-node table (``NodeLedger`` has it)."""
        return Columns.from_rows([], list(PER_NODE_COLUMNS))

    def timeline_columns(self, time_offset: float = 0.0) -> Columns:
        """No state interval is kept: an empty timeline."""
        return Columns.from_rows([], ["node", "state", "start", "end"])
