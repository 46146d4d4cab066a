"""Learning job power from samples (Wallace et al., data-driven power-aware
scheduling, section V: the *dynamic learner*).

Running jobs are sampled every ``period`` seconds (``power_samples.py``).
The learner (:class:`PowerLearner`) keeps a sliding window of samples per
*job identity* and per *project*, and estimates a job's power as:

* for a queued job: its identity's profile if known, else its project's,
  else the machine maximum (``max_node_watts``, the peak of the device);
* for a running job, once this run has ``min_samples`` samples (the
  paper's 20, "almost 80 minutes" at 4 minutes), a pooled two-sample
  t-test at ``alpha`` (0.01; ``t_test.py``) compares this run's samples
  with the identity's history: no significant difference keeps the
  identity's profile; otherwise this run is compared with the project's:
  no difference takes the project's profile, else the maximum.

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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from cpn.colours import FrozenDict

from .job import Job
from .power_samples import RunSamples
from .t_test import Summary, significance

__all__ = [
    "LearnerConfig", "PowerLearner", "History", "RunningEstimates", "learning_rate",
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
                           significance(config.alpha, 2 * config.min_samples - 2))

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
