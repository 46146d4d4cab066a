"""The job token that flows through every HPC net.

The PuPPET paper (section 3.1) writes a job as ``(js, rt, jp, et, pf)@+st``;
we keep those names so inscriptions read like the paper (``job.js``), and
add what a real trace carries (id, requested walltime, user, group,
executable) so policies and reports can use it.  A ``NamedTuple`` rather
than a dataclass: it is hashable, immutable and cheap to create and hash,
which matters on the simulator's hot path.
"""

from __future__ import annotations

import math
from operator import itemgetter
from typing import Iterable, NamedTuple

from .dvfs_bounds import LOWEST_LEVEL
from .values import is_number, is_whole_number


class Job(NamedTuple):
    """One job of a workload, as a coloured token.

    Times are in seconds, power in watts.
    """

    id: int
    st: float  # arrival (submit) time
    rt: float  # runtime at nominal frequency
    js: int  # size in nodes
    wt: float  # requested walltime (the user's estimate)
    jp: float = 0.0  # power of the whole job at nominal frequency
    et: float = 0.0  # time the job entered its current place
    pf: float = 1.0  # frequency rate of its processors (1.0 = nominal)
    user: int = -1
    group: int = -1
    executable: int = -1
    version: int = 0  # how often its end was rescheduled (CPU scaling, failures)

    def estimate(self, mode: str) -> float:
        """Runtime the scheduler plans a started job with: its requested
        walltime (modes ``"requested"`` and ``"mixed"``) or its actual
        runtime (``"actual"``); see ``modules.easy``.  Another mode is
        refused: a net file's typo would have planned with the walltime."""
        if mode == "actual":
            return self.rt
        if mode == "requested" or mode == "mixed":
            return self.wt
        raise ValueError(f"an estimate mode is 'requested', 'actual' or 'mixed', not {mode!r}")

    def entered(self, et: float) -> "Job":
        """The job as it enters a place at ``et``: ``_replace(et=et)``
        without its dict of keywords, at a third of the cost (every start
        does this; :func:`replaced_at` written out for its one field)."""
        fields = list(self)
        fields[_ET] = et
        return tuple.__new__(type(self), fields)

    def killed_at_limit(self) -> "Job":
        """The job as a scheduler that enforces walltimes runs it (Slurm,
        Cobalt, CQSim): a runtime past the requested walltime is cut to it."""
        return self._replace(rt=self.wt) if self.rt > self.wt else self

    def __repr__(self) -> str:
        """The fields that differ from their defaults, still valid Python: a
        job reads at a glance in the stepper, in traces and in errors."""
        defaults = Job._field_defaults
        shown = (f"{name}={value!r}" for name, value in zip(self._fields, self)
                 if name not in defaults or value != defaults[name])
        return f"Job({', '.join(shown)})"


#: Each field's position in a job, for :func:`replaced_at`.
POSITION = {name: position for position, name in enumerate(Job._fields)}
_ET, _PF = POSITION["et"], POSITION["pf"]


def replaced_at(job: Job, changes: dict[int, object]) -> Job:
    """``job._replace`` with the changed fields given by position, made
    directly: ``_replace`` goes through a dict of keywords at twice the
    cost, on paths every job takes (a start, a change of CPU level, a
    fault-tolerance plan)."""
    fields = list(job)
    for position, value in changes.items():
        fields[position] = value
    return tuple.__new__(type(job), fields)


def _other_whole_ids(ids: list) -> bool:
    """Whether ``ids`` hold whole numbers of other types than int (numpy's,
    made Python's by :func:`checked_jobs`); an error naming an id that is
    no whole number: None ran, then failed as the results were sorted,
    and 1.5 ran."""
    if not set(map(type, ids)) - {int}:
        return False
    strays = [job_id for job_id in ids if not is_whole_number(job_id)]
    if strays:
        raise ValueError(f"job ids must be whole numbers, not {strays[0]!r}")
    return True


#: The range of each number field of a job but its size: times and power
#: finite, and >= 0 but for the submit time (a window of a log starts with
#: jobs queued before it); the frequency rate within CpuScaling's levels
#: (0 divided a job's work by zero under TOPPER, 2 doubled its core power).
_RANGES = {"st": (-math.inf, math.inf), "rt": (0, math.inf), "wt": (0, math.inf),
           "jp": (0, math.inf), "pf": (LOWEST_LEVEL, 1.0)}


def _check_numbers(ids: list, columns: dict[str, list]) -> bool:
    """Refuse the first job whose field (``columns``: name -> values) is out
    of its range, naming both; whether some value is no Python number
    (numpy's, from a DataFrame's rows: :func:`checked_jobs` converts them)."""
    import numpy as np  # here: reading a job record needs none

    numpy_typed = False
    for name, values in columns.items():
        least, most = _RANGES[name]
        if set(map(type, values)) <= {int, float}:
            numbers = np.asarray(values, dtype=float)
        else:  # a string ('200', which numpy would read), None, a bool: no number
            numbers = np.array([v if is_number(v) else np.nan for v in values], dtype=float)
            numpy_typed = True
        bad = ~(np.isfinite(numbers) & (numbers >= least) & (numbers <= most))
        if bad.any():
            at = int(np.argmax(bad))
            rule = ("a finite number" if least < 0 else "a finite number >= 0"
                    if most == math.inf else f"within [{least:g}, {most:g}] (of nominal)")
            raise ValueError(f"job {ids[at]!r}: {name} must be {rule}, not {values[at]!r}")
    return numpy_typed


def checked_jobs(jobs: Iterable[Job], machine_nodes: float) -> list[Job]:
    """``jobs`` as a list, each refused with its id and field unless it is
    a ``Job`` that can run on a machine of ``machine_nodes``: ids unique,
    times and power finite and but for the submit time >= 0 (a window of a
    log starts with jobs queued before it), the frequency rate ``pf``
    within [0.1, 1] of nominal (:data:`_RANGES`), sizes whole and within the
    machine (0 for a job cancelled before it started, as the DVFS thesis
    keeps them), a requested walltime > 0 for a job with work (WFP divides
    by it).  Numbers of numpy's types (a DataFrame's rows) become Python's.
    The Python API's jobs come from no reader that checked them, and a
    generator, a negative size or power, or a repeated id gave an empty
    result, negative utilization or energy, or two rows of one job."""
    import numpy as np  # here: reading a job record needs none

    jobs = list(jobs)
    if set(map(type, jobs)) - {Job}:  # map and set run at C speed: all is 0.4 s a million jobs
        stray = next(job for job in jobs if type(job) is not Job)
        raise ValueError(f"jobs must be Job records (modules.job.Job), not "
                         f"{type(stray).__name__}: {stray!r}")
    if not jobs:
        return jobs
    ids, submits, runtimes, sizes, walltimes, powers = (
        list(map(itemgetter(field), jobs)) for field in range(6))
    other_ids = _other_whole_ids(ids)
    if len(set(ids)) < len(ids):
        seen: set = set()
        repeated = next(job_id for job_id in ids if job_id in seen or seen.add(job_id))
        raise ValueError(f"job ids must be unique: {repeated!r} is given twice")
    numpy_typed = _check_numbers(ids, {"st": submits, "rt": runtimes, "wt": walltimes,
                                       "jp": powers, "pf": list(map(itemgetter(_PF), jobs))})
    other_sizes = set(map(type, sizes)) - {int}  # numpy's integers pass, converted below
    if other_sizes or not 0 <= min(sizes) <= max(sizes) <= machine_nodes:
        at = next((k for k, size in enumerate(sizes)  # 0: a job cancelled before it started
                   if not is_whole_number(size) or not 0 <= size <= machine_nodes), None)
        if at is not None:
            raise ValueError(f"job {ids[at]!r}: js must be a whole number of nodes within "
                             f"[0, {machine_nodes}], not {sizes[at]!r}")
    unplanned = None if min(walltimes) > 0 else next(  # (one of no runtime leaves at once)
        (k for k, (size, runtime, walltime) in enumerate(zip(sizes, runtimes, walltimes))
         if size and runtime and not walltime), None)
    if unplanned is not None:  # WFP divided by it; EASY planned it to end at once
        raise ValueError(f"job {ids[unplanned]!r}: wt (the requested walltime) must be > 0 "
                         f"for a job that runs, not {walltimes[unplanned]!r}")
    if numpy_typed or other_sizes or other_ids:
        jobs = [Job(*(value.item() if isinstance(value, np.generic) else value
                      for value in job)) for job in jobs]
    return jobs


def some_jobs(jobs: Iterable[Job]) -> list[Job]:
    """The jobs a model's ``simulate`` is given, as a list; none is refused,
    as ``cpn run`` refuses a trace without jobs: the result had no rows and
    its metrics said ``complete``, which read as a run."""
    jobs = list(jobs)
    if not jobs:
        raise ValueError("no jobs to simulate: the list of jobs is empty")
    return jobs
