"""Figures of a run's energy and power, drawn with matplotlib off screen.

Plain functions over the flat data of :mod:`modules.metrics` and
:mod:`modules.power_steps`; each writes one image file (format from the
suffix: ``.png``, ``.pdf``, ``.svg``) and returns its path.  The Agg backend is used so that they work on a server or
in CI without a display.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from modules.power_steps import (SECONDS_PER_DAY, binned_power_columns,  # noqa: E402
                                 collapse_step_series)

if TYPE_CHECKING:
    import pandas as pd

#: Above this many steps, :func:`plot_power` draws per-bin envelopes instead of every step.
MAX_DRAWN_STEPS = 4000

#: Units of power, largest first (scale in watts, name).
POWER_UNITS = ((1e6, "MW"), (1e3, "kW"), (1.0, "W"))


def power_unit(watts: float) -> tuple[float, str]:
    """The largest unit in which ``watts`` (a plot's highest power) is at
    least 1: MW for Mira, kW for a 128-node cluster (not "0.01 MW"), W for
    a few nodes."""
    for scale, unit in POWER_UNITS:
        if abs(watts) >= scale:
            return scale, unit
    return POWER_UNITS[-1]


def save_figure(fig, path) -> Path:
    """Write ``fig`` (directories created) and free it: every plot of the
    project goes through here, so they share one resolution."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_daily_energy(
    daily_df: pd.DataFrame,
    path,
    *,
    reference_df: pd.DataFrame | None = None,
    label: str = "model",
    reference_label: str = "measured",
    title: str = "Daily energy consumption",
) -> Path:
    """Daily energy (kWh) against the day, as in Fig. 9 of the PuPPET paper.

    ``daily_df`` has columns ``day`` and ``kwh`` (:func:`modules.power_steps.daily_energy`,
    or its columns alone, which need no pandas, when there is no ``reference_df``).
    With ``reference_df`` (for instance the measured series, or the exact
    integral when ``daily_df`` is a fixed-step estimate) both are drawn and
    the largest relative difference is given in the title.  A day of
    ``daily_df`` shorter than 24 h (its ``hours``: the last, when the run
    ended within it) is hatched, its point hollow, and the legend says
    "partial day (N h)": its energy is lower for want of hours, not of work.
    """
    fig, ax = plt.subplots(figsize=(9, 4.5))
    days, kwh = (np.asarray(daily_df[name], dtype=float) for name in ("day", "kwh"))
    hours = np.asarray(daily_df["hours"] if "hours" in daily_df else np.full(len(days), 24.0),
                       dtype=float)
    short = hours < SECONDS_PER_DAY / 3600
    line, = ax.plot(days, np.where(short, np.nan, kwh), marker="o", markersize=3, linewidth=1.2,
                    label=label)
    partial = _mark_partial_days(ax, days, kwh, hours, short, line.get_color())
    if reference_df is not None:
        ax.plot(
            reference_df["day"], reference_df["kwh"], marker="s", markersize=3, linewidth=1.0,
            linestyle="--", label=reference_label,
        )
        import pandas as pd

        merged = pd.DataFrame(daily_df).merge(reference_df, on="day",
                                              suffixes=("", "_reference"))
        reference = merged["kwh_reference"].to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            error = np.abs(merged["kwh"].to_numpy() - reference) / reference
        error = error[np.isfinite(error)]
        if error.size:
            title = f"{title} (max daily error {100 * error.max():.2f} %)"
        ax.legend()
    elif partial:
        ax.legend(handles=partial)
    ax.set_title(title)
    ax.set_xlabel("Time (days)")
    ax.set_ylabel("Daily energy (kWh)")
    ax.yaxis.set_major_formatter(_thousands_to_the_step(ax.yaxis))
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    return save_figure(fig, path)


def _thousands_to_the_step(axis) -> FuncFormatter:
    """Tick labels with thousands separators and as many decimals as the
    step between ticks needs (2.5 needs one): whole numbers for Mira's
    10^6 kWh a day, but 0.05, 0.10, ... for a few nodes' day, which whole
    numbers drew as a column of zeros."""
    def label(value: float, _position) -> str:
        steps = np.diff(axis.get_majorticklocs())
        step = steps[steps > 0].min() if (steps > 0).any() else 1.0
        decimals = next((places for places in range(9)
                         if abs(round(step, places) - step) <= 1e-9 * step), 9)
        return f"{value:,.{decimals}f}"
    return FuncFormatter(label)


def _mark_partial_days(ax, days, kwh, hours, short, color) -> list:
    """Hatch each ``short`` day (covered for less than 24 h), draw its point
    hollow and joined to its neighbours by a dotted line, so that its drop
    is not read as a quieter day; the hatched spans, labelled with their hours."""
    spans = []
    for index in np.flatnonzero(short):
        day = days[index]
        spans.append(ax.axvspan(day - 0.5, day + 0.5, facecolor="0.93", edgecolor="0.6",
                                hatch="///", linewidth=0, zorder=0,
                                label=f"partial day ({_day_length(hours[index])})"))
        around = slice(max(index - 1, 0), index + 2)
        ax.plot(days[around], kwh[around], linestyle=":", linewidth=1.2, color=color)
        ax.plot(day, kwh[index], marker="o", markersize=6, markerfacecolor="white",
                markeredgecolor=color, linestyle="none", zorder=3)
    return spans


def _day_length(hours: float) -> str:
    """``14.1 h``; ``3 min`` or ``40 s`` for a run shorter than an hour;
    rounded down, so that a partial day never reads ``24.0 h``."""
    if hours >= 1:
        return f"{np.floor(hours * 10) / 10:.1f} h"
    minutes = hours * 60
    return f"{np.floor(minutes):.0f} min" if minutes >= 1 else f"{np.floor(minutes * 60):.0f} s"


def plot_power(
    times,
    watts,
    path,
    cap: float | None = None,
    *,
    end: float | None = None,
    title: str = "System power",
) -> Path:
    """System power against time from the first time, with the power cap if given.

    Power is in the unit its peak (or the cap) calls for (:func:`power_unit`);
    time in days (hours for a series shorter than two days).
    ``end`` defaults to the last change time.  A short series is drawn step
    by step; a long one (more than :data:`MAX_DRAWN_STEPS` steps after
    collapsing) as a time-weighted mean line within a shaded min–max band,
    so that peaks above the cap stay visible at any length.
    """
    t = np.asarray(times, dtype=float)
    w = np.asarray(watts, dtype=float)
    end = float(t[-1]) if end is None else float(end)
    t, w = collapse_step_series(t, w, end)
    start = float(t[0])
    peak = float(w.max())
    scale, unit = power_unit(max(peak, cap or 0))
    # Days, as the papers plot; hours for a run shorter than two days.
    hours = end - start < 2 * SECONDS_PER_DAY
    scale_x = 1.0 / 3600 if hours else 1.0 / SECONDS_PER_DAY
    fig, ax = plt.subplots(figsize=(10, 4.5))
    if t.size <= MAX_DRAWN_STEPS:
        x = np.append(t, end)
        y = np.append(w, w[-1])
        ax.step((x - start) * scale_x, y / scale, where="post", linewidth=1.0, label="power")
    else:
        bins = binned_power_columns(t, w, end, width=(end - start) / 1500)
        x = np.append(bins["start"], end)
        centre = (x[:-1] + x[1:]) / 2
        ax.fill_between(
            (x - start) * scale_x,
            np.append(bins["min"], bins["min"][-1]) / scale,
            np.append(bins["max"], bins["max"][-1]) / scale,
            step="post", alpha=0.3, linewidth=0, label="min–max per bin",
        )
        ax.plot((centre - start) * scale_x, bins["mean"] / scale, linewidth=0.8,
                label="mean per bin")
    if cap is not None:
        ax.axhline(cap / scale, color="tab:red", linestyle="--", linewidth=1.2,
                   label=f"power cap {cap / scale:,.2f} {unit}")
    ax.set_title(f"{title} (peak {peak / scale:,.2f} {unit})")
    ax.set_xlabel("Time (hours)" if hours else "Time (days)")
    ax.set_ylabel(f"Power ({unit})")
    ax.set_ylim(bottom=0, top=max(peak, cap or 0) / scale * 1.1 or 1)
    ax.set_xlim(0, (end - start) * scale_x)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best")
    return save_figure(fig, path)
