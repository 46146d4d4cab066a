"""The PuPPET paper's power capping studies (section 5, Figs. 10-16) as data.

Each figure varies one parameter of one capping method (alpha, the cap,
beta, BLOCK/WAIT, the idle power) by month of the trace, under FCFS-EASY
and WFP-EASY (a :class:`CappingDesign`), and normalises every metric to
the uncapped run with the same policy, month and idle power.  Fig. 16
draws the average daily power of each capping method instead
(:class:`DailyPowerDesign`).  The tables are :mod:`studies.puppet_tables`,
the findings :mod:`studies.puppet_findings`, the figures
:mod:`studies.puppet_plots`.

>>> [study.name for study in PUPPET_STUDIES]
['fig10', 'fig11', 'fig12', 'fig13', 'fig14', 'fig15', 'fig16']
>>> len(PUPPET_STUDIES[3].design.runs(Experiment(), StudyOptions(months=[0, 1])))
8
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Sequence

import pandas as pd

from . import puppet_findings as findings
from .experiment import Experiment
from .experiment_fields import SYNTHETIC
from .puppet_claims import CLAIMS
from .findings import month_label
from .grids import grid
from .puppet_plots import plot_bars, plot_profiles
from .puppet_tables import CAPPING_NAMES, HOURS, daily_profiles, study_table, summary_lines
from .study import Runs, Study, StudyOptions
from .workloads import study_months

#: The paper's cap where a figure does not vary it: 70 % of the uncapped peak.
CAP_FRACTION = 0.7


@dataclass(frozen=True)
class CappingDesign:
    """The runs of one figure: ``capping`` (or, when ``parameter`` is
    ``"capping"``, the methods in ``values``) with ``parameter`` taking
    ``values``, by month, under each of ``policies``; ``compare`` adds
    another capping method at the same points (for checks that compare
    methods).  ``metrics``: the figure's panels."""

    paper: ClassVar[str] = "PuPPET"
    results: ClassVar[str] = "out/runs"
    options: ClassVar[frozenset[str]] = frozenset({
        "trace", "months", "procs_per_node", "allocation_unit", "machine_nodes", "size_unit",
        "policies", "values", "seeds", "cap", "cap_month"})
    baselines: ClassVar[bool] = True

    parameter: str
    values: tuple
    capping: str | None = None
    compare: str | None = None
    metrics: tuple[str, ...] = ("utilization", "wait_mean_s", "edp_j_s")
    policies: tuple[str, ...] = ("fcfs", "wfp")

    def base(self, options: StudyOptions) -> Experiment:
        """The workload (by default the synthetic Mira-like months, the
        paper's machine and job mix), the cap where the figure does not vary
        it, the seed."""
        seeds = list(options.seeds or [0])
        if len(seeds) != 1:
            raise ValueError(f"the PuPPET figures' bars are single runs: give one seed, not "
                             f"{len(seeds)} ({', '.join(str(seed) for seed in seeds)})")
        return Experiment(trace=options.trace or SYNTHETIC,
                          procs_per_node=options.procs_per_node,
                          allocation_unit=options.allocation_unit or 1,
                          machine_nodes=options.machine_nodes,
                          size_unit=options.size_unit,
                          cap_fraction=CAP_FRACTION if options.cap is None else options.cap,
                          cap_month=options.cap_month, seed=seeds[0],
                          capping="wait")  # any capping: keeps the cap fields

    def runs(self, base: Experiment, options: StudyOptions) -> Runs:
        axes: dict[str, list] = {"policy": list(options.policies or self.policies),
                                 "month": study_months(base, options.months)}
        values = self._values(options.values)
        if self.parameter == "capping":
            axes["capping"] = values
        else:
            axes["capping"] = [method for method in (self.capping, self.compare) if method]
            axes[self.parameter] = values
        return [(exp.label(), exp) for exp in grid(base, **axes)]

    def _values(self, given: Sequence[Any] | None) -> list:
        """The parameter's values: the figure's, or those given (numbers,
        except for capping methods)."""
        if given is None:
            return list(self.values)
        if self.parameter == "capping":
            return list(given)
        try:
            return [float(value) for value in given]
        except ValueError:
            raise ValueError(f"the values of {self.parameter} are numbers, not "
                             f"{', '.join(str(value) for value in given)}") from None

    def value_label(self, value) -> str:
        if self.parameter == "capping":
            return CAPPING_NAMES[value]
        if self.parameter in ("cap_fraction", "idle_fraction"):
            return f"{value:.0%}"
        symbol = {"alpha": "\u03b1", "beta": "\u03b2"}.get(self.parameter, self.parameter)
        return f"{symbol} = {value:g}"

    def table(self, runs: Runs, results: pd.DataFrame) -> pd.DataFrame:
        return study_table(self, [exp for _, exp in runs], results)

    def csv_tables(self, name: str, table: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return {name: table.drop(columns=HOURS)}

    def plot(self, study: Study, table: pd.DataFrame, base: Experiment, path: Path) -> Path:
        return plot_bars(self, study.heading, table, path, _subtitle(base, table))

    def summary(self, study: Study, table: pd.DataFrame, base: Experiment, runs: Runs
                ) -> list[str]:
        return [_workload_line(base, runs),
                "normalised to the uncapped run, one number per month (wait: +hours when "
                "an uncapped run had no wait):", *summary_lines(self, table)]


@dataclass(frozen=True)
class DailyPowerDesign(CappingDesign):
    """Fig. 16: the runs of a :class:`CappingDesign` over capping methods,
    shown as the average power in each hour of the day (also written as
    ``<name>_profile.csv``)."""

    def csv_tables(self, name: str, table: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return {name: table, f"{name}_profile": daily_profiles(table).reset_index()}

    def plot(self, study: Study, table: pd.DataFrame, base: Experiment, path: Path) -> Path:
        return plot_profiles(study.heading, table, path, _subtitle(base, table))

    def summary(self, study: Study, table: pd.DataFrame, base: Experiment, runs: Runs
                ) -> list[str]:
        profile = (daily_profiles(table) / 1e3).round(1)
        text = profile.to_string(float_format=lambda v: f"{v:,.1f}").replace("_w", " (kW)")
        return [_workload_line(base, runs), text]


def _workload_line(base: Experiment, runs: Runs) -> str:
    months = dict.fromkeys(exp.month for _, exp in runs)
    reference = base.cap_reference_label(whole_trace=list(months) == [None])
    return (f"trace {base.trace}: {', '.join(month_label(month) for month in months)}; "
            f"caps as fractions of {reference}")


def _subtitle(base: Experiment, table: pd.DataFrame) -> str:
    name = SYNTHETIC if base.trace == SYNTHETIC else Path(base.trace).name
    reference = base.cap_reference_label(whole_trace=bool(table["month"].isna().all()))
    return f"{name}; caps as fractions of {reference}"


PUPPET_STUDIES = (
    Study.of_design("fig10", "Fig. 10", "DVFS under frequency-to-power exponents alpha",
                    CappingDesign("alpha", (1.0, 2.0, 3.0), capping="dvfs"),
                    findings.fig10_checks, CLAIMS["fig10"]),
    Study.of_design("fig11", "Fig. 11", "DVFS under power caps (fraction of the uncapped peak)",
                    CappingDesign("cap_fraction", (0.8, 0.7, 0.6, 0.5, 0.4), capping="dvfs",
                                  compare="wait"),
                    findings.fig11_checks, CLAIMS["fig11"]),
    Study.of_design("fig12", "Fig. 12", "DVFS under frequency-to-time exponents beta",
                    CappingDesign("beta", (0.5, 1.0, 1.5, 2.0), capping="dvfs"),
                    findings.fig12_checks, CLAIMS["fig12"]),
    Study.of_design("fig13", "Fig. 13", "power-aware allocation: BLOCK versus WAIT",
                    CappingDesign("capping", ("block", "wait")), findings.fig13_checks,
                    CLAIMS["fig13"]),
    Study.of_design("fig14", "Fig. 14", "power-aware allocation (WAIT) under power caps",
                    CappingDesign("cap_fraction", (0.8, 0.7, 0.6, 0.5, 0.4), capping="wait",
                                  compare="dvfs"),
                    findings.fig14_checks, CLAIMS["fig14"]),
    Study.of_design("fig15", "Fig. 15", "power-aware allocation (WAIT) under idle power rates",
                    CappingDesign("idle_fraction", (0.0, 0.1, 0.2, 0.3, 0.4, 0.5),
                                  capping="wait", metrics=("edp_j_s",)),
                    findings.fig15_checks, CLAIMS["fig15"]),
    Study.of_design("fig16", "Fig. 16",
                    "average daily power under each capping method (WFP-EASY)",
                    DailyPowerDesign("capping", ("none", "wait", "dvfs"), metrics=(),
                                     policies=("wfp",)),
                    findings.fig16_checks, CLAIMS["fig16"]),
)
