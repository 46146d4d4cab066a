"""The TOPPER paper's figures (section 5), drawn from their tables: bars
normalised to the figure's reference variant, one row of panels per policy,
one panel per metric, bars by month."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from modules.plots import plt, save_figure  # the off-screen backend, one resolution

from .findings import month_label
from .topper_tables import METRICS


def plot_bars(design, heading: str, table: pd.DataFrame, path, subtitle: str = "") -> Path:
    """One row per policy, one panel per metric; bars by month, one per
    variant, normalised to the reference variant (dashed 1.0).  ``design``:
    the figure's ``VariantsDesign``."""
    policies = [p for p in design.policies if p in set(table["policy"])] or \
        sorted(set(table["policy"]))
    labels = [label for label in design.labels() if label in set(table["variant"])]
    months = sorted(table["month"].dropna().unique().tolist()) or [None]
    fig, axes = plt.subplots(len(policies), len(METRICS), squeeze=False,
                             figsize=(4.2 * len(METRICS) + 0.8, 3.2 * len(policies)))
    width = 0.8 / len(labels)
    colours = plt.get_cmap("viridis")(np.linspace(0.1, 0.85, len(labels)))
    for row, policy in enumerate(policies):
        rows = table[table["policy"] == policy]
        for column, metric in enumerate(METRICS):
            ax = axes[row][column]
            for k, label in enumerate(labels):
                heights = [rows[(rows["variant"] == label) &
                                (rows["month"].isna() if m is None else rows["month"] == m)
                                ][f"{metric}_norm"].mean() for m in months]
                bars = ax.bar(np.arange(len(months)) + (k - (len(labels) - 1) / 2) * width,
                              heights, width, color=colours[k], label=label)
                if len(months) * len(labels) <= 24:
                    ax.bar_label(bars, fmt="%.3g", fontsize=6, padding=1)
            ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
            shown = rows[f"{metric}_norm"].replace([np.inf, -np.inf], np.nan).dropna()
            shown = shown[shown > 0]
            if len(shown) and shown.max() / shown.min() > 20:  # waits can differ 1000-fold
                ax.set_yscale("log")
            ax.set_ylabel(f"normalised to {design.reference}", fontsize=8)
            ax.set_xticks(np.arange(len(months)), [month_label(m) for m in months])
            ax.set_title(f"{policy.upper()}-EASY: {METRICS[metric]}", fontsize=10)
            ax.grid(axis="y", alpha=0.3)
    # beside the last panel: inside, no corner is free when every bar is tall
    axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.suptitle(heading + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    fig.tight_layout()
    return save_figure(fig, path)
