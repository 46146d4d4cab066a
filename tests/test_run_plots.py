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
