"""The window knapsack (data-driven scheduling, section VI-B): the exact
two-constraint solver against brute force, the paper's motivating example
(section IV-A), and the case where eq. 2 as printed is not optimal."""

import itertools
import math

import numpy as np
import pytest

from modules.knapsack import SOLVERS, in_order, knapsack_eq2, knapsack_exact

# Section IV-A: a 6-rack machine, a 230 kW cap; (racks, kW per rack).
MOTIVATING = {"J0": (3, 60), "J1": (1, 50), "J2": (5, 30), "J3": (4, 40)}
RACKS = [racks for racks, _ in MOTIVATING.values()]
KILOWATTS = [racks * per_rack for racks, per_rack in MOTIVATING.values()]


def totals(chosen, nodes, powers):
    return sum(nodes[i] for i in chosen), sum(powers[i] for i in chosen)


def test_motivating_example_fcfs_takes_j0_j1_the_knapsack_j1_j2():
    fcfs = in_order(RACKS, KILOWATTS, free_nodes=6, budget=230)
    assert fcfs == (0, 1) and totals(fcfs, RACKS, KILOWATTS) == (4, 230)
    best = knapsack_exact(RACKS, KILOWATTS, free_nodes=6, budget=230)
    assert best == (1, 2) and totals(best, RACKS, KILOWATTS) == (6, 200)
    assert knapsack_eq2(RACKS, KILOWATTS, 6, 230, power_unit=1) == (1, 2)


def test_eq2_as_printed_is_not_optimal_on_two_constraints():
    # 4 free nodes, 10 kW: (3 nodes, 5 kW), (2, 5), (2, 5).
    nodes, kilowatts = [3, 2, 2], [5.0, 5.0, 5.0]
    eq2 = knapsack_eq2(nodes, kilowatts, free_nodes=4, budget=10, power_unit=1)
    assert eq2 == (0,) and totals(eq2, nodes, kilowatts) == (3, 5)
    exact = knapsack_exact(nodes, kilowatts, free_nodes=4, budget=10)
    assert exact == (1, 2) and totals(exact, nodes, kilowatts) == (4, 10)
    # In watts with the default 1 kW unit, the same.
    assert knapsack_eq2(nodes, [5000.0] * 3, 4, 10_000.0) == (0,)


def brute_force(nodes, powers, free, budget):
    """Most nodes; then least power; returns (nodes, power)."""
    best = (0, 0.0)
    for r in range(len(nodes) + 1):
        for subset in itertools.combinations(range(len(nodes)), r):
            n, p = totals(subset, nodes, powers)
            if n <= free and p <= budget + 1e-9:
                if n > best[0] or (n == best[0] and p < best[1]):
                    best = (n, p)
    return best


@pytest.mark.parametrize("negative", [False, True])
def test_exact_solver_matches_brute_force(negative):
    rng = np.random.default_rng(7)
    for _ in range(150):
        k = int(rng.integers(1, 10))
        unit = int(rng.choice([1, 2, 512]))
        nodes = [int(n) * unit for n in rng.integers(1, 12, k)]
        low = -20 if negative else 0
        powers = [float(p) for p in rng.uniform(low, 100, k)]
        free = int(rng.integers(0, sum(nodes) + 2))
        budget = float(rng.uniform(0, sum(max(p, 0) for p in powers) + 10))
        chosen = knapsack_exact(nodes, powers, free, budget)
        assert list(chosen) == sorted(set(chosen))
        n, p = totals(chosen, nodes, powers)
        assert n <= free and p <= budget + 1e-9
        best_n, best_p = brute_force(nodes, powers, free, budget)
        assert n == best_n
        assert p == pytest.approx(best_p, abs=1e-9)


def test_eq2_is_feasible_and_never_better_than_exact():
    rng = np.random.default_rng(11)
    worse = 0
    for _ in range(200):
        k = int(rng.integers(1, 8))
        nodes = [int(n) for n in rng.integers(1, 10, k)]
        powers = [float(p) for p in rng.integers(1, 20, k)]  # whole units: no rounding
        free, budget = int(rng.integers(1, 25)), float(rng.integers(1, 60))
        eq2 = knapsack_eq2(nodes, powers, free, budget, power_unit=1)
        exact = knapsack_exact(nodes, powers, free, budget)
        n2, p2 = totals(eq2, nodes, powers)
        assert n2 <= free and p2 <= budget
        assert n2 <= totals(exact, nodes, powers)[0]
        worse += n2 < totals(exact, nodes, powers)[0]
    assert worse > 0  # the counterexample above is not a lone case


def test_eq2_rounds_power_up_so_its_choice_fits():
    # 2.4 kW rounds up to 3 units: two such jobs do not fit 5 kW.
    assert knapsack_eq2([1, 1], [2400.0, 2400.0], 5, 5000.0) == (0,)
    assert knapsack_exact([1, 1], [2400.0, 2400.0], 5, 5000.0) == (0, 1)


def test_edge_cases():
    assert knapsack_exact([], [], 10, 100.0) == ()
    assert knapsack_exact([4], [10.0], 3, 100.0) == ()  # too many nodes
    assert knapsack_exact([4], [10.0], 4, 9.0) == ()  # too much power
    assert knapsack_exact([4, 4], [10.0, 10.0], 8, math.inf) == (0, 1)
    assert knapsack_exact([3, 2, 2], [1.0, 1.0, 1.0], 4, math.inf) == (1, 2)
    assert knapsack_exact([2, 2], [5.0, 1.0], 2, 10.0) == (1,)  # least power on a tie
    assert knapsack_exact([2, 2], [5.0, 5.0], 2, 10.0) == (0,)  # then window order
    assert knapsack_eq2([1], [1.0], 1, -1.0) == ()
    assert in_order([1, 5, 1], [1.0, 1.0, 1.0], 3, 10.0) == (0,)  # strict: no skipping
    with pytest.raises(ValueError, match="node counts but"):
        knapsack_exact([1, 2], [1.0], 3, 3.0)
    with pytest.raises(ValueError, match=">= 0"):
        knapsack_exact([-1], [1.0], 3, 3.0)
    assert set(SOLVERS) == {"exact", "eq2", "in_order"}


def test_exact_solver_is_fast_on_a_full_window():
    import time
    rng = np.random.default_rng(3)
    nodes = [int(n) for n in rng.integers(1, 2000, 20)]
    powers = [n * float(rng.uniform(50, 100)) for n in nodes]
    began = time.perf_counter()
    for _ in range(20):
        knapsack_exact(nodes, powers, 5544, 0.4 * sum(powers))
    assert (time.perf_counter() - began) / 20 < 0.05
