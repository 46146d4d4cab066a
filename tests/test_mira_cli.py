"""``cpn run`` on a Cobalt log: the Mira model as ``nets.mira.simulate``
runs it, the window's initial state replayed as logged (``cpn run`` drops
the log's table, which the replay must not need)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from cli.main import main
from modules.bgq_blocks import read_blocks
from modules.cobalt_log import read_cobalt_log
from nets.mira import MiraConfig, simulate

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from tiny_mira import MIRA, OPENS, TWO_RACKS, record
except ImportError:  # pragma: no cover - run from another root
    from tests.tiny_mira import MIRA, OPENS, TWO_RACKS, record

#: Job 1 runs on R00-M0 from before the window opens; job 2, of a
#: reservation queue, started 500 s after its submit, while a block was free.
LOG = [record("E", 1, OPENS - 600, 512, "01:00:00", OPENS - 600, OPENS + 1800),
       record("E", 2, OPENS + 100, 512, "00:30:00", OPENS + 600, OPENS + 1200,
              queue="R.hw.R00-M1.diags", block="MIR-00040-33371-512")]


@pytest.fixture
def tiny(tmp_path):
    log, blocks = tmp_path / "tiny.log", tmp_path / "two_racks.xml"
    log.write_text("\n".join(LOG) + "\n")
    blocks.write_text(TWO_RACKS)
    return log, blocks


def run_jobs(tmp_path, log, *options) -> pd.DataFrame:
    """jobs.csv of ``cpn run`` on ``log``, by job id."""
    out = tmp_path / "out"
    assert main(["run", "--trace", str(log), "--out", str(out), "--no-plots", *options]) == 0
    return pd.read_csv(out / "jobs.csv").set_index("job_id").sort_index()


@pytest.mark.parametrize("blocks", [False, True], ids=["node counts", "blocks"])
def test_cpn_run_starts_the_replayed_jobs_as_logged(tiny, tmp_path, blocks):
    log, machine = tiny
    jobs = run_jobs(tmp_path, log, "--machine-nodes", "1536",
                    *(["--blocks", str(machine)] if blocks else []))
    assert jobs.loc[1, "start"] == OPENS - 600  # running when the window opened
    assert jobs.loc[2, "start"] == OPENS + 600  # a reservation's, not the scheduler's


@pytest.mark.skipif(not (MIRA / "wk1.log").exists(), reason="../shared/data absent")
@pytest.mark.parametrize("blocks", [False, True], ids=["node counts", "blocks"])
def test_cpn_run_on_a_mira_week_replays_it_as_the_api_does(tmp_path, blocks):
    """Each of wk1.log's 49 replayed jobs (35 running as the window opens,
    14 of reservations) starts at its logged start, and every job when
    ``nets.mira.simulate`` starts it (about 2 s, 5 s with blocks)."""
    jobs = run_jobs(tmp_path, MIRA / "wk1.log",
                    *(["--blocks", str(MIRA / "mira.xml")] if blocks else []))
    assert jobs.loc[1385603, "start"] == 1516304767  # running as the window opened
    assert jobs.loc[1390362, "start"] == 1516662396  # R.hw.R0C-M1.linkerror.diags
    workload = read_cobalt_log(MIRA / "wk1.log")
    logged = {job_id: start + workload.time_offset
              for job_id, start in workload.replayed_starts().items()}
    assert len(logged) == 49 and jobs.loc[list(logged), "start"].to_dict() == logged
    config = MiraConfig(blocks=read_blocks(MIRA / "mira.xml") if blocks else None)
    api = simulate(workload, config).jobs.set_index("job_id").sort_index()
    assert list(jobs.index) == list(api.index)
    assert jobs["start"].tolist() == api["start"].tolist()
    assert jobs["end"].tolist() == api["end"].tolist()


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize("option", [["--procs-per-node", "4"], ["--unit", "procs"],
                                    ["--allocation-unit", "4"], ["--allocation-unit", "1"],
                                    ["--unknown-walltime", "reject"], ["--oversized", "clip"],
                                    ["--no-backfill"]], ids=" ".join)
def test_options_a_cobalt_log_does_not_read_are_refused(tiny, tmp_path, capsys, command,
                                                         option):
    """Each used to give the run without it, word for word (on wk1.log too),
    and ``--oversized clip`` rejected the jobs larger than the machine."""
    log, _ = tiny
    out = tmp_path / "out"
    assert main([command, "--trace", str(log), "--machine-nodes", "1536", *option,
                 "--out", str(out), "--no-plots"]) == 2
    assert (f"cpn {command}: error: {option[0]} does not apply to {log}, read as a Cobalt "
            "log: ") in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize("machine", [[], ["--machine-nodes", "2048"]], ids=["default", "2048"])
def test_a_machine_other_than_the_blocks_is_refused(tiny, tmp_path, capsys, command, machine):
    """Nodes outside every block stood idle and counted: 100,000 nodes
    with mira.xml's 49,152 made wk1.log's utilization 8.1 %."""
    log, blocks = tiny
    out = tmp_path / "out"
    assert main([command, "--trace", str(log), *machine, "--blocks", str(blocks),
                 "--out", str(out), "--no-plots"]) == 2
    said = ("--machine-nodes 2048" if machine else "Mira's, the default without "
            "--machine-nodes")
    assert (f"error: --blocks {blocks} is a machine of 1,536 nodes, not "
            f"{2048 if machine else 49_152:,} ({said}): give --machine-nodes 1536"
            ) in capsys.readouterr().err
    assert not (out / "jobs.csv").exists()


def test_the_api_refuses_a_workload_on_another_machine_than_its_blocks(tiny):
    log, blocks = tiny
    with pytest.raises(ValueError, match="the blocks are a machine of 1,536 nodes, the "
                                         "workload's has 2,048"):
        simulate(read_cobalt_log(log, machine_nodes=2048), MiraConfig(blocks=read_blocks(blocks)))


def test_jobs_larger_than_the_machine_are_counted_under_one_reason(tiny):
    """The reason's detail follows a comma, as ``Workload.rejection_counts``
    reads it: "(1,024 > 1,000 nodes)" was counted as a reason of its own,
    "size larger than the machine (1"."""
    log, _ = tiny
    with open(log, "a") as lines:
        lines.write(record("E", 3, OPENS, 1024, "00:10:00", OPENS, OPENS + 60) + "\n")
    workload = read_cobalt_log(log, machine_nodes=512)
    assert workload.rejection_counts() == {"size larger than the machine": 1}
    assert workload.problems == (f"{log}:3: size larger than the machine, 1,024 > 512 nodes",)


@pytest.mark.parametrize("command", ["run", "validate"])
def test_replayed_jobs_past_their_request_are_said_as_logged(tmp_path, capsys, command):
    """Job 1, running as the window opens, ran 40 min of its 30: replayed
    as logged, it was counted as killed at its limit and then blamed on the
    model (wk1.log: 15 such jobs, "slowed or lengthened ... (DVFS,
    checkpoints, restarts)" in a run with neither).  Job 3 the model
    schedules, and kills at its limit."""
    log = tmp_path / "tiny.log"
    log.write_text("\n".join([
        record("E", 1, OPENS - 600, 512, "00:30:00", OPENS - 600, OPENS + 1800),
        record("E", 3, OPENS + 100, 512, "00:10:00", OPENS + 100, OPENS + 1300)]) + "\n")
    out = tmp_path / "out"
    assert main([command, "--trace", str(log), "--machine-nodes", "1536", "--out", str(out),
                 "--no-plots"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "ran past their requested time: killed at their limit (--overrun clamp)" in said
    assert ("1 replayed job (running as the window opens, or of a reservation) ran past the "
            "requested time as logged") in said
    assert "slowed or lengthened" not in said
    if command == "run":
        metrics = json.loads((out / "metrics.json").read_text())
        assert metrics["overrun_jobs"] == 1 and metrics["past_request_jobs"] == 0
