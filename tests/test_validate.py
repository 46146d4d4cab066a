"""``cpn validate`` and ``modules.validation``: every number of the report
on a tiny trace worked out by hand, the refusals, and the real traces
(skipped when ../shared/data is absent).

The tiny trace, on a 4-node machine, in units of u = 864 s (100 u = 1 day):

====  ======  ============  =========  =====  =======
job   submit  logged wait   runtime    nodes  request
====  ======  ============  =========  =====  =======
1     0       0             100 u      2      100 u
2     10 u    90 u          50 u       4      100 u
3     20 u    180 u         30 u       1      40 u
4     30 u    unknown (-1)  10 u       1      10 u
5     40 u    0             20 u       8      20 u
====  ======  ============  =========  =====  =======

Logged: 1 runs 0..100 u, 2 100..150 u, 3 200..230 u, 5 40..60 u on 8 nodes
(more than the machine: 2 + 8 = 10 nodes busy from 40 u to 60 u).
The model (FCFS, EASY, requested walltimes) refuses job 5 (8 nodes) and
runs 1 at 0; 2 is blocked until 1's end at 100 u; 3 (20 u + 40 u <= 100 u)
and 4 (30 u + 10 u) backfill at once: 3 at 20 u, 4 at 30 u; 2 at 100 u.
Compared: jobs 1, 2 and 3 (4's start is unknown, 5 was refused).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main
from modules.swf import read_swf
from modules.validation import NoLoggedSchedule, ran_in_log, step_series, validate
from nets.puppet import PuppetConfig, simulate

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from real_traces import trace_prefix
except ImportError:  # tests/ imported as a package
    from tests.real_traces import trace_prefix

U = 864.0


def line(job_id, submit, wait, runtime, nodes, request) -> str:
    fields = [job_id, submit, wait, runtime, nodes, -1, -1, nodes, request, -1, 1, 1, 1,
              -1, -1, -1, -1, -1]
    return " ".join(str(int(value)) for value in fields)


TINY = "\n".join(["; MaxNodes: 4", "; MaxProcs: 4", "; UnixStartTime: 1000000000",
                  line(1, 0, 0, 100 * U, 2, 100 * U),
                  line(2, 10 * U, 90 * U, 50 * U, 4, 100 * U),
                  line(3, 20 * U, 180 * U, 30 * U, 1, 40 * U),
                  line(4, 30 * U, -1, 10 * U, 1, 10 * U),
                  line(5, 40 * U, 0, 20 * U, 8, 20 * U)]) + "\n"


@pytest.fixture
def tiny(tmp_path) -> Path:
    path = tmp_path / "tiny.swf"
    path.write_text(TINY)
    return path


def run_model(path: Path, **read):
    workload = read_swf(path, **read)
    result = simulate(workload.jobs, PuppetConfig(workload.machine_nodes),
                      time_offset=workload.time_offset)
    return workload, result.jobs


def test_the_report_by_hand(tiny):
    workload, simulated = run_model(tiny)
    assert dict(zip(simulated["job_id"], simulated["start"])) == {
        1: 0, 2: 100 * U, 3: 20 * U, 4: 30 * U}
    report = validate(simulated, workload.log, workload.rejected, 4)
    summary = report.summary
    assert summary["jobs"] == {"compared": 3, "simulated": 4, "ran_in_log": 4,
                               "unknown_wait": 1, "refused_by_model": 1,
                               "refused_by_reason": {"size larger than the machine": 1}}
    # start errors (simulated - logged): 0, 0, 20 u - 200 u = -180 u
    assert summary["start_error"] == pytest.approx({
        "mean_abs_s": 60 * U, "median_abs_s": 0, "p90_abs_s": 144 * U,  # 0.8 of the way 0 -> 180 u
        "p99_abs_s": 176.4 * U, "max_abs_s": 180 * U, "mean_signed_s": -60 * U,
        "within_1_min": 2 / 3, "within_1_h": 2 / 3})
    # waits: logged 0, 90 u, 180 u; simulated 0, 90 u, 0
    waits = summary["wait_s"]
    assert (waits["mean"]["logged"], waits["mean"]["simulated"]) == (90 * U, 30 * U)
    assert waits["mean"]["relative_error"] == pytest.approx(-2 / 3)
    assert (waits["median"]["logged"], waits["median"]["simulated"]) == (90 * U, 0)
    assert waits["median"]["relative_error"] == -1
    assert waits["p90"]["logged"] == pytest.approx(162 * U)
    assert waits["p90"]["simulated"] == pytest.approx(72 * U)
    # bounded slowdowns: logged 1, (90 + 50) / 50 = 2.8, (180 + 30) / 30 = 7;
    # simulated 1, 2.8, 1
    slowdown = summary["bounded_slowdown"]
    assert (slowdown["mean"]["logged"], slowdown["mean"]["simulated"]) == pytest.approx((3.6, 1.6))
    assert (slowdown["median"]["logged"], slowdown["median"]["simulated"]) == pytest.approx(
        (2.8, 1.0))
    assert (slowdown["p90"]["logged"], slowdown["p90"]["simulated"]) == pytest.approx(
        (6.16, 2.44))
    # days [0, 100 u), [100 u, 200 u), [200 u, 230 u) on 4 nodes:
    #   logged     2 x 100 u / 400 u = 0.5;  4 x 50 u / 400 u = 0.5;  1 x 30 u / 120 u = 0.25
    #   simulated  (200 u + 30 u) / 400 u = 0.575;  0.5;  0
    assert report.utilization.to_dict("list") == {
        "start": pytest.approx([0, 100 * U, 200 * U]), "logged": pytest.approx([0.5, 0.5, 0.25]),
        "simulated": pytest.approx([0.575, 0.5, 0.0])}
    utilization = summary["utilization"]
    assert utilization["rms_difference"] == pytest.approx(math.sqrt((0.075 ** 2 + 0.25 ** 2) / 3))
    assert utilization["max_abs_difference"] == pytest.approx(0.25)
    # over the whole span both did 430 u node-seconds of work: 430 / (4 x 230)
    assert utilization["whole_trace"]["logged"] == pytest.approx(430 / 920)
    assert utilization["whole_trace"]["simulated"] == pytest.approx(430 / 920)
    # queue length: waits over the span, 270 u / 230 u logged, 90 u / 230 u simulated
    queue = summary["queue_length"]["mean"]
    assert (queue["logged"], queue["simulated"]) == pytest.approx((270 / 230, 90 / 230))
    assert summary["queue_length"]["bin_s"] == 3600
    # hour 2 [7200, 10800): job 2 waits from 8640 s in both, 0.6 of the hour;
    # hour 20 [72000, 75600): job 2 in both, job 3 in the log only
    assert report.queue.iloc[2].tolist() == pytest.approx([7200, 0.6, 0.6])
    assert report.queue.iloc[20].tolist() == pytest.approx([72000, 2, 1])
    # the log had 10 nodes busy from 40 u to 60 u
    assert summary["over_machine"] == pytest.approx({
        "machine": 4, "peak": 10, "peak_at": 40 * U, "excess": 6, "intervals": 1,
        "seconds_above": 20 * U, "share_of_time": 20 / 230, "first": 40 * U, "last": 60 * U})
    assert report.refused.to_dict("records") == [
        {"job_id": 5, "line": 8, "reason": "size larger than the machine", "nodes": 8,
         "submit": 40 * U, "wait": 0.0, "runtime": 20 * U}]
    assert report.jobs.loc[report.jobs["job_id"] == 3].iloc[0].to_dict() == pytest.approx({
        "job_id": 3, "submit": 20 * U, "nodes": 1, "logged_start": 200 * U,
        "simulated_start": 20 * U, "start_error": -180 * U, "logged_wait": 180 * U,
        "simulated_wait": 0, "logged_runtime": 30 * U, "simulated_runtime": 30 * U})


def test_weekly_periods_and_step_series(tiny):
    workload, simulated = run_model(tiny)
    report = validate(simulated, workload.log, workload.rejected, 4, period="week")
    # one (partial) week of 230 u: the whole-trace figures
    assert report.utilization.to_dict("list") == {
        "start": [0], "logged": pytest.approx([430 / 920]),
        "simulated": pytest.approx([430 / 920])}
    assert report.summary["utilization"]["rms_difference"] == pytest.approx(0)
    with pytest.raises(ValueError, match=r"period must be one of \('day', 'week'\), not 'month'"):
        validate(simulated, workload.log, workload.rejected, 4, period="month")
    # several changes at one instant count once, after all of them
    times, values = step_series([0, 5, 5], [5, 10, 7], [1, 2, 3])
    assert times.tolist() == [0, 5, 7, 10] and values.tolist() == [1, 5, 2, 0]


def test_admitting_the_oversized_job(tiny):
    # clipped to the 4 nodes, job 5 queues behind job 2 (4 nodes, blocked
    # until 100 u) and runs at 150 u; nothing is refused any more
    workload, simulated = run_model(tiny, oversized="clip")
    report = validate(simulated, workload.log, workload.rejected, 4)
    assert report.summary["jobs"]["refused_by_model"] == 0
    assert report.jobs.set_index("job_id").loc[5, "simulated_start"] == 150 * U
    # on a machine the log fits on, nothing exceeds it
    workload, simulated = run_model(tiny, machine_nodes=10)
    assert validate(simulated, workload.log, workload.rejected, 10).summary[
        "over_machine"] is None


def test_a_trace_without_waits_has_no_logged_schedule(tmp_path, capsys):
    path = tmp_path / "nasa_like.swf"
    path.write_text("\n".join(["; MaxNodes: 4", line(1, 0, -1, 100, 1, 100),
                               line(2, 10, -1, 100, 1, 100)]) + "\n")
    workload, simulated = run_model(path)
    with pytest.raises(NoLoggedSchedule, match=r"field 3 \(wait time\) is unknown \(-1\) on "
                                               r"every job line"):
        validate(simulated, workload.log, workload.rejected, 4)
    out = tmp_path / "out"
    assert main(["validate", "--trace", str(path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"cpn validate: error: {path}: no logged schedule: field 3 (wait time) is unknown "
        "(-1) on every job line, so the trace does not say when its jobs started; there is "
        "nothing to validate against\n")
    assert not out.exists()  # refused before anything ran or was written


# -5 is no "unknown": it was read as one, and the trace said to log no wait.
def test_a_negative_wait_is_refused_at_its_line_not_called_unknown(tmp_path, capsys):
    path = tmp_path / "minus_five.swf"
    path.write_text("\n".join(["; MaxNodes: 4", line(1, 0, -5, 100, 1, 100),
                               line(2, 10, -1, 100, 1, 100)]) + "\n")
    out = tmp_path / "out"
    assert main(["validate", "--trace", str(path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"cpn validate: error: {path}:2: field 3 (wait time): '-5' is negative, and only -1 "
        "(unknown) may be\n")
    assert not out.exists()


def test_a_job_without_a_submit_time_has_no_logged_start(tmp_path):
    path = tmp_path / "no_submit.swf"
    path.write_text("\n".join(["; MaxNodes: 4", line(1, -1, 50, 100, 1, 100),
                               line(2, 10, 0, 100, 1, 100)]) + "\n")
    workload = read_swf(path)
    assert workload.log["job_id"].tolist() == [1, 2]  # the log keeps every job line
    assert ran_in_log(workload.log)["start"].tolist() == [10.0]  # not job 1 "at 49 s"


def test_cpn_validate_writes_the_report(tiny, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["validate", "--trace", str(tiny), "--out", str(out)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "The simulated mean wait is 67 % below the logged one (7 h 12 min against " \
           "21 h 36 min)." in printed
    assert "The model refused 1 jobs the log ran (size larger than the machine: 1; see " \
           "refused.csv)" in printed
    assert "The logged schedule exceeds the machine of 4 nodes: up to 10 (+6) at " \
           "2001-09-09 11:22 UTC, 4 h 48 min in all over 1 intervals from 2001-09-09 11:22 " \
           "UTC to 2001-09-09 16:10 UTC (over_machine.csv); --machine-nodes 10 models a " \
           "machine the log fits on" in printed
    assert "1 simulated jobs have no logged wait (-1) and are left out" in printed
    assert {path.name for path in out.iterdir()} == {
        "validation.json", "jobs.csv", "utilization.csv", "queue.csv", "refused.csv",
        "over_machine.csv", "utilization.png", "queue.png", "waits.png"}
    summary = json.loads((out / "validation.json").read_text())
    assert summary["model"] == {"policy": "fcfs", "estimate": "requested", "trigger": "event",
                                "backfill": True, "overrun": "clamp", "machine": 4,
                                "overrun_jobs": 0}
    assert summary["wait_s"]["mean"] == {"logged": 90 * U, "simulated": 30 * U,
                                         "relative_error": pytest.approx(-2 / 3)}
    assert summary["wait_s"]["median"]["relative_error"] == -1
    assert summary["verdict"].startswith("the simulated mean wait is 67 % below")
    assert pd.read_csv(out / "utilization.csv")["simulated"].tolist() == pytest.approx(
        [0.575, 0.5, 0.0])
    assert pd.read_csv(out / "refused.csv")["job_id"].tolist() == [5]
    assert pd.read_csv(out / "over_machine.csv").to_dict("records") == [
        {"start": 40 * U, "end": 60 * U, "peak": 10}]


@pytest.mark.parametrize("name", ["theta_2022.swf", "CEA-Curie-2011-2.1-cln.swf.gz"])
def test_real_traces_report_their_logged_waits(tmp_path, name):
    # The first 3,000 jobs: the report's logged side is the trace's field 3.
    path = trace_prefix(name, 3_000, tmp_path)
    workload, simulated = run_model(path, size_unit="procs")
    report = validate(simulated, workload.log, workload.rejected, workload.machine_nodes)
    log = workload.log[workload.log["runtime"] > 0]
    assert report.summary["jobs"]["compared"] == len(log)
    assert report.summary["wait_s"]["mean"]["logged"] == pytest.approx(log["wait"].mean())
    assert (report.jobs["simulated_start"] >= report.jobs["submit"]).all()


def test_runs_a_failure_cut_short_count_in_the_simulated_utilization():
    """One job logged and simulated on 0..43,200 s of a 2-node machine,
    and a simulated run cut short on the other node for its first 21,600
    s: a quarter of the day more busy in the simulation."""
    log = pd.DataFrame({"job_id": [1], "line": [1], "submit": [0.0], "wait": [0.0],
                        "runtime": [43_200.0], "nodes": [1]})
    simulated = pd.DataFrame({"job_id": [1], "submit": [0.0], "start": [0.0],
                              "end": [43_200.0], "nodes": [1]})
    rejected = pd.DataFrame(columns=["job_id", "line", "reason"])
    report = validate(simulated, log, rejected, 2, window=(0.0, 86_400.0),
                      failed_runs=[(0.0, 21_600.0, 1)])
    assert report.utilization[["logged", "simulated"]].values.tolist() == [[0.25, 0.375]]
