"""Monitors attached to a simulator: who is told of which firing, and
whether a firing stops the run.  Mixed into ``Simulator``.

A monitor's ``fired`` may stop the run (a breakpoint), so the loop brings
the simulator's counters up to date before it calls it (:meth:`_observed`);
the functions of a monitor that ``follows`` transitions cannot, and the loop
calls them straight away (most firings a model's own monitor watches).
"""

from __future__ import annotations

from typing import Callable

from .monitors import Monitor
from .results import StopReason


class Monitoring:
    """:meth:`add_monitor` of a ``Simulator``, and what its loop calls after
    a firing that monitors watch."""

    def add_monitor(self, monitor):
        """Attach a monitor (see ``monitors.py``); returns it."""
        monitor.attach(self)
        self._monitors.append(monitor)
        if getattr(monitor.advanced, "__func__", None) is not Monitor.advanced:  # not in vain
            self._advancing.append(monitor.advanced)
        follows = monitor.follows(self)
        if follows is None:
            for t in monitor.watched_transitions(self):
                self._hooks[t].append(monitor)
        else:
            for t, follow in follows.items():
                self._follows[t].append(follow)
            self._follow_owners.append((monitor, tuple(follows.values())))  # for failures.py
        self._told[:] = [bool(hooks) or tuple(follows)
                         for hooks, follows in zip(self._hooks, self._follows)]
        return monitor

    def _observed(self, t: int, values: tuple, stop_when: Callable[..., bool] | None,
                  steps: int, last: tuple) -> StopReason | None:
        """After a firing that monitors watch or a run that stops on a
        predicate: whether to stop, and why."""
        self.steps, self._last = steps, last
        self._version = self._new_version()
        for follow in self._follows[t]:
            follow(t, values)
        if any([monitor.fired(self, t, values) for monitor in self._hooks[t]]):
            return StopReason.BREAKPOINT
        if stop_when is not None and stop_when(self):
            return StopReason.PREDICATE
        return None
