"""DVFS gears and a job's time and CPU power at a gear (thesis section 3.2).

Time (eq. 3.1, with eq. 3.5's ``beta = p * beta_comp``): a job that runs
``T`` seconds at the nominal frequency runs ``T * Coef(f, beta)`` at ``f``,
``Coef(f, beta) = beta * (f_nominal / f - 1) + 1``.

Power (eqs. 3.6-3.12): a CPU draws static power ``alpha * V`` (eq. 3.7) and
dynamic power ``A * f * V^2`` (eq. 3.6).  ``alpha`` and the computation
activity ``A_comp`` follow from two facts: a CPU running sequential code at
the nominal gear draws ``nominal_cpu_watts``, 30 % of it static.  The
communication activity is ``A_comp / 1.9`` (eqs. 3.9-3.10).  A job of
parallel efficiency ``p`` has activity ``p A_comp + (1 - p) A_comm`` at the
nominal gear (eq. 3.8), rising at lower gears as computation takes a larger
share of the time (eq. 3.11), and draws ``CPU(J) (alpha V_f + A(f) f V_f^2)``
(eq. 3.12).

Gears are indices into ``gears`` (0 the lowest, the last the nominal); a
job token carries its gear as ``pf``, its frequency over the nominal one.

>>> model = CpuPowerModel(nominal_cpu_watts=1.0)
>>> [round(model.sequential_watts(g), 2) for g in range(len(model.gears))]
[0.31, 0.4, 0.51, 0.65, 0.81, 1.0]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

IDLE_SCENARIOS = ("zero", "lowest_gear")


class Gear(NamedTuple):
    """A frequency/voltage pair."""

    frequency_ghz: float
    voltage: float


#: Table 3.2: the gear set of the thesis (an AMD Athlon-64's ratios).
TABLE_3_2 = (Gear(0.8, 1.0), Gear(1.1, 1.1), Gear(1.4, 1.2), Gear(1.7, 1.3),
             Gear(2.0, 1.4), Gear(2.3, 1.5))


@dataclass(frozen=True)
class CpuPowerModel:
    """The CPU power and time model of section 3.2.

    ``static_share``: static part of a CPU's power running sequential code
    at the nominal gear (section 3.2.2: 30 %).  ``activity_ratio``:
    ``A_comp / A_comm`` (1.9, from eqs. 3.9-3.10).  ``nominal_cpu_watts``:
    that CPU's power; only ratios matter to the thesis' results, so it only
    sets the unit.  ``idle``: idle CPUs draw nothing (``"zero"``) or run at
    the lowest gear with the communication activity (``"lowest_gear"``),
    the two scenarios of chapter 4.
    """

    gears: tuple[Gear, ...] = TABLE_3_2
    static_share: float = 0.3
    activity_ratio: float = 1.9
    nominal_cpu_watts: float = 100.0
    idle: str = "lowest_gear"

    def __post_init__(self):
        gears = tuple(Gear(float(f), float(v)) for f, v in self.gears)
        object.__setattr__(self, "gears", gears)
        if not gears or any(f <= 0 or v <= 0 for f, v in gears):
            raise ValueError(f"gears need positive frequencies and voltages, not {gears}")
        if any(b.frequency_ghz <= a.frequency_ghz for a, b in zip(gears, gears[1:])):
            raise ValueError(f"gears must be listed by increasing frequency: {gears}")
        if not 0 <= self.static_share < 1:
            raise ValueError(f"static_share must be within [0, 1), not {self.static_share}")
        if self.activity_ratio < 1:
            raise ValueError(f"activity_ratio (A_comp / A_comm) must be >= 1, "
                             f"not {self.activity_ratio}")
        if not self.nominal_cpu_watts > 0:
            raise ValueError(f"nominal_cpu_watts must be positive, not {self.nominal_cpu_watts}")
        if self.idle not in IDLE_SCENARIOS:
            raise ValueError(f"idle must be one of {IDLE_SCENARIOS}, not {self.idle!r}")

    @property
    def nominal(self) -> int:
        return len(self.gears) - 1

    @property
    def alpha(self) -> float:
        """Eq. 3.7's ``alpha``: static power per volt."""
        return self.static_share * self.nominal_cpu_watts / self.gears[-1].voltage

    @property
    def a_comp(self) -> float:
        """Computation activity, from eq. 3.6 at the nominal gear."""
        f, v = self.gears[-1]
        return (1 - self.static_share) * self.nominal_cpu_watts / (f * v * v)

    @property
    def a_comm(self) -> float:
        return self.a_comp / self.activity_ratio

    def relative(self, gear: int) -> float:
        """A gear's frequency over the nominal one: the token's ``pf``."""
        return self.gears[gear].frequency_ghz / self.gears[-1].frequency_ghz

    def gear_of(self, pf: float) -> int:
        """The gear whose relative frequency is ``pf``."""
        for gear in range(len(self.gears)):
            if abs(self.relative(gear) - pf) < 1e-9:
                return gear
        raise ValueError(f"no gear runs at {pf} of the nominal frequency")

    def coef(self, gear: int, beta: float) -> float:
        """Eq. 3.1: a job's time at ``gear`` over its time at the nominal gear."""
        return beta * (self.gears[-1].frequency_ghz / self.gears[gear].frequency_ghz - 1) + 1

    def activity(self, gear: int, p: float, beta: float) -> float:
        """Eq. 3.11 (eq. 3.8 at the nominal gear); ``beta = p * beta_comp``."""
        nominal = p * self.a_comp + (1 - p) * self.a_comm
        stretch = beta * (self.gears[-1].frequency_ghz / self.gears[gear].frequency_ghz - 1)
        return (stretch * self.a_comp + nominal) / (stretch + 1)

    def cpu_watts(self, gear: int, activity: float) -> float:
        """Eqs. 3.6 + 3.7: one CPU's power at ``gear`` with ``activity``."""
        f, v = self.gears[gear]
        return self.alpha * v + activity * f * v * v

    def job_watts(self, cpus: int, gear: int, p: float, beta: float) -> float:
        """Eq. 3.12: a job's average CPU power at ``gear``."""
        return cpus * self.cpu_watts(gear, self.activity(gear, p, beta))

    def sequential_watts(self, gear: int) -> float:
        """A CPU running sequential code (p = 1): the most a CPU draws at
        ``gear`` (Table 3.2's Norm(P) row times ``nominal_cpu_watts``)."""
        return self.cpu_watts(gear, self.a_comp)

    @property
    def idle_cpu_watts(self) -> float:
        """An idle CPU: nothing, or the lowest gear with ``A_comm``."""
        return 0.0 if self.idle == "zero" else self.cpu_watts(0, self.a_comm)
