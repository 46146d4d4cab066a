"""``cpn run`` prints its table before it draws the plots, the slowest
part of a small run."""

from __future__ import annotations

import modules.plots
from cli.main import main

SWF = """\
; MaxNodes: 4
; MaxProcs: 4
1 1000 -1 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1
2 1010 -1  50 4 -1 -1 4 100 -1 1 2 1 1 1 -1 -1 -1
"""


def test_the_metrics_table_is_printed_before_the_plots_are_drawn(tmp_path, capsys,
                                                                 monkeypatch):
    printed_before = []
    for name in ("plot_power", "plot_daily_energy"):
        real = getattr(modules.plots, name)

        def drawn(*args, real=real, **kwargs):
            printed_before.append(capsys.readouterr().out)
            return real(*args, **kwargs)

        monkeypatch.setattr(modules.plots, name, drawn)
    trace = tmp_path / "two.swf"
    trace.write_text(SWF)
    assert main(["run", "--trace", str(trace), "--out", str(tmp_path / "out")]) == 0
    assert len(printed_before) == 2 and "utilization" in printed_before[0]
    assert "power.png" in capsys.readouterr().out  # the files are listed after
    assert (tmp_path / "out" / "power.png").exists()


def test_a_partial_last_day_is_marked_on_the_daily_energy_plot(tmp_path, monkeypatch):
    """The last day of a run, cut short where the run ended, was drawn as a
    full day: on Theta, day 31's 14 h read as a day of half the energy."""
    from modules.power_steps import daily_energy

    legends = []

    def saved(fig, path):
        legend = fig.axes[0].get_legend()
        legends.append([text.get_text() for text in legend.get_texts()] if legend else [])
        modules.plots.plt.close(fig)
        return path

    monkeypatch.setattr(modules.plots, "save_figure", saved)
    day = 86400.0
    daily = daily_energy([0, 80000, 90000], [1e6, 2e6, 5e5], 2.5 * day)
    assert daily["hours"].tolist() == [24.0, 24.0, 12.0]
    modules.plots.plot_daily_energy(daily, tmp_path / "daily.png")
    modules.plots.plot_daily_energy(daily_energy([0], [1e6], 2 * day), tmp_path / "whole.png")
    trace = tmp_path / "two.swf"
    trace.write_text(SWF)  # 160 s of run: one partial day
    assert main(["run", "--trace", str(trace), "--out", str(tmp_path / "out")]) == 0
    assert legends[:2] == [["partial day (12.0 h)"], []]
    assert ["partial day (2 min)"] in legends[2:]


def test_daily_energy_ticks_keep_the_decimals_their_step_needs(tmp_path, monkeypatch):
    """A few nodes' day of 0.2 kWh had its ticks all labelled "0"."""
    from modules.power_steps import daily_energy

    labels = []

    def saved(fig, path):
        fig.canvas.draw()
        labels.append([tick.get_text() for tick in fig.axes[0].get_yticklabels()])
        modules.plots.plt.close(fig)
        return path

    monkeypatch.setattr(modules.plots, "save_figure", saved)
    day = 86400.0
    for watts in (8.0, 90.0, 4e7):  # 0.19 kWh, 2.16 kWh and 960,000 kWh a day
        modules.plots.plot_daily_energy(daily_energy([0, day], [watts, watts / 2], 2 * day),
                                        tmp_path / "daily.png")
    tiny, small, mira = labels
    assert len(set(tiny)) == len(tiny) and tiny[1] in ("0.02", "0.05", "0.025")
    assert len(set(small)) == len(small)
    assert all("." not in text for text in mira) and "," in mira[-1]
