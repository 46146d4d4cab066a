"""A run's results on disk: ``jobs.csv``, ``unfinished.csv``,
``metrics.json``, ``power.csv`` (and ``jobs.parquet`` with pyarrow)."""

from __future__ import annotations

import importlib.util
import json
import math
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
    jobs.to_csv(paths["jobs.csv"], index=False)
    if unfinished is None:
        unfinished = pd.DataFrame(columns=list(UNFINISHED_COLUMNS))
    unfinished[list(UNFINISHED_COLUMNS)].to_csv(paths["unfinished.csv"], index=False)
    with open(paths["metrics.json"], "w") as f:
        json.dump(json_safe(metrics), f, indent=2, sort_keys=True, allow_nan=False)
        f.write("\n")
    if end is None:
        end = metrics.get("series_end_s")
    power_series_frame(times, watts, end).to_csv(paths["power.csv"], index=False)
    if importlib.util.find_spec("pyarrow") is not None:
        paths["jobs.parquet"] = out / "jobs.parquet"
        jobs.to_parquet(paths["jobs.parquet"], index=False)
    return paths
