"""When the energy-saving scheduler's *Tick* fires: every ``period_s``,
except while ticks would decide nothing.

A tick that decides nothing changes nothing, and the next one decides
nothing either unless the marking changed or the clock passed one of the
moments :func:`~.decisions.quiet_until` names (a group's mean wait or an
idle batch the queue does not claim reaching its threshold).  So after
such a tick the *Clock* token is put a whole number of periods later, on
the tick grid, one period before that moment (the margin keeps
floating-point rounding out of it).
When the marking the tick saw changes, *Wake* (once all changes of the
instant are in) works out what the tick due next on the grid would decide
on it: nothing, and that tick is skipped as if it had fired; something,
and a *Clock* token is put there.  A superseded token is dropped when its
time comes (a timed token cannot be taken back early): *Clock* tokens
carry the version of :class:`TickClock` they belong to.  Every tick that
could decide something still fires, at the same instant as when the tick
ran every period, so the decisions are the same.

A busy machine with a backlog is :func:`blocked` nearly all the time: no
node in standby to boot and the queue asking for every idle node, so no
tick can decide anything whatever the clock, and no *Clock* token waits.
The tick then remembers only that (:data:`BLOCKED`), and arrivals, starts
and ends that leave the machine blocked do not wake it: *Wake* would only
find every tick to be skipped.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from cpn import Delayed

from .decisions import Decision, spare_nodes

#: :attr:`TickClock.seen` of a tick that saw a :func:`blocked` machine.
BLOCKED = "blocked"


class TickClock(NamedTuple):
    """``version`` of the live *Clock* token; ``last``: when the tick last
    fired (the grid's origin); ``seen``: ``None`` while it ticks every
    period, else the marking a tick that decided nothing saw, or
    :data:`BLOCKED` (:func:`seen_by`); ``armed``: whether a live *Clock*
    token waits (none while the tick sleeps until the marking changes), so
    that *Tick* is ruled out without looking at *Clock*."""

    version: int
    last: float
    seen: tuple | str | None = None
    armed: bool = True


def blocked(queue: tuple, pool, standby: int, running, selected: tuple = (),
            unit_nodes: int = 1) -> bool:
    """No decision can do anything while this holds, whatever the clock:
    jobs run and none waits in *Selected* (so the tick's guard holds), no
    node in standby can be booted for the queue, and the queue asks for
    every idle node (none is switched off, ``decisions.nodes_to_power_off``)."""
    return (not selected and bool(running) and (standby <= 0 or not queue)
            and (pool.count < unit_nodes or spare_nodes(queue, pool, unit_nodes) < unit_nodes))


def seen_by(queue: tuple, free: int, pool, standby: int, booting: tuple, halting: int,
            waits, running, unit_nodes: int = 1) -> tuple | str:
    """What a decision depends on besides the clock (and whether jobs run,
    which the tick's guard reads): :data:`BLOCKED` when nothing
    (:func:`blocked`).  Queue and waits are kept as objects: tokens are
    immutable, so the same object is the same value, and a long queue is
    not compared job by job."""
    if blocked(queue, pool, standby, running, unit_nodes=unit_nodes):  # kept only when sel is ()
        return BLOCKED
    return queue, free, pool, standby, booting, halting, waits, bool(running)


def unchanged(seen: tuple, queue: tuple, free: int, pool, standby: int, booting: tuple,
              halting: int, waits, running) -> bool:
    """The marking is the one ``seen`` (a new but equal queue or waits
    counts as a change: the tick then only fires once more)."""
    old_queue, old_free, old_pool, old_standby, old_booting, old_halting, old_waits, ran = seen
    return (queue is old_queue and free == old_free and standby == old_standby
            and halting == old_halting and waits is old_waits and bool(running) == ran
            and booting == old_booting and pool == old_pool)


def delay_to(now: float, at: float) -> float:
    """The delay whose sum with ``now`` is ``at`` in floating point, so a
    token lands on the grid instant the periodic tick reached by sums."""
    delay = at - now
    while now + delay < at:
        delay = math.nextafter(delay, math.inf)
    while now + delay > at:
        delay = math.nextafter(delay, -math.inf)
    return delay


def after_tick(clock: TickClock, decision: Decision, now: float, period: float,
               seen: tuple, wake: float) -> tuple[TickClock, list[Delayed]]:
    """The clock after a tick at ``now``, and its next *Clock* token: one
    period on after a decision that did something; after one that did
    nothing, the last grid instant a period or more before ``wake``
    (:func:`~.decisions.quiet_until`), or none when ``wake`` is never."""
    return _following(clock.version, now, decision, period, seen, wake, now)


def _following(version: int, tick: float, decision: Decision, period: float, seen: tuple,
               wake: float, now: float) -> tuple[TickClock, list[Delayed]]:
    """:func:`after_tick` for a tick at ``tick`` (fired, or skipped as if
    it had), the token put at ``now``."""
    if decision.power_on or decision.power_off:
        return TickClock(version, tick), [Delayed(version, delay_to(now, tick + period))]
    if math.isinf(wake):
        return TickClock(version, tick, seen, armed=False), []
    at = on_grid(tick + period, period, wake, reach=period)
    return TickClock(version, tick, seen), [Delayed(version, delay_to(now, at))]


def due(clock: TickClock, now: float, period: float) -> float:
    """The first grid instant at or after ``now``: the tick that would see
    a change made at ``now``."""
    return on_grid(clock.last, period, now)


def on_grid(at: float, period: float, limit: float, reach: float = 0.0) -> float:
    """The first of ``at``, ``at + period``, ... that, plus ``reach``, is at
    or after ``limit``.  A jump by a multiple of periods, then the
    additions a step at a time would make: an idle year is not half a
    million steps, and on a grid of whole seconds (below 2**53) every sum
    is exact, so the instant is the one the additions alone give."""
    if limit > at + reach:
        at += max(0, math.ceil((limit - reach - at) / period) - 1) * period
    while at + reach < limit:
        at += period
    return at


def woken(clock: TickClock, now: float, at: float, period: float, decision: Decision,
          active: bool, seen: tuple, wake: float) -> tuple[TickClock, list[Delayed]]:
    """The marking changed while the tick slept; ``decision`` is what the
    tick due ``at`` (:func:`due`) would decide on it, ``active`` whether its
    guard would let it fire.  Unless the marking changes again first (which
    wakes the tick again), a tick that would decide nothing is skipped as
    if it had fired; any other is put on the grid.  A new version either way."""
    version = clock.version + 1
    if active and not (decision.power_on or decision.power_off):
        return _following(version, at, decision, period, seen, wake, now)
    return TickClock(version, clock.last), [Delayed(version, delay_to(now, at))]
