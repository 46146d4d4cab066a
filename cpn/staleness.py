"""What a change makes stale: the transitions whose binding must be found
again after a firing, a token coming in, or the clock moving.

The simulator keeps each transition's last binding found and searches again
only the transitions next to a changed place.  Those of priority below
P_LOW (deferred: the housekeeping that follows an instant's work, see
``Simulator._search_later``) are set apart here, so that a change sends
them straight to the simulator's ``later`` instead of through the searches
of every firing: an energy-saving run stales its tick after nearly every
one of its 180k firings and clock moves.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence

from .compiler import CompiledTransition


class Staleness(NamedTuple):
    """Per place, per transition and for the clock, the transitions made
    stale, each split into those to search at once and the deferred ones.
    Frozen sets: the loop merges them into its own sets (``|=``) without
    hashing their members again."""

    consumers: list[frozenset]  # per place: the transitions taking from it
    waiting: list[frozenset]  # per place: the deferred ones
    # Per transition, those its firing wakes: itself included, and not (for
    # a firing that emptied a place it takes from: no search of it can
    # succeed); a deferred one that fired stays with them, searched at once.
    woken: list[tuple[frozenset, frozenset]]
    # Per transition, the deferred ones its firing makes stale, but itself:
    # those it wakes and, searched whether enabled or not, those it refreshes.
    stale_later: list[frozenset]
    # Per transition, those to search again only if enabled, to refresh their
    # binding (a change they are blind to cannot enable them).
    refreshed: list[frozenset]
    clocked: frozenset  # those whose enabling reads the clock
    clocked_later: frozenset  # the deferred ones


def staleness(transitions: Sequence[CompiledTransition], places: int,
              deferred: frozenset[int]) -> Staleness:
    """The staleness tables of ``transitions`` on ``places`` places."""
    def apart(indices: Iterable[int]) -> tuple[frozenset, frozenset]:
        indices = frozenset(indices)
        return indices - deferred, indices & deferred

    consumers: list[list[int]] = [[] for _ in range(places)]
    for t in transitions:
        for p in dict.fromkeys(t.input_places):
            consumers[p].append(t.index)
    woken, stale_later, refreshed = [], [], []
    for t in transitions:
        wakes, blind = set(), set()
        for p in t.changed_places:
            for c in consumers[p]:
                (blind if p in transitions[c].value_blind else wakes).add(c)
        others, later = apart(wakes - {t.index})
        blind_now, blind_later = apart(blind - wakes - {t.index})
        woken.append((others | {t.index}, others))
        stale_later.append(later | blind_later)
        refreshed.append(blind_now)
    now, waiting = zip(*map(apart, consumers)) if consumers else ((), ())
    return Staleness(list(now), list(waiting), woken, stale_later, refreshed,
                     *apart(t.index for t in transitions if t.uses_time))
