"""Choosing jobs from a scheduling window under a power budget: 0-1 knapsack.

Wallace et al. (data-driven power-aware scheduling, section VI-B) pick,
from a window of queued jobs, the subset that uses the most nodes while its
power fits the budget ``PB - P_used`` and its nodes fit the free ones
``N - N_used`` (eq. 1).  That is a knapsack with *two* capacities:

:func:`knapsack_exact`
    the exact solver: a dynamic programme over the number of nodes used
    that keeps, for each count, the least power any subset of the jobs
    seen so far needs to use exactly that many nodes.  The answer is the
    largest count whose least power fits the budget.  O(jobs x free
    nodes / g), where g is the greatest common divisor of the job sizes
    (512 on Mira, so a few hundred cells).

:func:`knapsack_eq2`
    the paper's eq. 2 as printed: a table indexed by power (in whole
    ``power_unit``), whose value is the most nodes, and where a candidate
    that would overflow the free nodes counts as minus infinity.  Keeping
    only the best node count per power forgets subsets with fewer nodes
    that would have left room for another job, so it is not always optimal
    (see the tests: 4 free nodes, 10 kW, jobs (3, 5 kW), (2, 5), (2, 5):
    eq. 2 takes 3 nodes, the optimum is 4).

:func:`in_order`
    the conventional one-by-one selection from the head, for comparison
    (the FCFS of the paper's motivating example, section IV-A).

All three take plain sequences (node counts, watts) and return the indices
of the chosen jobs, in increasing order.  Ties: among subsets of the most
nodes, :func:`knapsack_exact` takes the one of least power, and among
those the first found when jobs are considered in window order.

>>> knapsack_exact([3, 1, 5, 4], [180, 50, 150, 160], free_nodes=6, budget=230)
(1, 2)
>>> in_order([3, 1, 5, 4], [180, 50, 150, 160], free_nodes=6, budget=230)
(0, 1)
"""

from __future__ import annotations

import math
from functools import reduce
from typing import Callable, Sequence

import numpy as np

__all__ = ["knapsack_exact", "knapsack_eq2", "in_order", "SOLVERS"]

_TOLERANCE = 1e-9  # relative slack on the power budget (sums of floats)


def _fits(power: float, budget: float) -> bool:
    return power <= budget + _TOLERANCE * max(1.0, abs(budget))


def _check(nodes: Sequence[int], powers: Sequence[float]) -> None:
    if len(nodes) != len(powers):
        raise ValueError(f"{len(nodes)} node counts but {len(powers)} powers")
    if any(n < 0 for n in nodes):
        raise ValueError(f"node counts must be >= 0, not {list(nodes)}")


def in_order(nodes: Sequence[int], powers: Sequence[float], free_nodes: int,
             budget: float) -> tuple[int, ...]:
    """Take jobs from the head while each fits what the previous ones left;
    stop at the first that does not (strict order, no skipping)."""
    _check(nodes, powers)
    chosen, used_power = [], 0.0
    for index, (n, p) in enumerate(zip(nodes, powers)):
        if n > free_nodes or not _fits(used_power + p, budget):
            break
        chosen.append(index)
        free_nodes -= n
        used_power += p
    return tuple(chosen)


def knapsack_exact(nodes: Sequence[int], powers: Sequence[float], free_nodes: int,
                   budget: float) -> tuple[int, ...]:
    """The subset of most nodes with ``sum(nodes) <= free_nodes`` and
    ``sum(powers) <= budget`` (powers may be any real numbers)."""
    _check(nodes, powers)
    if budget != budget:  # NaN
        raise ValueError("the power budget is NaN")
    nonnegative = all(p >= 0 for p in powers)
    candidates = [i for i, n in enumerate(nodes) if n <= free_nodes
                  and (not nonnegative or _fits(powers[i], budget))]
    if not candidates:
        return ()
    if (sum(nodes[i] for i in candidates) <= free_nodes
            and _fits(sum(powers[i] for i in candidates), budget)):
        return tuple(candidates)
    unit = reduce(math.gcd, (nodes[i] for i in candidates)) or 1
    sizes = [nodes[i] // unit for i in candidates]
    capacity = min(free_nodes // unit, sum(sizes))
    least = np.full(capacity + 1, np.inf)  # least power to use exactly k units
    least[0] = 0.0
    took = []
    for size, index in zip(sizes, candidates):
        candidate = least[:capacity + 1 - size] + powers[index]
        better = candidate < least[size:]  # strict: earlier subsets win ties
        row = np.zeros(capacity + 1, dtype=bool)
        row[size:] = better
        took.append(row)
        least[size:] = np.where(better, candidate, least[size:])
    slack = _TOLERANCE * max(1.0, abs(budget))
    feasible = np.flatnonzero(least <= budget + slack)
    if len(feasible) == 0:
        return ()
    used = int(feasible[-1])
    chosen = []
    for position in range(len(candidates) - 1, -1, -1):
        if took[position][used]:
            chosen.append(candidates[position])
            used -= sizes[position]
    return tuple(sorted(chosen))


def knapsack_eq2(nodes: Sequence[int], powers: Sequence[float], free_nodes: int,
                 budget: float, power_unit: float = 1000.0) -> tuple[int, ...]:
    """Eq. 2 of the paper, as printed: ``T[k, w]`` is the most nodes jobs
    ``1..k`` can use within ``w`` units of power; a job's candidate
    ``N_pot = n_k + T[k-1, w - w_k]`` counts as minus infinity when it
    exceeds the free nodes.  Powers are rounded up to whole ``power_unit``
    watts (so a chosen set never exceeds the budget) and the budget down;
    a negative power counts as zero.  O(jobs x budget / power_unit)."""
    _check(nodes, powers)
    if not power_unit > 0:
        raise ValueError(f"power_unit must be positive, not {power_unit}")
    if not budget >= 0:
        return ()
    if math.isinf(budget):
        budget = sum(max(p, 0.0) for p in powers)
    capacity = int(math.floor(budget / power_unit + _TOLERANCE))
    weights = [max(0, math.ceil(p / power_unit - _TOLERANCE)) for p in powers]
    table = np.zeros((len(nodes) + 1, capacity + 1))
    for k, (n, w) in enumerate(zip(nodes, weights), start=1):
        previous = table[k - 1]
        table[k] = previous
        if w > capacity:
            continue
        potential = n + previous[:capacity + 1 - w]
        potential = np.where(potential > free_nodes, -np.inf, potential)
        table[k, w:] = np.maximum(previous[w:], potential)
    chosen, w = [], capacity
    for k in range(len(nodes), 0, -1):
        if table[k, w] != table[k - 1, w]:
            chosen.append(k - 1)
            w -= weights[k - 1]
    return tuple(sorted(chosen))


#: Window solvers by name (``WindowConfig.solver``).
SOLVERS: dict[str, Callable[..., tuple[int, ...]]] = {
    "exact": knapsack_exact,
    "eq2": knapsack_eq2,
    "in_order": in_order,
}
