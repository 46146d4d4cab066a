"""What a run's files say about its span and about the jobs it did not
finish: the power series, energy and their times on the trace's clock,
from the first submit to the last job's end in every model; and after
Ctrl-C, ``"complete": false`` with every job of the trace in exactly one
of ``jobs.csv``, ``rejected.csv`` and ``unfinished.csv``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli.main import main
from modules.cpu_scaling import CpuScaling
from modules.job import Job
from modules.power_steps import energy_exact, energy_fixed_step
from modules.run_files import CSV_ROWS_AT_ONCE, UNFINISHED_COLUMNS, write_csv
from modules.tables import Columns
from modules.resilience import FaultTolerance
from nets.energy_saving import SleepingNodes, simulate_puppet
from cpn.interrupts import ctrl_c_requests
from nets.puppet import PuppetConfig, build_net, run_model, simulate
from nets.topper import TopperConfig, simulate as simulate_topper

ROOT = Path(__file__).resolve().parents[1]

# A 4-node machine whose trace starts at a Unix time, far from 0.  Each
# node draws 100 W busy and 50 W idle: jobs 1 and 2 together draw 400 W,
# above the 350 W cap.  Under DVFS both slow down; when job 2 ends the
# level rises and job 1's end moves earlier, leaving its superseded, later
# end in *Running*.
EPOCH = 1_000_000_000
SWF = f"""\
; MaxNodes: 4
; MaxProcs: 4
1 {EPOCH} -1 1000 2 -1 -1 2 2000 -1 1 1 1 1 1 -1 -1 -1
2 {EPOCH} -1  300 2 -1 -1 2  600 -1 1 2 1 1 1 -1 -1 -1
3 {EPOCH + 500} -1  200 1 -1 -1 1  400 -1 1 3 1 1 1 -1 -1 -1
"""
CONSTANT_POWER = ("--power", "constant", "--node-watts", "100", "--idle-fraction", "0.5")
MODELS = {
    "plain": (),
    "block": ("--capping", "block", "--cap", "350W"),
    "wait": ("--capping", "wait", "--cap", "350W"),
    "dvfs": ("--capping", "dvfs", "--cap", "350W"),
    "topper": ("--resilience", "checkpoint", "--unit-nodes", "1"),
    "sleeping": ("--sleep-after", "60"),
}


def read_outputs(out: Path):
    return (pd.read_csv(out / "jobs.csv"), json.loads((out / "metrics.json").read_text()),
            pd.read_csv(out / "power.csv"), pd.read_csv(out / "unfinished.csv"))


@pytest.mark.parametrize("options", MODELS.values(), ids=MODELS.keys())
def test_energy_is_the_power_series_from_the_first_submit_to_the_last_end(tmp_path, capsys,
                                                                          options):
    trace = tmp_path / "epoch.swf"
    trace.write_text(SWF)
    out = tmp_path / "out"
    assert main(["run", "--trace", str(trace), *CONSTANT_POWER, *options,
                 "--energy-steps", "60", "--out", str(out), "--no-plots"]) == 0
    jobs, metrics, power, unfinished = read_outputs(out)
    first, last = jobs["submit"].min(), jobs["end"].max()
    assert first == EPOCH
    assert (metrics["series_start_s"], metrics["series_end_s"]) == (first, last)
    assert power["time"].iloc[0] == first and power["time"].iloc[-1] < last
    energy = energy_exact(power["time"], power["watts"], last)
    assert metrics["energy_j"] == pytest.approx(energy, rel=1e-12)
    assert metrics["power_mean_w"] == pytest.approx(energy / (last - first), rel=1e-12)
    assert metrics["energy_step_60s_j"] == pytest.approx(
        energy_fixed_step(power["time"], power["watts"], last, 60), rel=1e-12)
    # A complete run says so and lists no unfinished job (the file is there,
    # empty, so none from an earlier run in the same directory is left).
    assert metrics["complete"] is True and metrics["unfinished_jobs"] == 0
    assert list(unfinished.columns) == list(UNFINISHED_COLUMNS) and unfinished.empty


def test_a_superseded_dvfs_end_moves_the_clock_but_not_the_series_end():
    """The cause of a DVFS series running past the last end: when the level
    rises, a running job's token is re-issued with an earlier end, and the
    superseded one (a timed token cannot be taken back early) stays in
    *Running* until *Discard* takes it at its own, later time."""
    jobs = [Job(1, 0, 1000, 2, 2000, jp=200.0), Job(2, 0, 300, 2, 600, jp=200.0)]
    config = PuppetConfig(4, node_watts=100.0, idle_fraction=0.5, cap=CpuScaling(350.0))
    result, sim = run_model(build_net(config), jobs, config, time_offset=EPOCH)
    last_end = result.jobs["end"].max()
    assert sim.now + EPOCH > last_end  # Discard fired after the last end
    assert result.end == last_end == result.metrics["series_end_s"]


# -- stopped runs ---------------------------------------------------------------
# On a 2-node machine: job 1 runs for ages; job 2 needs both nodes and
# waits behind it; job 3 backfills beside job 1 and finishes at 120; job 4
# arrives after the run is stopped at the end of its first simulated day.
STOPPED_JOBS = [Job(1, 0, 1e6, 1, 2e6, jp=100.0), Job(2, 10, 100, 2, 200, jp=200.0),
                Job(3, 20, 100, 1, 200, jp=100.0), Job(4, 200_000, 100, 1, 200, jp=100.0)]
OFFSET = 5_000.0
MACHINE = PuppetConfig(2, node_watts=100.0)


def plain(stop):
    return simulate(STOPPED_JOBS, MACHINE, time_offset=OFFSET, stop=stop)


def dvfs(stop):
    config = PuppetConfig(2, node_watts=100.0, cap=CpuScaling(1_000.0))
    return simulate(STOPPED_JOBS, config, time_offset=OFFSET, stop=stop)


def topper(stop):
    config = TopperConfig(MACHINE, FaultTolerance(unit_nodes=1, unit_mttf=float("inf"),
                                                  method="none"))
    return simulate_topper(STOPPED_JOBS, config, time_offset=OFFSET, stop=stop)


def sleeping(stop):
    return simulate_puppet(STOPPED_JOBS, MACHINE, SleepingNodes(timeline=False),
                           time_offset=OFFSET, stop=stop).model


@pytest.mark.parametrize("run", [plain, dvfs, topper, sleeping])
def test_a_stopped_run_lists_its_unfinished_jobs_by_state(run):
    result = run(lambda: True)  # asked to stop at the first look: after day one
    assert result.interrupted
    assert result.end == OFFSET + 86_400 == result.metrics["series_end_s"]
    assert list(result.jobs["job_id"]) == [3]
    assert list(result.jobs["end"]) == [OFFSET + 120]
    assert result.unfinished.to_dict("records") == [
        {"job_id": 1, "state": "running", "submit": OFFSET, "start": OFFSET, "nodes": 1},
        {"job_id": 2, "state": "queued", "submit": OFFSET + 10, "start": pytest.approx(
            float("nan"), nan_ok=True), "nodes": 2},
        {"job_id": 4, "state": "unsubmitted", "submit": OFFSET + 200_000,
         "start": pytest.approx(float("nan"), nan_ok=True), "nodes": 1}]
    assert result.metrics["complete"] is False and result.metrics["unfinished_jobs"] == 3
    # The energy covers the run up to where it stopped.
    assert result.metrics["energy_j"] == pytest.approx(
        energy_exact(result.power_times, result.power_watts, result.end))

    complete = run(lambda: False)
    assert not complete.interrupted and complete.unfinished.empty
    assert complete.metrics["complete"] is True


def test_ctrl_c_becomes_a_request_unless_the_process_ignores_it():
    with ctrl_c_requests() as ctrl_c:
        assert not ctrl_c()
        signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt: a request
        assert ctrl_c()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a sweep's worker
    try:
        with ctrl_c_requests() as ctrl_c:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            signal.raise_signal(signal.SIGINT)
            assert not ctrl_c()
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_stops_cpn_run_between_firings_and_says_what_did_not_finish(tmp_path):
    """A real SIGINT to ``cpn run``.  Job 1 runs for ages (the run cannot
    end before the signal comes), job 2 needs the whole machine and waits
    behind it, the small jobs run beside job 1, job 3 was cancelled.
    ``cpn run`` takes Ctrl-C over before it prints the workload, so the
    signal sent once that line is out stops the run cleanly, wherever it
    comes."""
    small = "\n".join(f"{k} {1000 + 30 * k} -1 20 1 -1 -1 1 40 -1 1 1 1 1 1 -1 -1 -1"
                      for k in range(4, 3004))
    trace = tmp_path / "long.swf"
    trace.write_text("; MaxNodes: 4\n; MaxProcs: 4\n"
                     "1 1000 -1 9999999999 1 -1 -1 1 9999999999 -1 1 1 1 1 1 -1 -1 -1\n"
                     "2 1001 -1 10 4 -1 -1 4 20 -1 1 1 1 1 1 -1 -1 -1\n"
                     "3 1002 -1 0 -1 -1 -1 1 20 -1 5 1 1 1 1 -1 -1 -1\n" + small + "\n")
    out = tmp_path / "out"
    run = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "run", "--trace", str(trace), *CONSTANT_POWER,
         "--out", str(out), "--no-plots"], cwd=ROOT, text=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert "jobs read" in run.stdout.readline()
    run.send_signal(signal.SIGINT)
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 130, stderr
    assert "interrupted at" in stdout and "unfinished in unfinished.csv" in stdout

    jobs, metrics, power, unfinished = read_outputs(out)
    rejected = pd.read_csv(out / "rejected.csv")
    listed = [*jobs["job_id"], *rejected["job_id"], *unfinished["job_id"]]
    assert sorted(listed) == list(range(1, 3004))  # each job once
    assert list(rejected["job_id"]) == [3]
    assert metrics["complete"] is False and metrics["unfinished_jobs"] == len(unfinished)
    assert metrics["rejected_jobs"] == 1 and metrics["jobs"] == len(jobs)

    stopped = metrics["series_end_s"]
    state = unfinished.set_index("job_id")
    assert tuple(state.loc[1, ["state", "start", "nodes"]]) == ("running", 1000, 1)
    assert state.loc[2, "state"] == "queued"
    running = unfinished[unfinished["state"] == "running"]
    assert (running["start"] <= stopped).all() and running["nodes"].sum() <= 4
    assert (unfinished.loc[unfinished["state"] == "queued", "submit"] <= stopped).all()
    assert (unfinished.loc[unfinished["state"] == "unsubmitted", "submit"] > stopped).all()
    assert unfinished.loc[unfinished["state"] != "running", "start"].isna().all()
    assert (jobs["end"] <= stopped).all()
    assert metrics["energy_j"] == pytest.approx(
        energy_exact(power["time"], power["watts"], stopped), rel=1e-12)


def test_a_complete_run_lists_no_unfinished_job_without_copying_the_marking(monkeypatch):
    """The marking of a long run holds every finished job: copying it to
    find the unfinished ones (there are none) would double the memory."""
    from cpn import Simulator
    from modules.job import Job
    from nets.puppet import PuppetConfig, simulate

    def refuse(sim):
        raise AssertionError("the whole marking was copied")

    monkeypatch.setattr(Simulator, "marking", property(refuse))
    jobs = [Job(1, 0, 100, 3, 100), Job(2, 1, 100, 4, 100), Job(3, 2, 1000, 1, 1000)]
    result = simulate(jobs, PuppetConfig(machine_nodes=4, node_watts=100))
    assert result.jobs["start"].tolist() == [0.0, 100.0, 200.0]
    assert result.unfinished.empty and list(result.unfinished.columns) == [
        "job_id", "state", "submit", "start", "nodes"]


@pytest.mark.parametrize("odd", [None, np.nan, "text, quoted"])
def test_write_csv_writes_the_bytes_pandas_writes(tmp_path, odd):
    """jobs.csv and power.csv are written without pandas' float formatting
    and must not change by a byte: floats at the edges of Python's and
    numpy's shortest text (1e16, 1e-05, subnormal, -0.0), signed and
    unsigned integers, more rows than one batch; a NaN (empty field) or a
    string (quoted where it must be)."""
    rng = np.random.default_rng(0)
    rows = CSV_ROWS_AT_ONCE + 7
    edges = [0.1, 1e16, 1.5e16, 9999999999999998.0, 1e-05, 1e-04, -0.0, 5e-324, 1e22, 2.0**60]
    floats = np.concatenate([edges, rng.standard_normal(rows - len(edges))
                             * 10.0 ** rng.integers(-20, 20, rows - len(edges))])
    frame = pd.DataFrame({"time": floats, "job_id": np.arange(rows) - 5,
                          "nodes": np.arange(rows, dtype=np.uint32)})
    if odd is not None:
        frame["extra"] = odd
    write_csv(frame, tmp_path / "ours.csv")
    frame.to_csv(tmp_path / "pandas.csv", index=False)
    assert (tmp_path / "ours.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()


FIVE = ["job_id", "state", "submit", "start", "alone"]


@pytest.mark.parametrize("rows, names", [
    ([], FIVE),
    ([(1, "running", 2.5, 3.0, True), (2, 'say "no", twice', np.nan, np.inf, False),
      (3, None, -np.inf, 1e16, True)], FIVE),
    ([(np.nan,), (1.5,)], ["start"])], ids=["empty", "odd", "one-column"])
def test_write_csv_of_columns_writes_the_bytes_pandas_writes_of_their_frame(tmp_path, rows,
                                                                           names):
    """A table kept as columns (a run's unfinished and rejected jobs) is
    written without pandas, as pandas writes the DataFrame it stands for:
    NaN empty (quoted when alone on its line), infinities as ``inf``, text
    quoted where it must be."""
    table = Columns.from_rows(rows, names)
    write_csv(table, tmp_path / "ours.csv")
    table.frame().to_csv(tmp_path / "pandas.csv", index=False)
    assert (tmp_path / "ours.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()
