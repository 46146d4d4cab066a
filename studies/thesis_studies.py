"""The DVFS thesis' evaluations (chapters 4-5) on LLNL-Atlas, as studies.

Each study runs the EASY baseline (no DVFS, no budget) and a grid of one
policy's parameters, labelled, on the thesis' portion of a trace (Atlas:
jobs 10K-15K on 9,216 CPUs, Table 3.4) (a :class:`ThesisDesign`; runs are
:class:`~studies.thesis_run.ThesisRun`), and normalises every metric to
the baseline, like the thesis' figures.  The findings, beside the thesis'
own numbers for Atlas, are :mod:`studies.thesis_findings`.

- ``thesis_upas``: WQ_threshold 0, 4, 16, NO (Figs. 4.4-4.8);
- ``thesis_bsld_driven``: BSLD_threshold 1.5, 2, 3 x WQ_threshold (Figs. 4.11-4.16);
- ``thesis_power_budget``: power-constrained EASY at 60, 70, 80 % (section 5.2.2.1);
- ``thesis_pb_guided``: PB-guided against it at 60, 70, 80 %, beta known or
  not (Table 5.4), other P thresholds (Figs. 5.11-5.14);
- ``thesis_max_job_perf``: MaxJobPerf against both at 60, 70, 80 %,
  reservations none / size 30 % / size 50 % / time (Tables 5.5-5.6), and
  without budget (Fig. 5.22).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ClassVar

import numpy as np
import pandas as pd

from modules.plots import plt, save_figure  # the off-screen backend, one resolution

from . import thesis_findings as findings
from .study import Runs, Study, StudyOptions
from .thesis_findings import TABLE_3_5
from .thesis_run import ThesisRun
from .workloads import ATLAS

PLOTTED = {"energy_computational_j_norm": "CPU energy, idle CPUs off",
           "energy_total_j_norm": "CPU energy, idle CPUs at the lowest gear",
           "bsld_norm": "mean BSLD (eq. 3.15)", "wait_mean_s_norm": "mean wait",
           "energy_bsld_norm": "energy x BSLD"}
#: The printed table's columns.
SHOWN = ["label", "bsld", "wait_mean_s", "frequency_mean_ghz", "frequency_job_mean_ghz",
         "utilization", *PLOTTED,
         "budget_exceeded_s"]


@dataclass(frozen=True)
class ThesisDesign:
    """The EASY baseline, then ``labelled_runs(baseline)``: one policy's
    parameters, each run with the label its table and checks know it by."""

    paper: ClassVar[str] = "DVFS thesis"
    results: ClassVar[str] = "out/thesis_runs"
    options: ClassVar[frozenset[str]] = frozenset({
        "trace", "cpus", "jobs", "profile_seed", "profiles"})
    baselines: ClassVar[bool] = True

    labelled_runs: Callable[[ThesisRun], Runs]

    def base(self, options: StudyOptions) -> ThesisRun:
        """The thesis' portion of the trace (default: Atlas, jobs 10001-15000
        on 9,216 CPUs) and the jobs' power profiles."""
        trace = options.trace or str(ATLAS)
        if not Path(trace).exists():
            raise ValueError(f"no trace at {trace}: give one with --trace")
        first, last = options.jobs or (10_001, 15_000)
        return ThesisRun(trace, machine_cpus=options.cpus or 9216, first_job=first,
                         last_job=last, profile_seed=options.profile_seed or 0,
                         profiles=options.profiles)

    def runs(self, base: ThesisRun, options: StudyOptions) -> Runs:
        baseline = base.baseline()
        return [("EASY", baseline), *self.labelled_runs(baseline)]

    def table(self, runs: Runs, results: pd.DataFrame) -> pd.DataFrame:
        table = results.set_index("key").loc[[run.key() for _, run in runs]].reset_index()
        table["label"] = [label for label, _ in runs]
        return table

    def csv_tables(self, name: str, table: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return {name: table}

    def plot(self, study: Study, table: pd.DataFrame, base: ThesisRun, path: Path) -> Path:
        return plot(table, path, f"{study.heading}\n{_workload(base)}, normalised to EASY")

    def summary(self, study: Study, table: pd.DataFrame, base: ThesisRun, runs: Runs
                ) -> list[str]:
        easy = table.iloc[0]
        return [f"{_workload(base)} on {base.machine_cpus:,} CPUs (the thesis' values: "
                "LLNL-Atlas)",
                f"EASY baseline: BSLD {easy['bsld']:.3f} (Table 3.5, Atlas: "
                f"{TABLE_3_5['bsld']}), utilization {easy['utilization']:.2%} "
                f"({TABLE_3_5['utilization']:.2%}), load requested "
                f"{easy['load_requested']:.2f} ({TABLE_3_5['load_requested']}), "
                f"{int(easy['jobs'])} jobs",
                table[SHOWN].to_string(index=False, float_format=lambda v: f"{v:.3f}")]


def _workload(base: ThesisRun) -> str:
    return f"{Path(base.trace).name} jobs {base.first_job}-{base.last_job}"


def plot(table: pd.DataFrame, path: Path, title: str) -> Path:
    """One panel per normalised metric, one bar per run but the baseline."""
    rows = table.iloc[1:]
    fig, axes = plt.subplots(1, len(PLOTTED),
                             figsize=(3.3 * len(PLOTTED), 3.8 + 0.12 * len(rows)))
    for ax, (column, name) in zip(axes, PLOTTED.items()):
        values = rows[column].astype(float)
        ax.barh(np.arange(len(rows)), values, color="tab:blue")
        ax.axvline(1.0, color="black", linestyle="--", linewidth=0.8)
        ax.set_yticks(np.arange(len(rows)), rows["label"] if ax is axes[0] else [""] * len(rows),
                      fontsize=7)
        ax.invert_yaxis()
        if values.max() / max(values.min(), 1e-12) > 20:
            ax.set_xscale("log")
        ax.set_title(name, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


# ---------------------------------------------------------------------------
# The studies' runs


def upas_runs(base: ThesisRun) -> Runs:
    return [(f"UPAS WQ={'NO' if w is None else w}", base.with_policy("upas", wq_threshold=w))
            for w in (0, 4, 16, None)]


def bsld_driven_runs(base: ThesisRun) -> Runs:
    return [(f"BSLD<{t:g} WQ={'NO' if w is None else w}",
             base.with_policy("bsld_driven", bsld_threshold=t, wq_threshold=w))
            for t in (1.5, 2.0, 3.0) for w in (0, 4, 16, None)]


def power_budget_runs(base: ThesisRun) -> Runs:
    return ([(f"EASY {b:.0%}", base.with_policy("easy", budget_fraction=b))
             for b in (0.8, 0.7, 0.6)]
            + [("EASY 70% alone", base.with_policy("easy", budget_fraction=0.7,
                                                   oversized="alone"))])


def pb_guided_runs(base: ThesisRun) -> Runs:
    """PB-guided's BSLD_lower is left unset: measured on EASY (the baseline).
    P 30/60 scales earlier than the thesis' thresholds: how BSLD moves when
    PB-guided scales further (docs/findings.md (e))."""
    runs = [(f"EASY {b:.0%}", base.with_policy("easy", budget_fraction=b))
            for b in (0.8, 0.7, 0.6)]
    runs += [(f"PB {b:.0%}", base.with_policy("pb_guided", budget_fraction=b))
             for b in (0.8, 0.7, 0.6)]
    runs += [("PB 70% beta", base.with_policy("pb_guided", beta="oracle")),
             ("PB 70% P 80/90", base.with_policy("pb_guided", p_lower=0.8, p_upper=0.9)),
             ("PB 70% P 80/95", base.with_policy("pb_guided", p_lower=0.8, p_upper=0.95)),
             ("PB 70% P 30/60", base.with_policy("pb_guided", p_lower=0.3, p_upper=0.6))]
    return runs


def max_job_perf_runs(base: ThesisRun) -> Runs:
    """Reservations by time wait for the 95th percentile of power-constrained
    EASY's waits at 70 %: left unset, measured on that run."""
    runs = pb_guided_runs(base)[:6]
    runs += [(f"MaxJobPerf {b:.0%}", base.with_policy("max_job_perf", budget_fraction=b))
             for b in (0.8, 0.7, 0.6)]
    runs += [("MaxJobPerf noRes", base.with_policy("max_job_perf", reservations="none")),
             ("MaxJobPerf 30%", base.with_policy("max_job_perf", job_size_limit=0.3)),
             ("MaxJobPerf time", base.with_policy("max_job_perf", reservations="time")),
             ("MaxJobPerf no budget", base.with_policy("max_job_perf", budget_fraction=1.0))]
    return runs


THESIS_STUDIES = (
    Study("thesis_upas", "Figs. 4.4-4.8", "UPAS (section 4.2)", ThesisDesign(upas_runs),
          findings.upas_checks),
    Study("thesis_bsld_driven", "Figs. 4.11-4.16", "BSLD-driven policy (section 4.3)",
          ThesisDesign(bsld_driven_runs), findings.bsld_driven_checks),
    Study("thesis_power_budget", "Table 5.5", "power-constrained EASY (section 5.2.2.1)",
          ThesisDesign(power_budget_runs), findings.power_budget_checks),
    Study("thesis_pb_guided", "Table 5.4, Figs. 5.11-5.14", "PB-guided policy (section 5.2)",
          ThesisDesign(pb_guided_runs), findings.pb_guided_checks),
    Study("thesis_max_job_perf", "Tables 5.5-5.6, Fig. 5.22", "MaxJobPerf (section 5.3)",
          ThesisDesign(max_job_perf_runs), findings.max_job_perf_checks),
)
