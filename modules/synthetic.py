"""The built-in workload: a seeded synthetic month on a Mira-like machine.

A user without a trace still needs a realistic workload to try the nets on,
and tests need one that is small, reproducible and free of licence terms.
:func:`synthetic_month` generates it as a pure function of a seed, following
the structure of Lublin & Feitelson's model ("The workload on parallel
supercomputers: modeling the characteristics of rigid jobs", JPDC 2003),
simplified and re-scaled to an IBM Blue Gene/Q of 49,152 nodes in 48 racks
of 1024, allocated in 512-node midplanes:

*Size.*  Lublin's model has serial jobs, a two-stage uniform law on
``log2(size)`` and a strong preference for powers of two.  Here a job of
fewer nodes than a midplane still occupies one, so "serial/small" jobs are
one midplane (probability ``small_probability``); the others draw ``x =
log2(midplanes)`` uniformly on ``[0, log2_split]`` with probability
``low_stage_probability``, else on ``[log2_split, log2(96)]``, and use
``2**round(x)`` midplanes with probability ``power_of_two_probability``, else
``ceil(2**x)``; the largest rounds to the whole machine.

*Runtime.*  Lublin's hyper-gamma: ``ln(runtime)`` is a mixture of a "short"
and a "long" gamma, the short one less likely for larger jobs (linearly in
``log2(size)`` here, from ``short_probability_small`` at one midplane to
``short_probability_large`` at the whole machine).  The gamma parameters are
re-fitted by eye to Mira's 2018 Cobalt logs (runtime quartiles of about 0.5,
1.2 and 4 hours), then runtimes are clipped to ``[1 s, max_walltime]``.

*Requested walltime.*  ``runtime / a`` with the accuracy ``a`` uniform on
``[min_accuracy, 1]`` per job (users overestimate, median about 2x), rounded
up to a whole minute and capped at ``max_walltime``; never below the runtime.

*Arrivals.*  A Poisson process whose rate follows a daily cycle,
``1 + daily_amplitude * cos(2 pi (hour - peak_hour) / 24)``.  Rather than
fixing the rate and letting the offered load fall where it may (a few
full-machine jobs move it by several per cent), jobs are drawn until their
work reaches ``load`` of the machine over ``days``; given that number of
jobs, the arrival times of a Poisson process are independent draws from the
rate's shape, sorted.  So the offered load (``sum(js * rt)`` over machine
node-seconds in the month) is the target to within one job.

*Owners and power.*  Users follow a Zipf-like popularity over ``users``
users, each in one of ``groups`` projects; job power comes from
:func:`modules.power_profile.assign_rack_power` (option (b): per-owner draws
from Mira's measured kW per rack), seeded from the same seed.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from modules.job import Job
from modules.power_profile import MIRA_2014, RackPowerDistribution, assign_rack_power
from modules.workload import Workload

__all__ = ["SyntheticConfig", "synthetic_month"]

SECONDS_PER_DAY = 86_400.0
_BATCH = 1024  # jobs drawn per round; fixed so the stream is a function of the seed


@dataclass(frozen=True)
class SyntheticConfig:
    """Parameters of :func:`synthetic_month`; the defaults describe Mira."""

    machine_nodes: int = 49_152
    nodes_per_rack: int = 1024
    allocation_unit: int = 512  # a midplane
    days: float = 30.0
    load: float = 0.8  # offered load: work asked for over machine capacity
    # size, in allocation units
    small_probability: float = 0.40
    low_stage_probability: float = 0.90
    log2_split: float = 4.0  # 16 midplanes = 8192 nodes
    power_of_two_probability: float = 0.85
    # ln(runtime in seconds) ~ gamma(shape, scale), two components
    short_shape: float = 16.0  # mean ln 6.4: about 10 minutes
    short_scale: float = 0.40
    long_shape: float = 93.0  # mean ln 8.7: about 1.7 hours
    long_scale: float = 0.0935
    short_probability_small: float = 0.30
    short_probability_large: float = 0.10
    max_walltime: float = 24 * 3600.0
    min_accuracy: float = 0.1  # runtime / requested walltime, lowest
    # arrivals
    daily_amplitude: float = 0.5
    peak_hour: float = 14.0
    # owners and power
    users: int = 200
    groups: int = 50
    zipf_exponent: float = 1.0
    power: RackPowerDistribution = MIRA_2014

    def __post_init__(self) -> None:
        if self.machine_nodes % self.allocation_unit:
            raise ValueError("machine_nodes must be a multiple of allocation_unit")
        if not (self.days > 0 and self.load > 0 and self.max_walltime >= 1):
            raise ValueError("days, load and max_walltime must be positive")
        for name in ("small_probability", "low_stage_probability", "power_of_two_probability",
                     "short_probability_small", "short_probability_large", "daily_amplitude"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be within [0, 1], got {getattr(self, name)}")
        if not 0 < self.min_accuracy <= 1:
            raise ValueError(f"min_accuracy must be within (0, 1], got {self.min_accuracy}")
        top = math.log2(self.machine_nodes // self.allocation_unit)
        if not 0 <= self.log2_split <= top:
            raise ValueError(
                f"log2_split must lie within [0, log2(machine units) = {top:g}], "
                f"got {self.log2_split}"
            )
        if self.users < 1 or self.groups < 1:
            raise ValueError("users and groups must be at least 1")


def synthetic_month(seed: int = 0, config: SyntheticConfig = SyntheticConfig()) -> Workload:
    """A reproducible synthetic workload (see the module docstring for the model).

    Same ``seed`` and ``config``, same jobs and powers, bit for bit.  Jobs are
    numbered from 1 in order of arrival; times start at midnight of day 0.
    """
    job_seed, power_seed = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.default_rng(job_seed)
    span = config.days * SECONDS_PER_DAY
    units, runtime = _jobs_up_to_load(rng, config, config.load * config.machine_nodes * span)
    count = len(units)
    nodes = units * config.allocation_unit
    walltime = _walltimes(rng, config, runtime)
    submit = np.sort(_daily_cycle_times(rng, config, count, span))
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
        "Note": "generated by modules.synthetic: simplified Lublin & Feitelson 2003",
        "Seed": str(seed),
        "MaxNodes": str(config.machine_nodes),
        "MaxJobs": str(count),
        **{f"Synthetic_{k}": str(v) for k, v in asdict(config).items() if k != "power"},
    }
    return Workload(
        jobs=jobs,
        rejected=pd.DataFrame({"job_id": pd.Series(dtype="int64"),
                               "line": pd.Series(dtype="int64"),
                               "reason": pd.Series(dtype="object")}),
        header=header,
        machine_nodes=config.machine_nodes,
        allocation_unit=config.allocation_unit,
    )


def _jobs_up_to_load(
    rng: np.random.Generator, config: SyntheticConfig, target_work: float
) -> tuple[np.ndarray, np.ndarray]:
    """Draw (units, runtime) in batches until the work reaches ``target_work``.

    The job that crosses the target is kept when that lands closer to it.
    """
    units_parts, runtime_parts, work = [], [], 0.0
    while True:
        units = _sizes_in_units(rng, config, _BATCH)
        runtime = _runtimes(rng, config, units)
        job_work = units * config.allocation_unit * runtime
        cumulative = work + np.cumsum(job_work)
        crossing = int(np.searchsorted(cumulative, target_work))
        if crossing < _BATCH:
            before = cumulative[crossing - 1] if crossing else work
            keep = crossing + 1 if cumulative[crossing] - target_work < target_work - before else crossing
            units_parts.append(units[:keep])
            runtime_parts.append(runtime[:keep])
            return np.concatenate(units_parts), np.concatenate(runtime_parts)
        units_parts.append(units)
        runtime_parts.append(runtime)
        work = float(cumulative[-1])


def _sizes_in_units(rng: np.random.Generator, config: SyntheticConfig, count: int) -> np.ndarray:
    """Job sizes in allocation units: small jobs, else two-stage uniform log2."""
    total = config.machine_nodes // config.allocation_unit
    top = math.log2(total)
    small = rng.random(count) < config.small_probability
    low = rng.random(count) < config.low_stage_probability
    x = np.where(low, rng.uniform(0.0, config.log2_split, count),
                 rng.uniform(config.log2_split, top, count))
    power_of_two = rng.random(count) < config.power_of_two_probability
    units = np.where(power_of_two, 2.0 ** np.round(x), np.ceil(2.0 ** x))
    units = np.minimum(units, total)
    units[small] = 1
    return units.astype(np.int64)


def _runtimes(rng: np.random.Generator, config: SyntheticConfig, units: np.ndarray) -> np.ndarray:
    """Hyper-gamma in log space; the long component likelier for large jobs."""
    count = len(units)
    top = math.log2(config.machine_nodes // config.allocation_unit)
    fraction = np.log2(units) / top if top > 0 else np.zeros(count)
    p_short = config.short_probability_small + fraction * (
        config.short_probability_large - config.short_probability_small
    )
    short = rng.random(count) < p_short
    log_runtime = np.where(
        short,
        rng.gamma(config.short_shape, config.short_scale, count),
        rng.gamma(config.long_shape, config.long_scale, count),
    )
    return np.clip(np.round(np.exp(log_runtime)), 1.0, config.max_walltime)


def _walltimes(rng: np.random.Generator, config: SyntheticConfig, runtime: np.ndarray) -> np.ndarray:
    """Requested walltime: the runtime over a per-job accuracy, whole minutes, capped."""
    accuracy = rng.uniform(config.min_accuracy, 1.0, len(runtime))
    requested = np.ceil(runtime / accuracy / 60.0) * 60.0
    return np.maximum(np.minimum(requested, config.max_walltime), runtime)


def _daily_cycle_times(
    rng: np.random.Generator, config: SyntheticConfig, count: int, span: float
) -> np.ndarray:
    """``count`` independent times on ``[0, span)`` with the daily-cycle density.

    Rejection sampling against the rate's maximum ``1 + daily_amplitude``.
    """
    peak = config.peak_hour * 3600.0
    accepted: list[np.ndarray] = []
    needed = count
    while needed > 0:
        t = rng.uniform(0.0, span, 2 * needed + 16)
        rate = 1.0 + config.daily_amplitude * np.cos(2 * np.pi * (t - peak) / SECONDS_PER_DAY)
        t = t[rng.random(len(t)) * (1.0 + config.daily_amplitude) < rate][:needed]
        accepted.append(t)
        needed -= len(t)
    return np.floor(np.concatenate(accepted))


def _owners(rng: np.random.Generator, config: SyntheticConfig, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Users by Zipf-like popularity (user 1 most active), each in one project."""
    group_of_user = rng.integers(1, config.groups + 1, config.users)
    weights = 1.0 / np.arange(1, config.users + 1) ** config.zipf_exponent
    user_index = rng.choice(config.users, size=count, p=weights / weights.sum())
    return user_index + 1, group_of_user[user_index]
