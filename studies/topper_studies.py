"""The TOPPER paper's resilience studies (section 5, Figs. 11-17) as data.

Each :class:`ResilienceStudy` is a few labelled *variants* of one TOPPER
run (checkpoint or replication, an overhead, a redundancy degree, gamma,
DVFS with a failure-rate multiplier, scaled wall times or sizes), run on
each month of a trace under each policy.  :func:`run_study` runs them as a
sweep (``nets/sweep.py``: resumable, shared through the results
directory), normalises every metric to the study's reference variant in
the same month and policy — the paper's normalisation: Fig. 11 to
checkpoint/restart, Fig. 12 to the default overhead, and so on — writes
``<name>.csv``, ``<name>.png`` and ``<name>_checks.txt``, and tests the
paper's findings on what was measured: each :class:`~studies.puppet_studies.Check`
says PASS or DIFFERS with the cases that differ.

>>> sorted(STUDIES)[:3]
['topper_fig11', 'topper_fig12', 'topper_fig13']
>>> len(STUDIES["topper_fig15"].experiments(Experiment(), months=[0, 1]))
8
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .experiment import SYNTHETIC, Experiment
from .puppet_studies import TOLERANCE, Check
from .results import load_results
from .sweep import run_sweep
from .workloads import parse_months, trace_months

#: The paper's four metrics (section 5), normalised in every figure.
METRICS = {"system_efficiency": "system efficiency", "wait_mean_s": "average job wait time",
           "makespan_s": "makespan", "energy_j": "energy consumption"}
#: Within this relative distance two runs are "comparable" / the impact "trivial".
NEAR = 0.10


@dataclass(frozen=True)
class ResilienceStudy:
    """The runs of one figure: ``variants`` (label -> experiment fields, in
    the figure's order) applied to ``base`` fields; the figure is
    normalised to variant ``normalised_to`` (default: the first);
    ``checks`` turn the table into findings."""

    name: str
    figure: str
    title: str
    variants: tuple[tuple[str, Mapping], ...]
    base: Mapping = field(default_factory=dict)
    checks: Callable[["ResilienceStudy", pd.DataFrame], list[Check]] = field(
        default=lambda study, table: [], repr=False, compare=False)
    policies: tuple[str, ...] = ("wfp",)  # Mira's WFP-EASY (TOPPER Fig. 3)
    normalised_to: str | None = None

    @property
    def reference(self) -> str:
        return self.normalised_to or self.variants[0][0]

    def labels(self) -> list[str]:
        return [label for label, _ in self.variants]

    def runs(self, base: Experiment, months: Sequence[int | None],
             policies: Sequence[str] | None = None, cap_fraction: float = 0.7,
             cap_month: int | None = None, seeds: Sequence[int] | None = None
             ) -> list[tuple[str, Experiment]]:
        """(variant, experiment) for every variant, policy, month and seed
        (default: ``base``'s); a capped variant's cap is ``cap_fraction`` of
        the uncapped peak (of month ``cap_month``, if given)."""
        runs = []
        for label, fields_ in self.variants:
            changes = {**self.base, **fields_}
            if changes.get("capping", base.capping) != "none":
                changes.update(cap_fraction=cap_fraction, cap_month=cap_month)
            runs += [(label, replace(base, **changes, policy=policy, month=month, seed=seed))
                     for policy in (policies or self.policies) for month in months
                     for seed in (seeds or [base.seed])]
        return runs

    def experiments(self, base: Experiment, months: Sequence[int | None],
                    policies: Sequence[str] | None = None) -> list[Experiment]:
        return [exp for _, exp in self.runs(base, months, policies)]


# ---------------------------------------------------------------------------
# Tables


def study_table(study: ResilienceStudy, runs: Sequence[tuple[str, Experiment]],
                results: pd.DataFrame) -> pd.DataFrame:
    """One row per variant, policy and month: the metrics (the mean over
    seeds, ``seeds`` of them), and each metric over the reference
    variant's in the same policy and month (``<metric>_norm``; the wait
    ratio is NaN when the reference made no job wait)."""
    stored = results.set_index("key")
    missing = [exp.key() for _, exp in runs if exp.key() not in stored.index]
    if missing:
        raise RuntimeError(f"{len(missing)} runs of {study.name} have no result "
                           f"(failed or interrupted): {missing[:5]}")
    columns = ["utilization", *METRICS, "failures", "lost_node_hours", "jobs", "cap_w"]
    rows = []
    for label, exp in runs:
        record = stored.loc[exp.key()]
        rows.append({"variant": label, "policy": exp.policy, "month": exp.month,
                     "seed": exp.seed, "key": exp.key(),
                     **{c: record[c] for c in columns if c in record}})
    runs_table = pd.DataFrame(rows)
    for column in columns:
        if column in runs_table:
            runs_table[column] = pd.to_numeric(runs_table[column], errors="coerce")
    runs_table["month"] = runs_table["month"].astype("Int64")
    by = ["variant", "policy", "month"]
    table = runs_table.groupby(by, sort=False, dropna=False).agg(
        seeds=("seed", "size"), keys=("key", ";".join),
        **{c: (c, "mean") for c in columns if c in runs_table}).reset_index()
    reference = table[table["variant"] == study.reference].set_index(["policy", "month"])
    at = pd.MultiIndex.from_frame(table[["policy", "month"]])
    for metric in METRICS:
        base = reference[metric].reindex(at).to_numpy(dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            table[f"{metric}_norm"] = np.where(base != 0, table[metric] / base, np.nan)
    return table


def wide(table: pd.DataFrame, column: str) -> pd.DataFrame:
    """``column`` with one row per (policy, month) and one column per variant."""
    return table.pivot_table(index=["policy", "month"], columns="variant", values=column,
                             aggfunc="first", dropna=False)


# ---------------------------------------------------------------------------
# Checks


def _case(index) -> str:
    policy, month = index
    return f"{policy.upper()}" + ("" if pd.isna(month) else f" month {month}")


def _verdict(finding: str, results: Mapping, describe: Mapping) -> Check:
    """PASS when every measurable case holds (``None``: not measurable)."""
    measured = {case: ok for case, ok in results.items() if ok is not None}
    if not measured:
        return Check(finding, None, "not measurable on these runs")
    failed = [case for case, ok in measured.items() if not ok]
    if not failed:
        shown = "; ".join(describe[case] for case in list(measured)[:4])
        return Check(finding, True, f"holds in all {len(measured)} cases ({shown})")
    shown = "; ".join(describe[case] for case in failed[:4])
    more = f"; and {len(failed) - 4} more" if len(failed) > 4 else ""
    return Check(finding, False, f"holds in {len(measured) - len(failed)} of "
                                 f"{len(measured)} cases; differs in {shown}{more}")


def per_case(finding: str, table: pd.DataFrame, column: str,
             holds: Callable[[pd.Series], bool], show: Sequence[str]) -> Check:
    """``holds(row)`` for each (policy, month), ``row`` being ``column`` by
    variant; the values of the ``show`` variants describe the case."""
    results, text = {}, {}
    for index, row in wide(table, column).iterrows():
        values = row.reindex(list(show)).astype(float)
        results[index] = None if values.isna().any() else bool(holds(row))
        text[index] = _case(index) + ": " + ", ".join(
            f"{variant} {value:.3g}" for variant, value in values.items())
    return _verdict(finding, results, text)


def _le(a: float, b: float) -> bool:
    return a <= b + TOLERANCE * max(abs(a), abs(b))


def ordered(finding: str, table: pd.DataFrame, column: str, low: str, high: str) -> Check:
    """``column`` at variant ``low`` <= at variant ``high``, case by case."""
    return per_case(finding, table, column, lambda row: _le(row[low], row[high]), [low, high])


def near(finding: str, table: pd.DataFrame, metric: str, variants: Sequence[str],
         within: float = NEAR) -> Check:
    """Each of ``variants`` within ``within`` of the reference (normalised)."""
    return per_case(finding, table, f"{metric}_norm",
                    lambda row: all(abs(row[v] - 1) <= within for v in variants), variants)


def monotone(finding: str, table: pd.DataFrame, column: str, variants: Sequence[str]
             ) -> Check:
    """``column`` never decreases along ``variants``."""
    return per_case(finding, table, column,
                    lambda row: all(_le(row[a], row[b]) for a, b in zip(variants, variants[1:])),
                    variants)


def more_sensitive(finding: str, table: pd.DataFrame, variant: str, strong: Sequence[str],
                   weak: Sequence[str]) -> Check:
    """At ``variant``, every ``strong`` metric moves at least as far from the
    reference (normalised, from 1) as every ``weak`` one, case by case."""
    results, text = {}, {}
    for _, row in table[table["variant"] == variant].iterrows():
        case = (row["policy"], row["month"])
        moved = {metric: abs(row[f"{metric}_norm"] - 1) for metric in (*strong, *weak)}
        results[case] = None if any(pd.isna(v) for v in moved.values()) else \
            min(moved[m] for m in strong) + TOLERANCE >= max(moved[m] for m in weak)
        text[case] = _case(case) + ": " + ", ".join(
            f"{METRICS[m]} {row[f'{m}_norm']:.3g}" for m in moved)
    return _verdict(finding, results, text)


def busier_months(finding: str, table: pd.DataFrame, column: str, variant: str,
                  reference: str) -> Check:
    """Per policy, ``column`` of ``variant`` moves further from 1 in the
    month the ``reference`` variant used the machine most than in the one
    it used least."""
    results, text = {}, {}
    reference = table[table["variant"] == reference]
    for policy, rows in table[table["variant"] == variant].groupby("policy"):
        busy = reference[reference["policy"] == policy].set_index("month")["utilization"]
        impact = (rows.set_index("month")[column] - 1).abs()
        if len(busy) < 2 or impact.isna().any():
            continue
        busiest, quietest = busy.idxmax(), busy.idxmin()
        if busy[busiest] == busy[quietest]:
            continue  # equally busy months cannot tell
        results[policy] = _le(impact[quietest], impact[busiest])
        text[policy] = (f"{policy.upper()}: month {busiest} (utilization {busy[busiest]:.2f}) "
                        f"{impact[busiest]:.3g} vs month {quietest} ({busy[quietest]:.2f}) "
                        f"{impact[quietest]:.3g}")
    return _verdict(finding, results, text)


def _wait(table: pd.DataFrame) -> str:
    """Compare waits normalised when every reference made jobs wait, else in seconds."""
    return "wait_mean_s_norm" if table["wait_mean_s_norm"].notna().all() else "wait_mean_s"


def _fig11_checks(study: ResilienceStudy, table: pd.DataFrame) -> list[Check]:
    wait = _wait(table)
    return [
        ordered("checkpointing beats double replication on system efficiency", table,
                "system_efficiency", "replication", "checkpoint"),
        per_case("... by about doubling it (checkpoint / replication >= 1.5)", table,
                 "system_efficiency_norm", lambda row: row["replication"] <= 1 / 1.5,
                 ["replication"]),
        ordered("checkpointing gives a shorter average wait", table, wait, "checkpoint",
                "replication"),
        near("both give a similar makespan (within 10 %)", table, "makespan_s",
             ["replication"]),
        ordered("checkpointing uses less energy", table, "energy_j", "checkpoint",
                "replication"),
        busier_months("the benefit of checkpointing is larger in busier months (wait)",
                      table, "wait_mean_s_norm", "replication", study.reference),
    ]


def _fig12_checks(study: ResilienceStudy, table: pd.DataFrame) -> list[Check]:
    low, high = study.labels()[-1], study.reference
    others = ("system_efficiency", "makespan_s", "energy_j")
    return [
        ordered(f"a lower checkpoint overhead shortens the average wait ({low} <= {high})",
                table, "wait_mean_s", low, high),
        *[near(f"its influence on {METRICS[m]} is trivial (within 10 %)", table, m,
               study.labels()[1:]) for m in others],
        more_sensitive(f"wait is the most sensitive metric (at {low})", table, low,
                       ["wait_mean_s"], others),
    ]


def _fig13_checks(study: ResilienceStudy, table: pd.DataFrame) -> list[Check]:
    labels = study.labels()
    low, high = labels[0], labels[-1]
    return [
        per_case("double replication gives the shortest average wait", table,
                 "wait_mean_s", lambda row: _le(row["r = 2"], row[labels].min()), labels),
        ordered(f"a lower degree gives a higher system efficiency ({low} >= {high})", table,
                "system_efficiency", high, low),
        ordered(f"a lower degree gives a shorter makespan ({low} <= {high})", table,
                "makespan_s", low, high),
        ordered(f"a lower degree uses less energy ({low} <= {high})", table, "energy_j",
                low, high),
    ]


def _fig14_checks(study: ResilienceStudy, table: pd.DataFrame) -> list[Check]:
    gammas = [label for label in study.labels() if label.startswith("\u03b3")]
    low, high = gammas[0], gammas[-1]
    return [
        monotone("a higher gamma lengthens the average wait", table, "wait_mean_s", gammas),
        monotone("a higher gamma lengthens the makespan", table, "makespan_s", gammas),
        more_sensitive(f"gamma matters more for wait and makespan than for efficiency "
                       f"and energy (at {high})", table, high, ["wait_mean_s", "makespan_s"],
                       ["system_efficiency", "energy_j"]),
        busier_months(f"gamma matters more in busier months (wait at {high})", table,
                      "wait_mean_s_norm", high, study.reference),
        ordered(f"replication with a small gamma ({low}) waits less than checkpointing",
                table, "wait_mean_s", low, "checkpoint"),
    ]


def _fig15_checks(study: ResilienceStudy, table: pd.DataFrame) -> list[Check]:
    wait = _wait(table)
    return [
        *[near(f"power-aware scheduling and DVFS-double are comparable in {METRICS[m]} "
               "(within 10 %)", table, m, ["DVFS-double"])
          for m in ("system_efficiency", "wait_mean_s", "makespan_s")],
        ordered("a higher failure rate under DVFS increases the average wait "
                "(DVFS-triple >= DVFS)", table, wait, "DVFS", "DVFS-triple"),
        ordered("a higher failure rate under DVFS increases the makespan "
                "(DVFS-triple >= DVFS)", table, "makespan_s", "DVFS", "DVFS-triple"),
        monotone("more failures with a higher DVFS failure rate", table, "failures",
                 ["DVFS", "DVFS-double", "DVFS-triple"]),
    ]


def _fig16_checks(study: ResilienceStudy, table: pd.DataFrame) -> list[Check]:
    ordered_labels = study.labels()  # by scale
    short, one, long = ordered_labels[0], study.reference, ordered_labels[-1]
    return [
        per_case(f"shorter jobs lower system efficiency ({short} < {one})", table,
                 "system_efficiency", lambda row: row[short] < row[one], [short, one]),
        ordered(f"longer jobs raise it slightly ({long} >= {one})", table,
                "system_efficiency", one, long),
        monotone("job runtime drives energy (energy grows with wall time)", table,
                 "energy_j", ordered_labels),
        near("the makespan changes little (within 10 %)", table, "makespan_s",
             [label for label in ordered_labels if label != one]),
        busier_months(f"wait changes more in busier months ({long})", table,
                      "wait_mean_s_norm", long, study.reference),
    ]


def _fig17_checks(study: ResilienceStudy, table: pd.DataFrame) -> list[Check]:
    ordered_labels = study.labels()  # by scale
    return [
        monotone("smaller jobs wait less (wait grows with job size)", table, "wait_mean_s",
                 ordered_labels),
        monotone("smaller jobs give a shorter makespan", table, "makespan_s", ordered_labels),
        monotone("smaller jobs use less energy", table, "energy_j", ordered_labels),
    ]


def _scales(field_name: str, what: str) -> tuple[tuple[str, dict], ...]:
    return tuple((f"{what} x{scale:g}", {field_name: scale}) for scale in (0.5, 1.0, 2.0, 4.0))


CHECKPOINT = {"resilience": "checkpoint"}
REPLICATION = {"resilience": "replication"}

STUDIES: dict[str, ResilienceStudy] = {study.name: study for study in (
    ResilienceStudy("topper_fig11", "Fig. 11", "checkpoint/restart versus replication "
                    "(r = 2, \u03b3 = 30 %)",
                    (("checkpoint", CHECKPOINT),
                     ("replication", {**REPLICATION, "redundancy": 2.0, "gamma": 0.3})),
                    checks=_fig11_checks),
    ResilienceStudy("topper_fig12", "Fig. 12", "checkpoint overhead O_c at 100, 50, 25 %",
                    tuple((f"O_c {scale:.0%}", {"checkpoint_scale": scale})
                          for scale in (1.0, 0.5, 0.25)),
                    base=CHECKPOINT, checks=_fig12_checks),
    ResilienceStudy("topper_fig13", "Fig. 13", "redundancy degree r (\u03b3 = 30 %)",
                    tuple((f"r = {r:g}", {"redundancy": r}) for r in (1.5, 2.0, 2.5, 3.0)),
                    base=REPLICATION, checks=_fig13_checks),
    ResilienceStudy("topper_fig14", "Fig. 14", "communication/computation ratio \u03b3 "
                    "(replication, r = 2)",
                    tuple((f"\u03b3 = {g:.0%}", {**REPLICATION, "gamma": g})
                          for g in (0.1, 0.3, 0.5, 0.7)) + (("checkpoint", CHECKPOINT),),
                    checks=_fig14_checks),
    ResilienceStudy("topper_fig15", "Fig. 15", "power-aware scheduling (WAIT) versus DVFS "
                    "failing 1, 2, 3 times as often (cap 70 %, \u03b2 = 1)",
                    (("power-aware", {"capping": "wait"}),
                     *((name, {"capping": "dvfs", "dvfs_failure_multiplier": m})
                       for name, m in (("DVFS", 1.0), ("DVFS-double", 2.0),
                                       ("DVFS-triple", 3.0)))),
                    base={**CHECKPOINT, "beta": 1.0}, checks=_fig15_checks),
    ResilienceStudy("topper_fig16", "Fig. 16", "job wall time x0.5 to x4 (checkpoint)",
                    _scales("walltime_scale", "wall time"), base=CHECKPOINT,
                    checks=_fig16_checks, normalised_to="wall time x1"),
    ResilienceStudy("topper_fig17", "Fig. 17", "job size x0.5 to x4 (checkpoint)",
                    _scales("size_scale", "job size"), base=CHECKPOINT,
                    checks=_fig17_checks, normalised_to="job size x1"),
)}


# ---------------------------------------------------------------------------
# Figure


def plot_study(study: ResilienceStudy, table: pd.DataFrame, path, subtitle: str = "") -> Path:
    """One row per policy, one panel per metric; bars by month, one per
    variant, normalised to the reference variant (dashed 1.0)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from modules.plots import save_figure

    from .puppet_studies import _month_label

    policies = [p for p in study.policies if p in set(table["policy"])] or \
        sorted(set(table["policy"]))
    labels = [label for label in study.labels() if label in set(table["variant"])]
    months = sorted(table["month"].dropna().unique().tolist()) or [None]
    fig, axes = plt.subplots(len(policies), len(METRICS), squeeze=False,
                             figsize=(4.2 * len(METRICS) + 0.8, 3.2 * len(policies)))
    width = 0.8 / len(labels)
    colours = plt.get_cmap("viridis")(np.linspace(0.1, 0.85, len(labels)))
    for row, policy in enumerate(policies):
        rows = table[table["policy"] == policy]
        for column, metric in enumerate(METRICS):
            ax = axes[row][column]
            for k, label in enumerate(labels):
                heights = [rows[(rows["variant"] == label) &
                                (rows["month"].isna() if m is None else rows["month"] == m)
                                ][f"{metric}_norm"].mean() for m in months]
                bars = ax.bar(np.arange(len(months)) + (k - (len(labels) - 1) / 2) * width,
                              heights, width, color=colours[k], label=label)
                if len(months) * len(labels) <= 24:
                    ax.bar_label(bars, fmt="%.3g", fontsize=6, padding=1)
            ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
            shown = rows[f"{metric}_norm"].replace([np.inf, -np.inf], np.nan).dropna()
            shown = shown[shown > 0]
            if len(shown) and shown.max() / shown.min() > 20:  # waits can differ 1000-fold
                ax.set_yscale("log")
            ax.set_ylabel(f"normalised to {study.reference}", fontsize=8)
            ax.set_xticks(np.arange(len(months)), [_month_label(m) for m in months])
            ax.set_title(f"{policy.upper()}-EASY: {METRICS[metric]}", fontsize=10)
            ax.grid(axis="y", alpha=0.3)
    axes[0][-1].legend(fontsize=8, loc="best")
    fig.suptitle(f"TOPPER {study.figure}: {study.title}"
                 + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    fig.tight_layout()
    return save_figure(fig, path)


# ---------------------------------------------------------------------------
# Running a study


@dataclass
class StudyOutcome:
    study: ResilienceStudy
    table: pd.DataFrame
    checks: list[Check]
    csv: Path
    png: Path
    checks_txt: Path


def run_study(study: ResilienceStudy | str, base: Experiment, months: Sequence[int | None],
              out, results_dir=None, policies: Sequence[str] | None = None,
              workers: int | None = None, client=None, progress: bool = True,
              cap_fraction: float = 0.7, cap_month: int | None = None,
              seeds: Sequence[int] | None = None) -> StudyOutcome:
    """Run ``study`` on ``base``'s workload (and resilience settings) for
    ``months``; write ``out/<name>.csv``, ``.png`` and ``_checks.txt``;
    return them and the checks.  Runs are kept in ``results_dir`` (default
    ``out/runs``) and shared."""
    study = STUDIES[study] if isinstance(study, str) else study
    out = Path(out)
    results_dir = Path(results_dir) if results_dir is not None else out / "runs"
    runs = study.runs(base, months, policies, cap_fraction, cap_month, seeds)
    summary = run_sweep([exp for _, exp in runs], results_dir, workers=workers,
                        client=client, progress=progress, baselines=False,
                        collect_results=False)
    summary.raise_unless_complete()
    table = study_table(study, runs, load_results(results_dir))
    checks = study.checks(study, table)
    out.mkdir(parents=True, exist_ok=True)
    csv = out / f"{study.name}.csv"
    table.to_csv(csv, index=False)
    name = SYNTHETIC if base.trace == SYNTHETIC else Path(base.trace).name
    png = plot_study(study, table, out / f"{study.name}.png", subtitle=name)
    checks_txt = out / f"{study.name}_checks.txt"
    checks_txt.write_text("".join(f"{check}\n" for check in checks))
    return StudyOutcome(study, table, checks, csv, png, checks_txt)


def summary_lines(outcome: StudyOutcome) -> list[str]:
    """Mean normalised metrics per policy and variant, one number per month."""
    lines = []
    for (policy, variant), rows in outcome.table.groupby(["policy", "variant"], sort=False):
        parts = [f"{metric.split('_')[0]} " + " ".join(f"{v:.3g}" for v in rows[f"{metric}_norm"])
                 for metric in METRICS]
        failures = " ".join(f"{v:.3g}" for v in rows["failures"])
        lines.append(f"  {policy.upper():4} {variant:16} " + " | ".join(parts)
                     + f" | failures {failures}")
    return lines


def main(name: str, argv: Sequence[str] | None = None) -> int:
    """The command line of ``examples/<name>_*.py``."""
    study = STUDIES[name]
    parser = argparse.ArgumentParser(
        prog=name, description=f"TOPPER {study.figure}: {study.title}.  Writes "
        f"OUT/{name}.csv, .png and _checks.txt and checks the paper's findings.")
    parser.add_argument("--trace", default=SYNTHETIC,
                        help="SWF trace, or 'synthetic' (default: the Mira-like month)")
    parser.add_argument("--months", default=None,
                        help="30-day windows, e.g. 0-3 or all (default: 0-3 of a trace, "
                             "0,1 of the synthetic workload)")
    parser.add_argument("--policies", default=",".join(study.policies))
    parser.add_argument("--procs-per-node", type=int)
    parser.add_argument("--machine-nodes", type=int)
    parser.add_argument("--unit-nodes", type=int,
                        help="nodes per compute unit (default: 1,024-node racks on a machine "
                             "made of them, else single nodes)")
    parser.add_argument("--system-mttf-hours", type=float,
                        help="mean time between failures of the whole machine (default: "
                             "Mira's, 46.45 h)")
    parser.add_argument("--on-failure", choices=("keep", "requeue"), default="keep")
    parser.add_argument("--cap", type=float, default=0.7,
                        help="cap as a fraction of the uncapped peak (Fig. 15; default 0.7)")
    parser.add_argument("--cap-month", type=int,
                        help="the month whose uncapped peak the cap refers to (the paper: "
                             "January); default: each month's own")
    parser.add_argument("--seeds", default="0",
                        help="seeds of failures, job power and ties, e.g. 0-4: each bar is "
                             "the mean over them (default 0)")
    parser.add_argument("--out", type=Path, default=Path("out") / name)
    parser.add_argument("--results", type=Path, default=Path("out") / "topper_runs",
                        help="directory of the runs, shared between studies")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    if args.months in (None, ""):
        months = [0, 1] if args.trace == SYNTHETIC else list(range(min(4, trace_months(
            args.trace, args.procs_per_node, machine_nodes=args.machine_nodes))))
    elif args.months == "all":
        months = list(range(trace_months(args.trace, args.procs_per_node,
                                         machine_nodes=args.machine_nodes)))
    else:
        months = parse_months(args.months)
    policies = args.policies.split(",")
    base = Experiment(trace=args.trace, procs_per_node=args.procs_per_node,
                      machine_nodes=args.machine_nodes, policy=policies[0],
                      resilience="checkpoint", unit_nodes=args.unit_nodes,
                      system_mttf_hours=args.system_mttf_hours, on_failure=args.on_failure)
    try:
        outcome = run_study(study, base, months, args.out, args.results,
                            policies=policies, workers=args.workers,
                            progress=not args.no_progress, cap_fraction=args.cap,
                            cap_month=args.cap_month, seeds=parse_months(args.seeds))
    except KeyboardInterrupt:
        print("interrupted: finished runs are kept; run the same command again to go on",
              file=sys.stderr)
        return 130
    print(f"TOPPER {study.figure}: {study.title}")
    seeds = parse_months(args.seeds)
    print(f"months {', '.join(str(m) for m in months)} of {base.label()}"
          + (f"; means over seeds {args.seeds}" if len(seeds) > 1 else ""))
    print(f"normalised to {study.reference}, one number per month:")
    print("\n".join(summary_lines(outcome)))
    print("checks against the paper's findings:")
    for check in outcome.checks:
        print(f"  {check}")
    print(f"wrote {outcome.csv}, {outcome.png} and {outcome.checks_txt}")
    return 0
