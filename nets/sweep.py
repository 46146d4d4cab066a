"""Run a grid of experiments in parallel, resumably; gather the results.

A sweep is a list of :class:`~nets.experiment.Experiment` (usually the
product of a few axes, :func:`grid`).  :func:`run_sweep` adds the uncapped
twin of every capped run (the baseline it is normalised by, and the
reference of a fractional cap), skips every run whose ``<key>.json`` is
already in the results directory, and runs the rest on local processes
(``concurrent.futures.ProcessPoolExecutor``) or on a Dask cluster (give a
``distributed.Client``).  The driver, never a worker, writes each result as
soon as it arrives, atomically (a temporary file in the same directory,
then ``os.replace``), so a sweep killed at any moment leaves whole results
only, and a restarted sweep does only what is missing.  A capped run with a
fractional cap is submitted once its twin's peak is known, and gets that
peak as an argument: workers need the trace, not the results directory.

:func:`collect` gathers every result of a directory into ``results.csv``
with normalised columns (``utilization_norm`` = utilization over the
uncapped twin's, and so on), the form the paper's figures use.

>>> experiments = grid(Experiment(), policy=["fcfs", "wfp"], capping=["none", "wait"])
>>> len(experiments)
4
"""

from __future__ import annotations

import concurrent.futures as futures
import itertools
import json
import os
import signal
import tempfile
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import pandas as pd

from .experiment import (Experiment, read_result, result_path, run_experiment,
                         write_json_atomically)

RESULTS_CSV = "results.csv"
#: Metrics divided by the uncapped twin's in ``results.csv`` (``<name>_norm``).
NORMALISED = ("utilization", "wait_mean_s", "edp_j_s", "energy_j", "makespan_s",
              "bounded_slowdown_mean", "power_peak_w", "power_mean_w", "system_efficiency")
EXPERIMENT_FIELDS = tuple(f.name for f in fields(Experiment))


# ---------------------------------------------------------------------------
# Grids


def grid(base: Experiment | None = None, **axes: Sequence) -> list[Experiment]:
    """Every combination of the ``axes`` (field name -> values) applied to
    ``base``, without duplicates (two combinations that make the same run,
    such as alpha 1 and alpha 2 without DVFS, are one), in order."""
    base = base or Experiment()
    unknown = set(axes) - set(EXPERIMENT_FIELDS)
    if unknown:
        raise ValueError(f"unknown experiment fields: {sorted(unknown)}; "
                         f"known: {', '.join(EXPERIMENT_FIELDS)}")
    names = list(axes)
    values = [list(axes[name]) for name in names]
    for name, options in zip(names, values):
        if not options:
            raise ValueError(f"axis {name!r} has no values")
    return unique(replace(base, **dict(zip(names, combination)))
                  for combination in itertools.product(*values))


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


def unique(experiments: Iterable[Experiment]) -> list[Experiment]:
    seen: dict[str, Experiment] = {}
    for exp in experiments:
        seen.setdefault(exp.key(), exp)
    return list(seen.values())


def grid_from_json(spec: Any) -> list[Experiment]:
    """Experiments from a JSON value (or a file path): an object with
    ``"base"`` (fields), ``"grid"`` (field -> list of values) and/or
    ``"experiments"`` (a list of field objects); or a list of such objects.

    >>> len(grid_from_json({"base": {"policy": "wfp"}, "grid": {"cap_fraction": [0.8, 0.6],
    ...                     "capping": ["wait"]}}))
    2
    """
    if isinstance(spec, (str, os.PathLike)):
        with open(spec) as stream:
            spec = json.load(stream)
    if isinstance(spec, list):
        return unique(exp for part in spec for exp in grid_from_json(part))
    if not isinstance(spec, dict):
        raise ValueError(f"a sweep specification is an object or a list, not {type(spec).__name__}")
    unknown = set(spec) - {"base", "grid", "experiments"}
    if unknown:
        raise ValueError(f"unknown keys in the sweep specification: {sorted(unknown)} "
                         "(expected base, grid, experiments)")
    base = Experiment.from_dict(spec.get("base", {}))
    experiments = []
    if "grid" in spec or "experiments" not in spec:
        experiments += grid(base, **{name: value if isinstance(value, list) else [value]
                                     for name, value in spec.get("grid", {}).items()})
    for item in spec.get("experiments", []):
        experiments.append(Experiment.from_dict({**base.to_dict(), **item}))
    return unique(experiments)


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


def plan(experiments: Sequence[Experiment], baselines: bool = True) -> list[Experiment]:
    """The runs a sweep of ``experiments`` needs: the experiments, their cap
    references and (with ``baselines``) their uncapped twins; references
    and twins first."""
    needed: list[Experiment] = []
    for exp in experiments:
        reference = exp.cap_reference()
        if reference is not None:
            needed.append(reference)
        if baselines:
            needed.append(exp.uncapped())
    return unique(needed + list(experiments))


def _ignore_interrupts() -> None:  # pragma: no cover - runs in worker processes
    """Workers leave Ctrl-C to the driver, which stops them (a worker that
    caught it would end its run early and report a partial result)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run(exp: Experiment, peak: float | None) -> dict:
    return run_experiment(exp, uncapped_peak_w=peak)


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


def run_sweep(experiments: Sequence[Experiment], results_dir, *, workers: int | None = None,
              client=None, progress: bool = True, baselines: bool = True,
              on_result: Callable[[dict], None] | None = None,
              collect_results: bool = True) -> SweepSummary:
    """Run what is missing of ``experiments`` (plus their uncapped twins)
    and store each result as ``results_dir/<key>.json``.

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
    needed = plan(experiments, baselines)
    peaks: dict[str, float] = {}
    todo: list[Experiment] = []
    for exp in needed:
        stored = read_result(results_dir, exp.key())
        if stored is None:
            todo.append(exp)
        else:
            summary.skipped.append(exp.key())
            peaks[exp.key()] = stored.get("power_peak_w")
    if not todo:
        if collect_results:
            summary.results_csv = _collect_path(results_dir)
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
    running: dict[futures.Future, Experiment] = {}
    waiting: list[Experiment] = []  # fractional caps whose reference is still running

    def submit_ready(candidates: list[Experiment]) -> list[Experiment]:
        still = []
        for exp in candidates:
            reference = exp.cap_reference()
            if reference is None:
                running[executor.submit(_run, exp, None)] = exp
            elif reference.key() in peaks:
                running[executor.submit(_run, exp, peaks[reference.key()])] = exp
            elif reference.key() in summary.failed:
                summary.failed[exp.key()] = f"its uncapped reference {reference.key()} failed"
                bar.advance(True)
            else:
                still.append(exp)
        return still

    try:
        waiting = submit_ready(todo)
        while running:
            done, _ = futures.wait(list(running), return_when=futures.FIRST_COMPLETED)
            for future in done:
                exp = running.pop(future)
                try:
                    record = future.result()
                except Exception as error:  # noqa: BLE001 - reported per run
                    summary.failed[exp.key()] = f"{type(error).__name__}: {error}"
                    bar.advance(True)
                    continue
                write_json_atomically(result_path(results_dir, exp.key()), record)
                summary.ran.append(exp.key())
                peaks[exp.key()] = record.get("power_peak_w")
                bar.advance(False)
                if on_result is not None:
                    on_result(record)
            waiting = submit_ready(waiting)
        for exp in waiting:  # cannot happen unless a reference vanished
            summary.failed[exp.key()] = "its uncapped reference never ran"
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
        summary.results_csv = _collect_path(results_dir)
    return summary


# ---------------------------------------------------------------------------
# Results


def _collect_path(results_dir: Path) -> Path | None:
    frame = collect(results_dir)
    return results_dir / RESULTS_CSV if len(frame) else None


def load_results(results_dir) -> pd.DataFrame:
    """Every ``<key>.json`` of ``results_dir`` as one row, with normalised
    columns ``<metric>_norm`` (over the row's uncapped twin, when that twin
    is in the directory too)."""
    rows = []
    for path in sorted(Path(results_dir).glob("*.json")):
        if path.name.startswith("."):
            continue
        try:
            with open(path) as stream:
                record = json.load(stream)
        except (OSError, json.JSONDecodeError):
            continue  # not a result (a sweep writes whole files only)
        if isinstance(record, dict) and "key" in record:
            rows.append(record)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    if "levels" in frame:
        frame["levels"] = frame["levels"].map(
            lambda levels: ";".join(f"{f:g}" for f in levels) if isinstance(levels, list) else levels)
    base = frame.set_index("key")
    baseline = frame["baseline_key"].map(lambda key: key if key in base.index else None)
    for metric in NORMALISED:
        if metric not in frame:
            continue
        reference = baseline.map(lambda key: base.at[key, metric] if key else float("nan"))
        frame[f"{metric}_norm"] = frame[metric] / reference.astype(float).where(reference != 0)
    first = ["key", "label", *EXPERIMENT_FIELDS]
    return frame[[c for c in first if c in frame] + [c for c in frame if c not in first]]


def collect(results_dir, out: str | os.PathLike | None = None) -> pd.DataFrame:
    """Gather ``results_dir``'s results (:func:`load_results`) into
    ``results.csv`` there (or ``out``), written atomically; return them."""
    results_dir = Path(results_dir)
    frame = load_results(results_dir)
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
