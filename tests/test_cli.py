"""The stable contract of ``cpn run``: the files it writes, their first
columns and units, what it says about rejected jobs, how it fails on bad
input (one line, exit code 2), and Ctrl-C keeping the finished jobs.

Most tests call ``cli.main.main([...])`` in-process (fast); one goes through
``python -m cli.main`` to prove the entry point works.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli.main import main
from cli.quantities import format_duration, format_energy, format_power
from cli.report import metric_rows
from modules.job import Job
from nets.puppet import PuppetConfig, simulate

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from tiny_mira import OPENS, record
except ImportError:  # pragma: no cover - run from another root
    from tests.tiny_mira import OPENS, record

ROOT = Path(__file__).resolve().parents[1]

# A 4-node machine.  Submit times start at 1000 so a shifted time would show.
# Job 1 takes 2 nodes at 1000 until 1100; job 2 needs all 4 and waits for it;
# job 3 (1 node, asks 40 s) backfills at 1020: it ends before job 2's shadow
# time whether the scheduler plans with the requested (1200) or the actual
# (1100) end of job 1.  Job 4 was cancelled before it ran, job 5 asks for
# more processors than the machine has.
SWF = """\
; Computer: tiny test machine
; MaxNodes: 4
; MaxProcs: 4
1 1000 -1 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1
2 1010 -1  50 4 -1 -1 4 100 -1 1 2 1 1 1 -1 -1 -1
3 1020 -1  30 1 -1 -1 1  40 -1 1 3 1 1 1 -1 -1 -1
4 1030 -1   0 -1 -1 -1 1 40 -1 5 3 1 1 1 -1 -1 -1
5 1040 -1  30 8 -1 -1 8  40 -1 1 3 1 1 1 -1 -1 -1
"""
EXPECTED_STARTS = {1: 1000.0, 2: 1100.0, 3: 1020.0}


@pytest.fixture
def trace(tmp_path) -> Path:
    path = tmp_path / "tiny.swf"
    path.write_text(SWF)
    return path


def run_cli(*args) -> int:
    return main(["run", *map(str, args)])


@pytest.mark.parametrize("policy", ["fcfs", "wfp"])
@pytest.mark.parametrize("estimate", ["requested", "actual"])
def test_run_writes_jobs_with_the_trace_times_and_metrics(trace, tmp_path, capsys,
                                                          policy, estimate):
    out = tmp_path / "out"
    assert run_cli("--trace", trace, "--policy", policy, "--estimate", estimate,
                   "--out", out, "--no-plots") == 0
    jobs = pd.read_csv(out / "jobs.csv")
    assert list(jobs.columns[:5]) == ["job_id", "submit", "start", "end", "nodes"]
    assert dict(zip(jobs["job_id"], jobs["submit"])) == {1: 1000, 2: 1010, 3: 1020}
    assert dict(zip(jobs["job_id"], jobs["start"])) == EXPECTED_STARTS
    assert dict(zip(jobs["job_id"], jobs["end"])) == {1: 1100, 2: 1150, 3: 1050}
    assert dict(zip(jobs["job_id"], jobs["nodes"])) == {1: 2, 2: 4, 3: 1}

    metrics = json.loads((out / "metrics.json").read_text())
    for key in ("utilization", "wait_mean_s", "makespan_s", "energy_j", "edp_j_s"):
        assert isinstance(metrics[key], (int, float)), key
    assert metrics["makespan_s"] == 150  # first submit 1000, last end 1150
    assert metrics["wait_mean_s"] == pytest.approx((0 + 90 + 0) / 3)
    assert metrics["edp_j_s"] == pytest.approx(metrics["energy_j"] * 150)
    assert metrics["rejected_jobs"] == 2


def test_the_console_says_where_the_runs_clock_starts_and_that_files_keep_the_traces(
        trace, tmp_path, capsys):
    # It said "submit times shifted by -1,000 s: the first ... is time 0",
    # which jobs.csv, on the trace's clock, contradicted.
    out = tmp_path / "out"
    assert run_cli("--trace", trace, "--out", out, "--no-plots") == 0
    said = " ".join(capsys.readouterr().out.split())
    assert ("the run's clock starts at the first submit, 1,000 s in the trace; the files keep "
            "the trace's times") in said
    assert "shifted" not in said and "time 0" not in said
    assert pd.read_csv(out / "jobs.csv")["submit"].min() == 1000


def test_rejected_jobs_are_listed_with_their_reason_and_counted(trace, tmp_path, capsys):
    out = tmp_path / "out"
    assert run_cli("--trace", trace, "--out", out, "--no-plots") == 0
    rejected = pd.read_csv(out / "rejected.csv")
    assert dict(zip(rejected["job_id"], rejected["reason"])) == {
        4: "cancelled before start", 5: "size larger than the machine"}
    assert list(rejected["line"]) == [7, 8]
    printed = " ".join(capsys.readouterr().out.split())
    assert "5 jobs read, 3 accepted, 2 rejected" in printed
    assert "cancelled before start: 1" in printed


def test_rejection_reasons_with_a_thousands_separator_are_counted_whole(tmp_path, capsys):
    # A Cobalt log's reason says the size, "size larger than the machine,
    # 1,024 > 1,000 nodes": cut at its comma of thousands, it was counted
    # as "size larger than the machine (1: 1", one line per size.
    log = tmp_path / "tiny.log"
    sizes = {1: 512, 2: 1024, 3: 2048, 4: 1024}
    log.write_text("".join(record("E", job, OPENS, nodes, "01:00:00", OPENS + 10 * job,
                                  OPENS + 10 * job + 600) + "\n"
                           for job, nodes in sizes.items()))
    out = tmp_path / "out"
    assert run_cli("--trace", log, "--machine-nodes", 1000, "--out", out, "--no-plots") == 0
    said = capsys.readouterr().out
    assert "  rejected, size larger than the machine: 3\n" in said
    assert "(1:" not in said and "(2:" not in said
    assert pd.read_csv(out / "rejected.csv")["reason"].tolist() == [
        "size larger than the machine, 1,024 > 1,000 nodes",
        "size larger than the machine, 2,048 > 1,000 nodes",
        "size larger than the machine, 1,024 > 1,000 nodes"]


def test_drawn_job_powers_are_scaled_to_the_node_watts(trace, tmp_path):
    """--node-watts 300 left drawn job powers at Mira's 64 W a node while an
    idle node drew 90 W: a busy node drew less than an idle one."""
    def powers(*options):
        out = tmp_path / "-".join(options or ("default",))
        assert run_cli("--trace", trace, "--out", out, "--no-plots", *options) == 0
        jobs = pd.read_csv(out / "jobs.csv").set_index("job_id")
        return jobs["power"] / jobs["nodes"]

    mira, bigger = powers(), powers("--node-watts", str(3 * 65_760 / 1024))
    assert 50 < mira.min() and mira.max() < 80  # Mira's spread about its 64.2 W
    assert np.allclose(bigger, 3 * mira)  # the same draws, at three times the scale


def test_the_printed_table_has_units_and_hides_set_up_keys(trace, tmp_path, capsys):
    assert run_cli("--trace", trace, "--out", tmp_path / "out", "--no-plots",
                   "--energy-steps", "60,900") == 0
    printed = capsys.readouterr().out
    for text in ("utilization", "%", "1 min 30 s", "2 min 30 s", "Wh", " W", "J·s",
                 "1 min step", "15 min step"):
        assert text in printed, text
    for key in ("series_start_s", "config", "bsld_threshold_s", "energy_step_60s_j"):
        assert key not in printed, key


def test_metric_rows_format_with_units():
    metrics = {"jobs": 3, "utilization": 0.7612, "wait_mean_s": 5940.0, "makespan_s": 2 * 86400,
               "energy_j": 7.2e9, "power_peak_w": 2.5e6, "edp_j_s": 1.2345e15,
               "energy_step_60s_j": 7.2e9 * 1.0384, "energy_step_3600s_j": 7.2e9,
               "series_start_s": 0.0, "config": {"machine_nodes": 4}, "power_cap_w": 1.5e6}
    rows = {label: text for _, label, text in metric_rows(metrics)}
    assert rows["utilization"] == "76.1 %"
    assert rows["wait, mean"] == "1 h 39 min"
    assert rows["makespan"] == "2.00 days"
    assert rows["energy"] == "2.000 MWh"
    assert rows["power, peak"] == "2.500 MW"
    assert rows["EDP (energy × makespan)"] == "1.234e+15 J·s"
    assert rows["1 min step"] == "+3.84 %"
    assert rows["1 h step"] == "0 %"
    assert rows["power_cap_w"] == "1.500 MW"  # a key added later still shows, with its unit
    assert "series_start_s" not in rows and "config" not in rows
    assert [format_duration(s) for s in (12.34, 245, 7200)] == ["12.3 s", "4 min 05 s",
                                                                "2 h 00 min"]
    # MWh and MW for a machine; smaller units only when a run is tiny
    assert [format_energy(j) for j in (7.155e12, 3.6e9, 3.6e6, 36.0)] == [
        "1,988 MWh", "1.000 MWh", "1.000 kWh", "0.01000 Wh"]
    assert [format_power(w) for w in (2.6187e6, 206.6)] == ["2.619 MW", "206.6 W"]


def test_metrics_json_keeps_raw_si_units(trace, tmp_path, capsys):
    out = tmp_path / "out"
    assert run_cli("--trace", trace, "--out", out, "--no-plots", "--energy-steps", "60") == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert 0 < metrics["utilization"] <= 1  # a fraction, not %
    assert metrics["energy_kwh"] == pytest.approx(metrics["energy_j"] / 3.6e6)
    assert "energy_step_60s_j" in metrics and "config" in metrics


def test_plots_are_written_by_default_and_not_with_no_plots(trace, tmp_path, capsys):
    plain, plotted = tmp_path / "plain", tmp_path / "plotted"
    assert run_cli("--trace", trace, "--out", plain, "--no-plots") == 0
    assert not list(plain.glob("*.png"))
    assert run_cli("--trace", trace, "--out", plotted) == 0
    assert sorted(p.name for p in plotted.glob("*.png")) == ["daily_energy.png", "power.png"]


def test_no_plots_removes_the_plots_of_an_earlier_run_in_the_same_directory(trace, tmp_path,
                                                                            capsys):
    # They were left beside the new CSVs, to be read as this run's.
    out = tmp_path / "out"
    assert run_cli("--trace", trace, "--out", out) == 0
    (out / "mine.png").write_text("a file the run does not own")
    assert run_cli("--trace", trace, "--out", out, "--no-plots") == 0
    assert sorted(p.name for p in out.glob("*.png")) == ["mine.png"]


def error_of(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_malformed_line_names_the_file_line_and_field(trace, tmp_path, capsys):
    bad = tmp_path / "bad.swf"
    lines = SWF.splitlines()
    lines[4] = lines[4].replace(" 50 ", " 5x ")  # line 5: job 2's run time
    bad.write_text("\n".join(lines) + "\n")
    assert run_cli("--trace", bad, "--out", tmp_path / "out") == 2
    line = error_of(capsys)
    assert line.startswith("cpn run: error:")
    assert f"{bad}:5:" in line and "field 4 (run time)" in line and "'5x'" in line
    assert not (tmp_path / "out").exists()


def test_an_unusable_out_is_refused_before_the_run(trace, tmp_path, capsys, monkeypatch):
    # It was found when the results were written, after the whole simulation.
    monkeypatch.setattr("cli.main._simulate", lambda *args, **kwargs: pytest.fail("ran"))
    taken = tmp_path / "taken"
    taken.write_text("a file")
    assert run_cli("--trace", trace, "--out", taken) == 2
    assert error_of(capsys) == (f"cpn run: error: --out {taken}: a file of that name is "
                                "there, not a directory")
    assert run_cli("--trace", trace, "--out", taken / "sub") == 2
    assert f"--out {taken / 'sub'}: cannot create it (Not a directory)" in error_of(capsys)


@pytest.mark.parametrize("command, flag", [
    (["validate"], "--out"), (["sweep", "--workers", "1", "--no-progress"], "--out"),
    (["study", "fig10"], "--out"), (["study", "fig10"], "--results")])
def test_every_command_refuses_an_unusable_directory_first(trace, tmp_path, capsys, command,
                                                           flag):
    taken = tmp_path / "taken"
    taken.write_text("a file")
    assert main([*command, "--trace", str(trace), flag, str(taken)]) == 2
    assert f"{flag} {taken}: a file of that name is there" in error_of(capsys)


def test_a_missing_trace_is_refused_naming_its_flag(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        run_cli("--trace", tmp_path / "nowhere.swf", "--out", tmp_path / "out")
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"cpn run: error: argument --trace: no such file: {tmp_path / 'nowhere.swf'}")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("steps", ["1m", "0", "60,-5", "inf", ","])
def test_bad_energy_steps_are_a_one_line_error(trace, tmp_path, capsys, steps):
    # A step of 0 failed deep inside with "step must be positive, got 0.0".
    assert run_cli("--trace", trace, "--out", tmp_path / "out", "--energy-steps", steps) == 2
    assert error_of(capsys) == ("cpn run: error: --energy-steps must be positive seconds "
                                f"separated by commas, not {steps!r}")


@pytest.mark.parametrize("option, value", [("--idle-fraction", "-0.1"),
                                           ("--idle-fraction", "1.5"),
                                           ("--node-watts", "0"),
                                           ("--seed", "-1"),
                                           ("--gamma", "1e10"),  # a share of the run
                                           ("--policy", "sjf")])
def test_argparse_refuses_bad_options(trace, tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as exit_:
        run_cli("--trace", trace, "--out", tmp_path / "out", option, value)
    assert exit_.value.code == 2
    assert option in capsys.readouterr().err


def test_the_entry_point_runs_as_a_module(trace, tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "run", "--trace", str(trace), "--out", str(out),
         "--no-plots"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "2 rejected" in done.stdout
    assert list(pd.read_csv(out / "jobs.csv")["start"]) == list(EXPECTED_STARTS.values())
    assert json.loads((out / "metrics.json").read_text())["jobs"] == 3

    bad = subprocess.run([sys.executable, "-m", "cli.main", "run", "--idle-fraction", "-1"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--idle-fraction" in bad.stderr


def test_ctrl_c_returns_the_jobs_finished_so_far():
    # One job a day, each 100 s long: after the first day of simulated time
    # only job 0 has finished, and the progress callback then raises.
    jobs = [Job(day, day * 86_400.0 + 10, 100.0, 1, 100.0, jp=50.0) for day in range(5)]
    calls = []

    def progress(now, finished):
        calls.append((now, finished))
        raise KeyboardInterrupt

    result = simulate(jobs, PuppetConfig(machine_nodes=2, node_watts=100.0),
                      progress=progress, chunk=86_400.0)
    assert result.interrupted
    assert calls == [(86_400.0, 1)]
    assert list(result.jobs["job_id"]) == [0]
    assert list(result.jobs["end"]) == [110.0]
    assert result.metrics["jobs"] == 1

    complete = simulate(jobs, PuppetConfig(machine_nodes=2, node_watts=100.0))
    assert not complete.interrupted and len(complete.jobs) == 5


def test_a_quiet_stretch_of_simulated_time_is_one_progress_step():
    # A job of 10^12 s: the run once stepped through it a day at a time
    # (11.6 million steps) and seemed to hang.
    jobs = [Job(1, 0.0, 1e12, 1, 1e12, jp=50.0), Job(2, 10.0, 100.0, 1, 100.0, jp=50.0)]
    calls = []
    result = simulate(jobs, PuppetConfig(machine_nodes=2, node_watts=100.0),
                      progress=lambda now, finished: calls.append((now, finished)),
                      chunk=86_400.0)
    assert calls == [(86_400.0, 1), (1e12, 2)]
    assert list(result.jobs["end"]) == [1e12, 110.0]


# Power capping from the command line.  Constant power: a node draws 100 W
# busy and 50 W idle, so the idle machine draws 200 W and a job adds 50 W
# per node.  Under a 300 W cap job 1 (2 nodes: 300 W) fits; job 3 (1 node)
# would make 350 W beside it; job 2 (4 nodes: 400 W) is over the cap even
# alone, so it is rejected, or with --over-cap run-alone runs only when
# nothing else runs.
CAPPED_SWF = """\
; MaxNodes: 4
; MaxProcs: 4
1 1000 -1 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1
2 1010 -1  50 4 -1 -1 4 100 -1 1 2 1 1 1 -1 -1 -1
3 1020 -1  30 1 -1 -1 1  40 -1 1 3 1 1 1 -1 -1 -1
"""
CONSTANT_POWER = ("--power", "constant", "--node-watts", "100", "--idle-fraction", "0.5")


@pytest.mark.parametrize("capping, starts", [
    # BLOCK: job 3 cannot pass the head; job 2 runs alone at 1100, then job 3.
    ("block", {1: 1000.0, 2: 1100.0, 3: 1150.0}),
    # WAIT: job 3 waits for power and, allocated first at the power change
    # of 1100, delays job 2 (which needs the machine to itself) to 1130.
    ("wait", {1: 1000.0, 2: 1130.0, 3: 1100.0}),
])
def test_capping_options_give_the_hand_checked_schedule(tmp_path, capsys, capping, starts):
    trace = tmp_path / "capped.swf"
    trace.write_text(CAPPED_SWF)
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--capping", capping, "--cap", "300W",
                   "--over-cap", "run-alone", "--out", out, "--no-plots") == 0
    jobs = pd.read_csv(out / "jobs.csv")
    assert dict(zip(jobs["job_id"], jobs["start"])) == starts
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["capping"] == capping and metrics["cap_w"] == 300
    # Only job 2, alone, goes above the cap: for its 50 s.
    assert metrics["jobs_over_cap_alone"] == 1 and metrics["time_above_cap_s"] == 50
    assert "power cap (" + capping + ")" in capsys.readouterr().out


@pytest.mark.parametrize("admission, starts, ends, above", [
    # lowest: beside job 1, job 3 would draw 312.95 W even at 0.9 (three
    # busy nodes at 0.35 + 0.65 * 0.9**2 of 100 W, one idle at 50 W): it
    # waits for job 1's end.
    ("lowest", {1: 1000.0, 3: 1100.0}, {1: 1100.0, 3: 1130.0}, 0.0),
    # nodes: job 3 starts on its free node at 1020 and both run at 0.9
    # (30 s of work take 30 / 0.9**0.5 = 31.62 s), above the cap meanwhile;
    # when job 3 ends, job 1 (80 - 30 = 50 s of work left) returns to full
    # speed at exactly the cap, 300 W.
    ("nodes", {1: 1000.0, 3: 1020.0},
     {1: 1020.0 + 30 / 0.9 ** 0.5 + 50, 3: 1020.0 + 30 / 0.9 ** 0.5}, 30 / 0.9 ** 0.5),
])
def test_dvfs_admission_from_the_command_line(tmp_path, capsys, admission, starts, ends, above):
    trace = tmp_path / "capped.swf"
    trace.write_text(CAPPED_SWF)
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--capping", "dvfs", "--cap", "300W",
                   "--levels", "1,0.9", "--dvfs-admission", admission, "--out", out,
                   "--no-plots") == 0
    jobs = pd.read_csv(out / "jobs.csv")
    assert dict(zip(jobs["job_id"], jobs["start"])) == starts
    assert dict(zip(jobs["job_id"], jobs["end"])) == pytest.approx(ends)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["time_above_cap_s"] == pytest.approx(above)
    assert metrics["rejected_jobs"] == 1  # job 2: 350.6 W alone at 0.9
    assert metrics["past_request_jobs"] == 0  # each within the time it asked for


def test_jobs_dvfs_slows_past_their_request_are_counted_and_said(tmp_path, capsys):
    # As the "nodes" admission above, but job 3 asks for its 30 s exactly:
    # at 0.9 it runs 31.62 s.  --overrun clamp (the default) kills the
    # trace's own overruns only; the model lets a slowed job finish, as the
    # papers do, and the run says how many did.
    trace = tmp_path / "capped.swf"
    trace.write_text(CAPPED_SWF.replace("1  40 -1", "1  30 -1"))
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--capping", "dvfs", "--cap", "300W",
                   "--levels", "1,0.9", "--dvfs-admission", "nodes", "--out", out,
                   "--no-plots") == 0
    jobs = pd.read_csv(out / "jobs.csv").set_index("job_id")
    assert jobs.loc[3, "end"] - jobs.loc[3, "start"] == pytest.approx(30 / 0.9 ** 0.5)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["overrun_jobs"] == 0 and metrics["past_request_jobs"] == 1
    said = " ".join(capsys.readouterr().out.split())
    assert ("1 job ran past the requested time because the model slowed or lengthened it "
            "(DVFS, checkpoints, restarts): it runs to the end") in said


# Every job above the cap alone: nothing is left to run, which is said and
# refused as a trace without a job to run is, not run into empty results.
def test_a_cap_that_refuses_every_job_is_an_error(tmp_path, capsys):
    trace = tmp_path / "capped.swf"
    trace.write_text(CAPPED_SWF)
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--cap", "240W", "--out", out,
                   "--no-plots") == 2  # job 3 alone: 200 W idle + 50 W
    assert capsys.readouterr().err == (
        f"cpn run: error: {trace}: none of the trace's 3 jobs can run (power alone above the "
        "cap: 3), nothing to simulate\n")
    assert not out.exists()


@pytest.mark.parametrize("option, value, message", [
    ("--beta", "1e5", "must be within [0, 2], not 1e5"),  # divided by 0.5 ** 1e5 == 0
    ("--beta", "2.01", "must be within [0, 2], not 2.01"),  # 100 hung
    ("--dvfs-latency", "1e30", "must be within [0, 3600], not 1e30"),  # hung
    ("--levels", "100000", "at most 100 levels, not 100000"),  # hung
    ("--levels", "0", "must be at least 1, not 0"),
    ("--levels", "1,0.5,0.05", "must be within [0.1, 1], not 0.05"),
    ("--levels", "0.05", "must be within [0.1, 1], not 0.05"),  # a lone fraction: one level
])
def test_dvfs_parameters_out_of_their_meaningful_range_are_refused(tmp_path, capsys, option,
                                                                   value, message):
    with pytest.raises(SystemExit) as exit_:
        run_cli("--capping", "dvfs", "--cap", "300W", option, value, "--out", tmp_path)
    assert exit_.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]  # after argparse's usage
    assert last == f"cpn run: error: argument {option}: {message}"


@pytest.mark.parametrize("options", [["--beta", "2", "--levels", "1,0.1"], ["--beta", "0"],
                                     ["--levels", "0.8"],  # was "'0.8' is not a whole number"
                                     ["--levels", "100"], ["--dvfs-latency", "3600"]])
def test_dvfs_parameters_at_their_bounds_run_to_the_end(tmp_path, capsys, options):
    trace = tmp_path / "capped.swf"
    trace.write_text(CAPPED_SWF)
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--capping", "dvfs", "--cap", "300W",
                   "--dvfs-admission", "nodes", *options, "--out", out, "--no-plots") == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["jobs"] + metrics["rejected_jobs"] == 3 and metrics["complete"]


def test_a_share_cap_is_taken_of_the_uncapped_runs_peak(tmp_path, capsys):
    trace = tmp_path / "capped.swf"
    trace.write_text(CAPPED_SWF)
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--cap", "75%", "--out", out,
                   "--no-plots") == 0
    metrics = json.loads((out / "metrics.json").read_text())
    # Uncapped, job 2 runs alone at 400 W (the peak); 75 % of it is 300 W,
    # and a cap without a method means WAIT.
    assert metrics["uncapped_peak_w"] == 400 and metrics["cap_w"] == 300
    assert metrics["capping"] == "wait"
    assert "75 % of the uncapped peak" in capsys.readouterr().out


@pytest.mark.parametrize("cap, watts", [("40MW", 4e7), ("45720kW", 4.572e7), ("4.5e7W", 4.5e7),
                                         ("300 W", 300.0), ("2GW", 2e9)])
def test_caps_read_with_their_units(cap, watts):
    from cli.capping import parse_cap
    assert parse_cap(cap).watts == pytest.approx(watts)


@pytest.mark.parametrize("cap, message", [
    ("-5MW", "must be positive"), ("-5%", "(0, 100]"), ("-.5%", "(0, 100]"),
    ("150%", "(0, 100]"), ("lots", "is not a cap"),
    # SI prefixes are case-sensitive: 200000mW was read as 200,000 MW
    ("200000mW", "the unit mW is none of W, kW, MW, GW (SI prefixes are case-sensitive"),
    ("3kw", "the unit kw is none of"), ("2KW", "the unit KW is none of"),
    ("5Wh", "the unit Wh is none of")])
@pytest.mark.parametrize("attached", [True, False], ids=["--cap=CAP", "--cap CAP"])
def test_bad_caps_are_refused_with_a_hint(trace, tmp_path, capsys, cap, message, attached):
    # argparse would take a lone "-5%" for an option ("expected one argument")
    cap_words = [f"--cap={cap}"] if attached else ["--cap", cap]
    with pytest.raises(SystemExit) as exit_:
        run_cli("--trace", trace, *cap_words, "--out", tmp_path / "out")
    assert exit_.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("cap, said", [
    ("150W", "the cap (150.0 W)"),
    ("40%", "the cap (160.0 W, 40 % of the uncapped peak 400.0 W)")])
def test_a_cap_below_the_idle_machine_is_refused_naming_the_cap(tmp_path, capsys, cap, said):
    # It was blamed on the jobs: "none of the trace's 3 jobs can run (power
    # alone above the cap: 3)".  The idle machine: 4 nodes at 50 W.
    trace = tmp_path / "capped.swf"
    trace.write_text(CAPPED_SWF)
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--cap", cap, "--out", out,
                   "--no-plots") == 2
    assert error_of(capsys) == (f"cpn run: error: --cap: {said} is below the idle machine's "
                                "200.0 W (4 nodes at 50.00 W each): no job could start")
    assert not out.exists()


def test_a_power_cap_above_a_remembered_uncapped_peak_is_said_never_to_bind(tmp_path, capsys):
    trace = tmp_path / "capped.swf"
    trace.write_text(CAPPED_SWF)
    never = "the cap will never bind: the uncapped peak is 400.0 W (found by an earlier run)"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--cap", "1kW", "--out", tmp_path / "a",
                   "--no-plots") == 0
    assert never not in capsys.readouterr().out  # no peak known yet: nothing said
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--cap", "75%", "--out", tmp_path / "b",
                   "--no-plots") == 0  # finds the uncapped peak, 400 W, and remembers it
    capsys.readouterr()
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--cap", "1kW", "--out", tmp_path / "c",
                   "--no-plots") == 0
    assert never in capsys.readouterr().out
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--cap", "399W", "--out", tmp_path / "d",
                   "--no-plots") == 0
    assert never not in capsys.readouterr().out


def test_only_values_are_attached_to_their_options():
    from cli.flags import negative_values_attached
    from cli.main import build_parser
    parser = build_parser("run")
    argv = ["run", "--no-plots", "-5", "--trace", "--cap", "-5%", "--sleep-after", "-1",
            "--cap", "70%"]
    assert negative_values_attached(argv, parser) == [
        "run", "--no-plots", "-5", "--trace", "--cap=-5%", "--sleep-after=-1", "--cap", "70%"]


def test_a_cap_without_a_capping_method_is_a_one_line_error(trace, tmp_path, capsys):
    assert run_cli("--trace", trace, "--capping", "none", "--cap", "50%",
                   "--out", tmp_path / "out") == 2
    assert "choose block, wait or dvfs" in capsys.readouterr().err


# Failures from the command line (TOPPER).  On the capped trace's machine,
# with 1-node units and no cap, unit 0 (one of job 1's two nodes) fails at
# 1050 on the trace's clock, 50 s into job 1, before its first checkpoint.
def replayed_failure(tmp_path, *options) -> tuple[pd.DataFrame, dict]:
    """The jobs and metrics of the capped trace run with that one failure."""
    trace = tmp_path / "capped.swf"
    trace.write_text(CAPPED_SWF)
    failures = tmp_path / "failures.csv"
    failures.write_text("time,unit\n1050,0\n")
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--resilience", "checkpoint",
                   *options, "--unit-nodes", 1, "--failure-trace", failures, "--out", out,
                   "--no-plots") == 0
    return (pd.read_csv(out / "jobs.csv").set_index("job_id"),
            json.loads((out / "metrics.json").read_text()))


def test_a_replayed_failure_rolls_the_job_back(tmp_path, capsys):
    # Job 1 loses its 50 s and pays the 780 s recovery.
    jobs, metrics = replayed_failure(tmp_path)
    assert metrics["failures"] == 1
    assert metrics["lost_node_hours"] == pytest.approx(2 * 50 / 3600)
    # The checkpoint overhead stretches job 1 a little beyond its 100 s.
    stretched = jobs.loc[1, "requested"] / 200 * 100
    assert jobs.loc[1, "end"] == pytest.approx(1000 + stretched + 50 + 780, abs=1e-6)
    assert jobs.loc[2, "start"] == jobs.loc[1, "end"]
    out = " ".join(capsys.readouterr().out.split())
    assert "TOPPER run" in out
    # the trace gives the failures, the MTTF still plans the checkpoints
    assert "; checkpoints at Daly's interval for a unit MTTF of " in out


def test_jobs_too_large_for_full_replicas_are_said_and_counted(trace, tmp_path, capsys):
    # Job 2 takes the whole 4-node machine: it cannot have 2 replicas and
    # ran on its own 4 nodes, which the run did not say (Atlas: 188 jobs).
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--resilience", "replication",
                   "--redundancy", 2, "--unit-nodes", 1, "--mttf-days", 1e9, "--out", out,
                   "--no-plots") == 0
    assert ("1 job too large for 2 full replicas on the machine's 4 units ran with partial "
            "replication, the replicas that fit (partially_replicated_jobs in metrics.json)"
            ) in " ".join(capsys.readouterr().out.split())
    assert json.loads((out / "metrics.json").read_text())["partially_replicated_jobs"] == 1
    assert pd.read_csv(out / "jobs.csv").set_index("job_id")["nodes"].to_dict() == {
        1: 4, 2: 4, 3: 2}


def test_a_run_whose_failures_make_it_take_ages_is_warned_of_in_one_line(tmp_path, capsys):
    # Without checkpoints, a 140 s job on units failing every 20 s restarts
    # until it has 140 s without a failure: 20 (e^7 - 1) = 21,912 s expected.
    trace = tmp_path / "one.swf"
    trace.write_text("; MaxNodes: 1\n1 0 -1 140 1 -1 -1 1 140 -1 1 1 1 1 1 -1 -1 -1\n")
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--resilience", "restart", "--recovery", 0,
                   "--unit-nodes", 1, "--mttf-days", 20 / 86400, "--out", tmp_path / "out",
                   "--no-plots") == 0
    error = capsys.readouterr().err
    assert error.splitlines() == [
        "cpn run: warning: job 1 (1 node, 140 s of work) is expected to take 157 times as "
        "long under these failures (Daly's expected time): its unit fails every 20 s on "
        "average, against no checkpoints and a 0 s recovery, so the run may take very "
        "long; Ctrl-C stops it and keeps what finished"]


def test_a_stretch_beyond_a_million_is_said_by_its_size(tmp_path):
    # 1,400 s of work on a unit failing every 20 s: 20 (e^70 - 1) / 1,400 =
    # 3.6e+28 times as long, which was written out in 29 digits.
    # The warning is made an error here, so that the run stops at it.
    from nets.topper import SlowRunWarning

    trace = tmp_path / "one.swf"
    trace.write_text("; MaxNodes: 1\n1 0 -1 1400 1 -1 -1 1 1400 -1 1 1 1 1 1 -1 -1 -1\n")
    with warnings.catch_warnings(), pytest.raises(SlowRunWarning) as warned:
        warnings.simplefilter("error", SlowRunWarning)
        run_cli("--trace", trace, *CONSTANT_POWER, "--resilience", "restart", "--recovery", 0,
                "--unit-nodes", 1, "--mttf-days", 20 / 86400, "--out", tmp_path / "out",
                "--no-plots")
    assert "(1 node, 1,400 s of work) is expected to take 3.6e+28 times as long under" in str(
        warned.value)


def test_a_study_of_one_month_says_month_and_its_one_case(tmp_path, capsys):
    # It said "months 0 of tiny" and "holds in all 1 cases".
    from tiny_traces import write_two_month_trace

    trace = write_two_month_trace(tmp_path / "tiny.swf", nodes=8, seed=7, later_jobs=8,
                                  later_gap=3600, max_procs=16)
    assert main(["study", "topper_fig11", "--trace", str(trace), "--months", "0",
                 "--out", str(tmp_path / "out"), "--results", str(tmp_path / "runs"),
                 "--workers", "1", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "\nmonth 0 of tiny, wfp, checkpoint\n" in said
    assert "all 1 cases" not in said and "of 1 cases" not in said
    assert "holds in the one case (WFP month 0: " in said


def test_a_finding_of_one_case_differs_in_the_one_case():
    from studies.findings import verdict

    check = verdict("x", {"WFP month 0": False}, lambda case: f"{case}: 1.9")
    assert check.detail == "differs in the one case (WFP month 0: 1.9)"
    assert verdict("x", {"a": True, "b": True}, str).detail == "holds in all 2 cases"


def test_free_checkpoints_lose_no_work_when_a_unit_fails(tmp_path):
    # --checkpoint-scale 0: checkpoints cost nothing and are taken
    # continuously, so the failure loses nothing; job 1 pays the recovery
    # alone (it divided by zero).
    jobs, metrics = replayed_failure(tmp_path, "--checkpoint-scale", 0)
    assert metrics["failures"] == 1 and metrics["lost_node_hours"] == 0
    assert jobs.loc[1, "end"] == 1000 + 100 + 780


def test_a_dvfs_latency_under_failures_is_refused_before_the_trace_is_read(tmp_path, capsys):
    unread = tmp_path / "unread.swf"
    unread.write_text("not a trace\n")  # read, it would be refused
    assert run_cli("--trace", unread, "--resilience", "checkpoint",
                   "--capping", "dvfs", "--cap", "300W", "--dvfs-latency", 5,
                   "--out", tmp_path / "out") == 2
    assert error_of(capsys) == ("cpn run: error: --dvfs-latency is not modelled under "
                                "--resilience: TOPPER changes a level at no cost")


def test_without_failures_topper_runs_as_puppet(trace, tmp_path, capsys):
    assert run_cli("--trace", trace, "--out", tmp_path / "puppet", "--no-plots") == 0
    assert run_cli("--trace", trace, "--resilience", "restart", "--unit-nodes", 1,
                   "--mttf-days", "1e15", "--out", tmp_path / "topper", "--no-plots") == 0
    puppet = pd.read_csv(tmp_path / "puppet" / "jobs.csv")
    topper = pd.read_csv(tmp_path / "topper" / "jobs.csv")
    assert puppet[["job_id", "start", "end"]].equals(topper[["job_id", "start", "end"]])


def test_units_that_do_not_divide_the_machine_are_a_one_line_error(trace, tmp_path, capsys):
    assert run_cli("--trace", trace, "--resilience", "checkpoint", "--unit-nodes", 3,
                   "--out", tmp_path / "out") == 2
    assert "pass --unit-nodes" in capsys.readouterr().err


def test_over_cap_jobs_are_rejected_by_default_and_the_cap_holds(tmp_path, capsys):
    """Job 2 (400 W alone) can never run under 300 W: rejected, it is listed
    with its reason at its trace line (as a duplicate or a bad size is), and
    power never goes above the cap."""
    trace = tmp_path / "capped.swf"
    trace.write_text(CAPPED_SWF)
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--capping", "wait", "--cap", "300W",
                   "--out", out, "--no-plots") == 0
    jobs = pd.read_csv(out / "jobs.csv")
    # Job 3 waits for power beside job 1 and starts when job 1 ends.
    assert dict(zip(jobs["job_id"], jobs["start"])) == {1: 1000.0, 3: 1100.0}
    rejected = pd.read_csv(out / "rejected.csv")
    assert rejected.to_dict("records") == [
        {"job_id": 2, "line": 4, "reason": "power alone above the cap"}]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["time_above_cap_s"] == 0 and metrics["power_peak_w"] == 300
    assert metrics["rejected_jobs"] == 1


def test_sleep_after_runs_the_energy_saving_model(tmp_path, capsys):
    """--sleep-after is nets.energy_saving.simulate_puppet on the same jobs.
    Job 1 (1 node, 100 s) at 1000; the three other nodes, idle, go off at
    the tick of 1060 (idle 60 s >= 30 s), job 1's at 1180.  Job 2 (all 4
    nodes) arrives at 2000: the tick of 2020 boots them, it starts 555 s
    later."""
    from modules.energy_saving.policy import EnergySavingPolicy
    from modules.power_profile import assign_constant_power
    from modules.swf import read_swf
    from nets.energy_saving import SleepingNodes, simulate_puppet

    trace = tmp_path / "gap.swf"
    trace.write_text("; MaxNodes: 4\n; MaxProcs: 4\n"
                     "1 1000 -1 100 1 -1 -1 1 100 -1 1 1 1 1 1 -1 -1 -1\n"
                     "2 2000 -1  50 4 -1 -1 4 100 -1 1 2 1 1 1 -1 -1 -1\n")
    out = tmp_path / "out"
    assert run_cli("--trace", trace, *CONSTANT_POWER, "--sleep-after", 30, "--out", out,
                   "--no-plots") == 0
    jobs = pd.read_csv(out / "jobs.csv").set_index("job_id")
    metrics = json.loads((out / "metrics.json").read_text())
    assert "sleeping nodes" in capsys.readouterr().out
    assert list(jobs["start"]) == [1000.0, 2020.0 + 555.0]
    assert (metrics["shutdowns"], metrics["power_ons"]) == (4, 4)

    workload = read_swf(trace)
    direct = simulate_puppet(assign_constant_power(workload.jobs, 100.0),
                             PuppetConfig(4, node_watts=100.0, idle_fraction=0.5),
                             SleepingNodes(EnergySavingPolicy(idle_threshold_s=30),
                                           timeline=False),
                             time_offset=workload.time_offset)
    assert metrics["energy_j"] == pytest.approx(direct.metrics["energy_j"])


def test_run_loads_the_jobs_without_the_schedule_the_trace_records(trace):
    """``cpn run`` never reads the trace's own schedule (``Workload.log``,
    which ``cpn validate`` measures against): it is left out, not held
    through the run (48 MB a million jobs)."""
    from cli.main import build_parser
    from cli.workload import load_workload, read_trace

    args = build_parser().parse_args(["run", "--trace", str(trace)])
    assert len(read_trace(args).log) == 5  # every job line with an id of its own
    workload = load_workload(args)
    assert len(workload.log) == 0
    assert [job.id for job in workload.jobs] == [1, 2, 3]
