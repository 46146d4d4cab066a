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

This file holds the states, a node's power in each and the energy formula
(no numpy: the command line's options read :data:`POWER_ON_ORDERS` from
here).  ``node_ledger.py`` follows every node by name (which nodes a
decision switched off or on, which nodes a job ran on), and
``node_state_plot.py`` draws its timeline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Mapping

from .values import is_number

WH = 3600.0  # joules per watt-hour
#: Which standby node boots first: the lowest number (the paper's hostname
#: order) or the one with the fewest shutdowns (``NodeLedger``).
POWER_ON_ORDERS = ("name", "wear")


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
            value = getattr(self, name)  # a str was a TypeError, inf and nan were taken
            if not (is_number(value) and 0 <= value < math.inf):
                raise ValueError(f"node power: {name} must be >= 0 and finite, not {value!r}")
        for name in ("power_on_s", "power_off_s"):  # an infinite boot never ended
            if not (is_number(getattr(self, name)) and 0 < getattr(self, name) < math.inf):
                raise ValueError(f"node power: {name} must be positive and finite, not "
                                 f"{getattr(self, name)!r}")
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
    """The inverse of :func:`dhms`, for printing next to the paper (a run
    of no job has no makespan: ``nan`` is written as it is)."""
    if seconds != seconds:
        return "nan"
    s = int(round(seconds))
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    return f"{days} d,{hours} h,{minutes} m,{s} s"
