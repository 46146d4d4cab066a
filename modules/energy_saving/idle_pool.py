"""The idle pool: how many powered-on nodes are idle and unassigned, and
since when (Dolz et al., section 2.5.2: the least recently used idle
nodes are the ones switched off).

Nodes are identical, so the pool keeps batches ``(idle since, count)``
rather than one token per node: a decision costs O(batches), not O(nodes).
A starting job takes the most recently idle nodes, which keeps the least
recently used ones idle long enough to be switched off.
"""

from __future__ import annotations

from typing import NamedTuple


class IdlePool(NamedTuple):
    """Idle, unassigned, powered-on nodes: ``count`` of them in ``batches``
    ``(idle since, nodes)``, oldest first."""

    count: int
    batches: tuple[tuple[float, int], ...]


def idle_added(pool: IdlePool, nodes: int, now: float) -> IdlePool:
    """``nodes`` more idle nodes, idle since ``now``."""
    if nodes <= 0:
        return pool
    batches = pool.batches
    if batches and batches[-1][0] == now:
        batches = batches[:-1] + ((now, batches[-1][1] + nodes),)
    else:
        batches = batches + ((now, nodes),)
    return IdlePool(pool.count + nodes, batches)


def take_recent(pool: IdlePool, nodes: int) -> IdlePool:
    """Without the ``nodes`` most recently idle (a job takes them): most
    often part of the last batch."""
    batches = pool.batches
    if batches and batches[-1][1] > nodes:
        since, count = batches[-1]
        return IdlePool(pool.count - nodes, batches[:-1] + ((since, count - nodes),))
    batches, left = list(batches), nodes
    while left > 0:
        since, count = batches.pop()
        if count > left:
            batches.append((since, count - left))
        left -= count
    return IdlePool(pool.count - nodes, tuple(batches))


def take_oldest(pool: IdlePool, nodes: int) -> IdlePool:
    """Without the ``nodes`` least recently used (they are switched off)."""
    if nodes <= 0:
        return pool
    position, left = 0, nodes
    batches = pool.batches
    while left >= batches[position][1]:
        left -= batches[position][1]
        position += 1
        if left == 0:
            break
    rest = batches[position:]
    if left:
        rest = ((rest[0][0], rest[0][1] - left),) + rest[1:]
    return IdlePool(pool.count - nodes, rest)


def idle_since_before(pool: IdlePool, cutoff: float) -> int:
    """How many nodes have been idle since ``cutoff`` or earlier."""
    total = 0
    for since, count in pool.batches:
        if since > cutoff:
            break
        total += count
    return total


def merge_before(pool: IdlePool, cutoff: float) -> IdlePool:
    """Batches idle since ``cutoff`` or earlier merged into one (under its
    earliest time): the policy cannot tell them apart, and merging keeps the
    pool short when idle nodes are kept for a waiting queue."""
    batches = pool.batches
    if len(batches) < 2 or batches[1][0] > cutoff:
        return pool
    old = idle_since_before(pool, cutoff)
    position = sum(1 for since, _ in batches if since <= cutoff)
    return IdlePool(pool.count, ((batches[0][0], old),) + batches[position:])


def follow(pool: IdlePool, free: int, now: float) -> IdlePool:
    """The pool after allocation or *Finish* changed *Nodes* to ``free``:
    started jobs took the most recently idle nodes (which keeps the least
    recently used ones idle long enough to be switched off); ended jobs'
    nodes are idle since now."""
    if free > pool.count:
        return idle_added(pool, free - pool.count, now)
    return take_recent(pool, pool.count - free)
