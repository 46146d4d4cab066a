"""The built-in workload: a seeded synthetic month on a Mira-like machine.

A user without a trace still needs a realistic workload to try the nets on,
and tests need one that is small, reproducible and free of licence terms.
:func:`synthetic_month` generates it as a pure function of a seed, on an
IBM Blue Gene/Q of 49,152 nodes in 48 racks of 1024, allocated in 512-node
midplanes, and calibrated to Mira's own job mix: the Cobalt accounting logs
of two windows of 2018 (``wk1``, 18-28 January, and ``wk2``, 15-25 March;
3,633 jobs submitted inside them; ``tests/mira_logs.py`` reads them and
``tests/test_synthetic_calibration.py`` checks this generator against
them).  The numbers live here, so the workload needs no data file.

*Size.*  A job's midplanes are drawn from the logged shares of each size
(:data:`MIRA_SIZE_SHARES`): 41 % one midplane, 32 % two, 12 % four, 7 %
eight, 5 % sixteen, and the rest 24 to 96 (the whole machine).

*Requested walltime.*  Mira's users pick from a few round values (90
minutes, 6 hours, 1 hour, ...); jobs of eight midplanes or more (4,096
nodes: Mira's capability jobs) ask for longer ones.  Each class draws from
its own menu, the values that at least 1 % (small jobs) or 1.5 % (large
jobs) of its logged jobs asked for, with their shares (95 % and 93 % of the
jobs; the mean walltime of the menu is within 1 % of the class's).

*Runtime.*  ``walltime * ratio``, whole seconds, at least 1 s, with the
ratio drawn from the class's logged quantiles of runtime / walltime
(every 5 %, linear in between; a job that ran past its walltime, 15 % of
them by seconds, counts as 1).  Small jobs: median 0.50 (many ran exactly
half their request), large ones 0.78; 10 % of either end before a tenth.

*Arrivals.*  Jobs are drawn until their work reaches ``load`` of the
machine over ``days`` (so the offered load, ``sum(js * rt)`` over machine
node-seconds, is the target to within one job); given that number of jobs,
the arrivals of a Poisson process are independent draws from its rate's
shape: a day from ``[0, days)`` and an hour of that day by the logged
share of submissions in each local hour (:data:`MIRA_HOUR_SHARES`, 2 % at
3 am, 7 % at 4 pm), uniform within it.  Time 0 is midnight local time.  The
logged days of the week show no weekly cycle (Fridays and weekends the
busiest), so there is none.

*Load.*  Offered load over the window's submit span: 0.81 in January
(204 jobs a day) and 1.05 in March (143 a day, larger jobs): Mira ran
close to full and fell behind in March.  :func:`mira_load` gives month
``m`` of a study January's load for even ``m`` and March's for odd ``m``,
as the PuPPET and TOPPER papers' quieter and busier months (their March
and April were about 35 % busier than January and February; 1.05 / 0.81 =
1.30).  A month is a ``days``-long draw, not a replay: a study's months
differ by their seed and their load.

*Owners and power.*  Users follow a Zipf-like popularity over ``users``
users, each in one of ``groups`` projects; job power comes from
:func:`modules.power_profile.assign_rack_power` (option (b): per-owner draws
from Mira's measured kW per rack), seeded from the same seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from modules.job import Job
from modules.power_profile import MIRA_2014, RackPowerDistribution, assign_rack_power
from modules.workload import Workload, rejected_columns

__all__ = ["SyntheticConfig", "mira_load", "synthetic_month"]

SECONDS_PER_DAY = 86_400.0
_BATCH = 1024  # jobs drawn per round; fixed so the stream is a function of the seed

#: Values drawn with probabilities proportional to their weights: ((value, weight), ...).
Weights = tuple[tuple[float, float], ...]

#: Share of Mira's logged jobs of each size, in midplanes (512 nodes).
MIRA_SIZE_SHARES = {1: 0.4104, 2: 0.3209, 4: 0.1219, 8: 0.0705, 16: 0.0523, 24: 0.0055,
                    32: 0.0077, 64: 0.0091, 96: 0.0017}
#: Jobs of at least this many midplanes request walltimes from the large menu.
MIRA_LARGE_UNITS = 8
#: Requested walltimes (s) with their shares (per mille), jobs under and over
#: MIRA_LARGE_UNITS midplanes.
MIRA_SMALL_WALLTIMES = {300: 20, 600: 26, 1200: 27, 1800: 42, 3540: 18, 3600: 120, 5400: 266,
                        7140: 15, 7200: 54, 9000: 11, 10800: 12, 11100: 13, 14400: 18,
                        18000: 36, 21540: 27, 21600: 204, 43200: 44}
MIRA_LARGE_WALLTIMES = {600: 23, 900: 17, 1200: 30, 1800: 69, 3600: 28, 5400: 19, 7200: 34,
                        14400: 96, 16200: 54, 18000: 101, 21600: 223, 25200: 36, 36000: 34,
                        43200: 84, 86400: 79}
#: Runtime / requested walltime at the quantiles 0, 0.05, ..., 1 (small, large jobs).
MIRA_SMALL_RATIOS = (0.002, 0.031, 0.104, 0.177, 0.276, 0.452, 0.491, 0.493, 0.495, 0.497,
                     0.5, 0.567, 0.764, 0.856, 0.909, 0.914, 0.94, 1.0, 1.0, 1.0, 1.0)
MIRA_LARGE_RATIOS = (0.002, 0.016, 0.058, 0.084, 0.118, 0.172, 0.298, 0.416, 0.575, 0.664,
                     0.78, 0.788, 0.847, 0.86, 0.866, 0.892, 0.949, 1.0, 1.0, 1.0, 1.0)
#: Share of submissions (per mille) in each local hour of the day, 0 to 23.
MIRA_HOUR_SHARES = (28, 31, 28, 21, 22, 23, 31, 32, 28, 30, 49, 43, 53, 61, 62, 66, 69, 67,
                    60, 44, 47, 45, 31, 27)
#: Offered load of the January and March 2018 windows.
MIRA_LOADS = (0.81, 1.05)


def mira_load(month: int | None) -> float:
    """The offered load of a study's month ``month``: January's for even
    months (and the whole run, ``None``), March's for odd ones."""
    return MIRA_LOADS[(month or 0) % len(MIRA_LOADS)]


@dataclass(frozen=True)
class SyntheticConfig:
    """Parameters of :func:`synthetic_month`; the defaults describe Mira
    (January's load).  Sizes and walltime menus are (value, weight) pairs,
    hour shares 24 weights: weights need not sum to 1."""

    machine_nodes: int = 49_152
    nodes_per_rack: int = 1024
    allocation_unit: int = 512  # a midplane
    days: float = 30.0
    load: float = MIRA_LOADS[0]  # offered load: work asked for over machine capacity
    size_shares: Weights = tuple(MIRA_SIZE_SHARES.items())
    large_units: int = MIRA_LARGE_UNITS
    small_walltimes: Weights = tuple(MIRA_SMALL_WALLTIMES.items())
    large_walltimes: Weights = tuple(MIRA_LARGE_WALLTIMES.items())
    small_ratios: tuple[float, ...] = MIRA_SMALL_RATIOS
    large_ratios: tuple[float, ...] = MIRA_LARGE_RATIOS
    hour_shares: tuple[float, ...] = MIRA_HOUR_SHARES
    # owners and power
    users: int = 200
    groups: int = 50
    zipf_exponent: float = 1.0
    power: RackPowerDistribution = MIRA_2014

    def __post_init__(self) -> None:
        if self.machine_nodes % self.allocation_unit:
            raise ValueError("machine_nodes must be a multiple of allocation_unit")
        if not (self.days > 0 and self.load > 0):
            raise ValueError("days and load must be positive")
        for name in ("size_shares", "small_walltimes", "large_walltimes"):
            _check_weights(name, getattr(self, name))
        if any(units < 1 or units != int(units) for units, _ in self.size_shares):
            raise ValueError(f"size_shares are of whole allocation units, got "
                             f"{[units for units, _ in self.size_shares]}")
        if any(walltime < 1 for name in ("small_walltimes", "large_walltimes")
               for walltime, _ in getattr(self, name)):
            raise ValueError("walltimes must be at least 1 s")
        for name in ("small_ratios", "large_ratios"):
            ratios = getattr(self, name)
            if len(ratios) < 2 or list(ratios) != sorted(ratios) or not 0 < ratios[0] <= ratios[-1] <= 1:
                raise ValueError(f"{name} are quantiles: at least two, increasing, within "
                                 f"(0, 1], got {ratios}")
        if len(self.hour_shares) != 24:
            raise ValueError(f"hour_shares has one weight per hour: 24, not "
                             f"{len(self.hour_shares)}")
        _check_weights("hour_shares", tuple(enumerate(self.hour_shares)))
        if self.users < 1 or self.groups < 1:
            raise ValueError("users and groups must be at least 1")


def _check_weights(name: str, pairs: Weights) -> None:
    weights = [weight for _, weight in pairs]
    if not weights or min(weights) < 0 or sum(weights) <= 0:
        raise ValueError(f"{name} must be non-negative weights with a positive sum, "
                         f"got {dict(pairs)}")


def synthetic_month(seed: int = 0, config: SyntheticConfig = SyntheticConfig()) -> Workload:
    """A reproducible synthetic workload (see the module docstring for the model).

    Same ``seed`` and ``config``, same jobs and powers, bit for bit.  Jobs are
    numbered from 1 in order of arrival; times start at midnight of day 0.
    """
    job_seed, power_seed = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.default_rng(job_seed)
    span = config.days * SECONDS_PER_DAY
    units, walltime, runtime = _jobs_up_to_load(
        rng, config, config.load * config.machine_nodes * span)
    count = len(units)
    nodes = units * config.allocation_unit
    submit = np.sort(_arrival_times(rng, config, count))
    user, group = _owners(rng, config, count)
    jobs = [
        Job(id=k + 1, st=float(submit[k]), rt=float(runtime[k]), js=int(nodes[k]),
            wt=float(walltime[k]), user=int(user[k]), group=int(group[k]))
        for k in range(count)
    ]
    jobs = assign_rack_power(
        jobs, power_seed, nodes_per_rack=config.nodes_per_rack, distribution=config.power
    )
    header = {
        "Computer": "synthetic Mira-like machine (IBM Blue Gene/Q)",
        "Note": "generated by modules.synthetic: calibrated to Mira's 2018 Cobalt logs",
        "Seed": str(seed),
        "MaxNodes": str(config.machine_nodes),
        "MaxJobs": str(count),
        "Synthetic_days": str(config.days),
        "Synthetic_load": str(config.load),
    }
    return Workload(
        jobs=jobs,
        rejected=rejected_columns(),
        header=header,
        machine_nodes=config.machine_nodes,
        allocation_unit=config.allocation_unit,
    )


def _jobs_up_to_load(
    rng: np.random.Generator, config: SyntheticConfig, target_work: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw (units, walltime, runtime) in batches until the work reaches
    ``target_work``.  The job that crosses the target is kept when that
    lands closer to it."""
    parts, work = [], 0.0
    while True:
        units = _sizes_in_units(rng, config, _BATCH)
        walltime, runtime = _walltimes_and_runtimes(rng, config, units)
        cumulative = work + np.cumsum(units * config.allocation_unit * runtime)
        crossing = int(np.searchsorted(cumulative, target_work))
        if crossing < _BATCH:
            before = cumulative[crossing - 1] if crossing else work
            keep = crossing + 1 if cumulative[crossing] - target_work < target_work - before else crossing
            parts.append((units[:keep], walltime[:keep], runtime[:keep]))
            return tuple(np.concatenate(columns) for columns in zip(*parts))
        parts.append((units, walltime, runtime))
        work = float(cumulative[-1])


def _draw(rng: np.random.Generator, pairs: Weights, count: int) -> np.ndarray:
    """``count`` values of ``pairs``, each with probability proportional to its weight."""
    values, weights = (np.array(column, dtype=float) for column in zip(*pairs))
    return rng.choice(values, size=count, p=weights / weights.sum())


def _sizes_in_units(rng: np.random.Generator, config: SyntheticConfig, count: int) -> np.ndarray:
    """Job sizes in allocation units by the logged shares; at most the machine."""
    total = config.machine_nodes // config.allocation_unit
    return np.minimum(_draw(rng, config.size_shares, count), total).astype(np.int64)


def _walltimes_and_runtimes(rng: np.random.Generator, config: SyntheticConfig,
                            units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A requested walltime from the job's class menu, and a runtime of a
    ratio of it drawn from the class's quantiles."""
    count = len(units)
    large = units >= config.large_units
    walltime = np.where(large, _draw(rng, config.large_walltimes, count),
                        _draw(rng, config.small_walltimes, count))
    u = rng.random(count)
    ratio = np.where(large, _quantile(config.large_ratios, u),
                     _quantile(config.small_ratios, u))
    runtime = np.clip(np.round(walltime * ratio), 1.0, walltime)
    return walltime, runtime


def _quantile(quantiles: tuple[float, ...], u: np.ndarray) -> np.ndarray:
    """The inverse of the piecewise-linear distribution with these evenly spaced quantiles."""
    return np.interp(u, np.linspace(0.0, 1.0, len(quantiles)), quantiles)


def _arrival_times(rng: np.random.Generator, config: SyntheticConfig, count: int) -> np.ndarray:
    """``count`` independent whole-second times on ``[0, days)``: a day, an
    hour of it by ``hour_shares``, a uniform instant in that hour (times
    past a fractional last day are drawn again)."""
    span = config.days * SECONDS_PER_DAY
    hours = tuple(enumerate(config.hour_shares))
    accepted: list[np.ndarray] = []
    needed = count
    while needed > 0:
        day = rng.integers(0, math.ceil(config.days), needed)
        t = np.floor((day * 24 + _draw(rng, hours, needed) + rng.random(needed)) * 3600.0)
        accepted.append(t[t < span])
        needed -= len(accepted[-1])
    return np.concatenate(accepted)


def _owners(rng: np.random.Generator, config: SyntheticConfig, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Users by Zipf-like popularity (user 1 most active), each in one project."""
    group_of_user = rng.integers(1, config.groups + 1, config.users)
    weights = 1.0 / np.arange(1, config.users + 1) ** config.zipf_exponent
    user_index = rng.choice(config.users, size=count, p=weights / weights.sum())
    return user_index + 1, group_of_user[user_index]
