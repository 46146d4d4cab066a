"""The PuPPET paper's power capping studies (section 5, Figs. 10-16) as data.

Each :class:`Study` names the runs behind one figure: a capping method, the
parameter its bars vary (alpha, the cap, beta, BLOCK/WAIT, the idle power),
by month of the trace, under FCFS-EASY and WFP-EASY.  :func:`run_study`
runs them as a sweep (so runs are shared between studies that use the same
results directory, and a restarted study does only what is missing),
normalises every metric to the uncapped run with the same policy, month
and idle power, writes ``<name>.csv`` and a ``<name>.png`` laid out like
the paper's figure, and checks the direction of the paper's findings on
what we measured: each :class:`Check` says PASS or DIFFERS, with the cases
that differ, rather than being tuned until it passes.

>>> sorted(STUDIES)
['fig10', 'fig11', 'fig12', 'fig13', 'fig14', 'fig15', 'fig16']
>>> len(STUDIES["fig13"].experiments(Experiment(), months=[0, 1], policies=["fcfs", "wfp"]))
8
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from .experiment import SYNTHETIC, Experiment
from .grids import grid
from .results import load_results
from .sweep import run_sweep
from .workloads import default_trace, parse_months, trace_months

METRIC_NAMES = {"utilization": "system utilization", "wait_mean_s": "average job wait time",
                "edp_j_s": "energy delay product", "makespan_s": "makespan"}
CAPPING_NAMES = {"none": "no capping", "block": "BLOCK", "wait": "WAIT", "dvfs": "DVFS"}
HOURS = [f"power_hour_{hour:02d}_w" for hour in range(24)]
#: Relative slack for comparisons between runs ("never worse" allows float noise).
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Check:
    """One of the paper's findings, tested on our numbers."""

    finding: str
    passed: bool | None  # None: these runs cannot tell (one month, one policy, ...)
    detail: str

    @property
    def verdict(self) -> str:
        return {True: "PASS", False: "DIFFERS", None: "N/A"}[self.passed]

    def __str__(self) -> str:
        return f"{self.verdict:7}  {self.finding}: {self.detail}"


@dataclass(frozen=True)
class Study:
    """The runs of one figure: ``capping`` (or, when ``parameter`` is
    ``"capping"``, the methods in ``values``) with ``parameter`` taking
    ``values``; ``compare`` adds another capping method at the same points
    (for checks that compare methods).  ``checks`` turn the study's table
    into :class:`Check` results."""

    name: str
    figure: str
    title: str
    parameter: str
    values: tuple
    capping: str | None = None
    compare: str | None = None
    metrics: tuple[str, ...] = ("utilization", "wait_mean_s", "edp_j_s")
    checks: Callable[["Study", pd.DataFrame], list[Check]] = field(
        default=lambda study, table: [], repr=False, compare=False)
    policies: tuple[str, ...] = ("fcfs", "wfp")

    def experiments(self, base: Experiment, months: Sequence[int | None],
                    policies: Sequence[str] | None = None) -> list[Experiment]:
        cappings = ([self.capping] if self.capping else []) + \
            ([self.compare] if self.compare else [])
        axes = {"policy": list(policies or self.policies), "month": list(months)}
        if self.parameter == "capping":
            axes["capping"] = list(self.values)
        else:
            axes["capping"] = cappings
            axes[self.parameter] = list(self.values)
        return grid(base, **axes)

    def value_label(self, value) -> str:
        if self.parameter == "capping":
            return CAPPING_NAMES[value]
        if self.parameter in ("cap_fraction", "idle_fraction"):
            return f"{value:.0%}"
        symbol = {"alpha": "\u03b1", "beta": "\u03b2"}.get(self.parameter, self.parameter)
        return f"{symbol} = {value:g}"


# ---------------------------------------------------------------------------
# Tables


def study_table(study: Study, experiments: Sequence[Experiment], results: pd.DataFrame
                ) -> pd.DataFrame:
    """The study's runs, one row each, with the uncapped twin's metrics
    (``base_<metric>``) beside the normalised ones; ``value`` is the
    parameter the bars vary."""
    keys = [exp.key() for exp in experiments]
    table = results.set_index("key").reindex(keys)
    missing = table.index[table["capping"].isna()].tolist()
    if missing:
        raise RuntimeError(f"{len(missing)} runs of {study.name} have no result "
                           f"(failed or interrupted): {missing[:5]}")
    base = results.set_index("key")
    for metric in ("utilization", "wait_mean_s", "edp_j_s", "makespan_s", "energy_j"):
        table[f"base_{metric}"] = table["baseline_key"].map(base[metric])
    table = table.reset_index()
    table["value"] = table[study.parameter]
    table["wait_increase_h"] = (table["wait_mean_s"] - table["base_wait_mean_s"]) / 3600
    table["month"] = table["month"].astype("Int64")
    columns = ["key", "policy", "month", "capping", "value", study.parameter, "cap_fraction",
               "cap_w", "uncapped_peak_w", "idle_fraction", "alpha", "beta",
               "utilization", "wait_mean_s", "edp_j_s", "makespan_s", "energy_j",
               "power_peak_w", "cap_exceeded_s",
               *[f"{m}_norm" for m in ("utilization", "wait_mean_s", "edp_j_s",
                                       "makespan_s", "energy_j")],
               "wait_increase_h", "base_utilization", "base_wait_mean_s", "base_edp_j_s",
               "jobs",
               "baseline_key", *HOURS]
    return table[list(dict.fromkeys(c for c in columns if c in table))]


def _pivot(table: pd.DataFrame, column: str, capping: str | None = None,
           by: str = "value") -> pd.DataFrame:
    rows = table if capping is None else table[table["capping"] == capping]
    return rows.pivot_table(index=["policy", "month"], columns=by, values=column,
                            aggfunc="first", dropna=False)


def _case(index) -> str:
    policy, month = index if isinstance(index, tuple) else (index, None)
    return f"{policy.upper()}" + ("" if month is None or pd.isna(month) else f" month {month}")


def _count(finding: str, results: dict, describe: Callable[[object], str]) -> Check:
    """A check over cases: ``results`` maps a case to True/False (None: not
    measurable); PASS when all measurable cases hold."""
    measured = {case: ok for case, ok in results.items() if ok is not None}
    if not measured:
        return Check(finding, None, "not measurable on these runs")
    failed = [case for case, ok in measured.items() if not ok]
    if not failed:
        return Check(finding, True, f"holds in all {len(measured)} cases")
    shown = "; ".join(describe(case) for case in failed[:4])
    more = f"; and {len(failed) - 4} more" if len(failed) > 4 else ""
    return Check(finding, False, f"holds in {len(measured) - len(failed)} of {len(measured)} "
                                 f"cases; differs in {shown}{more}")


def _le(a, b) -> bool | None:
    if pd.isna(a) or pd.isna(b):
        return None
    return a <= b + TOLERANCE * max(abs(a), abs(b))


def _each_row(finding: str, table: pd.DataFrame, column: str, holds: Callable[[float], bool],
              unit: str = "") -> Check:
    results, values = {}, {}
    for _, row in table.iterrows():
        case = (row["policy"], row["month"], row["capping"], row["value"])
        values[case] = row[column]
        results[case] = None if pd.isna(row[column]) else bool(holds(row[column]))
    def describe(case) -> str:
        value = "" if case[3] == case[2] else f" {case[3]:g}"
        return f"{_case(case[:2])} {CAPPING_NAMES[case[2]]}{value}: {values[case]:.3g}{unit}"
    return _count(finding, results, describe)


def _ends(finding: str, wide: pd.DataFrame, first, last, direction: str, name: str) -> Check:
    """``last`` column <= (or >=) ``first`` column, per (policy, month)."""
    results, text = {}, {}
    for index, row in wide.iterrows():
        a, b = row.get(first), row.get(last)
        results[index] = _le(b, a) if direction == "<=" else _le(a, b)
        text[index] = f"{_case(index)}: {name} {b:.3g} at {last} vs {a:.3g} at {first}"
    return _count(finding, results, text.get)


def _between(finding: str, left: pd.DataFrame, right: pd.DataFrame, direction: str,
             name: str, left_name: str, right_name: str) -> Check:
    """``left`` <= (or >=) ``right`` cell by cell (same index and columns)."""
    results, text = {}, {}
    for index in left.index:
        for column in left.columns:
            a = left.at[index, column]
            b = right.at[index, column] if index in right.index and column in right else np.nan
            case = (index, column)
            results[case] = _le(a, b) if direction == "<=" else _le(b, a)
            text[case] = (f"{_case(index)} {column}: {name} {left_name} {a:.3g} vs "
                          f"{right_name} {b:.3g}")
    return _count(finding, results, text.get)


def _policies(finding: str, table: pd.DataFrame, column: str, name: str,
              key: Callable[[pd.DataFrame], pd.Series] | None = None) -> Check:
    """WFP's ``column`` (or ``key(rows)``) <= FCFS's, per month (mean over the bars)."""
    results, text = {}, {}
    for month, rows in table.groupby("month", dropna=False):
        by_policy = (key(rows) if key else rows.groupby("policy")[column].mean())
        if not {"fcfs", "wfp"} <= set(by_policy.index):
            continue
        case = month
        results[case] = _le(by_policy["wfp"], by_policy["fcfs"])
        text[case] = (f"month {month}: {name} WFP {by_policy['wfp']:.3g} vs "
                      f"FCFS {by_policy['fcfs']:.3g}")
    return _count(finding, results, text.get)


def _wait_measure(rows: pd.DataFrame) -> tuple[str, str, float]:
    """How to compare wait times across runs with different baselines: the
    normalised wait, as the paper does, unless an uncapped run never made a
    job wait (then the ratio is undefined, and the increase in hours is used).
    Returns the column, its name, and its "no change" value."""
    norm = rows["wait_mean_s_norm"].astype(float)
    if len(norm) and np.isfinite(norm).all():
        return "wait_mean_s_norm", "normalised wait", 1.0
    return "wait_increase_h", "wait increase in hours (an uncapped run had no wait)", 0.0


def _wait_policies(finding: str, rows: pd.DataFrame) -> Check:
    column, name, _ = _wait_measure(rows)
    return _policies(finding, rows, column, name)


def _busier_months(finding: str, table: pd.DataFrame, column: str, name: str,
                   centre: float = 1.0) -> Check:
    """Per policy, the busiest uncapped month shows more change in ``column``
    than the least busy one (mean over the bars of |value - centre|)."""
    results, text = {}, {}
    for policy, rows in table.groupby("policy"):
        months = rows.groupby("month").agg(busy=("base_utilization", "first"))
        months["impact"] = rows.groupby("month")[column].apply(
            lambda s: (s - centre).abs().mean())
        if len(months) < 2:
            continue
        busy, quiet = months["busy"].idxmax(), months["busy"].idxmin()
        results[policy] = _le(months.at[quiet, "impact"], months.at[busy, "impact"])
        text[policy] = (f"{policy.upper()}: busiest month {busy} (utilization "
                        f"{months.at[busy, 'busy']:.2f}) changes {name} by "
                        f"{months.at[busy, 'impact']:.3g}, quietest month {quiet} "
                        f"({months.at[quiet, 'busy']:.2f}) by {months.at[quiet, 'impact']:.3g}")
    check = _count(finding, results, text.get)
    if check.passed:
        check = replace(check, detail="; ".join(text.values()))
    return check


def _busier_months_wait(finding: str, rows: pd.DataFrame) -> Check:
    column, name, centre = _wait_measure(rows)
    return _busier_months(finding, rows, column, name, centre)


# ---------------------------------------------------------------------------
# The paper's findings, figure by figure


def _dvfs_common(study: Study, table: pd.DataFrame) -> list[Check]:
    rows = table[table["capping"] == "dvfs"]
    return [
        _each_row("DVFS raises utilization (normalised utilization >= 1)", rows,
                  "utilization_norm", lambda v: v >= 1 - TOLERANCE),
        _each_row("DVFS lowers EDP (normalised EDP <= 1)", rows, "edp_j_s_norm",
                  lambda v: v <= 1 + TOLERANCE),
        _each_row("DVFS increases the average wait time", rows, "wait_increase_h",
                  lambda v: v >= -TOLERANCE, " h more"),
        _wait_policies("WFP is more robust than FCFS: its wait rises less", rows),
        _busier_months_wait("busier months change more (wait time)", rows),
    ]


def _fig10_checks(study: Study, table: pd.DataFrame) -> list[Check]:
    wait = _pivot(table, "wait_mean_s", "dvfs")
    util = _pivot(table, "utilization_norm", "dvfs")
    low, high = min(study.values), max(study.values)
    return _dvfs_common(study, table) + [
        _ends(f"cubic alpha disturbs the schedule least: wait at alpha {high:g} <= at "
              f"alpha {low:g}", wait, low, high, "<=", "mean wait (s)"),
        _ends(f"... and utilization moves least: |utilization - 1| at alpha {high:g} <= "
              f"at alpha {low:g}", (util - 1).abs(), low, high, "<=", "|norm. util. - 1|"),
    ]


def _fig11_checks(study: Study, table: pd.DataFrame) -> list[Check]:
    loose, tight = max(study.values), min(study.values)
    util = _pivot(table, "utilization_norm", "dvfs")
    edp = _pivot(table, "edp_j_s_norm", "dvfs")
    checks = [
        _ends(f"DVFS raises utilization more as the cap tightens ({tight:.0%} >= "
              f"{loose:.0%})", util, loose, tight, ">=", "normalised utilization"),
        _ends(f"a tight cap gives a worse EDP than a loose one ({tight:.0%} >= {loose:.0%})",
              edp, loose, tight, ">=", "normalised EDP"),
    ]
    if study.compare:
        other = study.compare
        checks += [
            _between(f"DVFS raises utilization relative to power-aware allocation "
                     f"({CAPPING_NAMES[other]}) at the same cap", util,
                     _pivot(table, "utilization_norm", other), ">=", "norm. utilization",
                     "DVFS", CAPPING_NAMES[other]),
            _between(f"DVFS lowers EDP relative to power-aware allocation "
                     f"({CAPPING_NAMES[other]}) at the same cap", edp,
                     _pivot(table, "edp_j_s_norm", other), "<=", "norm. EDP", "DVFS",
                     CAPPING_NAMES[other]),
        ]
    return checks


def _fig12_checks(study: Study, table: pd.DataFrame) -> list[Check]:
    low, high = min(study.values), max(study.values)
    return [
        _ends(f"a higher beta does not increase EDP (beta {high:g} <= beta {low:g})",
              _pivot(table, "edp_j_s_norm", "dvfs"), low, high, "<=", "normalised EDP"),
        _ends(f"a higher beta raises utilization (beta {high:g} >= beta {low:g})",
              _pivot(table, "utilization_norm", "dvfs"), low, high, ">=",
              "normalised utilization"),
        _ends(f"a higher beta lengthens the makespan (beta {high:g} >= beta {low:g})",
              _pivot(table, "makespan_s_norm", "dvfs"), low, high, ">=",
              "normalised makespan"),
    ]


def _fig13_checks(study: Study, table: pd.DataFrame) -> list[Check]:
    by = "capping"
    wait, util, edp = (_pivot(table, column, by=by) for column in
                       ("wait_mean_s", "utilization", "edp_j_s"))
    capped = table[table["capping"].isin(["block", "wait"])]
    return [
        _ends("WAIT is never worse than BLOCK on wait time", wait, "block", "wait", "<=",
              "mean wait (s)"),
        _ends("WAIT is never worse than BLOCK on utilization", util, "block", "wait", ">=",
              "utilization"),
        _ends("WAIT is never worse than BLOCK on EDP", edp, "block", "wait", "<=", "EDP"),
        _each_row("power-aware allocation lowers utilization (normalised <= 1)", capped,
                  "utilization_norm", lambda v: v <= 1 + TOLERANCE),
        _each_row("power-aware allocation raises EDP (normalised >= 1)", capped,
                  "edp_j_s_norm", lambda v: v >= 1 - TOLERANCE),
        _wait_policies("WFP is more robust than FCFS: its wait rises less", capped),
        _busier_months("busier months suffer more (EDP)", capped, "edp_j_s_norm",
                       "normalised EDP"),
    ]


def _fig14_checks(study: Study, table: pd.DataFrame) -> list[Check]:
    method = study.capping
    loose, tight = max(study.values), min(study.values)
    util, wait, edp = (_pivot(table, column, method) for column in
                       ("utilization_norm", "wait_mean_s", "edp_j_s_norm"))
    mild = table[(table["capping"] == method) & (table["value"] >= 0.6 - TOLERANCE)]
    checks = [
        _ends(f"utilization falls as the cap tightens ({tight:.0%} <= {loose:.0%})",
              util, loose, tight, "<=", "normalised utilization"),
        _ends(f"wait time grows as the cap tightens ({tight:.0%} >= {loose:.0%})",
              wait, loose, tight, ">=", "mean wait (s)"),
        _ends(f"EDP grows as the cap tightens ({tight:.0%} >= {loose:.0%})",
              edp, loose, tight, ">=", "normalised EDP"),
        _each_row("at caps of 80-60 % the impact is minor (utilization within 10 %)", mild,
                  "utilization_norm", lambda v: abs(v - 1) <= 0.10),
        _each_row("at caps of 80-60 % the impact is minor (EDP within 10 %)", mild,
                  "edp_j_s_norm", lambda v: abs(v - 1) <= 0.10),
    ]
    if study.compare:
        other = _pivot(table, "edp_j_s_norm", study.compare)[[tight]]
        checks.append(_between(
            f"a tight cap ({tight:.0%}) hurts EDP more with power-aware allocation than "
            f"with {CAPPING_NAMES[study.compare]}", edp[[tight]], other, ">=", "norm. EDP",
            CAPPING_NAMES[method], CAPPING_NAMES[study.compare]))
    return checks


def _fig15_checks(study: Study, table: pd.DataFrame) -> list[Check]:
    low, high = min(study.values), max(study.values)
    edp = _pivot(table, "edp_j_s_norm", study.capping)
    spread = (edp[high] - edp[low]).rename("spread").reset_index()
    return [
        _each_row("power-aware allocation does not decrease EDP (normalised >= 1)", table,
                  "edp_j_s_norm", lambda v: v >= 1 - TOLERANCE),
        _ends(f"the higher the idle power, the more EDP rises ({high:.0%} >= {low:.0%})",
              edp, low, high, ">=", "normalised EDP"),
        _count("idle power matters more under WFP than FCFS (EDP spread "
               f"{low:.0%}..{high:.0%})", *_spread_by_policy(spread)),
    ]


def _spread_by_policy(spread: pd.DataFrame):
    results, text = {}, {}
    for month, rows in spread.groupby("month", dropna=False):
        by_policy = rows.set_index("policy")["spread"]
        if {"fcfs", "wfp"} <= set(by_policy.index):
            results[month] = _le(by_policy["fcfs"], by_policy["wfp"])
            text[month] = (f"month {month}: WFP {by_policy['wfp']:.3g} vs "
                           f"FCFS {by_policy['fcfs']:.3g}")
    return results, text.get


def _fig16_checks(study: Study, table: pd.DataFrame) -> list[Check]:
    checks = []
    for method in ("dvfs", "wait", "block"):
        rows = table[table["capping"] == method]
        if len(rows):
            checks.append(_each_row(
                f"{CAPPING_NAMES[method]} keeps system power within the cap at all times "
                "(seconds above it)", rows, "cap_exceeded_s", lambda v: v <= 0, " s"))
    profiles = daily_profiles(table)
    cap = profiles["cap_w"].max()
    for method in profiles.columns.drop("cap_w", errors="ignore"):
        if method == "none":
            continue
        peak = profiles[method].max()
        checks.append(Check(f"the averaged daily curve of {CAPPING_NAMES[method]} stays under "
                            "the cap line", bool(peak <= cap * (1 + TOLERANCE)),
                            f"highest hourly mean {peak / 1e3:,.1f} kW, cap "
                            f"{cap / 1e3:,.1f} kW"))
    return checks


STUDIES: dict[str, Study] = {study.name: study for study in (
    Study("fig10", "Fig. 10", "DVFS under frequency-to-power exponents alpha", "alpha",
          (1.0, 2.0, 3.0), capping="dvfs", checks=_fig10_checks),
    Study("fig11", "Fig. 11", "DVFS under power caps (fraction of the uncapped peak)",
          "cap_fraction", (0.8, 0.7, 0.6, 0.5, 0.4), capping="dvfs", compare="wait",
          checks=_fig11_checks),
    Study("fig12", "Fig. 12", "DVFS under frequency-to-time exponents beta", "beta",
          (0.5, 1.0, 1.5, 2.0), capping="dvfs", checks=_fig12_checks),
    Study("fig13", "Fig. 13", "power-aware allocation: BLOCK versus WAIT", "capping",
          ("block", "wait"), checks=_fig13_checks),
    Study("fig14", "Fig. 14", "power-aware allocation (WAIT) under power caps",
          "cap_fraction", (0.8, 0.7, 0.6, 0.5, 0.4), capping="wait", compare="dvfs",
          checks=_fig14_checks),
    Study("fig15", "Fig. 15", "power-aware allocation (WAIT) under idle power rates",
          "idle_fraction", (0.0, 0.1, 0.2, 0.3, 0.4, 0.5), capping="wait",
          metrics=("edp_j_s",), checks=_fig15_checks),
    Study("fig16", "Fig. 16", "average daily power under each capping method (WFP-EASY)",
          "capping", ("none", "wait", "dvfs"), metrics=(), policies=("wfp",),
          checks=_fig16_checks),
)}


# ---------------------------------------------------------------------------
# Figures


def daily_profiles(table: pd.DataFrame) -> pd.DataFrame:
    """Fig. 16's curves: for each capping method, the mean power in each
    hour of the day averaged over the runs (months), and the mean cap."""
    profiles = {method: rows[HOURS].mean().to_numpy()
                for method, rows in table.groupby("capping", sort=False)}
    frame = pd.DataFrame(profiles, index=pd.RangeIndex(24, name="hour"))
    caps = table["cap_w"].dropna()
    frame["cap_w"] = caps.mean() if len(caps) else np.nan
    return frame


def _month_label(month) -> str:
    return "all" if month is None or pd.isna(month) else f"month {month}"


def plot_study(study: Study, table: pd.DataFrame, path, subtitle: str = "") -> Path:
    """The figure: one row per policy, one panel per metric; bars by month,
    one per parameter value, normalised to the uncapped run (dashed 1.0)."""
    import matplotlib.pyplot as plt

    from modules.plots import save_figure  # selects the off-screen backend

    if study.name == "fig16":
        return _plot_profiles(study, table, path, subtitle)
    policies = [p for p in study.policies if p in set(table["policy"])]
    values = [v for v in study.values if v in set(table["value"])]
    months = sorted(table["month"].dropna().unique().tolist()) or [None]
    fig, axes = plt.subplots(len(policies), len(study.metrics), squeeze=False,
                             figsize=(4.2 * len(study.metrics) + 0.8, 3.2 * len(policies)))
    width = 0.8 / max(len(values), 1)
    colours = plt.get_cmap("viridis")(np.linspace(0.1, 0.85, max(len(values), 1)))
    for row, policy in enumerate(policies):
        rows = table[(table["policy"] == policy) & (table["capping"] != study.compare)]
        for column, metric in enumerate(study.metrics):
            ax = axes[row][column]
            shown, absolute = f"{metric}_norm", False
            if metric == "wait_mean_s" and not np.isfinite(rows[shown].astype(float)).all():
                # an uncapped run made no job wait: the ratio is undefined
                rows = rows.assign(wait_h=rows["wait_mean_s"] / 3600)
                shown, absolute = "wait_h", True
            at_month = [(rows["month"].isna() if m is None else rows["month"] == m)
                        for m in months]
            for k, value in enumerate(values):
                heights = [rows[(rows["value"] == value) & here][shown].mean()
                           for here in at_month]
                bars = ax.bar(np.arange(len(months)) + (k - (len(values) - 1) / 2) * width,
                              heights, width, color=colours[k], label=study.value_label(value))
                if len(months) * len(values) <= 24:
                    ax.bar_label(bars, fmt="%.3g", fontsize=6, padding=1)
            if absolute:
                base = [rows[here]["base_wait_mean_s"].mean() / 3600 for here in at_month]
                ax.scatter(np.arange(len(months)), base, marker="_", s=400, color="black",
                           zorder=3, label="no capping")
                ax.set_ylabel("hours (uncapped: black marks)", fontsize=8)
            else:
                ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
                ax.set_ylabel("normalised to no capping", fontsize=8)
            ax.set_xticks(np.arange(len(months)), [_month_label(m) for m in months])
            finite = rows[shown].replace([np.inf, -np.inf], np.nan).dropna()
            if len(finite) and finite.min() > 0 and finite.max() / finite.min() > 20:
                ax.set_yscale("log")
            ax.set_title(f"{policy.upper()}-EASY: {METRIC_NAMES[metric]}"
                         + (" (h)" if absolute else ""), fontsize=10)
            ax.grid(axis="y", alpha=0.3)
    axes[0][-1].legend(fontsize=8, loc="best")
    fig.suptitle(f"{study.figure}: {study.title}" + (f"\n{subtitle}" if subtitle else ""),
                 fontsize=11)
    fig.tight_layout()
    return save_figure(fig, path)


def _plot_profiles(study: Study, table: pd.DataFrame, path, subtitle: str) -> Path:
    import matplotlib.pyplot as plt

    from modules.plots import save_figure

    profiles = daily_profiles(table)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    styles = {"none": ("black", "-"), "wait": ("tab:orange", "-"), "block": ("tab:red", "-"),
              "dvfs": ("tab:blue", "-")}
    for method in profiles.columns.drop("cap_w"):
        colour, style = styles.get(method, (None, "-"))
        ax.plot(profiles.index, profiles[method] / 1e3, style, color=colour, marker="o",
                markersize=3, label=CAPPING_NAMES[method]
                if method != "wait" else "power-aware allocation (WAIT)")
    cap = profiles["cap_w"].iloc[0]
    if not math.isnan(cap):
        caps = table["cap_w"].dropna()
        note = "" if caps.nunique() <= 1 else " (mean over months)"
        ax.axhline(cap / 1e3, color="tab:red", linestyle="--", label=f"power cap{note}")
    ax.set_xlabel("hour of the day (local time)")
    ax.set_ylabel("system power (kW)")
    ax.set_xticks(range(0, 24, 2))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"{study.figure}: {study.title}" + (f"\n{subtitle}" if subtitle else ""),
                 fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)




# ---------------------------------------------------------------------------
# Running a study


@dataclass
class StudyOutcome:
    study: Study
    table: pd.DataFrame
    checks: list[Check]
    csv: Path
    png: Path


def run_study(study: Study | str, base: Experiment, months: Sequence[int | None], out,
              results_dir=None, policies: Sequence[str] | None = None,
              workers: int | None = None, client=None, progress: bool = True,
              values: Sequence | None = None) -> StudyOutcome:
    """Run ``study`` on ``base``'s workload for ``months``; write
    ``out/<name>.csv`` and ``out/<name>.png``; return the table and checks.

    ``results_dir`` (default ``out/runs``) holds the runs: point several
    studies at one directory and they share the runs they have in common.
    """
    study = STUDIES[study] if isinstance(study, str) else study
    if values is not None:
        study = replace(study, values=tuple(values))
    out = Path(out)
    results_dir = Path(results_dir) if results_dir is not None else out / "runs"
    experiments = study.experiments(base, months, policies)
    summary = run_sweep(experiments, results_dir, workers=workers, client=client,
                        progress=progress, collect_results=False)
    summary.raise_unless_complete()
    table = study_table(study, experiments, load_results(results_dir))
    out.mkdir(parents=True, exist_ok=True)
    csv = out / f"{study.name}.csv"
    saved = table.drop(columns=HOURS) if study.name != "fig16" else table
    saved.to_csv(csv, index=False)
    if study.name == "fig16":
        daily_profiles(table).to_csv(out / f"{study.name}_profile.csv")
    name = SYNTHETIC if base.trace == SYNTHETIC else Path(base.trace).name
    cap = ("caps as fractions of the uncapped peak of "
           + ("each month" if base.cap_month is None else f"month {base.cap_month}"))
    png = plot_study(study, table, out / f"{study.name}.png", subtitle=f"{name}; {cap}")
    return StudyOutcome(study, table, study.checks(study, table), csv, png)


def summary_lines(outcome: StudyOutcome) -> list[str]:
    """The table in a few lines: mean normalised metrics per policy and bar."""
    study, table = outcome.study, outcome.table
    lines = []
    metrics = study.metrics or ("utilization", "wait_mean_s", "edp_j_s")
    for (policy, capping, value), rows in table.groupby(["policy", "capping", "value"],
                                                        sort=False):
        parts = []
        for metric in metrics:
            column = f"{metric}_norm"
            if metric == "wait_mean_s" and not np.isfinite(rows[column].astype(float)).all():
                per_month = " ".join(f"{v:+.3g}h" for v in rows["wait_increase_h"])
            else:
                per_month = " ".join(f"{v:.3g}" for v in rows[column])
            parts.append(f"{metric.split('_')[0]} {per_month}")
        label = study.value_label(value) if capping != study.compare or \
            study.parameter == "capping" else f"{CAPPING_NAMES[capping]} {study.value_label(value)}"
        lines.append(f"  {policy.upper():4} {label:14} " + " | ".join(parts))
    return lines


def main(name: str, argv: Sequence[str] | None = None) -> int:
    """The command line of ``examples/<figure>.py``."""
    study = STUDIES[name]
    parser = argparse.ArgumentParser(
        prog=f"{name}", description=f"{study.figure} of the PuPPET paper: {study.title}. "
        "Writes OUT/{name}.csv and OUT/{name}.png and checks the paper's findings.")
    parser.add_argument("--trace", default=None,
                        help="SWF trace or 'synthetic' (default: LLNL-Atlas from "
                             "../shared/data if present, else synthetic)")
    parser.add_argument("--months", default=None,
                        help="months (30-day windows) to run, e.g. 0,1,2,3 or 0-3 or all "
                             "(default: 0-3 of a trace, 0-1 of the synthetic workload)")
    parser.add_argument("--policies", default=",".join(study.policies))
    parser.add_argument("--values", default=None,
                        help=f"values of {study.parameter} (default: "
                             f"{','.join(str(v) for v in study.values)})")
    parser.add_argument("--procs-per-node", type=int)
    parser.add_argument("--allocation-unit", type=int, default=1)
    parser.add_argument("--machine-nodes", type=int)
    parser.add_argument("--cap", type=float, default=0.7,
                        help="cap as a fraction of the uncapped peak, where the figure does "
                             "not vary it (default 0.7)")
    parser.add_argument("--cap-month", type=int,
                        help="reference month of the cap for every month (the paper: "
                             "January); default: each month's own uncapped peak")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("out") / name)
    parser.add_argument("--results", type=Path, default=Path("out") / "runs",
                        help="directory of the runs, shared between studies (default out/runs)")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--scheduler", help="Dask scheduler address")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    trace = args.trace or default_trace()
    if args.months in (None, ""):
        months = [0, 1] if trace == SYNTHETIC else list(range(min(4, trace_months(
            trace, args.procs_per_node, args.allocation_unit, args.machine_nodes))))
    elif args.months == "all":
        months = list(range(trace_months(trace, args.procs_per_node, args.allocation_unit,
                                         args.machine_nodes)))
    elif args.months == "none":
        months = [None]
    else:
        months = parse_months(args.months)
    values = None
    if args.values:
        values = [v if study.parameter == "capping" else float(v)
                  for v in args.values.split(",")]
    base = Experiment(trace=trace, procs_per_node=args.procs_per_node,
                      allocation_unit=args.allocation_unit, machine_nodes=args.machine_nodes,
                      cap_fraction=args.cap, cap_month=args.cap_month, seed=args.seed,
                      capping="wait")  # any capping: keeps the cap fields
    client = None
    if args.scheduler:
        from distributed import Client
        client = Client(args.scheduler)
    try:
        outcome = run_study(study, base, months, args.out, args.results,
                            policies=args.policies.split(","), workers=args.workers,
                            client=client, progress=not args.no_progress, values=values)
    except KeyboardInterrupt:
        print("interrupted: finished runs are kept; run the same command again to go on",
              file=sys.stderr)
        return 130
    finally:
        if client is not None:
            client.close()
    print(f"{study.figure}: {study.title}")
    print(f"trace {trace}: {', '.join(_month_label(m) for m in months)}")
    if study.name == "fig16":
        profile = daily_profiles(outcome.table)
        print((profile / 1e3).round(1).to_string(float_format=lambda v: f"{v:,.1f}")
              .replace("_w", " (kW)"))
    else:
        print("normalised to the uncapped run, one number per month (wait: +hours "
              "when an uncapped run had no wait):")
        print("\n".join(summary_lines(outcome)))
    print("checks against the paper's findings:")
    for check in outcome.checks:
        print(f"  {check}")
    print(f"wrote {outcome.csv} and {outcome.png}")
    return 0
