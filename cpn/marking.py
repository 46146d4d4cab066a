"""Read-only views of a marking: a copy for people, a live view for code.

The simulator's own state is tuned for speed (lists and a heap); a
:class:`Marking` is what users look at, in a terminal (``str``), in Jupyter
(``_repr_html_``) or in tests (``counts()``, ``multiset()``); a
:class:`TokenView` is what code outside the engine reads while a simulation
runs (a monitor after each firing, a progress report between runs).
"""

from __future__ import annotations

import html
from collections import Counter
from typing import Any, Callable, Iterator, Mapping, Sequence

from .times import time_text


class Marking(Mapping[str, list]):
    """Place path -> its tokens (values), oldest first; ``timed(path)`` gives
    ``(value, timestamp)`` pairs, the timestamp None for untimed places.
    A place is also found by the paths it was declared by (``aliases``,
    see ``FlatNet.alias_paths``: a fusion set member's, a port's), as
    ``Simulator.tokens`` finds it; iteration gives each place once."""

    def __init__(self, time: float, tokens: dict[str, list[tuple[Any, float | None]]],
                 is_timed: dict[str, bool], aliases: Mapping[str, str] | None = None):
        self.time = time
        self._tokens = tokens
        self._is_timed = is_timed
        self._aliases = aliases or {}

    def _held(self, path: str) -> list[tuple[Any, float | None]]:
        try:
            return self._tokens[path]
        except KeyError:
            if path not in self._aliases:
                raise
        return self._tokens[self._aliases[path]]

    def __getitem__(self, path: str) -> list:
        return [value for value, _ in self._held(path)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tokens)

    def __len__(self) -> int:
        return len(self._tokens)

    def timed(self, path: str) -> list[tuple[Any, float | None]]:
        return list(self._held(path))

    def counts(self) -> dict[str, int]:
        return {path: len(tokens) for path, tokens in self._tokens.items()}

    def multiset(self, path: str) -> Counter:
        """The tokens of a place as a multiset (tokens must be hashable)."""
        return Counter(self[path])

    def freeze(self, with_time: bool = False) -> tuple:
        """A hashable form, for state spaces: untimed multisets, or with
        timestamps relative to the clock when ``with_time``."""
        frozen = []
        for path, tokens in self._tokens.items():
            if with_time and self._is_timed[path]:
                items = Counter((v, max(s - self.time, 0.0)) for v, s in tokens)
            else:
                items = Counter(v for v, _ in tokens)
            frozen.append((path, frozenset(items.items())))
        return (self.time,) + tuple(frozen) if with_time else tuple(frozen)

    @staticmethod
    def format_tokens(tokens: list[tuple[Any, float | None]], limit: int = 6) -> str:
        """CPN Tools style: ``2`x@5 ++ 1`y`` (timestamps where timed)."""
        counts = Counter((repr(v), s) for v, s in tokens)
        terms = [f"{n}`{v}" + ("" if s is None else f"@{time_text(s)}")
                 for (v, s), n in counts.items()]
        shown = " ++ ".join(terms[:limit])
        return shown + (f" ++ … ({len(terms) - limit} more)" if len(terms) > limit else "")

    def __str__(self) -> str:
        width = max((len(p) for p in self._tokens), default=0)
        lines = [f"time {time_text(self.time)}"]
        for path, tokens in self._tokens.items():
            lines.append(f"  {path:<{width}}  {len(tokens):>5}  {self.format_tokens(tokens)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Marking at time {time_text(self.time)}: {self.counts()}>"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(path)}</td><td style='text-align:right'>{len(tokens)}</td>"
            f"<td><code>{html.escape(self.format_tokens(tokens))}</code></td></tr>"
            for path, tokens in self._tokens.items())
        return (f"<table><caption>marking at time {time_text(self.time)}</caption>"
                "<tr><th>place</th><th>tokens</th><th>marking</th></tr>"
                f"{rows}</table>")


class TokenView(Sequence):
    """The tokens of one place, oldest first, as the simulation goes on:
    look it up once (``Simulator.view(path)``), read it whenever needed
    (``len(view)``, ``view[0]``, iteration).  It cannot change the marking;
    to keep the tokens of one instant, copy them (``list(view)``)."""

    __slots__ = ("path", "_tokens")

    def __init__(self, path: str, tokens: Callable[[], list]):
        self.path = path
        self._tokens = tokens

    def __len__(self) -> int:
        return len(self._tokens())

    def __getitem__(self, index):
        return self._tokens()[index]

    def __iter__(self) -> Iterator:
        return iter(self._tokens())

    def __repr__(self) -> str:
        return f"<TokenView of '{self.path}': {len(self)} tokens>"


class HeldView(TokenView):
    """A :class:`TokenView` of an untimed place: its tokens are the list
    the simulator changes in place, read without a call (a model's monitor
    reads such places after tens of thousands of firings)."""

    __slots__ = ("_held",)

    def __init__(self, path: str, held: list):
        self.path = path
        self._held = held

    def __len__(self) -> int:
        return len(self._held)

    def __getitem__(self, index):
        return self._held[index]

    def __iter__(self) -> Iterator:
        return iter(self._held)
