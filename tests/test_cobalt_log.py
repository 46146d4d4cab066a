"""Cobalt accounting logs (``modules.cobalt_log``): records, bad records
reported by line, the window's real initial state, format detection and
``cpn run`` on a log; the real Mira logs when ../shared/data is present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from modules.cobalt_log import CobaltLogError, is_cobalt_log, read_cobalt_log
from modules.tables import Columns, replace
from modules.workload import LOG_COLUMNS
from nets.mira import MiraConfig, simulate
from nets.puppet import PuppetConfig

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from tiny_mira import MIRA, OPENS, record
except ImportError:  # pragma: no cover - run from another root
    from tests.tiny_mira import MIRA, OPENS, record


#: Job 10 runs when the window opens (1,024 nodes until OPENS + 7,600 s);
#: job 11 (the whole 2,048-node machine) was queued a day before it; job 12
#: ran in a reservation; job 13 is an ordinary job of the window.
TINY = [
    record("S", 10, OPENS - 3600, 1024, "03:00:00", OPENS - 3600, 0),
    record("E", 10, OPENS - 3600, 1024, "03:00:00", OPENS - 3600, OPENS + 7600),
    record("E", 11, OPENS - 86_400, 2048, "01:00:00", OPENS + 9000, OPENS + 10_800),
    record("E", 12, OPENS + 60, 512, "00:30:00", OPENS + 20_000, OPENS + 21_000,
           queue="R.hw.R00-M0.diags"),
    "this line is no record",
    record("E", 13, OPENS + 100, 512, "00:10:00", OPENS + 200, OPENS + 500),
    record("E", 14, OPENS + 100, 512, "00:10:00", OPENS + 200, OPENS + 500).replace(
        " exec_host=MIR-00000-33331-512", ""),
    record("S", 15, OPENS + 300, 512, "00:10:00", OPENS + 300, 0),
]


@pytest.fixture
def tiny_log(tmp_path) -> Path:
    path = tmp_path / "tiny.log"
    path.write_text("\n".join(TINY) + "\n")
    return path


def test_records_become_jobs_and_bad_ones_are_reported_by_line(tiny_log):
    workload = read_cobalt_log(tiny_log, machine_nodes=2048)
    assert [job.id for job in workload.jobs] == [11, 10, 12, 13]
    assert workload.time_offset == OPENS - 3600  # the earliest logged start is 0
    assert workload.window_opens == 3600 and workload.window_closes == 3600 + 86_400
    job = {job.id: job for job in workload.jobs}[11]
    assert (job.st, job.js, job.wt, job.rt) == (-86_400 + 3600, 2048, 3600.0, 1800.0)
    assert workload.replayed == {10, 12}
    assert workload.replayed_starts() == {10: 0.0, 12: 23_600.0}  # on the jobs' clock
    unlogged = replace(workload, log=Columns.from_rows([], LOG_COLUMNS))  # as cpn run has it
    assert unlogged.replayed_starts() == workload.replayed_starts()
    assert workload.queues[12] == "R.hw.R00-M0.diags"
    assert workload.blocks[13] == "MIR-00000-33331-512"
    assert workload.problems == (
        f"{tiny_log}:5: not a Cobalt record (date;type;jobid;fields)",
        f"{tiny_log}:7: missing field exec_host",
        f"{tiny_log}:8: start record without an end record")
    assert workload.rejected["line"].tolist() == [5, 7, 8]
    assert workload.jobs_read == 7
    summary = workload.summary()
    assert "4 accepted, 3 rejected" in summary
    assert ("the run's clock starts at the first logged start, 1,516,316,400 s in the log; "
            "the files keep the log's times") in summary
    assert "first submit" not in summary
    assert ("window 2018-01-19 00:00 to 2018-01-20 00:00 UTC: 1 job running as it opens and "
            "1 reservation job started as logged; 1 job queued before it, waiting from their "
            "qtime") in summary


def test_the_window_starts_from_its_real_state(tiny_log):
    """Job 10 holds its 1,024 nodes until its logged end, so job 11 (the
    whole machine), queued since the day before, starts then: not at its
    qtime, not when the window opens."""
    workload = read_cobalt_log(tiny_log, machine_nodes=2048)
    config = MiraConfig(puppet=PuppetConfig(machine_nodes=2048))
    jobs = simulate(workload, config).jobs.set_index("job_id")
    assert jobs.loc[10, "start"] == OPENS - 3600 and jobs.loc[10, "end"] == OPENS + 7600
    assert jobs.loc[11, "start"] == OPENS + 7600
    assert jobs.loc[11, "submit"] == OPENS - 86_400
    assert jobs.loc[12, "start"] == OPENS + 20_000  # the reservation, as logged
    assert jobs.loc[13, "start"] == OPENS + 100  # 512 nodes free beside job 10


def test_a_record_that_ends_before_it_starts_is_rejected(tmp_path):
    """It was read, and run for its runtime from its start: the log
    contradicts itself, and which of its times is wrong no one knows."""
    log = tmp_path / "backwards.log"
    log.write_text(record("E", 13, OPENS + 100, 512, "00:10:00", OPENS + 200, OPENS + 500) + "\n"
                   + record("E", 16, OPENS + 100, 512, "00:10:00", OPENS + 900, OPENS + 1500)
                   .replace(f"end={OPENS + 1500:.1f}", f"end={OPENS + 800:.1f}") + "\n")
    workload = read_cobalt_log(log, machine_nodes=2048)
    assert [job.id for job in workload.jobs] == [13]
    assert workload.problems == (
        f"{log}:2: end {OPENS + 800:.1f} before start {OPENS + 900:.1f}",)


def test_formats_are_told_apart_by_the_first_line(tiny_log, tmp_path):
    swf = tmp_path / "t.swf"
    swf.write_text("; MaxNodes: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert is_cobalt_log(tiny_log) and not is_cobalt_log(swf)


def test_format_cobalt_on_an_swf_trace_names_its_first_line(tmp_path, capsys):
    swf = tmp_path / "t.swf"
    swf.write_text("; MaxNodes: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert main(["run", "--trace", str(swf), "--format", "cobalt", "--out",
                 str(tmp_path / "o"), "--no-plots"]) == 2
    assert "t.swf: line 1: not a Cobalt record (date;type;jobid;fields): not a Cobalt " \
        "accounting log" in " ".join(capsys.readouterr().err.split())


def test_a_file_without_a_record_is_refused(tmp_path):
    path = tmp_path / "empty.log"
    path.write_text("\n")
    with pytest.raises(CobaltLogError, match="empty.log: no Cobalt record"):
        read_cobalt_log(path)
    path.write_text("hello\n")
    with pytest.raises(CobaltLogError, match="empty.log: line 1: not a Cobalt record"):
        read_cobalt_log(path)


def test_cpn_run_detects_a_cobalt_log(tiny_log, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--trace", str(tiny_log), "--machine-nodes", "2048", "--out", str(out),
                 "--no-plots"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["mira"] == "node-count EASY" and metrics["jobs"] == 4
    printed = "".join(capsys.readouterr().out.split())  # the terminal wraps long paths
    assert "tiny.log:5:notaCobaltrecord" in printed


def test_models_mira_does_not_have_yet_are_refused(tiny_log, tmp_path, capsys):
    assert main(["run", "--trace", str(tiny_log), "--cap", "1MW", "--out", str(tmp_path / "o"),
                 "--no-plots"]) == 2
    assert ("a Cobalt log runs on the Mira model, which has no power cap (--cap) yet"
            in capsys.readouterr().err)


def test_mira_options_on_an_swf_trace_are_refused(tmp_path, capsys):
    swf = tmp_path / "t.swf"
    swf.write_text("; MaxNodes: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert main(["run", "--trace", str(swf), "--maintenance", str(swf),
                 "--out", str(tmp_path / "o"), "--no-plots"]) == 2
    assert "--maintenance model Mira and need a Cobalt log" in capsys.readouterr().err


@pytest.mark.skipif(not (MIRA / "wk1.log").exists(), reason="../shared/data absent")
@pytest.mark.parametrize("name, jobs, running, reserved, queued_before",
                         [("wk1.log", 2147, 35, 14, 12), ("wk2.log", 1511, 13, 46, 20)])
def test_mira_logs(name, jobs, running, reserved, queued_before):
    workload = read_cobalt_log(MIRA / name)
    assert len(workload.jobs) == jobs and workload.rejected.empty
    before = [job for job in workload.jobs if job.st < workload.window_opens]
    assert sum(job.id in workload.replayed for job in before) == running
    assert len(workload.replayed) - running == reserved
    assert sum(job.id not in workload.replayed for job in before) == queued_before
