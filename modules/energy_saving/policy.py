"""The energy-saving scheduler's parameters (Dolz et al., section 2.5):
how often it runs, how long a node stays idle before it is switched off,
and each user group's thresholds for booting nodes again.

Plain frozen dataclasses, without the net: the command line builds a
policy from its options without loading the simulator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from ..node_power import POWER_ON_ORDERS
from ..values import is_number, is_whole_number


@dataclass(frozen=True)
class GroupThresholds:
    """A user group's thresholds (section 2.5; the paper publishes none).

    ``max_wait_s``: boot nodes when the group's queued jobs have waited
    longer than this on average (1 h); ``max_queued``: boot nodes when one
    of its users has more jobs queued (10); ``min_wait_s``: switch off one
    idle node per tick while the group's started jobs waited less than
    this on average (0 s: off, the idle threshold alone switches nodes off).
    """

    max_wait_s: float = 3600.0
    min_wait_s: float = 0.0
    max_queued: int = 10

    def __post_init__(self):
        for name in ("max_wait_s", "min_wait_s"):  # a str was a TypeError, nan taken
            if not (is_number(getattr(self, name)) and getattr(self, name) >= 0):
                raise ValueError(f"{name} must be >= 0 s, not {getattr(self, name)!r}")
        if not (is_whole_number(self.max_queued) and self.max_queued >= 0):
            raise ValueError(f"max_queued must be a whole number >= 0, not {self.max_queued!r}")


@dataclass(frozen=True)
class EnergySavingPolicy:
    """The energy-saving scheduler's parameters (section 2.5).

    ``period_s``: how often it runs (60 s).  ``idle_threshold_s``: a node
    idle this long is switched off (1800 s).  Energy alone would switch
    off at once -- a full off/on cycle (24.5 Wh) costs less than the
    17 min it lasts at idle power (43 Wh) -- so the threshold is a latency
    guard: a node idle for half an hour is unlikely to be wanted within
    the next boot.  ``thresholds`` apply to every group, ``groups`` overrides
    them per group id.  ``power_on_order``: ``"name"`` (the paper) or
    ``"wear"`` (fewest shutdowns first).  ``initially_on``: nodes on at
    the start (all by default; the others start in standby).  ``enabled``
    False keeps every node on (the baseline), still followed by the ledger
    (and so refuses ``initially_on``).
    ``wait_smoothing``: weight of a new start in a group's mean wait.
    """

    period_s: float = 60.0
    idle_threshold_s: float = 1800.0
    thresholds: GroupThresholds = field(default_factory=GroupThresholds)
    groups: Mapping[int, GroupThresholds] = field(default_factory=dict)
    power_on_order: str = "name"
    initially_on: int | None = None
    enabled: bool = True
    wait_smoothing: float = 0.2

    def __post_init__(self):
        if not (is_number(self.period_s) and self.period_s > 0):
            raise ValueError(f"the tick period period_s must be positive, not {self.period_s!r}")
        if not (is_number(self.idle_threshold_s) and self.idle_threshold_s >= 0):
            raise ValueError(f"the idle threshold idle_threshold_s must be >= 0 s, not "
                             f"{self.idle_threshold_s!r}")
        if self.power_on_order not in POWER_ON_ORDERS:
            raise ValueError(f"power_on_order must be one of {POWER_ON_ORDERS}, "
                             f"not {self.power_on_order!r}")
        if self.initially_on is not None and not (is_whole_number(self.initially_on)
                                                  and self.initially_on >= 0):
            raise ValueError(f"initially_on must be a whole number of nodes >= 0, not "
                             f"{self.initially_on!r}")
        if not (is_number(self.wait_smoothing) and 0 < self.wait_smoothing <= 1):
            raise ValueError(f"wait_smoothing must be within (0, 1], not {self.wait_smoothing!r}")
        if not isinstance(self.enabled, bool):  # enabled="no" is true in Python
            raise ValueError(f"enabled must be True or False, not {self.enabled!r}")
        if not self.enabled and self.initially_on is not None:  # it was dropped: all on
            raise ValueError(f"initially_on={self.initially_on} means nothing with "
                             "enabled=False: every node is on from the start")
        if not (isinstance(self.groups, Mapping) and all(
                isinstance(limits, GroupThresholds)
                for limits in (self.thresholds, *self.groups.values()))):
            raise ValueError(f"thresholds and each of groups (group id -> thresholds) must be "
                             f"GroupThresholds, not {self.thresholds!r} and {self.groups!r}")

    def for_group(self, group: int) -> GroupThresholds:
        return self.groups.get(group, self.thresholds)

    @property
    def watches_waits(self) -> bool:
        return any(t.min_wait_s > 0 for t in (self.thresholds, *self.groups.values()))
