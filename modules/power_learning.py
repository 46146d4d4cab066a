"""Learning job power from samples (Wallace et al., data-driven power-aware
scheduling, section V: the *dynamic learner*).

Running jobs are sampled every ``period`` seconds (Mira's environmental
database: every 4-6 minutes); a sample is the job's power per node over
the last period (times 1,024 it is the kW per rack of the paper's Table
I).  :class:`NoisyProfile` draws samples from the job's power ``jp`` with
a relative within-project noise; :class:`SampleTable` replays measured
samples from a file.

The learner (:class:`PowerLearner`) keeps a sliding window of samples per
*job identity* and per *project*, and estimates a job's power as:

* for a queued job: its identity's profile if known, else its project's,
  else the machine maximum (``max_node_watts``, the peak of the device);
* for a running job, once this run has ``min_samples`` samples (the
  paper's 20, "almost 80 minutes" at 4 minutes), a pooled two-sample
  t-test at ``alpha`` (0.01) compares this run's samples with the
  identity's history: no significant difference keeps the identity's
  profile; otherwise this run is compared with the project's: no
  difference takes the project's profile, else the maximum.

When a run ends its samples join its identity's and project's windows.
A profile is *known* once it rests on at least ``min_samples`` samples.

Two choices the paper leaves open are options: the identity of a job
(``key``: by default user + executable + size, so that a user's code at
another scale is a different job) and the *high* statistic of a window
that becomes the profile (``statistic``: by default the 95th percentile of
the last ``window`` samples).  Unknown trace fields (-1) are compared as
values: on a trace without users, jobs of one size share an identity.

The learner is an immutable, hashable token: :meth:`PowerLearner.commit`
returns a new learner (copying one mapping), so a net's marking can be
saved, restored and compared; two learners that know the same are equal.

The t-test (:func:`pooled_t_test`) is computed here, without scipy: the
Student t tail comes from the regularised incomplete beta function.  The
paper prints the standard error as ``s_p sqrt(N1/N1 + 1/N2)``; the
pooled test it names uses ``s_p sqrt(1/N1 + 1/N2)``, which is what is
computed.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import numpy as np
import pandas as pd

from cpn.colours import FrozenDict

from .job import Job

__all__ = [
    "LearnerConfig", "PowerLearner", "History", "RunSamples", "PowerSample",
    "NoisyProfile", "SampleTable", "RunningEstimates", "pooled_t_test",
    "t_test", "student_t_pvalue", "t_critical", "Significance", "learning_rate",
    "KEYS", "PROJECTS", "STATISTICS", "SOURCES", "MIRA_PEAK_NODE_WATTS",
]

#: Mira's peak: 4.8 MW over 49,152 nodes (section VIII-B), about 97.7 W a
#: node or 100 kW a rack: the "maximum power of the underlying device".
MIRA_PEAK_NODE_WATTS = 4_800_000.0 / 49_152

#: Where an estimate comes from: the job's own identity, its project, or
#: the machine maximum (the paper's three outcomes).
SOURCES = ("job", "project", "max")

KEYS: dict[str, Callable[[Job], Any]] = {
    "user+executable+size": lambda job: (job.user, job.executable, job.js),
    "user+executable": lambda job: (job.user, job.executable),
    "user+size": lambda job: (job.user, job.js),
    "user": lambda job: job.user,
    "executable": lambda job: job.executable,
}

PROJECTS: dict[str, Callable[[Job], Any]] = {
    "group": lambda job: None if job.group == -1 else job.group,
    "user": lambda job: None if job.user == -1 else job.user,
    "none": lambda job: None,
}

STATISTICS: dict[str, Callable[[np.ndarray], float]] = {
    "p95": lambda values: float(np.percentile(values, 95)),
    "p99": lambda values: float(np.percentile(values, 99)),
    "max": lambda values: float(np.max(values)),
    "mean": lambda values: float(np.mean(values)),
}


# --------------------------------------------------------------------------
# The t-test


def _continued_fraction(a: float, b: float, x: float) -> float:
    """Lentz's continued fraction for the incomplete beta function."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularised incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _continued_fraction(a, b, x) / a
    return 1.0 - front * _continued_fraction(b, a, 1.0 - x) / b


def student_t_pvalue(t: float, df: float) -> float:
    """Two-sided p-value of Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, not {df}")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    return regularized_beta(df / 2.0, 0.5, df / (df + t * t))


def t_critical(alpha: float, df: float) -> float:
    """``t_{1-alpha/2, df}``: |T| above it rejects equal means at ``alpha``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be within (0, 1), not {alpha}")
    low, high = 0.0, 1.0
    while student_t_pvalue(high, df) > alpha:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if student_t_pvalue(middle, df) > alpha:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * high:
            break
    return (low + high) / 2.0


def pooled_t_test(n1: int, mean1: float, var1: float, n2: int, mean2: float,
                  var2: float) -> tuple[float, float]:
    """Pooled two-sample t-test (equal variances) from summary statistics:
    ``(T, two-sided p)``.  ``var`` are sample variances (ddof 1)."""
    if n1 < 1 or n2 < 1 or n1 + n2 < 3:
        raise ValueError(f"need n1, n2 >= 1 and n1 + n2 >= 3, not {n1}, {n2}")
    df = n1 + n2 - 2
    pooled = ((n1 - 1) * var1 + (n2 - 1) * var2) / df
    error = math.sqrt(max(pooled, 0.0) * (1.0 / n1 + 1.0 / n2))
    difference = mean1 - mean2
    if error == 0.0:
        t = 0.0 if difference == 0 else math.copysign(math.inf, difference)
    else:
        t = difference / error
    return t, student_t_pvalue(t, df)


def t_test(sample1: Sequence[float], sample2: Sequence[float]) -> tuple[float, float]:
    """:func:`pooled_t_test` of two samples (what
    ``scipy.stats.ttest_ind(equal_var=True)`` computes)."""
    a, b = np.asarray(sample1, dtype=float), np.asarray(sample2, dtype=float)
    var = lambda x: float(x.var(ddof=1)) if len(x) > 1 else 0.0  # noqa: E731
    return pooled_t_test(len(a), float(a.mean()), var(a), len(b), float(b.mean()), var(b))


class Significance:
    """The decision ``p < alpha`` for samples of at least ``min_df``
    degrees of freedom, fast: |T| at most the normal quantile is never
    significant, |T| above the t quantile at ``min_df`` always is (the t
    quantile falls as df grows); only between them is p computed."""

    def __init__(self, alpha: float, min_df: int):
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be within (0, 1), not {alpha}")
        self.alpha, self.min_df = alpha, max(min_df, 1)
        self.never = NormalDist().inv_cdf(1 - alpha / 2)
        self.always = t_critical(alpha, self.min_df)

    def differ(self, first: "Summary", second: "Summary") -> bool:
        n1, n2 = first.n, second.n
        df = n1 + n2 - 2
        pooled = ((n1 - 1) * first.variance + (n2 - 1) * second.variance) / df
        error = math.sqrt(max(pooled, 0.0) * (1.0 / n1 + 1.0 / n2))
        difference = abs(first.mean - second.mean)
        if error == 0.0:
            return difference > 0
        t = difference / error
        if t <= self.never:
            return False
        if t > self.always and df >= self.min_df:
            return True
        return student_t_pvalue(t, df) < self.alpha


@functools.lru_cache(maxsize=None)
def _significance(alpha: float, min_df: int) -> Significance:
    return Significance(alpha, min_df)


# --------------------------------------------------------------------------
# Samples and histories


class Summary(NamedTuple):
    n: int
    mean: float
    variance: float


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


@dataclass(frozen=True)
class History:
    """The last samples of a job identity or a project, their summary for
    the t-test, and the profile (the *high* statistic) they give."""

    values: tuple
    summary: Summary
    profile: float

    @classmethod
    def of(cls, values: Sequence[float], statistic: Callable) -> "History":
        array = np.asarray(values, dtype=float)
        variance = float(array.var(ddof=1)) if len(array) > 1 else 0.0
        return cls(tuple(values), Summary(len(array), float(array.mean()), variance),
                   statistic(array))

    def extended(self, values: Sequence[float], window: int, statistic) -> "History":
        return History.of((self.values + tuple(values))[-window:], statistic)


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


# --------------------------------------------------------------------------
# The learner


@dataclass(frozen=True)
class LearnerConfig:
    """The dynamic learner's parameters (section V; defaults from the
    paper where it gives them).  ``period``: seconds between samples;
    ``min_samples``: samples before a t-test (20); ``alpha``: significance
    level (0.01, "99 %"); ``key``, ``project``, ``statistic``, ``window``:
    see the module docstring; ``max_node_watts``: the device's peak power
    per node (Mira's 4.8 MW / 49,152 nodes); ``oracle``: estimate every job
    by its true power ``jp`` (no learning: an upper bound to compare
    with)."""

    period: float = 240.0
    min_samples: int = 20
    alpha: float = 0.01
    key: str = "user+executable+size"
    project: str = "group"
    statistic: str = "p95"
    window: int = 100
    max_node_watts: float = MIRA_PEAK_NODE_WATTS
    oracle: bool = False

    def __post_init__(self):
        for name, value, allowed in (("key", self.key, KEYS), ("project", self.project, PROJECTS),
                                     ("statistic", self.statistic, STATISTICS)):
            if value not in allowed:
                raise ValueError(f"learner {name} must be one of {tuple(allowed)}, "
                                 f"not {value!r}")
        if not self.period > 0:
            raise ValueError(f"the sampling period must be positive, not {self.period}")
        if self.min_samples < 2:
            raise ValueError(f"min_samples must be at least 2, not {self.min_samples}")
        if self.window < self.min_samples:
            raise ValueError(f"the window ({self.window}) must hold at least "
                             f"min_samples ({self.min_samples}) samples")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be within (0, 1), not {self.alpha}")
        if not self.max_node_watts > 0:
            raise ValueError(f"max_node_watts must be positive, not {self.max_node_watts}")


def freeze_fields(token, *names: str) -> None:
    """Make the mapping fields ``names`` of a frozen dataclass
    ``FrozenDict``s (a caller may give plain dicts), so the token hashes."""
    for name in names:
        value = getattr(token, name)
        if not isinstance(value, FrozenDict):
            object.__setattr__(token, name, FrozenDict(value))


@dataclass(frozen=True)
class PowerLearner:
    """What the learner knows: histories by job identity and by project.

    >>> learner = PowerLearner(LearnerConfig(min_samples=2, window=10))
    >>> job = Job(1, 0, 600, 4, 600, jp=240.0, user=1, group=7)
    >>> learner.estimate(job)[1]
    'max'
    >>> run = RunSamples().add(60.0, 10).add(61.0, 10)
    >>> learner.commit(job, run).estimate(job)
    (60.95, 'job')
    """

    config: LearnerConfig = field(default_factory=LearnerConfig)
    jobs: Mapping[Any, History] = field(default_factory=FrozenDict)
    projects: Mapping[Any, History] = field(default_factory=FrozenDict)

    def __post_init__(self):
        config = self.config
        freeze_fields(self, "jobs", "projects")
        object.__setattr__(self, "_key", KEYS[config.key])
        object.__setattr__(self, "_project", PROJECTS[config.project])
        object.__setattr__(self, "_statistic", STATISTICS[config.statistic])
        object.__setattr__(self, "_significance",
                           _significance(config.alpha, 2 * config.min_samples - 2))

    def _known(self, history: History | None) -> bool:
        return history is not None and history.summary.n >= self.config.min_samples

    def estimate(self, job: Job) -> tuple[float, str]:
        """A queued job's power per node and where it comes from."""
        if self.config.oracle:
            return job.jp / job.js, "job"
        history = self.jobs.get(self._key(job))
        if self._known(history):
            return history.profile, "job"
        project = self._project(job)
        if project is not None:
            history = self.projects.get(project)
            if self._known(history):
                return history.profile, "project"
        return self.config.max_node_watts, "max"

    def decide(self, job: Job, run: RunSamples) -> tuple[float, str] | None:
        """A running job's estimate after its latest sample, or None while
        it has fewer than ``min_samples`` (its estimate then stands)."""
        if self.config.oracle or run.n < self.config.min_samples:
            return None
        summary, differ = run.summary, self._significance.differ
        history = self.jobs.get(self._key(job))
        if self._known(history) and not differ(summary, history.summary):
            return history.profile, "job"
        project = self._project(job)
        if project is not None:
            history = self.projects.get(project)
            if self._known(history) and not differ(summary, history.summary):
                return history.profile, "project"
        return self.config.max_node_watts, "max"

    def commit(self, job: Job, run: RunSamples) -> "PowerLearner":
        """The learner after ``job``'s run: its samples join the windows of
        its identity and its project."""
        if run.n == 0 or self.config.oracle:
            return self
        window, statistic = self.config.window, self._statistic
        key = self._key(job)
        old = self.jobs.get(key)
        jobs = self.jobs | {key: History.of(run.recent, statistic) if old is None
                            else old.extended(run.recent, window, statistic)}
        projects = self.projects
        project = self._project(job)
        if project is not None:
            old = projects.get(project)
            projects = projects | {project: History.of(run.recent, statistic) if old is None
                                   else old.extended(run.recent, window, statistic)}
        return PowerLearner(self.config, jobs, projects)

    def with_history(self, job: Job, values: Sequence[float],
                     project: bool = True) -> "PowerLearner":
        """The learner with ``values`` (watts per node) recorded as a past
        run of ``job`` (and of its project, unless ``project`` is False):
        to start a simulation from a learner that has seen earlier data."""
        run = RunSamples()
        for value in values:
            run = run.add(float(value), len(values))
        learned = self.commit(job, run)
        if not project:
            return PowerLearner(self.config, learned.jobs, self.projects)
        return learned

    def __repr__(self) -> str:
        return (f"PowerLearner({len(self.jobs)} job identities, "
                f"{len(self.projects)} projects)")


# --------------------------------------------------------------------------
# Running jobs' estimates


@dataclass(frozen=True)
class RunningEstimates:
    """The learner's estimate of each running job: id -> (watts per node,
    source, nodes), and their total in watts (``P_used`` of eq. 1)."""

    by_id: Mapping[int, tuple[float, str, int]] = field(default_factory=FrozenDict)
    total: float = 0.0

    def __post_init__(self):
        freeze_fields(self, "by_id")

    def started(self, job: Job, watts: float, source: str) -> "RunningEstimates":
        return RunningEstimates(self.by_id | {job.id: (watts, source, job.js)},
                                self.total + watts * job.js)

    def changed(self, job_id: int, watts: float, source: str) -> "RunningEstimates":
        old, _, nodes = self.by_id[job_id]
        return RunningEstimates(self.by_id | {job_id: (watts, source, nodes)},
                                self.total + (watts - old) * nodes)

    def pruned(self, running: Mapping[int, Any]) -> "RunningEstimates":
        """Only the jobs still in ``running`` (Runtime Info), total recomputed."""
        if len(self.by_id) == len(running):
            return self
        by_id = FrozenDict({k: v for k, v in self.by_id.items() if k in running})
        return RunningEstimates(by_id, float(sum(w * n for w, _, n in by_id.values())))

    def __repr__(self) -> str:
        return f"RunningEstimates({len(self.by_id)} jobs, {self.total:.0f} W)"


# --------------------------------------------------------------------------
# Reports


def learning_rate(decisions: pd.DataFrame, day: float = 86_400.0) -> pd.DataFrame:
    """The learning rate over time (section VIII-A, "the ratio of known
    power profiles to unknown"): per day, the share of jobs started that
    day whose profile was known, from their identity or their project
    (``known``; unknown means planned at the maximum), and from their own
    identity alone (``own``); then the same shares over every job started
    so far (``cumulative_known``, ``cumulative_own``).  ``decisions`` has
    columns ``time`` and ``source`` (see ``SOURCES``)."""
    columns = ["day", "jobs", "known", "own", "cumulative_known", "cumulative_own"]
    if len(decisions) == 0:
        return pd.DataFrame(columns=columns)
    day_of = (decisions["time"].to_numpy(dtype=float) // day).astype(int)
    source = decisions["source"].to_numpy()
    frame = pd.DataFrame({"day": day_of, "known": source != "max", "own": source == "job"})
    daily = frame.groupby("day").agg(jobs=("known", "size"), known=("known", "sum"),
                                     own=("own", "sum"))
    daily = daily.reindex(range(int(day_of.max()) + 1), fill_value=0)
    jobs = daily["jobs"].to_numpy()
    known, own = daily["known"].to_numpy(), daily["own"].to_numpy()
    started = np.maximum(jobs, 1)
    so_far = np.maximum(np.cumsum(jobs), 1)
    return pd.DataFrame({
        "day": daily.index.to_numpy(), "jobs": jobs,
        "known": np.where(jobs > 0, known / started, np.nan),
        "own": np.where(jobs > 0, own / started, np.nan),
        "cumulative_known": np.cumsum(known) / so_far,
        "cumulative_own": np.cumsum(own) / so_far,
    }, columns=columns)
