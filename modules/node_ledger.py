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
from collections import deque

import numpy as np
import pandas as pd

from .node_power import POWER_ON_ORDERS, STATE_NAMES, NodePower, NodeState, energy_wh


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
        if nodes <= 0:
            raise ValueError(f"a ledger needs at least one node, not {nodes}")
        on = nodes if initially_on is None else int(initially_on)
        if not 0 <= on <= nodes:
            raise ValueError(f"initially_on must be within [0, {nodes}], not {initially_on}")
        if power_on_order not in POWER_ON_ORDERS:
            raise ValueError(f"power_on_order must be one of {POWER_ON_ORDERS}, "
                             f"not {power_on_order!r}")
        self.nodes, self.start, self.order = nodes, float(start), power_on_order
        self.state = np.full(nodes, NodeState.STANDBY, dtype=np.int8)
        self.state[:on] = NodeState.IDLE
        self.since = np.full(nodes, self.start)
        self.residency = np.zeros((nodes, len(NodeState)))
        self.shutdowns = np.zeros(nodes, dtype=np.int64)
        self.power_ons = np.zeros(nodes, dtype=np.int64)
        self.active_intervals = (self.state != NodeState.STANDBY).astype(np.int64)
        self.inactive_intervals = 1 - self.active_intervals
        self.idle: deque[int] = deque(range(on))  # least recently used first
        self.standby: list = [self._standby_key(n) for n in range(on, nodes)]
        heapq.heapify(self.standby)
        self.running: dict = {}  # job id -> node numbers
        self.job_started_at: dict = {}
        self.job_node_s: dict = {}  # job id -> node-seconds loaded, over all its runs
        self.booting: dict[float, np.ndarray] = {}  # ready time -> nodes
        self.halting: dict[float, np.ndarray] = {}
        self.active = on
        self.max_active = on
        self.closed_at: float | None = None
        self._timeline = [] if timeline else None

    # -- changes ---------------------------------------------------------------
    def _standby_key(self, node: int):
        return (int(self.shutdowns[node]), node) if self.order == "wear" else (node,)

    def _move(self, nodes: np.ndarray, to: NodeState, now: float) -> None:
        if self.closed_at is not None or len(nodes) == 0:
            return
        old = self.state[nodes]
        started = self.since[nodes]
        self.residency[nodes, old] += now - started
        if self._timeline is not None:
            self._timeline.append((nodes.copy(), old, started, np.full(len(nodes), now)))
        self.state[nodes] = to
        self.since[nodes] = now

    def job_started(self, job_id, count: int, now: float) -> np.ndarray:
        """A job takes ``count`` idle nodes, the most recently idle first."""
        if count > len(self.idle):
            raise ValueError(f"job {job_id} needs {count} nodes, only {len(self.idle)} idle")
        taken = np.array([self.idle.pop() for _ in range(count)], dtype=np.int64)
        self._move(taken, NodeState.LOADED, now)
        self.running[job_id] = taken
        self.job_started_at[job_id] = now
        return taken

    def job_ended(self, job_id, now: float) -> np.ndarray:
        """The job's nodes become idle (most recently used)."""
        freed = self.running.pop(job_id)
        held = len(freed) * (now - self.job_started_at.pop(job_id))
        self.job_node_s[job_id] = self.job_node_s.get(job_id, 0.0) + held
        self._move(freed, NodeState.IDLE, now)
        self.idle.extend(freed.tolist())
        return freed

    def power_off(self, count: int, now: float, ready: float) -> np.ndarray:
        """Switch off the ``count`` least recently used idle nodes."""
        if count > len(self.idle):
            raise ValueError(f"cannot switch off {count} nodes, only {len(self.idle)} idle")
        halted = np.array([self.idle.popleft() for _ in range(count)], dtype=np.int64)
        self._move(halted, NodeState.POWERING_OFF, now)
        if self.closed_at is None:
            self.shutdowns[halted] += 1  # still active (not standby) until halted
        self.halting[ready] = halted
        return halted

    def halted(self, ready: float, now: float) -> np.ndarray:
        nodes = self.halting.pop(ready)
        self._move(nodes, NodeState.STANDBY, now)
        if self.closed_at is None:
            self.inactive_intervals[nodes] += 1
            self.active -= len(nodes)
        for node in nodes.tolist():
            heapq.heappush(self.standby, self._standby_key(node))
        return nodes

    def power_on(self, count: int, now: float, ready: float) -> np.ndarray:
        """Boot ``count`` standby nodes in the ledger's power-on order."""
        if count > len(self.standby):
            raise ValueError(f"cannot power on {count} nodes, only {len(self.standby)} "
                             "in standby")
        booted = np.array([heapq.heappop(self.standby)[-1] for _ in range(count)],
                          dtype=np.int64)
        self._move(booted, NodeState.POWERING_ON, now)
        if self.closed_at is None:
            self.power_ons[booted] += 1
            self.active_intervals[booted] += 1
            self.active += len(booted)
            self.max_active = max(self.max_active, self.active)
        self.booting[ready] = booted
        return booted

    def booted(self, ready: float, now: float) -> np.ndarray:
        nodes = self.booting.pop(ready)
        self._move(nodes, NodeState.IDLE, now)
        self.idle.extend(nodes.tolist())
        return nodes

    def close(self, now: float) -> None:
        """End the accounting at ``now`` (the makespan): open intervals are
        closed there and later changes are no longer counted."""
        if self.closed_at is not None:
            return
        everyone = np.arange(self.nodes)
        self._move(everyone, self.state.copy(), now)  # closes each open interval
        self.closed_at = float(now)

    # -- results ---------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """How many nodes are in each state now."""
        return {name: int(np.count_nonzero(self.state == state))
                for state, name in zip(NodeState, STATE_NAMES)}

    def residency_totals(self) -> dict[NodeState, float]:
        """Node-seconds per state, over all nodes."""
        totals = self.residency.sum(axis=0)
        return {state: float(totals[state]) for state in NodeState}

    def energy_wh(self, node: NodePower = NodePower(), loaded_wh: float | None = None
                  ) -> float:
        """:func:`energy_wh` over this ledger: steady residencies plus one
        charge per power-on and per shutdown started before the end.
        ``loaded_wh``: the loaded nodes' energy when jobs draw their own
        power (a trace's, a DVFS gear's) rather than ``node.loaded_w``."""
        residency = self.residency_totals()
        if loaded_wh is None:
            return energy_wh(residency, int(self.power_ons.sum()), int(self.shutdowns.sum()),
                             node)
        residency[NodeState.LOADED] = 0.0
        return loaded_wh + energy_wh(residency, int(self.power_ons.sum()),
                                     int(self.shutdowns.sum()), node)

    def per_node(self) -> pd.DataFrame:
        """One row per node: seconds in each state, active (not standby)
        and inactive (standby) time, shutdowns, power-ons, and the mean
        length of its active and inactive intervals (Table 2's last rows)."""
        frame = pd.DataFrame(self.residency, columns=[f"{name}_s" for name in STATE_NAMES])
        frame.insert(0, "node", np.arange(self.nodes))
        frame["active_s"] = self.residency.sum(axis=1) - self.residency[:, NodeState.STANDBY]
        frame["inactive_s"] = self.residency[:, NodeState.STANDBY]
        frame["shutdowns"] = self.shutdowns
        frame["power_ons"] = self.power_ons
        with np.errstate(invalid="ignore", divide="ignore"):
            frame["mean_active_interval_s"] = frame["active_s"] / self.active_intervals
            frame["mean_inactive_interval_s"] = frame["inactive_s"] / self.inactive_intervals
        return frame

    def timeline(self) -> pd.DataFrame:
        """Every closed state interval: ``node, state, start, end``, by node
        then time (empty without ``timeline``)."""
        columns = ["node", "state", "start", "end"]
        if not self._timeline:
            return pd.DataFrame(columns=columns)
        parts = [np.concatenate([chunk[i] for chunk in self._timeline]) for i in range(4)]
        frame = pd.DataFrame(dict(zip(columns, parts)))
        frame = frame[frame["end"] > frame["start"]]
        frame["state"] = [STATE_NAMES[s] for s in frame["state"]]
        return frame.sort_values(["node", "start"], kind="stable").reset_index(drop=True)
