"""Node power states and their energy accounting (Dolz et al., EnergySaving
cluster simulator, section 2.1, Fig. 1; parameters of section 3).

A node is in one of five states::

    standby --power on (555 s)--> powering on --> idle <--> loaded
       ^                                            |
       +------- powering off (480 s) <--(idle only)-+

Standby, idle and loaded draw a constant power; powering on and powering
off are charged a fixed energy per transition (the paper gives them as Wh,
not W).  The energy of a run is therefore::

    E = sum over states s in {standby, idle, loaded} of residency(s) * P(s)
        + power_ons * E_on + power_offs * E_off

where residency is in node-seconds.  The time a node spends powering on or
off counts as *active* time (the node is not in standby) but is not charged
idle power: that is how the paper's own Table 2 adds up to its Table 1
(``tests/test_node_power.py``: 117.65 MWh for OSC).

:class:`NodeLedger` follows every node by name: which nodes a decision
switched off or on, which nodes a job ran on, and so per-node active and
inactive time, shutdowns and a state timeline (:func:`plot_node_states`).
The net itself only needs counts (``modules/energy_saving.py`` explains
why); the ledger gives the counts names, with fixed rules: a job takes the
most recently idle nodes, a switch-off takes the least recently used ones,
a power-on takes standby nodes by name or by wear.
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, replace
from enum import IntEnum
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

WH = 3600.0  # joules per watt-hour


class NodeState(IntEnum):
    """The five states of Fig. 1 (values index per-state arrays)."""

    STANDBY = 0
    POWERING_ON = 1
    IDLE = 2
    LOADED = 3
    POWERING_OFF = 4


STATE_NAMES = tuple(state.name.lower() for state in NodeState)
#: States whose energy is residency times power; the other two are charged
#: per transition.
STEADY_STATES = (NodeState.STANDBY, NodeState.IDLE, NodeState.LOADED)


@dataclass(frozen=True)
class NodePower:
    """A node's power model; the defaults are the paper's section 3 values
    (measured on the authors' cluster): standby 2 W, idle 150 W, loaded
    230 W, powering on 555 s and 13.71 Wh, powering off 480 s and 10.79 Wh.
    """

    standby_w: float = 2.0
    idle_w: float = 150.0
    loaded_w: float = 230.0
    power_on_s: float = 555.0
    power_on_wh: float = 13.71
    power_off_s: float = 480.0
    power_off_wh: float = 10.79

    def __post_init__(self):
        for name in ("standby_w", "idle_w", "loaded_w", "power_on_wh", "power_off_wh"):
            if getattr(self, name) < 0:
                raise ValueError(f"node power: {name} must be >= 0, not {getattr(self, name)}")
        for name in ("power_on_s", "power_off_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"node power: {name} must be positive, not "
                                 f"{getattr(self, name)}")
        if self.idle_w <= 0 or self.loaded_w < self.idle_w:
            raise ValueError(f"node power: need 0 < idle ({self.idle_w} W) <= loaded "
                             f"({self.loaded_w} W)")

    @property
    def power_on_w(self) -> float:
        """Mean power while powering on: the transition's energy spread over
        its duration (what the net's *Power* place shows meanwhile)."""
        return self.power_on_wh * WH / self.power_on_s

    @property
    def power_off_w(self) -> float:
        return self.power_off_wh * WH / self.power_off_s

    def watts(self, state: NodeState) -> float:
        """Power in ``state`` (mean power for the two transitions)."""
        return (self.standby_w, self.power_on_w, self.idle_w, self.loaded_w,
                self.power_off_w)[state]

    def scaled(self, idle_w: float, loaded_w: float) -> "NodePower":
        """This node drawing ``idle_w`` when idle and ``loaded_w`` loaded:
        standby power and the transitions' energy scale with the idle
        power, durations stay, so :attr:`break_even_s` -- the yardstick of
        the policy's idle threshold -- is unchanged.  How a model whose
        node is not the paper's (a Mira node, a DVFS thesis CPU) gets its
        power states."""
        factor = idle_w / self.idle_w
        return replace(self, standby_w=self.standby_w * factor, idle_w=idle_w,
                       loaded_w=max(loaded_w, idle_w), power_on_wh=self.power_on_wh * factor,
                       power_off_wh=self.power_off_wh * factor)

    @property
    def break_even_s(self) -> float:
        """Idle time that costs as much energy as one off/on cycle beyond
        standby: a yardstick for the idle threshold (about 582 s here)."""
        cycle = (self.power_on_wh + self.power_off_wh) * WH \
            - self.standby_w * (self.power_on_s + self.power_off_s)
        return cycle / (self.idle_w - self.standby_w)


def energy_wh(residency_s: Mapping[NodeState, float], power_ons: float,
              power_offs: float, node: NodePower = NodePower()) -> float:
    """Energy (Wh) of node-second residencies per state plus the fixed
    charge of each transition.  Residency in powering on/off is ignored:
    those states are paid by the charge.

    >>> energy_wh({NodeState.IDLE: 3600, NodeState.STANDBY: 7200}, 1, 1)
    178.5
    """
    steady = sum(residency_s.get(state, 0.0) * node.watts(state) for state in STEADY_STATES)
    return steady / WH + power_ons * node.power_on_wh + power_offs * node.power_off_wh


def always_on_loaded_s(energy_wh_total: float, nodes: int, span_s: float,
                       node: NodePower = NodePower()) -> float:
    """Loaded node-seconds implied by the energy of a run whose nodes were
    all on (idle or loaded) for ``span_s``: E = idle * N * T + (loaded -
    idle) * L.  The same work runs with energy saving, so this is how the
    paper's tables give the loaded time its Table 2 does not list."""
    return (energy_wh_total * WH - node.idle_w * nodes * span_s) / (node.loaded_w - node.idle_w)


def dhms(days: float = 0, hours: float = 0, minutes: float = 0, seconds: float = 0) -> float:
    """Seconds in a duration written as the paper's tables do ("92 d, 0 h, 3 m, 43 s")."""
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def format_dhms(seconds: float) -> str:
    """The inverse of :func:`dhms`, for printing next to the paper."""
    s = int(round(seconds))
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    return f"{days} d,{hours} h,{minutes} m,{s} s"


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


POWER_ON_ORDERS = ("name", "wear")

#: Colours of the states in :func:`plot_node_states` (Paraver-like).
STATE_COLOURS = {"standby": "#d9d9d9", "powering_on": "#ffbf00", "idle": "#4f9bd9",
                 "loaded": "#1a7f37", "powering_off": "#d9480f"}


def state_raster(timeline: pd.DataFrame, nodes: int, start: float, end: float,
                 columns: int = 2000) -> np.ndarray:
    """The state of each node at ``columns`` instants evenly spread over
    ``[start, end)``: a ``nodes x columns`` array of state numbers (-1
    where no interval covers the instant).  Drawing this raster instead of
    one rectangle per interval keeps the plot fast on any machine size."""
    raster = np.full((nodes, columns), -1, dtype=np.int8)
    if len(timeline) == 0:
        return raster
    at = start + (np.arange(columns) + 0.5) * (end - start) / columns
    codes = timeline["state"].map({name: i for i, name in enumerate(STATE_NAMES)}).to_numpy()
    node_of = timeline["node"].to_numpy()
    starts, ends = timeline["start"].to_numpy(), timeline["end"].to_numpy()
    order = np.lexsort((starts, node_of))
    node_of, starts, ends, codes = node_of[order], starts[order], ends[order], codes[order]
    bounds = np.searchsorted(node_of, np.arange(nodes + 1))
    for node in range(nodes):
        lo, hi = bounds[node], bounds[node + 1]
        if lo == hi:
            continue
        position = np.searchsorted(starts[lo:hi], at, side="right") - 1
        valid = position >= 0
        hit = np.where(valid, position, 0) + lo
        inside = valid & (at < ends[hit])
        raster[node, inside] = codes[hit[inside]]
    return raster


def plot_node_states(timeline: pd.DataFrame, path, nodes: int | None = None,
                     start: float | None = None, end: float | None = None,
                     title: str = "Node power states", columns: int = 2000,
                     time_unit: float = 86400.0) -> Path:
    """A per-node state timeline (the paper's Fig. 4, drawn as Paraver
    does): one row per node, time across, colour by state.  ``start`` and
    ``end`` zoom in (seconds); ``time_unit`` labels the axis (days by
    default, 3600 for hours)."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from .plots import plt, save_figure  # off screen

    nodes = int(timeline["node"].max()) + 1 if nodes is None else nodes
    start = float(timeline["start"].min()) if start is None else float(start)
    end = float(timeline["end"].max()) if end is None else float(end)
    raster = state_raster(timeline, nodes, start, end, columns)
    colours = ["white"] + [STATE_COLOURS[name] for name in STATE_NAMES]
    fig, ax = plt.subplots(figsize=(11, max(3.0, min(12.0, 0.06 * nodes + 2))))
    ax.imshow(raster + 1, aspect="auto", interpolation="nearest", origin="lower",
              cmap=ListedColormap(colours), vmin=0, vmax=len(colours) - 1,
              extent=(start / time_unit, end / time_unit, -0.5, nodes - 0.5))
    unit = {86400.0: "days", 3600.0: "hours", 60.0: "minutes", 1.0: "seconds"}.get(
        float(time_unit), f"x {time_unit:g} s")
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("node")
    ax.set_title(title)
    ax.legend(handles=[Patch(color=STATE_COLOURS[n], label=n.replace("_", " "))
                       for n in STATE_NAMES], loc="upper center",
              bbox_to_anchor=(0.5, -0.12), ncol=5, frameon=False)
    return save_figure(fig, path)
