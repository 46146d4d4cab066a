"""Mira's Cobalt accounting logs of ../shared/data/mira for the tests: the
jobs of each window as a DataFrame, and the statistics the synthetic
Mira-like workload is calibrated to (``modules.synthetic``), or a skip when
the data is absent (a user's checkout).

A window's jobs are those submitted inside it: from its first start to its
last submit (``qtime``).  Jobs queued before it opened (their ``qtime`` is
earlier) are left out, as are the ends of jobs submitted inside it that run
after it closes only in that they add no submissions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

MIRA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mira"
WINDOWS = ("wk1", "wk2")
CENTRAL = "America/Chicago"  # Argonne's local time, for the hour of day


def _seconds(hhmmss: str) -> int:
    hours, minutes, seconds = (int(part) for part in hhmmss.split(":"))
    return hours * 3600 + minutes * 60 + seconds


def read_window(name: str) -> tuple[pd.DataFrame, float]:
    """The jobs submitted inside window ``name`` (from its end records) and
    the window's length in seconds."""
    path = MIRA_DIR / f"{name}.log"
    if not path.exists():
        pytest.skip(f"{path} not present")
    rows = []
    with open(path) as lines:
        for line in lines:
            _, kind, job_id, fields = line.rstrip("\n").split(";", 3)
            if kind != "E":
                continue
            value = dict(item.split("=", 1) for item in fields.split() if "=" in item)
            rows.append({"job": job_id, "nodes": int(value["Resource_List.nodect"]),
                         "walltime": _seconds(value["Resource_List.walltime"]),
                         "submit": float(value["qtime"]), "start": float(value["start"]),
                         "runtime": float(value["runtime"]), "queue": value["queue_name"]})
    jobs = pd.DataFrame(rows)
    opened = jobs["start"].min()
    inside = jobs[jobs["submit"] >= opened].reset_index(drop=True)
    return inside, float(inside["submit"].max() - opened)


def mira_statistics(machine_nodes: int = 49_152, allocation_unit: int = 512) -> dict:
    """What the synthetic workload is calibrated to, over both windows:
    the share of jobs of each size (in allocation units), walltime and
    runtime / walltime quantiles, the share of submissions in each local
    hour, and the length in days, jobs per day and offered load of each
    window."""
    windows = {name: read_window(name) for name in WINDOWS}
    jobs = pd.concat([frame for frame, _ in windows.values()], ignore_index=True)
    ratio = (jobs["runtime"] / jobs["walltime"]).clip(upper=1.0)
    hours = (pd.to_datetime(jobs["submit"], unit="s", utc=True)
             .dt.tz_convert(CENTRAL).dt.hour)
    return {
        "jobs": len(jobs),
        "size_shares": (jobs["nodes"] // allocation_unit).value_counts(normalize=True)
                       .sort_index().to_dict(),
        "walltime_quantiles": jobs["walltime"].quantile([0.1, 0.25, 0.5, 0.75, 0.9]).tolist(),
        "ratio_quantiles": ratio.quantile([0.1, 0.25, 0.5, 0.75, 0.9]).tolist(),
        "hour_shares": np.bincount(hours, minlength=24) / len(hours),
        "days": {name: span / 86_400 for name, (_, span) in windows.items()},
        "jobs_per_day": {name: len(frame) / (span / 86_400)
                         for name, (frame, span) in windows.items()},
        "offered_load": {name: float((frame["nodes"] * frame["runtime"]).sum()
                                     / (machine_nodes * span))
                         for name, (frame, span) in windows.items()},
    }
