"""The TOPPER paper's resilience studies (section 5, Figs. 11-17) as data.

Each figure is a few labelled *variants* of one TOPPER run (checkpoint or
replication, an overhead, a redundancy degree, gamma, DVFS with a
failure-rate multiplier, scaled wall times or sizes), run on each month
of a trace under each policy and seed (a :class:`VariantsDesign`), and
normalised to the figure's reference variant in the same month and
policy: the paper's normalisation, Fig. 11 to checkpoint/restart, Fig. 12
to the default overhead, and so on.  The tables are
:mod:`studies.topper_tables`, the findings :mod:`studies.topper_findings`,
the figures :mod:`studies.topper_plots`.

>>> [study.name for study in TOPPER_STUDIES][:3]
['topper_fig11', 'topper_fig12', 'topper_fig13']
>>> len(TOPPER_STUDIES[4].design.runs(Experiment(), StudyOptions(months=[0, 1])))
8
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar, Mapping

import pandas as pd

from modules.resilience import default_unit_nodes, system_mttf_hours

from . import topper_findings as findings
from .experiment import Experiment, cap_reference_of
from .experiment_fields import SYNTHETIC
from .topper_claims import CLAIMS
from .study import Runs, Study, StudyOptions
from .topper_plots import plot_bars
from .topper_tables import study_table, summary_lines
from .workloads import study_months, trace_window

#: The cap of capped variants where the user gives none: 70 % of the uncapped peak.
CAP_FRACTION = 0.7


def _machine_mttf_hours(base: Experiment, mttf_days: float) -> float:
    """The machine's MTTF when each unit of ``base``'s machine fails every
    ``mttf_days`` (as ``cpn sweep --mttf-days`` counts them)."""
    machine = base.machine_nodes or trace_window(base).machine_nodes
    unit = base.unit_nodes or default_unit_nodes(machine)
    return system_mttf_hours(mttf_days, machine // unit)


@dataclass(frozen=True)
class VariantsDesign:
    """The runs of one figure: ``variants`` (label -> experiment fields, in
    the figure's order) over the ``common`` fields, under each of
    ``policies``; normalised to variant ``normalised_to`` (default: the
    first)."""

    paper: ClassVar[str] = "TOPPER"
    results: ClassVar[str] = "out/topper_runs"
    options: ClassVar[frozenset[str]] = frozenset({
        "trace", "months", "procs_per_node", "allocation_unit", "machine_nodes", "size_unit",
        "policies", "seeds", "cap", "cap_month", "unit_nodes", "mttf_days", "system_mttf_hours",
        "on_failure", "checkpoint_interval_minutes"})
    baselines: ClassVar[bool] = False  # normalised to a variant, not to an uncapped twin

    variants: tuple[tuple[str, Mapping], ...]
    common: Mapping = field(default_factory=dict)
    policies: tuple[str, ...] = ("wfp",)  # Mira's WFP-EASY (TOPPER Fig. 3)
    normalised_to: str | None = None

    @property
    def reference(self) -> str:
        return self.normalised_to or self.variants[0][0]

    def labels(self) -> list[str]:
        return [label for label, _ in self.variants]

    def base(self, options: StudyOptions) -> Experiment:
        """The workload, and how failures come and are handled (every
        variant checkpoints, replicated or not: each takes a fixed interval)."""
        base = Experiment(trace=options.trace or SYNTHETIC,
                          procs_per_node=options.procs_per_node,
                          allocation_unit=options.allocation_unit or 1,
                          machine_nodes=options.machine_nodes,
                          size_unit=options.size_unit,
                          policy=(options.policies or self.policies)[0],
                          resilience="checkpoint", unit_nodes=options.unit_nodes,
                          system_mttf_hours=options.system_mttf_hours,
                          on_failure=options.on_failure or "keep",
                          checkpoint_interval_minutes=options.checkpoint_interval_minutes)
        if options.mttf_days is None:
            return base
        if options.system_mttf_hours is not None:
            raise ValueError("give mttf_days (a unit's) or system_mttf_hours (the "
                             "machine's), not both")
        return replace(base, system_mttf_hours=_machine_mttf_hours(base, options.mttf_days))

    def runs(self, base: Experiment, options: StudyOptions) -> Runs:
        """Every variant under every policy, month and seed (default:
        ``base``'s); a capped variant's cap is ``options.cap`` of the
        uncapped peak (of month ``options.cap_month``: by default month 0,
        as the paper's January)."""
        cap = CAP_FRACTION if options.cap is None else options.cap
        months = study_months(base, options.months)
        runs = []
        for label, fields_ in self.variants:
            changes = {**self.common, **fields_}
            if changes.get("capping", base.capping) != "none":
                changes.update(cap_fraction=cap, cap_month=options.cap_month)
            runs += [(label, replace(base, **changes, policy=policy, month=month, seed=seed))
                     for policy in (options.policies or self.policies) for month in months
                     for seed in (options.seeds or [base.seed])]
        return runs

    def table(self, runs: Runs, results: pd.DataFrame) -> pd.DataFrame:
        return study_table(self.reference, runs, results)

    def csv_tables(self, name: str, table: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return {name: table}

    def plot(self, study: Study, table: pd.DataFrame, base: Experiment, path: Path) -> Path:
        name = SYNTHETIC if base.trace == SYNTHETIC else Path(base.trace).name
        return plot_bars(self, study.heading, table, path, subtitle=name)

    def summary(self, study: Study, table: pd.DataFrame, base: Experiment, runs: Runs
                ) -> list[str]:
        months = list(dict.fromkeys(run.month for _, run in runs))
        seeds = dict.fromkeys(str(run.seed) for _, run in runs)
        span = ("the whole trace" if months == [None]
                else ("month " if len(months) == 1 else "months ")
                + ", ".join(str(month) for month in months))
        reference = cap_reference_of(run for _, run in runs)
        return [f"{span} of {base.label()}"
                + (f"; means over seeds {', '.join(seeds)}" if len(seeds) > 1 else "")
                + (f"; caps as fractions of {reference}" if reference else ""),
                f"normalised to {self.reference}, one number per month:",
                *summary_lines(table)]


def _scales(field_name: str, what: str) -> tuple[tuple[str, dict], ...]:
    return tuple((f"{what} x{scale:g}", {field_name: scale}) for scale in (0.5, 1.0, 2.0, 4.0))


CHECKPOINT = {"resilience": "checkpoint"}
REPLICATION = {"resilience": "replication"}

TOPPER_STUDIES = (
    Study.of_design(
        "topper_fig11", "Fig. 11", "checkpoint/restart versus replication (r = 2, \u03b3 = 30 %)",
        VariantsDesign((("checkpoint", CHECKPOINT),
                        ("replication", {**REPLICATION, "redundancy": 2.0, "gamma": 0.3}))),
        findings.fig11_checks, CLAIMS["topper_fig11"]),
    Study.of_design(
        "topper_fig12", "Fig. 12", "checkpoint overhead O_c at 100, 50, 25 %",
        VariantsDesign(tuple((f"O_c {scale:.0%}", {"checkpoint_scale": scale})
                             for scale in (1.0, 0.5, 0.25)), common=CHECKPOINT),
        findings.fig12_checks, CLAIMS["topper_fig12"]),
    Study.of_design(
        "topper_fig13", "Fig. 13", "redundancy degree r (\u03b3 = 30 %)",
        VariantsDesign(tuple((f"r = {r:g}", {"redundancy": r}) for r in (1.5, 2.0, 2.5, 3.0)),
                       common=REPLICATION),
        findings.fig13_checks, CLAIMS["topper_fig13"]),
    Study.of_design(
        "topper_fig14", "Fig. 14", "communication/computation ratio \u03b3 (replication, r = 2)",
        VariantsDesign(tuple((f"\u03b3 = {g:.0%}", {**REPLICATION, "gamma": g})
                             for g in (0.1, 0.3, 0.5, 0.7)) + (("checkpoint", CHECKPOINT),)),
        findings.fig14_checks, CLAIMS["topper_fig14"]),
    Study.of_design(
        "topper_fig15", "Fig. 15", "power-aware scheduling (WAIT) versus DVFS failing 1, 2, 3 "
        "times as often (cap 70 %, \u03b2 = 1)",
        VariantsDesign((("power-aware", {"capping": "wait"}),
                        *((name, {"capping": "dvfs", "dvfs_failure_multiplier": m})
                          for name, m in (("DVFS", 1.0), ("DVFS-double", 2.0),
                                          ("DVFS-triple", 3.0)))),
                       common={**CHECKPOINT, "beta": 1.0}),
        findings.fig15_checks, CLAIMS["topper_fig15"]),
    Study.of_design(
        "topper_fig16", "Fig. 16", "job wall time x0.5 to x4 (checkpoint)",
        VariantsDesign(_scales("walltime_scale", "wall time"), common=CHECKPOINT,
                       normalised_to="wall time x1"),
        findings.fig16_checks, CLAIMS["topper_fig16"]),
    Study.of_design(
        "topper_fig17", "Fig. 17", "job size x0.5 to x4 (checkpoint)",
        VariantsDesign(_scales("size_scale", "job size"), common=CHECKPOINT,
                       normalised_to="job size x1"),
        findings.fig17_checks, CLAIMS["topper_fig17"]),
)
