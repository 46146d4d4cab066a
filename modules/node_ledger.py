"""Every node's power state by name (Dolz et al., section 2.1): the
per-node view of a run whose net only counts nodes.

The energy-saving module decides in counts (how many nodes to switch off
or boot; ``modules/energy_saving`` explains why); :class:`NodeLedger`
gives the counts names with fixed rules -- a job takes the most recently
idle nodes, a switch-off takes the least recently used ones, a power-on
takes standby nodes by name or by wear -- and so yields per-node active
and inactive time, shutdowns and a state timeline
(``node_state_plot.plot_node_states``).
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

import numpy as np

from .node_power import POWER_ON_ORDERS, STATE_NAMES, NodePower, NodeState, energy_wh
from .tables import Columns

if TYPE_CHECKING:
    import pandas as pd

STANDBY, POWERING_ON, IDLE, LOADED, POWERING_OFF = (int(state) for state in NodeState)
#: The columns of :meth:`NodeLedger.per_node`.
PER_NODE_COLUMNS = ("node", *(f"{name}_s" for name in STATE_NAMES), "active_s", "inactive_s",
                    "shutdowns", "power_ons", "mean_active_interval_s",
                    "mean_inactive_interval_s")


def nodes_on(nodes: int, initially_on: int | None) -> int:
    """How many of ``nodes`` start on (all unless ``initially_on`` says)."""
    if nodes <= 0:
        raise ValueError(f"a ledger needs at least one node, not {nodes}")
    on = nodes if initially_on is None else int(initially_on)
    if not 0 <= on <= nodes:
        raise ValueError(f"initially_on must be within [0, {nodes}], not {initially_on}")
    return on


def accounted_energy_wh(residency: dict[NodeState, float], power_ons: int, shutdowns: int,
                        node: NodePower, loaded_wh: float | None) -> float:
    """:func:`energy_wh` of the residencies; with ``loaded_wh``, the loaded
    nodes' energy when jobs draw their own power (a trace's, a DVFS
    gear's) rather than ``node.loaded_w``, in place of their residency's."""
    if loaded_wh is None:
        return energy_wh(residency, power_ons, shutdowns, node)
    residency = {**residency, NodeState.LOADED: 0.0}
    return loaded_wh + energy_wh(residency, power_ons, shutdowns, node)


class NodeLedger:
    """Every node's state by name, from a stream of count-level decisions.

    Nodes are numbered ``0 .. nodes-1`` (the names); ``0 .. initially_on-1``
    start idle, the rest in standby, at ``start``.  Per node it keeps the
    residency in each state, shutdowns (powering-off transitions started)
    and power-ons, the number of active and inactive intervals, and with
    ``timeline`` every state interval (node, state, start, end) for the
    plot.  Memory is a few arrays of ``nodes`` entries plus, with
    ``timeline``, one record per node state change.

    ``power_on_order``: ``"name"`` boots the standby node with the lowest
    number (the paper's only policy, hostname order); ``"wear"`` boots the
    one with the fewest shutdowns so far (then by name), which spreads
    power cycles over the machine instead of wearing the first nodes.
    """

    def __init__(self, nodes: int, initially_on: int | None = None, start: float = 0.0,
                 power_on_order: str = "name", timeline: bool = True):
        on = nodes_on(nodes, initially_on)
        if power_on_order not in POWER_ON_ORDERS:
            raise ValueError(f"power_on_order must be one of {POWER_ON_ORDERS}, "
                             f"not {power_on_order!r}")
        self.nodes, self.start, self.order = nodes, float(start), power_on_order
        # Plain lists, not numpy: each change touches a handful of nodes,
        # where a list is several times cheaper than a tiny array.  A loaded
        # node's state and since are its job's (:meth:`_states`): a job's
        # start and end touch only the residency and, at its end, since, so
        # these two lists are private (stale for loaded nodes).
        self._state = [int(NodeState.IDLE)] * on + [int(NodeState.STANDBY)] * (nodes - on)
        self._since = [self.start] * nodes
        self.residency = [[0.0] * nodes for _ in NodeState]  # by state, then node
        self.shutdowns = [0] * nodes
        self.power_ons = [0] * nodes
        self.active_intervals = [1] * on + [0] * (nodes - on)
        self.inactive_intervals = [0] * on + [1] * (nodes - on)
        self.idle: list[int] = list(range(on))  # least recently used first (a few dozen)
        self.standby: list = [self._standby_key(n) for n in range(on, nodes)]
        heapq.heapify(self.standby)
        self.running: dict = {}  # job id -> node numbers
        self.job_started_at: dict = {}
        self.job_node_s: dict = {}  # job id -> node-seconds loaded, over all its runs
        self.booting: dict[float, list[int]] = {}  # ready time -> nodes
        self.halting: dict[float, list[int]] = {}
        self.active = on
        self.max_active = on
        self.closed_at: float | None = None
        # One (nodes, their old states, since when, until) per change; one
        # state stands for all the nodes of a job that started, and one
        # state and one time for all those of a job that ended.
        self._timeline = [] if timeline else None

    # -- changes ---------------------------------------------------------------
    def _standby_key(self, node: int):
        return (self.shutdowns[node], node) if self.order == "wear" else (node,)

    def _move(self, nodes: list[int], to: int, now: float) -> None:
        if self.closed_at is not None or not nodes:
            return
        state, since, residency = self._state, self._since, self.residency
        old, started = [], []
        for node in nodes:
            was, began = state[node], since[node]
            residency[was][node] += now - began
            state[node], since[node] = to, now
            old.append(was)
            started.append(began)
        if self._timeline is not None:
            self._timeline.append((nodes, old, started, now))

    def job_started(self, job_id, count: int, now: float) -> list[int]:
        """A job takes ``count`` idle nodes, the most recently idle first."""
        if count > len(self.idle):
            raise ValueError(f"job {job_id} needs {count} nodes, only {len(self.idle)} idle")
        taken = self.idle[:-count - 1:-1] if count else []  # popped from the end
        del self.idle[len(self.idle) - count:]
        if self.closed_at is None and taken:  # _move, knowing they are all idle
            since, idle_s = self._since, self.residency[IDLE]
            if self._timeline is not None:
                self._timeline.append((taken, IDLE, [since[node] for node in taken], now))
            for node in taken:
                idle_s[node] += now - since[node]
        self.running[job_id] = taken
        self.job_started_at[job_id] = now
        return taken

    def job_ended(self, job_id, now: float) -> list[int]:
        """The job's nodes become idle (most recently used)."""
        freed = self.running.pop(job_id)
        began = self.job_started_at.pop(job_id)
        held = len(freed) * (now - began)
        self.job_node_s[job_id] = self.job_node_s.get(job_id, 0.0) + held
        if self.closed_at is None:  # _move, knowing they are all loaded since it began
            since, loaded_s, spent = self._since, self.residency[LOADED], now - began
            for node in freed:
                loaded_s[node] += spent
                since[node] = now
            if self._timeline is not None:
                self._timeline.append((freed, LOADED, began, now))
        self.idle.extend(freed)
        return freed

    def power_off(self, count: int, now: float, ready: float) -> list[int]:
        """Switch off the ``count`` least recently used idle nodes."""
        if count > len(self.idle):
            raise ValueError(f"cannot switch off {count} nodes, only {len(self.idle)} idle")
        halted = self.idle[:count]
        del self.idle[:count]
        self._move(halted, POWERING_OFF, now)
        if self.closed_at is None:
            for node in halted:
                self.shutdowns[node] += 1  # still active (not standby) until halted
        self.halting[ready] = halted
        return halted

    def halted(self, ready: float, now: float) -> list[int]:
        nodes = self.halting.pop(ready)
        self._move(nodes, STANDBY, now)
        if self.closed_at is None:
            for node in nodes:
                self.inactive_intervals[node] += 1
            self.active -= len(nodes)
        for node in nodes:
            heapq.heappush(self.standby, self._standby_key(node))
        return nodes

    def power_on(self, count: int, now: float, ready: float) -> list[int]:
        """Boot ``count`` standby nodes in the ledger's power-on order."""
        if count > len(self.standby):
            raise ValueError(f"cannot power on {count} nodes, only {len(self.standby)} "
                             "in standby")
        booted = [heapq.heappop(self.standby)[-1] for _ in range(count)]
        self._move(booted, POWERING_ON, now)
        if self.closed_at is None:
            for node in booted:
                self.power_ons[node] += 1
                self.active_intervals[node] += 1
            self.active += len(booted)
            self.max_active = max(self.max_active, self.active)
        self.booting[ready] = booted
        return booted

    def booted(self, ready: float, now: float) -> list[int]:
        nodes = self.booting.pop(ready)
        self._move(nodes, IDLE, now)
        self.idle.extend(nodes)
        return nodes

    def close(self, now: float) -> None:
        """End the accounting at ``now`` (the makespan): open intervals are
        closed there and later changes are no longer counted."""
        if self.closed_at is not None:
            return
        self._state, since = self._states()
        for node, state in enumerate(self._state):  # closes each open interval
            self.residency[state][node] += now - since[node]
        if self._timeline is not None:
            self._timeline.append((range(self.nodes), list(self._state), since, now))
        self._since = [now] * self.nodes
        self.closed_at = float(now)

    def _states(self) -> tuple[list[int], list[float]]:
        """Every node's state and since when: a loaded node's are its job's."""
        if self.closed_at is not None:
            return self._state, self._since
        state, since, started = list(self._state), list(self._since), self.job_started_at
        for job_id, nodes in self.running.items():
            for node in nodes:
                state[node], since[node] = LOADED, started[job_id]
        return state, since

    # -- results ---------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """How many nodes are in each state now."""
        states = self._states()[0]
        return {name: states.count(state) for state, name in zip(NodeState, STATE_NAMES)}

    def residency_totals(self) -> dict[NodeState, float]:
        """Node-seconds per state, over all nodes."""
        totals = self._residency_rows().sum(axis=0)
        return {state: float(totals[state]) for state in NodeState}

    def energy_wh(self, node: NodePower = NodePower(), loaded_wh: float | None = None
                  ) -> float:
        """:func:`energy_wh` over this ledger: steady residencies plus one
        charge per power-on and per shutdown started before the end.
        ``loaded_wh``: the loaded nodes' energy when jobs draw their own
        power (a trace's, a DVFS gear's) rather than ``node.loaded_w``."""
        return accounted_energy_wh(self.residency_totals(), sum(self.power_ons),
                                   sum(self.shutdowns), node, loaded_wh)

    def _residency_rows(self) -> np.ndarray:
        """Seconds by node (rows) and state, in C order (the sums read it so)."""
        return np.ascontiguousarray(np.array(self.residency).T)

    def machine_totals(self) -> dict[str, float]:
        """Shutdowns, power-ons, and node-seconds active (not in standby)
        and inactive, summed over the nodes."""
        columns = self.per_node_columns().columns
        return {"shutdowns": int(columns["shutdowns"].sum()),
                "power_ons": int(columns["power_ons"].sum()),
                "active_node_s": float(columns["active_s"].sum()),
                "inactive_node_s": float(columns["inactive_s"].sum())}

    def per_node(self) -> pd.DataFrame:
        """One row per node: seconds in each state, active (not standby)
        and inactive (standby) time, shutdowns, power-ons, and the mean
        length of its active and inactive intervals (Table 2's last rows)."""
        return self.per_node_columns().frame()

    def per_node_columns(self) -> Columns:
        """:meth:`per_node` as columns (no pandas)."""
        residency = self._residency_rows()
        columns = {"node": np.arange(self.nodes)}
        columns.update((f"{name}_s", residency[:, state].copy())
                       for state, name in zip(NodeState, STATE_NAMES))
        active = residency.sum(axis=1) - residency[:, NodeState.STANDBY]
        inactive = residency[:, NodeState.STANDBY].copy()
        columns.update(active_s=active, inactive_s=inactive,
                       shutdowns=np.array(self.shutdowns, dtype=np.int64),
                       power_ons=np.array(self.power_ons, dtype=np.int64))
        with np.errstate(invalid="ignore", divide="ignore"):
            columns["mean_active_interval_s"] = (
                active / np.array(self.active_intervals, dtype=np.int64))
            columns["mean_inactive_interval_s"] = (
                inactive / np.array(self.inactive_intervals, dtype=np.int64))
        return Columns(columns)

    def timeline(self) -> pd.DataFrame:
        """Every closed state interval: ``node, state, start, end``, by node
        then time (empty without ``timeline``)."""
        return self.timeline_columns().frame()

    def timeline_columns(self, time_offset: float = 0.0) -> Columns:
        """:meth:`timeline` as columns (no pandas), its times moved by
        ``time_offset`` (onto a trace's clock)."""
        columns = ["node", "state", "start", "end"]
        if not self._timeline:
            return Columns.from_rows([], columns)
        chunks = [(nodes, old if isinstance(old, list) else [old] * len(nodes),
                   started if isinstance(started, list) else [started] * len(nodes), end)
                  for nodes, old, started, end in self._timeline]
        nodes = np.fromiter((n for chunk in chunks for n in chunk[0]), np.int64)
        states = np.fromiter((s for chunk in chunks for s in chunk[1]), np.int8)
        starts = np.fromiter((t for chunk in chunks for t in chunk[2]), np.float64)
        ends = np.fromiter((chunk[3] for chunk in chunks for _ in chunk[0]),
                           np.float64)
        kept = ends > starts
        nodes, states, starts, ends = nodes[kept], states[kept], starts[kept], ends[kept]
        order = np.lexsort((starts, nodes))  # stable: by node, then start
        starts, ends = starts[order], ends[order]
        if time_offset and len(nodes):
            starts, ends = starts + time_offset, ends + time_offset
        return Columns({"node": nodes[order], "state": [STATE_NAMES[s] for s in states[order]],
                        "start": starts, "end": ends})
