"""A run's results on disk: ``jobs.csv``, ``unfinished.csv``,
``metrics.json``, ``power.csv`` (and ``jobs.parquet`` with pyarrow)."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .metrics import job_columns
from .power_steps import collapse_step_series
from .tables import Columns, columns_of

if TYPE_CHECKING:
    import pandas as pd

#: Columns of ``unfinished.csv``: the jobs a stopped run had not finished,
#: their ``state`` (``running``, ``queued`` or ``unsubmitted``) and their
#: ``start`` (empty unless running).
UNFINISHED_COLUMNS = ("job_id", "state", "submit", "start", "nodes")


def power_series_frame(times, watts, end=None, collapse: bool = True) -> pd.DataFrame:
    """The power series as a frame with columns ``time, watts`` for CSV export
    (:func:`power_series_columns`)."""
    return power_series_columns(times, watts, end, collapse).frame()


def power_series_columns(times, watts, end=None, collapse: bool = True) -> Columns:
    """The power series as columns ``time, watts``.

    By default the series is collapsed (:func:`collapse_step_series`): one
    row per instant, consecutive equal values merged, so the file states the
    step function unambiguously and stays small.  Pass ``collapse=False`` to
    keep every logged entry.
    """
    if collapse:
        t, w = collapse_step_series(times, watts, end)
    else:
        t, w = np.asarray(times, dtype=float), np.asarray(watts, dtype=float)
    return Columns({"time": t, "watts": w})


#: Rows formatted and written at a time by :func:`write_csv` (a few MB of text).
CSV_ROWS_AT_ONCE = 8_192


def write_csv(table, path: Path) -> None:
    """``frame.to_csv(path, index=False)`` for a DataFrame or
    ``modules.tables.Columns``, the same bytes, about twice as fast and
    without pandas: pandas formats each float through numpy, Python's
    ``repr`` gives the same shortest text sooner (NaN as an empty field).
    A column of another type (dates, say) goes to pandas."""
    columns = columns_of(table)
    if not all(column.dtype.kind in "biufO" for column in columns.values()):
        (table.frame() if isinstance(table, Columns) else table).to_csv(path, index=False)
        return
    rows = len(next(iter(columns.values()))) if columns else 0
    with open(path, "w", newline="") as stream:
        writer = csv.writer(stream, lineterminator=os.linesep)
        writer.writerow(columns)
        plain = all(column.dtype.kind in "biu" or (column.dtype.kind == "f"
                                                   and np.isfinite(column).all())
                    for column in columns.values())
        row = ",".join(["{}"] * len(columns)) + os.linesep
        for first in range(0, rows, CSV_ROWS_AT_ONCE):
            chunk = [column[first:first + CSV_ROWS_AT_ONCE] for column in columns.values()]
            if plain:  # str of a float is its repr, of an int its digits: as _texts writes them
                stream.write("".join(map(row.format, *(part.tolist() for part in chunk))))
            else:  # text may need quotes, a lone empty field too: the csv module's, as pandas'
                writer.writerows(zip(*map(_texts, chunk)))


def _texts(column: np.ndarray):
    """The fields of ``column`` as ``to_csv`` writes them."""
    if column.dtype.kind == "f":
        if np.isfinite(column).all():
            return map(float.__repr__, column.tolist())
        return ["" if value != value else repr(value) for value in column.tolist()]
    if column.dtype.kind == "O":
        return ["" if value is None or value != value else str(value)
                for value in column.tolist()]
    return map(str, column.tolist())


def json_safe(value):
    """A JSON-safe plain Python value (numpy scalars unwrapped, NaN/inf as null)."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_results(out_dir, jobs_df, metrics: dict, times, watts, end=None,
                  unfinished=None) -> dict[str, Path]:
    """Write a run's results to ``out_dir`` (created if needed); return the paths.
    The tables (``jobs_df``, ``unfinished``) may be DataFrames or
    ``modules.tables.Columns``.

    - ``jobs.csv``: the job records with ``runtime`` and ``wait`` added,
      starting with the columns ``job_id, submit, start, end, nodes``.
    - ``unfinished.csv``: the jobs a stopped run had not finished
      (:data:`UNFINISHED_COLUMNS`); always written, with the header alone
      when every job finished, so no file from an earlier run is left
      behind to be mistaken for this one's.
    - ``metrics.json``: ``metrics`` with plain numbers (NaN and infinity as
      ``null``), keys sorted.
    - ``power.csv``: :func:`power_series_frame` (``time, watts``), cut at
      ``end`` (default: ``metrics["series_end_s"]`` if present), which is
      where the last row's value stops holding.
    - ``jobs.parquet``: the same job records, when pyarrow is installed.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = Columns(job_columns(jobs_df))
    paths = {"jobs.csv": out / "jobs.csv", "unfinished.csv": out / "unfinished.csv",
             "metrics.json": out / "metrics.json", "power.csv": out / "power.csv"}
    write_csv(jobs, paths["jobs.csv"])
    if unfinished is None:
        unfinished = Columns.from_rows([], UNFINISHED_COLUMNS)
    unfinished = columns_of(unfinished)
    write_csv(Columns({name: unfinished[name] for name in UNFINISHED_COLUMNS}),
              paths["unfinished.csv"])
    with open(paths["metrics.json"], "w") as f:
        json.dump(json_safe(metrics), f, indent=2, sort_keys=True, allow_nan=False)
        f.write("\n")
    if end is None:
        end = metrics.get("series_end_s")
    write_csv(power_series_columns(times, watts, end), paths["power.csv"])
    if importlib.util.find_spec("pyarrow") is not None:
        paths["jobs.parquet"] = out / "jobs.parquet"
        jobs.frame().to_parquet(paths["jobs.parquet"], index=False)
    return paths
