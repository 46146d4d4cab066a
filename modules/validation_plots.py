"""Figures of a validation (``modules/validation.py``): the simulated and
the logged schedule as two curves on one plot each, so that where they part
shows at a glance.  Each function writes one image and returns its path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .power_steps import SECONDS_PER_DAY
from .plots import save_figure  # first: it sets matplotlib's off-screen backend

import matplotlib.pyplot as plt  # noqa: E402  isort: skip

#: How each schedule is drawn, the same on every figure.
STYLES = {"logged": dict(color="black", linewidth=1.4, label="logged (the trace)"),
          "simulated": dict(color="tab:orange", linewidth=1.2, label="simulated (the model)")}


def _time_axis(starts: np.ndarray, origin: float) -> tuple[np.ndarray, str]:
    """Times from ``origin`` in days, or hours when they span under two days."""
    span = float(starts.max() - origin) if len(starts) else 0.0
    if span < 2 * SECONDS_PER_DAY:
        return (starts - origin) / 3600, "hours"
    return (starts - origin) / SECONDS_PER_DAY, "days"


def plot_utilization(utilization: pd.DataFrame, path, *, period: str, rms: float,
                     title: str = "Utilization") -> Path:
    """Utilization per period (``start, logged, simulated``) in %, both
    schedules and the machine's 100 %; below, their difference per period
    and its RMS."""
    x, unit = _time_axis(utilization["start"].to_numpy(), float(utilization["start"].iloc[0]))
    step = x[1] - x[0] if len(x) > 1 else 1.0
    edges = np.append(x, x[-1] + step)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6), sharex=True,
                                      gridspec_kw={"height_ratios": [2.2, 1]})
    for side, style in STYLES.items():
        top.step(edges, 100 * np.append(utilization[side], utilization[side].iloc[-1]),
                 where="post", **style)
    top.axhline(100, color="tab:red", linestyle=":", linewidth=1, label="the whole machine")
    fig.suptitle(f"{title} per {period}")
    top.set_ylabel(f"Utilization per {period} (%)")
    highest = 100 * max(utilization["logged"].max(), utilization["simulated"].max(), 1.0)
    top.set_ylim(0, highest * 1.08)
    top.grid(True, alpha=0.3)
    top.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False,
               fontsize="small")
    difference = 100 * (utilization["simulated"] - utilization["logged"]).to_numpy()
    bottom.bar(x, difference, width=step, align="edge", linewidth=0,
               color=np.where(difference >= 0, "tab:orange", "black"))
    bottom.axhline(0, color="grey", linewidth=0.8)
    for sign in (1, -1):
        bottom.axhline(sign * 100 * rms, color="tab:blue", linestyle="--", linewidth=1,
                       label=f"RMS {100 * rms:.1f} points" if sign > 0 else None)
    bottom.set_ylabel("Simulated − logged\n(points)")
    bottom.set_xlabel(f"Time ({unit} from the first submit)")
    bottom.set_xlim(0, edges[-1])
    bottom.grid(True, alpha=0.3)
    bottom.legend(loc="lower right", fontsize="small")
    return save_figure(fig, path)


def plot_queue(queue: pd.DataFrame, path, *, bin_s: float, title: str = "Queue length") -> Path:
    """Mean number of jobs waiting per bin (``start, logged, simulated``),
    both schedules."""
    x, unit = _time_axis(queue["start"].to_numpy(), float(queue["start"].iloc[0]))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for side, style in STYLES.items():
        ax.plot(x, queue[side], drawstyle="steps-post", **style)
    days = bin_s / SECONDS_PER_DAY
    width = f"{bin_s / 3600:.3g} h" if days < 1 else f"{days:.3g} days"
    ax.set_title(f"{title} (jobs submitted and not started; mean per {width})", pad=24)
    ax.set_xlabel(f"Time ({unit} from the first submit)")
    ax.set_ylabel("Waiting jobs")
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False,
              fontsize="small")
    return save_figure(fig, path)


def plot_waits(jobs: pd.DataFrame, path, *, title: str = "Wait times") -> Path:
    """The distribution of waits (``logged_wait``, ``simulated_wait``) as
    two cumulative curves over a logarithmic time axis; the share of jobs
    that did not wait at all is where each curve starts."""
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ticks = {1: "1 s", 60: "1 min", 3600: "1 h", SECONDS_PER_DAY: "1 day",
             7 * SECONDS_PER_DAY: "1 week"}
    for side, style in STYLES.items():
        waits = np.sort(jobs[f"{side}_wait"].to_numpy(dtype=float))
        share = np.arange(1, len(waits) + 1) / len(waits)
        mean = waits.mean()
        ax.step(np.maximum(waits, 1.0), 100 * share, where="post",
                **{**style, "label": f"{style['label']}: mean {mean / 3600:,.2f} h, "
                                     f"{100 * (waits == 0).mean():.0f} % no wait"})
    ax.set_xscale("log")
    ax.set_xticks(list(ticks), list(ticks.values()))
    ax.set_xlim(left=0.7)
    ax.set_title(f"{title}: share of jobs that waited at most so long")
    ax.set_xlabel("Wait (log scale; waits under 1 s drawn at 1 s)")
    ax.set_ylabel("Jobs (%)")
    ax.set_ylim(0, 100)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    return save_figure(fig, path)
