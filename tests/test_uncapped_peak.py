"""A cap given as a share of the uncapped peak simulates the uncapped run
once per workload and options: later runs find its peak remembered."""

from __future__ import annotations

import json

import pytest

import cli.main
from cli.main import build_parser, main
from cli.uncapped_peak import cache_directory, peak_key

# Two jobs on 4 nodes, 100 W a busy node, 50 W idle: the uncapped peak is
# 400 W (both jobs run together at 1,000 s).
SWF = """\
; MaxNodes: 4
; MaxProcs: 4
1 1000 -1 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1
2 1000 -1 100 2 -1 -1 2 200 -1 1 2 1 1 1 -1 -1 -1
"""
OPTIONS = ("--power", "constant", "--node-watts", "100", "--idle-fraction", "0.5", "--no-plots")


@pytest.fixture
def simulations(monkeypatch):
    """The labels of the runs ``cpn run`` simulates."""
    labels = []
    simulate = cli.main._simulate

    def counted(console, label, *args, **kwargs):
        labels.append(label)
        return simulate(console, label, *args, **kwargs)

    monkeypatch.setattr(cli.main, "_simulate", counted)
    return labels


def run(trace, out, *options) -> dict:
    assert main(["run", "--trace", str(trace), "--out", str(out), *OPTIONS, *options]) == 0
    return json.loads((out / "metrics.json").read_text())


def test_the_second_share_cap_on_a_workload_reuses_the_uncapped_peak(tmp_path, simulations,
                                                                      capsys):
    trace = tmp_path / "two.swf"
    trace.write_text(SWF)
    first = run(trace, tmp_path / "a", "--cap", "75%")
    second = run(trace, tmp_path / "b", "--cap", "80%", "--capping", "block")
    assert simulations == ["uncapped run (for the cap)", "simulated", "simulated"]
    assert first["uncapped_peak_w"] == second["uncapped_peak_w"] == 400
    assert (first["cap_w"], second["cap_w"]) == (300, 320)
    assert "remembered from an earlier run" in capsys.readouterr().out
    assert [path.suffix for path in cache_directory().iterdir()] == [".json"]


def test_another_policy_or_another_trace_content_is_another_uncapped_run(tmp_path,
                                                                         simulations):
    trace = tmp_path / "two.swf"
    trace.write_text(SWF)
    run(trace, tmp_path / "a", "--cap", "75%")
    run(trace, tmp_path / "b", "--cap", "75%", "--policy", "wfp")
    trace.write_text(SWF.replace("2 1000 -1", "2 2000 -1"))  # the jobs no longer overlap
    third = run(trace, tmp_path / "c", "--cap", "100%")  # 75 % would refuse both jobs
    assert simulations.count("uncapped run (for the cap)") == 3
    assert third["uncapped_peak_w"] == 300


def test_the_key_ignores_output_and_capping_options_only(tmp_path):
    trace = tmp_path / "two.swf"
    trace.write_text(SWF)
    parser = build_parser()

    def key(*options):
        return peak_key(parser.parse_args(["run", "--trace", str(trace), *options]))

    plain = key("--cap", "70%")
    assert key("--cap", "50%", "--capping", "dvfs", "--levels", "3", "--alpha", "3",
               "--out", "elsewhere", "--no-plots", "--energy-steps", "60") == plain
    assert key("--cap", "70%", "--seed", "1") != plain
    assert key("--cap", "70%", "--idle-fraction", "0.4") != plain


def test_a_peak_stored_in_an_older_result_format_is_simulated_again(tmp_path, simulations):
    """A model change that bumps the stored results' format outdates the
    remembered peaks too."""
    trace = tmp_path / "two.swf"
    trace.write_text(SWF)
    run(trace, tmp_path / "a", "--cap", "75%")
    (stored,) = cache_directory().iterdir()
    stored.write_text(json.dumps({"power_peak_w": 1.0}))  # as written before formats
    again = run(trace, tmp_path / "b", "--cap", "75%")
    assert simulations.count("uncapped run (for the cap)") == 2
    assert again["uncapped_peak_w"] == 400



def test_a_peak_found_by_other_code_is_simulated_again(tmp_path, simulations, monkeypatch):
    """An edited model in a checkout (same version, same format) finds its
    peak afresh: the stored one is stamped with the code that found it."""
    trace = tmp_path / "two.swf"
    trace.write_text(SWF)
    run(trace, tmp_path / "a", "--cap", "75%")
    monkeypatch.setattr("studies.storage.code_digest", lambda: "sha256:edited")
    run(trace, tmp_path / "b", "--cap", "75%")
    run(trace, tmp_path / "c", "--cap", "75%")
    assert simulations.count("uncapped run (for the cap)") == 2
    (stored,) = cache_directory().iterdir()
    assert json.loads(stored.read_text())["code"] == "sha256:edited"
