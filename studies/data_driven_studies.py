"""The data-driven power-aware scheduling paper's evaluation (Wallace et al.,
section VIII, Figs. 6 and 8-11) as a study: ``cpn study data_driven``.

For each month and queue order (FCFS, WFP; strict order, as the paper's
un-capped reference) it runs the uncapped reference, then naive capping
and the window knapsack at the paper's three caps, 2,000, 3,000 and
4,000 kW of Mira's 4,800 kW peak (41.7, 62.5, 83.3 % of the machine's
peak), and tabulates, per month, order and cap, both methods' capping
success rate and relative changes of wait and utilization against the
uncapped run, and the knapsack's improvement over naive capping.  Runs
are :class:`~studies.data_driven_run.DataDrivenRun`; the findings are
:mod:`studies.data_driven_findings`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from modules.plots import plt, save_figure

from . import data_driven_findings as findings
from .data_driven_run import PAPER_CAPS, SYNTHETIC, DataDrivenRun
from .study import Runs, Study, StudyOptions

POLICIES = ("fcfs", "wfp")
#: A run's numbers that the table takes, per method.
MEASURES = {"capping_success_rate": "csr", "wait_mean_s": "wait_mean_s",
            "utilization_window": "utilization", "cap_exceeded_s": "cap_exceeded_s",
            "rejected_jobs": "rejected_jobs", "deadlock_starts": "deadlock_starts",
            "underestimated_starts": "underestimated_starts"}
SHOWN = ["policy", "month", "cap_share", "csr_knapsack", "csr_naive",
         "wait_change_knapsack", "wait_change_naive", "wait_improvement",
         "utilization_change_knapsack", "utilization_change_naive", "utilization_improvement",
         "rejected_jobs_knapsack", "deadlock_starts_naive", "underestimated_starts_knapsack"]


@dataclass(frozen=True)
class DataDrivenDesign:
    """Months x queue orders x (uncapped, and naive and knapsack at each cap)."""

    paper: ClassVar[str] = "Data-driven"
    results: ClassVar[str] = "out/data_driven_runs"
    options: ClassVar[frozenset[str]] = frozenset({
        "trace", "months", "procs_per_node", "machine_nodes", "policies", "over_cap",
        "knapsack_budget"})
    baselines: ClassVar[bool] = True

    def base(self, options: StudyOptions) -> DataDrivenRun:
        trace = options.trace or SYNTHETIC
        if trace != SYNTHETIC and not Path(trace).exists():
            raise ValueError(f"no trace at {trace}: give one with --trace")
        return DataDrivenRun(trace, over_cap=options.over_cap or "reject",
                             budget=options.knapsack_budget or "estimates",
                             procs_per_node=options.procs_per_node,
                             machine_nodes=options.machine_nodes)

    def runs(self, base: DataDrivenRun, options: StudyOptions) -> Runs:
        months = options.months
        if months is None or isinstance(months, str):
            if months not in (None, "none"):
                raise ValueError("the data-driven study takes months as a list (0,1)")
            months = [0, 1] if base.trace == SYNTHETIC or months is None else [None]
        runs: Runs = []
        for month in months:
            for policy in options.policies or POLICIES:
                uncapped = replace(base, month=month, policy=policy, method="uncapped")
                runs.append((_label(uncapped), uncapped))
                for cap in PAPER_CAPS:
                    for method in ("naive", "knapsack"):
                        run = replace(base, month=month, policy=policy, method=method,
                                      cap_share=cap)
                        runs.append((_label(run), run))
        return runs

    def table(self, runs: Runs, results: pd.DataFrame) -> pd.DataFrame:
        """One row per month, order and cap: each method's measures
        (``<measure>_<method>``), their relative changes to the uncapped run
        (``wait_change_<method>``, ``utilization_change_<method>``) and the
        improvements of the knapsack over naive capping."""
        by_key = results.set_index("key")
        rows = {}
        for _, run in runs:
            if run.method == "uncapped":
                continue
            record, uncapped = by_key.loc[run.key()], by_key.loc[run.baseline().key()]
            row = rows.setdefault((run.month, run.policy, run.cap_share), {
                "policy": run.policy, "month": run.month, "cap_share": run.cap_share,
                "cap_kw": record["cap_w"] / 1e3,
                "wait_mean_s_uncapped": uncapped["wait_mean_s"],
                "utilization_uncapped": uncapped["utilization_window"]})
            for source, name in MEASURES.items():
                row[f"{name}_{run.method}"] = record.get(source)
            row[f"wait_change_{run.method}"] = record["wait_mean_s"] / uncapped["wait_mean_s"] - 1
            row[f"utilization_change_{run.method}"] = (record["utilization_window"]
                                                       / uncapped["utilization_window"] - 1)
            if run.method == "knapsack":
                row["learning_rate_day26"] = record["learning_rate_day26"]
        table = pd.DataFrame(list(rows.values()))
        table["wait_improvement"] = table["wait_change_naive"] - table["wait_change_knapsack"]
        table["utilization_improvement"] = (table["utilization_change_knapsack"]
                                            - table["utilization_change_naive"])
        return table

    def csv_tables(self, name: str, table: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return {name: table}

    def plot(self, study: Study, table: pd.DataFrame, base: DataDrivenRun, path: Path) -> Path:
        """Figs. 8-11's quantities: the relative change of wait and of
        utilization to the uncapped run, per cap, naive and ours, averaged
        over the months, one panel per order and quantity."""
        policies = list(dict.fromkeys(table["policy"]))
        fig, axes = plt.subplots(2, len(policies), figsize=(4.5 * len(policies), 6.5),
                                 squeeze=False)
        means = table.groupby(["policy", "cap_share"]).mean(numeric_only=True)
        for column, policy in enumerate(policies):
            rows = means.loc[policy]
            x = np.arange(len(rows))
            for row, quantity in enumerate(("wait", "utilization")):
                ax = axes[row, column]
                for shift, method, colour in ((-0.2, "naive", "tab:blue"),
                                              (0.2, "knapsack", "tab:red")):
                    ax.bar(x + shift, rows[f"{quantity}_change_{method}"], 0.4, color=colour,
                           label="naive capping" if method == "naive" else "our capping")
                ax.axhline(0.0, color="black", linewidth=0.8)
                ax.set_xticks(x, [f"{cap:.1%}" for cap in rows.index])
                ax.set_title(f"{policy.upper()}: {quantity}", fontsize=9)
                ax.set_ylabel("relative change to uncapped")
                if quantity == "wait" and (rows["wait_change_naive"].abs() > 20).any():
                    ax.set_yscale("symlog")
        axes[0, 0].legend(fontsize=8)
        fig.suptitle(f"{study.heading}\n{_workload(base)}; caps as shares of the machine's "
                     f"peak; means over the months", fontsize=9)
        fig.tight_layout()
        return save_figure(fig, path)

    def summary(self, study: Study, table: pd.DataFrame, base: DataDrivenRun, runs: Runs
                ) -> list[str]:
        return [f"{_workload(base)}, queue in strict order, job power from Table I's "
                f"percentiles, over_cap={base.over_cap}; a job is known by user + "
                "executable + size, its profile the 95th percentile of its last 100 samples",
                table[SHOWN].to_string(index=False, float_format=lambda v: f"{v:.3f}")]


def _workload(base: DataDrivenRun) -> str:
    return "synthetic Mira month" if base.trace == SYNTHETIC else Path(base.trace).name


def _label(run: DataDrivenRun) -> str:
    cap = "" if run.cap_share is None else f" {run.cap_share:.1%}"
    month = "" if run.month is None else f"month {run.month} "
    return f"{month}{run.policy.upper()} {run.method}{cap}"


DATA_DRIVEN_STUDIES = (
    Study("data_driven", "Figs. 6, 8-11",
          "power-aware scheduling against naive capping (Wallace et al., section VIII)",
          DataDrivenDesign(), findings.checks),
)
