"""Lower bounds of token keys, so a search that no token can satisfy fails at once.

A scheduler's typical guard, ``size <= free`` with ``size`` from a queue
of jobs and ``free`` from a one-token counter, fails for every job while the
machine is full: the search would walk the whole queue each time.  When the
compiler sees such a test right inside a search's outermost loop, the
simulator keeps the least key of that place's tokens (lowered as tokens
come, made exact again after a search walked the place in vain since
tokens left), and the search gives up before the loop when the other side
is below it.  Exactly the bindings found without it are found.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from .codegen import BIND, LOOKUP, TEST, SearchStep
from .inscription import binds


@dataclass(frozen=True)
class KeyBound:
    """A numeric key of the tokens of a place -- the token itself
    (``arity`` None) or element ``position`` of a tuple of ``arity`` -- whose
    lower bound over the place's tokens the simulator keeps, in slot
    ``slot``: a search whose first loop is over that place, with the guard
    conjunct ``key <= x`` (or ``<``) tested first, fails at once when ``x``
    is below the bound, instead of walking every token to find none fits."""

    slot: int
    place: int
    arity: int | None
    position: int


def key_test(steps: list[SearchStep], held: frozenset,
             env_names: set[str]) -> tuple[int, tuple, str, bool] | None:
    """The outermost loop of the search, when the guard conjunct tested
    first for each of its tokens is ``key <= name`` (``<``, or mirrored)
    with ``key`` a variable its pattern (a variable, or a tuple of fresh
    ones) binds and ``name`` one bound before the loop: ``(its step,
    (place, arity, position) of the key, name, strict)``; else None."""
    bound: set[str] = set()
    picked: set[int] = set()
    for index, step in enumerate(steps):
        if step.kind == TEST:
            continue
        place, node = step.token.place, step.node
        if step.kind == LOOKUP or place in held and place not in picked:  # no loop
            picked.add(place)
            bound.update(binds(node, bound, env_names) if step.kind == BIND else ())
            continue
        names = [e.id if isinstance(e, ast.Name) else None
                 for e in (node.elts if isinstance(node, ast.Tuple) else [node])]
        if (place in held or place in picked or None in names
                or binds(node, bound, env_names) != names or index + 1 == len(steps)
                or steps[index + 1].kind != TEST):
            return None
        test = steps[index + 1].node
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1
                and isinstance(test.left, ast.Name)
                and isinstance(test.comparators[0], ast.Name)):
            return None
        left, right, op = test.left.id, test.comparators[0].id, test.ops[0]
        if isinstance(op, (ast.Gt, ast.GtE)):
            left, right = right, left
        elif not isinstance(op, (ast.Lt, ast.LtE)):
            return None
        if left not in names or right in names or not (
                right in bound or right in env_names or right == "now"):
            return None
        arity = len(names) if isinstance(node, ast.Tuple) else None
        return index, (place, arity, names.index(left)), right, isinstance(op, (ast.Lt,
                                                                                 ast.Gt))
    return None


class KeyBounds:
    """The bounds of a ``Simulator``: ``_lo[slot]`` is at most the key of
    every available token of its key's place that has one;
    ``_exact[slot]`` the number of tokens that place would hold had none
    left since the bound was exact."""

    def _bounds(self) -> None:
        """Each key the compiled searches read, with its exact bound."""
        keys = {t.key.slot: t.key for t in self.transitions if t.key is not None}
        self._slot_keys = [keys[slot] for slot in range(len(keys))]
        self._lo = [0.0] * len(keys)
        self._exact = [0] * len(keys)
        by_place: dict[int, list] = {}
        for slot, key in enumerate(self._slot_keys):
            by_place.setdefault(key.place, []).append(key)
            self._lowest(slot)
        for place, found in by_place.items():
            self._keys[place] = tuple(found)

    def _lowest(self, slot: int) -> None:
        """Make the bound of ``slot`` exact: the least key of its place's
        tokens (minus infinity when a key is not a number: no search is
        then cut short)."""
        key = self._slot_keys[slot]
        tokens, arity, position = self._R[key.place], key.arity, key.position
        keys = (tokens if arity is None else
                [t[position] for t in tokens if isinstance(t, tuple) and len(t) == arity])
        lowest = float("inf")
        for value in keys:
            if not isinstance(value, (int, float)):
                lowest = float("-inf")
                break
            if value < lowest:  # never NaN: a NaN key fails every comparison
                lowest = value
        self._lo[slot], self._exact[slot] = lowest, len(tokens)

    def _lower(self, place: int, token: Any) -> None:
        """A token joined ``place``: lower its keys' bounds to its keys."""
        for key in self._keys[place]:
            self._exact[key.slot] += 1
            if key.arity is None:
                value = token
            elif isinstance(token, tuple) and len(token) == key.arity:
                value = token[key.position]
            else:
                continue  # no binding of the key's pattern takes it
            if not isinstance(value, (int, float)):
                self._lo[key.slot] = float("-inf")
            elif value < self._lo[key.slot]:
                self._lo[key.slot] = value
