"""The TOPPER paper's findings (section 5), figure by figure, tested on our runs.

Each function turns a figure's table (:mod:`studies.topper_tables`) into
:class:`~studies.study.Check` results, case by case over policies and
months: checkpointing beats replication on efficiency, a higher gamma
lengthens the wait, smaller jobs wait less, ...  ``design`` is the
figure's :class:`~studies.topper_studies.VariantsDesign`.
"""

from __future__ import annotations

from typing import Callable, Sequence

import pandas as pd

from .findings import TOLERANCE, at_most, case_name, verdict
from .study import Check
from .topper_tables import METRICS, wide

#: Within this relative distance two runs are "comparable" / the impact "trivial".
NEAR = 0.10


def per_case(finding: str, table: pd.DataFrame, column: str,
             holds: Callable[[pd.Series], bool], show: Sequence[str]) -> Check:
    """``holds(row)`` for each (policy, month), ``row`` being ``column`` by
    variant; the values of the ``show`` variants describe the case."""
    results, text = {}, {}
    for index, row in wide(table, column).iterrows():
        values = row.reindex(list(show)).astype(float)
        results[index] = None if values.isna().any() else bool(holds(row))
        text[index] = case_name(index) + ": " + ", ".join(
            f"{variant} {value:.3g}" for variant, value in values.items())
    return verdict(finding, results, text.get, list_passing=True)


def ordered(finding: str, table: pd.DataFrame, column: str, low: str, high: str) -> Check:
    """``column`` at variant ``low`` <= at variant ``high``, case by case."""
    return per_case(finding, table, column, lambda row: at_most(row[low], row[high]),
                    [low, high])


def near(finding: str, table: pd.DataFrame, metric: str, variants: Sequence[str],
         within: float = NEAR) -> Check:
    """Each of ``variants`` within ``within`` of the reference (normalised)."""
    return per_case(finding, table, f"{metric}_norm",
                    lambda row: all(abs(row[v] - 1) <= within for v in variants), variants)


def monotone(finding: str, table: pd.DataFrame, column: str, variants: Sequence[str]
             ) -> Check:
    """``column`` never decreases along ``variants``."""
    steps = list(zip(variants, variants[1:]))
    return per_case(finding, table, column,
                    lambda row: all(at_most(row[a], row[b]) for a, b in steps), variants)


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
        text[case] = case_name(case) + ": " + ", ".join(
            f"{METRICS[m]} {row[f'{m}_norm']:.3g}" for m in moved)
    return verdict(finding, results, text.get, list_passing=True)


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
        results[policy] = at_most(impact[quietest], impact[busiest])
        text[policy] = (f"{policy.upper()}: month {busiest} (utilization {busy[busiest]:.2f}) "
                        f"{impact[busiest]:.3g} vs month {quietest} ({busy[quietest]:.2f}) "
                        f"{impact[quietest]:.3g}")
    return verdict(finding, results, text.get, list_passing=True)


def quiet_and_busy(finding: str, table: pd.DataFrame, column: str, variant: str,
                   reference: str, quiet: Callable[[float], bool],
                   busy: Callable[[float], bool]) -> Check:
    """Per policy, ``quiet(value)`` of ``variant``'s ``column`` in the month
    the ``reference`` variant used the machine least and ``busy(value)`` in
    the one it used most: a finding that turns with the load."""
    results, text = {}, {}
    reference = table[table["variant"] == reference]
    for policy, rows in table[table["variant"] == variant].groupby("policy"):
        use = reference[reference["policy"] == policy].set_index("month")["utilization"]
        value = rows.set_index("month")[column]
        if len(use) < 2 or use.max() == use.min():
            continue  # equally busy months cannot tell
        low, high = use.idxmin(), use.idxmax()
        results[policy] = None if value.isna().any() else \
            bool(quiet(value[low]) and busy(value[high]))
        text[policy] = (f"{policy.upper()}: quieter month {low} ({use[low]:.2f}) "
                        f"{value[low]:.3g}, busier month {high} ({use[high]:.2f}) "
                        f"{value[high]:.3g}")
    return verdict(finding, results, text.get, list_passing=True)


def _wait(table: pd.DataFrame) -> str:
    """Compare waits normalised when every reference made jobs wait, else in seconds."""
    return "wait_mean_s_norm" if table["wait_mean_s_norm"].notna().all() else "wait_mean_s"


def fig11_checks(design, table: pd.DataFrame) -> list[Check]:
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
                      table, "wait_mean_s_norm", "replication", design.reference),
    ]


def fig12_checks(design, table: pd.DataFrame) -> list[Check]:
    low, high = design.labels()[-1], design.reference
    others = ("system_efficiency", "makespan_s", "energy_j")
    return [
        ordered(f"a lower checkpoint overhead shortens the average wait ({low} <= {high})",
                table, "wait_mean_s", low, high),
        *[near(f"its influence on {METRICS[m]} is trivial (within 10 %)", table, m,
               design.labels()[1:]) for m in others],
        more_sensitive(f"wait is the most sensitive metric (at {low})", table, low,
                       ["wait_mean_s"], others),
    ]


def fig13_checks(design, table: pd.DataFrame) -> list[Check]:
    labels = design.labels()
    low, high = labels[0], labels[-1]
    return [
        per_case("double replication gives the shortest average wait", table,
                 "wait_mean_s", lambda row: at_most(row["r = 2"], row[labels].min()), labels),
        ordered(f"a lower degree gives a higher system efficiency ({low} >= {high})", table,
                "system_efficiency", high, low),
        ordered(f"a lower degree gives a shorter makespan ({low} <= {high})", table,
                "makespan_s", low, high),
        ordered(f"a lower degree uses less energy ({low} <= {high})", table, "energy_j",
                low, high),
    ]


def fig14_checks(design, table: pd.DataFrame) -> list[Check]:
    gammas = [label for label in design.labels() if label.startswith("\u03b3")]
    low, high = gammas[0], gammas[-1]
    return [
        monotone("a higher gamma lengthens the average wait", table, "wait_mean_s", gammas),
        monotone("a higher gamma lengthens the makespan", table, "makespan_s", gammas),
        more_sensitive(f"gamma matters more for wait and makespan than for efficiency "
                       f"and energy (at {high})", table, high, ["wait_mean_s", "makespan_s"],
                       ["system_efficiency", "energy_j"]),
        busier_months(f"gamma matters more in busier months (wait at {high})", table,
                      "wait_mean_s_norm", high, design.reference),
        ordered(f"replication with a small gamma ({low}) waits less than checkpointing",
                table, "wait_mean_s", low, "checkpoint"),
    ]


def fig15_checks(design, table: pd.DataFrame) -> list[Check]:
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


def fig16_checks(design, table: pd.DataFrame) -> list[Check]:
    ordered_labels = design.labels()  # by scale
    short, one, long = ordered_labels[0], design.reference, ordered_labels[-1]
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
                      "wait_mean_s_norm", long, design.reference),
    ]


def fig17_checks(design, table: pd.DataFrame) -> list[Check]:
    ordered_labels = design.labels()  # by scale
    small, large, one = ordered_labels[0], ordered_labels[2], design.reference
    return [
        quiet_and_busy(f"smaller jobs ({small}) lower system efficiency in the quieter month, "
                       "raise it slightly in the busier one", table,
                       "system_efficiency_norm", small, one,
                       quiet=lambda v: v < 1, busy=lambda v: 1 <= v <= 1 + NEAR),
        quiet_and_busy(f"larger jobs ({large}) raise system efficiency in the quieter month, "
                       "lower it slightly in the busier one", table,
                       "system_efficiency_norm", large, one,
                       quiet=lambda v: v > 1, busy=lambda v: 1 - NEAR <= v <= 1),
        monotone("smaller jobs wait less (wait grows with job size)", table, "wait_mean_s",
                 ordered_labels),
        monotone("smaller jobs give a shorter makespan", table, "makespan_s", ordered_labels),
        monotone("smaller jobs use less energy", table, "energy_j", ordered_labels),
    ]
