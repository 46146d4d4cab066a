"""Monitors: observe firings and the marking without changing the net.

A monitor is told when a transition it watches fires (``fired``, whose
True return stops the run: a breakpoint; or the functions ``follows``
gives, for a monitor that never stops one) and when the clock moves
(``advanced``), which is all a time-integral needs: between two clock
values the marking is constant, so the integral is exact.

>>> from cpn import Net, Simulator
>>> net = Net("tick")
>>> _ = net.place("P", int, initial=[0], timed=True)
>>> _ = net.transition("T")
>>> net.arc("P", "T", "x"); net.arc("T", "P", "x + 1@+2")
>>> sim = Simulator(net)
>>> area = sim.add_monitor(PlaceIntegral("P", lambda tokens: sum(tokens)))
>>> sim.run(until_time=6).time
6.0
>>> area.value  # 1 on [0,2) (a token waiting for time 2 is in the place), 2, then 3
12.0
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Iterable

if TYPE_CHECKING:
    import pandas as pd


class Monitor:
    """Base class: override what you need."""

    transitions: Iterable[str] | None = ()  # paths watched; None means all

    def attach(self, sim) -> None:
        self.sim = sim

    def watched_transitions(self, sim) -> list[int]:
        if self.transitions is None:
            return list(range(len(sim.transitions)))
        return [sim.transition_index(path) for path in self.transitions]

    def fired(self, sim, transition: int, values: tuple) -> bool:
        return False

    def follows(self, sim) -> dict[int, Callable[[int, tuple], Any]] | None:
        """For a monitor that never stops a run: per transition index, what
        to call with ``(transition, values)`` after each of its firings,
        instead of :meth:`fired` for the watched transitions (None, the
        default).  The simulator calls these straight from its loop, without
        the bookkeeping that a stop needs, so while they run ``sim.steps``
        may lag behind; they read the clock and the marking and change
        neither."""
        return None

    def advanced(self, sim, old: float, new: float) -> None:
        pass


def _values(sim, transition: int, values: tuple) -> dict[str, Any]:
    return dict(zip(sim.transitions[transition].variables, values))


class FiringCounter(Monitor):
    """How many times each watched transition fired."""

    def __init__(self, *transitions: str):
        self.transitions = transitions or None
        self.counts: dict[str, int] = {}

    def fired(self, sim, transition, values):
        path = sim.transitions[transition].path
        self.counts[path] = self.counts.get(path, 0) + 1
        return False


class FiringLog(Monitor):
    """Flat records ``(time, transition, variables...)`` of every watched
    firing; ``to_dataframe()`` for pandas.  ``fields`` maps a column name to
    a function of the binding's variables, to log derived values."""

    def __init__(self, *transitions: str,
                 fields: dict[str, Callable[[dict], Any]] | None = None):
        self.transitions = transitions or None
        self.fields = fields
        self.records: list[dict] = []

    def fired(self, sim, transition, values):
        variables = _values(sim, transition, values)
        record = {"time": sim.now, "transition": sim.transitions[transition].path}
        if self.fields is None:
            record.update(variables)
        else:
            record.update({name: f(variables) for name, f in self.fields.items()})
        self.records.append(record)
        return False

    def to_dataframe(self) -> pd.DataFrame:
        import pandas as pd  # here, not above: a model that logs no frame never loads pandas

        return pd.DataFrame.from_records(self.records)


class Breakpoint(Monitor):
    """Stop the run after a firing of ``transition`` (whose variables satisfy
    ``when``, if given), or after any firing that leaves the tokens of
    ``place`` satisfying ``when``."""

    def __init__(self, transition: str | None = None, place: str | None = None,
                 when: Callable[[Any], bool] | None = None):
        if (transition is None) == (place is None):
            raise ValueError("a breakpoint watches exactly one transition or one place")
        if place is not None and when is None:
            raise ValueError("a place breakpoint needs a predicate 'when' on its tokens")
        self.transition, self.place, self.when = transition, place, when
        self.hits = 0

    def watched_transitions(self, sim):
        if self.transition is not None:
            return [sim.transition_index(self.transition)]
        place = sim.place_index(self.place)
        return [t.index for t in sim.transitions
                if place in t.changed_places]

    def fired(self, sim, transition, values):
        if self.transition is not None:
            hit = self.when is None or self.when(_values(sim, transition, values))
        else:
            hit = bool(self.when(sim.tokens(self.place)))
        self.hits += hit
        return hit

    def __str__(self) -> str:
        return f"breakpoint on {'transition ' + self.transition if self.transition else 'place ' + self.place}"


class PlaceIntegral(Monitor):
    """The time-integral of ``value(tokens of place)``: exact, since the
    marking is constant between clock values.  With ``step``, also the
    fixed-step estimate that samples the value at ``start + k*step`` and
    holds it for one step (the PuPPET paper's energy estimate, section 4).
    With ``record``, keeps the step series ``(times, values)``."""

    transitions = ()

    def __init__(self, place: str, value: Callable[[list], float] = len,
                 step: float | None = None, record: bool = False):
        if step is not None and step <= 0:
            raise ValueError(f"step must be positive, not {step}")
        self.place, self.value_of, self.step, self.record = place, value, step, record
        self.value = 0.0
        self.sampled = 0.0
        self.times: list[float] = []
        self.values: list[float] = []

    def __str__(self) -> str:
        return f"PlaceIntegral of place {self.place}"

    def attach(self, sim):
        super().attach(sim)
        self.start = sim.now
        self._index = sim.place_index(self.place)  # fails now on an unknown place
        # An untimed place's list is its marking (the simulator changes it in
        # place): read at every clock move without a call.
        self._tokens = sim._R[self._index] if sim._S[self._index] is None else None

    def current(self) -> float:
        tokens = self._tokens
        return float(self.value_of(self.sim._tokens_of(self._index) if tokens is None
                                   else tokens))

    def advanced(self, sim, old, new):
        tokens = self._tokens
        level = float(self.value_of(sim._tokens_of(self._index) if tokens is None else tokens))
        self.value += level * (new - old)
        if self.step is not None:
            first = math.ceil((old - self.start) / self.step)
            last = math.ceil((new - self.start) / self.step)
            self.sampled += level * self.step * max(last - first, 0)
        if self.record and (not self.values or self.values[-1] != level):
            self.times.append(old)
            self.values.append(level)
