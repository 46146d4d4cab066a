"""Each job's sensitivity to DVFS: parallel efficiency ``p`` and
``beta_comp`` (thesis section 3.2.1), so ``beta = p * beta_comp`` (eq. 3.5).

Drawn per job, seeded: ``beta_comp`` from U(0.2, 0.4), U(0.4, 0.8) or
U(0.8, 1.0) with probabilities 3/20, 1/2 and 7/20 (the 20 sequential
benchmarks of Freeh et al.); ``p`` from Table 3.1 by the job's number of
CPUs: 1 for sequential jobs, else one of three uniform ranges with
probability 1/3 each.  Or read from a CSV file ``job_id,p,beta_comp`` (the
thesis' simulator read a "beta file" and an "activity file"; these two
columns give both).
"""

from __future__ import annotations

import csv
import math
import os
from typing import Iterable, Mapping, NamedTuple

import numpy as np

#: Section 3.2.1: beta_comp's mixture, (probability, low, high).
BETA_COMP_MIXTURE = ((3 / 20, 0.2, 0.4), (1 / 2, 0.4, 0.8), (7 / 20, 0.8, 1.0))

#: Table 3.1: (largest CPU count of the class, its three ranges of p).
P_BY_SIZE = ((16, ((0.6, 0.75), (0.75, 0.9), (0.9, 0.95))),
             (64, ((0.5, 0.7), (0.7, 0.8), (0.8, 0.9))),
             (512, ((0.2, 0.6), (0.6, 0.8), (0.8, 0.9))),
             (math.inf, ((0.1, 0.5), (0.5, 0.7), (0.7, 0.8))))

PROFILE_COLUMNS = ("job_id", "p", "beta_comp")


class JobProfile(NamedTuple):
    """``p``: share of the job's time spent computing at the nominal gear;
    ``beta_comp``: the frequency sensitivity of its computation."""

    p: float
    beta_comp: float

    @property
    def beta(self) -> float:
        """Eq. 3.5: the whole job's beta."""
        return self.p * self.beta_comp


def draw_profiles(jobs: Iterable, seed: int = 0) -> dict[int, JobProfile]:
    """A profile per job (``job.id``, ``job.js`` CPUs), in the order given,
    from one seeded stream."""
    rng = np.random.default_rng(seed)
    weights = [w for w, _, _ in BETA_COMP_MIXTURE]
    profiles = {}
    for job in jobs:
        _, low, high = BETA_COMP_MIXTURE[rng.choice(len(BETA_COMP_MIXTURE), p=weights)]
        beta_comp = float(rng.uniform(low, high))
        p = 1.0 if job.js == 1 else _draw_p(job.js, rng)
        profiles[job.id] = JobProfile(p, beta_comp)
    return profiles


def _draw_p(cpus: int, rng) -> float:
    for largest, ranges in P_BY_SIZE:
        if cpus <= largest:
            low, high = ranges[rng.integers(3)]
            return float(rng.uniform(low, high))
    raise AssertionError("the last class has no upper bound")


def read_profiles(path: str | os.PathLike) -> dict[int, JobProfile]:
    """Profiles from a CSV file with a header ``job_id,p,beta_comp``; any
    bad row is an error naming the file, the line and the field."""
    profiles: dict[int, JobProfile] = {}
    with open(path, newline="") as stream:
        rows = csv.reader(stream)
        header = next(rows, None)
        if header is None or [h.strip() for h in header] != list(PROFILE_COLUMNS):
            raise ValueError(f"{path}, line 1: the header must be "
                             f"{','.join(PROFILE_COLUMNS)}, not {header}")
        for line, row in enumerate(rows, start=2):
            if not row or not "".join(row).strip():
                continue
            if len(row) != len(PROFILE_COLUMNS):
                raise ValueError(f"{path}, line {line}: expected {len(PROFILE_COLUMNS)} "
                                 f"fields, found {len(row)}: {row}")
            job_id = _number(path, line, "job_id", row[0], int)
            p = _number(path, line, "p", row[1], float)
            beta_comp = _number(path, line, "beta_comp", row[2], float)
            for name, value in (("p", p), ("beta_comp", beta_comp)):
                if not 0 <= value <= 1:
                    raise ValueError(f"{path}, line {line}, field {name}: "
                                     f"must lie in [0, 1], not {value}")
            if job_id in profiles:
                raise ValueError(f"{path}, line {line}, field job_id: job {job_id} "
                                 f"appears twice")
            profiles[job_id] = JobProfile(p, beta_comp)
    return profiles


def _number(path, line: int, field: str, text: str, kind):
    try:
        value = kind(text.strip())
    except ValueError:
        raise ValueError(f"{path}, line {line}, field {field}: "
                         f"{text!r} is not a valid {kind.__name__}") from None
    if kind is float and not math.isfinite(value):
        raise ValueError(f"{path}, line {line}, field {field}: {text!r} is not finite")
    return value


def write_profiles(profiles: Mapping[int, JobProfile], path: str | os.PathLike) -> None:
    """The file :func:`read_profiles` reads."""
    with open(path, "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(PROFILE_COLUMNS)
        for job_id, profile in sorted(profiles.items()):
            writer.writerow((job_id, repr(profile.p), repr(profile.beta_comp)))
