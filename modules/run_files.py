"""A run's results on disk: ``jobs.csv``, ``unfinished.csv``,
``metrics.json``, ``power.csv`` (and ``jobs.parquet`` with pyarrow)."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from .metrics import job_frame
from .power_steps import collapse_step_series

#: Columns of ``unfinished.csv``: the jobs a stopped run had not finished,
#: their ``state`` (``running``, ``queued`` or ``unsubmitted``) and their
#: ``start`` (empty unless running).
UNFINISHED_COLUMNS = ("job_id", "state", "submit", "start", "nodes")



def power_series_frame(times, watts, end=None, collapse: bool = True) -> pd.DataFrame:
    """The power series as a frame with columns ``time, watts`` for CSV export.

    By default the series is collapsed (:func:`collapse_step_series`): one
    row per instant, consecutive equal values merged, so the file states the
    step function unambiguously and stays small.  Pass ``collapse=False`` to
    keep every logged entry.
    """
    if collapse:
        t, w = collapse_step_series(times, watts, end)
    else:
        t, w = np.asarray(times, dtype=float), np.asarray(watts, dtype=float)
    return pd.DataFrame({"time": t, "watts": w})


#: Rows formatted and written at a time by :func:`write_csv` (a few MB of text).
CSV_ROWS_AT_ONCE = 8_192


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """``frame.to_csv(path, index=False)``, the same bytes, about twice as
    fast for a frame of finite numbers (a run's jobs and power series):
    pandas formats each float through numpy, Python's ``repr`` gives the
    same shortest text sooner.  Any other frame goes to pandas."""
    columns = [frame[name].to_numpy() for name in frame.columns]
    if not all(column.dtype.kind in "iu" or (column.dtype.kind == "f"
                                             and np.isfinite(column).all())
               for column in columns):
        frame.to_csv(path, index=False)
        return
    with open(path, "w", newline="") as stream:
        csv.writer(stream, lineterminator=os.linesep).writerow(frame.columns)
        row = ",".join(["{}"] * len(columns)) + os.linesep
        for first in range(0, len(frame), CSV_ROWS_AT_ONCE):
            texts = [map(float.__repr__ if column.dtype.kind == "f" else str,
                         column[first:first + CSV_ROWS_AT_ONCE].tolist())
                     for column in columns]
            stream.write("".join(row.format(*values) for values in zip(*texts)))


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
                  unfinished: pd.DataFrame | None = None) -> dict[str, Path]:
    """Write a run's results to ``out_dir`` (created if needed); return the paths.

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
    jobs = job_frame(jobs_df)
    paths = {"jobs.csv": out / "jobs.csv", "unfinished.csv": out / "unfinished.csv",
             "metrics.json": out / "metrics.json", "power.csv": out / "power.csv"}
    write_csv(jobs, paths["jobs.csv"])
    if unfinished is None:
        unfinished = pd.DataFrame(columns=list(UNFINISHED_COLUMNS))
    unfinished[list(UNFINISHED_COLUMNS)].to_csv(paths["unfinished.csv"], index=False)
    with open(paths["metrics.json"], "w") as f:
        json.dump(json_safe(metrics), f, indent=2, sort_keys=True, allow_nan=False)
        f.write("\n")
    if end is None:
        end = metrics.get("series_end_s")
    write_csv(power_series_frame(times, watts, end), paths["power.csv"])
    if importlib.util.find_spec("pyarrow") is not None:
        paths["jobs.parquet"] = out / "jobs.parquet"
        jobs.to_parquet(paths["jobs.parquet"], index=False)
    return paths
