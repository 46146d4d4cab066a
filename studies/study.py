"""A study: the runs behind one figure or table of a paper, and its findings, as data.

A :class:`Study` is a name, the paper's figure and title, a *design* and
*checks*.  The design says how the study's runs vary from a base run, and
how their results make the figure's table and plot; each paper lays its
figures out in its own way, so there is one kind of design per paper
(:class:`Design`).  The checks test the paper's findings on what was
measured: each :class:`Check` says PASS or DIFFERS, with the cases that
differ, rather than being tuned until it passes.

:func:`run_study` runs any study the same way: its runs go through
:func:`~studies.sweep.run_sweep` (resumable, on local processes or a Dask
cluster, and shared with every study that uses the same results
directory), then it writes ``<name>.csv``, ``<name>.png``,
``<name>_checks.txt`` and, for a study with claims (:mod:`studies.claims`),
its rows of the findings table, ``<name>_findings.md``.  A user chooses a study's workload and parameters
with :class:`StudyOptions`; an option the study does not use is refused
(:func:`check_options`), never ignored.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, Protocol, Sequence

import pandas as pd

from .claims import Claim, table_rows, unlike_claims
from .grids import Run
from .results import left_out_note, load_results, partial_replication_note
from .sweep import run_sweep

#: A study's runs, each with the label its table knows it by.
Runs = list[tuple[str, Run]]


@dataclass(frozen=True)
class Check:
    """One of a paper's findings, tested on our numbers."""

    finding: str
    passed: bool | None  # None: these runs cannot tell (one month, one policy, ...)
    detail: str

    @property
    def verdict(self) -> str:
        return {True: "PASS", False: "DIFFERS", None: "N/A"}[self.passed]

    def __str__(self) -> str:
        return f"{self.verdict:7}  {self.finding}: {self.detail}"


@dataclass(frozen=True)
class StudyOptions:
    """What a user may choose of a study; ``None`` leaves the study's default.

    The workload: ``trace`` (an SWF file, or ``"synthetic"``), ``months``
    (30-day windows: a list, ``"all"``, or ``"none"`` for the whole trace),
    ``procs_per_node``, ``allocation_unit``, ``machine_nodes``, ``size_unit``
    (``"procs"``: sizes count processors, PuPPET and TOPPER); for the DVFS
    thesis, ``cpus``, ``jobs`` (first and last job numbers),
    ``profile_seed`` and ``profiles``.  The runs: ``policies``, ``values``
    (of the parameter a figure varies), ``seeds``, ``cap`` (a fraction of the
    uncapped peak) and ``cap_month`` (whose uncapped peak); for TOPPER,
    ``unit_nodes``, ``mttf_days`` (a unit's mean time to failure, as ``cpn
    run --mttf-days``) or ``system_mttf_hours`` (the whole machine's),
    ``on_failure`` and ``checkpoint_interval_minutes`` (a fixed interval
    between checkpoints, as ``cpn run --checkpoint-interval``; None: each
    job's Daly interval); for the data-driven study, ``over_cap`` (``"reject"`` or
    ``"run"``) and ``knapsack_budget`` (``"estimates"`` or ``"measured"``).
    """

    trace: str | None = None
    months: Sequence[int | None] | str | None = None
    procs_per_node: int | None = None
    allocation_unit: int | None = None
    machine_nodes: int | None = None
    size_unit: str | None = None
    policies: Sequence[str] | None = None
    values: Sequence[Any] | None = None
    seeds: Sequence[int] | None = None
    cap: float | None = None
    cap_month: int | str | None = None
    unit_nodes: int | None = None
    mttf_days: float | None = None
    system_mttf_hours: float | None = None
    on_failure: str | None = None
    checkpoint_interval_minutes: float | None = None
    over_cap: str | None = None
    knapsack_budget: str | None = None
    cpus: int | None = None
    jobs: tuple[int, int] | None = None
    profile_seed: int | None = None
    profiles: str | None = None

    def given(self) -> list[str]:
        """The names of the options set."""
        return [f.name for f in fields(self) if getattr(self, f.name) is not None]


class Design(Protocol):
    """How a paper lays out a study: its runs, table, files, plot and summary."""

    paper: ClassVar[str]  # "PuPPET", "TOPPER", "DVFS thesis"
    results: ClassVar[str]  # the default directory of runs, shared by the paper's studies
    options: ClassVar[frozenset[str]]  # the StudyOptions it reads
    baselines: ClassVar[bool]  # whether the sweep runs the runs' baselines too

    def base(self, options: StudyOptions) -> Run:
        """The run the study's runs vary from."""

    def runs(self, base: Run, options: StudyOptions) -> Runs:
        """The study's runs, labelled."""

    def table(self, runs: Runs, results: pd.DataFrame) -> pd.DataFrame:
        """The figure's numbers, from every stored result (:func:`load_results`)."""

    def csv_tables(self, name: str, table: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """The CSV files to write, by file stem."""

    def plot(self, study: "Study", table: pd.DataFrame, base: Run, path: Path) -> Path:
        """The figure, laid out like the paper's."""

    def summary(self, study: "Study", table: pd.DataFrame, base: Run, runs: Runs
                ) -> list[str]:
        """The table in a few printed lines."""


@dataclass(frozen=True)
class Study:
    """One figure (or table) of a paper: its runs, table and plot (``design``),
    the paper's findings tested on them (``checks``), and the verdicts the
    project claims on the default runs (``claims``, by finding)."""

    name: str
    figure: str
    title: str
    design: Design
    checks: Callable[[pd.DataFrame], list[Check]] = field(repr=False, compare=False)
    claims: Mapping[str, Claim] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of_design(cls, name: str, figure: str, title: str, design: Design,
                  checks: Callable[[Design, pd.DataFrame], list[Check]],
                  claims: Mapping[str, Claim] | None = None) -> "Study":
        """A study whose checks also read its design: ``checks(design, table)``."""
        return cls(name, figure, title, design, functools.partial(checks, design),
                   claims or {})

    def default_runs(self) -> Runs:
        """The runs its claims are about: the study with no option given."""
        options = StudyOptions()
        return self.design.runs(self.design.base(options), options)

    @property
    def paper(self) -> str:
        return self.design.paper

    @property
    def heading(self) -> str:
        return f"{self.paper} {self.figure}: {self.title}"


@dataclass
class StudyOutcome:
    """What a study measured and found, and the files it wrote."""

    study: Study
    base: Run
    runs: Runs
    table: pd.DataFrame
    checks: list[Check]
    files: list[Path]
    unlike_claims: list[str] | None = None  # None: not the runs the claims are about
    outdated_note: str | None = None  # stored results run again (``SweepSummary``)
    #: what some runs left out or changed: jobs over the cap alone or rejected
    #: by the trace reader (:func:`left_out_note`), jobs with fewer replicas
    #: than asked (:func:`partial_replication_note`)
    notes: tuple[str, ...] = ()

    def report(self) -> list[str]:
        """The lines a user reads: the summary, the checks, how they compare
        with the claims of docs/findings.md, the files."""
        study = self.study
        written = [str(path) for path in self.files]
        return [study.heading,
                *study.design.summary(study, self.table, self.base, self.runs),
                *([self.outdated_note] if self.outdated_note else []),
                *self.notes,
                "checks against the paper's findings:",
                *(f"  {check}" for check in self.checks),
                *self._claims_lines(),
                f"wrote {', '.join(written[:-1])} and {written[-1]}"]

    def _claims_lines(self) -> list[str]:
        if self.unlike_claims is None:
            return []
        if not self.unlike_claims:
            return [f"every verdict as docs/findings.md claims ({len(self.checks)} findings)"]
        return ["NOT as docs/findings.md claims:",
                *(f"  {line}" for line in self.unlike_claims)]


def check_options(study: Study, options: StudyOptions,
                  spell: Callable[[str], str] = str) -> None:
    """Refuse the options ``study`` does not use (named by ``spell``)."""
    unused = [name for name in options.given() if name not in study.design.options]
    if unused:
        known = [f.name for f in fields(StudyOptions) if f.name in study.design.options]
        raise ValueError(f"{study.name} ({study.paper}) does not use "
                         f"{', '.join(spell(name) for name in unused)}; it uses "
                         f"{', '.join(spell(name) for name in known)}")


def run_study(study: Study, options: StudyOptions = StudyOptions(), *, out, results,
              workers: int | None = None, client=None, progress: bool = True
              ) -> StudyOutcome:
    """Run ``study`` with ``options``, keeping its runs in ``results``
    (shared by studies: each run is stored once, under its key), on
    ``workers`` local processes or a Dask ``client``; write its files in
    ``out``.  Ctrl-C goes on as ``KeyboardInterrupt`` (finished runs are
    kept), failed runs as a ``RuntimeError`` naming a few."""
    check_options(study, options)
    design = study.design
    base = design.base(options)
    runs = design.runs(base, options)
    summary = run_sweep([run for _, run in runs], results, workers=workers, client=client,
                        progress=progress, baselines=design.baselines,
                        collect_results=False)
    summary.raise_unless_complete()
    stored = _stored_results(study, runs, results)
    table = design.table(runs, stored)
    checks = study.checks(table)
    ours = stored[stored["key"].isin({run.key() for _, run in runs})]
    notes = tuple(filter(None, (left_out_note(ours), partial_replication_note(ours))))
    claimed = bool(study.claims) and runs == study.default_runs()
    files = _write(study, base, table, checks, Path(out), notes, claimed)
    return StudyOutcome(study, base, runs, table, checks, files,
                        unlike_claims(checks, study.claims) if claimed else None,
                        summary.outdated_note(), notes)



def _stored_results(study: Study, runs: Runs, results) -> pd.DataFrame:
    """Every stored result; an error if one of ``runs`` has none."""
    stored = load_results(results)
    keys = set(stored["key"]) if len(stored) else set()
    missing = [run.key() for _, run in runs if run.key() not in keys]
    if missing:
        raise RuntimeError(f"{len(missing)} runs of {study.name} have no result "
                           f"(failed or interrupted): {missing[:5]}")
    return stored


def _write(study: Study, base: Run, table: pd.DataFrame, checks: list[Check], out: Path,
           notes: tuple[str, ...] = (), claimed: bool = False) -> list[Path]:
    """The study's CSV files, its figure and its checks, in ``out`` (after
    them, the ``notes`` on what runs left out or changed); when ``claimed`` (the study's
    own runs), its rows of the findings table: another workload's would
    sit beside the page's explanations of the synthetic one's numbers."""
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for stem, frame in study.design.csv_tables(study.name, table).items():
        files.append(out / f"{stem}.csv")
        frame.to_csv(files[-1], index=False)
    files.append(study.design.plot(study, table, base, out / f"{study.name}.png"))
    if claimed:
        files.append(out / f"{study.name}_findings.md")
        files[-1].write_text("".join(f"{row}\n" for row in
                                     table_rows(study.name, checks, study.claims)))
    files.append(out / f"{study.name}_checks.txt")
    files[-1].write_text("".join(f"{line}\n" for line in [*checks, *notes]))
    return files
