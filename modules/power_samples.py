"""Power samples of running jobs (Wallace et al., section V): a sample is a
job's power per node over the last sampling period (Mira's environmental
database: every 4-6 minutes; times 1,024 it is the kW per rack of the
paper's Table I).

Where samples come from: :class:`NoisyProfile` draws them from the job's
power ``jp`` with a relative within-project noise; :class:`SampleTable`
replays measured samples from a file.  :class:`RunSamples` is what a run
has gathered so far, carried by each :class:`PowerSample` token.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple

import numpy as np
import pandas as pd

from .job import Job
from .t_test import Summary


class RunSamples(NamedTuple):
    """This run's samples so far: count, mean and sum of squared deviations
    (Welford), and the last ``window`` values."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0
    recent: tuple = ()

    def add(self, value: float, window: int) -> "RunSamples":
        n = self.n + 1
        delta = value - self.mean
        mean = self.mean + delta / n
        recent = self.recent + (value,)
        if len(recent) > window:
            recent = recent[-window:]
        return RunSamples(n, mean, self.m2 + delta * (value - mean), recent)

    @property
    def summary(self) -> Summary:
        return Summary(self.n, self.mean, self.m2 / (self.n - 1) if self.n > 1 else 0.0)


class PowerSample(NamedTuple):
    """A timed token: the ``index``-th sample (watts per node) of a running
    job over the ``period`` before it becomes available; ``run`` is what
    the learner gathered from the job's earlier samples."""

    job: Job
    index: int
    value: float
    run: RunSamples


@dataclass(frozen=True)
class NoisyProfile:
    """Samples drawn around the job's own power: ``jp / js * (1 + noise *
    N(0, 1))`` watts per node, never negative, from the model's ``rng``.
    ``noise`` is an assumption (the paper shows that jobs of one project
    vary only "slightly", Fig. 2): 3 % is about 2 kW per rack on Mira."""

    noise: float = 0.03

    def __post_init__(self):
        if not self.noise >= 0:
            raise ValueError(f"sample noise must be >= 0, not {self.noise}")

    def value(self, job: Job, index: int, rng: np.random.Generator) -> float | None:
        watts = job.jp / job.js
        if self.noise:
            watts *= 1.0 + self.noise * rng.standard_normal()
        return max(watts, 0.0)


@dataclass(frozen=True)
class SampleTable:
    """Measured samples replayed in order: job id -> watts of the whole job
    at each sampling time (a job stops being sampled when its samples run
    out).  :meth:`read` takes a CSV (or DataFrame) with columns
    ``job_id, watts`` (and optionally ``time`` to order them)."""

    samples: Mapping[int, tuple] = field(default_factory=dict)

    @classmethod
    def read(cls, source: str | os.PathLike | pd.DataFrame) -> "SampleTable":
        table = source if isinstance(source, pd.DataFrame) else pd.read_csv(source)
        missing = {"job_id", "watts"} - set(table.columns)
        if missing:
            raise ValueError(f"power samples need columns job_id and watts; "
                             f"lacking {sorted(missing)}")
        if "time" in table.columns:
            table = table.sort_values(["job_id", "time"], kind="stable")
        watts = pd.to_numeric(table["watts"], errors="coerce")
        if watts.isna().any() or (watts < 0).any():
            raise ValueError("power samples must be numbers of watts >= 0; not so for job ids "
                             f"{sorted(set(table['job_id'][watts.isna() | (watts < 0)]))[:5]}")
        grouped = watts.groupby(table["job_id"].to_numpy(), sort=False)
        return cls({int(job_id): tuple(map(float, values)) for job_id, values in grouped})

    def value(self, job: Job, index: int, rng: np.random.Generator) -> float | None:
        series = self.samples.get(job.id, ())
        return series[index] / job.js if index < len(series) else None
