"""The data-driven study (``cpn study data_driven``): its runs, its table,
and the paper's findings checked against the paper's own numbers."""

import json
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main as cpn
from studies import data_driven_findings as findings
from studies.data_driven_run import DataDrivenRun
from studies.grids import grid
from studies.registry import find_study
from studies.study import StudyOptions
from tiny_traces import TWO_JOBS, write_two_month_trace


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Path:
    """A hand-made 16-node SWF: 40 jobs in month 0, 12 in month 1."""
    return write_two_month_trace(tmp_path_factory.mktemp("swf") / "tiny.swf", nodes=16,
                                 seed=11, later_jobs=12, later_gap=1800, max_procs=8,
                                 gaps=(60, 1200), runtimes=(600, 7200))


def test_runs_declare_the_papers_setting_and_their_uncapped_baseline(tmp_path):
    run = DataDrivenRun(method="naive", cap_share=0.417, policy="wfp")
    assert run.baseline() == DataDrivenRun(method="uncapped", policy="wfp", cap_share=None)
    paper = DataDrivenRun(method="naive", cap_share=0.417, policy="wfp", over_cap="run")
    assert paper.baseline().key() == run.baseline().key()  # one uncapped run for both rules
    again = DataDrivenRun.from_dict(json.loads(json.dumps(run.to_dict())))
    assert again == run and again.key() == run.key()
    config = run.config(49_152)
    assert config.cap.initial == pytest.approx(2_001_600.0)  # 41.7 % of 4.8 MW
    assert not config.scheduling.backfill and config.over_cap == "reject"
    with pytest.raises(ValueError, match="over_cap must be one of"):
        DataDrivenRun(over_cap="run_alone")
    with pytest.raises(ValueError, match="needs a positive cap_share"):
        DataDrivenRun(cap_share=None)


def test_a_field_of_no_known_name_or_no_mapping_is_refused():
    # grid(DataDrivenRun(), cap=[0.5, 0.6]) made the one default run: its axis was dropped
    with pytest.raises(ValueError, match=r"unknown data-driven run fields: \['cap'\]; "
                                         r"known: trace, month, .*cap_share"):
        grid(DataDrivenRun(), cap=[0.5, 0.6])
    with pytest.raises(TypeError, match="DataDrivenRun.from_dict takes a mapping of fields"):
        DataDrivenRun.from_dict(5)  # was "'int' object is not iterable"
    with pytest.raises(ValueError, match="not a data-driven run: model 'puppet'"):
        DataDrivenRun.from_dict({"model": "puppet"})
    assert [run.cap_share for run in grid(DataDrivenRun(), cap_share=[0.5, 0.6])] == [0.5, 0.6]


def test_the_studys_capped_runs_follow_the_over_cap_option():
    design = find_study("data_driven").design
    options = StudyOptions(over_cap="run", months=[0], policies=["wfp"])
    runs = [run for _, run in design.runs(design.base(options), options)]
    assert [(run.method, run.cap_share, run.over_cap) for run in runs] == [
        ("uncapped", None, "reject"),
        ("naive", 0.417, "run"), ("knapsack", 0.417, "run"),
        ("naive", 0.625, "run"), ("knapsack", 0.625, "run"),
        ("naive", 0.833, "run"), ("knapsack", 0.833, "run")]


def test_the_knapsack_budget_option_reaches_the_knapsack_runs_alone():
    design = find_study("data_driven").design
    options = StudyOptions(knapsack_budget="measured", months=[0], policies=["fcfs"])
    runs = [run for _, run in design.runs(design.base(options), options)]
    assert [(run.method, run.budget) for run in runs[:3]] == [
        ("uncapped", "estimates"), ("naive", "estimates"), ("knapsack", "measured")]
    assert runs[2].config(49_152).window.budget == "measured"
    assert runs[2].label().endswith("over cap reject, budget measured")
    # The other methods, and the default budget, keep the keys of the runs
    # stored before the option (a default run's key is as it was).
    plain = StudyOptions(months=[0], policies=["fcfs"])
    default = [run for _, run in design.runs(design.base(plain), plain)]
    assert [run.key() for run in runs[:2]] == [run.key() for run in default[:2]]
    assert runs[2].key() != default[2].key()
    assert DataDrivenRun().key() == "f497cb741f28d7d5"
    with pytest.raises(ValueError, match="budget must be one of"):
        DataDrivenRun(budget="peak")


def test_study_on_the_tiny_trace_gives_these_verdicts(trace, tmp_path, capsys):
    out = tmp_path / "out"
    assert cpn(["study", "data_driven", "--trace", str(trace), "--months", "0,1",
                "--workers", "1", "--no-progress", "--out", str(out),
                "--results", str(tmp_path / "runs")]) == 0
    table = pd.read_csv(out / "data_driven.csv")
    assert len(table) == 2 * 2 * 3  # months x orders x caps
    lines = (out / "data_driven_checks.txt").read_text().splitlines()
    assert [line.split()[0] for line in lines] == [
        "PASS",  # capping success rate over 99 % at 62.5 %
        "DIFFERS", "DIFFERS",  # wait improvement FCFS, WFP
        "DIFFERS", "DIFFERS",  # utilization improvement FCFS, WFP
        "DIFFERS", "DIFFERS",  # always better than naive: wait, utilization
        "PASS",  # degradation under 1 % at 83.3 %
        "DIFFERS",  # learning rate 94 % after 26 days
        "note:",  # the jobs the caps rejected, below
    ]
    assert "wait improvement over naive capping with FCFS is 42% to 188%" in lines[1]
    # 4 jobs of month 0 break the 41.7 % cap alone: rejected, never run
    month0 = table[(table["month"] == 0) & (table["cap_share"] == 0.417)]
    assert set(month0["rejected_jobs_knapsack"]) == {4}
    assert lines[-1].startswith("note: ")
    assert "runs left out jobs over the power cap alone (up to " in lines[-1]
    assert (out / "data_driven.png").stat().st_size > 0


def test_the_study_over_a_whole_trace_where_a_cap_runs_no_job(tmp_path, capsys):
    # --months none gives a NaN month, which equals nothing: naming a case
    # raised an IndexError; a cap under which no job runs has no wait to
    # compare, which counted as naive capping winning.
    trace = tmp_path / "two.swf"
    trace.write_text(TWO_JOBS)
    out = tmp_path / "out"
    assert cpn(["study", "data_driven", "--trace", str(trace), "--months", "none",
                "--workers", "1", "--no-progress", "--out", str(out),
                "--results", str(tmp_path / "runs")]) == 0
    lines = (out / "data_driven_checks.txt").read_text().splitlines()
    always = [line for line in lines if "always outperforms" in line]
    assert len(always) == 2 and all(line.split()[0] == "PASS" for line in always)


def test_over_cap_is_the_data_driven_studys_option(trace, tmp_path, capsys):
    assert cpn(["study", "fig10", "--over-cap", "run", "--trace", str(trace)]) != 0
    assert "does not use --over-cap" in capsys.readouterr().err
    assert cpn(["study", "fig10", "--knapsack-budget", "measured", "--trace", str(trace)]) != 0
    assert "does not use --knapsack-budget" in capsys.readouterr().err


def table(fcfs_wait: float) -> pd.DataFrame:
    """A study table of one month where every number agrees with the
    paper, except the FCFS wait improvement, ``fcfs_wait`` at every cap."""
    rows = []
    for policy in ("fcfs", "wfp"):
        for cap in (0.417, 0.625, 0.833):
            wait = fcfs_wait if policy == "fcfs" else 1.0
            rows.append({"policy": policy, "month": 0, "cap_share": cap,
                         "csr_knapsack": 0.995, "wait_improvement": wait,
                         "utilization_improvement": 0.1,
                         "wait_mean_s_knapsack": 100.0, "wait_mean_s_naive": 200.0,
                         "utilization_knapsack": 0.8, "utilization_naive": 0.7,
                         "utilization_change_knapsack": -0.005,
                         "wait_change_knapsack": 0.005, "learning_rate_day26": 0.95})
    return pd.DataFrame(rows)


def test_the_paper_ranges_hold_to_their_printed_digit():
    # Section VIII-C as printed: 42-188 % (FCFS), 36-177 % (WFP) for wait;
    # 3-21 % and 8-21 % for utilization.
    assert findings.WAIT_IMPROVEMENT == {"fcfs": (0.42, 1.88), "wfp": (0.36, 1.77)}
    assert findings.UTILIZATION_IMPROVEMENT == {"fcfs": (0.03, 0.21), "wfp": (0.08, 0.21)}
    verdicts = lambda wait: [c.verdict for c in findings.checks(table(wait))]  # noqa: E731
    assert verdicts(0.415) == ["PASS"] * 9  # 41.5 % prints as 42 %
    assert verdicts(1.884)[1] == "PASS"
    assert verdicts(0.414)[1] == "DIFFERS" and verdicts(1.886)[1] == "DIFFERS"
    assert verdicts(0.414).count("DIFFERS") == 1


def test_the_study_is_registered():
    study = find_study("data_driven")
    assert study.figure == "Figs. 6, 8-11"
    assert "over_cap" in study.design.options
