"""The PuPPET paper's figures (section 5), drawn from their tables.

Figs. 10-15 are bars normalised to the uncapped run (a dashed line at 1),
one row of panels per policy, one panel per metric, bars by month; Fig. 16
is the average daily power curve of each capping method under the cap.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from modules.plots import plt, save_figure  # the off-screen backend, one resolution

from .findings import month_label
from .puppet_tables import CAPPING_NAMES, METRIC_NAMES, daily_profiles


def plot_bars(design, heading: str, table: pd.DataFrame, path, subtitle: str = "") -> Path:
    """The figure: one row per policy, one panel per metric; bars by month,
    one per parameter value, normalised to the uncapped run (dashed 1.0).
    ``design``: the figure's ``CappingDesign``."""
    policies = [p for p in design.policies if p in set(table["policy"])]
    values = list(dict.fromkeys(table["value"]))
    months = sorted(table["month"].dropna().unique().tolist()) or [None]
    fig, axes = plt.subplots(len(policies), len(design.metrics), squeeze=False,
                             figsize=(4.2 * len(design.metrics) + 0.8, 3.2 * len(policies)))
    width = 0.8 / max(len(values), 1)
    colours = plt.get_cmap("viridis")(np.linspace(0.1, 0.85, max(len(values), 1)))
    for row, policy in enumerate(policies):
        rows = table[(table["policy"] == policy) & (table["capping"] != design.compare)]
        for column, metric in enumerate(design.metrics):
            ax = axes[row][column]
            shown, absolute = f"{metric}_norm", False
            if metric == "wait_mean_s" and not np.isfinite(rows[shown].astype(float)).all():
                # an uncapped run made no job wait: the ratio is undefined
                rows = rows.assign(wait_h=rows["wait_mean_s"] / 3600)
                shown, absolute = "wait_h", True
            at_month = [(rows["month"].isna() if m is None else rows["month"] == m)
                        for m in months]
            for k, value in enumerate(values):
                heights = [rows[(rows["value"] == value) & here][shown].mean()
                           for here in at_month]
                bars = ax.bar(np.arange(len(months)) + (k - (len(values) - 1) / 2) * width,
                              heights, width, color=colours[k], label=design.value_label(value))
                if len(months) * len(values) <= 24:
                    ax.bar_label(bars, fmt="%.3g", fontsize=6, padding=1)
            if absolute:
                base = [rows[here]["base_wait_mean_s"].mean() / 3600 for here in at_month]
                ax.scatter(np.arange(len(months)), base, marker="_", s=400, color="black",
                           zorder=3, label="no capping")
                ax.set_ylabel("hours (uncapped: black marks)", fontsize=8)
            else:
                ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
                ax.set_ylabel("normalised to no capping", fontsize=8)
            ax.set_xticks(np.arange(len(months)), [month_label(m) for m in months])
            finite = rows[shown].replace([np.inf, -np.inf], np.nan).dropna()
            if len(finite) and finite.min() > 0 and finite.max() / finite.min() > 20:
                ax.set_yscale("log")
            ax.set_title(f"{policy.upper()}-EASY: {METRIC_NAMES[metric]}"
                         + (" (h)" if absolute else ""), fontsize=10)
            ax.grid(axis="y", alpha=0.3)
    # beside the last panel: inside, no corner is free when every bar is tall
    axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.suptitle(heading + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_profiles(heading: str, table: pd.DataFrame, path, subtitle: str = "") -> Path:
    """Fig. 16: the average daily power curve of each capping method, and the cap."""
    profiles = daily_profiles(table)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    styles = {"none": ("black", "-"), "wait": ("tab:orange", "-"), "block": ("tab:red", "-"),
              "dvfs": ("tab:blue", "-")}
    for method in profiles.columns.drop("cap_w"):
        colour, style = styles.get(method, (None, "-"))
        ax.plot(profiles.index, profiles[method] / 1e3, style, color=colour, marker="o",
                markersize=3, label=CAPPING_NAMES[method]
                if method != "wait" else "power-aware allocation (WAIT)")
    cap = profiles["cap_w"].iloc[0]
    if not math.isnan(cap):
        caps = table["cap_w"].dropna()
        note = "" if caps.nunique() <= 1 else " (mean over months)"
        ax.axhline(cap / 1e3, color="tab:red", linestyle="--", label=f"power cap{note}")
    ax.set_xlabel("hour of the day (local time)")
    ax.set_ylabel("system power (kW)")
    ax.set_xticks(range(0, 24, 2))
    ax.grid(alpha=0.3)
    # below the axes: inside, it covered the cap line the curves are read against
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=4)
    ax.set_title(heading + (f"\n{subtitle}" if subtitle else ""), fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)
