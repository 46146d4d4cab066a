"""Give each job its power ``jp``, which an SWF trace does not carry.

The PuPPET nets need every job's power at nominal frequency (``job.jp``,
watts for the whole job) to fill the ``Power`` place and to enforce a power
cap; real traces record sizes and times but no watts.  Three documented ways
to fill it in, each a pure function returning a new job list
(``job._replace(jp=...)``):

* :func:`assign_constant_power` - the same watts on every node, a baseline
  that makes power proportional to size;
* :func:`assign_rack_power` - seeded draws from the job-power-per-rack
  statistics measured on Mira (Wallace et al., "A Data Driven Scheduling
  Approach for Power Management on HPC Systems", Table I), shared by the
  jobs of one user and group, since that paper's key observation is that
  "not only do jobs have distinct power profiles, so do the projects they
  belong to".  Two laws fit Table I: :data:`MIRA_2014`, a truncated normal
  of its mean and standard deviation (the body only), and
  :data:`MIRA_2014_TABLE_I`, its published percentiles joined linearly
  (the long tail up to its 160.60 kW maximum too);
* :func:`assign_csv_power` - measured or predicted powers supplied by the
  user, joined on job id.

Each makes a new job for every job of a trace, a million at times, with
the cyclic garbage collector paused (``cpn/collector.py``): jobs hold no
cycles, and its passes over them took two thirds of the time.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from cpn.collector import cyclic_gc_paused
from modules.job import Job

if TYPE_CHECKING:
    import pandas as pd

_new_tuple = tuple.__new__

__all__ = [
    "RackPowerDistribution",
    "RackPowerQuantiles",
    "MIRA_2014",
    "MIRA_2014_TABLE_I",
    "NODES_PER_RACK",
    "assign_constant_power",
    "assign_rack_power",
    "assign_csv_power",
    "MIRA_NODE_WATTS",
    "scaled_to_node",
    "draw_rack_power",
]

#: Nodes in one rack of an IBM Blue Gene/Q such as Mira (2 midplanes of 512).
NODES_PER_RACK = 1024
#: A Mira node's power at full speed (65.76 kW a rack), the scale of the drawn powers.
MIRA_NODE_WATTS = 65_760 / NODES_PER_RACK


@dataclass(frozen=True)
class RackPowerDistribution:
    """Statistics of job power per rack, in kilowatts.

    Drawn as a normal of this mean and standard deviation truncated to
    ``[min_kw, max_kw]`` (out-of-range draws are redrawn): the simplest law
    matching the published moments that never yields a physically impossible
    value.  For :data:`MIRA_2014` the normal puts its 5th and 95th
    percentiles at 55.6 and 75.9 kW against the measured 56.60 and 74.57, so
    the body fits within about 1.5 kW; it does not reproduce the long right
    tail (the measured maximum, 160.60 kW, is 15 standard deviations above
    the mean and is in practice never drawn).
    """

    mean_kw: float
    std_kw: float
    min_kw: float
    max_kw: float

    def __post_init__(self) -> None:
        if not (0 <= self.min_kw <= self.mean_kw <= self.max_kw):
            raise ValueError(f"need 0 <= min <= mean <= max, got {self}")
        if not self.std_kw >= 0:
            raise ValueError(f"std_kw must be non-negative, got {self.std_kw}")

    def draw(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """``count`` kilowatts-per-rack values (out-of-range draws redrawn)."""
        draws = rng.normal(self.mean_kw, self.std_kw, count)
        outside = (draws < self.min_kw) | (draws > self.max_kw)
        while outside.any():
            draws[outside] = rng.normal(self.mean_kw, self.std_kw, int(outside.sum()))
            outside = (draws < self.min_kw) | (draws > self.max_kw)
        return draws


@dataclass(frozen=True)
class RackPowerQuantiles:
    """Job power per rack given by its quantiles: ``points`` are
    ``(probability, kilowatts)`` pairs from ``(0, minimum)`` to ``(1,
    maximum)``, both increasing; a draw is the quantile of a uniform
    number, joined linearly between the points.

    The draws then have exactly the published minimum, maximum and
    percentiles, so a table's long tail is drawn as often as it says (for
    :data:`MIRA_2014_TABLE_I`, 1 % of draws between the 99th percentile,
    77.99 kW, and the maximum, 160.60 kW).  The mean and standard deviation
    follow from the points: for Table I 65.97 and 9.11 kW against the
    measured 65.76 and 6.18 (the median is not published; the line from
    the 25th to the 75th percentile stands for it).
    """

    points: tuple[tuple[float, float], ...]

    def __post_init__(self) -> None:
        points = tuple((float(p), float(kw)) for p, kw in self.points)
        object.__setattr__(self, "points", points)
        probabilities = [p for p, _ in points]
        kilowatts = [kw for _, kw in points]
        if len(points) < 2 or probabilities[0] != 0.0 or probabilities[-1] != 1.0:
            raise ValueError(f"quantile points run from probability 0 to 1, got {points}")
        if any(b <= a for a, b in zip(probabilities, probabilities[1:])):
            raise ValueError(f"quantile probabilities must increase, got {probabilities}")
        if kilowatts[0] < 0 or any(b < a for a, b in zip(kilowatts, kilowatts[1:])):
            raise ValueError(f"quantile kilowatts must be >= 0 and not decrease, got {kilowatts}")

    @property
    def min_kw(self) -> float:
        return self.points[0][1]

    @property
    def max_kw(self) -> float:
        return self.points[-1][1]

    def quantile(self, probabilities) -> np.ndarray:
        """Kilowatts per rack at ``probabilities`` (numbers within [0, 1])."""
        return np.interp(probabilities, [p for p, _ in self.points],
                         [kw for _, kw in self.points])

    def draw(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """``count`` kilowatts-per-rack values."""
        return self.quantile(rng.random(count))


#: Mira, 2014, all jobs of a year: Wallace et al., Table I "Statistics of job
#: power profiles in Kilowatts per rack on Mira" (minimum 36.48, mean 65.76,
#: maximum 160.60, standard deviation 6.18).
MIRA_2014 = RackPowerDistribution(mean_kw=65.76, std_kw=6.18, min_kw=36.48, max_kw=160.60)

#: The same table's minimum, 5th, 25th, 75th, 95th and 99th percentiles and
#: maximum, joined linearly: the body and the long tail.
MIRA_2014_TABLE_I = RackPowerQuantiles(((0.0, 36.48), (0.05, 56.60), (0.25, 61.20),
                                        (0.75, 71.03), (0.95, 74.57), (0.99, 77.99),
                                        (1.0, 160.60)))


@cyclic_gc_paused()
def assign_constant_power(jobs: Sequence[Job], watts_per_node: float) -> list[Job]:
    """Every job draws ``watts_per_node * js`` watts.

    >>> assign_constant_power([Job(1, 0.0, 10.0, 512, 20.0)], 64.0)[0].jp
    32768.0
    """
    if not (math.isfinite(watts_per_node) and watts_per_node >= 0):
        raise ValueError(f"watts_per_node must be finite and >= 0, got {watts_per_node}")
    return [job._replace(jp=float(watts_per_node * job.js)) for job in jobs]


@cyclic_gc_paused()
def scaled_to_node(jobs: Sequence[Job], node_watts: float) -> list[Job]:
    """Powers drawn at Mira's scale (:func:`assign_rack_power`), scaled to
    a machine whose node draws ``node_watts`` at full speed: a job keeps
    its place in Mira's spread, so a busy node never draws less than an
    idle one of the same machine.  Mira's own scale returns ``jobs``.

    >>> scaled_to_node([Job(1, 0.0, 10.0, 2, 20.0, jp=100.0)], 2 * MIRA_NODE_WATTS)[0].jp
    200.0
    """
    if not (math.isfinite(node_watts) and node_watts > 0):
        raise ValueError(f"node_watts must be finite and > 0, got {node_watts}")
    if node_watts == MIRA_NODE_WATTS:
        return list(jobs)
    factor = node_watts / MIRA_NODE_WATTS
    return [job._replace(jp=job.jp * factor) for job in jobs]


def draw_rack_power(
    rng: np.random.Generator, count: int,
    distribution: RackPowerDistribution | RackPowerQuantiles = MIRA_2014
) -> np.ndarray:
    """``count`` kilowatts-per-rack values from ``distribution``."""
    return distribution.draw(rng, count)


@cyclic_gc_paused()
def assign_rack_power(
    jobs: Sequence[Job],
    seed: int | np.random.SeedSequence,
    *,
    nodes_per_rack: int = NODES_PER_RACK,
    distribution: RackPowerDistribution | RackPowerQuantiles = MIRA_2014,
) -> list[Job]:
    """Draw a power per rack for each job's owner; scale it to the job's size.

    ``jp = kW_per_rack * 1000 * js / nodes_per_rack`` watts.  All jobs with the
    same ``(user, group)`` share one draw (a project's jobs draw alike).  A
    job whose user and group are both unknown (``-1``) is nobody's and draws
    its own; when only one is known, jobs sharing it share the draw.  Owners
    draw in order of their first job in ``jobs`` from
    ``numpy.random.default_rng(seed)``: the same seed and job list always
    give the same powers.
    """
    if nodes_per_rack < 1:
        raise ValueError(f"nodes_per_rack must be at least 1, got {nodes_per_rack}")
    draw_of_job, draws = _owner_draws(jobs)
    kilowatts = draw_rack_power(np.random.default_rng(seed), draws, distribution)
    watts_per_node = (kilowatts[draw_of_job] * (1000.0 / nodes_per_rack)).tolist()
    # tuple.__new__ instead of the NamedTuple's _replace: the same Job, twice as soon
    return [_new_tuple(Job, (i, st, rt, js, wt, float(w * js), et, pf, user, group, exe, version))
            for (i, st, rt, js, wt, _, et, pf, user, group, exe, version), w
            in zip(jobs, watts_per_node)]


def _owner_draws(jobs: Sequence[Job]) -> tuple[np.ndarray, int]:
    """``(the draw of each job, the number of draws)`` for
    :func:`assign_rack_power`: owners numbered in order of their first job,
    a job of nobody's an owner of its own; in arrays, not a loop of Python
    (a million jobs)."""
    count = len(jobs)
    if not count:
        return np.empty(0, dtype=np.int64), 0
    users = np.fromiter((job.user for job in jobs), dtype=np.int64, count=count)
    groups = np.fromiter((job.group for job in jobs), dtype=np.int64, count=count)
    user_codes, user_count = _in_order_of_first(users)
    group_codes, group_count = _in_order_of_first(groups)
    owners = user_codes * group_count + group_codes  # one number a (user, group)
    nobody = np.flatnonzero((users == -1) & (groups == -1))
    owners[nobody] = user_count * group_count + np.arange(len(nobody))
    return _in_order_of_first(owners)


def _in_order_of_first(values: np.ndarray) -> tuple[np.ndarray, int]:
    """``(each value's number, how many distinct values)``, values numbered
    0, 1, ... in order of their first occurrence (``pandas.factorize``'s
    codes, without importing pandas).  Values within a few times their count
    of each other index a table of first occurrences; others are sorted
    first (ten times slower on a million)."""
    count = len(values)
    low = int(values.min())
    span = int(values.max()) - low + 1
    if span <= 4 * count:
        keys = values - low
    else:
        _, keys = np.unique(values, return_inverse=True)
        span = int(keys.max()) + 1
    first = np.full(span, count)
    np.minimum.at(first, keys, np.arange(count))
    seen = np.flatnonzero(first < count)
    rank = np.empty(span, dtype=np.int64)
    rank[seen[np.argsort(first[seen])]] = np.arange(len(seen))
    return rank[keys], len(seen)


@cyclic_gc_paused()
def assign_csv_power(
    jobs: Sequence[Job], source: str | os.PathLike | pd.DataFrame
) -> list[Job]:
    """Take each job's power (watts) from a CSV (or DataFrame) of ``job_id, power``.

    Every job must be listed, once: a missing job would otherwise run at 0 W
    and make any power cap look easy, so it is an error naming a few of the
    missing ids.  Extra rows (jobs rejected from the trace, say) are ignored.
    """
    import pandas as pd

    name = "power table" if isinstance(source, pd.DataFrame) else f"power CSV {source}"
    table = source if isinstance(source, pd.DataFrame) else _read_csv(source, name)
    missing_columns = {"job_id", "power"} - set(table.columns)
    if missing_columns:
        raise ValueError(
            f"{name}: needs columns job_id and power, lacks {sorted(missing_columns)}; "
            f"has {list(table.columns)}"
        )
    duplicated = table["job_id"][table["job_id"].duplicated()]
    if len(duplicated):
        raise ValueError(f"{name}: job ids listed more than once: {_few(duplicated.unique())}")
    power = pd.to_numeric(table["power"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(power) | (power < 0)
    if bad.any():
        raise ValueError(
            f"{name}: power must be a finite number of watts >= 0; "
            f"not so for job ids {_few(table['job_id'][bad])}"
        )
    by_id = dict(zip(table["job_id"].tolist(), power.tolist()))
    missing = [job.id for job in jobs if job.id not in by_id]
    if missing:
        raise ValueError(f"{name}: no power for {len(missing)} of {len(jobs)} jobs, job ids {_few(missing)}")
    return [job._replace(jp=by_id[job.id]) for job in jobs]


def _read_csv(path, name: str):
    """The CSV at ``path``; one that is empty, not text or not a table is
    refused naming the file (pandas' own messages name neither), and a row
    with more fields than the header is an error, not a row whose first
    field pandas takes for an index."""
    import warnings

    import pandas as pd

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)  # a field dropped
            return pd.read_csv(path, index_col=False)
    except pd.errors.ParserWarning:
        raise ValueError(f"{name}: a row has more fields than the header") from None
    except pd.errors.EmptyDataError:
        raise ValueError(f"{name}: empty (expected a header job_id,power and a row a job)") \
            from None
    except UnicodeDecodeError:
        raise ValueError(f"{name}: not a text file") from None
    except pd.errors.ParserError as error:
        raise ValueError(f"{name}: not a table: {error}".rstrip()) from None


def _few(ids, shown: int = 5) -> str:
    """``"4, 7, 9"`` or ``"4, 7, 9, 11, 12, ... (8 in all)"``."""
    ids = list(ids)
    text = ", ".join(str(i) for i in ids[:shown])
    return text if len(ids) <= shown else f"{text}, ... ({len(ids)} in all)"
