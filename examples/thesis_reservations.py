"""MaxJobPerf's reservations on LLNL-Atlas (thesis section 5.3, Tables
5.5-5.6): how often they are made, and whom they delay.

The thesis finds Atlas better without reservations (mean BSLD 2.11) than
with size-based ones (5.46): "It contains many large jobs and reservations
based on the job size are unnecessarily made too often".  This script runs
MaxJobPerf at a 70 % budget without reservations, with the thesis' size
rules (the head asks for more than 50 % or 30 % of the CPUs) and with its
time rule (the head has waited longer than the 95th percentile of
power-constrained EASY's waits), and counts, for each, the jobs that got a
reservation and the scheduler passes that held one; then it splits the
waits and the mean BSLD between the jobs over half the machine (those the
size rule reserves for) and the others.

    python examples/thesis_reservations.py [--trace FILE.swf] [--profile-seed N]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from cli.values import existing_file
from modules.dvfs_thesis.max_job_perf import MaxJobPerf, MaxJobPerfConfig
from modules.dvfs_thesis.plan import BSLD_THRESHOLD_S
from modules.dvfs_thesis.profiles import draw_profiles
from nets.dvfs_thesis import EasyConfig, ThesisConfig, simulate, thesis_portion

ATLAS = Path(__file__).resolve().parents[1].parent / "shared/data/swf/LLNL-Atlas-2006-2.1-cln.swf"
CPUS = 9216


@dataclass(frozen=True)
class CountingMaxJobPerf(MaxJobPerf):
    """MaxJobPerf that records, at each pass, which job held the reservation."""

    reserved: list = field(default_factory=list, compare=False)

    def reservation(self, waiting, plan):
        held = super().reservation(waiting, plan)
        self.reserved.append(None if held is None else waiting[0].id)
        return held


@dataclass(frozen=True)
class CountingConfig(MaxJobPerfConfig):
    """MaxJobPerf's options, and the list its policy records passes in."""

    reserved: list = field(default_factory=list, compare=False)

    def build(self, planner, machine_cpus):
        return CountingMaxJobPerf(planner, self, machine_cpus, self.reserved)


def run(jobs, profiles, **options) -> dict:
    """One MaxJobPerf run at 70 %: its metrics and its reservations."""
    config = CountingConfig(**options)
    result = simulate(jobs, ThesisConfig(CPUS, config), profiles)
    frame = result.jobs
    wait = frame["start"] - frame["submit"]
    bsld = np.maximum((wait + frame["runtime"]) / np.maximum(BSLD_THRESHOLD_S,
                                                            frame["runtime_nominal"]), 1.0)
    large = frame["cpus"] > CPUS / 2
    passes = config.reserved
    return {"bsld": result.metrics["bsld"], "wait_mean_min": wait.mean() / 60,
            "wait_max_h": wait.max() / 3600,
            "reserved_jobs": len({job for job in passes if job is not None}),
            "passes_reserved": sum(job is not None for job in passes) / len(passes),
            "large_jobs": int(large.sum()), "large_wait_mean_h": wait[large].mean() / 3600,
            "large_wait_max_h": wait[large].max() / 3600,
            "other_wait_mean_min": wait[~large].mean() / 60,
            "bsld_excess_large": (bsld[large] - 1).sum() / len(frame),
            "bsld_excess_other": (bsld[~large] - 1).sum() / len(frame)}


def reservations_table(trace: Path = ATLAS, profile_seed: int = 0) -> pd.DataFrame:
    jobs = thesis_portion(trace, CPUS)
    profiles = draw_profiles(jobs, seed=profile_seed)
    easy = simulate(jobs, ThesisConfig(CPUS, EasyConfig(budget_fraction=0.7)), profiles).jobs
    p95 = float(np.percentile(easy["start"] - easy["submit"], 95))
    rules = {"noRes": {"reservations": "none"}, "50%": {}, "30%": {"job_size_limit": 0.3},
             "time": {"reservations": "time", "wait_time_limit": p95}}
    return pd.DataFrame({name: run(jobs, profiles, **options)
                         for name, options in rules.items()}).T


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", type=existing_file, default=str(ATLAS))
    parser.add_argument("--profile-seed", type=int, default=0)
    args = parser.parse_args(argv)
    with pd.option_context("display.width", 250, "display.max_columns", None,
                           "display.float_format", "{:.3f}".format):
        print(reservations_table(args.trace, args.profile_seed))


if __name__ == "__main__":
    main()
