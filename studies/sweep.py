"""Run a grid of runs in parallel, resumably; gather the results.

A sweep is a list of run declarations (usually the product of a few axes,
:func:`grid`): PuPPET and TOPPER's :class:`~studies.experiment.Experiment`, or
the DVFS thesis' :class:`~studies.thesis_run.ThesisRun`; anything with
the methods of :class:`Run`.  :func:`run_sweep` adds every run's baseline
(what it is normalised by: an experiment's uncapped twin, a thesis run's
EASY) and prerequisite (a run whose result it needs: the reference of a
fractional cap, the EASY run PB-guided measures its BSLD_lower on), skips
every run whose ``<key>.json`` is already in the results directory, and
runs the rest on local processes (``concurrent.futures.ProcessPoolExecutor``)
or on a Dask cluster (give a ``distributed.Client``).  The driver, never a
worker, writes each result as soon as it arrives, atomically (a temporary
file in the same directory, then ``os.replace``), so a sweep killed at any
moment leaves whole results only, and a restarted sweep does only what is
missing.  A run with a prerequisite is submitted once that result is
known, and gets it as an argument: workers need the trace, not the results
directory.

:func:`collect` gathers every result of a directory into ``results.csv``
with normalised columns (``utilization_norm`` = utilization over the
baseline's, and so on), the form the papers' figures use, and the waits'
differences to the baseline (``wait_mean_s_diff``), which still compare
runs whose baseline had no wait.  Rows follow the grid's order (then the
baselines and prerequisites the sweep added); without a grid, the runs'
fields (:func:`row_order`).

>>> experiments = grid(Experiment(), policy=["fcfs", "wfp"], capping=["none", "wait"])
>>> len(experiments)
4
"""

from __future__ import annotations

import concurrent.futures as futures
import itertools
import json
import math
import os
import signal
import tempfile
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

import pandas as pd

from .thesis_run import ThesisRun
from .experiment import Experiment, read_result, result_path, write_json_atomically

RESULTS_CSV = "results.csv"
#: Metrics divided by the baseline's in ``results.csv`` (``<name>_norm``):
#: PuPPET and TOPPER's, then the DVFS thesis' (section 3.4).
NORMALISED = ("utilization", "wait_mean_s", "edp_j_s", "energy_j", "makespan_s",
              "bounded_slowdown_mean", "power_peak_w", "power_mean_w", "system_efficiency",
              "energy_computational_j", "energy_total_j", "bsld", "energy_bsld",
              "frequency_mean_ghz", "runtime_mean_s")
#: Metrics whose baseline may be 0 (no job waited), where a ratio says
#: nothing: ``results.csv`` also has their difference (``<name>_diff``).
DIFFERENCED = ("wait_mean_s",)
EXPERIMENT_FIELDS = tuple(f.name for f in fields(Experiment))
THESIS_FIELDS = tuple(f.name for f in fields(ThesisRun)
                      if f.name not in EXPERIMENT_FIELDS and f.name != "options")
#: Results from no grid are sorted by these fields (then their policy
#: options, then their keys): PuPPET runs before the thesis', then by
#: trace, month, policy, ..., capping, cap, ...
ORDER_FIELDS = ("model", *EXPERIMENT_FIELDS, *THESIS_FIELDS)
#: The run declarations of ``"model"`` in a JSON grid (TOPPER runs are
#: PuPPET experiments with a resilience method).
MODELS = {"puppet": Experiment, "thesis": ThesisRun}


class Run(Protocol):
    """What a sweep needs of a run declaration (frozen, picklable)."""

    def key(self) -> str:
        """A stable short id, the name of its result file."""

    def label(self) -> str:
        """A short human-readable description."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values; ``type(run).from_dict`` makes the run again."""

    def baseline(self) -> "Run":
        """The run its results are normalised by (itself for a baseline)."""

    def prerequisite(self) -> "Run | None":
        """A run whose result it needs, or None."""

    def run(self, prerequisite: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Simulate (in a worker); one flat record with ``key`` and
        ``baseline_key``, given the prerequisite's result."""


# ---------------------------------------------------------------------------
# Grids


def grid(base: Run | None = None, **axes: Sequence) -> list[Run]:
    """Every combination of the ``axes`` (field name -> values) applied to
    ``base`` (default ``Experiment()``), without duplicates (two
    combinations that make the same run, such as alpha 1 and alpha 2
    without DVFS, are one), in order.  A thesis run's axes may also be its
    policy's options (``wq_threshold=[0, 4]``)."""
    base = base or Experiment()
    if isinstance(base, Experiment):
        unknown = set(axes) - set(EXPERIMENT_FIELDS)
        if unknown:
            raise ValueError(f"unknown experiment fields: {sorted(unknown)}; "
                             f"known: {', '.join(EXPERIMENT_FIELDS)}")
        return unique(replace(base, **combination) for combination in _combinations(axes))
    return unique(type(base).from_dict({**base.to_dict(), **combination})
                  for combination in _combinations(axes))


def _combinations(axes: Mapping[str, Sequence]) -> Iterable[dict[str, Any]]:
    names = list(axes)
    values = [list(axes[name]) for name in names]
    for name, options in zip(names, values):
        if not options:
            raise ValueError(f"axis {name!r} has no values")
    return (dict(zip(names, combination)) for combination in itertools.product(*values))


def parse_months(text: str):
    """``"all"``, ``"none"`` or a list of month indices from ``"0,1,2"`` or ``"0-3"``.

    >>> parse_months("0-2,5")
    [0, 1, 2, 5]
    """
    text = text.strip()
    if text in ("all", "none"):
        return text
    months: list[int] = []
    for item in text.split(","):
        item = item.strip()
        if "-" in item:
            first, last = item.split("-")
            months += range(int(first), int(last) + 1)
        elif item:
            months.append(int(item))
    return months


def unique(runs: Iterable[Run]) -> list[Run]:
    seen: dict[str, Run] = {}
    for run in runs:
        seen.setdefault(run.key(), run)
    return list(seen.values())


def grid_from_json(spec: Any) -> list[Run]:
    """Runs from a JSON value (or a file path): an object with ``"base"``
    (fields), ``"grid"`` (field -> list of values) and/or ``"experiments"``
    (a list of field objects), and ``"model"`` (``"puppet"``, the default,
    or ``"thesis"`` for the DVFS thesis' runs, whose fields are those of
    :class:`~studies.thesis_run.ThesisRun` and its policy's options);
    or a list of such objects.

    >>> len(grid_from_json({"base": {"policy": "wfp"}, "grid": {"cap_fraction": [0.8, 0.6],
    ...                     "capping": ["wait"]}}))
    2
    >>> runs = grid_from_json([{"grid": {"policy": ["fcfs", "wfp"]}},
    ...                        {"experiments": [{"policy": "wfp", "alpha": 3}]}])
    >>> [run.policy for run in runs]   # alpha cannot act uncapped: the same run
    ['fcfs', 'wfp']
    """
    if isinstance(spec, (str, os.PathLike)):
        with open(spec) as stream:
            spec = json.load(stream)
    if isinstance(spec, list):
        return unique(run for part in spec for run in grid_from_json(part))
    if not isinstance(spec, dict):
        raise ValueError(f"a sweep specification is an object or a list, not {type(spec).__name__}")
    unknown = set(spec) - {"model", "base", "grid", "experiments"}
    if unknown:
        raise ValueError(f"unknown keys in the sweep specification: {sorted(unknown)} "
                         "(expected model, base, grid, experiments)")
    model = MODELS.get(spec.get("model", "puppet"))
    if model is None:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, not {spec['model']!r}")
    base = spec.get("base", {})
    axes = {name: value if isinstance(value, list) else [value]
            for name, value in spec.get("grid", {}).items()}
    runs = []
    if "grid" in spec or "experiments" not in spec:
        runs += [model.from_dict({**base, **combination}) for combination in _combinations(axes)]
    for item in spec.get("experiments", []):
        runs.append(model.from_dict({**base, **item}))
    return unique(runs)


# ---------------------------------------------------------------------------
# Running


@dataclass
class SweepSummary:
    """What a sweep did: runs executed, found already done, failed (key ->
    error), whether it was interrupted, and where the table is."""

    results_dir: Path
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    results_csv: Path | None = None

    @property
    def complete(self) -> bool:
        return not self.failed and not self.interrupted

    def raise_unless_complete(self) -> None:
        """For a study, which needs every run: Ctrl-C goes on as
        ``KeyboardInterrupt``, failed runs as one error naming a few."""
        if self.interrupted:
            raise KeyboardInterrupt
        if self.failed:
            raise RuntimeError(f"{len(self.failed)} runs failed: " + "; ".join(
                f"{key}: {error}" for key, error in list(self.failed.items())[:3]))


def plan(runs: Sequence[Run], baselines: bool = True) -> list[Run]:
    """The runs a sweep of ``runs`` needs: the runs, their prerequisites
    (and theirs) and (with ``baselines``) their baselines; those first."""
    needed: list[Run] = []
    for run in runs:
        required = run.prerequisite()
        if required is not None:
            needed += plan([required], baselines)
        if baselines:
            needed.append(run.baseline())
    return unique(needed + list(runs))


def _ignore_interrupts() -> None:  # pragma: no cover - runs in worker processes
    """Workers leave Ctrl-C to the driver, which stops them (a worker that
    caught it would end its run early and report a partial result)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run(run: Run, prerequisite: dict | None) -> dict:
    return run.run(prerequisite)


class _Progress:
    """A rich progress bar over runs (or nothing)."""

    def __init__(self, enabled: bool, total: int, skipped: int):
        self.bar = None
        if enabled and total:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)
            self.bar = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("runs ({task.fields[failed]} failed, "
                                           f"{skipped} already done)"),
                                TimeElapsedColumn(), TimeRemainingColumn())
            self.task = self.bar.add_task("sweep", total=total, failed=0)
            self.bar.start()
        self.failed = 0

    def advance(self, failed: bool) -> None:
        self.failed += failed
        if self.bar is not None:
            self.bar.update(self.task, advance=1, failed=self.failed)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _stop_local_workers(executor) -> None:
    """Terminate the worker processes this sweep started (they ignore Ctrl-C)."""
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        if process.is_alive():
            process.terminate()


def run_sweep(runs: Sequence[Run], results_dir, *, workers: int | None = None,
              client=None, progress: bool = True, baselines: bool = True,
              on_result: Callable[[dict], None] | None = None,
              collect_results: bool = True) -> SweepSummary:
    """Run what is missing of ``runs`` (plus their prerequisites and, with
    ``baselines``, their baselines) and store each result as
    ``results_dir/<key>.json``.

    ``workers``: local processes (default: all cores).  ``client``: a
    ``distributed.Client``; runs go to its cluster instead.  ``on_result``
    is called in the driver with each new result, after it is written.  On
    Ctrl-C (``KeyboardInterrupt``) the sweep cancels what has not finished,
    stops its local workers, and returns with ``interrupted`` set; finished
    results stay.  At the end, :func:`collect` writes ``results.csv``.
    """
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    summary = SweepSummary(results_dir)
    needed = plan(runs, baselines)
    required = {run.prerequisite().key() for run in needed if run.prerequisite() is not None}
    inputs: dict[str, dict] = {}  # the results of prerequisites, by key
    todo: list[Run] = []
    for run in needed:
        stored = read_result(results_dir, run.key())
        if stored is None:
            todo.append(run)
        else:
            summary.skipped.append(run.key())
            if run.key() in required:
                inputs[run.key()] = stored
    if not todo:
        if collect_results:
            summary.results_csv = _collect_path(results_dir, runs)
        return summary

    own_executor = client is None
    if own_executor:
        executor = futures.ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1,
                                               initializer=_ignore_interrupts)
        # Start the workers now, before the progress bar's thread exists:
        # forking a process that runs threads is unsafe.
        executor.submit(int).result()
    else:
        executor = client.get_executor()
    bar = _Progress(progress, len(todo), len(summary.skipped))
    running: dict[futures.Future, Run] = {}
    waiting: list[Run] = []  # runs whose prerequisite is still running

    def submit_ready(candidates: list[Run]) -> list[Run]:
        still = []
        for run in candidates:
            prerequisite = run.prerequisite()
            if prerequisite is None:
                running[executor.submit(_run, run, None)] = run
            elif prerequisite.key() in inputs:
                running[executor.submit(_run, run, inputs[prerequisite.key()])] = run
            elif prerequisite.key() in summary.failed:
                summary.failed[run.key()] = f"its prerequisite {prerequisite.key()} failed"
                bar.advance(True)
            else:
                still.append(run)
        return still

    try:
        waiting = submit_ready(todo)
        while running:
            done, _ = futures.wait(list(running), return_when=futures.FIRST_COMPLETED)
            for future in done:
                run = running.pop(future)
                try:
                    record = future.result()
                except Exception as error:  # noqa: BLE001 - reported per run
                    summary.failed[run.key()] = f"{type(error).__name__}: {error}"
                    bar.advance(True)
                    continue
                write_json_atomically(result_path(results_dir, run.key()), record)
                summary.ran.append(run.key())
                if run.key() in required:
                    inputs[run.key()] = record
                bar.advance(False)
                if on_result is not None:
                    on_result(record)
            waiting = submit_ready(waiting)
        for run in waiting:  # cannot happen unless a prerequisite vanished
            summary.failed[run.key()] = "its prerequisite never ran"
    except KeyboardInterrupt:
        summary.interrupted = True
        for future in running:
            future.cancel()
        if own_executor:
            _stop_local_workers(executor)
    finally:
        bar.stop()
        if own_executor:
            executor.shutdown(wait=not summary.interrupted, cancel_futures=True)
    if collect_results:
        summary.results_csv = _collect_path(results_dir, runs)
    return summary


# ---------------------------------------------------------------------------
# Results


def _collect_path(results_dir: Path, runs: Sequence[Run]) -> Path | None:
    frame = collect(results_dir, runs=runs)
    return results_dir / RESULTS_CSV if len(frame) else None


def load_results(results_dir, runs: Sequence[Run] | None = None) -> pd.DataFrame:
    """Every ``<key>.json`` of ``results_dir`` as one row, with normalised
    columns (:func:`normalise`); rows in ``runs``' order (a sweep's grid),
    the others in a stable order (:func:`row_order`)."""
    rows = []
    for path in Path(results_dir).glob("*.json"):
        if path.name.startswith("."):
            continue
        try:
            with open(path) as stream:
                record = json.load(stream)
        except (OSError, json.JSONDecodeError):
            continue  # not a result (a sweep writes whole files only)
        if isinstance(record, dict) and "key" in record:
            rows.append(record)
    frame = pd.DataFrame(sorted(rows, key=row_order(runs)))
    if frame.empty:
        return frame
    if "levels" in frame:
        frame["levels"] = frame["levels"].map(
            lambda levels: ";".join(f"{f:g}" for f in levels) if isinstance(levels, list) else levels)
    frame = normalise(frame)
    first = ["key", "label", "model", *EXPERIMENT_FIELDS, *THESIS_FIELDS,
             *sorted(c for c in frame if c.startswith("option_"))]
    return frame[[c for c in first if c in frame] + [c for c in frame if c not in first]]


def row_order(runs: Sequence[Run] | None = None) -> Callable[[Mapping[str, Any]], tuple]:
    """The sort key of result records: first ``runs`` (a grid) in their
    order, then the baselines and prerequisites a sweep added to them, then
    any other result sorted by its declaration (the fields of
    :data:`ORDER_FIELDS` in that order, missing values first, numbers before
    words; then its key)."""
    order = unique([*runs, *plan(runs)]) if runs else []
    positions = {run.key(): position for position, run in enumerate(order)}

    def sort_key(record: Mapping[str, Any]) -> tuple:
        if record["key"] in positions:
            return (0, positions[record["key"]])
        options = sorted(name for name in record if name.startswith("option_"))
        return (1, tuple(_sortable(record.get(name)) for name in (*ORDER_FIELDS, *options)),
                record["key"])
    return sort_key


def _sortable(value: Any) -> tuple:
    """A value of any JSON type as something comparable with any other."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return (0,)
    if isinstance(value, (bool, int, float)):
        return (1, float(value))
    return (2, str(value))


def normalise(frame: pd.DataFrame) -> pd.DataFrame:
    """Add ``<metric>_norm``, the metric over its baseline's (when that
    baseline is in ``frame`` too), for the metrics of :data:`NORMALISED`,
    and ``<metric>_diff``, the metric minus its baseline's, for those of
    :data:`DIFFERENCED`.  Where the baseline's value is 0, the ratio is 1
    if the run's is 0 too (no change) and empty (NaN) otherwise: a wait
    that rises from nothing has no ratio, its ``_diff`` says by how much."""
    base = frame.set_index("key")
    baseline = frame["baseline_key"].where(frame["baseline_key"].isin(base.index))
    for metric in NORMALISED:
        if metric not in frame:
            continue
        value = frame[metric].astype(float)
        reference = baseline.map(base[metric]).astype(float)
        ratio = value / reference.where(reference != 0)
        frame[f"{metric}_norm"] = ratio.mask((reference == 0) & (value == 0), 1.0)
        if metric in DIFFERENCED:
            frame[f"{metric}_diff"] = value - reference
    return frame


def collect(results_dir, out: str | os.PathLike | None = None,
            runs: Sequence[Run] | None = None) -> pd.DataFrame:
    """Gather ``results_dir``'s results (:func:`load_results`, rows in the
    order of ``runs`` if given) into ``results.csv`` there (or ``out``),
    written atomically; return them."""
    results_dir = Path(results_dir)
    frame = load_results(results_dir, runs)
    if frame.empty:
        return frame
    path = Path(out) if out is not None else results_dir / RESULTS_CSV
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.",
                                             suffix=".tmp")
    try:
        os.fchmod(descriptor, 0o644)
        with os.fdopen(descriptor, "w") as stream:
            frame.to_csv(stream, index=False)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return frame
