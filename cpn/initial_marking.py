"""The initial marking: loaded once, its future tokens fed to the heap in order.

A trace's jobs are the initial marking of a timed place, each available
from its submit time.  Pushed all at once onto the heap of future tokens,
a million of them would make every later pop sift through a million
entries; instead they wait in a list, the next to become available last,
and only that one is in the heap (``_feeding``): when it leaves the heap
the next one takes its place, so tokens become available in exactly the
order, ``(timestamp, sequence)``, the heap would have given, and each is
let go once released.  Marking views and checkpoints read both.  Mixed into
``Simulator``.
"""

from __future__ import annotations

import heapq
from typing import Iterable, Mapping

from .collector import cyclic_gc_paused
from .errors import NetError
from .net_arguments import check_token_list


class InitialMarking:
    """Loading the initial marking of a ``Simulator`` and feeding its future
    tokens to the heap."""

    def _load_marking(self, overrides: Mapping[str, Iterable]) -> None:
        given: dict[int, str] = {}
        for path in overrides:
            try:
                index = self.place_index(path)
            except KeyError:
                raise NetError(f"initial marking given for unknown place '{path}'") from None
            check_token_list(overrides[path], f"initial marking of place '{path}'",
                             f"marking={{{path!r}: [{overrides[path]!r}]}}")
            if index in given:
                raise NetError(f"initial marking of place '{self.net.places[index].path}' "
                               f"given twice, as '{given[index]}' and '{path}'")
            given[index] = path
        future = []
        with cyclic_gc_paused():  # a trace's million tokens: no cycles to look for
            for place in self.net.places:
                tokens = (overrides[given[place.index]] if place.index in given
                          else place.initial)
                for token in tokens:
                    value, stamp = place.initial_token(token)
                    if not place.timed:
                        self._R[place.index].append(value)
                    elif stamp <= self.now:  # no key bounds yet: computed from these
                        self._R[place.index].append(value)
                        self._S[place.index].append(stamp)
                    else:
                        future.append((stamp, self._next(), place.index, value))
        future.sort(reverse=True)  # a trace's submissions come in order: one pass
        self._initial = future
        self._feed()

    def _feed(self) -> int | None:
        """Put the initial marking's next future token into the heap, once
        the one there left it; the sequence number of its entry (unique: the
        hot loop compares it by identity), None when none is left."""
        if self._initial:
            self._feeding = self._initial.pop()
            heapq.heappush(self._heap, self._feeding)
            return self._feeding[1]
        self._feeding = None
        return None

    def _fed(self) -> int | None:
        """The sequence number of the feed's entry in the heap (see :meth:`_feed`)."""
        return self._feeding[1] if self._feeding else None
