"""Immutable colours that Python lacks: a hashable mapping.

Every token is immutable and hashable, so that markings can be compared,
stored in a state space, exported and undone.  Tuples, frozensets, named
tuples and frozen dataclasses cover most colours; a token that maps keys
to values (the running jobs a scheduler reads at once, say) needs a
mapping that cannot change: :class:`FrozenDict`.

>>> running = FrozenDict({1: (100.0, 4)})
>>> started = running | {2: (250.0, 8)}      # a new mapping; running is unchanged
>>> sorted(started), sorted(running), sorted(started.without(1))
([1, 2], [1], [2])
>>> hash(started) == hash(FrozenDict({2: (250.0, 8), 1: (100.0, 4)}))
True
>>> started[3] = (0.0, 1)
Traceback (most recent call last):
...
TypeError: a FrozenDict cannot change: build a new one with | or without()
"""

from __future__ import annotations

from typing import Any, Hashable, Iterable


def _refuse(self, *args, **kwargs):
    raise TypeError("a FrozenDict cannot change: build a new one with | or without()")


class FrozenDict(dict):
    """A ``dict`` that cannot change, hashable when its values are.

    It is a ``dict`` for speed: lookups, ``len``, iteration and
    ``values()`` run at dict speed, which matters for a token that a
    transition reads on every firing.  What would change it raises
    ``TypeError``; ``|`` (a copy with more entries) and :meth:`without` (a
    copy with fewer) make new ones, each one copy, as ``{**d, k: v}``
    does.  The hash is computed once, when first asked for.
    """

    __slots__ = ("_hash",)

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            self._hash = hash(frozenset(self.items()))
            return self._hash

    def __or__(self, other: dict) -> FrozenDict:
        if not isinstance(other, dict):  # as dict's own |
            return NotImplemented
        joined = FrozenDict(self)
        dict.update(joined, other)
        return joined

    def __ior__(self, other: dict):
        return NotImplemented  # so ``d |= e`` binds d to ``d | e``, as for tuples

    def without(self, key: Hashable) -> FrozenDict:
        """A copy without ``key``; itself when it has no such key."""
        if key not in self:
            return self
        smaller = FrozenDict(self)
        dict.__delitem__(smaller, key)
        return smaller

    def copy(self) -> FrozenDict:
        return self

    @classmethod
    def fromkeys(cls, keys: Iterable[Hashable], value: Any = None) -> FrozenDict:
        return cls(dict.fromkeys(keys, value))

    def __reduce__(self):
        return FrozenDict, (dict(self),)

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"
