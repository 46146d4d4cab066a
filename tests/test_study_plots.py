"""The studies' bar figures keep their legend off the bars: inside the last
panel (``loc="best"``), it hid the tallest bars and their values when every
corner was full (``cpn study topper_fig13 --months 0-3``)."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

import studies.puppet_plots
import studies.topper_plots
from studies.puppet_tables import METRIC_NAMES
from studies.topper_tables import METRICS

#: Four months of four variants, rising to twice the reference in every
#: panel, as redundancy degrees do: no corner of a panel is free.
HEIGHTS = (1.0, 1.25, 1.6, 2.2)


def topper_figure(path):
    design = SimpleNamespace(policies=("wfp",), reference="r = 1.5",
                             labels=lambda: [f"r = {r}" for r in (1.5, 2, 2.5, 3)])
    table = pd.DataFrame([{"policy": "wfp", "variant": label, "month": month,
                           **{f"{metric}_norm": height for metric in METRICS}}
                          for label, height in zip(design.labels(), HEIGHTS)
                          for month in range(4)])
    return studies.topper_plots.plot_bars(design, "heading", table, path)


def puppet_figure(path):
    design = SimpleNamespace(policies=("fcfs",), metrics=tuple(METRIC_NAMES), compare=None,
                             value_label=lambda value: f"{value:.0%}")
    table = pd.DataFrame([{"policy": "fcfs", "capping": "wait", "value": value, "month": month,
                           **{f"{metric}_norm": height for metric in METRIC_NAMES}}
                          for value, height in zip((0.8, 0.6, 0.5, 0.4), HEIGHTS)
                          for month in range(4)])
    return studies.puppet_plots.plot_bars(design, "heading", table, path)


@pytest.mark.parametrize("draw", [topper_figure, puppet_figure], ids=["topper", "puppet"])
def test_the_legend_covers_no_bar_and_no_value(tmp_path, monkeypatch, draw):
    figures = []
    for module in (studies.topper_plots, studies.puppet_plots):
        monkeypatch.setattr(module, "save_figure", lambda fig, path: figures.append(fig) or path)
    draw(tmp_path / "figure.png")
    [fig] = figures
    renderer = fig.canvas.get_renderer()
    [legend] = [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    box = legend.get_window_extent(renderer)
    covered = [artist for ax in fig.axes for artist in (*ax.patches, *ax.texts)
               if artist.get_window_extent(renderer).overlaps(box)]
    assert covered == []
