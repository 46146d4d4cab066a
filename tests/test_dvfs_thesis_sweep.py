"""The DVFS thesis' runs through the one sweep machinery, on a tiny trace:
declarations with stable keys, results equal to nets.dvfs_thesis.simulate,
measured options, resume, cpn sweep --model thesis, and the examples."""

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main as cpn
from cli.study import main as cpn_study
from modules.dvfs_thesis.gears import CpuPowerModel
from modules.dvfs_thesis.profiles import draw_profiles
from nets.dvfs_thesis import (EasyConfig, PbGuidedConfig, ThesisConfig, UpasConfig, simulate,
                              thesis_portion)
from studies.grids import grid, grid_from_json, plan
from studies.registry import STUDIES
from studies.results import collect
from studies.storage import RESULT_FORMAT, read_result
from studies.sweep import run_sweep
from studies.thesis_findings import power_budget_checks
from studies.thesis_run import ThesisRun


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Path:
    """40 jobs of 1 to 40 CPUs on a 64-CPU machine."""
    lines = ["; MaxProcs: 64", "; MaxNodes: 64"]
    for number in range(1, 41):
        cpus = [1, 4, 16, 40][number % 4]
        runtime = 200 + 97 * (number % 7)
        lines.append(f"{number} {number * 60} -1 {runtime} {cpus} -1 -1 {cpus} {runtime * 2} "
                     f"-1 1 1 1 1 -1 -1 -1 -1")
    path = tmp_path_factory.mktemp("swf") / "tiny.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def base(trace) -> ThesisRun:
    return ThesisRun(str(trace), machine_cpus=64, first_job=1, last_job=40)


def direct(trace, policy) -> dict:
    """The metrics of nets.dvfs_thesis.simulate, called by hand."""
    jobs = thesis_portion(trace, 64, 1, 40)
    config = ThesisConfig(64, policy, CpuPowerModel())
    return simulate(jobs, config, draw_profiles(jobs, 0)).metrics


# -- declarations ---------------------------------------------------------------


def test_a_run_has_one_key_however_it_is_spelt(base):
    upas = base.with_policy("upas", wq_threshold=4, interval_s=600)
    assert upas.key() == base.with_policy("upas", interval_s=600.0, wq_threshold=4.0).key()
    assert upas.key() == ThesisRun.from_dict(json.loads(upas.canonical_json())).key()
    assert upas.key() == ThesisRun.from_dict({**base.to_dict(), "policy": "upas",
                                              "wq_threshold": 4, "interval_s": 600}).key()
    assert len({upas.key(), base.key(), base.with_policy("upas").key()}) == 3
    # options of another policy cannot act: dropped, as Experiment drops fields
    assert base.with_policy("upas", bsld_threshold=2).key() == base.with_policy("upas").key()
    assert base.to_dict()["model"] == "thesis"


@pytest.mark.parametrize("options, message", [
    ({"wq_treshold": 4}, "unknown policy options"),
    ({"wq_threshold": "four"}, "wq_threshold must be a number"),
    ({"wq_threshold": 2.5}, "whole number"),
    ({"interval_s": None}, "interval_s needs a value"),
    ({"oversized": "never"}, "oversized must be one of"),
])
def test_bad_options_are_refused_up_front(base, options, message):
    policy = "easy" if "oversized" in options else "upas"
    with pytest.raises(ValueError, match=message):
        base.with_policy(policy, **options)


def test_the_word_none_names_a_rule_where_an_option_is_a_word(base):
    """``--option reservations=none`` reaches the policy as the rule "none"
    (the command line reads the word as no value)."""
    from cli.sweep import _option_axis

    name, values = _option_axis("reservations=none,size")
    runs = [base.with_policy("max_job_perf", **{name: value}) for value in values]
    assert [dict(run.options)["reservations"] for run in runs] == ["none", "size"]


def test_measured_options_have_a_prerequisite(base):
    assert base.with_policy("pb_guided").prerequisite() == base
    assert base.with_policy("pb_guided", bsld_lower=1.5).prerequisite() is None
    timed = base.with_policy("max_job_perf", reservations="time", budget_fraction=0.6)
    assert timed.prerequisite() == base.with_policy("easy", budget_fraction=0.6)
    assert base.with_policy("max_job_perf").prerequisite() is None
    assert plan([timed]) == [base, timed.prerequisite(), timed]  # what each needs first


# -- sweeps ---------------------------------------------------------------------


def test_a_thesis_grid_through_run_sweep_is_simulate(base, tmp_path):
    runs = grid(base, policy=["upas", "pb_guided"], wq_threshold=[4, None])
    # wq_threshold cannot act on PB-guided: 2 UPAS runs and 1 PB-guided run
    assert [run.policy for run in runs] == ["upas", "upas", "pb_guided"]
    summary = run_sweep(runs, tmp_path, workers=2, progress=False)
    assert summary.complete and len(summary.ran) == 4  # and the EASY baseline
    easy = read_result(tmp_path, base.key())
    assert easy["bsld"] == pytest.approx(direct(base.trace, EasyConfig())["bsld"], rel=1e-12)
    upas = read_result(tmp_path, runs[0].key())
    expected = direct(base.trace, UpasConfig(wq_threshold=4))
    for metric in ("bsld", "energy_total_j", "wait_mean_s", "frequency_mean_ghz"):
        assert upas[metric] == pytest.approx(expected[metric], rel=1e-12)
    # PB-guided's BSLD_lower is EASY's BSLD, measured by the sweep
    pb = read_result(tmp_path, runs[2].key())
    assert pb["option_bsld_lower"] == easy["bsld"]
    assert pb["bsld"] == pytest.approx(
        direct(base.trace, PbGuidedConfig(bsld_lower=easy["bsld"]))["bsld"], rel=1e-12)
    table = collect(tmp_path).set_index("key")
    assert table.loc[base.key(), "bsld_norm"] == 1.0
    assert table.loc[runs[0].key(), "energy_total_j_norm"] == pytest.approx(
        upas["energy_total_j"] / easy["energy_total_j"])


def test_a_restarted_thesis_sweep_skips_finished_runs(base, tmp_path):
    runs = [base.with_policy("upas", wq_threshold=w) for w in (0, 16)]
    first = run_sweep(runs, tmp_path, workers=1, progress=False)
    assert len(first.ran) == 3 and not first.skipped
    mtimes = {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.json")}
    again = run_sweep(runs, tmp_path, workers=1, progress=False)
    assert again.ran == [] and sorted(again.skipped) == sorted(first.ran)
    assert {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.json")} == mtimes
    (tmp_path / f"{runs[1].key()}.json").unlink()
    assert run_sweep(runs, tmp_path, workers=1, progress=False).ran == [runs[1].key()]


def test_a_job_range_the_trace_lacks_is_refused_before_any_run(base, tmp_path):
    # Each run of such a study failed on its own once the sweep had started.
    runs = [replace(base, first_job=90_001, last_job=90_040)]
    with pytest.raises(ValueError, match="no job numbered 90001..90040"):
        run_sweep(runs, tmp_path / "results", workers=1, progress=False)
    assert not (tmp_path / "results").exists()


def test_results_stored_by_an_older_version_are_run_again(trace, tmp_path, capsys):
    # An older version stored no format and lacked metrics added since (Table
    # 5.4's job-mean frequency): reading those broke the study with a KeyError.
    argv = ["thesis_pb_guided", "--trace", str(trace), "--cpus", "64", "--jobs", "1-40",
            "--out", str(tmp_path / "out"), "--results", str(tmp_path / "runs"),
            "--workers", "1", "--no-progress"]
    assert cpn_study(argv) == 0
    assert "another version" not in capsys.readouterr().out
    stored = sorted((tmp_path / "runs").glob("*.json"))
    for path in stored:
        record = json.loads(path.read_text())
        record.pop("result_format", None)
        del record["frequency_job_mean_ghz"]
        path.write_text(json.dumps(record))
    assert cpn_study(argv) == 0
    assert (f"{len(stored)} stored results were made by another version of the code and "
            "were run again" in capsys.readouterr().out)
    for path in stored:
        record = json.loads(path.read_text())
        assert record["result_format"] == RESULT_FORMAT and "frequency_job_mean_ghz" in record
    assert cpn_study(argv) == 0  # now current: nothing runs again
    assert "another version" not in capsys.readouterr().out


def test_a_result_of_another_format_is_not_read(base, tmp_path):
    runs = [base.with_policy("upas", wq_threshold=0)]
    run_sweep(runs, tmp_path, workers=1, progress=False)
    path = tmp_path / f"{runs[0].key()}.json"
    path.write_text(json.dumps({**json.loads(path.read_text()),
                                "result_format": RESULT_FORMAT + 1}))
    again = run_sweep(runs, tmp_path, workers=1, progress=False)
    assert again.ran == again.outdated == [runs[0].key()] and len(again.skipped) == 1
    assert again.outdated_note() == ("1 stored result was made by another version of the "
                                     "code and was run again")
    assert json.loads(path.read_text())["result_format"] == RESULT_FORMAT


def test_a_json_grid_names_its_model(base):
    spec = {"model": "thesis", "base": {"trace": base.trace, "machine_cpus": 64,
                                        "first_job": 1, "last_job": 40},
            "grid": {"policy": ["easy", "bsld_driven"], "bsld_threshold": [1.5, 3]},
            "experiments": [{"policy": "upas"}]}
    runs = grid_from_json(spec)
    assert [run.label().split(", ", 2)[2] for run in runs] == [
        "easy", "bsld_driven, bsld_threshold=1.5", "bsld_driven, bsld_threshold=3.0", "upas"]
    with pytest.raises(ValueError, match="model must be one of"):
        grid_from_json({**spec, "model": "pupet"})
    with pytest.raises(ValueError, match="needs a trace"):
        grid_from_json({"model": "thesis"})


# -- cpn sweep and the examples ---------------------------------------------------


def test_cpn_sweep_runs_a_thesis_grid(trace, tmp_path, capsys):
    out = tmp_path / "runs"
    argv = ["sweep", "--model", "thesis", "--trace", str(trace), "--cpus", "64",
            "--jobs", "1-40", "--policy", "easy,upas", "--option", "wq_threshold=0,none",
            "--option", "budget_fraction=0.7", "--out", str(out), "--workers", "1",
            "--no-progress"]
    assert cpn(argv) == 0
    # EASY without a budget (the baseline), EASY at 70 %, UPAS at WQ 0 and none
    table = pd.read_csv(out / "results.csv")
    assert len(table) == 4 and set(table["model"]) == {"thesis"}
    assert (table[table["policy"] == "upas"]["bsld_norm"] >= 1).all()
    assert cpn(argv) == 0 and "0 runs done, 4 already there" in capsys.readouterr().out
    spec = tmp_path / "grid.json"
    spec.write_text(json.dumps({"model": "thesis", "base": {
        "trace": str(trace), "machine_cpus": 64, "first_job": 1, "last_job": 40},
        "grid": {"policy": ["upas"], "wq_threshold": [0, None]}}))
    assert cpn(["sweep", "--grid", str(spec), "--out", str(out), "--no-progress"]) == 0
    assert "0 runs done, 3 already there" in capsys.readouterr().out
    assert cpn([*argv, "--capping", "dvfs"]) == 2
    assert "--capping applies to --model puppet only" in capsys.readouterr().err
    assert cpn(["sweep", "--trace", str(trace), "--cpus", "64", "--out", str(out)]) == 2
    assert "--cpus applies to --model thesis only" in capsys.readouterr().err


@pytest.mark.parametrize("study", ["upas", "max_job_perf"])
def test_a_thesis_study_writes_csv_and_png(trace, tmp_path, study, capsys):
    assert cpn_study([f"thesis_{study}", "--trace", str(trace), "--cpus", "64",
                      "--jobs", "1-40", "--out", str(tmp_path / "out"),
                      "--results", str(tmp_path / "runs"), "--workers", "1",
                      "--no-progress"]) == 0
    table = pd.read_csv(tmp_path / "out" / f"thesis_{study}.csv")
    assert table["label"].iloc[0] == "EASY" and table["bsld_norm"].iloc[0] == 1.0
    assert (tmp_path / "out" / f"thesis_{study}.png").stat().st_size > 0
    printed = capsys.readouterr().out
    assert "Table 3.5" in printed
    # each of the study's checks on the table it wrote is printed with its verdict
    checks = STUDIES[f"thesis_{study}"].checks(table)
    lines = printed.splitlines()
    for check in checks:
        assert any(line.split()[:1] == [check.verdict] and check.finding in line
                   for line in lines), check.finding
    if study == "max_job_perf":  # the time limit is the 95th percentile, measured
        constrained = table.set_index("label").loc["EASY 70%"]
        timed = table.set_index("label").loc["MaxJobPerf time"]
        assert timed["option_wait_time_limit"] == constrained["wait_p95_s"]


@pytest.mark.parametrize("easy_70, alone, passed", [(6.23, 64.12, True), (15.0, 64.12, False),
                                                    (6.23, 14.0, False)])
def test_table_5_5_baseline_lies_between_the_two_oversized_readings(easy_70, alone, passed):
    rows = {"EASY": 1.135, "EASY 80%": 3.37, "EASY 70%": easy_70, "EASY 60%": 24.2,
            "EASY 70% alone": alone}
    table = pd.DataFrame({"label": list(rows), "bsld": list(rows.values()), "wait_mean_s": 60.0,
                          "wait_max_s": 3600.0, "wait_std_s": 60.0})
    check = power_budget_checks(table)[-1]
    assert check.finding.startswith("Table 5.5's baseline BSLD 14.57 between")
    assert check.passed is passed
    assert check.detail == f"{easy_70:.2f} and {alone:.2f}"
