"""MaxJobPerf's optimisation problem for one chunk of queued jobs
(thesis section 5.3.1, eqs. 5.2-5.9), solved exactly.

Each job ``i`` takes a gear or none (``F_i``, eq. 5.2); maximise
``sum value_i(F_i)`` (eq. 5.6: the per-CPU power of the gear times the
job's wait) under the CPUs and power free now (eqs. 5.3-5.4) and, for the
jobs still running at the reservation's start, the CPUs and power free
then (eqs. 5.7-5.8).

Why not an ILP solver: a chunk has at most 7 jobs and 6 gears, so the
whole space is at most 7^7 assignments, and depth-first branch and bound
(gears tried highest value first, a branch cut when even the best value
of every job left cannot beat the best found, or when it breaks a
constraint) is exact, needs no dependency, and on the thesis' instances
visits a few hundred nodes: far less than the set-up of a solver call,
which every job end would pay.  Tests check it against full enumeration.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence


class Option(NamedTuple):
    """Running a job at ``gear``: its objective term, its power, and
    whether it would still run at the reservation's start (eq. 5.9)."""

    gear: int
    value: float
    watts: float
    past_reservation: bool


class Capacity(NamedTuple):
    """CPUs and watts free now and at the reservation's start."""

    cpus_now: int
    watts_now: float
    cpus_then: int
    watts_then: float

    def take(self, cpus: int, option: Option) -> "Capacity | None":
        """What is left after starting a job of ``cpus`` as ``option``;
        ``None`` when it does not fit."""
        left = Capacity(self.cpus_now - cpus, self.watts_now - option.watts,
                        self.cpus_then - cpus * option.past_reservation,
                        self.watts_then - option.watts * option.past_reservation)
        if left.cpus_now < 0 or left.watts_now < -1e-9:
            return None
        if option.past_reservation and (left.cpus_then < 0 or left.watts_then < -1e-9):
            return None
        return left


def best_gears(jobs: Sequence[tuple[int, Sequence[Option]]],
               capacity: Capacity) -> tuple[int | None, ...]:
    """The gear of each job (``None``: not started) maximising the total
    value; ``jobs`` are ``(cpus, options)``.  Among equal totals, the
    first found wins: higher-valued options of earlier jobs."""
    ordered = [sorted(options, key=lambda option: -option.value) for _, options in jobs]
    best_left = [0.0] * (len(jobs) + 1)
    for index in range(len(jobs) - 1, -1, -1):
        top = max((option.value for option in ordered[index]), default=0.0)
        best_left[index] = best_left[index + 1] + max(top, 0.0)
    best: list = [float("-inf"), (None,) * len(jobs)]
    chosen: list[int | None] = [None] * len(jobs)

    def search(index: int, value: float, left: Capacity) -> None:
        if value + best_left[index] <= best[0]:
            return
        if index == len(jobs):
            best[0], best[1] = value, tuple(chosen)
            return
        cpus = jobs[index][0]
        for option in ordered[index]:
            after = left.take(cpus, option)
            if after is not None:
                chosen[index] = option.gear
                search(index + 1, value + option.value, after)
        chosen[index] = None
        search(index + 1, value, left)

    search(0, 0.0, capacity)
    return best[1]
