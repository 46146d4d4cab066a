"""A power cap that changes in time, ``Pcap(t)`` (Wallace et al., section
VIII-B): a step function, and the places and transition that put it in a
net.

Its changes are timed tokens that a *ChangeCap* transition moves into the
*Cap* place, raising *Trigger* so scheduling sees the new cap at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cpn import Net, TimedToken, timed

from .batch_scheduling import P_FINISH, TRIGGER_FUSION

#: A cap change comes first of the instant's ends (see batch_scheduling).
P_CAP_CHANGE = P_FINISH - 100


@dataclass(frozen=True)
class PowerCapSchedule:
    """``Pcap(t)``, a step function: ``steps`` are ``(time, watts)`` pairs,
    times increasing from 0; each value holds until the next time.

    >>> cap = PowerCapSchedule.of((0, 2e6), (100, 3e6), (200, 4e6), (300, 2e6))
    >>> cap.at(99.0), cap.at(100.0), cap.at(1e9)
    (2000000.0, 3000000.0, 2000000.0)
    """

    steps: tuple[tuple[float, float], ...] = ((0.0, math.inf),)

    def __post_init__(self):
        steps = tuple((float(t), float(w)) for t, w in self.steps)
        object.__setattr__(self, "steps", steps)
        if not steps or steps[0][0] != 0.0:
            raise ValueError(f"a cap schedule starts at time 0, not {steps[:1]}")
        times = [t for t, _ in steps]
        if any(b <= a for a, b in zip(times, times[1:])):
            raise ValueError(f"cap schedule times must increase: {times}")
        if not all(w > 0 for _, w in steps):
            raise ValueError(f"caps must be positive watts: {[w for _, w in steps]}")

    @classmethod
    def constant(cls, watts: float) -> "PowerCapSchedule":
        return cls(((0.0, watts),))

    @classmethod
    def of(cls, *steps: tuple[float, float]) -> "PowerCapSchedule":
        return cls(tuple(steps))

    @property
    def initial(self) -> float:
        return self.steps[0][1]

    @property
    def changes(self) -> tuple[tuple[float, float], ...]:
        return self.steps[1:]

    @property
    def capped(self) -> bool:
        return any(math.isfinite(w) for _, w in self.steps)

    def at(self, time: float) -> float:
        value = self.steps[0][1]
        for t, w in self.steps:
            if t > time:
                break
            value = w
        return value

    def on_clock(self, offset: float) -> tuple[tuple[float, float], ...]:
        """The steps with their times moved ``offset`` later: on a trace's clock."""
        return tuple((at + offset, watts) for at, watts in self.steps)

    def at_times(self, times) -> np.ndarray:
        """The cap at each of ``times`` (after any change at that instant)."""
        starts = np.array([t for t, _ in self.steps])
        values = np.array([w for _, w in self.steps])
        return values[np.searchsorted(starts, np.asarray(times, dtype=float), side="right") - 1]


def add_power_cap(module: Net, cap: PowerCapSchedule) -> None:
    """*Cap* (the current Pcap), *CapChanges* (the schedule's later steps as
    timed tokens) and *ChangeCap*, which raises *Trigger* (added to
    ``module``, in the fusion set every scheduler reads, unless it has it).
    The places are the net's record of its cap: :func:`cap_in_force`."""
    if "Trigger" not in module.places:
        module.place("Trigger", bool, fusion=TRIGGER_FUSION)
    module.place("Cap", float, initial=[cap.initial])
    module.place("CapChanges", float, timed=True,
                 initial=[timed(watts, at) for at, watts in cap.changes])
    module.transition("ChangeCap", priority=P_CAP_CHANGE)
    module.arc("CapChanges", "ChangeCap", "new")
    module.arc("Cap", "ChangeCap", "old")
    module.arc("Trigger", "ChangeCap", "signal")
    module.arc("ChangeCap", "Cap", "new")
    module.arc("ChangeCap", "Trigger", "True")


def cap_in_force(net: Net, cap_watts: float = math.inf) -> PowerCapSchedule | None:
    """The cap a run of ``net`` is under: ``cap_watts`` (a configuration's)
    and every cap :func:`add_power_cap` put in ``net`` or its modules, the
    tightest at each time; None when there is none.  Whoever decides
    allocation, a run is measured against it."""
    caps = [*_caps_in(net), PowerCapSchedule.constant(cap_watts)]
    times = sorted({at for cap in caps for at, _ in cap.steps})
    tightest = PowerCapSchedule(tuple((at, min(cap.at(at) for cap in caps)) for at in times))
    return tightest if tightest.capped else None


def _caps_in(net: Net) -> list[PowerCapSchedule]:
    """The schedules the *Cap* and *CapChanges* places of ``net`` and its
    modules hold as the run starts (a change at 0 replaces the initial cap)."""
    found = []
    cap, changes = net.places.get("Cap"), net.places.get("CapChanges")
    if cap is not None and changes is not None and len(cap.initial) == 1:
        steps = {0.0: float(cap.initial[0])}
        for token in sorted(changes.initial, key=_change_time):
            steps[max(_change_time(token), 0.0)] = float(
                token.value if isinstance(token, TimedToken) else token)
        try:
            found.append(PowerCapSchedule(tuple(steps.items())))
        except ValueError as error:  # a cap of 0 W or nan, set with set_initial
            raise ValueError(f"the Cap and CapChanges places of '{net.name}': {error}") from None
    for substitution in net.substitutions.values():
        found += _caps_in(substitution.module)
    return found


def _change_time(token) -> float:
    return token.time if isinstance(token, TimedToken) else 0.0
