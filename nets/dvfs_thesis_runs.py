"""Runs of the DVFS thesis' policies declared as data, and a small grid
runner for them (the thesis' studies, ``nets/dvfs_thesis_studies.py``).

A :class:`ThesisRun` names one run completely (trace portion, machine,
profile seed, policy and its options, idle scenario) as a frozen dataclass
of plain values with a stable short key, the hash of its canonical JSON.
:func:`run_all` runs those missing from a results directory (in parallel
processes if asked), stores each as ``<key>.json`` and returns one row per
run, fields and metrics.  ``cpn sweep`` drives PuPPET's ``Experiment``,
whose fields (months of a trace, capping method, cap) do not describe
these runs; this runner keeps the same habits (atomic per-run files, a
restart redoes only what is missing) without touching it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Sequence

import pandas as pd

from modules.dvfs_thesis.gears import CpuPowerModel
from modules.dvfs_thesis.profiles import draw_profiles, read_profiles

from .dvfs_thesis import (BsldDrivenConfig, EasyConfig, MaxJobPerfConfig, PbGuidedConfig,
                          ThesisConfig, UpasConfig, simulate, thesis_portion)

POLICY_CONFIGS = {"easy": EasyConfig, "upas": UpasConfig, "bsld_driven": BsldDrivenConfig,
                  "pb_guided": PbGuidedConfig, "max_job_perf": MaxJobPerfConfig}
ATLAS = Path(__file__).resolve().parents[2] / "shared" / "data" / "swf" / \
    "LLNL-Atlas-2006-2.1-cln.swf"


@dataclass(frozen=True)
class ThesisRun:
    """One run.  ``options``: the policy configuration's fields, as
    ``(name, value)`` pairs; ``profiles``: a ``job_id,p,beta_comp`` file
    instead of the draw seeded by ``profile_seed``."""

    trace: str
    policy: str = "easy"
    options: tuple[tuple[str, object], ...] = ()
    machine_cpus: int = 9216
    first_job: int = 10_001
    last_job: int = 15_000
    profile_seed: int = 0
    profiles: str | None = None
    idle: str = "lowest_gear"
    label: str = field(default="", compare=False)

    def __post_init__(self):
        if self.policy not in POLICY_CONFIGS:
            raise ValueError(f"policy must be one of {sorted(POLICY_CONFIGS)}, "
                             f"not {self.policy!r}")
        object.__setattr__(self, "options", tuple(sorted(dict(self.options).items())))
        self.config()  # validates the options

    def with_policy(self, policy: str, label: str = "", **options) -> "ThesisRun":
        return replace(self, policy=policy, options=tuple(options.items()), label=label)

    def config(self) -> ThesisConfig:
        return ThesisConfig(self.machine_cpus, POLICY_CONFIGS[self.policy](**dict(self.options)),
                            CpuPowerModel(idle=self.idle))

    def canonical(self) -> str:
        data = asdict(self)
        del data["label"]
        data["options"] = dict(self.options)
        return json.dumps(data, sort_keys=True)

    def key(self) -> str:
        return hashlib.sha1(self.canonical().encode()).hexdigest()[:12]


@functools.lru_cache(maxsize=4)
def _workload(trace: str, machine_cpus: int, first: int, last: int, profile_seed: int,
              profiles: str | None):
    jobs = thesis_portion(trace, machine_cpus, first, last)
    return jobs, (read_profiles(profiles) if profiles else draw_profiles(jobs, profile_seed))


def run_one(run: ThesisRun) -> dict:
    """The run's fields and metrics, flat."""
    jobs, profiles = _workload(run.trace, run.machine_cpus, run.first_job, run.last_job,
                               run.profile_seed, run.profiles)
    result = simulate(jobs, run.config(), profiles)
    return {"key": run.key(), "policy": run.policy, **{f"option_{k}": v for k, v in run.options},
            "trace": Path(run.trace).name, "machine_cpus": run.machine_cpus,
            "jobs_first": run.first_job, "jobs_last": run.last_job,
            "profile_seed": run.profile_seed, "idle": run.idle, **result.metrics}


def run_all(runs: Sequence[ThesisRun], results_dir, workers: int | None = None) -> pd.DataFrame:
    """One row per run (in the order given, with its ``label``); runs
    already in ``results_dir`` are read, not run again."""
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    todo = list({run.key(): run for run in runs
                 if not (results_dir / f"{run.key()}.json").exists()}.values())
    if workers and workers > 1 and len(todo) > 1:
        with ProcessPoolExecutor(workers) as pool:
            for row in pool.map(run_one, todo):
                _store(row, results_dir)
    else:
        for run in todo:
            _store(run_one(run), results_dir)
    rows = [{"label": run.label, **json.loads((results_dir / f"{run.key()}.json").read_text())}
            for run in runs]
    return pd.DataFrame(rows)


def _store(row: dict, results_dir: Path) -> None:
    """Write atomically, so an interrupted run leaves no half file."""
    handle, temporary = tempfile.mkstemp(dir=results_dir, suffix=".tmp")
    with os.fdopen(handle, "w") as stream:
        json.dump(row, stream, default=float)
    os.replace(temporary, results_dir / f"{row['key']}.json")
