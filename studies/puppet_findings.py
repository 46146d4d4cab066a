"""The PuPPET paper's findings (section 5), figure by figure, tested on our runs.

Each function turns a figure's table (:mod:`studies.puppet_tables`) into
:class:`~studies.study.Check` results: the direction of each effect the
paper reports (DVFS raises utilization, WAIT is never worse than BLOCK,
busier months suffer more, ...), case by case over policies, months and
bars.  ``design`` is the figure's :class:`~studies.puppet_studies.CappingDesign`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np
import pandas as pd

from .findings import TOLERANCE, at_most, case_name, month_label, verdict
from .puppet_tables import CAPPING_NAMES, daily_profiles
from .study import Check


def _values(table: pd.DataFrame) -> list:
    """The values of the parameter the figure's bars vary, in their order."""
    return list(dict.fromkeys(table["value"]))


def _pivot(table: pd.DataFrame, column: str, capping: str | None = None,
           by: str = "value") -> pd.DataFrame:
    rows = table if capping is None else table[table["capping"] == capping]
    return rows.pivot_table(index=["policy", "month"], columns=by, values=column,
                            aggfunc="first", dropna=False)


def _each_row(finding: str, table: pd.DataFrame, column: str, holds: Callable[[float], bool],
              unit: str = "") -> Check:
    results, values = {}, {}
    for _, row in table.iterrows():
        case = (row["policy"], row["month"], row["capping"], row["value"])
        values[case] = row[column]
        results[case] = None if pd.isna(row[column]) else bool(holds(row[column]))
    def describe(case) -> str:
        value = "" if case[3] == case[2] else f" {case[3]:g}"
        return f"{case_name(case[:2])} {CAPPING_NAMES[case[2]]}{value}: {values[case]:.3g}{unit}"
    return verdict(finding, results, describe)


def _ends(finding: str, wide: pd.DataFrame, first, last, direction: str, name: str) -> Check:
    """``last`` column <= (or >=) ``first`` column, per (policy, month)."""
    results, pairs = {}, {}
    for index, row in wide.iterrows():  # a column the runs lack: not measurable
        a, b = pairs[index] = row.get(first), row.get(last)
        results[index] = at_most(b, a) if direction == "<=" else at_most(a, b)

    def describe(index) -> str:  # only for measured cases: both numbers are there
        a, b = pairs[index]
        return f"{case_name(index)}: {name} {b:.3g} at {last} vs {a:.3g} at {first}"
    return verdict(finding, results, describe)


def _between(finding: str, left: pd.DataFrame, right: pd.DataFrame, direction: str,
             name: str, left_name: str, right_name: str) -> Check:
    """``left`` <= (or >=) ``right`` cell by cell (same index and columns)."""
    results, text = {}, {}
    for index in left.index:
        for column in left.columns:
            a = left.at[index, column]
            b = right.at[index, column] if index in right.index and column in right else np.nan
            case = (index, column)
            results[case] = at_most(a, b) if direction == "<=" else at_most(b, a)
            text[case] = (f"{case_name(index)} {column}: {name} {left_name} {a:.3g} vs "
                          f"{right_name} {b:.3g}")
    return verdict(finding, results, text.get)


def _policies(finding: str, table: pd.DataFrame, column: str, name: str,
              key: Callable[[pd.DataFrame], pd.Series] | None = None) -> Check:
    """WFP's ``column`` (or ``key(rows)``) <= FCFS's, per month (mean over the bars)."""
    results, text = {}, {}
    for month, rows in table.groupby("month", dropna=False):
        by_policy = (key(rows) if key else rows.groupby("policy")[column].mean())
        if not {"fcfs", "wfp"} <= set(by_policy.index):
            continue
        case = month
        results[case] = at_most(by_policy["wfp"], by_policy["fcfs"])
        text[case] = (f"{month_label(month)}: {name} WFP {by_policy['wfp']:.3g} vs "
                      f"FCFS {by_policy['fcfs']:.3g}")
    return verdict(finding, results, text.get)


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
        results[policy] = at_most(months.at[quiet, "impact"], months.at[busy, "impact"])
        text[policy] = (f"{policy.upper()}: busiest month {busy} (utilization "
                        f"{months.at[busy, 'busy']:.2f}) changes {name} by "
                        f"{months.at[busy, 'impact']:.3g}, quietest month {quiet} "
                        f"({months.at[quiet, 'busy']:.2f}) by {months.at[quiet, 'impact']:.3g}")
    check = verdict(finding, results, text.get)
    if check.passed:
        check = replace(check, detail="; ".join(text.values()))
    return check


def _busier_months_wait(finding: str, rows: pd.DataFrame) -> Check:
    column, name, centre = _wait_measure(rows)
    return _busier_months(finding, rows, column, name, centre)


# ---------------------------------------------------------------------------
# The paper's findings, figure by figure


def _dvfs_common(design, table: pd.DataFrame) -> list[Check]:
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


def fig10_checks(design, table: pd.DataFrame) -> list[Check]:
    wait = _pivot(table, "wait_mean_s", "dvfs")
    util = _pivot(table, "utilization_norm", "dvfs")
    low, high = min(_values(table)), max(_values(table))
    return _dvfs_common(design, table) + [
        _ends(f"cubic alpha disturbs the schedule least: wait at alpha {high:g} <= at "
              f"alpha {low:g}", wait, low, high, "<=", "mean wait (s)"),
        _ends(f"... and utilization moves least: |utilization - 1| at alpha {high:g} <= "
              f"at alpha {low:g}", (util - 1).abs(), low, high, "<=", "|norm. util. - 1|"),
    ]


def fig11_checks(design, table: pd.DataFrame) -> list[Check]:
    loose, tight = max(_values(table)), min(_values(table))
    util = _pivot(table, "utilization_norm", "dvfs")
    edp = _pivot(table, "edp_j_s_norm", "dvfs")
    checks = [
        _ends(f"DVFS raises utilization more as the cap tightens ({tight:.0%} >= "
              f"{loose:.0%})", util, loose, tight, ">=", "normalised utilization"),
        _ends(f"a tight cap gives a worse EDP than a loose one ({tight:.0%} >= {loose:.0%})",
              edp, loose, tight, ">=", "normalised EDP"),
    ]
    if design.compare:
        other = design.compare
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


def fig12_checks(design, table: pd.DataFrame) -> list[Check]:
    low, high = min(_values(table)), max(_values(table))
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


def fig13_checks(design, table: pd.DataFrame) -> list[Check]:
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


def fig14_checks(design, table: pd.DataFrame) -> list[Check]:
    method = design.capping
    loose, tight = max(_values(table)), min(_values(table))
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
    if design.compare:
        other = _pivot(table, "edp_j_s_norm", design.compare)[[tight]]
        checks.append(_between(
            f"a tight cap ({tight:.0%}) hurts EDP more with power-aware allocation than "
            f"with {CAPPING_NAMES[design.compare]}", edp[[tight]], other, ">=", "norm. EDP",
            CAPPING_NAMES[method], CAPPING_NAMES[design.compare]))
    return checks


def fig15_checks(design, table: pd.DataFrame) -> list[Check]:
    low, high = min(_values(table)), max(_values(table))
    edp = _pivot(table, "edp_j_s_norm", design.capping)
    spread = (edp[high] - edp[low]).rename("spread").reset_index()
    return [
        _each_row("power-aware allocation does not decrease EDP (normalised >= 1)", table,
                  "edp_j_s_norm", lambda v: v >= 1 - TOLERANCE),
        _ends(f"the higher the idle power, the more EDP rises ({high:.0%} >= {low:.0%})",
              edp, low, high, ">=", "normalised EDP"),
        verdict("idle power matters more under WFP than FCFS (EDP spread "
               f"{low:.0%}..{high:.0%})", *_spread_by_policy(spread)),
    ]


def _spread_by_policy(spread: pd.DataFrame):
    results, text = {}, {}
    for month, rows in spread.groupby("month", dropna=False):
        by_policy = rows.set_index("policy")["spread"]
        if {"fcfs", "wfp"} <= set(by_policy.index):
            results[month] = at_most(by_policy["fcfs"], by_policy["wfp"])
            text[month] = (f"{month_label(month)}: WFP {by_policy['wfp']:.3g} vs "
                           f"FCFS {by_policy['fcfs']:.3g}")
    return results, text.get


def fig16_checks(design, table: pd.DataFrame) -> list[Check]:
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
