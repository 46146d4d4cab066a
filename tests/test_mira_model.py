"""The Mira net (``nets.mira``) and ``cpn validate`` on a Cobalt log: the
model part by part on a miniature Mira (``tiny_mira``)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from cli.main import main
from modules.bgq_blocks import read_blocks
from modules.cobalt_log import read_cobalt_log
from modules.maintenance import Calendar
from nets.mira import MiraConfig, ladder, simulate
from nets.puppet import PuppetConfig

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from tiny_mira import FAILURES, MIRA, OPENS, TWO_RACKS, record
except ImportError:  # pragma: no cover - run from another root
    from tests.tiny_mira import FAILURES, MIRA, OPENS, TWO_RACKS, record

#: Job 20 runs on block 0 (R00-M0) as the window opens, until OPENS + 3,600;
#: job 21 (1,024 nodes) needs block 2 over R00; job 22 (300 nodes, a 512
#: block) and job 23 (512) arrive after it.
LOG = [
    record("E", 20, OPENS - 600, 512, "01:00:00", OPENS - 600, OPENS + 3600,
           block="MIR-00000-33331-512"),
    record("E", 21, OPENS + 100, 1024, "01:00:00", OPENS + 3600, OPENS + 5400,
           block="MIR-00000-33371-1024"),
    record("E", 22, OPENS + 200, 300, "00:20:00", OPENS + 200, OPENS + 1200,
           block="MIR-00040-33371-512"),
    record("E", 23, OPENS + 300, 512, "02:00:00", OPENS + 300, OPENS + 4000,
           block="MIR-00400-33731-512"),
]


@pytest.fixture
def files(tmp_path):
    log, blocks = tmp_path / "tiny.log", tmp_path / "two_racks.xml"
    log.write_text("\n".join(LOG) + "\n")
    blocks.write_text(TWO_RACKS)
    maintenance = tmp_path / "maintenance.txt"
    maintenance.write_text("2018-01-19 02:00:00,2018-01-19 03:00:00\n")
    return log, blocks, maintenance


#: A compute-chip fault on rack R01's midplane at OPENS + 250 s: block 3 is
#: down for 11 hours.
EVENTS = ("event 1 00062001 1 FATAL BQC MC 2018-01-19;00:04:10.0 2018-01-19;00:04:10.0 1 "
          "RMNJ R01-M0-N03-J04 0\n")


def test_a_replayed_job_on_an_undefined_block_stands_on_one_of_its_size(files, tmp_path,
                                                                         capsys):
    log, blocks, _ = files
    log.write_text(log.read_text().replace("MIR-00000-33331-512", "MIR-00400-77731-512"))
    assert main(["run", "--trace", str(log), "--machine-nodes", "1536", "--blocks",
                 str(blocks), "--out", str(tmp_path / "o"), "--no-plots"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "1 replayed jobs ran on blocks" in printed and "(MIR-00400-77731-512)" in printed
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert metrics["replayed_on_undefined_blocks"] == 1
    from nets.mira import logged_block
    machine = read_blocks(blocks)
    workload = read_cobalt_log(log, machine_nodes=1536)
    assert machine.blocks[logged_block(workload, machine, 20)].name == "MIR-00400-33731-512"


def test_jobs_run_on_blocks_the_log_state_included(files):
    log, blocks, _ = files
    workload = read_cobalt_log(log, machine_nodes=1536)
    config = MiraConfig(blocks=read_blocks(blocks), puppet=PuppetConfig(machine_nodes=1536))
    jobs = simulate(workload, config).jobs.set_index("job_id")
    assert jobs.loc[20, "start"] == OPENS - 600  # replayed on block 0
    assert jobs.loc[22, "nodes"] == 512  # a whole block for 300 nodes
    # job 21 drains block 2 and its relatives 0 and 1 until job 20's
    # planned end (OPENS + 3,000): job 22 starts on block 3, which is not
    # draining; job 23 (2 h) cannot backfill on block 1 and waits for
    # block 3, free when job 22 ends at OPENS + 1,200
    assert jobs.loc[22, "start"] == OPENS + 200 and jobs.loc[23, "start"] == OPENS + 1200
    assert jobs.loc[21, "start"] == OPENS + 3600


def test_maintenance_holds_a_job_that_would_run_into_it(files):
    log, blocks, maintenance = files
    from modules.maintenance import read_maintenance
    workload = read_cobalt_log(log, machine_nodes=1536)
    config = MiraConfig(blocks=read_blocks(blocks), maintenance=read_maintenance(maintenance),
                        slop=False, puppet=PuppetConfig(machine_nodes=1536))
    jobs = simulate(workload, config).jobs.set_index("job_id")
    # job 23 (2 h from OPENS + 300) would run into the window at OPENS + 7,200
    assert jobs.loc[23, "start"] == OPENS + 3 * 3600
    # job 21 (1 h from OPENS + 3,600) ends before it
    assert jobs.loc[21, "start"] == OPENS + 3600
    # ... exactly when it opens: with Cobalt's 180 s slop it overlaps, and waits
    jobs = simulate(workload, replace(config, slop=True)).jobs.set_index("job_id")
    assert jobs.loc[21, "start"] == OPENS + 3 * 3600


def test_a_failure_kills_the_job_on_its_block_and_holds_the_block(files, tmp_path):
    """Block 3 fails at OPENS + 250, down for 11 hours.  Job 22, on it since
    OPENS + 200, fails and goes back to the queue; it runs again at once
    from the start on block 1, draining for job 21 until OPENS + 3,000,
    since its 20 minutes end before.  Job 23 (2 h) can neither take block
    3 nor backfill: it starts when job 21 ends, at OPENS + 5,400."""
    from modules.mira_failures import read_ras_failures
    log, blocks, _ = files
    (tmp_path / "events.cor").write_text(EVENTS)
    failures = tuple(read_ras_failures(tmp_path / "events.cor")[0])
    config = MiraConfig(blocks=read_blocks(blocks), failures=failures,
                        puppet=PuppetConfig(machine_nodes=1536))
    result = simulate(read_cobalt_log(log, machine_nodes=1536), config)
    jobs = result.jobs.set_index("job_id")
    assert result.metrics["job_failures"] == 1 and result.metrics["unfinished_jobs"] == 0
    assert result.metrics["failed_runs"] == [[OPENS + 200, OPENS + 250, 512]]
    assert (jobs.loc[22, "start"], jobs.loc[22, "end"]) == (OPENS + 250, OPENS + 1250)
    assert jobs.loc[23, "start"] == OPENS + 5400


def test_the_ladder_adds_one_part_at_a_time(files):
    _, blocks, _ = files
    from modules.mira_failures import Failure
    full = MiraConfig(blocks=read_blocks(blocks), maintenance=Calendar(((0.0, 1.0),)),
                      failures=(Failure(0.0, "BQC", "R00-M0-N00"),))
    full_name = "blocks + drain + maintenance + failures"
    assert [config.describe() for config in ladder(full)] == [
        "node-count EASY", "blocks + first fit", "blocks + drain",
        "blocks + drain + maintenance", full_name, f"{full_name} + slop",
        f"{full_name} + slop + summed utility",
        f"{full_name} + slop + summed utility + every queue drains",
        f"{full_name} + slop + summed utility + every queue drains + 10 s passes",
        f"{full_name} + slop + summed utility + every queue drains + 10 s passes"
        " + held drain targets"]
    last = replace(full, accumulate=False, backfill="last", interval=False,
                   held_targets=False)
    assert [config.describe() for config in ladder(last)][-2:] == [
        f"{full_name} + slop", f"{full_name} + slop + backfill queue last"]


def test_cpn_validate_reports_each_part_of_the_mira_model(files, tmp_path, capsys):
    log, blocks, maintenance = files
    (tmp_path / "events.cor").write_text(EVENTS)
    out = tmp_path / "out"
    assert main(["validate", "--trace", str(log), "--machine-nodes", "1536", "--blocks",
                 str(blocks), "--maintenance", str(maintenance), "--failures",
                 str(tmp_path / "events.cor"), "--out", str(out), "--no-plots"]) == 0
    summary = json.loads((out / "validation.json").read_text())
    full = "blocks + drain + maintenance + failures + slop + summed utility"
    assert [row["model"] for row in summary["ladder"]] == [
        "node-count EASY", "blocks + first fit", "blocks + drain",
        "blocks + drain + maintenance", "blocks + drain + maintenance + failures",
        "blocks + drain + maintenance + failures + slop", full,
        f"{full} + every queue drains", f"{full} + every queue drains + 10 s passes",
        f"{full} + every queue drains + 10 s passes + held drain targets"]
    assert summary["model"]["mira"] == (f"{full} + every queue drains + 10 s passes"
                                        " + held drain targets")
    assert summary["model"]["policy"] == "wfp"
    assert summary["jobs"]["replayed"] == 1 and summary["jobs"]["compared"] == 3
    # jobs 21, 22 and 23 were all submitted in the window: both means agree
    assert summary["wait_s_in_window"]["mean"] == summary["wait_s"]["mean"]
    assert summary["utilization"]["periods"] == 1  # the window is one day
    printed = capsys.readouterr().out
    assert "the Mira model part by part" in printed
    assert ("compared 3 jobs: all the log ran with a known start (4) that the model ran too, "
            "less the 1 replayed as logged") in " ".join(printed.split())
    assert "replayed jobs ran on blocks" not in printed  # job 20's block is defined


@pytest.mark.parametrize("flag", ["--no-drain", "--failures=events.cor"])
def test_block_options_without_blocks_are_refused(files, tmp_path, capsys, monkeypatch, flag):
    log, _, _ = files
    monkeypatch.chdir(tmp_path)
    (tmp_path / "events.cor").write_text(EVENTS)  # a file flag must name a file
    assert main(["validate", "--trace", str(log), flag, "--out",
                 str(tmp_path / "o"), "--no-plots"]) == 2
    assert f"{flag.split('=')[0]} needs --blocks: it works on blocks" in capsys.readouterr().err


@pytest.mark.parametrize("flag, content, said", [
    ("--failures", b"garbage\n", "bad: no fatal event on a compute rack"),
    ("--failures", b"\x1f\x8b\x08\x00", "bad:1: not UTF-8 text (byte 0x8b at column 2)"),
    ("--maintenance", b"", "bad: no maintenance window in the file"),
    ("--maintenance", b"2018-01-19 02:00:00,2018-01-19 03:00:00\n\xff\n",
     "bad:2: not UTF-8 text (byte 0xff at column 1)")])
def test_a_mira_part_file_that_gives_nothing_is_refused_naming_it(files, tmp_path, capsys,
                                                                   flag, content, said):
    """A failures or maintenance file with nothing in it would run as if
    the option were not given; a binary one named no file."""
    log, blocks, _ = files
    (tmp_path / "bad").write_bytes(content)
    assert main(["run", "--trace", str(log), "--machine-nodes", "1536", "--blocks",
                 str(blocks), flag, str(tmp_path / "bad"), "--out", str(tmp_path / "o"),
                 "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


@pytest.mark.skipif(not (MIRA / "wk1.log").exists(), reason="../shared/data absent")
def test_node_count_easy_on_a_mira_week_as_docs_mira_reports():
    """The first row of docs/mira.md's wk1.log table (the cheapest run)."""
    from modules.validation import validate
    workload = read_cobalt_log(MIRA / "wk1.log")
    result = simulate(workload, MiraConfig())
    summary = validate(result.jobs, workload.log, workload.rejected, workload.machine_nodes,
                       window=workload.window_on_trace_clock(),
                       replayed=workload.replayed).summary
    assert summary["jobs"]["compared"] == 2098 and summary["jobs"]["replayed"] == 49
    assert round(summary["wait_s"]["mean"]["logged"]) == 21_790
    assert round(100 * summary["wait_s"]["mean"]["relative_error"], 1) == -17.6
    assert round(100 * summary["wait_s_in_window"]["mean"]["relative_error"], 1) == -2.4
    assert round(100 * summary["utilization"]["rms_difference"], 1) == 11.4


@pytest.mark.skipif(not (MIRA / "wk1.log").exists(), reason="../shared/data absent")
def test_the_full_mira_model_on_a_mira_week_as_docs_mira_reports():
    """The last row of docs/mira.md's wk1.log table: every part, Cobalt's
    rules included (about 3 s)."""
    from modules.maintenance import read_maintenance
    from modules.mira_failures import read_ras_failures
    from modules.validation import validate
    workload = read_cobalt_log(MIRA / "wk1.log")
    config = MiraConfig(
        blocks=read_blocks(MIRA / "mira.xml"),
        maintenance=read_maintenance(FAILURES / "mira_maintenance_periods.txt"),
        failures=tuple(read_ras_failures(FAILURES / "mira_fatal_ras_events_2013_2018.cor")[0]))
    result = simulate(workload, config)
    summary = validate(result.jobs, workload.log, workload.rejected, workload.machine_nodes,
                       window=workload.window_on_trace_clock(), replayed=workload.replayed,
                       failed_runs=result.metrics["failed_runs"]).summary
    assert result.metrics["mira"] == ("blocks + drain + maintenance + failures + slop + summed "
                                      "utility + every queue drains + 10 s passes + held drain "
                                      "targets")
    assert round(100 * summary["wait_s"]["mean"]["relative_error"], 1) == -1.1
    assert round(100 * summary["wait_s_in_window"]["mean"]["relative_error"], 1) == 37.0
    assert round(100 * summary["utilization"]["rms_difference"], 1) == 7.6


def test_prod_long_is_confined_to_the_first_row_of_racks(files):
    from nets.mira import queue_blocks
    _, blocks, _ = files
    machine = read_blocks(blocks)  # racks R00 and R01: both in the first row
    assert queue_blocks(machine) == {"prod-long": 0b1111}


def test_the_backfill_queue_option_names_the_policys_rules_and_needs_blocks(files, tmp_path,
                                                                          capsys):
    from cli.mira import BACKFILL_RULES as OPTION_CHOICES
    from modules.cobalt_policy import BACKFILL_RULES
    assert OPTION_CHOICES == BACKFILL_RULES
    log, _, _ = files
    assert main(["validate", "--trace", str(log), "--machine-nodes", "1536",
                 "--backfill-queue", "last", "--out", str(tmp_path / "o"), "--no-plots"]) != 0
    assert "cpn validate: error: --backfill-queue needs --blocks" in capsys.readouterr().err


def test_with_cobalts_interval_jobs_start_on_ticks_one_a_pass(tmp_path):
    """Jobs 30 and 31 (512 nodes) arrive together at OPENS + 205, blocks 1
    and 3 idle (job 20 holds block 0): at every event both start at 205;
    with Cobalt's 10 s passes, one at 210 and one at 220."""
    log, blocks = tmp_path / "tiny.log", tmp_path / "two_racks.xml"
    log.write_text("\n".join([
        LOG[0],
        record("E", 30, OPENS + 205, 512, "00:20:00", OPENS + 205, OPENS + 800),
        record("E", 31, OPENS + 205, 512, "00:20:00", OPENS + 205, OPENS + 800)]) + "\n")
    blocks.write_text(TWO_RACKS)
    workload = read_cobalt_log(log, machine_nodes=1536)
    assert workload.time_offset % 10 == 0  # ticks: whole tens after the first logged start
    config = MiraConfig(blocks=read_blocks(blocks), interval=False,
                        puppet=PuppetConfig(machine_nodes=1536))
    starts = simulate(workload, config).jobs.set_index("job_id")["start"] - OPENS
    assert sorted(starts[[30, 31]]) == [205, 205]
    starts = simulate(workload, replace(config, interval=True)).jobs.set_index("job_id")["start"]
    assert sorted(starts[[30, 31]] - OPENS) == [210, 220]


def test_scheduled_blocks_are_those_the_logs_jobs_ran_on_reservations_aside(files, tmp_path):
    """Job 23's block (R01-M0) becomes a reservation's: it leaves the
    scheduled set; the 1,024-node block 2 and R00's two midplanes stay."""
    from nets.mira import scheduled_blocks
    log, blocks, _ = files
    reserved = tmp_path / "reserved.log"
    reserved.write_text("\n".join([*LOG[:3], record("E", 23, OPENS + 300, 512, "02:00:00",
                                                     OPENS + 300, OPENS + 4000, queue="R.test",
                                                     block="MIR-00400-33731-512")]) + "\n")
    assert scheduled_blocks([read_cobalt_log(reserved, machine_nodes=1536)]) == {
        "MIR-00000-33331-512", "MIR-00040-33371-512", "MIR-00000-33371-1024"}
    with pytest.raises(ValueError, match="not in the partition file: MIR-00400-77731-512"):
        MiraConfig(blocks=read_blocks(blocks), scheduled=frozenset({"MIR-00400-77731-512"}))


def test_validate_adds_the_scheduled_blocks_rung_and_it_needs_blocks(files, tmp_path, capsys):
    log, blocks, _ = files
    assert main(["validate", "--trace", str(log), "--machine-nodes", "1536", "--blocks",
                 str(blocks), "--scheduled-from", str(log), "--out", str(tmp_path / "o"),
                 "--no-plots"]) == 0
    ladder_rows = json.loads((tmp_path / "o" / "validation.json").read_text())["ladder"]
    assert ladder_rows[-1]["model"].endswith("held drain targets + scheduled blocks")
    assert not ladder_rows[-2]["model"].endswith("scheduled blocks")
    assert main(["validate", "--trace", str(log), "--machine-nodes", "1536",
                 "--scheduled-from", str(log), "--out", str(tmp_path / "p"), "--no-plots"]) != 0
    assert "--scheduled-from needs --blocks" in capsys.readouterr().err


@pytest.mark.skipif(not (MIRA / "wk2.log").exists(), reason="../shared/data absent")
def test_the_blocks_mira_scheduled_up_to_8192_nodes_tile_the_machine_once():
    """What docs/mira.md states of the two logs: per size up to 8,192
    nodes the blocks used cover all 1,536 node boards, no two sharing one,
    but at 1,024 nodes, where the two torus blocks of prod-1024-torus lie
    over the 48 blocks the other queues used."""
    from nets.mira import scheduled_blocks
    machine = read_blocks(MIRA / "mira.xml")
    used = scheduled_blocks([read_cobalt_log(MIRA / "wk1.log"),
                             read_cobalt_log(MIRA / "wk2.log")])
    assert len(used) == 196
    for size, count in ((512, 96), (1024, 50), (2048, 24), (4096, 12), (8192, 6)):
        blocks = [machine.blocks[machine.index[name]] for name in used
                  if machine.blocks[machine.index[name]].size == size]
        boards = [board for block in blocks if not (size == 1024 and "-1-" not in block.name)
                  for board in block.node_boards]
        assert len(blocks) == count
        assert len(boards) == len(set(boards)) == 1536
