"""Drawing the node states of a run (Dolz et al., Fig. 4): one row per
node, time across, colour by state, from a ``NodeLedger`` timeline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .node_power import STATE_NAMES

#: Colours of the states in :func:`plot_node_states` (Paraver-like).
STATE_COLOURS = {"standby": "#d9d9d9", "powering_on": "#ffbf00", "idle": "#4f9bd9",
                 "loaded": "#1a7f37", "powering_off": "#d9480f"}


def state_raster(timeline: pd.DataFrame, nodes: int, start: float, end: float,
                 columns: int = 2000) -> np.ndarray:
    """The state of each node at ``columns`` instants evenly spread over
    ``[start, end)``: a ``nodes x columns`` array of state numbers (-1
    where no interval covers the instant).  Drawing this raster instead of
    one rectangle per interval keeps the plot fast on any machine size."""
    raster = np.full((nodes, columns), -1, dtype=np.int8)
    if len(timeline) == 0:
        return raster
    at = start + (np.arange(columns) + 0.5) * (end - start) / columns
    codes = timeline["state"].map({name: i for i, name in enumerate(STATE_NAMES)}).to_numpy()
    node_of = timeline["node"].to_numpy()
    starts, ends = timeline["start"].to_numpy(), timeline["end"].to_numpy()
    order = np.lexsort((starts, node_of))
    node_of, starts, ends, codes = node_of[order], starts[order], ends[order], codes[order]
    bounds = np.searchsorted(node_of, np.arange(nodes + 1))
    for node in range(nodes):
        lo, hi = bounds[node], bounds[node + 1]
        if lo == hi:
            continue
        position = np.searchsorted(starts[lo:hi], at, side="right") - 1
        valid = position >= 0
        hit = np.where(valid, position, 0) + lo
        inside = valid & (at < ends[hit])
        raster[node, inside] = codes[hit[inside]]
    return raster


def plot_node_states(timeline: pd.DataFrame, path, nodes: int | None = None,
                     start: float | None = None, end: float | None = None,
                     title: str = "Node power states", columns: int = 2000,
                     time_unit: float = 86400.0) -> Path:
    """A per-node state timeline (the paper's Fig. 4, drawn as Paraver
    does): one row per node, time across, colour by state.  ``start`` and
    ``end`` zoom in (seconds); ``time_unit`` labels the axis (days by
    default, 3600 for hours)."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from .plots import plt, save_figure  # off screen

    nodes = int(timeline["node"].max()) + 1 if nodes is None else nodes
    start = float(timeline["start"].min()) if start is None else float(start)
    end = float(timeline["end"].max()) if end is None else float(end)
    raster = state_raster(timeline, nodes, start, end, columns)
    colours = ["white"] + [STATE_COLOURS[name] for name in STATE_NAMES]
    fig, ax = plt.subplots(figsize=(11, max(3.0, min(12.0, 0.06 * nodes + 2))))
    ax.imshow(raster + 1, aspect="auto", interpolation="nearest", origin="lower",
              cmap=ListedColormap(colours), vmin=0, vmax=len(colours) - 1,
              extent=(start / time_unit, end / time_unit, -0.5, nodes - 0.5))
    unit = {86400.0: "days", 3600.0: "hours", 60.0: "minutes", 1.0: "seconds"}.get(
        float(time_unit), f"x {time_unit:g} s")
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("node")
    ax.set_title(title)
    ax.legend(handles=[Patch(color=STATE_COLOURS[n], label=n.replace("_", " "))
                       for n in STATE_NAMES], loc="upper center",
              bbox_to_anchor=(0.5, -0.12), ncol=5, frameon=False)
    return save_figure(fig, path)
