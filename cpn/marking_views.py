"""Reading a running simulator's marking: copies, live views, and display.

Available tokens of a place sit in its list, future ones in the global
heap (or, for the initial marking's, in the simulator's feed of them); a reader wants them together, oldest first, with their timestamps.
Mixed into ``Simulator``.
"""

from __future__ import annotations

import collections
import html
from functools import partial
from itertools import chain
from typing import Any, Iterator

from .errors import BindingError
from .marking import HeldView, Marking, TokenView


class MarkingViews:
    """The marking of a ``Simulator`` as copies, live views and text."""

    @property
    def marking(self) -> Marking:
        """A read-only copy of the marking, with timestamps."""
        return Marking(self.now, {p.path: self._timed_tokens(p.index)
                                  for p in self.net.places},
                       {p.path: p.timed for p in self.net.places}, self.net.alias_paths)

    def freeze(self, with_time: bool = False) -> tuple:
        """The marking in hashable form, place by place in the net's order:
        each place's multiset of values or, with ``with_time``, of
        ``(value, timestamp relative to the clock)`` for timed places
        (0 once available), after the clock itself.  State spaces call it
        for every state, so it reads the simulator's lists directly."""
        now, future = self.now, {}
        for stamp, _, place, token in self._future():
            future.setdefault(place, []).append((token, stamp - now) if with_time else token)
        frozen = []
        for place, available in enumerate(self._R):
            if with_time and self._S[place] is not None:
                held = [(token, 0.0) for token in available] + future.get(place, [])
            else:
                held = available + future.get(place, [])
            frozen.append(frozenset({(held[0], 1)} if len(held) == 1 else
                                    collections.Counter(held).items()))
        return (now, *frozen) if with_time else tuple(frozen)

    def tokens(self, path: str) -> list:
        """A copy of the tokens of a place (available or not), oldest first."""
        return list(self._tokens_of(self.place_index(path)))

    def view(self, path: str) -> TokenView:
        """A live, read-only view of the tokens of a place (available or
        not, oldest first) that follows the run: code that reads a place
        after every firing looks it up once.  ``len(view)`` counts them."""
        index = self.place_index(path)
        if self._S[index] is None:  # untimed: the list is the marking (see _tokens_of)
            return HeldView(path, self._R[index])
        return TokenView(path, partial(self._tokens_of, index))

    def held(self, path: str) -> list:
        """The tokens of an untimed place: the simulator's own list, which
        follows the run and is read without a call (a view's ``view[0]`` is
        one), for code that reads the place after every firing.  Never
        change it."""
        index = self.place_index(path)
        if self._S[index] is not None:
            raise ValueError(f"place '{path}' is timed: its tokens are not one list; "
                             "read it through view()")
        return self._R[index]

    def _tokens_of(self, place: int) -> list:
        """The tokens of a place by index, for monitors read at every clock
        move: an untimed place's own list (not a copy: do not change it)."""
        if self._S[place] is None:
            return self._R[place]
        return [value for value, _ in self._timed_tokens(place)]

    def _timed_tokens(self, place: int) -> list[tuple[Any, float | None]]:
        stamps = self._S[place]
        if stamps is None:
            return [(token, None) for token in self._R[place]]
        future = sorted((s, n, tok) for s, n, p, tok in self._future() if p == place)
        return list(zip(self._R[place], stamps)) + [(tok, s) for s, n, tok in future]

    def _future(self) -> Iterator[tuple]:
        """Every token not yet available, ``(timestamp, sequence, place,
        token)``: those in the heap and the initial ones not fed to it."""
        return chain(self._heap, self._initial)

    def _occupied(self) -> Marking:
        """The marking of the places that hold tokens: what a person looks
        at in a net whose places are mostly empty."""
        tokens = {p.path: self._timed_tokens(p.index) for p in self.net.places}
        return Marking(self.now, {path: held for path, held in tokens.items() if held},
                       {p.path: p.timed for p in self.net.places})

    def _headline(self) -> str:
        return (f"Simulator of net {self.net.name!r}: {self.steps} "
                f"firing{'' if self.steps == 1 else 's'}")

    def __repr__(self) -> str:
        """The clock and every non-empty place with its tokens (at most six
        distinct values each, then how many more)."""
        return f"{self._headline()}\n{self._occupied()}"

    def _repr_html_(self) -> str:
        """For Jupyter: the net drawn with its marking (the top level, the
        transitions with an enabled binding highlighted) when Graphviz is
        installed, then the same table as the text."""
        from .drawing import DrawingError, render, to_graphviz  # drawing imports this

        try:
            svg = render(to_graphviz(self.hierarchy or self.net, self)).decode("utf-8")
            drawing = svg[svg.index("<svg"):]
        except (DrawingError, BindingError):  # no dot; a guard that fails is shown by enabled()
            drawing = ""
        return (f"<p>{html.escape(self._headline())}</p>{drawing}"
                f"{self._occupied()._repr_html_()}")
