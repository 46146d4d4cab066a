"""A sweep's results as one table: ``results.csv``, normalised to the baselines.

:func:`collect` gathers every result of a directory into ``results.csv``
with normalised columns (``utilization_norm`` = utilization over the
baseline's, and so on), the form the papers' figures use, and the waits'
differences to the baseline (``wait_mean_s_diff``), which still compare
runs whose baseline had no wait.  Rows follow the grid's order (then the
baselines and prerequisites the sweep added); without a grid, the runs'
fields (:func:`row_order`).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pandas as pd

from modules.words import counted

from .grids import EXPERIMENT_FIELDS, Run, plan, unique
from .storage import write_atomically
from .thesis_run import ThesisRun

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
THESIS_FIELDS = tuple(f.name for f in fields(ThesisRun)
                      if f.name not in EXPERIMENT_FIELDS and f.name != "options")
#: Results from no grid are sorted by these fields (then their policy
#: options, then their keys): PuPPET runs before the thesis', then by
#: trace, month, policy, ..., capping, cap, ...
ORDER_FIELDS = ("model", *EXPERIMENT_FIELDS, *THESIS_FIELDS)


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
    write_atomically(path, lambda stream: frame.to_csv(stream, index=False))
    return frame


#: Jobs a run can leave out, by the column of its result that counts them.
LEFT_OUT = {"rejected_jobs": "jobs over the power cap alone",
            "trace_rejected_jobs": "job lines of their month (or whole trace) that the "
                                   "trace reader rejected",
            "trace_rejected_undated_jobs": "job lines the trace reader rejected without a "
                                           "month (an unknown submit time, or the repeat of "
                                           "an earlier line's id)"}


def left_out_note(results: pd.DataFrame) -> str | None:
    """What the runs of ``results`` left out, or None: a study's checks and
    a sweep's normalised columns compare metrics over the jobs that ran, so
    a capped run that rejected jobs the cap could never power is measured
    on fewer jobs than its uncapped twin."""
    parts = []
    for column, what in LEFT_OUT.items():
        counts = results[column].fillna(0) if column in results else pd.Series(dtype=float)
        if (counts > 0).any():
            parts.append(f"{int((counts > 0).sum())} of the {len(results)} runs left out "
                         f"{what} (up to {counted(int(counts.max()), 'job')}: {column} in the results)")
    if not parts:
        return None
    return "note: " + "; ".join(parts) + "; their metrics are over the jobs that ran"


def partial_replication_note(results: pd.DataFrame) -> str | None:
    """How many runs had jobs too large for r full replicas on the machine,
    which ran with the replicas that fit (``partially_replicated_jobs``),
    or None: their degree is not the r the grid asked for."""
    counts = results.get("partially_replicated_jobs", pd.Series(dtype=float)).fillna(0)
    if not (counts > 0).any():
        return None
    return (f"note: {int((counts > 0).sum())} of the {len(results)} runs ran jobs too large "
            f"for r full replicas with partial replication, the replicas that fit (up to "
            f"{counted(int(counts.max()), 'job')}: partially_replicated_jobs in the results)")
